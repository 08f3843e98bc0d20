// Per-run time of AOTInductor packages that take two n-element float32 inputs (the packages of
// benchmarks/experiments/aoti_adds.py --compile-only), taking turns: median over rounds of `calls`
// runs.
//   aoti_time DEVICE N CALLS ROUNDS PACKAGE.pt2...
#include <ATen/ATen.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s DEVICE N CALLS ROUNDS PACKAGE.pt2...\n", argv[0]);
    return 1;
  }
  const c10::Device device(argv[1]);
  const int64_t n = std::stoll(argv[2]);
  const int calls = std::stoi(argv[3]), rounds = std::stoi(argv[4]);
  if (calls < 1 || rounds < 1) {
    std::fprintf(stderr, "CALLS and ROUNDS must be at least 1\n");
    return 1;
  }
  const std::vector<at::Tensor> inputs{at::randn({n}, at::TensorOptions(device)),
                                       at::randn({n}, at::TensorOptions(device))};
  // Copying a result to the host waits for the stream the package ran on (torch's current one).
  std::vector<at::Tensor> last;
  auto sync = [&] {
    if (!last.empty()) last[0].cpu();
  };
  std::vector<std::unique_ptr<torch::inductor::AOTIModelPackageLoader>> loaders;
  for (int i = 5; i < argc; ++i) {
    loaders.push_back(std::make_unique<torch::inductor::AOTIModelPackageLoader>(argv[i]));
    for (int c = 0; c < calls / 4; ++c) last = loaders.back()->run(inputs);  // warm-up
  }
  sync();
  std::vector<std::vector<double>> us(loaders.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t p = 0; p < loaders.size(); ++p) {
      const auto start = std::chrono::steady_clock::now();
      for (int c = 0; c < calls; ++c) last = loaders[p]->run(inputs);
      sync();
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - start;
      us[p].push_back(took.count() / calls);
    }
  }
  for (size_t p = 0; p < loaders.size(); ++p) {
    std::sort(us[p].begin(), us[p].end());
    std::printf("%-40s %9.2f us per run (median of %d rounds of %d runs, %s, n = %lld)\n",
                argv[p + 5], us[p][us[p].size() / 2], rounds, calls, argv[1],
                static_cast<long long>(n));
  }
  return 0;
}
