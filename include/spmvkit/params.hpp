// Format and kernel parameters as named key=value pairs ("threads_per_row=8,slice_size=32"),
// so that the CLI, the tuner and the benchmark can pass them without knowing each format.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace spmvkit {

class Params {
 public:
  Params() = default;
  // Parses "k=v,k2=v2" (spaces allowed around items). InputError on a malformed item.
  static Params parse(std::string_view text);

  Params& set(const std::string& key, const std::string& value);
  bool has(const std::string& key) const { return kv_.count(key) != 0; }
  const std::map<std::string, std::string>& items() const { return kv_; }
  std::string to_string() const;  // "k=v,k2=v2", sorted by key

  // Typed lookups: the fallback when absent, InputError when present but not parseable.
  long long get_int(const std::string& key, long long fallback) const;
  double get_double(const std::string& key, double fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;  // 1/0/true/false/on/off

 private:
  std::map<std::string, std::string> kv_;
};

}  // namespace spmvkit
