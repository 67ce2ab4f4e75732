#include "python/src/core_operator.hpp"

#include <pybind11/stl.h>

#include <cstring>
#include <exception>
#include <vector>

#include "python/src/device_sync.hpp"
#include "python/src/python_preconditioner.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/preconditioners.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit::python {

namespace {

template <class T>
std::vector<T> to_vector(const py::array& a, const char* what) {
  if (!py::isinstance<py::array_t<T>>(a) || a.ndim() != 1)
    throw InputError(std::string(what) + ": expected a 1-D array of " +
                     std::string(py::str(py::dtype::of<T>())));
  const auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  return std::vector<T>(c.data(), c.data() + c.size());
}

// A host array the kernels may read or write through a raw pointer: 1-D, contiguous, the
// operator's dtype, `n` elements.
template <class V>
V* host_pointer(const py::array& a, py::ssize_t n, const char* what, bool write) {
  if (!py::isinstance<py::array_t<V>>(a))
    throw InputError(std::string(what) + ": dtype " + std::string(py::str(a.dtype())) +
                     ", the operator's is " + std::string(py::str(py::dtype::of<V>())));
  if (a.ndim() != 1 || a.shape(0) != n)
    throw InputError(std::string(what) + ": expected shape (" + std::to_string(n) + ",)");
  if (!(a.flags() & py::array::c_style)) throw InputError(std::string(what) + ": not contiguous");
  if (write && !a.writeable()) throw InputError(std::string(what) + ": read-only");
  return static_cast<V*>(const_cast<void*>(a.data()));
}

bool overlap(std::uintptr_t a, std::size_t a_bytes, std::uintptr_t b, std::size_t b_bytes) {
  return a_bytes > 0 && b_bytes > 0 && a < b + b_bytes && b < a + a_bytes;
}

// x must not alias z; y may be z itself but not overlap it otherwise (Operator::apply).
void check_aliasing(std::uintptr_t x, std::size_t x_bytes, std::uintptr_t y, std::uintptr_t z,
                    std::size_t z_bytes) {
  if (overlap(x, x_bytes, z, z_bytes)) throw InputError("out: overlaps x (x must not alias out)");
  if (y != 0 && y != z && overlap(y, z_bytes, z, z_bytes))
    throw InputError("out: overlaps y without being y");
}

SolverOptions options_for(const SolveRequest& r, std::exception_ptr& callback_error) {
  SolverOptions o;
  o.method = parse_solver_method(r.method);
  o.impl = parse_solver_impl(r.impl);
  o.rtol = r.rtol;
  o.atol = r.atol;
  o.maxiter = r.maxiter;
  if (r.check_every > 0) o.check_every = r.check_every;
  if (r.cuda_graph >= 0) o.cuda_graph = r.cuda_graph != 0;
  if (r.has_m()) {
    if (r.check_every <= 0) o.check_every = 1;
    o.cuda_graph = false;
  }
  if (!r.callback.is_none()) {
    // Called with the GIL released (the solve runs without it). A Python exception stops the
    // solve: it is kept here and raised again once the solver has unwound.
    // A borrowed handle (request.callback keeps it alive): copies of the std::function may be
    // destroyed without the GIL, so they must not own a reference.
    py::handle cb = r.callback;
    o.callback = [cb, &callback_error](int k, double res) {
      py::gil_scoped_acquire gil;
      try {
        cb(k, res);
      } catch (py::error_already_set&) {
        callback_error = std::current_exception();
        throw Error("stopped by an exception in callback");
      }
    };
  }
  return o;
}

py::dict result_dict(const SolveResult& r) {
  py::dict d;
  d["status"] = std::string(to_string(r.status));
  d["breakdown"] = r.breakdown;
  d["iterations"] = r.iterations;
  d["restarts"] = r.restarts;
  d["b_norm"] = r.b_norm;
  d["tolerance"] = r.tolerance;
  d["residual_norm"] = r.residual_norm;
  d["true_residual_norm"] = r.true_residual_norm;
  d["true_rel_residual"] = r.true_rel_residual;
  d["history"] = r.history;
  d["solve_ms"] = r.solve_ms;
  d["iter_ms"] = r.iter_ms;
  d["spmv_per_iter"] = r.spmv_per_iter;
  d["spmv_ms_per_iter"] = r.spmv_ms_per_iter;
  d["other_ms_per_iter"] = r.other_ms_per_iter;
  d["cuda_graph"] = r.cuda_graph;
  return d;
}

// M given in Python (request.m_apply), or null. Constructed with the GIL held.
template <class V>
std::unique_ptr<PythonPreconditioner<V>> python_m(const Operator<V>& a,
                                                  const Operator<V>* library_m,
                                                  const SolveRequest& request) {
  if (!request.has_m()) return nullptr;
  if (library_m) throw InputError("M: given together with precond (give one preconditioner)");
  if (!PyCallable_Check(request.m_apply.ptr())) throw InputError("M: the apply is not callable");
  using Arrays = typename PythonPreconditioner<V>::Arrays;
  return std::make_unique<PythonPreconditioner<V>>(
      request.m_apply, request.m_device_arrays ? Arrays::device_arrays : Arrays::host_arrays,
      a.rows(), a.backend());
}

// Runs `solve` without the GIL; a Python exception of the callback or of M (`m`, may be null)
// is raised again with it held, once the solver has unwound.
template <class V, class Fn>
SolveResult run_solve(const SolveRequest& request, const PythonPreconditioner<V>* m, Fn&& fn) {
  std::exception_ptr callback_error;
  const SolverOptions o = options_for(request, callback_error);
  SolveResult r;
  try {
    py::gil_scoped_release nogil;
    r = fn(o);
  } catch (const Error&) {
    if (callback_error) std::rethrow_exception(callback_error);
    if (m && m->error()) std::rethrow_exception(m->error());
    throw;
  }
  return r;
}

}  // namespace

CoreOperator::CoreOperator(const std::string& format, index_t rows, index_t cols,
                           const py::array& row_ptr, const py::array& col_idx,
                           const py::array& values,
                           const std::map<std::string, std::string>& params,
                           const std::string& backend) {
  Params p;
  for (const auto& [k, v] : params) p.set(k, v);
  const Backend b = parse_backend(backend);
  auto rp = to_vector<index_t>(row_ptr, "row_ptr");
  auto ci = to_vector<index_t>(col_idx, "col_idx");
  if (py::isinstance<py::array_t<float>>(values)) {
    auto csr = make_csr<float>(rows, cols, std::move(rp), std::move(ci),
                               to_vector<float>(values, "values"));
    py::gil_scoped_release nogil;
    f32_ = build_operator<float>(format, csr, p, b);
  } else if (py::isinstance<py::array_t<double>>(values)) {
    auto csr = make_csr<double>(rows, cols, std::move(rp), std::move(ci),
                                to_vector<double>(values, "values"));
    py::gil_scoped_release nogil;
    f64_ = build_operator<double>(format, csr, p, b);
  } else {
    throw InputError("values: dtype " + std::string(py::str(values.dtype())) +
                     ", expected float32 or float64");
  }
}

template <>
const Operator<float>& CoreOperator::op<float>() const {
  return *f32_;
}
template <>
const Operator<double>& CoreOperator::op<double>() const {
  return *f64_;
}

namespace {

template <class V>
void apply_host_impl(const Operator<V>& a, const py::array& x, const py::object& y_obj,
                     py::array& z, double alpha, double beta) {
  V* xp = host_pointer<V>(x, a.cols(), "x", false);
  V* zp = host_pointer<V>(z, a.rows(), "out", true);
  V* yp = nullptr;
  if (!y_obj.is_none()) yp = host_pointer<V>(y_obj.cast<py::array>(), a.rows(), "y", false);
  check_aliasing(reinterpret_cast<std::uintptr_t>(xp), sizeof(V) * a.cols(),
                 reinterpret_cast<std::uintptr_t>(yp), reinterpret_cast<std::uintptr_t>(zp),
                 sizeof(V) * a.rows());
  const V va = static_cast<V>(alpha), vb = static_cast<V>(yp ? beta : 0.0);
  const std::size_t m = static_cast<std::size_t>(a.rows()), n = static_cast<std::size_t>(a.cols());
  py::gil_scoped_release nogil;
  if (a.backend() == Backend::cpu) {
    a.apply(xp, yp, zp, va, vb);
    return;
  }
  const auto xd = Vector<V>::from_host(std::vector<V>(xp, xp + n), Backend::cuda);
  Vector<V> yd;
  if (yp) yd = Vector<V>::from_host(std::vector<V>(yp, yp + m), Backend::cuda);
  Vector<V> zd(m, Backend::cuda);
  a.apply(xd.data(), yp ? yd.data() : nullptr, zd.data(), va, vb);
  const std::vector<V> host = zd.to_host();  // waits for the stream
  if (m > 0) std::memcpy(zp, host.data(), m * sizeof(V));
}

template <class V>
void apply_device_impl(const Operator<V>& a, std::uintptr_t x, std::uintptr_t y, std::uintptr_t z,
                       double alpha, double beta, std::uintptr_t stream) {
  if (a.backend() != Backend::cuda)
    throw InputError("x: a CuPy (device) array, but the operator is on the cpu backend");
  check_device_pointer(x, "x");
  check_device_pointer(y, "y");
  check_device_pointer(z, "out");
  check_aliasing(x, sizeof(V) * a.cols(), y, z, sizeof(V) * a.rows());
  py::gil_scoped_release nogil;
  wait_for_user_stream(stream);
  a.apply(reinterpret_cast<const V*>(x), reinterpret_cast<const V*>(y), reinterpret_cast<V*>(z),
          static_cast<V>(alpha), static_cast<V>(y ? beta : 0.0));
  signal_user_stream(stream);
}

template <class V>
SolveResult solve_host_impl(const Operator<V>& a, const Operator<V>* precond, const py::array& b,
                            py::array& x, const SolveRequest& request) {
  V* bp = host_pointer<V>(b, a.rows(), "b", false);
  V* xp = host_pointer<V>(x, a.cols(), "x", true);
  const std::size_t n = static_cast<std::size_t>(a.cols());
  const auto pm = python_m(a, precond, request);
  const Operator<V>* m = pm ? pm.get() : precond;
  return run_solve(request, pm.get(), [&](const SolverOptions& o) {
    const auto bv = Vector<V>::from_host(std::vector<V>(bp, bp + a.rows()), a.backend());
    auto xv = Vector<V>::from_host(std::vector<V>(xp, xp + n), a.backend());
    SolveResult r = solve(a, bv, xv, o, m);
    const std::vector<V> out = xv.to_host();
    if (n > 0) std::memcpy(xp, out.data(), n * sizeof(V));
    return r;
  });
}

template <class V>
SolveResult solve_device_impl(const Operator<V>& a, const Operator<V>* precond, std::uintptr_t b,
                              std::uintptr_t x, std::uintptr_t stream,
                              const SolveRequest& request) {
  if (a.backend() != Backend::cuda)
    throw InputError("b: a CuPy (device) array, but the operator is on the cpu backend");
  check_device_pointer(b, "b");
  check_device_pointer(x, "x0");
  const std::size_t rows = static_cast<std::size_t>(a.rows()),
                    n = static_cast<std::size_t>(a.cols());
  const auto pm = python_m(a, precond, request);
  const Operator<V>* m = pm ? pm.get() : precond;
  return run_solve(request, pm.get(), [&](const SolverOptions& o) {
    Vector<V> bv(rows, Backend::cuda), xv(n, Backend::cuda);
    wait_for_user_stream(stream);
    copy_device(reinterpret_cast<std::uintptr_t>(bv.data()), b, rows * sizeof(V));
    copy_device(reinterpret_cast<std::uintptr_t>(xv.data()), x, n * sizeof(V));
    SolveResult r = solve(a, bv, xv, o, m);
    copy_device(x, reinterpret_cast<std::uintptr_t>(xv.data()), n * sizeof(V));
    signal_user_stream(stream);
    // bv and xv are freed when this returns: wait for the copy out of xv first.
    synchronize(Backend::cuda);
    return r;
  });
}

}  // namespace

void CoreOperator::apply_host(const py::array& x, const py::object& y, py::array& z, double alpha,
                              double beta) const {
  if (f32_)
    apply_host_impl(*f32_, x, y, z, alpha, beta);
  else
    apply_host_impl(*f64_, x, y, z, alpha, beta);
}

void CoreOperator::apply_device(std::uintptr_t x, std::uintptr_t y, std::uintptr_t z, double alpha,
                                double beta, std::uintptr_t stream) const {
  if (f32_)
    apply_device_impl(*f32_, x, y, z, alpha, beta, stream);
  else
    apply_device_impl(*f64_, x, y, z, alpha, beta, stream);
}

py::dict CoreOperator::solve_host(const py::array& b, py::array& x,
                                  const SolveRequest& request) const {
  return result_dict(f32_ ? solve_host_impl(*f32_, m32_.get(), b, x, request)
                          : solve_host_impl(*f64_, m64_.get(), b, x, request));
}

py::dict CoreOperator::solve_device(std::uintptr_t b, std::uintptr_t x, std::uintptr_t stream,
                                    const SolveRequest& request) const {
  return result_dict(f32_ ? solve_device_impl(*f32_, m32_.get(), b, x, stream, request)
                          : solve_device_impl(*f64_, m64_.get(), b, x, stream, request));
}

void CoreOperator::set_preconditioner(const std::string& spec, index_t rows, index_t cols,
                                      const py::array& row_ptr, const py::array& col_idx,
                                      const py::array& values) {
  const PrecondSpec p = parse_precond(spec);
  const OperatorInfo& i = op_info();
  if (rows != i.rows || cols != i.cols)
    throw InputError("precond: the matrix is " + std::to_string(rows) + " x " +
                     std::to_string(cols) + ", the operator " + std::to_string(i.rows) + " x " +
                     std::to_string(i.cols));
  auto rp = to_vector<index_t>(row_ptr, "row_ptr");
  auto ci = to_vector<index_t>(col_idx, "col_idx");
  if (f32_) {
    auto csr = make_csr<float>(rows, cols, std::move(rp), std::move(ci),
                               to_vector<float>(values, "values"));
    py::gil_scoped_release nogil;
    m32_ = make_preconditioner<float>(p, csr, i.backend);
  } else {
    auto csr = make_csr<double>(rows, cols, std::move(rp), std::move(ci),
                                to_vector<double>(values, "values"));
    py::gil_scoped_release nogil;
    m64_ = make_preconditioner<double>(p, csr, i.backend);
  }
}

py::dict CoreOperator::info() const {
  const OperatorInfo& i = op_info();
  py::dict d;
  d["format"] = i.format;
  d["backend"] = std::string(to_string(i.backend));
  d["dtype"] = f32_ ? "float32" : "float64";
  d["rows"] = i.rows;
  d["cols"] = i.cols;
  d["nnz"] = i.nnz;
  d["matrix_bytes"] = i.matrix_bytes;
  d["paper_bytes"] = i.paper_bytes;
  d["details"] = i.details;
  return d;
}

void bind_operator(py::module_& m) {
  py::class_<SolveRequest>(m, "SolveRequest")
      .def(py::init<>())
      .def_readwrite("method", &SolveRequest::method)
      .def_readwrite("impl", &SolveRequest::impl)
      .def_readwrite("rtol", &SolveRequest::rtol)
      .def_readwrite("atol", &SolveRequest::atol)
      .def_readwrite("maxiter", &SolveRequest::maxiter)
      .def_readwrite("check_every", &SolveRequest::check_every)
      .def_readwrite("cuda_graph", &SolveRequest::cuda_graph)
      .def_readwrite("callback", &SolveRequest::callback)
      .def_readwrite("m_apply", &SolveRequest::m_apply)
      .def_readwrite("m_device_arrays", &SolveRequest::m_device_arrays);
  py::class_<CoreOperator>(m, "CoreOperator")
      .def(py::init<const std::string&, index_t, index_t, const py::array&, const py::array&,
                    const py::array&, const std::map<std::string, std::string>&,
                    const std::string&>(),
           py::arg("format"), py::arg("rows"), py::arg("cols"), py::arg("row_ptr"),
           py::arg("col_idx"), py::arg("values"), py::arg("params"), py::arg("backend"))
      .def("apply_host", &CoreOperator::apply_host)
      .def("apply_device", &CoreOperator::apply_device)
      .def("solve_host", &CoreOperator::solve_host)
      .def("set_preconditioner", &CoreOperator::set_preconditioner, py::arg("spec"),
           py::arg("rows"), py::arg("cols"), py::arg("row_ptr"), py::arg("col_idx"),
           py::arg("values"))
      .def("solve_device", &CoreOperator::solve_device)
      .def_property_readonly("info", &CoreOperator::info)
      .def_property_readonly("single", &CoreOperator::single);
}

}  // namespace spmvkit::python
