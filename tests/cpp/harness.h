// The test's harness, shared by every file of tests/cpp/: counting and reporting checks, the
// random generator, and ASan's poisoning (a no-op in a build without ASan). No test framework.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define SD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SD_TEST_ASAN 1
#endif
#endif
#if defined(SD_TEST_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SD_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SD_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SD_POISON(p, n) ((void)(p), (void)(n))
#define SD_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace launcher_test {

// One generator, seeded by main from --seed and passed down: the run is reproducible.
using Rng = std::mt19937_64;

extern int failures;
extern long checks;          // loops that check elements by themselves add to it directly
extern std::string context;  // the case being run, printed once before its first failure

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Names the case that the next checks belong to.
void set_context(std::string what);

// Counts a check; prints the message (and the case, once) when it failed. Returns ok.
bool expect(bool ok, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Test setup that cannot go on (mmap refused, ...): says so and exits.
[[noreturn]] void fatal(const std::string& what);

// "[2, 3, 4]": sizes and strides in messages.
std::string join(const std::vector<int64_t>& v);

}  // namespace launcher_test
