// entry_rows_device (search.cuh): block_last_at_most or block_items_span over a row pointer,
// for the tests.
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/search.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit::cuda {

namespace {

__global__ void entry_rows_kernel(std::int64_t nnz, index_t rows,
                                  const index_t* __restrict__ row_ptr, index_t* out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t r = block_last_at_most(row_ptr, 0, rows - 1, nnz, k);
  if (k < nnz) out[k] = r;
}

__global__ void entry_rows_items_kernel(std::int64_t nnz, index_t rows,
                                        const index_t* __restrict__ row_ptr, index_t* out) {
  const ItemsSpan span = block_items_span(row_ptr, 0, rows - 1, nnz);
  for (int i = 0; i < kSpanItems; ++i) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(i) * blockDim.x + threadIdx.x;
    if (k < span.end) out[k] = last_at_most(row_ptr, span.rows.lo, span.rows.hi, k);
  }
}

}  // namespace

std::vector<index_t> entry_rows_device(const std::vector<index_t>& row_ptr, int block_threads,
                                       bool span_items) {
  if (row_ptr.size() < 2) throw InputError("entry_rows_device: a row pointer of at least one row");
  if (block_threads < 32 || block_threads > 1024 || block_threads % 32 != 0)
    throw InputError("entry_rows_device: block_threads must be a multiple of 32 in 32..1024");
  const auto rows = static_cast<index_t>(row_ptr.size() - 1);
  const std::int64_t nnz = row_ptr.back();
  if (nnz == 0) return {};
  const DeviceBuffer<index_t> ptr(row_ptr);
  DeviceBuffer<index_t> out(static_cast<std::size_t>(nnz));
  if (span_items)
    entry_rows_items_kernel<<<grid_for(static_cast<std::size_t>(nnz), block_threads * kSpanItems),
                              block_threads, 0, Context::get().stream()>>>(nnz, rows, ptr.data(),
                                                                           out.data());
  else
    entry_rows_kernel<<<grid_for(static_cast<std::size_t>(nnz), block_threads), block_threads, 0,
                        Context::get().stream()>>>(nnz, rows, ptr.data(), out.data());
  SPMVKIT_LAUNCH_CHECK();
  return out.download();
}

}  // namespace spmvkit::cuda
