#include <cstdlib>
#include <filesystem>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"

namespace spmvkit {

std::string find_named_matrix(const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  const char* env = std::getenv("SPMVKIT_MATRICES");
  if (env && *env) dirs.push_back(env);
#ifdef SPMVKIT_SOURCE_DIR
  if (!(env && *env)) dirs.push_back(std::string(SPMVKIT_SOURCE_DIR) + "/../shared/matrices");
  dirs.push_back(std::string(SPMVKIT_SOURCE_DIR) + "/tests/data");
#endif
  for (const auto& dir : dirs)
    for (const char* ext : {".mtx", ".mtx.gz"})
      if (fs::exists(dir + "/" + name + ext)) return dir + "/" + name + ext;
  return "";
}

Csr<double> load_matrix(const std::string& name_or_path) {
  if (is_generator_name(name_or_path)) return generate_by_name(name_or_path);
  // A path (or an existing file) is read as it is; a bare name is looked up; a name found
  // nowhere goes to the reader as it is, which reports the missing file by that name.
  if (name_or_path.find('/') != std::string::npos || std::filesystem::exists(name_or_path))
    return read_matrix_market(name_or_path);
  const std::string found = find_named_matrix(name_or_path);
  return read_matrix_market(found.empty() ? name_or_path : found);
}

}  // namespace spmvkit
