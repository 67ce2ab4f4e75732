// Jacobi and block-Jacobi: the setup from the CSR matrix (diagonal / diagonal blocks, their
// inversion with the checks), the CPU kernels, and the factory behind --precond.
#include "spmvkit/preconditioners.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "solvers/block_lu.hpp"
#include "solvers/precond_kernels.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/stats.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit {

PrecondSpec parse_precond(std::string_view text) {
  PrecondSpec p;
  const std::string t(text);
  if (t == "none") return p;
  if (t == "jacobi") {
    p.kind = PrecondKind::jacobi;
    return p;
  }
  const std::string bj = "block_jacobi";
  if (t.rfind(bj, 0) == 0 && (t.size() == bj.size() || t[bj.size()] == ':')) {
    p.kind = PrecondKind::block_jacobi;
    if (t.size() > bj.size()) {
      const std::string bs = t.substr(bj.size() + 1);
      char* end = nullptr;
      const long v = std::strtol(bs.c_str(), &end, 10);
      if (bs.empty() || *end != '\0' || v < 1 || v > precond_detail::kMaxBlock)
        throw InputError("block_jacobi:BS needs a block size BS in 1.." +
                         std::to_string(precond_detail::kMaxBlock) + " (got '" + bs + "')");
      p.block_size = static_cast<int>(v);
    }
    return p;
  }
  throw InputError("unknown preconditioner '" + t + "' (none, jacobi, block_jacobi[:BS])");
}

std::string to_string(const PrecondSpec& p) {
  switch (p.kind) {
    case PrecondKind::jacobi:
      return "jacobi";
    case PrecondKind::block_jacobi:
      return p.block_size > 0 ? "block_jacobi:" + std::to_string(p.block_size) : "block_jacobi";
    default:
      return "none";
  }
}

namespace {

template <class V>
OperatorInfo precond_info(const Csr<V>& a, Backend be, const char* name, std::size_t bytes,
                          const std::string& details) {
  if (a.rows != a.cols)
    throw InputError(std::string(name) + " needs a square matrix: A is " + std::to_string(a.rows) +
                     " x " + std::to_string(a.cols));
  OperatorInfo info;
  info.rows = info.cols = a.rows;
  info.nnz = a.rows;
  info.matrix_bytes = bytes;
  info.backend = be;
  info.format = name;
  info.details = details;
  return info;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

// --- Jacobi ----------------------------------------------------------------------------------

template <class V>
struct JacobiPreconditioner<V>::Data {
  Vector<V> dinv;
};

template <class V>
JacobiPreconditioner<V>::JacobiPreconditioner(const Csr<V>& a, Backend be)
    : Operator<V>(precond_info(a, be, "jacobi", a.rows * sizeof(V), "")),
      d_(std::make_unique<Data>()) {
  const double eps = std::numeric_limits<V>::epsilon();
  std::vector<V> dinv(static_cast<std::size_t>(a.rows));
  // One pass over all nonzeros (1e8 on the large systems): in parallel; the error names the
  // lowest bad row, as a serial pass would.
  index_t bad = a.rows;
#pragma omp parallel for schedule(static) reduction(min : bad) if (a.nnz() > 65536)
  for (index_t i = 0; i < a.rows; ++i) {
    double diag = 0, scale = 0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      scale = std::max(scale, std::abs(static_cast<double>(a.values[k])));
      if (a.col_idx[k] == i) diag = a.values[k];
    }
    if (!(std::abs(diag) > eps * scale) || scale == 0)
      bad = std::min(bad, i);
    else
      dinv[static_cast<std::size_t>(i)] = static_cast<V>(1.0 / diag);
  }
  if (bad < a.rows) {
    double diag = 0, scale = 0;
    for (index_t k = a.row_ptr[bad]; k < a.row_ptr[bad + 1]; ++k) {
      scale = std::max(scale, std::abs(static_cast<double>(a.values[k])));
      if (a.col_idx[k] == bad) diag = a.values[k];
    }
    throw InputError("jacobi: the diagonal entry of row " + std::to_string(bad) + " is " +
                     num(diag) + " (zero or tiny against its row's largest |entry| " + num(scale) +
                     "): cannot invert it");
  }
  d_->dinv = Vector<V>::from_host(dinv, be);
}

template <class V>
JacobiPreconditioner<V>::~JacobiPreconditioner() = default;

template <class V>
const V* JacobiPreconditioner<V>::inverse_diagonal() const {
  return d_->dinv.data();
}

template <class V>
void JacobiPreconditioner<V>::apply(const V* x, const V* y, V* z, V alpha, V beta) const {
  const std::size_t n = static_cast<std::size_t>(this->rows());
  if (this->backend() == Backend::cpu) {
    precond_detail::jacobi_apply_cpu(n, d_->dinv.data(), x, y, z, alpha, beta);
    return;
  }
#if SPMVKIT_HAVE_CUDA
  precond_detail::jacobi_apply_cuda(n, d_->dinv.data(), x, y, z, alpha, beta);
#endif
}

// --- block-Jacobi ----------------------------------------------------------------------------

template <class V>
struct BlockJacobiPreconditioner<V>::Data {
  int bs = 1;
  Vector<V> inv;  // the inverses, interleaved (inverse_blocks)
  std::size_t stride = 0;
};

namespace {

// The diagonal blocks of A, bs x bs row-major each; the last one (when bs does not divide n)
// padded with a scaled identity so that every block inverts the same way.
template <class V>
std::vector<double> diagonal_blocks(const Csr<V>& a, int bs) {
  const std::size_t n = static_cast<std::size_t>(a.rows), b = static_cast<std::size_t>(bs);
  const std::size_t count = (n + b - 1) / b;
  std::vector<double> blocks(count * b * b, 0.0);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(count); ++k) {
    double* blk = blocks.data() + static_cast<std::size_t>(k) * b * b;
    const index_t first = static_cast<index_t>(k * bs);
    const index_t last = static_cast<index_t>(std::min(n, (k + 1) * b));
    double scale = 0;
    for (index_t r = first; r < last; ++r) {
      const index_t* c0 = a.col_idx.data() + a.row_ptr[r];
      const index_t* c1 = a.col_idx.data() + a.row_ptr[r + 1];
      for (const index_t* c = std::lower_bound(c0, c1, first); c != c1 && *c < last; ++c) {
        const double v = a.values[static_cast<std::size_t>(c - a.col_idx.data())];
        blk[static_cast<std::size_t>(r - first) * b + static_cast<std::size_t>(*c - first)] = v;
        scale = std::max(scale, std::abs(v));
      }
    }
    for (index_t r = last - first; r < bs; ++r) blk[r * b + r] = scale > 0 ? scale : 1.0;
  }
  return blocks;
}

[[noreturn]] void report_singular(const std::vector<double>& blocks, int bs, std::size_t n,
                                  long long k, double eps) {
  const std::size_t b = static_cast<std::size_t>(bs);
  std::vector<double> blk(blocks.begin() + static_cast<std::ptrdiff_t>(k * b * b),
                          blocks.begin() + static_cast<std::ptrdiff_t>((k + 1) * b * b));
  std::vector<double> inv(b * b);
  const precond_detail::LuFailure f = precond_detail::lu_invert(blk.data(), inv.data(), bs, eps);
  const std::size_t first = static_cast<std::size_t>(k) * b;
  throw InputError("block_jacobi: diagonal block " + std::to_string(k) + " (rows " +
                   std::to_string(first) + ".." + std::to_string(std::min(n, first + b) - 1) +
                   ", bs " + std::to_string(bs) + ") is singular or near-singular: pivot " +
                   std::to_string(f.step) + " of its LU is " + num(f.pivot) +
                   " (|pivot| <= bs * eps * max|block| = " + num(bs * eps * f.scale) + ")");
}

}  // namespace

template <class V>
BlockJacobiPreconditioner<V>::BlockJacobiPreconditioner(const Csr<V>& a, int bs, Backend be)
    : Operator<V>(precond_info(a, be, "block_jacobi", 0, "bs=" + std::to_string(bs))),
      d_(std::make_unique<Data>()) {
  if (bs < 1 || bs > precond_detail::kMaxBlock)
    throw InputError("block_jacobi: block size must be in 1.." +
                     std::to_string(precond_detail::kMaxBlock) + " (got " + std::to_string(bs) +
                     ")");
  d_->bs = bs;
  const std::size_t n = static_cast<std::size_t>(a.rows), b = static_cast<std::size_t>(bs);
  const std::size_t count = (n + b - 1) / b;
  this->info_.matrix_bytes = count * b * b * sizeof(V);
  d_->stride = count * b;
  const double eps = std::numeric_limits<V>::epsilon();
  std::vector<double> blocks = diagonal_blocks(a, bs);
  if (be == Backend::cpu) {
    std::vector<V> inv(blocks.size());
    long long bad = -1;
#pragma omp parallel
    {
      std::vector<double> work(b * b), out(b * b);
#pragma omp for schedule(static) reduction(max : bad)
      for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(count); ++k) {
        std::copy_n(blocks.data() + k * b * b, b * b, work.data());
        if (precond_detail::lu_invert(work.data(), out.data(), bs, eps).step >= 0) {
          bad = std::max<long long>(bad, static_cast<long long>(count) - k);  // the lowest k
          continue;
        }
        // Interleaved: row i = k bs + q of the inverse goes to inv[j * stride + i].
        for (std::size_t q = 0; q < b; ++q)
          for (std::size_t j = 0; j < b; ++j)
            inv[j * d_->stride + static_cast<std::size_t>(k) * b + q] =
                static_cast<V>(out[q * b + j]);
      }
    }
    if (bad >= 0) report_singular(blocks, bs, n, static_cast<long long>(count) - bad, eps);
    d_->inv = Vector<V>::from_host(inv, be);
    return;
  }
#if SPMVKIT_HAVE_CUDA
  Vector<double> dblocks = Vector<double>::from_host(blocks, be);
  d_->inv = Vector<V>(blocks.size(), be);
  const long long bad =
      precond_detail::block_invert_cuda(count, bs, dblocks.data(), d_->inv.data(), eps);
  if (bad >= 0) report_singular(blocks, bs, n, bad, eps);
#else
  throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
}

template <class V>
BlockJacobiPreconditioner<V>::~BlockJacobiPreconditioner() = default;

template <class V>
int BlockJacobiPreconditioner<V>::block_size() const {
  return d_->bs;
}

template <class V>
const V* BlockJacobiPreconditioner<V>::inverse_blocks() const {
  return d_->inv.data();
}

template <class V>
std::size_t BlockJacobiPreconditioner<V>::inverse_stride() const {
  return d_->stride;
}

template <class V>
void BlockJacobiPreconditioner<V>::apply(const V* x, const V* y, V* z, V alpha, V beta) const {
  const std::size_t n = static_cast<std::size_t>(this->rows());
  if (this->backend() == Backend::cpu) {
    precond_detail::block_apply_cpu(n, d_->bs, d_->inv.data(), x, y, z, alpha, beta);
    return;
  }
#if SPMVKIT_HAVE_CUDA
  precond_detail::block_apply_cuda(n, d_->bs, d_->inv.data(), x, y, z, alpha, beta);
#endif
}

template <class V>
std::unique_ptr<Operator<V>> make_preconditioner(const PrecondSpec& p, const Csr<V>& a,
                                                 Backend be) {
  switch (p.kind) {
    case PrecondKind::jacobi:
      return std::make_unique<JacobiPreconditioner<V>>(a, be);
    case PrecondKind::block_jacobi: {
      int bs = p.block_size;
      if (bs == 0) {
        bs = detect_block_size(a);
        if (bs == 1)
          throw InputError(
              "block_jacobi: the matrix has no dense block structure (detect_block_size "
              "found none); give the block size as block_jacobi:BS");
      }
      return std::make_unique<BlockJacobiPreconditioner<V>>(a, bs, be);
    }
    default:
      return nullptr;
  }
}

// --- CPU kernels -----------------------------------------------------------------------------

namespace precond_detail {

template <class V>
void jacobi_apply_cpu(std::size_t n, const V* dinv, const V* x, const V* y, V* z, V alpha, V beta) {
#pragma omp parallel for schedule(static) if (n > 16384)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    const V mx = alpha * dinv[i] * x[i];
    z[i] = beta == V(0) ? mx : mx + beta * y[i];
  }
}

template <class V>
void block_apply_cpu(std::size_t n, int bs, const V* inv, const V* x, const V* y, V* z, V alpha,
                     V beta) {
  const std::size_t b = static_cast<std::size_t>(bs), stride = (n + b - 1) / b * b;
#pragma omp parallel for schedule(static) if (n > 16384)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    const std::size_t first = static_cast<std::size_t>(i) / b * b;
    const std::size_t m = std::min(b, n - first);
    V s = 0;
    for (std::size_t j = 0; j < m; ++j)
      s += inv[j * stride + static_cast<std::size_t>(i)] * x[first + j];
    z[i] = beta == V(0) ? alpha * s : alpha * s + beta * y[i];
  }
}

}  // namespace precond_detail

#define SPMVKIT_INSTANTIATE(V)                                                                     \
  template class JacobiPreconditioner<V>;                                                          \
  template class BlockJacobiPreconditioner<V>;                                                     \
  template std::unique_ptr<Operator<V>> make_preconditioner<V>(const PrecondSpec&, const Csr<V>&,  \
                                                               Backend);                           \
  template void precond_detail::jacobi_apply_cpu<V>(std::size_t, const V*, const V*, const V*, V*, \
                                                    V, V);                                         \
  template void precond_detail::block_apply_cpu<V>(std::size_t, int, const V*, const V*, const V*, \
                                                   V*, V, V);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
