#include "spmvkit/limits.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

std::uint64_t parse_limit(const std::string& text) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  double scale = 1;
  if (used + 1 == text.size()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        scale = 1024.0;
        break;
      case 'M':
      case 'm':
        scale = 1024.0 * 1024;
        break;
      case 'G':
      case 'g':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 'T':
      case 't':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        used = 0;
    }
    if (used > 0) ++used;
  }
  if (used == 0 || used != text.size() || !(v > 0) || !(v * scale < 1.8e19))
    throw InputError("SPMVKIT_HOST_MEMORY_LIMIT: '" + text +
                     "' is not a positive byte count (e.g. 8G, 512M, 1e9)");
  return static_cast<std::uint64_t>(v * scale);
}

std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
             : ~std::uint64_t{0};
}

std::string human_bytes(double bytes) {
  char buf[32];
  if (bytes >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3g GB", bytes / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.3g MB", bytes / 1e6);
  return buf;
}

}  // namespace

std::uint64_t host_memory_budget() {
  if (const char* s = std::getenv("SPMVKIT_HOST_MEMORY_LIMIT"); s && *s) return parse_limit(s);
  return available_memory();
}

void check_host_memory(const std::string& what, double bytes) {
  const std::uint64_t budget = host_memory_budget();
  if (bytes <= static_cast<double>(budget)) return;
  const bool set = std::getenv("SPMVKIT_HOST_MEMORY_LIMIT") != nullptr;
  throw InputError(what + ": needs about " + human_bytes(bytes) +
                   " of host memory, more than the " + human_bytes(static_cast<double>(budget)) +
                   (set ? " SPMVKIT_HOST_MEMORY_LIMIT allows" : " available on this machine"));
}

}  // namespace spmvkit
