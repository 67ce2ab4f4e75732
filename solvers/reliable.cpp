// Reliable updates (Sleijpen and van der Vorst, "Reliable updated residuals in hybrid
// Bi-CG methods", Computing 56, 1996): the float Krylov loop's side of a residual
// replacement, shared by the merged CPU and CUDA loops (solve_mixed's default scheme,
// solvers/refine.cpp). The driver has replaced the recursive residual r by the true one
// (computed in double, rescaled to norm ~1); the search direction p is kept, so the Krylov
// space built so far is not lost as a restart would lose it.
#include <cmath>

#include "ops/blas.hpp"
#include "solvers/solver_loops.hpp"

namespace spmvkit::solvers_detail {

template <class V>
void resume_after_replacement(const Operator<V>& a, const Operator<V>* m, SolverMethod method,
                              bool at_limit, double ratio, const V* r, const V* r0, V* p, V* v,
                              V* z, ops::KrylovState<V>& st) {
  const Backend be = a.backend();
  const std::size_t n = static_cast<std::size_t>(a.rows());
  // The float vectors hold quantities divided by the scale sigma; the new residual came with
  // sigma_new, so p (and v = A M p) move to it: x ratio = sigma_old / sigma_new.
  ops::scal(be, n, static_cast<V>(ratio), p);
  auto fail = [&](int status, int breakdown) {
    st.status = status;
    st.breakdown = breakdown;
  };
  st.status = ops::kRunning;
  if (method == SolverMethod::bicgstab) {
    ops::scal(be, n, static_cast<V>(ratio), v);
    // beta = (rho_i / rho_{i-1}) (alpha / omega) with rho_i = (r0^, r_i) taken from the
    // replaced residual. r0^ is kept as it is: its scale cancels in every ratio it enters.
    // rho_{i-1}: the loop stops at its trigger before it moves rho on, at its segment limit
    // after (rho_old then). Either scales like r: x ratio.
    const V rho_prev = (at_limit ? st.rho_old : st.rho) * static_cast<V>(ratio);
    const V rho = global_dot(a, static_cast<double>(ops::dot(be, n, r0, r)));
    if (!std::isfinite(rho) || !std::isfinite(rho_prev)) return fail(ops::kNonFinite, 0);
    if (st.omega == V(0)) return fail(ops::kBreakdown, ops::kOmega);
    if (rho == V(0) || rho_prev == V(0)) return fail(ops::kBreakdown, ops::kRho);
    st.beta = (rho / rho_prev) * (st.alpha / st.omega);
    st.rho_old = rho_prev;
    st.rho = rho;
    return;
  }
  // CG: z = M r (r itself without M), rz = (r, z). At the trigger the loop stopped before
  // its p update: p = z + beta p with beta = rz / rz_old (rz_old scales as r^2: x ratio^2).
  // At a segment limit p was already updated from the old residual: it stays a valid
  // direction; only rz is taken from the new residual.
  const V* zz = r;
  if (m) {
    m->apply(r, nullptr, z, V(1), V(0));
    zz = z;
  }
  const V rz = global_dot(a, static_cast<double>(ops::dot(be, n, r, zz)));
  if (!std::isfinite(rz)) return fail(ops::kNonFinite, 0);
  if (!(rz > V(0))) return fail(ops::kBreakdown, ops::kRZ);
  if (!at_limit) {
    const V rz_prev = st.rho * static_cast<V>(ratio * ratio);
    if (!std::isfinite(rz_prev) || rz_prev == V(0)) return fail(ops::kBreakdown, ops::kRZ);
    ops::scal(be, n, rz / rz_prev, p);
    ops::axpy(be, n, V(1), zz, p);
  }
  st.rho = rz;
}

template void resume_after_replacement<float>(const Operator<float>&, const Operator<float>*,
                                              SolverMethod, bool, double, const float*,
                                              const float*, float*, float*, float*,
                                              ops::KrylovState<float>&);
template void resume_after_replacement<double>(const Operator<double>&, const Operator<double>*,
                                               SolverMethod, bool, double, const double*,
                                               const double*, double*, double*, double*,
                                               ops::KrylovState<double>&);

}  // namespace spmvkit::solvers_detail
