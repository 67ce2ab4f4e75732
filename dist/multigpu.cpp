// The BSR paper's multi-GPU scheme (dist/multigpu.hpp): the deal of block rows, the parts'
// matrices, and the apply on the CPU backend (the CUDA one is in multigpu_cuda.cu).
#include "dist/multigpu.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "dist/multigpu_state.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/stats.hpp"

namespace spmvkit::dist {

std::vector<std::vector<index_t>> cyclic_block_rows(const std::vector<index_t>& row_ptr,
                                                    index_t rows, int block_size, int parts) {
  const index_t nb = (rows + block_size - 1) / block_size;
  std::vector<index_t> order(static_cast<std::size_t>(nb));
  std::iota(order.begin(), order.end(), 0);
  auto length = [&](index_t b) {
    return row_ptr[std::min<index_t>(rows, (b + 1) * block_size)] - row_ptr[b * block_size];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t x, index_t y) { return length(x) > length(y); });
  std::vector<std::vector<index_t>> out(static_cast<std::size_t>(parts));
  for (std::size_t k = 0; k < order.size(); ++k) out[k % parts].push_back(order[k]);
  return out;
}

template <class V>
class MultiGpuBsr final : public Operator<V> {
 public:
  MultiGpuBsr(OperatorInfo info, std::unique_ptr<MultiGpuState<V>> s)
      : Operator<V>(std::move(info)), s_(std::move(s)) {}
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    MultiGpuState<V>& s = *s_;
    if (this->backend() == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
      multigpu_apply_cuda(s, x, y, z, alpha, beta);
#endif
      return;
    }
    // (1) each part's BSRMV into its slice of y^ (the gather of step (2) is free in host
    // memory), (3) the shuffle.
    std::size_t offset = 0;
    for (std::size_t g = 0; g < s.parts.size(); ++g) {
      if (s.parts[g]) s.parts[g]->apply(x, nullptr, s.y_hat_host.data() + offset, V(1), V(0));
      offset += s.part_rows[g];
    }
    const index_t* row = s.hat_to_row.data();
    for (std::size_t i = 0; i < s.hat_to_row.size(); ++i) {
      if (row[i] < 0) continue;
      const V ax = alpha * s.y_hat_host[i];
      z[row[i]] = beta == V(0) ? ax : ax + beta * y[row[i]];
    }
  }

 private:
  std::unique_ptr<MultiGpuState<V>> s_;
};

template <class V>
std::unique_ptr<Operator<V>> build_multigpu_bsr(const Csr<V>& a, const Params& params, Backend b,
                                                int parts) {
  a.validate("multi-GPU BSR input");
  int visible = 0;
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) visible = cuda_device_count();
#endif
  if (b == Backend::cuda) {
    if (!cuda_available()) throw UnsupportedError("multi-GPU BSR: no GPU is present");
    if (parts == 0) parts = visible;
    if (parts < 1 || parts > visible)
      throw InputError("multi-GPU BSR: " + std::to_string(parts) + " GPUs asked, " +
                       std::to_string(visible) + " visible");
  } else if (parts < 1) {
    throw InputError("multi-GPU BSR on the CPU: parts must be >= 1 (got " + std::to_string(parts) + ")");
  }
  const long long bs_param = params.get_int("block_size", 0);
  if (params.has("block_size") && bs_param < 1)
    throw InputError("multi-GPU BSR: block_size must be >= 1");
  const int bs = params.has("block_size") ? static_cast<int>(bs_param) : detect_block_size(a);
  Params p = params;
  p.set("block_size", std::to_string(bs));

  auto s = std::make_unique<MultiGpuState<V>>();
  const auto deal = cyclic_block_rows(a.row_ptr, a.rows, bs, parts);
  s->parts.resize(static_cast<std::size_t>(parts));
  for (int g = 0; g < parts; ++g) {
    // Part g: its block rows in dealt order, each bs rows (the last block row of a matrix
    // whose rows are not a multiple of bs padded with empty rows, so blocks stay aligned).
    Csr<V> sub;
    sub.rows = static_cast<index_t>(deal[g].size()) * bs;
    sub.cols = a.cols;
    sub.row_ptr.assign(1, 0);
    for (index_t blk : deal[g])
      for (index_t r = blk * bs; r < (blk + 1) * bs; ++r) {
        s->hat_to_row.push_back(r < a.rows ? r : -1);
        if (r < a.rows) {
          sub.col_idx.insert(sub.col_idx.end(), a.col_idx.begin() + a.row_ptr[r],
                             a.col_idx.begin() + a.row_ptr[r + 1]);
          sub.values.insert(sub.values.end(), a.values.begin() + a.row_ptr[r],
                            a.values.begin() + a.row_ptr[r + 1]);
        }
        sub.row_ptr.push_back(static_cast<index_t>(sub.col_idx.size()));
      }
    s->part_rows.push_back(static_cast<std::size_t>(sub.rows));
    if (sub.rows == 0) continue;
#if SPMVKIT_HAVE_CUDA
    if (b == Backend::cuda) {
      const DeviceScope on(g);
      s->parts[g] = build_operator<V>("bsr", sub, p, b);
      continue;
    }
#endif
    s->parts[g] = build_operator<V>("bsr", sub, p, b);
  }
  OperatorInfo info;
  info.rows = a.rows;
  info.cols = a.cols;
  info.nnz = a.nnz();
  info.backend = b;
  info.format = "bsr_multigpu";
  info.details = "parts=" + std::to_string(parts) + ",block_size=" + std::to_string(bs);
  for (const auto& op : s->parts)
    if (op) info.matrix_bytes += op->info().matrix_bytes;
  if (b == Backend::cpu) {
    s->y_hat_host.resize(s->hat_to_row.size());
  } else {
#if SPMVKIT_HAVE_CUDA
    multigpu_setup_cuda(*s);
#endif
  }
  return std::make_unique<MultiGpuBsr<V>>(std::move(info), std::move(s));
}

template std::unique_ptr<Operator<float>> build_multigpu_bsr<float>(const Csr<float>&,
                                                                    const Params&, Backend, int);
template std::unique_ptr<Operator<double>> build_multigpu_bsr<double>(const Csr<double>&,
                                                                      const Params&, Backend, int);

}  // namespace spmvkit::dist
