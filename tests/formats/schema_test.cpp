// The parameter schema, swept: for every format, every parameter and every backend it has,
// each allowed value (every enumerated value, the ends of every range, "auto") builds and
// multiplies correctly on a small zoo, and a bad value is refused before any work, the same
// way on every backend. CUDA cases skip where there is no GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"
#include "tests/common/check.hpp"
#include "tests/common/tuning_file.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit {

inline void PrintTo(Backend b, std::ostream* os) { *os << to_string(b); }

namespace {

// A small subset of the zoo (CI time): block structure (BSR, cuSPARSE BSR) and mixed row
// lengths (the ELL/CSR splits of HYB and HEC, SURAA's groups, long rows).
// A regular stencil (ELL and SELL-P always take it: the fill of blocks_bs3's random rows is
// near ell's max_fill=3, so with some seeds ell refused both others and the sweep built
// nothing), dense blocks, and rows of every length.
const char* const kSweepMatrices[] = {"stencil27_12", "blocks_bs3", "long_rows_mixed"};

using Case = std::tuple<std::string /*format*/, Backend, std::string /*parameter*/>;

std::vector<Case> sweep_cases() {
  std::vector<Case> cases;
  for (const auto& f : formats())
    for (Backend b : {Backend::cpu, Backend::cuda})
      if (f.supports(b))
        for (const auto& s : f.schema) cases.emplace_back(f.name, b, s.name);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [format, backend, param] = info.param;
  return format + "_" + std::string(to_string(backend)) + "_" + param;
}

// Values the schema must refuse for `s`: off the list, past the ends, of the wrong type.
std::vector<std::string> bad_values(const ParamSpec& s) {
  std::vector<std::string> out = {"", "x1"};
  switch (s.type) {
    case ParamType::boolean:
      out.push_back("maybe");
      out.push_back("2");
      break;
    case ParamType::enumeration:
      out.push_back(s.values.front() + "_not");
      break;
    case ParamType::integer:
      out.push_back("1.5");
      if (!s.values.empty()) {
        out.push_back(std::to_string(std::stoll(s.values.back()) + 1));
        out.push_back("0");
      } else {
        out.push_back(std::to_string(static_cast<long long>(s.min) - 1));
        if (s.max < 2147483647.0) out.push_back(std::to_string(static_cast<long long>(s.max) + 1));
      }
      break;
    case ParamType::real:
      out.push_back("nan");
      out.push_back("inf");
      out.push_back(s.min_open ? std::to_string(s.min) : std::to_string(s.min - 1));
      break;
  }
  // "0" is allowed where the list or range holds it.
  std::vector<std::string> refused;
  for (const auto& v : out)
    if (!s.check(v).empty()) refused.push_back(v);
  return refused;
}

// Builds and checks one value; true when it built. A matrix the value cannot hold
// (UnsupportedError) and a joint restriction the format checks at the build (a BSR kernel
// field against bs, CSR-3's block x*y*z a multiple of 32: InputError, never the schema's
// message) are answers, not failures.
template <class V>
bool sweep_value(const std::string& format, Backend b, const Params& p, const char* matrix,
                 std::string& refusals) {
  const Csr<V> a = testing::zoo_matrix(matrix).cast<V>();
  std::unique_ptr<Operator<V>> op;
  try {
    op = build_operator<V>(format, a, p, b);
  } catch (const UnsupportedError& e) {
    refusals += std::string("\n  ") + matrix + " [" + p.to_string() + "]: " + e.what();
    return false;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("is not allowed (allowed:"), std::string::npos)
        << e.what();
    refusals += std::string("\n  ") + matrix + " [" + p.to_string() + "]: " + e.what();
    return false;
  }
  testing::expect_operator_matches(*op, a, b, testing::test_seed());
  return true;
}

class SchemaSweep : public ::testing::TestWithParam<Case> {};

TEST_P(SchemaSweep, EveryAllowedValueBuildsAndMatches) {
  const auto& [format, backend, param] = GetParam();
  if (backend == Backend::cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device";
  const FormatEntry& f = find_format(format);
  const ParamSpec& s = *f.param(param);
  testing::ScopedTuningFile store;  // auto's tune=true writes its choice: not to the user's store
  int built = 0;
  std::string refusals;  // why each build was refused: the message when none built
  for (const std::string& value : s.sweep()) {
    ASSERT_EQ(s.check(value), "") << "the sweep value must be allowed";
    Params p = Params().set(param, value);
    // Values tied to another parameter get a partner that makes them valid.
    if (format == "sellp" && param == "slice_size") p.set("threads_per_row", "1");
    if (format == "sellp" && param == "threads_per_row") p.set("slice_size", "32");
    if (format.rfind("bsr", 0) == 0) {  // a BSR kernel field needs its kernel
      for (const auto& [kernel, fields] :
           {std::pair<const char*, const char*>{"k1", ",n_ta,n_brows_ta,ilp,"},
            {"k2", ",n_tg,vec,pack,"},
            {"k3", ",nb,ept,"},
            {"tma", ",stages,tile_kb,threads,whole,lanes,"}})
        if (std::string(fields).find("," + param + ",") != std::string::npos)
          p.set("kernel", kernel);
    }
    for (const char* m : kSweepMatrices) {
      SCOPED_TRACE(param + "=" + value + " on " + m);
      // rows_per_thread: 2 is the f64 vector, 4 the f32 one (each refused for the other).
      if (param != "rows_per_thread" || value != "4")
        built += sweep_value<double>(format, backend, p, m, refusals);
      if (param != "rows_per_thread" || value != "2")
        built += sweep_value<float>(format, backend, p, m, refusals);
    }
  }
  EXPECT_GT(built, 0) << "no value of " << param << " built on the sweep matrices:" << refusals;
}

// A bad value of every parameter is refused by the schema, before the backend is looked at
// (so also on a CUDA build without a GPU), with one line naming the parameter and what is
// allowed.
TEST_P(SchemaSweep, BadValueRefusedBeforeAnyWork) {
  const auto& [format, backend, param] = GetParam();
  const FormatEntry& f = find_format(format);
  const ParamSpec& s = *f.param(param);
  const Csr<double>& a = testing::zoo_matrix("blocks_bs3");
  const std::vector<std::string> bad = bad_values(s);
  ASSERT_FALSE(bad.empty());
  for (const std::string& value : bad) {
    SCOPED_TRACE(param + "=" + value);
    try {
      build_operator<double>(format, a, Params().set(param, value), backend);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(param + "=" + value + " is not allowed"), std::string::npos) << what;
      EXPECT_NE(what.find("allowed: " + s.allowed()), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SchemaSweep, ::testing::ValuesIn(sweep_cases()), case_name);

TEST(Schema, EveryParameterIsDeclaredOnce) {
  for (const auto& f : formats()) {
    ASSERT_EQ(f.params.size(), f.schema.size()) << f.name;
    for (std::size_t i = 0; i < f.schema.size(); ++i) {
      const ParamSpec& s = f.schema[i];
      EXPECT_EQ(f.params[i], s.name);
      EXPECT_FALSE(s.meaning.empty()) << f.name << " " << s.name;
      EXPECT_FALSE(s.fallback.empty()) << f.name << " " << s.name;
      // The default is allowed (or "auto", the builder's rule).
      EXPECT_EQ(s.check(s.fallback), "") << f.name << " " << s.name;
      for (std::size_t j = 0; j < i; ++j) EXPECT_NE(f.schema[j].name, s.name) << f.name;
    }
  }
}

// CPU and CUDA accept and refuse the same inputs: the example from issue 32.
TEST(Schema, SameVerdictOnEveryBackend) {
  const Csr<double>& a = testing::zoo_matrix("blocks_bs3");
  for (Backend b : {Backend::cpu, Backend::cuda}) {
    try {
      build_operator<double>("csr_balanced", a, Params::parse("items_per_thread=5"), b);
      ADD_FAILURE() << to_string(b) << " accepted items_per_thread=5";
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(),
                   "csr_balanced: items_per_thread=5 is not allowed (allowed: 4, 8, 16)");
    }
  }
}

// The effective values reach details: defaults included; CUDA-only values set on the CPU are
// said to be ignored.
TEST(Schema, DetailsCarryEffectiveValues) {
  const Csr<double>& a = testing::zoo_matrix("long_rows_mixed");
  const auto op = build_operator<double>("hyb", a, Params::parse("skip=sentinel"), Backend::cpu);
  const std::string& d = op->info().details;
  EXPECT_NE(d.find("relative_speed=3"), std::string::npos) << d;
  EXPECT_NE(d.find("breakeven_rows=4096"), std::string::npos) << d;
  EXPECT_NE(d.find("ignored on cpu (cuda only): skip=sentinel"), std::string::npos) << d;
}

}  // namespace
}  // namespace spmvkit
