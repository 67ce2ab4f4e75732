// SURAA on the CPU backend: the same sorted rows, segments and groups as on the GPU (setup on
// the host), run segment-parallel with OpenMP. The GPU's three kernels exist to give each
// group its own thread mapping; a CPU core runs any row length well, so one loop serves all
// groups: work items are runs of whole sorted rows (segments merged or split to about
// chunk_nnz nonzeros, never across a group boundary) taken dynamically, and rows longer than
// that are cut into slices whose partial sums are added after the parallel loop.
//
// Bytes per apply: sorted row_ptr and perm (rows+1 and rows indices), col_idx and values
// (nnz each), x, y when beta != 0, z written through perm.
#include <omp.h>

#include <sstream>

#include "backend/cpu/host_operator.hpp"
#include "formats/common/csr_kernels.hpp"
#include "formats/suraa/suraa.hpp"

namespace spmvkit {

namespace {

template <class V>
inline V finish(V sum, const V* y, index_t r, V alpha, V beta) {
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

template <class V>
class SuraaCpuOperator final : public Operator<V> {
 public:
  SuraaCpuOperator(const Csr<V>& a, const SuraaOptions& o)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz(), 0, Backend::cpu,
                                 o.dynamic ? "suraa" : "suraa_static", ""}) {
    plan_ = suraa_plan_host(a, o, &sorted_);
    schedule_ = suraa_cpu_schedule(plan_, sorted_.row_ptr);
    partials_.assign(static_cast<std::size_t>(schedule_.partials), V(0));
    this->info_.matrix_bytes = suraa_matrix_bytes(a.rows, a.nnz(), sizeof(V));
    this->info_.paper_bytes = suraa_paper_bytes(a.rows, a.cols, a.nnz(), sizeof(V));
    std::ostringstream d;
    d << "path=suraa,order=" << to_string(o.order)
      << ",segment_size=" << plan_.segmentation.segment_size
      << ",segments=" << plan_.segments.size() << ",max_child_threads=" << plan_.max_child_threads
      << ",g1_rows=" << plan_.g1_end << ",g2_rows=" << plan_.g2_end - plan_.g1_end
      << ",g3_rows=" << plan_.rows - plan_.g2_end << ",chunks=" << schedule_.chunks.size()
      << ",long_rows=" << schedule_.long_rows.size();
    this->info_.details = d.str();
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    const index_t* rp = sorted_.row_ptr.data();
    const index_t* ci = sorted_.col_idx.data();
    const V* va = sorted_.values.data();
    const index_t* perm = plan_.perm.data();
    const SuraaCpuChunk* chunks = schedule_.chunks.data();
    const auto nchunks = static_cast<std::int64_t>(schedule_.chunks.size());
    const SuraaCpuLongRow* long_rows = schedule_.long_rows.data();
    const auto nlong = static_cast<std::int64_t>(schedule_.long_rows.size());
    V* partials = partials_.data();
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t c = 0; c < nchunks; ++c) {
        const SuraaCpuChunk ch = chunks[c];
        if (ch.partial >= 0) {
          V sum = 0;
          for (index_t k = ch.nnz_begin; k < ch.nnz_end; ++k) sum += va[k] * x[ci[k]];
          partials[ch.partial] = sum;
          continue;
        }
        for (index_t r = ch.row_begin; r < ch.row_end; ++r) {
          V sum = 0;
          for (index_t k = rp[r]; k < rp[r + 1]; ++k) sum += va[k] * x[ci[k]];
          const index_t out = perm[r];
          z[out] = finish(sum, y, out, alpha, beta);
        }
      }
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < nlong; ++i) {
        const SuraaCpuLongRow lr = long_rows[i];
        V sum = 0;
        for (index_t p = lr.partial_begin; p < lr.partial_end; ++p) sum += partials[p];
        const index_t out = perm[lr.row];
        z[out] = finish(sum, y, out, alpha, beta);
      }
    }
  }

 private:
  SuraaPlan plan_;
  Csr<V> sorted_;
  SuraaCpuSchedule schedule_;
  mutable std::vector<V> partials_;  // scratch written by every apply
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_suraa_cpu(const Csr<V>& a, const SuraaOptions& o) {
  double sum_sq = 0;
  for (index_t r = 0; r < a.rows; ++r) {
    const double len = a.row_length(r);
    sum_sq += len * len;
  }
  if (suraa_use_csr_fallback(a.rows, a.nnz(), sum_sq, o)) {
    std::ostringstream why;
    why << "npr_cv=" << suraa_npr_cv(a.rows, a.nnz(), sum_sq);
    // csr_balanced's CPU path: the shared merge-path kernel.
    auto csr = std::make_unique<HostOperator<V, Csr<V>, &csr_spmv_merge_cpu<V>>>(
        a, OperatorInfo{a.rows, a.cols, a.nnz(), csr_matrix_bytes(a), Backend::cpu,
                        "csr_balanced", "merge-path"});
    return std::make_unique<SuraaFallbackOperator<V>>(
        std::move(csr), o.dynamic ? "suraa" : "suraa_static", why.str());
  }
  return std::make_unique<SuraaCpuOperator<V>>(a, o);
}

template std::unique_ptr<Operator<float>> make_suraa_cpu(const Csr<float>&, const SuraaOptions&);
template std::unique_ptr<Operator<double>> make_suraa_cpu(const Csr<double>&, const SuraaOptions&);

}  // namespace spmvkit
