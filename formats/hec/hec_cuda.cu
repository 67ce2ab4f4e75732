// CUDA HEC (Algorithm 1): the ELL pass (formats/ell, a thread a row, column-major and
// coalesced) writes z = alpha*ELL*x + beta*y; then the CSR part adds alpha*CSR*x into z.
//
// The device CSR part lists only the rows that have CSR-part entries (row id + end offset
// each), so the second pass costs nothing for the many rows the ELL part holds whole.
// Bytes per CSR-part entry: column + value (8 + 4 for double), plus 8 bytes a listed row,
// plus (balanced) 4 bytes per 32 entries; and the x gathers.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "backend/cuda/search.cuh"
#include "formats/common/ell_pass_cuda.hpp"
#include "formats/hec/hec.hpp"
#include "formats/common/segmented_reduce.cuh"
#include "spmvkit/error.hpp"
#include "spmvkit/timing.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit {

namespace {

struct HecCsrPolicy {
  static constexpr int block_threads = 256;
  static constexpr int scalar_unroll = 4;     // scalar kernel: loads in flight per thread
  static constexpr int items_per_thread = 8;  // balanced kernel: a warp's tile is 32*8 entries
  static constexpr int tile = 32 * items_per_thread;
};

// --- scalar: the paper's CSR part, a thread a row --------------------------------------------
template <class V>
__global__ void __launch_bounds__(HecCsrPolicy::block_threads)
    hec_csr_scalar_kernel(index_t rows, const index_t* __restrict__ row_id,
                          const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                          const V* __restrict__ values, const V* __restrict__ x, V* z, V alpha) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= rows) return;
  const index_t begin = __ldg(row_ptr + j), end = __ldg(row_ptr + j + 1);
  V sum = 0;
#pragma unroll HecCsrPolicy::scalar_unroll
  for (index_t k = begin; k < end; ++k) sum += __ldg(values + k) * __ldg(x + __ldg(col_idx + k));
  const index_t r = __ldg(row_id + j);
  z[r] += alpha * sum;
}

// --- balanced: equal tiles of entries, warp segmented reduction ------------------------------
// A warp takes the tile of 32*ITEMS consecutive CSR-part entries. Round i of the tile covers
// entries base..base+31 (base = tile + 32*i); round_row[base/32] is the listed row holding
// entry `base`, so every round's rows are found without a search: lane j loads the end offset
// of listed row cur+j; the rows ending inside the round set one bit each (row ends are
// distinct because listed rows are non-empty), and lane L's row is cur + the number of bits
// below L. All rounds' loads are independent, so they are all issued before any reduction.
template <class V, int ITEMS>
__global__ void __launch_bounds__(HecCsrPolicy::block_threads)
    hec_csr_balanced_kernel(index_t rows, index_t nnz, const index_t* __restrict__ row_id,
                            const index_t* __restrict__ row_ptr,
                            const index_t* __restrict__ round_row,
                            const index_t* __restrict__ col_idx, const V* __restrict__ values,
                            const V* __restrict__ x, V* z, V alpha) {
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t tile = warp * 32 * ITEMS;
  if (tile >= nnz) return;  // the whole warp leaves together

  index_t c[ITEMS];
  V v[ITEMS];
  index_t cur[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t base = tile + 32 * i;
    const std::int64_t k = base + lane;
    const bool in = k < nnz;
    c[i] = in ? __ldg(col_idx + k) : index_t{0};
    v[i] = in ? __ldg(values + k) : V(0);
    cur[i] = base < nnz ? __ldg(round_row + (base >> 5)) : index_t{0};
  }
  index_t end[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t base = tile + 32 * i;
    const std::int64_t j = static_cast<std::int64_t>(cur[i]) + lane;
    end[i] = base < nnz && j < rows ? __ldg(row_ptr + j + 1) : INT_MAX;
  }
  V prod[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const bool in = tile + 32 * i + lane < nnz;
    prod[i] = in ? v[i] * __ldg(x + c[i]) : V(0);
  }
  index_t key[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t base = tile + 32 * i;
    const std::int64_t past = static_cast<std::int64_t>(end[i]) - base;  // >= 1 for row cur
    const unsigned bit = past >= 1 && past <= 32 ? 1u << (past - 1) : 0u;
    const unsigned ends = __reduce_or_sync(full, bit);
    const index_t rank = __popc(ends & ((1u << lane) - 1u));
    key[i] = base + lane < nnz ? cur[i] + rank : index_t{-1};
  }
  warp_segmented_reduce<V, ITEMS>(
      key, prod, lane, [&](index_t j, V sum) { atomicAdd(z + __ldg(row_id + j), alpha * sum); });
}

// round_row[q] = the listed row holding entry 32*q (listed rows are non-empty, so the last
// row starting at or before it). A thread a round.
__global__ void hec_round_row_kernel(std::int64_t rounds, index_t rows,
                                     const index_t* __restrict__ row_ptr, index_t* round_row) {
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < rounds) round_row[q] = cuda::last_at_most(row_ptr, 0, rows - 1, q * 32);
}

// The CSR part on the device: the listed rows (those with CSR-part entries).
template <class V>
struct HecCsrDevice {
  index_t rows = 0;  // listed rows
  index_t nnz = 0;
  HecCsrKernel kernel = HecCsrKernel::scalar;
  cuda::DeviceBuffer<index_t> row_id;     // rows: the matrix row of each listed row
  cuda::DeviceBuffer<index_t> row_ptr;    // rows + 1 offsets into col_idx / values
  cuda::DeviceBuffer<index_t> round_row;  // balanced: listed row holding entry 32*r
  cuda::DeviceBuffer<index_t> col_idx;
  cuda::DeviceBuffer<V> values;

  HecCsrDevice() = default;
  HecCsrDevice(const HecData<V>& h, HecCsrKernel k) : kernel(k) {
    const index_t n = h.ell.rows;
    std::vector<index_t> ids, ptr{0};
    for (index_t r = 0; r < n; ++r)
      if (h.csr_row_ptr[r + 1] > h.csr_row_ptr[r]) {
        ids.push_back(r);
        ptr.push_back(h.csr_row_ptr[r + 1]);
      }
    rows = static_cast<index_t>(ids.size());
    nnz = h.csr_nnz();
    if (nnz == 0) return;
    row_id = cuda::DeviceBuffer<index_t>(ids);
    row_ptr = cuda::DeviceBuffer<index_t>(ptr);
    col_idx = cuda::DeviceBuffer<index_t>(h.csr_col_idx);
    values = cuda::DeviceBuffer<V>(h.csr_values);
    if (kernel == HecCsrKernel::balanced) {
      // O(nnz / 32) serial work: .cu files are not compiled with OpenMP.
      std::vector<index_t> rr((static_cast<std::size_t>(nnz) + 31) / 32);
      for (index_t j = 0; j < rows; ++j)
        for (std::int64_t r = (std::int64_t{ptr[j]} + 31) / 32; r * 32 < ptr[j + 1]; ++r) rr[r] = j;
      round_row = cuda::DeviceBuffer<index_t>(rr);
    }
  }

  // Made on the device (csr_tail_rows_device), round_row there too.
  HecCsrDevice(CsrDeviceTail<V>&& t, HecCsrKernel k)
      : rows(t.rows),
        nnz(static_cast<index_t>(t.values.size())),
        kernel(k),
        row_id(std::move(t.row_id)),
        row_ptr(std::move(t.row_ptr)),
        col_idx(std::move(t.col)),
        values(std::move(t.values)) {
    if (nnz == 0 || kernel != HecCsrKernel::balanced) return;
    const std::int64_t rounds = (std::int64_t{nnz} + 31) / 32;
    round_row = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(rounds));
    constexpr int block = HecCsrPolicy::block_threads;
    hec_round_row_kernel<<<cuda::grid_for(static_cast<std::size_t>(rounds), block), block, 0,
                           cuda::Context::get().stream()>>>(rounds, rows, row_ptr.data(),
                                                           round_row.data());
    SPMVKIT_LAUNCH_CHECK();
  }

  void launch(const V* x, V* z, V alpha, cudaStream_t stream) const {
    launch_kernel(kernel, x, z, alpha, stream);
  }

  void launch_kernel(HecCsrKernel k, const V* x, V* z, V alpha, cudaStream_t stream) const {
    if (nnz == 0) return;
    constexpr int block = HecCsrPolicy::block_threads;
    if (k == HecCsrKernel::scalar) {
      hec_csr_scalar_kernel<V><<<cuda::grid_for(rows, block), block, 0, stream>>>(
          rows, row_id.data(), row_ptr.data(), col_idx.data(), values.data(), x, z, alpha);
    } else {
      const std::size_t warps =
          (static_cast<std::size_t>(nnz) + HecCsrPolicy::tile - 1) / HecCsrPolicy::tile;
      hec_csr_balanced_kernel<V, HecCsrPolicy::items_per_thread>
          <<<cuda::grid_for(warps * 32, block), block, 0, stream>>>(
              rows, nnz, row_id.data(), row_ptr.data(), round_row.data(), col_idx.data(),
              values.data(), x, z, alpha);
    }
    SPMVKIT_LAUNCH_CHECK();
  }
};

template <class V>
class HecCudaOperator final : public Operator<V> {
 public:
  HecCudaOperator(const HecData<V>& h, EllSkip skip, int rows_per_thread,
                  const ColumnDeltas* deltas, HecCsrKernel kernel, OperatorInfo info)
      : Operator<V>(std::move(info)), ell_(h.ell, skip, rows_per_thread, deltas), csr_(h, kernel) {}

  HecCudaOperator(EllDevice<V>&& ell, HecCsrDevice<V>&& csr, OperatorInfo info)
      : Operator<V>(std::move(info)), ell_(std::move(ell)), csr_(std::move(csr)) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (this->rows() == 0) return;
    cudaStream_t stream = cuda::Context::get().stream();
    ell_.launch(x, y, z, alpha, beta, stream);
    csr_.launch(x, z, alpha, stream);
  }

 private:
  EllDevice<V> ell_;
  HecCsrDevice<V> csr_;
};

// --- p_r calibration -------------------------------------------------------------------------

struct CalibrationPolicy {
  static constexpr index_t rows = index_t{1} << 22;
  static constexpr int row_length = 16;
  static constexpr index_t column_stride = 97;  // banded columns: i + (k - 8) * 97 (mod rows)
  static constexpr int warmup = 5;
  static constexpr int runs = 25;
};

// The calibration matrix, as an ELL part (column-major, width = row_length, no padding) and as
// a CSR part listing every row, written by one thread a row.
template <class V>
__global__ void calibration_fill_kernel(index_t n, int length, index_t stride,
                                        index_t* __restrict__ ell_col, V* __restrict__ ell_val,
                                        index_t* __restrict__ row_id, index_t* __restrict__ row_ptr,
                                        index_t* __restrict__ round_row,
                                        index_t* __restrict__ csr_col, V* __restrict__ csr_val) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  row_id[i] = static_cast<index_t>(i);
  row_ptr[i + 1] = static_cast<index_t>((i + 1) * length);
  if (i == 0) row_ptr[0] = 0;
  for (int k = 0; k < length; ++k) {
    const std::int64_t c = ((i + static_cast<std::int64_t>(k - length / 2) * stride) % n + n) % n;
    const V v = V(1) + V(k) / V(length);
    ell_col[k * static_cast<std::int64_t>(n) + i] = static_cast<index_t>(c);
    ell_val[k * static_cast<std::int64_t>(n) + i] = v;
    csr_col[i * length + k] = static_cast<index_t>(c);
    csr_val[i * length + k] = v;
  }
  // Rounds (32 entries each) that start inside this row.
  for (std::int64_t r = (i * length + 31) / 32; r * 32 < (i + 1) * length; ++r)
    round_row[r] = static_cast<index_t>(i);
}

template <class V>
__global__ void fill_value_kernel(index_t n, V value, V* __restrict__ out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

// Median of the runs, timed by the backend's one timer (spmvkit/timing.hpp) on the context
// stream, where `launch` queues its work.
template <class F>
double median_ms(F&& launch) {
  return median(time_runs(Backend::cuda, CalibrationPolicy::warmup, CalibrationPolicy::runs,
                          [&] { launch(); }));
}

struct PrPair {
  double scalar;
  double balanced;
};

template <class V>
PrPair calibrate() {
  using P = CalibrationPolicy;
  const index_t n = P::rows;
  const std::int64_t entries = static_cast<std::int64_t>(n) * P::row_length;
  cudaStream_t stream = cuda::Context::get().stream();

  EllDevice<V> ell;
  ell.rows = n;
  ell.width = P::row_length;
  ell.pitch = n;
  ell.skip = EllSkip::sentinel;
  ell.rows_per_thread = ell_vector_rows<V>();
  ell.col_idx = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(entries));
  ell.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(entries));

  HecCsrDevice<V> csr;
  csr.rows = n;
  csr.nnz = static_cast<index_t>(entries);
  csr.row_id = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(n));
  csr.row_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(n) + 1);
  csr.round_row = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>((entries + 31) / 32));
  csr.col_idx = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(entries));
  csr.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(entries));

  cuda::DeviceBuffer<V> x(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n));
  constexpr int block = 256;
  calibration_fill_kernel<V><<<cuda::grid_for(n, block), block, 0, stream>>>(
      n, P::row_length, P::column_stride, ell.col_idx.data(), ell.values.data(), csr.row_id.data(),
      csr.row_ptr.data(), csr.round_row.data(), csr.col_idx.data(), csr.values.data());
  SPMVKIT_LAUNCH_CHECK();
  fill_value_kernel<V><<<cuda::grid_for(n, block), block, 0, stream>>>(n, V(1), x.data());
  SPMVKIT_LAUNCH_CHECK();
  fill_value_kernel<V><<<cuda::grid_for(n, block), block, 0, stream>>>(n, V(0), z.data());
  SPMVKIT_LAUNCH_CHECK();

  const double t_ell =
      median_ms([&] { ell.launch(x.data(), nullptr, z.data(), V(1), V(0), stream); });
  const double t_scalar = median_ms(
      [&] { csr.launch_kernel(HecCsrKernel::scalar, x.data(), z.data(), V(1), stream); });
  const double t_balanced = median_ms(
      [&] { csr.launch_kernel(HecCsrKernel::balanced, x.data(), z.data(), V(1), stream); });
  // Same entry count in both parts, so the time ratio is the per-entry ratio.
  if (!(t_ell > 0)) throw Error("calibrate_hec_pr: the ELL pass took no measurable time");
  return {t_scalar / t_ell, t_balanced / t_ell};
}

}  // namespace

double calibrate_hec_pr() {
  if (!cuda_available()) throw UnsupportedError("calibrate_hec_pr: no CUDA device is available");
  const std::string device = device_name(Backend::cuda);
  const PrPair f64 = calibrate<double>();
  const PrPair f32 = calibrate<float>();
  auto put = [&](HecCsrKernel k, bool dbl, double v) {
    tuning_put(device, hec_p_r_key(k, dbl), std::to_string(v));
  };
  put(HecCsrKernel::scalar, true, f64.scalar);
  put(HecCsrKernel::balanced, true, f64.balanced);
  put(HecCsrKernel::scalar, false, f32.scalar);
  put(HecCsrKernel::balanced, false, f32.balanced);
  return f64.scalar;
}

template <class V>
std::unique_ptr<Operator<V>> make_hec_cuda(const HecData<V>& h, EllSkip skip, int rows_per_thread,
                                           const ColumnDeltas* deltas, HecCsrKernel kernel,
                                           OperatorInfo info) {
  return std::make_unique<HecCudaOperator<V>>(h, skip, rows_per_thread, deltas, kernel,
                                              std::move(info));
}

template <class V>
std::unique_ptr<Operator<V>> make_hec_cuda(const DeviceCsrView<V>& a, EllShape& s,
                                           std::int64_t pitch, index_t csr_rows,
                                           std::int64_t csr_nnz, int rows_per_thread,
                                           HecCsrKernel kernel, const EllDecisions& decide) {
  OperatorInfo info;
  // The CSR part's host part first (beside the upload), its device part while the pack runs
  // (before the pack's wait for its delta fit).
  const CsrTailPlan plan = csr_tail_plan(a, s.g.width, true);
  std::optional<HecCsrDevice<V>> csr;
  EllDecisions with_tail = decide;
  with_tail.meanwhile = [&] {
    csr.emplace(csr_tail_rows_device(a, s.g.width, csr_nnz, csr_rows, plan), kernel);
  };
  EllDevice<V> ell = ell_pack_device(a, s, pitch, rows_per_thread, with_tail, &info);
  return std::make_unique<HecCudaOperator<V>>(std::move(ell), std::move(*csr), std::move(info));
}

#define SPMVKIT_INSTANTIATE(V)                                                              \
  template std::unique_ptr<Operator<V>> make_hec_cuda(const DeviceCsrView<V>&, EllShape&,   \
                                                      std::int64_t, index_t, std::int64_t,  \
                                                      int, HecCsrKernel, const EllDecisions&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

template std::unique_ptr<Operator<float>> make_hec_cuda(const HecData<float>&, EllSkip, int,
                                                        const ColumnDeltas*, HecCsrKernel,
                                                        OperatorInfo);
template std::unique_ptr<Operator<double>> make_hec_cuda(const HecData<double>&, EllSkip, int,
                                                         const ColumnDeltas*, HecCsrKernel,
                                                         OperatorInfo);

}  // namespace spmvkit
