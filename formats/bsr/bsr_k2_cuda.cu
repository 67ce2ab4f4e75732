// CUDA BSR kernel K2, medium blocks (BSR paper 5.3; default for bs 6..44), in its own
// translation unit because it has the most compiled instances (vec x EPT x ilp).
//
// Thread mapping. A thread array is bs x N_tg threads (nb = bs): N_tg thread groups, each
// holding one vertical slice of every block. Here a thread takes `vec` consecutive rows of the
// block (vec in {1, 2, 4}: one 8- or 16-byte load per block column, the vec rows sharing one x
// value), so the array has bs/vec row slots x N_tg groups: thread t is slot t / N_tg, group
// t % N_tg. A row's N_tg groups are thus adjacent lanes of one warp (N_tg a power of two <= 32),
// and the final reduction over groups is log2(N_tg) xor-shuffles: no shared memory, no
// barrier (paper 4.1: working sets live in registers). With pack=0 each array is padded to whole
// warps (the paper's layout: control flow uniform per warp, but bs 9 with N_tg = 2 keeps 18 of 32
// lanes busy); with pack=1 the arrays of a thread block sit back to back, so a warp may hold
// parts of two or three arrays whose rows end at different times: control flow is per lane, and
// the lanes that finish a row shuffle under the mask of those lanes (arrays start on multiples
// of N_tg, so a row's groups never straddle warps).
// Slices (eq. 2a/2b): group g holds columns k2_column(N_tg, g, e) = e*N_tg + (N_tg-1-g) for
// e < EPT while < bs, i.e. ept_max = ceil(bs/N_tg) columns for groups >= threshold =
// (N_tg - bs mod N_tg) mod N_tg and ept_max - 1 for the others. The slices are cyclic so that
// for each e the array reads N_tg adjacent block columns: every warp-wide load is a set of
// full column runs (all sectors used).
// Pipeline: a thread array takes N_brows_ta consecutive kernel rows (block rows or segments) in
// sequence, `ilp` blocks a stage; the next stage (possibly the first blocks of the next row) is
// requested before the current one is multiplied (double buffering, paper 4.2), so about
// 2 * ilp blocks of loads are in flight per thread array (ILP, 4.3) and row changes do not
// drain the pipeline. TB = N_ta thread arrays.
// Bytes per block: bs^2 values (each read once) + one column index (a broadcast per warp).
#include <string>

#include "formats/bsr/bsr_cuda.hpp"
#include "formats/bsr/bsr_kernels.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit::bsr {

namespace {

struct K2Shape {
  int n_tg;           // thread groups: a power of two, <= 32 and <= bs
  int slots;          // row slots of a thread array: bs / vec
  int array_threads;  // thread stride between arrays: slots * n_tg (pack=1) or that padded to
                      // whole warps (pack=0)
  int n_ta;           // thread arrays per thread block
  int n_brows_ta;     // consecutive kernel rows per thread array
};

// One pipeline stage: ILP blocks, EPT columns of VEC rows each, and the blocks' columns (-1 for
// a slot past the end of the row).
template <class V, int VEC, int EPT, int ILP>
struct K2Stage {
  V val[ILP][EPT][VEC];
  index_t col[ILP];
};

// What a lane reads of every block: its e-th element (e < ncols) is column c0 + e * n_tg, at
// offset off0 + e * estride of the (column-major) block. Kept as four numbers rather than
// per-e arrays, which would hold 3 * EPT registers.
struct K2Lane {
  int c0;       // first column: k2_column(n_tg, g, 0)
  int ncols;    // columns the group holds (k2_group_columns); 0 for an idle lane
  int off0;     // c0 * bs + slot * VEC
  int estride;  // n_tg * bs
};

template <class V, int VEC, int EPT, int ILP>
__device__ __forceinline__ void k2_load(K2Stage<V, VEC, EPT, ILP>& st, const KernelArgs<V>& a,
                                        std::int64_t bs2, index_t k, index_t end, const K2Lane& l) {
#pragma unroll
  for (int u = 0; u < ILP; ++u) {
    const index_t kk = k + u;
    const bool ok = kk < end;
    st.col[u] = ok ? load_block_col<cuda::Cache::global>(a.col_idx + kk) : index_t(-1);
    const V* blk = a.values + static_cast<std::int64_t>(kk) * bs2 + l.off0;
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
      if (ok && e < l.ncols) {
        // VEC values in one load (blocks start at multiples of bs^2 values and bs is a
        // multiple of VEC, so the address is aligned to it).
        cuda::load_stream<V, VEC, cuda::Cache::global>(blk + e * l.estride, st.val[u][e]);
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v) st.val[u][e][v] = V(0);
      }
    }
  }
}

template <class V, int VEC, int EPT, int ILP>
__device__ __forceinline__ void k2_multiply(const K2Stage<V, VEC, EPT, ILP>& st, V (&acc)[VEC],
                                            const V* __restrict__ x, const KernelArgs<V>& a,
                                            const K2Lane& l, int n_tg) {
#pragma unroll
  for (int u = 0; u < ILP; ++u) {
    // Negative for an empty slot: no x read.
    const index_t xbase = st.col[u] * a.bs + l.c0;
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
      const V xv = load_x(x, xbase + e * n_tg, a.cols, e < l.ncols);
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc[v] += st.val[u][e][v] * xv;
    }
  }
}

template <class V, int VEC, int EPT, int ILP>
__global__ void bsr_k2_kernel(const KernelArgs<V> a, const K2Shape s, const V* __restrict__ x,
                              const V* y, V* z, V alpha, V beta) {
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t tb_row0 = static_cast<std::int64_t>(blockIdx.x) * s.n_ta * s.n_brows_ta;
  const int array = tid / s.array_threads;  // thread array in the block
  const int t = tid - array * s.array_threads;
  const int g = t & (s.n_tg - 1);  // thread group
  const int slot = t / s.n_tg;     // rows slot*VEC .. slot*VEC + VEC - 1 of every block
  const std::int64_t row0 = tb_row0 + static_cast<std::int64_t>(array) * s.n_brows_ta;
  const std::int64_t left = a.nrows - row0;
  const int nr = left <= 0 ? 0 : left < s.n_brows_ta ? static_cast<int>(left) : s.n_brows_ta;
  // A lane past the last array, in a padded array's idle slots, or of an array without rows
  // loads nothing and stores nothing.
  const bool active = array < s.n_ta && slot < s.slots && nr > 0;
  const int bs = a.bs;
  const std::int64_t bs2 = static_cast<std::int64_t>(bs) * bs;
  K2Lane lane;
  lane.c0 = k2_column(s.n_tg, g, 0);
  lane.ncols = active ? k2_group_columns(bs, s.n_tg, g) : 0;
  lane.off0 = lane.c0 * bs + slot * VEC;  // column-major element (slot*VEC, c0)
  lane.estride = s.n_tg * bs;

  int r = 0;
  // Row pointers are read by every lane of the array (one cached line, broadcast), the end of
  // the row after next one row ahead, so that a row change does not wait for it. (An array can
  // straddle two warps when packed, so lanes cannot hand them round by shuffles.)
  const index_t* rp = a.row_ptr + (active ? row0 : 0);
  index_t k = active ? __ldg(rp) : 0;
  index_t end = active ? __ldg(rp + 1) : 0;
  index_t after = active && nr > 1 ? __ldg(rp + 2) : 0;  // end of row r + 1
  K2Stage<V, VEC, EPT, ILP> cur, nxt;
  k2_load(cur, a, bs2, k, end, lane);
  V acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = V(0);
  // k, end and r are the same in every lane of an array. Padded arrays fill whole warps, so
  // there every branch below is warp-uniform; packed arrays share warps and may part ways, which
  // costs issue slots, not loads. An empty row takes one pass with nothing loaded.
  bool live = active;
  while (__any_sync(kFullMask, live)) {
    index_t nk = k + ILP;
    index_t nend = end;
    int nrr = r;
    bool more = false;
    const bool row_done = live && nk >= end;
    if (live) {
      if (row_done) {
        nrr = r + 1;
        nk = end;  // rows are consecutive
      }
      more = nrr < nr;
      if (row_done && more) {
        nend = after;
        if (nrr + 1 < nr) after = __ldg(rp + nrr + 2);
      }
      if (more) k2_load(nxt, a, bs2, nk, nend, lane);  // double buffering
      k2_multiply(cur, acc, x, a, lane, s.n_tg);
    }
    // A row's N_tg groups are adjacent lanes of one warp (arrays start on multiples of N_tg),
    // and they finish the row together: the lanes finishing a row now shuffle among themselves.
    const unsigned done = __ballot_sync(kFullMask, row_done);
    if (row_done) {
#pragma unroll
      for (int v = 0; v < VEC; ++v)
        for (int off = s.n_tg >> 1; off > 0; off >>= 1)
          acc[v] += __shfl_xor_sync(done, acc[v], off);
      if (g == 0) {
        const index_t out = row_target(a, static_cast<index_t>(row0 + r));
#pragma unroll
        for (int v = 0; v < VEC; ++v) store_row(a, out, slot * VEC + v, acc[v], y, z, alpha, beta);
      }
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc[v] = V(0);
    }
    if (live) {
      cur = nxt;
      k = nk;
      end = nend;
      r = nrr;
      live = more;
    }
  }
}

template <class V>
using K2Fn = void (*)(KernelArgs<V>, K2Shape, const V*, const V*, V*, V, V);

template <class V, int VEC, int EPT, int ILP>
K2Fn<V> k2_instance() {
  if constexpr (k2_has_instance(VEC, EPT, ILP, static_cast<int>(sizeof(V))))
    return bsr_k2_kernel<V, VEC, EPT, ILP>;
  else
    return nullptr;
}

template <class V, int VEC, int EPT>
K2Fn<V> k2_by_ilp(int ilp) {
  switch (ilp) {
    case 1:
      return k2_instance<V, VEC, EPT, 1>();
    case 2:
      return k2_instance<V, VEC, EPT, 2>();
    case 4:
      return k2_instance<V, VEC, EPT, 4>();
  }
  return nullptr;
}

template <class V, int VEC>
K2Fn<V> k2_by_ept(int ept, int ilp) {
  switch (ept) {
    case 1:
      return k2_by_ilp<V, VEC, 1>(ilp);
    case 2:
      return k2_by_ilp<V, VEC, 2>(ilp);
    case 3:
      return k2_by_ilp<V, VEC, 3>(ilp);
    case 4:
      return k2_by_ilp<V, VEC, 4>(ilp);
    case 5:
      return k2_by_ilp<V, VEC, 5>(ilp);
    case 6:
      return k2_by_ilp<V, VEC, 6>(ilp);
    case 7:
      return k2_by_ilp<V, VEC, 7>(ilp);
    case 8:
      return k2_by_ilp<V, VEC, 8>(ilp);
    case 9:
      return k2_by_ilp<V, VEC, 9>(ilp);
    case 12:
      return k2_by_ilp<V, VEC, 12>(ilp);
    case 16:
      return k2_by_ilp<V, VEC, 16>(ilp);
  }
  return nullptr;
}

// The compiled kernel for a validated policy.
template <class V>
K2Fn<V> k2_kernel(const BsrPolicy& p, int bs) {
  const int ept = k2_ept_instance(k2_ept_max(bs, p.n_tg));
  K2Fn<V> fn = nullptr;
  switch (p.vec) {
    case 1:
      fn = k2_by_ept<V, 1>(ept, p.ilp);
      break;
    case 2:
      fn = k2_by_ept<V, 2>(ept, p.ilp);
      break;
    case 4:
      fn = k2_by_ept<V, 4>(ept, p.ilp);
      break;
  }
  if (!fn)
    throw InputError("bsr: no K2 instance for bs=" + std::to_string(bs) + " (" + p.to_params() +
                     ")");
  return fn;
}

}  // namespace

template <class V>
int k2_max_threads_per_block(const BsrPolicy& p, int bs) {
  cudaFuncAttributes attr{};
  SPMVKIT_CUDA_CHECK(
      cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(k2_kernel<V>(p, bs))));
  return attr.maxThreadsPerBlock;
}

template <class V>
void launch_k2(const KernelArgs<V>& a, const BsrPolicy& p, const V* x, const V* y, V* z, V alpha,
               V beta, cudaStream_t stream) {
  K2Shape s;
  s.n_tg = p.n_tg;
  s.slots = a.bs / p.vec;
  s.array_threads = bsr::k2_array_stride(a.bs, p.vec, p.n_tg, p.pack);
  s.n_ta = p.n_ta;
  s.n_brows_ta = p.n_brows_ta;
  const std::int64_t rows_tb = static_cast<std::int64_t>(p.n_ta) * p.n_brows_ta;
  const unsigned grid =
      cuda::grid_for(static_cast<std::size_t>(a.nrows), static_cast<std::size_t>(rows_tb));
  const unsigned block =
      static_cast<unsigned>(bsr::k2_block_threads(a.bs, p.vec, p.n_tg, p.pack, p.n_ta));
  k2_kernel<V>(p, a.bs)<<<grid, block, 0, stream>>>(a, s, x, y, z, alpha, beta);
  SPMVKIT_LAUNCH_CHECK();
}

#define SPMVKIT_INSTANTIATE(V)                                                                  \
  template int k2_max_threads_per_block<V>(const BsrPolicy&, int);                              \
  template void launch_k2(const KernelArgs<V>&, const BsrPolicy&, const V*, const V*, V*, V, V, \
                          cudaStream_t);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::bsr
