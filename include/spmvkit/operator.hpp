// A built sparse operator: one format's data on one backend, for value type V.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"

namespace spmvkit {

struct OperatorInfo {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;          // nonzeros of the original matrix (GFLOP/s = 2*nnz/t)
  std::size_t matrix_bytes = 0;  // bytes of format data one apply must read (byte model);
                                 // x (cols values) and y/z traffic are added by the caller
  Backend backend = Backend::cpu;
  std::string format;            // registry name
  std::string details;           // chosen parameters, e.g. "threads_per_row=8"
  std::size_t paper_bytes = 0;   // the format's paper's own byte formula, vectors included,
                                 // where it has one (reported beside the byte model); else 0
};

template <class V>
class Operator {
 public:
  explicit Operator(OperatorInfo info) : info_(std::move(info)) {}
  virtual ~Operator() = default;
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  // z = alpha*A*x + beta*y. Pointers are host memory on the CPU backend and device memory on
  // the CUDA backend (work is queued on the backend's stream, asynchronously). y may alias z
  // (then this is y = alpha*A*x + beta*y); when beta == 0, y is not read and may be null.
  // x must not alias z.
  virtual void apply(const V* x, const V* y, V* z, V alpha, V beta) const = 0;

  // The solvers' one reduction hook: sums `count` partial sums (this process's share of dot
  // products and squared norms) over every process that holds rows of the operator, in place.
  // Returns true when it did (a distributed operator of several ranks, dist/), false for an
  // operator held whole by this process (nothing to sum). count == 0 asks without summing.
  virtual bool reduce_sum(double* partial, int count) const {
    (void)partial;
    (void)count;
    return false;
  }
  // The same sum on the device, in stream order: `partial` is device memory, summed in place
  // by work queued on the backend's current stream, with no host wait (a distributed
  // operator over NCCL). False when this operator cannot (reduce_sum on the host then).
  // count == 0 asks without summing.
  virtual bool reduce_sum_device(double* partial, int count) const {
    (void)partial;
    (void)count;
    return false;
  }

  // The global index of this process's first row: 0, or a distributed operator's offset of
  // this rank's rows (dist/). The solvers' per-row choices (BiCGSTAB's shadow residual) are
  // functions of the global row, so a solve over any number of ranks takes the same steps.
  virtual std::int64_t first_row() const { return 0; }

  // A number no other operator of this process has had: an address can be reused once an
  // operator is destroyed, an id cannot. The merged CUDA solver keys the CUDA graphs it
  // captured over this operator's applies by it, to reuse them in the next solve.
  std::uint64_t id() const { return id_; }

  const OperatorInfo& info() const { return info_; }
  index_t rows() const { return info_.rows; }
  index_t cols() const { return info_.cols; }
  Backend backend() const { return info_.backend; }
  // Appends to info().details (the registry adds the effective parameters after a build).
  void add_details(const std::string& more) {
    if (more.empty()) return;
    info_.details += (info_.details.empty() ? "" : ",") + more;
  }

 protected:
  OperatorInfo info_;

 private:
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  std::uint64_t id_ = next_id();
};

}  // namespace spmvkit
