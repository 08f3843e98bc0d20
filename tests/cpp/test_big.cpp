// Index arithmetic past 2^31 and 2^32 elements: plans of about 2^33 elements run over windows
// of positions near those and near the end, each checked against the reference.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "harness.h"
#include "operands.h"
#include "reference.h"
#include "sections.h"
#include "sum_double/add_cpu.h"
#include "sum_double/add_plan.h"

namespace launcher_test {

using sum_double::AddArgs;
using sum_double::AddPlan;

namespace {

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
      want[off[kOut] - lo[kOut]] = reference_op(load_bits(data[kA], t.a, off[kA]), t.a,
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

}  // namespace

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

}  // namespace launcher_test
