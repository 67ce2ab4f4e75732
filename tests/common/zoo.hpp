// The matrix zoo of DESIGN.md: awkward shapes, generated structures and real matrices, by
// name. Every test suite that checks a format, kernel or solver runs over it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit::testing {

// A seed drawn fresh for each test process (inputs are new on every run); printed by the
// tests on failure so a failing case can be replayed with SPMVKIT_TEST_SEED.
std::uint64_t test_seed();

// The zoo's case names, and the matrix for a name (cached per process).
const std::vector<std::string>& zoo_names();
const Csr<double>& zoo_matrix(const std::string& name);

// Random values in [-1, 1) from `rng`.
std::vector<double> random_vector(std::size_t n, std::mt19937_64& rng);

// Path of a matrix bundled with the repository under tests/data/ (always there: a bare clone
// passes its tests). tests/data/MANIFEST.tsv says where each came from.
std::string data_matrix(const std::string& file);

// The folder of the larger set of real matrices: $SPMVKIT_MATRICES, else ../shared/matrices
// beside the checkout; empty when neither exists. Tests over it skip visibly without it.
std::string shared_matrices_dir();

}  // namespace spmvkit::testing
