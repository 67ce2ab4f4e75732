// Where code runs: the OpenMP CPU backend (always there) and the CUDA backend (when built
// with CUDA and a GPU is present).
#pragma once

#include <string>
#include <string_view>

namespace spmvkit {

enum class Backend { cpu, cuda };

std::string_view to_string(Backend b);
Backend parse_backend(std::string_view name);  // "cpu" | "cuda"; InputError otherwise

// True when this build has the CUDA backend compiled in.
bool cuda_compiled();
// True when the CUDA backend is compiled in and at least one GPU can be used. Never throws.
bool cuda_available();
// Human-readable device name ("NVIDIA H100 80GB HBM3", or the CPU model for Backend::cpu).
std::string device_name(Backend b);
// Driver and runtime versions ("driver 13.0, runtime 13.0"), or the OpenMP thread count.
std::string driver_version(Backend b);
// Waits until all work queued on the backend's stream is done (no-op on the CPU).
void synchronize(Backend b);

}  // namespace spmvkit
