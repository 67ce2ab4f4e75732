// The extension's operator: one registry operator (float or double) behind value semantics
// for Python. python/spmvkit/_operator.py puts SciPy and CuPy conventions on top; this class
// checks again what it is handed (sizes, dtypes, aliasing), because a wrong pointer here is a
// crash, not an exception.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "spmvkit/operator.hpp"
#include "spmvkit/solvers.hpp"

namespace spmvkit::python {

namespace py = pybind11;

struct SolveRequest {
  std::string method = "cg", impl = "merged";
  double rtol = 1e-5, atol = 0;
  int maxiter = 1000;
  int check_every = 0;  // 0: the library's default
  int cuda_graph = -1;  // -1: the library's default, else 0/1
  py::object callback;  // None, or callable(iteration, residual_norm)
  // M given in Python: None, or the callable of PythonPreconditioner (python_preconditioner.hpp),
  // called with device addresses when m_device_arrays, else with NumPy arrays. Not with a
  // preconditioner of set_preconditioner. It turns CUDA graphs off and makes check_every 1
  // unless given (each apply waits for the GPU anyway; iterations queued past convergence
  // would still call M).
  py::object m_apply = py::none();
  bool m_device_arrays = false;
  bool has_m() const { return m_apply && !m_apply.is_none(); }
};

class CoreOperator {
 public:
  // `values` float32 or float64 (the operator's precision); indices int32. `params` are the
  // format's parameters as text (validated by the registry against the format's schema).
  CoreOperator(const std::string& format, index_t rows, index_t cols, const py::array& row_ptr,
               const py::array& col_idx, const py::array& values,
               const std::map<std::string, std::string>& params, const std::string& backend);

  // z = alpha*A*x + beta*y with NumPy arrays (host memory), copied to the device on CUDA.
  void apply_host(const py::array& x, const py::object& y, py::array& z, double alpha,
                  double beta) const;
  // The same with device addresses (CuPy arrays), ordered after the work queued on
  // `user_stream` and before what is queued there later; the host does not wait.
  void apply_device(std::uintptr_t x, std::uintptr_t y, std::uintptr_t z, double alpha, double beta,
                    std::uintptr_t user_stream) const;

  // A x = b; x holds the initial guess and receives the solution. Returns SolveResult's fields.
  py::dict solve_host(const py::array& b, py::array& x, const SolveRequest& request) const;
  py::dict solve_device(std::uintptr_t b, std::uintptr_t x, std::uintptr_t user_stream,
                        const SolveRequest& request) const;

  // The preconditioner of the solves that follow: "none", "jacobi" or "block_jacobi[:BS]"
  // (spmvkit/preconditioners.hpp), built from the operator's matrix given again as CSR arrays
  // (the operator keeps only its format's arrays).
  void set_preconditioner(const std::string& spec, index_t rows, index_t cols,
                          const py::array& row_ptr, const py::array& col_idx,
                          const py::array& values);

  py::dict info() const;
  bool single() const { return static_cast<bool>(f32_); }

 private:
  template <class V>
  const Operator<V>& op() const;
  const OperatorInfo& op_info() const { return f32_ ? f32_->info() : f64_->info(); }
  std::unique_ptr<Operator<float>> f32_;
  std::unique_ptr<Operator<double>> f64_;
  std::unique_ptr<Operator<float>> m32_;  // the preconditioner (none: empty)
  std::unique_ptr<Operator<double>> m64_;
};

void bind_operator(py::module_& m);

}  // namespace spmvkit::python
