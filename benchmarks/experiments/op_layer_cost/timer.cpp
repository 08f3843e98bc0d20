// Host cost of the op layer (src/ops) without Python: torch.ops.sum_double.add on two float32 CPU
// tensors of n = 1024 elements, called through the dispatcher as Python calls it (boxed), on one
// thread, in inference mode (no autograd keys: the op's autograd is Python). Next to it: at::add,
// two floors and the op layer's parts (parts.cpp), and, when run.sh was given another source tree,
// that tree's op layer as sum_double_other::add. Every round times each case in turn; each figure
// is the median over rounds of (time of `iters` calls) / iters, in this thread's CPU time, so that
// time spent descheduled on a shared machine is left out.
//
//     bash benchmarks/experiments/op_layer_cost/run.sh [OTHER_SOURCE_TREE] [ROUNDS]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <utility>
#include <vector>

// This thread's CPU time in ns.
double thread_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

void parts_setup(AtenTensorHandle a, AtenTensorHandle b);
void part(int which);
extern const char* const part_names[];
extern const int num_parts;

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 31;
  const int iters = 20000;
  at::set_num_threads(1);
  c10::InferenceMode inference_mode;
  at::Tensor x = at::randn({1024}), y = at::randn({1024});
  parts_setup(reinterpret_cast<AtenTensorHandle>(&x), reinterpret_cast<AtenTensorHandle>(&y));

  const auto boxed = [&](const char* name) -> std::function<void()> {
    const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
    return [op, &x, &y] {
      torch::jit::Stack stack{x, y};
      op.callBoxed(&stack);
    };
  };
  std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"at::add", [&] { at::add(x, y); }},
      {"sum_double::add", boxed("sum_double::add")},
  };
  if (c10::Dispatcher::singleton().findSchema({"sum_double_other::add", ""})) {
    cases.emplace_back("sum_double_other::add (other tree)", boxed("sum_double_other::add"));
  }
  cases.emplace_back("floor: stable op returning a", boxed("op_layer_cost::first"));
  cases.emplace_back("floor: stable op allocating out", boxed("op_layer_cost::allocate"));
  for (int p = 0; p < num_parts; ++p) {
    cases.emplace_back(std::string("  part: ") + part_names[p], [p] { part(p); });
  }

  std::vector<std::vector<double>> ns(cases.size());
  for (auto& [name, call] : cases) {
    for (int i = 0; i < iters / 4; ++i) call();  // warm-up
  }
  for (int r = 0; r < rounds; ++r) {
    for (size_t c = 0; c < cases.size(); ++c) {
      const double start = thread_ns();
      for (int i = 0; i < iters; ++i) cases[c].second();
      ns[c].push_back((thread_ns() - start) / iters);
    }
  }
  std::printf("thread CPU time per call, n = 1024 float32, one thread, inference mode, %d rounds\n",
              rounds);
  for (size_t c = 0; c < cases.size(); ++c) {
    std::nth_element(ns[c].begin(), ns[c].begin() + ns[c].size() / 2, ns[c].end());
    std::printf("  %-44s %8.0f ns\n", cases[c].first.c_str(), ns[c][ns[c].size() / 2]);
  }
}
