// plan_add(): the plans it makes from hand examples (which dims merge, which stay), and what it
// refuses: dtypes outside the accepted triples, negative sizes or dim, too many dims.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "harness.h"
#include "operands.h"
#include "reference.h"
#include "sections.h"
#include "sum_double/add_plan.h"

namespace launcher_test {

using sum_double::AddArgs;
using sum_double::AddPlan;

namespace {

struct PlanWant {
  int dim;
  std::vector<int64_t> sizes;
  std::array<std::vector<int64_t>, 3> strides;
  bool flat;
};

void expect_plan(const char* name, const Layout& l, const PlanWant& w) {
  set_context(format("plan_add: %s", name));
  static char dummy[64];
  const AddArgs args{
      l.dim(), l.sizes.data(),       dummy,      kF32, l.strides[kA].data(),  dummy + 16,
      kF32,    l.strides[kB].data(), dummy + 32, kF32, l.strides[kOut].data()};
  AddPlan plan;
  const char* err = sum_double::plan_add(args, plan);
  if (!expect(err == nullptr, "refused: %s", err ? err : "")) return;
  bool same = plan.dim == w.dim && plan.flat == w.flat && plan.numel == numel_of(l.sizes);
  for (int d = 0; same && d < w.dim; ++d) {
    same = plan.sizes[d] == w.sizes[d];
    for (int op = 0; op < 3; ++op) same = same && plan.strides[op][d] == w.strides[op][d];
  }
  std::vector<int64_t> got_sizes(plan.sizes, plan.sizes + std::max(0, std::min(plan.dim, 25)));
  std::string got_strides;
  for (int op = 0; op < 3; ++op) {
    got_strides +=
        " " + join(std::vector<int64_t>(plan.strides[op], plan.strides[op] + got_sizes.size()));
  }
  expect(same, "got dim %d sizes %s strides (out a b)%s flat %d numel %lld; want dim %d sizes %s",
         plan.dim, join(got_sizes).c_str(), got_strides.c_str(), plan.flat, (long long)plan.numel,
         w.dim, join(w.sizes).c_str());
}

}  // namespace

void test_plans() {
  expect_plan("contiguous 3-d", {{2, 3, 4}, {{{12, 4, 1}, {12, 4, 1}, {12, 4, 1}}}},
              {1, {24}, {{{1}, {1}, {1}}}, true});
  expect_plan("transposed out, contiguous inputs", {{3, 4}, {{{1, 3}, {4, 1}, {4, 1}}}},
              {2, {3, 4}, {{{1, 3}, {4, 1}, {4, 1}}}, false});
  expect_plan("all three transposed alike", {{3, 4}, {{{1, 3}, {1, 3}, {1, 3}}}},
              {1, {12}, {{{1}, {1}, {1}}}, true});
  expect_plan("channels-last, all alike",
              {{2, 3, 4, 5}, {{{60, 1, 15, 3}, {60, 1, 15, 3}, {60, 1, 15, 3}}}},
              {1, {120}, {{{1}, {1}, {1}}}, true});
  expect_plan("bias add (2,3,4) + (4,)", {{2, 3, 4}, {{{12, 4, 1}, {12, 4, 1}, {0, 0, 1}}}},
              {2, {4, 6}, {{{1, 4}, {1, 4}, {1, 0}}}, false});
  expect_plan("scalar a", {{2, 3, 4}, {{{12, 4, 1}, {0, 0, 0}, {12, 4, 1}}}},
              {1, {24}, {{{1}, {0}, {1}}}, false});
  expect_plan("row gaps in out", {{3, 5}, {{{7, 1}, {5, 1}, {5, 1}}}},
              {2, {5, 3}, {{{1, 7}, {1, 5}, {1, 5}}}, false});
  expect_plan("size-1 dims with odd strides dropped",
              {{1, 5, 1}, {{{99, 1, 1234}, {0, 1, 7}, {3, 1, 0}}}},
              {1, {5}, {{{1}, {1}, {1}}}, true});
  expect_plan("0-d", {{}, {{{}, {}, {}}}}, {0, {}, {{{}, {}, {}}}, true});
  expect_plan("all size 1", {{1, 1}, {{{5, 9}, {0, 0}, {1, 1}}}}, {0, {}, {{{}, {}, {}}}, true});
  expect_plan("size 0", {{3, 0, 2}, {{{2, 2, 1}, {2, 2, 1}, {2, 2, 1}}}},
              {0, {}, {{{}, {}, {}}}, true});
  expect_plan("strided 1-d", {{6}, {{{2}, {2}, {2}}}}, {1, {6}, {{{2}, {2}, {2}}}, false});
}

void test_errors() {
  // Every dtype triple, and dtypes that are none of the four.
  const auto accepted = accepted_triples();
  const DType odd[] = {static_cast<DType>(4), static_cast<DType>(-1)};
  std::vector<DType> dtypes(std::begin(kDTypes), std::end(kDTypes));
  dtypes.insert(dtypes.end(), std::begin(odd), std::end(odd));
  static char dummy[64];
  const int64_t sizes[] = {4};
  const int64_t strides[] = {1};
  for (DType a : dtypes) {
    for (DType b : dtypes) {
      for (DType o : dtypes) {
        set_context(format("plan_add dtypes (%d, %d, %d)", int(a), int(b), int(o)));
        const bool want = std::any_of(accepted.begin(), accepted.end(), [&](const Triple& t) {
          return t.a == a && t.b == b && t.out == o;
        });
        const AddArgs args{1, sizes,   dummy,      a, strides, dummy + 16,
                           b, strides, dummy + 32, o, strides};
        AddPlan plan;
        const char* err = sum_double::plan_add(args, plan);
        expect((err == nullptr) == want, "%s", want ? "refused" : "accepted");
        if (err == nullptr) {
          expect(plan.a_dtype == a && plan.b_dtype == b && plan.out_dtype == o, "plan's dtypes");
        } else {
          expect(err[0] != '\0', "empty error message");
        }
      }
    }
  }
  const auto refused = [&](const char* name, int64_t dim, const int64_t* s, const int64_t* st) {
    set_context(format("plan_add: %s", name));
    const AddArgs args{dim, s, dummy, kF32, st, dummy + 16, kF32, st, dummy + 32, kF32, st};
    AddPlan plan;
    const char* err = sum_double::plan_add(args, plan);
    expect(err != nullptr && err[0] != '\0', "accepted");
    if (err != nullptr) std::printf("  plan_add(%s): \"%s\"\n", name, err);
  };
  const int64_t neg1[] = {-1}, neg2[] = {3, -2}, neg3[] = {0, -5}, neg4[] = {-1, 0};
  const int64_t st2[] = {1, 1};
  refused("size -1", 1, neg1, strides);
  refused("sizes [3, -2]", 2, neg2, st2);
  refused("sizes [0, -5]", 2, neg3, st2);
  refused("sizes [-1, 0]", 2, neg4, st2);
  refused("dim -1", -1, sizes, strides);
  // 26 dims of size 2 whose strides never merge (out contiguous, a alternating 1 and 0): one
  // too many. 25 such dims are accepted (test_big runs them).
  std::vector<int64_t> s26(26, 2), st26(26);
  for (int d = 0; d < 26; ++d) st26[d] = d % 2;
  std::vector<int64_t> out26(26);
  for (int d = 25, s = 1; d >= 0; --d, s *= 2) out26[d] = s;
  {
    set_context("plan_add: 26 unmergeable dims");
    const AddArgs args{26,   s26.data(),  dummy,      kF32, st26.data(), dummy + 16,
                       kF32, st26.data(), dummy + 32, kF32, out26.data()};
    AddPlan plan;
    const char* err = sum_double::plan_add(args, plan);
    expect(err != nullptr, "accepted");
    if (err != nullptr) std::printf("  plan_add(26 unmergeable dims): \"%s\"\n", err);
    // The same 26 dims where a's strides merge too (contiguous): one dim.
    const AddArgs merging{26,   s26.data(),   dummy,      kF32, out26.data(), dummy + 16,
                          kF32, out26.data(), dummy + 32, kF32, out26.data()};
    err = sum_double::plan_add(merging, plan);
    expect(err == nullptr && plan.dim == 1 && plan.flat, "26 mergeable dims: not one flat dim");
  }
  std::vector<int64_t> s65(65, 1), st65(65, 1);
  refused("65 dims", 65, s65.data(), st65.data());
}

}  // namespace launcher_test
