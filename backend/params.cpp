#include "spmvkit/params.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {
std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}
}  // namespace

Params Params::parse(std::string_view text) {
  Params p;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("parameter '" + item + "' is not of the form key=value");
    p.set(trim(item.substr(0, eq)), trim(item.substr(eq + 1)));
  }
  return p;
}

Params& Params::set(const std::string& key, const std::string& value) {
  kv_[key] = value;
  return *this;
}

std::string Params::to_string() const {
  std::string out;
  for (const auto& [k, v] : kv_) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

long long Params::get_int(const std::string& key, long long fallback) const {
  const auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0')
    throw InputError("parameter " + key + "=" + it->second + " is not an integer");
  return v;
}

double Params::get_double(const std::string& key, double fallback) const {
  const auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0')
    throw InputError("parameter " + key + "=" + it->second + " is not a number");
  return v;
}

std::string Params::get_string(const std::string& key, const std::string& fallback) const {
  const auto it = kv_.find(key);
  return it == kv_.end() ? fallback : it->second;
}

bool Params::get_bool(const std::string& key, bool fallback) const {
  const auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  const std::string& v = it->second;
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw InputError("parameter " + key + "=" + v + " is not a boolean");
}

}  // namespace spmvkit
