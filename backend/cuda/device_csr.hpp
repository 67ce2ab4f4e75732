// A CSR matrix moving between host and device for a build: the upload through pinned staging
// buffers (the PCIe/NVLink rate, the host copy into one buffer overlapped with the transfer of
// the other), the download (formats without a device builder), and the check of a user's
// device CSR (DeviceCsrView's invariants) on the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/device_csr.hpp"

namespace spmvkit::cuda {

// `bytes` from host `src` (pageable) to device `dst`, on the context stream, through two
// pinned staging buffers kept for the process; returns once the copy is done. With `wait`
// false a copy below the staging size is only queued (pageable, driver-staged): `src` must then
// stay unchanged until the stream is synchronised (the three arrays of upload_csr, one wait).
void upload_staged(void* dst, const void* src, std::size_t bytes, bool wait = true);
// `bytes` from device `src` to host `dst` (pageable), through the same pinned buffers; returns
// once dst holds them.
void download_staged(void* dst, const void* src, std::size_t bytes);
// A device array on the host by download_staged, in memory left uninitialised (a value-
// initialised vector would touch every page once more, on one thread).
template <class T>
std::unique_ptr<T[]> download_staged(const DeviceBuffer<T>& a) {
  std::unique_ptr<T[]> h(new T[a.size() > 0 ? a.size() : 1]);
  download_staged(h.get(), a.data(), a.bytes());
  return h;
}

// A CSR matrix's arrays in device memory, owning.
template <class V>
struct OwnedDeviceCsr {
  index_t rows = 0;
  index_t cols = 0;
  DeviceBuffer<index_t> row_ptr;
  DeviceBuffer<index_t> col_idx;
  DeviceBuffer<V> values;
  DeviceCsrView<V> view() const {
    return {rows,           cols,           static_cast<std::int64_t>(col_idx.size()),
            row_ptr.data(), col_idx.data(), values.data()};
  }
};

// a (validated by its producer) onto the device by upload_staged.
template <class V>
OwnedDeviceCsr<V> upload_csr(const Csr<V>& a);
// Device arrays of a's shape, not filled (upload_csr's, or UploadBeside's destination).
template <class V>
OwnedDeviceCsr<V> device_csr_like(const Csr<V>& a);
// a's arrays back on the host (pinned staging not needed: formats that build on the host).
template <class V>
Csr<V> download_csr(const DeviceCsrView<V>& a);
// InputError naming the first broken invariant of DeviceCsrView (sizes, null pointers,
// row_ptr, columns out of range or not increasing), checked on the device.
template <class V>
void check_device_csr(const DeviceCsrView<V>& a);
// The longest row length of a (0 for no rows; stats.hpp's longest_row on the device): a max
// reduction over the row pointer, one number downloaded. ELL's width, SELL-P's rule.
template <class V>
index_t longest_row(const DeviceCsrView<V>& a);
// The same into device *longest (zeroed here), queued on the context stream, not waited for.
void queue_longest_row(index_t rows, const index_t* row_ptr, index_t* longest);
// The index_t at each device address of `at`, gathered on the device and downloaded at once:
// a build's scattered counts cost one round trip, not one each.
std::vector<index_t> download_each(std::initializer_list<const index_t*> at);

// Half-open index ranges [first, second).
using EntryRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;
// src[b, e) for each (b, e) of `ranges` (device `src`, ranges within it), concatenated into
// host `out` (room for their total): one launch (a thread an element) and one download.
// format=auto's features of a device CSR read its sampled rows this way (select/features.cpp).
void gather_ranges(const index_t* src, const EntryRanges& ranges, index_t* out);
// format=auto's first look at a device CSR, in one download: a's row pointer over `ptr_ranges`
// (as gather_ranges), then for each row range (r0, r1) of `mid_rows` the column of its middle
// entry, col_idx[k0 + (k1 - k0) / 2] with k = row_ptr (0 for a range without entries), then
// the longest row, into host `out` (room for the ranges' total + mid_rows.size() + 1); returns
// the longest row.
template <class V>
index_t sample_rows(const DeviceCsrView<V>& a, const EntryRanges& ptr_ranges,
                    const EntryRanges& mid_rows, index_t* out);

// Loads the kernels of gather_ranges, sample_rows and longest_row and allocates the scratch
// their transfers go through (1 MB on the current device and 1 MB of page-locked host memory,
// kept for the process): called once
// per device by its Context, so that format=auto's selection neither loads a module nor
// allocates (on the H100 its first selection in a process had taken 0.8-1.3 ms, a later one
// 0.4-1.0 ms).
void prepare_sampling();

}  // namespace spmvkit::cuda
