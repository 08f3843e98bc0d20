// The torch-free CPU launchers (include/sum_double/add_plan.h, add_cpu.h) against a scalar
// reference of this file's own. ci/sanitize-launchers.sh builds it with AddressSanitizer +
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
//  - Poisoned output: out is filled with a signaling-NaN pattern, which no addition produces,
//    before each call, so an element written outside out's layout or left unwritten shows.
//  - Layouts: broadcast (stride 0, missing leading dims), permuted and gapped strides, overlapping
//    input strides, size-0 and size-1 dims (with odd strides), 0-d, dims that merge and that do
//    not, a and b the same buffer.
//  - [begin, end): random pieces, empty ones included, run in random order: every element is
//    written once, by the piece that owns it in out's memory order.
//  - plan_add(): its merges on hand examples, and its errors.
//  - Index arithmetic past 2^31 and 2^32 elements: plans of about 2^33 elements run over windows
//    near those positions and near the end, the big operands living in address space reserved
//    with mmap(PROT_NONE) of which only the window is made accessible (see Buffer).
//
//   test_launchers [--seed N] [--cases N]   (cases: random layouts per dtype triple)
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sum_double/add_cpu.h"
#include "sum_double/add_plan.h"

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

namespace {

using sum_double::AddArgs;
using sum_double::AddPlan;
using sum_double::DType;
using Rng = std::mt19937_64;

constexpr DType kF16 = DType::kFloat16;
constexpr DType kBF16 = DType::kBFloat16;
constexpr DType kF32 = DType::kFloat32;
constexpr DType kF64 = DType::kFloat64;
constexpr DType kDTypes[] = {kF16, kBF16, kF32, kF64};

// ---- Reporting

int failures = 0;
long checks = 0;
std::string context;  // the case being run, printed once before its first failure
bool context_printed = false;
unsigned long long current_seed = 0;
constexpr int kMaxPrinted = 40;

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
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

// Counts a check; prints the message (and the case, once) when it failed. Returns ok.
bool expect(bool ok, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
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

// Test setup that cannot go on (mmap refused, ...): says so and exits.
[[noreturn]] void fatal(const std::string& what) {
  std::printf("FATAL: %s\n", what.c_str());
  std::exit(2);
}

const char* dtype_name(DType t) {
  switch (t) {
    case kF16:
      return "float16";
    case kBF16:
      return "bfloat16";
    case kF32:
      return "float32";
    case kF64:
      return "float64";
  }
  return "?";
}

int64_t itemsize(DType t) { return t == kF64 ? 8 : t == kF32 ? 4 : 2; }

std::string join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// ---- The reference's numbers. Each format is (exponent bits, mantissa bits) in IEEE 754's
// layout; values are carried as doubles, which hold every value of all four formats exactly.

struct Format {
  int exp_bits;
  int mant_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int emin() const { return 1 - bias(); }  // exponent of the smallest normal number
  int emax() const { return bias(); }      // exponent of the largest finite number
  int total_bits() const { return 1 + exp_bits + mant_bits; }
};

Format format_of(DType t) {
  switch (t) {
    case kF16:
      return {5, 10};
    case kBF16:
      return {8, 7};
    case kF32:
      return {8, 23};
    case kF64:
      return {11, 52};
  }
  return {0, 0};
}

double decode(uint64_t bits, Format f) {
  const uint64_t mant_mask = (uint64_t{1} << f.mant_bits) - 1;
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  const bool negative = (bits >> (f.total_bits() - 1)) & 1;
  const uint64_t exp_field = (bits >> f.mant_bits) & exp_all;
  const uint64_t mant = bits & mant_mask;
  double mag;
  if (exp_field == exp_all) {
    mag = mant == 0 ? INFINITY : NAN;
  } else if (exp_field == 0) {  // zero and subnormals: mant units of 2^(emin - mant_bits)
    mag = std::ldexp(static_cast<double>(mant), f.emin() - f.mant_bits);
  } else {  // 1.mant times 2^(exp_field - bias)
    mag = std::ldexp(static_cast<double>((uint64_t{1} << f.mant_bits) + mant),
                     static_cast<int>(exp_field) - f.bias() - f.mant_bits);
  }
  return negative ? -mag : mag;
}

// v to the nearest value of format f, ties to the even one; too large: infinity. Works on the
// magnitude scaled so that f's last place at v's exponent is 1, where the tie rule is explicit.
double round_to(double v, Format f) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return v;
  const double mag = std::fabs(v);
  int e;
  std::frexp(mag, &e);  // mag in [2^(e-1), 2^e)
  const int exponent = std::max(e - 1, f.emin());
  const int unit = exponent - f.mant_bits;       // log2 of the last place at that exponent
  const double scaled = std::ldexp(mag, -unit);  // exact: scaling by a power of two
  double whole = std::floor(scaled);
  const double frac = scaled - whole;  // exact: scaled has at most 53 significant bits
  if (frac > 0.5 || (frac == 0.5 && std::fmod(whole, 2.0) == 1.0)) whole += 1;
  double r = std::ldexp(whole, unit);
  if (r >= std::ldexp(1.0, f.emax() + 1)) r = INFINITY;
  return std::copysign(r, v);
}

// The bits of v, which must be a value of f (or an infinity, or a NaN: a quiet one).
uint64_t encode(double v, Format f) {
  const uint64_t sign = std::signbit(v) ? uint64_t{1} << (f.total_bits() - 1) : 0;
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  if (std::isnan(v)) return (exp_all << f.mant_bits) | (uint64_t{1} << (f.mant_bits - 1));
  if (std::isinf(v)) return sign | (exp_all << f.mant_bits);
  const double mag = std::fabs(v);
  if (mag == 0) return sign;
  int e;
  std::frexp(mag, &e);
  const int exponent = e - 1;
  if (exponent < f.emin()) {
    const double units = std::ldexp(mag, f.mant_bits - f.emin());
    return sign | static_cast<uint64_t>(units);
  }
  const double fraction = std::ldexp(mag, -exponent) - 1.0;  // in [0, 1)
  const auto mant = static_cast<uint64_t>(std::ldexp(fraction, f.mant_bits));
  return sign | (static_cast<uint64_t>(exponent + f.bias()) << f.mant_bits) | mant;
}

double value_of(uint64_t bits, DType t) { return decode(bits, format_of(t)); }
bool is_nan(uint64_t bits, DType t) { return std::isnan(value_of(bits, t)); }

// An input converted to out's dtype as the launchers promise: to nearest even, and a float64
// going to a half type through float32 first, as c10's casts do.
double convert(double v, DType from, DType to) {
  if (to == kF64 || from == to) return v;
  if (to == kF32) return round_to(v, format_of(kF32));
  if (from == kF64) v = round_to(v, format_of(kF32));
  return round_to(v, format_of(to));
}

// out's bits for a + b: both converted to out's dtype, added in float32 (float64 for a float64
// out) and rounded once.
uint64_t reference_add(uint64_t a, DType at, uint64_t b, DType bt, DType ot) {
  const double x = convert(value_of(a, at), at, ot);
  const double y = convert(value_of(b, bt), bt, ot);
  if (ot == kF64) return encode(x + y, format_of(kF64));
  const float sum = static_cast<float>(x) + static_cast<float>(y);  // exact conversions
  return encode(round_to(sum, format_of(ot)), format_of(ot));
}

bool same_result(uint64_t got, uint64_t want, DType t) {
  return is_nan(want, t) ? is_nan(got, t) : got == want;
}

// The fill of out: a signaling NaN, which no IEEE operation returns (their NaNs are quiet), so an
// element that still holds it was not written.
uint64_t poison_of(DType t) {
  switch (t) {
    case kF16:
      return 0x7D55;
    case kBF16:
      return 0x7F95;
    case kF32:
      return 0x7F955555;
    case kF64:
      return 0x7FF5555555555555;
  }
  return 0;
}

uint64_t negative_zero(DType t) { return uint64_t{1} << (format_of(t).total_bits() - 1); }

uint64_t load_bits(const void* base, DType t, int64_t i) {
  const char* p = static_cast<const char*>(base) + i * itemsize(t);
  switch (itemsize(t)) {
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void store_bits(void* base, DType t, int64_t i, uint64_t bits) {
  char* p = static_cast<char*>(base) + i * itemsize(t);
  switch (itemsize(t)) {
    case 2: {
      const auto v = static_cast<uint16_t>(bits);
      std::memcpy(p, &v, 2);
      break;
    }
    case 4: {
      const auto v = static_cast<uint32_t>(bits);
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      std::memcpy(p, &bits, 8);
  }
}

// Random inputs: specials (zeros, infinities, NaNs, extremes), any bit pattern, subnormals, and
// mostly ordinary numbers near 1, whose sums round. Never the poison pattern.
uint64_t random_value(DType t, Rng& rng) {
  const Format f = format_of(t);
  const uint64_t mant_mask = (uint64_t{1} << f.mant_bits) - 1;
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  const uint64_t sign = (rng() & 1) << (f.total_bits() - 1);
  const uint64_t all_mask =
      f.total_bits() == 64 ? ~uint64_t{0} : (uint64_t{1} << f.total_bits()) - 1;
  uint64_t bits;
  const int kind = static_cast<int>(rng() % 20);
  if (kind < 2) {
    switch (rng() % 8) {
      case 0:
        bits = 0;
        break;
      case 1:
        bits = exp_all << f.mant_bits;
        break;
      case 2:
        bits = (exp_all << f.mant_bits) | (uint64_t{1} << (f.mant_bits - 1)) |
               (rng() & (mant_mask >> 1));
        break;
      case 3:
        bits = ((exp_all - 1) << f.mant_bits) | mant_mask;
        break;
      case 4:
        bits = uint64_t{1} << f.mant_bits;
        break;
      case 5:
        bits = 1;
        break;
      case 6:
        bits = mant_mask;
        break;
      default:
        bits = static_cast<uint64_t>(f.bias()) << f.mant_bits;
    }
    bits |= sign;
  } else if (kind < 7) {
    bits = rng() & all_mask;
  } else if (kind < 9) {
    bits = sign | ((rng() % 3) << f.mant_bits) | (rng() & mant_mask);
  } else {
    const auto exp_field = static_cast<uint64_t>(f.bias() + static_cast<int>(rng() % 9) - 4);
    bits = sign | (exp_field << f.mant_bits) | (rng() & mant_mask);
  }
  if (bits == poison_of(t)) bits ^= 1;
  return bits;
}

// ---- Operands in memory

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

// A big operand: address space for all its elements reserved with mmap(PROT_NONE,
// MAP_NORESERVE), which costs no memory, with a PROT_NONE guard page after it. open() makes the
// pages around one window readable and writable and poisons for ASan the parts of those pages
// outside the window, so that touching anything but the window is reported: ASan for the
// window's own pages, a SEGV (which ASan reports too) for every other page.
class Buffer {
 public:
  explicit Buffer(int64_t bytes) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_ = (static_cast<size_t>(bytes) + page_ - 1) / page_ * page_ + page_;
    void* p = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fatal(format("mmap of %zu bytes of address space failed", size_));
    base_ = static_cast<char*>(p);
  }
  ~Buffer() {
    for (const auto& [lo, hi] : opened_) SD_UNPOISON(base_ + lo, hi - lo);
    munmap(base_, size_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* data() const { return base_; }
  // Bytes [lo, hi) usable. lo must be a multiple of 8 (ASan's granule) for the bytes just below
  // it to be poisoned; windows far apart (they must not share a page).
  void open(size_t lo, size_t hi) {
    if (lo % 8 != 0) fatal("window not 8-byte aligned");
    const size_t page_lo = lo / page_ * page_;
    const size_t page_hi = (hi + page_ - 1) / page_ * page_;
    if (mprotect(base_ + page_lo, page_hi - page_lo, PROT_READ | PROT_WRITE) != 0) {
      fatal("mprotect failed");
    }
    SD_POISON(base_ + page_lo, lo - page_lo);
    SD_POISON(base_ + hi, page_hi - hi);
    opened_.emplace_back(page_lo, page_hi);
  }

 private:
  char* base_ = nullptr;
  size_t size_ = 0;
  size_t page_ = 4096;
  std::vector<std::pair<size_t, size_t>> opened_;
};

// ---- Layouts

constexpr int kOut = 0, kA = 1, kB = 2;

struct Layout {
  std::vector<int64_t> sizes;
  std::array<std::vector<int64_t>, 3> strides;  // out, a, b
  int dim() const { return static_cast<int>(sizes.size()); }
};

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Elements an operand's buffer must hold: 1 + the largest offset, 0 when there are none.
int64_t extent_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (numel_of(sizes) == 0) return 0;
  int64_t e = 1;
  for (size_t d = 0; d < sizes.size(); ++d) e += (sizes[d] - 1) * strides[d];
  return e;
}

// The offsets of the element at row-major position p (the last dim fastest).
void offsets_at(const Layout& l, int64_t p, int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int d = l.dim() - 1; d >= 0; --d) {
    const int64_t i = p % l.sizes[d];
    p /= l.sizes[d];
    for (int op = 0; op < 3; ++op) off[op] += i * l.strides[op][d];
  }
}

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

// Whether each dim of size > 1, taken by increasing stride, steps past all the faster ones: then
// out's memory order is the plan's order, element for element.
bool nested(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  std::vector<int> dims;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1) dims.push_back(static_cast<int>(d));
  }
  std::sort(dims.begin(), dims.end(), [&](int x, int y) { return strides[x] < strides[y]; });
  int64_t reach = 0;
  for (int d : dims) {
    if (strides[d] <= reach) return false;
    reach += (sizes[d] - 1) * strides[d];
  }
  return true;
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

// ---- One call of the launcher against the reference

struct Triple {
  DType a, b, out;
};

std::string describe(const Layout& l, const Triple& t, bool alias) {
  return format("%s + %s -> %s, sizes %s, strides out %s a %s b %s%s", dtype_name(t.a),
                dtype_name(t.b), dtype_name(t.out), join(l.sizes).c_str(),
                join(l.strides[kOut]).c_str(), join(l.strides[kA]).c_str(),
                join(l.strides[kB]).c_str(), alias ? " (b is a)" : "");
}

// [0, n) cut into `pieces` pieces at random points (so some may be empty), in random order, plus
// sometimes an empty piece somewhere.
std::vector<std::pair<int64_t, int64_t>> random_pieces(int64_t lo, int64_t hi, int pieces,
                                                       Rng& rng) {
  std::vector<int64_t> cuts{lo, hi};
  for (int i = 1; i < pieces; ++i) {
    cuts.push_back(lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)));
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) out.emplace_back(cuts[i], cuts[i + 1]);
  if (rng() % 4 == 0) {
    const int64_t at = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
    out.emplace_back(at, at);
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

// Runs layout l with dtypes t over random pieces and checks everything the file's header lists.
// a_bits / b_bits give the inputs (one per buffer element), else they are random.
void run_case(const Layout& l, const Triple& t, bool alias, int pieces, Rng& rng,
              const std::vector<uint64_t>* a_bits = nullptr,
              const std::vector<uint64_t>* b_bits = nullptr) {
  set_context(describe(l, t, alias));
  const int64_t n = numel_of(l.sizes);
  const int64_t ext_out = extent_of(l.sizes, l.strides[kOut]);
  const int64_t ext_a = extent_of(l.sizes, l.strides[kA]);
  const int64_t ext_b = alias ? ext_a : extent_of(l.sizes, l.strides[kB]);
  Exact out(ext_out * itemsize(t.out));
  Exact a(ext_a * itemsize(t.a));
  Exact b_own(alias ? 0 : ext_b * itemsize(t.b));
  void* b = alias ? a.p : b_own.p;
  for (int64_t i = 0; i < ext_a; ++i) {
    store_bits(a.p, t.a, i, a_bits ? (*a_bits)[i] : random_value(t.a, rng));
  }
  if (!alias) {
    for (int64_t i = 0; i < ext_b; ++i) {
      store_bits(b, t.b, i, b_bits ? (*b_bits)[i] : random_value(t.b, rng));
    }
  }
  const std::vector<char> a_copy(static_cast<char*>(a.p),
                                 static_cast<char*>(a.p) + ext_a * itemsize(t.a));
  const std::vector<char> b_copy(static_cast<char*>(b),
                                 static_cast<char*>(b) + ext_b * itemsize(t.b));

  // The reference, by out offset; then the covered offsets in memory order.
  std::vector<uint64_t> want(ext_out);
  std::vector<char> covered(ext_out, 0);
  for (int64_t p = 0; p < n; ++p) {
    int64_t off[3];
    offsets_at(l, p, off);
    if (covered[off[kOut]]) fatal("test bug: out layout overlaps: " + context);
    covered[off[kOut]] = 1;
    want[off[kOut]] =
        reference_add(load_bits(a.p, t.a, off[kA]), t.a, load_bits(b, t.b, off[kB]), t.b, t.out);
  }
  std::vector<int64_t> memory_order;
  for (int64_t i = 0; i < ext_out; ++i) {
    if (covered[i]) memory_order.push_back(i);
  }
  const bool in_memory_order = nested(l.sizes, l.strides[kOut]);

  const AddArgs args{l.dim(), l.sizes.data(),       a.p,   t.a,   l.strides[kA].data(),  b,
                     t.b,     l.strides[kB].data(), out.p, t.out, l.strides[kOut].data()};
  AddPlan plan;
  const char* err = sum_double::plan_add(args, plan);
  if (!expect(err == nullptr, "plan_add refused a valid call: %s", err ? err : "")) return;
  expect(plan.numel == n, "plan.numel %lld, want %lld", (long long)plan.numel, (long long)n);
  if (n > 1) {
    int64_t product = 1;
    bool sizes_ok = plan.dim >= 1 && plan.dim <= AddPlan::kMaxDims;
    for (int d = 0; sizes_ok && d < plan.dim; ++d) {
      product *= plan.sizes[d];
      sizes_ok = plan.sizes[d] >= 2;
    }
    expect(sizes_ok && product == n, "plan: dim %d, its sizes multiply to %lld, want %lld",
           plan.dim, (long long)product, (long long)n);
  }

  const uint64_t poison = poison_of(t.out);
  std::vector<int> owner(ext_out, -1);
  const auto run = random_pieces(0, n, pieces, rng);
  for (size_t k = 0; k < run.size(); ++k) {
    const auto [begin, end] = run[k];
    for (int64_t i = 0; i < ext_out; ++i) store_bits(out.p, t.out, i, poison);
    sum_double::add_cpu(plan, begin, end);
    int64_t written = 0;
    int bad = 0;
    for (int64_t i = 0; i < ext_out; ++i) {
      const uint64_t got = load_bits(out.p, t.out, i);
      if (got == poison) continue;
      ++written;
      if (!covered[i] || owner[i] != -1) {
        if (++bad <= 3) {
          expect(false, "piece [%lld, %lld) wrote out element %lld, which %s", (long long)begin,
                 (long long)end, (long long)i,
                 !covered[i] ? "is outside out's layout" : "another piece wrote");
        }
        continue;
      }
      owner[i] = static_cast<int>(k);
      ++checks;
      if (!same_result(got, want[i], t.out) && ++bad <= 3) {
        expect(false, "piece [%lld, %lld), out element %lld: got 0x%llx, want 0x%llx",
               (long long)begin, (long long)end, (long long)i, (unsigned long long)got,
               (unsigned long long)want[i]);
      }
    }
    expect(bad == 0, "piece [%lld, %lld): %d elements wrong", (long long)begin, (long long)end,
           bad);
    expect(written == end - begin, "piece [%lld, %lld) wrote %lld elements", (long long)begin,
           (long long)end, (long long)written);
    if (in_memory_order) {
      bool own = true;
      for (int64_t p = begin; own && p < end; ++p) own = owner[memory_order[p]] == int(k);
      expect(own, "piece [%lld, %lld) did not write elements [begin, end) of out's memory order",
             (long long)begin, (long long)end);
    }
  }
  int64_t missed = 0;
  for (int64_t i = 0; i < ext_out; ++i) missed += covered[i] && owner[i] == -1;
  expect(missed == 0, "%lld elements of out written by no piece", (long long)missed);
  expect(a_copy.empty() || std::memcmp(a_copy.data(), a.p, a_copy.size()) == 0, "a changed");
  expect(b_copy.empty() || std::memcmp(b_copy.data(), b, b_copy.size()) == 0, "b changed");
}

// The 30 (a, b, out) dtype triples plan_add() must accept, written out: for each pair, out is
// a's dtype, b's or the promoted one (float32 for float16 with bfloat16, else the wider).
std::vector<Triple> accepted_triples() {
  const Triple lower[] = {
      {kF16, kF16, kF16},  {kBF16, kBF16, kBF16}, {kF32, kF32, kF32},  {kF64, kF64, kF64},
      {kF16, kBF16, kF16}, {kF16, kBF16, kBF16},  {kF16, kBF16, kF32}, {kF16, kF32, kF16},
      {kF16, kF32, kF32},  {kF16, kF64, kF16},    {kF16, kF64, kF64},  {kBF16, kF32, kBF16},
      {kBF16, kF32, kF32}, {kBF16, kF64, kBF16},  {kBF16, kF64, kF64}, {kF32, kF64, kF32},
      {kF32, kF64, kF64},
  };
  std::vector<Triple> all;
  for (const Triple& t : lower) {
    all.push_back(t);
    if (t.a != t.b) all.push_back({t.b, t.a, t.out});
  }
  return all;
}

// ---- The sections

void test_reference() {
  set_context("the reference's own conversions");
  for (DType t : {kF16, kBF16}) {
    const Format f = format_of(t);
    int bad = 0;
    for (uint64_t bits = 0; bits < 65536; ++bits) {
      const double v = decode(bits, f);
      const bool exp_all_ones =
          ((bits >> f.mant_bits) & ((1u << f.exp_bits) - 1)) == (1u << f.exp_bits) - 1;
      const bool nan_ok = std::isnan(v) == (exp_all_ones && (bits & ((1u << f.mant_bits) - 1)));
      const bool round_trip = std::isnan(v) || (encode(v, f) == bits && round_to(v, f) == v);
      bad += !(nan_ok && round_trip);
    }
    expect(bad == 0, "%s: %d bit patterns do not round-trip", dtype_name(t), bad);
  }
  Rng rng(1);
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const auto bits32 = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &bits32, 4);
    const uint64_t bits64 = i % 2 ? rng() : random_value(kF64, rng);
    double d;
    std::memcpy(&d, &bits64, 8);
    // The hardware's float32 and float64 against the reference's decoding and rounding.
    const double v32 = decode(bits32, format_of(kF32));
    bad += !(std::isnan(f) ? std::isnan(v32) : v32 == f && encode(v32, format_of(kF32)) == bits32);
    const double v64 = decode(bits64, format_of(kF64));
    bad += !(std::isnan(d) ? std::isnan(v64) : v64 == d && encode(v64, format_of(kF64)) == bits64);
    const double r = round_to(d, format_of(kF32));
    const float hw = static_cast<float>(d);
    bad += !(std::isnan(d) ? std::isnan(r) : r == hw && std::signbit(r) == std::signbit(hw));
#if defined(__FLT16_MANT_DIG__)
    // And the compiler's _Float16 (libgcc's soft-float), where it has one.
    const float h = static_cast<float>(static_cast<_Float16>(f));
    const double mine = round_to(f, format_of(kF16));
    bad += !(std::isnan(f) ? std::isnan(mine) : mine == h && std::signbit(mine) == std::signbit(h));
#endif
  }
  expect(bad == 0, "%d random values disagree with the hardware's conversions", bad);
}

// One flat call: out[i] = a[i] + b[0], b broadcast. Used to push chosen values through the
// kernel's conversions.
void run_values(const std::vector<uint64_t>& a_values, const Triple& t, uint64_t b_value,
                Rng& rng) {
  const auto n = static_cast<int64_t>(a_values.size());
  Layout l{{n}, {{{1}, {1}, {0}}}};
  const std::vector<uint64_t> b_values{b_value};
  run_case(l, t, false, 3, rng, &a_values, &b_values);
}

// Every float16 and bfloat16 bit pattern, and the values around each rounding boundary of both,
// through the kernel's conversions: x + (-0) is x, so out holds x converted.
void test_conversions(Rng& rng) {
  std::vector<uint64_t> all16(65536);
  for (uint64_t i = 0; i < 65536; ++i) all16[i] = i;
  for (DType in : {kF16, kBF16}) {
    // (in, o, o): out is b's dtype, so every o is a valid out; and (in, other half, float32).
    for (DType o : kDTypes) run_values(all16, {in, o, o}, negative_zero(o), rng);
    const DType other = in == kF16 ? kBF16 : kF16;
    run_values(all16, {in, other, kF32}, negative_zero(other), rng);
  }
  // Rounding to each half type from float32 and float64: each value of the narrow type, its
  // neighbours in float32, the midpoint to the next value (a tie) and the float32 values beside
  // it; from float64 also the doubles just off the midpoint that float32 rounds onto it (the
  // double rounding c10 does).
  for (DType narrow : {kF16, kBF16}) {
    const Format nf = format_of(narrow);
    std::vector<uint64_t> from32, from64;
    const uint64_t finite = ((uint64_t{1} << nf.exp_bits) - 1) << nf.mant_bits;
    for (uint64_t bits = 0; bits < finite; ++bits) {
      const double v = decode(bits, nf);
      const double next =
          bits + 1 == finite ? std::ldexp(1.0, nf.emax() + 1) : decode(bits + 1, nf);
      const double mid = (v + next) / 2;
      for (const double sign : {1.0, -1.0}) {
        const auto f32 = [&](float x) {
          uint32_t u;
          std::memcpy(&u, &x, 4);
          from32.push_back(u);
        };
        const auto f64 = [&](double x) {
          uint64_t u;
          std::memcpy(&u, &x, 8);
          from64.push_back(u);
        };
        const auto fv = static_cast<float>(sign * v), fm = static_cast<float>(sign * mid);
        f32(fv);
        f32(std::nextafter(fv, INFINITY));
        f32(fm);
        f32(std::nextafter(fm, INFINITY));
        f32(std::nextafter(fm, -INFINITY));
        f64(sign * mid);
        f64(sign * mid * (1 + 0x1p-40));
        f64(sign * mid * (1 - 0x1p-40));
        f64(sign * mid * (1 + 0x1p-20));
      }
    }
    run_values(from32, {kF32, narrow, narrow}, negative_zero(narrow), rng);
    run_values(from64, {kF64, narrow, narrow}, negative_zero(narrow), rng);
  }
  // NaNs of every payload width into the half types, the all-ones ones (0xFFFFFFFF, a common
  // fill) included: their magnitude bits are near INT32_MAX, where integer rounding overflows.
  const std::vector<uint64_t> nans32{0x7FFFFFFF, 0xFFFFFFFF, 0x7FFFF000, 0x7FFFEFFF,
                                     0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FBFFFFF};
  const std::vector<uint64_t> nans64{0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FF8000000000000,
                                     0x7FF0000000000001, 0x7FFFFFFFE0000000};
  for (DType narrow : {kF16, kBF16}) {
    run_values(nans32, {kF32, narrow, narrow}, negative_zero(narrow), rng);
    run_values(nans64, {kF64, narrow, narrow}, negative_zero(narrow), rng);
  }
  // float64 to float32: random doubles and ties of float32.
  std::vector<uint64_t> doubles;
  for (int i = 0; i < 60000; ++i) {
    doubles.push_back(random_value(kF64, rng));
    const auto f =
        static_cast<float>(std::ldexp(1.0 + (rng() % (1u << 23)) * 0x1p-23, int(rng() % 60) - 30));
    const double tie = (static_cast<double>(f) + std::nextafter(f, INFINITY)) / 2;
    uint64_t u;
    std::memcpy(&u, &tie, 8);
    doubles.push_back(u);
  }
  run_values(doubles, {kF64, kF32, kF32}, negative_zero(kF32), rng);
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

// The same-dtype contiguous entry point, around the vector loops' widths.
void test_simple_entry(Rng& rng) {
  for (DType t : kDTypes) {
    set_context(format("add_cpu(a, b, out, n, %s)", dtype_name(t)));
    sum_double::add_cpu(nullptr, nullptr, nullptr, 0, t);  // n = 0 touches no memory
    for (int64_t n : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 100, 1023}) {
      Exact a(n * itemsize(t)), b(n * itemsize(t)), out(n * itemsize(t));
      std::vector<uint64_t> want(n);
      for (int64_t i = 0; i < n; ++i) {
        store_bits(a.p, t, i, random_value(t, rng));
        store_bits(b.p, t, i, random_value(t, rng));
        store_bits(out.p, t, i, poison_of(t));
        want[i] = reference_add(load_bits(a.p, t, i), t, load_bits(b.p, t, i), t, t);
      }
      sum_double::add_cpu(a.p, b.p, out.p, n, t);
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += !same_result(load_bits(out.p, t, i), want[i], t);
      expect(bad == 0, "n = %lld: %d elements wrong", (long long)n, bad);
    }
  }
}

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
  // too many. 25 such dims are accepted (big_cases runs them).
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

// ---- Past 2^31 elements

// A plan of ~2^33 elements run over windows of positions: the big operands are Buffers, of
// which only the elements the window reaches are accessible; small ones are exact mallocs.
// Out's strides must be nested and decreasing (so the plan's order is row-major).
void run_big(const char* name, const Layout& l, const Triple& t, int want_dim,
             std::vector<std::pair<int64_t, int64_t>> windows, Rng& rng) {
  set_context(format("big plan \"%s\": %s", name, describe(l, t, false).c_str()));
  const int64_t n = numel_of(l.sizes);
  const DType types[3] = {t.out, t.a, t.b};
  std::unique_ptr<Buffer> big[3];
  std::unique_ptr<Exact> small[3];
  void* data[3];
  for (int op = 0; op < 3; ++op) {
    const int64_t bytes = extent_of(l.sizes, l.strides[op]) * itemsize(types[op]);
    if (bytes > (int64_t{64} << 20)) {
      big[op] = std::make_unique<Buffer>(bytes);
      data[op] = big[op]->data();
    } else {
      small[op] = std::make_unique<Exact>(bytes);
      data[op] = small[op]->p;
      // Random values, a table of 4096 repeated (these inputs have up to a million elements).
      std::vector<uint64_t> table(4096);
      for (auto& v : table) v = random_value(types[op], rng);
      for (int64_t i = 0; i * itemsize(types[op]) < bytes; ++i) {
        store_bits(data[op], types[op], i, op == kOut ? poison_of(t.out) : table[i % 4096]);
      }
    }
  }
  if (!big[kOut]) fatal("test bug: out of a big plan is small");
  const AddArgs args{
      l.dim(), l.sizes.data(),       data[kA],   t.a,   l.strides[kA].data(),  data[kB],
      t.b,     l.strides[kB].data(), data[kOut], t.out, l.strides[kOut].data()};
  AddPlan plan;
  const char* err = sum_double::plan_add(args, plan);
  if (!expect(err == nullptr, "plan_add refused it: %s", err ? err : "")) return;
  expect(plan.numel == n && plan.dim == want_dim, "plan: numel %lld dim %d, want %lld and %d",
         (long long)plan.numel, plan.dim, (long long)n, want_dim);

  const uint64_t poison = poison_of(t.out);
  for (auto [wb, we] : windows) {
    // Out's first element must start an 8-byte granule, so that ASan sees the bytes below it.
    int64_t off[3];
    for (offsets_at(l, wb, off); (off[kOut] * itemsize(t.out)) % 8 != 0; offsets_at(l, wb, off)) {
      --wb;
    }
    int64_t lo[3], hi[3];
    for (int op = 0; op < 3; ++op) {
      lo[op] = INT64_MAX;
      hi[op] = -1;
    }
    for (int64_t p = wb; p < we; ++p) {
      offsets_at(l, p, off);
      for (int op = 0; op < 3; ++op) {
        lo[op] = std::min(lo[op], off[op]);
        hi[op] = std::max(hi[op], off[op] + 1);
      }
    }
    for (int op = 0; op < 3; ++op) {
      if (!big[op]) continue;
      const int64_t size = itemsize(types[op]);
      if (op != kOut) lo[op] -= (lo[op] * size % 8) / size;  // inputs: a granule-aligned start
      big[op]->open(static_cast<size_t>(lo[op] * size), static_cast<size_t>(hi[op] * size));
      if (op != kOut) {
        for (int64_t i = lo[op]; i < hi[op]; ++i)
          store_bits(data[op], types[op], i, random_value(types[op], rng));
      }
    }
    // Out's elements in [lo, hi): which position writes each (-1: none, a gap).
    std::vector<int64_t> pos_of(hi[kOut] - lo[kOut], -1);
    std::vector<uint64_t> want(hi[kOut] - lo[kOut]);
    for (int64_t p = wb; p < we; ++p) {
      offsets_at(l, p, off);
      pos_of[off[kOut] - lo[kOut]] = p;
      want[off[kOut] - lo[kOut]] = reference_add(load_bits(data[kA], t.a, off[kA]), t.a,
                                                 load_bits(data[kB], t.b, off[kB]), t.b, t.out);
    }
    for (auto [begin, end] : random_pieces(wb, we, 4, rng)) {
      for (int64_t i = lo[kOut]; i < hi[kOut]; ++i) store_bits(data[kOut], t.out, i, poison);
      sum_double::add_cpu(plan, begin, end);
      int bad = 0;
      for (int64_t i = lo[kOut]; i < hi[kOut]; ++i) {
        const uint64_t got = load_bits(data[kOut], t.out, i);
        const int64_t p = pos_of[i - lo[kOut]];
        const bool mine = p >= begin && p < end;
        const bool ok = mine ? same_result(got, want[i - lo[kOut]], t.out) : got == poison;
        ++checks;
        if (!ok && ++bad <= 3) {
          expect(false,
                 "piece [%lld, %lld): out element %lld (position %lld): got 0x%llx, want %s0x%llx",
                 (long long)begin, (long long)end, (long long)i, (long long)p,
                 (unsigned long long)got, mine ? "" : "untouched ",
                 (unsigned long long)(mine ? want[i - lo[kOut]] : poison));
        }
      }
      expect(bad == 0, "piece [%lld, %lld): %d elements wrong", (long long)begin, (long long)end,
             bad);
    }
  }
}

void test_big(Rng& rng) {
  const int64_t two31 = int64_t{1} << 31, two32 = int64_t{1} << 32;
  const auto windows = [&](int64_t n, int64_t width) {
    return std::vector<std::pair<int64_t, int64_t>>{{two31 - width / 2, two31 + width / 2},
                                                    {two32 - width / 2, two32 + width / 2},
                                                    {n - width, n}};
  };
  // 2 dims: out rows with gaps, a broadcast over rows, b over columns. 8.59e9 elements.
  {
    const int64_t rows = 1048579, cols = 8191;
    const Layout l{{rows, cols}, {{{cols + 3, 1}, {0, 1}, {1, 0}}}};
    for (const Triple& t : accepted_triples())
      run_big("2-d", l, t, 2, windows(rows * cols, 20000), rng);
  }
  // 3 dims, none merging, the carry into dim 0 inside a window. 5.4e9 elements.
  {
    const int64_t s0 = 5, s1 = 1048573, s2 = 1031;
    const Layout l{{s0, s1, s2}, {{{s1 * s2, s2, 1}, {0, 1, 0}, {1, 0, 1}}}};
    auto w = windows(s0 * s1 * s2, 6000);
    w.push_back({2 * s1 * s2 - 3000, 2 * s1 * s2 + 3000});
    for (const Triple& t :
         {Triple{kF32, kF32, kF32}, Triple{kF16, kF16, kF16}, Triple{kBF16, kF32, kBF16},
          Triple{kF64, kF16, kF16}, Triple{kF32, kF64, kF64}}) {
      run_big("3-d", l, t, 3, w, rng);
    }
  }
  // Flat: all three contiguous (two dims that merge into one), 2^33 + 1 elements; every triple,
  // so both the same-dtype loops and the mixed row loop run at offsets past 2^32.
  {
    const Layout l{{3, 2863311531}, {{{2863311531, 1}, {2863311531, 1}, {2863311531, 1}}}};
    for (const Triple& t : accepted_triples())
      run_big("flat", l, t, 1, windows(3 * 2863311531, 4000), rng);
  }
  // 25 dims that do not merge (a's strides alternate 1 and 0 in out's order), 2^33 elements.
  {
    Layout l;
    l.sizes.assign(25, 2);
    l.sizes[0] = l.sizes[12] = 32;
    for (auto& s : l.strides) s.assign(25, 0);
    int64_t s = 1;
    for (int d = 24; d >= 0; --d) {
      l.strides[kOut][d] = s;
      s *= l.sizes[d];
      l.strides[kA][d] = (24 - d) % 2;
      l.strides[kB][d] = (24 - d) % 3 == 0;
    }
    for (const Triple& t : {Triple{kF32, kF32, kF32}, Triple{kBF16, kF16, kF32}}) {
      run_big("25-d", l, t, 25, windows(numel_of(l.sizes), 3000), rng);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
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
