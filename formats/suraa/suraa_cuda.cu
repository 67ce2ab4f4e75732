// SURAA on the GPU: the setup of Section 4.1 (Algorithm 2) on the device, and the kernels of
// Section 4.2 (Algorithms 3-6) on the context stream and side streams.
//
// Setup, all on the context stream: npr moments (the low-variance fallback, the npr range, the
// rows with npr > 32, the rows of each power-of-two class); sort keys (npr, or its power-of-two
// class with order=pow2|bucketed, or its group class with order=groups, descending; first
// column ascending, except bucketed and groups) and a CUB radix sort of (key, row) pairs, stable,
// so that remaining ties keep the row order, giving perm; the sorted row pointer by a CUB scan;
// col_idx and values gathered into sorted order ("Rearrange A_csr using perm"); the order
// statistics the Freedman-Diaconis rule needs, read from the sorted npr in O(1); the nonzeros
// of each segment. The host then applies the rules (suraa_finish_plan) to those few numbers
// and lays out G1's partial sums on the device.
//
// Apply, launch=segment|merged: G1 on the context stream (parent kernel + child grids, or the
// static kernel, then a finish kernel), G2/G3 launches on side streams forked from and joined
// back to the context stream, so the whole apply is ordered after earlier and before later work
// on that stream. launch=table: G2/G3 in one segment-table kernel; in suraa_static G1 is in it
// too (one launch in all), with suraa G1 stays parent + finish and the table kernel runs on one
// side stream beside it. launch=tiles: the balanced CSR kernel over tiles of the sorted rows
// (G1 included in suraa_static; in suraa G1 stays parent + finish, the tiles beside it).
//
// When are the child grids done? A child grid launched into cudaStreamFireAndForget runs
// unordered with its parent's other work, but "no other grid launches can depend on the
// completion of a fire-and-forget launch, except through the implicit synchronization at the
// end of the parent grid. So a tail launch or the next grid in parent grid's stream won't
// launch before a parent grid's fire-and-forget work has completed" (CUDA Programming Guide,
// CUDA Dynamic Parallelism, "The Fire-and-Forget Stream"). Children write partial sums only;
// the finish kernel, the next grid on the context stream after the parent, reads them and
// writes z. So every z value exists only once all children are done, and anything queued on
// the stream after apply (a copy, an event, a kernel) follows the finish kernel.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/store.cuh"
#include "formats/common/csr_balanced.cuh"
#include "formats/common/csr_kernels.hpp"
#include "formats/common/csr_split.cuh"
#include "formats/suraa/suraa.hpp"
#include "formats/suraa/suraa_cuda.cuh"
#include "formats/suraa/suraa_kernels.cuh"
#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit {

namespace {

using namespace suraa_gpu;

template <class V>
class SuraaCudaOperator final : public Operator<V> {
 public:
  SuraaCudaOperator(const DeviceCsrView<V>& a, const SuraaOptions& o, SuraaDeviceData<V> d)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz, 0, Backend::cuda,
                                 o.dynamic ? "suraa" : "suraa_static", ""}),
        d_(std::move(d)),
        dynamic_(g1_dynamic(o)),
        table_mode_(o.launch == SuraaLaunchMode::table),
        tiles_mode_(o.launch == SuraaLaunchMode::tiles),
        nnz_per_thread_(o.nnz_per_thread) {
    const SuraaPlan& plan = d_.plan;
    const index_t g1 = plan.g1_end;
    partial_sums_ = cuda::DeviceBuffer<V>(static_cast<std::size_t>(d_.partials));  // 0: G1 tiles
    this->info_.matrix_bytes =
        suraa_matrix_bytes(a.rows, a.nnz, sizeof(V), g1_own_kernels(o) ? g1 : 0, d_.partials);
    this->info_.paper_bytes = suraa_paper_bytes(a.rows, a.cols, a.nnz, sizeof(V));
    cuda::build_phase("launch_layout");
    if (table_mode_) build_table();
    if (tiles_mode_ && a.rows > 0) build_tiles();

    // Streams: G1 on the context stream; the G2/G3 launches beside it, round robin over at
    // most `streams` side streams (the first launch stays on the context stream when G1 is
    // empty). launch=table: the table kernel is one launch; it needs a side stream only beside
    // suraa's dynamic G1.
    const bool fused = table_mode_ || tiles_mode_;
    const int nlaunch = table_mode_   ? (table_blocks_ > 0 ? 1 : 0)
                        : tiles_mode_ ? (tiles_.tiles() > 0 ? 1 : 0)
                                      : static_cast<int>(plan.launches.size());
    const int first_side = g1 > 0 && (dynamic_ || !fused) ? 0 : 1;
    const int nside = std::max(0, std::min(o.streams, nlaunch - first_side));
    launch_stream_.assign(static_cast<std::size_t>(nlaunch), -1);
    for (int i = first_side; i < nlaunch && nside > 0; ++i)
      launch_stream_[static_cast<std::size_t>(i)] = (i - first_side) % nside;
    if (nside > 0) side_ = std::make_unique<cuda::SideStreams>(nside);

    // Every G1 row may have a child grid pending at once.
    if (dynamic_ && g1 > 0) {
      std::size_t limit = 0;
      SPMVKIT_CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
      const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(g1) + 64,
                                                     SuraaPolicy::max_pending_launches);
      if (limit < want &&
          cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, want) != cudaSuccess)
        cudaGetLastError();  // not fatal: a refused child launch is computed by its parent
    }

    std::ostringstream det;
    det << "path=suraa,g1="
        << (dynamic_    ? "dynamic"
            : o.dynamic ? "static(built without dynamic parallelism)"
                        : "static")
        << ",order=" << to_string(o.order) << ",launch=" << to_string(o.launch)
        << ",short_kernel=" << (o.scalar_short_rows ? "scalar" : "subwarp")
        << ",segment_size=" << plan.segmentation.segment_size << ",segments=" << plan.segment_count
        << ",fd_bin_width=" << plan.segmentation.bin_width
        << ",max_child_threads=" << plan.max_child_threads << ",g1_rows=" << g1
        << ",g2_rows=" << plan.g2_end - g1 << ",g3_rows=" << plan.rows - plan.g2_end
        << ",g1_blocks=" << d_.partials << ",launches=" << nlaunch
        << (table_mode_ ? ",table_entries=" + std::to_string(table_entries_) : std::string())
        << (tiles_mode_ ? ",tiles=" + std::to_string(tiles_.tiles()) +
                              ",long_rows=" + std::to_string(tiles_.long_rows())
                        : std::string())
        << ",streams=" << nside << ",gpu_setup_ms=" << d_.gpu_setup_ms;
    this->info_.details = det.str();
    d_.host_row_ptr = {};
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (this->info_.rows == 0) return;
    cudaStream_t main = cuda::Context::get().stream();
    if (table_mode_) {
      // suraa_static: one launch (G1 inside the table). suraa: dynamic G1 on the context
      // stream, the table kernel beside it.
      const bool g1_apart = dynamic_ && d_.plan.g1_end > 0;
      if (side_) side_->fork(main);
      if (g1_apart) launch_g1(x, y, z, alpha, beta, main);
      if (table_blocks_ > 0) launch_table(side_ ? (*side_)[0] : main, x, y, z, alpha, beta);
      if (side_) side_->join(main);
      return;
    }
    if (tiles_mode_) {  // as table: suraa_static one launch, suraa's dynamic G1 beside it
      const bool g1_apart = dynamic_ && d_.plan.g1_end > 0;
      if (side_) side_->fork(main);
      if (g1_apart) launch_g1(x, y, z, alpha, beta, main);
      tiles_.launch(d_.row_ptr.data(), d_.col_idx.data(), d_.values.data(), d_.perm.data(), x, y, z,
                    alpha, beta, side_ ? (*side_)[0] : main);
      if (side_) side_->join(main);
      return;
    }
    if (side_) side_->fork(main);
    if (d_.plan.g1_end > 0) launch_g1(x, y, z, alpha, beta, main);
    for (std::size_t i = 0; i < d_.plan.launches.size(); ++i) {
      const int si = launch_stream_[i];
      launch_rows(d_.plan.launches[i], si < 0 ? main : (*side_)[si], x, y, z, alpha, beta);
    }
    if (side_) side_->join(main);
  }

 private:
  // The segment table (launch=table): suraa_static's G1 tasks first, then one entry a run of
  // G2/G3 segments with one threads-per-row (plan.launches, merged); block_begin of the entry
  // after the last is the grid size. G1 counters start at 0 (the kernel leaves them at 0).
  void build_table() {
    std::vector<SuraaTableEntry> t;
    index_t blocks = 0;
    const index_t g1 = d_.plan.g1_end;
    if (!dynamic_ && g1 > 0 && d_.partials > 0) {
      t.push_back(SuraaTableEntry{blocks, 0, g1, 0});
      blocks += d_.partials;
      counters_ = cuda::DeviceBuffer<unsigned int>(static_cast<std::size_t>(g1));
      cuda::fill_bytes(counters_.data(), 0, counters_.bytes());
    }
    for (const SuraaLaunch& l : d_.plan.launches) {
      const std::int64_t rows = l.row_end - l.row_begin;
      if (rows <= 0) continue;
      const int tpr = l.threads_per_row;
      if (tpr < 1 || tpr > kSuraaTableBlock || (tpr & (tpr - 1)) != 0)
        throw InputError("suraa: table threads per row " + std::to_string(tpr));
      const std::int64_t rows_per_block = kSuraaTableBlock / tpr;
      const std::int64_t nb = (rows + rows_per_block - 1) / rows_per_block;
      if (static_cast<std::int64_t>(blocks) + nb > std::numeric_limits<index_t>::max())
        throw UnsupportedError("suraa: segment table grid exceeds 2^31 blocks");
      t.push_back(SuraaTableEntry{blocks, l.row_begin, l.row_end, tpr});
      blocks += static_cast<index_t>(nb);
    }
    table_entries_ = static_cast<index_t>(t.size());
    table_blocks_ = blocks;
    if (!t.empty()) table_ = cuda::queued_upload(t);
  }

  // launch=tiles: balanced tiles of the sorted rows from G1 on (suraa_static) or after it
  // (suraa), never across a group boundary, so a tile's rows are of one group. Tiled on the
  // device from the sorted row pointer there (balanced_tiling_device: the host tiling's tiles).
  void build_tiles() {
    const BalancedPolicy policy;
    const index_t host_cuts[2] = {d_.plan.g1_end, d_.plan.g2_end};
    // A plan made on the host (suraa_setup_from_host) kept its sorted row pointer: the tiling
    // is made there too (balanced_tiling_device's host path), no download.
    std::optional<cuda::ScopedHostMirror> sorted;
    if (!d_.host_row_ptr.empty())
      sorted.emplace(d_.row_ptr.data(), d_.host_row_ptr.data(), d_.plan.rows);
    const bool on_host =
        sorted && cuda::host_row_ptr(d_.row_ptr.data(), d_.host_row_ptr.size()) != nullptr;
    cuda::DeviceBuffer<index_t> cuts(2);  // stored in stream order, not uploaded with a wait
    if (!on_host) {
      cuda::store_async(cuts.data(), host_cuts[0]);
      cuda::store_async(cuts.data() + 1, host_cuts[1]);
    }
    DeviceBalancedTiling t =
        balanced_tiling_device(d_.row_ptr.data(), dynamic_ ? d_.plan.g1_end : 0, d_.plan.rows,
                               policy, cuts.data(), static_cast<index_t>(cuts.size()), host_cuts);
    const auto partials = static_cast<std::size_t>(t.partials);
    tiles_ = BalancedTiles<V>(std::move(t), policy, LongRowFinish::last_slice);  // one launch
    this->info_.matrix_bytes += tiles_.descriptor_bytes() + 2 * partials * sizeof(V);
  }

  void launch_table(cudaStream_t s, const V* x, const V* y, V* z, V alpha, V beta) const {
    suraa_table_kernel<V, kSuraaTableBlock>
        <<<static_cast<unsigned>(table_blocks_), kSuraaTableBlock, 0, s>>>(
            table_.data(), table_entries_, d_.plan.g1_end, d_.partial_ptr.data(),
            partial_sums_.data(), counters_.data(), d_.row_ptr.data(), d_.col_idx.data(),
            d_.values.data(), d_.perm.data(), x, y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  void launch_g1(const V* x, const V* y, V* z, V alpha, V beta, cudaStream_t s) const {
    const index_t g1 = d_.plan.g1_end;
    if (dynamic_) {
#if !defined(SPMVKIT_NO_CUDA_DP)
      constexpr int pb = SuraaPolicy::parent_block;
      suraa_parent_kernel<V><<<cuda::grid_for(g1, pb), pb, 0, s>>>(
          g1, d_.row_ptr.data(), d_.partial_ptr.data(), d_.col_idx.data(), d_.values.data(), x,
          partial_sums_.data(), nnz_per_thread_);
#endif
    } else {
      suraa_long_rows_kernel<V, kSuraaLongBlock>
          <<<static_cast<unsigned>(d_.partials), kSuraaLongBlock, 0, s>>>(
              g1, d_.row_ptr.data(), d_.partial_ptr.data(), d_.col_idx.data(), d_.values.data(), x,
              partial_sums_.data());
    }
    SPMVKIT_LAUNCH_CHECK();
    constexpr int fb = SuraaPolicy::finish_block;
    suraa_g1_finish_kernel<V><<<cuda::grid_for(g1, fb), fb, 0, s>>>(
        g1, d_.partial_ptr.data(), partial_sums_.data(), d_.perm.data(), y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  template <int TPR>
  void launch_rows_tpr(const SuraaLaunch& l, cudaStream_t s, const V* x, const V* y, V* z, V alpha,
                       V beta) const {
    constexpr int block = TPR > SuraaPolicy::rows_block ? TPR : SuraaPolicy::rows_block;
    const auto rows = static_cast<std::size_t>(l.row_end - l.row_begin);
    suraa_rows_kernel<V, TPR, block><<<cuda::grid_for(rows, block / TPR), block, 0, s>>>(
        l.row_begin, l.row_end, d_.row_ptr.data(), d_.col_idx.data(), d_.values.data(),
        d_.perm.data(), x, y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  void launch_rows(const SuraaLaunch& l, cudaStream_t s, const V* x, const V* y, V* z, V alpha,
                   V beta) const {
    switch (l.threads_per_row) {
      case 1:
        return launch_rows_tpr<1>(l, s, x, y, z, alpha, beta);
      case 2:
        return launch_rows_tpr<2>(l, s, x, y, z, alpha, beta);
      case 4:
        return launch_rows_tpr<4>(l, s, x, y, z, alpha, beta);
      case 8:
        return launch_rows_tpr<8>(l, s, x, y, z, alpha, beta);
      case 16:
        return launch_rows_tpr<16>(l, s, x, y, z, alpha, beta);
      case 32:
        return launch_rows_tpr<32>(l, s, x, y, z, alpha, beta);
      case 64:
        return launch_rows_tpr<64>(l, s, x, y, z, alpha, beta);
      case 128:
        return launch_rows_tpr<128>(l, s, x, y, z, alpha, beta);
      case 256:
        return launch_rows_tpr<256>(l, s, x, y, z, alpha, beta);
      case 512:
        return launch_rows_tpr<512>(l, s, x, y, z, alpha, beta);
      case 1024:
        return launch_rows_tpr<1024>(l, s, x, y, z, alpha, beta);
      default:
        throw InputError("suraa: unsupported threads per row " + std::to_string(l.threads_per_row));
    }
  }

  SuraaDeviceData<V> d_;
  bool dynamic_;
  bool table_mode_;
  bool tiles_mode_;
  int nnz_per_thread_;
  BalancedTiles<V> tiles_;  // launch=tiles
  cuda::DeviceBuffer<SuraaTableEntry> table_;
  index_t table_entries_ = 0;
  index_t table_blocks_ = 0;
  mutable cuda::DeviceBuffer<unsigned int>
      counters_;                    // G1 rows' task counts, back to 0 after each apply
  std::vector<int> launch_stream_;  // per launch: side stream index, -1 for the context stream
  std::unique_ptr<cuda::SideStreams> side_;
  mutable cuda::DeviceBuffer<V> partial_sums_;  // G1 scratch written by every apply
};

// launch=tiles with a near/far split: SURAA over the near entries, then the far entries in COO
// column panels (csr_balanced's far part: coo_add.cuh, one launch for all panels) added to z.
template <class V>
class SuraaNearFarOperator final : public Operator<V> {
 public:
  SuraaNearFarOperator(const DeviceCsrView<V>& a, std::unique_ptr<Operator<V>> near,
                       DeviceNearFar<V>&& split, int panels, index_t band)
      : Operator<V>(near->info()), near_(std::move(near)), far_(std::move(split)) {
    this->info_.nnz = a.nnz;
    this->info_.cols = a.cols;
    this->info_.matrix_bytes += far_.bytes();
    this->info_.paper_bytes = suraa_paper_bytes(a.rows, a.cols, a.nnz, sizeof(V));
    this->info_.details += ",far_panels=" + std::to_string(panels) +
                           ",near_band=" + std::to_string(band) +
                           ",far_nnz=" + std::to_string(far_.size());
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    near_->apply(x, y, z, alpha, beta);
    far_.add_to(x, z, alpha, cuda::Context::get().stream());
  }

 private:
  std::unique_ptr<Operator<V>> near_;
  FarEntries<V> far_;
};

}  // namespace

// SURAA from a matrix on the device (`a`, read, not kept), with its npr moments; the far
// entries counted there when the split is automatic.
template <class V>
std::unique_ptr<Operator<V>> suraa_on_device(const DeviceCsrView<V>& a, const NprMoments& mom,
                                             const SuraaOptions& o, const std::string& name) {
  if (o.launch == SuraaLaunchMode::tiles) {
    cuda::build_phase("far_choice");
    const FarSplitChoice far =
        csr_far_split_choice(a.cols, a.nnz, sizeof(V), o.far, name,
                             static_cast<double>(cuda::Context::get().props().l2CacheSize),
                             [&a](index_t band) { return csr_count_far(a, band); });
    if (far.panels > 0) {
      cuda::build_phase("near_far_split");
      DeviceNearFar<V> split = csr_split_near_far(a, far.band, far.panels);
      cuda::build_phase("near_npr_moments");
      const NprMoments near_mom = npr_moments(a.rows, split.near.row_ptr.data());
      auto near = std::make_unique<SuraaCudaOperator<V>>(
          split.near.view(), o, suraa_setup_device(split.near.view(), near_mom, o, !tiles_only(o)));
      return std::make_unique<SuraaNearFarOperator<V>>(a, std::move(near), std::move(split),
                                                       far.panels, far.band);
    }
  }
  return std::make_unique<SuraaCudaOperator<V>>(a, o,
                                                suraa_setup_device(a, mom, o, !tiles_only(o)));
}

template <class V>
std::unique_ptr<Operator<V>> make_suraa_cuda(const Csr<V>& a, const SuraaOptions& o) {
  if (a.rows == 0)
    return std::make_unique<SuraaCudaOperator<V>>(DeviceCsr<V>(a).view(), o, SuraaDeviceData<V>{});
  cuda::DeviceBuffer<index_t> row_ptr_in(a.row_ptr);
  const NprMoments mom = npr_moments(a.rows, row_ptr_in.data());
  const std::string name = o.dynamic ? "suraa" : "suraa_static";
  if (suraa_use_csr_fallback(a.rows, a.nnz(), mom.sum_squared, o)) {
    std::ostringstream why;
    why << "npr_cv=" << suraa_npr_cv(a.rows, a.nnz(), mom.sum_squared);
    // csr_balanced as registered (a peer format, reached through the registry), with the
    // near/far options given to SURAA.
    return std::make_unique<SuraaFallbackOperator<V>>(
        build_operator<V>("csr_balanced", a, o.far, Backend::cuda), name, why.str());
  }
  const DeviceCsr<V> dev(a, std::move(row_ptr_in));
  return suraa_on_device(dev.view(), mom, o, name);
}

template <class V>
std::unique_ptr<Operator<V>> make_suraa_cuda(const DeviceCsrView<V>& a, const SuraaOptions& o) {
  if (a.rows == 0) return std::make_unique<SuraaCudaOperator<V>>(a, o, SuraaDeviceData<V>{});
  cuda::build_phase("npr_moments");
  const NprMoments mom = npr_moments(a.rows, a.row_ptr);
  const std::string name = o.dynamic ? "suraa" : "suraa_static";
  if (suraa_use_csr_fallback(a.rows, a.nnz, mom.sum_squared, o)) {
    std::ostringstream why;
    why << "npr_cv=" << suraa_npr_cv(a.rows, a.nnz, mom.sum_squared);
    // As above, by csr_balanced's device builder (the matrix stays on the device; the view
    // was checked by whoever built suraa from it).
    cuda::build_phase("fallback_csr_balanced");
    return std::make_unique<SuraaFallbackOperator<V>>(
        build_operator_from_checked<V>("csr_balanced", a, o.far), name, why.str());
  }
  return suraa_on_device(a, mom, o, name);
}

template <class V>
SuraaPlan suraa_plan_cuda(const Csr<V>& a, const SuraaOptions& o, bool list_segments,
                          bool host_copy) {
  if (a.rows == 0) return suraa_plan_host(a, o);
  const DeviceCsr<V> dev(a);
  std::optional<cuda::ScopedHostMirror> mirror;
  if (host_copy)
    mirror.emplace(dev.row_ptr.data(), a.row_ptr.data(), a.rows, dev.col_idx.data(),
                   a.col_idx.data());
  const NprMoments mom = npr_moments(a.rows, dev.row_ptr.data());
  SuraaDeviceData<V> d = suraa_setup_device(dev.view(), mom, o, list_segments);
  d.plan.perm = d.perm.download();
  return d.plan;
}

#define SPMVKIT_INSTANTIATE(V)                                                               \
  template std::unique_ptr<Operator<V>> make_suraa_cuda(const Csr<V>&, const SuraaOptions&); \
  template std::unique_ptr<Operator<V>> make_suraa_cuda(const DeviceCsrView<V>&,             \
                                                        const SuraaOptions&);                \
  template SuraaPlan suraa_plan_cuda(const Csr<V>&, const SuraaOptions&, bool, bool);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
