// A progress bar on stderr for anything that may take more than a few seconds; silent when
// stderr is not a terminal (CI logs, pipes).
#pragma once

#include <chrono>
#include <string>

namespace spmvkit {

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(double fraction, const std::string& note = "");  // fraction in [0, 1]
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace spmvkit
