// CUDA HYB: the ELL pass (formats/ell) writes z = alpha*ELL*x + beta*y, then the COO kernel
// adds alpha * (COO part)*x.
//
// COO kernel: formats/common/coo_add.cuh. Bytes per COO entry: row + column + value (12 for
// double, 8 for float), plus the x gather.
#include "formats/common/ell_pass_cuda.hpp"
#include "formats/common/coo_add.cuh"
#include "formats/hyb/hyb.hpp"

namespace spmvkit {

namespace {

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

  HybCudaOperator(EllDevice<V>&& ell, CooDeviceTail<V>&& coo, OperatorInfo info)
      : Operator<V>(std::move(info)),
        ell_(std::move(ell)),
        coo_nnz_(static_cast<index_t>(coo.values.size())),
        coo_row_(std::move(coo.row)),
        coo_col_(std::move(coo.col)),
        coo_values_(std::move(coo.values)) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (this->rows() == 0) return;
    cudaStream_t stream = cuda::Context::get().stream();
    ell_.launch(x, y, z, alpha, beta, stream);
    launch_coo_add(coo_nnz_, coo_row_.data(), coo_col_.data(), coo_values_.data(), x, z, alpha,
                   stream);
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

template <class V>
std::unique_ptr<Operator<V>> make_hyb_cuda(const DeviceCsrView<V>& a, EllShape& s,
                                           std::int64_t pitch, std::int64_t coo_nnz,
                                           int rows_per_thread, const EllDecisions& decide) {
  OperatorInfo info;
  // The tail's host part first (beside the upload), its device part while the pack runs
  // (before the pack's wait for its delta fit).
  const CsrTailPlan plan = csr_tail_plan(a, s.g.width, false);
  CooDeviceTail<V> tail;
  EllDecisions with_tail = decide;
  with_tail.meanwhile = [&] { tail = csr_tail_coo_device(a, s.g.width, coo_nnz, plan); };
  EllDevice<V> ell = ell_pack_device(a, s, pitch, rows_per_thread, with_tail, &info);
  return std::make_unique<HybCudaOperator<V>>(std::move(ell), std::move(tail), std::move(info));
}

template std::unique_ptr<Operator<float>> make_hyb_cuda(const DeviceCsrView<float>&, EllShape&,
                                                        std::int64_t, std::int64_t, int,
                                                        const EllDecisions&);
template std::unique_ptr<Operator<double>> make_hyb_cuda(const DeviceCsrView<double>&, EllShape&,
                                                         std::int64_t, std::int64_t, int,
                                                         const EllDecisions&);
template std::unique_ptr<Operator<float>> make_hyb_cuda(const HybData<float>&, EllSkip, int,
                                                        const ColumnDeltas*, OperatorInfo);
template std::unique_ptr<Operator<double>> make_hyb_cuda(const HybData<double>&, EllSkip, int,
                                                         const ColumnDeltas*, OperatorInfo);

}  // namespace spmvkit
