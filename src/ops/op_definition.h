// The op's own parts in the op layer: its name and schema. An op of your own changes these (and
// its math, in the launchers: include/sum_double/combine.h); the rest of src/ops reads them.
#pragma once

// torch.ops.sum_double.add: the one place C++ names the op.
#define SUM_DOUBLE_OP_NAME "add"
// Its arguments and result, after the name in the schema.
#define SUM_DOUBLE_OP_SIGNATURE "(Tensor a, Tensor b) -> Tensor"

namespace sum_double::op {

// The op's two names, each with every kernel of the op library. torch.ops.sum_double.add is the
// one callers, Dynamo and FX graphs and export's programs name: its autograd is Python. Once that
// has dealt with autograd it calls sum_double::_add, which has no autograd kernel of its own, so a
// compiled graph (traced below autograd) calls _add without the op's Python autograd kernel.
inline constexpr const char* kOpNames[] = {SUM_DOUBLE_OP_NAME, "_" SUM_DOUBLE_OP_NAME};

// How messages name the op, "sum_double.add()", and their first words.
inline constexpr const char kCaller[] = "sum_double." SUM_DOUBLE_OP_NAME "()";
inline constexpr const char kPrefix[] = "sum_double." SUM_DOUBLE_OP_NAME "(): ";

}  // namespace sum_double::op
