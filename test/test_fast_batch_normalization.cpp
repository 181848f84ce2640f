// BATCH_NORMALIZATION's fast path (reference/fast/batch_normalization.cpp) against the plain loop of
// reference/batch_normalization.cpp, element for element (fast_check.hpp: one thread and three):
// random shapes of rank 1 to 5 with each statistic broadcast on its own, packed, padded and gapped
// layouts, every fused activation, FLOAT32 and FLOAT16 (other types must fall back), on plain
// values, hard values (+-0, subnormals, the largest values, +-inf, NaN, Variance + Epsilon <= 0)
// and values whose results fall on rounding ties of the output type (a perfect-square D), so that
// both ways out of the decision are taken. Then the error bound itself: its constant checked in
// exact rationals, and every estimate within its bound of the exact value, with some estimates
// using more than half of it (so that a bound too small by half fails).
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/exact_rational.hpp"
#include "../reference/fast/batch_normalization.hpp"
#include "../reference/fast/batch_normalization_channel.hpp"
#include "../reference/fast/half_rows.hpp"
#include "../reference/fast/parallel.hpp"

#include <gmpxx.h>
#include <mpfr.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_batch_normalization {

using namespace dmlref;
using namespace dmlref::test;
using BN = DML_BATCH_NORMALIZATION_OPERATOR_DESC;

namespace {

// A random FLOAT32 value with a full significand, either sign, and an exponent in [lo, hi] (as a
// double): the bound tests' operands.
double random_float(std::mt19937_64& rng, int lo, int hi) {
    const double mant = double(int64_t((uint64_t(1) << 23) + rng() % (uint64_t(1) << 23)));
    const int e = lo + int(rng() % uint64_t(hi - lo + 1));
    return double(float(std::ldexp(rng() % 2 ? mant : -mant, e - 23)));
}

std::optional<DML_FUSED_ACTIVATION> activation(std::string_view name, float a = 0, float b = 0) {
    const auto& t = fused_activation_types();
    for (uint32_t i = 0; i < t.size(); ++i)
        if (t[i].Name == name) return DML_FUSED_ACTIVATION{i, {a, b}};
    return std::nullopt;
}

// Every activation DirectML allows to be fused, with valid parameters, and none.
const std::vector<std::optional<DML_FUSED_ACTIVATION>>& activations() {
    static const std::vector<std::optional<DML_FUSED_ACTIVATION>> a = {
        std::nullopt,
        activation("ACTIVATION_RELU"),
        activation("ACTIVATION_IDENTITY"),
        activation("ACTIVATION_LEAKY_RELU", 0.3f),
        activation("ACTIVATION_LINEAR", -1.5f, 0.25f),
        activation("ACTIVATION_SIGMOID"),
        activation("ACTIVATION_HARD_SIGMOID", 0.25f, 0.5f),
        activation("ACTIVATION_TANH"),
        activation("ACTIVATION_SCALED_TANH", 1.25f, -0.75f),
        activation("ACTIVATION_THRESHOLDED_RELU", -0.5f),
        activation("ACTIVATION_ELU", 0.75f),
        activation("ACTIVATION_CELU", -2.0f),
        activation("ACTIVATION_SCALED_ELU", 1.6732f, 1.0507f),
        activation("ACTIVATION_SOFTPLUS", 2.0f),
        activation("ACTIVATION_PARAMETRIC_SOFTPLUS", 0.5f, -1.5f),
        activation("ACTIVATION_SOFTSIGN"),
        activation("ACTIVATION_SHRINK", 0.25f, 0.5f),
        activation("ACTIVATION_GELU")};
    return a;
}

// check_op (the plain loop, the fast path on one thread and on three), then the fast path on eight
// threads against one: the training's and the grads' statistics elements are finished on the threads
// (each channel's chunks gathered from anywhere in the task list), their outputs' elements too.
inline void check_op_threads(const Operator& op, const Buffers& b) {
    check_op(op, b);
    CHECK(first_difference(evaluate_with(op, b, true, 1), evaluate_with(op, b, true, 8)) == -1);
}

const char* const kInputs[] = {"InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor"};

struct Shape {
    std::vector<uint32_t> in;
    std::array<std::vector<uint32_t>, 4> stat;  // Mean, Variance, Scale, Bias
};

Operator make_op(DataType t, const Shape& s, std::array<std::vector<uint32_t>, 6> strides, float epsilon,
                 const std::optional<DML_FUSED_ACTIVATION>& act) {
    BN d;
    d.InputTensor = desc(t, s.in, strides[0]);
    d.MeanTensor = desc(t, s.stat[0], strides[1]);
    d.VarianceTensor = desc(t, s.stat[1], strides[2]);
    d.ScaleTensor = desc(t, s.stat[2], strides[3]);
    d.BiasTensor = desc(t, s.stat[3], strides[4]);
    d.OutputTensor = desc(t, s.in, strides[5]);
    d.Spatial = 1;
    d.Epsilon = epsilon;
    d.FusedActivation = act;
    return {OperatorType::BATCH_NORMALIZATION, d};
}

// Buffers for op: input k's every element from value(k) (k indexes kInputs), the output filled.
template <class T, class Value> Buffers op_buffers(const Operator& op, Value&& value) {
    const BN& d = get<BN>(op.Desc);
    const TensorDesc* in[] = {&d.InputTensor, &d.MeanTensor, &d.VarianceTensor, &d.ScaleTensor, &d.BiasTensor};
    Buffers b;
    for (int k = 0; k < 5; ++k) {
        std::vector<T> v(buffer_size(*in[k]) / sizeof(T) + 1);
        for (T& x : v) x = value(k);
        std::vector<std::byte> bytes(buffer_size(*in[k]));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.emplace_back(kInputs[k]);
        b.bytes.push_back(std::move(bytes));
    }
    b.names.emplace_back("OutputTensor");
    b.bytes.emplace_back(buffer_size(d.OutputTensor), std::byte{0x5a});
    return b;
}

// Random values of one of three kinds for input k (1: Mean, 2: Variance, ...):
//  0 plain: multiples of 2^-10 in [-1, 1) (a Variance in (0, 1]): almost all decided by the bound;
//  1 hard: hard_element (+-0, subnormals, the largest values, +-inf, NaN; a negative Variance);
//  2 ties: few-bit values and a perfect-square Variance (Epsilon 0): K r + b exact, often on a
//    rounding tie of T, which the bound cannot decide;
//  3 hard and finite: as 1 without NaN and infinities (subnormals, the largest values, +-0);
//  4 tiny: multiples of T's smallest subnormal below 2^12 of them (a Variance as kind 0).
template <class T> T value_of_kind(std::mt19937_64& rng, int kind, int k) {
    if (kind == 1) return rng() % 8 == 0 ? T(0.0f) : hard_element<T>(rng);
    if (kind == 4 && k != 2) {  // tiny: subnormals and the lowest normal binades of T
        const int64_t m = int64_t(rng() % 8192) - 4096;
        return value_of<T>(std::ldexp(double(m), is_half_v<T> ? -24 : -149));
    }
    if (kind == 3) {  // hard and finite (a NaN or an infinity in X sends all of _TRAINING to the plain loop)
        for (;;) {
            const T v = hard_element<T>(rng);
            if (std::isfinite(widen(v))) return v;
        }
    }
    if (kind == 2) {
        if (k == 2) {
            static const double squares[] = {0.25, 1.0, 4.0, 2.25, 0.0625, 16.0, 6.25, 0.5625};
            return value_of<T>(squares[rng() % std::size(squares)]);
        }
        const int bits = is_half_v<T> ? 6 : 13;
        const int64_t m = int64_t(rng() % (uint64_t(1) << bits)) - (int64_t(1) << (bits - 1));
        return value_of<T>(std::ldexp(double(m), -bits + int(rng() % 4)));
    }
    if (k == 2) return value_of<T>(std::ldexp(double(1 + rng() % 1024), -10));
    return value_of<T>(std::ldexp(double(int64_t(rng() % 2048) - 1024), -10));
}

Shape random_shape(std::mt19937_64& rng, uint32_t last_max) {
    Shape s;
    const uint32_t rank = 1 + uint32_t(rng() % 5);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        const uint32_t size = i + 1 == rank ? 1 + uint32_t(rng() % last_max) : 1 + uint32_t(rng() % 4);
        if (n * size > 400) s.in.push_back(1);
        else s.in.push_back(size);
        n *= s.in.back();
    }
    for (auto& st : s.stat)
        for (const uint32_t v : s.in) st.push_back(rng() % 2 ? v : 1);
    return s;
}

template <class T> void check_random(std::mt19937_64& rng, int count, uint32_t last_max) {
    const DataType t = data_type_of<T>();
    const auto& acts = activations();
    for (int it = 0; it < count; ++it) {
        const Shape s = random_shape(rng, last_max);
        const int kind = int(rng() % 5);
        const auto& act = acts[size_t(it) % acts.size()];
        const float epsilon = kind == 2 ? 0.0f : std::array<float, 4>{0.0f, 1e-5f, 1e-3f, 0.1f}[rng() % 4];
        std::array<std::vector<uint32_t>, 6> strides;
        strides[0] = rng() % 3 == 0 ? gapped_strides(rng, s.in) : random_strides(rng, s.in);
        for (int k = 0; k < 4; ++k) strides[size_t(k + 1)] = random_strides(rng, s.stat[size_t(k)]);
        strides[5] = rng() % 3 == 0 ? gapped_strides(rng, s.in) : random_strides(rng, s.in);
        INFO("iteration " << it << ", kind " << kind << ", activation " << (act ? act->name() : "none") << ", epsilon "
                          << epsilon << ", input " << sizes_text(s.in) << ", mean " << sizes_text(s.stat[0])
                          << ", variance " << sizes_text(s.stat[1]) << ", scale " << sizes_text(s.stat[2]) << ", bias "
                          << sizes_text(s.stat[3]));
        const Operator op = make_op(t, s, strides, epsilon, act);
        check_op(op, op_buffers<T>(op, [&](int k) { return value_of_kind<T>(rng, kind, k); }));
    }
}

}  // namespace

TEST_CASE_TEMPLATE("Batch normalization fast path = plain loop, element for element", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2400);
    uint64_t decided = 0, plain = 0;
    const auto& acts = activations();
    for (int round = 0; round < 6; ++round) {
        check_random<T>(rng, int(acts.size()), 12);
        // check_op's last run (three threads) is the fast path's: its counts.
        const auto c = reference::fast::batch_normalization_counts();
        decided += c.decided;
        plain += c.plain;
    }
    CHECK(decided > 0);
    CHECK(plain > 0);
}

TEST_CASE_TEMPLATE("Batch normalization fast path: other types take the plain loop", T, double, int32_t, uint8_t) {
    std::mt19937_64 rng = rng_for<T>(2410);
    check_random<T>(rng, 6, 6);
}

// Runs longer than a task's chunk (4096 elements), per-channel statistics and statistics that vary
// along the run, with and without a fused activation; one thread against three.
TEST_CASE_TEMPLATE("Batch normalization fast path = plain loop on long runs", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2420);
    const DataType t = data_type_of<T>();
    const Shape shapes[] = {{{1, 2, 80, 70}, {{{1, 2, 1, 1}, {1, 2, 1, 1}, {1, 2, 1, 1}, {1, 2, 1, 1}}}},
                            {{2, 1, 90, 60}, {{{1, 1, 1, 60}, {1, 1, 90, 1}, {1, 1, 1, 1}, {2, 1, 1, 60}}}}};
    const std::optional<DML_FUSED_ACTIVATION> acts[] = {std::nullopt, activation("ACTIVATION_RELU"),
                                                        activation("ACTIVATION_LEAKY_RELU", 0.3f)};
    for (const Shape& s : shapes)
        for (const auto& act : acts) {
            const Operator op = make_op(t, s, {}, 1e-5f, act);
            check_op(op, op_buffers<T>(op, [&](int k) { return value_of_kind<T>(rng, 0, k); }));
            CHECK(reference::fast::batch_normalization_counts().decided > 0);
        }
    // Hard values, ties (Epsilon 0) and tiny values on the same long runs.
    for (const int kind : {1, 2, 3, 4}) {
        INFO("kind " << kind);
        const Operator op = make_op(t, shapes[0], {}, kind == 2 ? 0.0f : 1e-5f, std::nullopt);
        check_op(op, op_buffers<T>(op, [&](int k) { return value_of_kind<T>(rng, kind, k); }));
    }
}

// ---- Hard elements, by hand ------------------------------------------------------------------
// One element per row (InputTensor, MeanTensor, VarianceTensor, ScaleTensor and BiasTensor all of
// the input's sizes), with the result worked out by hand where there is one.
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Row {
    double x, mean, var, scale, bias;
    std::optional<double> expected;  // NaN: the canonical NaN; none: compared with the plain loop only
    bool plain;                      // must be left to the plain element
};

template <class T>
void check_rows(const std::vector<Row>& rows, float epsilon, const std::optional<DML_FUSED_ACTIVATION>& act) {
    const uint32_t n = uint32_t(rows.size());
    const Shape s{{1, n}, {{{1, n}, {1, n}, {1, n}, {1, n}}}};
    const Operator op = make_op(data_type_of<T>(), s, {}, epsilon, act);
    std::array<uint32_t, 5> next{};
    const Buffers in = op_buffers<T>(op, [&](int k) {
        const uint32_t j = next[size_t(k)]++;
        if (j >= n) return T(0.0f);
        const Row& r = rows[j];
        return value_of<T>(std::array<double, 5>{r.x, r.mean, r.var, r.scale, r.bias}[size_t(k)]);
    });
    check_op(op, in);
    const Buffers fast = evaluate_with(op, in, true, 1);
    uint64_t plain = 0;
    for (const Row& r : rows) plain += r.plain;
    CHECK(reference::fast::batch_normalization_counts().plain == plain);
    const T* y = reinterpret_cast<const T*>(fast.bytes[5].data());
    for (uint32_t j = 0; j < n; ++j) {
        const Row& r = rows[j];
        INFO("row " << j << ": x " << r.x << ", mean " << r.mean << ", variance " << r.var << ", scale " << r.scale
                    << ", bias " << r.bias << ", result " << widen(y[j]));
        if (!r.expected) continue;
        CHECK(same_bits(y[j], std::isnan(*r.expected) ? canonical_nan<T>() : value_of<T>(*r.expected)));
    }
}

// RELU of the rows' results: y > 0 ? y : +0, NaN +0; the plain-element rows stay plain.
std::vector<Row> relu_of(std::vector<Row> rows) {
    for (Row& r : rows)
        if (r.expected) r.expected = *r.expected > 0 ? *r.expected : 0.0;
    return rows;
}

}  // namespace

// FLOAT32, Epsilon 0. Variance 4 makes r = 1/2 exactly:
//  - 3 (2^23 + 1) / 2 = 12582913.5 is the midpoint of two floats (to even: 12582914), and
//    3 (2^23 + 3) / 2 = 12582916.5 another (to even: 12582916); a Mean of +-2^-100 puts V a hair below
//    or above the first, which float64 cannot see (x - m rounds to x): the plain element decides;
//  - x = Mean gives an exact +0 whatever Bias's sign; -0 - (+0) too; a tiny negative V gives -0;
//  - an overflow to inf is decided; D <= 0, NaN and infinite operands take the plain element.
TEST_CASE("Batch normalization fast path: ties, zeros and special values of FLOAT32, by hand") {
    const std::vector<Row> rows = {
        // x, mean, variance, scale, bias, expected, plain
        {1.0, 0.0, 4.0, 1.0, 0.25, 0.75, false},                   // decided
        {0x1p23 + 1, 0.0, 4.0, 3.0, 0.0, 12582914.0, true},        // a tie, to even (up)
        {0x1p23 + 3, 0.0, 4.0, 3.0, 0.0, 12582916.0, true},        // a tie, to even (down)
        {0x1p23 + 1, 0x1p-100, 4.0, 3.0, 0.0, 12582913.0, true},   // a hair below the tie
        {0x1p23 + 1, -0x1p-100, 4.0, 3.0, 0.0, 12582914.0, true},  // a hair above it
        {3.0, 3.0, 4.0, 5.0, -0.0, 0.0, false},                    // x = Mean: +0
        {3.0, 3.0, 4.0, 5.0, 0.0, 0.0, false},                     //
        {-0.0, 0.0, 1.0, 1.0, -0.0, 0.0, false},                   // -0 - 0: an exact 0, +0
        {-0x1p-149, 0.0, 16.0, 0.25, 0.0, -0.0, false},            // -2^-153: -0
        {0x1p-149, 0.0, 0x1p-149, 1.0, 0.0, std::nullopt, false},  // 2^-149 / 2^-74.5, irrational
        {0x1p127, -0x1p127, 0x1p-149, 0x1p127, 0.0, kInf, false},  // 2^329.5: inf
        {1.0, 0.0, -1.0, 1.0, 0.0, kNaN, true},                    // D < 0: NaN
        {1.0, 0.0, 0.0, 1.0, 0.0, kInf, true},                     // D = 0: 1 / 0 = inf
        {0.0, 0.0, 0.0, 1.0, 0.0, kNaN, true},                     // 0 / 0
        {kInf, 0.0, 1.0, 1.0, 0.0, kInf, true},                    // inf
        {kInf, kInf, 1.0, 1.0, 0.0, kNaN, true},                   // inf - inf
        {1.0, 0.0, kInf, 1.0, 2.0, 2.0, true},                     // 1 / sqrt(inf) = 0
        {1.0, 0.0, 1.0, 1.0, -kInf, -kInf, true},                  // Bias -inf
        {kNaN, 0.0, 1.0, 1.0, 0.0, kNaN, true},                    // NaN
        {1.0, 0.0, 1.0, 0.0, kNaN, kNaN, true},                    // 0 + NaN
    };
    check_rows<float>(rows, 0.0f, std::nullopt);
    check_rows<float>(relu_of(rows), 0.0f, activation("ACTIVATION_RELU"));
    // LEAKY_RELU selects y itself for y >= 0, so -0 stays -0 (BnActivationSignedZero).
    std::vector<Row> leaky = rows;
    for (Row& r : leaky)
        if (!r.expected || *r.expected < 0 || std::isnan(*r.expected)) r.expected = std::nullopt;
    check_rows<float>(leaky, 0.0f, activation("ACTIVATION_LEAKY_RELU", 0.3f));
}

// FLOAT16, Epsilon 2^-2 and Variance 3.75: D = 4, r = 1/2. Floats are 2^-10 apart in [1, 2):
// 3 (1 + 2^-10) / 2 = 1.5 + 3 * 2^-11 is a midpoint (to even: 1.5 + 2^-9), 3 (1 + 3 * 2^-10) / 2 another
// (to even: 1.5 + 2^-8); a Mean of +-2^-24 moves V by 1.5 * 2^-24, which float64 sees. Subnormal ties
// (2^-25 to +0, 1.5 * 2^-24 to 2^-23), -0, the largest value and an overflow.
TEST_CASE("Batch normalization fast path: ties of FLOAT16, by hand") {
    const std::vector<Row> rows = {
        {1 + 0x1p-10, 0.0, 3.75, 3.0, 0.0, 1.5 + 0x1p-9, true},        // a tie, to even (up)
        {1 + 3 * 0x1p-10, 0.0, 3.75, 3.0, 0.0, 1.5 + 0x1p-8, true},    // a tie, to even (down)
        {1 + 0x1p-10, 0x1p-24, 3.75, 3.0, 0.0, 1.5 + 0x1p-10, false},  // below the tie
        {1 + 0x1p-10, -0x1p-24, 3.75, 3.0, 0.0, 1.5 + 0x1p-9, false},  // above it
        {0x1p-24, 0.0, 3.75, 1.0, 0.0, 0.0, true},                     // 2^-25: to even, +0
        {3 * 0x1p-24, 0.0, 3.75, 1.0, 0.0, 0x1p-23, true},             // 1.5 * 2^-24: to even, 2^-23
        {-0x1p-24, 0.0, 3.75, 0.5, 0.0, -0.0, false},                  // -2^-26: -0
        {1.0, 0.0, 3.75, 1.0, 65504.0, 65504.0, false},                // 65504.5: 65504
        {1.0, 0.0, 3.75, 65504.0, 65504.0, kInf, false},               // 98256: inf
        {1.5, 1.5, 3.75, 7.0, -0.0, 0.0, false},                       // x = Mean: +0
    };
    check_rows<dmlref::half>(rows, 0.25f, std::nullopt);
    check_rows<dmlref::half>(relu_of(rows), 0.25f, activation("ACTIVATION_RELU"));
}

// Every FLOAT16 bit pattern as X, Mean 0, Epsilon 0: with Variance 1, V = Scale X + Bias exactly, a
// value of FLOAT16 or a midpoint, so every conversion and rounding case of the FLOAT16 decision is
// met (subnormals, the largest values, overflow, ties to even); with Variance 2, V is irrational and
// its float rounding lands on a FLOAT16 midpoint about once in 2^13 (the double rounding the
// decision must refuse). And 65536 random FLOAT32 patterns.
TEST_CASE("Batch normalization fast path: every FLOAT16 value, and random FLOAT32 bit patterns") {
    const uint32_t n = 65536;
    const Shape s{{1, 1, n}, {{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}}};
    for (const double var : {1.0, 2.0})
        for (const double scale : {1.0, 0.5, 3.0, -1.5})
            for (const double bias : {0.0, -1.0}) {
                INFO("variance " << var << ", scale " << scale << ", bias " << bias);
                const Operator op = make_op(DataType::FLOAT16, s, {}, 0.0f, std::nullopt);
                uint32_t i = 0;
                check_op(op, op_buffers<dmlref::half>(op, [&](int k) {
                             if (k == 0) return from_bits<dmlref::half>(uint16_t(i++));
                             return value_of<dmlref::half>(k == 2 ? var : k == 3 ? scale : k == 4 ? bias : 0.0);
                         }));
            }
    std::mt19937_64 rng(2440);
    for (const double scale : {1.0, 0.5, 3.0}) {
        INFO("scale " << scale);
        const Operator op = make_op(DataType::FLOAT32, s, {}, 0.0f, std::nullopt);
        check_op(op, op_buffers<float>(op, [&](int k) {
                     if (k == 0) return from_bits<float>(uint32_t(rng()));
                     return float(k == 2 ? 1.0 : k == 3 ? scale : 0.0);
                 }));
    }
}

// FLOAT16 runs with constant statistics (decided eight at a time where the machine has F16C) next to
// the midpoint 65520 between 65504 and the overflow: Mean 2^-20, Variance 3.75, Epsilon 2^-2 (r = 1/2),
// Bias 65504, V = 65504 + (X - 2^-20) / 2 for X in [31, 33) (2^-5 apart). X = 32 gives 65520 - 2^-21,
// whose float rounding is 65520, the midpoint, but which itself rounds to 65504: by hand, every X up
// to 32 gives 65504 and every X above it infinity; negated with Scale -1 and Bias -65504.
TEST_CASE("Batch normalization fast path: FLOAT16 runs next to the overflow, by hand") {
    using dmlref::half;
    const uint32_t n = 64;
    const Shape s{{1, 1, n}, {{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}}};
    for (const double sign : {1.0, -1.0}) {
        INFO("sign " << sign);
        const Operator op = make_op(DataType::FLOAT16, s, {}, 0.25f, std::nullopt);
        uint32_t i = 0;
        const Buffers in = op_buffers<half>(op, [&](int k) {
            if (k == 0) return value_of<half>(31.0 + (i++ % n) * 0x1p-5);
            return value_of<half>(std::array<double, 5>{0, 0x1p-20, 3.75, sign, sign * 65504.0}[size_t(k)]);
        });
        check_op(op, in);
        const Buffers fast = evaluate_with(op, in, true, 1);
        const half* y = reinterpret_cast<const half*>(fast.bytes[5].data());
        for (uint32_t j = 0; j < n; ++j) {
            INFO("X " << 31.0 + j * 0x1p-5);
            CHECK(same_bits(y[j], value_of<half>(sign * (31.0 + j * 0x1p-5 <= 32.0 ? 65504.0 : kInf))));
        }
    }
}

// An output bound over the input's own bytes (same layout): every element reads its input before
// anything is written, as the plain loop (which reads every input first) does.
TEST_CASE_TEMPLATE("Batch normalization fast path: output in place over the input", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2450);
    const DataType t = data_type_of<T>();
    for (int kind = 0; kind < 3; ++kind) {
        const Shape s{{2, 3, 40, 50}, {{{1, 3, 1, 1}, {1, 3, 1, 1}, {1, 3, 1, 1}, {1, 3, 1, 1}}}};
        const Operator op = make_op(t, s, {}, kind == 2 ? 0.0f : 1e-3f,
                                    kind == 1 ? activation("ACTIVATION_RELU") : std::nullopt);
        const Buffers in = op_buffers<T>(op, [&](int k) { return value_of_kind<T>(rng, kind, k); });
        auto in_place = [&](bool fast, int threads) {
            Buffers b = in;
            reference::set_fast_paths_enabled(fast);
            reference::set_fast_path_threads(threads);
            Bindings bindings;
            for (size_t i = 0; i < 5; ++i) bindings.bind(b.names[i], b.bytes[i]);
            bindings.bind("OutputTensor", b.bytes[0]);
            evaluate(op, bindings);
            reference::set_fast_paths_enabled(true);
            reference::set_fast_path_threads(0);
            return b.bytes[0];
        };
        INFO("kind " << kind);
        const auto plain = in_place(false, 1);
        CHECK(in_place(true, 1) == plain);
        CHECK(in_place(true, 3) == plain);
    }
}

// ---- BATCH_NORMALIZATION_TRAINING --------------------------------------------------------------
namespace {

using TRAINING = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC;

// A random training case: the statistics' sizes (Scale, Bias, OutputMean, OutputVariance) 1 or the
// input's per dimension, an optional FusedAdd, strided or packed tensors.
template <class T>
void check_training(std::mt19937_64& rng, const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat, int kind,
                    bool fused_add, const std::optional<DML_FUSED_ACTIVATION>& act, bool strided) {
    const DataType t = data_type_of<T>();
    TRAINING d;
    auto strides = [&](const std::vector<uint32_t>& sizes) {
        return strided ? (rng() % 2 ? gapped_strides(rng, sizes) : random_strides(rng, sizes))
                       : std::vector<uint32_t>{};
    };
    d.InputTensor = desc(t, in, strides(in));
    d.ScaleTensor = desc(t, stat, strides(stat));
    d.BiasTensor = desc(t, stat, strides(stat));
    if (fused_add) d.FusedAddTensor = desc(t, in, strides(in));
    d.OutputTensor = desc(t, in, strides(in));
    d.OutputMeanTensor = desc(t, stat, strides(stat));
    d.OutputVarianceTensor = desc(t, stat, strides(stat));
    d.Epsilon = kind == 2 ? 0.0f : std::array<float, 3>{1e-5f, 1e-3f, 0.25f}[rng() % 3];
    d.FusedActivation = act;
    const Operator op{OperatorType::BATCH_NORMALIZATION_TRAINING, d};
    Buffers b;
    auto input = [&](const char* name, const TensorDesc& td, int k) {
        std::vector<T> v(buffer_size(td) / sizeof(T) + 1);
        for (T& e : v) e = value_of_kind<T>(rng, kind, k);
        std::vector<std::byte> bytes(buffer_size(td));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.emplace_back(name);
        b.bytes.push_back(std::move(bytes));
    };
    input("InputTensor", d.InputTensor, 0);
    input("ScaleTensor", d.ScaleTensor, 3);
    input("BiasTensor", d.BiasTensor, 4);
    if (fused_add) input("FusedAddTensor", *d.FusedAddTensor, 4);
    for (const auto& [name, td] : {std::pair<const char*, const TensorDesc*>{"OutputTensor", &d.OutputTensor},
                                   {"OutputMeanTensor", &d.OutputMeanTensor},
                                   {"OutputVarianceTensor", &d.OutputVarianceTensor}}) {
        b.names.emplace_back(name);
        b.bytes.emplace_back(buffer_size(*td), std::byte{0x5a});
    }
    INFO("input " << sizes_text(in) << ", statistics " << sizes_text(stat) << ", kind " << kind << ", fused add "
                  << fused_add << ", activation " << (act ? act->name() : "none") << ", strided " << strided);
    check_op_threads(op, b);
}

}  // namespace

TEST_CASE_TEMPLATE("Batch normalization training fast path = plain loop, element for element", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2460);
    const auto& acts = activations();
    uint64_t decided = 0, plain = 0;
    for (int it = 0; it < 3 * int(acts.size()); ++it) {
        const Shape s = random_shape(rng, 12);
        const int kind = int(rng() % 5);
        INFO("iteration " << it);
        check_training<T>(rng, s.in, s.stat[0], kind, rng() % 2, acts[size_t(it) % acts.size()], rng() % 2);
        const auto c = reference::fast::batch_normalization_training_counts();
        decided += c.decided;
        plain += c.plain;
    }
    CHECK(decided > 0);
    CHECK(plain > 0);
}

TEST_CASE_TEMPLATE("Batch normalization training fast path = plain loop on long runs", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2470);
    check_training<T>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, 0, false, std::nullopt, false);
    CHECK(reference::fast::batch_normalization_training_counts().decided > 0);
    check_training<T>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, 0, true, activation("ACTIVATION_RELU"), false);
    check_training<T>(rng, {1, 2, 30, 70}, {1, 1, 1, 70}, 0, true, std::nullopt, true);
    for (const int kind : {2, 3, 4})
        check_training<T>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, kind, true, std::nullopt, false);
}

// Statistics no float64 holds: a sum of 2^30, 1 and -2^30 with 2^-149 (FLOAT32), whose mean and
// variance need every bit; the exact moments give them.
TEST_CASE("Batch normalization training fast path: exact statistics of far-apart values") {
    std::mt19937_64 rng(2480);
    TRAINING d;
    d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {1, 2, 4});
    d.ScaleTensor = d.BiasTensor = d.OutputMeanTensor = d.OutputVarianceTensor = desc(DataType::FLOAT32, {1, 2, 1});
    d.Epsilon = 0.0f;
    const Operator op{OperatorType::BATCH_NORMALIZATION_TRAINING, d};
    const std::vector<float> x = {0x1p30f, 1.0f, -0x1p30f, 0x1p-149f, 3.0f, 3.0f, 3.0f, 3.0f};
    Buffers b;
    b.names = {"InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor", "OutputMeanTensor", "OutputVarianceTensor"};
    b.bytes.push_back(buffer(d.InputTensor, x));
    b.bytes.push_back(buffer(d.ScaleTensor, std::vector<float>{1.0f, 1.0f}));
    b.bytes.push_back(buffer(d.BiasTensor, std::vector<float>{0.0f, 0.5f}));
    for (const TensorDesc* td : {&d.OutputTensor, &d.OutputMeanTensor, &d.OutputVarianceTensor})
        b.bytes.emplace_back(buffer_size(*td), std::byte{0x5a});
    check_op(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    const float* mean = reinterpret_cast<const float*>(fast.bytes[4].data());
    const float* y = reinterpret_cast<const float*>(fast.bytes[3].data());
    CHECK(same_bits(mean[0], 0.25f));  // (1 + 2^-149) / 4 rounds to 1/4
    CHECK(same_bits(mean[1], 3.0f));
    // Channel 1 has variance 0 and Epsilon 0: D = 0, x - mean = 0: 0 / 0, NaN (the plain element).
    CHECK(same_bits(y[4], canonical_nan<float>()));
}

// ---- BATCH_NORMALIZATION_GRAD ------------------------------------------------------------------
namespace {

using GRAD = DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC;

template <class T, class D = GRAD>
void check_grad(std::mt19937_64& rng, const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat, int kind,
                bool strided) {
    const DataType t = data_type_of<T>();
    D d;
    auto strides = [&](const std::vector<uint32_t>& sizes) {
        return strided ? (rng() % 2 ? gapped_strides(rng, sizes) : random_strides(rng, sizes))
                       : std::vector<uint32_t>{};
    };
    d.InputTensor = desc(t, in, strides(in));
    d.InputGradientTensor = desc(t, in, strides(in));
    d.MeanTensor = desc(t, stat, strides(stat));
    d.VarianceTensor = desc(t, stat, strides(stat));
    d.ScaleTensor = desc(t, stat, strides(stat));
    d.OutputGradientTensor = desc(t, in, strides(in));
    d.OutputScaleGradientTensor = desc(t, stat, strides(stat));
    d.OutputBiasGradientTensor = desc(t, stat, strides(stat));
    d.Epsilon = kind == 2 ? 0.0f : std::array<float, 3>{1e-5f, 1e-3f, 0.25f}[rng() % 3];
    const Operator op{D::kType, d};
    Buffers b;
    auto input = [&](const char* name, const TensorDesc& td, int k) {
        std::vector<T> v(buffer_size(td) / sizeof(T) + 1);
        for (T& e : v) e = value_of_kind<T>(rng, kind, k);
        std::vector<std::byte> bytes(buffer_size(td));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.emplace_back(name);
        b.bytes.push_back(std::move(bytes));
    };
    input("InputTensor", d.InputTensor, 0);
    input("InputGradientTensor", d.InputGradientTensor, 0);
    input("MeanTensor", d.MeanTensor, 1);
    input("VarianceTensor", d.VarianceTensor, 2);
    input("ScaleTensor", d.ScaleTensor, 3);
    for (const auto& [name, td] :
         {std::pair<const char*, const TensorDesc*>{"OutputGradientTensor", &d.OutputGradientTensor},
          {"OutputScaleGradientTensor", &d.OutputScaleGradientTensor},
          {"OutputBiasGradientTensor", &d.OutputBiasGradientTensor}}) {
        b.names.emplace_back(name);
        b.bytes.emplace_back(buffer_size(*td), std::byte{0x5a});
    }
    INFO("input " << sizes_text(in) << ", statistics " << sizes_text(stat) << ", kind " << kind << ", strided "
                  << strided);
    check_op_threads(op, b);
}

}  // namespace

TEST_CASE_TEMPLATE("Batch normalization grad fast path = plain loop, element for element", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2500);
    uint64_t decided = 0, plain = 0, statistics_decided = 0, statistics_plain = 0;
    for (int it = 0; it < 60; ++it) {
        const Shape s = random_shape(rng, 12);
        INFO("iteration " << it);
        check_grad<T>(rng, s.in, s.stat[0], int(rng() % 5), rng() % 2);
        const auto c = reference::fast::batch_normalization_grad_counts();
        decided += c.decided;
        plain += c.plain;
        const auto st = reference::fast::batch_normalization_grad_statistics_counts();
        statistics_decided += st.decided;
        statistics_plain += st.plain;
    }
    CHECK(decided > 0);
    CHECK(plain > 0);
    // OutputScaleGradient and OutputBiasGradient: decided from float64 estimates (step G0), and left to
    // the plain loop's roundings (zeros, ties of few-bit values).
    CHECK(statistics_decided > 0);
    CHECK(statistics_plain > 0);
    check_grad<T>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, 0, false);
    check_grad<T>(rng, {1, 2, 30, 70}, {1, 1, 1, 70}, 4, true);
    for (const int kind : {2, 3, 4}) check_grad<T>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, kind, false);
}

// The grad's OutputGradient is written by the sums' tasks only where it meets neither input: bound in place
// over InputGradientTensor or over InputTensor, every task must still read the inputs as they were. All three
// outputs against the plain loop's, one thread and three.
TEST_CASE_TEMPLATE("Batch normalization grad fast path: OutputGradient in place over either input", T, float,
                   dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2570);
    const DataType t = data_type_of<T>();
    GRAD d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(t, {2, 3, 40, 70});
    d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor = d.OutputBiasGradientTensor = desc(
        t, {1, 3, 1, 1});
    d.Epsilon = 1e-3f;
    const Operator op{OperatorType::BATCH_NORMALIZATION_GRAD, d};
    const char* const names[] = {"InputTensor", "InputGradientTensor", "MeanTensor", "VarianceTensor", "ScaleTensor"};
    for (const int over : {0, 1}) {
        std::vector<std::vector<std::byte>> in;
        for (int i = 0; i < 5; ++i) {
            const TensorDesc& td = i < 2 ? d.InputTensor : d.MeanTensor;
            std::vector<T> v(buffer_size(td) / sizeof(T));
            for (T& e : v) e = value_of_kind<T>(rng, 0, i == 3 ? 2 : i);
            std::vector<std::byte> bytes(buffer_size(td));
            std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
            in.push_back(std::move(bytes));
        }
        auto in_place = [&](bool fast, int threads) {
            std::vector<std::vector<std::byte>> b = in;
            std::vector<std::byte> scale(buffer_size(d.MeanTensor)), bias(buffer_size(d.MeanTensor));
            reference::set_fast_paths_enabled(fast);
            reference::set_fast_path_threads(threads);
            Bindings bindings;
            for (size_t i = 0; i < 5; ++i) bindings.bind(names[i], b[i]);
            bindings.bind("OutputGradientTensor", b[size_t(over)]);
            bindings.bind("OutputScaleGradientTensor", scale);
            bindings.bind("OutputBiasGradientTensor", bias);
            evaluate(op, bindings);
            reference::set_fast_paths_enabled(true);
            reference::set_fast_path_threads(0);
            return std::array<std::vector<std::byte>, 3>{b[size_t(over)], scale, bias};
        };
        INFO("over " << names[over]);
        const auto plain = in_place(false, 1);
        CHECK(in_place(true, 1) == plain);
        CHECK(in_place(true, 3) == plain);
    }
}

// BATCH_NORMALIZATION_TRAINING_GRAD: dX = Scale r (dY - mean(dY) - (X - Mean) mean(dY (X - Mean)) / D)
// from the same exact sums (header, steps G1 to G3).
TEST_CASE_TEMPLATE("Batch normalization training grad fast path = plain loop, element for element", T, float,
                   dmlref::half) {
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng = rng_for<T>(2510);
    uint64_t decided = 0, plain = 0;
    for (int it = 0; it < 60; ++it) {
        const Shape s = random_shape(rng, 12);
        INFO("iteration " << it);
        check_grad<T, TG>(rng, s.in, s.stat[0], int(rng() % 5), rng() % 2);
        const auto c = reference::fast::batch_normalization_grad_counts();
        decided += c.decided;
        plain += c.plain;
    }
    CHECK(decided > 0);
    CHECK(plain > 0);
    check_grad<T, TG>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, 0, false);
    check_grad<T, TG>(rng, {1, 2, 30, 70}, {1, 1, 1, 70}, 4, true);
    for (const int kind : {2, 3, 4}) check_grad<T, TG>(rng, {2, 3, 50, 60}, {1, 3, 1, 1}, kind, false);
}

namespace {

// The exact sums' FLOAT32 extraction four lanes at a time (what machines without AVX-512 take, on any machine)
// and, in a second pass of the test (doctest's subcases), eight lanes at a time (what AVX-512 machines take):
// both must give the plain loop's bits.
struct LaneSubcases {
    LaneSubcases() {
        SUBCASE("four lanes") { reference::fast::batch_normalization_four_lane_sums(true); }
        SUBCASE("eight lanes") { reference::fast::batch_normalization_wide_sums(true); }
    }
    ~LaneSubcases() {
        reference::fast::batch_normalization_four_lane_sums(false);
        reference::fast::batch_normalization_wide_sums(false);
    }
    LaneSubcases(const LaneSubcases&) = delete;
    LaneSubcases& operator=(const LaneSubcases&) = delete;
};

}  // namespace

// The exact sums by extraction (the header's steps S1 to S3) over runs of several chunks per statistics
// element (9,000 and 3,000 elements a channel, chunks of 4,096), strided and packed, on plain values, hard
// finite values (subnormals beside the largest values: chunks the three levels do not exhaust, summed in
// bins) and hard values with infinities and NaN (the plain loop): one thread against three, and
// against the plain loop, for the training forward (sum X, sum X^2) and both grads (sum dY, sum dY X).
// FLOAT32 four and eight lanes at a time (LaneSubcases); FLOAT16 once (the lanes are FLOAT32's only).
TEST_CASE_TEMPLATE("Batch normalization fast paths: exact sums over several chunks", T, float, dmlref::half) {
    std::optional<LaneSubcases> lanes;
    if constexpr (std::is_same_v<T, float>) lanes.emplace();
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng = rng_for<T>(2520);
    for (const int kind : {0, 3, 1}) {
        INFO("kind " << kind);
        const bool strided = kind == 0;  // kind 3 packed: hard values through the runs of constant statistics
        check_training<T>(rng, {1, 2, 100, 90}, {1, 2, 1, 1}, kind, false, std::nullopt, strided);
        check_grad<T>(rng, {1, 2, 100, 90}, {1, 2, 1, 1}, kind, strided);
        check_grad<T, TG>(rng, {1, 2, 100, 90}, {1, 2, 1, 1}, kind, strided);
        if (kind == 0) {
            CHECK(reference::fast::batch_normalization_grad_counts().decided > 0);
            check_grad<T, TG>(rng, {3, 1, 50, 60}, {1, 1, 1, 1}, kind, false);
            // Four channels of two chunks each (4,096 elements and 4) in three batches: a channel's six chunks
            // lie apart in the task list, and the channels are finished on several threads (three threads:
            // the sums' tasks, then the channels; one thread: a channel per task, element_sums).
            check_training<T>(rng, {3, 4, 41, 100}, {1, 4, 1, 1}, kind, false, std::nullopt, false);
            check_grad<T>(rng, {3, 4, 41, 100}, {1, 4, 1, 1}, kind, false);
            check_grad<T, TG>(rng, {3, 4, 41, 100}, {1, 4, 1, 1}, kind, false);
        }
    }
}

namespace {

// A BATCH_NORMALIZATION_GRAD (or _TRAINING_GRAD, D) of type t: input sizes `in`, statistics and gradient
// outputs of sizes `stat`.
template <class D = DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>
D grad_desc(DataType t, const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat, float epsilon) {
    D d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(t, in);
    d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor = d.OutputBiasGradientTensor = desc(
        t, stat);
    d.Epsilon = epsilon;
    return d;
}

// A FLOAT32 BATCH_NORMALIZATION_GRAD's or _TRAINING_GRAD's buffers: X, dY and the per-channel
// Mean, Variance and Scale as given, the three outputs filled with 0x5a.
template <class D>
Buffers grad_buffers(const D& d, const std::vector<float>& x, const std::vector<float>& dy,
                     const std::vector<float>& mean, const std::vector<float>& variance,
                     const std::vector<float>& scale) {
    Buffers b;
    b.names = {"InputTensor",
               "InputGradientTensor",
               "MeanTensor",
               "VarianceTensor",
               "ScaleTensor",
               "OutputGradientTensor",
               "OutputScaleGradientTensor",
               "OutputBiasGradientTensor"};
    b.bytes.push_back(buffer(d.InputTensor, x));
    b.bytes.push_back(buffer(d.InputGradientTensor, dy));
    b.bytes.push_back(buffer(d.MeanTensor, mean));
    b.bytes.push_back(buffer(d.VarianceTensor, variance));
    b.bytes.push_back(buffer(d.ScaleTensor, scale));
    for (const TensorDesc* td : {&d.OutputGradientTensor, &d.OutputScaleGradientTensor, &d.OutputBiasGradientTensor})
        b.bytes.emplace_back(buffer_size(*td), std::byte{0x5a});
    return b;
}

}  // namespace

// Chunks whose terms span more bits than the three levels hold (1 and 2^-100, 2^-60 and 2^40 in one
// sum): the bins take them, and the results are still the plain loop's. FLOAT32 (a half's terms
// never span that far).
TEST_CASE("Batch normalization fast paths: exact sums the extraction leaves to the bins") {
    const LaneSubcases lanes;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    const std::vector<float> x = {1.0f, 0x1p-100f, -1.0f, 0x1p-60f, 0x1p40f, 3.0f, -0x1p-126f, 0.5f};
    const std::vector<float> dy = {0x1p-100f, 1.0f, 0x1p-60f, 0x1p40f, 1.0f, -0x1p-149f, 2.0f, 1.0f};
    auto grad_op = [&](auto tag) {
        using D = decltype(tag);
        D d;
        d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 2, 4});
        d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor = d.OutputBiasGradientTensor =
            desc(DataType::FLOAT32, {1, 2, 1});
        d.Epsilon = 1e-3f;
        const Buffers b = grad_buffers(d, x, dy, {0.25f, -1.0f}, {2.0f, 0.5f}, {1.5f, -0.75f});
        check_op({D::kType, d}, b);
        const Buffers fast = evaluate_with({D::kType, d}, b, true, 1);
        // OutputBiasGradient = sum dY, by hand: 2^-100 + 1 + 2^-60 + 2^40 rounds to 2^40 (floats are 2^17
        // apart there), and 1 - 2^-149 + 2 + 1 to 4.
        const float* bias = reinterpret_cast<const float*>(fast.bytes[7].data());
        CHECK(same_bits(bias[0], 0x1p40f));
        CHECK(same_bits(bias[1], 4.0f));
    };
    grad_op(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC{});
    grad_op(TG{});
}

// Sums that sit a tiny term above a rounding tie of FLOAT32, the tiny term (2^-45, which the second
// level of extraction takes, or 2^-85, which the third does) first in a chunk of 4,096 ones: a chunk
// sum that dropped it would round to even instead. sum dY = tiny + (1 + 2^-12) + 4095 = 4096 + 2^-12 +
// tiny rounds up to 4096 + 2^-11 (the midpoint is 4096 + 2^-12); the batch mean of tiny, 1 + 2^-13
// and 4094 ones is (4095 + 2^-13 + tiny) / 4096 = 1 - 2^-12 + 2^-25 + tiny 2^-12, which rounds up to
// 1 - 2^-12 + 2^-24 (the midpoint's even neighbour is 1 - 2^-12). By hand, and against the plain loop.
TEST_CASE("Batch normalization fast paths: exact sums decide a FLOAT32 tie by a tiny term") {
    const LaneSubcases lanes;
    for (const float tiny : {0x1p-45f, 0x1p-85f}) {
        INFO("tiny " << tiny);
        const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC d = grad_desc(DataType::FLOAT32, {1, 1, 4097}, {1, 1, 1},
                                                                       0.0f);
        std::vector<float> dy(4097, 1.0f);
        dy[0] = tiny;
        dy[1] = 1.0f + 0x1p-12f;
        const Buffers b = grad_buffers(d, std::vector<float>(4097, 0.5f), dy, {0.0f}, {1.0f}, {1.0f});
        const Operator op{OperatorType::BATCH_NORMALIZATION_GRAD, d};
        check_op(op, b);
        const Buffers fast = evaluate_with(op, b, true, 1);
        CHECK(same_bits(reinterpret_cast<const float*>(fast.bytes[7].data())[0], 4096.0f + 0x1p-11f));
        // OutputScaleGradient = sum dY (X - 0) / sqrt(1 + 0) = 2048 + 2^-13 + tiny / 2 rounds up to 2048 + 2^-12:
        // a float64 estimate (step G0) cannot decide it, and a bound too small would round to even.
        CHECK(same_bits(reinterpret_cast<const float*>(fast.bytes[6].data())[0], 2048.0f + 0x1p-12f));
    }
    for (const float tiny : {0x1p-45f, 0x1p-85f}) {
        INFO("tiny " << tiny);
        TRAINING d;
        d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {1, 1, 4096});
        d.ScaleTensor = d.BiasTensor = d.OutputMeanTensor = d.OutputVarianceTensor = desc(DataType::FLOAT32, {1, 1, 1});
        d.Epsilon = 1e-3f;
        std::vector<float> x(4096, 1.0f);
        x[0] = tiny;
        x[1] = 1.0f + 0x1p-13f;
        Buffers b;
        b.names = {"InputTensor",  "ScaleTensor",      "BiasTensor",
                   "OutputTensor", "OutputMeanTensor", "OutputVarianceTensor"};
        b.bytes.push_back(buffer(d.InputTensor, x));
        b.bytes.push_back(buffer(d.ScaleTensor, std::vector<float>{1.0f}));
        b.bytes.push_back(buffer(d.BiasTensor, std::vector<float>{0.0f}));
        for (const TensorDesc* td : {&d.OutputTensor, &d.OutputMeanTensor, &d.OutputVarianceTensor})
            b.bytes.emplace_back(buffer_size(*td), std::byte{0x5a});
        const Operator op{OperatorType::BATCH_NORMALIZATION_TRAINING, d};
        check_op(op, b);
        const Buffers fast = evaluate_with(op, b, true, 1);
        CHECK(same_bits(reinterpret_cast<const float*>(fast.bytes[4].data())[0], 1.0f - 0x1p-12f + 0x1p-24f));
    }
}

// The narrow sums (the header's step S5): a chunk whose factors' nonzero magnitudes lie within 16 binades below
// each factor's largest binade is summed in one float64 level, and a chunk with a value one binade lower takes the
// levels of step S2. One chunk of 4,093 terms (not a multiple of the lanes: the last ones take the tail), Mean 0,
// Variance 1, Epsilon 0 and Scale 1 (r = 1): every term is 1 times 1 except term 1, (1 + 2^-13) times 1, term 3,
// -0 times -0, and two planted pairs, term 0, s 2^-k (1 + 2^-23) times 2^-16 (1 + 2^-23), and the last term,
// -s 2^-k times 2^-16 (1 + 2^-22), with s 1 or, in the "late" cases, term 2000 of the small factor 2 (its partner
// 1), so that the largest binade is not among the first 64 terms (the one-pass sums' guess is wrong) and s = 2 is
// needed to keep k - 1 binades. By hand: the small factor sums to 4090 + late + 2^-13 + 2^-(k + 23) (+ 2^-k 2^-23
// from the planted pair) and the products to 4090 + late + 2^-13 + 2^-(k + 62) ((1 + 2^-23)^2 - (1 + 2^-22) =
// 2^-46), both ties of FLOAT32 (spacing 2^-12 there, 4090 + late even) and a term far below the float64
// resolution above: each rounds up to 4090 + late + 2^-12, where a sum that lost the planted pair's last bits
// would round to even, 4090 + late. k = 16 - late is the least allowed (narrow, decided by step S5), k = 17 -
// late is a binade too low (step S2). The small factor is dY or X (OutputBiasGradient = sum dY is checked by hand
// where it is dY); both grads, against the plain loop, and the chunks counted.
TEST_CASE("Batch normalization fast paths: narrow sums at their limit, by hand") {
    const LaneSubcases lanes;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    constexpr int n = 4093;
    for (const int late : {0, 1})
        for (const int k : {16 - late, 17 - late})
            for (const bool small_dy : {true, false}) {
                INFO("late " << late << ", k " << k << ", small dY " << small_dy);
                std::vector<float> small(n, 1.0f), partner(n, 1.0f);
                small[1] = 1.0f + 0x1p-13f;
                small[3] = partner[3] = -0.0f;
                small[0] = std::ldexp(1.0f + 0x1p-23f, -k);
                partner[0] = 0x1p-16f * (1.0f + 0x1p-23f);
                small[n - 1] = -std::ldexp(1.0f, -k);
                partner[n - 1] = 0x1p-16f * (1.0f + 0x1p-22f);
                if (late) small[2000] = 2.0f;
                const std::vector<float>& dy = small_dy ? small : partner;
                const std::vector<float>& x = small_dy ? partner : small;
                const float expected = 4090.0f + float(late) + 0x1p-12f;
                auto check = [&](auto tag) {
                    using D = decltype(tag);
                    D d;
                    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 1, n});
                    d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor =
                        d.OutputBiasGradientTensor = desc(DataType::FLOAT32, {1, 1, 1});
                    d.Epsilon = 0.0f;
                    const Buffers b = grad_buffers(d, x, dy, {0.0f}, {1.0f}, {1.0f});
                    const Operator op{D::kType, d};
                    check_op(op, b);
                    const Buffers fast = evaluate_with(op, b, true, 1);
                    const auto c = reference::fast::batch_normalization_sums_counts();
                    CHECK(c.decided == (k == 16 - late ? 1u : 0u));
                    CHECK(c.decided + c.plain == 1);
                    CHECK(same_bits(reinterpret_cast<const float*>(fast.bytes[6].data())[0], expected));
                    if (small_dy) CHECK(same_bits(reinterpret_cast<const float*>(fast.bytes[7].data())[0], expected));
                };
                check(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC{});
                check(TG{});
            }
}

// Narrow chunks of special values, against the plain loop: dY all subnormal or below 2^-118 (a largest exponent
// field at most 8, where subnormals are narrow too) with +-0 among them, X in 17 binades, and a chunk with an
// infinity or a NaN (the plain loop takes the operator). Two chunks a channel (4,096 elements and 11, a tail
// that is not a multiple of the lanes), two channels, each chunk narrow.
TEST_CASE("Batch normalization fast paths: narrow sums of subnormals, zeros and specials") {
    const LaneSubcases lanes;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2590);
    constexpr int n = 4096 + 11;
    for (const int special : {0, 1, 2}) {
        INFO("special " << special);
        std::vector<float> dy(2 * n), x(2 * n);
        for (size_t i = 0; i < dy.size(); ++i) {
            const uint32_t r = uint32_t(rng());
            dy[i] = from_bits<float>((r & 0x807fffffu) | ((r >> 8) % 9u << 23));  // fields 0 to 8
            const uint32_t q = uint32_t(rng());
            x[i] = from_bits<float>((q & 0x807fffffu) | ((120u + (q >> 8) % 17u) << 23));  // fields 120 to 136
            if (i % 97 == 0) dy[i] = rng() % 2 ? 0.0f : -0.0f;
        }
        if (special == 1) dy[5000] = std::numeric_limits<float>::infinity();
        if (special == 2) x[n + 7] = std::numeric_limits<float>::quiet_NaN();
        auto check = [&](auto tag) {
            using D = decltype(tag);
            D d;
            d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 2, n});
            d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor = d.OutputBiasGradientTensor =
                desc(DataType::FLOAT32, {1, 2, 1});
            d.Epsilon = 1e-3f;
            const Buffers b = grad_buffers(d, x, dy, {0.25f, -0x1p-3f}, {0.5f, 2.0f}, {1.5f, -0.75f});
            check_op({D::kType, d}, b);
            // Every chunk is narrow; the one with an infinity or a NaN is counted as neither (not finite).
            const auto c = reference::fast::batch_normalization_sums_counts();
            CHECK(c.decided == (special == 0 ? 4u : 3u));
            CHECK(c.plain == 0);
        };
        check(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC{});
        check(TG{});
    }
}

// ---- FLOAT16 in two stages -------------------------------------------------------------------
// FLOAT16 runs of constant statistics, where the machine has F16C, are decided by a float32 estimate
// first, then the float64 one, then the plain element (the header's steps H1 to H5). Each operator on
// three channels of 4096 elements: random values (nearly all decided by the float32 stage, those next
// to a rounding boundary by the float64 one), exact ties (left by both to the plain element) and hard
// values (subnormals, the largest values, +-0; NaN and infinities where they do not send the whole
// operator to the plain loop); then a run whose constants fall outside the float32 stage's ranges (step
// H1), which only the float64 stage may decide. Element for element against the plain loop, one thread
// and three, and the stages counted.
namespace {

using dmlref::half;

// A random FLOAT16 with a full significand, either sign, in [2^lo, 2^(hi + 1)).
half random_half(std::mt19937_64& rng, int lo, int hi) {
    const double mant = double(1024 + int64_t(rng() % 1024));
    const int e = lo + int(rng() % uint64_t(hi - lo + 1));
    return value_of<half>(std::ldexp(rng() % 2 ? mant : -mant, e - 10));
}

// A hard finite FLOAT16 (hard_element without NaN and infinities), or, with `special`, any.
half hard_half(std::mt19937_64& rng, bool special) {
    for (;;) {
        const half v = hard_element<half>(rng);
        if (special || std::isfinite(widen(v))) return v;
    }
}

struct Counted {
    uint64_t single = 0, twofold = 0, plain = 0;
};

// Buffers of a FLOAT16 operator: input `name`'s packed element i (of count) from value(name, channel,
// i), three channels, the channel i / (count / 3); every output filled.
template <class Value>
Buffers half_buffers(const std::vector<std::pair<std::string, const TensorDesc*>>& inputs,
                     const std::vector<std::pair<std::string, const TensorDesc*>>& outputs, Value&& value) {
    Buffers b;
    for (const auto& [name, td] : inputs) {
        const size_t count = buffer_size(*td) / sizeof(half);
        std::vector<half> v(count);
        for (size_t i = 0; i < count; ++i) v[i] = value(name, int(i / (count / 3)), i % (count / 3));
        std::vector<std::byte> bytes(buffer_size(*td));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.push_back(name);
        b.bytes.push_back(std::move(bytes));
    }
    for (const auto& [name, td] : outputs) {
        b.names.push_back(name);
        b.bytes.emplace_back(buffer_size(*td), std::byte{0x5a});
    }
    return b;
}

// The forward's and either grad's FLOAT16 buffers, and a grad's FLOAT16 desc.
template <class Value> Buffers forward_half_buffers(const BN& d, Value&& value) {
    return half_buffers({{"InputTensor", &d.InputTensor},
                         {"MeanTensor", &d.MeanTensor},
                         {"VarianceTensor", &d.VarianceTensor},
                         {"ScaleTensor", &d.ScaleTensor},
                         {"BiasTensor", &d.BiasTensor}},
                        {{"OutputTensor", &d.OutputTensor}}, value);
}
template <class D, class Value> Buffers grad_half_buffers(const D& d, Value&& value) {
    return half_buffers({{"InputTensor", &d.InputTensor},
                         {"InputGradientTensor", &d.InputGradientTensor},
                         {"MeanTensor", &d.MeanTensor},
                         {"VarianceTensor", &d.VarianceTensor},
                         {"ScaleTensor", &d.ScaleTensor}},
                        {{"OutputGradientTensor", &d.OutputGradientTensor},
                         {"OutputScaleGradientTensor", &d.OutputScaleGradientTensor},
                         {"OutputBiasGradientTensor", &d.OutputBiasGradientTensor}},
                        value);
}
template <class D> D grad_half_desc(const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat, float epsilon) {
    return grad_desc<D>(DataType::FLOAT16, in, stat, epsilon);
}

Counted counted(const reference::fast::BatchNormalizationCounts& c) {
    return {c.single, c.decided - c.single, c.plain};
}

void check_stages(const Counted& c, const char* what) {
    MESSAGE(std::string(what) << ": float32 stage " << c.single << ", float64 stage " << c.twofold << ", plain "
                              << c.plain);
    if (!reference::fast::have_f16c()) {
        CHECK(c.single == 0);
        return;
    }
    CHECK(c.single > 0);
    CHECK(c.twofold > 0);
    CHECK(c.plain > 0);
    // The float32 stage decides nearly every element of the random channel (4096 of the 12288).
    CHECK(c.single > 3500);
}

}  // namespace

// FLOAT16's forward, training and training grad float32 stage both ways on a machine with AVX-512: each
// element's own w sixteen at a time (step H8, the default) and the chunk's W first (step H7, which other machines
// take).
struct WidthSubcases {
    WidthSubcases() {
        SUBCASE("own width") {}
        SUBCASE("chunk width") { reference::fast::batch_normalization_chunk_width(true); }
    }
    ~WidthSubcases() { reference::fast::batch_normalization_chunk_width(false); }
    WidthSubcases(const WidthSubcases&) = delete;
    WidthSubcases& operator=(const WidthSubcases&) = delete;
};

TEST_CASE("Batch normalization fast path: FLOAT16 stages of the forward and the grad") {
    const WidthSubcases widths;
    std::mt19937_64 rng(2530);
    const std::vector<uint32_t> in = {1, 3, 64, 64}, stat = {1, 3, 1, 1};
    // The forward, Epsilon 0: channel 0 random (Variance in [1/2, 4)), channel 1 V = 1.5 X on
    // multiples of 2^-10 (Variance 4, Scale 3: ties wherever 3k is odd and |V| >= 1), channel 2 hard X.
    for (const bool relu : {false, true}) {
        const Operator op = make_op(DataType::FLOAT16, {in, {stat, stat, stat, stat}}, {}, 0.0f,
                                    relu ? activation("ACTIVATION_RELU") : std::nullopt);
        const BN& d = get<BN>(op.Desc);
        const Buffers b = forward_half_buffers(d, [&](const std::string& name, int c, size_t) {
            if (c == 1) {
                if (name == "InputTensor") return value_of<half>(std::ldexp(double(int64_t(rng() % 4096) - 2048), -10));
                return value_of<half>(name == "VarianceTensor" ? 4.0 : name == "ScaleTensor" ? 3.0 : 0.0);
            }
            if (name == "InputTensor") return c == 2 ? hard_half(rng, true) : random_half(rng, -3, 2);
            if (name == "VarianceTensor") return value_of<half>(std::fabs(widen(random_half(rng, -1, 1))));
            return random_half(rng, -2, 1);
        });
        check_op(op, b);
        check_stages(counted(reference::fast::batch_normalization_counts()), "forward");
    }
    // Outside the float32 stage's range: Epsilon 2^20 and Scale 2^-24 make |S| about 2^-34.
    {
        const Operator op = make_op(DataType::FLOAT16, {in, {stat, stat, stat, stat}}, {}, 0x1p20f, std::nullopt);
        const BN& d = get<BN>(op.Desc);
        const Buffers b = forward_half_buffers(d, [&](const std::string& name, int, size_t) {
            if (name == "ScaleTensor") return value_of<half>(0x1p-24);
            if (name == "BiasTensor") return value_of<half>(0.0);
            return random_half(rng, -3, 2);
        });
        check_op(op, b);
        const auto c = reference::fast::batch_normalization_counts();
        CHECK(c.single == 0);
        CHECK(c.decided > 0);
    }
    // The grad, Epsilon 0: dX = dY Scale r, the same three channels (channel 1: dY on multiples of 2^-10,
    // Variance 4, Scale 3); then Epsilon 2^20 with Scale 2^-24.
    for (const float epsilon : {0.0f, 0x1p20f}) {
        const auto d = grad_half_desc<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(in, stat, epsilon);
        const Buffers b = grad_half_buffers(d, [&](const std::string& name, int c, size_t) {
            if (epsilon != 0 && name == "ScaleTensor") return value_of<half>(0x1p-24);
            if (c == 1 && name != "InputTensor") {
                if (name == "InputGradientTensor")
                    return value_of<half>(std::ldexp(double(int64_t(rng() % 4096) - 2048), -10));
                return value_of<half>(name == "VarianceTensor" ? 4.0 : name == "ScaleTensor" ? 3.0 : 0.0);
            }
            if (name == "InputTensor" || name == "InputGradientTensor")
                return c == 2 ? hard_half(rng, false) : random_half(rng, -3, 2);
            if (name == "VarianceTensor") return value_of<half>(std::fabs(widen(random_half(rng, -1, 1))));
            return random_half(rng, -2, 1);
        });
        check_op({OperatorType::BATCH_NORMALIZATION_GRAD, d}, b);
        const Counted c = counted(reference::fast::batch_normalization_grad_counts());
        if (epsilon == 0) check_stages(c, "grad");
        else CHECK(c.single == 0);
    }
}

// The grad's first stages decide from y = fl(S dY) with one half-width for the chunk (FLOAT32, the header's step
// G4) or where no rounding boundary is near y (FLOAT16, step H6). Variance 4 and Scale 3 with a tiny Epsilon put V = 1.5 dY (1 + Epsilon / 4)^(-1/2) a hair
// below 1.5 dY, which is a midpoint of T for dY with an odd significand (dY = (2^23 + j) 2^k, j odd below
// 2^23 / 3, for FLOAT32; (2^10 + j) 2^k, j odd below 2^10 / 3, for FLOAT16). FLOAT32, Epsilon 2^-48:
// r~ = 1/2 - 2^-52, sr~ = 1.5 (1 - 2^-51) exactly, so y~ and V both lie 2 to 4.5 double ulps below the
// midpoint, inside step G4's W (at least 7u |y~|, 5.25 ulps: every y~ lies in [1.5, 2) times a power of two, the
// chunk's largest among them): the first stage must leave every element, and so must the float64
// estimate (its w is about 4 ulps of y~ or more): the plain element takes them all. FLOAT16, Epsilon 2^-20:
// S = fl32(1.5 (1 - 2^-23 + 3 2^-47)) = 1.5 - 2^-23, so y is 1 or 2 float ulps below the midpoint, inside
// step H6's 4: the float32 stage must leave every element, and the float64 estimate decides them (V is 1
// to 2 float ulps below the midpoint, far outside its bound). Element for element against the plain loop.
TEST_CASE("Batch normalization grad fast path: midpoints the first stage must leave, by hand") {
    const WidthSubcases widths;  // FLOAT16's step H6 sixteen lanes at a time (AVX-512) and eight
    std::mt19937_64 rng(2560);
    const std::vector<uint32_t> in = {1, 1, 64, 64}, stat = {1, 1, 1, 1};
    {
        const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC d = grad_desc(DataType::FLOAT32, in, stat, 0x1p-48f);
        std::vector<float> x(4096), dy(4096);
        for (size_t i = 0; i < dy.size(); ++i) {
            const double j = double(2 * (rng() % 1398101) + 1);
            const int k = int(rng() % 61) - 30 - 23;
            dy[i] = float(std::ldexp(rng() % 2 ? 0x1p23 + j : -(0x1p23 + j), k));
            x[i] = float(random_float(rng, -3, 2));
        }
        Buffers b = grad_buffers(d, x, dy, {0.25f}, {4.0f}, {3.0f});
        const Operator op{OperatorType::BATCH_NORMALIZATION_GRAD, d};
        check_op_threads(op, b);
        const auto c = reference::fast::batch_normalization_grad_counts();
        CHECK(c.single == 0);
        CHECK(c.plain == 4096);
    }
    {
        const auto d = grad_half_desc<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>({1, 3, 64, 64}, {1, 3, 1, 1},
                                                                                  0x1p-20f);
        const Buffers b = grad_half_buffers(d, [&](const std::string& name, int, size_t) {
            if (name == "InputGradientTensor") {
                const double j = double(2 * (rng() % 170) + 1);
                const int k = int(rng() % 27) - 13 - 10;
                return value_of<half>(std::ldexp(rng() % 2 ? 1024 + j : -(1024 + j), k));
            }
            if (name == "VarianceTensor") return value_of<half>(4.0);
            if (name == "ScaleTensor") return value_of<half>(3.0);
            return random_half(rng, -3, 2);
        });
        check_op_threads({OperatorType::BATCH_NORMALIZATION_GRAD, d}, b);
        const Counted c = counted(reference::fast::batch_normalization_grad_counts());
        CHECK(c.single == 0);
        CHECK(c.plain == 0);
        CHECK(c.twofold == 3 * 4096);
    }
}

namespace {

// The FLOAT32 grad's first stage four ways: step G8's pass (where the machine has AVX-512; G6's plain loop
// elsewhere), step G6 sixteen lanes at a time (AVX-512; the exact sums forced), G6's plain loop (forced with the
// four-lane sums), and step G4 (forced).
struct GradStageSubcases {
    bool width = false;
    GradStageSubcases() {
        SUBCASE("G8 (AVX-512), else G6") {}
        SUBCASE("G6") { reference::fast::batch_normalization_grad_exact_sums(true); }
        SUBCASE("G6, plain loop") { reference::fast::batch_normalization_four_lane_sums(true); }
        SUBCASE("G4") {
            reference::fast::batch_normalization_grad_width(true);
            width = true;
        }
    }
    ~GradStageSubcases() {
        reference::fast::batch_normalization_grad_exact_sums(false);
        reference::fast::batch_normalization_four_lane_sums(false);
        reference::fast::batch_normalization_grad_width(false);
    }
    GradStageSubcases(const GradStageSubcases&) = delete;
    GradStageSubcases& operator=(const GradStageSubcases&) = delete;
};

// r~ and sr~ as step 2 and 3 compute them (correctly rounded float64 operations, computed here apart).
double sr_of(float variance, float epsilon, float scale) {
    return double(scale) * (1.0 / std::sqrt(double(variance) + double(epsilon)));
}

}  // namespace

// Step G6 decides the FLOAT32 grad from y~'s bits: left where its low 29 bits L lie in [2^28 - 8, 2^28 + 7]. Epsilon
// 11 2^-50, four channels of 4096 elements (a chunk each), dY = +-(2^23 + j) 2^k with j odd and 1.5 (2^23 + j) <
// 2^24 (1.5 dY a FLOAT32 midpoint, at 1.5 to 2 times 2^(23 + k)): Variance 4 and Scale 3 (sr~ = 1.5 - 8 2^-52: y~ 8
// to 10.7 double ulps below the midpoint, both sides of the window's edge), Variance 16 and Scale 6 (sr~ = 1.5 - 2
// 2^-52: 2 to 2.7 ulps, all left), Variance 64 and Scale 12 (sr~ = 1.5: y~ on the midpoint, V below it, all left),
// and random data (Variance 0.7, Scale 0.9). The elements G6 decides are counted against L computed here; every
// output against the plain loop's.
TEST_CASE("Batch normalization grad fast path: FLOAT32's bits stage, by hand") {
    const GradStageSubcases stage;
    std::mt19937_64 rng(2595);
    const std::vector<uint32_t> in = {1, 4, 64, 64}, stat = {1, 4, 1, 1};
    const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC d = grad_desc(DataType::FLOAT32, in, stat, 11 * 0x1p-50f);
    const std::vector<float> variance = {4.0f, 16.0f, 64.0f, 0.7f}, scale = {3.0f, 6.0f, 12.0f, 0.9f};
    CHECK(sr_of(4.0f, d.Epsilon, 3.0f) == 1.5 - 8 * 0x1p-52);
    CHECK(sr_of(16.0f, d.Epsilon, 6.0f) == 1.5 - 2 * 0x1p-52);
    CHECK(sr_of(64.0f, d.Epsilon, 12.0f) == 1.5);
    std::vector<float> x(4 * 4096), dy(4 * 4096);
    uint64_t expected = 0, left = 0;
    for (size_t i = 0; i < dy.size(); ++i) {
        const size_t k = i / 4096;
        const double j = double(2 * (rng() % 1398101) + 1);
        const int e = int(rng() % 181) - 100 - 23;
        dy[i] = k == 3 ? float(random_float(rng, -3, 2)) : float(std::ldexp(rng() % 2 ? 0x1p23 + j : -(0x1p23 + j), e));
        x[i] = float(random_float(rng, -3, 2));
        const double y = double(dy[i]) * sr_of(variance[k], d.Epsilon, scale[k]) + 0.0;
        uint64_t bits;
        std::memcpy(&bits, &y, sizeof bits);
        const uint64_t L = bits & ((uint64_t(1) << 29) - 1);
        const bool near = L >= (uint64_t(1) << 28) - 8 && L <= (uint64_t(1) << 28) + 7;
        expected += !near;
        left += near && k == 0;
    }
    MESSAGE("channel 0: " << left << " of 4096 left by G6");
    CHECK(left > 100);
    CHECK(left < 4000);
    const Buffers b = grad_buffers(d, x, dy, {0.0f, 0.0f, 0.0f, 0.5f}, variance, scale);
    check_op_threads({OperatorType::BATCH_NORMALIZATION_GRAD, d}, b);
    const auto c = reference::fast::batch_normalization_grad_counts();
    if (!stage.width) CHECK(c.single == expected);
    CHECK(c.plain >= 2 * 4096);  // the midpoints and the elements 2 to 4 ulps below them
}

// y~ exactly on FLOAT32 midpoints, V below them: Epsilon 3 2^-53, Variance 4 (D~ = 4 < D) and Scale 3 make sr~ =
// 1.5 and V = 1.5 dY (1 + 3 2^-55)^(-1/2). Channel 0: dY = +-(2^23 + j) 2^k with j odd, normal midpoints (L = 2^28:
// G6 leaves them). Channel 1: dY = +-j 2^-149 with j odd, subnormal midpoints, whose low 29 bits are 0: G6 would
// round y~ to even, wrong for half of them; the chunk's least |dY| keeps it off (fl(|sr~| lf) < 2^-126) and G4
// leaves them. Every element goes to the plain loop.
TEST_CASE("Batch normalization grad fast path: FLOAT32 midpoints the bits stage must leave, by hand") {
    const GradStageSubcases stage;
    std::mt19937_64 rng(2596);
    const std::vector<uint32_t> in = {1, 2, 32, 32}, stat = {1, 2, 1, 1};
    const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC d = grad_desc(DataType::FLOAT32, in, stat, 3 * 0x1p-53f);
    CHECK(sr_of(4.0f, d.Epsilon, 3.0f) == 1.5);
    std::vector<float> x(2 * 1024), dy(2 * 1024);
    for (size_t i = 0; i < 1024; ++i) {
        const double j = double(2 * (rng() % 1398101) + 1);
        dy[i] = float(std::ldexp(rng() % 2 ? 0x1p23 + j : -(0x1p23 + j), int(rng() % 181) - 100 - 23));
        const double js = double(2 * (rng() % 2048) + 1);
        dy[1024 + i] = float(std::ldexp(rng() % 2 ? js : -js, -149));
        x[i] = float(random_float(rng, -3, 2));
        x[1024 + i] = float(random_float(rng, -3, 2));
    }
    const Buffers b = grad_buffers(d, x, dy, {0.0f, 0.0f}, {4.0f, 4.0f}, {3.0f, 3.0f});
    check_op_threads({OperatorType::BATCH_NORMALIZATION_GRAD, d}, b);
    const auto c = reference::fast::batch_normalization_grad_counts();
    CHECK(c.single == 0);
    CHECK(c.plain == 2 * 1024);
}

// Steps G8's and G10's float64 sums against the exact sums (rationals), with their bounds on the errors: terms of
// one scale, terms spread over 2^120 that cancel, and products of factors spread over 2^60 (a Mean of 2^20 for
// G10's sum dY (X - Mean)), in one to five chunks.
TEST_CASE("Batch normalization grad fast path: the pass's float64 sums hold the exact sums within their bounds") {
    if (!reference::fast::batch_normalization_grad_pass_available()) {
        MESSAGE("step G8 does not run on this machine");
        return;
    }
    std::mt19937_64 rng(2597);
    double worst = 0, running = 0;
    for (int it = 0; it < 30; ++it) {
        const int kind = it % 3, spread = kind == 0 ? 0 : kind == 1 ? 60 : 30;
        std::vector<float> dy(size_t(1 + rng() % 20000)), x(dy.size());
        auto term = [&](int e) {
            const double v = std::ldexp(double(rng() % (1u << 24)) * 0x1p-24, e);
            return float(rng() % 2 ? v : -v);
        };
        for (size_t i = 0; i < dy.size(); ++i) {
            dy[i] = rng() % 16 == 0 ? 0.0f : term(spread == 0 ? 0 : int(rng() % uint64_t(2 * spread + 1)) - spread);
            x[i] = term(kind == 2 ? int(rng() % 61) - 30 : 0);
        }
        const float mean = term(kind == 2 ? 20 : 0);
        const auto r = reference::fast::batch_normalization_grad_pass_sums(dy, x);
        const auto t = reference::fast::batch_normalization_training_grad_pass_sums(dy, x, mean);
        REQUIRE(r.ran);
        REQUIRE(t.ran);
        mpq_class B = 0, P = 0, C = 0;
        for (size_t i = 0; i < dy.size(); ++i) {
            B += mpq_class(double(dy[i]));
            P += mpq_class(double(dy[i])) * mpq_class(double(x[i]));
            C += mpq_class(double(dy[i])) * (mpq_class(double(x[i])) - mpq_class(double(mean)));
        }
        INFO("iteration " << it << ", " << dy.size() << " terms");
        const mpq_class eb = abs(mpq_class(r.sum_dy) - B), ep = abs(mpq_class(r.sum_product) - P);
        CHECK(eb <= mpq_class(r.bound_dy));
        CHECK(ep <= mpq_class(r.bound_product));
        worst = std::max({worst, eb.get_d() / r.bound_dy, ep.get_d() / r.bound_product});
        // Step G10's: sum dY and sum dY (X - Mean), each within its bound with (1 - u)^2 to spare (G9's need).
        const mpq_class tb = abs(mpq_class(t.sum_dy) - B), tc = abs(mpq_class(t.sum_product) - C);
        CHECK(tb <= mpq_class(t.bound_dy) * mpq_class(1 - 0x1p-51));
        CHECK(tc <= mpq_class(t.bound_product));
        running = std::max({running, tb.get_d() / t.bound_dy, tc.get_d() / t.bound_product});
    }
    MESSAGE("largest error / bound: step G8 " << worst << ", step G10 (running) " << running);
}

// Step G9 must leave statistics whose exact values lie on the far side of a FLOAT32 midpoint by less than its
// bound. Two channels of 10,000 elements (three chunks), Variance 0.75 and Epsilon 0.25 (D = 1, r = 1), Scale 1,
// Mean 0, dY and X 0 but for a few elements. Channel 0: B = sum dY = 1 + 2^-24 + 2^-70 and
// C = sum dY X = 2 + 2^-23 + 2^-60 (pairs dY = +-a with X = x and 0 add a x to C and nothing to B): each lies just
// above a midpoint (1 + 2^-24 between 1 and 1 + 2^-23; 2 + 2^-23 between 2 and 2 + 2^-22), so the goldens are 1 +
// 2^-23 and 2 + 2^-22, while the float64 sums lose 2^-70 and 2^-60 and land on the midpoints, whose rounding to
// even gives 1 and 2: G9 must leave both to the exact sums. Channel 1: 2^-28 and 2^-27 in place of 2^-70 and
// 2^-60, beyond G9's bounds (about 2^-34 and 2^-32): decided there, with the same goldens. Both grads (the
// training grad's statistics are the same sums, its bounds step G10's).
TEST_CASE("Batch normalization grad fast path: statistics next to FLOAT32 midpoints, by hand") {
    const std::vector<uint32_t> in = {1, 2, 100, 100}, stat = {1, 2, 1, 1};
    const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC d = grad_desc(DataType::FLOAT32, in, stat, 0.25f);
    std::vector<float> x(20000, 0.0f), dy(20000, 0.0f);
    for (const size_t c : {size_t(0), size_t(1)}) {
        const size_t o = c * 10000;
        const float b = c == 0 ? 0x1p-70f : 0x1p-28f;
        const float a = c == 0 ? 0x1p-30f : 0x1p-27f, xa = c == 0 ? 0x1p-30f : 1.0f;  // a xa: 2^-60 or 2^-27
        const std::vector<std::tuple<size_t, float, float>> terms = {
            {5, 1.0f, 2.0f},         {4200, 0x1p-24f, 0.0f}, {9000, b, 0.0f}, {100, 0x1p-23f, 1.0f},
            {8000, -0x1p-23f, 0.0f}, {4500, a, xa},          {50, -a, 0.0f}};
        for (const auto& [i, v, xv] : terms) {
            dy[o + i] = v;
            x[o + i] = xv;
        }
    }
    const Buffers b = grad_buffers(d, x, dy, {0.0f, 0.0f}, {0.75f, 0.75f}, {1.0f, 1.0f});
    const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC td =
        grad_desc<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(DataType::FLOAT32, in, stat, 0.25f);
    for (const Operator& op : {Operator{OperatorType::BATCH_NORMALIZATION_GRAD, d},
                               Operator{OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, td}}) {
        INFO((op.Type == OperatorType::BATCH_NORMALIZATION_GRAD ? "grad" : "training grad"));
        check_op_threads(op, b);
        const Buffers fast = evaluate_with(op, b, true, 1);
        std::array<float, 2> scale{}, bias{};
        std::memcpy(scale.data(), fast.bytes[6].data(), sizeof scale);
        std::memcpy(bias.data(), fast.bytes[7].data(), sizeof bias);
        for (size_t c = 0; c < 2; ++c) {
            INFO("channel " << c);
            CHECK(bias[c] == 1.0f + 0x1p-23f);
            CHECK(scale[c] == 2.0f + 0x1p-22f);
        }
        if (reference::fast::batch_normalization_grad_pass_available()) {
            const auto p = reference::fast::batch_normalization_grad_pass_counts();
            CHECK(p.decided == 1);
            CHECK(p.plain == 1);
        }
    }
}

namespace {

// Elements 0 to pairs - 1 and pairs to 2 pairs - 1 of dy and x: dY = d and -d, X = x for both, with d and x positive
// random floats of exponents ed and ex (full significands): products that cancel exactly, pair by pair.
void cancelling_pairs(std::mt19937_64& rng, size_t pairs, int ed, int ex, std::vector<float>& dy,
                      std::vector<float>& x) {
    for (size_t i = 0; i < pairs; ++i) {
        dy[i] = float(std::fabs(random_float(rng, ed, ed)));
        x[i] = float(std::fabs(random_float(rng, ex, ex)));
        dy[pairs + i] = -dy[i];
        x[pairs + i] = x[i];
    }
}

}  // namespace

// Step G10 must widen G7's half-width by the errors of a' and c', its float64 a and c. One channel of 4,096 elements,
// Variance 0.75 and Epsilon 0.25 (D = 1), Scale 1, Mean 0: 1,024 pairs dY = +-d, X = x with d and x random in [2^14,
// 2^15) (their products cancel exactly, but their float64 sums, of partial sums up to 2^35 with products' bits down
// to 2^-19, do not), one element dY = X = 1, and 2,047 elements dY = 0 with X random, 1 <= |X| < 2^15. So sum dY = 1
// and sum dY X = 1 exactly: a = c = 2^-12, and a target's V = -(1 + X) 2^-12, whose rounding to FLOAT32 is the
// golden, computed here in float64 (exact) and rounded once. The pass's c' is off by its sum's error over 4,096 (at
// least 2^-30 here, checked), |X| times that in V, far beyond G7's W7 (about 2^-36 for |dY| <= 2^15): a
// half-width without step G10's Wac would decide most targets wrongly.
TEST_CASE("Batch normalization training grad fast path: a' and c' from float64 sums, by hand") {
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2599);
    const TG d = grad_desc<TG>(DataType::FLOAT32, {1, 1, 64, 64}, {1, 1, 1, 1}, 0.25f);
    std::vector<float> x(4096), dy(4096, 0.0f);
    cancelling_pairs(rng, 1024, 14, 14, dy, x);
    dy[2048] = x[2048] = 1.0f;
    for (size_t i = 2049; i < 4096; ++i) x[i] = float(random_float(rng, 0, 14));
    const auto sums = reference::fast::batch_normalization_training_grad_pass_sums(dy, x, 0.0f);
    if (sums.ran) {
        CHECK(sums.sum_dy == 1.0);
        CHECK(std::fabs(sums.sum_product - 1.0) >= 0x1p-30);  // else this test would test nothing
    }
    const Buffers b = grad_buffers(d, x, dy, {0.0f}, {0.75f}, {1.0f});
    const Operator op{OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d};
    check_op_threads(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    std::vector<float> dx(4096);
    std::memcpy(dx.data(), fast.bytes[5].data(), dx.size() * sizeof(float));
    int wrong = 0;
    for (size_t i = 2049; i < 4096; ++i) wrong += dx[i] != float(-(1.0 + double(x[i])) * 0x1p-12);
    CHECK(wrong == 0);
}

// Step G10's statistics must take its sums' error bounds (dB, dC; here the a priori part of dC, for fl(X - Mean), is
// wider than the running part and alone covers the error): one channel of 4,095 elements, Variance 0.75 and Epsilon
// 0.25 (D = 1), Scale 1, Mean 0: 2,047 pairs dY = +-d, X = x with d in [2^20, 2^21) and x in [1, 2), and dY = X = 1.
// sum dY = sum dY X = 1 exactly, so both statistics are 1; the pairs' products cancel exactly, but their float64 sum
// is off by more than 2^-24 (checked), beyond the 2^-50 relative that G9 adds for its own roundings. Every output
// is large beside the pass's half-width (the pairs' V = +-d - a - x c, and 1 - a - c): only the statistics send
// the channel to the exact sums, and G10 must leave them there.
TEST_CASE("Batch normalization training grad fast path: statistics from float64 sums that err, by hand") {
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2600);
    const TG d = grad_desc<TG>(DataType::FLOAT32, {1, 1, 4095}, {1, 1, 1}, 0.25f);
    std::vector<float> x(4095), dy(4095);
    cancelling_pairs(rng, 2047, 20, 0, dy, x);
    dy[4094] = x[4094] = 1.0f;
    const auto sums = reference::fast::batch_normalization_training_grad_pass_sums(dy, x, 0.0f);
    if (sums.ran) CHECK(std::fabs(sums.sum_product - 1.0) > 0x1p-24);  // else this test would test nothing
    const Buffers b = grad_buffers(d, x, dy, {0.0f}, {0.75f}, {1.0f});
    const Operator op{OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d};
    check_op_threads(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    float scale = 0, bias = 0;
    std::memcpy(&scale, fast.bytes[6].data(), sizeof scale);
    std::memcpy(&bias, fast.bytes[7].data(), sizeof bias);
    CHECK(scale == 1.0f);
    CHECK(bias == 1.0f);
    if (sums.ran) {  // the bound holds the error, so the interval holds both 1 and the float64 sum: left
        const auto p = reference::fast::batch_normalization_grad_pass_counts();
        CHECK(p.decided == 0);
        CHECK(p.plain == 1);
    }
}

// Step G9's |Mean| dB: the bound on sum dY's error carried into C = sum dY X - Mean sum dY. One channel of 4,096
// elements (one chunk), X all 0 (so sum dY X = 0 exactly and C = -Mean B), Mean 3, Variance 0.75, Epsilon 0.25 (r =
// 1), Scale 1. dY is 0 but for lane 0 of every step, which in each block of sixteen steps takes +2^10, fourteen
// times 2^-44 (each lost against the partial sum 2^10, half of whose spacing is 2^-43) and -2^10, and dY = 1 and dY =
// f = fl32(2^-23 / 3 - 2^-38) = 2^-23 / 3 - 2^-38 + e (|e| <= 2^-49) in two other lanes. So B = 1 + f + 224 2^-44
// exactly while the float64 sum is 1 + f: 3B = 3 + 2^-23 + 480 2^-44 + 3e lies just above the midpoint 3 + 2^-23
// between 3 and 3 + 2^-22 (the golden OutputScaleGradient is -(3 + 2^-22), by hand), 3 (1 + f) = 3 + 2^-23 - 192
// 2^-44 + 3e just below it (-3). Only |Mean| dB (about 2^-24) widens the interval past the midpoint: the pass must
// leave the statistic to the exact sums.
TEST_CASE("Batch normalization grad fast path: Mean times sum dY's error, by hand") {
    const auto d = grad_desc(DataType::FLOAT32, {1, 1, 1, 4096}, {1, 1, 1, 1}, 0.25f);
    std::vector<float> x(4096, 0.0f), dy(4096, 0.0f);
    for (size_t s = 0; s < 256; ++s) dy[16 * s] = s % 16 == 0 ? 0x1p10f : s % 16 == 15 ? -0x1p10f : 0x1p-44f;
    dy[1] = 1.0f;
    dy[2] = float(0x1p-23 / 3 - 0x1p-38);
    const Buffers b = grad_buffers(d, x, dy, {3.0f}, {0.75f}, {1.0f});
    const Operator op{OperatorType::BATCH_NORMALIZATION_GRAD, d};
    check_op_threads(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    float scale = 0;
    std::memcpy(&scale, fast.bytes[6].data(), sizeof scale);
    CHECK(scale == -(3.0f + 0x1p-22f));
    if (reference::fast::batch_normalization_grad_pass_available())
        CHECK(reference::fast::batch_normalization_grad_pass_counts().plain == 1);
}

// Step G10's bound for the roundings of fl(X - Mean) (training_bounds' a priori term). One channel of 4,096
// elements, Mean m = 5 2^-15, Variance 2^80, Epsilon 0.25, Scale 1. 2,032 elements in 127 groups of sixteen steps'
// lanes: (dY 1, X 2^40 + 2^17) then (dY -2, X 2^39 + 2^16) in the same lane. fl(X - m) is X - 2^-12 and X - 2^-13
// (m is above half a spacing of the first and below it of the second), so each pair's float64 terms cancel exactly,
// while each pair's exact terms add m: C is 1,016 m more than the float64 sum, which the running part of the bound
// (its partial sums are exact) does not cover. Two more elements (dY 1 with X 2^23, and dY 1 with X = fl32(0.22 +
// 2m)) put C r near a FLOAT32 rounding boundary. Against the plain loop; the pass must leave the statistic.
TEST_CASE("Batch normalization training grad fast path: the roundings of X - Mean, by hand") {
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    const TG d = grad_desc<TG>(DataType::FLOAT32, {1, 1, 1, 4096}, {1, 1, 1, 1}, 0.25f);
    const float m = 5 * 0x1p-15f;
    std::vector<float> x(4096, 0.0f), dy(4096, 0.0f);
    for (size_t q = 0; q < 127; ++q)
        for (size_t l = 0; l < 16; ++l) {
            dy[32 * q + l] = 1.0f;
            x[32 * q + l] = 0x1p40f + 0x1p17f;
            dy[32 * q + 16 + l] = -2.0f;
            x[32 * q + 16 + l] = 0x1p39f + 0x1p16f;
        }
    dy[4064] = dy[4065] = 1.0f;
    x[4064] = 0x1p23f;
    x[4065] = float(0.22 + 2 * double(m));
    const Buffers b = grad_buffers(d, x, dy, {m}, {0x1p80f}, {1.0f});
    check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
    if (reference::fast::batch_normalization_grad_pass_available())
        CHECK(reference::fast::batch_normalization_grad_pass_counts().plain == 1);
}

// parallel_for_blocks (reference/fast/parallel.hpp), which spreads the statistics elements: every index once, and a
// thread held in its block's first index has the rest of its block taken by the others (it waits until one of
// them has, for at most 10 s: a schedule without that would fail here, not hang).
TEST_CASE("Batch normalization fast paths: parallel_for_blocks takes a held thread's block") {
#if defined(_OPENMP)
    int team = 1;
#pragma omp parallel num_threads(4)
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    if (team < 2) {  // OMP_THREAD_LIMIT=1 and the like: nobody could take the block
        MESSAGE("OpenMP gives one thread here: parallel_for_blocks runs a plain loop");
        return;
    }
#endif
    reference::set_fast_path_threads(4);
    std::array<std::atomic<int>, 64> calls{};
    std::atomic<bool> taken{false};
    std::atomic<int> owner{-1};
    reference::parallel_for_blocks(64, [&](int64_t i) {
        calls[size_t(i)].fetch_add(1);
#if defined(_OPENMP)
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        if (i == 0) {
            owner = t;
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!taken && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        } else if (i < 16 && owner >= 0 && t != owner) taken = true;
    });
    reference::set_fast_path_threads(0);
    for (size_t i = 0; i < calls.size(); ++i) CHECK(calls[i].load() == 1);
#if defined(_OPENMP)
    CHECK(taken.load());
#endif
}

// The forward's FLOAT32 first stage decides with one half-width W per chunk (the header's step F1). Three channels
// of 4096 elements (a chunk each), Epsilon 2^-48, Variance 3 and Scale 0.7 but in channel 1. Channel 0: random
// X, Mean 1/2, Bias 1/4: nearly all decided by the first stage. Channel 1: Variance 4, Scale 3 (sr~ = 1.5 (1 -
// 2^-51), as in the grad's test above), Mean and Bias 0, X = +-(2^23 + j) 2^k with j odd: y~ and V 2 to 4.5
// double ulps below a midpoint of FLOAT32, W (8u of the chunk's largest |t~|, at least 6 ulps of every y~) and
// each element's own w (8u |y~|) both reach past it: both stages must leave every element to the plain
// element. Channel 2: Mean 0, Bias -0, X of about 2^-20 beside one 2^10, with zeros, -0 and subnormals among
// them: W is several float spacings of the small elements' y~, so the first stage leaves them; the float64
// stage decides most (x = Mean: an exact +0).
TEST_CASE("Batch normalization fast path: FLOAT32's first stage, by hand") {
    std::mt19937_64 rng(2590);
    const std::vector<uint32_t> in = {1, 3, 64, 64}, stat = {1, 3, 1, 1};
    const Operator op = make_op(DataType::FLOAT32, {in, {stat, stat, stat, stat}}, {}, 0x1p-48f, std::nullopt);
    const BN& d = get<BN>(op.Desc);
    std::vector<float> x(3 * 4096);
    for (size_t i = 0; i < 4096; ++i) {
        x[i] = float(random_float(rng, -3, 2));
        const double j = double(2 * (rng() % 1398101) + 1);
        const int k = int(rng() % 61) - 30 - 23;
        x[4096 + i] = float(std::ldexp(rng() % 2 ? 0x1p23 + j : -(0x1p23 + j), k));
        const uint64_t kind = rng() % 16;
        x[8192 + i] = i == 0      ? 0x1p10f
                      : kind == 0 ? (rng() % 2 ? 0.0f : -0.0f)
                      : kind == 1 ? float(std::ldexp(double(int64_t(rng() % 64) - 32), -149))
                                  : float(random_float(rng, -21, -20));
    }
    Buffers b;
    b.names = {"InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor", "OutputTensor"};
    b.bytes = {buffer(d.InputTensor, x),
               buffer(d.MeanTensor, std::vector<float>{0.5f, 0.0f, 0.0f}),
               buffer(d.VarianceTensor, std::vector<float>{3.0f, 4.0f, 3.0f}),
               buffer(d.ScaleTensor, std::vector<float>{0.7f, 3.0f, 0.7f}),
               buffer(d.BiasTensor, std::vector<float>{0.25f, 0.0f, -0.0f}),
               std::vector<std::byte>(buffer_size(d.OutputTensor), std::byte{0x5a})};
    check_op_threads(op, b);
    const Counted c = counted(reference::fast::batch_normalization_counts());
    MESSAGE("first stage " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
    CHECK(c.plain >= 4096);         // channel 1, every element
    CHECK(c.single >= 4000);        // channel 0
    CHECK(c.single <= 4096 + 100);  // channel 2 left to the float64 stage
    CHECK(c.twofold >= 3500);       // which decides most of it
}

// The FLOAT16 forward's float32 stage with one half-width W per chunk first (the header's step H7), then each
// element's own w on the blocks it leaves, then the float64 stage. Epsilon 0, Variance 1. Channel 0: X of about
// 2^-11 beside one 1024 (Scale 3/2, Mean and Bias 0): W is far above the small elements' FLOAT16 spacing, their
// own w far below it: the chunk's stage leaves them, the element's decides them. Channel 1: X in [1, 2), Bias
// -3/2, Scale 1, Mean 0: y = X - 3/2 exactly, near 0 for some; where |y| is far below |t| the float32 stages
// leave it and the float64 stage decides it. Channel 2: hard X with infinities and NaN (no chunk stage).
TEST_CASE("Batch normalization fast path: FLOAT16's chunk stage, by hand") {
    const WidthSubcases widths;
    std::mt19937_64 rng(2595);
    const std::vector<uint32_t> in = {1, 3, 64, 64}, stat = {1, 3, 1, 1};
    const Operator op = make_op(DataType::FLOAT16, {in, {stat, stat, stat, stat}}, {}, 0.0f, std::nullopt);
    const BN& d = get<BN>(op.Desc);
    const Buffers b = forward_half_buffers(d, [&](const std::string& name, int c, size_t i) {
        if (name == "InputTensor") {
            if (c == 0) return i == 5 ? value_of<half>(1024.0) : random_half(rng, -12, -11);
            if (c == 1) return value_of<half>(std::fabs(widen(random_half(rng, 0, 0))));
            return hard_half(rng, true);
        }
        if (name == "VarianceTensor") return value_of<half>(1.0);
        if (name == "ScaleTensor") return value_of<half>(c == 0 ? 1.5 : 1.0);
        if (name == "BiasTensor") return value_of<half>(c == 1 ? -1.5 : 0.0);
        return value_of<half>(0.0);
    });
    check_op_threads(op, b);
    const Counted c = counted(reference::fast::batch_normalization_counts());
    MESSAGE("float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
    if (!reference::fast::have_f16c()) return;
    CHECK(c.single >= 4096 + 3000);  // channel 0 and most of channel 1
    CHECK(c.twofold > 0);            // channel 1's elements near 0
}

// The FLOAT16 forward's float32 stage with each element's own w, sixteen at a time (the header's step H8, machines
// with AVX-512), on runs of 1005 elements (62 blocks of sixteen, one of eight, five left), Epsilon 0 and Variance
// 1 or 4 (r exact). Channel 0: Mean 0, Scale -2^-13, Bias -0 or +0, X = k 2^-13 with k from -64 to 64: V = -k
// 2^-26 is 0 (X = 0: t = -0 and y = -0 with Bias -0, where the plain loop gives +0), a FLOAT16 subnormal, a
// midpoint between two (k = 2 mod 4; k = 2 rounds to -0) or rounds to -0 (k = 1): the float32 stage must leave
// the zeros and the midpoints.
// Channel 1: Variance 4, Scale 3, Bias -0: V = 1.5 X on multiples of 2^-10, a FLOAT16 midpoint wherever 3k is odd
// and |V| >= 1, and -0 never (V = 0 only for X = +-0). Channel 2: hard X with infinities and NaN, Scale -1, Bias
// -0.
TEST_CASE("Batch normalization fast path: FLOAT16's sixteen-lane stage, by hand") {
    const WidthSubcases widths;
    std::mt19937_64 rng(2605);
    const std::vector<uint32_t> in = {1, 3, 5, 201}, stat = {1, 3, 1, 1};
    for (const double bias0 : {-0.0, 0.0}) {
        const Operator op = make_op(DataType::FLOAT16, {in, {stat, stat, stat, stat}}, {}, 0.0f, std::nullopt);
        const BN& d = get<BN>(op.Desc);
        const Buffers b = forward_half_buffers(d, [&](const std::string& name, int c, size_t) {
            if (name == "InputTensor") {
                if (c == 0) return value_of<half>(std::ldexp(double(int64_t(rng() % 129) - 64), -13));
                if (c == 1) return value_of<half>(std::ldexp(double(int64_t(rng() % 4096) - 2048), -10));
                return hard_half(rng, true);
            }
            if (name == "MeanTensor") return value_of<half>(0.0);
            if (name == "VarianceTensor") return value_of<half>(c == 1 ? 4.0 : 1.0);
            if (name == "ScaleTensor") return value_of<half>(c == 0 ? -0x1p-13 : c == 1 ? 3.0 : -1.0);
            return value_of<half>(c == 0 ? bias0 : -0.0);
        });
        INFO("Bias of channel 0: " << bias0);
        check_op_threads(op, b);
        const Counted c = counted(reference::fast::batch_normalization_counts());
        MESSAGE("float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
        if (!reference::fast::have_f16c()) continue;
        CHECK(c.single > 1005);  // most of channels 0 and 1
        CHECK(c.plain > 0);      // the ties
    }
}

// The FLOAT16 training grad's chunk stage (the header's step H7), as the FLOAT32 test above: channel 0 random;
// channel 1 dY of about 2^-12 beside one pair +-1024 (at one X, so that sum dY and sum dY X do not see it): W is
// far above the small elements' FLOAT16 spacing, their own w far below it, so the chunk's stage leaves them and
// each element's own w decides them; channel 2 hard finite values. Element for element against the plain loop.
TEST_CASE("Batch normalization training grad fast path: FLOAT16's chunk stage, by hand") {
    const WidthSubcases widths;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2596);
    const TG d = grad_half_desc<TG>({1, 3, 64, 64}, {1, 3, 1, 1}, 1e-5f);
    const Buffers b = grad_half_buffers(d, [&](const std::string& name, int c, size_t i) {
        if (name == "InputTensor") {
            if (c == 1 && i < 2) return value_of<half>(1.0);
            return c == 2 ? hard_half(rng, false) : random_half(rng, -3, 2);
        }
        if (name == "InputGradientTensor") {
            if (c == 1) return i < 2 ? value_of<half>(i ? -1024.0 : 1024.0) : random_half(rng, -13, -12);
            return c == 2 ? hard_half(rng, false) : random_half(rng, -3, 2);
        }
        if (name == "VarianceTensor") return value_of<half>(std::fabs(widen(random_half(rng, -1, 1))));
        return random_half(rng, -2, 1);
    });
    check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
    const Counted c = counted(reference::fast::batch_normalization_grad_counts());
    MESSAGE("float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
    if (!reference::fast::have_f16c()) return;
    CHECK(c.single >= 2 * 4096 - 100);  // channels 0 and 1
}

// The training grad's FLOAT32 first stage decides with one half-width W per chunk (the header's step G5).
// Three channels of 4096 elements (a chunk each), Variance 4, Scale 3, Epsilon 2^-48. Channel 0: random dY
// and X, nearly all decided by the first stage. Channel 1: X = Mean (so c~ = 0) and dY in pairs +-dY (sum dY
// = 0, a~ = 0): z = fl(sr~ dY), the grad's midpoint test above with dY in [1, 4/3), 2 to 4.5 double ulps
// below a midpoint of V (and V below it), and W about 8 ulps, each element's own w 4 to 8: both stages must
// leave every element to the plain element. Channel 2: dY of about 2^-20 and one pair +-2^10 (at one X):
// W is several float spacings of the small elements' z, their own w far less, so the first stage leaves
// them and the float64 stage decides them.
TEST_CASE("Batch normalization training grad fast path: FLOAT32's first stage, by hand") {
    // Four lanes: step G5. Eight: step G10 where the machine has AVX-512 (G7 with the exact sums forced, the loop's
    // second turn), G7 or G5 elsewhere.
    const LaneSubcases lanes;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2580);
    TG d;
    d.InputTensor = d.InputGradientTensor = d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 3, 64, 64});
    d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor = d.OutputBiasGradientTensor = desc(
        DataType::FLOAT32, {1, 3, 1, 1});
    d.Epsilon = 0x1p-48f;
    std::vector<float> x(3 * 4096), dy(3 * 4096);
    for (size_t i = 0; i < 4096; ++i) {
        x[i] = float(random_float(rng, -3, 2));
        dy[i] = float(random_float(rng, -3, 2));
        x[4096 + i] = 0.25f;
        dy[4096 + i] = i % 2 ? -dy[4096 + i - 1] : float(std::ldexp(0x1p23 + double(2 * (rng() % 1398101) + 1), -23));
        x[8192 + i] = i < 2 ? 1.0f : float(random_float(rng, -3, 2));
        dy[8192 + i] = i < 2 ? (i ? -0x1p10f : 0x1p10f) : float(random_float(rng, -21, -20));
    }
    const Buffers b = grad_buffers(d, x, dy, {0.5f, 0.25f, 0.5f}, {4.0f, 4.0f, 4.0f}, {3.0f, 3.0f, 3.0f});
    for (const bool exact : {false, true}) {
        INFO((exact ? "exact sums" : "step G10 where it runs"));
        reference::fast::batch_normalization_grad_exact_sums(exact);
        check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
        const Counted c = counted(reference::fast::batch_normalization_grad_counts());
        MESSAGE("first stage " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
        CHECK(c.plain >= 4096);         // channel 1, every element
        CHECK(c.single >= 4000);        // channel 0
        CHECK(c.single <= 4096 + 100);  // channel 2 left to the float64 stage
        CHECK(c.twofold >= 3900);       // which decides it
    }
    reference::fast::batch_normalization_grad_exact_sums(false);
}

// The training forward, Epsilon 0: channel 0 random, channel 1 X = +-2 in turn (mean 0, variance 4),
// Scale 1/2 and Bias 1024 (V = 1024 +- 1/2: ties), channel 2 hard finite X; with and without a FusedAdd
// (0 on channel 1, hard values with NaN and infinities on channel 2). Then Epsilon 2^20 with Scale 2^-24.
// Runs of 4094 elements: the last six of each take the float64 stage whatever the float32 stage decides (on
// this random channel step H9 may leave none).
TEST_CASE("Batch normalization training fast path: FLOAT16 stages") {
    const WidthSubcases widths;
    std::mt19937_64 rng(2540);
    const std::vector<uint32_t> in = {1, 3, 46, 89}, stat = {1, 3, 1, 1};
    for (const int variant : {0, 1, 2}) {
        const bool fused = variant == 1;
        TRAINING d;
        d.InputTensor = d.OutputTensor = desc(DataType::FLOAT16, in);
        d.ScaleTensor = d.BiasTensor = d.OutputMeanTensor = d.OutputVarianceTensor = desc(DataType::FLOAT16, stat);
        if (fused) d.FusedAddTensor = desc(DataType::FLOAT16, in);
        d.Epsilon = variant == 2 ? 0x1p20f : 0.0f;
        std::vector<std::pair<std::string, const TensorDesc*>> inputs = {
            {"InputTensor", &d.InputTensor}, {"ScaleTensor", &d.ScaleTensor}, {"BiasTensor", &d.BiasTensor}};
        if (fused) inputs.emplace_back("FusedAddTensor", &*d.FusedAddTensor);
        const Buffers b = half_buffers(inputs,
                                       {{"OutputTensor", &d.OutputTensor},
                                        {"OutputMeanTensor", &d.OutputMeanTensor},
                                        {"OutputVarianceTensor", &d.OutputVarianceTensor}},
                                       [&](const std::string& name, int c, size_t i) {
            if (variant == 2 && name == "ScaleTensor") return value_of<half>(0x1p-24);
            if (c == 1) {
                if (name == "InputTensor") return value_of<half>(i % 2 ? 2.0 : -2.0);
                return value_of<half>(name == "ScaleTensor" ? 0.5 : name == "BiasTensor" ? 1024.0 : 0.0);
            }
            if (c == 2 && (name == "InputTensor" || name == "FusedAddTensor"))
                return hard_half(rng, name == "FusedAddTensor");
            return random_half(rng, -3, 2);
        });
        INFO("variant " << variant);
        check_op({OperatorType::BATCH_NORMALIZATION_TRAINING, d}, b);
        const Counted c = counted(reference::fast::batch_normalization_training_counts());
        if (variant == 2) CHECK(c.single == 0);
        else check_stages(c, fused ? "training with a FusedAdd" : "training");
    }
}

// FLOAT16 values whose float32 estimate is a FLOAT16 midpoint while V lies just below it: Variance 4, Scale 3 and
// Epsilon 2^-22 make P = 1.5 (1 + 2^-24)^(-1/2), 1.5 (1 - 2^-25) to within 2^-49, which rounds to S = 1.5 in
// float32 (1.5 - P is 3/8 of the float spacing below 1.5). The forward (Mean and Bias 0) and the training grad
// (X equal to Mean, so c = 0, and dY in pairs +-dY, so a = 0) then have t = z = 1.5 dY exactly, and with dY = +-(1024
// + j) 2^(k - 10), j odd below 341 and k from -14 to 4, that is a FLOAT16 midpoint, V 2^-25 of it below in magnitude. Every float32 stage (H7
// to H9) must leave every element: an interval that missed the float32 error would decide the midpoint's even
// neighbour, the wrong one for half of them. The float64 stage decides them all (V is 2^28 double ulps off).
// Element for element against the plain loop.
TEST_CASE("Batch normalization fast path: FLOAT16 midpoints the float32 stages must leave, by hand") {
    const WidthSubcases widths;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2620);
    const std::vector<uint32_t> in = {1, 3, 64, 64}, stat = {1, 3, 1, 1};
    auto midpoint_half = [&](bool negative) {
        const double j = double(2 * (rng() % 170) + 1);
        const int k = int(rng() % 19) - 14;  // 1.5 dY in FLOAT16's normal binade 2^k
        return value_of<half>(std::ldexp(negative ? -(1024 + j) : 1024 + j, k - 10));
    };
    auto check = [](const Counted& c, const char* what) {
        MESSAGE(std::string(what) << ": float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain "
                                  << c.plain);
        if (!reference::fast::have_f16c()) return;
        CHECK(c.single == 0);
        CHECK(c.plain == 0);
        CHECK(c.twofold == 3 * 4096);
    };
    {
        const Operator op = make_op(DataType::FLOAT16, {in, {stat, stat, stat, stat}}, {}, 0x1p-22f, std::nullopt);
        const BN& d = get<BN>(op.Desc);
        const Buffers b = forward_half_buffers(d, [&](const std::string& name, int, size_t) {
            if (name == "InputTensor") return midpoint_half(rng() % 2 != 0);
            return value_of<half>(name == "VarianceTensor" ? 4.0 : name == "ScaleTensor" ? 3.0 : 0.0);
        });
        check_op_threads(op, b);
        check(counted(reference::fast::batch_normalization_counts()), "forward");
    }
    {
        const TG d = grad_half_desc<TG>(in, stat, 0x1p-22f);
        half previous = value_of<half>(0.0);
        const Buffers b = grad_half_buffers(d, [&](const std::string& name, int, size_t i) {
            if (name == "InputGradientTensor") {
                previous = i % 2 ? value_of<half>(-widen(previous)) : midpoint_half(rng() % 2 != 0);
                return previous;
            }
            if (name == "InputTensor" || name == "MeanTensor") return value_of<half>(0.25);
            return value_of<half>(name == "VarianceTensor" ? 4.0 : 3.0);
        });
        check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
        check(counted(reference::fast::batch_normalization_grad_counts()), "training grad");
    }
}

// The forward's step H10 with the Mean folded into the run's [bl, bh]: Variance 4 and Epsilon 2^-51 make D~ =
// RN53(4 + 2^-51) = 4 (a tie, to even), so sr~ = 3 / 2 = 1.5 exactly for Scale 3 while P = 3 (4 + 2^-51)^(-1/2) =
// 1.5 (1 - 2^-54 + ...) lies below it. With X = +-0 and Bias 0, V = -P m for the channel's Mean m = +-(1024 + j)
// 2^(k - 10), j odd below 341, k from -14 to 4: 1.5 |m| = (3072 + 3j) 2^(k - 11) is a FLOAT16 midpoint and V lies
// 2^-54 of it below in magnitude, while c = fl64(sr~ m) is the midpoint exactly. Only the margin |c| 2^-50 around b
// - c keeps [bl, bh] off the midpoint: without it every element would be decided, to the even neighbour, wrong for
// about half of the 63 channels. Every float32 stage must leave every element, and so must the float64 stage (its
// y~ is the midpoint). Element for element against the plain loop.
TEST_CASE("Batch normalization fast path: FLOAT16 Mean on a midpoint that only the exact P moves, by hand") {
    const WidthSubcases widths;
    std::mt19937_64 rng(2621);
    const std::vector<uint32_t> stat = {1, 63, 1, 1};
    const Shape s{{1, 63, 1, 32}, {stat, stat, stat, stat}};
    const Operator op = make_op(DataType::FLOAT16, s, {}, 0x1p-51f, std::nullopt);
    const Buffers b = forward_half_buffers(get<BN>(op.Desc), [&](const std::string& name, int, size_t) {
        if (name == "MeanTensor") {
            const double j = double(2 * (rng() % 170) + 1);
            const int k = int(rng() % 19) - 14;
            return value_of<half>(std::ldexp(rng() % 2 ? -(1024 + j) : 1024 + j, k - 10));
        }
        if (name == "InputTensor") return value_of<half>(rng() % 2 ? -0.0 : 0.0);
        return value_of<half>(name == "VarianceTensor" ? 4.0 : name == "ScaleTensor" ? 3.0 : 0.0);
    });
    check_op_threads(op, b);
    const Counted c = counted(reference::fast::batch_normalization_counts());
    MESSAGE("float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
    CHECK(c.single == 0);
    CHECK(c.plain == 63 * 32);
}

// The training grad's step H10 where only the rounding of c32 and of xm = fl(x - m32), the bound's |xm| C2 term,
// moves V across a FLOAT16 midpoint: Variance 4, Scale 2, Epsilon 0 (P = S = 1 exactly), Mean -3 2^-20, 2560
// elements a channel: (dY, X) = (1, 1281/1024) and (-1, 0), so sum dY = 0 (a = 0, Ka = 0) and sum dY (X - Mean) =
// 1281/1024, c = 1281 / (1024 4 2560), which float32 rounds by 0.8 2^-24 of it; then pairs (d, X) and (-d, X), which
// add nothing to either sum, from 32 (d, X) found by an exhaustive search in exact rationals over X of magnitude 2^-5
// to 2^2 and d below 2^-8: for each, fl(d - xm c32) and V = d - (X - Mean) c lie on two sides of a FLOAT16
// midpoint, more than a float spacing apart, while |d| C1 is far below a float spacing: a bound without the |xm|
// term would decide the wrong neighbour. Element for element against the plain loop.
TEST_CASE("Batch normalization training grad fast path: FLOAT16 c and X - Mean roundings across midpoints") {
    const WidthSubcases widths;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    static const uint16_t kPlanted[32][2] = {
        {0x8d09, 0xe3ad}, {0x9d04, 0xe810}, {0x2312, 0xe240}, {0x020a, 0xdb4e}, {0x2043, 0xeb08}, {0x8a78, 0xea8b},
        {0x85d9, 0xd5fa}, {0x0c19, 0xde86}, {0x128e, 0xea1d}, {0x8bbc, 0xe2d6}, {0x0d31, 0xdd96}, {0x1622, 0xead6},
        {0x0b15, 0xdf17}, {0x8db6, 0xe6c7}, {0x121a, 0xeb3f}, {0x127e, 0xea45}, {0x1334, 0xe178}, {0x1a8b, 0xe1c8},
        {0x9be9, 0xea9a}, {0xa1bc, 0xe640}, {0x917a, 0xea31}, {0x8edf, 0xde36}, {0x92d1, 0xe1aa}, {0x91ba, 0xead1},
        {0x81d3, 0xd5be}, {0x0b51, 0xddeb}, {0x1565, 0xe987}, {0x1717, 0xe69a}, {0x02f5, 0xdbb7}, {0x820e, 0xdbc6},
        {0x9bed, 0xeac2}, {0x8dd2, 0xddb4}};
    const TG d = grad_half_desc<TG>({1, 3, 1, 2560}, {1, 3, 1, 1}, 0.0f);
    const Buffers b = grad_half_buffers(d, [&](const std::string& name, int, size_t i) {
        const bool dy = name == "InputGradientTensor";
        if (dy || name == "InputTensor") {
            if (i < 2) return value_of<half>(dy ? (i == 0 ? 1.0 : -1.0) : (i == 0 ? 1281.0 / 1024 : 0.0));
            const uint16_t* planted = kPlanted[((i - 2) / 2) % 32];
            const half v = from_bits<half>(planted[dy ? 0 : 1]);
            return dy && i % 2 ? value_of<half>(-widen(v)) : v;
        }
        if (name == "MeanTensor") return value_of<half>(-3 * 0x1p-20);
        return value_of<half>(name == "VarianceTensor" ? 4.0 : 2.0);
    });
    check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
    const Counted c = counted(reference::fast::batch_normalization_grad_counts());
    MESSAGE("float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
}

// The exact sums' float32 split (the header's step S6, machines with AVX-512; S4 elsewhere): 4133 elements a
// channel (chunks of 4096 and 37, the last 5 padded), Mean 0, Variance 1, Scale 1, Epsilon 0 (r = 1), so the
// grads' OutputScaleGradient is sum dY X rounded once. The products 1 1 and 2^-5 2^-6 sum to 1 + 2^-11, the
// FLOAT16 midpoint between 1 and 1 + 2^-10 (a tie: to even, 1), and one product +-2^-24 2^-24 decides it: channel
// 0 - (in the first chunk: 1), channel 1 + (in the second chunk's padded tail: 1 + 2^-10), channel 2 + with the
// pair (+-16, 16.015625) beside it, whose products of magnitude above 2^8 send that chunk back to S4 (1 + 2^-10).
// Every other dY is 0 (X random, products 0). By hand, and element for element against the plain loop.
TEST_CASE_TEMPLATE("Batch normalization grads fast path: FLOAT16 sums, a tie that 2^-48 decides", D,
                   DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC) {
    std::mt19937_64 rng(2622);
    const D d = grad_half_desc<D>({1, 3, 1, 4133}, {1, 3, 1, 1}, 0.0f);
    const Buffers b = grad_half_buffers(d, [&](const std::string& name, int c, size_t i) {
        const bool dy = name == "InputGradientTensor";
        if (dy || name == "InputTensor") {
            if (i == 0) return value_of<half>(1.0);
            if (i == 1) return value_of<half>(dy ? 0x1p-5 : 0x1p-6);
            if (i == (c == 1 ? 4130u : 100u)) return value_of<half>(dy && c == 0 ? -0x1p-24 : 0x1p-24);
            if (c == 2 && (i == 200 || i == 201)) return value_of<half>(dy ? (i == 200 ? 16.0 : -16.0) : 16.015625);
            return dy ? value_of<half>(0.0) : random_half(rng, -3, 0);
        }
        return value_of<half>(name == "MeanTensor" ? 0.0 : 1.0);
    });
    const Operator op{std::is_same_v<D, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>
                          ? OperatorType::BATCH_NORMALIZATION_GRAD
                          : OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD,
                      d};
    check_op_threads(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    for (size_t k = 0; k < fast.names.size(); ++k)
        if (fast.names[k] == "OutputScaleGradientTensor") {
            std::array<half, 3> g;
            std::memcpy(static_cast<void*>(g.data()), fast.bytes[k].data(), sizeof(g));
            CHECK(widen(g[0]) == 1.0);
            CHECK(widen(g[1]) == 1 + 0x1p-10);
            CHECK(widen(g[2]) == 1 + 0x1p-10);
        }
}

// The training grad's step H8 (and H7, forced) on runs of 1005 elements (62 blocks of sixteen, one of eight, five
// left), Epsilon 0: channel 0 random, channel 1 hard finite dY and X (subnormals, zeros of both signs, the largest
// values), channel 2 dY of about 2^-12 beside one pair +-1024 at one X (the chunk's W far above the small
// elements' spacing). Element for element against the plain loop.
TEST_CASE("Batch normalization training grad fast path: FLOAT16's sixteen-lane stage, by hand") {
    const WidthSubcases widths;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2615);
    const TG d = grad_half_desc<TG>({1, 3, 5, 201}, {1, 3, 1, 1}, 0.0f);
    const Buffers b = grad_half_buffers(d, [&](const std::string& name, int c, size_t i) {
        if (name == "InputTensor" || name == "InputGradientTensor") {
            if (c == 1) return hard_half(rng, false);
            if (c == 2) {
                if (name == "InputTensor") return i < 2 ? value_of<half>(0.5) : random_half(rng, -3, 2);
                return i < 2 ? value_of<half>(i == 0 ? 1024.0 : -1024.0) : random_half(rng, -13, -12);
            }
            return random_half(rng, -3, 2);
        }
        if (name == "VarianceTensor") return value_of<half>(std::fabs(widen(random_half(rng, -1, 1))));
        return random_half(rng, -2, 1);
    });
    check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
    const Counted c = counted(reference::fast::batch_normalization_grad_counts());
    MESSAGE("float32 stages " << c.single << ", float64 stage " << c.twofold << ", plain " << c.plain);
    if (reference::fast::have_f16c()) CHECK(c.single > 1005);
}

// Step T6's constants against rationals (GMP's rounding, as step T2): random channels of 1 to 3000 FLOAT16 values
// (wide and narrow ranges, constant ones), and the planted midpoints of the test below; ok must hold for most.
TEST_CASE("Batch normalization training fast path: FLOAT16 constants from integers = rationals") {
    std::mt19937_64 rng(2635);
    int ok = 0, trials = 0;
    auto check = [&](const std::vector<half>& xs, double scale, float epsilon) {
        mpq_class S = 0, Q = 0;
        for (const half x : xs) {
            const mpq_class v = reference::exact_value(x);
            S += v;
            Q += v * v;
        }
        const uint64_t M = xs.size();
        const mpq_class Mq{mpz_class(static_cast<unsigned long>(M))};
        const mpq_class mean = S / Mq, var = (Q * Mq - S * S) / (Mq * Mq), D = var + mpq_class(double(epsilon));
        const auto c = reference::fast::batch_normalization_half_training_constants(S, Q, M, scale, epsilon);
        ++trials;
        if (!c.ok) return;
        ++ok;
        INFO("M " << M << ", Epsilon " << epsilon);
        CHECK(same_bits(c.mu, reference::round_rational<double>(mean)));
        CHECK(same_bits(c.mu32, reference::round_rational<float>(mean)));
        CHECK(same_bits(c.mean, reference::round_rational<half>(mean)));
        CHECK(same_bits(c.variance, reference::round_rational<half>(var)));
        REQUIRE(sgn(D) > 0);
        CHECK(same_bits(c.sr, scale * (1.0 / std::sqrt(reference::round_rational<double>(D)))));
    };
    for (int t = 0; t < 600; ++t) {
        const size_t M = 1 + rng() % (t % 3 == 0 ? 3000 : 40);
        const int lo = -24 + int(rng() % 30), hi = lo + int(rng() % 8);
        std::vector<half> xs(M);
        for (half& x : xs) x = t % 7 == 0 ? value_of<half>(0.75) : random_half(rng, lo, std::min(hi, 15));
        const float epsilon = std::array<float, 4>{0.0f, 1e-5f, 0x1p-140f, 3.0f}[size_t(t % 4)];
        check(xs, widen(random_half(rng, -2, 1)), epsilon);
    }
    CHECK(ok > 400);
    // Planted: the variance 1/4 - 2^-14 (a FLOAT16 midpoint), the mean 1 + 2^-24 (a FLOAT32 midpoint): left.
    std::vector<half> xs(16384);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = value_of<half>(i % 128 < 65 ? 1.0 : 0.0);
    const int before = ok;
    check(xs, 1.0, 1e-5f);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = value_of<half>(i == 77 ? 1.0 + 0x1p-10 : 1.0);
    check(xs, 1.0, 1e-5f);
    CHECK(ok == before);
}

// The FLOAT16 training's constants from integers (the header's step T6), channels of M = 16384 elements, against
// the plain loop (OutputTensor, OutputMean and OutputVariance). Variant 0: channel 0 random; channel 1 8320 ones and
// 8064 zeros, mean 65/128 and variance 1/4 - 2^-14, a FLOAT16 midpoint (T2's rationals take it); channel 2 X = 1
// but one 1 + 2^-10: the mean 1 + 2^-24, a FLOAT32 midpoint. Variant 1: channel 0 constant (variance 0: with
// Epsilon 0, D = 0), channel 1 +-65504 alternating (the variance overflows FLOAT16), channel 2 hard finite X.
// Each with Epsilon 0, 1e-5, 2^-140 (a FLOAT32 subnormal: T6's integers too wide) and 2^20.
TEST_CASE("Batch normalization training fast path: FLOAT16 constants from integers") {
    std::mt19937_64 rng(2625);
    const std::vector<uint32_t> in = {1, 3, 128, 128}, stat = {1, 3, 1, 1};
    for (const int variant : {0, 1})
        for (const float epsilon : {0.0f, 1e-5f, 0x1p-140f, 0x1p20f}) {
            TRAINING d;
            d.InputTensor = d.OutputTensor = desc(DataType::FLOAT16, in);
            d.ScaleTensor = d.BiasTensor = d.OutputMeanTensor = d.OutputVarianceTensor = desc(DataType::FLOAT16, stat);
            d.Epsilon = epsilon;
            const Buffers b = half_buffers(
                {{"InputTensor", &d.InputTensor}, {"ScaleTensor", &d.ScaleTensor}, {"BiasTensor", &d.BiasTensor}},
                {{"OutputTensor", &d.OutputTensor},
                 {"OutputMeanTensor", &d.OutputMeanTensor},
                 {"OutputVarianceTensor", &d.OutputVarianceTensor}},
                [&](const std::string& name, int c, size_t i) {
                if (name != "InputTensor") return random_half(rng, -2, 1);
                if (variant == 0) {
                    if (c == 0) return random_half(rng, -3, 2);
                    if (c == 1) return value_of<half>(i % 128 < 65 ? 1.0 : 0.0);
                    return value_of<half>(i == 77 ? 1.0 + 0x1p-10 : 1.0);
                }
                if (c == 0) return value_of<half>(0.75);
                if (c == 1) return value_of<half>(i % 2 ? 65504.0 : -65504.0);
                return hard_half(rng, false);
                });
            INFO("variant " << variant << ", Epsilon " << epsilon);
            check_op_threads({OperatorType::BATCH_NORMALIZATION_TRAINING, d}, b);
        }
}

// The training grad, Epsilon 0: channel 0 random, channel 1 X = Mean = 1 and dY = +-k 2^-10 in pairs (a = c
// = 0: dX = dY Scale r, Variance 4, Scale 3: ties), channel 2 hard finite. Then c outside the float32
// stage's range: Variance 2^-24, X - Mean and dY positive near 2^10 and 2^11, so c is near 2^45.
TEST_CASE("Batch normalization training grad fast path: FLOAT16 stages") {
    const WidthSubcases widths;
    using TG = DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC;
    std::mt19937_64 rng(2550);
    const std::vector<uint32_t> in = {1, 3, 64, 64}, stat = {1, 3, 1, 1};
    for (const bool wide : {false, true}) {
        const TG d = grad_half_desc<TG>(in, stat, 0.0f);
        half pair{};
        const Buffers b = grad_half_buffers(d, [&](const std::string& name, int c, size_t i) {
            if (wide) {
                if (name == "VarianceTensor") return value_of<half>(0x1p-24);
                if (name == "MeanTensor") return value_of<half>(-1024.0);
                if (name == "InputTensor" || name == "InputGradientTensor")
                    return value_of<half>(std::fabs(widen(random_half(rng, 9, 10))));
                return random_half(rng, -2, 1);
            }
            if (c == 1) {
                if (name == "InputGradientTensor") {
                    if (i % 2 == 0) pair = value_of<half>(std::ldexp(double(1 + rng() % 2047), -10));
                    return i % 2 ? value_of<half>(-widen(pair)) : pair;
                }
                return value_of<half>(name == "VarianceTensor" ? 4.0 : name == "ScaleTensor" ? 3.0 : 1.0);
            }
            if (name == "InputTensor" || name == "InputGradientTensor")
                return c == 2 ? hard_half(rng, false) : random_half(rng, -3, 2);
            if (name == "VarianceTensor") return value_of<half>(std::fabs(widen(random_half(rng, -1, 1))));
            return random_half(rng, -2, 1);
        });
        INFO("wide " << wide);
        check_op({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, d}, b);
        const Counted c = counted(reference::fast::batch_normalization_grad_counts());
        if (wide) CHECK(c.single == 0);
        else check_stages(c, "training grad");
    }
}

// ---- The bound itself --------------------------------------------------------------------------

// The header's constants in exact rationals: theta < 6u ((1 + u)^8 < (1 + 6u)^2 (1 - u)^3, squared to
// avoid the root), step 6's 1 / (1 - u) and 6 / (1 - 6u) within (1 + 2^-49), and step 7's margin
// (1 - u)^4 (1 + 2^-40) >= 1 + 2^-41, with the conclusion it serves: (1 + 2^-41) 2 >= (1 + 2^-49) + 1.
TEST_CASE("Batch normalization fast path: the bound's constants, in exact rationals") {
    const mpq_class u(mpz_class(1), mpz_class(1) << 53), one(1);
    const mpq_class p49(mpz_class(1), mpz_class(1) << 49), p41(mpz_class(1), mpz_class(1) << 41),
        p40(mpz_class(1), mpz_class(1) << 40);
    auto pow = [](mpq_class b, int k) {
        mpq_class r(1);
        for (int i = 0; i < k; ++i) r *= b;
        return r;
    };
    CHECK(pow(one + u, 8) < pow(one + 6 * u, 2) * pow(one - u, 3));
    CHECK(one / (one - u) <= one + p49);
    CHECK(6 / (one - 6 * u) <= 6 * (one + p49));
    CHECK(pow(one - u, 4) * (one + p40) >= one + p41);
    // The training's w (step T4): six roundings at most for each term, A's with its margin 2^-39.
    CHECK(pow(one - u, 6) * (one + p40) >= one + p41);
    // The training grad's w (step G3): nine roundings; theta < 5u ((1 + u)^6 < (1 + 5u)^2 (1 - u)^3).
    const mpq_class p48(mpz_class(1), mpz_class(1) << 48);
    CHECK(pow(one - u, 9) * (one + p40) > one + p48);
    // |z|'s terms folded into 7 |g|: 5u (1 + 2^-50) |z| + u |z| <= 6u (1 + 2^-48) |sr~| |g| + ...
    CHECK(6 * (one + mpq_class(mpz_class(1), mpz_class(1) << 50)) * (one + u) <= 6 * (one + p48));
    CHECK(pow(one + u, 6) < pow(one + 5 * u, 2) * pow(one - u, 3));
    const mpq_class p39(mpz_class(1), mpz_class(1) << 39);
    CHECK((one + p39) * pow(one - u, 6) >= one + p40);
    CHECK((one + 5 * u) * (one + 2 * u) <= one + 8 * u);  // |eta|'s factor
    CHECK((one + p41) * 2 >= (one + p49) + 1);
    // C1 and C2 are doubles exactly.
    CHECK(mpq_class(6 * 0x1p-53 * (1 + 0x1p-40)) == 6 * u * (one + p40));
    CHECK(mpq_class(0x1p-52 * (1 + 0x1p-40)) == 2 * u * (one + p40));
    // The grad's first stage (step G4): C = 7u (1 + 2^-45) an exact double, and W (1 - u) >= (6u (1 + 2^-49) + u)
    // |y~| from W >= C (1 - u) |y~|.
    const mpq_class p45(mpz_class(1), mpz_class(1) << 45);
    CHECK(mpq_class(7 * 0x1p-53 * (1 + 0x1p-45)) == 7 * u * (one + p45));
    CHECK(7 * (one + p45) * pow(one - u, 2) >= 6 * (one + p49) + 1);
}

// Every estimate within its interval's half-width w of the exact value (MPFR at 600 bits: x - m and
// s (x - m) exact, the root and the quotient rounded far below 2^-53), over operands chosen so that
// every float64 operation rounds (Mean and Epsilon far below x and Variance) and, every other time,
// Bias cancels the product, so that w is nearly all 6u|t~|. The largest error seen must use more
// than half of w: a w half as large would fail.
TEST_CASE("Batch normalization fast path: the bound holds and is within a factor 2 of the errors seen") {
    std::mt19937_64 rng(2430);
    mpfr_t x, m, v, s, b, t, V, err;
    mpfr_inits2(600, x, m, v, s, b, t, V, err, (mpfr_ptr) nullptr);
    double worst = 0;
    int checked = 0;
    for (int i = 0; i < 200000; ++i) {
        const double xd = random_float(rng, -2, 2), md = random_float(rng, -45, -35),
                     vd = std::fabs(random_float(rng, -2, 2)), sd = random_float(rng, -2, 2);
        const float eps = float(std::fabs(random_float(rng, -45, -35)));
        const double approx = sd * (xd - md) / std::sqrt(vd + double(eps));
        const double bd = i % 2 ? double(-float(approx)) : random_float(rng, -2, 2);
        const auto est = reference::fast::batch_normalization_estimate(xd, md, vd, sd, bd, eps);
        mpfr_set_d(x, xd, MPFR_RNDN);
        mpfr_set_d(m, md, MPFR_RNDN);
        mpfr_set_d(v, vd, MPFR_RNDN);
        mpfr_set_d(s, sd, MPFR_RNDN);
        mpfr_set_d(b, bd, MPFR_RNDN);
        mpfr_sub(t, x, m, MPFR_RNDN);  // exact
        mpfr_mul(t, t, s, MPFR_RNDN);  // exact
        mpfr_set_d(V, double(eps), MPFR_RNDN);
        mpfr_add(V, V, v, MPFR_RNDN);  // exact
        mpfr_rec_sqrt(V, V, MPFR_RNDN);
        mpfr_mul(V, V, t, MPFR_RNDN);
        mpfr_add(V, V, b, MPFR_RNDN);
        mpfr_set_d(err, est.y, MPFR_RNDN);
        mpfr_sub(err, err, V, MPFR_RNDN);
        const double error = std::fabs(mpfr_get_d(err, MPFR_RNDU));
        INFO("x " << xd << " mean " << md << " variance " << vd << " scale " << sd << " bias " << bd << " epsilon "
                  << eps);
        REQUIRE(error <= est.w);
        worst = std::max(worst, error / est.w);
        ++checked;
    }
    mpfr_clears(x, m, v, s, b, t, V, err, (mpfr_ptr) nullptr);
    INFO("largest error / bound: " << worst << " over " << checked << " estimates");
    CHECK(worst > 0.5);
    CHECK(worst <= 1.0);
}

// The training estimates within w of the exact value, over batch means that float64 does not hold
// (three values: a third) and inputs next to the mean (x the float nearest it), so that mu~'s
// rounding, which the A term bounds, is most of the error; and Bias + FusedAdd rounded in float64.
// The largest error must again use more than half of w.
TEST_CASE("Batch normalization training fast path: the bound holds with the batch mean rounded") {
    std::mt19937_64 rng(2490);
    mpfr_t V, t, err;
    mpfr_inits2(800, V, t, err, (mpfr_ptr) nullptr);
    double worst = 0;
    for (int i = 0; i < 100000; ++i) {
        const double a = random_float(rng, -2, 2), b = random_float(rng, -2, 2), c = random_float(rng, -2, 2);
        const mpq_class mean = (mpq_class(a) + mpq_class(b) + mpq_class(c)) / 3;
        const mpq_class var = ((mpq_class(a) - mean) * (mpq_class(a) - mean) +
                               (mpq_class(b) - mean) * (mpq_class(b) - mean) +
                               (mpq_class(c) - mean) * (mpq_class(c) - mean)) /
                              3;
        const double x = i % 2 ? double(float(mean.get_d())) : random_float(rng, -2, 2);
        const double s = random_float(rng, -3, 3), bias = random_float(rng, -2, 2),
                     fa = i % 3 ? random_float(rng, -30, 2) : 0.0;
        const float eps = float(std::fabs(random_float(rng, -20, -5)));
        const auto est = reference::fast::batch_normalization_training_estimate(x, mean, var, s, bias, fa, eps);
        // V = s (x - mean) / sqrt(var + eps) + bias + fa at 800 bits (x - mean, var + eps exact).
        const mpq_class D = var + mpq_class(double(eps));
        mpfr_set_q(t, D.get_mpq_t(), MPFR_RNDN);
        mpfr_rec_sqrt(t, t, MPFR_RNDN);
        const mpq_class K = mpq_class(s) * (mpq_class(x) - mean);
        mpfr_set_q(V, K.get_mpq_t(), MPFR_RNDN);
        mpfr_mul(V, V, t, MPFR_RNDN);
        const mpq_class c0 = mpq_class(bias) + mpq_class(fa);
        mpfr_set_q(t, c0.get_mpq_t(), MPFR_RNDN);
        mpfr_add(V, V, t, MPFR_RNDN);
        mpfr_set_d(err, est.y, MPFR_RNDN);
        mpfr_sub(err, err, V, MPFR_RNDN);
        const double error = std::fabs(mpfr_get_d(err, MPFR_RNDU));
        INFO("values " << a << " " << b << " " << c << ", x " << x << ", scale " << s << ", bias " << bias
                       << ", fused add " << fa << ", epsilon " << eps);
        REQUIRE(error <= est.w);
        worst = std::max(worst, error / est.w);
    }
    mpfr_clears(V, t, err, (mpfr_ptr) nullptr);
    INFO("largest error / w: " << worst);
    CHECK(worst > 0.5);
    CHECK(worst <= 1.0);
}

// The largest |y - V| / w of a training grad estimate (est.y, est.w) over n random elements, each REQUIREd
// within w of the exact value V (MPFR at 800 bits): statistics of three elements whose sums make a~ and c~
// roundings (thirds); every other time a dY that nearly cancels a~ + (X - Mean) c~, so that the rounding
// terms dominate; and, where far_mean, a Mean far from X on every fourth (e1 and K0 large, t cancelling).
template <class Estimate> double training_grad_worst(uint64_t seed, int n, bool far_mean, Estimate&& estimate) {
    std::mt19937_64 rng(seed);
    mpfr_t V, t, err;
    mpfr_inits2(800, V, t, err, (mpfr_ptr) nullptr);
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        const double mean = far_mean && i % 4 == 3 ? random_float(rng, 20, 30) : random_float(rng, -2, 2);
        const double var = std::fabs(random_float(rng, -2, 2)), s = random_float(rng, -2, 2);
        const float eps = float(std::fabs(random_float(rng, -20, -5)));
        mpq_class sum_dy, sum_c;
        for (int j = 0; j < 3; ++j) {
            const double xj = random_float(rng, -2, 2), dyj = random_float(rng, -2, 2);
            sum_dy += mpq_class(dyj);
            sum_c += mpq_class(dyj) * (mpq_class(xj) - mpq_class(mean));
        }
        const double x = random_float(rng, -2, 2);
        const mpq_class D = mpq_class(var) + mpq_class(double(eps));
        const mpq_class a = sum_dy / 3, c = sum_c / (3 * D);
        const mpq_class near = a + (mpq_class(x) - mpq_class(mean)) * c;
        const double dy = i % 2 ? double(float(near.get_d())) : random_float(rng, -2, 2);
        const auto est = estimate(dy, x, mean, sum_dy, sum_c, 3, s, var, eps);
        const mpq_class K = mpq_class(s) * (mpq_class(dy) - near);
        mpfr_set_q(t, D.get_mpq_t(), MPFR_RNDN);
        mpfr_rec_sqrt(t, t, MPFR_RNDN);
        mpfr_set_q(V, K.get_mpq_t(), MPFR_RNDN);
        mpfr_mul(V, V, t, MPFR_RNDN);
        mpfr_set_d(err, est.y, MPFR_RNDN);
        mpfr_sub(err, err, V, MPFR_RNDN);
        const double error = std::fabs(mpfr_get_d(err, MPFR_RNDU));
        INFO("mean " << mean << ", variance " << var << ", scale " << s << ", x " << x << ", dy " << dy);
        REQUIRE(error <= est.w);
        worst = std::max(worst, error / est.w);
    }
    mpfr_clears(V, t, err, (mpfr_ptr) nullptr);
    return worst;
}

// The training grad's estimates (steps 3 to 8 of the grad) within w of the exact value. The largest
// error must use more than half of w (0.66 seen): a w half as large would fail.
TEST_CASE("Batch normalization training grad fast path: the bound holds") {
    const double worst = training_grad_worst(2520, 100000, false, [](auto... a) {
        return reference::fast::batch_normalization_training_grad_estimate(a...);
    });
    INFO("largest error / w: " << worst);
    CHECK(worst > 0.5);
}

// Step G7's z and W (two fused multiply-adds, the chunk's bounds those of the element) against the exact
// value, with a Mean far from X on every fourth element: |z - V| <= W.
TEST_CASE("Batch normalization training grad fast path: the fused bound holds") {
    const double worst = training_grad_worst(2521, 20000, true, [](auto... a) {
        return reference::fast::batch_normalization_training_grad_fused_estimate(a...);
    });
    MESSAGE("largest error / W: " << worst);
    CHECK(worst > 0.2);
}

// The float32 stage's constants (steps H1 to H4) in exact rationals, v = 2^-24.
TEST_CASE("Batch normalization fast paths: the float32 stage's constants, in exact rationals") {
    const mpq_class one(1), u(mpz_class(1), mpz_class(1) << 53), v(mpz_class(1), mpz_class(1) << 24);
    auto p = [](int k) { return mpq_class(mpz_class(1), mpz_class(1) << k); };
    auto pow = [](mpq_class b, int k) {
        mpq_class r(1);
        for (int i = 0; i < k; ++i) r *= b;
        return r;
    };
    // H1: sr~ within 4u of P ((1 + u)^2 / (1 - u)^(3/2) < 1 + 4u, squared), S within v (1 + 2^-26) |S|,
    // a32 and c32 within v (1 + 2^-27).
    CHECK(pow(one + u, 4) < pow(one + 4 * u, 2) * pow(one - u, 3));
    CHECK(4 * u * (one + v) / (one - 4 * u) < p(26) * v);
    CHECK(u * (one + v) <= p(27) * v);
    // H2: t's three terms, |P| <= (1 + v (1 + 2^-26)) |S|, and w's margins.
    CHECK(one + (one + v) + (one + p(26)) * pow(one + v, 2) <= 3 * (one + p(22)));
    CHECK(one + v * (one + p(26)) <= one + p(23));
    CHECK(4 * pow(one - v, 4) >= 3 * (one + p(22)));
    CHECK(4 * pow(one - v, 4) >= 2);
    CHECK(2 * pow(one - v, 3) * pow(one - u, 2) >= one + p(23));
    CHECK(pow(one - v, 3) * pow(one - u, 2) * p(125) >= p(150));
    // H4: q's three terms, |g - I|'s, |z - V|'s, and w's margins.
    CHECK(one + (one + v) + pow(one + v, 2) * (one + p(27)) <= 3 * (one + p(22)));
    CHECK(one + (one + p(26)) * (one + v) <= 2 * (one + p(24)));
    CHECK((one + p(22)) * (one + v * (one + p(26))) <= one + p(21));
    CHECK(2 * pow(one - v, 7) >= one + p(21));
    CHECK(4 * pow(one - v, 3) >= 3 * (one + p(24)));
    CHECK((one - v) * (one - v) * p(125) >= p(150));
    // The constants are floats exactly.
    CHECK(mpq_class(double(0x1p-22f)) == 4 * v);
    CHECK(mpq_class(double(0x1p-23f)) == 2 * v);
}

// FLOAT16's float32 estimates (steps H1 to H4) against MPFR at 800 bits: the float32 ends fl(y - w) and
// fl(y + w) hold the exact value, over random FLOAT16 operands; every other time Bias cancels most of
// the product (forward, training) or dY sits next to a~ + (X - Mean) c~ (training grad), so that the
// rounding errors are most of y's. The largest error must use more than a third of w: a w a third as
// large would fail. (Without F16C the stage does not run.)
TEST_CASE("Batch normalization fast paths: FLOAT16's float32 bound holds") {
    using dmlref::half;
    if (!reference::fast::have_f16c()) return;
    std::mt19937_64 rng(2560);
    mpfr_t V, t;
    mpfr_inits2(800, V, t, (mpfr_ptr) nullptr);
    double worst[3] = {};
    int estimates[3] = {};
    // V = K r + c with K and c exact rationals and r = (variance + epsilon)^(-1/2) >= 0.
    auto check = [&](int which, const reference::fast::BatchNormalizationEstimate& est, const mpq_class& K,
                     const mpq_class& D, const mpq_class& c) {
        if (std::isnan(est.w)) return;  // outside the stage's ranges
        mpfr_set_q(t, D.get_mpq_t(), MPFR_RNDN);
        mpfr_rec_sqrt(t, t, MPFR_RNDN);
        mpfr_set_q(V, K.get_mpq_t(), MPFR_RNDN);
        mpfr_mul(V, V, t, MPFR_RNDN);
        mpfr_set_q(t, c.get_mpq_t(), MPFR_RNDN);
        mpfr_add(V, V, t, MPFR_RNDN);
        const float lo = float(est.y) - float(est.w), hi = float(est.y) + float(est.w);
        REQUIRE(mpfr_cmp_d(V, double(lo)) >= 0);
        REQUIRE(mpfr_cmp_d(V, double(hi)) <= 0);
        mpfr_set_d(t, est.y, MPFR_RNDN);
        mpfr_sub(t, t, V, MPFR_RNDN);
        worst[which] = std::max(worst[which], std::fabs(mpfr_get_d(t, MPFR_RNDU)) / est.w);
        ++estimates[which];
    };
    for (int i = 0; i < 100000; ++i) {
        const half x = random_half(rng, -3, 3), m = random_half(rng, -3, 3), s = random_half(rng, -3, 3);
        const half v = value_of<half>(std::fabs(widen(random_half(rng, -4, 4))));
        const float eps = i % 3 ? 0.0f : float(std::fabs(widen(random_half(rng, -10, -2))));
        const mpq_class D = mpq_class(widen(v)) + mpq_class(double(eps));
        // The forward.
        const mpq_class K = mpq_class(widen(s)) * (mpq_class(widen(x)) - mpq_class(widen(m)));
        const double near = -(widen(s) * (widen(x) - widen(m)) / std::sqrt(widen(v) + double(eps)));
        const half b = i % 2 ? value_of<half>(near) : random_half(rng, -3, 3);
        INFO("x " << widen(x) << ", mean " << widen(m) << ", variance " << widen(v) << ", scale " << widen(s)
                  << ", bias " << widen(b) << ", epsilon " << eps);
        check(0, reference::fast::batch_normalization_half_estimate(x, m, v, s, b, eps), K, D, mpq_class(widen(b)));
        // The training: the mean and variance of three FLOAT16 values (a third: no float holds the mean).
        const half p = random_half(rng, -3, 3), q = random_half(rng, -3, 3), r = random_half(rng, -3, 3);
        const mpq_class mean = (mpq_class(widen(p)) + mpq_class(widen(q)) + mpq_class(widen(r))) / 3;
        auto square = [&](const half h) -> mpq_class {
            return (mpq_class(widen(h)) - mean) * (mpq_class(widen(h)) - mean);
        };
        const mpq_class var = (square(p) + square(q) + square(r)) / 3, Dt = var + mpq_class(double(eps));
        const half xt = i % 4 < 2 ? value_of<half>(mean.get_d()) : x;
        const mpq_class Kt = mpq_class(widen(s)) * (mpq_class(widen(xt)) - mean);
        const half f = random_half(rng, -12, 3);
        const half bt = i % 2 ? value_of<half>(-(Kt.get_d() / std::sqrt(Dt.get_d())) - widen(f)) : b;
        const bool fused = i % 3 == 1;
        check(1,
              reference::fast::batch_normalization_training_half_estimate(xt, mean, var, s, bt, fused ? &f : nullptr,
                                                                          eps),
              Kt, Dt, mpq_class(widen(bt)) + (fused ? mpq_class(widen(f)) : mpq_class(0)));
        // The training grad: sums of three elements.
        mpq_class sum_dy, sum_c;
        for (int j = 0; j < 3; ++j) {
            const half xj = random_half(rng, -3, 3), dyj = random_half(rng, -3, 3);
            sum_dy += mpq_class(widen(dyj));
            sum_c += mpq_class(widen(dyj)) * (mpq_class(widen(xj)) - mpq_class(widen(m)));
        }
        const mpq_class a = sum_dy / 3, c = sum_c / (3 * D);
        const mpq_class centre = a + (mpq_class(widen(x)) - mpq_class(widen(m))) * c;
        const half dy = i % 2 ? value_of<half>(centre.get_d()) : random_half(rng, -3, 3);
        check(2,
              reference::fast::batch_normalization_training_grad_half_estimate(dy, x, m, sum_dy, sum_c, 3, s, v, eps),
              mpq_class(widen(s)) * (mpq_class(widen(dy)) - centre), D, mpq_class(0));
    }
    mpfr_clears(V, t, (mpfr_ptr) nullptr);
    for (int k = 0; k < 3; ++k) {
        MESSAGE("estimate " << k << ": " << estimates[k] << " checked, largest error / w " << worst[k]);
        CHECK(estimates[k] > 50000);
        CHECK(worst[k] > 1.0 / 3);
        CHECK(worst[k] <= 1.0);
    }
}

// The grads' per-channel work by integers (reference/fast/batch_normalization_channel.cpp, steps C1 to C3) against
// GMP on the same values: totals of doubles and of shifted 128-bit integers, Mean times sum dY subtracted, the
// truncation to float64 (mpq_get_d's), and the training grad's a~ = RN(sum dY / M) and c~ = RN(sum_c / (M D)) (D =
// Variance + Epsilon) as the rationals round them. Random totals of float terms and products, then planted values:
// exact ties of float64 and values a unit of 2^-298 off them, exact cancellation, -0, the least terms (2^-149,
// 2^-298), non-multiples of 2^-298 and non-finite terms (refused), and Epsilon 0, subnormal, D <= 0, D infinite.
TEST_CASE("Batch normalization grads: per-channel constants from integers = rationals") {
    using reference::fast::ExactTotal;
    std::mt19937_64 rng(2711);
    const mpq_class unit(mpz_class(1), mpz_class(1) << 298);
    // a~ and c~ as the rationals give them (training_grad_constants' definition).
    auto expect = [](const mpq_class& sdy, const mpq_class& sc, uint64_t M, double variance, float epsilon) {
        const mpq_class Mq{mpz_class(static_cast<unsigned long>(M))};
        const mpq_class D = std::isfinite(variance) ? mpq_class(variance) + mpq_class(double(epsilon)) : mpq_class(0);
        return std::pair<double, double>{reference::round_rational<double>(sdy / Mq),
                                         sgn(D) > 0 ? reference::round_rational<double>(sc / (Mq * D)) : 0.0};
    };
    int exact = 0, trials = 0;
    auto check =
        [&](const ExactTotal& dy, const ExactTotal& c, uint64_t M, double variance, float epsilon, bool must = false) {
        const mpq_class sdy = dy.rational(), sc = c.rational();
        double a = -1, cc = -1;
        ++trials;
        INFO("sum dY " << sdy.get_d() << ", sum_c " << sc.get_d() << ", M " << M << ", variance " << variance
                       << ", Epsilon " << epsilon);
        const bool ok = reference::fast::training_grad_constants_exact(dy, c, M, variance, epsilon, a, cc);
        if (must) CHECK(ok);
        if (!ok) return;
        ++exact;
        const auto [ea, ec] = expect(sdy, sc, M, variance, epsilon);
        CHECK(same_bits(a, ea));
        CHECK(same_bits(cc, ec));
    };
    for (int t = 0; t < 3000; ++t) {
        ExactTotal dy, p;
        mpq_class sdy = 0, sp = 0;
        const int terms = 1 + int(rng() % 40), lo = -149 + int(rng() % 200), span = int(rng() % (t % 5 == 0 ? 60 : 8));
        for (int i = 0; i < terms; ++i) {
            const double d = random_float(rng, lo, std::min(127, lo + span)), x = random_float(rng, -3, 3);
            const double pr = t % 7 == 0 ? d * x : std::ldexp(double(int64_t(rng() >> 11)), lo - 20);  // exact
            REQUIRE(dy.add(d));
            REQUIRE(p.add(pr));
            sdy += mpq_class(d);
            sp += mpq_class(pr);
        }
        if (t % 3 == 0) {  // bins: 128-bit integers at any shift (into sum dY X: sum dY is multiplied by Mean)
            const reference::fast::wide_int v = (reference::fast::wide_int(int64_t(rng())) << 40) ^
                                                reference::fast::wide_int(rng() >> 3);
            const int shift = int(rng() % 400);
            p.add(v, shift);
            sp += reference::to_mpz(v) * unit * mpq_class(mpz_class(1) << shift);
        }
        REQUIRE(dy.rational() == sdy);
        REQUIRE(p.rational() == sp);
        CHECK(same_bits(dy.truncated(), mpq_get_d(sdy.get_mpq_t())));
        const double mean = t % 11 == 0 ? 0.0 : random_float(rng, -30, 30);
        ExactTotal c = p;
        REQUIRE(c.subtract_multiple(dy, mean));
        const mpq_class sc = sp - mpq_class(mean) * sdy;
        REQUIRE(c.rational() == sc);
        CHECK(same_bits(c.truncated(), mpq_get_d(sc.get_mpq_t())));
        const uint64_t M = 1 + rng() % (t % 2 ? 100000 : 3);
        const double variance = std::fabs(random_float(rng, -10, 10));
        const float epsilon = std::array<float, 4>{0.0f, 1e-5f, 1e-3f, 0.5f}[size_t(t % 4)];
        check(dy, c, M, variance, epsilon);
    }
    CHECK(exact > 2000);
    // Ties: sum dY = 3 (2^53 + 1) 2^-60 and M = 3 give a = (2^53 + 1) 2^-60, a float64 midpoint (to even: 2^-7);
    // a unit of 2^-298 more, up; 3 (2^53 + 3) 2^-60, to even up. sum_c likewise against M D = 3 (Variance 0.75 and
    // Epsilon 0.25).
    for (const int64_t odd : {1, 3})
        for (const int more : {0, 1, -1}) {
            ExactTotal t;
            t.add(3 * std::ldexp(1.0, -7));
            t.add(3.0 * double(odd) * std::ldexp(1.0, -60));
            if (more != 0) t.add(more * 0x1p-298);
            check(t, t, 3, 0.75, 0.25f, true);
            // By hand: doubles are 2^-59 apart there; 2^-7 is even, 2^-7 + 2^-59 odd, 2^-7 + 2^-58 even.
            const double down = 0x1p-7 + (odd == 1 ? 0.0 : 0x1p-59), up = down + 0x1p-59;
            const bool down_even = odd == 1;
            const double a = reference::fast::quotient_rn(t, 3, 0);
            CHECK(same_bits(a, more > 0 ? up : more < 0 ? down : down_even ? down : up));
        }
    {  // exact cancellation and -0: the totals are 0, a~ and c~ +0
        ExactTotal t;
        t.add(-0.0);
        t.add(0x1.fffffep100);
        t.add(-0x1.fffffep100);
        CHECK(t.zero());
        CHECK(same_bits(t.truncated(), 0.0));
        double a = 1, c = 1;
        REQUIRE(reference::fast::training_grad_constants_exact(t, t, 5, 1.0, 0.0f, a, c));
        CHECK(same_bits(a, 0.0));
        CHECK(same_bits(c, 0.0));
    }
    {  // the least terms, a FLOAT32 subnormal and a product of two; multiples of 2^-298 only, finite only
        ExactTotal t;
        CHECK(t.add(0x1p-149));
        CHECK(t.add(-0x1p-298));
        CHECK(same_bits(t.truncated(), 0x1p-149 - 0x1p-202));  // 2^149 - 1 units, truncated to 53 bits
        CHECK(t.rational() == mpq_class(0x1p-149) - mpq_class(0x1p-298));
        CHECK_FALSE(t.add(0x1p-299));
        CHECK_FALSE(t.add(3 * 0x1p-299));
        CHECK_FALSE(t.add(std::numeric_limits<double>::infinity()));
        CHECK_FALSE(t.add(std::nan("")));
        CHECK(t.rational() == mpq_class(0x1p-149) - mpq_class(0x1p-298));  // unchanged
        ExactTotal u = t;
        CHECK_FALSE(u.subtract_multiple(t, 0.5));  // 2^-299 would be needed
        CHECK_FALSE(u.subtract_multiple(t, std::numeric_limits<double>::infinity()));
        CHECK(u.subtract_multiple(t, -2.0));
        CHECK(u.rational() == 3 * t.rational());
    }
    {  // Epsilon and Variance at their edges: 0, subnormal (M D too wide: the rationals), D <= 0, D infinite
        ExactTotal t;
        t.add(1.5);
        t.add(0x1p-40);
        check(t, t, 7, 0.0, 0.0f, true);                                       // D = 0: c~ = 0
        check(t, t, 7, -0.5, 0.25f, true);                                     // D < 0: c~ = 0
        check(t, t, 7, -0.25, 0.25f, true);                                    // D = 0
        check(t, t, 7, std::numeric_limits<double>::infinity(), 0.25f, true);  // c~ = 0
        check(t, t, 7, 0.0, 0x1p-149f, true);                                  // D the least float
        check(t, t, 7, 0x1p100, 0.0f, true);
        double a, c;
        CHECK_FALSE(reference::fast::training_grad_constants_exact(t, t, 7, 1.0, 0x1p-149f, a, c));  // too wide
        CHECK_FALSE(reference::fast::training_grad_constants_exact(t, t, uint64_t(1) << 37, 0x1.fffffep0, 0x1p-40f, a,
                                                                   c));  // M n at least 2^64
    }
}

}  // namespace dmlref_test_fast_batch_normalization
