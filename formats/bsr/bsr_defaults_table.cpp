// The shipped-defaults table as text: the entries a tuning result gives, their source lines in
// the syntax of bsr_tuning_defaults.cpp, and the merge of measured lines into that file, so that
// `spmvkit tune bsr --emit-defaults FILE` produces a file to diff against the shipped one.
#include <cstdio>

#include "formats/bsr/bsr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

std::string bsr_device_family(const std::string& device) {
  for (const char* family : {"H200", "H100"})
    if (device.find(family) != std::string::npos) return family;
  return device;
}

std::string BsrShippedLine::text() const {
  std::string line = "    {\"" + family + "\", \"" + key + "\", \"" + value + "\"},";
  if (!comment.empty()) line += "  // " + comment;
  return line;
}

std::vector<BsrShippedLine> bsr_shipped_lines(const std::string& family, const BsrTuning& t) {
  const auto gbs = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB/s", v);
    return std::string(buf);
  };
  std::vector<BsrShippedLine> out;
  for (const BsrKernelTuning& k : t.kernels)
    if (k.ms > 0)
      out.push_back({family, bsr_tuning_key(k.kernel, t.block_size, t.value_bytes),
                     k.best.to_params(), gbs(k.gbs)});
  if (t.best >= 0) {
    const BsrKernelTuning& b = t.kernels[static_cast<std::size_t>(t.best)];
    out.push_back({family, bsr_kernel_key(t.block_size, t.value_bytes),
                   std::string("kernel=") + bsr_kernel_name(b.kernel), gbs(b.gbs)});
  }
  return out;
}

std::string bsr_merge_shipped_lines(const std::string& source,
                                    const std::vector<BsrShippedLine>& lines) {
  const std::size_t open = source.find("kShipped[] = {");
  const std::size_t close = open == std::string::npos ? open : source.find("\n};", open);
  if (close == std::string::npos)
    throw InputError("the file holds no kShipped table (expected bsr_tuning_defaults.cpp)");
  // The table's lines, between the line of `open` and the line of `close`.
  const std::size_t first = source.find('\n', open) + 1;
  std::vector<std::string> table;
  for (std::size_t pos = first; pos <= close;) {
    const std::size_t end = source.find('\n', pos);
    table.push_back(source.substr(pos, end - pos));
    pos = end + 1;
  }
  const auto entry_prefix = [](const std::string& family, const std::string& key) {
    return "{\"" + family + "\", \"" + key + "\",";
  };
  const auto starts = [](const std::string& line, const std::string& prefix) {
    const std::size_t at = line.find_first_not_of(' ');
    return at != std::string::npos && line.compare(at, prefix.size(), prefix) == 0;
  };
  for (const BsrShippedLine& l : lines) {
    bool replaced = false;
    for (auto& row : table)
      if (starts(row, entry_prefix(l.family, l.key))) {
        row = l.text();  // every match: later lines win at lookup, so keep them equal
        replaced = true;
      }
    if (replaced) continue;
    std::size_t at = table.size();  // after the family's last entry, else at the end
    for (std::size_t i = 0; i < table.size(); ++i)
      if (starts(table[i], "{\"" + l.family + "\",")) at = i + 1;
    table.insert(table.begin() + static_cast<std::ptrdiff_t>(at), l.text());
  }
  std::string out = source.substr(0, first);
  for (const auto& row : table) out += row + "\n";
  out += source.substr(close + 1);
  return out;
}

}  // namespace spmvkit
