#include "backend/cuda/cublas_api.hpp"

#include <dlfcn.h>

#include <string>

#include "spmvkit/error.hpp"

// Set by CMakeLists.txt: the library's soname (found on the loader's path, the program's
// RUNPATH included) and the file the build found, tried second.
#ifndef SPMVKIT_CUBLAS_SONAME
#error "SPMVKIT_CUBLAS_SONAME: the build names the cuBLAS library to load"
#endif
#ifndef SPMVKIT_CUBLAS_PATH
#define SPMVKIT_CUBLAS_PATH ""
#endif

namespace spmvkit::cuda {

namespace {

void* open_cublas() {
  // RTLD_LOCAL: its symbols stay out of the global scope, as a library linked by name would
  // not be; RTLD_NOW: a missing dependency shows here, not at the first call.
  if (void* h = dlopen(SPMVKIT_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL)) return h;
  std::string why = dlerror();
  if (*SPMVKIT_CUBLAS_PATH) {
    if (void* h = dlopen(SPMVKIT_CUBLAS_PATH, RTLD_NOW | RTLD_LOCAL)) return h;
    why += "; " + std::string(dlerror());
  }
  throw CudaError("cannot load cuBLAS (" SPMVKIT_CUBLAS_SONAME "): " + why);
}

template <class F>
void resolve(void* lib, F& f, const char* name) {
  dlerror();
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) {
    const char* why = dlerror();
    throw CudaError(std::string("cuBLAS has no ") + name + ": " + (why ? why : "null symbol"));
  }
}

CublasApi load() {
  void* lib = open_cublas();  // never closed: handles may be destroyed at process exit
  CublasApi api{};
  resolve(lib, api.create, "cublasCreate_v2");
  resolve(lib, api.destroy, "cublasDestroy_v2");
  resolve(lib, api.set_stream, "cublasSetStream_v2");
  resolve(lib, api.set_pointer_mode, "cublasSetPointerMode_v2");
  resolve(lib, api.get_status_name, "cublasGetStatusName");
  resolve(lib, api.get_status_string, "cublasGetStatusString");
  resolve(lib, api.sdot, "cublasSdot_v2");
  resolve(lib, api.ddot, "cublasDdot_v2");
  resolve(lib, api.snrm2, "cublasSnrm2_v2");
  resolve(lib, api.dnrm2, "cublasDnrm2_v2");
  resolve(lib, api.saxpy, "cublasSaxpy_v2");
  resolve(lib, api.daxpy, "cublasDaxpy_v2");
  resolve(lib, api.sscal, "cublasSscal_v2");
  resolve(lib, api.dscal, "cublasDscal_v2");
  resolve(lib, api.scopy, "cublasScopy_v2");
  resolve(lib, api.dcopy, "cublasDcopy_v2");
  return api;
}

}  // namespace

const CublasApi& cublas_api() {
  static const CublasApi api = load();  // a throw leaves it unset: the next call tries again
  return api;
}

}  // namespace spmvkit::cuda
