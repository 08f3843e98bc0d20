// The harness's reporting (harness.h): the counters, the case's context, expect() and fatal().
#include "harness.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace launcher_test {

int failures = 0;
long checks = 0;
std::string context;

namespace {

bool context_printed = false;
constexpr int kMaxPrinted = 40;  // failures printed; the rest only counted

}  // namespace

std::string format(const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

void set_context(std::string what) {
  context = std::move(what);
  context_printed = false;
}

bool expect(bool ok, const char* fmt, ...) {
  ++checks;
  if (ok) return true;
  ++failures;
  if (failures > kMaxPrinted) {
    if (failures == kMaxPrinted + 1) std::printf("  (further failures not printed)\n");
    return false;
  }
  if (!context_printed && !context.empty()) {
    std::printf("FAIL in %s\n", context.c_str());
    context_printed = true;
  }
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  std::printf("  FAIL: %s\n", buf);
  return false;
}

void fatal(const std::string& what) {
  std::printf("FATAL: %s\n", what.c_str());
  std::exit(2);
}

std::string join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace launcher_test
