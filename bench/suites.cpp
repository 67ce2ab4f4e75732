// The benchmark's named suites: their matrices and what they bring besides (formats,
// parameters, timing), and the block size a generator name states.
#include <map>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit::bench {

namespace {

// reservoir_bsB_N for every B in 2..32, N for ~1e8 values (the matrices `spmvkit tune bsr`
// tunes on).
std::vector<std::string> reservoir_all_block_sizes() {
  std::vector<std::string> out;
  for (int bs = 2; bs <= 32; ++bs)
    out.push_back("reservoir_bs" + std::to_string(bs) + "_" +
                  std::to_string(reservoir_grid_for(bs, 1e8)));
  return out;
}

// Suites. Generated matrices are sized to be many times the 50 MB L2 of an H100; real
// matrices (../shared/matrices, all L2-resident) are for structure and correctness.
const std::map<std::string, std::vector<std::string>>& suites() {
  static const std::map<std::string, std::vector<std::string>> s = {
      {"smoke", {"stencil7_40", "powerlaw_100000", "bcsstk13", "rajat01"}},
      // Issue: CUDA CSR kernels against cuSPARSE.
      {"csr", {"stencil27_150", "powerlaw_8000000", "bcsstk13", "rajat01", "Groebner_id2003_aug"}},
      // Issue: ELL / HYB / HEC / SELL-P.
      {"ell", {"stencil27_150", "stencil7_193", "powerlaw_8000000"}},
      // Issue: BSR on reservoir-like matrices, ~100M nonzeros each.
      {"bsr",
       {"reservoir_bs2_153", "reservoir_bs3_117", "reservoir_bs4_96", "reservoir_bs7_66",
        "reservoir_bs12_46", "reservoir_bs16_38", "reservoir_bs32_24"}},
      // The same for every block size from 2 to 32 (the "every bs in 2..32").
      {"bsr-all", reservoir_all_block_sizes()},
      // Issue 25: generated matrices the auto model was not fitted on (bench/fit_select.py saw
      // none of these names), ~20-100M nonzeros, beyond L2.
      {"auto",
       {"stencil5_4000", "stencil9_3000", "stencil7_150", "stencil27_120", "banded_4000000_64_12",
        "random_4000000_4000000_12", "powerlaw_4000000_20000", "reservoir_bs5_60",
        "reservoir_bs9_40", "reservoir_bs3_100", "expand_bs4_stencil5_1000"}},
      // Issue 25's second hold-out: generated matrices of every generator that no table or fit
      // has seen (neither these names nor their parameters), 25 beyond L2 (5-75M nonzeros) and
      // 7 L2-resident.
      {"auto-holdout",
       {"stencil5_3000",
        "stencil9_2500",
        "stencil7_120",
        "stencil27_100",
        "convdiff2d_3000",
        "convdiff3d_150_10",
        "banded_2000000_32_20",
        "banded_6000000_128_8",
        "banded_1000000_500_40",
        "random_3000000_3000000_16",
        "random_2000000_6000000_24",
        "random_8000000_8000000_6",
        "random_1000000_1000000_40",
        "powerlaw_3000000_10000",
        "powerlaw_6000000_50000",
        "powerlaw_2000000",
        "reservoir_bs6_50",
        "reservoir_bs11_30",
        "reservoir_bs20_20",
        "reservoir_bs2_120",
        "reservoir_bs4_60_0.5",
        "expand_bs3_stencil7_80",
        "expand_bs4_powerlaw_300000",
        "expand_bs5_random_200000_200000_8",
        "expand_bs2_banded_2000000_16_8",
        "stencil7_30",
        "powerlaw_50000",
        "random_20000_20000_10",
        "banded_100000_8_5",
        "reservoir_bs4_12",
        "expand_bs7_stencil5_100",
        "convdiff2d_200"}},
      // Issue 25: generated matrices of every generator for auto's neighbour table (bsr-expand
      // and the real suite hold no random or power-law matrix beyond L2, none rectangular):
      // other names and parameters than the auto and auto-holdout suites, which stay hold-outs.
      // 39 beyond L2 (6-64M nonzeros), 7 L2-resident.
      {"auto-train",
       {"random_1500000_1500000_32",
        "random_5000000_5000000_10",
        "random_10000000_10000000_4",
        "random_500000_4000000_60",
        "random_3000000_12000000_12",
        "random_1000000_8000000_30",
        "random_4000000_1000000_10",
        "random_2000000_2000000_20",
        "random_6000000_3000000_8",
        "random_300000_300000_50",
        "random_400000_2000000_16",
        "powerlaw_1000000_5000",
        "powerlaw_5000000",
        "powerlaw_2500000_30000",
        "powerlaw_4500000_1000",
        "powerlaw_500000_50000",
        "powerlaw_1500000_100000",
        "powerlaw_3500000_3000",
        "banded_3000000_16_16",
        "banded_500000_1000_60",
        "banded_8000000_8_4",
        "banded_1500000_200_30",
        "banded_300000_50_20",
        "stencil5_3500",
        "stencil9_2000",
        "stencil7_170",
        "stencil27_130",
        "convdiff2d_2500",
        "convdiff3d_130_50",
        "reservoir_bs3_80",
        "reservoir_bs8_36",
        "reservoir_bs14_26",
        "reservoir_bs24_16",
        "reservoir_bs5_50_0.3",
        "expand_bs2_random_4000000_4000000_4",
        "expand_bs3_powerlaw_400000",
        "expand_bs6_stencil7_60",
        "expand_bs8_random_300000_300000_3",
        "expand_bs2_powerlaw_1200000_5000",
        "random_50000_50000_20",
        "stencil7_60",
        "powerlaw_200000",
        "banded_50000_20_10",
        "reservoir_bs3_15",
        "expand_bs4_stencil5_80",
        "expand_bs3_random_30000_30000_6"}},
      {"real",
       {"494_bus",
        "Erdos971",
        "Franz6_id1959_aug",
        "G51",
        "Groebner_id2003_aug",
        "Pd",
        "adder_dcop_05",
        "arrow",
        "bayer10",
        "bcspwr10",
        "bcsstk13",
        "bcsstk16",
        "bp_1200",
        "cage5",
        "cryg2500",
        "dwt_878",
        "dwt_992",
        "fs_183_1",
        "hangGlider_2",
        "impcol_a",
        "jagmesh7",
        "karate",
        "lp_e226",
        "lp_share1b",
        "mbeacxc",
        "nnc1374",
        "olm1000",
        "olm500",
        "pts5ldd03",
        "rajat01",
        "rajat19",
        "reorientation_1",
        "watt_2",
        "west0479",
        "zenios"}},
  };
  static const std::map<std::string, std::vector<std::string>> all = [] {
    auto with = s;
    // The BSR paper's experiment (6.1, figures 10-18): every real matrix, each entry a dense
    // bs x bs block, bs = 1..32.
    for (const auto& m : s.at("real"))
      for (int bs = 1; bs <= 32; ++bs)
        with["bsr-expand"].push_back("expand_bs" + std::to_string(bs) + "_" + m);
    // Balanced against plain BSR (paper 5.5, figures 17-19) on matrices with long block rows.
    for (const char* m : {"arrow", "Groebner_id2003_aug", "Franz6_id1959_aug", "mbeacxc", "rajat01",
                          "adder_dcop_05"})
      for (int bs : {1, 2, 4, 8, 16})
        with["bsr-balance"].push_back("expand_bs" + std::to_string(bs) + "_" + m);
    return with;
  }();
  return all;
}

// Suites that pick their own formats, parameters and timing. The expansion sweep builds ~1000
// matrices, so fewer runs each (20 after 5 warm-up). bsr-balance measures bsr twice, as the
// variants bsr[balanced=auto] (its own choice) and bsr[balanced=off] (plain), next to
// bsr_balanced.
const std::map<std::string, SuiteDefaults>& suite_defaults_map() {
  static const std::map<std::string, SuiteDefaults> d = {
      {"bsr-expand",
       {{"bsr", "bsr_balanced", "csr_vector", "csr_balanced", "ell", "sellp", "csr3",
         "cusparse_bsr", "cusparse_bsrmv"},
        "",
        20,
        5}},
      {"bsr-balance", {{"bsr", "bsr_balanced"}, "bsr:balanced=auto|balanced=off", 20, 5}},
  };
  return d;
}

}  // namespace

std::vector<std::string> suite(const std::string& name) {
  const auto it = suites().find(name);
  if (it != suites().end()) return it->second;
  return {name};
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const auto& [n, list] : suites()) names.push_back(n);
  return names;
}

SuiteDefaults suite_defaults(const std::string& name) {
  const auto it = suite_defaults_map().find(name);
  return it == suite_defaults_map().end() ? SuiteDefaults{} : it->second;
}

int named_block_size(const std::string& name) {
  for (const char* prefix : {"expand_bs", "reservoir_bs"}) {
    const std::size_t n = std::char_traits<char>::length(prefix);
    if (name.compare(0, n, prefix) != 0) continue;
    const std::size_t cut = name.find('_', n);
    if (cut == std::string::npos || cut == n) return 0;
    const std::string digits = name.substr(n, cut - n);
    if (digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoi(digits);
  }
  return 0;
}

}  // namespace spmvkit::bench
