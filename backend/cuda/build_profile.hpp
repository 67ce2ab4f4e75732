// Where a device build's time goes: with SPMVKIT_BUILD_PROFILE=1 in the environment, a
// BuildProfile prints one line a phase to stderr,
//   spmvkit build-profile: <build> <phase> <ms> ms <n> waits
// (n: the phase's own waits for the stream, cuda::stream_waits) and a last line
// `<build> total ...`, synchronising the context stream at each phase boundary so that a
// phase's kernels are counted in it. SPMVKIT_BUILD_PROFILE=trace instead changes nothing of the
// build's timing (no synchronisation, an event recorded on the stream at each boundary, read at
// the end) and prints, after the build, one line a phase
//   spmvkit build-trace: <build> <phase> host <start> +<length> device <done> <n> waits <f> faults
// (ms from the build's start: when the host began the phase and how long it took, and when the
// device had finished what was queued before it; "device -" while an upload left to the worker
// was pending, upload_beside.hpp; f: the thread's minor page faults in the phase, fresh host
// pages) and a last line `<build> end host <t> device <t> ...`: what of a
// small build's time is the host's plan and what the device's queue. Without the variable it
// neither synchronises nor reads the clock (one branch a phase). A profile made while another is
// live on the same thread names itself `<outer>/<build>` (SURAA's fallback to csr_balanced).
//
//   cuda::BuildProfile prof("ell");
//   prof.phase("row_lengths");  ...  prof.phase("pack");  ...   // destructor ends the last
// Shared pieces a builder calls (the ELL packing, the COO tail) mark their phases with
// build_phase(name), which goes to the thread's innermost live profile, if any.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace spmvkit::cuda {

// SPMVKIT_BUILD_PROFILE is set to something other than "" or "0" (read once a process).
bool build_profile_enabled();
// It is "trace".
bool build_trace_enabled();

class BuildProfile;
// Starts phase `name` of this thread's innermost live profile; nothing when there is none.
void build_phase(const char* name);

class BuildProfile {
 public:
  explicit BuildProfile(const char* build);
  ~BuildProfile();
  BuildProfile(const BuildProfile&) = delete;
  BuildProfile& operator=(const BuildProfile&) = delete;

  // Ends the current phase (if any) and starts `name` (a string literal: kept by pointer).
  void phase(const char* name) {
    if (on_) next(name);
  }

 private:
  friend void build_phase(const char* name);
  void next(const char* name);
  void end_phase();
  void trace_mark(const char* name);
  void trace_print();
  bool on_ = false, trace_ = false;
  struct Mark {
    const char* phase;
    double host_ms;  // from the start
    int event;       // this thread's event index, or -1 (an upload was pending)
    std::uint64_t waits;
    std::uint64_t faults;  // the thread's minor page faults so far
  };
  std::vector<Mark> marks_;
  int first_event_ = 0;
  std::string build_;
  const char* phase_ = nullptr;
  BuildProfile* outer_ = nullptr;
  std::chrono::steady_clock::time_point start_{}, phase_start_{};
  std::uint64_t start_waits_ = 0, phase_waits_ = 0;  // stream_waits() then (not the profile's own)
};

}  // namespace spmvkit::cuda
