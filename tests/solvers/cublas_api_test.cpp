// cuBLAS (the reference solvers' BLAS-1 and the cuSPARSE peers' scaling) is loaded on first use,
// not linked (backend/cuda/cublas_api.hpp): a program that links it pays about half a second at
// start, and the tests start one program per case. Checked here: nothing links it, and in the
// CUDA build every entry point resolves (no GPU needed to load the library).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cublas_api.hpp"
#endif

namespace {

bool mapped(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(library) != std::string::npos) return true;
  return false;
}

// Read during static initialisation, when only the libraries the program links are loaded
// (whatever a test loads later, in this process or not, cannot change it).
const bool kCublasLinked = mapped("libcublas");

TEST(CublasApi, NotLinked) {
  if (!std::ifstream("/proc/self/maps")) GTEST_SKIP() << "no /proc/self/maps";
  EXPECT_FALSE(kCublasLinked) << "libcublas is loaded at start: every process pays for it";
}

TEST(CublasApi, EveryEntryPointResolves) {
#if SPMVKIT_HAVE_CUDA
  const spmvkit::cuda::CublasApi& api = spmvkit::cuda::cublas_api();
  for (const void* f :
       {reinterpret_cast<const void*>(api.create), reinterpret_cast<const void*>(api.destroy),
        reinterpret_cast<const void*>(api.set_stream),
        reinterpret_cast<const void*>(api.set_pointer_mode),
        reinterpret_cast<const void*>(api.get_status_name),
        reinterpret_cast<const void*>(api.get_status_string),
        reinterpret_cast<const void*>(api.sdot), reinterpret_cast<const void*>(api.ddot),
        reinterpret_cast<const void*>(api.snrm2), reinterpret_cast<const void*>(api.dnrm2),
        reinterpret_cast<const void*>(api.saxpy), reinterpret_cast<const void*>(api.daxpy),
        reinterpret_cast<const void*>(api.sscal), reinterpret_cast<const void*>(api.dscal),
        reinterpret_cast<const void*>(api.scopy), reinterpret_cast<const void*>(api.dcopy)})
    EXPECT_NE(f, nullptr);
  // A call into the loaded library that needs no device.
  EXPECT_STREQ(api.get_status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_TRUE(mapped("libcublas"));
#else
  GTEST_SKIP() << "CPU build: no cuBLAS";
#endif
}

}  // namespace
