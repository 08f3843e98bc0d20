// Layouts: hand-picked ones named for what they exercise, and random ones (broadcast, permuted,
// gapped, overlapping inputs, odd size-1 strides, size 0), each run through run_case() for every
// dtype triple.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "operands.h"
#include "sections.h"

namespace launcher_test {

namespace {

// Strides that step through memory in `order` (fastest first), starting at `first`, with gaps.
std::vector<int64_t> nested_strides(const std::vector<int64_t>& sizes,
                                    const std::vector<int>& order, int64_t first, Rng& rng,
                                    bool gaps) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = first;
  for (int d : order) {
    strides[d] = s;
    const int64_t gap = gaps ? std::array<int64_t, 6>{0, 0, 0, 1, 2, 5}[rng() % 6] : 0;
    s = s * std::max<int64_t>(sizes[d], 1) + gap;
  }
  return strides;
}

std::vector<int> row_major_order(int dim) {
  std::vector<int> order(dim);
  for (int d = 0; d < dim; ++d) order[d] = dim - 1 - d;
  return order;
}

std::vector<int> random_order(int dim, Rng& rng) {
  std::vector<int> order(dim);
  for (int d = 0; d < dim; ++d) order[d] = d;
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

bool overlaps(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  Layout l{sizes, {strides, strides, strides}};
  const int64_t n = numel_of(sizes);
  std::vector<int64_t> offs(n);
  for (int64_t p = 0; p < n; ++p) {
    int64_t off[3];
    offsets_at(l, p, off);
    offs[p] = off[0];
  }
  std::sort(offs.begin(), offs.end());
  return std::adjacent_find(offs.begin(), offs.end()) != offs.end();
}

// Size-1 dims may have any stride (torch gives them odd ones); the launchers must not use it.
void odd_size1_strides(const std::vector<int64_t>& sizes, std::vector<int64_t>& strides, Rng& rng) {
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1 && rng() % 2) {
      strides[d] = std::array<int64_t, 5>{0, 1, 3, int64_t{1} << 20, int64_t{1} << 40}[rng() % 5];
    }
  }
}

std::vector<int64_t> random_sizes(Rng& rng) {
  static const int kDims[] = {0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6, 6};
  static const int64_t kSizes[] = {1, 1, 2, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33};
  static const int64_t kLong[] = {63, 64, 65, 100, 257, 1000};
  const int dim = kDims[rng() % (sizeof kDims / sizeof kDims[0])];
  std::vector<int64_t> sizes(dim);
  for (auto& s : sizes) s = kSizes[rng() % (sizeof kSizes / sizeof kSizes[0])];
  if (dim > 0 && rng() % 6 == 0) sizes[rng() % dim] = kLong[rng() % 6];  // vector loops' tails
  int64_t n = numel_of(sizes);
  while (n > 6000) {
    auto it = std::max_element(sizes.begin(), sizes.end());
    *it = std::max<int64_t>(*it / 2, 1);
    n = numel_of(sizes);
  }
  if (dim > 0 && rng() % 25 == 0) sizes[rng() % dim] = 0;
  return sizes;
}

std::vector<int64_t> random_out_strides(const std::vector<int64_t>& sizes, Rng& rng) {
  const int dim = static_cast<int>(sizes.size());
  std::vector<int64_t> strides;
  const int mode = static_cast<int>(rng() % 20);
  if (mode < 7) {  // row-major contiguous
    strides = nested_strides(sizes, row_major_order(dim), 1, rng, false);
  } else if (mode < 15) {  // permuted, gaps, maybe a first stride > 1
    const int64_t first = std::array<int64_t, 5>{1, 1, 1, 2, 3}[rng() % 5];
    strides = nested_strides(sizes, random_order(dim, rng), first, rng, true);
  } else {  // any small strides that do not overlap, interleaved ones included
    for (int attempt = 0; attempt < 20; ++attempt) {
      strides.assign(dim, 0);
      for (auto& s : strides) s = 1 + static_cast<int64_t>(rng() % 6);
      if (!overlaps(sizes, strides)) break;
      strides = nested_strides(sizes, random_order(dim, rng), 1, rng, true);
    }
  }
  odd_size1_strides(sizes, strides, rng);
  return strides;
}

std::vector<int64_t> random_input_strides(const std::vector<int64_t>& sizes,
                                          const std::vector<int64_t>& out, Rng& rng) {
  const int dim = static_cast<int>(sizes.size());
  std::vector<int64_t> strides;
  const int mode = static_cast<int>(rng() % 20);
  if (mode < 6) {  // out's layout
    strides = out;
  } else if (mode < 9) {
    strides = nested_strides(sizes, row_major_order(dim), 1, rng, false);
  } else if (mode < 12) {
    strides = nested_strides(sizes, random_order(dim, rng), 1, rng, true);
  } else if (mode < 16) {  // broadcast: missing leading dims, and other dims of stride 0
    strides.assign(dim, 0);
    const int missing = dim == 0 ? 0 : static_cast<int>(rng() % (dim + 1));
    int64_t s = 1;
    for (int d = dim - 1; d >= missing; --d) {
      if (rng() % 3 == 0) continue;  // a size-1 dim of the input, expanded
      strides[d] = s;
      s *= std::max<int64_t>(sizes[d], 1);
    }
  } else if (mode < 17) {  // a scalar
    strides.assign(dim, 0);
  } else {  // anything, overlapping itself
    strides.assign(dim, 0);
    for (auto& st : strides) st = static_cast<int64_t>(rng() % 10);
  }
  odd_size1_strides(sizes, strides, rng);
  return strides;
}

}  // namespace

// Layouts named for what they exercise, for every triple.
void test_named_layouts(Rng& rng) {
  const std::vector<Layout> named = {
      {{}, {{{}, {}, {}}}},                                    // 0-d: one element
      {{0}, {{{1}, {1}, {1}}}},                                // empty
      {{4, 0, 3}, {{{3, 3, 1}, {0, 3, 1}, {3, 3, 1}}}},        // empty with other dims
      {{1}, {{{5}, {0}, {9}}}},                                // one element, odd strides
      {{1, 1, 1}, {{{7, 1, 1 << 30}, {0, 0, 0}, {3, 2, 1}}}},  // all size 1
      {{2, 3, 4}, {{{12, 4, 1}, {12, 4, 1}, {12, 4, 1}}}},     // contiguous: one flat dim
      {{3, 4}, {{{1, 3}, {4, 1}, {4, 1}}}},                    // transposed out
      {{3, 4}, {{{4, 1}, {1, 3}, {4, 1}}}},                    // transposed a
      {{2, 3, 4}, {{{12, 4, 1}, {12, 4, 1}, {0, 0, 1}}}},      // bias add
      {{2, 3, 4}, {{{12, 4, 1}, {0, 0, 0}, {12, 4, 1}}}},      // scalar a
      {{2, 3, 4}, {{{12, 4, 1}, {0, 1, 0}, {4, 0, 1}}}},       // both broadcast, differently
      {{2, 3, 4, 5}, {{{60, 1, 15, 3}, {60, 1, 15, 3}, {60, 1, 15, 3}}}},  // channels-last
      {{3, 5}, {{{7, 1}, {5, 1}, {1, 3}}}},                                // out with row gaps
      {{2, 3}, {{{3, 2}, {1, 2}, {3, 1}}}},                // out interleaved (not nested)
      {{5, 1, 4}, {{{4, 100, 1}, {4, 0, 1}, {1, 7, 5}}}},  // size-1 dim inside
      {{70}, {{{1}, {0}, {1}}}},                           // broadcast row, vector loop
      {{70}, {{{2}, {3}, {1}}}},                           // strided row
      {{33, 2}, {{{1, 33}, {1, 33}, {1, 33}}}},            // transposed, all alike: flat
  };
  for (const Triple& t : accepted_triples()) {
    for (const Layout& l : named) run_case(l, t, false, 1 + static_cast<int>(rng() % 4), rng);
    run_case(named[5], t, false, 7, rng);
  }
}

void test_random_layouts(Rng& rng, int cases_per_triple) {
  for (const Triple& t : accepted_triples()) {
    for (int c = 0; c < cases_per_triple; ++c) {
      Layout l;
      l.sizes = random_sizes(rng);
      l.strides[kOut] = random_out_strides(l.sizes, rng);
      l.strides[kA] = random_input_strides(l.sizes, l.strides[kOut], rng);
      bool alias = t.a == t.b && rng() % 8 == 0;
      l.strides[kB] = alias ? l.strides[kA] : random_input_strides(l.sizes, l.strides[kOut], rng);
      const int pieces = 1 + static_cast<int>(rng() % 5);
      run_case(l, t, alias, pieces, rng);
    }
  }
}

}  // namespace launcher_test
