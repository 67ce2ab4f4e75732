// Where a device build's time goes: with SPMVKIT_BUILD_PROFILE=1 in the environment, a
// BuildProfile prints one line a phase to stderr,
//   spmvkit build-profile: <build> <phase> <ms> ms <n> waits
// (n: the phase's own waits for the stream, cuda::stream_waits) and a last line
// `<build> total ...`, synchronising the context stream at each phase boundary so that a
// phase's kernels are counted in it. Without the variable it neither
// synchronises nor reads the clock (one branch a phase). A profile made while another is
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

namespace spmvkit::cuda {

// SPMVKIT_BUILD_PROFILE is set to something other than "" or "0" (read once a process).
bool build_profile_enabled();

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
  bool on_ = false;
  std::string build_;
  const char* phase_ = nullptr;
  BuildProfile* outer_ = nullptr;
  std::chrono::steady_clock::time_point start_{}, phase_start_{};
  std::uint64_t start_waits_ = 0, phase_waits_ = 0;  // stream_waits() then (not the profile's own)
};

}  // namespace spmvkit::cuda
