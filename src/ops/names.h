// How messages name what a user passed: dtypes and devices as Python writes them, shapes as lists.
#pragma once

#include <cstdint>
#include <string>

namespace sum_double::op {

// From the C shim's codes, which are the values of torch's ScalarType and DeviceType: the stable
// conversions to those enums throw for the ones they do not know (quantized dtypes, most device
// types), and a message must never throw instead.
std::string device_name(int32_t type, int32_t index);
std::string dtype_name(int32_t code);

std::string shape_of(const int64_t* sizes, int64_t dim);  // "[2, 3]"

}  // namespace sum_double::op
