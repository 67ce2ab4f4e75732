// CUDA HYB: the ELL pass (formats/ell) writes z = alpha*ELL*x + beta*y, then the COO kernel
// adds alpha * (COO part)*x.
//
// COO kernel: a warp takes a tile of 32*ITEMS consecutive entries (sorted by row), loads all
// of them first (coalesced, ITEMS independent loads of row, column and value per lane), then
// the x gathers, then reduces them by row with warp_segmented_reduce: one atomic add per row
// segment per tile. Bytes per COO entry: row + column + value (12 for double, 8 for float),
// plus the x gather.
#include "formats/ell/ell_cuda.hpp"
#include "formats/hyb/hyb.hpp"
#include "formats/hyb/segmented_reduce.cuh"

namespace spmvkit {

namespace {

struct CooPolicy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 8;
  static constexpr int tile = 32 * items_per_thread;  // entries a warp
};

template <class V, int ITEMS>
__global__ void __launch_bounds__(CooPolicy::block_threads)
    coo_add_kernel(index_t nnz, const index_t* __restrict__ row, const index_t* __restrict__ col,
                   const V* __restrict__ val, const V* __restrict__ x, V* z, V alpha) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t tile = warp * 32 * ITEMS;
  if (tile >= nnz) return;  // the whole warp leaves together
  index_t key[ITEMS];
  index_t c[ITEMS];
  V v[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t k = tile + i * 32 + lane;
    const bool in = k < nnz;
    key[i] = in ? __ldg(row + k) : index_t{-1};
    c[i] = in ? __ldg(col + k) : index_t{0};
    v[i] = in ? __ldg(val + k) : V(0);
  }
  V prod[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) prod[i] = key[i] >= 0 ? v[i] * __ldg(x + c[i]) : V(0);
  warp_segmented_reduce<V, ITEMS>(key, prod, lane,
                                  [&](index_t r, V sum) { atomicAdd(z + r, alpha * sum); });
}

template <class V>
class HybCudaOperator final : public Operator<V> {
 public:
  HybCudaOperator(const HybData<V>& h, EllSkip skip, int rows_per_thread,
                  const ColumnDeltas* deltas, OperatorInfo info)
      : Operator<V>(std::move(info)),
        ell_(h.ell, skip, rows_per_thread, deltas),
        coo_nnz_(static_cast<index_t>(h.coo_nnz())),
        coo_row_(h.coo_row),
        coo_col_(h.coo_col),
        coo_values_(h.coo_values) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (this->rows() == 0) return;
    cudaStream_t stream = cuda::Context::get().stream();
    ell_.launch(x, y, z, alpha, beta, stream);
    if (coo_nnz_ == 0) return;
    constexpr int block = CooPolicy::block_threads;
    const std::size_t warps =
        (static_cast<std::size_t>(coo_nnz_) + CooPolicy::tile - 1) / CooPolicy::tile;
    coo_add_kernel<V, CooPolicy::items_per_thread>
        <<<cuda::grid_for(warps * 32, block), block, 0, stream>>>(
            coo_nnz_, coo_row_.data(), coo_col_.data(), coo_values_.data(), x, z, alpha);
    SPMVKIT_LAUNCH_CHECK();
  }

 private:
  EllDevice<V> ell_;
  index_t coo_nnz_;
  cuda::DeviceBuffer<index_t> coo_row_;
  cuda::DeviceBuffer<index_t> coo_col_;
  cuda::DeviceBuffer<V> coo_values_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_hyb_cuda(const HybData<V>& h, EllSkip skip, int rows_per_thread,
                                           const ColumnDeltas* deltas, OperatorInfo info) {
  return std::make_unique<HybCudaOperator<V>>(h, skip, rows_per_thread, deltas, std::move(info));
}

template std::unique_ptr<Operator<float>> make_hyb_cuda(const HybData<float>&, EllSkip, int,
                                                        const ColumnDeltas*, OperatorInfo);
template std::unique_ptr<Operator<double>> make_hyb_cuda(const HybData<double>&, EllSkip, int,
                                                         const ColumnDeltas*, OperatorInfo);

}  // namespace spmvkit
