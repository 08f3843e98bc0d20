// The op against at::add in C++, on the CPU, with no Python: both through the dispatcher in one
// process, rounds taking turns, each round `calls` calls; every call takes the next of `sets`
// input pairs, as the bench's rotation does (sets = 1: the same operands, warm). What differs from
// Python's figures at the same size is the Python path, not the kernels or the op layer.
//
//     torch=$(python -c "import os, torch; print(os.path.dirname(torch.__file__))")
//     g++ -O2 -std=c++20 -isystem $torch/include -isystem $torch/include/torch/csrc/api/include
//         benchmarks/experiments/cpu_cpp_ab.cpp -o /tmp/cpu_cpp_ab -L$torch/lib -ltorch_cpu -lc10
//         -Wl,-rpath,$torch/lib                                          (one command)
//     THREADS=2 /tmp/cpu_cpp_ab "$(python -m sum_double --library)" 65536 20 61 20
//                                                            (n, calls, rounds, sets)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s OP_LIBRARY N CALLS ROUNDS SETS\n", argv[0]);
    return 2;
  }
  const long n = std::atol(argv[2]);
  const int calls = std::atoi(argv[3]), rounds = std::atoi(argv[4]), sets = std::atoi(argv[5]);
  const char* threads = std::getenv("THREADS");
  at::set_num_threads(threads != nullptr ? std::atoi(threads) : 1);
  if (dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("sum_double::add", "")
                .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  std::vector<at::Tensor> as, bs;
  for (int s = 0; s < sets; ++s) {
    as.push_back(at::randn({n}));
    bs.push_back(at::randn({n}));
  }
  long turn = 0;
  auto round_us = [&](bool ours) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i, ++turn) {
      const auto& a = as[turn % sets];
      const auto& b = bs[turn % sets];
      ours ? op.call(a, b) : at::add(a, b);
    }
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - t0;
    return took.count() / calls;
  };
  round_us(false);
  round_us(true);
  std::vector<double> ref, ours;
  for (int r = 0; r < rounds; ++r) {
    const bool ours_first = r % 2 == 1;
    const double first = round_us(ours_first), second = round_us(!ours_first);
    (ours_first ? ours : ref).push_back(first);
    (ours_first ? ref : ours).push_back(second);
  }
  std::sort(ref.begin(), ref.end());
  std::sort(ours.begin(), ours.end());
  const double r = ref[ref.size() / 2], o = ours[ours.size() / 2];
  std::printf("n=%ld threads=%d sets=%d: at::add %.2f us, sum_double::add %.2f us, ratio %.3f\n", n,
              at::get_num_threads(), sets, r, o, o / r);
}
