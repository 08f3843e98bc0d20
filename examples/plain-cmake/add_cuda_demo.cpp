// Links sum_double::add_cuda from plain C++ (SumDouble::cuda brings the CUDA runtime, statically).
// With a GPU it adds 2^20 float32 elements on the default stream and checks them (exit code 0 or
// 1); without a driver or a GPU it says so and exits with 77, which ctest reports as skipped.
#include <sum_double/sum_double.h>

#include <cstdio>
#include <vector>

namespace {

bool ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) std::printf("%s failed: %s\n", what, cudaGetErrorString(status));
  return status == cudaSuccess;
}

}  // namespace

int main() {
  int driver = 0, devices = 0;  // the driver's version is 0 where none is installed
  const cudaError_t status = cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0
                                 ? cudaGetDeviceCount(&devices)
                                 : cudaErrorNoDevice;
  if (status == cudaErrorNoDevice) {
    std::printf("linked; no NVIDIA driver or GPU here, so no kernel run: skipped\n");
    return 77;
  }
  if (!ok(status, "cudaGetDeviceCount")) return 1;  // e.g. a driver too old for this CUDA
  const int64_t n = int64_t{1} << 20;
  std::vector<float> a(n), b(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f;
  }
  const size_t bytes = n * sizeof(float);
  void *da = nullptr, *db = nullptr, *dout = nullptr;
  if (!ok(cudaMalloc(&da, bytes), "cudaMalloc") || !ok(cudaMalloc(&db, bytes), "cudaMalloc") ||
      !ok(cudaMalloc(&dout, bytes), "cudaMalloc") ||
      !ok(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !ok(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !ok(sum_double::add_cuda(da, db, dout, n, sum_double::DType::kFloat32, nullptr),
          "add_cuda") ||
      !ok(cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy")) {
    return 1;
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += out[i] != a[i] + b[i];
  std::printf("float32 on the GPU: %lld of %lld elements wrong\n", static_cast<long long>(wrong),
              static_cast<long long>(n));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  return wrong == 0 ? 0 : 1;
}
