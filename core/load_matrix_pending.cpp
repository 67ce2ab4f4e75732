// TEMPORARY (branch gen): a stand-in for spmvkit::load_matrix so this branch links and
// generate_by_name("expand_bsB_NAME") can be tested. The lead's load_matrix replaces it:
// delete this file when merging.
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit {

Csr<double> load_matrix(const std::string& name_or_path) {
  if (is_generator_name(name_or_path)) return generate_by_name(name_or_path);
  throw InputError(name_or_path + ": reading Matrix Market files is not linked into this build");
}

}  // namespace spmvkit
