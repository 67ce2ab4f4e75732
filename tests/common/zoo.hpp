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

// Path of a file under ../shared/matrices (the tests read real matrices from there).
std::string shared_matrix(const std::string& file);

}  // namespace spmvkit::testing
