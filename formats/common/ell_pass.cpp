// ELL host construction: packing, the sector-exact byte model, the skip rule and the builder.
#include "formats/common/ell_pass.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

constexpr std::int64_t sector_bytes = 32;  // the DRAM transaction granule of NVIDIA GPUs

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

}  // namespace

std::string_view to_string(EllSkip s) { return s == EllSkip::sentinel ? "sentinel" : "row_length"; }

template <class V>
std::vector<index_t> row_lengths(const Csr<V>& a) {
  std::vector<index_t> len(static_cast<std::size_t>(a.rows));
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < a.rows; ++r) len[r] = a.row_length(r);
  return len;
}

std::vector<std::int64_t> length_histogram(const std::vector<index_t>& lengths) {
  if (lengths.empty()) return {};
  const index_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<std::int64_t> hist(static_cast<std::size_t>(longest) + 1, 0);
  for (index_t l : lengths) ++hist[l];
  return hist;
}

std::vector<std::int64_t> length_histogram_from_runs(const std::vector<index_t>& distinct,
                                                     const std::vector<index_t>& count) {
  if (distinct.empty()) return {};
  std::vector<std::int64_t> hist(static_cast<std::size_t>(distinct.back()) + 1, 0);
  for (std::size_t i = 0; i < distinct.size(); ++i) hist[distinct[i]] += count[i];
  return hist;
}

std::int64_t ell_stored(const std::vector<std::int64_t>& histogram, index_t width) {
  std::int64_t stored = 0;
  for (std::size_t len = 0; len < histogram.size(); ++len)
    stored += histogram[len] * std::min<std::int64_t>(static_cast<std::int64_t>(len), width);
  return stored;
}

std::int64_t rows_longer(const std::vector<std::int64_t>& histogram, index_t width) {
  std::int64_t longer = 0;
  for (std::size_t len = static_cast<std::size_t>(width) + 1; len < histogram.size(); ++len)
    longer += histogram[len];
  return longer;
}

std::int64_t EllGroupMaxima::of(index_t group) const {
  for (std::size_t i = 0; i < ell_model_groups.size(); ++i)
    if (ell_model_groups[i] == group) return sum[i];
  throw std::logic_error("EllGroupMaxima: no sum for groups of " + std::to_string(group) + " rows");
}

EllGroupMaxima ell_group_maxima(const std::vector<index_t>& row_length, index_t rows,
                                index_t width) {
  EllGroupMaxima g;
  g.rows = rows;
  g.width = width;
  static_assert(ell_model_groups[0] == 4 && ell_model_groups[1] == 8 && ell_model_groups[2] == 16 &&
                    ell_model_groups[3] == 256,
                "one pass folds groups of 4 into 8, 16 and 256");
  // Blocks of 256 rows: the groups of 4's maxima (clipped at width) in one pass, folded in
  // pairs into the groups of 8, those into 16, and all into 256 (a group cut short by the last
  // row counts as it stands). Separate passes over the 64 maxima, without a branch a row.
  const std::int64_t blocks = (static_cast<std::int64_t>(rows) + 255) / 256;
  std::int64_t s4 = 0, s8 = 0, s16 = 0, s256 = 0;
#pragma omp parallel for schedule(static) reduction(+ : s4, s8, s16, s256) if (rows > 65536)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t r0 = b * 256, n = std::min<std::int64_t>(rows - r0, 256);
    const index_t* len = row_length.data() + r0;
    index_t m[64];  // the groups of 4's maxima, then of 8, then of 16
    std::int64_t groups = (n + 3) / 4;
    if (n == 256) {
      for (int q = 0; q < 64; ++q)
        m[q] = std::min(width, std::max(std::max(len[4 * q], len[4 * q + 1]),
                                        std::max(len[4 * q + 2], len[4 * q + 3])));
    } else {
      for (std::int64_t q = 0; q < groups; ++q) {
        index_t most = 0;
        for (std::int64_t r = 4 * q; r < std::min(n, 4 * q + 4); ++r) most = std::max(most, len[r]);
        m[q] = std::min(width, most);
      }
    }
    std::int64_t* sum[3] = {&s4, &s8, &s16};
    for (int level = 0; level < 3; ++level) {
      std::int64_t total = 0;
      for (std::int64_t q = 0; q < groups; ++q) total += m[q];
      *sum[level] += total;
      if (level == 2) break;
      const std::int64_t pairs = (groups + 1) / 2;
      for (std::int64_t q = 0; q < pairs; ++q)
        m[q] = std::max(m[2 * q], 2 * q + 1 < groups ? m[2 * q + 1] : 0);
      groups = pairs;
    }
    s256 += *std::max_element(m, m + groups);
  }
  g.sum = {s4, s8, s16, s256};
  return g;
}

std::int64_t ell_pitch(index_t rows) { return round_up(rows, ell_pitch_align); }

template <class V>
EllData<V> ell_pack(const Csr<V>& a, index_t width) {
  EllData<V> e;
  e.rows = a.rows;
  e.cols = a.cols;
  e.width = width;
  e.pitch = ell_pitch(a.rows);
  const std::int64_t pitch = e.pitch;
  e.col_idx.resize(static_cast<std::size_t>(e.padded_slots()));
  e.values.resize(static_cast<std::size_t>(e.padded_slots()));
  e.row_length.assign(static_cast<std::size_t>(pitch), 0);
  // Blocks of rows: each block writes its rows' slots column by column, so both the CSR reads
  // and the column-major writes stay within a few cache lines per column.
  constexpr std::int64_t block = 256;
  const std::int64_t blocks = pitch / block + (pitch % block != 0);
  std::int64_t stored = 0;
  index_t* col = e.col_idx.data();
  V* val = e.values.data();
  index_t* row_len = e.row_length.data();
#pragma omp parallel for schedule(static) reduction(+ : stored)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t r0 = b * block;
    const std::int64_t r1 = std::min(pitch, r0 + block);
    for (std::int64_t r = r0; r < r1; ++r) {
      const index_t len = r < a.rows ? std::min(width, a.row_length(static_cast<index_t>(r))) : 0;
      row_len[r] = len;
      stored += len;
    }
    for (index_t k = 0; k < width; ++k) {
      const std::size_t base = static_cast<std::size_t>(k) * static_cast<std::size_t>(pitch);
      for (std::int64_t r = r0; r < r1; ++r) {
        const bool used = k < row_len[r];
        const std::size_t src = used ? static_cast<std::size_t>(a.row_ptr[r] + k) : 0;
        col[base + r] = used ? a.col_idx[src] : index_t{-1};
        val[base + r] = used ? a.values[src] : V(0);
      }
    }
  }
  e.stored = stored;
  return e;
}

template <class V>
std::size_t ell_pass_bytes(const EllGroupMaxima& g, EllSkip skip, bool deltas) {
  if (g.width == 0 || g.rows == 0) return 0;
  constexpr index_t values_per_sector = static_cast<index_t>(sector_bytes / sizeof(V));
  const auto indices_per_sector =
      static_cast<index_t>(sector_bytes / (deltas ? sizeof(std::uint16_t) : sizeof(index_t)));
  constexpr index_t lengths_per_sector = static_cast<index_t>(sector_bytes / sizeof(index_t));
  const std::int64_t index_groups =
      (static_cast<std::int64_t>(g.rows) + indices_per_sector - 1) / indices_per_sector;
  const std::int64_t length_groups =
      (static_cast<std::int64_t>(g.rows) + lengths_per_sector - 1) / lengths_per_sector;
  // Values are loaded only for slots that hold an entry, in both modes.
  std::int64_t sectors = g.of(values_per_sector);
  if (skip == EllSkip::sentinel)
    sectors += static_cast<std::int64_t>(g.width) * index_groups;  // every index up to width
  else
    sectors += g.of(indices_per_sector) + length_groups;
  if (deltas) {  // a sector of bases serves 8 groups of rows
    const index_t rows_per_base_sector = ell_delta_group * lengths_per_sector;
    if (skip == EllSkip::sentinel)
      sectors += static_cast<std::int64_t>(g.width) *
                 ((g.rows + rows_per_base_sector - 1) / rows_per_base_sector);
    else
      sectors += g.of(rows_per_base_sector);
  }
  return static_cast<std::size_t>(sectors * sector_bytes);
}

template <class V>
EllSkip ell_choose_skip(const EllGroupMaxima& g, bool deltas) {
  if (g.width == 0) return EllSkip::sentinel;
  return ell_pass_bytes<V>(g, EllSkip::sentinel, deltas) <=
                 ell_pass_bytes<V>(g, EllSkip::row_length, deltas)
             ? EllSkip::sentinel
             : EllSkip::row_length;
}

template <class V>
std::optional<ColumnDeltas> ell_column_deltas(const EllData<V>& e) {
  const std::int64_t groups = e.pitch / ell_delta_group;
  ColumnDeltas d;
  d.base.assign(static_cast<std::size_t>(e.width * groups), 0);
  d.delta.resize(e.col_idx.size());
  bool fit = true;
#pragma omp parallel for schedule(static) reduction(&& : fit)
  for (std::int64_t g = 0; g < groups; ++g) {
    for (index_t k = 0; k < e.width && fit; ++k) {
      const std::size_t first = e.slot(k, static_cast<index_t>(g * ell_delta_group));
      index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
      for (index_t i = 0; i < ell_delta_group; ++i) {
        const index_t c = e.col_idx[first + i];
        if (c >= 0) {
          lo = std::min(lo, c);
          hi = std::max(hi, c);
        }
      }
      if (hi >= 0 && static_cast<std::int64_t>(hi) - lo > delta_max_span) {
        fit = false;
        break;
      }
      const index_t base = hi >= 0 ? lo : 0;
      d.base[k * groups + g] = base;
      for (index_t i = 0; i < ell_delta_group; ++i) {
        const index_t c = e.col_idx[first + i];
        d.delta[first + i] = c >= 0 ? static_cast<std::uint16_t>(c - base) : delta_padding;
      }
    }
  }
  if (!fit) return std::nullopt;
  return d;
}

std::optional<int> index_bits_param(const Params& p, const std::string& format) {
  const std::string s = p.get_string("index_bits", "auto");
  if (s == "auto") return std::nullopt;
  if (s == "16") return 16;
  if (s == "32") return 32;
  throw InputError(format + ": index_bits must be auto, 16 or 32, got '" + s + "'");
}

template <class V>
std::optional<ColumnDeltas> ell_choose_deltas(const EllData<V>& e, std::optional<int> param,
                                              Backend b, const std::string& format) {
  if (b == Backend::cpu || param == 32 || e.width == 0) return std::nullopt;
  std::optional<ColumnDeltas> d = ell_column_deltas(e);
  if (param == 16 && !d) ell_deltas_do_not_fit(format);
  return d;
}

void ell_deltas_do_not_fit(const std::string& format) {
  throw UnsupportedError(format +
                         ": index_bits=16 needs the columns of every 32-row group's slot to "
                         "span at most 65534");
}

std::optional<EllSkip> ell_skip_param(const Params& p, const std::string& format) {
  const std::string s = p.get_string("skip", "auto");
  if (s == "auto") return std::nullopt;
  if (s == "sentinel") return EllSkip::sentinel;
  if (s == "row_length") return EllSkip::row_length;
  throw InputError(format + ": skip must be auto, sentinel or row_length, got '" + s + "'");
}

template <class V>
int ell_rows_per_thread_param(const Params& p, const std::string& format) {
  const long long rpt = p.get_int("rows_per_thread", ell_vector_rows<V>());
  if (rpt != 1 && rpt != ell_vector_rows<V>())
    throw InputError(format + ": rows_per_thread must be 1 or " +
                     std::to_string(ell_vector_rows<V>()) + " (one 16-byte vector of " +
                     (sizeof(V) == 8 ? "double" : "float") + "), got " + std::to_string(rpt));
  return static_cast<int>(rpt);
}

ParamSpec ell_rows_per_thread_spec() {
  return int_choice("rows_per_thread", "auto", {1, 2, 4},
                    "rows a thread takes: 1, or one 16-byte vector of values (2 for f64, 4 for "
                    "f32); auto: the vector")
      .or_auto()
      .cuda();
}

ParamSpec ell_skip_spec() {
  return enum_param("skip", "auto", {"auto", "sentinel", "row_length"},
                    "how padding is skipped: sentinel columns, or the stored row lengths")
      .cuda();
}

ParamSpec ell_index_bits_spec() {
  return enum_param("index_bits", "auto", {"auto", "16", "32"},
                    "column index width: 16-bit deltas from a 32-row group's base, or 32-bit")
      .cuda();
}

std::vector<ParamSpec> ell_pass_params() {
  return {ell_rows_per_thread_spec(), ell_skip_spec(), ell_index_bits_spec()};
}

#define SPMVKIT_INSTANTIATE(V)                                                                  \
  template std::vector<index_t> row_lengths(const Csr<V>&);                                     \
  template EllData<V> ell_pack(const Csr<V>&, index_t);                                         \
  template std::size_t ell_pass_bytes<V>(const EllGroupMaxima&, EllSkip, bool);                 \
  template EllSkip ell_choose_skip<V>(const EllGroupMaxima&, bool);                             \
  template std::optional<ColumnDeltas> ell_column_deltas(const EllData<V>&);                    \
  template std::optional<ColumnDeltas> ell_choose_deltas(const EllData<V>&, std::optional<int>, \
                                                         Backend, const std::string&);          \
  template int ell_rows_per_thread_param<V>(const Params&, const std::string&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
