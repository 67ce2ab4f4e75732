#include <cstdlib>
#include <filesystem>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"

namespace spmvkit {

namespace {
// A bare name ("bcsstk13") is looked up in $SPMVKIT_MATRICES, then in the source tree's
// ../shared/matrices, as NAME.mtx or NAME.mtx.gz.
std::string find_named_matrix(const std::string& name) {
  namespace fs = std::filesystem;
  if (name.find('/') != std::string::npos || fs::exists(name)) return name;
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("SPMVKIT_MATRICES"); d && *d) dirs.push_back(d);
#ifdef SPMVKIT_SOURCE_DIR
  dirs.push_back(std::string(SPMVKIT_SOURCE_DIR) + "/../shared/matrices");
#endif
  for (const auto& dir : dirs)
    for (const char* ext : {".mtx", ".mtx.gz"})
      if (fs::exists(dir + "/" + name + ext)) return dir + "/" + name + ext;
  return name;  // the reader reports the missing file by this name
}
}  // namespace

Csr<double> load_matrix(const std::string& name_or_path) {
  if (is_generator_name(name_or_path)) return generate_by_name(name_or_path);
  return read_matrix_market(find_named_matrix(name_or_path));
}

}  // namespace spmvkit
