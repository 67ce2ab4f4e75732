// M given in Python (spmvkit.linalg's `M=`): an Operator<V> whose apply calls back into
// Python, so that the C++ solvers (solve() in spmvkit/solvers.hpp) use it as they use the
// library's own preconditioners, as one apply z = alpha*M*x + beta*y between their kernels.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>

#include "spmvkit/operator.hpp"

namespace spmvkit::python {

namespace py = pybind11;

// `fn` is called with the GIL held (the solves run without it) as fn(x, y, z, alpha, beta)
// and must write z = alpha*M*x + beta*y; y is None (or 0) when beta == 0. Its arguments:
// - host_arrays (the CPU backend always; the CUDA backend for an M that works on the host):
//   NumPy arrays; x and y read-only. On the CPU backend they are the solver's own vectors,
//   no copy; on CUDA, host copies (x and y downloaded, z uploaded after the call).
// - device_arrays (an M that works on CuPy arrays; CUDA backend only): the device addresses
//   as ints, of n values each. spmvkit's stream is synchronised before the call, so the
//   vectors are ready on any stream; `fn` must have finished its work on the device when
//   it returns (python/spmvkit/linalg.py synchronises CuPy's stream).
// A Python exception in `fn` stops the solve: it is kept (error()) and an Error is thrown
// through the solver, for the caller to raise it again once the solver has unwound.
// Never captured in a CUDA graph: apply throws while spmvkit's stream is being captured (the
// merged CUDA solver then launches its iterations directly).
template <class V>
class PythonPreconditioner final : public Operator<V> {
 public:
  enum class Arrays { host_arrays, device_arrays };
  // Holds a reference to fn: construct and destroy with the GIL held.
  PythonPreconditioner(py::object fn, Arrays arrays, index_t n, Backend backend);

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override;

  // The Python exception that stopped the solve, or null.
  std::exception_ptr error() const { return error_; }

 private:
  void call_host(const V* x, const V* y, V* z, V alpha, V beta) const;
  py::object fn_;
  Arrays arrays_;
  mutable std::exception_ptr error_;
};

extern template class PythonPreconditioner<float>;
extern template class PythonPreconditioner<double>;

}  // namespace spmvkit::python
