// The build-phase profile of build_profile.hpp.
#include "backend/cuda/build_profile.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include <sys/resource.h>

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

// This thread's trace events, made once and reused (a build's profiles take them in turn).
std::vector<cudaEvent_t>& trace_events() {
  static thread_local std::vector<cudaEvent_t> events;
  return events;
}
thread_local int trace_events_used = 0;

// Records the next of the thread's events on the context stream as it is queued now (no wait
// for a pending upload); its index, or -1 when recording fails.
int record_trace_event() noexcept {
  std::vector<cudaEvent_t>& events = trace_events();
  if (trace_events_used == static_cast<int>(events.size())) {
    cudaEvent_t e = nullptr;
    if (cudaEventCreate(&e) != cudaSuccess) return -1;
    events.push_back(e);
  }
  cudaEvent_t e = events[static_cast<std::size_t>(trace_events_used)];
  if (cudaEventRecord(e, Context::get().stream_unwaited()) != cudaSuccess) return -1;
  return trace_events_used++;
}

// Minor page faults of this thread so far (a host plan's fresh pages), or 0 where unknown.
std::uint64_t thread_faults() noexcept {
#ifdef RUSAGE_THREAD
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) == 0) return static_cast<std::uint64_t>(u.ru_minflt);
#endif
  return 0;
}

const char* profile_setting() {
  const char* v = std::getenv("SPMVKIT_BUILD_PROFILE");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0 ? v : nullptr;
}

}  // namespace

bool build_profile_enabled() {
  static const bool on = profile_setting() != nullptr;
  return on;
}

bool build_trace_enabled() {
  static const bool on = [] {
    const char* v = profile_setting();
    return v != nullptr && std::strcmp(v, "trace") == 0;
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
  trace_ = build_trace_enabled();
  if (trace_) {
    if (outer_ == nullptr) trace_events_used = 0;
    start_ = std::chrono::steady_clock::now();
    first_event_ = trace_events_used;
    marks_.push_back({"(start)", 0.0, record_trace_event(), stream_waits(), thread_faults()});
    return;
  }
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
  if (trace_) {
    trace_mark(name);
    return;
  }
  end_phase();
  phase_ = name;
}

void BuildProfile::trace_mark(const char* name) {
  const double ms = ms_between(start_, std::chrono::steady_clock::now());
  marks_.push_back(
      {name, ms, upload_pending ? -1 : record_trace_event(), stream_waits(), thread_faults()});
}

// After the build: each mark's host time, its event's time on the device from the start's
// (the stream was idle at the start: the registry waits for it first), and the end's.
void BuildProfile::trace_print() {
  if (upload_pending) {
    try {
      wait_for_pending_upload();
    } catch (...) {
    }
  }
  trace_mark("(end)");
  const double end_host = marks_.back().host_ms;
  const cudaEvent_t* events = trace_events().data();
  const int start = marks_.front().event;
  if (start < 0 || marks_.back().event < 0 ||
      cudaEventSynchronize(events[marks_.back().event]) != cudaSuccess) {
    std::fprintf(stderr, "spmvkit build-trace: %s (no device times)\n", build_.c_str());
    return;
  }
  const auto device_ms = [&](int e) {
    float ms = 0;
    return e >= 0 && cudaEventElapsedTime(&ms, events[start], events[e]) == cudaSuccess
               ? static_cast<double>(ms)
               : -1.0;
  };
  for (std::size_t i = 0; i + 1 < marks_.size(); ++i) {
    const Mark& m = marks_[i];
    const double d = device_ms(m.event);
    char device[32] = "-";
    if (d >= 0) std::snprintf(device, sizeof device, "%.3f", d);
    std::fprintf(stderr,
                 "spmvkit build-trace: %s %s host %.3f +%.3f device %s %llu waits %llu faults\n",
                 build_.c_str(), m.phase, m.host_ms, marks_[i + 1].host_ms - m.host_ms, device,
                 static_cast<unsigned long long>(marks_[i + 1].waits - m.waits),
                 static_cast<unsigned long long>(marks_[i + 1].faults - m.faults));
  }
  std::fprintf(stderr, "spmvkit build-trace: %s end host %.3f device %.3f %llu waits %llu faults\n",
               build_.c_str(), end_host, device_ms(marks_.back().event),
               static_cast<unsigned long long>(marks_.back().waits - marks_.front().waits),
               static_cast<unsigned long long>(marks_.back().faults - marks_.front().faults));
  std::fflush(stderr);
  trace_events_used = first_event_;
}

BuildProfile::~BuildProfile() {
  if (!on_) return;
  live = outer_;
  if (trace_) {
    if (std::uncaught_exceptions() == 0) trace_print();
    return;
  }
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
