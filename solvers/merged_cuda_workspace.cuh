// The merged CUDA solver's per-thread workspace (solvers/merged_cuda.cu includes this inside
// its anonymous namespace): the captured graphs' owners and key, the work vectors, pinned
// copies and graphs kept from one solve to the next, and its lease.
#pragma once


struct GraphExec {
  cudaGraphExec_t exec = nullptr;
  GraphExec() = default;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  ~GraphExec() { reset(); }
  void reset() {
    if (exec) cudaGraphExecDestroy(exec);
    exec = nullptr;
  }
};

struct Graph {
  cudaGraph_t graph = nullptr;
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() {
    if (graph) cudaGraphDestroy(graph);
  }
};

// What a captured group bakes in besides the workspace's own buffers: the operator and the
// preconditioner (by Operator::id, never by address: a new operator may reuse a destroyed
// one's address), x, n (and so the grid), the method, check_every (the history's length and
// the group's end) and the stream. Everything else that changes from one solve to the next
// (tol, maxiter, the initial scalars) lives in the KrylovState uploaded by each solve.
struct GraphKey {
  std::uint64_t a = 0, m = 0;
  const void* x = nullptr;
  std::size_t n = 0;
  int method = -1, check_every = 0;
  cudaStream_t stream = nullptr;
  bool operator==(const GraphKey& o) const {
    return a == o.a && m == o.m && x == o.x && n == o.n && method == o.method &&
           check_every == o.check_every && stream == o.stream;
  }
};

// The merged solver's work vectors, scalars, pinned host copies and captured graphs, kept per
// thread from one solve to the next: allocating and freeing them (cudaMalloc, cudaFree, which
// waits for the device; cudaHostAlloc), and capturing and instantiating two graphs, cost
// several ms a solve on a large system, against ~1 ms an iteration (issue 26). A solve reuses
// them when it needs no more than they hold (they grow otherwise, and the graphs go), and
// reuses the graphs when its GraphKey equals the one they were captured for. A solve started
// while they are in use on the same thread (from a callback) gets a workspace of its own.
// They are freed when the thread ends, by release_solver_workspace(), or when a device
// allocation runs out of memory (device_alloc's release hook); until then n values of each
// vector of the largest solve stay allocated.
template <class V>
struct Workspace {
  int device = -1;
  cuda::DeviceBuffer<V> r, r0, p, v, s, t, ph, sh, partials, dhist;
  cuda::DeviceBuffer<unsigned> counter;
  cuda::DeviceBuffer<KrylovState<V>> state;
  cuda::DeviceBuffer<double> dsums;
  cuda::PinnedBuffer<V> hist;                 // the host's copies of the residuals
  cuda::PinnedBuffer<KrylovState<V>> hstate;  // ... and of the state, one per slot
  cuda::PinnedBuffer<double> hsums;
  GraphKey key;
  bool graphs = false;        // graph[] holds graphs captured for `key`
  bool while_graphs = false;  // ... ending their groups on the GPU
  GraphExec graph[2];
  bool in_use = false;

  void drop_graphs() {
    for (GraphExec& g : graph) g.reset();
    graphs = while_graphs = false;
  }
  void clear() {
    drop_graphs();
    for (cuda::DeviceBuffer<V>* b : {&r, &r0, &p, &v, &s, &t, &ph, &sh, &partials, &dhist})
      *b = cuda::DeviceBuffer<V>();
    counter = cuda::DeviceBuffer<unsigned>();
    state = cuda::DeviceBuffer<KrylovState<V>>();
    dsums = cuda::DeviceBuffer<double>();
    hist = cuda::PinnedBuffer<V>();
    hstate = cuda::PinnedBuffer<KrylovState<V>>();
    hsums = cuda::PinnedBuffer<double>();
    device = -1;
  }
};

// Grows `buf` to at least n elements; true when it reallocated (contents and address gone).
template <class T>
bool grow(cuda::DeviceBuffer<T>& buf, std::size_t n) {
  if (buf.size() >= n) return false;
  buf = cuda::DeviceBuffer<T>();  // the old one first: the peak stays at one copy
  buf = cuda::DeviceBuffer<T>(n);
  return true;
}
template <class T>
bool grow(cuda::PinnedBuffer<T>& buf, std::size_t n) {
  if (buf.size() >= n) return false;
  buf = cuda::PinnedBuffer<T>();
  buf = cuda::PinnedBuffer<T>(n);
  return true;
}

template <class V>
Workspace<V>& thread_workspace() {
  thread_local Workspace<V> cached;
  return cached;
}

// Frees a workspace no solve is using; true when it held anything.
template <class V>
bool release_workspace(Workspace<V>& w) {
  if (w.in_use || (w.r.size() == 0 && w.hist.size() == 0 && !w.graphs)) return false;
  w.clear();
  return true;
}

template <class V>
class WorkspaceLease {
 public:
  WorkspaceLease() {
    Workspace<V>& cached = thread_workspace<V>();
    if (!cached.in_use) {
      ws_ = &cached;
      cached.in_use = true;
    } else {
      own_ = std::make_unique<Workspace<V>>();
      ws_ = own_.get();
    }
  }
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  ~WorkspaceLease() {
    if (!own_) ws_->in_use = false;
  }
  Workspace<V>& operator*() { return *ws_; }
  Workspace<V>* operator->() { return ws_; }

 private:
  Workspace<V>* ws_ = nullptr;
  std::unique_ptr<Workspace<V>> own_;
};

