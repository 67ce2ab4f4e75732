// BSR (block sparse row) and balanced BSR, after Abdelfattah, Ltaief, Keyes, Dongarra,
// "Performance optimization of SpMV for multi-component PDE-based applications using GPUs"
// (papers/bsr-ksparse-multicomponent-pde.txt, "the BSR paper"): square dense bs x bs blocks, one
// column index per block, a block-row pointer; three CUDA kernels by block size (K1 small, K2
// medium, K3 large, sections 5.2-5.4), their tuning parameters (Table I) autotuned per device,
// and balanced BSR (section 5.5): block rows longer than lambda blocks split into segments
// whose partial results a reduction kernel sums.
//
// Registry names: `bsr` (balanced automatically when the block-row lengths call for it) and
// `bsr_balanced` (always balanced).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "formats/bsr/bsr_mapping.hpp"
#include "formats/common/bsr_blocks.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

FormatEntry bsr_format();
FormatEntry bsr_balanced_format();

// `spmvkit tune bsr` (bsr_tune.cpp): the autotuner over block sizes, its table and the lines
// for bsr_tuning_defaults.cpp. Options (bsr_tune_options()): block_sizes ("2,3,4-8"),
// precision (f64, f32, both), nnz (stored values a tuning matrix), reps, screen_reps, finalists,
// no_store, emit_defaults (a file).
std::vector<std::string> bsr_tune_options();
void tune_bsr(const Params& options, const std::vector<std::string>& matrices, std::ostream& out,
              std::ostream& log);

// --- Balanced BSR (paper 5.5) -----------------------------------------------------------------
// Block rows longer than lambda blocks are cut into ceil(len / lambda) segments of near-equal
// length (never more than lambda). The kernels treat segments as rows. A segment that is a whole
// block row writes z directly; the segments of a split block row write partial sums to slots
// of y_hat, and the reduction kernel adds the slots of each split row into z. (The paper sends
// every row through y_hat; keeping whole rows direct makes balanced BSR cost nothing on rows
// that are not split.)
struct BsrSegments {
  index_t lambda = 0;
  std::vector<index_t> segment_block_ptr{0};  // segments + 1: the new row pointer (paper Fig. 8b)
  std::vector<index_t> segment_out;           // per segment: its block row when it is the whole
                                              // row, else -(partial slot + 1)
  std::vector<index_t> split_rows;            // block rows cut into >= 2 segments
  std::vector<index_t> segment_ptr{0};        // split_rows + 1: the partial slots of each split
                                              // row (the paper's segPtr, for split rows only)
  index_t max_split = 0;                      // most segments of one split row

  index_t segments() const { return static_cast<index_t>(segment_out.size()); }
  index_t partial_slots() const { return segment_ptr.back(); }
};

BsrSegments make_bsr_segments(const std::vector<index_t>& block_row_ptr, index_t lambda);

// The cut of one block row of len blocks, shared by make_bsr_segments and the device builder
// (make_bsr_segments_device, bsr_cuda.hpp): its segments, and where segment q of n ends, in
// blocks from the row's first block (the first len % n segments one block longer).
SPMVKIT_BSR_HD index_t bsr_row_segments(index_t len, index_t lambda) {
  return len <= lambda ? 1 : (len + lambda - 1) / lambda;
}
SPMVKIT_BSR_HD index_t bsr_segment_end(index_t len, index_t n, index_t q) {
  const index_t longer = len % n;
  return (q + 1) * (len / n) + (q + 1 < longer ? q + 1 : longer);
}

struct BsrRowStats {
  index_t block_rows = 0;
  index_t max_len = 0;  // longest block row, in blocks
  double mean = 0;      // blocks per block row
  double cv = 0;        // coefficient of variation of the block-row lengths (std / mean)
};
BsrRowStats bsr_row_stats(const std::vector<index_t>& block_row_ptr);
// The same from the block-row lengths' sum, sum of squares (exact) and maximum (the device
// builder's, bsr_row_stats_device).
BsrRowStats bsr_row_stats(index_t block_rows, std::int64_t sum, std::int64_t sum2, index_t max_len);

// Rule for lambda: 16 (the paper's value) when blocks are big enough for 16 of them to be a
// warp's worth of loads (bs >= 5) and ordinary rows are short (mean <= 8 blocks); else 32, so
// that K1's warps (which read floor(32/bs^2) blocks per load) get several loads per segment
// and rows of ordinary length are not split.
index_t bsr_choose_lambda(int block_size, const BsrRowStats& stats);

// Rule for `bsr` balancing itself: the paper's balanced kernel pays on matrices with many short
// rows and a few very long ones (rajat22, shermanACb), and costs an extra kernel elsewhere. So:
// balanced when some block row is longer than 2 * lambda (it becomes >= 3 independent
// segments) and the block-row lengths vary widely, coefficient of variation >= 1 (a heavy
// tail: the longest rows would keep a few thread arrays busy long after the rest are done).
bool bsr_balance_pays(const BsrRowStats& stats, index_t lambda);

// Rule for K3 (a thread block a kernel row, or ceil(bs / nb) of them) where the matrix's blocks
// fill few waves of the device: `resident` thread blocks at once (SMs x K3's occupancy), w = 2 x
// (blocks x ceil(bs / nb)) / resident under kBsrK3FewWaves. There a thread block's walk of the
// longest block row is the whole SpMV's time, so block rows longer than kBsrK3SplitFrom blocks are
// split into segments of lambda = max(4, w rounded down to a power of two) blocks, where some row
// is longer than 2 lambda: the lambda returned (`bsr` balances itself; bsr_balanced takes it). On
// the H200's real matrices expanded at bs 16, 22 and 29 (96 with K3;
// bench/results/2026-11-29-h200x2-k3/U2, lambda 4-32 each measured) the 43 it moves took 0.59x
// their time under the rules above (geometric mean; 0.15x to 1.04x, watt_2 the least). nullopt
// where it does not apply (more waves, or no row long enough): the rules above decide.
inline constexpr double kBsrK3FewWaves = 32;
inline constexpr index_t kBsrK3SplitFrom = 16;
std::optional<index_t> bsr_k3_lambda(const BsrRowStats& stats, int block_size, int nb,
                                     std::int64_t resident);

// --- Kernels and their tuning parameters (paper Table I) ----------------------------------------
// k1/k2/k3: the paper's kernels. tma: ours, for Hopper and small blocks (bs <= 9): the paper's
// kernels read the block stream with thread loads and spend warp instructions on every block
// (K1 reduces each block row with a shuffle tree), which at bs = 2..4 caps them near 60-75% of
// the read ceiling on an H100. tma instead streams each tile of whole kernel rows (values, block
// columns, row pointers; about 16 KB) into shared memory with one bulk asynchronous copy (TMA,
// cp.async.bulk) while the previous tile is being multiplied, double-buffered, and lets
// threads (or a few lanes each) take output rows from shared memory. Rows longer than a tile
// are cut into segments (balanced BSR) first.
enum class BsrKernel { k1, k2, k3, tma };
const char* bsr_kernel_name(BsrKernel k);  // "k1", "k2", "k3", "tma"

// The tma kernel's tiles: at most tile_kb KB of block values (bsr_tma_tile_blocks blocks) and
// bsr_tma_tile_rows kernel rows (as many as blocks, at least 32: empty rows take a row slot
// and nothing else; at most 1024).
// whole=1 and whole=0 both take every bs up to this.
inline constexpr int kBsrTmaMaxBlockSize = 9;
// tma whole=2: a thread item takes this many consecutive rows of a block row (the last part
// of a block row may be shorter); 0 where whole=2 is not compiled (bs < 6: whole=1 fits its
// registers there). Between whole=0 (a block's x values read once per output row) and
// whole=1 (a thread's registers hold a whole block and its bs sums, 117-147 registers at
// bs 6-9 in double, too many for batching the x loads).
constexpr int bsr_tma_part_rows(int bs) {
  return bs == 6 || bs == 9 ? 3 : bs == 7 || bs == 8 ? 4 : 0;
}
// K3's widest thread-group slice (compiled instances: ept 1..8).
inline constexpr int kBsrK3MaxEpt = 8;
// tma whole=1 reads each block from shared memory in 16-byte chunks. When a block is 2, 4 or 8
// chunks (bs = 2 or 4 in double, 4 in float), blocks start on the same banks and the threads of
// a warp, which read the same chunk of different blocks at once, collide (8-way at bs = 4 in
// double). So the device copy for that kernel stores each block's chunks rotated: chunk j of
// block k at chunk (j + r) mod n, r = (k / (8 / n)) mod n, which spreads 8 neighbouring blocks
// over all 32 banks. Returns n (chunks a block), or 1 where no rotation applies.
constexpr int bsr_tma_rotation_chunks(int bs, int value_bytes) {
  const int bytes = bs * bs * value_bytes;
  const int n = bytes % 16 == 0 ? bytes / 16 : 0;
  return n == 2 || n == 4 || n == 8 ? n : 1;
}
constexpr int bsr_tma_rotation(std::int64_t block, int chunks) {
  return chunks > 1 ? static_cast<int>((block / (8 / chunks)) % chunks) : 0;
}
// m's values in that rotated order (a copy of them where bs has no rotation).
template <class V>
std::vector<V> bsr_tma_rotated_values(const Bsr<V>& m);
inline index_t bsr_tma_tile_blocks(int bs, int value_bytes, int tile_kb) {
  const index_t blocks = tile_kb * 1024 / value_bytes / (bs * bs);
  return blocks > 0 ? blocks : 1;
}
inline index_t bsr_tma_tile_rows(index_t tile_blocks) {
  return tile_blocks < 32 ? 32 : tile_blocks > 1024 ? 1024 : tile_blocks;
}
// Tile boundaries over the kernel rows of `row_ptr` (tiles + 1 entries, greedy: whole rows
// while they fit); empty when a row holds more than cap_blocks blocks.
std::vector<index_t> bsr_tma_tiles(const std::vector<index_t>& row_ptr, index_t cap_blocks,
                                   index_t cap_rows);

// Launch parameters of one kernel, chosen by choose_bsr_policy. Fields a kernel does not use are
// ignored by it.
struct BsrPolicy {
  BsrKernel kernel = BsrKernel::k2;
  int n_ta = 1;        // K1, K2: thread arrays per thread block (N_ta)
  int n_brows_ta = 1;  // K1, K2: consecutive block rows per thread array (N_brows_ta, <= 31)
  int n_tg = 1;        // K2, K3: thread groups (N_tg)
  int ilp = 1;         // K1: block rows in flight at once (independent load streams);
                       // K2: blocks per pipeline stage. Both double-buffered.
  int vec = 1;         // K2: block rows per thread = values per vector load (16 bytes at most)
  int pack = 0;        // K2: 1 = thread arrays back to back across warps; 0 = each padded to
                       // whole warps (the paper's layout, idle lanes when bs/vec*n_tg % 32 != 0)
  int nb = 1;          // K3: working-set height (threads along x)
  int ept = 1;         // K3: elements per thread (width of a thread group's vertical slice),
                       // 1..kBsrK3MaxEpt
  int stages = 2;      // tma: tiles in flight per thread block (buffers), 2..4
  int tile_kb = 16;    // tma: KB of block values per tile: 4, 8, 16, 32 or 48
  int threads = 256;   // tma: threads per thread block: 128, 256 or 512
  int whole = 0;       // tma: 1 = a thread item takes whole block rows (all bs output rows,
                       // x and blocks read as vectors); 0 = one output row; 2 = a part of
                       // bsr_tma_part_rows(bs) rows (bs 6..9), x read as vectors
  int lanes = 0;       // tma: threads that share an item (output row, or block row with whole=1),
                       // a power of two <= 32; 0 = chosen from the tile's rows
  std::string source = "rule";  // where it came from: rule | shipped | store, "+params"

  // "n_ta=..,n_brows_ta=.." with the fields of `kernel` only (the tuning store's value format).
  std::string to_params() const;
  // The kernel reads the device values in tma whole=1's rotated chunk order
  // (bsr_tma_rotation_chunks; a plain copy where bs has no rotation).
  bool reads_rotated_values() const { return kernel == BsrKernel::tma && whole == 1; }
};
// The names of BsrPolicy's kernel fields (the Params keys of every kernel together).
const std::vector<std::string>& bsr_policy_fields();

// Kernel by block size when nothing is tuned: the paper's ranges (K1 2..5, K2 5..45, K3 45+),
// with bs = 1 on K1 (a warp reads 32 1x1 blocks, i.e. CSR vector).
BsrKernel bsr_rule_kernel(int block_size);
// First-guess parameters for a kernel and block size (value_bytes: 4 float, 8 double).
BsrPolicy bsr_rule_policy(BsrKernel kernel, int block_size, int value_bytes);

// Rules for K2 on the matrix at hand, whose shipped parameters were tuned on reservoir matrices
// (~1e5 block rows of 7 blocks, cv ~0.06). Too few block rows to give every SM four thread
// blocks at one row an array: `tma()` (the device's tma policy, offered for bs 6-9 where K2 is
// the kernel; asked for only then) instead. On the H200's expansions of the 35 real matrices
// (bench/results/2026-11-29-h200x4-odd/T5) those took tma/K2 0.63x / 0.74x / 0.83x at bs 6 / 7 /
// 8 (geometric means of 32, 32, 27; at worst 1.30x), the rest 1.07x / 1.12x / 1.37x; at bs 4 tma
// took 1.03x on the few, so it is not offered there. Else, where the block rows vary (cv > 0.25)
// or are too few at the tuned rows an array (n_brows_ta), one row an array: faster on all 36
// expansions measured at bs 7, 8, 11 and 12 (H200, by up to 1.7x; T2), unless `rows_given`
// (explicit n_brows_ta). Either change adds "+rows" to the source.
inline constexpr double kBsrRegularRowsCv = 0.25;
inline constexpr int kBsrTmaFromRowsRule = 6;  // the smallest bs bsr_fit_rows offers tma at
BsrPolicy bsr_fit_rows(BsrPolicy policy, const BsrRowStats& stats, int sm_count,
                       const std::function<BsrPolicy()>& tma, bool rows_given);
// A kernel's parameters for a block size on `device`: the tuning store's, else the shipped
// defaults', else the rule's (choose_bsr_policy's, before explicit parameters).
BsrPolicy bsr_kernel_policy(const std::string& device, BsrKernel kernel, int block_size,
                            int value_bytes);

// InputError naming the first violated restriction (Table I, and this implementation's limits).
void validate_bsr_policy(const BsrPolicy& p, int block_size, int value_bytes);

// Tuning-store keys: the best parameters of a kernel ("bsr.k2.bs7.f64" -> "n_ta=4,...") and the
// best kernel for a block size ("bsr.bs7.f64" -> "kernel=k2").
std::string bsr_tuning_key(BsrKernel kernel, int block_size, int value_bytes);
std::string bsr_kernel_key(int block_size, int value_bytes);

// The shipped defaults (bsr_tuning_defaults.cpp): values for `key` measured on the device
// family of `device` ("H100", "H200", matched within the device name).
std::optional<std::string> bsr_shipped_default(const std::string& device, const std::string& key);

// Kernel and parameters for a block size on `device`. Order: explicit params (kernel, n_ta,
// n_brows_ta, n_tg, ilp, vec, nb, ept) > the tuning store (measured on this device) > the
// shipped defaults (this device family) > the rule. InputError on invalid explicit params;
// invalid stored or shipped entries are skipped.
BsrPolicy choose_bsr_policy(const std::string& device, int block_size, int value_bytes,
                            const Params& params);

// The pruned brute-force search space of a kernel (paper 5.7): Table I's restrictions, register
// budget, thread-block limits, and thread arrays less than half idle.
std::vector<BsrPolicy> bsr_tuning_candidates(BsrKernel kernel, int block_size, int value_bytes);

// Byte model: block values + block column indices + block row pointer, or for balanced BSR
// the segment pointer, segment targets, split rows and their segment pointer instead of the row
// pointer (the partial sums are scratch, not counted).
template <class V>
std::size_t bsr_matrix_bytes(const Bsr<V>& m, const BsrSegments* segments);
// The same from the shape (nnzb blocks of bs x bs, block_rows block rows).
template <class V>
std::size_t bsr_matrix_bytes(std::int64_t nnzb, int block_size, index_t block_rows,
                             const BsrSegments* segments);

// --- CPU (OpenMP) ------------------------------------------------------------------------------
// z = alpha*A*x + beta*y over block rows, or over segments plus the reduction when `segments`
// is given (`partials` then holds segments->partial_slots() * bs values of scratch).
template <class V>
void bsr_spmv_cpu(const Bsr<V>& m, const BsrSegments* segments, const V* x, const V* y, V* z,
                  V alpha, V beta, V* partials);

template <class V>
std::unique_ptr<Operator<V>> make_bsr_cpu(Bsr<V> m, std::optional<BsrSegments> segments,
                                          OperatorInfo info);

// --- Autotuning results and the shipped-defaults table ----------------------------------------
// The best configuration autotune_bsr found for one kernel on one block size and precision.
struct BsrKernelTuning {
  BsrKernel kernel = BsrKernel::k2;
  BsrPolicy best;  // meaningful when ms > 0
  double ms = 0;   // one y = A*x; 0: no candidate worked
  double gbs = 0;  // byte model (bsr_matrix_bytes) + x read + y written, over ms
  int tried = 0;   // distinct candidates after fit_bsr_policy
  int wrong = 0;   // candidates whose result failed the check
};

// One block size and precision: every kernel that covers bs, the fastest, and the first guess
// (the rule: bsr_rule_kernel + bsr_rule_policy, what `bsr` runs with nothing tuned or shipped)
// measured the same way, so that the gain of tuning is visible.
struct BsrTuning {
  int block_size = 0;
  int value_bytes = 8;
  index_t block_rows = 0;
  std::int64_t values = 0;               // stored values of the tuning matrix
  std::vector<BsrKernelTuning> kernels;  // in kernel order
  int best = -1;                         // index into kernels of the fastest; -1: none worked
  BsrPolicy first_guess;
  double first_guess_ms = 0;  // 0: the rule's configuration failed or did not fit
  double first_guess_gbs = 0;
};

// The GPU family a shipped entry is keyed by: "H200" or "H100" when the device name holds it,
// else the whole device name.
std::string bsr_device_family(const std::string& device);

// One entry of the shipped table (bsr_tuning_defaults.cpp), and its source line:
//     {"H100", "bsr.k2.bs7.f64", "n_ta=4,n_brows_ta=8,n_tg=4,ilp=4,vec=1"},  // 2911.3 GB/s
struct BsrShippedLine {
  std::string family, key, value, comment;
  std::string text() const;
};

// The shipped entries a tuning result gives: the best parameters of every kernel that worked
// (bsr.kN.bsB.fXX) and the best kernel (bsr.bsB.fXX -> kernel=kN).
std::vector<BsrShippedLine> bsr_shipped_lines(const std::string& family, const BsrTuning& t);

// The text of bsr_tuning_defaults.cpp with `lines` merged into its kShipped table: an entry of
// the same family and key is replaced in place, a new one goes after the family's last entry
// (or at the table's end). InputError when `source` holds no kShipped table.
std::string bsr_merge_shipped_lines(const std::string& source,
                                    const std::vector<BsrShippedLine>& lines);

#if SPMVKIT_HAVE_CUDA
// The policy with n_ta lowered until a thread block fits the compiled kernel (its register use
// bounds the threads a block may have). UnsupportedError when not even one thread array fits.
template <class V>
BsrPolicy fit_bsr_policy(BsrPolicy policy, int block_size);
// The current device's SM count (bsr_fit_rows).
int bsr_device_sm_count();
// K3 thread blocks of `policy` the current device holds at once: SMs x blocks an SM (the
// occupancy of the compiled kernel at its block shape and shared memory; bsr_k3_lambda).
template <class V>
std::int64_t bsr_k3_resident(const BsrPolicy& policy);

// `policy` as returned by fit_bsr_policy.
template <class V>
std::unique_ptr<Operator<V>> make_bsr_cuda(const Bsr<V>& m, const BsrSegments* segments,
                                           const BsrPolicy& policy, OperatorInfo info);
// From a BSR made on the device (formats/common/bsr_blocks_cuda.hpp, csr_to_bsr_device with
// bsr::kSlackBytes of slack) and its segments made there (make_bsr_segments_device), their
// arrays moved into the operator.
template <class V>
struct DeviceBsrBlocks;
struct DeviceBsrSegments;
template <class V>
std::unique_ptr<Operator<V>> make_bsr_cuda(DeviceBsrBlocks<V>&& m, DeviceBsrSegments* segments,
                                           const BsrPolicy& policy, OperatorInfo info);

// Brute-force autotuning (paper 5.7) on the current GPU: for each block size and precision, a
// reservoir-like matrix (3D grid, 7-point connectivity, bs x bs blocks, ~target_values stored
// values) is multiplied with every candidate of every kernel that covers the block size (K1
// bs <= 5, K2 bs >= 2, K3 bs >= 12, tma bs <= 9); each candidate is checked against the CPU
// kernel on a sample of rows. Two stages, to spend little device time on the many poor ones: every
// candidate is screened with screen_repetitions applies, then the `finalists` fastest (and the
// first guess) are timed as the best of 3 rounds of `repetitions` applies. The best parameters
// per kernel and the best kernel are written to the tuning store (keys bsr.kN.bsB.fXX and
// bsr.bsB.fXX, device = this GPU's name); `log` gets progress and one line per result in the
// syntax of bsr_tuning_defaults.cpp.
struct BsrAutotuneOptions {
  std::vector<int> block_sizes;  // empty: 1..64
  bool single_precision = true;
  bool double_precision = true;
  std::int64_t target_values = std::int64_t{1} << 25;  // 256 MiB of doubles: far beyond L2
  int repetitions = 20;
  int screen_repetitions = 5;
  int finalists = 8;
  bool write_store = true;
  std::ostream* log = nullptr;
};
std::vector<BsrTuning> autotune_bsr(const BsrAutotuneOptions& options = {});
#endif

}  // namespace spmvkit
