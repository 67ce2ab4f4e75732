// The build-phase profile of build_profile.hpp.
#include "backend/cuda/build_profile.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "backend/cuda/cuda.hpp"

namespace spmvkit::cuda {

namespace {

thread_local BuildProfile* live = nullptr;  // the innermost profile of this thread

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Waits for the context stream; false (and nothing thrown) when that fails, so that a
// profile never turns into an error of its own.
bool settle() noexcept {
  return cudaStreamSynchronize(Context::get().stream()) == cudaSuccess;
}

}  // namespace

bool build_profile_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("SPMVKIT_BUILD_PROFILE");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return on;
}

void build_phase(const char* name) {
  if (live != nullptr) live->next(name);
}

BuildProfile::BuildProfile(const char* build) : on_(build_profile_enabled()) {
  if (!on_) return;
  outer_ = live;
  build_ = outer_ != nullptr ? outer_->build_ + "/" + build : std::string(build);
  live = this;
  settle();  // work queued before the build is not the build's
  start_ = phase_start_ = std::chrono::steady_clock::now();
  start_waits_ = phase_waits_ = stream_waits();
}

void BuildProfile::end_phase() {
  settle();
  const auto now = std::chrono::steady_clock::now();
  if (phase_ != nullptr)
    std::fprintf(stderr, "spmvkit build-profile: %s %s %.3f ms %llu waits\n", build_.c_str(),
                 phase_, ms_between(phase_start_, now),
                 static_cast<unsigned long long>(stream_waits() - phase_waits_));
  phase_start_ = now;
  phase_waits_ = stream_waits();
}

void BuildProfile::next(const char* name) {
  end_phase();
  phase_ = name;
}

BuildProfile::~BuildProfile() {
  if (!on_) return;
  live = outer_;
  if (std::uncaught_exceptions() > 0) {
    std::fprintf(stderr, "spmvkit build-profile: %s stopped by an exception in %s\n",
                 build_.c_str(), phase_ != nullptr ? phase_ : "(no phase)");
    return;
  }
  end_phase();
  std::fprintf(stderr, "spmvkit build-profile: %s total %.3f ms %llu waits\n", build_.c_str(),
               ms_between(start_, std::chrono::steady_clock::now()),
               static_cast<unsigned long long>(stream_waits() - start_waits_));
  std::fflush(stderr);
}

}  // namespace spmvkit::cuda
