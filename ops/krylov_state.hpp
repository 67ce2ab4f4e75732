// The scalars of a merged Krylov solve, kept in GPU memory for the whole solve (merged-kernels
// paper section 3: "all parameters remain in GPU memory"); the host reads them only through an
// asynchronous copy every few iterations. Plain data, shared by the kernels and the driver.
#pragma once

namespace spmvkit::ops {

enum KrylovStatus : int { kRunning = 0, kConverged = 1, kBreakdown = 2, kNonFinite = 3 };
// Which scalar broke down (KrylovState::breakdown).
enum KrylovBreakdown : int {
  kNoBreakdown = 0,
  kRho = 1,    // BiCGSTAB rho = (r0^, r) == 0
  kR0V = 2,    // BiCGSTAB (r0^, v) == 0 in alpha = rho / (r0^, v)
  kOmega = 3,  // BiCGSTAB omega = (t, s) / (t, t) == 0
  kPAp = 4,    // CG (p, A p) == 0 in alpha = (r, r) / (p, A p)
  kRZ = 5,     // preconditioned CG: (r, M r) == 0 (M not positive definite)
};
inline const char* breakdown_name(int b) {
  switch (b) {
    case kRho:
      return "rho = (r0^, r) is zero";
    case kR0V:
      return "(r0^, v) is zero in alpha = rho / (r0^, v)";
    case kOmega:
      return "omega = (t, s) / (t, t) is zero";
    case kPAp:
      return "(p, A p) is zero in alpha = (r, r) / (p, A p)";
    case kRZ:
      return "(r, M r) is zero in preconditioned CG (is the preconditioner positive definite?)";
    default:
      return "";
  }
}

template <class V>
struct KrylovState {
  V rho_old, rho;  // BiCGSTAB: (r0^, r) of the last two iterations; CG: (r, z), z = M r
  V alpha, beta, omega;
  V res;          // ||r|| (recursive)
  V tol;          // max(rtol ||b||, atol)
  int status;     // KrylovStatus
  int breakdown;  // KrylovBreakdown
  int iterations;
  int iteration_limit;  // maxiter: the device-side loop (merged_cuda.cu) stops there
};

}  // namespace spmvkit::ops
