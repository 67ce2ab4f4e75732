// Does compute-sanitizer's synccheck report barrier errors for a kernel inside a WHILE
// conditional node when the same kernel is clean launched plainly or from a plain graph?
//   nvcc -arch=sm_90 -std=c++17 -lineinfo -o p scripts/sync_while_probe.cu
//   for m in plain graph while; do compute-sanitizer --tool synccheck ./p $m; done
// On an H100 (CUDA 13.0, driver 580.159.04, 2026-11-26): plain 0 errors, graph 0, while 59,136
// "Barrier error detected. Divergent thread(s) in warp" (docs/results.md, 21e88f8).
// The kernel: a hand-written shared-memory tree reduction, every thread of the block reaching
// every __syncthreads (no CUB, no early exit). Modes: plain, graph (captured), while (the
// kernel in the body of a WHILE node, 3 trips, as solvers/merged_cuda_graphs.cuh builds it).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void block_sum(int n, const double* x, double* out) {
  __shared__ double s[256];
  double v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
__global__ void begin(int* trips, cudaGraphConditionalHandle h) {
  *trips = 0;
  cudaGraphSetConditional(h, 1);
}
__global__ void next(int* trips, cudaGraphConditionalHandle h) {
  cudaGraphSetConditional(h, ++*trips < 3);
}
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "plain";
  const int n = 1 << 20;
  double *x, *out; int* trips;
  CK(cudaMalloc(&x, n * sizeof(double))); CK(cudaMalloc(&out, sizeof(double))); CK(cudaMalloc(&trips, 4));
  CK(cudaMemset(x, 0, n * sizeof(double))); CK(cudaMemset(out, 0, sizeof(double)));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  if (!strcmp(mode, "plain")) {
    for (int i = 0; i < 3; ++i) block_sum<<<264, 256, 0, s>>>(n, x, out);
  } else if (!strcmp(mode, "graph")) {
    cudaGraph_t g; cudaGraphExec_t e;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < 3; ++i) block_sum<<<264, 256, 0, s>>>(n, x, out);
    CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiate(&e, g, 0)); CK(cudaGraphLaunch(e, s));
  } else {
    cudaGraph_t g, cap; cudaGraphExec_t e;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
    CK(cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
    begin<<<1, 1, 0, s>>>(trips, h);
    CK(cudaStreamEndCapture(s, &cap));
    cudaGraphNode_t first; size_t count = 1;
    CK(cudaGraphGetNodes(g, &first, &count));
    cudaGraphNodeParams cp{};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h; cp.conditional.type = cudaGraphCondTypeWhile; cp.conditional.size = 1;
    cudaGraphNode_t loop;
    CK(cudaGraphAddNode(&loop, g, &first, nullptr, 1, &cp));
    CK(cudaStreamBeginCaptureToGraph(s, cp.conditional.phGraph_out[0], nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
    block_sum<<<264, 256, 0, s>>>(n, x, out);
    next<<<1, 1, 0, s>>>(trips, h);
    CK(cudaStreamEndCapture(s, &cap));
    CK(cudaGraphInstantiate(&e, g, 0)); CK(cudaGraphLaunch(e, s));
  }
  CK(cudaStreamSynchronize(s));
  int t = -1; CK(cudaMemcpy(&t, trips, 4, cudaMemcpyDeviceToHost));
  printf("%s done (trips %d)\n", mode, !strcmp(mode, "while") ? t : 3);
  return 0;
}
