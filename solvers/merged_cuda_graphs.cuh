// The merged CUDA solver's CUDA graphs of a group of iterations (solvers/merged_cuda.cu
// includes this after MergedSolve, inside its anonymous namespace): the WHILE graphs where
// conditional nodes work, else the unrolled ones.
#pragma once

// The WHILE graphs where conditional nodes work (any maxiter: they stop there), else the
// unrolled ones (full groups only).
// SPMVKIT_SOLVER_GRAPHS=unrolled skips the WHILE graphs, for compute-sanitizer's synccheck,
// which reports every block barrier inside a conditional node as divergent: over the solver
// tests 864 barrier errors with these graphs, 0 with the unrolled ones, and a hand-written
// reduction alone in a WHILE node gave 59,136 (scripts/sync_while_probe.cu; docs/results.md,
// "Four H100s at 21e88f8"). scripts/gpu-sanitize.sh sets it under synccheck.
inline bool while_graphs_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("SPMVKIT_SOLVER_GRAPHS");
    return !(v && std::strcmp(v, "unrolled") == 0);
  }();
  return allowed;
}

template <class V>
bool MergedSolve<V>::capture_graphs() {
  if (while_graphs_allowed() && capture_while_graphs()) {
    while_graphs_ = true;
    return true;
  }
  return o_.maxiter >= k_ && capture_unrolled_graphs();
}

// Per slot: group_begin -> WHILE { one iteration; group_continue } -> the copies. False
// (and no graph) where conditional nodes are missing (CUDA < 12.4, an older driver) or the
// operator's apply cannot be captured into a conditional body.
template <class V>
bool MergedSolve<V>::capture_while_graphs() {
#if CUDART_VERSION >= 12040
  using namespace ops::krylov;
  constexpr cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal;
  for (int slot = 0; slot < 2; ++slot) {
    Graph g;
    if (cudaGraphCreate(&g.graph, 0) != cudaSuccess) return failed();
    cudaGraphConditionalHandle handle{};
    if (cudaGraphConditionalHandleCreate(&handle, g.graph, 0, cudaGraphCondAssignDefault) !=
        cudaSuccess)
      return failed();
    // group_begin, the graph's first node.
    if (cudaStreamBeginCaptureToGraph(stream_, g.graph, nullptr, nullptr, 0, mode) != cudaSuccess)
      return failed();
    group_begin<<<1, 1, 0, stream_>>>(state_, handle);
    cudaGraph_t captured = nullptr;
    if (cudaStreamEndCapture(stream_, &captured) != cudaSuccess) return failed();
    cudaGraphNode_t begin = nullptr;
    std::size_t count = 1;
    if (cudaGraphGetNodes(g.graph, &begin, &count) != cudaSuccess || count != 1) return failed();
    // The WHILE node after it; its body: one iteration and group_continue.
    cudaGraphNodeParams cp{};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = handle;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    cudaGraphNode_t loop = nullptr;
#if CUDART_VERSION >= 13000
    const cudaError_t added = cudaGraphAddNode(&loop, g.graph, &begin, nullptr, 1, &cp);
#else
    const cudaError_t added = cudaGraphAddNode(&loop, g.graph, &begin, 1, &cp);
#endif
    if (added != cudaSuccess) return failed();
    if (cudaStreamBeginCaptureToGraph(stream_, cp.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                      mode) != cudaSuccess)
      return failed();
    bool ok = true;
    try {
      enqueue_iteration();
      group_continue<<<1, 1, 0, stream_>>>(state_, k_, handle);
    } catch (const std::exception&) {
      ok = false;
    }
    if (cudaStreamEndCapture(stream_, &captured) != cudaSuccess || !ok) return failed();
    // The copies after the loop.
    if (cudaStreamBeginCaptureToGraph(stream_, g.graph, &loop, nullptr, 1, mode) != cudaSuccess)
      return failed();
    try {
      enqueue_copies(slot);
    } catch (const std::exception&) {
      ok = false;
    }
    if (cudaStreamEndCapture(stream_, &captured) != cudaSuccess || !ok) return failed();
    if (cudaGraphInstantiate(&ws_->graph[slot].exec, g.graph, 0) != cudaSuccess) return failed();
  }
  return true;
#else
  return false;
#endif
}

// Clears a failed capture's error and any half-built executable graph.
template <class V>
bool MergedSolve<V>::failed() {
  cudaGetLastError();
  ws_->drop_graphs();
  return false;
}

// Captures check_every iterations per slot. False (and no graph) when the operator's apply
// cannot be captured (it synchronises or allocates): the loop then launches directly.
template <class V>
bool MergedSolve<V>::capture_unrolled_graphs() {
  for (int slot = 0; slot < 2; ++slot) {
    cudaGraph_t graph = nullptr;
    SPMVKIT_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    bool ok = true;
    try {
      enqueue_group(slot, k_);
    } catch (const std::exception&) {
      ok = false;
    }
    const cudaError_t end = cudaStreamEndCapture(stream_, &graph);
    if (!ok || end != cudaSuccess || graph == nullptr) {
      if (graph) cudaGraphDestroy(graph);
      return failed();  // clears the capture error
    }
    const cudaError_t inst = cudaGraphInstantiate(&ws_->graph[slot].exec, graph, 0);
    cudaGraphDestroy(graph);
    if (inst != cudaSuccess) return failed();
  }
  return true;
}
