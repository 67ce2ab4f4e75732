// spmvkit info MATRIX: statistics and a row-length histogram in the terminal; with --auto,
// what format=auto sees of the matrix and how its model ranks the candidates (no GPU needed:
// the same select::measure_features and select::choose that the auto build runs).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/progress.hpp"
#include "select/model.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/reorder.hpp"
#include "spmvkit/stats.hpp"
#include "tools/commands.hpp"

namespace spmvkit::cli {

namespace {

void print_stats(const std::string& name, const MatrixStats& s) {
  std::printf("matrix        %s\n", name.c_str());
  std::printf("size          %d x %d, %lld nonzeros\n", s.rows, s.cols,
              static_cast<long long>(s.nnz));
  std::printf("row length    min %d  mean %.2f  max %d  variance %.2f\n", s.row_min, s.row_mean,
              s.row_max, s.row_variance);
  std::printf("empty rows    %d\n", s.empty_rows);
  std::printf("bandwidth     %d    profile %lld\n", s.bandwidth, static_cast<long long>(s.profile));
  std::printf("symmetric     %s (pattern)\n", s.pattern_symmetric ? "yes" : "no");
  std::printf("dense blocks  %s\n",
              s.block_size > 1
                  ? (std::to_string(s.block_size) + " x " + std::to_string(s.block_size)).c_str()
                  : "none detected");
  std::printf("row-length histogram:\n");
  const std::int64_t top = s.row_histogram.empty()
                               ? 0
                               : *std::max_element(s.row_histogram.begin(), s.row_histogram.end());
  for (std::size_t k = 0; k < s.row_histogram.size(); ++k) {
    const std::int64_t count = s.row_histogram[k];
    char range[48];
    if (k == 0)
      std::snprintf(range, sizeof range, "0");
    else if (k == 1)
      std::snprintf(range, sizeof range, "1");
    else
      std::snprintf(range, sizeof range, "%lld-%lld", 1LL << (k - 1), (1LL << k) - 1);
    const int bar = top > 0 ? static_cast<int>(50.0 * count / top + (count > 0 ? 0.999 : 0)) : 0;
    std::printf("  %15s | %-50s %lld\n", range, std::string(bar, '#').c_str(),
                static_cast<long long>(count));
  }
}

// --auto: the features and the ranked candidates, as the auto build on `device` with an L2 of
// `l2` bytes would compute them, with the matrices `tune auto --model` measured on that device
// in the tuning store (bench/fit_select.py reads the JSON to fit and replay the model, with an
// empty store).
template <class V>
void print_auto(const std::string& name, const Csr<V>& a, const std::string& device, std::size_t l2,
                long long applies, bool json) {
  const select::Features f = select::measure_features(a, l2);
  const select::Choice c = select::choose_with_store(f, Backend::cuda, device, applies);
  nlohmann::json ranked = nlohmann::json::array();
  for (const select::Prediction& p : c.ranked)
    ranked.push_back({{"format", p.format},
                      {"params", p.params.to_string()},
                      {"spmv_ms", p.spmv_ms},
                      {"linear_ms", p.linear_ms},
                      {"setup_ms", p.setup_ms},
                      {"x", select::cost_features(f, p.format)}});
  nlohmann::json j{{"matrix", name},
                   {"device", device},
                   {"precision", sizeof(V) == 8 ? "f64" : "f32"},
                   {"applies", applies},
                   {"features",
                    {{"rows", f.rows},
                     {"cols", f.cols},
                     {"nnz", f.nnz},
                     {"row_mean", f.row_mean},
                     {"row_variance", f.row_variance},
                     {"row_max", f.row_max},
                     {"cv", f.cv()},
                     {"block_size", f.block_size},
                     {"ell_bytes", f.ell_bytes},
                     {"sellp_bytes", f.sellp_bytes},
                     {"hybrid_bytes", f.hybrid_bytes},
                     {"hybrid_width", f.hybrid_width},
                     {"diagonal_offset", f.diagonal_offset},
                     {"l2_bytes", f.l2_bytes},
                     {"sampled_rows", f.sampled_rows}}},
                   {"why", c.why},
                   {"ranked", ranked}};
  // Every format's feature vector, candidates or not here (BSR without dense blocks still has
  // a launch and bytes to fit its constants on).
  for (const select::FormatCost& k : select::h100_costs())
    j["x"][k.format] = select::cost_features(f, k.format);
  if (json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("matrix        %s\nauto on      %s, L2 %zu bytes, %s\n%s\n", name.c_str(),
              device.c_str(), l2, sizeof(V) == 8 ? "f64" : "f32", c.why.c_str());
  for (const select::Prediction& p : c.ranked)
    std::printf("  %-13s %-16s predicted %.4g ms/SpMV, setup %.4g ms\n", p.format.c_str(),
                p.params.to_string().c_str(), p.spmv_ms, p.setup_ms);
}

}  // namespace

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Statistics of a matrix, with a row-length histogram");
  auto matrix = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto reorder = std::make_shared<std::string>("none");
  cmd->add_option("MATRIX", *matrix, "Matrix Market file, shared matrix name or generator name")
      ->required();
  cmd->add_flag("--json", *json, "Print the statistics as JSON");
  cmd->add_option("--reorder", *reorder,
                  "Also report bandwidth and profile after reordering: none, rcm or band");
  auto automatic = std::make_shared<bool>(false);
  auto device = std::make_shared<std::string>("NVIDIA H100 80GB HBM3");
  auto l2 = std::make_shared<std::size_t>(std::size_t{50} << 20);
  auto precision = std::make_shared<std::string>("f64");
  auto applies = std::make_shared<long long>(0);
  cmd->add_flag("--auto", *automatic,
                "Instead: format=auto's features and its model's ranking of the candidates on "
                "--device (nothing is built or run)");
  cmd->add_option("--device", *device, "--auto: the GPU whose constants rank (H100 default)");
  cmd->add_option("--l2", *l2, "--auto: the device's L2 bytes (H100: 52428800)");
  cmd->add_option("--precision", *precision, "--auto: f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}));
  cmd->add_option("--applies", *applies, "--auto: auto's applies= (0: SpMV time alone)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([matrix, json, reorder, automatic, device, l2, precision, applies] {
    const ReorderMethod method = parse_reorder_method(*reorder);
    Progress progress("loading " + *matrix);
    progress.update(0.0);
    const Csr<double> a = load_matrix(*matrix);
    progress.update(1.0);
    if (*automatic) {
      if (*precision == "f32")
        print_auto(*matrix, a.cast<float>(), *device, *l2, *applies, *json);
      else
        print_auto(*matrix, a, *device, *l2, *applies, *json);
      return;
    }
    const MatrixStats s = compute_stats(a);
    MatrixStats after;
    double reorder_ms = 0;
    if (method != ReorderMethod::none) {
      Progress p2("reordering");
      p2.update(0.0);
      const Reordered<double> r = reorder_matrix(a, method);
      after = compute_stats(r.matrix);
      reorder_ms = r.total_ms();
    }
    if (*json) {
      nlohmann::json j{{"matrix", *matrix},
                       {"rows", s.rows},
                       {"cols", s.cols},
                       {"nnz", s.nnz},
                       {"row_min", s.row_min},
                       {"row_mean", s.row_mean},
                       {"row_max", s.row_max},
                       {"row_variance", s.row_variance},
                       {"empty_rows", s.empty_rows},
                       {"bandwidth", s.bandwidth},
                       {"profile", s.profile},
                       {"pattern_symmetric", s.pattern_symmetric},
                       {"block_size", s.block_size},
                       {"row_histogram", s.row_histogram}};
      if (method != ReorderMethod::none)
        j["reordered"] = {{"method", *reorder},
                          {"bandwidth", after.bandwidth},
                          {"profile", after.profile},
                          {"reorder_ms", reorder_ms}};
      std::cout << j.dump(2) << "\n";
      return;
    }
    print_stats(*matrix, s);
    if (method != ReorderMethod::none)
      std::printf("after %s: bandwidth %d (was %d), profile %lld (was %lld), %.1f ms\n",
                  reorder->c_str(), after.bandwidth, s.bandwidth,
                  static_cast<long long>(after.profile), static_cast<long long>(s.profile),
                  reorder_ms);
  });
}

}  // namespace spmvkit::cli
