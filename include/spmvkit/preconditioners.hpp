// Preconditioners for the Krylov solvers: Jacobi (the inverse of the diagonal) and
// block-Jacobi (the inverses of the dense bs x bs diagonal blocks, by LU with partial
// pivoting at setup: batched on the GPU, one thread per block). The merged solvers fuse both
// into their vector updates. Each is an Operator<V>, as a
// user's own preconditioner is: apply(x, y, z, alpha, beta) gives z = alpha M x + beta y with
// M ~ A^-1. Built from the CSR matrix (never from a format's insides). docs/solvers.md.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/operator.hpp"

namespace spmvkit {

enum class PrecondKind { none, jacobi, block_jacobi };

struct PrecondSpec {
  PrecondKind kind = PrecondKind::none;
  int block_size = 0;  // block_jacobi: 0 = the matrix's own (detect_block_size), else given
};

// "none" | "jacobi" | "block_jacobi" | "block_jacobi:BS" (BS in 1..64); InputError otherwise.
PrecondSpec parse_precond(std::string_view text);
std::string to_string(const PrecondSpec& p);

// M = D^-1. The merged solvers fuse its scaling into their vector updates (they find it by
// type), so it costs no pass over the vectors of its own.
template <class V>
class JacobiPreconditioner : public Operator<V> {
 public:
  // InputError naming the row when a diagonal entry is missing, zero, or tiny against its
  // row (|a_ii| <= eps(V) * max_j |a_ij|): never inverted into Inf.
  JacobiPreconditioner(const Csr<V>& a, Backend be);
  ~JacobiPreconditioner() override;
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override;
  const V* inverse_diagonal() const;  // rows values, on the backend

 private:
  struct Data;
  std::unique_ptr<Data> d_;
};

// M = blockdiag(B_0, ..., B_{m-1})^-1, B_k = A[k bs .. k bs + bs), the last block smaller
// when bs does not divide the rows. InputError naming the block row and the pivot when a
// block is singular or near-singular (|pivot| <= bs * eps(V) * max |B_k|).
template <class V>
class BlockJacobiPreconditioner : public Operator<V> {
 public:
  BlockJacobiPreconditioner(const Csr<V>& a, int block_size, Backend be);
  ~BlockJacobiPreconditioner() override;
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override;
  int block_size() const;
  // The inverses, on the backend, interleaved for coalesced reads: entry (i - k bs, j) of
  // B_k^-1, for row i of block k, is inverse_blocks()[j * inverse_stride() + i]
  // (inverse_stride() = ceil(n / bs) * bs; the padding rows of a short last block are
  // those of the inverse of diag(B_last, s I)). The merged solvers fuse it by this layout.
  const V* inverse_blocks() const;
  std::size_t inverse_stride() const;

 private:
  struct Data;
  std::unique_ptr<Data> d_;
};

// The preconditioner `p` names for A (nullptr for none). block_jacobi without a size takes
// the matrix's block size (detect_block_size); a matrix without one is an InputError.
template <class V>
std::unique_ptr<Operator<V>> make_preconditioner(const PrecondSpec& p, const Csr<V>& a, Backend be);

}  // namespace spmvkit
