// What the op layer knows about the torch it was compiled against and runs on, for the module
// (src/module.cpp) that reports it. Free of torch's headers, which the module must not see.
#pragma once

namespace sum_double::op {

// Whether a failed torch call's own reason (e.g. "CUDA out of memory") reaches the op's errors in
// this process: it takes headers that fetch it (torch >= 2.14 with a 2.10 target) and a running
// torch that provides it (>= 2.13).
bool torch_reason_in_errors();

}  // namespace sum_double::op
