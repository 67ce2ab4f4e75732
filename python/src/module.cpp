// The extension module spmvkit._spmvkit: the library's public face for Python. The Python
// package (python/spmvkit/) takes SciPy matrices and NumPy/CuPy arrays and calls this.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "python/src/core_operator.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"
#include "spmvkit/registry.hpp"
#if SPMVKIT_PYTHON_BENCH
#include "bench/bench.hpp"
#endif

namespace py = pybind11;
using namespace spmvkit;

namespace {

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

// (rows, cols, row_ptr, col_idx, values): what spmvkit/__init__.py turns into a csr_matrix.
py::tuple csr_tuple(const Csr<double>& a) {
  return py::make_tuple(a.rows, a.cols, to_numpy(a.row_ptr), to_numpy(a.col_idx),
                        to_numpy(a.values));
}

py::dict param_dict(const ParamSpec& s) {
  py::dict d;
  d["name"] = s.name;
  d["type"] = std::string(to_string(s.type));
  d["default"] = s.fallback;
  d["allowed"] = s.allowed();
  d["cuda_only"] = s.cuda_only;
  d["meaning"] = s.meaning;
  return d;
}

py::dict format_dict(const FormatEntry& f) {
  py::dict d;
  d["name"] = f.name;
  d["summary"] = f.summary;
  d["peer"] = f.peer;
  d["cpu"] = f.cpu;
  d["cuda"] = f.cuda;
  py::list params;
  for (const auto& s : f.schema) params.append(param_dict(s));
  d["params"] = params;
  return d;
}

#if SPMVKIT_PYTHON_BENCH
// The report as JSON text (bench::to_json), so that Python sees the JSON's own fields.
std::string run_bench(const std::vector<std::string>& matrices, const std::string& backend,
                      bool double_precision, const std::vector<std::string>& formats,
                      const std::string& params, int warmup, int reps, bool check) {
  bench::Options o;
  o.backend = parse_backend(backend);
  o.double_precision = double_precision;
  o.formats = formats;
  o.params = params;
  o.warmup = warmup;
  o.reps = reps;
  o.check = check;
  if (warmup < 0 || reps < 1) throw InputError("bench: warmup must be >= 0 and reps >= 1");
  bench::Report r;
  {
    py::gil_scoped_release nogil;
    r = bench::run(matrices, o);
  }
  return bench::to_json(r).dump();
}
#endif

}  // namespace

PYBIND11_MODULE(_spmvkit, m) {
  m.doc() = "spmvkit's extension module (use the spmvkit package)";

  // The library's errors, by kind: bad input is a ValueError (UnsupportedError one too: a
  // format that cannot hold this matrix, or a backend this build or machine lacks); device
  // failures a CudaError (a RuntimeError). The messages are the library's.
  // Never destroyed: a static destructor would run after the interpreter is gone.
  static auto* unsupported =
      new py::exception<UnsupportedError>(m, "UnsupportedError", PyExc_ValueError);
  static auto* cuda_error = new py::exception<CudaError>(m, "CudaError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const UnsupportedError& e) {
      PyErr_SetString(unsupported->ptr(), e.what());
    } catch (const CudaError& e) {
      PyErr_SetString(cuda_error->ptr(), e.what());
    } catch (const CusparseError& e) {
      PyErr_SetString(cuda_error->ptr(), e.what());
    }
  });

  m.def("cuda_compiled", &cuda_compiled);
  m.def("cuda_available", &cuda_available);
  m.def("device_name", [](const std::string& b) { return device_name(parse_backend(b)); });
  m.def("formats", [] {
    py::list out;
    for (const auto& f : formats()) out.append(format_dict(f));
    return out;
  });
  m.def("read_matrix_market", [](const std::string& path) {
    Csr<double> a;
    {
      py::gil_scoped_release nogil;
      a = read_matrix_market(path);
    }
    return csr_tuple(a);
  });
  m.def("write_matrix_market", [](const std::string& path, index_t rows, index_t cols,
                                  std::vector<index_t> row_ptr, std::vector<index_t> col_idx,
                                  std::vector<double> values, const std::string& comment) {
    const Csr<double> a =
        make_csr<double>(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
    py::gil_scoped_release nogil;
    write_matrix_market(path, a, comment);
  });
  m.def("is_generator_name", &is_generator_name);
  m.def("generate", [](const std::string& name) {
    if (!is_generator_name(name))
      throw InputError("generate: '" + name +
                       "' is not a generator name (stencil5_N, stencil9_N, stencil7_N, "
                       "stencil27_N, reservoir_bsB_N, convdiff2d_N, convdiff3d_N, "
                       "powerlaw_ROWS, banded_ROWS_HALFBAND, random_ROWS_COLS_PERROW, "
                       "expand_bsB_NAME)");
    Csr<double> a;
    {
      py::gil_scoped_release nogil;
      a = generate_by_name(name);
    }
    return csr_tuple(a);
  });
#if SPMVKIT_PYTHON_BENCH
  m.def("bench", &run_bench);
#endif
  m.attr("has_bench") = static_cast<bool>(SPMVKIT_PYTHON_BENCH);
  spmvkit::python::bind_operator(m);
}
