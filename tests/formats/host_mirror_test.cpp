// The host mirror of a small build (backend/cuda/host_mirror.hpp): which device addresses it
// answers for, and for how long. Pure host logic (the "device" arrays here are only addresses),
// so it runs without a GPU wherever CUDA was compiled.
#include <gtest/gtest.h>

#include <vector>

#include "spmvkit/csr.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/host_mirror.hpp"
#endif

namespace spmvkit {

#if SPMVKIT_HAVE_CUDA
TEST(HostMirror, AnswersForTheRegisteredRangeOnlyAndOnlyInScope) {
  const std::vector<index_t> host_ptr{0, 2, 5, 5, 9};  // 4 rows
  const std::vector<index_t> host_col{0, 1, 1, 2, 3, 0, 1, 2, 3};
  // Stand-ins for device arrays: distinct addresses the mirror only compares.
  std::vector<index_t> device_ptr(5, -1), device_col(9, -1), other(5, -1);
  EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 5), nullptr);
  {
    const cuda::ScopedHostMirror mirror(device_ptr.data(), host_ptr.data(), 4, device_col.data(),
                                        host_col.data());
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 5), host_ptr.data());
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data() + 2, 3), host_ptr.data() + 2);  // a suffix
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data() + 2, 4), nullptr);              // past the end
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 6), nullptr);
    EXPECT_EQ(cuda::host_row_ptr(other.data(), 5), nullptr);  // another array
    EXPECT_EQ(cuda::host_row_ptr(nullptr, 0), nullptr);
    EXPECT_EQ(cuda::host_col_idx(device_col.data()), host_col.data());
    EXPECT_EQ(cuda::host_col_idx(device_col.data() + 1), nullptr);  // columns: whole arrays only
    {
      // An inner scope (BSR's block row pointer) hides the outer one until it ends.
      const cuda::ScopedHostMirror inner(other.data(), host_ptr.data(), 4);
      EXPECT_EQ(cuda::host_row_ptr(other.data(), 5), host_ptr.data());
      EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 5), nullptr);
      EXPECT_EQ(cuda::host_col_idx(device_col.data()), nullptr);
    }
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 5), host_ptr.data());
    EXPECT_EQ(cuda::host_col_idx(device_col.data()), host_col.data());
  }
  EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 5), nullptr);
  EXPECT_EQ(cuda::host_col_idx(device_col.data()), nullptr);
}

TEST(HostMirror, RowLengthsAreMadeOnceForTheWholeRowPointerOnly) {
  const std::vector<index_t> host_ptr{0, 2, 5, 5, 9};  // 4 rows
  std::vector<index_t> device_ptr(5, -1), other(5, -1);
  EXPECT_EQ(cuda::host_lengths(device_ptr.data(), 4), nullptr);
  {
    const cuda::ScopedHostMirror mirror(device_ptr.data(), host_ptr.data(), 4);
    const std::vector<index_t>* lengths = cuda::host_lengths(device_ptr.data(), 4);
    ASSERT_NE(lengths, nullptr);
    EXPECT_EQ(*lengths, (std::vector<index_t>{2, 3, 0, 4}));
    EXPECT_EQ(cuda::host_lengths(device_ptr.data(), 4), lengths);  // kept, not made again
    EXPECT_EQ(cuda::host_lengths(device_ptr.data(), 3), nullptr);  // another row count
    EXPECT_EQ(cuda::host_lengths(device_ptr.data() + 1, 3), nullptr);  // a suffix: not whole
    EXPECT_EQ(cuda::host_lengths(other.data(), 4), nullptr);
    {
      const cuda::ScopedHostMirror inner(other.data(), host_ptr.data() + 1, 3);
      ASSERT_NE(cuda::host_lengths(other.data(), 3), nullptr);
      EXPECT_EQ(*cuda::host_lengths(other.data(), 3), (std::vector<index_t>{3, 0, 4}));
      EXPECT_EQ(cuda::host_lengths(device_ptr.data(), 4), nullptr);
    }
    EXPECT_EQ(cuda::host_lengths(device_ptr.data(), 4), lengths);
  }
  EXPECT_EQ(cuda::host_lengths(device_ptr.data(), 4), nullptr);
}

TEST(HostMirror, LargeMatricesAndMissingHostArraysAreNotMirrored) {
  const index_t rows = cuda::kHostPlanRows + 1;
  std::vector<index_t> host_ptr(static_cast<std::size_t>(rows) + 1, 0), device_ptr(host_ptr.size());
  {
    const cuda::ScopedHostMirror mirror(device_ptr.data(), host_ptr.data(), rows);
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 1), nullptr);
    EXPECT_EQ(cuda::host_lengths(device_ptr.data(), rows), nullptr);
  }
  {
    const cuda::ScopedHostMirror mirror(device_ptr.data(), host_ptr.data(), rows - 1);
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), static_cast<std::size_t>(rows)),
              host_ptr.data());
  }
  {
    // SPMVKIT_HOST_PLAN=0: the registry passes no host row pointer.
    const cuda::ScopedHostMirror mirror(device_ptr.data(), nullptr, 4);
    EXPECT_EQ(cuda::host_row_ptr(device_ptr.data(), 5), nullptr);
  }
}
#else
TEST(HostMirror, NeedsTheCudaBuild) { GTEST_SKIP() << "this build has no CUDA backend"; }
#endif

}  // namespace spmvkit
