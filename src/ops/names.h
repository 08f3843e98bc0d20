// How messages name what a user passed: dtypes and devices as Python writes them, shapes as lists;
// and how to convert a dtype the op does not take.
#pragma once

#include <cstdint>
#include <string>

namespace sum_double::op {

// From the C shim's codes, which are the values of torch's ScalarType and DeviceType: the stable
// conversions to those enums throw for the ones they do not know (quantized dtypes, most device
// types), and a message must never throw instead.
std::string device_name(int32_t type, int32_t index);
std::string dtype_name(int32_t code);  // "torch.float8_e4m3fn", as Python prints it
// How to make a tensor of this dtype, called `name`, one of the op's floating dtypes.
std::string dtype_fix(int32_t code, const char* name);

// Whether a tensor of this dtype takes a floating result by torch's casting rules and copy (c10's
// isFloatingType or isComplexType, less the packed float4_e2m1fn_x2).
bool is_floating_or_complex(int32_t code);

std::string shape_of(const int64_t* sizes, int64_t dim);  // "[2, 3]"

}  // namespace sum_double::op
