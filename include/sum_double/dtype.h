// The element types the launchers accept. Plain ints, so that code without torch (or without
// CUDA) can call the launchers; the op layer maps torch's ScalarType onto this.
#pragma once

namespace sum_double {

enum class DType : int { kFloat16 = 0, kBFloat16 = 1, kFloat32 = 2, kFloat64 = 3 };

}  // namespace sum_double
