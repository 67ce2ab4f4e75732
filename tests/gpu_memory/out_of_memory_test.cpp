// Out of device memory (GPU only): with the device filled first, building any format throws
// a CudaError (or a cuSPARSE error for the peers) naming what could not be allocated, gives
// back everything it took, and leaves the context usable: once memory is freed the same
// format builds and multiplies correctly. An operator built before the device filled up still
// applies (no format allocates per apply) or fails cleanly. A test program of its own, run
// alone by ctest (RUN_SERIAL): it would starve tests running beside it of device memory, and
// their allocations would upset its accounting.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/zoo.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#endif

namespace spmvkit {
namespace {

#if SPMVKIT_HAVE_CUDA
// CUDA loads a kernel's module at its first launch (lazy loading, the default since CUDA 12),
// which takes device memory: on a filled device the first launch of a kernel then fails, and
// what failed is the driver's module load, not an allocation of ours (cuSPARSE's kernels even
// stay broken for the process). These tests are about our allocations: load every module when
// the context is made, before the device fills.
const bool kEagerModules = [] { return setenv("CUDA_MODULE_LOADING", "EAGER", 0) == 0; }();

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  SPMVKIT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

// Takes device memory until about `leave` bytes are free; gives it back when destroyed.
class DeviceFiller {
 public:
  explicit DeviceFiller(std::size_t leave) {
    cuda::release_cached_device_memory();  // what the pool keeps would not count as taken
    for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{1} << 20); chunk /= 2)
      while (free_device_bytes() > leave + chunk) {
        try {
          held_.emplace_back(chunk);
        } catch (const CudaError&) {  // the driver keeps some of what it reports free
          break;
        }
      }
  }

 private:
  std::vector<cuda::DeviceBuffer<char>> held_;
};

// x, the reference and the check, for one operator.
void expect_correct(const Operator<double>& op, const Csr<double>& a, const std::string& what) {
  std::mt19937_64 rng(testing::test_seed());
  const std::vector<double> xh = testing::random_vector(static_cast<std::size_t>(a.cols), rng);
  const auto x = Vector<double>::from_host(xh, Backend::cuda);
  Vector<double> z(static_cast<std::size_t>(a.rows), Backend::cuda);
  z.fill_nan();
  op.apply(x.data(), nullptr, z.data(), 1.0, 0.0);
  EXPECT_LT(relative_error(z.to_host(), reference_spmv(a, xh, {}, 1.0, 0.0)), 1e-12) << what;
}
#endif

TEST(CudaOutOfMemory, EveryFormatThrowsFreesAndRecovers) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: out-of-memory behaviour is the GPU's";
#if SPMVKIT_HAVE_CUDA
  cuda::Context::get();  // handles and stream exist before the device fills up
  // 300k rows, ~16 entries a row: a 58 MB CSR upload, each format a few tens of MB more.
  const Csr<double> a = generate_random(300000, 300000, 16.0, testing::test_seed());
  for (const auto& f : formats()) {
    if (!f.supports(Backend::cuda)) continue;
    // Fail at different points: the upload itself, the format's arrays, its workspaces.
    for (const std::size_t leave_mb : {8, 48, 96, 160}) {
      SCOPED_TRACE(f.name + " with " + std::to_string(leave_mb) + " MB free");
      DeviceFiller fill(std::size_t{leave_mb} << 20);
      const std::size_t before = free_device_bytes();
      const std::size_t ours_before = cuda::device_bytes_in_use();
      try {
        auto op = build_operator<double>(f.name, a, {}, Backend::cuda);
        synchronize(Backend::cuda);
        // It fit: then it must be right, even with the device nearly full.
        expect_correct(*op, a, f.name + " built in " + std::to_string(leave_mb) + " MB");
      } catch (const CudaError& e) {
        EXPECT_NE(std::string(e.what()).find("memory"), std::string::npos) << e.what();
      } catch (const CusparseError& e) {
        EXPECT_TRUE(f.peer) << "only the cuSPARSE peers report through cuSPARSE: " << e.what();
      } catch (const UnsupportedError&) {
        // a format that refuses this matrix whatever the memory
      }
      // Everything the failed (or finished) build took is back: in spmvkit's ledger, and, once
      // the device pool hands back what it keeps for reuse, on the device (2 MB: allocation
      // granularity).
      EXPECT_LE(cuda::device_bytes_in_use(), ours_before + (std::size_t{2} << 20));
      cuda::release_cached_device_memory();
      EXPECT_GE(free_device_bytes() + (std::size_t{2} << 20), before);
    }
    // Memory back: the context still works, and the format builds and multiplies right.
    try {
      auto op = build_operator<double>(f.name, a, {}, Backend::cuda);
      expect_correct(*op, a, f.name + " after the device was full");
    } catch (const UnsupportedError&) {
    }
  }
#endif
}

TEST(CudaOutOfMemory, BuiltOperatorsStillApplyOnAFullDevice) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: out-of-memory behaviour is the GPU's";
#if SPMVKIT_HAVE_CUDA
  const Csr<double> a = generate_random(50000, 50000, 12.0, testing::test_seed());
  for (const auto& f : formats()) {
    if (!f.supports(Backend::cuda)) continue;
    SCOPED_TRACE(f.name);
    std::unique_ptr<Operator<double>> op;
    try {
      op = build_operator<double>(f.name, a, {}, Backend::cuda);
    } catch (const UnsupportedError&) {
      continue;
    }
    std::mt19937_64 rng(testing::test_seed());
    const std::vector<double> xh = testing::random_vector(static_cast<std::size_t>(a.cols), rng);
    const auto x = Vector<double>::from_host(xh, Backend::cuda);
    Vector<double> z(static_cast<std::size_t>(a.rows), Backend::cuda);
    z.fill_nan();
    {
      DeviceFiller fill(std::size_t{1} << 20);
      try {
        op->apply(x.data(), nullptr, z.data(), 1.0, 0.0);
        synchronize(Backend::cuda);
      } catch (const CudaError& e) {
        EXPECT_NE(std::string(e.what()).find("memory"), std::string::npos) << e.what();
      }
    }
    z.fill_nan();
    op->apply(x.data(), nullptr, z.data(), 1.0, 0.0);
    EXPECT_LT(relative_error(z.to_host(), reference_spmv(a, xh, {}, 1.0, 0.0)), 1e-12);
  }
#endif
}

}  // namespace
}  // namespace spmvkit
