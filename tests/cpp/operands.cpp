// Layout arithmetic and run_case() (operands.h): a call of the launchers on exact-size,
// poisoned operands, checked element by element against the reference.
#include "operands.h"

#include <algorithm>
#include <cstring>

#include "sum_double/add_cpu.h"
#include "sum_double/add_plan.h"

namespace launcher_test {

using sum_double::AddArgs;
using sum_double::AddPlan;

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t extent_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (numel_of(sizes) == 0) return 0;
  int64_t e = 1;
  for (size_t d = 0; d < sizes.size(); ++d) e += (sizes[d] - 1) * strides[d];
  return e;
}

void offsets_at(const Layout& l, int64_t p, int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int d = l.dim() - 1; d >= 0; --d) {
    const int64_t i = p % l.sizes[d];
    p /= l.sizes[d];
    for (int op = 0; op < 3; ++op) off[op] += i * l.strides[op][d];
  }
}

namespace {

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

}  // namespace

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

std::string describe(const Layout& l, const Triple& t, bool alias) {
  return format("%s + %s -> %s, sizes %s, strides out %s a %s b %s%s", dtype_name(t.a),
                dtype_name(t.b), dtype_name(t.out), join(l.sizes).c_str(),
                join(l.strides[kOut]).c_str(), join(l.strides[kA]).c_str(),
                join(l.strides[kB]).c_str(), alias ? " (b is a)" : "");
}

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

void run_case(const Layout& l, const Triple& t, bool alias, int pieces, Rng& rng,
              const std::vector<uint64_t>* a_bits, const std::vector<uint64_t>* b_bits) {
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
        reference_op(load_bits(a.p, t.a, off[kA]), t.a, load_bits(b, t.b, off[kB]), t.b, t.out);
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

}  // namespace launcher_test
