// Balanced-BSR segments (make_bsr_segments, formats/bsr/bsr_build.cpp), built in parallel
// chunks, against the sequential loop they replaced (kept here verbatim as the oracle): the same
// arrays on random and awkward block row pointers, in any number of chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "formats/bsr/bsr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {
namespace {

// The sequential segments as of 464f4d2.
BsrSegments sequential_segments(const std::vector<index_t>& block_row_ptr, index_t lambda) {
  BsrSegments s;
  s.lambda = lambda;
  const index_t block_rows = static_cast<index_t>(block_row_ptr.size()) - 1;
  for (index_t br = 0; br < block_rows; ++br) {
    const index_t begin = block_row_ptr[br];
    const index_t len = block_row_ptr[br + 1] - begin;
    if (len <= lambda) {
      s.segment_out.push_back(br);
      s.segment_block_ptr.push_back(block_row_ptr[br + 1]);
      continue;
    }
    const index_t n = (len + lambda - 1) / lambda;
    const index_t slot0 = s.segment_ptr.back();
    index_t at = begin;
    for (index_t q = 0; q < n; ++q) {
      at += len / n + (q < len % n ? 1 : 0);
      s.segment_out.push_back(-(slot0 + q + 1));
      s.segment_block_ptr.push_back(at);
    }
    s.split_rows.push_back(br);
    s.segment_ptr.push_back(slot0 + n);
    s.max_split = std::max(s.max_split, n);
  }
  return s;
}

std::vector<index_t> row_ptr_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> p(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) p[i + 1] = p[i] + lengths[i];
  return p;
}

void check(const std::vector<index_t>& lengths, index_t lambda) {
  const std::vector<index_t> p = row_ptr_of(lengths);
  const BsrSegments want = sequential_segments(p, lambda);
  for (int chunks : {0, 1, 2, 3, 7, 64, static_cast<int>(lengths.size())}) {
    SCOPED_TRACE("chunks " + std::to_string(chunks) + ", lambda " + std::to_string(lambda));
    const BsrSegments got = make_bsr_segments(p, lambda, chunks);
    EXPECT_EQ(got.lambda, want.lambda);
    EXPECT_EQ(got.segment_block_ptr, want.segment_block_ptr);
    EXPECT_EQ(got.segment_out, want.segment_out);
    EXPECT_EQ(got.split_rows, want.split_rows);
    EXPECT_EQ(got.segment_ptr, want.segment_ptr);
    EXPECT_EQ(got.max_split, want.max_split);
  }
}

TEST(BsrSegments, AwkwardBlockRowPointers) {
  check({}, 32);
  check(std::vector<index_t>(1000, 0), 32);   // all empty
  check(std::vector<index_t>(1000, 32), 32);  // all exactly lambda
  check(std::vector<index_t>(1000, 33), 32);  // all just split
  check(std::vector<index_t>(500, 7), 1);     // lambda 1: every block its own segment
  check({10000000}, 16);                      // one huge row alone
  std::vector<index_t> huge(3000, 2);
  huge[1234] = 2000000;
  check(huge, 32);  // one huge row among short ones
}

TEST(BsrSegments, RandomBlockRowPointers) {
  std::mt19937 gen(24);
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = std::uniform_int_distribution<int>(1, 20000)(gen);
    const int mean = std::uniform_int_distribution<int>(1, 60)(gen);
    std::uniform_int_distribution<int> kind(0, 99), short_len(0, 2 * mean), long_len(33, 5000);
    std::vector<index_t> lengths(rows);
    for (auto& l : lengths) {
      const int k = kind(gen);
      l = k < 10 ? 0 : k < 15 ? long_len(gen) : short_len(gen);
    }
    check(lengths, trial % 2 == 0 ? 32 : 16);
  }
}

TEST(BsrSegments, RejectsLambdaBelowOne) { EXPECT_THROW(make_bsr_segments({0, 4}, 0), InputError); }

}  // namespace
}  // namespace spmvkit
