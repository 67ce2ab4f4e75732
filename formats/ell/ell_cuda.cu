// ELL on the GPU: the shared CUDA ELL pass (formats/common/ell_pass_cuda.cu) over the matrix.
#include "formats/common/ell_pass_cuda.hpp"
#include "formats/ell/ell.hpp"

namespace spmvkit {

namespace {

template <class V>
class EllCudaOperator final : public Operator<V> {
 public:
  EllCudaOperator(const EllData<V>& e, EllSkip skip, int rows_per_thread,
                  const ColumnDeltas* deltas, OperatorInfo info)
      : Operator<V>(std::move(info)), ell_(e, skip, rows_per_thread, deltas) {}

  EllCudaOperator(EllDevice<V>&& ell, OperatorInfo info)
      : Operator<V>(std::move(info)), ell_(std::move(ell)) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    ell_.launch(x, y, z, alpha, beta, cuda::Context::get().stream());
  }

 private:
  EllDevice<V> ell_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_ell_cuda(const EllData<V>& e, EllSkip skip, int rows_per_thread,
                                           const ColumnDeltas* deltas, OperatorInfo info) {
  return std::make_unique<EllCudaOperator<V>>(e, skip, rows_per_thread, deltas, std::move(info));
}

template <class V>
std::unique_ptr<Operator<V>> make_ell_cuda(const DeviceCsrView<V>& a, EllShape& s,
                                           std::int64_t pitch, int rows_per_thread,
                                           const EllDecisions& decide) {
  OperatorInfo info;
  EllDevice<V> ell = ell_pack_device(a, s, pitch, rows_per_thread, decide, &info);
  return std::make_unique<EllCudaOperator<V>>(std::move(ell), std::move(info));
}

template std::unique_ptr<Operator<float>> make_ell_cuda(const DeviceCsrView<float>&, EllShape&,
                                                        std::int64_t, int, const EllDecisions&);
template std::unique_ptr<Operator<double>> make_ell_cuda(const DeviceCsrView<double>&, EllShape&,
                                                         std::int64_t, int, const EllDecisions&);
template std::unique_ptr<Operator<float>> make_ell_cuda(const EllData<float>&, EllSkip, int,
                                                        const ColumnDeltas*, OperatorInfo);
template std::unique_ptr<Operator<double>> make_ell_cuda(const EllData<double>&, EllSkip, int,
                                                         const ColumnDeltas*, OperatorInfo);


}  // namespace spmvkit
