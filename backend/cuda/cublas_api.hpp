// cuBLAS, loaded on first use (dlopen) instead of at program start. Loading libcublas runs
// libcublasLt's static initialisers: about half a second of CPU in every process that links it,
// GPU or not (2026-11-26, CUDA 13.0: 0.55 s for an empty program; 0.02 s with cuSPARSE alone).
// Only the context's handle and the BLAS-1 calls of ops/ and the cuSPARSE peers use it, so a
// process that never creates a CUDA context (every test case on a machine without a GPU, the CLI
// reading a file) no longer pays for it.
#pragma once

#include <cublas_v2.h>

namespace spmvkit::cuda {

// The cuBLAS entry points spmvkit calls; each has the type of the function it stands for.
struct CublasApi {
  decltype(&::cublasCreate_v2) create;
  decltype(&::cublasDestroy_v2) destroy;
  decltype(&::cublasSetStream_v2) set_stream;
  decltype(&::cublasSetPointerMode_v2) set_pointer_mode;
  decltype(&::cublasGetStatusName) get_status_name;
  decltype(&::cublasGetStatusString) get_status_string;
  decltype(&::cublasSdot_v2) sdot;
  decltype(&::cublasDdot_v2) ddot;
  decltype(&::cublasSnrm2_v2) snrm2;
  decltype(&::cublasDnrm2_v2) dnrm2;
  decltype(&::cublasSaxpy_v2) saxpy;
  decltype(&::cublasDaxpy_v2) daxpy;
  decltype(&::cublasSscal_v2) sscal;
  decltype(&::cublasDscal_v2) dscal;
  decltype(&::cublasScopy_v2) scopy;
  decltype(&::cublasDcopy_v2) dcopy;
};

// Loads libcublas on the first call (thread-safe) and resolves every entry point; throws
// CudaError naming the library and the loader's message when that fails.
const CublasApi& cublas_api();

}  // namespace spmvkit::cuda
