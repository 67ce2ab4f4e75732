#include "bench/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace spmvkit {

Progress::Progress(std::string label)
    : label_(std::move(label)),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (shown_) std::fprintf(stderr, "\r\033[K");
}

void Progress::update(double fraction, const std::string& note) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  // Appear only after half a second (short tasks stay quiet), then redraw at most 10x/s.
  if (now - start_ < std::chrono::milliseconds(500) ||
      (shown_ && now - last_ < std::chrono::milliseconds(100) && fraction < 1.0))
    return;
  last_ = now;
  shown_ = true;
  fraction = std::clamp(fraction, 0.0, 1.0);
  constexpr int width = 30;
  const int filled = static_cast<int>(fraction * width);
  std::string bar(filled, '#');
  bar.resize(width, '.');
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r\033[K%s [%s] %3d%% %.0fs %s", label_.c_str(), bar.c_str(),
               static_cast<int>(fraction * 100), elapsed, note.c_str());
  std::fflush(stderr);
}

}  // namespace spmvkit
