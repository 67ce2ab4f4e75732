// CUDA SELL-P (BiCGSTAB paper section 3.1, Figs. 4-5; Anzt, Tomov, Dongarra 2014).
//
// Thread mapping: b*t consecutive threads take one slice (b rows of t threads; a block of
// max(256, b*t) threads takes one or more slices). Thread (i, tj) of slice s walks its row's
// chunks: slot slice_ptr[s] + c*(b*t) + i*t + tj for c = 0, 1, ... (per-slice width, so a
// slice costs its own longest row, not the matrix's), UNROLL chunks' index and value loads in
// flight before their x gathers. The t partial sums of a row are adjacent lanes of one warp
// and are added with shuffles (the paper's shared-memory fan-in, in registers). The result
// goes to the user's row perm[position] when the rows were sorted (SELL-C-sigma).
// The paper launches a 2D grid of about sqrt(s) x sqrt(s) blocks because of the old 65535
// limit on gridDim.x; Hopper's 2^31-1 lets a 1D grid cover every slice.
//
// Bytes one apply must read: the 32-byte sectors of the column indices (32-bit, or 16-bit
// deltas from a per-chunk base as in formats/ell; every slot up to the slice width in sentinel
// mode, only rows' own slots in row_length mode) and of values holding entries; 12 bytes a slice
// (slice_ptr, slice_chunks); row_length and perm (4 bytes a row) where used; the x gathers; y when
// beta != 0; z. sellp_bytes() counts exactly the matrix part.
#include "backend/cuda/cuda.hpp"
#include "formats/common/ell_pass_cuda.hpp"
#include "formats/sellp/sellp_cuda.hpp"

namespace spmvkit {

namespace {

struct SellpPolicy {
  static constexpr int min_block_threads = 256;   // blocks take several small slices
  static constexpr int max_block_threads = 1024;  // b*t of one slice
  static constexpr int unroll = 4;
};

template <class V, class IT, int T, bool ROW_LEN, int UNROLL>
__global__ void __launch_bounds__(SellpPolicy::max_block_threads)
    sellp_kernel(index_t rows, index_t slices, int slice_size,
                 const std::int64_t* __restrict__ slice_ptr,
                 const index_t* __restrict__ slice_chunks, const IT* __restrict__ col_idx,
                 const index_t* __restrict__ col_base, const V* __restrict__ values,
                 const index_t* __restrict__ row_length, const index_t* __restrict__ perm,
                 const V* __restrict__ x, const V* y, V* z, V alpha, V beta) {
  const int group = slice_size * T;  // threads a slice = slots a chunk
  const std::int64_t gid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t s = gid / group;
  const int local = static_cast<int>(gid - s * group);
  const int i = local / T;
  const int tj = local % T;
  const std::int64_t position = s * slice_size + i;  // row in slice order
  const bool has_row = s < slices && position < rows;
  using Code = ColumnCode<IT>;
  V sum = 0;
  // No early return: every lane must reach the shuffles below.
  if (s < slices) {
    index_t n = __ldg(slice_chunks + s);
    if constexpr (ROW_LEN) {
      const index_t len = __ldg(row_length + position);
      n = len > tj ? (len - tj + T - 1) / T : 0;
    }
    const std::int64_t first = __ldg(slice_ptr + s);
    const std::int64_t chunk0 = first / group;  // the slice's first chunk
    const IT* cp = col_idx + first + local;
    const V* vp = values + first + local;
    for (index_t c0 = 0; c0 < n; c0 += UNROLL) {
      IT c[UNROLL];
      index_t base[UNROLL];
      V v[UNROLL];
      V xv[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const bool in = c0 + u < n;
        const std::int64_t off = static_cast<std::int64_t>(c0 + u) * group;
        c[u] = in ? __ldg(cp + off) : IT{};  // unused: `valid` checks the range first
        base[u] = in ? Code::base(col_base, chunk0 + c0 + u) : index_t{0};
        if constexpr (ROW_LEN) v[u] = in ? __ldg(vp + off) : V(0);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const bool valid = c0 + u < n && Code::valid(c[u]);
        xv[u] = valid ? __ldg(x + Code::column(c[u], base[u])) : V(0);
        if constexpr (!ROW_LEN)
          v[u] = valid ? __ldg(vp + static_cast<std::int64_t>(c0 + u) * group) : V(0);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) sum += v[u] * xv[u];
    }
  }
  if constexpr (T > 1) {
#pragma unroll
    for (int offset = T / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset, T);
  }
  if (tj == 0 && has_row) {
    const index_t row = perm != nullptr ? __ldg(perm + position) : static_cast<index_t>(position);
    z[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
  }
}

// The host pack uploaded (synchronously: the upload is part of the format's setup).
template <class V>
SellpDevice<V> upload(const SellpData<V>& s, EllSkip skip, const ColumnDeltas* deltas) {
  SellpDevice<V> d;
  d.rows = s.rows;
  d.footprint.config = s.config;
  d.footprint.slices = s.slices;
  d.index_bits = deltas != nullptr ? 16 : 32;
  d.slice_ptr = cuda::DeviceBuffer<std::int64_t>(s.slice_ptr);
  d.slice_chunks = cuda::DeviceBuffer<index_t>(s.slice_chunks);
  d.values = cuda::DeviceBuffer<V>(s.values);
  d.perm = cuda::DeviceBuffer<index_t>(s.perm);
  if (deltas != nullptr) {
    d.col_delta = cuda::DeviceBuffer<std::uint16_t>(deltas->delta);
    d.col_base = cuda::DeviceBuffer<index_t>(deltas->base);
  } else {
    d.col_idx = cuda::DeviceBuffer<index_t>(s.col_idx);
  }
  if (skip == EllSkip::row_length) d.row_length = cuda::DeviceBuffer<index_t>(s.row_length);
  return d;
}

template <class V>
class SellpCudaOperator final : public Operator<V> {
 public:
  SellpCudaOperator(SellpDevice<V>&& s, EllSkip skip, OperatorInfo info)
      : Operator<V>(std::move(info)),
        slices_(s.footprint.slices),
        slice_size_(s.footprint.config.slice_size),
        threads_per_row_(s.footprint.config.threads_per_row),
        skip_(skip),
        s_(std::move(s)) {
    if (skip_ != EllSkip::row_length) s_.row_length = {};
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (this->rows() == 0) return;
    if (s_.index_bits == 16)
      dispatch(reinterpret_cast<const unsigned short*>(s_.col_delta.data()), x, y, z, alpha, beta);
    else
      dispatch(s_.col_idx.data(), x, y, z, alpha, beta);
  }

 private:
  template <class IT>
  void dispatch(const IT* col, const V* x, const V* y, V* z, V alpha, V beta) const {
    if (skip_ == EllSkip::row_length)
      dispatch_t<IT, true>(col, x, y, z, alpha, beta);
    else
      dispatch_t<IT, false>(col, x, y, z, alpha, beta);
  }

  template <class IT, bool ROW_LEN>
  void dispatch_t(const IT* col, const V* x, const V* y, V* z, V alpha, V beta) const {
    switch (threads_per_row_) {
      case 1:
        launch<IT, 1, ROW_LEN>(col, x, y, z, alpha, beta);
        break;
      case 2:
        launch<IT, 2, ROW_LEN>(col, x, y, z, alpha, beta);
        break;
      case 4:
        launch<IT, 4, ROW_LEN>(col, x, y, z, alpha, beta);
        break;
      case 8:
        launch<IT, 8, ROW_LEN>(col, x, y, z, alpha, beta);
        break;
      case 16:
        launch<IT, 16, ROW_LEN>(col, x, y, z, alpha, beta);
        break;
      default:
        launch<IT, 32, ROW_LEN>(col, x, y, z, alpha, beta);
        break;
    }
  }

  template <class IT, int T, bool ROW_LEN>
  void launch(const IT* col, const V* x, const V* y, V* z, V alpha, V beta) const {
    const int group = slice_size_ * T;
    const int block = std::max(SellpPolicy::min_block_threads, group);
    const std::size_t threads = static_cast<std::size_t>(slices_) * group;
    sellp_kernel<V, IT, T, ROW_LEN, SellpPolicy::unroll>
        <<<cuda::grid_for(threads, block), block, 0, cuda::Context::get().stream()>>>(
            this->rows(), slices_, slice_size_, s_.slice_ptr.data(), s_.slice_chunks.data(), col,
            s_.col_base.data(), s_.values.data(), s_.row_length.data(),
            s_.perm.size() > 0 ? s_.perm.data() : nullptr, x, y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  index_t slices_;
  int slice_size_;
  int threads_per_row_;
  EllSkip skip_;
  SellpDevice<V> s_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_sellp_cuda(const SellpData<V>& s, EllSkip skip,
                                             const ColumnDeltas* deltas, OperatorInfo info) {
  return std::make_unique<SellpCudaOperator<V>>(upload(s, skip, deltas), skip, std::move(info));
}

template <class V>
std::unique_ptr<Operator<V>> make_sellp_cuda(SellpDevice<V>&& s, EllSkip skip, OperatorInfo info) {
  return std::make_unique<SellpCudaOperator<V>>(std::move(s), skip, std::move(info));
}

#define SPMVKIT_INSTANTIATE(V)                                                                 \
  template std::unique_ptr<Operator<V>> make_sellp_cuda(const SellpData<V>&, EllSkip,          \
                                                        const ColumnDeltas*, OperatorInfo);    \
  template std::unique_ptr<Operator<V>> make_sellp_cuda(SellpDevice<V>&&, EllSkip, OperatorInfo);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
