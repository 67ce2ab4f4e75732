#include "spmvkit/backend.hpp"

#include <fstream>
#include <string>

#include "spmvkit/error.hpp"

#include <omp.h>

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#endif

namespace spmvkit {

std::string_view to_string(Backend b) { return b == Backend::cpu ? "cpu" : "cuda"; }

Backend parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda" || name == "gpu") return Backend::cuda;
  throw InputError("unknown backend '" + std::string(name) + "' (expected cpu or cuda)");
}

bool cuda_compiled() { return SPMVKIT_HAVE_CUDA != 0; }

bool cuda_available() {
#if SPMVKIT_HAVE_CUDA
  static const bool available = [] {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    cudaGetLastError();
    return ok;
  }();
  return available;
#else
  return false;
#endif
}

std::string device_name(Backend b) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    if (cuda_available()) return cuda::Context::get().props().name;
#endif
    return "no GPU";
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "CPU";
}

std::string driver_version(Backend b) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    auto v = [](int x) { return std::to_string(x / 1000) + "." + std::to_string(x % 1000 / 10); };
    return "driver " + v(driver) + ", runtime " + v(runtime);
#endif
    return "none";
  }
  return "OpenMP, " + std::to_string(omp_get_max_threads()) + " threads";
}

void synchronize(Backend b) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) cuda::Context::get().synchronize();
#else
  (void)b;
#endif
}

}  // namespace spmvkit
