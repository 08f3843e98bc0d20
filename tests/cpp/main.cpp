// The torch-free CPU launchers (include/sum_double/add_plan.h, add_cpu.h) against a scalar
// reference of the test's own. ci/sanitize-launchers.sh builds it with AddressSanitizer +
// UndefinedBehaviorSanitizer and runs it twice, the second time with SUM_DOUBLE_CPU_BASELINE=1.
// Plain C++17: no torch, no test framework. Exits 1 on any failure.
//
// What makes it able to fail:
//  - Values bit for bit (a NaN only as a NaN: its sign and payload are not promised) against a
//    reference whose float16/bfloat16 conversions are written with frexp/ldexp and an explicit
//    tie rule, not with the kernel's bit tricks: every (a, b, out) dtype triple plan_add()
//    accepts, in both input orders; every float16 and bfloat16 value and the rounding boundaries
//    around each one through the kernel's conversions.
//  - Exact buffers: every operand is malloc'd exactly as large as its strides reach, so ASan
//    reports a read or write one element past it.
//  - Poisoned output: out is filled with a signaling-NaN pattern, which no IEEE operation returns,
//    before each call, so an element written outside out's layout or left unwritten shows.
//  - Layouts: broadcast (stride 0, missing leading dims), permuted and gapped strides, overlapping
//    input strides, size-0 and size-1 dims (with odd strides), 0-d, dims that merge and that do
//    not, a and b the same buffer.
//  - [begin, end): random pieces, empty ones included, run in random order: every element is
//    written once, by the piece that owns it in out's memory order.
//  - plan_add(): its merges on hand examples, and its errors.
//  - Index arithmetic past 2^31 and 2^32 elements: plans of about 2^33 elements run over windows
//    near those positions and near the end, the big operands living in address space reserved
//    with mmap(PROT_NONE) of which only the window is made accessible (see Buffer in test_big.cpp).
//
// The files: harness (reporting, the generator), reference (the scalar reference's numbers and,
// in op_value, the op's arithmetic), operands (buffers, layouts, run_case: one call checked), the
// sections in test_values, test_layouts, test_plans and test_big, and this one, which runs them.
//
//   test_launchers [--seed N] [--cases N]   (cases: random layouts per dtype triple)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "harness.h"
#include "sections.h"
#include "sum_double/add_cpu.h"

namespace launcher_test {
namespace {

unsigned long long current_seed = 0;  // for the ASan death callback, which captures nothing

// Parses the arguments, runs the sections, prints each one's checks and the summary.
int run(int argc, char** argv) {
  uint64_t seed = 20240917;
  int cases = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seed") == 0) {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--cases") == 0) {
      cases = std::atoi(argv[i + 1]);
    } else {
      std::printf("usage: %s [--seed N] [--cases N]\n", argv[0]);
      return 2;
    }
  }
  const char* env = std::getenv("SUM_DOUBLE_CPU_BASELINE");
  const bool baseline = env != nullptr && std::strcmp(env, "1") == 0;
  const std::string isa = sum_double::add_cpu_isa();
  std::printf("test_launchers: loops %s, seed %llu, %d random layouts per dtype triple\n",
              isa.c_str(), (unsigned long long)seed, cases);
  set_context("the loops chosen");
  expect(!baseline || isa == "baseline", "SUM_DOUBLE_CPU_BASELINE=1 but the loops are %s",
         isa.c_str());

#if defined(SD_TEST_ASAN)
  // An ASan report ends the process: name the case it came from (UBSan does not call this;
  // its stack trace names the test function).
  __sanitizer_set_death_callback([] {
    std::fflush(stdout);
    std::fprintf(stderr, "test_launchers: the report above came from: %s (seed %llu)\n",
                 context.c_str(), (unsigned long long)current_seed);
  });
#endif
  current_seed = seed;
  Rng rng(seed);
  const auto section = [&](const char* name, auto&& body) {
    const auto start = std::chrono::steady_clock::now();
    const int before = failures;
    const long checks_before = checks;
    body();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %-28s %8ld checks  %s  %5.2f s\n", name, checks - checks_before,
                failures == before ? "ok  " : "FAIL", s);
    std::fflush(stdout);
  };
  section("reference self-check", [&] { test_reference(); });
  section("plan_add merges", [&] { test_plans(); });
  section("plan_add errors", [&] { test_errors(); });
  section("add_cpu(a, b, out, n)", [&] { test_simple_entry(rng); });
  section("named layouts", [&] { test_named_layouts(rng); });
  section("random layouts", [&] { test_random_layouts(rng, cases); });
  section("past 2^31 elements", [&] { test_big(rng); });
  section("conversions", [&] { test_conversions(rng); });
  if (failures != 0) {
    std::printf("test_launchers: %d of %ld checks FAILED (seed %llu)\n", failures, checks,
                (unsigned long long)seed);
    return 1;
  }
  std::printf("test_launchers: all %ld checks passed\n", checks);
  return 0;
}

}  // namespace
}  // namespace launcher_test

int main(int argc, char** argv) { return launcher_test::run(argc, argv); }
