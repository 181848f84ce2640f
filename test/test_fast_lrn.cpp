// LOCAL_RESPONSE_NORMALIZATION's fast path (reference/fast/local_response_normalization.cpp)
// against the plain loop of reference/local_response_normalization.cpp, element for element
// (fast_check.hpp: one thread and three): random ranks 2 to 5, CrossChannel both ways, LocalSize 1
// to 6, Alpha, Beta and Bias from a list of ordinary and awkward values (zero, negative, B at or
// below zero, exact powers, large Beta), packed and strided layouts, all eleven types (the path
// takes FLOAT32 and FLOAT16; the others must fall back), on plain, hard (subnormals, +-0, +-inf,
// NaN, the largest values) and small integer values. Then values whose exact result lies on a
// rounding tie of the output type, worked out by hand, which the bound must leave to the plain
// loop; and the assumption the derivation makes of the C library's pow, against MPFR.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/fast/local_response_normalization.hpp"

#include <mpfr.h>

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_lrn {

using namespace dmlref;
using namespace dmlref::test;

namespace {

Operator lrn_op(DataType t, const std::vector<uint32_t>& sizes, const std::vector<uint32_t>& in_strides,
                const std::vector<uint32_t>& out_strides, uint32_t cross, uint32_t local, float alpha, float beta,
                float bias, bool grad = false) {
    auto fill = [&](auto& d) {
        d.InputTensor = desc(t, sizes, in_strides);
        d.CrossChannel = cross;
        d.LocalSize = local;
        d.Alpha = alpha;
        d.Beta = beta;
        d.Bias = bias;
    };
    if (grad) {
        DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC d;
        fill(d);
        d.InputGradientTensor = desc(t, sizes, in_strides);
        d.OutputGradientTensor = desc(t, sizes, out_strides);
        return {OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD, d};
    }
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC d;
    fill(d);
    d.OutputTensor = desc(t, sizes, out_strides);
    return {OperatorType::LOCAL_RESPONSE_NORMALIZATION, d};
}

std::vector<std::byte> bytes_of(const void* data, uint64_t size) {
    std::vector<std::byte> b(size);
    std::memcpy(b.data(), data, size);
    return b;
}

// X (and for the grad dY) from `values`, the output filled with 0x5a.
template <class T>
Buffers lrn_buffers(const Operator& op, const std::vector<T>& values, const std::vector<T>& dy = {}) {
    Buffers b;
    if (op.Type == OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD) {
        const auto& d = get<DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>(op.Desc);
        b.names = {"InputTensor", "InputGradientTensor", "OutputGradientTensor"};
        b.bytes.push_back(bytes_of(values.data(), buffer_size(d.InputTensor)));
        b.bytes.push_back(bytes_of(dy.data(), buffer_size(d.InputGradientTensor)));
        b.bytes.emplace_back(buffer_size(d.OutputGradientTensor), std::byte{0x5a});
        return b;
    }
    const auto& d = get<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC>(op.Desc);
    b.names = {"InputTensor", "OutputTensor"};
    b.bytes.push_back(bytes_of(values.data(), buffer_size(d.InputTensor)));
    b.bytes.emplace_back(buffer_size(d.OutputTensor), std::byte{0x5a});
    return b;
}

template <class T> T value_of_kind(std::mt19937_64& rng, int kind) {
    if constexpr (std::is_integral_v<T>) {
        return hard_element<T>(rng);
    } else {
        if (kind == 1) return hard_element<T>(rng);                                // specials, extremes
        if (kind == 2) return value_of<T>(double(int64_t(rng() % 9) - 4));         // exact powers, ties
        return value_of<T>(std::ldexp(double(int64_t(rng() % 2001) - 1000), -9));  // plain values
    }
}

template <class T> void check_random(std::mt19937_64& rng, int count) {
    const DataType t = data_type_of<T>();
    const float alphas[] = {1e-4f, 0.5f, 1.0f, -0.25f, 0.0f, 0x1p-20f, 3.0f};
    const float betas[] = {0.75f, 0.5f, 1.0f, 0.0f, -0.5f, 2.0f, 1.5f, 1e-3f, 12.0f};
    const float biases[] = {1.0f, 2.0f, 0.5f, 0.0f, -1.0f, 1e-3f, 16.0f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 2 + uint32_t(rng() % 4);
        std::vector<uint32_t> sizes;
        for (uint32_t i = 0; i < rank; ++i) sizes.push_back(1 + uint32_t(rng() % (i + 1 == rank ? 9 : 5)));
        const uint32_t cross = uint32_t(rng() % 2), local = 1 + uint32_t(rng() % 6);
        const float alpha = alphas[rng() % std::size(alphas)], beta = betas[rng() % std::size(betas)],
                    bias = biases[rng() % std::size(biases)];
        const int kind = int(rng() % 3);
        const bool strided = rng() % 3 == 0;
        const auto in_strides = strided ? gapped_strides(rng, sizes) : random_strides(rng, sizes);
        const auto out_strides = random_strides(rng, sizes);
        INFO("rank " << rank << ", cross " << cross << ", LocalSize " << local << ", Alpha " << alpha << ", Beta "
                     << beta << ", Bias " << bias << ", kind " << kind << ", iteration " << k);
        const bool grad = rng() % 2;
        INFO("grad " << grad);
        const Operator o = lrn_op(t, sizes, in_strides, out_strides, cross, local, alpha, beta, bias, grad);
        const uint64_t n = buffer_size(desc(t, sizes, in_strides)) / sizeof(T) + 1;
        std::vector<T> v(n), dy(n);
        for (T& x : v) x = value_of_kind<T>(rng, kind);
        for (T& x : dy) x = value_of_kind<T>(rng, rng() % 4 ? kind : 2);
        check_op(o, lrn_buffers<T>(o, v, dy));
    }
}

}  // namespace

TEST_CASE_TEMPLATE("LRN fast paths = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(3310);
    const bool fast_type = std::is_same_v<T, float> || is_half_v<T>;
    check_random<T>(rng, fast_type ? 200 : 10);
}

// The grad on hand-derived values. Alpha 0, Bias 4, Beta 0.5: B = 4 everywhere and the second term
// is 0, so dX = dY 4^-0.5 = dY / 2, exact and decided; X = dY = 0 is an exact zero, +0
// (docs/golden.md, Computed values), decided without the plain loop. Alpha 3, LocalSize 1, Beta 1,
// Bias 1, X = 1: B = 1 + 3 = 4 and dX = dY B^-1 - 2 * 3 * 1 * X * dY X B^-2 = dY (1/4 - 6/16) = -dY / 8.
TEST_CASE_TEMPLATE("LRN_GRAD fast path on hand-derived values", T, float, dmlref::half) {
    const DataType t = data_type_of<T>();
    {
        const std::vector<T> x = {value_of<T>(1.0), value_of<T>(0.0), value_of<T>(-3.0), value_of<T>(0.0)};
        const std::vector<T> dy = {value_of<T>(3.0), value_of<T>(0.0), value_of<T>(-0.5), value_of<T>(-0.0)};
        const Operator o = lrn_op(t, {1, 4}, {}, {}, 1, 3, 0.0f, 0.5f, 4.0f, true);
        const Buffers in = lrn_buffers<T>(o, x, dy);
        check_op(o, in);
        const Buffers fast = evaluate_with(o, in, true, 1);
        CHECK(reference::fast::lrn_fast_counts().decided == 4);
        const T* y = reinterpret_cast<const T*>(fast.bytes[2].data());
        const double expected[] = {1.5, 0.0, -0.25, 0.0};
        for (size_t i = 0; i < 4; ++i) {
            INFO("element " << i);
            CHECK(to_bits(y[i]) == to_bits(value_of<T>(expected[i])));
        }
    }
    {
        const std::vector<T> x = {value_of<T>(1.0), value_of<T>(1.0)};
        const std::vector<T> dy = {value_of<T>(8.0), value_of<T>(-2.0)};
        const Operator o = lrn_op(t, {1, 2}, {}, {}, 1, 1, 3.0f, 1.0f, 1.0f, true);
        const Buffers in = lrn_buffers<T>(o, x, dy);
        check_op(o, in);
        const Buffers fast = evaluate_with(o, in, true, 1);
        const T* y = reinterpret_cast<const T*>(fast.bytes[2].data());
        CHECK(to_bits(y[0]) == to_bits(value_of<T>(-1.0)));
        CHECK(to_bits(y[1]) == to_bits(value_of<T>(0.25)));
    }
}

// Alpha 0, Bias 3, Beta -1: B = 3 and B^(-Beta) = 3 exactly, so the value is 3 X. With X one unit
// in the last place above 1 (1 + 2^-23 in FLOAT32, 1 + 2^-10 in FLOAT16), 3 X = 3 + 1.5 ulp(3): a
// tie between 3 + ulp and 3 + 2 ulp, which ties-to-even rounds to 3 + 2 ulp (the even
// significand). No error bound can decide a tie: the path must leave it to the plain loop. X = 1
// next to it is decided (3 exactly); X = -0 is written as it is.
TEST_CASE_TEMPLATE("LRN fast path leaves an exact tie to the plain loop", T, float, dmlref::half) {
    const int bits = is_half_v<T> ? 10 : 23;
    const double up = std::ldexp(1.0, -bits);
    const std::vector<T> x = {value_of<T>(1 + up), value_of<T>(1.0), value_of<T>(-0.0)};
    const std::vector<double> expected = {3 + 4 * up, 3.0, -0.0};
    const Operator o = lrn_op(data_type_of<T>(), {1, 1, 3}, {}, {}, 0, 1, 0.0f, -1.0f, 3.0f);
    const Buffers in = lrn_buffers<T>(o, x);
    check_op(o, in);
    const Buffers fast = evaluate_with(o, in, true, 1);
    const auto counts = reference::fast::lrn_fast_counts();
    CHECK(counts.undecided == 1);
    CHECK(counts.decided == 2);
    const T* y = reinterpret_cast<const T*>(fast.bytes[1].data());
    for (size_t i = 0; i < expected.size(); ++i) {
        INFO("element " << i);
        CHECK(to_bits(y[i]) == to_bits(value_of<T>(expected[i])));
    }
}

// The derivation's one assumption (reference/fast/local_response_normalization.cpp, step 6): the C
// library's pow(b, e) is within 4 ulps (2^-50 relative) of b^e where it returns a normal double.
// Checked on random bases over 2^-60 to 2^60 and exponents that are floats (as -Beta is), against
// MPFR at 200 bits; glibc claims 1 ulp, and the largest error seen is printed.
TEST_CASE("The C library's pow is as accurate as the LRN fast path assumes") {
    std::mt19937_64 rng(4410);
    mpfr_t b, e, r;
    mpfr_inits2(200, b, e, r, (mpfr_ptr) nullptr);
    double worst = 0;
    for (int k = 0; k < 20000; ++k) {
        const double base = std::ldexp(1.0 + double(rng() % (uint64_t(1) << 52)) * 0x1p-52, int(rng() % 121) - 60);
        const float ex = k % 4 == 0 ? float(int64_t(rng() % 17) - 8) * 0.25f
                                    : float(std::ldexp(double(int64_t(rng() % (1 << 24)) - (1 << 23)), -21));
        const double p = std::pow(base, double(ex));
        if (!(p >= 0x1p-1000 && p <= 0x1p1000)) continue;
        mpfr_set_d(b, base, MPFR_RNDN);
        mpfr_set_d(e, double(ex), MPFR_RNDN);
        mpfr_pow(r, b, e, MPFR_RNDN);
        mpfr_sub_d(r, r, p, MPFR_RNDN);
        mpfr_div_d(r, r, p, MPFR_RNDN);
        const double rel = std::fabs(mpfr_get_d(r, MPFR_RNDU));
        worst = std::max(worst, rel);
        INFO("pow(" << base << ", " << ex << ") = " << p << ", relative error " << rel);
        REQUIRE(rel <= 0x1p-50);
    }
    mpfr_clears(b, e, r, (mpfr_ptr) nullptr);
    MESSAGE("largest relative error of pow: " << worst << " (2^-52 is " << 0x1p-52 << ")");
}

}  // namespace dmlref_test_fast_lrn
