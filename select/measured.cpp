// The neighbours measured on this device (model.hpp, `spmvkit tune auto --model`): their tuning
// store records, written and read back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "select/model.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit::select {

namespace {

constexpr const char* kPrefix = "auto-model/";

// cache_key's "auto/..." as the measured neighbours' key.
std::string model_key(const Features& f, Backend b) {
  const std::string k = cache_key(f, b);
  return kPrefix + k.substr(k.find('/') + 1);
}

// `text` as a number; false unless it all is one and finite.
bool number(const std::string& text, double& v) {
  if (text.empty()) return false;
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(v);
}

// The fields "name=value" of a record's value, separated by ';'.
std::string field(const std::string& value, const std::string& name) {
  std::size_t at = 0;
  while (at <= value.size()) {
    const std::size_t end = std::min(value.find(';', at), value.size());
    if (value.compare(at, name.size() + 1, name + "=") == 0)
      return value.substr(at + name.size() + 1, end - at - name.size() - 1);
    at = end + 1;
  }
  return {};
}

// `text` split at `sep`.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t end = text.find(sep, at);
    out.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) return out;
    at = end + 1;
  }
}

// The records' table (malformed ones skipped), with `scale`.
std::shared_ptr<MeasuredNeighbours> parse(
    const std::vector<std::pair<std::string, std::string>>& records,
    const NeighbourPoint& scale) {
  auto m = std::make_shared<MeasuredNeighbours>();
  m->table.scale = scale;
  std::vector<std::vector<std::pair<std::size_t, double>>> residuals;  // (column, residual)
  for (const auto& [key, value] : records) {
    NeighbourTable::Entry e{};
    const auto point = split(field(value, "point"), ',');
    bool ok = point.size() == kNeighbourDims;
    for (std::size_t i = 0; ok && i < kNeighbourDims; ++i) ok = number(point[i], e.point[i]);
    std::vector<std::pair<std::size_t, double>> r;
    const std::string list = field(value, "residual");
    for (const std::string& item : list.empty() ? std::vector<std::string>{} : split(list, ',')) {
      const auto colon = item.find(':');
      double v = 0;
      if (!ok || colon == std::string::npos || !number(item.substr(colon + 1), v)) {
        ok = false;
        break;
      }
      const std::string format = item.substr(0, colon);
      std::size_t j = 0;
      while (j < m->table.formats.size() && format != m->table.formats[j]) ++j;
      if (j == m->table.formats.size())
        m->table.formats.push_back(m->names.emplace_back(format).c_str());
      r.emplace_back(j, v);
    }
    if (!ok || r.empty()) continue;
    const std::string matrix = field(value, "matrix");
    e.matrix = m->names.emplace_back(matrix.empty() ? key : matrix).c_str();
    m->table.entries.push_back(std::move(e));
    residuals.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < residuals.size(); ++i) {
    auto& row = m->table.entries[i].residual;
    row.assign(m->table.formats.size(), std::numeric_limits<double>::quiet_NaN());
    for (const auto& [j, v] : residuals[i]) row[j] = v;
  }
  return m;
}

}  // namespace

std::pair<std::string, std::string> measured_record(
    const Features& f, Backend b, const std::string& matrix,
    const std::vector<std::pair<std::string, double>>& residuals) {
  // The name as details show it: its last path part, without the record's separators.
  std::string name = matrix.substr(matrix.find_last_of('/') == std::string::npos
                                       ? 0
                                       : matrix.find_last_of('/') + 1);
  for (char& ch : name)
    if (ch == ';' || ch == '\t' || ch == '\n' || ch == '\r') ch = '_';
  char buf[64];
  std::string value = "matrix=" + name + ";point=";
  const NeighbourPoint p = neighbour_point(f);
  for (std::size_t i = 0; i < kNeighbourDims; ++i) {
    std::snprintf(buf, sizeof buf, "%s%.6g", i ? "," : "", p[i]);
    value += buf;
  }
  value += ";residual=";
  bool first = true;
  for (const auto& [format, r] : residuals) {
    if (!std::isfinite(r)) continue;
    std::snprintf(buf, sizeof buf, "%.4f", r);
    value += (first ? "" : ",") + format + ":" + buf;
    first = false;
  }
  return {model_key(f, b), value};
}

std::shared_ptr<const MeasuredNeighbours> measured_neighbours(const std::string& device, Backend b,
                                                              int value_bytes) {
  const std::string tail =
      std::string(value_bytes == 8 ? "/f64/" : "/f32/") + std::string(to_string(b));
  // The last table parsed, while the store's generation, the device and the tail stay the same:
  // every auto build asks (copying the records to compare them had been the question's cost).
  static std::mutex mutex;
  static std::string last_device, last_tail;
  static std::uint64_t last_generation = 0;
  static bool cached = false;
  static std::shared_ptr<const MeasuredNeighbours> last;
  const std::uint64_t generation = tuning_generation();
  std::lock_guard<std::mutex> lock(mutex);
  if (cached && last_generation == generation && last_device == device && last_tail == tail)
    return last;
  auto records = tuning_find(device, kPrefix);
  records.erase(std::remove_if(records.begin(), records.end(),
                               [&](const auto& r) {
                                 return r.first.size() < tail.size() ||
                                        r.first.compare(r.first.size() - tail.size(),
                                                        tail.size(), tail) != 0;
                               }),
                records.end());
  std::shared_ptr<MeasuredNeighbours> m;
  if (!records.empty()) m = parse(records, shipped_neighbours(device).scale);
  last = m && !m->table.entries.empty() ? std::move(m) : nullptr;
  last_generation = generation;
  last_device = device;
  last_tail = tail;
  cached = true;
  return last;
}

Choice choose_with_store(const Features& f, Backend b, const std::string& device,
                         long long applies) {
  const auto here = measured_neighbours(device, b, f.value_bytes);
  return choose(f, b, device, applies, here ? &here->table : nullptr);
}

}  // namespace spmvkit::select
