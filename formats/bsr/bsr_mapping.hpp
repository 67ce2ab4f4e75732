// Thread mappings of the three BSR kernels (BSR paper, sections 5.2-5.4), as plain functions
// shared by the CUDA kernels and by the host tests that check them: every element of a block is
// read by exactly one thread, and K2's uneven vertical slices follow equations (2a)/(2b).
#pragma once

#if defined(__CUDACC__)
#define SPMVKIT_BSR_HD __host__ __device__ __forceinline__
#else
#define SPMVKIT_BSR_HD inline
#endif

namespace spmvkit::bsr {

SPMVKIT_BSR_HD constexpr int pow2_ceil(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

SPMVKIT_BSR_HD constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// --- K1 (paper 5.2): a warp truncated to a multiple of bs^2 ------------------------------------
// nnzb_warp = floor(32 / bs^2) blocks are read by one warp-wide load.
SPMVKIT_BSR_HD constexpr int k1_blocks_per_warp(int bs) { return 32 / (bs * bs); }
// Lanes left after truncation.
SPMVKIT_BSR_HD constexpr int k1_active_lanes(int bs) { return k1_blocks_per_warp(bs) * bs * bs; }
// N_tg = floor(32 / bs^2) * bs: the truncated warp as an nb x N_tg = bs x N_tg thread array.
SPMVKIT_BSR_HD constexpr int k1_thread_groups(int bs) { return k1_blocks_per_warp(bs) * bs; }
// With column-major blocks, lane l takes element l of the working set: block l / bs^2, row
// l % bs, column (l / bs) % bs. The row does not depend on the block, so a lane accumulates
// one row of the block row in every step.
SPMVKIT_BSR_HD constexpr int k1_block(int bs, int lane) { return lane / (bs * bs); }
SPMVKIT_BSR_HD constexpr int k1_row(int bs, int lane) { return lane % bs; }
SPMVKIT_BSR_HD constexpr int k1_column(int bs, int lane) { return (lane / bs) % bs; }

// --- K2 (paper 5.3): bs x N_tg thread arrays with uneven vertical slices -----------------------
// Equation (2a): the most columns a thread group holds per block.
SPMVKIT_BSR_HD constexpr int k2_ept_max(int bs, int n_tg) { return (bs + n_tg - 1) / n_tg; }
// Equation (2b): thread groups >= threshold hold ept_max columns, the others ept_max - 1.
SPMVKIT_BSR_HD constexpr int k2_threshold(int bs, int n_tg) { return (n_tg - bs % n_tg) % n_tg; }
// Column of a thread group's e-th element. The slices are cyclic (group g takes every N_tg-th
// column) rather than contiguous, so that for each e the N_tg groups read N_tg adjacent columns:
// the whole thread array then reads one contiguous run of N_tg * bs values per load. Groups are
// numbered from the right so that the groups holding ept_max columns are those >= threshold,
// as in eq. (2b).
SPMVKIT_BSR_HD constexpr int k2_column(int n_tg, int g, int e) { return e * n_tg + (n_tg - 1 - g); }
// Columns group g holds in a block of size bs (ept_max or ept_max - 1).
SPMVKIT_BSR_HD constexpr int k2_group_columns(int bs, int n_tg, int g) {
  return g >= k2_threshold(bs, n_tg) ? k2_ept_max(bs, n_tg) : k2_ept_max(bs, n_tg) - 1;
}
// A thread array has bs / vec row slots x N_tg groups. Arrays sit in the thread block either
// padded to whole warps (pack = 0: warp-uniform control flow, idle lanes when bs / vec * N_tg is
// not a multiple of 32) or back to back (pack = 1: an array may straddle two warps). Either way
// an array starts on a multiple of N_tg, so a row's groups stay adjacent lanes of one warp.
SPMVKIT_BSR_HD constexpr int k2_array_threads(int bs, int vec, int n_tg) { return bs / vec * n_tg; }
SPMVKIT_BSR_HD constexpr int k2_array_stride(int bs, int vec, int n_tg, int pack) {
  return pack ? k2_array_threads(bs, vec, n_tg) : (k2_array_threads(bs, vec, n_tg) + 31) / 32 * 32;
}
// Threads of a thread block of n_ta arrays (whole warps).
SPMVKIT_BSR_HD constexpr int k2_block_threads(int bs, int vec, int n_tg, int pack, int n_ta) {
  return (n_ta * k2_array_stride(bs, vec, n_tg, pack) + 31) / 32 * 32;
}
// K2 kernels are compiled for EPT in {1..9, 12, 16} (register arrays need a compile-time size);
// an ept_max runs on the smallest instance >= it, the extra slots predicated off (but holding
// registers, which is why the odd sizes up to 9 have their own instances).
SPMVKIT_BSR_HD constexpr int k2_ept_instance(int ept_max) {
  return ept_max <= 9 ? (ept_max < 1 ? 1 : ept_max) : ept_max <= 12 ? 12 : ept_max <= 16 ? 16 : 0;
}
// The most matrix values a K2 pipeline stage holds (ept * ilp * vec): two stages are live
// (double buffering), which keeps a thread under ~140 registers in double precision.
constexpr int kK2StageValues = 18;
// The compiled (vec, EPT, ilp) combinations: one vector load of at most 16 bytes, and at most
// kK2StageValues matrix values per pipeline stage.
SPMVKIT_BSR_HD constexpr bool k2_has_instance(int vec, int ept, int ilp, int value_bytes) {
  return (vec == 1 || vec == 2 || vec == 4) && vec * value_bytes <= 16 &&
         k2_ept_instance(ept) == ept && (ilp == 1 || ilp == 2 || ilp == 4) &&
         ept * ilp * vec <= kK2StageValues;
}

// --- K3 (paper 5.4): (nb, N_tg) thread blocks, a mini-grid of ceil(bs / nb) per block row -------
// Working set nb x w, w = N_tg * ept, starting at column c0; thread group g holds the contiguous
// vertical slice [c0 + g * ept, c0 + (g + 1) * ept).
SPMVKIT_BSR_HD constexpr int k3_column(int c0, int ept, int g, int e) { return c0 + g * ept + e; }

// --- Guarded shuffle tree over `count` lanes `stride` apart (any count, not only powers of two):
// at step h (h = P/2, ..., 1 with P = pow2_ceil(count)), lane q = lane / stride adds the value
// of lane q + h when q + h < count. Lane q = 0 (lane < stride) ends with the sum.
SPMVKIT_BSR_HD constexpr bool tree_step_adds(int lane, int stride, int count, int h) {
  return lane / stride + h < count;
}

}  // namespace spmvkit::bsr
