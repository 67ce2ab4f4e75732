#include "python/src/python_preconditioner.hpp"

#include <pybind11/numpy.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "python/src/device_sync.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit::python {

namespace {

OperatorInfo python_info(index_t n, Backend backend) {
  OperatorInfo i;
  i.rows = i.cols = n;
  i.backend = backend;
  i.format = "python";
  return i;
}

void owned_by_the_solver(void*) {}

// A NumPy view of n values at p, no copy: its base is a capsule that frees nothing (the solver
// owns the memory; fn must not keep its arguments past the call).
template <class V>
py::array_t<V> view(const V* p, index_t n, bool writable) {
  py::array_t<V> a({static_cast<py::ssize_t>(n)}, {static_cast<py::ssize_t>(sizeof(V))}, p,
                   py::capsule(p, &owned_by_the_solver));
  if (!writable) a.attr("flags").attr("writeable") = false;
  return a;
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

template <class V>
PythonPreconditioner<V>::PythonPreconditioner(py::object fn, Arrays arrays, index_t n,
                                              Backend backend)
    : Operator<V>(python_info(n, backend)), fn_(std::move(fn)), arrays_(arrays) {
  if (arrays == Arrays::device_arrays && backend != Backend::cuda)
    throw InputError("M: device arrays need the cuda backend");
}

template <class V>
void PythonPreconditioner<V>::call_host(const V* x, const V* y, V* z, V alpha, V beta) const {
  const index_t n = this->rows();
  py::gil_scoped_acquire gil;
  try {
    fn_(view(x, n, false), y ? py::object(view(y, n, false)) : py::object(py::none()),
        view(z, n, true), static_cast<double>(alpha), static_cast<double>(beta));
  } catch (py::error_already_set&) {
    error_ = std::current_exception();
    throw Error("stopped by an exception in M");
  }
}

template <class V>
void PythonPreconditioner<V>::apply(const V* x, const V* y, V* z, V alpha, V beta) const {
  if (error_) throw Error("stopped by an exception in M");
  if (beta == V(0)) y = nullptr;  // Operator::apply: y is not read when beta == 0
  if (this->backend() == Backend::cpu) {
    call_host(x, y, z, alpha, beta);
    return;
  }
  // CUDA: what is queued on spmvkit's stream must be done before Python reads x, and a graph
  // capture cannot record a call into Python (the capture fails; the solver then runs
  // without a graph).
  if (stream_capturing())
    throw Error("M: a Python preconditioner cannot be captured in a CUDA graph");
  synchronize(Backend::cuda);
  const std::size_t n = static_cast<std::size_t>(this->rows()), bytes = n * sizeof(V);
  if (arrays_ == Arrays::host_arrays) {
    std::vector<V> xh(n), yh(y ? n : 0), zh(n);
    copy_to_host(xh.data(), address(x), bytes);
    if (y) copy_to_host(yh.data(), address(y), bytes);
    call_host(xh.data(), y ? yh.data() : nullptr, zh.data(), alpha, beta);
    copy_to_device(address(z), zh.data(), bytes);
    return;
  }
  py::gil_scoped_acquire gil;
  try {
    fn_(address(x), address(y), address(z), static_cast<double>(alpha), static_cast<double>(beta));
  } catch (py::error_already_set&) {
    error_ = std::current_exception();
    throw Error("stopped by an exception in M");
  }
}

template class PythonPreconditioner<float>;
template class PythonPreconditioner<double>;

}  // namespace spmvkit::python
