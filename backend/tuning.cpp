#include "spmvkit/tuning.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <sys/stat.h>

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

namespace {

// The store's records as last read, kept while the file's identity, size and modification time
// stay the same (one stat a lookup instead of reading the file: a build asks up to a few times,
// and a small matrix's build takes tens of microseconds). Under store_mutex.
struct StoreCache {
  bool valid = false;
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  std::map<std::pair<std::string, std::string>, std::string> values;  // the last record wins
  std::uint64_t generation = 0;  // one more at every read of the file (tuning_generation)
};
StoreCache& store_cache() {
  static StoreCache c;
  return c;
}

// The store's records, reread where the file changed; null where there is no file. Under
// store_mutex.
const StoreCache* current_store() {
  const std::string path = tuning_file_path();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;  // no store (yet)
  StoreCache& c = store_cache();
  if (!c.valid || c.path != path || c.dev != st.st_dev || c.ino != st.st_ino ||
      c.size != st.st_size || c.mtime.tv_sec != st.st_mtim.tv_sec ||
      c.mtime.tv_nsec != st.st_mtim.tv_nsec) {
    c.valid = false;
    c.values.clear();
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const auto t1 = line.find('\t');
      const auto t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
      if (t2 == std::string::npos) continue;
      c.values[{line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1)}] = line.substr(t2 + 1);
    }
    c.path = path;
    c.dev = st.st_dev;
    c.ino = st.st_ino;
    c.size = st.st_size;
    c.mtime = st.st_mtim;
    c.valid = true;
    ++c.generation;
  }
  return &c;
}

}  // namespace

std::optional<std::string> tuning_get(const std::string& device, const std::string& key) {
  std::lock_guard<std::mutex> lock(store_mutex());
  const StoreCache* c = current_store();
  if (!c) return std::nullopt;
  const auto it = c->values.find({device, key});
  if (it == c->values.end()) return std::nullopt;
  return it->second;
}

std::uint64_t tuning_generation() {
  std::lock_guard<std::mutex> lock(store_mutex());
  const StoreCache* c = current_store();
  return c ? c->generation : 0;
}

std::vector<std::pair<std::string, std::string>> tuning_find(const std::string& device,
                                                              const std::string& prefix) {
  std::lock_guard<std::mutex> lock(store_mutex());
  std::vector<std::pair<std::string, std::string>> out;
  const StoreCache* c = current_store();
  if (!c) return out;
  for (auto it = c->values.lower_bound({device, prefix});
       it != c->values.end() && it->first.first == device &&
       it->first.second.compare(0, prefix.size(), prefix) == 0;
       ++it)
    out.emplace_back(it->first.second, it->second);
  return out;
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
  store_cache().valid = false;
}

}  // namespace spmvkit
