// Building from a CSR already on the device (build_operator(format, DeviceCsrView)): every CUDA
// format against the float64 reference on the zoo, the device builders against the host
// builders, the device-side checks of a user's arrays, the setup split and its peak memory.
// CUDA cases skip (visibly) where there is no GPU; the CPU-build behaviour runs everywhere.
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/check.hpp"
#include "tests/common/zoo.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/upload_beside.hpp"
#endif

namespace spmvkit {

namespace {

using Case = std::tuple<std::string, std::string>;  // format, zoo matrix

std::vector<Case> cuda_cases() {
  std::vector<Case> cases;
  for (const auto& f : formats())
    if (f.supports(Backend::cuda))
      for (const auto& m : testing::zoo_names()) cases.emplace_back(f.name, m);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class DeviceBuildTest : public ::testing::TestWithParam<Case> {};

// From a device CSR, every format matches the reference; those without a device builder say
// they went through the host.
TEST_P(DeviceBuildTest, MatchesFloat64Reference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  const auto& [format, matrix] = GetParam();
  const Csr<double>& a = testing::zoo_matrix(matrix);
  const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
  std::unique_ptr<Operator<double>> op;
  try {
    op = build_operator<double>(format, d.view());
  } catch (const UnsupportedError& e) {
    GTEST_SKIP() << "format refuses this matrix: " << e.what();
  }
  ASSERT_EQ(op->rows(), a.rows);
  ASSERT_EQ(op->cols(), a.cols);
  ASSERT_EQ(op->info().nnz, a.nnz());
  EXPECT_EQ(contains(op->info().details, "built_on=host"), !find_format(format).builds_on_device())
      << op->info().details;
  testing::expect_operator_matches(*op, a, Backend::cuda,
                                   testing::test_seed() ^ std::hash<std::string>{}(format + matrix));
#endif
}

INSTANTIATE_TEST_SUITE_P(Registry, DeviceBuildTest, ::testing::ValuesIn(cuda_cases()), case_name);

#if SPMVKIT_HAVE_CUDA
// Format f built by its host builder and by its device builder from `a` with `params`: the same
// details and byte model, products within tolerance of each other and of the reference. False
// when the host builder refuses the matrix or the parameters for it (the device builder must
// then refuse them too, with the same kind of error).
bool device_build_matches_host(const FormatEntry& f, const Csr<double>& a, const Params& params) {
  const Params valid = validate_params(f, params);
  std::unique_ptr<Operator<double>> host, dev;
  const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
  try {
    host = f.builder<double>()(a, valid, Backend::cuda);
  } catch (const UnsupportedError&) {
    EXPECT_THROW(f.device_builder<double>()(d.view(), valid), UnsupportedError);
    return false;
  } catch (const InputError&) {
    // A parameter this matrix cannot take (HEC's ell_width past the longest row).
    EXPECT_THROW(f.device_builder<double>()(d.view(), valid), InputError);
    return false;
  }
  dev = f.device_builder<double>()(d.view(), valid);
  // And as the registry builds a small matrix it uploaded: planned from the host's row pointer
  // (host_mirror.hpp), the same choices again.
  std::unique_ptr<Operator<double>> mirrored;
  {
    const cuda::ScopedHostMirror mirror(d.row_ptr.data(), a.row_ptr.data(), a.rows,
                                         d.col_idx.data(), a.col_idx.data());
    mirrored = f.device_builder<double>()(d.view(), valid);
  }
  // CSR-3 states its reordering time, which differs from build to build.
  const auto choices = [](std::string details) {
    // Timings (reorder_ms, gpu_setup_ms, ...) differ from run to run; the choices do not.
    // auto's own time: "; selection 0.21 ms".
    return std::regex_replace(
        std::regex_replace(details, std::regex(",[a-z_0-9]*_ms=[^,\\]]*"), ""),
        std::regex("; selection [^ ]* ms"), "");
  };
  EXPECT_EQ(choices(host->info().details), choices(dev->info().details));
  EXPECT_EQ(host->info().matrix_bytes, dev->info().matrix_bytes);
  EXPECT_EQ(choices(mirrored->info().details), choices(dev->info().details));
  EXPECT_EQ(mirrored->info().matrix_bytes, dev->info().matrix_bytes);
  std::mt19937_64 rng(testing::test_seed());
  const std::vector<double> xh = testing::random_vector(a.cols, rng);
  const auto x = Vector<double>::from_host(xh, Backend::cuda);
  Vector<double> zh(a.rows, Backend::cuda), zd(a.rows, Backend::cuda), zm(a.rows, Backend::cuda);
  zh.fill_nan();
  zd.fill_nan();
  zm.fill_nan();
  host->apply(x.data(), nullptr, zh.data(), 1.0, 0.0);
  dev->apply(x.data(), nullptr, zd.data(), 1.0, 0.0);
  mirrored->apply(x.data(), nullptr, zm.data(), 1.0, 0.0);
  const std::vector<double> got_h = zh.to_host(), got_d = zd.to_host(), got_m = zm.to_host();
  const std::vector<double> ref = reference_spmv(a, xh, {}, 1.0, 0.0);
  EXPECT_LE(relative_error(got_d, ref), testing::spmv_tolerance<double>(a));
  EXPECT_LE(relative_error(got_m, ref), testing::spmv_tolerance<double>(a));
  // Not bit for bit: HYB's COO part adds into z with atomics, in no fixed order.
  EXPECT_LE(relative_error(got_d, got_h), testing::spmv_tolerance<double>(a));
  return true;
}
#endif

// A device builder gives the operator the host builder gives: the same choices (details, byte
// model) and the same products, on the zoo.
TEST(DeviceBuild, DeviceBuildersMatchHostBuilders) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  int compared = 0;
  for (const auto& f : formats()) {
    if (!f.builds_on_device()) continue;
    for (const auto& m : testing::zoo_names()) {
      SCOPED_TRACE(f.name + " on " + m);
      compared += device_build_matches_host(f, testing::zoo_matrix(m), {});
    }
  }
  EXPECT_GT(compared, 0) << "no format has a device builder";
#endif
}

// The same with the parameters that take the device builders down their other paths (sorting
// windows, slices wider than a warp, several threads a row, 32-bit indices, the row_length
// skip, the balanced CSR part, a forced width; BSR's given block sizes, rotated tma values and
// segments; SURAA past its low-variance fallback, with a near/far split; CSR-3's orderings
// and long rows), on matrices that reach them.
TEST(DeviceBuild, DeviceBuildersMatchHostBuildersWithParams) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sellp", "sigma=256,slice_size=32"},
      {"sellp", "slice_size=64,threads_per_row=2"},
      {"sellp", "slice_size=128,threads_per_row=8,sigma=1024"},
      {"sellp", "slice_size=1,threads_per_row=1"},
      {"sellp", "slice_size=4,threads_per_row=4,skip=row_length"},
      {"sellp", "index_bits=32,skip=sentinel"},
      {"sellp", "max_fill=1"},
      {"hec", "csr_kernel=balanced"},
      {"hec", "csr_kernel=scalar,ell_width=1"},
      {"hec", "ell_width=0,index_bits=32"},
      {"hec", "skip=row_length,rows_per_thread=1"},
      {"bsr", "block_size=3"},
      {"bsr", "block_size=2,kernel=tma,whole=1"},
      {"bsr", "block_size=4,kernel=k2"},
      {"bsr_balanced", "lambda=2"},
      {"suraa_static", "far_panels=2,near_band=50,low_variance_cv=0"},
      {"suraa_static", "launch=table,low_variance_cv=0"},
      {"suraa", "order=paper,low_variance_cv=0"},
      {"csr3", "reorder=none"},
      {"csr3", "reorder=rcm"},
      {"csr3", "reorder=auto"},
      {"csr3", "permute_x=1"},
      {"csr3", "long_row=8"},
  };
  const std::vector<std::string> matrices = {"random_2000",  "empty_rows",   "one_huge_row",
                                             "rect_wide",    "rect_tall",    "one_by_one",
                                             "no_entries_50x70", "empty_0x0", "stencil27_12",
                                             "powerlaw_20000", "long_rows_mixed",
                                             "blocks_bs3",     "blocks_bs7_rect", "dense_96"};
  int compared = 0;
  for (const auto& [format, params] : cases) {
    const FormatEntry& f = find_format(format);
    if (!f.builds_on_device()) continue;
    for (const auto& m : matrices) {
      SCOPED_TRACE(format + " " + params + " on " + m);
      compared += device_build_matches_host(f, testing::zoo_matrix(m), Params::parse(params));
    }
  }
  EXPECT_GT(compared, 0);
#endif
}

// Bad device arrays: an InputError naming the broken invariant, before any format sees them.
TEST(DeviceBuild, BadDeviceCsrIsRefused) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  Csr<double> a;  // 2 x 3: row 0 {0, 2}, row 1 {1}
  a.rows = 2;
  a.cols = 3;
  a.row_ptr = {0, 2, 3};
  a.col_idx = {0, 2, 1};
  a.values = {1.0, 2.0, 3.0};
  const auto refused = [](Csr<double> bad, const std::string& why) {
    SCOPED_TRACE(why);
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(bad);
    try {
      build_operator<double>("csr_scalar", d.view());
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_TRUE(contains(e.what(), why)) << e.what();
    }
  };
  {
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
    EXPECT_NO_THROW(build_operator<double>("csr_scalar", d.view()));
  }
  Csr<double> b = a;
  b.row_ptr = {1, 2, 3};
  refused(b, "row_ptr[0] must be 0");
  b = a;
  b.row_ptr = {0, 2, 2};
  refused(b, "row_ptr[rows] must equal nnz");
  b = a;
  b.col_idx = {0, 3, 1};
  refused(b, "outside [0, cols)");
  b = a;
  b.col_idx = {2, 0, 1};
  refused(b, "not strictly increasing");
  b = a;
  b.row_ptr = {0, 3, 3};
  b.col_idx = {0, 1, 1};
  refused(b, "not strictly increasing");
  DeviceCsrView<double> v;
  v.rows = 2;
  v.cols = 3;
  v.nnz = 3;
  EXPECT_THROW(build_operator<double>("csr_scalar", v), InputError);  // null row_ptr
#endif
}

// The setup split: on CUDA a device-built format reports its upload apart, and its build (the
// uploaded CSR not counted) stays within twice its own size on the device; on the CPU nothing is
// uploaded.
TEST(DeviceBuild, SetupSplitAndPeakMemory) {
  const Csr<double>& a = testing::zoo_matrix("random_2000");
  BuildTiming t;
  auto op = build_operator<double>("csr_vector", a, {}, Backend::cpu, &t);
  EXPECT_FALSE(t.on_device);
  EXPECT_LT(t.upload_ms, 0);
  EXPECT_GE(t.build_ms, 0);
  EXPECT_EQ(t.build_peak_bytes, 0u);
  EXPECT_EQ(t.format_bytes, 0u);
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (CPU part passed)";
  for (const auto& f : formats()) {
    // The cuSPARSE peers build from a host CSR on the host (their device builders serve device
    // arrays).
    if (!f.builds_on_device() || f.peer) continue;
    // Block matrices and power-law rows take BSR's sort and SELL-P's sorting window.
    for (const char* m :
         {"random_2000", "stencil27_12", "one_huge_row", "blocks_bs3", "powerlaw_20000"}) {
      SCOPED_TRACE(f.name + " on " + m);
      t = BuildTiming{};
      try {
        op = build_operator<double>(f.name, testing::zoo_matrix(m), {}, Backend::cuda, &t);
      } catch (const UnsupportedError&) {
        continue;
      }
      EXPECT_TRUE(t.on_device);
      EXPECT_GE(t.upload_ms, 0);
      EXPECT_GE(t.build_ms, 0);
      // A format that keeps the upload (csr_scalar, csr_vector, csr_balanced; auto where its
      // pick is one of them or a cuSPARSE CSR peer) may allocate nothing more; its format bytes
      // count the kept CSR.
      const Csr<double>& am = testing::zoo_matrix(m);
      const std::size_t csr_bytes = (am.row_ptr.size() + am.col_idx.size()) * sizeof(index_t) +
                                    am.values.size() * sizeof(double);
      bool keeps = f.keeps_device_csr();
      if (f.name == "auto") {
        const std::string d = op->info().details;  // "chosen=<format> [...] by ..."
        const std::string pick = d.substr(7, d.find(' ') - 7);
        ASSERT_EQ(d.rfind("chosen=", 0), 0u) << d;
        keeps = find_format(pick).keeps_device_csr();
      }
      if (keeps)
        EXPECT_GE(t.format_bytes, csr_bytes);
      else
        EXPECT_GT(t.build_peak_bytes, 0u);
      EXPECT_GT(t.format_bytes, 0u);
      EXPECT_LE(t.build_peak_bytes, 2 * t.format_bytes);
    }
  }
}

// The registry's upload beside the build (upload_beside.hpp): the stream's first use on the
// calling thread comes after the worker's copies (the arrays, poisoned first, read back whole),
// a second upload while the worker is busy is queued by the caller, and a scope left without
// using the stream still waits for the worker before the arrays go.
TEST(DeviceBuild, UploadBesideOrdersTheStreamAfterItsCopies) {
#if SPMVKIT_HAVE_CUDA
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* m : {"random_2000", "empty_rows", "one_huge_row"}) {
    SCOPED_TRACE(m);
    const Csr<double>& a = testing::zoo_matrix(m);
    const auto poisoned = [&] {
      cuda::OwnedDeviceCsr<double> d = cuda::device_csr_like(a);
      cuda::fill_bytes(d.row_ptr.data(), 0xff, d.row_ptr.bytes());
      cuda::fill_bytes(d.col_idx.data(), 0xff, d.col_idx.bytes());
      cuda::fill_bytes(d.values.data(), 0xff, d.values.bytes());
      cuda::Context::get().synchronize();
      return d;
    };
    const auto same = [&](const cuda::OwnedDeviceCsr<double>& d) {
      const Csr<double> back = cuda::download_csr(d.view());  // uses the stream: waits
      EXPECT_EQ(back.row_ptr, a.row_ptr);
      EXPECT_EQ(back.col_idx, a.col_idx);
      EXPECT_EQ(back.values, a.values);
    };
    cuda::OwnedDeviceCsr<double> d = poisoned(), d2 = poisoned(), d3 = poisoned();
    {
      cuda::UploadBeside up(d, a);
      cuda::UploadBeside busy(d2, a);  // the worker holds the first: queued here
      same(d2);
      same(d);
      up.wait();
      EXPECT_GE(up.queued_ms(), 0.0);
    }
    { const cuda::UploadBeside unused(d3, a); }  // left unwaited: its destructor waits
    same(d3);
  }
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// A cuSPARSE CSR or COO peer handed the registry's upload to keep (format=auto's pick) queues its
// preprocessing through its library handle: the handle, like Context::stream(), must wait for an
// upload still left to the worker first. Built at once beside an upload into poisoned arrays,
// its products must be right.
TEST(DeviceBuild, KeptUploadReachesTheDeviceBeforeCusparsePreprocesses) {
#if SPMVKIT_HAVE_CUDA
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* peer : {"cusparse_csr_alg1", "cusparse_csr_alg2", "cusparse_coo"})
    for (const char* m : {"random_2000", "powerlaw_20000", "empty_rows"}) {
      SCOPED_TRACE(std::string(peer) + " on " + m);
      const Csr<double>& a = testing::zoo_matrix(m);
      auto d = std::make_shared<cuda::OwnedDeviceCsr<double>>(cuda::device_csr_like(a));
      cuda::fill_bytes(d->row_ptr.data(), 0xff, d->row_ptr.bytes());
      cuda::fill_bytes(d->col_idx.data(), 0xff, d->col_idx.bytes());
      cuda::fill_bytes(d->values.data(), 0xff, d->values.bytes());
      cuda::Context::get().synchronize();
      std::unique_ptr<Operator<double>> op;
      {
        cuda::UploadBeside up(*d, a);
        op = build_operator_from_checked<double>(peer, d->view(), {}, d);
        up.wait();
      }
      testing::expect_operator_matches(*op, a, Backend::cuda, testing::test_seed());
    }
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// Without the CUDA backend compiled in, the device entry refuses clearly.
TEST(DeviceBuild, NoCudaBuildRefuses) {
  if (cuda_compiled()) GTEST_SKIP() << "this build has CUDA";
  DeviceCsrView<double> v;
  try {
    build_operator<double>("csr_scalar", v);
    ADD_FAILURE() << "accepted";
  } catch (const UnsupportedError& e) {
    EXPECT_TRUE(contains(e.what(), "no CUDA backend")) << e.what();
  }
}

}  // namespace

}  // namespace spmvkit
