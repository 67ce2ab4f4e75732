// OpenMP BSR kernel: a thread per block row (or per segment of balanced BSR, then a parallel
// reduction over the split rows). A block row accumulates into a thread-private buffer of bs
// values: column-major blocks give one SIMD axpy per block column (bs values times one x
// entry), row-major blocks one dot product per block row.
//
// Bytes per apply: block values, block column indices, block-row (or segment) pointer, x (each
// block column's bs entries per block, mostly from cache), y when beta != 0, z written.
#include <algorithm>
#include <vector>

#include "formats/bsr/bsr.hpp"

namespace spmvkit {

namespace {

// acc[0..bs) += the block row's blocks [k0, k1) times x. Padded columns (>= cols) are skipped:
// their values are zeros and x has no such entries.
template <class V>
void block_row_product(const Bsr<V>& m, index_t k0, index_t k1, const V* x, V* acc) {
  const int bs = m.block_size;
  const std::size_t bs2 = static_cast<std::size_t>(bs) * bs;
  for (index_t k = k0; k < k1; ++k) {
    const index_t c0 = m.block_col_idx[k] * bs;
    const int width = static_cast<int>(std::min<std::int64_t>(bs, m.cols - c0));
    const V* blk = m.values.data() + static_cast<std::size_t>(k) * bs2;
    const V* xs = x + c0;
    if (m.layout == BlockLayout::column_major) {
      for (int j = 0; j < width; ++j) {
        const V xj = xs[j];
        const V* col = blk + static_cast<std::size_t>(j) * bs;
#pragma omp simd
        for (int i = 0; i < bs; ++i) acc[i] += col[i] * xj;
      }
    } else {
      for (int i = 0; i < bs; ++i) {
        const V* row = blk + static_cast<std::size_t>(i) * bs;
        V sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int j = 0; j < width; ++j) sum += row[j] * xs[j];
        acc[i] += sum;
      }
    }
  }
}

template <class V>
void write_block_row(const Bsr<V>& m, index_t br, const V* acc, const V* y, V* z, V alpha, V beta) {
  const index_t r0 = br * m.block_size;
  const index_t n = static_cast<index_t>(std::min<std::int64_t>(m.block_size, m.rows - r0));
  for (index_t i = 0; i < n; ++i)
    z[r0 + i] = beta == V(0) ? alpha * acc[i] : alpha * acc[i] + beta * y[r0 + i];
}

}  // namespace

template <class V>
void bsr_spmv_cpu(const Bsr<V>& m, const BsrSegments* segments, const V* x, const V* y, V* z,
                  V alpha, V beta, V* partials) {
  const int bs = m.block_size;
  if (!segments) {
#pragma omp parallel
    {
      std::vector<V> acc(static_cast<std::size_t>(bs));
#pragma omp for schedule(dynamic, 64)
      for (index_t br = 0; br < m.block_rows; ++br) {
        std::fill(acc.begin(), acc.end(), V(0));
        block_row_product(m, m.block_row_ptr[br], m.block_row_ptr[br + 1], x, acc.data());
        write_block_row(m, br, acc.data(), y, z, alpha, beta);
      }
    }
    return;
  }
  // Balanced BSR (paper 5.5): segments are independent rows; whole rows finish directly, the
  // segments of split rows leave partial sums that the second loop reduces.
  const index_t nseg = segments->segments();
  const index_t nsplit = static_cast<index_t>(segments->split_rows.size());
#pragma omp parallel
  {
    std::vector<V> acc(static_cast<std::size_t>(bs));
#pragma omp for schedule(dynamic, 64)
    for (index_t s = 0; s < nseg; ++s) {
      std::fill(acc.begin(), acc.end(), V(0));
      block_row_product(m, segments->segment_block_ptr[s], segments->segment_block_ptr[s + 1], x,
                        acc.data());
      const index_t out = segments->segment_out[s];
      if (out >= 0)
        write_block_row(m, out, acc.data(), y, z, alpha, beta);
      else
        std::copy(acc.begin(), acc.end(),
                  partials + static_cast<std::size_t>(-1 - out) * static_cast<std::size_t>(bs));
    }
    // (implicit barrier: every partial is written before the reduction reads it)
#pragma omp for schedule(dynamic, 16)
    for (index_t q = 0; q < nsplit; ++q) {
      std::fill(acc.begin(), acc.end(), V(0));
      for (index_t slot = segments->segment_ptr[q]; slot < segments->segment_ptr[q + 1]; ++slot)
        for (int i = 0; i < bs; ++i)
          acc[i] += partials[static_cast<std::size_t>(slot) * static_cast<std::size_t>(bs) + i];
      write_block_row(m, segments->split_rows[q], acc.data(), y, z, alpha, beta);
    }
  }
}

namespace {

template <class V>
class BsrCpuOperator final : public Operator<V> {
 public:
  BsrCpuOperator(Bsr<V> m, std::optional<BsrSegments> segments, OperatorInfo info)
      : Operator<V>(std::move(info)), m_(std::move(m)), segments_(std::move(segments)) {
    if (segments_)
      partials_.resize(static_cast<std::size_t>(segments_->partial_slots()) *
                       static_cast<std::size_t>(m_.block_size));
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    bsr_spmv_cpu(m_, segments_ ? &*segments_ : nullptr, x, y, z, alpha, beta, partials_.data());
  }

 private:
  Bsr<V> m_;
  std::optional<BsrSegments> segments_;
  mutable std::vector<V> partials_;  // y_hat: scratch written by every apply
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_bsr_cpu(Bsr<V> m, std::optional<BsrSegments> segments,
                                          OperatorInfo info) {
  return std::make_unique<BsrCpuOperator<V>>(std::move(m), std::move(segments), std::move(info));
}

#define SPMVKIT_INSTANTIATE(V)                                                                     \
  template void bsr_spmv_cpu(const Bsr<V>&, const BsrSegments*, const V*, const V*, V*, V, V, V*); \
  template std::unique_ptr<Operator<V>> make_bsr_cpu(Bsr<V>, std::optional<BsrSegments>,           \
                                                     OperatorInfo);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
