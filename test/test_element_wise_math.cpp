// The element-wise math family: ELEMENT_WISE_EXP, LOG, SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH,
// TANH, ASINH, ACOSH, ATANH, ERF. Expected values are hand-derived (exact points and C99 Annex F's
// special values), known constants rounded by Python's float arithmetic and struct packing (e, ln 2,
// pi / 2, written out as bits), or independent computations: glibc's double functions rounded to
// FLOAT32 or FLOAT16, with every disagreement decided by MPFR at 2200 bits rounded by MPFR's own
// format emulation (test/mpfr_round.hpp). None comes from dmlref's evaluation.
#include "support.hpp"
#include "mpfr_round.hpp"

#include "dmlref/descs/element_wise_math.hpp"

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_element_wise_math {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using EXP = DML_ELEMENT_WISE_EXP_OPERATOR_DESC;
using LOG = DML_ELEMENT_WISE_LOG_OPERATOR_DESC;
using SIN = DML_ELEMENT_WISE_SIN_OPERATOR_DESC;
using COS = DML_ELEMENT_WISE_COS_OPERATOR_DESC;
using TAN = DML_ELEMENT_WISE_TAN_OPERATOR_DESC;
using ASIN = DML_ELEMENT_WISE_ASIN_OPERATOR_DESC;
using ACOS = DML_ELEMENT_WISE_ACOS_OPERATOR_DESC;
using ATAN = DML_ELEMENT_WISE_ATAN_OPERATOR_DESC;
using SINH = DML_ELEMENT_WISE_SINH_OPERATOR_DESC;
using COSH = DML_ELEMENT_WISE_COSH_OPERATOR_DESC;
using TANH = DML_ELEMENT_WISE_TANH_OPERATOR_DESC;
using ASINH = DML_ELEMENT_WISE_ASINH_OPERATOR_DESC;
using ACOSH = DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC;
using ATANH = DML_ELEMENT_WISE_ATANH_OPERATOR_DESC;
using ERF = DML_ELEMENT_WISE_ERF_OPERATOR_DESC;

// An operator of the family by its type, over a 1-D tensor (or `sizes` with input strides).
Operator math_op(OperatorType type, DataType t, std::vector<uint32_t> sizes,
                 std::optional<DML_SCALE_BIAS> sb = std::nullopt, std::vector<uint32_t> in_strides = {}) {
    OperatorDesc od;
    auto fill = [&](auto d) {
        d.InputTensor = desc(t, sizes, std::move(in_strides));
        d.OutputTensor = desc(t, sizes);
        d.ScaleBias = sb;
        od = d;
    };
    switch (type) {
        case OperatorType::ELEMENT_WISE_EXP: fill(EXP{}); break;
        case OperatorType::ELEMENT_WISE_LOG: fill(LOG{}); break;
        case OperatorType::ELEMENT_WISE_SIN: fill(SIN{}); break;
        case OperatorType::ELEMENT_WISE_COS: fill(COS{}); break;
        case OperatorType::ELEMENT_WISE_TAN: fill(TAN{}); break;
        case OperatorType::ELEMENT_WISE_ASIN: fill(ASIN{}); break;
        case OperatorType::ELEMENT_WISE_ACOS: fill(ACOS{}); break;
        case OperatorType::ELEMENT_WISE_ATAN: fill(ATAN{}); break;
        case OperatorType::ELEMENT_WISE_SINH: fill(SINH{}); break;
        case OperatorType::ELEMENT_WISE_COSH: fill(COSH{}); break;
        case OperatorType::ELEMENT_WISE_TANH: fill(TANH{}); break;
        case OperatorType::ELEMENT_WISE_ASINH: fill(ASINH{}); break;
        case OperatorType::ELEMENT_WISE_ACOSH: fill(ACOSH{}); break;
        case OperatorType::ELEMENT_WISE_ATANH: fill(ATANH{}); break;
        default: fill(ERF{}); break;
    }
    return {type, od};
}

template <class T>
std::vector<T> apply(OperatorType type, DataType t, const std::vector<T>& x,
                     std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
    const Operator op = math_op(type, t, {uint32_t(x.size())}, sb);
    return as_values<T>(run(op, {{"InputTensor", buffer(desc(t, {uint32_t(x.size())}), x)}}).at("OutputTensor"));
}

std::vector<uint32_t> f32_bits(OperatorType type, std::initializer_list<uint32_t> x,
                               std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
    std::vector<float> in;
    for (uint32_t b : x) in.push_back(from_bits<float>(b));
    std::vector<uint32_t> out;
    for (float v : apply<float>(type, DataType::FLOAT32, in, sb)) out.push_back(to_bits(v));
    return out;
}

std::vector<uint16_t> f16_bits(OperatorType type, std::initializer_list<uint16_t> x) {
    std::vector<half> in;
    for (uint16_t b : x) in.push_back(from_bits<half>(b));
    std::vector<uint16_t> out;
    for (half v : apply<half>(type, DataType::FLOAT16, in)) out.push_back(to_bits(v));
    return out;
}

using U32 = std::vector<uint32_t>;
using OT = OperatorType;

constexpr uint32_t kNaN = 0x7fc00000, kInf = 0x7f800000, kNegInf = 0xff800000, kOne = 0x3f800000, kNegOne = 0xbf800000;
constexpr uint32_t kZero = 0, kNegZero = 0x80000000, kTwo = 0x40000000, kHalf = 0x3f000000;

struct Glibc {
    OT type;
    double (*f)(double);
    int (*mpfr)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
    const char* name;
};
const std::vector<Glibc> kGlibc = {
    {OT::ELEMENT_WISE_EXP, ::exp, mpfr_exp, "exp"},         {OT::ELEMENT_WISE_LOG, ::log, mpfr_log, "log"},
    {OT::ELEMENT_WISE_SIN, ::sin, mpfr_sin, "sin"},         {OT::ELEMENT_WISE_COS, ::cos, mpfr_cos, "cos"},
    {OT::ELEMENT_WISE_TAN, ::tan, mpfr_tan, "tan"},         {OT::ELEMENT_WISE_ASIN, ::asin, mpfr_asin, "asin"},
    {OT::ELEMENT_WISE_ACOS, ::acos, mpfr_acos, "acos"},     {OT::ELEMENT_WISE_ATAN, ::atan, mpfr_atan, "atan"},
    {OT::ELEMENT_WISE_SINH, ::sinh, mpfr_sinh, "sinh"},     {OT::ELEMENT_WISE_COSH, ::cosh, mpfr_cosh, "cosh"},
    {OT::ELEMENT_WISE_TANH, ::tanh, mpfr_tanh, "tanh"},     {OT::ELEMENT_WISE_ASINH, ::asinh, mpfr_asinh, "asinh"},
    {OT::ELEMENT_WISE_ACOSH, ::acosh, mpfr_acosh, "acosh"}, {OT::ELEMENT_WISE_ATANH, ::atanh, mpfr_atanh, "atanh"},
    {OT::ELEMENT_WISE_ERF, ::erf, mpfr_erf, "erf"},
};

}  // namespace

TEST_CASE("element_wise_math: exact points and C99 Annex F's special values") {
    // exp(0) = exp(-0) = 1; exp(-inf) = +0; exp(inf) = inf; exp(89) > 2^128 overflows; exp(-104) < 2^-150 is +0;
    // exp(1) = e = 0x402df854, exp(2) = 0x40ec7326, exp(-1) = 0x3ebc5ab2 (Python: struct.pack('<f', math.e)).
    CHECK(f32_bits(OT::ELEMENT_WISE_EXP,
                   {kZero, kNegZero, kNegInf, kInf, 0x42b20000, 0xc2d00000, kOne, kTwo, kNegOne, kNaN | 5}) ==
          U32{kOne, kOne, kZero, kInf, kInf, kZero, 0x402df854, 0x40ec7326, 0x3ebc5ab2, kNaN});
    // log(1) = +0; log(+-0) = -inf; log(-1) = NaN; log(inf) = inf; log(2) = 0x3f317218; log(-inf) = NaN.
    CHECK(f32_bits(OT::ELEMENT_WISE_LOG, {kOne, kZero, kNegZero, kNegOne, kInf, kTwo, kNegInf}) ==
          U32{kZero, kNegInf, kNegInf, kNaN, kInf, 0x3f317218, kNaN});
    // Odd functions keep -0; sin, cos, tan of inf are NaN; cos(+-0) = 1.
    CHECK(f32_bits(OT::ELEMENT_WISE_SIN, {kZero, kNegZero, kInf, kOne}) == U32{kZero, kNegZero, kNaN, 0x3f576aa4});
    CHECK(f32_bits(OT::ELEMENT_WISE_COS, {kZero, kNegZero, kNegInf, kOne}) == U32{kOne, kOne, kNaN, 0x3f0a5140});
    CHECK(f32_bits(OT::ELEMENT_WISE_TAN, {kNegZero, kInf, kOne}) == U32{kNegZero, kNaN, 0x3fc75923});
    // asin(1) = acos(0) = atan(inf) = pi/2 = 0x3fc90fdb; acos(-1) = pi = 0x40490fdb; acos(1) = +0; asin(2) = NaN;
    // atan(1) = pi/4 = 0x3f490fdb.
    CHECK(f32_bits(OT::ELEMENT_WISE_ASIN, {kOne, kNegZero, kTwo, 0xc0000000}) == U32{0x3fc90fdb, kNegZero, kNaN, kNaN});
    CHECK(f32_bits(OT::ELEMENT_WISE_ACOS, {kZero, kNegOne, kOne, kTwo}) == U32{0x3fc90fdb, 0x40490fdb, kZero, kNaN});
    CHECK(f32_bits(OT::ELEMENT_WISE_ATAN, {kInf, kNegInf, kNegZero, kOne}) ==
          U32{0x3fc90fdb, 0xbfc90fdb, kNegZero, 0x3f490fdb});
    // sinh(-0) = -0, sinh(-inf) = -inf, sinh(1) = 0x3f966cfe; cosh(0) = 1, cosh(-inf) = inf, cosh(1) = 0x3fc583ab;
    // cosh(90) overflows.
    CHECK(f32_bits(OT::ELEMENT_WISE_SINH, {kNegZero, kNegInf, kOne}) == U32{kNegZero, kNegInf, 0x3f966cfe});
    CHECK(f32_bits(OT::ELEMENT_WISE_COSH, {kNegZero, kNegInf, kOne, 0x42b40000}) == U32{kOne, kInf, 0x3fc583ab, kInf});
    // tanh(+-inf) = +-1, tanh(-0) = -0, tanh(0.5) = 0x3eec9a9f; tanh(20) = 1 - 2^-57.7 rounds to 1.
    CHECK(f32_bits(OT::ELEMENT_WISE_TANH, {kInf, kNegInf, kNegZero, kHalf, 0x41a00000}) ==
          U32{kOne, kNegOne, kNegZero, 0x3eec9a9f, kOne});
    // asinh(-0) = -0, asinh(1) = 0x3f61a1b3; acosh(1) = +0, acosh(2) = 0x3fa89214, acosh(0.5) = NaN, acosh(inf) = inf.
    CHECK(f32_bits(OT::ELEMENT_WISE_ASINH, {kNegZero, kOne, kNegInf}) == U32{kNegZero, 0x3f61a1b3, kNegInf});
    CHECK(f32_bits(OT::ELEMENT_WISE_ACOSH, {kOne, kTwo, kHalf, kInf}) == U32{kZero, 0x3fa89214, kNaN, kInf});
    // atanh(+-1) = +-inf (a pole), atanh(2) = NaN, atanh(-0) = -0, atanh(0.5) = ln 3 / 2 = 0x3f0c9f54.
    CHECK(f32_bits(OT::ELEMENT_WISE_ATANH, {kOne, kNegOne, kTwo, kNegZero, kHalf}) ==
          U32{kInf, kNegInf, kNaN, kNegZero, 0x3f0c9f54});
    // erf(+-inf) = +-1, erf(-0) = -0, erf(1) = 0x3f57bb3d; erf(4) = 1 - 1.54e-8 lies between 1 - 2^-24 (5.96e-8
    // below 1) and 1, nearer 1: 1.
    CHECK(f32_bits(OT::ELEMENT_WISE_ERF, {kInf, kNegInf, kNegZero, kOne, 0x40800000}) ==
          U32{kOne, kNegOne, kNegZero, 0x3f57bb3d, kOne});
}

TEST_CASE("element_wise_math: FLOAT16 rounds once from the exact value") {
    // e = 0x4170 (2.71875), ln 2 = 0x398c, pi/2 = 0x3e48, erf(1) = 0x3abe (Python: struct.pack('<e', ...)); exp(12) =
    // 162755 > 65520 overflows to inf; exp(-18) = 1.5e-8 < 2^-25 (half the smallest subnormal) is +0.
    CHECK(f16_bits(OT::ELEMENT_WISE_EXP, {0x3c00, 0x4a00, 0xcc80}) == std::vector<uint16_t>{0x4170, 0x7c00, 0x0000});
    CHECK(f16_bits(OT::ELEMENT_WISE_LOG, {0x4000, 0x8000, 0xbc00}) == std::vector<uint16_t>{0x398c, 0xfc00, 0x7e00});
    CHECK(f16_bits(OT::ELEMENT_WISE_ASIN, {0x3c00}) == std::vector<uint16_t>{0x3e48});
    CHECK(f16_bits(OT::ELEMENT_WISE_ERF, {0x3c00, 0x8000}) == std::vector<uint16_t>{0x3abe, 0x8000});
}

TEST_CASE("element_wise_math: ScaleBias applies g(x) = x * Scale + Bias in float32 first") {
    // exp(0.5 * 2 + 1) = exp(2) = 0x40ec7326; log(x * 0 + 1) = log(1) = +0 for every finite x; sin(-0 * 1 + -0) = -0.
    CHECK(f32_bits(OT::ELEMENT_WISE_EXP, {kHalf}, DML_SCALE_BIAS{2.0f, 1.0f}) == U32{0x40ec7326});
    CHECK(f32_bits(OT::ELEMENT_WISE_LOG, {0x4b000001, kNegOne}, DML_SCALE_BIAS{0.0f, 1.0f}) == U32{kZero, kZero});
    CHECK(f32_bits(OT::ELEMENT_WISE_SIN, {kNegZero}, DML_SCALE_BIAS{1.0f, -0.0f}) == U32{kNegZero});
    // Two float32 roundings, not one: x = 1 + 2^-23, Scale = 1 + 2^-23: the product 1 + 2^-22 + 2^-46 rounds to
    // 1 + 2^-22; + Bias -1 gives 2^-22 exactly; atanh(2^-22) = 2^-22 + 2^-66/3 rounds to 2^-22 (0x34800000).
    // With one rounding the argument would be 2^-22 + 2^-46 (half an ULP of 2^-22 above it), whose atanh (a little
    // more) rounds up to 0x34800001: a different value.
    CHECK(f32_bits(OT::ELEMENT_WISE_ATANH, {0x3f800001}, DML_SCALE_BIAS{from_bits<float>(0x3f800001), -1.0f}) ==
          U32{0x34800000});
}

TEST_CASE("element_wise_math: integers round half to even and saturate") {
    // exp: e^0 = 1, e^1 = 2.72 -> 3, e^2 = 7.39 -> 7, e^-1 = 0.37 -> 0, e^30 = 1.07e13 -> INT32_MAX.
    CHECK(apply<int32_t>(OT::ELEMENT_WISE_EXP, DataType::INT32, {0, 1, 2, -1, 30}) ==
          std::vector<int32_t>{1, 3, 7, 0, INT32_MAX});
    // log: log 1 = 0, log 0 = -inf -> INT32_MIN, log -1 = NaN -> 0, log 10 = 2.30 -> 2.
    CHECK(apply<int32_t>(OT::ELEMENT_WISE_LOG, DataType::INT32, {1, 0, -1, 10}) ==
          std::vector<int32_t>{0, INT32_MIN, 0, 2});
    // UINT8: e^5 = 148.41 -> 148, e^6 = 403 -> 255 (saturated). INT8: cos 0 = 1, cos 3 = -0.99 -> -1.
    CHECK(apply<uint8_t>(OT::ELEMENT_WISE_EXP, DataType::UINT8, {5, 6}) == std::vector<uint8_t>{148, 255});
    CHECK(apply<int8_t>(OT::ELEMENT_WISE_COS, DataType::INT8, {0, 3}) == std::vector<int8_t>{1, -1});
    // INT64 (the input exact in 64 bits): atan(2^63 - 1) = pi/2 - 1e-19 -> 2; atan(-1) = -0.785 -> -1.
    CHECK(apply<int64_t>(OT::ELEMENT_WISE_ATAN, DataType::INT64, {INT64_MAX, -1}) == std::vector<int64_t>{2, -1});
}

TEST_CASE("element_wise_math: strided, broadcast and in-place inputs") {
    // InputTensor 2 x 3 stored transposed (Strides 1, 2) and broadcast (Strides 0, 1).
    const std::vector<float> x = {0.0f, 1.0f, 2.0f, -1.0f, 0.5f, -0.0f};
    const Operator t = math_op(OT::ELEMENT_WISE_EXP, DataType::FLOAT32, {2, 3}, std::nullopt, {1, 2});
    const auto& td = get<EXP>(t.Desc);
    // Element (i, j) reads x[i + 2 j]: (0,0) x0, (0,1) x2, (0,2) x4, (1,0) x1, (1,1) x3, (1,2) x5.
    const auto y = as_values<float>(run(t, {{"InputTensor", buffer(td.InputTensor, x)}}).at("OutputTensor"));
    const auto e = [](float v) { return float(std::exp(double(v))); };  // not near a tie at these points
    CHECK(y == std::vector<float>{e(0.0f), e(2.0f), e(0.5f), e(1.0f), e(-1.0f), 1.0f});
    const Operator b = math_op(OT::ELEMENT_WISE_EXP, DataType::FLOAT32, {2, 3}, std::nullopt, {0, 1});
    const auto yb = as_values<float>(
        run(b, {{"InputTensor", buffer(get<EXP>(b.Desc).InputTensor, std::vector<float>{0.0f, 1.0f, 2.0f})}})
            .at("OutputTensor"));
    CHECK(yb == std::vector<float>{1.0f, e(1.0f), e(2.0f), 1.0f, e(1.0f), e(2.0f)});
    // In place: OutputTensor bound to InputTensor's bytes.
    const Operator ip = math_op(OT::ELEMENT_WISE_LOG, DataType::FLOAT32, {3});
    std::vector<std::byte> bytes = buffer(desc(DataType::FLOAT32, {3}), std::vector<float>{1.0f, 2.0f, -1.0f});
    Bindings bind;
    bind.bind("InputTensor", bytes);
    bind.bind("OutputTensor", bytes);
    evaluate(ip, bind);
    std::vector<uint32_t> bits;
    for (float v : as_values<float>(bytes)) bits.push_back(to_bits(v));
    CHECK(bits == U32{kZero, 0x3f317218, kNaN});
}

TEST_CASE("element_wise_math: FLOAT32 agrees with glibc's double functions rounded, except near ties") {
    // glibc's double exp, log, sin, ... are within 1 ULP of double (mostly correctly rounded): rounding that double
    // to FLOAT32 gives the correctly rounded FLOAT32 unless the exact value lies within about 2^-29 relative of a
    // FLOAT32 rounding boundary. Every disagreement is decided by MPFR at 2200 bits (rounded by MPFR's format
    // emulation, test/mpfr_round.hpp), and must be rare.
    std::mt19937 rng(20261127);
    mpfr_t a, r;
    mpfr_inits2(2200, a, r, (mpfr_ptr) nullptr);
    int disagreements = 0, total = 0;
    for (const Glibc& g : kGlibc) {
        std::vector<float> x;
        std::uniform_real_distribution<float> small(-4.0f, 4.0f);
        while (x.size() < 400) {
            const float v = x.size() % 2 ? small(rng) : from_bits<float>(uint32_t(rng()));
            if (!std::isnan(v)) x.push_back(v);
        }
        const std::vector<float> got = apply<float>(g.type, DataType::FLOAT32, x);
        for (size_t i = 0; i < x.size(); ++i) {
            ++total;
            const double d = g.f(double(x[i]));
            INFO(g.name << "(" << x[i] << ")");
            if (std::isnan(d)) {
                CHECK(to_bits(got[i]) == kNaN);
                continue;
            }
            if (to_bits(float(d)) == to_bits(got[i])) continue;
            ++disagreements;
            mpfr_set_d(a, double(x[i]), MPFR_RNDN);
            g.mpfr(r, a, MPFR_RNDN);
            CHECK(to_bits(double(got[i])) == to_bits(mpfr_rounded<float>(static_cast<mpfr_srcptr>(r))));
        }
    }
    mpfr_clears(a, r, (mpfr_ptr) nullptr);
    MESSAGE("FLOAT32: " << disagreements << " of " << total << " elements differ from glibc's double rounded");
    CHECK(disagreements * 1000 <= total);
}

TEST_CASE("element_wise_math: FLOAT16 agrees with glibc's double functions rounded over a stride of all values") {
    // A FLOAT16 boundary is 2^-11 relative wide apart: glibc's double is never near enough to one to round wrongly
    // unless the exact value is within 2^-52 of it; every disagreement is decided by MPFR as above.
    mpfr_t a, r;
    mpfr_inits2(2200, a, r, (mpfr_ptr) nullptr);
    int disagreements = 0;
    for (const Glibc& g : kGlibc) {
        std::vector<half> x;
        for (uint32_t b = 0; b < 0x10000; b += 97)
            if (!is_nan(from_bits<half>(uint16_t(b)))) x.push_back(from_bits<half>(uint16_t(b)));
        const std::vector<half> got = apply<half>(g.type, DataType::FLOAT16, x);
        for (size_t i = 0; i < x.size(); ++i) {
            const double d = g.f(widen(x[i]));
            INFO(g.name << "(" << widen(x[i]) << ")");
            if (std::isnan(d)) {
                CHECK(to_bits(got[i]) == uint16_t(0x7e00));
                continue;
            }
            if (to_bits(round_to_float<half>(d)) == to_bits(got[i])) continue;
            ++disagreements;
            mpfr_set_d(a, widen(x[i]), MPFR_RNDN);
            g.mpfr(r, a, MPFR_RNDN);
            CHECK(to_bits(widen(got[i])) == to_bits(mpfr_rounded<half>(static_cast<mpfr_srcptr>(r))));
        }
    }
    mpfr_clears(a, r, (mpfr_ptr) nullptr);
    CHECK(disagreements <= 2);
}

TEST_CASE("element_wise_math: validation rules") {
    Operator op = math_op(OT::ELEMENT_WISE_TANH, DataType::FLOAT32, {2, 3});
    get<TANH>(op.Desc).OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "tanh.same-data-type", "/desc/OutputTensor/DataType"));
    Operator sz = math_op(OT::ELEMENT_WISE_ERF, DataType::FLOAT32, {2, 3});
    get<ERF>(sz.Desc).OutputTensor = desc(DataType::FLOAT32, {3, 2});
    CHECK(has_error(sz, "erf.same-sizes", "/desc/OutputTensor/Sizes"));
    const Operator sb = math_op(OT::ELEMENT_WISE_LOG, DataType::INT32, {2}, DML_SCALE_BIAS{2.0f, 0.0f});
    CHECK(has_error(sb, "log.scale-bias-integer", "/desc/ScaleBias"));
    CHECK_FALSE(has_error(math_op(OT::ELEMENT_WISE_LOG, DataType::FLOAT16, {2}, DML_SCALE_BIAS{2.0f, 0.0f}),
                          "log.scale-bias-integer", "/desc/ScaleBias"));
}

// ---- POW, CONSTANT_POW, ATAN_YX -----------------------------------------------------------------

namespace {

using POW = DML_ELEMENT_WISE_POW_OPERATOR_DESC;
using CONSTANT_POW = DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC;
using ATAN_YX = DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC;

template <class T, class E>
std::vector<T> power(DataType t, DataType et, const std::vector<T>& x, const std::vector<E>& e,
                     std::optional<DML_SCALE_BIAS> sb = std::nullopt) {
    POW d;
    d.InputTensor = d.OutputTensor = desc(t, {uint32_t(x.size())});
    d.ExponentTensor = desc(et, {uint32_t(x.size())});
    d.ScaleBias = sb;
    const Operator op{OperatorType::ELEMENT_WISE_POW, d};
    return as_values<T>(
        run(op, {{"InputTensor", buffer(d.InputTensor, x)}, {"ExponentTensor", buffer(d.ExponentTensor, e)}})
            .at("OutputTensor"));
}

template <class T> std::vector<T> constant_power(DataType t, const std::vector<T>& x, float exponent) {
    CONSTANT_POW d;
    d.InputTensor = d.OutputTensor = desc(t, {uint32_t(x.size())});
    d.Exponent = exponent;
    return as_values<T>(run({OperatorType::ELEMENT_WISE_CONSTANT_POW, d}, {{"InputTensor", buffer(d.InputTensor, x)}})
                            .at("OutputTensor"));
}

template <class T> std::vector<T> atan_yx(DataType t, const std::vector<T>& y, const std::vector<T>& x) {
    ATAN_YX d;
    d.ATensor = d.BTensor = d.OutputTensor = desc(t, {uint32_t(y.size())});
    return as_values<T>(run({OperatorType::ELEMENT_WISE_ATAN_YX, d},
                            {{"ATensor", buffer(d.ATensor, y)}, {"BTensor", buffer(d.BTensor, x)}})
                            .at("OutputTensor"));
}

U32 bits_of(const std::vector<float>& v) {
    U32 out;
    for (float f : v) out.push_back(to_bits(f));
    return out;
}
std::vector<float> floats(std::initializer_list<uint32_t> b) {
    std::vector<float> v;
    for (uint32_t x : b) v.push_back(from_bits<float>(x));
    return v;
}

}  // namespace

TEST_CASE("element_wise_math POW: C99 Annex F's special values and exact powers") {
    // 2^10 = 1024 and 4^0.5 = 2 exactly; (-2)^3 = -8; (-8)^(1/3 rounded) is NaN (a negative base, a non-integral
    // exponent: the page); pow(NaN, 0) = 1 and pow(1, NaN) = 1; pow(+0, -1) = inf, pow(-0, -1) = -inf, pow(-0, -2) =
    // inf; pow(-1, inf) = 1; 2^0.5 = 0x3fb504f3; 10^-2 = 0x3c23d70a; 2^128 = inf; 2^-149 the smallest subnormal;
    // 2^-150, exactly half of it, ties to even: +0.
    const auto x = floats({0x40000000, 0x40800000, 0xc0000000, 0xc1000000, kNaN, kOne, kZero, kNegZero, kNegZero,
                           kNegOne, 0x40000000, 0x41200000, 0x40000000, 0x40000000, 0x40000000});
    const auto e = floats({0x41200000, 0x3f000000, 0x40400000, 0x3eaaaaab, kZero, kNaN, kNegOne, kNegOne, 0xc0000000,
                           kInf, 0x3f000000, 0xc0000000, 0x43000000, 0xc3150000, 0xc3160000});
    CHECK(bits_of(power<float, float>(DataType::FLOAT32, DataType::FLOAT32, x, e)) ==
          U32{0x44800000, 0x40000000, 0xc1000000, kNaN, kOne, kOne, kInf, kNegInf, kInf, kOne, 0x3fb504f3, 0x3c23d70a,
              kInf, 0x00000001, kZero});
    // ScaleBias (2, 0) first: (2 * 1.5)^2 = 9. A FLOAT32 input with an INT32 exponent: 1.5^2 = 2.25, 2^-3 = 0.125.
    CHECK(bits_of(power<float, float>(DataType::FLOAT32, DataType::FLOAT32, floats({0x3fc00000}), floats({0x40000000}),
                                      DML_SCALE_BIAS{2.0f, 0.0f})) == U32{0x41100000});
    CHECK(power<float, int32_t>(DataType::FLOAT32, DataType::INT32, {1.5f, 2.0f}, {2, -3}) ==
          std::vector<float>{2.25f, 0.125f});
}

TEST_CASE("element_wise_math POW of integers: exact, wrapped; negative exponents truncate") {
    // INT8: 2^7 = 128 wraps to -128; 3^5 = 243 wraps to -13; (-2)^3 = -8; 2^-1 = 1/2 truncates to 0; 1^-5 = 1;
    // (-1)^-3 = -1; 0^-1 = 1/0: all bits set (-1); 0^0 = 1.
    CHECK(power<int8_t, int8_t>(DataType::INT8, DataType::INT8, {2, 3, -2, 2, 1, -1, 0, 0},
                                {7, 5, 3, -1, -5, -3, -1, 0}) == std::vector<int8_t>{-128, -13, -8, 0, 1, -1, -1, 1});
    // UINT8: 2^8 = 256 wraps to 0; 3^4 = 81; UINT32: 3^21 = 10460353203 wraps to 10460353203 - 2 * 2^32 = 1870418611.
    CHECK(power<uint8_t, uint8_t>(DataType::UINT8, DataType::UINT8, {2, 3}, {8, 4}) == std::vector<uint8_t>{0, 81});
    CHECK(power<uint32_t, uint32_t>(DataType::UINT32, DataType::UINT32, {3}, {21}) ==
          std::vector<uint32_t>{1870418611u});
    // An integer input with a float exponent: the exact value rounded half to even and saturated:
    // 2^0.5 = 1.41 -> 1; 10^9.5 = 3.2e9 -> INT32_MAX; 2^2.0 = 4.
    CHECK(power<int32_t, float>(DataType::INT32, DataType::FLOAT32, {2, 10, 2}, {0.5f, 9.5f, 2.0f}) ==
          std::vector<int32_t>{1, INT32_MAX, 4});
}

TEST_CASE("element_wise_math CONSTANT_POW: one FLOAT exponent") {
    // Exponent 0.5: 4 -> 2, 2 -> 0x3fb504f3, -1 -> NaN, -0 -> +0 (C99: pow(-0, y) = +0 for y > 0 not an odd integer).
    CHECK(bits_of(constant_power<float>(DataType::FLOAT32, floats({0x40800000, 0x40000000, kNegOne, kNegZero}),
                                        0.5f)) == U32{0x40000000, 0x3fb504f3, kNaN, kZero});
    // Exponent 3: (-0)^3 = -0, (-2)^3 = -8.
    CHECK(bits_of(constant_power<float>(DataType::FLOAT32, floats({kNegZero, 0xc0000000}), 3.0f)) ==
          U32{kNegZero, 0xc1000000});
    // INT16 (outside the tables): 3^2.5 = 15.59 -> 16, 200^2 = 40000 saturates to 32767.
    CHECK(constant_power<int16_t>(DataType::INT16, {3}, 2.5f) == std::vector<int16_t>{16});
    CHECK(constant_power<int16_t>(DataType::INT16, {200}, 2.0f) == std::vector<int16_t>{32767});
}

TEST_CASE("element_wise_math ATAN_YX: quadrants, the origin and the infinities") {
    // atan2(1, 1) = pi/4 (0x3f490fdb); atan2(1, 0) = pi/2; atan2(+0, -0) = pi; atan2(-0, +0) = -0; atan2(-0, -0) = -pi;
    // atan2(inf, -inf) = 3 pi/4 (0x4016cbe4); atan2(-1, -1) = -3 pi/4 (0xc016cbe4); a NaN gives the canonical NaN.
    CHECK(bits_of(atan_yx<float>(DataType::FLOAT32,
                                 floats({kOne, kOne, kZero, kNegZero, kNegZero, kInf, kNegOne, kNaN | 3}),
                                 floats({kOne, kZero, kNegZero, kZero, kNegZero, kNegInf, kNegOne, kOne}))) ==
          U32{0x3f490fdb, 0x3fc90fdb, 0x40490fdb, kNegZero, 0xc0490fdb, 0x4016cbe4, 0xc016cbe4, kNaN});
    // INT32: atan2(1, -1) = 2.36 -> 2; atan2(-5, -1) = -1.77 -> -2.
    CHECK(atan_yx<int32_t>(DataType::INT32, {1, -5}, {-1, -1}) == std::vector<int32_t>{2, -2});
}

TEST_CASE("element_wise_math POW and ATAN_YX agree with glibc's double pow and atan2 rounded, except near ties") {
    std::mt19937 rng(20261128);
    std::uniform_real_distribution<float> base(0.0f, 8.0f), exponent(-30.0f, 30.0f), any(-10.0f, 10.0f);
    std::vector<float> b, p, y, x;
    for (int i = 0; i < 3000; ++i) {
        b.push_back(i % 3 ? base(rng) : -std::floor(base(rng)));
        p.push_back(i % 3 ? exponent(rng) : std::round(exponent(rng)));  // negative bases with integral exponents
        y.push_back(any(rng));
        x.push_back(any(rng));
    }
    const auto got_pow = power<float, float>(DataType::FLOAT32, DataType::FLOAT32, b, p);
    const auto got_atan = atan_yx<float>(DataType::FLOAT32, y, x);
    mpfr_t m1, m2, r;
    mpfr_inits2(2200, m1, m2, r, (mpfr_ptr) nullptr);
    int disagreements = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        INFO("pow(" << b[i] << ", " << p[i] << "), atan2(" << y[i] << ", " << x[i] << ")");
        const double dp = std::pow(double(b[i]), double(p[i]));
        if (std::isnan(dp)) CHECK(to_bits(got_pow[i]) == kNaN);
        else if (to_bits(float(dp)) != to_bits(got_pow[i])) {
            ++disagreements;
            mpfr_set_d(m1, b[i], MPFR_RNDN);
            mpfr_set_d(m2, p[i], MPFR_RNDN);
            mpfr_pow(r, m1, m2, MPFR_RNDN);
            CHECK(to_bits(double(got_pow[i])) == to_bits(mpfr_rounded<float>(static_cast<mpfr_srcptr>(r))));
        }
        const double da = std::atan2(double(y[i]), double(x[i]));
        if (to_bits(float(da)) != to_bits(got_atan[i])) {
            ++disagreements;
            mpfr_set_d(m1, y[i], MPFR_RNDN);
            mpfr_set_d(m2, x[i], MPFR_RNDN);
            mpfr_atan2(r, m1, m2, MPFR_RNDN);
            CHECK(to_bits(double(got_atan[i])) == to_bits(mpfr_rounded<float>(static_cast<mpfr_srcptr>(r))));
        }
    }
    mpfr_clears(m1, m2, r, (mpfr_ptr) nullptr);
    CHECK(disagreements <= 6);
}

TEST_CASE("element_wise_math POW, CONSTANT_POW, ATAN_YX: validation rules") {
    POW d;
    d.InputTensor = d.ExponentTensor = d.OutputTensor = desc(DataType::FLOAT32, {2, 3});
    d.OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_POW, d}, "pow.same-data-type", "/desc/OutputTensor/DataType"));
    d.OutputTensor = desc(DataType::FLOAT32, {2, 3});
    d.ExponentTensor = desc(DataType::INT32, {2, 3});  // a different exponent type is allowed
    CHECK(validate(Operator{OperatorType::ELEMENT_WISE_POW, d}).items().empty());
    d.ExponentTensor = desc(DataType::FLOAT32, {3, 2});
    CHECK(has_error({OperatorType::ELEMENT_WISE_POW, d}, "pow.same-sizes", "/desc/ExponentTensor/Sizes"));
    CONSTANT_POW c;
    c.InputTensor = c.OutputTensor = desc(DataType::INT8, {4});
    c.ScaleBias = DML_SCALE_BIAS{1.0f, 1.0f};
    CHECK(
        has_error({OperatorType::ELEMENT_WISE_CONSTANT_POW, c}, "constant-pow.scale-bias-integer", "/desc/ScaleBias"));
    ATAN_YX a;
    a.ATensor = a.BTensor = a.OutputTensor = desc(DataType::FLOAT32, {4});
    a.BTensor.DataType = DataType::FLOAT16;
    CHECK(has_error({OperatorType::ELEMENT_WISE_ATAN_YX, a}, "atan-yx.same-data-type", "/desc/BTensor/DataType"));
}

}  // namespace dmlref_test_element_wise_math
