// CUDA ELL pass (HEC paper section 2.2: "each thread is responsible for one row"; the ELL
// part is column-major and aligned so every access is coalesced).
//
// Bytes one pass must read: for each slot up to the row's length (row_length mode) or up to
// the width (sentinel mode, column indices only), the 32-byte sectors of the column indices
// and values holding the warp's slots: 12 bytes a stored double entry (8 for float; 2 less
// with 16-bit column deltas, plus 4 bytes a slot of 32 rows for their base), plus padding
// that shares a sector with an entry, plus the row_length array in row_length mode; x gathered
// through the read-only cache; y read when beta != 0; z written. ell_pass_bytes() counts exactly
// these sectors.
#include <algorithm>

#include "backend/cuda/vector_types.cuh"
#include "formats/common/ell_pass_cuda.hpp"

namespace spmvkit {

namespace {

// R consecutive rows as one 16-byte (or scalar) vector.
template <class T, int R>
using Vec = cuda::VectorType<T, R>;

__device__ __forceinline__ int comp(int v, int) { return v; }
__device__ __forceinline__ int comp(const int2& v, int r) { return r == 0 ? v.x : v.y; }
__device__ __forceinline__ int comp(const int4& v, int r) {
  return r == 0 ? v.x : r == 1 ? v.y : r == 2 ? v.z : v.w;
}
__device__ __forceinline__ unsigned short comp(unsigned short v, int) { return v; }
__device__ __forceinline__ unsigned short comp(const ushort2& v, int r) {
  return r == 0 ? v.x : v.y;
}
__device__ __forceinline__ unsigned short comp(const ushort4& v, int r) {
  return r == 0 ? v.x : r == 1 ? v.y : r == 2 ? v.z : v.w;
}
__device__ __forceinline__ double comp(double v, int) { return v; }
__device__ __forceinline__ double comp(const double2& v, int r) { return r == 0 ? v.x : v.y; }
__device__ __forceinline__ float comp(float v, int) { return v; }
__device__ __forceinline__ float comp(const float4& v, int r) {
  return r == 0 ? v.x : r == 1 ? v.y : r == 2 ? v.z : v.w;
}

// A thread handles R consecutive rows (one 16-byte vector load of values and of column
// indices per slot when R > 1), looping over slots UNROLL at a time: the UNROLL index and
// value loads are issued together, then the x gathers they feed, then the FMAs.
// ROW_LEN: loop bound = the longest of the thread's rows and per-row validity by length (no
// padding read); otherwise loop to the width and skip slots whose index is the padding code
// (-1, or delta_padding): the value and x loads of padding are not issued.
// IT = unsigned short: 16-bit deltas, each slot of the thread's 32-row group adding its base
// (ColumnDeltas); the base load is the same address for the group's lanes.
template <class V, class IT, int R, bool ROW_LEN, int UNROLL>
__global__ void __launch_bounds__(EllPolicy::block_threads)
    ell_kernel(index_t rows, index_t width, std::int64_t pitch, const IT* __restrict__ col_idx,
               const index_t* __restrict__ col_base, const V* __restrict__ values,
               const index_t* __restrict__ row_length, const V* __restrict__ x, const V* y, V* z,
               V alpha, V beta) {
  using IV = typename Vec<IT, R>::type;
  using LV = typename Vec<index_t, R>::type;
  using VV = typename Vec<V, R>::type;
  using Code = ColumnCode<IT>;
  const std::int64_t row0 = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * R;
  if (row0 >= rows) return;
  const std::int64_t stride = pitch / R;  // one slot, in vectors
  const std::int64_t groups = pitch / ell_delta_group;
  const std::int64_t group = row0 / ell_delta_group;  // R divides the group: one base a slot
  const IV* cp = reinterpret_cast<const IV*>(col_idx + row0);
  const VV* vp = reinterpret_cast<const VV*>(values + row0);

  index_t len[R];
  index_t n = width;
  if constexpr (ROW_LEN) {
    const LV l = __ldg(reinterpret_cast<const LV*>(row_length + row0));
    n = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      len[r] = comp(l, r);
      n = max(n, len[r]);
    }
  }

  V sum[R];
#pragma unroll
  for (int r = 0; r < R; ++r) sum[r] = V(0);

  for (index_t k0 = 0; k0 < n; k0 += UNROLL) {
    IV c[UNROLL];
    index_t base[UNROLL];
    VV v[UNROLL];
    V xv[UNROLL][R];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const bool in = k0 + u < n;
      c[u] = in ? __ldg(cp + (k0 + u) * stride) : IV{};
      base[u] = in ? Code::base(col_base, (k0 + u) * groups + group) : index_t{0};
      if constexpr (ROW_LEN) v[u] = in ? __ldg(vp + (k0 + u) * stride) : VV{};
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const bool in = k0 + u < n;
      bool any = false;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const IT code = comp(c[u], r);
        const bool valid = in && (ROW_LEN ? k0 + u < len[r] : Code::valid(code));
        any = any || valid;
        xv[u][r] = valid ? __ldg(x + Code::column(code, base[u])) : V(0);
      }
      if constexpr (!ROW_LEN) v[u] = any ? __ldg(vp + (k0 + u) * stride) : VV{};
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int r = 0; r < R; ++r) sum[r] += comp(v[u], r) * xv[u][r];
  }

#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::int64_t row = row0 + r;
    if (row < rows) z[row] = beta == V(0) ? alpha * sum[r] : alpha * sum[r] + beta * y[row];
  }
}

template <class V, class IT, int R, bool ROW_LEN>
void launch_ell(const EllDevice<V>& e, const IT* col, const V* x, const V* y, V* z, V alpha, V beta,
                cudaStream_t stream) {
  constexpr int block = EllPolicy::block_threads;
  const std::size_t threads = (static_cast<std::size_t>(e.rows) + R - 1) / R;
  ell_kernel<V, IT, R, ROW_LEN, EllPolicy::unroll>
      <<<cuda::grid_for(threads, block), block, 0, stream>>>(
          e.rows, e.width, e.pitch, col, e.col_base.data(), e.values.data(), e.row_length.data(), x,
          y, z, alpha, beta);
  SPMVKIT_LAUNCH_CHECK();
}

template <class V, class IT>
void launch_ell_with(const EllDevice<V>& e, const IT* col, const V* x, const V* y, V* z, V alpha,
                     V beta, cudaStream_t stream) {
  constexpr int R = ell_vector_rows<V>();
  const bool by_length = e.skip == EllSkip::row_length;
  if (e.rows_per_thread == 1) {
    if (by_length)
      launch_ell<V, IT, 1, true>(e, col, x, y, z, alpha, beta, stream);
    else
      launch_ell<V, IT, 1, false>(e, col, x, y, z, alpha, beta, stream);
  } else {
    if (by_length)
      launch_ell<V, IT, R, true>(e, col, x, y, z, alpha, beta, stream);
    else
      launch_ell<V, IT, R, false>(e, col, x, y, z, alpha, beta, stream);
  }
}

}  // namespace

template <class V>
EllDevice<V>::EllDevice(const EllData<V>& e, EllSkip skip_mode, int rpt, const ColumnDeltas* deltas)
    : rows(e.rows),
      width(e.width),
      pitch(e.pitch),
      skip(skip_mode),
      rows_per_thread(rpt),
      index_bits(deltas != nullptr ? 16 : 32),
      values(e.values) {
  if (deltas != nullptr) {
    col_delta = cuda::DeviceBuffer<std::uint16_t>(deltas->delta);
    col_base = cuda::DeviceBuffer<index_t>(deltas->base);
  } else {
    col_idx = cuda::DeviceBuffer<index_t>(e.col_idx);
  }
  if (skip == EllSkip::row_length) row_length = cuda::DeviceBuffer<index_t>(e.row_length);
}

template <class V>
void EllDevice<V>::launch(const V* x, const V* y, V* z, V alpha, V beta,
                          cudaStream_t stream) const {
  if (rows == 0) return;
  if (index_bits == 16)
    launch_ell_with<V>(*this, reinterpret_cast<const unsigned short*>(col_delta.data()), x, y, z,
                       alpha, beta, stream);
  else
    launch_ell_with<V>(*this, col_idx.data(), x, y, z, alpha, beta, stream);
}

template struct EllDevice<float>;
template struct EllDevice<double>;

}  // namespace spmvkit
