#include "spmvkit/tuning.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {
std::mutex& store_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

std::string tuning_file_path() {
  if (const char* f = std::getenv("SPMVKIT_TUNING_FILE"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/spmvkit/tuning.tsv";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/spmvkit/tuning.tsv";
  return ".spmvkit-tuning.tsv";
}

std::optional<std::string> tuning_get(const std::string& device, const std::string& key) {
  std::lock_guard<std::mutex> lock(store_mutex());
  std::ifstream in(tuning_file_path());
  std::optional<std::string> found;
  std::string line;
  while (std::getline(in, line)) {
    const auto t1 = line.find('\t');
    const auto t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) continue;
    if (line.compare(0, t1, device) == 0 && t1 == device.size() &&
        line.compare(t1 + 1, t2 - t1 - 1, key) == 0 && t2 - t1 - 1 == key.size())
      found = line.substr(t2 + 1);
  }
  return found;
}

void tuning_put(const std::string& device, const std::string& key, const std::string& value) {
  for (const std::string* s : {&device, &key, &value})
    if (s->find_first_of("\t\n") != std::string::npos)
      throw InputError("tuning record fields may not contain tabs or newlines");
  std::lock_guard<std::mutex> lock(store_mutex());
  const std::filesystem::path path = tuning_file_path();
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error("cannot write the tuning store " + path.string());
  out << device << '\t' << key << '\t' << value << '\n';
}

}  // namespace spmvkit
