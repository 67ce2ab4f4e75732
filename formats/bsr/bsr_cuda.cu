// CUDA BSR: kernels K1 (small blocks) and K3 (large blocks) of the BSR paper, the balanced-BSR
// reduction (5.5), the launch logic for all three kernels (K2 is in bsr_k2_cuda.cu) and the
// operator. The setup (the arrays onto the device) is in bsr_setup_cuda.cu.
//
// Bytes one apply must move: block values (nnzb * bs^2) + block column indices (nnzb) + the
// block-row pointer (or, balanced, the segment pointer and targets plus the split rows' slot
// pointer), x (cols values at least once; each x segment is reused by the block rows that share
// its block column, through L1/L2), y when beta != 0, z written; balanced adds y_hat (bs values
// per slot, written then read once, scratch).
//
// All kernels read blocks column-major: threads with consecutive ids take consecutive rows of a
// block column, so a thread group's loads are coalesced runs of a column and a thread keeps the
// same block rows in every block (its accumulators stay in registers, paper 4.1/4.5).
#include <algorithm>
#include <string>
#include <type_traits>

#include "formats/bsr/bsr_cuda.hpp"
#include "formats/bsr/bsr_kernels.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit::bsr {

namespace {

// --- K1: small blocks, bs <= 5 (paper 5.2) --------------------------------------------------
// Thread array: one warp truncated to ACTIVE = floor(32/bs^2) * bs^2 lanes, seen as
// nb x N_tg = bs x (floor(32/bs^2) * bs). The working set is nnzb_warp = floor(32/bs^2)
// consecutive blocks of a block row; lane l loads its element l (block l / bs^2, row l % bs,
// column (l / bs) % bs), so one warp-wide load reads nnzb_warp whole blocks (bs = 3: 27 lanes,
// 3 blocks, 216 contiguous bytes in double) and ept = 1. The working-set stride is a multiple
// of bs, so a lane keeps its row in every step and accumulates in one register per block row.
// After the row, the N_tg lanes of each row (lanes i, i + bs, ...) are summed by a guarded
// shuffle tree (N_tg need not be a power of two) and lanes 0..bs-1 write the bs results.
// TB = (32, N_ta): N_ta independent warps, no shared memory, no synchronisation.
// Pipeline: a warp takes N_brows_ta consecutive kernel rows; it loads all their row pointers
// at once (one per lane) and runs the rows ILP at a time, the ILP rows' working sets being
// independent load streams issued back to back (K1's block rows are a few hundred bytes, so one
// row alone cannot keep enough bytes in flight). The next working set, of the same rows or of
// the next ILP rows, is requested before the current one is multiplied (double buffering,
// paper 4.2): row ends and row changes do not drain the pipeline, and a steady-state step
// waits on one memory latency, not on the pointer -> values -> x chain.
// Bytes per block: bs^2 values + one column index.
template <class V, int BS, int ILP>
__global__ void bsr_k1_kernel(const KernelArgs<V> a, const int n_brows_ta, const V* __restrict__ x,
                              const V* y, V* z, V alpha, V beta) {
  constexpr int BS2 = BS * BS;
  constexpr int NNZB_WARP = k1_blocks_per_warp(BS);
  constexpr int ACTIVE = k1_active_lanes(BS);
  constexpr int NTG = k1_thread_groups(BS);
  const int lane = static_cast<int>(threadIdx.x);
  const std::int64_t first =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y) * n_brows_ta;
  if (first >= a.nrows) return;  // the whole warp
  const index_t row0 = static_cast<index_t>(first);
  const std::int64_t left = a.nrows - first;
  const int nr = left < n_brows_ta ? static_cast<int>(left) : n_brows_ta;  // rows of this warp
  const bool active = lane < ACTIVE;
  const int b = k1_block(BS, lane);
  const int j = k1_column(BS, lane);

  // The warp's row pointers, one per lane: lane r holds row_ptr[row0 + r] for r <= nr.
  const index_t p = __ldg(a.row_ptr + row0 + min(lane, nr));
  // Bounds of the ILP rows starting at local row g0 (rows past nr are empty); returns the
  // longest. Warp-uniform: every lane gets the same values.
  const auto bounds = [&](int g0, index_t(&begin)[ILP], index_t(&end)[ILP]) {
    index_t longest = 0;
#pragma unroll
    for (int r = 0; r < ILP; ++r) {
      begin[r] = __shfl_sync(kFullMask, p, min(g0 + r, nr));
      end[r] = __shfl_sync(kFullMask, p, min(g0 + r + 1, nr));
      longest = max(longest, end[r] - begin[r]);
    }
    return longest;
  };
  // Working set s of each row: blocks begin + s .. begin + s + NNZB_WARP - 1, whose values are
  // contiguous from (begin + s) * bs^2; this lane's value is element `lane` of that run.
  const auto load = [&](const index_t(&begin)[ILP], const index_t(&end)[ILP], index_t s, V(&v)[ILP],
                        index_t(&c)[ILP]) {
#pragma unroll
    for (int r = 0; r < ILP; ++r) {
      const index_t k0 = begin[r] + s;
      const bool ok = active && k0 + b < end[r];
      c[r] = ok ? load_block_col(a.col_idx + k0 + b) : index_t(-1);
      v[r] = ok ? __ldcs(a.values + static_cast<std::int64_t>(k0) * BS2 + lane) : V(0);
    }
  };

  int g0 = 0;     // first local row of the current group
  index_t s = 0;  // current working set (block offset within the group's rows)
  index_t begin[ILP], end[ILP];
  index_t longest = bounds(0, begin, end);
  V acc[ILP], v_cur[ILP];
  index_t c_cur[ILP];
#pragma unroll
  for (int r = 0; r < ILP; ++r) acc[r] = V(0);
  load(begin, end, 0, v_cur, c_cur);
  while (true) {
    // The next working set: the next step of these rows, or the first of the next ILP rows.
    int ng0 = g0;
    index_t ns = s + NNZB_WARP;
    index_t nbegin[ILP], nend[ILP];
#pragma unroll
    for (int r = 0; r < ILP; ++r) {
      nbegin[r] = begin[r];
      nend[r] = end[r];
    }
    index_t nlongest = longest;
    const bool group_done = ns >= longest;
    if (group_done) {
      ng0 = g0 + ILP;
      ns = 0;
      nlongest = bounds(ng0, nbegin, nend);
    }
    const bool more = ng0 < nr;
    V v_nxt[ILP];
    index_t c_nxt[ILP];
    if (more) load(nbegin, nend, ns, v_nxt, c_nxt);  // double buffering
#pragma unroll
    for (int r = 0; r < ILP; ++r)  // c_cur = -1 (no block): negative column, load_x reads nothing
      acc[r] += v_cur[r] * load_x(x, c_cur[r] * BS + j, a.cols, true);
    if (group_done) {
      // Sum the N_tg lanes of each row (stride bs); lanes 0..bs-1 (row = lane) get the sums.
      constexpr int P = pow2_ceil(NTG);
#pragma unroll
      for (int r = 0; r < ILP; ++r) {
#pragma unroll
        for (int h = P / 2; h >= 1; h /= 2) {
          const V other = __shfl_down_sync(kFullMask, acc[r], h * BS);
          if (tree_step_adds(lane, BS, NTG, h)) acc[r] += other;
        }
      }
      if (lane < BS) {
#pragma unroll
        for (int r = 0; r < ILP; ++r)
          if (g0 + r < nr)
            store_row(a, row_target(a, row0 + g0 + r), lane, acc[r], y, z, alpha, beta);
      }
#pragma unroll
      for (int r = 0; r < ILP; ++r) acc[r] = V(0);
    }
    if (!more) break;
    g0 = ng0;
    s = ns;
    longest = nlongest;
#pragma unroll
    for (int r = 0; r < ILP; ++r) {
      begin[r] = nbegin[r];
      end[r] = nend[r];
      v_cur[r] = v_nxt[r];
      c_cur[r] = c_nxt[r];
    }
  }
}

// --- K3: large blocks, bs >= 45 (paper 5.4) -------------------------------------------------
// A 2D grid (B_x, B_y) = (kernel rows, ceil(bs / nb)): the B_y thread blocks with the same
// blockIdx.x form a mini-grid over every block of that block row, like a dense GEMV, each taking
// block rows [blockIdx.y * nb, +nb) of the blocks. TB = (T_x, T_y) = (nb, N_tg), one thread
// array (N_ta = 1). The working set is nb x w, w = N_tg * ept: thread (tx, ty) takes row
// blockIdx.y * nb + tx and the ept columns [c0 + ty * ept, +ept) of thread group ty's vertical
// slice; consecutive tx read consecutive values of a block column (coalesced). Working sets run
// over the block's column chunks, then the next block, the next one prefetched while the
// current one is multiplied (double buffering). Each thread accumulates its row in a register;
// the final reduction over the N_tg groups goes through shared memory (paper 4.2), then
// thread group 0 writes. Bytes per block: bs^2 values + one column index (read by every
// thread, a broadcast).
// Ours: the tuner also tries K3 from bs 12, and working sets wider than nb (Table I) that cover
// the block's width in one pass, ept = ceil(bs / n_tg) columns a group (bs 17: 6 groups of 3,
// not 16 columns then 1). On an H100 that made K3 the fastest kernel at bs 13 to 32.
template <class V, int EPT>
__global__ void bsr_k3_kernel(const KernelArgs<V> a, const int nb, const V* __restrict__ x,
                              const V* y, V* z, V alpha, V beta) {
  extern __shared__ __align__(16) unsigned char k3_shared[];
  V* group_sums = reinterpret_cast<V*>(k3_shared);  // [N_tg][nb]
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int n_tg = static_cast<int>(blockDim.y);
  const int bs = a.bs;
  const index_t row = static_cast<index_t>(blockIdx.x);
  const int i = static_cast<int>(blockIdx.y) * nb + tx;
  const bool active = i < bs;
  const int w = n_tg * EPT;
  const std::int64_t bs2 = static_cast<std::int64_t>(bs) * bs;
  const index_t begin = __ldg(a.row_ptr + row);
  const index_t end = __ldg(a.row_ptr + row + 1);

  const auto load = [&](index_t k, int c0, V(&v)[EPT], index_t& c) {
    c = load_block_col(a.col_idx + k);
    const V* blk = a.values + static_cast<std::int64_t>(k) * bs2 + i;
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
      const int col = k3_column(c0, EPT, ty, e);
      v[e] = active && col < bs ? __ldcs(blk + static_cast<std::int64_t>(col) * bs) : V(0);
    }
  };

  V acc = V(0);
  if (begin < end) {  // the same for the whole thread block
    V v_cur[EPT], v_nxt[EPT];
    index_t c_cur, c_nxt = 0;
    index_t k = begin;
    int c0 = 0;
    load(k, c0, v_cur, c_cur);
    while (true) {
      index_t nk = k;
      int nc0 = c0 + w;
      if (nc0 >= bs) {
        nc0 = 0;
        ++nk;
      }
      const bool more = nk < end;
      if (more) load(nk, nc0, v_nxt, c_nxt);
      const index_t xbase = c_cur * bs;
#pragma unroll
      for (int e = 0; e < EPT; ++e) {
        const int col = k3_column(c0, EPT, ty, e);
        acc += v_cur[e] * load_x(x, xbase + col, a.cols, active && col < bs);
      }
      if (!more) break;
#pragma unroll
      for (int e = 0; e < EPT; ++e) v_cur[e] = v_nxt[e];
      c_cur = c_nxt;
      k = nk;
      c0 = nc0;
    }
  }
  group_sums[ty * nb + tx] = acc;
  __syncthreads();
  if (ty == 0 && active) {
    V sum = V(0);
    for (int g = 0; g < n_tg; ++g) sum += group_sums[g * nb + tx];
    store_row(a, row_target(a, row), i, sum, y, z, alpha, beta);
  }
}

// --- Balanced-BSR reduction (paper 5.5, Fig. 8c) ---------------------------------------------
// z[row] = alpha * (sum of the partial slots of its split block row) + beta * y[row], for every
// row of every split block row. THREADS lanes per output row: 1 (consecutive threads take
// consecutive rows of a block: coalesced over the slots' bs values) when split rows have few
// segments, a warp (lanes stride over the slots, shuffle sum) when one has many. Bytes: the
// slots (bs values each), split_rows and segment_ptr, y when beta != 0, z written.
template <class V, int THREADS>
__global__ void bsr_segment_reduce_kernel(index_t n_split, int bs, index_t rows,
                                          const index_t* __restrict__ split_rows,
                                          const index_t* __restrict__ segment_ptr,
                                          const V* __restrict__ partials, const V* y, V* z, V alpha,
                                          V beta) {
  const std::int64_t gid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t item = gid / THREADS;  // (split row, row in block) pair
  const int lane = static_cast<int>(gid % THREADS);
  if (item >= static_cast<std::int64_t>(n_split) * bs) return;  // whole warps when THREADS = 32
  const index_t q = static_cast<index_t>(item / bs);
  const int i = static_cast<int>(item % bs);
  V sum = V(0);
  for (index_t slot = segment_ptr[q] + lane; slot < segment_ptr[q + 1]; slot += THREADS)
    sum += partials[static_cast<std::int64_t>(slot) * bs + i];
  if constexpr (THREADS > 1) {
#pragma unroll
    for (int off = THREADS / 2; off > 0; off /= 2) sum += __shfl_xor_sync(kFullMask, sum, off);
  }
  if (lane == 0) {
    const std::int64_t r = static_cast<std::int64_t>(split_rows[q]) * bs + i;
    if (r < rows) z[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

// --- dispatch -------------------------------------------------------------------------------
template <class V>
using K1Fn = void (*)(KernelArgs<V>, int, const V*, const V*, V*, V, V);
template <class V>
using K3Fn = void (*)(KernelArgs<V>, int, const V*, const V*, V*, V, V);

template <class V, int BS>
K1Fn<V> k1_for_ilp(int ilp) {
  switch (ilp) {
    case 1:
      return bsr_k1_kernel<V, BS, 1>;
    case 2:
      return bsr_k1_kernel<V, BS, 2>;
    case 4:
      return bsr_k1_kernel<V, BS, 4>;
    default:
      return bsr_k1_kernel<V, BS, 8>;
  }
}

template <class V>
K1Fn<V> k1_kernel(int bs, int ilp) {
  switch (bs) {
    case 1:
      return k1_for_ilp<V, 1>(ilp);
    case 2:
      return k1_for_ilp<V, 2>(ilp);
    case 3:
      return k1_for_ilp<V, 3>(ilp);
    case 4:
      return k1_for_ilp<V, 4>(ilp);
    default:
      return k1_for_ilp<V, 5>(ilp);
  }
}

template <class V>
K3Fn<V> k3_kernel(int ept) {
  static_assert(kBsrK3MaxEpt == 8, "K3 instances below: ept 1..8");
  switch (ept) {
    case 1:
      return bsr_k3_kernel<V, 1>;
    case 2:
      return bsr_k3_kernel<V, 2>;
    case 3:
      return bsr_k3_kernel<V, 3>;
    case 4:
      return bsr_k3_kernel<V, 4>;
    case 5:
      return bsr_k3_kernel<V, 5>;
    case 6:
      return bsr_k3_kernel<V, 6>;
    case 7:
      return bsr_k3_kernel<V, 7>;
    default:
      return bsr_k3_kernel<V, 8>;
  }
}

template <class Fn>
int max_threads_per_block(Fn fn) {
  cudaFuncAttributes attr{};
  SPMVKIT_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn)));
  return attr.maxThreadsPerBlock;
}

}  // namespace

}  // namespace spmvkit::bsr

namespace spmvkit {

int bsr_device_sm_count() { return cuda::Context::get().sm_count(); }

template <class V>
std::int64_t bsr_k3_resident(const BsrPolicy& p) {
  int per_sm = 0;
  SPMVKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, bsr::k3_kernel<V>(p.ept), p.nb * p.n_tg,
      static_cast<std::size_t>(p.nb) * p.n_tg * sizeof(V)));
  return std::int64_t{per_sm} * bsr_device_sm_count();
}
template std::int64_t bsr_k3_resident<float>(const BsrPolicy&);
template std::int64_t bsr_k3_resident<double>(const BsrPolicy&);

template <class V>
BsrPolicy fit_bsr_policy(BsrPolicy p, int bs) {
  using namespace bsr;
  switch (p.kernel) {
    case BsrKernel::k1: {
      const int max = max_threads_per_block(k1_kernel<V>(bs, p.ilp));
      p.n_ta = std::max(1, std::min(p.n_ta, max / 32));
      break;
    }
    case BsrKernel::k2: {
      const int max = k2_max_threads_per_block<V>(p, bs);
      const int one = k2_block_threads(bs, p.vec, p.n_tg, p.pack, 1);
      if (one > max)
        throw UnsupportedError("bsr: a K2 thread array of " + std::to_string(one) +
                               " threads exceeds this kernel's limit of " + std::to_string(max) +
                               " (" + p.to_params() + ")");
      while (p.n_ta > 1 && k2_block_threads(bs, p.vec, p.n_tg, p.pack, p.n_ta) > max) --p.n_ta;
      break;
    }
    case BsrKernel::k3: {
      const int max = max_threads_per_block(k3_kernel<V>(p.ept));
      if (p.nb * p.n_tg > max)
        throw UnsupportedError("bsr: a K3 thread block of " + std::to_string(p.nb * p.n_tg) +
                               " threads exceeds this kernel's limit of " + std::to_string(max));
      break;
    }
    case BsrKernel::tma:
      if (cuda::Context::get().props().major < 9)
        throw UnsupportedError("bsr: the tma kernel needs a Hopper (sm_90) or newer GPU");
      if (static_cast<std::size_t>(tma_shared_bytes<V>(bs, p.tile_kb, p.stages)) >
          cuda::Context::get().props().sharedMemPerBlockOptin)
        throw UnsupportedError("bsr: tma with stages=" + std::to_string(p.stages) +
                               ", tile_kb=" + std::to_string(p.tile_kb) +
                               " needs more shared memory than a thread block may have");
      break;
  }
  return p;
}

template BsrPolicy fit_bsr_policy<float>(BsrPolicy, int);
template BsrPolicy fit_bsr_policy<double>(BsrPolicy, int);

}  // namespace spmvkit

namespace spmvkit::bsr {

template <class V>
void launch_bsr(const DeviceBsr<V>& d, const BsrPolicy& p, const V* x, const V* y, V* z, V alpha,
                V beta) {
  if (d.rows == 0) return;
  cudaStream_t stream = cuda::Context::get().stream();
  const KernelArgs<V> a = d.args();
  switch (p.kernel) {
    case BsrKernel::k1: {
      const std::int64_t arrays =
          (static_cast<std::int64_t>(d.nrows) + p.n_brows_ta - 1) / p.n_brows_ta;
      const dim3 block(32, static_cast<unsigned>(p.n_ta));
      const unsigned grid = cuda::grid_for(static_cast<std::size_t>(arrays), p.n_ta);
      k1_kernel<V>(d.bs, p.ilp)<<<grid, block, 0, stream>>>(a, p.n_brows_ta, x, y, z, alpha, beta);
      SPMVKIT_LAUNCH_CHECK();
      break;
    }
    case BsrKernel::k2:
      launch_k2(a, p, x, y, z, alpha, beta, stream);
      break;
    case BsrKernel::tma:
      launch_tma(d, p, x, y, z, alpha, beta, stream);
      break;
    case BsrKernel::k3: {
      const dim3 grid(static_cast<unsigned>(d.nrows),
                      static_cast<unsigned>((d.bs + p.nb - 1) / p.nb));
      const dim3 block(static_cast<unsigned>(p.nb), static_cast<unsigned>(p.n_tg));
      const std::size_t shared = static_cast<std::size_t>(p.nb) * p.n_tg * sizeof(V);
      k3_kernel<V>(p.ept)<<<grid, block, shared, stream>>>(a, p.nb, x, y, z, alpha, beta);
      SPMVKIT_LAUNCH_CHECK();
      break;
    }
  }
  if (d.n_split > 0) {
    constexpr int block = 256;
    const std::size_t items = static_cast<std::size_t>(d.n_split) * static_cast<std::size_t>(d.bs);
    if (d.max_split > 8) {
      bsr_segment_reduce_kernel<V, 32><<<cuda::grid_for(items * 32, block), block, 0, stream>>>(
          d.n_split, d.bs, d.rows, d.split_rows.data(), d.segment_ptr.data(), d.partials.data(), y,
          z, alpha, beta);
    } else {
      bsr_segment_reduce_kernel<V, 1><<<cuda::grid_for(items, block), block, 0, stream>>>(
          d.n_split, d.bs, d.rows, d.split_rows.data(), d.segment_ptr.data(), d.partials.data(), y,
          z, alpha, beta);
    }
    SPMVKIT_LAUNCH_CHECK();
  }
}

namespace {

template <class V>
class BsrCudaOperator final : public Operator<V> {
 public:
  BsrCudaOperator(OperatorInfo info, DeviceBsr<V> data, BsrPolicy policy)
      : Operator<V>(std::move(info)), data_(std::move(data)), policy_(std::move(policy)) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    launch_bsr(data_, policy_, x, y, z, alpha, beta);
  }

 private:
  DeviceBsr<V> data_;
  BsrPolicy policy_;
};

}  // namespace

#define SPMVKIT_INSTANTIATE(V) \
  template void launch_bsr(const DeviceBsr<V>&, const BsrPolicy&, const V*, const V*, V*, V, V);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::bsr

namespace spmvkit {

template <class V>
std::unique_ptr<Operator<V>> make_bsr_cuda(const Bsr<V>& m, const BsrSegments* segments,
                                           const BsrPolicy& policy, OperatorInfo info) {
  const index_t tma_tile_blocks =
      policy.kernel == BsrKernel::tma
          ? bsr_tma_tile_blocks(m.block_size, static_cast<int>(sizeof(V)), policy.tile_kb)
          : 0;
  return std::make_unique<bsr::BsrCudaOperator<V>>(
      std::move(info), bsr::upload_bsr(m, segments, tma_tile_blocks, policy.reads_rotated_values()),
      policy);
}

template <class V>
std::unique_ptr<Operator<V>> make_bsr_cuda(DeviceBsrBlocks<V>&& m, DeviceBsrSegments* segments,
                                           const BsrPolicy& policy, OperatorInfo info) {
  const index_t tma_tile_blocks =
      policy.kernel == BsrKernel::tma
          ? bsr_tma_tile_blocks(m.block_size, static_cast<int>(sizeof(V)), policy.tile_kb)
          : 0;
  return std::make_unique<bsr::BsrCudaOperator<V>>(
      std::move(info),
      bsr::device_bsr(std::move(m), segments, tma_tile_blocks, policy.reads_rotated_values()),
      policy);
}

template std::unique_ptr<Operator<float>> make_bsr_cuda(DeviceBsrBlocks<float>&&,
                                                        DeviceBsrSegments*, const BsrPolicy&,
                                                        OperatorInfo);
template std::unique_ptr<Operator<double>> make_bsr_cuda(DeviceBsrBlocks<double>&&,
                                                         DeviceBsrSegments*, const BsrPolicy&,
                                                         OperatorInfo);
template std::unique_ptr<Operator<float>> make_bsr_cuda(const Bsr<float>&, const BsrSegments*,
                                                        const BsrPolicy&, OperatorInfo);
template std::unique_ptr<Operator<double>> make_bsr_cuda(const Bsr<double>&, const BsrSegments*,
                                                         const BsrPolicy&, OperatorInfo);

}  // namespace spmvkit
