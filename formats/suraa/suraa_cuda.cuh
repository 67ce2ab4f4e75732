// SURAA on the GPU, the pieces its setup (suraa_setup_cuda.cu) and its operator
// (suraa_cuda.cu) share: launch shapes, how G1 runs, and what the device setup leaves.
// Included by formats/suraa .cu files only.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/common/csr_split.cuh"
#include "formats/suraa/suraa.hpp"

namespace spmvkit::suraa_gpu {

// Launch shapes, chosen here and nowhere else.
struct SuraaPolicy {
  static constexpr int setup_block = 256;   // moments, keys, npr and segment kernels
  static constexpr int gather_block = 256;  // rearranging col_idx/values
  static constexpr int gather_items = 8;    // nonzeros a gather thread moves
#if !defined(SPMVKIT_NO_CUDA_DP)
  static constexpr int parent_block = 128;  // G1 parent: a thread a row (Algorithm 3)
#endif
  static constexpr int finish_block = 256;  // G1 finish: a thread a row
  static constexpr int rows_block = 256;    // G2/G3 (a block of threads_per_row when larger)
  static constexpr std::size_t max_pending_launches = 1 << 16;  // cap on the limit we request
};

// Built with SPMVKIT_CUDA_DYNAMIC_PARALLELISM=OFF (SPMVKIT_NO_CUDA_DP), the library holds no
// device-side launch, and suraa's G1 runs the static kernel: compute-sanitizer's racecheck
// checks nothing in a program that contains one (it warns "CUDA Dynamic Parallelism is not
// supported by the selected tool" and then misses a plain shared-memory race; H100,
// 2026-11-23), so that build is the one racecheck runs on.
#if defined(SPMVKIT_NO_CUDA_DP)
inline constexpr bool kDynamicParallelism = false;
#else
inline constexpr bool kDynamicParallelism = true;
#endif

// G1 by child grids: suraa, in a build with dynamic parallelism.
inline bool g1_dynamic(const SuraaOptions& o) { return o.dynamic && kDynamicParallelism; }
// G1 by its own kernels, into its own partial sums: all but launch=tiles with a static G1,
// whose long rows are tiles like the others.
inline bool g1_own_kernels(const SuraaOptions& o) {
  return o.launch != SuraaLaunchMode::tiles || g1_dynamic(o);
}

// launch=tiles with a static G1 reads only the plan's groups (g1_end, g2_end), not its
// segments or launches: the device setup then leaves the list out (suraa_setup_device).
inline bool tiles_only(const SuraaOptions& o) { return !g1_own_kernels(o); }

// The npr moments of the m rows of row_ptr (device), on the context stream (those of a small
// matrix the host holds made there: npr_moments_host).
NprMoments npr_moments(index_t m, const index_t* row_ptr);

// What the GPU setup leaves: the sorted matrix, perm, G1's partial-sum layout and the plan.
template <class V>
struct SuraaDeviceData {
  cuda::DeviceBuffer<index_t> row_ptr;      // sorted
  cuda::DeviceBuffer<index_t> col_idx;      // sorted rows
  cuda::DeviceBuffer<V> values;             // sorted rows
  cuda::DeviceBuffer<index_t> perm;         // sorted position -> original row
  cuda::DeviceBuffer<index_t> partial_ptr;  // G1 row r's partial sums: [partial_ptr[r], [r+1])
  index_t partials = 0;
  SuraaPlan plan;           // perm not downloaded
  double gpu_setup_ms = 0;  // sort .. plan, after the upload
  // The sorted row pointer on the host where the plan was made there (a small matrix from the
  // host): the tiles' walk reads it; emptied once the operator is made.
  std::vector<index_t> host_row_ptr;
};

// Algorithm 2 on the device, from a matrix there (read, not kept). list_segments = false: the
// plan's groups, segment count and nonzeros come from a pass over the segments on the device
// and a download of G1's possible prefix only, without the host's list of segments and
// launches (millions of segments on a power law: 4-5 ms of suraa_static's build on the host,
// H100, powerlaw_8000000); segments and launches are left empty.
template <class V>
SuraaDeviceData<V> suraa_setup_device(const DeviceCsrView<V>& a, const NprMoments& mom,
                                      const SuraaOptions& o, bool list_segments = true);

}  // namespace spmvkit::suraa_gpu
