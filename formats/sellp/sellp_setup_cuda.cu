// SELL-P packed on the device from a device CSR (sellp_cuda.hpp): the arrays sellp_pack and
// sellp_column_deltas make on the host (same layout, same padding), and the footprint
// sellp_footprint counts there.
#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "formats/sellp/sellp_cuda.hpp"

namespace spmvkit {

namespace {

// Launch shapes of the packing kernels.
struct SellpSetupPolicy {
  static constexpr int block_threads = 256;  // a thread a row, position, slice or slot
  static constexpr int min_pack_threads = 256;  // pack: as the SpMV kernel, b*t threads a slice
  static constexpr int chunk_warps = 8;      // chunk bases: a warp a chunk
};

__device__ __forceinline__ std::int64_t thread_id() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// SELL-C-sigma's sort keys (sellp_sort_order): window r / sigma first, then the longest row
// first; a stable radix sort of (key, row) pairs gives the permutation, equal lengths in row
// order. A thread a row.
template <class K>
__global__ void sellp_sort_key_kernel(index_t rows, index_t sigma, index_t longest,
                                      const index_t* __restrict__ row_ptr, K* key, index_t* row) {
  const std::int64_t r = thread_id();
  if (r >= rows) return;
  const index_t len = row_ptr[r + 1] - row_ptr[r];
  key[r] = static_cast<K>(r / sigma) * (static_cast<K>(longest) + 1) +
           static_cast<K>(longest - len);
  if (row != nullptr) row[r] = static_cast<index_t>(r);
}

// A slice of b rows whose longest row is `longest` holds b * round_up(longest, t) slots (0 for
// threads past the last slice, which pass 0): summed over the block, added once into *slots.
__device__ void add_slice_slots(index_t longest, int slice_size, int threads_per_row,
                                unsigned long long* slots) {
  using BlockReduce = cub::BlockReduce<long long, SellpSetupPolicy::block_threads>;
  __shared__ typename BlockReduce::TempStorage storage;
  const long long mine =
      static_cast<long long>(slice_size) *
      ((static_cast<long long>(longest) + threads_per_row - 1) / threads_per_row * threads_per_row);
  const long long block = BlockReduce(storage).Sum(mine);
  if (threadIdx.x == 0 && block > 0) atomicAdd(slots, static_cast<unsigned long long>(block));
}

// sellp_slots's unsorted count: slice s (rows s*b .. s*b+b-1) holds b * round_up(its longest
// row, t) slots. A thread a slice; block sums added into *slots (zeroed). Bytes: the row
// pointer.
__global__ void sellp_unsorted_slots_kernel(index_t rows, std::int64_t slices, int slice_size,
                                            int threads_per_row,
                                            const index_t* __restrict__ row_ptr,
                                            unsigned long long* slots) {
  const std::int64_t s = thread_id();
  index_t longest = 0;
  if (s < slices) {
    const std::int64_t r0 = s * slice_size, r1 = min(std::int64_t{rows}, r0 + slice_size);
    for (std::int64_t r = r0; r < r1; ++r) longest = max(longest, row_ptr[r + 1] - row_ptr[r]);
  }
  add_slice_slots(longest, slice_size, threads_per_row, slots);
}

// sellp_slots's sorted count from the window-sorted keys (sellp_sort_key_kernel's, sorted):
// every window holds whole slices, so slice s's longest row is at sorted position s*b. A
// thread a slice; block sums added into *slots (zeroed). Bytes: one key a slice.
template <class K>
__global__ void sellp_sorted_slots_kernel(std::int64_t slices, int slice_size, int threads_per_row,
                                          index_t longest, const K* __restrict__ sorted_key,
                                          unsigned long long* slots) {
  const std::int64_t s = thread_id();
  index_t len = 0;
  if (s < slices)
    len = longest -
          static_cast<index_t>(sorted_key[s * slice_size] % (static_cast<K>(longest) + 1));
  add_slice_slots(len, slice_size, threads_per_row, slots);
}

// Row lengths in slice order (0 past the rows), and each slice's longest row: a segmented max
// over the slice's b positions, by shuffles within min(b, 32) lanes and, for b > 32, an
// atomicMax into slice_longest (zeroed). A thread a position; every lane of a launched warp
// reaches the shuffles (b is a power of two, so segments never straddle warps).
__global__ void sellp_slice_kernel(index_t rows, std::int64_t positions, int slice_size,
                                   const index_t* __restrict__ row_ptr,
                                   const index_t* __restrict__ perm, index_t* row_length,
                                   index_t* slice_longest) {
  const std::int64_t p = thread_id();
  index_t len = 0;
  if (p < rows) {
    const index_t r = perm != nullptr ? perm[p] : static_cast<index_t>(p);
    len = row_ptr[r + 1] - row_ptr[r];
  }
  if (p < positions) row_length[p] = len;
  const int width = min(slice_size, 32);
  for (int offset = width / 2; offset > 0; offset /= 2)
    len = max(len, __shfl_xor_sync(0xffffffffu, len, offset));
  if (p < positions && (threadIdx.x % width) == 0) {
    const std::int64_t s = p / slice_size;
    if (slice_size <= 32)
      slice_longest[s] = len;
    else
      atomicMax(slice_longest + s, len);
  }
}

// Chunks a slice (its longest row over t, rounded up) and its slot count b*t*chunks, written
// to slice_ptr[s] for the exclusive scan (slice_ptr[slices] = 0). A thread a slice.
__global__ void sellp_slice_size_kernel(index_t slices, int slice_size, int threads_per_row,
                                        index_t* slice_chunks, std::int64_t* slice_ptr) {
  const std::int64_t s = thread_id();
  if (s > slices) return;
  if (s == slices) {
    slice_ptr[s] = 0;
    return;
  }
  const index_t chunks = (slice_chunks[s] + threads_per_row - 1) / threads_per_row;
  slice_chunks[s] = chunks;
  slice_ptr[s] = static_cast<std::int64_t>(chunks) * slice_size * threads_per_row;
}

// The slots (sellp_pack): thread (i, tj) of slice s, as in the SpMV kernel, writes slot
// slice_ptr[s] + c*(b*t) + i*t + tj for every chunk c = blockIdx.y + n gridDim.y of its slice:
// entry j = c*t + tj of its row, or padding (column `padding`, value 0). C: index_t (padding
// -1), or uint16_t where every column fits 16 bits (deltas from a base of 0, padding
// delta_padding: sellp_column_deltas's encoding with zero bases). Writes coalesced; reads the
// row's entries (a gather across rows, as the ELL pack). Bytes: per entry column + value read;
// per slot column + value written. gridDim.y splits a long slice's chunks among that many
// threads (one thread a lane walking 3,000 chunks of rajat01's longest slice had taken ~0.14
// ms of a 0.4 ms build).
template <class V, class C>
__global__ void sellp_pack_kernel(index_t rows, index_t slices, int slice_size,
                                  int threads_per_row, const std::int64_t* __restrict__ slice_ptr,
                                  const index_t* __restrict__ slice_chunks,
                                  const index_t* __restrict__ row_length,
                                  const index_t* __restrict__ perm,
                                  const index_t* __restrict__ row_ptr,
                                  const index_t* __restrict__ col_idx,
                                  const V* __restrict__ values, C padding, C* out_col,
                                  V* out_val) {
  const int group = slice_size * threads_per_row;
  const std::int64_t gid = thread_id();
  const std::int64_t s = gid / group;
  if (s >= slices) return;
  const int local = static_cast<int>(gid - s * group);
  const int i = local / threads_per_row;
  const int tj = local % threads_per_row;
  const std::int64_t p = s * slice_size + i;
  const index_t len = row_length[p];
  const index_t start =
      p < rows ? row_ptr[perm != nullptr ? perm[p] : static_cast<index_t>(p)] : 0;
  const index_t chunks = slice_chunks[s];
  const std::int64_t first = slice_ptr[s] + local;
#pragma unroll 4
  for (index_t c = static_cast<index_t>(blockIdx.y); c < chunks;
       c += static_cast<index_t>(gridDim.y)) {
    const index_t j = c * threads_per_row + tj;
    const bool used = j < len;
    const std::int64_t slot = first + static_cast<std::int64_t>(c) * group;
    out_col[slot] = used ? static_cast<C>(col_idx[start + j]) : padding;
    out_val[slot] = used ? values[start + j] : V(0);
  }
}

// The byte model's sector counts (SellpFootprint::used_groups_*): aligned groups of 4, 8 and
// 16 slots holding an entry (a column other than `padding`), from one ballot a warp; summed a
// block, one atomic a block and count. A thread a slot.
template <class C>
__global__ void sellp_used_groups_kernel(std::int64_t slots, const C* __restrict__ col, C padding,
                                         unsigned long long* used) {
  const std::int64_t k = thread_id();
  const unsigned mask = __ballot_sync(0xffffffffu, k < slots && col[k] != padding);
  unsigned long long count[3] = {0, 0, 0};
  if (threadIdx.x % 32 == 0) {
    int n = 0;
    for (int g = 4; g <= 16; g *= 2, ++n) {
      const unsigned ones = (1u << g) - 1;
      for (int shift = 0; shift < 32; shift += g) count[n] += ((mask >> shift) & ones) != 0;
    }
  }
  using BlockReduce = cub::BlockReduce<unsigned long long, SellpSetupPolicy::block_threads>;
  __shared__ typename BlockReduce::TempStorage storage;
  for (int n = 0; n < 3; ++n) {
    const unsigned long long total = BlockReduce(storage).Sum(count[n]);
    if (threadIdx.x == 0 && total > 0) atomicAdd(used + n, total);
    __syncthreads();
  }
}

// Per chunk of b*t slots: whether it holds an entry (counted), and with `base` its smallest
// column (0 for an empty chunk) and whether its columns span more than delta_max_span (*misfit
// set) (sellp_column_deltas). A warp a chunk, lanes striding through it.
__global__ void sellp_chunk_kernel(std::int64_t chunks, int group, const index_t* __restrict__ col,
                                   index_t* base, unsigned long long* misfit,
                                   unsigned long long* used_chunks) {
  const std::int64_t q = thread_id() / 32;
  const int lane = threadIdx.x % 32;
  bool used = false;
  if (q < chunks) {
    index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
    for (int k = lane; k < group; k += 32) {
      const index_t c = col[q * group + k];
      if (c >= 0) {
        lo = min(lo, c);
        hi = max(hi, c);
      }
    }
    lo = __reduce_min_sync(0xffffffffu, lo);
    hi = __reduce_max_sync(0xffffffffu, hi);
    used = hi >= 0;
    if (lane == 0 && base != nullptr) {
      base[q] = used ? lo : 0;
      if (used && static_cast<std::int64_t>(hi) - lo > delta_max_span) *misfit = 1;
    }
  }
  using BlockReduce = cub::BlockReduce<int, SellpSetupPolicy::chunk_warps * 32>;
  __shared__ typename BlockReduce::TempStorage storage;
  const int block_used = BlockReduce(storage).Sum(lane == 0 && used ? 1 : 0);
  if (threadIdx.x == 0 && block_used > 0)
    atomicAdd(used_chunks, static_cast<unsigned long long>(block_used));
}

// col - base of its chunk as a 16-bit delta, delta_padding at padding. A thread a slot.
__global__ void sellp_delta_kernel(std::int64_t slots, int group, const index_t* __restrict__ col,
                                   const index_t* __restrict__ base, std::uint16_t* delta) {
  const std::int64_t k = thread_id();
  if (k >= slots) return;
  const index_t c = col[k];
  delta[k] = c >= 0 ? static_cast<std::uint16_t>(c - base[k / group]) : delta_padding;
}

unsigned grid(std::int64_t threads, int block) {
  return cuda::grid_for(static_cast<std::size_t>(threads), static_cast<std::size_t>(block));
}

// The SELL-C-sigma permutation (sellp_sort_order) with keys of type K.
template <class K, class V>
cuda::DeviceBuffer<index_t> sort_order(const DeviceCsrView<V>& a, index_t sigma, index_t longest,
                                       int end_bit, cudaStream_t stream) {
  constexpr int block = SellpSetupPolicy::block_threads;
  const auto n = static_cast<std::size_t>(a.rows);
  cuda::DeviceBuffer<index_t> perm(n);
  {
    cuda::DeviceBuffer<K> key(n), sorted_key(n);
    cuda::DeviceBuffer<index_t> row(n);
    sellp_sort_key_kernel<K><<<grid(a.rows, block), block, 0, stream>>>(
        a.rows, sigma, longest, a.row_ptr, key.data(), row.data());
    SPMVKIT_LAUNCH_CHECK();
    cuda::cub_call(
        [&](void* t, std::size_t& b, cudaStream_t s) {
          return cub::DeviceRadixSort::SortPairs(t, b, key.data(), sorted_key.data(), row.data(),
                                                 perm.data(), a.rows, 0, end_bit, s);
        },
        stream);
  }  // the temporaries freed in stream order
  return perm;
}

// sellp_slots for a sorted configuration, queued: the rows' (window, longest first) keys of
// type K, sorted (keys only, double-buffered: 2 K a row), then the slices' first keys read and
// summed into *slots (zeroed by the caller). The keys are freed in stream order.
template <class K, class V>
void queue_sorted_slots(const DeviceCsrView<V>& a, const SellpConfig& c, index_t longest,
                        int end_bit, unsigned long long* slots, cudaStream_t stream) {
  constexpr int block = SellpSetupPolicy::block_threads;
  const auto n = static_cast<std::size_t>(a.rows);
  cuda::DeviceBuffer<K> key(n), other(n);
  sellp_sort_key_kernel<K><<<grid(a.rows, block), block, 0, stream>>>(
      a.rows, c.sigma, longest, a.row_ptr, key.data(), nullptr);
  SPMVKIT_LAUNCH_CHECK();
  cub::DoubleBuffer<K> keys(key.data(), other.data());
  cuda::cub_call(
      [&](void* t, std::size_t& b, cudaStream_t s) {
        return cub::DeviceRadixSort::SortKeys(t, b, keys, a.rows, 0, end_bit, s);
      },
      stream);
  const std::int64_t slices = (std::int64_t{a.rows} + c.slice_size - 1) / c.slice_size;
  sellp_sorted_slots_kernel<K><<<grid(slices, block), block, 0, stream>>>(
      slices, c.slice_size, c.threads_per_row, longest, keys.Current(), slots);
  SPMVKIT_LAUNCH_CHECK();
}

// sellp_slots of `c` summed into *slots (zeroed by the caller), queued on `stream`.
template <class V>
void queue_slots(const DeviceCsrView<V>& a, const SellpConfig& c, index_t longest,
                 unsigned long long* slots, cudaStream_t stream) {
  if (a.rows == 0) return;
  constexpr int block = SellpSetupPolicy::block_threads;
  if (c.sigma <= 1) {
    const std::int64_t slices = (std::int64_t{a.rows} + c.slice_size - 1) / c.slice_size;
    sellp_unsorted_slots_kernel<<<grid(slices, block), block, 0, stream>>>(
        a.rows, slices, c.slice_size, c.threads_per_row, a.row_ptr, slots);
    SPMVKIT_LAUNCH_CHECK();
    return;
  }
  const std::int64_t windows = (std::int64_t{a.rows} + c.sigma - 1) / c.sigma;
  const int end_bit = std::max(
      1, cuda::bits_for(
             static_cast<std::uint64_t>(windows) * (static_cast<std::uint64_t>(longest) + 1) - 1));
  if (end_bit <= 32)
    queue_sorted_slots<std::uint32_t>(a, c, longest, end_bit, slots, stream);
  else
    queue_sorted_slots<std::uint64_t>(a, c, longest, end_bit, slots, stream);
}

// Up to this many rows the rule's configurations are all counted before it asks, with one
// download: below it a round trip (~12-25 us, H100) costs more than the counts it may save
// (three radix sorts of the rows at most).
constexpr index_t kPrefetchRows = index_t{1} << 16;
constexpr std::size_t kSpeculativeDeltaSlots = std::size_t{1} << 22;

}  // namespace

template <class V>
std::int64_t sellp_slots_device(const DeviceCsrView<V>& a, const SellpConfig& c, index_t longest) {
  if (a.rows == 0) return 0;
  cudaStream_t stream = cuda::Context::get().stream();
  cuda::DeviceBuffer<unsigned long long> slots(1);
  SPMVKIT_CUDA_CHECK(cudaMemsetAsync(slots.data(), 0, slots.bytes(), stream));
  queue_slots(a, c, longest, slots.data(), stream);
  unsigned long long host = 0;
  cuda::copy_to_host(&host, slots.data(), sizeof host);
  return static_cast<std::int64_t>(host);
}

template <class V>
SellpDeviceCounts sellp_row_counts_device(const DeviceCsrView<V>& a) {
  SellpDeviceCounts out;
  // A small matrix the registry uploaded from the host: the counts made there from its row
  // pointer (sellp_row_counts), no download.
  if (const std::vector<index_t>* mirrored = cuda::host_lengths(a.row_ptr, a.rows)) {
    // Not owned: the mirror keeps them for the build's scope.
    auto lengths = std::shared_ptr<const std::vector<index_t>>(std::shared_ptr<void>(), mirrored);
    const index_t longest =
        lengths->empty() ? 0 : *std::max_element(lengths->begin(), lengths->end());
    out.rows = sellp_row_counts(*lengths);
    const auto slots = out.rows.slots;  // reads *lengths, kept alive with it
    out.rows.slots = [lengths, slots](const SellpConfig& c) { return slots(c); };
    out.longest = [longest] { return longest; };
    out.host_lengths = std::move(lengths);
    return out;
  }
  SellpRowCounts& n = out.rows;
  n.rows = a.rows;
  n.nnz = a.nnz;
  // The rule asks for the chosen configuration's slots again (the fill check): counted once.
  using Key = std::tuple<int, int, index_t>;
  struct State {
    std::map<Key, std::int64_t> known;
    index_t longest = -1;  // not yet known
  };
  auto state = std::make_shared<State>();
  const auto key = [](const SellpConfig& c) {
    return std::make_tuple(c.slice_size, c.threads_per_row, c.sigma);
  };
  out.longest = [a, state] {
    if (state->longest < 0) state->longest = cuda::longest_row(a);
    return state->longest;
  };
  const std::function<index_t()> longest = out.longest;
  n.slots = [a, state, key, longest](const SellpConfig& c) {
    const auto it = state->known.find(key(c));
    if (it != state->known.end()) return it->second;
    const std::int64_t slots = sellp_slots_device(a, c, longest());
    state->known.emplace(key(c), slots);
    return slots;
  };
  // Up to kPrefetchRows rows: the configurations asked counted together, one download; with the
  // longest row when it is not known yet (the unsorted counts do not need it: where a sorted
  // one is asked it is found first).
  n.prefetch = [a, state, key, longest](const std::vector<SellpConfig>& asked) {
    if (a.rows == 0 || a.rows > kPrefetchRows) return;
    std::vector<SellpConfig> todo;
    bool sorted = false;
    for (const SellpConfig& c : asked)
      if (state->known.count(key(c)) == 0 &&
          std::none_of(todo.begin(), todo.end(),
                       [&](const SellpConfig& t) { return key(t) == key(c); })) {
        todo.push_back(c);
        sorted = sorted || c.sigma > 1;
      }
    if (todo.empty()) return;
    const index_t known_longest = sorted ? longest() : state->longest;
    cudaStream_t stream = cuda::Context::get().stream();
    // The counts, then the longest row (an index_t in the last slot's zeroed low bytes).
    cuda::DeviceBuffer<unsigned long long> slots(todo.size() + 1);
    SPMVKIT_CUDA_CHECK(cudaMemsetAsync(slots.data(), 0, slots.bytes(), stream));
    for (std::size_t i = 0; i < todo.size(); ++i)
      queue_slots(a, todo[i], known_longest, slots.data() + i, stream);
    if (known_longest < 0)
      cuda::queue_longest_row(a.rows, a.row_ptr,
                              reinterpret_cast<index_t*>(slots.data() + todo.size()));
    const std::vector<unsigned long long> host = slots.download();
    for (std::size_t i = 0; i < todo.size(); ++i)
      state->known.emplace(key(todo[i]), static_cast<std::int64_t>(host[i]));
    if (known_longest < 0) state->longest = static_cast<index_t>(host.back() & 0xffffffffULL);
  };
  return out;
}

template <class V>
SellpDevice<V> sellp_pack_device(const DeviceCsrView<V>& a, const SellpConfig& config,
                                 index_t longest, std::int64_t slots_counted, bool try_deltas,
                                 const std::vector<index_t>* host_lengths,
                                 const SellpWindowCounts* windows) {
  constexpr int block = SellpSetupPolicy::block_threads;
  const int b = config.slice_size, t = config.threads_per_row, group = b * t;
  SellpDevice<V> s;
  s.rows = a.rows;
  SellpFootprint& f = s.footprint;
  f.config = config;
  f.slices = static_cast<index_t>((std::int64_t{a.rows} + b - 1) / b);
  f.positions = std::int64_t{f.slices} * b;
  // A small matrix the host holds (its lengths from sellp_row_counts_device's host count): the
  // permutation, the slice order's row lengths, the slices' chunks and pointer made there
  // (sellp_slices, as sellp_pack makes them), and queued up (no sort, no scan on the device).
  // The footprint's counts too, from the layout (sellp_footprint): no count on the device, no
  // download.
  const bool counted_on_host = host_lengths && a.rows > 0;
  if (counted_on_host) {
    cuda::build_phase("slices_on_host");
    const SellpSlices layout = sellp_slices(*host_lengths, config, windows);
    if (layout.slice_ptr.back() != slots_counted)
      throw std::logic_error("sellp: the slices hold " + std::to_string(layout.slice_ptr.back()) +
                             " slots, the rule counted " + std::to_string(slots_counted));
    f = sellp_footprint(layout, config);
    // Queued once all is made on the host: the stream's first use waits for an upload left to
    // the worker (upload_beside.hpp), which the host work above ran beside.
    cuda::build_phase("plan_uploads");
    if (!layout.perm.empty()) {
      s.perm = cuda::queued_upload(layout.perm);
      f.perm_rows = a.rows;
    }
    s.row_length = cuda::queued_upload(layout.row_length);
    s.slice_chunks = cuda::queued_upload(layout.slice_chunks);
    s.slice_ptr = cuda::queued_upload(layout.slice_ptr);
  }
  cudaStream_t stream = cuda::Context::get().stream();
  if (!host_lengths || a.rows == 0) {
    if (config.sigma > 1 && a.rows > 0) {
      cuda::build_phase("sort");
      const std::int64_t windows = (std::int64_t{a.rows} + config.sigma - 1) / config.sigma;
      const int end_bit = cuda::bits_for(static_cast<std::uint64_t>(windows) *
                                             (static_cast<std::uint64_t>(longest) + 1) -
                                         1);
      s.perm = end_bit <= 32
                   ? sort_order<std::uint32_t>(a, config.sigma, longest, end_bit, stream)
                   : sort_order<std::uint64_t>(a, config.sigma, longest, end_bit, stream);
      f.perm_rows = a.rows;
    }
    const index_t* perm = s.perm.size() > 0 ? s.perm.data() : nullptr;
    cuda::build_phase("slices");

    s.row_length = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(f.positions));
    s.slice_chunks = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(f.slices));
    s.slice_ptr = cuda::DeviceBuffer<std::int64_t>(static_cast<std::size_t>(f.slices) + 1);
    if (f.slices > 0) {
      if (b > 32) cuda::fill_bytes(s.slice_chunks.data(), 0, s.slice_chunks.bytes());
      sellp_slice_kernel<<<grid(f.positions, block), block, 0, stream>>>(
          a.rows, f.positions, b, a.row_ptr, perm, s.row_length.data(), s.slice_chunks.data());
      SPMVKIT_LAUNCH_CHECK();
    }
    sellp_slice_size_kernel<<<grid(std::int64_t{f.slices} + 1, block), block, 0, stream>>>(
        f.slices, b, t, s.slice_chunks.data(), s.slice_ptr.data());
    SPMVKIT_LAUNCH_CHECK();
    std::int64_t* ptr = s.slice_ptr.data();
    cuda::cub_call(
        [&](void* tmp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceScan::ExclusiveSum(tmp, bytes, ptr, ptr, std::int64_t{f.slices} + 1,
                                               st);
        },
        stream);
  }
  const index_t* perm = s.perm.size() > 0 ? s.perm.data() : nullptr;
  std::int64_t* ptr = s.slice_ptr.data();
  // The slots are the rule's count (sellp_slots: the same slices); the scan's total is checked
  // against it with the footprint's counts below, not waited for here.
  f.padded_slots = slots_counted;
  const auto slots = static_cast<std::size_t>(f.padded_slots);
  const std::int64_t chunks = f.padded_slots / group;
  // Every column fits 16 bits: the pack writes them as deltas from a base of 0 (no column
  // array, no chunk bases to find, no fit to check).
  const bool narrow = try_deltas && deltas_always_fit(a.cols);
  if (narrow) {
    s.col_delta = cuda::DeviceBuffer<std::uint16_t>(slots);
    s.col_base = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(chunks));
    cuda::fill_bytes(s.col_base.data(), 0, s.col_base.bytes());
    s.index_bits = 16;
  } else {
    s.col_idx = cuda::DeviceBuffer<index_t>(slots);
  }
  s.values = cuda::DeviceBuffer<V>(slots);
  if (slots == 0) {  // no chunks: deltas fit trivially (as sellp_column_deltas finds)
    if (!counted_on_host) {
      std::int64_t total = 0;
      cuda::copy_to_host(&total, ptr + f.slices, sizeof total);
      if (total != 0)
        throw std::logic_error("sellp: the slices hold slots the rule did not count");
    }
    if (try_deltas) {
      s.col_idx = {};
      s.index_bits = 16;
    }
    return s;
  }
  cuda::build_phase("pack");
  {
    const int pack_block = std::max(SellpSetupPolicy::min_pack_threads, group);
    // Chunk splits: up to the longest slice's chunks / 4, and at most the mean chunks a slice
    // + 1 (the threads stay within about twice one a slot), or kPackThreads threads in all on
    // a small matrix: there the long slice's few lanes walk its chunks one after another
    // (rajat01's slice of its 1,442-entry row: 15 splits, ~96 chunks a lane, ~30 us on the H100
    // of a ~0.15 ms build), while most of the GPU idles.
    constexpr std::int64_t kPackThreads = std::int64_t{1} << 20;
    const std::int64_t lanes = std::int64_t{f.slices} * group;
    const std::int64_t most_chunks = (std::int64_t{longest} + t - 1) / t;
    const std::int64_t spread = std::max(f.padded_slots / lanes + 1,
                                         kPackThreads / std::max<std::int64_t>(lanes, 1));
    const auto splits = static_cast<unsigned>(
        std::clamp<std::int64_t>(std::min((most_chunks + 3) / 4, spread), 1, 65535));
    const dim3 grid_dims(grid(lanes, pack_block), splits);
    if (narrow)
      sellp_pack_kernel<V, std::uint16_t><<<grid_dims, pack_block, 0, stream>>>(
          a.rows, f.slices, b, t, ptr, s.slice_chunks.data(), s.row_length.data(), perm,
          a.row_ptr, a.col_idx, a.values, delta_padding, s.col_delta.data(), s.values.data());
    else
      sellp_pack_kernel<V, index_t><<<grid_dims, pack_block, 0, stream>>>(
          a.rows, f.slices, b, t, ptr, s.slice_chunks.data(), s.row_length.data(), perm,
          a.row_ptr, a.col_idx, a.values, index_t{-1}, s.col_idx.data(), s.values.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  // Counted on the host and nothing left to fit: done, with nothing to wait for.
  if (counted_on_host && (narrow || !try_deltas)) return s;

  // The footprint's counts, the chunk bases, the delta fit and the deltas themselves (dropped
  // where they do not fit), all before the one download of the counts.
  cuda::build_phase("footprint_deltas");
  // groups of 4, 8, 16; used chunks; a chunk whose deltas do not fit; the scan's total.
  cuda::DeviceBuffer<unsigned long long> counts(6);
  cuda::fill_bytes(counts.data(), 0, counts.bytes());
  if (!counted_on_host) {
    if (narrow)
      sellp_used_groups_kernel<std::uint16_t><<<grid(f.padded_slots, block), block, 0, stream>>>(
          f.padded_slots, s.col_delta.data(), delta_padding, counts.data());
    else
      sellp_used_groups_kernel<index_t><<<grid(f.padded_slots, block), block, 0, stream>>>(
          f.padded_slots, s.col_idx.data(), index_t{-1}, counts.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  const bool find_bases = try_deltas && !narrow;
  if (find_bases) s.col_base = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(chunks));
  constexpr int chunk_block = SellpSetupPolicy::chunk_warps * 32;
  if (!narrow) {  // narrow: every chunk holds an entry of its slice's longest row
    sellp_chunk_kernel<<<grid(chunks * 32, chunk_block), chunk_block, 0, stream>>>(
        chunks, group, s.col_idx.data(), find_bases ? s.col_base.data() : nullptr,
        counts.data() + 4, counts.data() + 3);
    SPMVKIT_LAUNCH_CHECK();
  }
  // Up to kSpeculativeDeltaSlots the deltas are made before the fit is known (a round trip
  // saved); past it only where they fit (on powerlaw_8000000, 1e8 slots that do not fit, making
  // them anyway added 4 ms to a 27 ms build, H100).
  const auto make_deltas = [&] {
    s.col_delta = cuda::DeviceBuffer<std::uint16_t>(slots);
    sellp_delta_kernel<<<grid(f.padded_slots, block), block, 0, stream>>>(
        f.padded_slots, group, s.col_idx.data(), s.col_base.data(), s.col_delta.data());
    SPMVKIT_LAUNCH_CHECK();
  };
  const bool speculate = find_bases && slots <= kSpeculativeDeltaSlots;
  if (speculate) make_deltas();
  cuda::copy_on_device(counts.data() + 5, ptr + f.slices, sizeof(std::int64_t));
  const std::vector<unsigned long long> used = counts.download();
  if (find_bases && !speculate && used[4] == 0) make_deltas();
  if (static_cast<std::int64_t>(used[5]) != f.padded_slots)
    throw std::logic_error("sellp: the slices hold " + std::to_string(used[5]) +
                           " slots, the rule counted " + std::to_string(f.padded_slots));
  if (!counted_on_host) {  // else the fit of a wide matrix's deltas was all it was for
    f.used_groups_4 = static_cast<std::int64_t>(used[0]);
    f.used_groups_8 = static_cast<std::int64_t>(used[1]);
    f.used_groups_16 = static_cast<std::int64_t>(used[2]);
    f.used_chunks = narrow ? chunks : static_cast<std::int64_t>(used[3]);
  }
  if (narrow) return s;
  if (try_deltas && used[4] == 0) {
    s.col_idx = {};
    s.index_bits = 16;
  } else {
    s.col_base = {};
    s.col_delta = {};
  }
  return s;
}

#define SPMVKIT_INSTANTIATE(V)                                                                    \
  template SellpDevice<V> sellp_pack_device(const DeviceCsrView<V>&, const SellpConfig&, index_t, \
                                            std::int64_t, bool, const std::vector<index_t>*,      \
                                            const SellpWindowCounts*);                            \
  template std::int64_t sellp_slots_device(const DeviceCsrView<V>&, const SellpConfig&, index_t); \
  template SellpDeviceCounts sellp_row_counts_device(const DeviceCsrView<V>&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
