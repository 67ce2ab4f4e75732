// Kernel and parameter choice for BSR (paper Table I and 5.7): the first-guess rule, the
// restrictions every configuration must meet, the tuning store and shipped defaults, and the
// pruned search space the autotuner walks.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "formats/bsr/bsr.hpp"
#include "formats/bsr/bsr_mapping.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit {

namespace {

constexpr int kMaxThreadsPerBlock = 1024;

std::string precision_tag(int value_bytes) { return value_bytes == 8 ? "f64" : "f32"; }

// K2: the share of a thread block's lanes that hold a row slot (bsr_mapping.hpp).
double k2_utilisation(int bs, int vec, int n_tg, int pack, int n_ta) {
  return static_cast<double>(n_ta * bsr::k2_array_threads(bs, vec, n_tg)) /
         bsr::k2_block_threads(bs, vec, n_tg, pack, n_ta);
}
// Threads of one padded (pack=0) thread array.
int k2_padded_array(int bs, int vec, int n_tg) { return bsr::k2_array_stride(bs, vec, n_tg, 0); }
bool k2_vec_allowed(int bs, int vec, int value_bytes) {
  return (vec == 1 || vec == 2 || vec == 4) && bs % vec == 0 && vec * value_bytes <= 16;
}

int pow2_floor(int v) {
  int p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

bool uses(BsrKernel k, const std::string& field) {
  switch (k) {
    case BsrKernel::k1:
      return field == "n_ta" || field == "n_brows_ta" || field == "ilp";
    case BsrKernel::k2:
      return field == "n_ta" || field == "n_brows_ta" || field == "n_tg" || field == "ilp" ||
             field == "vec" || field == "pack";
    case BsrKernel::k3:
      return field == "nb" || field == "n_tg" || field == "ept";
    case BsrKernel::tma:
      return field == "stages" || field == "tile_kb" || field == "threads" || field == "whole" ||
             field == "lanes";
  }
  return false;
}

int* field_of(BsrPolicy& p, const std::string& name) {
  if (name == "n_ta") return &p.n_ta;
  if (name == "n_brows_ta") return &p.n_brows_ta;
  if (name == "n_tg") return &p.n_tg;
  if (name == "ilp") return &p.ilp;
  if (name == "vec") return &p.vec;
  if (name == "pack") return &p.pack;
  if (name == "nb") return &p.nb;
  if (name == "ept") return &p.ept;
  if (name == "stages") return &p.stages;
  if (name == "tile_kb") return &p.tile_kb;
  if (name == "threads") return &p.threads;
  if (name == "whole") return &p.whole;
  if (name == "lanes") return &p.lanes;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& bsr_policy_fields() {
  static const std::vector<std::string> fields = {
      "n_ta", "n_brows_ta", "n_tg",    "ilp",     "vec",   "pack", "nb",
      "ept",  "stages",     "tile_kb", "threads", "whole", "lanes"};
  return fields;
}

namespace {

// Copies the kernel's fields present in `params` into `p`; returns how many. With `strict`, a
// field the kernel does not use is an InputError (explicit user parameters); otherwise it is
// ignored (stored values).
int apply_fields(BsrPolicy& p, const Params& params, bool strict, int bs) {
  int applied = 0;
  for (const std::string& field : bsr_policy_fields()) {
    const char* name = field.c_str();
    if (!params.has(name)) continue;
    if (!uses(p.kernel, name)) {
      if (strict)
        throw InputError(std::string("bsr: parameter ") + name + " does not apply to kernel " +
                         bsr_kernel_name(p.kernel) + " (bs=" + std::to_string(bs) + ")");
      continue;
    }
    const long long v = params.get_int(name, 0);
    // Flags, and lanes=0 (chosen by the kernel); the rest are counts.
    const long long least = field == "whole" || field == "pack" || field == "lanes" ? 0 : 1;
    if (v < least || v > (1 << 20))
      throw InputError(std::string("bsr: ") + name + " must be an integer >= " +
                       std::to_string(least) + ", got " + std::to_string(v));
    *field_of(p, name) = static_cast<int>(v);
    ++applied;
  }
  return applied;
}

std::optional<BsrKernel> parse_kernel(const std::string& s) {
  if (s == "k1" || s == "K1") return BsrKernel::k1;
  if (s == "k2" || s == "K2") return BsrKernel::k2;
  if (s == "k3" || s == "K3") return BsrKernel::k3;
  if (s == "tma") return BsrKernel::tma;
  return std::nullopt;
}

// Largest bs K2 can take: a thread array of bs/vec * N_tg <= 1024 threads whose stage holds
// ept_max * vec <= 16 values (ept_max = ceil(bs/N_tg)) exists up to bs = 128.
constexpr int kK2MaxBlockSize = 128;

bool kernel_covers(BsrKernel k, int bs) {
  switch (k) {
    case BsrKernel::k1:
      return bs <= 5;
    case BsrKernel::k2:
      return bs <= kK2MaxBlockSize;
    case BsrKernel::k3:
      return true;
    case BsrKernel::tma:
      return bs <= kBsrTmaMaxBlockSize;
  }
  return false;
}

// Values for `key`, in priority order: the tuning store (this exact device), then the shipped
// defaults (this device family). Nothing when no device is named (the CPU backend).
std::vector<std::pair<std::string, std::string>> tuned_values(const std::string& device,
                                                              const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  if (device.empty()) return out;
  if (auto v = tuning_get(device, key)) out.emplace_back(*v, "store");
  if (auto v = bsr_shipped_default(device, key)) out.emplace_back(*v, "shipped");
  return out;
}

}  // namespace

const char* bsr_kernel_name(BsrKernel k) {
  switch (k) {
    case BsrKernel::k1:
      return "k1";
    case BsrKernel::k2:
      return "k2";
    case BsrKernel::k3:
      return "k3";
    case BsrKernel::tma:
      return "tma";
  }
  return "?";
}

std::string BsrPolicy::to_params() const {
  const auto kv = [](const char* k, int v) { return std::string(k) + "=" + std::to_string(v); };
  switch (kernel) {
    case BsrKernel::k1:
      return kv("n_ta", n_ta) + "," + kv("n_brows_ta", n_brows_ta) + "," + kv("ilp", ilp);
    case BsrKernel::k2:
      return kv("n_ta", n_ta) + "," + kv("n_brows_ta", n_brows_ta) + "," + kv("n_tg", n_tg) + "," +
             kv("ilp", ilp) + "," + kv("vec", vec) + "," + kv("pack", pack);
    case BsrKernel::k3:
      return kv("nb", nb) + "," + kv("n_tg", n_tg) + "," + kv("ept", ept);
    case BsrKernel::tma:
      return kv("stages", stages) + "," + kv("tile_kb", tile_kb) + "," + kv("threads", threads) +
             "," + kv("whole", whole) + "," + kv("lanes", lanes);
  }
  return "";
}

BsrKernel bsr_rule_kernel(int block_size) {
  if (block_size <= 5) return BsrKernel::k1;
  if (block_size < 45) return BsrKernel::k2;
  return BsrKernel::k3;
}

BsrPolicy bsr_rule_policy(BsrKernel kernel, int bs, int value_bytes) {
  BsrPolicy p;
  p.kernel = kernel;
  p.source = "rule";
  switch (kernel) {
    case BsrKernel::k1:
      // 8 warps a block; 16 block rows a warp, 4 of them in flight at once.
      p.n_ta = 8;
      p.n_brows_ta = 16;
      p.ilp = 4;
      break;
    case BsrKernel::k2: {
      // Pick (vec, N_tg): few idle lanes in the warp-padded thread array, ~4 values a thread per
      // block (ILP within a block), 16-byte loads when bs allows, thread arrays of <= 256.
      int vmax = 1;
      for (int v : {4, 2})
        if (k2_vec_allowed(bs, v, value_bytes)) {
          vmax = v;
          break;
        }
      double best = std::numeric_limits<double>::infinity();
      for (int vec : {4, 2, 1}) {
        if (!k2_vec_allowed(bs, vec, value_bytes)) continue;
        for (int n_tg = 1; n_tg <= 32 && n_tg <= bs; n_tg *= 2) {
          const int ept_max = bsr::k2_ept_max(bs, n_tg);
          const int ept = bsr::k2_ept_instance(ept_max);
          if (ept == 0 || !bsr::k2_has_instance(vec, ept, 1, value_bytes)) continue;
          if (k2_padded_array(bs, vec, n_tg) > kMaxThreadsPerBlock) continue;
          const double score = std::abs(std::log2(ept_max * vec / 4.0)) +
                               4.0 * (1.0 - k2_utilisation(bs, vec, n_tg, 0, 1)) +
                               (vec < vmax ? 0.25 : 0.0) +
                               (k2_padded_array(bs, vec, n_tg) > 256 ? 10.0 : 0.0);
          if (score < best) {
            best = score;
            p.vec = vec;
            p.n_tg = n_tg;
          }
        }
      }
      if (!std::isfinite(best))
        throw InputError("bsr: kernel k2 handles bs <= " + std::to_string(kK2MaxBlockSize) +
                         ", got bs=" + std::to_string(bs));
      const int ept = bsr::k2_ept_instance(bsr::k2_ept_max(bs, p.n_tg));
      p.ilp = 1;
      for (int ilp : {4, 2})
        if (bsr::k2_has_instance(p.vec, ept, ilp, value_bytes)) {
          p.ilp = ilp;
          break;
        }
      // Rows per array: the array loads their pointers once and streams across them, so small
      // (one-warp) arrays take more rows to amortise the first load.
      p.n_brows_ta = k2_padded_array(bs, p.vec, p.n_tg) == 32 ? 8 : 4;
      p.n_ta = std::max(1, 256 / k2_padded_array(bs, p.vec, p.n_tg));
      break;
    }
    case BsrKernel::k3:
      // The whole block height in one thread block up to 64 rows; 4 thread groups of 4 columns.
      p.nb = std::min(bs, 64);
      p.n_tg = std::min(4, pow2_floor(p.nb));
      p.ept = std::min(4, pow2_floor(p.nb / p.n_tg));
      break;
    case BsrKernel::tma:
      // Measured on an H100 (bench/results/2026-11-22-h100-tma): two buffers; 16 KB tiles for
      // bs <= 3, 32 KB above (a tile then still holds several block rows).
      p.stages = 2;
      p.tile_kb = bs <= 3 ? 16 : 32;
      p.threads = 256;
      break;
  }
  return p;
}

BsrPolicy bsr_fit_rows(BsrPolicy p, const BsrRowStats& stats, int sm_count,
                       const std::function<BsrPolicy()>& tma, bool rows_given) {
  if (p.kernel != BsrKernel::k2) return p;
  // K2's thread blocks at `rows` block rows an array: fewer than four an SM leave it idle.
  const auto few = [&](int rows) {
    const std::int64_t per_block = std::int64_t{p.n_ta} * rows;
    const std::int64_t blocks = (std::int64_t{stats.block_rows} + per_block - 1) / per_block;
    return blocks < 4 * std::int64_t{sm_count};
  };
  if (tma && few(1)) {
    BsrPolicy t = tma();
    t.source += "+rows";
    return t;
  }
  if (rows_given || p.n_brows_ta <= 1) return p;
  if (stats.cv > kBsrRegularRowsCv || few(p.n_brows_ta)) {
    p.n_brows_ta = 1;
    p.source += "+rows";
  }
  return p;
}

void validate_bsr_policy(const BsrPolicy& p, int bs, int value_bytes) {
  const auto fail = [&](const std::string& why) {
    throw InputError("bsr: kernel " + std::string(bsr_kernel_name(p.kernel)) +
                     " with bs=" + std::to_string(bs) + ": " + why);
  };
  if (bs < 1 || bs > kBsrMaxBlockSize) fail("block size out of range");
  switch (p.kernel) {
    case BsrKernel::k1:
      if (bs > 5) fail("K1 needs bs <= 5 (a warp holds at least one whole block)");
      if (p.n_ta < 1 || p.n_ta > kMaxThreadsPerBlock / 32) fail("n_ta must be in 1..32");
      if (p.n_brows_ta < 1 || p.n_brows_ta > 31) fail("n_brows_ta must be in 1..31");
      if (p.ilp != 1 && p.ilp != 2 && p.ilp != 4 && p.ilp != 8) fail("ilp must be 1, 2, 4 or 8");
      break;
    case BsrKernel::k2: {
      if (bs > kK2MaxBlockSize) fail("K2 needs bs <= " + std::to_string(kK2MaxBlockSize));
      if (!bsr::is_pow2(p.n_tg) || p.n_tg > 32)
        fail("n_tg must be a power of two <= 32 (a row's thread groups are adjacent lanes)");
      if (p.n_tg > bs) fail("n_tg must be <= bs (Table I)");
      if (!k2_vec_allowed(bs, p.vec, value_bytes))
        fail("vec must be 1, 2 or 4, divide bs, and load at most 16 bytes");
      const int ept_max = bsr::k2_ept_max(bs, p.n_tg);
      const int ept = bsr::k2_ept_instance(ept_max);
      if (ept == 0) fail("ept_max = ceil(bs/n_tg) must be <= 16");
      if (p.ilp != 1 && p.ilp != 2 && p.ilp != 4) fail("ilp must be 1, 2 or 4");
      if (!bsr::k2_has_instance(p.vec, ept, p.ilp, value_bytes))
        fail("ept_max*ilp*vec over the register budget (" + std::to_string(bsr::kK2StageValues) +
             " values a pipeline stage)");
      if (p.n_brows_ta < 1 || p.n_brows_ta > 31) fail("n_brows_ta must be in 1..31");
      if (p.pack != 0 && p.pack != 1) fail("pack must be 0 or 1");
      const int array_threads = bsr::k2_array_stride(bs, p.vec, p.n_tg, p.pack);
      if (p.n_ta < 1 ||
          bsr::k2_block_threads(bs, p.vec, p.n_tg, p.pack, p.n_ta) > kMaxThreadsPerBlock)
        fail("n_ta * thread-array size (" + std::to_string(array_threads) +
             ") must be in 1..1024 threads");
      break;
    }
    case BsrKernel::k3:
      if (p.nb < 1 || p.nb > bs) fail("nb must be in 1..bs (Table I)");
      if (p.n_tg < 1 || p.n_tg > 32) fail("n_tg must be in 1..32");
      if (p.ept < 1 || p.ept > kBsrK3MaxEpt)
        fail("ept must be in 1.." + std::to_string(kBsrK3MaxEpt));
      // Table I asks n_tg * ept <= nb. We also take a working set wider than the block when
      // every thread group still has a column in it (bs 17 in one pass of 4 x 5 columns
      // instead of 16 columns, then one).
      if (p.n_tg * p.ept > p.nb && (p.n_tg - 1) * p.ept >= bs)
        fail("n_tg * ept must be <= nb (Table I), or leave no thread group without a column");
      if (p.nb * p.n_tg > kMaxThreadsPerBlock) fail("nb * n_tg must be <= 1024 threads");
      break;
    case BsrKernel::tma:
      if (bs > kBsrTmaMaxBlockSize) fail("tma needs bs <= " + std::to_string(kBsrTmaMaxBlockSize));
      if (p.stages < 2 || p.stages > 4) fail("stages must be 2, 3 or 4");
      if (p.tile_kb != 4 && p.tile_kb != 8 && p.tile_kb != 16 && p.tile_kb != 32 && p.tile_kb != 48)
        fail("tile_kb must be 4, 8, 16, 32 or 48");
      if (p.threads != 128 && p.threads != 256 && p.threads != 512)
        fail("threads must be 128, 256 or 512");
      if (p.whole < 0 || p.whole > 2) fail("whole must be 0, 1 or 2");
      if (p.whole == 2 && bsr_tma_part_rows(bs) == 0)
        fail("whole=2 needs bs in 6.." + std::to_string(kBsrTmaMaxBlockSize));
      if (p.lanes < 0 || p.lanes > 32 || (p.lanes > 0 && !bsr::is_pow2(p.lanes)))
        fail("lanes must be 0 (chosen from the tile) or a power of two <= 32");
      break;
  }
}

std::string bsr_tuning_key(BsrKernel kernel, int bs, int value_bytes) {
  return "bsr." + std::string(bsr_kernel_name(kernel)) + ".bs" + std::to_string(bs) + "." +
         precision_tag(value_bytes);
}

std::string bsr_kernel_key(int bs, int value_bytes) {
  return "bsr.bs" + std::to_string(bs) + "." + precision_tag(value_bytes);
}

BsrPolicy bsr_kernel_policy(const std::string& device, BsrKernel kernel, int bs, int value_bytes) {
  BsrPolicy policy = bsr_rule_policy(kernel, bs, value_bytes);
  for (const auto& [value, source] :
       tuned_values(device, bsr_tuning_key(kernel, bs, value_bytes))) {
    try {
      BsrPolicy t = policy;
      apply_fields(t, Params::parse(value), false, bs);
      validate_bsr_policy(t, bs, value_bytes);
      policy = t;
      policy.source = source;
      break;
    } catch (const InputError&) {  // a stale or hand-edited entry: try the next source
    }
  }
  return policy;
}

BsrPolicy choose_bsr_policy(const std::string& device, int bs, int value_bytes,
                            const Params& params) {
  if (bs < 1 || bs > kBsrMaxBlockSize)
    throw InputError("bsr: block_size must be in 1.." + std::to_string(kBsrMaxBlockSize) +
                     ", got " + std::to_string(bs));
  BsrKernel kernel = bsr_rule_kernel(bs);
  std::string kernel_source = "rule";
  if (params.has("kernel")) {
    const auto k = parse_kernel(params.get_string("kernel", ""));
    if (!k)
      throw InputError("bsr: kernel must be k1, k2, k3 or tma, got '" +
                       params.get_string("kernel", "") + "'");
    kernel = *k;
    kernel_source = "params";
  } else {
    for (const auto& [value, source] : tuned_values(device, bsr_kernel_key(bs, value_bytes))) {
      try {
        const auto k = parse_kernel(Params::parse(value).get_string("kernel", ""));
        if (k && kernel_covers(*k, bs)) {
          kernel = *k;
          kernel_source = source;
          break;
        }
      } catch (const InputError&) {
      }
    }
  }
  if (!kernel_covers(kernel, bs))
    throw InputError("bsr: kernel " + std::string(bsr_kernel_name(kernel)) +
                     " cannot take bs=" + std::to_string(bs) +
                     (kernel == BsrKernel::k1 ? " (K1: bs <= 5)"
                      : kernel == BsrKernel::k2
                          ? " (K2: bs <= 128)"
                          : " (tma: bs <= " + std::to_string(kBsrTmaMaxBlockSize) + ")"));

  BsrPolicy policy = bsr_kernel_policy(device, kernel, bs, value_bytes);
  if (apply_fields(policy, params, true, bs) > 0 || kernel_source == "params")
    policy.source += "+params";
  validate_bsr_policy(policy, bs, value_bytes);
  return policy;
}

// Smallest bs each kernel is tuned at (k1, k2, k3, tma). K2 from 2: packed arrays beat tma at
// bs 4 (bench/results/2026-11-23-h100-k2-pack). K3 from 12: tried from bs 6 on an H100, it
// reached 36-84% of K2's speed up to bs 12 (one thread block a block row is too little work
// there); from bs 13 on it wins (bench/results/2026-11-23-h100-k3-mid).
constexpr int kBsrTunedFrom[] = {1, 2, 12, 1};

std::vector<BsrPolicy> bsr_tuning_candidates(BsrKernel kernel, int bs, int value_bytes) {
  std::vector<BsrPolicy> out;
  const auto keep = [&](BsrPolicy p) {
    p.kernel = kernel;
    p.source = "tune";
    try {
      validate_bsr_policy(p, bs, value_bytes);
    } catch (const InputError&) {
      return;
    }
    out.push_back(p);
  };
  if (!kernel_covers(kernel, bs) || bs < kBsrTunedFrom[static_cast<int>(kernel)]) return out;
  switch (kernel) {
    case BsrKernel::k1:
      for (int n_ta : {2, 4, 8, 16})
        for (int ilp : {1, 2, 4, 8})
          for (int groups : {1, 2, 3, 4}) {  // N_brows_ta = groups of ilp rows, <= 31
            BsrPolicy p;
            p.n_ta = n_ta;
            p.ilp = ilp;
            p.n_brows_ta = groups * ilp;
            keep(p);
          }
      break;
    case BsrKernel::k2:
      for (int vec : {1, 2, 4}) {
        if (!k2_vec_allowed(bs, vec, value_bytes)) continue;
        for (int n_tg = 1; n_tg <= 32 && n_tg <= bs; n_tg *= 2)
          // Packing differs from padding only when an array is not made of whole warps.
          for (int pack = 0; pack <= (bsr::k2_array_threads(bs, vec, n_tg) % 32 != 0 ? 1 : 0);
               ++pack) {
            // Padded thread arrays more than half idle are ruled out.
            if (pack == 0 && k2_utilisation(bs, vec, n_tg, 0, 1) < 0.5) continue;
            for (int ilp : {1, 2, 4})
              for (int n_brows_ta : {1, 2, 4, 8, 16})
                for (int n_ta : {1, 2, 4, 8, 16, 32}) {
                  const int threads = bsr::k2_block_threads(bs, vec, n_tg, pack, n_ta);
                  // At least two warps a thread block (paper 4.4), unless one array is bigger;
                  // packed: 2 to 32 arrays, at most 1/8 of the block's lanes idle.
                  if (pack == 0 && ((threads < 64 && n_ta < 8) || n_ta > 8)) continue;
                  if (pack == 1 &&
                      (n_ta < 2 || threads < 64 || k2_utilisation(bs, vec, n_tg, 1, n_ta) < 0.875))
                    continue;
                  BsrPolicy p;
                  p.vec = vec;
                  p.n_tg = n_tg;
                  p.ilp = ilp;
                  p.n_brows_ta = n_brows_ta;
                  p.n_ta = n_ta;
                  p.pack = pack;
                  keep(p);
                }
          }
      }
      break;
    case BsrKernel::k3: {
      std::set<int> heights = {16, 32, 64, 128, 256};
      if (bs <= 256) heights.insert(bs);  // the whole block height in one thread block
      for (int nb : heights) {
        if (nb > bs) continue;
        std::set<std::pair<int, int>> added;
        const auto add = [&](int n_tg, int ept) {
          if (nb * n_tg < 64 && nb * n_tg < bs) return;  // at least two warps, if bs allows
          if (!added.emplace(n_tg, ept).second) return;
          BsrPolicy p;
          p.nb = nb;
          p.n_tg = n_tg;
          p.ept = ept;
          keep(p);
        };
        // The paper's space: powers of two, n_tg * ept <= nb.
        for (int n_tg : {1, 2, 4, 8, 16})
          for (int ept : {1, 2, 4, 8})
            if (n_tg * ept <= nb) add(n_tg, ept);
        // Ours: the whole block width in one working set, n_tg groups of ceil(bs / n_tg)
        // columns (bs not a multiple of a power of two otherwise ends on a pass of a few columns).
        for (int n_tg = 1; n_tg <= 16; ++n_tg) {
          const int ept = (bs + n_tg - 1) / n_tg;
          if (ept <= kBsrK3MaxEpt && (n_tg - 1) * ept < bs) add(n_tg, ept);
        }
      }
      break;
    }
    case BsrKernel::tma:
      for (int whole : {0, 1, 2})
        for (int stages : {2, 3})
          for (int tile_kb : {8, 16, 32, 48})
            for (int threads : {128, 256, 512}) {
              // 48 KB tiles only for bs >= 7, whose 32 KB tiles hold few block rows.
              if (tile_kb == 48 && bs < 7) continue;
              BsrPolicy p;
              p.stages = stages;
              p.tile_kb = tile_kb;
              p.threads = threads;
              p.whole = whole;
              for (int lanes : {0, 1, 2, 4, 8, 16}) {
                p.lanes = lanes;
                keep(p);
              }
            }
      break;
  }
  return out;
}

}  // namespace spmvkit
