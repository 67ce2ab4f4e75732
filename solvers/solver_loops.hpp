// The solvers' iteration loops, one per implementation and backend (solvers.cpp validates the
// input, handles ||b|| = 0, and computes the true residual and the timing split around them).
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "ops/krylov_state.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/solvers.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit::solvers_detail {

struct LoopResult {
  SolveStatus status = SolveStatus::max_iterations;
  std::string breakdown;
  int iterations = 0;
  double residual_norm = 0;
  double loop_ms = 0;  // the iterations only (setup excluded)
  bool cuda_graph = false;
  // The per-solve fixed cost by phase (merged CUDA loop), measured with a stream
  // synchronisation around each only under SPMVKIT_SOLVE_PROFILE=1 (solve_profile()).
  double alloc_ms = 0;    // work vectors (a cached workspace: nothing to allocate)
  double r0_ms = 0;       // r0 = b - A x0, ||r0||, the initial vectors and state
  double capture_ms = 0;  // capturing and instantiating the CUDA graphs (0 when reused)
  bool graphs_reused = false;
};

// SPMVKIT_SOLVE_PROFILE=1 in the environment: solve() prints each solve's phases (allocation,
// r0, capture, loop, true residual; ms, the stream synchronised around each) to stderr.
bool solve_profile();

// A vector kept per thread from one solve to the next: on CUDA an allocation and its free
// (cudaMalloc, cudaFree, which waits for the device) cost more than a small solve does. `Tag`
// keeps different uses apart; a solve started while the vector is leased on the same thread
// (from a callback) gets a vector of its own. Grown, never shrunk: it holds n values of the
// largest solve of this thread, on each backend, until release() (release_solver_workspace).
// The uses (release_solver_workspace frees each).
enum ScratchTag : int { kTrueResidual, kMixedResidual, kMixedResidual32, kMixedX32 };
template <class V, int Tag>
class ScratchLease {
 public:
  ScratchLease(std::size_t n, Backend be) {
    Slot& slot = slots()[be == Backend::cpu ? 0 : 1];
    if (!slot.in_use) {
      slot_ = &slot;
      slot.in_use = true;
      if (slot.v.size() < n || slot.v.backend() != be) {
        slot.v = Vector<V>();  // the old one first: the peak stays at one copy
        try {
          slot.v = Vector<V>(n, be);
        } catch (...) {
          slot.in_use = false;
          throw;
        }
      }
      data_ = slot.v.data();
    } else {
      own_ = Vector<V>(n, be);
      data_ = own_.data();
    }
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  ~ScratchLease() {
    if (slot_) slot_->in_use = false;
  }
  V* data() { return data_; }

  // Frees this thread's vectors that no solve is using; true when it freed any.
  static bool release() {
    bool freed = false;
    for (Slot& slot : slots())
      if (!slot.in_use && slot.v.size() > 0) {
        slot.v = Vector<V>();
        freed = true;
      }
    return freed;
  }

 private:
  struct Slot {
    Vector<V> v;
    bool in_use = false;
  };
  static Slot (&slots())[2] {
    thread_local Slot cached[2];
    return cached;
  }
  Slot* slot_ = nullptr;
  Vector<V> own_;
  V* data_ = nullptr;
};

// Reductions over the operator's rows, wherever they live: the local result, summed over the
// ranks by Operator::reduce_sum when the operator is distributed (dist/); otherwise the
// local result untouched (the same numbers as before the hook existed).
template <class V>
V global_dot(const Operator<V>& a, double local) {
  a.reduce_sum(&local, 1);
  return static_cast<V>(local);
}
template <class V>
V global_nrm2(const Operator<V>& a, double local_nrm2) {
  double sq = local_nrm2 * local_nrm2;
  return a.reduce_sum(&sq, 1) ? static_cast<V>(std::sqrt(sq)) : static_cast<V>(local_nrm2);
}

// --- reliable updates (solve_mixed's default scheme, solvers/refine.cpp) ---------------------
// A float loop given a ReplaceFn calls it where a plain loop would stop converged (its
// recursive residual at its tol, the trigger) and where a segment reaches its iteration
// limit: the driver adds the correction x to its double solution, zeroes x, recomputes the
// residual in double and writes it, scaled, to r. Resuming, the loop keeps p (and BiCGSTAB's
// r0^ and v), rescaled by `ratio`, and takes its scalars from the new r
// (resume_after_replacement); iterations go on counting.
struct Replacement {
  bool resume = false;  // false: the driver is finished; the loop returns at once
  double ratio = 1;     // sigma_old / sigma_new, the float vectors' scales (x / sigma)
  double tol = 0;       // the next trigger: ||r|| <= tol
  int limit = 0;        // iterations of the next segment at most
};
template <class V>
using ReplaceFn = std::function<Replacement(int segment_iterations, V* x, V* r)>;

// The loop's side of a replacement, on either backend: p (and v) times `ratio`; BiCGSTAB
// rho = (r0^, r), beta from it; CG z = M r (into z; r without m), rz = (r, z), and at the
// trigger p = z + beta p. `at_limit`: the segment ended at its limit, after the iteration's
// scalars moved on (rho_old is then the previous rho). st.status is kRunning, or the
// breakdown / non-finite it met (st.breakdown names it).
template <class V>
void resume_after_replacement(const Operator<V>& a, const Operator<V>* m, SolverMethod method,
                              bool at_limit, double ratio, const V* r, const V* r0, V* p, V* v,
                              V* z, ops::KrylovState<V>& st);

// Each loop: r0 = b - A x; stops at once when ||r0|| <= tol; history (when non-null) gets
// ||r_k|| for k = 0 .. iterations; options.callback is called with each. `m` is the
// preconditioner (nullptr: none), applied on the right (BiCGSTAB) or as in PCG, so r stays
// the residual of A x = b. BiCGSTAB's shadow residual is ops::shadow_residual's with seed
// `shadow` (solve() takes another seed for each restart after a breakdown).
template <class V>
LoopResult reference_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x, double tol,
                          const SolverOptions& o, std::vector<double>* history,
                          unsigned shadow = 0);
template <class V>
LoopResult merged_cpu_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x, double tol,
                           const SolverOptions& o, std::vector<double>* history,
                           const ReplaceFn<V>* replace = nullptr, unsigned shadow = 0);
#if SPMVKIT_HAVE_CUDA
// Frees this thread's merged-solver workspaces (float and double) that no solve is using.
bool release_cuda_workspaces();
template <class V>
LoopResult merged_cuda_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x,
                            double tol, const SolverOptions& o, std::vector<double>* history,
                            const ReplaceFn<V>* replace = nullptr, unsigned shadow = 0);
#endif

}  // namespace spmvkit::solvers_detail
