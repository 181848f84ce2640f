// ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_GELU and the parametric ones (ELU, CELU,
// SCALED_ELU, SOFTPLUS, PARAMETRIC_SOFTPLUS, SCALED_TANH, SWISH). Expected values are hand-derived
// (exact points, the limits at the infinities, the policies' zeros), Python's double formulas
// rounded by struct packing or mpmath at 300 bits rounded to FLOAT32 by hand (written out as bits),
// identities between the operators (CELU with Alpha 1 is ELU, SOFTPLUS is PARAMETRIC_SOFTPLUS with
// Alpha 1 and Beta Steepness scaled, SCALED_TANH with 1 and 1 is TANH), or independent
// computations: glibc's double tanh, expm1, log1p and exp in the page's formulas, rounded to
// FLOAT32, with every disagreement decided by MPFR at 2200 bits (the tests' own format emulation,
// test/mpfr_round.hpp). None comes from dmlref's evaluation.
#include "support.hpp"
#include "mpfr_round.hpp"

#include "dmlref/descs/activation_math.hpp"
#include "dmlref/diff.hpp"

#include <cmath>
#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_activation_math {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using SIGMOID = DML_ACTIVATION_SIGMOID_OPERATOR_DESC;
using TANH = DML_ACTIVATION_TANH_OPERATOR_DESC;
using GELU = DML_ACTIVATION_GELU_OPERATOR_DESC;

template <class D, class T> std::vector<T> act(DataType t, const std::vector<T>& x) {
    D d;
    d.InputTensor = d.OutputTensor = desc(t, {uint32_t(x.size())});
    return as_values<T>(run({D::kType, d}, {{"InputTensor", buffer(d.InputTensor, x)}}).at("OutputTensor"));
}

template <class D> std::vector<uint32_t> bits32(std::initializer_list<uint32_t> in) {
    std::vector<float> x;
    for (uint32_t b : in) x.push_back(from_bits<float>(b));
    std::vector<uint32_t> out;
    for (float v : act<D, float>(DataType::FLOAT32, x)) out.push_back(to_bits(v));
    return out;
}

using U32 = std::vector<uint32_t>;
constexpr uint32_t kNaN = 0x7fc00000, kInf = 0x7f800000, kNegInf = 0xff800000, kOne = 0x3f800000, kNegOne = 0xbf800000;
constexpr uint32_t kZero = 0, kNegZero = 0x80000000;

// The three functions in MPFR, independently of dmlref's (fused_activation.cpp's) evaluation.
void mpfr_sigmoid(mpfr_ptr r, mpfr_srcptr x) {
    mpfr_t e;
    mpfr_init2(e, mpfr_get_prec(r) + 64);
    mpfr_neg(e, x, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN);
    mpfr_add_ui(e, e, 1, MPFR_RNDN);
    mpfr_ui_div(r, 1, e, MPFR_RNDN);
    mpfr_clear(e);
}
void mpfr_gelu(mpfr_ptr r, mpfr_srcptr x) {
    mpfr_t z;
    mpfr_init2(z, mpfr_get_prec(r) + 64);
    mpfr_sqrt_ui(z, 2, MPFR_RNDN);
    mpfr_div(z, x, z, MPFR_RNDN);
    mpfr_neg(z, z, MPFR_RNDN);
    mpfr_erfc(z, z, MPFR_RNDN);
    mpfr_mul(r, z, x, MPFR_RNDN);
    mpfr_div_2ui(r, r, 1, MPFR_RNDN);
    mpfr_clear(z);
}
void mpfr_tanh_(mpfr_ptr r, mpfr_srcptr x) { mpfr_tanh(r, x, MPFR_RNDN); }

}  // namespace

TEST_CASE("activation_math: exact points, limits and the zero policy") {
    // sigmoid(0) = 1/2 exactly; sigmoid(+-inf) = 1, +0; sigmoid(-200) = e^-200 / (1 + e^-200) < 2^-150: +0;
    // sigmoid(100) = 1 - e^-100 rounds to 1; sigmoid(1) = 0x3f3b26a8, sigmoid(-1) = 0x3e89b2b1 (Python); NaN: canonical.
    CHECK(bits32<SIGMOID>({kZero, kNegZero, kInf, kNegInf, 0xc3480000, 0x42c80000, kOne, kNegOne, kNaN | 9}) ==
          U32{0x3f000000, 0x3f000000, kOne, kZero, kZero, kOne, 0x3f3b26a8, 0x3e89b2b1, kNaN});
    // tanh(+-inf) = +-1; tanh(-0) = +0 (ZeroResult, as the fused TANH; ELEMENT_WISE_TANH keeps -0); tanh(0.5) = 0x3eec9a9f.
    CHECK(bits32<TANH>({kInf, kNegInf, kNegZero, kZero, 0x3f000000}) == U32{kOne, kNegOne, kZero, kZero, 0x3eec9a9f});
    // gelu(+-0) = +0; gelu(inf) = inf; gelu(-inf) = +0 (the limit); gelu(1) = 0x3f57625f, gelu(-1) = 0xbe227686,
    // gelu(-10) = -7.6e-23 = 0x9ab83c9b (Python: 0.5 x erfc(-x / sqrt(2))).
    CHECK(bits32<GELU>({kZero, kNegZero, kInf, kNegInf, kOne, kNegOne, 0xc1200000}) ==
          U32{kZero, kZero, kInf, kZero, 0x3f57625f, 0xbe227686, 0x9ab83c9b});
}

TEST_CASE("activation_math: FLOAT64 zeros and subnormals have a bound above 0") {
    // Half of FLOAT64's smallest subnormal is not a double; a bound holding it once came out 0,
    // and a FLOAT64 element whose exact value is 0 or subnormal was judged bit for bit (found by
    // the GPU sweep: PyTorch CUDA's tanh(-0) = -0, its GELU(5e-324) = 0).
    auto judged = [](const Operator& op, const std::vector<double>& x, const std::vector<double>& actual) {
        Case c;
        c.op = op;
        c.inputs["InputTensor"] = buffer(desc(DataType::FLOAT64, {uint32_t(x.size())}), x);
        c = with_golden(c, "OutputTensor");
        std::vector<std::byte> b(actual.size() * sizeof(double));
        std::memcpy(b.data(), static_cast<const void*>(actual.data()), b.size());
        return census(c, "OutputTensor", b, {});
    };
    auto op = [](auto d) {
        d.InputTensor = d.OutputTensor = desc(DataType::FLOAT64, {2});
        return Operator{decltype(d)::kType, d};
    };
    const double tiny = 5e-324;  // 2^-1074
    // tanh(-0) is +0 by ZeroResult=PositiveZero; IEEE's tanh gives -0, within. tanh(1) by hand:
    // 0.7615941559557649 (the double nearest), and one ULP away is within too.
    CHECK(judged(op(TANH{}), {-0.0, 1.0}, {-0.0, 0.7615941559557649}).passed());
    CHECK(judged(op(TANH{}), {-0.0, 1.0}, {0.0, std::nextafter(0.7615941559557649, 1.0)}).passed());
    CHECK(judged(op(TANH{}), {-0.0, 1.0}, {1e-300, 0.7615941559557649}).over == 1);
    // GELU(2^-1074) = 2^-1074 Phi(2^-1074), just above 2^-1075: rounds to 2^-1074. x * 0.5 first
    // rounds a tie to even, 0, which a conforming backend may do.
    CHECK(judged(op(GELU{}), {tiny, 1.0}, {0.0, 0.8413447460685429}).passed());
    CHECK(judged(op(GELU{}), {tiny, 1.0}, {1e-300, 0.8413447460685429}).over == 1);
}

TEST_CASE("activation_math: integers round half to even and saturate") {
    // sigmoid: 0 -> 1/2 -> 0 (ties to even), 1 -> 0.73 -> 1, -1 -> 0.27 -> 0, 5 -> 0.993 -> 1.
    CHECK(act<SIGMOID, int32_t>(DataType::INT32, {0, 1, -1, 5}) == std::vector<int32_t>{0, 1, 0, 1});
    // tanh(-3) = -0.995 -> -1; gelu(3) = 2.996 -> 3, gelu(-1) = -0.159 -> 0; UINT8 gelu(200) = 200.
    CHECK(act<TANH, int8_t>(DataType::INT8, {-3, 0}) == std::vector<int8_t>{-1, 0});
    CHECK(act<GELU, int32_t>(DataType::INT32, {3, -1}) == std::vector<int32_t>{3, 0});
    CHECK(act<GELU, uint8_t>(DataType::UINT8, {200}) == std::vector<uint8_t>{200});
}

TEST_CASE("activation_math: in place and strided") {
    SIGMOID d;
    d.InputTensor = d.OutputTensor = desc(DataType::FLOAT32, {2});
    std::vector<std::byte> bytes = buffer(d.InputTensor, std::vector<float>{0.0f, from_bits<float>(kInf)});
    Bindings b;
    b.bind("InputTensor", bytes);
    b.bind("OutputTensor", bytes);
    evaluate(Operator{OperatorType::ACTIVATION_SIGMOID, d}, b);
    CHECK(as_values<float>(bytes) == std::vector<float>{0.5f, 1.0f});
    TANH t;
    t.InputTensor = desc(DataType::FLOAT32, {2, 2}, {1, 2});  // transposed: (i, j) reads x[i + 2 j]
    t.OutputTensor = desc(DataType::FLOAT32, {2, 2});
    const auto y = as_values<float>(
        run({OperatorType::ACTIVATION_TANH, t},
            {{"InputTensor", buffer(t.InputTensor, std::vector<float>{0.0f, 0.5f, from_bits<float>(kInf), -0.0f})}})
            .at("OutputTensor"));
    CHECK(y == std::vector<float>{0.0f, 1.0f, from_bits<float>(0x3eec9a9f), 0.0f});
}

TEST_CASE("activation_math: FLOAT32 agrees with double formulas rounded, except near ties") {
    std::mt19937 rng(20261129);
    std::uniform_real_distribution<float> wide(-30.0f, 30.0f), narrow(-3.0f, 3.0f);
    std::vector<float> x;
    for (int i = 0; i < 2000; ++i) x.push_back(i % 2 ? wide(rng) : narrow(rng));
    struct F {
        const char* name;
        std::vector<float> got;
        double (*d)(double);
        void (*m)(mpfr_ptr, mpfr_srcptr);
    };
    const std::vector<F> fs = {
        {"sigmoid", act<SIGMOID, float>(DataType::FLOAT32, x), [](double v) { return 1 / (1 + std::exp(-v)); },
         mpfr_sigmoid},
        {"tanh", act<TANH, float>(DataType::FLOAT32, x), [](double v) { return std::tanh(v); }, mpfr_tanh_},
        {"gelu", act<GELU, float>(DataType::FLOAT32, x),
         [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }, mpfr_gelu},
    };
    mpfr_t a, r;
    mpfr_inits2(2200, a, r, (mpfr_ptr) nullptr);
    int disagreements = 0;
    for (const F& f : fs)
        for (size_t i = 0; i < x.size(); ++i) {
            INFO(f.name << "(" << x[i] << ")");
            if (to_bits(float(f.d(double(x[i])))) == to_bits(f.got[i])) continue;
            ++disagreements;
            mpfr_set_d(a, double(x[i]), MPFR_RNDN);
            f.m(r, a);
            CHECK(to_bits(double(f.got[i])) == to_bits(mpfr_rounded<float>(static_cast<mpfr_srcptr>(r))));
        }
    mpfr_clears(a, r, (mpfr_ptr) nullptr);
    MESSAGE("activations: " << disagreements << " of " << 3 * x.size() << " differ from the double formulas rounded");
    CHECK(disagreements <= 6);
}

TEST_CASE("activation_math: validation rules") {
    SIGMOID s;
    s.InputTensor = s.OutputTensor = desc(DataType::FLOAT32, {2, 3});
    s.OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::ACTIVATION_SIGMOID, s}, "sigmoid.same-data-type", "/desc/OutputTensor/DataType"));
    TANH t;
    t.InputTensor = desc(DataType::FLOAT32, {2, 3});
    t.OutputTensor = desc(DataType::FLOAT32, {3, 2});
    CHECK(has_error({OperatorType::ACTIVATION_TANH, t}, "activation-tanh.same-sizes", "/desc/OutputTensor/Sizes"));
    GELU g;
    g.InputTensor = g.OutputTensor = desc(DataType::FLOAT16, {4});
    g.OutputTensor.DataType = DataType::FLOAT32;
    CHECK(has_error({OperatorType::ACTIVATION_GELU, g}, "gelu.same-data-type", "/desc/OutputTensor/DataType"));
}

// ---- The parametric activations ---------------------------------------------------------------

namespace {

using ELU = DML_ACTIVATION_ELU_OPERATOR_DESC;
using CELU = DML_ACTIVATION_CELU_OPERATOR_DESC;
using SELU = DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC;
using SOFTPLUS = DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC;
using PSOFTPLUS = DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC;
using STANH = DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC;
using SWISH = DML_ACTIVATION_SWISH_OPERATOR_DESC;

// An operator of the family over n elements of type t, its FLOAT parameters p0 and p1 in struct order.
Operator op_of(OperatorType type, DataType t, size_t n, float p0 = 0, float p1 = 0) {
    const TensorDesc d = desc(t, {uint32_t(n)});
    switch (type) {
        case OperatorType::ACTIVATION_ELU: {
            ELU e;
            e.InputTensor = e.OutputTensor = d;
            e.Alpha = p0;
            return {type, e};
        }
        case OperatorType::ACTIVATION_CELU: {
            CELU e;
            e.InputTensor = e.OutputTensor = d;
            e.Alpha = p0;
            return {type, e};
        }
        case OperatorType::ACTIVATION_SCALED_ELU: {
            SELU e;
            e.InputTensor = e.OutputTensor = d;
            e.Alpha = p0;
            e.Gamma = p1;
            return {type, e};
        }
        case OperatorType::ACTIVATION_SOFTPLUS: {
            SOFTPLUS e;
            e.InputTensor = e.OutputTensor = d;
            e.Steepness = p0;
            return {type, e};
        }
        case OperatorType::ACTIVATION_PARAMETRIC_SOFTPLUS: {
            PSOFTPLUS e;
            e.InputTensor = e.OutputTensor = d;
            e.Alpha = p0;
            e.Beta = p1;
            return {type, e};
        }
        case OperatorType::ACTIVATION_SCALED_TANH: {
            STANH e;
            e.InputTensor = e.OutputTensor = d;
            e.Alpha = p0;
            e.Beta = p1;
            return {type, e};
        }
        case OperatorType::ACTIVATION_SWISH: {
            SWISH e;
            e.InputTensor = e.OutputTensor = d;
            e.SigmoidInputScale = p0;
            return {type, e};
        }
        default: {
            TANH e;
            e.InputTensor = e.OutputTensor = d;
            return {OperatorType::ACTIVATION_TANH, e};
        }
    }
}

template <class T>
std::vector<T> apply(OperatorType type, DataType t, const std::vector<T>& x, float p0 = 0, float p1 = 0) {
    const Operator op = op_of(type, t, x.size(), p0, p1);
    return as_values<T>(run(op, {{"InputTensor", buffer(desc(t, {uint32_t(x.size())}), x)}}).at("OutputTensor"));
}

U32 bits_of(OperatorType type, std::initializer_list<uint32_t> in, float p0 = 0, float p1 = 0) {
    std::vector<float> x;
    for (uint32_t b : in) x.push_back(from_bits<float>(b));
    U32 out;
    for (float v : apply<float>(type, DataType::FLOAT32, x, p0, p1)) out.push_back(to_bits(v));
    return out;
}

// n floats uniform in [lo, hi).
std::vector<float> uniform(uint32_t seed, float lo, float hi, int n) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> U(lo, hi);
    std::vector<float> x;
    for (int i = 0; i < n; ++i) x.push_back(U(rng));
    return x;
}

constexpr uint32_t kTwo = 0x40000000, kThree = 0x40400000, kHundred = 0x42c80000, kMinusHundred = 0xc2c80000;

}  // namespace

TEST_CASE("activation_math parametric: exact points, limits and the zero policies") {
    using OT = OperatorType;
    // ELU, Alpha 1.5: x >= 0 selects x (-0 stays -0: ActivationSignedZero); elu(-inf) = -Alpha;
    // elu(-200) = -1.5 (1 - e^-200) rounds to -1.5; elu(-1) = 1.5 expm1(-1) = 0xbf72bbfb (mpmath); Alpha 0 gives +0.
    CHECK(bits_of(OT::ACTIVATION_ELU, {kZero, kNegZero, 0x40200000, kInf, kNegInf, kNaN | 3, 0xc3480000, kNegOne},
                  1.5f) == U32{kZero, kNegZero, 0x40200000, kInf, 0xbfc00000, kNaN, 0xbfc00000, 0xbf72bbfb});
    CHECK(bits_of(OT::ACTIVATION_ELU, {kNegOne, kNegInf}, 0.0f) == U32{kZero, kZero});
    // CELU, Alpha 2: x for x >= 0, -0 computed as max(0, -0) + min(0, ...) = +0 (ZeroResult); celu(-inf) = -2.
    // Alpha -2: celu(-1) = -2 expm1(0.5) = 0xbfa61299 (mpmath), celu(-inf) = -inf, celu(3) = 3 (CeluAlpha).
    CHECK(bits_of(OT::ACTIVATION_CELU, {kZero, kNegZero, kThree, kInf, kNegInf}, 2.0f) ==
          U32{kZero, kZero, kThree, kInf, 0xc0000000});
    CHECK(bits_of(OT::ACTIVATION_CELU, {kNegOne, kNegInf, kThree}, -2.0f) == U32{0xbfa61299, kNegInf, kThree});
    // SCALED_ELU, Alpha 1.67326, Gamma 1.0507: 2 Gamma = 0x40067d56; the zeros +0; -inf gives -Gamma Alpha
    // rounded once (0xbfe1093b); -1: Gamma Alpha expm1(-1) = 0xbf8e3ffa (mpmath).
    CHECK(bits_of(OT::ACTIVATION_SCALED_ELU, {kTwo, kZero, kNegZero, kNegInf, kInf, kNegOne}, 1.67326f, 1.0507f) ==
          U32{0x40067d56, kZero, kZero, 0xbfe1093b, kInf, 0xbf8e3ffa});
    // SOFTPLUS, Steepness 1: ln 2 = 0x3f317218; softplus(100) = 100 + e^-100 rounds to 100 (SoftplusLargeInput:
    // no overflow of exp(100) in FLOAT32); softplus(-100) = 27 2^-149 (a subnormal); +-inf: inf, +0; 1e30 stays.
    CHECK(bits_of(OT::ACTIVATION_SOFTPLUS, {kZero, kHundred, kMinusHundred, kInf, kNegInf, 0x7149f2ca}, 1.0f) ==
          U32{0x3f317218, kHundred, 0x1b, kInf, kZero, 0x7149f2ca});
    // Steepness 2: ln 2 / 2 = 0x3eb17218; softplus(1) = ln(1 + e^2) / 2 = 0x3f881f97 (mpmath).
    CHECK(bits_of(OT::ACTIVATION_SOFTPLUS, {kZero, kOne}, 2.0f) == U32{0x3eb17218, 0x3f881f97});
    // PARAMETRIC_SOFTPLUS: Alpha 0 gives +0 everywhere (NaN stays NaN); Beta 0 the constant 2 ln 2 = 0x3fb17218
    // (at the infinities too); Alpha 1.5, Beta -2: 1.5 ln(1 + e^-1.5) = 0x3e9aaf76 (mpmath), +inf gives +0.
    CHECK(bits_of(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, {kOne, kInf, kNaN}, 0.0f, 1.0f) == U32{kZero, kZero, kNaN});
    CHECK(bits_of(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, {kOne, kInf, kNegInf}, 2.0f, 0.0f) ==
          U32{0x3fb17218, 0x3fb17218, 0x3fb17218});
    CHECK(bits_of(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, {0x3f400000, kInf, kNegInf}, 1.5f, -2.0f) ==
          U32{0x3e9aaf76, kZero, kInf});
    // SCALED_TANH, Alpha 1.5, Beta 0.5: +-0 give +0, +-inf give +-1.5, 1.5 tanh(0.5) = 0x3f3173f7 (mpmath); Beta 0: +0.
    CHECK(bits_of(OT::ACTIVATION_SCALED_TANH, {kZero, kNegZero, kInf, kNegInf, kOne}, 1.5f, 0.5f) ==
          U32{kZero, kZero, 0x3fc00000, 0xbfc00000, 0x3f3173f7});
    CHECK(bits_of(OT::ACTIVATION_SCALED_TANH, {kInf, kOne}, 1.5f, 0.0f) == U32{kZero, kZero});
    // SWISH, SigmoidInputScale 1: +-0 give +0; inf; -inf the limit +0; swish(1) = sigmoid(1) = 0x3f3b26a8;
    // swish(200) = 200; swish(-200) = -200 e^-200 rounds to -0; swish(-100) = -2655 2^-149 (0x80000a5f),
    // swish(-20) = 0xb3310d3f (mpmath).
    CHECK(bits_of(OT::ACTIVATION_SWISH,
                  {kZero, kNegZero, kInf, kNegInf, kOne, 0x43480000, 0xc3480000, kMinusHundred, 0xc1a00000, kNaN},
                  1.0f) ==
          U32{kZero, kZero, kInf, kZero, 0x3f3b26a8, 0x43480000, kNegZero, 0x80000a5f, 0xb3310d3f, kNaN});
    // SigmoidInputScale 0: x / 2 exactly (infinities kept); -1: swish(+inf) = +0, swish(-inf) = -inf; 0.5: -3 sigmoid(-1.5) = 0xbf0c1a51.
    CHECK(bits_of(OT::ACTIVATION_SWISH, {kThree, kInf, kNegInf}, 0.0f) == U32{0x3fc00000, kInf, kNegInf});
    CHECK(bits_of(OT::ACTIVATION_SWISH, {kInf, kNegInf}, -1.0f) == U32{kZero, kNegInf});
    CHECK(bits_of(OT::ACTIVATION_SWISH, {0xc0400000}, 0.5f) == U32{0xbf0c1a51});
}

TEST_CASE("activation_math parametric: identities between the operators, FLOAT16 and integers") {
    using OT = OperatorType;
    const std::vector<float> x = uniform(7, -12.0f, 12.0f, 200);
    // The same real functions: CELU with Alpha 1 is ELU with Alpha 1; SOFTPLUS with Steepness 1 is
    // PARAMETRIC_SOFTPLUS with Alpha 1, Beta 1; SCALED_TANH with Alpha 1, Beta 1 is TANH; SCALED_ELU with
    // Gamma 1 is ELU below 0. Each golden rounds the one exact value once, so the bits agree.
    CHECK(apply<float>(OT::ACTIVATION_CELU, DataType::FLOAT32, x, 1.0f) ==
          apply<float>(OT::ACTIVATION_ELU, DataType::FLOAT32, x, 1.0f));
    CHECK(apply<float>(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, x, 1.0f) ==
          apply<float>(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, DataType::FLOAT32, x, 1.0f, 1.0f));
    CHECK(apply<float>(OT::ACTIVATION_SCALED_TANH, DataType::FLOAT32, x, 1.0f, 1.0f) ==
          act<TANH, float>(DataType::FLOAT32, x));
    std::vector<float> neg;
    for (float v : x) neg.push_back(-std::fabs(v) - 0.5f);
    CHECK(apply<float>(OT::ACTIVATION_SCALED_ELU, DataType::FLOAT32, neg, 0.75f, 1.0f) ==
          apply<float>(OT::ACTIVATION_ELU, DataType::FLOAT32, neg, 0.75f));
    // FLOAT16: softplus(-12) = ln(1 + e^-12) = 6.144e-6 = 103 2^-24 (a subnormal: 6.144e-6 / 2^-24 = 103.08);
    // elu(-0.5) = expm1(-0.5) = -0.3934693 = -1611.65 2^-12 -> -1612 2^-12 (0xb64c); swish(12) = 12 (1 - 6.1e-6) rounds to 12.
    const half m12 = from_bits<half>(uint16_t(0xca00)), p12 = from_bits<half>(uint16_t(0x4a00)),
               mhalf = from_bits<half>(uint16_t(0xb800));
    CHECK(to_bits(apply<half>(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT16, {m12}, 1.0f)[0]) == 103);
    CHECK(to_bits(apply<half>(OT::ACTIVATION_ELU, DataType::FLOAT16, {mhalf}, 1.0f)[0]) == 0xb64c);
    CHECK(to_bits(apply<half>(OT::ACTIVATION_SWISH, DataType::FLOAT16, {p12}, 1.0f)[0]) == 0x4a00);
    // Integers (outside the pages' tables): the exact value rounded half to even and saturated.
    // elu(-1) = -0.63 -> -1, elu(5) = 5; softplus(0) = ln 2 -> 1, softplus(-3) = 0.049 -> 0;
    // swish(-128) -> 0, swish(100) = 100 (1 - 3.7e-44) -> 100; scaled_tanh 100 tanh(0.5 * 3) = 90.5148 -> 91.
    CHECK(apply<int32_t>(OT::ACTIVATION_ELU, DataType::INT32, {-1, 5}, 1.0f) == std::vector<int32_t>{-1, 5});
    CHECK(apply<int16_t>(OT::ACTIVATION_SOFTPLUS, DataType::INT16, {0, -3}, 1.0f) == std::vector<int16_t>{1, 0});
    CHECK(apply<int8_t>(OT::ACTIVATION_SWISH, DataType::INT8, {-128, 100}, 1.0f) == std::vector<int8_t>{0, 100});
    CHECK(apply<uint8_t>(OT::ACTIVATION_SCALED_TANH, DataType::UINT8, {3}, 100.0f, 0.5f) == std::vector<uint8_t>{91});
}

namespace {

// The parametric formulas in MPFR at the result's precision + 64 bits, independently of dmlref's.
struct Param {
    const char* name;
    OperatorType type;
    float p0, p1;
    double (*d)(double, double, double);               // the page's formula in double (glibc)
    void (*m)(mpfr_ptr, mpfr_srcptr, double, double);  // the same in MPFR
};
void m_expm1_scaled(mpfr_ptr r, mpfr_srcptr x, double c, double k) {  // c expm1(x k), k exact
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(r) + 64);
    mpfr_mul_d(t, x, k, MPFR_RNDN);
    mpfr_expm1(t, t, MPFR_RNDN);
    mpfr_mul_d(r, t, c, MPFR_RNDN);
    mpfr_clear(t);
}
void m_softplus(mpfr_ptr r, mpfr_srcptr x, double c, double b) {  // c ln(1 + exp(b x))
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(r) + 64);
    mpfr_mul_d(t, x, b, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_log1p(t, t, MPFR_RNDN);
    mpfr_mul_d(r, t, c, MPFR_RNDN);
    mpfr_clear(t);
}

}  // namespace

TEST_CASE("activation_math parametric: FLOAT32 agrees with double formulas rounded, except near ties") {
    std::mt19937 rng(20261127);
    std::uniform_real_distribution<float> wide(-30.0f, 30.0f), narrow(-3.0f, 3.0f);
    std::vector<float> x;
    for (int i = 0; i < 600; ++i) x.push_back(i % 2 ? wide(rng) : narrow(rng));
    using OT = OperatorType;
    const Param ps[] =
        {
            {"elu", OT::ACTIVATION_ELU, 1.5f, 0,
             [](double v, double a, double) { return v >= 0 ? v : a * std::expm1(v); },
             [](mpfr_ptr r, mpfr_srcptr v, double a, double) {
        if (mpfr_sgn(v) >= 0) mpfr_set(r, v, MPFR_RNDN);
        else m_expm1_scaled(r, v, a, 1);
             }},
            {"celu", OT::ACTIVATION_CELU, 0.75f, 0,
             [](double v, double a, double) { return v >= 0 ? v : a * std::expm1(v / a); },
             [](mpfr_ptr r, mpfr_srcptr v, double a, double) {
        if (mpfr_sgn(v) >= 0) return void(mpfr_set(r, v, MPFR_RNDN));
        mpfr_t t;
        mpfr_init2(t, mpfr_get_prec(r) + 64);
        mpfr_div_d(t, v, a, MPFR_RNDN);
        mpfr_expm1(t, t, MPFR_RNDN);
        mpfr_mul_d(r, t, a, MPFR_RNDN);
        mpfr_clear(t);
             }},
                {"scaled_elu", OT::ACTIVATION_SCALED_ELU, 1.5f, 2.0f,
                 [](double v, double a, double g) { return v > 0 ? g * v : g * a * std::expm1(v); },
                 [](mpfr_ptr r, mpfr_srcptr v, double a, double g) {
        if (mpfr_sgn(v) > 0) mpfr_mul_d(r, v, g, MPFR_RNDN);
        else m_expm1_scaled(r, v, g * a, 1);
                 }},
        {"softplus", OT::ACTIVATION_SOFTPLUS, 2.0f, 0,
         [](double v, double s, double) { return std::log1p(std::exp(s * v)) / s; },
         [](mpfr_ptr r, mpfr_srcptr v, double s, double) { m_softplus(r, v, 1 / s, s); }},
        {"parametric_softplus", OT::ACTIVATION_PARAMETRIC_SOFTPLUS, 1.25f, -0.5f,
         [](double v, double a, double b) { return a * std::log1p(std::exp(b * v)); },
         [](mpfr_ptr r, mpfr_srcptr v, double a, double b) { m_softplus(r, v, a, b); }},
        {"scaled_tanh", OT::ACTIVATION_SCALED_TANH, 1.75f, 0.625f,
         [](double v, double a, double b) { return a * std::tanh(b * v); },
         [](mpfr_ptr r, mpfr_srcptr v, double a, double b) {
        mpfr_t t;
        mpfr_init2(t, mpfr_get_prec(r) + 64);
        mpfr_mul_d(t, v, b, MPFR_RNDN);
        mpfr_tanh(t, t, MPFR_RNDN);
        mpfr_mul_d(r, t, a, MPFR_RNDN);
        mpfr_clear(t);
         }},
        {"swish", OT::ACTIVATION_SWISH, 1.5f, 0, [](double v, double s, double) { return v / (1 + std::exp(-s * v)); },
         [](mpfr_ptr r, mpfr_srcptr v, double s, double) {
        mpfr_t t;
        mpfr_init2(t, mpfr_get_prec(r) + 64);
        mpfr_mul_d(t, v, -s, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_div(r, v, t, MPFR_RNDN);
        mpfr_clear(t);
         }},
        };
    mpfr_t a, r;
    mpfr_inits2(2200, a, r, (mpfr_ptr) nullptr);
    int disagreements = 0;
    for (const Param& p : ps) {
        const std::vector<float> got = apply<float>(p.type, DataType::FLOAT32, x, p.p0, p.p1);
        for (size_t i = 0; i < x.size(); ++i) {
            INFO(p.name << "(" << x[i] << ")");
            if (to_bits(float(p.d(double(x[i]), p.p0, p.p1))) == to_bits(got[i])) continue;
            ++disagreements;
            mpfr_set_d(a, double(x[i]), MPFR_RNDN);
            p.m(r, a, p.p0, p.p1);
            CHECK(to_bits(double(got[i])) == to_bits(mpfr_rounded<float>(static_cast<mpfr_srcptr>(r))));
        }
    }
    mpfr_clears(a, r, (mpfr_ptr) nullptr);
    MESSAGE("parametric activations: " << disagreements << " of " << 7 * x.size()
                                       << " differ from the double formulas rounded");
    CHECK(disagreements <= 10);
}

namespace {

template <class T> Case golden_case(const Operator& op, const std::vector<T>& x) {
    Case c;
    c.op = op;
    c.inputs["InputTensor"] = buffer(desc(data_type_of<T>(), {uint32_t(x.size())}), x);
    return with_golden(c, "OutputTensor");
}
template <class T> OutputCensus judged(const Case& c, const std::vector<T>& actual) {
    std::vector<std::byte> b(actual.size() * sizeof(T));
    std::memcpy(b.data(), static_cast<const void*>(actual.data()), b.size());
    return census(c, "OutputTensor", b, {});
}
// k floats past v, away from zero.
float past(float v, int k) {
    for (int i = 0; i < k; ++i)
        v = std::nextafter(v, v < 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity());
    return v;
}

}  // namespace

TEST_CASE(
    "activation_math parametric judging: a float32 backend passes, planted errors and an overflowing softplus fail") {
    using OT = OperatorType;
    std::vector<float> x = uniform(11, -20.0f, 20.0f, 100);
    x.push_back(-1e-6f);  // ELU's and SWISH's cancellation near 0
    x.push_back(3e-7f);
    struct B {
        OT type;
        float p0, p1;
        float (*backend)(float, float, float);  // a float32 backend: the page's formula with <cmath>'s float functions
    };
    const B bs[] = {
        {OT::ACTIVATION_ELU, 1.5f, 0, [](float v, float a, float) { return v >= 0 ? v : a * (std::exp(v) - 1.0f); }},
        {OT::ACTIVATION_CELU, 0.75f, 0,
         [](float v, float a, float) { return std::max(0.0f, v) + std::min(0.0f, a * (std::exp(v / a) - 1.0f)); }},
        {OT::ACTIVATION_SCALED_ELU, 1.67326f, 1.0507f,
         [](float v, float a, float g) { return v > 0 ? g * v : g * (a * std::exp(v) - a); }},
        {OT::ACTIVATION_SOFTPLUS, 2.0f, 0,
         [](float v, float s, float) { return std::log(1.0f + std::exp(s * v)) / s; }},
        {OT::ACTIVATION_PARAMETRIC_SOFTPLUS, 1.25f, 0.5f,
         [](float v, float a, float b) { return a * std::log(1.0f + std::exp(b * v)); }},
        {OT::ACTIVATION_SCALED_TANH, 1.7159f, 0.6666f, [](float v, float a, float b) { return a * std::tanh(b * v); }},
        {OT::ACTIVATION_SWISH, 1.0f, 0, [](float v, float s, float) { return v / (1.0f + std::exp(-s * v)); }},
    };
    for (const B& b : bs) {
        CAPTURE(b.type);
        const Case c = golden_case(op_of(b.type, DataType::FLOAT32, x.size(), b.p0, b.p1), x);
        std::vector<float> backend, off;
        for (float v : x) backend.push_back(b.backend(v, b.p0, b.p1));
        CHECK(judged(c, backend).passed());
        // A relative error of 1e-3 (about 8000 ULPs) wherever |value| > 0.1 is past the bound there: the
        // bound follows the formula's own error, not a blanket allowance.
        const auto golden = as_values<float>(c.expected.at("OutputTensor").values);
        uint64_t planted = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const bool big = std::fabs(golden[i]) > 0.1f;
            off.push_back(big ? golden[i] * 1.001f : golden[i]);
            planted += big;
        }
        CHECK(judged(c, off).over == planted);
    }
    // SOFTPLUS at x = 100 (SoftplusLargeInput): the golden is 100; a backend switching to x passes, the
    // page's formula in float32 (exp(200) overflows: inf) fails, and so does 100 + 10 ULP (the bound:
    // the asymptote (2 x) / 2, two roundings and a division, 7u x, 5.5 ULP).
    const Case sp = golden_case(op_of(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, 2, 2.0f),
                                std::vector<float>{100.0f, 1e30f});
    CHECK(judged(sp, std::vector<float>{100.0f, 1e30f}).passed());
    CHECK(judged(sp, std::vector<float>{std::numeric_limits<float>::infinity(), 1e30f}).over == 1);
    CHECK(judged(sp, std::vector<float>{past(100.0f, 10), 1e30f}).over == 1);
    // SWISH at x = -100: exp(100) overflows float32 and a backend gives -0; the golden -2655 2^-149 is within the bound.
    const Case sw = golden_case(op_of(OT::ACTIVATION_SWISH, DataType::FLOAT32, 1, 1.0f), std::vector<float>{-100.0f});
    CHECK(judged(sw, std::vector<float>{-0.0f}).passed());
}

TEST_CASE("activation_math parametric judging: a computed zero admits -0, a selected one keeps its sign") {
    // Found by the GPU sweep (docs/crosscheck-gpu.md): PyTorch CUDA gives CELU(-0) = -0 in FLOAT64
    // (its alpha * expm1(-0 / alpha) is -0), and PARAMETRIC_SOFTPLUS with Alpha -0.5, Beta -2 at
    // x = +inf gives -0.5 * log1p(exp(-inf)) = -0.5 * +0 = -0. The golden of both is the exact zero,
    // +0 (ZeroResult=PositiveZero); IEEE arithmetic reaches -0 there, so either zero is within, and
    // nothing else: FLOAT32's smallest subnormal is over; in FLOAT64, whose bound cannot lie below
    // half its smallest subnormal, 1e-300 is.
    using OT = OperatorType;
    const double inf = std::numeric_limits<double>::infinity();
    const Case celu = golden_case(op_of(OT::ACTIVATION_CELU, DataType::FLOAT64, 2, 0.75f),
                                  std::vector<double>{-0.0, 0.0});
    CHECK(judged(celu, std::vector<double>{-0.0, -0.0}).passed());
    CHECK(judged(celu, std::vector<double>{0.0, 0.0}).passed());
    CHECK(judged(celu, std::vector<double>{-1e-300, 1e-300}).over == 2);
    const float finf = std::numeric_limits<float>::infinity(), ftiny = std::numeric_limits<float>::denorm_min();
    const Case sp = golden_case(op_of(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, DataType::FLOAT32, 1, -0.5f, -2.0f),
                                std::vector<float>{finf});
    CHECK(judged(sp, std::vector<float>{-0.0f}).passed());
    CHECK(judged(sp, std::vector<float>{0.0f}).passed());
    CHECK(judged(sp, std::vector<float>{-ftiny}).over == 1);
    const Case sp64 = golden_case(op_of(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, DataType::FLOAT64, 1, -0.5f, -2.0f),
                                  std::vector<double>{inf});
    CHECK(judged(sp64, std::vector<double>{-0.0}).passed());
    CHECK(judged(sp64, std::vector<double>{-1e-300}).over == 1);
    // ELU selects x itself where x >= 0: elu(-0) = -0 (ActivationSignedZero), and +0 is over.
    const Case elu = golden_case(op_of(OT::ACTIVATION_ELU, DataType::FLOAT64, 1, 1.0f), std::vector<double>{-0.0});
    CHECK(judged(elu, std::vector<double>{-0.0}).passed());
    CHECK(judged(elu, std::vector<double>{0.0}).over == 1);
}

TEST_CASE("activation_math parametric: validation rules and the Steepness feature level") {
    using OT = OperatorType;
    Operator e = op_of(OT::ACTIVATION_ELU, DataType::FLOAT32, 4, 1.0f);
    get<ELU>(e.Desc).OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(e, "elu.same-data-type", "/desc/OutputTensor/DataType"));
    Operator st = op_of(OT::ACTIVATION_SCALED_TANH, DataType::FLOAT32, 4, 1.0f, 1.0f);
    get<STANH>(st.Desc).OutputTensor.Sizes = {2, 2};
    CHECK(has_error(st, "scaled-tanh.same-sizes", "/desc/OutputTensor/Sizes"));
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    CHECK(has_error(op_of(OT::ACTIVATION_ELU, DataType::FLOAT32, 2, nan), "elu.parameter-finite", "/desc/Alpha"));
    CHECK(has_error(op_of(OT::ACTIVATION_CELU, DataType::FLOAT32, 2, inf), "celu.parameter-finite", "/desc/Alpha"));
    CHECK(has_error(op_of(OT::ACTIVATION_CELU, DataType::FLOAT32, 2, 0.0f), "celu.alpha-nonzero", "/desc/Alpha"));
    CHECK(has_error(op_of(OT::ACTIVATION_SCALED_ELU, DataType::FLOAT32, 2, 1.0f, -inf), "scaled-elu.parameter-finite",
                    "/desc/Gamma"));
    CHECK(has_error(op_of(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, 2, 0.0f), "softplus.steepness-positive",
                    "/desc/Steepness"));
    CHECK(has_error(op_of(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, 2, -2.0f), "softplus.steepness-positive",
                    "/desc/Steepness"));
    CHECK(has_error(op_of(OT::ACTIVATION_PARAMETRIC_SOFTPLUS, DataType::FLOAT32, 2, 1.0f, nan),
                    "parametric-softplus.parameter-finite", "/desc/Beta"));
    CHECK(has_error(op_of(OT::ACTIVATION_SWISH, DataType::FLOAT32, 2, nan), "swish.parameter-finite",
                    "/desc/SigmoidInputScale"));
    // Steepness 0.5: valid, but only from DML_FEATURE_LEVEL_6_4 ("Updated ... to allow Steepness < 1").
    CHECK_FALSE(validate(op_of(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, 2, 0.5f)).has_errors());
    CHECK(lowest_supporting_feature_level(op_of(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, 2, 0.5f), nullptr) ==
          0x6400u);
    CHECK(lowest_supporting_feature_level(op_of(OT::ACTIVATION_SOFTPLUS, DataType::FLOAT32, 2, 1.0f), nullptr) ==
          0x3000u);
    CHECK(lowest_supporting_feature_level(op_of(OT::ACTIVATION_SWISH, DataType::FLOAT32, 2, 1.0f), nullptr) == 0x6200u);
    CHECK(lowest_supporting_feature_level(op_of(OT::ACTIVATION_CELU, DataType::FLOAT32, 2, 1.0f), nullptr) == 0x3000u);
}

}  // namespace dmlref_test_activation_math
