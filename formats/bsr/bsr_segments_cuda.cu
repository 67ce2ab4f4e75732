// Balanced BSR's segments (paper 5.5) and the block-row statistics of the balancing rule, on the
// device from the block row pointer there (issue 24): what make_bsr_segments and bsr_row_stats
// compute on the host after the pointer's download (26.9 ms of bsr_balanced's setup on
// reservoir_bs2_153, 3.6M block rows, H100 machine), with the same results. The statistics
// are exact integer sums (so the same doubles whatever the order); the segments: a count a
// block row (bsr_row_segments), two CUB scans (segments and split rows before each block row),
// then a thread a block row writes its segments (bsr_segment_end).
#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "formats/bsr/bsr_cuda.hpp"

namespace spmvkit {

namespace {

constexpr int kSegmentBlock = 256;  // threads a block of the segment kernels (memory-bound)

struct MaxOp {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a > b ? a : b;
  }
};

// Sum, sum of squares and maximum of the block-row lengths: a block reduction, then one atomic
// a thread block (integer sums: exact in any order). Bytes: the block row pointer once (4 a
// block row).
__global__ void bsr_row_sums_kernel(const index_t* __restrict__ block_row_ptr, index_t block_rows,
                                    unsigned long long* __restrict__ sums) {
  using Reduce = cub::BlockReduce<unsigned long long, kSegmentBlock>;
  __shared__ typename Reduce::TempStorage storage;
  const std::int64_t br = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned long long len =
      br < block_rows ? static_cast<unsigned long long>(block_row_ptr[br + 1] - block_row_ptr[br])
                      : 0;
  const unsigned long long sum = Reduce(storage).Sum(len);
  __syncthreads();
  const unsigned long long sum2 = Reduce(storage).Sum(len * len);
  __syncthreads();
  const unsigned long long max = Reduce(storage).Reduce(len, MaxOp{});
  if (threadIdx.x == 0) {
    atomicAdd(sums, sum);
    atomicAdd(sums + 1, sum2);
    atomicMax(sums + 2, max);
  }
}

// Block row br's segments and whether it is split (0 for br = block_rows: the scans' totals),
// the most segments of a split row into *max_split. Bytes: 8 read, 8 written a block row.
__global__ void bsr_segment_counts_kernel(const index_t* __restrict__ block_row_ptr,
                                          index_t block_rows, index_t lambda,
                                          index_t* __restrict__ segment_offset,
                                          index_t* __restrict__ split_offset,
                                          index_t* __restrict__ max_split) {
  const std::int64_t br = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (br > block_rows) return;
  index_t n = 0, split = 0;
  if (br < block_rows) {
    const index_t len = block_row_ptr[br + 1] - block_row_ptr[br];
    n = bsr_row_segments(len, lambda);
    split = len > lambda;
    if (split) atomicMax(max_split, n);
  }
  segment_offset[br] = n;
  split_offset[br] = split;
}

// Block row br's segments, as make_bsr_segments appends them: a whole row keeps its end and
// writes z (segment_out = br); a split row's segments take the partial slots after those of the
// split rows before it (its segments before it less its whole rows before it). Bytes: about 8
// a segment written, 16 a block row read.
__global__ void bsr_segment_emit_kernel(
    const index_t* __restrict__ block_row_ptr, index_t block_rows, index_t lambda,
    const index_t* __restrict__ segment_offset, const index_t* __restrict__ split_offset,
    index_t* __restrict__ segment_block_ptr, index_t* __restrict__ segment_out,
    index_t* __restrict__ split_rows, index_t* __restrict__ segment_ptr) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0) {
    segment_block_ptr[0] = 0;
    segment_ptr[0] = 0;
  }
  if (i >= block_rows) return;
  const auto br = static_cast<index_t>(i);
  const index_t begin = block_row_ptr[br];
  const index_t len = block_row_ptr[br + 1] - begin;
  const index_t at = segment_offset[br];
  if (len <= lambda) {
    segment_block_ptr[at + 1] = block_row_ptr[br + 1];
    segment_out[at] = br;
    return;
  }
  const index_t n = bsr_row_segments(len, lambda);
  const index_t split = split_offset[br];
  const index_t slot0 = at - (br - split);
  for (index_t q = 0; q < n; ++q) {
    segment_block_ptr[at + q + 1] = begin + bsr_segment_end(len, n, q);
    segment_out[at + q] = -(slot0 + q + 1);
  }
  split_rows[split] = br;
  segment_ptr[split + 1] = slot0 + n;
}

}  // namespace

BsrRowStats bsr_row_stats_device(const index_t* block_row_ptr, index_t block_rows) {
  if (block_rows <= 0) return BsrRowStats{};
  // A block row pointer the host holds (block size 1 of a small matrix, host_mirror.hpp).
  if (const index_t* h =
          cuda::host_row_ptr(block_row_ptr, static_cast<std::size_t>(block_rows) + 1)) {
    std::int64_t sum = 0, sum2 = 0;
    index_t longest = 0;
    for (index_t br = 0; br < block_rows; ++br) {
      const std::int64_t len = h[br + 1] - h[br];
      sum += len;
      sum2 += len * len;
      longest = std::max(longest, static_cast<index_t>(len));
    }
    return bsr_row_stats(block_rows, sum, sum2, longest);
  }
  cudaStream_t stream = cuda::Context::get().stream();
  cuda::DeviceBuffer<unsigned long long> sums(3);
  cuda::fill_bytes(sums.data(), 0, sums.bytes());
  bsr_row_sums_kernel<<<cuda::grid_for(static_cast<std::size_t>(block_rows), kSegmentBlock),
                        kSegmentBlock, 0, stream>>>(block_row_ptr, block_rows, sums.data());
  SPMVKIT_LAUNCH_CHECK();
  const std::vector<unsigned long long> h = sums.download();
  return bsr_row_stats(block_rows, static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1]),
                       static_cast<index_t>(h[2]));
}

DeviceBsrSegments make_bsr_segments_device(const index_t* block_row_ptr, index_t block_rows,
                                           index_t lambda, std::size_t slack_bytes) {
  DeviceBsrSegments s;
  s.lambda = lambda;
  const auto n = static_cast<std::size_t>(block_rows) + 1;
  const std::size_t slack = (slack_bytes + sizeof(index_t) - 1) / sizeof(index_t);
  // A block row pointer the host holds (block size 1 of a small matrix, host_mirror.hpp):
  // make_bsr_segments there, its arrays queued up.
  if (const index_t* h = cuda::host_row_ptr(block_row_ptr, n)) {
    const BsrSegments host = make_bsr_segments(std::vector<index_t>(h, h + n), lambda);
    s.segments = host.segments();
    s.n_split = static_cast<index_t>(host.split_rows.size());
    s.max_split = host.max_split;
    s.partial_slots = host.partial_slots();
    s.segment_block_ptr = cuda::DeviceBuffer<index_t>(host.segment_block_ptr.size() + slack);
    cuda::copy_to_device_async(s.segment_block_ptr.data(), host.segment_block_ptr.data(),
                               host.segment_block_ptr.size() * sizeof(index_t));
    if (slack > 0)
      cuda::fill_bytes(s.segment_block_ptr.data() + host.segment_block_ptr.size(), 0,
                       slack * sizeof(index_t));
    s.segment_out = cuda::queued_upload(host.segment_out);
    s.split_rows = cuda::queued_upload(host.split_rows);
    s.segment_ptr = cuda::queued_upload(host.segment_ptr);
    s.host_block_ptr = host.segment_block_ptr;
    return s;
  }
  cudaStream_t stream = cuda::Context::get().stream();
  cuda::DeviceBuffer<index_t> segment_offset(n), split_offset(n), max_split(1);
  cuda::fill_bytes(max_split.data(), 0, max_split.bytes());
  bsr_segment_counts_kernel<<<cuda::grid_for(n, kSegmentBlock), kSegmentBlock, 0, stream>>>(
      block_row_ptr, block_rows, lambda, segment_offset.data(), split_offset.data(),
      max_split.data());
  SPMVKIT_LAUNCH_CHECK();
  for (index_t* offsets : {segment_offset.data(), split_offset.data()})
    cuda::cub_call(
        [&](void* temp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceScan::ExclusiveSum(temp, bytes, offsets, offsets, block_rows + 1, st);
        },
        stream);
  const std::vector<index_t> counts = cuda::download_each(
      {segment_offset.data() + block_rows, split_offset.data() + block_rows, max_split.data()});
  s.segments = counts[0];
  s.n_split = counts[1];
  s.max_split = counts[2];
  s.partial_slots = s.segments - (block_rows - s.n_split);  // the split rows' segments

  const std::size_t segments = static_cast<std::size_t>(s.segments);
  s.segment_block_ptr = cuda::DeviceBuffer<index_t>(segments + 1 + slack);
  if (slack > 0)
    cuda::fill_bytes(s.segment_block_ptr.data() + segments + 1, 0, slack * sizeof(index_t));
  s.segment_out = cuda::DeviceBuffer<index_t>(segments);
  s.split_rows = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(s.n_split));
  s.segment_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(s.n_split) + 1);
  bsr_segment_emit_kernel<<<cuda::grid_for(n, kSegmentBlock), kSegmentBlock, 0, stream>>>(
      block_row_ptr, block_rows, lambda, segment_offset.data(), split_offset.data(),
      s.segment_block_ptr.data(), s.segment_out.data(), s.split_rows.data(), s.segment_ptr.data());
  SPMVKIT_LAUNCH_CHECK();
  return s;
}

}  // namespace spmvkit
