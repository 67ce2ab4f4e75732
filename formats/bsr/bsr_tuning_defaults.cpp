// Shipped BSR tuning defaults, compiled in: per GPU family, block size and precision, the
// parameters of the kernel the rule picks (bsr_rule_kernel), and optionally the kernel itself.
// Lookup order (choose_bsr_policy): explicit params > the tuning store (measured on this exact
// device by `spmvkit tune bsr` / autotune_bsr) > this table (device family) > the rule.
//
// Entries:
//   {family, "bsr.kN.bsB.fXX", "parameters of kernel N"}   (Table I fields, Params syntax)
//   {family, "bsr.bsB.fXX", "kernel=kN"}                   (the kernel, where measured)
// The family is matched as a substring of the device name ("NVIDIA H100 80GB HBM3").
//
// Status: the f64 entries for bs 2-32 (those with a "GB/s" comment) were measured by
// `spmvkit tune bsr --block-sizes 2-32` on 2026-11-23 on reservoir-like matrices of ~1e8
// values: H100 entries on an NVIDIA H100 80GB HBM3 with K3 tried from bs 12 and tma up to bs 9
// (the code of commit c7c28dc; bench/results/2026-11-23-h100-k3-mid), bs 2-9 again with tma's
// `lanes` at commit 351b888 (same folder), H200 entries on an
// NVIDIA H200 at commit 83b1e34 (bench/results/2026-11-23-h200-k3-mid). H100 f64 bs 1 and
// 33-64 and H100 f32 bs 1-64 at commit 42dcafe (bench/results/2026-11-23-h100-f32-tune).
// K2 parameters tuned before K2's rewrite can be much slower on the current kernel (H100 bs 7:
// 88.7% -> 75.6% of the read ceiling), so retune after changing a kernel.
// Every other entry (no GB/s comment) is a first guess equal to bsr_rule_policy's output.
// `spmvkit tune bsr` prints one line per result in exactly this syntax, and `--emit-defaults
// COPY_OF_THIS_FILE` merges them into a copy of this file (an entry of the same family and key
// replaced in place, new ones after the family's last entry) to diff and copy back. Pasted by hand,
// a later line for the same family and key wins.
#include "formats/bsr/bsr.hpp"

namespace spmvkit {

namespace {

struct ShippedEntry {
  const char* family;
  const char* key;
  const char* value;
};

// clang-format off
const ShippedEntry kShipped[] = {
    {"H100", "bsr.k1.bs1.f64", "n_ta=2,n_brows_ta=16,ilp=4"},  // 742.6 GB/s
    {"H100", "bsr.k1.bs2.f64", "n_ta=2,n_brows_ta=16,ilp=4"},  // 1929.3 GB/s
    {"H100", "bsr.k1.bs3.f64", "n_ta=2,n_brows_ta=16,ilp=4"},  // 1953.2 GB/s
    {"H100", "bsr.k1.bs4.f64", "n_ta=2,n_brows_ta=12,ilp=4"},  // 2373.6 GB/s
    {"H100", "bsr.k1.bs5.f64", "n_ta=2,n_brows_ta=4,ilp=4"},  // 2240.5 GB/s
    {"H100", "bsr.k2.bs6.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2757.7 GB/s
    {"H100", "bsr.k2.bs7.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=1,vec=1,pack=1"},  // 2686.5 GB/s
    {"H100", "bsr.k2.bs8.f64", "n_ta=8,n_brows_ta=1,n_tg=2,ilp=2,vec=2,pack=1"},  // 2967.4 GB/s
    {"H100", "bsr.k2.bs9.f64", "n_ta=16,n_brows_ta=1,n_tg=1,ilp=1,vec=1,pack=1"},  // 2658.3 GB/s
    {"H100", "bsr.k2.bs10.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2814.3 GB/s
    {"H100", "bsr.k2.bs11.f64", "n_ta=4,n_brows_ta=1,n_tg=2,ilp=1,vec=1,pack=1"},  // 2753.5 GB/s
    {"H100", "bsr.k2.bs12.f64", "n_ta=4,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2885.5 GB/s
    {"H100", "bsr.k2.bs13.f64", "n_ta=8,n_brows_ta=1,n_tg=2,ilp=1,vec=1,pack=1"},  // 2782.0 GB/s
    {"H100", "bsr.k2.bs14.f64", "n_ta=4,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2888.1 GB/s
    {"H100", "bsr.k2.bs15.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=1,pack=0"},  // 2788.3 GB/s
    {"H100", "bsr.k2.bs16.f64", "n_ta=4,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2975.7 GB/s
    {"H100", "bsr.k2.bs17.f64", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 2635.2 GB/s
    {"H100", "bsr.k2.bs18.f64", "n_ta=21,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2847.8 GB/s
    {"H100", "bsr.k2.bs19.f64", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2607.7 GB/s
    {"H100", "bsr.k2.bs20.f64", "n_ta=4,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2892.7 GB/s
    {"H100", "bsr.k2.bs21.f64", "n_ta=12,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 2663.5 GB/s
    {"H100", "bsr.k2.bs22.f64", "n_ta=2,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2775.9 GB/s
    {"H100", "bsr.k2.bs23.f64", "n_ta=2,n_brows_ta=1,n_tg=2,ilp=1,vec=1,pack=1"},  // 2733.7 GB/s
    {"H100", "bsr.k2.bs24.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2811.0 GB/s
    {"H100", "bsr.k2.bs25.f64", "n_ta=2,n_brows_ta=1,n_tg=4,ilp=1,vec=1,pack=1"},  // 2639.9 GB/s
    {"H100", "bsr.k2.bs26.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 2866.7 GB/s
    {"H100", "bsr.k2.bs27.f64", "n_ta=2,n_brows_ta=1,n_tg=4,ilp=1,vec=1,pack=1"},  // 2727.9 GB/s
    {"H100", "bsr.k2.bs28.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 2896.6 GB/s
    {"H100", "bsr.k2.bs29.f64", "n_ta=1,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=0"},  // 2628.8 GB/s
    {"H100", "bsr.k2.bs30.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 2902.6 GB/s
    {"H100", "bsr.k2.bs31.f64", "n_ta=1,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=0"},  // 2730.4 GB/s
    {"H100", "bsr.k2.bs32.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 2994.6 GB/s
    {"H100", "bsr.k2.bs33.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2505.4 GB/s
    {"H100", "bsr.k2.bs34.f64", "n_ta=5,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2713.5 GB/s
    {"H100", "bsr.k2.bs35.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2622.6 GB/s
    {"H100", "bsr.k2.bs36.f64", "n_ta=5,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2805.7 GB/s
    {"H100", "bsr.k2.bs37.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2479.6 GB/s
    {"H100", "bsr.k2.bs38.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2777.3 GB/s
    {"H100", "bsr.k2.bs39.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2557.9 GB/s
    {"H100", "bsr.k2.bs40.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2811.9 GB/s
    {"H100", "bsr.k2.bs41.f64", "n_ta=3,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2575.0 GB/s
    {"H100", "bsr.k2.bs42.f64", "n_ta=3,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=1"},  // 2691.9 GB/s
    {"H100", "bsr.k2.bs43.f64", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=1,pack=0"},  // 2374.2 GB/s
    {"H100", "bsr.k2.bs44.f64", "n_ta=1,n_brows_ta=1,n_tg=16,ilp=1,vec=2,pack=0"},  // 2568.2 GB/s
    {"H100", "bsr.k3.bs45.f64", "nb=45,n_tg=12,ept=4"},  // 3010.5 GB/s
    {"H100", "bsr.k3.bs46.f64", "nb=46,n_tg=12,ept=4"},  // 3012.4 GB/s
    {"H100", "bsr.k3.bs47.f64", "nb=47,n_tg=12,ept=4"},  // 3017.8 GB/s
    {"H100", "bsr.k3.bs48.f64", "nb=48,n_tg=12,ept=4"},  // 3061.0 GB/s
    {"H100", "bsr.k3.bs49.f64", "nb=49,n_tg=13,ept=4"},  // 3011.6 GB/s
    {"H100", "bsr.k3.bs50.f64", "nb=50,n_tg=13,ept=4"},  // 3001.9 GB/s
    {"H100", "bsr.k3.bs51.f64", "nb=51,n_tg=13,ept=4"},  // 2996.4 GB/s
    {"H100", "bsr.k3.bs52.f64", "nb=52,n_tg=7,ept=8"},  // 2972.5 GB/s
    {"H100", "bsr.k3.bs53.f64", "nb=53,n_tg=7,ept=8"},  // 2989.4 GB/s
    {"H100", "bsr.k3.bs54.f64", "nb=54,n_tg=14,ept=4"},  // 2981.8 GB/s
    {"H100", "bsr.k3.bs55.f64", "nb=55,n_tg=14,ept=4"},  // 2999.0 GB/s
    {"H100", "bsr.k3.bs56.f64", "nb=56,n_tg=14,ept=4"},  // 2986.2 GB/s
    {"H100", "bsr.k3.bs57.f64", "nb=57,n_tg=15,ept=4"},  // 2980.5 GB/s
    {"H100", "bsr.k3.bs58.f64", "nb=58,n_tg=15,ept=4"},  // 2986.6 GB/s
    {"H100", "bsr.k3.bs59.f64", "nb=59,n_tg=15,ept=4"},  // 2998.4 GB/s
    {"H100", "bsr.k3.bs60.f64", "nb=60,n_tg=15,ept=4"},  // 2978.2 GB/s
    {"H100", "bsr.k3.bs61.f64", "nb=61,n_tg=16,ept=4"},  // 3000.6 GB/s
    {"H100", "bsr.k3.bs62.f64", "nb=62,n_tg=16,ept=4"},  // 2983.8 GB/s
    {"H100", "bsr.k3.bs63.f64", "nb=63,n_tg=16,ept=4"},  // 2974.4 GB/s
    {"H100", "bsr.k3.bs64.f64", "nb=64,n_tg=8,ept=8"},  // 3073.3 GB/s
    {"H100", "bsr.k1.bs1.f32", "n_ta=2,n_brows_ta=16,ilp=4"},  // 654.7 GB/s
    {"H100", "bsr.k1.bs2.f32", "n_ta=2,n_brows_ta=16,ilp=4"},  // 1462.1 GB/s
    {"H100", "bsr.k1.bs3.f32", "n_ta=2,n_brows_ta=16,ilp=4"},  // 1448.3 GB/s
    {"H100", "bsr.k1.bs4.f32", "n_ta=2,n_brows_ta=24,ilp=8"},  // 1874.9 GB/s
    {"H100", "bsr.k1.bs5.f32", "n_ta=2,n_brows_ta=12,ilp=4"},  // 1736.1 GB/s
    {"H100", "bsr.k2.bs6.f32", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=2,vec=2,pack=1"},  // 2519.1 GB/s
    {"H100", "bsr.k2.bs7.f32", "n_ta=16,n_brows_ta=2,n_tg=2,ilp=2,vec=1,pack=1"},  // 2317.2 GB/s
    {"H100", "bsr.k2.bs8.f32", "n_ta=4,n_brows_ta=4,n_tg=4,ilp=4,vec=2,pack=1"},  // 2780.2 GB/s
    {"H100", "bsr.k2.bs9.f32", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=2,vec=1,pack=1"},  // 2299.3 GB/s
    {"H100", "bsr.k2.bs10.f32", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2603.1 GB/s
    {"H100", "bsr.k2.bs11.f32", "n_ta=4,n_brows_ta=2,n_tg=2,ilp=2,vec=1,pack=1"},  // 2389.2 GB/s
    {"H100", "bsr.k2.bs12.f32", "n_ta=8,n_brows_ta=1,n_tg=4,ilp=1,vec=4,pack=1"},  // 2759.3 GB/s
    {"H100", "bsr.k2.bs13.f32", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 2416.9 GB/s
    {"H100", "bsr.k2.bs14.f32", "n_ta=4,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2700.8 GB/s
    {"H100", "bsr.k2.bs15.f32", "n_ta=2,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=0"},  // 2523.2 GB/s
    {"H100", "bsr.k2.bs16.f32", "n_ta=4,n_brows_ta=1,n_tg=4,ilp=1,vec=4,pack=1"},  // 2844.7 GB/s
    {"H100", "bsr.k2.bs17.f32", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 2392.3 GB/s
    {"H100", "bsr.k2.bs18.f32", "n_ta=8,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 2715.7 GB/s
    {"H100", "bsr.k2.bs19.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=2,vec=1,pack=1"},  // 2396.9 GB/s
    {"H100", "bsr.k2.bs20.f32", "n_ta=4,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=1"},  // 2719.0 GB/s
    {"H100", "bsr.k2.bs21.f32", "n_ta=2,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 2299.8 GB/s
    {"H100", "bsr.k2.bs22.f32", "n_ta=2,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2724.2 GB/s
    {"H100", "bsr.k2.bs23.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2466.6 GB/s
    {"H100", "bsr.k2.bs24.f32", "n_ta=2,n_brows_ta=1,n_tg=8,ilp=1,vec=4,pack=1"},  // 2844.1 GB/s
    {"H100", "bsr.k2.bs25.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2303.5 GB/s
    {"H100", "bsr.k2.bs26.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=0"},  // 2677.9 GB/s
    {"H100", "bsr.k2.bs27.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2417.4 GB/s
    {"H100", "bsr.k2.bs28.f32", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 2732.0 GB/s
    {"H100", "bsr.k2.bs29.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2333.6 GB/s
    {"H100", "bsr.k2.bs30.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=0"},  // 2717.9 GB/s
    {"H100", "bsr.k2.bs31.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=2,vec=1,pack=0"},  // 2433.4 GB/s
    {"H100", "bsr.k2.bs32.f32", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 2778.0 GB/s
    {"H100", "bsr.k2.bs33.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2152.9 GB/s
    {"H100", "bsr.k2.bs34.f32", "n_ta=4,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=1"},  // 2578.6 GB/s
    {"H100", "bsr.k2.bs35.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2227.7 GB/s
    {"H100", "bsr.k2.bs36.f32", "n_ta=2,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 2689.8 GB/s
    {"H100", "bsr.k2.bs37.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 1972.8 GB/s
    {"H100", "bsr.k2.bs38.f32", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2383.0 GB/s
    {"H100", "bsr.k2.bs39.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2075.6 GB/s
    {"H100", "bsr.k2.bs40.f32", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2560.7 GB/s
    {"H100", "bsr.k2.bs41.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 1911.9 GB/s
    {"H100", "bsr.k2.bs42.f32", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=0"},  // 2306.3 GB/s
    {"H100", "bsr.k2.bs43.f32", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2005.2 GB/s
    {"H100", "bsr.k2.bs44.f32", "n_ta=1,n_brows_ta=1,n_tg=16,ilp=1,vec=4,pack=0"},  // 2415.7 GB/s
    {"H100", "bsr.k3.bs45.f32", "nb=45,n_tg=7,ept=7"},  // 2862.7 GB/s
    {"H100", "bsr.k3.bs46.f32", "nb=46,n_tg=8,ept=6"},  // 2864.7 GB/s
    {"H100", "bsr.k3.bs47.f32", "nb=47,n_tg=8,ept=6"},  // 2879.2 GB/s
    {"H100", "bsr.k3.bs48.f32", "nb=48,n_tg=8,ept=6"},  // 2829.4 GB/s
    {"H100", "bsr.k3.bs49.f32", "nb=49,n_tg=7,ept=7"},  // 2859.7 GB/s
    {"H100", "bsr.k3.bs50.f32", "nb=50,n_tg=10,ept=5"},  // 2856.3 GB/s
    {"H100", "bsr.k3.bs51.f32", "nb=51,n_tg=9,ept=6"},  // 2813.5 GB/s
    {"H100", "bsr.k3.bs52.f32", "nb=52,n_tg=9,ept=6"},  // 2807.5 GB/s
    {"H100", "bsr.k3.bs53.f32", "nb=53,n_tg=9,ept=6"},  // 2823.1 GB/s
    {"H100", "bsr.k3.bs54.f32", "nb=54,n_tg=9,ept=6"},  // 2859.9 GB/s
    {"H100", "bsr.k3.bs55.f32", "nb=55,n_tg=8,ept=7"},  // 2882.4 GB/s
    {"H100", "bsr.k3.bs56.f32", "nb=56,n_tg=8,ept=7"},  // 2874.4 GB/s
    {"H100", "bsr.k3.bs57.f32", "nb=57,n_tg=10,ept=6"},  // 2760.1 GB/s
    {"H100", "bsr.k3.bs58.f32", "nb=58,n_tg=10,ept=6"},  // 2769.6 GB/s
    {"H100", "bsr.k3.bs59.f32", "nb=59,n_tg=10,ept=6"},  // 2797.4 GB/s
    {"H100", "bsr.k3.bs60.f32", "nb=60,n_tg=10,ept=6"},  // 2798.5 GB/s
    {"H100", "bsr.k3.bs61.f32", "nb=61,n_tg=8,ept=8"},  // 2813.1 GB/s
    {"H100", "bsr.k3.bs62.f32", "nb=62,n_tg=9,ept=7"},  // 2824.8 GB/s
    {"H100", "bsr.k3.bs63.f32", "nb=63,n_tg=8,ept=8"},  // 2827.8 GB/s
    {"H100", "bsr.k3.bs64.f32", "nb=64,n_tg=8,ept=8"},  // 2924.5 GB/s
    {"H100", "bsr.tma.bs2.f64", "stages=2,tile_kb=8,threads=128,whole=1,lanes=2"},  // 2719.5 GB/s
    {"H100", "bsr.bs2.f64", "kernel=tma"},  // 2719.5 GB/s
    {"H100", "bsr.tma.bs3.f64", "stages=2,tile_kb=16,threads=128,whole=1,lanes=4"},  // 2792.9 GB/s
    {"H100", "bsr.bs3.f64", "kernel=tma"},  // 2792.9 GB/s
    {"H100", "bsr.k2.bs4.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=4,vec=2,pack=1"},  // 2864.0 GB/s
    {"H100", "bsr.tma.bs4.f64", "stages=2,tile_kb=32,threads=256,whole=1,lanes=0"},  // 2788.5 GB/s
    {"H100", "bsr.bs4.f64", "kernel=k2"},  // 2864.0 GB/s
    {"H100", "bsr.k2.bs5.f64", "n_ta=16,n_brows_ta=2,n_tg=2,ilp=2,vec=1,pack=1"},  // 2563.3 GB/s
    {"H100", "bsr.tma.bs5.f64", "stages=2,tile_kb=32,threads=128,whole=1,lanes=4"},  // 2725.8 GB/s
    {"H100", "bsr.bs5.f64", "kernel=tma"},  // 2725.8 GB/s
    {"H100", "bsr.tma.bs6.f64", "stages=2,tile_kb=32,threads=128,whole=1,lanes=8"},  // 2774.1 GB/s
    {"H100", "bsr.bs6.f64", "kernel=tma"},  // 2774.1 GB/s
    {"H100", "bsr.tma.bs7.f64", "stages=2,tile_kb=48,threads=256,whole=1,lanes=8"},  // 2821.3 GB/s
    {"H100", "bsr.bs7.f64", "kernel=tma"},  // 2821.3 GB/s
    {"H100", "bsr.tma.bs8.f64", "stages=2,tile_kb=16,threads=128,whole=0,lanes=4"},  // 2725.9 GB/s
    {"H100", "bsr.bs8.f64", "kernel=k2"},  // 2967.4 GB/s
    {"H100", "bsr.bs12.f64", "kernel=k2"},  // 2885.5 GB/s
    {"H100", "bsr.bs16.f64", "kernel=k3"},  // 3052.9 GB/s
    {"H100", "bsr.bs24.f64", "kernel=k3"},  // 3030.6 GB/s
    {"H100", "bsr.k3.bs32.f64", "nb=32,n_tg=5,ept=7"},  // 3081.0 GB/s
    {"H100", "bsr.bs32.f64", "kernel=k3"},  // 3081.0 GB/s
    {"H100", "bsr.bs9.f64", "kernel=tma"},  // 2728.8 GB/s
    {"H100", "bsr.bs10.f64", "kernel=k2"},  // 2814.3 GB/s
    {"H100", "bsr.bs11.f64", "kernel=k2"},  // 2753.5 GB/s
    {"H100", "bsr.bs13.f64", "kernel=k3"},  // 2885.4 GB/s
    {"H100", "bsr.bs14.f64", "kernel=k3"},  // 2915.2 GB/s
    {"H100", "bsr.bs15.f64", "kernel=k3"},  // 2937.6 GB/s
    {"H100", "bsr.bs17.f64", "kernel=k3"},  // 2973.9 GB/s
    {"H100", "bsr.bs18.f64", "kernel=k3"},  // 3041.7 GB/s
    {"H100", "bsr.bs19.f64", "kernel=k3"},  // 2975.7 GB/s
    {"H100", "bsr.bs20.f64", "kernel=k3"},  // 3034.8 GB/s
    {"H100", "bsr.bs21.f64", "kernel=k3"},  // 3041.8 GB/s
    {"H100", "bsr.bs22.f64", "kernel=k3"},  // 3028.9 GB/s
    {"H100", "bsr.bs23.f64", "kernel=k3"},  // 3055.4 GB/s
    {"H100", "bsr.bs25.f64", "kernel=k3"},  // 3013.9 GB/s
    {"H100", "bsr.bs26.f64", "kernel=k3"},  // 3040.9 GB/s
    {"H100", "bsr.bs27.f64", "kernel=k3"},  // 3044.9 GB/s
    {"H100", "bsr.bs28.f64", "kernel=k3"},  // 3043.3 GB/s
    {"H100", "bsr.bs29.f64", "kernel=k3"},  // 3050.0 GB/s
    {"H100", "bsr.bs30.f64", "kernel=k3"},  // 3043.5 GB/s
    {"H100", "bsr.bs31.f64", "kernel=k3"},  // 3050.2 GB/s
    {"H100", "bsr.k2.bs2.f64", "n_ta=32,n_brows_ta=1,n_tg=2,ilp=2,vec=2,pack=1"},  // 2580.8 GB/s
    {"H100", "bsr.k2.bs3.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=2,vec=1,pack=1"},  // 2350.0 GB/s
    {"H100", "bsr.tma.bs9.f64", "stages=2,tile_kb=32,threads=256,whole=0,lanes=0"},  // 2728.8 GB/s
    {"H100", "bsr.k3.bs12.f64", "nb=12,n_tg=4,ept=3"},  // 2879.3 GB/s
    {"H100", "bsr.k3.bs13.f64", "nb=13,n_tg=4,ept=4"},  // 2885.4 GB/s
    {"H100", "bsr.k3.bs14.f64", "nb=14,n_tg=4,ept=4"},  // 2915.2 GB/s
    {"H100", "bsr.k3.bs15.f64", "nb=15,n_tg=5,ept=3"},  // 2937.6 GB/s
    {"H100", "bsr.k3.bs16.f64", "nb=16,n_tg=6,ept=3"},  // 3052.9 GB/s
    {"H100", "bsr.k3.bs17.f64", "nb=17,n_tg=6,ept=3"},  // 2973.9 GB/s
    {"H100", "bsr.k3.bs18.f64", "nb=18,n_tg=6,ept=3"},  // 3041.7 GB/s
    {"H100", "bsr.k3.bs19.f64", "nb=19,n_tg=7,ept=3"},  // 2975.7 GB/s
    {"H100", "bsr.k3.bs20.f64", "nb=20,n_tg=7,ept=3"},  // 3034.8 GB/s
    {"H100", "bsr.k3.bs21.f64", "nb=21,n_tg=7,ept=3"},  // 3041.8 GB/s
    {"H100", "bsr.k3.bs22.f64", "nb=22,n_tg=8,ept=3"},  // 3028.9 GB/s
    {"H100", "bsr.k3.bs23.f64", "nb=23,n_tg=8,ept=3"},  // 3055.4 GB/s
    {"H100", "bsr.k3.bs24.f64", "nb=24,n_tg=8,ept=3"},  // 3030.6 GB/s
    {"H100", "bsr.k3.bs25.f64", "nb=25,n_tg=7,ept=4"},  // 3013.9 GB/s
    {"H100", "bsr.k3.bs26.f64", "nb=26,n_tg=9,ept=3"},  // 3040.9 GB/s
    {"H100", "bsr.k3.bs27.f64", "nb=27,n_tg=9,ept=3"},  // 3044.9 GB/s
    {"H100", "bsr.k3.bs28.f64", "nb=28,n_tg=10,ept=3"},  // 3043.3 GB/s
    {"H100", "bsr.k3.bs29.f64", "nb=29,n_tg=4,ept=8"},  // 3050.0 GB/s
    {"H100", "bsr.k3.bs30.f64", "nb=30,n_tg=4,ept=8"},  // 3043.5 GB/s
    {"H100", "bsr.k3.bs31.f64", "nb=31,n_tg=6,ept=6"},  // 3050.2 GB/s
    {"H100", "bsr.tma.bs1.f64", "stages=2,tile_kb=8,threads=256,whole=0,lanes=1"},  // 2569.6 GB/s
    {"H100", "bsr.bs1.f64", "kernel=tma"},  // 2569.6 GB/s
    {"H100", "bsr.k3.bs33.f64", "nb=33,n_tg=11,ept=3"},  // 3032.4 GB/s
    {"H100", "bsr.bs33.f64", "kernel=k3"},  // 3032.4 GB/s
    {"H100", "bsr.k3.bs34.f64", "nb=34,n_tg=9,ept=4"},  // 3001.7 GB/s
    {"H100", "bsr.bs34.f64", "kernel=k3"},  // 3001.7 GB/s
    {"H100", "bsr.k3.bs35.f64", "nb=35,n_tg=5,ept=7"},  // 3002.3 GB/s
    {"H100", "bsr.bs35.f64", "kernel=k3"},  // 3002.3 GB/s
    {"H100", "bsr.k3.bs36.f64", "nb=36,n_tg=9,ept=4"},  // 3000.9 GB/s
    {"H100", "bsr.bs36.f64", "kernel=k3"},  // 3000.9 GB/s
    {"H100", "bsr.k3.bs37.f64", "nb=37,n_tg=13,ept=3"},  // 3018.4 GB/s
    {"H100", "bsr.bs37.f64", "kernel=k3"},  // 3018.4 GB/s
    {"H100", "bsr.k3.bs38.f64", "nb=38,n_tg=13,ept=3"},  // 3023.0 GB/s
    {"H100", "bsr.bs38.f64", "kernel=k3"},  // 3023.0 GB/s
    {"H100", "bsr.k3.bs39.f64", "nb=39,n_tg=13,ept=3"},  // 2999.7 GB/s
    {"H100", "bsr.bs39.f64", "kernel=k3"},  // 2999.7 GB/s
    {"H100", "bsr.k3.bs40.f64", "nb=40,n_tg=14,ept=3"},  // 3006.4 GB/s
    {"H100", "bsr.bs40.f64", "kernel=k3"},  // 3006.4 GB/s
    {"H100", "bsr.k3.bs41.f64", "nb=41,n_tg=11,ept=4"},  // 2996.5 GB/s
    {"H100", "bsr.bs41.f64", "kernel=k3"},  // 2996.5 GB/s
    {"H100", "bsr.k3.bs42.f64", "nb=42,n_tg=11,ept=4"},  // 3003.2 GB/s
    {"H100", "bsr.bs42.f64", "kernel=k3"},  // 3003.2 GB/s
    {"H100", "bsr.k3.bs43.f64", "nb=43,n_tg=15,ept=3"},  // 3011.5 GB/s
    {"H100", "bsr.bs43.f64", "kernel=k3"},  // 3011.5 GB/s
    {"H100", "bsr.k3.bs44.f64", "nb=44,n_tg=15,ept=3"},  // 3016.8 GB/s
    {"H100", "bsr.bs44.f64", "kernel=k3"},  // 3016.8 GB/s
    {"H100", "bsr.k2.bs45.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2413.3 GB/s
    {"H100", "bsr.bs45.f64", "kernel=k3"},  // 3010.5 GB/s
    {"H100", "bsr.k2.bs46.f64", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=0"},  // 2588.9 GB/s
    {"H100", "bsr.bs46.f64", "kernel=k3"},  // 3012.4 GB/s
    {"H100", "bsr.k2.bs47.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2477.8 GB/s
    {"H100", "bsr.bs47.f64", "kernel=k3"},  // 3017.8 GB/s
    {"H100", "bsr.k2.bs48.f64", "n_ta=1,n_brows_ta=1,n_tg=16,ilp=1,vec=2,pack=0"},  // 2586.4 GB/s
    {"H100", "bsr.bs48.f64", "kernel=k3"},  // 3061.0 GB/s
    {"H100", "bsr.k2.bs49.f64", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=1,pack=0"},  // 2435.4 GB/s
    {"H100", "bsr.bs49.f64", "kernel=k3"},  // 3011.6 GB/s
    {"H100", "bsr.k2.bs50.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2725.6 GB/s
    {"H100", "bsr.bs50.f64", "kernel=k3"},  // 3001.9 GB/s
    {"H100", "bsr.k2.bs51.f64", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=1,pack=0"},  // 2491.9 GB/s
    {"H100", "bsr.bs51.f64", "kernel=k3"},  // 2996.4 GB/s
    {"H100", "bsr.k2.bs52.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2744.6 GB/s
    {"H100", "bsr.bs52.f64", "kernel=k3"},  // 2972.5 GB/s
    {"H100", "bsr.k2.bs53.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=1,pack=0"},  // 2462.9 GB/s
    {"H100", "bsr.bs53.f64", "kernel=k3"},  // 2989.4 GB/s
    {"H100", "bsr.k2.bs54.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2755.3 GB/s
    {"H100", "bsr.bs54.f64", "kernel=k3"},  // 2981.8 GB/s
    {"H100", "bsr.k2.bs55.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=1,pack=0"},  // 2513.2 GB/s
    {"H100", "bsr.bs55.f64", "kernel=k3"},  // 2999.0 GB/s
    {"H100", "bsr.k2.bs56.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2800.9 GB/s
    {"H100", "bsr.bs56.f64", "kernel=k3"},  // 2986.2 GB/s
    {"H100", "bsr.k2.bs57.f64", "n_ta=1,n_brows_ta=8,n_tg=4,ilp=1,vec=1,pack=0"},  // 2079.3 GB/s
    {"H100", "bsr.bs57.f64", "kernel=k3"},  // 2980.5 GB/s
    {"H100", "bsr.k2.bs58.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2762.8 GB/s
    {"H100", "bsr.bs58.f64", "kernel=k3"},  // 2986.6 GB/s
    {"H100", "bsr.k2.bs59.f64", "n_ta=1,n_brows_ta=8,n_tg=4,ilp=1,vec=1,pack=0"},  // 2170.0 GB/s
    {"H100", "bsr.bs59.f64", "kernel=k3"},  // 2998.4 GB/s
    {"H100", "bsr.k2.bs60.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2781.3 GB/s
    {"H100", "bsr.bs60.f64", "kernel=k3"},  // 2978.2 GB/s
    {"H100", "bsr.k2.bs61.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1,pack=1"},  // 2216.5 GB/s
    {"H100", "bsr.bs61.f64", "kernel=k3"},  // 3000.6 GB/s
    {"H100", "bsr.k2.bs62.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2761.2 GB/s
    {"H100", "bsr.bs62.f64", "kernel=k3"},  // 2983.8 GB/s
    {"H100", "bsr.k2.bs63.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 2192.0 GB/s
    {"H100", "bsr.bs63.f64", "kernel=k3"},  // 2974.4 GB/s
    {"H100", "bsr.k2.bs64.f64", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2767.9 GB/s
    {"H100", "bsr.bs64.f64", "kernel=k3"},  // 3073.3 GB/s
    {"H100", "bsr.tma.bs1.f32", "stages=2,tile_kb=16,threads=512,whole=0,lanes=0"},  // 2540.6 GB/s
    {"H100", "bsr.bs1.f32", "kernel=tma"},  // 2540.6 GB/s
    {"H100", "bsr.k2.bs2.f32", "n_ta=32,n_brows_ta=1,n_tg=2,ilp=4,vec=2,pack=1"},  // 2092.8 GB/s
    {"H100", "bsr.tma.bs2.f32", "stages=2,tile_kb=8,threads=256,whole=1,lanes=2"},  // 2631.4 GB/s
    {"H100", "bsr.bs2.f32", "kernel=tma"},  // 2631.4 GB/s
    {"H100", "bsr.k2.bs3.f32", "n_ta=32,n_brows_ta=1,n_tg=1,ilp=2,vec=1,pack=1"},  // 1739.4 GB/s
    {"H100", "bsr.tma.bs3.f32", "stages=2,tile_kb=8,threads=128,whole=1,lanes=4"},  // 2651.8 GB/s
    {"H100", "bsr.bs3.f32", "kernel=tma"},  // 2651.8 GB/s
    {"H100", "bsr.k2.bs4.f32", "n_ta=16,n_brows_ta=2,n_tg=4,ilp=4,vec=4,pack=1"},  // 2569.8 GB/s
    {"H100", "bsr.tma.bs4.f32", "stages=2,tile_kb=32,threads=256,whole=1,lanes=2"},  // 2658.9 GB/s
    {"H100", "bsr.bs4.f32", "kernel=tma"},  // 2658.9 GB/s
    {"H100", "bsr.k2.bs5.f32", "n_ta=16,n_brows_ta=2,n_tg=2,ilp=4,vec=1,pack=1"},  // 2109.5 GB/s
    {"H100", "bsr.tma.bs5.f32", "stages=2,tile_kb=32,threads=256,whole=1,lanes=4"},  // 2702.3 GB/s
    {"H100", "bsr.bs5.f32", "kernel=tma"},  // 2702.3 GB/s
    {"H100", "bsr.tma.bs6.f32", "stages=2,tile_kb=16,threads=128,whole=1,lanes=8"},  // 2703.1 GB/s
    {"H100", "bsr.bs6.f32", "kernel=tma"},  // 2703.1 GB/s
    {"H100", "bsr.tma.bs7.f32", "stages=2,tile_kb=32,threads=256,whole=1,lanes=8"},  // 2740.1 GB/s
    {"H100", "bsr.bs7.f32", "kernel=tma"},  // 2740.1 GB/s
    {"H100", "bsr.tma.bs8.f32", "stages=2,tile_kb=48,threads=512,whole=0,lanes=2"},  // 2608.3 GB/s
    {"H100", "bsr.bs8.f32", "kernel=k2"},  // 2780.2 GB/s
    {"H100", "bsr.tma.bs9.f32", "stages=2,tile_kb=48,threads=256,whole=1,lanes=8"},  // 2664.2 GB/s
    {"H100", "bsr.bs9.f32", "kernel=tma"},  // 2664.2 GB/s
    {"H100", "bsr.bs10.f32", "kernel=k2"},  // 2603.1 GB/s
    {"H100", "bsr.bs11.f32", "kernel=k2"},  // 2389.2 GB/s
    {"H100", "bsr.k3.bs12.f32", "nb=12,n_tg=4,ept=3"},  // 2309.3 GB/s
    {"H100", "bsr.bs12.f32", "kernel=k2"},  // 2759.3 GB/s
    {"H100", "bsr.k3.bs13.f32", "nb=13,n_tg=2,ept=7"},  // 2366.7 GB/s
    {"H100", "bsr.bs13.f32", "kernel=k2"},  // 2416.9 GB/s
    {"H100", "bsr.k3.bs14.f32", "nb=14,n_tg=2,ept=7"},  // 2549.8 GB/s
    {"H100", "bsr.bs14.f32", "kernel=k2"},  // 2700.8 GB/s
    {"H100", "bsr.k3.bs15.f32", "nb=15,n_tg=4,ept=4"},  // 2739.2 GB/s
    {"H100", "bsr.bs15.f32", "kernel=k3"},  // 2739.2 GB/s
    {"H100", "bsr.k3.bs16.f32", "nb=16,n_tg=2,ept=8"},  // 2873.1 GB/s
    {"H100", "bsr.bs16.f32", "kernel=k3"},  // 2873.1 GB/s
    {"H100", "bsr.k3.bs17.f32", "nb=17,n_tg=3,ept=6"},  // 2653.6 GB/s
    {"H100", "bsr.bs17.f32", "kernel=k3"},  // 2653.6 GB/s
    {"H100", "bsr.k3.bs18.f32", "nb=18,n_tg=3,ept=6"},  // 2795.9 GB/s
    {"H100", "bsr.bs18.f32", "kernel=k3"},  // 2795.9 GB/s
    {"H100", "bsr.k3.bs19.f32", "nb=19,n_tg=5,ept=4"},  // 2796.9 GB/s
    {"H100", "bsr.bs19.f32", "kernel=k3"},  // 2796.9 GB/s
    {"H100", "bsr.k3.bs20.f32", "nb=20,n_tg=3,ept=7"},  // 2872.8 GB/s
    {"H100", "bsr.bs20.f32", "kernel=k3"},  // 2872.8 GB/s
    {"H100", "bsr.k3.bs21.f32", "nb=21,n_tg=3,ept=7"},  // 2869.3 GB/s
    {"H100", "bsr.bs21.f32", "kernel=k3"},  // 2869.3 GB/s
    {"H100", "bsr.k3.bs22.f32", "nb=22,n_tg=4,ept=6"},  // 2822.8 GB/s
    {"H100", "bsr.bs22.f32", "kernel=k3"},  // 2822.8 GB/s
    {"H100", "bsr.k3.bs23.f32", "nb=23,n_tg=4,ept=6"},  // 2859.2 GB/s
    {"H100", "bsr.bs23.f32", "kernel=k3"},  // 2859.2 GB/s
    {"H100", "bsr.k3.bs24.f32", "nb=24,n_tg=4,ept=6"},  // 2877.1 GB/s
    {"H100", "bsr.bs24.f32", "kernel=k3"},  // 2877.1 GB/s
    {"H100", "bsr.k3.bs25.f32", "nb=25,n_tg=5,ept=5"},  // 2867.9 GB/s
    {"H100", "bsr.bs25.f32", "kernel=k3"},  // 2867.9 GB/s
    {"H100", "bsr.k3.bs26.f32", "nb=26,n_tg=6,ept=5"},  // 2789.3 GB/s
    {"H100", "bsr.bs26.f32", "kernel=k3"},  // 2789.3 GB/s
    {"H100", "bsr.k3.bs27.f32", "nb=27,n_tg=4,ept=7"},  // 2793.9 GB/s
    {"H100", "bsr.bs27.f32", "kernel=k3"},  // 2793.9 GB/s
    {"H100", "bsr.k3.bs28.f32", "nb=28,n_tg=4,ept=7"},  // 2809.5 GB/s
    {"H100", "bsr.bs28.f32", "kernel=k3"},  // 2809.5 GB/s
    {"H100", "bsr.k3.bs29.f32", "nb=29,n_tg=5,ept=6"},  // 2815.5 GB/s
    {"H100", "bsr.bs29.f32", "kernel=k3"},  // 2815.5 GB/s
    {"H100", "bsr.k3.bs30.f32", "nb=30,n_tg=5,ept=6"},  // 2800.7 GB/s
    {"H100", "bsr.bs30.f32", "kernel=k3"},  // 2800.7 GB/s
    {"H100", "bsr.k3.bs31.f32", "nb=31,n_tg=4,ept=8"},  // 2838.3 GB/s
    {"H100", "bsr.bs31.f32", "kernel=k3"},  // 2838.3 GB/s
    {"H100", "bsr.k3.bs32.f32", "nb=32,n_tg=5,ept=7"},  // 2933.6 GB/s
    {"H100", "bsr.bs32.f32", "kernel=k3"},  // 2933.6 GB/s
    {"H100", "bsr.k3.bs33.f32", "nb=33,n_tg=5,ept=7"},  // 2773.0 GB/s
    {"H100", "bsr.bs33.f32", "kernel=k3"},  // 2773.0 GB/s
    {"H100", "bsr.k3.bs34.f32", "nb=34,n_tg=6,ept=6"},  // 2760.0 GB/s
    {"H100", "bsr.bs34.f32", "kernel=k3"},  // 2760.0 GB/s
    {"H100", "bsr.k3.bs35.f32", "nb=35,n_tg=5,ept=7"},  // 2797.4 GB/s
    {"H100", "bsr.bs35.f32", "kernel=k3"},  // 2797.4 GB/s
    {"H100", "bsr.k3.bs36.f32", "nb=36,n_tg=6,ept=6"},  // 2866.0 GB/s
    {"H100", "bsr.bs36.f32", "kernel=k3"},  // 2866.0 GB/s
    {"H100", "bsr.k3.bs37.f32", "nb=37,n_tg=6,ept=7"},  // 2869.3 GB/s
    {"H100", "bsr.bs37.f32", "kernel=k3"},  // 2869.3 GB/s
    {"H100", "bsr.k3.bs38.f32", "nb=38,n_tg=5,ept=8"},  // 2850.1 GB/s
    {"H100", "bsr.bs38.f32", "kernel=k3"},  // 2850.1 GB/s
    {"H100", "bsr.k3.bs39.f32", "nb=39,n_tg=7,ept=6"},  // 2856.9 GB/s
    {"H100", "bsr.bs39.f32", "kernel=k3"},  // 2856.9 GB/s
    {"H100", "bsr.k3.bs40.f32", "nb=40,n_tg=8,ept=5"},  // 2878.9 GB/s
    {"H100", "bsr.bs40.f32", "kernel=k3"},  // 2878.9 GB/s
    {"H100", "bsr.k3.bs41.f32", "nb=41,n_tg=7,ept=6"},  // 2877.1 GB/s
    {"H100", "bsr.bs41.f32", "kernel=k3"},  // 2877.1 GB/s
    {"H100", "bsr.k3.bs42.f32", "nb=42,n_tg=6,ept=7"},  // 2883.0 GB/s
    {"H100", "bsr.bs42.f32", "kernel=k3"},  // 2883.0 GB/s
    {"H100", "bsr.k3.bs43.f32", "nb=43,n_tg=7,ept=7"},  // 2831.1 GB/s
    {"H100", "bsr.bs43.f32", "kernel=k3"},  // 2831.1 GB/s
    {"H100", "bsr.k3.bs44.f32", "nb=44,n_tg=7,ept=7"},  // 2840.6 GB/s
    {"H100", "bsr.bs44.f32", "kernel=k3"},  // 2840.6 GB/s
    {"H100", "bsr.k2.bs45.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2049.5 GB/s
    {"H100", "bsr.bs45.f32", "kernel=k3"},  // 2862.7 GB/s
    {"H100", "bsr.k2.bs46.f32", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2420.4 GB/s
    {"H100", "bsr.bs46.f32", "kernel=k3"},  // 2864.7 GB/s
    {"H100", "bsr.k2.bs47.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2141.0 GB/s
    {"H100", "bsr.bs47.f32", "kernel=k3"},  // 2879.2 GB/s
    {"H100", "bsr.k2.bs48.f32", "n_ta=1,n_brows_ta=1,n_tg=16,ilp=1,vec=4,pack=0"},  // 2509.5 GB/s
    {"H100", "bsr.bs48.f32", "kernel=k3"},  // 2829.4 GB/s
    {"H100", "bsr.k2.bs49.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 1764.8 GB/s
    {"H100", "bsr.bs49.f32", "kernel=k3"},  // 2859.7 GB/s
    {"H100", "bsr.k2.bs50.f32", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=0"},  // 2319.0 GB/s
    {"H100", "bsr.bs50.f32", "kernel=k3"},  // 2856.3 GB/s
    {"H100", "bsr.k2.bs51.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 1857.1 GB/s
    {"H100", "bsr.bs51.f32", "kernel=k3"},  // 2813.5 GB/s
    {"H100", "bsr.k2.bs52.f32", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2384.4 GB/s
    {"H100", "bsr.bs52.f32", "kernel=k3"},  // 2807.5 GB/s
    {"H100", "bsr.k2.bs53.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 1911.1 GB/s
    {"H100", "bsr.bs53.f32", "kernel=k3"},  // 2823.1 GB/s
    {"H100", "bsr.k2.bs54.f32", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2400.0 GB/s
    {"H100", "bsr.bs54.f32", "kernel=k3"},  // 2859.9 GB/s
    {"H100", "bsr.k2.bs55.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 1990.6 GB/s
    {"H100", "bsr.bs55.f32", "kernel=k3"},  // 2882.4 GB/s
    {"H100", "bsr.k2.bs56.f32", "n_ta=1,n_brows_ta=1,n_tg=8,ilp=1,vec=2,pack=0"},  // 2551.7 GB/s
    {"H100", "bsr.bs56.f32", "kernel=k3"},  // 2874.4 GB/s
    {"H100", "bsr.k2.bs57.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 1940.7 GB/s
    {"H100", "bsr.bs57.f32", "kernel=k3"},  // 2760.1 GB/s
    {"H100", "bsr.k2.bs58.f32", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=0"},  // 2265.3 GB/s
    {"H100", "bsr.bs58.f32", "kernel=k3"},  // 2769.6 GB/s
    {"H100", "bsr.k2.bs59.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2011.3 GB/s
    {"H100", "bsr.bs59.f32", "kernel=k3"},  // 2797.4 GB/s
    {"H100", "bsr.k2.bs60.f32", "n_ta=1,n_brows_ta=2,n_tg=16,ilp=1,vec=4,pack=0"},  // 2385.4 GB/s
    {"H100", "bsr.bs60.f32", "kernel=k3"},  // 2798.5 GB/s
    {"H100", "bsr.k2.bs61.f32", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 2076.6 GB/s
    {"H100", "bsr.bs61.f32", "kernel=k3"},  // 2813.1 GB/s
    {"H100", "bsr.k2.bs62.f32", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=0"},  // 2290.1 GB/s
    {"H100", "bsr.bs62.f32", "kernel=k3"},  // 2824.8 GB/s
    {"H100", "bsr.k2.bs63.f32", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=1,pack=0"},  // 2069.5 GB/s
    {"H100", "bsr.bs63.f32", "kernel=k3"},  // 2827.8 GB/s
    {"H100", "bsr.k2.bs64.f32", "n_ta=1,n_brows_ta=1,n_tg=16,ilp=1,vec=4,pack=0"},  // 2395.4 GB/s
    {"H100", "bsr.bs64.f32", "kernel=k3"},  // 2924.5 GB/s
    {"H200", "bsr.k1.bs1.f64", "n_ta=8,n_brows_ta=16,ilp=4"},
    {"H200", "bsr.k1.bs2.f64", "n_ta=2,n_brows_ta=16,ilp=4"},  // 2006.5 GB/s
    {"H200", "bsr.k1.bs3.f64", "n_ta=2,n_brows_ta=16,ilp=4"},  // 2149.4 GB/s
    {"H200", "bsr.k1.bs4.f64", "n_ta=2,n_brows_ta=12,ilp=4"},  // 2772.2 GB/s
    {"H200", "bsr.k1.bs5.f64", "n_ta=2,n_brows_ta=12,ilp=4"},  // 2637.1 GB/s
    {"H200", "bsr.k2.bs6.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 3786.0 GB/s
    {"H200", "bsr.k2.bs7.f64", "n_ta=16,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 3422.4 GB/s
    {"H200", "bsr.k2.bs8.f64", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=2,vec=2,pack=1"},  // 4079.4 GB/s
    {"H200", "bsr.k2.bs9.f64", "n_ta=16,n_brows_ta=1,n_tg=1,ilp=1,vec=1,pack=1"},  // 3294.7 GB/s
    {"H200", "bsr.k2.bs10.f64", "n_ta=16,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 3959.4 GB/s
    {"H200", "bsr.k2.bs11.f64", "n_ta=4,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 3521.6 GB/s
    {"H200", "bsr.k2.bs12.f64", "n_ta=4,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=1"},  // 3916.2 GB/s
    {"H200", "bsr.k2.bs13.f64", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 3530.7 GB/s
    {"H200", "bsr.k2.bs14.f64", "n_ta=4,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 3935.8 GB/s
    {"H200", "bsr.k2.bs15.f64", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 3580.2 GB/s
    {"H200", "bsr.k2.bs16.f64", "n_ta=4,n_brows_ta=1,n_tg=2,ilp=1,vec=2,pack=1"},  // 4213.5 GB/s
    {"H200", "bsr.k2.bs17.f64", "n_ta=8,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 3242.8 GB/s
    {"H200", "bsr.k2.bs18.f64", "n_ta=21,n_brows_ta=2,n_tg=2,ilp=1,vec=2,pack=1"},  // 3761.8 GB/s
    {"H200", "bsr.k2.bs19.f64", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 3196.9 GB/s
    {"H200", "bsr.k2.bs20.f64", "n_ta=4,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=1"},  // 4002.2 GB/s
    {"H200", "bsr.k2.bs21.f64", "n_ta=12,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=1"},  // 3302.4 GB/s
    {"H200", "bsr.k2.bs22.f64", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=1"},  // 3604.5 GB/s
    {"H200", "bsr.k2.bs23.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=0"},  // 3442.8 GB/s
    {"H200", "bsr.k2.bs24.f64", "n_ta=1,n_brows_ta=2,n_tg=8,ilp=1,vec=2,pack=0"},  // 3719.7 GB/s
    {"H200", "bsr.k2.bs25.f64", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 3267.7 GB/s
    {"H200", "bsr.k2.bs26.f64", "n_ta=1,n_brows_ta=2,n_tg=4,ilp=1,vec=2,pack=0"},  // 3753.9 GB/s
    {"H200", "bsr.k2.bs27.f64", "n_ta=2,n_brows_ta=2,n_tg=4,ilp=1,vec=1,pack=1"},  // 3467.6 GB/s
    {"H200", "bsr.k2.bs28.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 3875.9 GB/s
    {"H200", "bsr.k2.bs29.f64", "n_ta=1,n_brows_ta=2,n_tg=2,ilp=1,vec=1,pack=0"},  // 3153.3 GB/s
    {"H200", "bsr.k2.bs30.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 3969.8 GB/s
    {"H200", "bsr.k2.bs31.f64", "n_ta=1,n_brows_ta=4,n_tg=2,ilp=1,vec=1,pack=0"},  // 3368.2 GB/s
    {"H200", "bsr.k2.bs32.f64", "n_ta=1,n_brows_ta=1,n_tg=4,ilp=1,vec=2,pack=0"},  // 4120.0 GB/s
    {"H200", "bsr.k2.bs33.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs34.f64", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs35.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs36.f64", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs37.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs38.f64", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs39.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs40.f64", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs41.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs42.f64", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs43.f64", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs44.f64", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k3.bs45.f64", "nb=45,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs46.f64", "nb=46,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs47.f64", "nb=47,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs48.f64", "nb=48,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs49.f64", "nb=49,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs50.f64", "nb=50,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs51.f64", "nb=51,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs52.f64", "nb=52,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs53.f64", "nb=53,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs54.f64", "nb=54,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs55.f64", "nb=55,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs56.f64", "nb=56,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs57.f64", "nb=57,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs58.f64", "nb=58,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs59.f64", "nb=59,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs60.f64", "nb=60,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs61.f64", "nb=61,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs62.f64", "nb=62,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs63.f64", "nb=63,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs64.f64", "nb=64,n_tg=4,ept=4"},
    {"H200", "bsr.k1.bs1.f32", "n_ta=8,n_brows_ta=16,ilp=4"},
    {"H200", "bsr.k1.bs2.f32", "n_ta=8,n_brows_ta=16,ilp=4"},
    {"H200", "bsr.k1.bs3.f32", "n_ta=8,n_brows_ta=16,ilp=4"},
    {"H200", "bsr.k1.bs4.f32", "n_ta=8,n_brows_ta=16,ilp=4"},
    {"H200", "bsr.k1.bs5.f32", "n_ta=8,n_brows_ta=16,ilp=4"},
    {"H200", "bsr.k2.bs6.f32", "n_ta=8,n_brows_ta=8,n_tg=4,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs7.f32", "n_ta=8,n_brows_ta=8,n_tg=4,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs8.f32", "n_ta=8,n_brows_ta=8,n_tg=8,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs9.f32", "n_ta=2,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs10.f32", "n_ta=4,n_brows_ta=4,n_tg=8,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs11.f32", "n_ta=2,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs12.f32", "n_ta=4,n_brows_ta=4,n_tg=8,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs13.f32", "n_ta=4,n_brows_ta=4,n_tg=4,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs14.f32", "n_ta=4,n_brows_ta=4,n_tg=8,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs15.f32", "n_ta=4,n_brows_ta=4,n_tg=4,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs16.f32", "n_ta=4,n_brows_ta=4,n_tg=16,ilp=4,vec=4"},
    {"H200", "bsr.k2.bs17.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs18.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs19.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs20.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs21.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs22.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs23.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs24.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs25.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs26.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs27.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs28.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs29.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs30.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=4,vec=2"},
    {"H200", "bsr.k2.bs31.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=4,vec=1"},
    {"H200", "bsr.k2.bs32.f32", "n_ta=1,n_brows_ta=4,n_tg=32,ilp=4,vec=4"},
    {"H200", "bsr.k2.bs33.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs34.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs35.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs36.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs37.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs38.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs39.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs40.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs41.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs42.f32", "n_ta=1,n_brows_ta=4,n_tg=8,ilp=1,vec=2"},
    {"H200", "bsr.k2.bs43.f32", "n_ta=1,n_brows_ta=4,n_tg=4,ilp=1,vec=1"},
    {"H200", "bsr.k2.bs44.f32", "n_ta=1,n_brows_ta=4,n_tg=16,ilp=1,vec=4"},
    {"H200", "bsr.k3.bs45.f32", "nb=45,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs46.f32", "nb=46,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs47.f32", "nb=47,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs48.f32", "nb=48,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs49.f32", "nb=49,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs50.f32", "nb=50,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs51.f32", "nb=51,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs52.f32", "nb=52,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs53.f32", "nb=53,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs54.f32", "nb=54,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs55.f32", "nb=55,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs56.f32", "nb=56,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs57.f32", "nb=57,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs58.f32", "nb=58,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs59.f32", "nb=59,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs60.f32", "nb=60,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs61.f32", "nb=61,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs62.f32", "nb=62,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs63.f32", "nb=63,n_tg=4,ept=4"},
    {"H200", "bsr.k3.bs64.f32", "nb=64,n_tg=4,ept=4"},
    {"H200", "bsr.tma.bs2.f64", "stages=2,tile_kb=8,threads=128,whole=1"},  // 3359.3 GB/s
    {"H200", "bsr.bs2.f64", "kernel=tma"},  // 3359.3 GB/s
    {"H200", "bsr.tma.bs3.f64", "stages=2,tile_kb=16,threads=128,whole=1"},  // 3432.0 GB/s
    {"H200", "bsr.bs3.f64", "kernel=tma"},  // 3432.0 GB/s
    {"H200", "bsr.k2.bs4.f64", "n_ta=16,n_brows_ta=2,n_tg=2,ilp=4,vec=2,pack=1"},  // 3877.4 GB/s
    {"H200", "bsr.tma.bs4.f64", "stages=2,tile_kb=16,threads=128,whole=1"},  // 3438.4 GB/s
    {"H200", "bsr.bs4.f64", "kernel=k2"},  // 3877.4 GB/s
    {"H200", "bsr.k2.bs5.f64", "n_ta=16,n_brows_ta=4,n_tg=2,ilp=4,vec=1,pack=1"},  // 3123.7 GB/s
    {"H200", "bsr.tma.bs5.f64", "stages=2,tile_kb=32,threads=128,whole=1"},  // 3293.9 GB/s
    {"H200", "bsr.bs5.f64", "kernel=tma"},  // 3293.9 GB/s
    {"H200", "bsr.tma.bs6.f64", "stages=2,tile_kb=32,threads=256,whole=0"},  // 3348.0 GB/s
    {"H200", "bsr.bs6.f64", "kernel=k2"},  // 3786.0 GB/s
    {"H200", "bsr.tma.bs7.f64", "stages=2,tile_kb=48,threads=256,whole=1"},  // 3363.1 GB/s
    {"H200", "bsr.bs7.f64", "kernel=k2"},  // 3422.4 GB/s
    {"H200", "bsr.tma.bs8.f64", "stages=2,tile_kb=32,threads=256,whole=0"},  // 3161.9 GB/s
    {"H200", "bsr.bs8.f64", "kernel=k2"},  // 4079.4 GB/s
    {"H200", "bsr.bs12.f64", "kernel=k2"},  // 3916.2 GB/s
    {"H200", "bsr.bs16.f64", "kernel=k3"},  // 4361.2 GB/s
    {"H200", "bsr.bs24.f64", "kernel=k3"},  // 4311.6 GB/s
    {"H200", "bsr.k3.bs32.f64", "nb=32,n_tg=8,ept=4"},  // 4425.2 GB/s
    {"H200", "bsr.bs32.f64", "kernel=k3"},  // 4425.2 GB/s
    {"H200", "bsr.k2.bs2.f64", "n_ta=32,n_brows_ta=1,n_tg=2,ilp=2,vec=2,pack=1"},  // 3023.4 GB/s
    {"H200", "bsr.k2.bs3.f64", "n_ta=16,n_brows_ta=2,n_tg=2,ilp=2,vec=1,pack=1"},  // 2795.9 GB/s
    {"H200", "bsr.bs9.f64", "kernel=k2"},  // 3294.7 GB/s
    {"H200", "bsr.bs10.f64", "kernel=k2"},  // 3959.4 GB/s
    {"H200", "bsr.bs11.f64", "kernel=k2"},  // 3521.6 GB/s
    {"H200", "bsr.bs13.f64", "kernel=k3"},  // 3831.7 GB/s
    {"H200", "bsr.bs14.f64", "kernel=k3"},  // 4079.9 GB/s
    {"H200", "bsr.bs15.f64", "kernel=k3"},  // 4183.6 GB/s
    {"H200", "bsr.bs17.f64", "kernel=k3"},  // 4057.1 GB/s
    {"H200", "bsr.bs18.f64", "kernel=k3"},  // 4289.3 GB/s
    {"H200", "bsr.bs19.f64", "kernel=k3"},  // 4345.2 GB/s
    {"H200", "bsr.bs20.f64", "kernel=k3"},  // 4318.0 GB/s
    {"H200", "bsr.bs21.f64", "kernel=k3"},  // 4262.3 GB/s
    {"H200", "bsr.bs22.f64", "kernel=k3"},  // 4166.3 GB/s
    {"H200", "bsr.bs23.f64", "kernel=k3"},  // 4258.2 GB/s
    {"H200", "bsr.bs25.f64", "kernel=k3"},  // 4163.4 GB/s
    {"H200", "bsr.bs26.f64", "kernel=k3"},  // 4195.9 GB/s
    {"H200", "bsr.bs27.f64", "kernel=k3"},  // 4277.3 GB/s
    {"H200", "bsr.bs28.f64", "kernel=k3"},  // 4142.6 GB/s
    {"H200", "bsr.bs29.f64", "kernel=k3"},  // 4207.4 GB/s
    {"H200", "bsr.bs30.f64", "kernel=k3"},  // 4245.1 GB/s
    {"H200", "bsr.bs31.f64", "kernel=k3"},  // 4317.7 GB/s
    {"H200", "bsr.tma.bs9.f64", "stages=2,tile_kb=32,threads=256,whole=0"},  // 3230.6 GB/s
    {"H200", "bsr.k3.bs12.f64", "nb=12,n_tg=4,ept=3"},  // 3875.1 GB/s
    {"H200", "bsr.k3.bs13.f64", "nb=13,n_tg=4,ept=4"},  // 3831.7 GB/s
    {"H200", "bsr.k3.bs14.f64", "nb=14,n_tg=4,ept=4"},  // 4079.9 GB/s
    {"H200", "bsr.k3.bs15.f64", "nb=15,n_tg=4,ept=4"},  // 4183.6 GB/s
    {"H200", "bsr.k3.bs16.f64", "nb=16,n_tg=4,ept=4"},  // 4361.2 GB/s
    {"H200", "bsr.k3.bs17.f64", "nb=17,n_tg=5,ept=4"},  // 4057.1 GB/s
    {"H200", "bsr.k3.bs18.f64", "nb=18,n_tg=5,ept=4"},  // 4289.3 GB/s
    {"H200", "bsr.k3.bs19.f64", "nb=19,n_tg=5,ept=4"},  // 4345.2 GB/s
    {"H200", "bsr.k3.bs20.f64", "nb=20,n_tg=3,ept=7"},  // 4318.0 GB/s
    {"H200", "bsr.k3.bs21.f64", "nb=21,n_tg=3,ept=7"},  // 4262.3 GB/s
    {"H200", "bsr.k3.bs22.f64", "nb=22,n_tg=4,ept=6"},  // 4166.3 GB/s
    {"H200", "bsr.k3.bs23.f64", "nb=23,n_tg=4,ept=6"},  // 4258.2 GB/s
    {"H200", "bsr.k3.bs24.f64", "nb=24,n_tg=4,ept=6"},  // 4311.6 GB/s
    {"H200", "bsr.k3.bs25.f64", "nb=25,n_tg=7,ept=4"},  // 4163.4 GB/s
    {"H200", "bsr.k3.bs26.f64", "nb=26,n_tg=7,ept=4"},  // 4195.9 GB/s
    {"H200", "bsr.k3.bs27.f64", "nb=27,n_tg=7,ept=4"},  // 4277.3 GB/s
    {"H200", "bsr.k3.bs28.f64", "nb=28,n_tg=7,ept=4"},  // 4142.6 GB/s
    {"H200", "bsr.k3.bs29.f64", "nb=29,n_tg=4,ept=4"},  // 4207.4 GB/s
    {"H200", "bsr.k3.bs30.f64", "nb=30,n_tg=8,ept=4"},  // 4245.1 GB/s
    {"H200", "bsr.k3.bs31.f64", "nb=31,n_tg=8,ept=4"},  // 4317.7 GB/s
};
// clang-format on

}  // namespace

std::optional<std::string> bsr_shipped_default(const std::string& device, const std::string& key) {
  std::optional<std::string> found;
  for (const ShippedEntry& e : kShipped)
    if (device.find(e.family) != std::string::npos && key == e.key) found = e.value;
  return found;
}

}  // namespace spmvkit
