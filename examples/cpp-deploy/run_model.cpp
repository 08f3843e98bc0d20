// Calls sum_double::add through the dispatcher, then runs an AOTInductor package of a model that
// calls it, with no Python in the process, checked against the model's eager outputs from Python
// bit for bit:
//   run_model PACKAGE.pt2 IO.pt
// Exit status: 0 when every check passes, 1 when one fails, 2 when sum_double::add is not
// registered (the op library is not loaded), 77 when the package needs a GPU this machine lacks.
#include <ATen/ATen.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_torch/utils.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <ATen/core/dispatch/Dispatcher.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <sum_double/op.h>

namespace {

// The inputs and eager outputs that export_model.py saved with torch.save.
struct Io {
  std::string device;
  std::vector<at::Tensor> inputs, outputs;
};

Io read_io(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(file), {}};
  const c10::Dict<c10::IValue, c10::IValue> dict = torch::jit::pickle_load(bytes).toGenericDict();
  auto tensors = [&](const char* key) {
    std::vector<at::Tensor> list;
    for (const c10::IValue& t : dict.at(key).toList()) list.push_back(t.toTensor());
    return list;
  };
  return {dict.at("device").toStringRef(), tensors("inputs"), tensors("outputs")};
}

// Same dtype, shape and bits (NaN payloads and signed zeros included, which == would not see).
bool same_bits(const at::Tensor& out, const at::Tensor& ref) {
  return out.scalar_type() == ref.scalar_type() && out.sizes() == ref.sizes() &&
         at::equal(out.contiguous().view(at::kByte), ref.contiguous().view(at::kByte));
}

// sum_double::add through the dispatcher from C++ (<sum_double/op.h>, the stable ABI), against
// at::add: a broadcast, mixed-dtype add on the package's device.
bool direct_call(const c10::Device& device) {
  const at::Tensor a = at::randn({3, 5}, at::TensorOptions(device));
  const at::Tensor b = at::randn({5}, at::TensorOptions(device).dtype(at::kBFloat16));
  // op.h takes the stable ABI's tensors: handles that own a new reference to each at::Tensor.
  const torch::stable::Tensor out =
      sum_double::add(torch::stable::Tensor(torch::aot_inductor::new_tensor_handle(at::Tensor(a))),
                      torch::stable::Tensor(torch::aot_inductor::new_tensor_handle(at::Tensor(b))));
  return same_bits(*torch::aot_inductor::tensor_handle_to_tensor_pointer(out.get()), at::add(a, b));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PACKAGE.pt2 IO.pt\n";
    return 1;
  }
  // AOTInductor packages no custom op: the process must have registered it before the package
  // loads, or the loader throws "Could not find schema for sum_double::_add" (the op's name
  // below autograd, which packages compiled with SUM_DOUBLE_INDUCTOR_FUSION=0 call; the op library
  // registers both names). Say what to load
  // instead: op.h's error, which a call without the op library gets, does.
  if (!c10::Dispatcher::singleton().findSchema({"sum_double::add", ""})) {
    try {
      direct_call(c10::Device("cpu"));
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
    }
    return 2;
  }
  try {
    const Io io = read_io(argv[2]);
    const c10::Device device(io.device);
    if (device.is_cuda() && !at::hasCUDA()) {
      std::cerr << "the package is for CUDA, and this process has no CUDA device\n";
      return 77;
    }
    // The op from C++ first: it needs the op library only, not the package.
    const bool direct_ok = direct_call(device);
    std::cout << "sum_double::add through the dispatcher (op.h) on " << device << ": "
              << (direct_ok ? "equals" : "DIFFERS from") << " at::add" << std::endl;

    std::vector<at::Tensor> inputs;
    for (const at::Tensor& t : io.inputs) inputs.push_back(t.to(device));
    torch::inductor::AOTIModelPackageLoader loader(argv[1]);
    const std::vector<at::Tensor> outputs = loader.run(inputs);
    bool ok = outputs.size() == io.outputs.size();
    for (size_t i = 0; ok && i < outputs.size(); ++i)
      ok = same_bits(outputs[i].cpu(), io.outputs[i]);
    std::cout << "package on " << device << ": " << outputs.size() << " output(s) "
              << (ok ? "bit-identical to" : "DIFFERENT from") << " eager Python\n";
    return ok && direct_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "run_model: " << e.what() << "\n";
    return 1;
  }
}
