// The check of the float64 product fast paths (reference/fast/f64_product.hpp: GEMM's and
// CONVOLUTION's), shared by test_fast_gemm.cpp and test_fast_convolution.cpp: the operator with
// the fast path against the plain loop, bit for bit, on one thread, three and any others asked
// for, and on one thread with each product kernel this build has and this CPU supports (the
// baseline, AVX2 with FMA, AVX-512), whose float64 products may differ in their bits.
#pragma once

#include "fast_check.hpp"
#include "support.hpp"

#include "../reference/fast/f64_product.hpp"

#include <initializer_list>

namespace dmlref::test {

// Returns the path counts (counts_of()) of the first one-thread fast run.
template <class CountsOf>
auto check_product_path(const Operator& op, const Buffers& in, CountsOf counts_of, std::initializer_list<int> threads) {
    const Diagnostics diags = validate(op);
    for (const auto& item : diags.items()) INFO(format(item, "<test>"));
    REQUIRE_FALSE(diags.has_errors());
    const Buffers plain = evaluate_with(op, in, false, 1);
    const Buffers fast = evaluate_with(op, in, true, 1);
    const auto counts = counts_of();
    CHECK(first_difference(plain, fast) == -1);
    CHECK(first_difference(plain, evaluate_with(op, in, true, 3)) == -1);
    for (const int t : threads) {
        INFO(t << " threads");
        CHECK(first_difference(plain, evaluate_with(op, in, true, t)) == -1);
    }
    for (int k = 1; k <= 3; ++k) {
        if (reference::fast::f64::set_product_kernel(k) != k) continue;  // not built or not supported here
        INFO("kernel " << k);
        CHECK(first_difference(plain, evaluate_with(op, in, true, 1)) == -1);
    }
    reference::fast::f64::set_product_kernel(0);
    return counts;
}

}  // namespace dmlref::test
