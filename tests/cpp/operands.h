// Operands in memory and their layouts, and run_case(): one plan_add() + add_cpu() call on a
// layout, every element checked against the reference. The sections build on these.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "harness.h"
#include "reference.h"

namespace launcher_test {

// A buffer of exactly `bytes` from malloc (so ASan's redzones sit right after it).
struct Exact {
  void* p = nullptr;
  explicit Exact(int64_t bytes) : p(std::malloc(static_cast<size_t>(bytes))) {
    if (p == nullptr && bytes > 0) fatal(format("malloc(%lld) failed", (long long)bytes));
  }
  ~Exact() { std::free(p); }
  Exact(const Exact&) = delete;
  Exact& operator=(const Exact&) = delete;
};

inline constexpr int kOut = 0, kA = 1, kB = 2;  // operand indices, out first as in AddPlan

struct Layout {
  std::vector<int64_t> sizes;
  std::array<std::vector<int64_t>, 3> strides;  // out, a, b
  int dim() const { return static_cast<int>(sizes.size()); }
};

int64_t numel_of(const std::vector<int64_t>& sizes);
// Elements an operand's buffer must hold: 1 + the largest offset, 0 when there are none.
int64_t extent_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
// The offsets of the element at row-major position p (the last dim fastest).
void offsets_at(const Layout& l, int64_t p, int64_t off[3]);

struct Triple {
  DType a, b, out;
};

// The 30 (a, b, out) dtype triples plan_add() must accept, written out: for each pair, out is
// a's dtype, b's or the promoted one (float32 for float16 with bfloat16, else the wider).
std::vector<Triple> accepted_triples();

// "float16 + float32 -> float32, sizes [...], strides out [...] a [...] b [...]": a case's name.
std::string describe(const Layout& l, const Triple& t, bool alias);

// [lo, hi) cut into `pieces` pieces at random points (so some may be empty), in random order,
// plus sometimes an empty piece somewhere.
std::vector<std::pair<int64_t, int64_t>> random_pieces(int64_t lo, int64_t hi, int pieces,
                                                       Rng& rng);

// Runs layout l with dtypes t over random pieces and checks everything main.cpp's header lists
// (alias: b is a's buffer). a_bits / b_bits give the inputs (one per buffer element), else they
// are random.
void run_case(const Layout& l, const Triple& t, bool alias, int pieces, Rng& rng,
              const std::vector<uint64_t>* a_bits = nullptr,
              const std::vector<uint64_t>* b_bits = nullptr);

}  // namespace launcher_test
