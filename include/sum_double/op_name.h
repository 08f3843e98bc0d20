// The op's name, written once for all of C++: the op library registers torch.ops.sum_double.<name>
// under it (src/ops/op_definition.h), and <sum_double/op.h> calls it as sum_double::<name>(a, b).
#pragma once

#define SUM_DOUBLE_OP add
#define SUM_DOUBLE_STRINGIFY_(x) #x
#define SUM_DOUBLE_STRINGIFY(x) SUM_DOUBLE_STRINGIFY_(x)
#define SUM_DOUBLE_OP_NAME SUM_DOUBLE_STRINGIFY(SUM_DOUBLE_OP)
// How the op's messages name it: "sum_double.<name>()".
#define SUM_DOUBLE_OP_CALLER "sum_double." SUM_DOUBLE_OP_NAME "()"
