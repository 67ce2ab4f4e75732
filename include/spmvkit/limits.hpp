// Host-memory limits, checked before work starts: a matrix that would need more memory than
// the process may use is refused with a clear InputError instead of being half-built and
// killed by the kernel's out-of-memory handler.
#pragma once

#include <cstdint>
#include <string>

namespace spmvkit {

// Bytes of host memory one matrix may take: $SPMVKIT_HOST_MEMORY_LIMIT when set (a count of
// bytes with an optional K, M, G or T suffix, powers of 1024), else the memory the system
// reports available (MemAvailable of /proc/meminfo, or physical pages where that is missing).
// An unparsable $SPMVKIT_HOST_MEMORY_LIMIT is an InputError.
std::uint64_t host_memory_budget();

// InputError "WHAT: needs about X GB of host memory, more than the Y GB available ..." when
// `bytes` exceeds host_memory_budget().
void check_host_memory(const std::string& what, double bytes);

}  // namespace spmvkit
