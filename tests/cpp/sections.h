// The test's sections, which main.cpp runs in turn; each adds its checks to the harness's counts.
#pragma once

#include "harness.h"

namespace launcher_test {

// test_values.cpp
void test_reference();             // the reference against the hardware's conversions
void test_simple_entry(Rng& rng);  // add_cpu(a, b, out, n), around the vector widths
void test_conversions(Rng& rng);   // every half value and rounding boundary through the kernel
// test_layouts.cpp
void test_named_layouts(Rng& rng);  // hand-picked layouts, every dtype triple
void test_random_layouts(Rng& rng, int cases_per_triple);
// test_plans.cpp
void test_plans();   // plan_add()'s merges on hand examples
void test_errors();  // plan_add()'s refusals and its dtype triples
// test_big.cpp
void test_big(Rng& rng);  // index arithmetic past 2^31 and 2^32 elements

}  // namespace launcher_test
