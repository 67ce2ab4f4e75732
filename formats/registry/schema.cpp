// Parameter schemas: declaring, describing and checking a format's parameters.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "spmvkit/error.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit {

namespace {

bool parse_int(const std::string& s, long long& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtoll(s.c_str(), &end, 10);
  return *end == '\0' && errno == 0;
}

bool parse_real(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0' && std::isfinite(v);
}

bool parse_bool(const std::string& s) {
  return s == "1" || s == "0" || s == "true" || s == "false" || s == "on" || s == "off" ||
         s == "yes" || s == "no";
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(15);
  os << v;
  return os.str();
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::integer:
      return "int";
    case ParamType::real:
      return "double";
    case ParamType::enumeration:
      return "enum";
    case ParamType::boolean:
      return "bool";
  }
  return "?";
}

ParamSpec int_param(std::string name, std::string fallback, long long min, long long max,
                    std::string meaning) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::integer;
  s.fallback = std::move(fallback);
  s.min = static_cast<double>(min);
  s.max = static_cast<double>(max);
  s.meaning = std::move(meaning);
  return s;
}

ParamSpec int_choice(std::string name, std::string fallback, std::initializer_list<int> values,
                     std::string meaning) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::integer;
  s.fallback = std::move(fallback);
  for (int v : values) s.values.push_back(std::to_string(v));
  s.meaning = std::move(meaning);
  return s;
}

ParamSpec real_param(std::string name, std::string fallback, double min, double max,
                     std::string meaning, bool min_open) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::real;
  s.fallback = std::move(fallback);
  s.min = min;
  s.max = max;
  s.min_open = min_open;
  s.meaning = std::move(meaning);
  return s;
}

ParamSpec enum_param(std::string name, std::string fallback, std::vector<std::string> values,
                     std::string meaning) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::enumeration;
  s.fallback = std::move(fallback);
  s.values = std::move(values);
  s.meaning = std::move(meaning);
  return s;
}

ParamSpec bool_param(std::string name, std::string fallback, std::string meaning) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::boolean;
  s.fallback = std::move(fallback);
  s.meaning = std::move(meaning);
  return s;
}

std::string ParamSpec::allowed() const {
  std::string what;
  if (type == ParamType::boolean) {
    what = "true, false (or 1, 0, on, off, yes, no)";
  } else if (!values.empty()) {
    what = join(values);
  } else {
    const bool integer = type == ParamType::integer;
    const bool upper = max < (integer ? 2147483647.0 : kNoLimit);
    if (upper)
      what = (min_open ? "> " + number(min) + " and <= " : number(min) + "..") + number(max);
    else
      what = (min_open ? "> " : ">= ") + number(min);
    what = (integer ? "an integer " : "a number ") + what;
  }
  return accepts_auto ? "auto, or " + what : what;
}

std::string ParamSpec::check(const std::string& value) const {
  bool ok = false;
  if (accepts_auto && value == "auto") {  // (an enumeration with its own "auto" lists it)
    ok = true;
  } else if (type == ParamType::boolean) {
    ok = parse_bool(value);
  } else if (type == ParamType::enumeration) {
    for (const auto& v : values) ok = ok || v == value;
  } else if (type == ParamType::integer) {
    long long v = 0;
    if (parse_int(value, v)) {
      if (!values.empty()) {
        for (const auto& a : values) ok = ok || a == std::to_string(v);
      } else {
        ok = static_cast<double>(v) >= min && static_cast<double>(v) <= max;
      }
    }
  } else {
    double v = 0;
    ok = parse_real(value, v) && (min_open ? v > min : v >= min) && v <= max;
  }
  if (ok) return {};
  return name + "=" + value + " is not allowed (allowed: " + allowed() + ")";
}

std::vector<std::string> ParamSpec::sweep() const {
  std::vector<std::string> out;
  if (accepts_auto) out.push_back("auto");
  if (type == ParamType::boolean) {
    out.push_back("true");
    out.push_back("false");
  } else if (!values.empty()) {
    out.insert(out.end(), values.begin(), values.end());
  } else if (type == ParamType::integer) {
    out.push_back(number(min));
    if (max < 2147483647.0) out.push_back(number(max));
  } else {
    // An open lower end: a value just above it.
    out.push_back(min_open ? number(min + (min == 0 ? 1e-3 : std::abs(min) * 1e-3)) : number(min));
    if (max < kNoLimit) out.push_back(number(max));
  }
  // An open-ended range: its default too, a value inside.
  if (values.empty() && type != ParamType::boolean && fallback != "auto" &&
      std::find(out.begin(), out.end(), fallback) == out.end())
    out.push_back(fallback);
  return out;
}

Params validate_params(const FormatEntry& f, const Params& params) {
  Params out;
  for (const auto& [key, value] : params.items()) {
    const ParamSpec* spec = f.param(key);
    if (!spec)
      throw InputError("unknown parameter '" + key + "' for format " + f.name + " (accepts: " +
                       (f.params.empty() ? std::string("none") : join(f.params)) + ")");
    if (const std::string why = spec->check(value); !why.empty())
      throw InputError(f.name + ": " + why);
    // An "auto" the schema adds (not one of the values) arrives absent: the builder's default
    // rule.
    if (value == "auto" && spec->accepts_auto) continue;
    out.set(key, value);
  }
  return out;
}

void check_params(const FormatEntry& f, const Params& params) { validate_params(f, params); }

std::string effective_params(const FormatEntry& f, const Params& params, Backend b,
                             const std::string& details) {
  std::string out, ignored;
  for (const auto& s : f.schema) {
    const std::string value = params.has(s.name) ? params.get_string(s.name, "") : s.fallback;
    if (b == Backend::cpu && s.cuda_only) {
      if (params.has(s.name)) ignored += (ignored.empty() ? "" : " ") + s.name + "=" + value;
      continue;
    }
    // A value the format reports itself (its chosen figure) is not repeated.
    const std::string key = s.name + "=";
    const auto at = details.find(key);
    if (at != std::string::npos && (at == 0 || details[at - 1] == ',' || details[at - 1] == ' '))
      continue;
    out += (out.empty() ? "" : ",") + key + value;
  }
  if (!ignored.empty())
    out += (out.empty() ? "" : "; ") + std::string("ignored on cpu (cuda only): ") + ignored;
  return out;
}

}  // namespace spmvkit
