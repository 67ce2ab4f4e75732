// SELL-P in device memory: the arrays the kernel reads (sellp_cuda.cu), uploaded from a host
// pack or packed on the device from a device CSR (sellp_setup_cuda.cu).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/sellp/sellp.hpp"
#include "spmvkit/device_csr.hpp"

namespace spmvkit {

template <class V>
struct SellpDevice {
  index_t rows = 0;
  SellpFootprint footprint;  // shape and the byte model's counts
  int index_bits = 32;       // 32: col_idx; 16: col_delta + col_base (one base a chunk)
  cuda::DeviceBuffer<std::int64_t> slice_ptr;  // slices + 1
  cuda::DeviceBuffer<index_t> slice_chunks;    // slices
  cuda::DeviceBuffer<index_t> col_idx;
  cuda::DeviceBuffer<std::uint16_t> col_delta;
  cuda::DeviceBuffer<index_t> col_base;
  cuda::DeviceBuffer<V> values;
  cuda::DeviceBuffer<index_t> row_length;  // slices * b, slice order (EllSkip::row_length)
  cuda::DeviceBuffer<index_t> perm;        // slice-order position -> user row (sigma > 1)
};

// SELL-P packed on the device from a device CSR with `config` (sellp_pack's layout): the
// sigma permutation by a radix sort of (window, length) keys, slice widths by a segmented max
// over the slice's row lengths, slice_ptr by a scan, the slots by one kernel a thread a slot
// of a chunk; the footprint counted there. With `try_deltas`, 16-bit deltas replace col_idx
// when every chunk's columns span at most delta_max_span (sellp_column_deltas's rule;
// index_bits says which); a matrix of at most 65,535 columns is packed straight into deltas
// from a base of 0 (no column array, no fit to find). `longest`: the longest row (the sort
// key's range); `slots`: the configuration's slots as the rule counted them (sellp_slots), the
// arrays' size, checked against the slices in the pack's one download. row_length is kept (the
// skip is chosen after the pack; make_sellp_cuda drops it when unused).
// `host_lengths`: a's row lengths where the host holds them (SellpDeviceCounts::host_lengths):
// the permutation, the slices and the footprint (sellp_footprint of the layout) are then made
// on the host (placed from the rule's window counts where it kept them, `windows`), and a
// narrow matrix's build queues its pack with nothing to wait for.
template <class V>
SellpDevice<V> sellp_pack_device(const DeviceCsrView<V>& a, const SellpConfig& config,
                                 index_t longest, std::int64_t slots, bool try_deltas,
                                 const std::vector<index_t>* host_lengths = nullptr,
                                 const SellpWindowCounts* windows = nullptr);

// The configuration rule's inputs from a device CSR: its longest row (the sort keys' range),
// and sellp_slots counted there (unsorted: a thread a slice over the row pointer; sorted: the
// (window, longest first) keys radix-sorted, then each slice's first key), the same numbers as
// sellp_slots on the host's row lengths. sellp_row_counts_device wraps the count for the rule
// (SellpDeviceCounts::rows), each configuration counted once, the longest row found with the
// first counts (or alone when asked first); `a` must outlive it.
template <class V>
std::int64_t sellp_slots_device(const DeviceCsrView<V>& a, const SellpConfig& config,
                                index_t longest);
struct SellpDeviceCounts {
  SellpRowCounts rows;
  std::function<index_t()> longest;
  // A small matrix the registry uploaded from the host (backend/cuda/host_mirror.hpp): its row
  // lengths, counted there (no download), for the pack too.
  std::shared_ptr<const std::vector<index_t>> host_lengths;
};
template <class V>
SellpDeviceCounts sellp_row_counts_device(const DeviceCsrView<V>& a);

template <class V>
std::unique_ptr<Operator<V>> make_sellp_cuda(SellpDevice<V>&& s, EllSkip skip, OperatorInfo info);

}  // namespace spmvkit
