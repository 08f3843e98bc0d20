// The op's own parts in the op layer: its schema, and the names and words its name gives. An op of
// your own changes its name in include/sum_double/op_name.h, its math in
// include/sum_double/combine.h, and this schema if its arguments differ; the rest of src/ops reads
// them.
#pragma once

#include "sum_double/op_name.h"

// Its arguments and result, after the name in the schema.
#define SUM_DOUBLE_OP_SIGNATURE "(Tensor a, Tensor b) -> Tensor"
// The out= overload's: the result written into out, which is returned (torch.add.out's form).
#define SUM_DOUBLE_OP_OUT_SIGNATURE "(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)"

namespace sum_double::op {

// The op's two names, each with every kernel of the op library. torch.ops.sum_double.add is the
// one callers, Dynamo and FX graphs and export's programs name: its autograd is Python. Once that
// has dealt with autograd it calls sum_double::_add, which has no autograd kernel of its own, so a
// compiled graph (traced below autograd) calls _add without the op's Python autograd kernel.
inline constexpr const char* kOpNames[] = {SUM_DOUBLE_OP_NAME, "_" SUM_DOUBLE_OP_NAME};
// Their out= overloads, the same way: the first with a Python autograd kernel that refuses inputs
// requiring grad, as torch.add's out= does.
inline constexpr const char* kOutNames[] = {SUM_DOUBLE_OP_NAME ".out",
                                            "_" SUM_DOUBLE_OP_NAME ".out"};

// How messages name the op, "sum_double.add()", and their first words.
inline constexpr const char kCaller[] = SUM_DOUBLE_OP_CALLER;
inline constexpr const char kPrefix[] = SUM_DOUBLE_OP_CALLER ": ";

}  // namespace sum_double::op
