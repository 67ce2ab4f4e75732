// SELL-P host construction: the parameter rule, sorting, packing, the byte model, the builder.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "formats/sellp/sellp.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/device_csr.hpp"
#include "formats/sellp/sellp_cuda.hpp"
#include "backend/cuda/build_profile.hpp"
#endif
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

constexpr std::int64_t sector_bytes = 32;

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }
// The same for threads_per_row, a power of two wherever it was validated: a mask, not a 64-bit
// division (~1.7 ns a row on a slow host, most of the rule's pass over a small matrix's rows).
std::int64_t round_up_pow2(std::int64_t v, std::int64_t m) {
  return (m & (m - 1)) == 0 ? (v + m - 1) & ~(m - 1) : round_up(v, m);
}

bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

// Sectors of `group` consecutive slots holding at least one entry (column index >= 0).
std::int64_t used_sectors(const std::vector<index_t>& col, std::int64_t group) {
  const auto n = static_cast<std::int64_t>(col.size());
  const std::int64_t sectors = (n + group - 1) / group;
  std::int64_t used = 0;
#pragma omp parallel for schedule(static) reduction(+ : used)
  for (std::int64_t g = 0; g < sectors; ++g) {
    const std::int64_t end = std::min(n, (g + 1) * group);
    bool any = false;
    for (std::int64_t k = g * group; k < end && !any; ++k) any = col[k] >= 0;
    used += any;
  }
  return used;
}

}  // namespace

std::vector<index_t> sellp_sort_order(const std::vector<index_t>& lengths, index_t sigma) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  std::vector<index_t> perm(lengths.size());
  if (sigma <= 1) {
    std::iota(perm.begin(), perm.end(), index_t{0});
    return perm;
  }
  const std::int64_t windows = (rows + sigma - 1) / sigma;
  // A window's rows longest first, ties in row order: a counting sort where the lengths span
  // at most 4 sigma values (O(sigma) a window), else a stable sort. Where they span more than
  // kShortKeys values but few rows (at most one in 8) are longer than the shortest + kShortKeys
  // - 1, those few are stably sorted apart and placed first, and only the rest counted (rajat01:
  // 1,442 lengths, 8 rows past 256 of 6,833: the counts' clearing and scan had cost more than
  // the rows).
  constexpr index_t kShortKeys = 256;
  const auto sort_window = [&](std::int64_t w, std::vector<std::int64_t>& count) {
    const std::int64_t begin = w * sigma, end = std::min(rows, (w + 1) * sigma);
    const auto [lo_it, hi_it] =
        std::minmax_element(lengths.begin() + begin, lengths.begin() + end);
    const index_t lo = *lo_it, hi = *hi_it;
    const auto by_length = [&](index_t a, index_t b) { return lengths[a] > lengths[b]; };
    if (static_cast<std::int64_t>(hi) - lo > 4 * (end - begin)) {
      std::iota(perm.begin() + begin, perm.begin() + end, static_cast<index_t>(begin));
      std::stable_sort(perm.begin() + begin, perm.begin() + end, by_length);
      return;
    }
    const std::int64_t n = end - begin;
    const index_t* len = lengths.data() + begin;
    // top: the longest length counted (rows longer are placed apart, first); at0: where the
    // counted rows start. The rows apart are gathered into the window's head in one pass that
    // gives up past n / 8 of them (the head is then overwritten by the count).
    index_t top = hi;
    std::int64_t at0 = begin;
    if (hi - lo >= kShortKeys) {
      const index_t cap = lo + kShortKeys - 1;
      index_t* apart = perm.data() + begin;
      const index_t* const most = apart + n / 8;
      for (std::int64_t i = 0; i < n && apart <= most; ++i)
        if (len[i] > cap) *apart++ = static_cast<index_t>(begin + i);
      if (apart <= most) {
        std::stable_sort(perm.data() + begin, apart, by_length);
        top = cap;
        at0 = apart - perm.data();
      }
    }
    // The window in 4 parts of consecutive rows, each with its own counts: part p's
    // count[p][k] the rows of key k = top - L in it, then (scanned in key order, part order
    // within a key) where its first row of key k goes. The parts' rows are placed side by side:
    // independent chains of count increments instead of one (consecutive rows of one length
    // each waited for the previous increment's store). One part where the keys outnumber a
    // quarter of the rows (the counts' clearing and scan would cost more than the chains).
    // Rows longer than top (placed apart above) are passed over.
    const auto keys = static_cast<std::size_t>(top - lo) + 1;
    const auto key = [&](std::int64_t i) { return static_cast<std::size_t>(top - len[i]); };
    const auto place = [&](auto parts_constant) {
      constexpr int parts = decltype(parts_constant)::value;
      const std::int64_t part = (n + parts - 1) / parts;
      count.assign(keys * parts, 0);
      std::int64_t* c[parts];
      for (int q = 0; q < parts; ++q) c[q] = count.data() + keys * static_cast<std::size_t>(q);
      for (std::int64_t i = 0; i < part; ++i)
        for (int q = 0; q < parts; ++q)
          if (const std::int64_t j = q * part + i; j < n && len[j] <= top) ++c[q][key(j)];
      std::int64_t at = at0;
      for (std::size_t k = 0; k < keys; ++k)
        for (int q = 0; q < parts; ++q) {
          const std::int64_t rows_here = c[q][k];
          c[q][k] = at;
          at += rows_here;
        }
      for (std::int64_t i = 0; i < part; ++i)
        for (int q = 0; q < parts; ++q)
          if (const std::int64_t j = q * part + i; j < n && len[j] <= top)
            perm[static_cast<std::size_t>(c[q][key(j)]++)] = static_cast<index_t>(begin + j);
    };
    if (keys <= static_cast<std::size_t>(n / 4))
      place(std::integral_constant<int, 4>{});
    else
      place(std::integral_constant<int, 1>{});
  };
  std::vector<std::int64_t> count;
  if (rows <= 65536) {
    for (std::int64_t w = 0; w < windows; ++w) sort_window(w, count);
    return perm;
  }
#pragma omp parallel for schedule(dynamic, 1) firstprivate(count)
  for (std::int64_t w = 0; w < windows; ++w) sort_window(w, count);
  return perm;
}

namespace {

// The slots of a window of n row lengths sorted longest first, in slices of b rows: b *
// round_up(the (q b)-th longest, t) for each slice q. Counted (no sort) where the lengths span
// at most 4n values, the common case: the rule's windows cost O(n) each on a small matrix's
// build path (a sort of 6,833 lengths in windows of 512 had taken ~140 us on one core).
std::int64_t sorted_window_slots(const index_t* len, std::int64_t n, std::int64_t b,
                                 std::int64_t t, std::vector<std::int64_t>& count) {
  const auto [lo_it, hi_it] = std::minmax_element(len, len + n);
  const index_t lo = *lo_it, hi = *hi_it;
  std::int64_t slots = 0;
  if (static_cast<std::int64_t>(hi) - lo > 4 * n) {
    std::vector<index_t> sorted(len, len + n);
    std::sort(sorted.begin(), sorted.end(), std::greater<index_t>());
    for (std::int64_t q = 0; q < n; q += b) slots += b * round_up_pow2(sorted[q], t);
    return slots;
  }
  count.assign(static_cast<std::size_t>(hi - lo) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) ++count[static_cast<std::size_t>(len[i] - lo)];
  std::int64_t seen = 0, next = 0;  // rows at least as long as L; the next slice's first row
  for (index_t l = hi; l >= lo && next < n; --l) {
    seen += count[static_cast<std::size_t>(l - lo)];
    for (; next < seen; next += b) slots += b * round_up_pow2(l, t);
  }
  return slots;
}

}  // namespace

std::int64_t sellp_slots(const std::vector<index_t>& lengths, const SellpConfig& c) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  const std::int64_t b = c.slice_size, t = c.threads_per_row;
  // A window of sigma rows (a multiple of b) holds whole slices, so sorting each window and
  // taking every b-th length gives the slice widths. Unsorted: windows of one slice.
  if (b == 1) {  // slices of one row, whatever the order: the t-rounded lengths
    std::int64_t slots = 0;
    for (index_t l : lengths) slots += round_up_pow2(l, t);
    return slots;
  }
  const std::int64_t window = c.sigma > 1 ? c.sigma : b;
  const std::int64_t windows = (rows + window - 1) / window;
  const auto window_slots = [&](std::int64_t w, std::vector<std::int64_t>& count) {
    const std::int64_t begin = w * window, end = std::min(rows, begin + window);
    if (c.sigma > 1) return sorted_window_slots(lengths.data() + begin, end - begin, b, t, count);
    return b * round_up_pow2(*std::max_element(lengths.begin() + begin, lengths.begin() + end), t);
  };
  std::int64_t slots = 0;
  std::vector<std::int64_t> count;
  if (rows <= 65536) {  // one thread: waking others costs more than the count
    for (std::int64_t w = 0; w < windows; ++w) slots += window_slots(w, count);
    return slots;
  }
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : slots) firstprivate(count)
  for (std::int64_t w = 0; w < windows; ++w) slots += window_slots(w, count);
  return slots;
}

namespace {

// sellp_slots of sorted configurations of one slice size b and t whose windows nest (each
// sigma a multiple of the first, or holding every row), in one pass: each row length's rank
// among the distinct lengths counted into its smallest window, a window's counts added into
// the windows of the larger sigmas that hold it, each window's slices read off its counts
// (longest first). The rule's three windows over a small matrix's rows had cost three counting
// passes (~35 us of rajat01's 6,833 rows on one core, twice that on the H100 machine's host).
// False (nothing counted) where the windows do not nest or a row is too long for the ranks.
// With `keep`, the first windows' counts are kept there too (SellpWindowCounts), where they are
// at most about four times the rows.
bool nested_sorted_slots(const std::vector<index_t>& lengths, int b, int t,
                         const std::vector<index_t>& sigmas, std::vector<std::int64_t>& slots,
                         SellpWindowCounts* keep = nullptr) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  if (sigmas.empty() || rows == 0) return false;
  for (std::size_t k = 0; k < sigmas.size(); ++k)
    if (sigmas[k] <= 1 || sigmas[k] % b != 0 || (k > 0 && sigmas[k] <= sigmas[k - 1]) ||
        (sigmas[k] % sigmas[0] != 0 && sigmas[k] < rows))
      return false;
  const index_t longest = *std::max_element(lengths.begin(), lengths.end());
  if (longest > 4 * rows + 64) return false;
  // Ranks of the distinct lengths (ascending), and their values.
  std::vector<index_t> rank(static_cast<std::size_t>(longest) + 1, -1), value;
  for (index_t l : lengths) rank[static_cast<std::size_t>(l)] = 0;
  for (index_t l = 0; l <= longest; ++l)
    if (rank[static_cast<std::size_t>(l)] == 0) {
      rank[static_cast<std::size_t>(l)] = static_cast<index_t>(value.size());
      value.push_back(l);
    }
  const std::size_t d = value.size();
  const std::size_t levels = sigmas.size();
  std::vector<std::vector<std::int64_t>> count(levels, std::vector<std::int64_t>(d, 0));
  slots.assign(levels, 0);
  const std::int64_t first_windows = (rows + sigmas[0] - 1) / sigmas[0];
  if (keep && static_cast<std::int64_t>(d) * first_windows > 4 * rows + 4096) keep = nullptr;
  if (keep) {
    keep->rows = rows;
    keep->window = sigmas[0];
    keep->distinct = static_cast<std::int64_t>(d);
    keep->counts.resize(d * static_cast<std::size_t>(first_windows));
  }
  // A window's slices, longest rows first: b * round_up(the (q b)-th longest, t) for each q.
  const auto read_off = [&](const std::vector<std::int64_t>& c, std::int64_t n) {
    std::int64_t total = 0, seen = 0, next = 0;
    for (std::size_t r = d; r-- > 0 && next < n;) {
      seen += c[r];
      for (; next < seen; next += b) total += std::int64_t{b} * round_up_pow2(value[r], t);
    }
    return total;
  };
  const std::int64_t s0 = sigmas[0];
  // A window's rows counted in 4 interleaved histograms, then summed: consecutive rows of one
  // length (most of a sparse matrix's) increment different counters instead of each waiting
  // for the previous increment's store.
  std::vector<std::int64_t> parts(4 * d);
  for (std::int64_t begin = 0; begin < rows; begin += s0) {
    const std::int64_t end = std::min(rows, begin + s0);
    std::vector<std::int64_t>& c0 = count[0];
    std::fill(parts.begin(), parts.end(), 0);
    const auto rank_of = [&](std::int64_t r) {
      return static_cast<std::size_t>(
          rank[static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])]);
    };
    std::int64_t r = begin;
    for (; r + 4 <= end; r += 4)
      for (std::size_t q = 0; q < 4; ++q)
        ++parts[q * d + rank_of(r + static_cast<std::int64_t>(q))];
    for (; r < end; ++r) ++parts[rank_of(r)];
    for (std::size_t v = 0; v < d; ++v)
      c0[v] = parts[v] + parts[d + v] + parts[2 * d + v] + parts[3 * d + v];
    if (keep)
      std::copy(c0.begin(), c0.end(),
                keep->counts.begin() + static_cast<std::ptrdiff_t>(begin / s0 * d));
    slots[0] += read_off(c0, end - begin);
    for (std::size_t k = 1; k < levels; ++k) {
      std::vector<std::int64_t>& ck = count[k];
      for (std::size_t r = 0; r < d; ++r) ck[r] += c0[r];
      // The level-k window that holds this one ends here: read it off and start the next.
      const std::int64_t sk = sigmas[k];
      const std::int64_t window_begin = begin / sk * sk;
      if (end == rows || end == window_begin + sk) {
        slots[k] += read_off(ck, end - window_begin);
        std::fill(ck.begin(), ck.end(), 0);
      }
    }
  }
  if (keep) keep->rank = std::move(rank);
  return true;
}

}  // namespace

SellpRowCounts sellp_row_counts(const std::vector<index_t>& lengths) {
  SellpRowCounts n;
  n.rows = static_cast<std::int64_t>(lengths.size());
  for (index_t l : lengths) n.nnz += l;
  // The rule asks for its chosen configuration again (the fill check): counted once.
  using Known = std::map<std::tuple<int, int, index_t>, std::int64_t>;
  auto known = std::make_shared<Known>();
  const auto key = [](const SellpConfig& c) {
    return std::make_tuple(c.slice_size, c.threads_per_row, c.sigma);
  };
  // Slices of one row a thread: every slot holds an entry (the rule's lower bound for t = 1).
  (*known)[key(SellpConfig{1, 1, 1})] = n.nnz;
  n.slots = [&lengths, known, key](const SellpConfig& c) {
    const auto it = known->find(key(c));
    return it != known->end() ? it->second : (*known)[key(c)] = sellp_slots(lengths, c);
  };
  // The sorted windows the rule asks for together, where they nest, in one pass; their first
  // windows' counts kept for the layout.
  auto windows = std::make_shared<SellpWindowCounts>();
  n.windows = windows;
  n.prefetch = [&lengths, known, key, windows](const std::vector<SellpConfig>& asked) {
    if (asked.size() < 2 || lengths.size() > 65536) return;  // past it sellp_slots is parallel
    std::vector<index_t> sigmas;
    for (const SellpConfig& c : asked) {
      if (c.sigma <= 1 || c.slice_size != asked[0].slice_size ||
          c.threads_per_row != asked[0].threads_per_row || known->count(key(c)))
        return;
      sigmas.push_back(c.sigma);
    }
    std::vector<std::int64_t> slots;
    if (!nested_sorted_slots(lengths, asked[0].slice_size, asked[0].threads_per_row, sigmas, slots,
                             windows.get()))
      return;
    for (std::size_t k = 0; k < asked.size(); ++k) (*known)[key(asked[k])] = slots[k];
  };
  return n;
}

index_t sellp_choose_sigma(const SellpRowCounts& n, int slice_size, int threads_per_row) {
  const std::int64_t rows = n.rows;
  // The windows tried: 8, 64 and 512 slices, up to the first that holds every row.
  std::vector<index_t> sigmas;
  for (std::int64_t m : {8, 64, 512}) {
    const std::int64_t sigma = std::min<std::int64_t>(m * slice_size, round_up(rows, slice_size));
    sigmas.push_back(static_cast<index_t>(sigma));
    if (sigma >= rows) break;
  }
  SellpConfig c{slice_size, threads_per_row, 1};
  // The rule's two questions, each told before it is asked (prefetch).
  if (n.prefetch) n.prefetch({SellpConfig{1, threads_per_row, 1}, c});
  // No sorting can pad below the t-rounded row lengths: slices of one row.
  const std::int64_t lower = n.slots(SellpConfig{1, threads_per_row, 1});
  const std::int64_t unsorted = n.slots(c);
  if (lower == 0 || static_cast<double>(unsorted) <= 1.05 * static_cast<double>(lower)) return 1;
  if (n.prefetch) {
    std::vector<SellpConfig> asked;
    for (index_t sigma : sigmas) asked.push_back(SellpConfig{slice_size, threads_per_row, sigma});
    n.prefetch(asked);
  }
  std::vector<std::pair<index_t, std::int64_t>> candidates;
  for (index_t sigma : sigmas) {
    c.sigma = sigma;
    candidates.emplace_back(c.sigma, n.slots(c));
  }
  std::int64_t best = unsorted;
  for (const auto& [sigma, slots] : candidates) best = std::min(best, slots);
  const double good_enough = 1.05 * static_cast<double>(best);
  if (static_cast<double>(unsorted) <= good_enough) return 1;
  for (const auto& [sigma, slots] : candidates)
    if (static_cast<double>(slots) <= good_enough) return sigma;
  return candidates.back().first;
}

SellpConfig sellp_default_config(const SellpRowCounts& n) {
  SellpConfig c;
  if (n.rows == 0) return c;
  const double mean = static_cast<double>(n.nnz) / static_cast<double>(n.rows);
  int t = 1;
  while (t < 32 && 2.0 * t <= mean / 16.0) t *= 2;
  c.threads_per_row = t;
  c.slice_size = std::clamp(256 / t, 8, 32);
  c.sigma = sellp_choose_sigma(n, c.slice_size, c.threads_per_row);
  return c;
}

namespace {

// The sorted layout's permutation and slice-order lengths placed from the rule's window counts:
// rows of window W (sigma rows, or all) longest first, within one length in row order, so the
// rows of first window i (c.window rows) with rank r start after every longer row of W and
// after the rank-r rows of W's earlier first windows. One pass over the rows, four first
// windows at a time (each with its own cursors: consecutive rows of one length would otherwise
// each wait for the previous cursor's store).
void place_sorted(const std::vector<index_t>& lengths, index_t sigma, const SellpWindowCounts& c,
                  std::vector<index_t>& perm, std::vector<index_t>& row_length) {
  const std::int64_t rows = c.rows, w0 = c.window, d = c.distinct;
  const std::int64_t first_windows = (rows + w0 - 1) / w0;
  const std::int64_t per = sigma >= rows ? first_windows : sigma / w0;  // first windows a window
  std::vector<std::int64_t> at(c.counts.size());
  for (std::int64_t i0 = 0; i0 < first_windows; i0 += per) {
    const std::int64_t i1 = std::min(first_windows, i0 + per);
    std::int64_t next = i0 * w0;
    for (std::int64_t r = d; r-- > 0;)
      for (std::int64_t i = i0; i < i1; ++i) {
        const auto k = static_cast<std::size_t>(i * d + r);
        at[k] = next;
        next += c.counts[k];
      }
  }
  const index_t* rank = c.rank.data();
  const auto place = [&](std::int64_t row, std::int64_t* cursor) {  // cursor: row's window's
    const index_t l = lengths[static_cast<std::size_t>(row)];
    const auto p = static_cast<std::size_t>(cursor[rank[l]]++);
    perm[p] = static_cast<index_t>(row);
    row_length[p] = l;
  };
  const auto cursors = [&](std::int64_t window) { return at.data() + window * d; };
  std::int64_t i = 0;
  for (; (i + 4) * w0 <= rows; i += 4) {  // four whole first windows side by side
    std::int64_t* cursor[4] = {cursors(i), cursors(i + 1), cursors(i + 2), cursors(i + 3)};
    for (std::int64_t k = 0; k < w0; ++k)
      for (std::int64_t q = 0; q < 4; ++q) place((i + q) * w0 + k, cursor[q]);
  }
  for (; i * w0 < rows; ++i)
    for (std::int64_t row = i * w0; row < std::min(rows, (i + 1) * w0); ++row)
      place(row, cursors(i));
}

}  // namespace

SellpSlices sellp_slices(const std::vector<index_t>& lengths, const SellpConfig& config,
                         const SellpWindowCounts* counts) {
  SellpSlices s;
  const auto rows = static_cast<std::int64_t>(lengths.size());
  const std::int64_t b = config.slice_size, t = config.threads_per_row;
  s.slices = static_cast<index_t>((rows + b - 1) / b);
  s.row_length.assign(static_cast<std::size_t>(std::int64_t{s.slices} * b), 0);
  // Slices lie inside sorting windows (sigma is a multiple of b): a slice's longest row is its
  // first once its windows are sorted.
  const bool sorted = config.sigma > 1 && config.sigma % b == 0;
  if (sorted && counts && counts->window > 0 && counts->rows == rows && rows > 0 &&
      (config.sigma % counts->window == 0 || config.sigma >= rows)) {
    s.perm.resize(static_cast<std::size_t>(rows));
    place_sorted(lengths, config.sigma, *counts, s.perm, s.row_length);
  } else {
    if (config.sigma > 1) s.perm = sellp_sort_order(lengths, config.sigma);
    for (std::int64_t p = 0; p < rows; ++p)
      s.row_length[static_cast<std::size_t>(p)] = lengths[static_cast<std::size_t>(
          s.perm.empty() ? p : s.perm[static_cast<std::size_t>(p)])];
  }
  s.slice_chunks.assign(static_cast<std::size_t>(s.slices), 0);
  s.slice_ptr.assign(static_cast<std::size_t>(s.slices) + 1, 0);
  for (index_t sl = 0; sl < s.slices; ++sl) {
    const auto first = s.row_length.begin() + std::int64_t{sl} * b;
    const index_t longest = sorted ? *first : *std::max_element(first, first + b);
    s.slice_chunks[static_cast<std::size_t>(sl)] = static_cast<index_t>((longest + t - 1) / t);
    s.slice_ptr[static_cast<std::size_t>(sl) + 1] =
        s.slice_ptr[static_cast<std::size_t>(sl)] +
        std::int64_t{s.slice_chunks[static_cast<std::size_t>(sl)]} * b * t;
  }
  return s;
}

template <class V>
SellpData<V> sellp_pack(const Csr<V>& a, const SellpConfig& config,
                        const SellpWindowCounts* windows) {
  SellpData<V> s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.config = config;
  const std::int64_t b = config.slice_size;
  SellpSlices layout = sellp_slices(row_lengths(a), config, windows);
  s.slices = layout.slices;
  s.perm = std::move(layout.perm);
  s.row_length = std::move(layout.row_length);
  s.slice_chunks = std::move(layout.slice_chunks);
  s.slice_ptr = std::move(layout.slice_ptr);
  s.col_idx.resize(static_cast<std::size_t>(s.padded_slots()));
  s.values.resize(static_cast<std::size_t>(s.padded_slots()));
#pragma omp parallel for schedule(dynamic, 64)
  for (index_t sl = 0; sl < s.slices; ++sl) {
    std::fill(s.col_idx.begin() + s.slice_ptr[sl], s.col_idx.begin() + s.slice_ptr[sl + 1], -1);
    std::fill(s.values.begin() + s.slice_ptr[sl], s.values.begin() + s.slice_ptr[sl + 1], V(0));
    for (index_t i = 0; i < b; ++i) {
      const std::int64_t p = sl * b + i;
      if (p >= a.rows) break;
      const index_t r = s.user_row(static_cast<index_t>(p));
      const index_t begin = a.row_ptr[r];
      for (index_t j = 0; j < s.row_length[p]; ++j) {
        const std::size_t k = s.slot(sl, i, j);
        s.col_idx[k] = a.col_idx[begin + j];
        s.values[k] = a.values[begin + j];
      }
    }
  }
  s.stored = a.nnz();
  return s;
}

template <class V>
SellpFootprint sellp_footprint(const SellpData<V>& s) {
  SellpFootprint f;
  f.config = s.config;
  f.slices = s.slices;
  f.padded_slots = s.padded_slots();
  f.positions = static_cast<std::int64_t>(s.row_length.size());
  f.perm_rows = static_cast<std::int64_t>(s.perm.size());
  f.used_groups_4 = used_sectors(s.col_idx, 4);
  f.used_groups_8 = used_sectors(s.col_idx, 8);
  f.used_groups_16 = used_sectors(s.col_idx, 16);
  f.used_chunks =
      used_sectors(s.col_idx, static_cast<std::int64_t>(s.config.slice_size) *
                                  s.config.threads_per_row);
  return f;
}

SellpFootprint sellp_footprint(const SellpSlices& layout, const SellpConfig& config) {
  SellpFootprint f;
  f.config = config;
  f.slices = layout.slices;
  f.padded_slots = layout.slice_ptr.empty() ? 0 : layout.slice_ptr.back();
  f.positions = static_cast<std::int64_t>(layout.row_length.size());
  f.perm_rows = static_cast<std::int64_t>(layout.perm.size());
  const std::int64_t b = config.slice_size, t = config.threads_per_row, group = b * t;
  const std::vector<index_t>& len = layout.row_length;
  // b and t are powers of two: shifts.
  const auto log2 = [](std::int64_t v) {
    int k = 0;
    while ((std::int64_t{1} << k) < v) ++k;
    return k;
  };
  const int t_bits = log2(t);
  std::int64_t* used[3] = {&f.used_groups_4, &f.used_groups_8, &f.used_groups_16};
  // t = 1 and slices of 32 rows or more: every group size takes whole rows (4, 8, 16 of them,
  // within a slice), the sums of their longest: ELL's group maxima over the slice order's
  // lengths, in one pass (the loop below makes three).
  const bool whole_rows_at_once = t == 1 && group >= 32;
  if (whole_rows_at_once) {
    const EllGroupMaxima g = ell_group_maxima(len, static_cast<index_t>(len.size()),
                                              std::numeric_limits<index_t>::max());
    f.used_groups_4 = g.of(4);
    f.used_groups_8 = g.of(8);
    f.used_groups_16 = g.of(16);
  }
  for (int k = 0; k < 3 && !whole_rows_at_once; ++k) {
    const int g_bits = 2 + k;
    const std::int64_t g = std::int64_t{1} << g_bits;
    std::int64_t n = 0;
    if (group <= g) {  // whole chunks, each holding an entry of its slice's longest row
      n = (f.padded_slots + g - 1) >> g_bits;
    } else if (g <= t) {
      for (const index_t l : len) n += (std::int64_t{l} + g - 1) >> g_bits;
    } else {  // r = g / t whole rows of a chunk (r divides b: both powers of two)
      const std::size_t r = static_cast<std::size_t>(g >> t_bits);
      for (std::size_t p = 0; p < len.size(); p += r) {
        index_t longest = 0;
        for (std::size_t q = p; q < p + r; ++q) longest = std::max(longest, len[q]);
        n += (std::int64_t{longest} + t - 1) >> t_bits;
      }
    }
    *used[k] = n;
  }
  for (const index_t c : layout.slice_chunks) f.used_chunks += c;
  return f;
}

template <class V>
std::size_t sellp_bytes(const SellpFootprint& f, EllSkip skip, bool deltas) {
  // Groups of 32 / sizeof(element) slots are the 32-byte sectors of an array of that element.
  const auto used = [&f](std::size_t element_bytes) {
    return element_bytes == 8 ? f.used_groups_4
                              : element_bytes == 4 ? f.used_groups_8 : f.used_groups_16;
  };
  const std::int64_t indices_per_sector =
      sector_bytes / (deltas ? sizeof(std::uint16_t) : sizeof(index_t));
  std::int64_t sectors = used(sizeof(V));
  if (skip == EllSkip::sentinel)
    sectors += (f.padded_slots + indices_per_sector - 1) / indices_per_sector;
  else
    sectors += used(deltas ? sizeof(std::uint16_t) : sizeof(index_t));
  std::int64_t bytes = sectors * sector_bytes;
  if (deltas) {
    const std::int64_t chunk =
        static_cast<std::int64_t>(f.config.slice_size) * f.config.threads_per_row;
    const std::int64_t chunks = f.padded_slots / chunk;
    bytes += skip == EllSkip::sentinel
                 ? (chunks * 4 + sector_bytes - 1) / sector_bytes * sector_bytes
                 : f.used_chunks * static_cast<std::int64_t>(sizeof(index_t));
  }
  bytes += static_cast<std::int64_t>(f.slices) * (sizeof(std::int64_t) + sizeof(index_t));
  if (skip == EllSkip::row_length) bytes += f.positions * static_cast<std::int64_t>(sizeof(index_t));
  bytes += f.perm_rows * static_cast<std::int64_t>(sizeof(index_t));
  return static_cast<std::size_t>(bytes);
}

template <class V>
EllSkip sellp_choose_skip(const SellpFootprint& f, bool deltas) {
  return sellp_bytes<V>(f, EllSkip::sentinel, deltas) <=
                 sellp_bytes<V>(f, EllSkip::row_length, deltas)
             ? EllSkip::sentinel
             : EllSkip::row_length;
}

template <class V>
std::size_t sellp_bytes(const SellpData<V>& s, EllSkip skip, bool deltas) {
  return sellp_bytes<V>(sellp_footprint(s), skip, deltas);
}

template <class V>
EllSkip sellp_choose_skip(const SellpData<V>& s, bool deltas) {
  return sellp_choose_skip<V>(sellp_footprint(s), deltas);
}

template <class V>
std::optional<ColumnDeltas> sellp_column_deltas(const SellpData<V>& s) {
  const std::int64_t chunk =
      static_cast<std::int64_t>(s.config.slice_size) * s.config.threads_per_row;
  const std::int64_t chunks = s.padded_slots() / chunk;
  ColumnDeltas d;
  d.base.assign(static_cast<std::size_t>(chunks), 0);
  d.delta.resize(s.col_idx.size());
  bool fit = true;
#pragma omp parallel for schedule(static) reduction(&& : fit)
  for (std::int64_t q = 0; q < chunks; ++q) {
    if (!fit) continue;
    index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
    for (std::int64_t k = q * chunk; k < (q + 1) * chunk; ++k) {
      const index_t c = s.col_idx[k];
      if (c >= 0) {
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
    }
    if (hi >= 0 && static_cast<std::int64_t>(hi) - lo > delta_max_span) {
      fit = false;
      continue;
    }
    const index_t base = hi >= 0 ? lo : 0;
    d.base[q] = base;
    for (std::int64_t k = q * chunk; k < (q + 1) * chunk; ++k) {
      const index_t c = s.col_idx[k];
      d.delta[k] = c >= 0 ? static_cast<std::uint16_t>(c - base) : delta_padding;
    }
  }
  if (!fit) return std::nullopt;
  return d;
}

namespace {

// The parameters and the configuration, chosen once from the row lengths for the host and the
// device builds.
struct SellpChoices {
  double max_fill = 64.0;
  std::optional<EllSkip> skip;
  std::optional<int> index_bits;
  SellpConfig config;
  std::int64_t slots = 0;  // config's (sellp_slots)
  double fill = 1.0;

  SellpChoices(const Params& p, const SellpRowCounts& rows)
      : max_fill(p.get_double("max_fill", 64.0)),
        skip(ell_skip_param(p, "sellp")),
        index_bits(index_bits_param(p, "sellp")) {
    if (!std::isfinite(max_fill) || max_fill < 1.0)
      throw InputError("sellp: max_fill must be a finite number >= 1, got " +
                       p.get_string("max_fill", ""));
    SellpConfig& c = config;
    c = sellp_default_config(rows);
    if (p.has("slice_size")) {
      const long long v = p.get_int("slice_size", c.slice_size);
      if (!is_pow2(v) || v > 1024)
        throw InputError("sellp: slice_size must be a power of two in 1..1024, got " +
                         std::to_string(v));
      c.slice_size = static_cast<int>(v);
    }
    if (p.has("threads_per_row")) {
      const long long v = p.get_int("threads_per_row", c.threads_per_row);
      if (!is_pow2(v) || v > 32)
        throw InputError("sellp: threads_per_row must be 1, 2, 4, 8, 16 or 32, got " +
                         std::to_string(v));
      c.threads_per_row = static_cast<int>(v);
    }
    if (static_cast<long long>(c.slice_size) * c.threads_per_row > 1024)
      throw InputError(
          "sellp: slice_size * threads_per_row must be at most 1024 (a thread block), "
          "got " +
          std::to_string(c.slice_size) + " * " + std::to_string(c.threads_per_row));
    if (p.has("sigma")) {
      const long long v = p.get_int("sigma", 1);
      if (v < 1 || v > 2147483647LL || (v > 1 && v % c.slice_size != 0))
        throw InputError("sellp: sigma must be 1 or a multiple of slice_size (" +
                         std::to_string(c.slice_size) + "), got " + std::to_string(v));
      c.sigma = static_cast<index_t>(v);
    } else if (p.has("slice_size") || p.has("threads_per_row")) {
      c.sigma = sellp_choose_sigma(rows, c.slice_size, c.threads_per_row);
    }

    const std::int64_t nnz = rows.nnz;
    slots = rows.slots(c);
    fill = nnz == 0 ? 1.0 : static_cast<double>(slots) / nnz;
    if (fill > max_fill) {
      std::ostringstream os;
      os << "sellp: slices of " << c.slice_size << " rows (sigma " << c.sigma
         << ") would store " << fill << "x the " << nnz << " nonzeros, over max_fill="
         << max_fill;
      throw UnsupportedError(os.str());
    }
  }

  // Whether 16-bit deltas are tried on CUDA (auto or 16).
  bool try_deltas() const { return index_bits != 32; }
  // index_bits=16 asked, the deltas do not fit.
  [[noreturn]] static void deltas_do_not_fit() {
    throw UnsupportedError(
        "sellp: index_bits=16 needs the columns of every chunk to span at "
        "most 65534");
  }

  template <class V>
  OperatorInfo info(index_t rows, index_t cols, std::int64_t nnz, const SellpFootprint& f,
                    EllSkip chosen, bool deltas, Backend b) const {
    std::ostringstream details;
    details.precision(3);
    details << "slice_size=" << config.slice_size << ",threads_per_row="
            << config.threads_per_row << ",sigma=" << config.sigma << ",fill=" << fill
            << ",skip=" << to_string(chosen);
    if (b == Backend::cuda) details << ",index_bits=" << (deltas ? 16 : 32);
    return OperatorInfo{rows, cols, nnz, sellp_bytes<V>(f, chosen, deltas),
                        b,    "sellp", details.str()};
  }
};

template <class V>
std::unique_ptr<Operator<V>> build_sellp(const Csr<V>& a, const Params& p, Backend b) {
  const std::vector<index_t> lengths = row_lengths(a);
  const SellpRowCounts counts = sellp_row_counts(lengths);
  const SellpChoices c(p, counts);
  SellpData<V> s = sellp_pack(a, c.config, counts.windows.get());
  std::optional<ColumnDeltas> deltas;  // the OpenMP kernel reads col_idx
  if (b == Backend::cuda && c.try_deltas()) {
    deltas = sellp_column_deltas(s);
    if (c.index_bits == 16 && !deltas) SellpChoices::deltas_do_not_fit();
  }
  const SellpFootprint f = sellp_footprint(s);
  const EllSkip skip = c.skip ? *c.skip : sellp_choose_skip<V>(f, deltas.has_value());
  OperatorInfo info = c.info<V>(a.rows, a.cols, a.nnz(), f, skip, deltas.has_value(), b);
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_sellp_cuda(s, skip, deltas ? &*deltas : nullptr, std::move(info));
#endif
  return make_sellp_cpu(std::move(s), std::move(info));
}

#if SPMVKIT_HAVE_CUDA
// The same operator from a CSR on the device: the configuration rule's slot counts, the
// permutation, slices, packing, delta fit and the byte model's counts made on the device
// (sellp_setup_cuda.cu); only the longest row, the rule's slot counts (on a small matrix the
// longest row and the first two counts in one download, the sorted ones in another) and the
// footprint's counts come to the host. A small matrix the registry uploaded plans all of it on
// the host's copy of its row pointer instead: no download.
template <class V>
std::unique_ptr<Operator<V>> build_sellp_device(const DeviceCsrView<V>& a, const Params& p) {
  cuda::build_phase("row_lengths");
  const SellpDeviceCounts counts = sellp_row_counts_device(a);
  cuda::build_phase("config_rule");
  const SellpChoices c(p, counts.rows);
  SellpDevice<V> s = sellp_pack_device(a, c.config, counts.longest(), c.slots, c.try_deltas(),
                                       counts.host_lengths.get(), counts.rows.windows.get());
  const bool deltas = s.index_bits == 16;
  if (c.index_bits == 16 && !deltas) SellpChoices::deltas_do_not_fit();
  const EllSkip skip = c.skip ? *c.skip : sellp_choose_skip<V>(s.footprint, deltas);
  OperatorInfo info = c.info<V>(a.rows, a.cols, a.nnz, s.footprint, skip, deltas, Backend::cuda);
  return make_sellp_cuda(std::move(s), skip, std::move(info));
}
#endif

}  // namespace

FormatEntry sellp_format() {
  FormatEntry e = make_format(
      "sellp",
      "SELL-P: slices of b rows, t threads a row, rows padded to a multiple of t, "
      "optional sorting window sigma",
      {int_choice("slice_size", "auto", {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024},
                  "rows a slice (b); slice_size * threads_per_row <= 1024; auto: from the row "
                  "lengths")
           .or_auto(),
       int_choice("threads_per_row", "auto", {1, 2, 4, 8, 16, 32},
                  "threads a row (t); rows padded to a multiple of it; auto: from the row lengths")
           .or_auto(),
       int_param("sigma", "auto", 1, 2147483647,
                 "sorting window: 1 (none) or a multiple of slice_size; auto: chosen with b and t")
           .or_auto(),
       real_param("max_fill", "64", 1, kNoLimit,
                  "refuse the matrix (unsupported) when slices store more than this many times "
                  "its nonzeros"),
       ell_skip_spec(), ell_index_bits_spec()},
      [](const auto& a, const Params& p, Backend b) { return build_sellp(a, p, b); });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) { return build_sellp_device(a, p); });
#endif
  return e;
}

#define SPMVKIT_INSTANTIATE(V)                                                                   \
  template SellpData<V> sellp_pack(const Csr<V>&, const SellpConfig&, const SellpWindowCounts*); \
  template SellpFootprint sellp_footprint(const SellpData<V>&);                                  \
  template std::size_t sellp_bytes<V>(const SellpFootprint&, EllSkip, bool);                     \
  template EllSkip sellp_choose_skip<V>(const SellpFootprint&, bool);                            \
  template std::size_t sellp_bytes(const SellpData<V>&, EllSkip, bool);                          \
  template EllSkip sellp_choose_skip(const SellpData<V>&, bool);                                 \
  template std::optional<ColumnDeltas> sellp_column_deltas(const SellpData<V>&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
