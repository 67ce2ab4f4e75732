// The CPU backend's operator shape shared by formats whose OpenMP path is one kernel function
// over the format's host data: it owns the data and forwards apply to the kernel.
#pragma once

#include <memory>
#include <utility>

#include "spmvkit/operator.hpp"

namespace spmvkit {

template <class V, class Data, void (*Kernel)(const Data&, const V*, const V*, V*, V, V)>
class HostOperator final : public Operator<V> {
 public:
  HostOperator(Data data, OperatorInfo info)
      : Operator<V>(std::move(info)), data_(std::move(data)) {}
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    Kernel(data_, x, y, z, alpha, beta);
  }

 private:
  Data data_;
};

}  // namespace spmvkit
