// ACTIVATION_SOFTMAX, _SOFTMAX1, _LOG_SOFTMAX, _LOG_SOFTMAX1, _HARDMAX, _HARDMAX1. Expected values
// come from the HARDMAX1 page's three examples, from hand derivation (1/2, 1/3, -ln 2 as Python's
// struct packing gives their bits, the policies' NaN rows and zeros), or from an independent
// computation: the page's own formula exp(x_i) / sum_j exp(x_j) (and its log) evaluated without
// taking the maximum out, in MPFR at 1000 bits, over rows gathered here by nested loops, then
// rounded by the tests' own format emulation (test/mpfr_round.hpp). None comes from dmlref.
#include "support.hpp"
#include "mpfr_round.hpp"

#include "dmlref/descs/softmax.hpp"
#include "dmlref/diff.hpp"

#include "../reference/softmax.hpp"

#include <cmath>
#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_softmax {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using OT = OperatorType;
using SM = DML_ACTIVATION_SOFTMAX_OPERATOR_DESC;
using SM1 = DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC;
using LSM = DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC;
using LSM1 = DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC;
using HM = DML_ACTIVATION_HARDMAX_OPERATOR_DESC;
using HM1 = DML_ACTIVATION_HARDMAX1_OPERATOR_DESC;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kCanonicalNaN = 0x7fc00000;

template <class D> Operator listed(DataType t, std::vector<uint32_t> sizes, std::vector<uint32_t> axes) {
    D d;
    d.InputTensor = d.OutputTensor = desc(t, std::move(sizes));
    d.AxisCount = uint32_t(axes.size());
    d.Axes = std::move(axes);
    return {D::kType, d};
}
template <class D> Operator last(DataType t, std::vector<uint32_t> sizes) {
    D d;
    d.InputTensor = d.OutputTensor = desc(t, std::move(sizes));
    return {D::kType, d};
}

std::vector<uint32_t> bits_out(const Operator& op, const std::vector<float>& x) {
    const TensorDesc& in = *tensor_fields(op).front().desc;
    const auto y = as_values<float>(run(op, {{"InputTensor", buffer(in, x)}}).at("OutputTensor"));
    std::vector<uint32_t> b;
    for (float v : y) b.push_back(to_bits(v));
    return b;
}
std::vector<uint32_t> bits_of(const std::vector<float>& v) {
    std::vector<uint32_t> b;
    for (float f : v) b.push_back(to_bits(f));
    return b;
}

// The page's formula over one row at 1000 bits, rounded to T: exp(x_i) / sum exp(x_j), or
// x_i - log(sum exp(x_j)); -inf elements add nothing. For rows of moderate values (|x| < 100).
template <class T> double naive(bool log, const std::vector<double>& row, size_t i) {
    mpfr_t s, e, y;
    mpfr_inits2(1000, s, e, y, (mpfr_ptr) nullptr);
    mpfr_set_ui(s, 0, MPFR_RNDN);
    for (double v : row) {
        if (std::isinf(v)) continue;
        mpfr_set_d(e, v, MPFR_RNDN);
        mpfr_exp(e, e, MPFR_RNDN);
        mpfr_add(s, s, e, MPFR_RNDN);
    }
    if (log) {
        mpfr_log(s, s, MPFR_RNDN);
        mpfr_set_d(y, row[i], MPFR_RNDN);
        mpfr_sub(y, y, s, MPFR_RNDN);
    } else {
        mpfr_set_d(e, row[i], MPFR_RNDN);
        mpfr_exp(e, e, MPFR_RNDN);
        mpfr_div(y, e, s, MPFR_RNDN);
    }
    double r = std::isinf(row[i]) ? (log ? -INFINITY : 0.0) : mpfr_rounded<T>(static_cast<mpfr_srcptr>(y));
    if (r == 0 && mpfr_sgn(y) < 0) r = -0.0;
    mpfr_clears(s, e, y, (mpfr_ptr) nullptr);
    return r;
}

bool judged(const Operator& op, const std::vector<float>& x, const std::vector<float>& actual) {
    Case c;
    c.op = op;
    c.inputs["InputTensor"] = logical_buffer(*tensor_fields(op).front().desc, x);
    c = with_golden(c, "OutputTensor");
    std::vector<std::byte> b(actual.size() * 4);
    std::memcpy(b.data(), actual.data(), b.size());
    return census(c, "OutputTensor", b, {}).passed();
}

}  // namespace

TEST_CASE("HARDMAX1: the page's three examples; HARDMAX over the last dimension") {
    const std::vector<float> x = {12, 0, -101, 11, 3, 234, 0, -101};
    auto hm1 = [&](std::vector<uint32_t> axes) {
        return as_values<float>(run(listed<HM1>(DataType::FLOAT32, {2, 2, 2}, axes),
                                    {{"InputTensor", buffer(desc(DataType::FLOAT32, {2, 2, 2}), x)}})
                                    .at("OutputTensor"));
    };
    CHECK(hm1({1}) == std::vector<float>{1, 0, 0, 1, 1, 1, 0, 0});
    CHECK(hm1({0}) == std::vector<float>{1, 0, 0, 1, 0, 1, 1, 0});
    CHECK(hm1({0, 2}) == std::vector<float>{0, 0, 0, 1, 0, 1, 0, 0});
    // HARDMAX is HARDMAX1 over the last dimension ({1, 1, 2, 4}: effective rank 2).
    CHECK(bits_out(last<HM>(DataType::FLOAT32, {1, 1, 2, 4}), x) == bits_of({1, 0, 0, 0, 0, 1, 0, 0}));
}

TEST_CASE("HARDMAX: the first largest wins; NaN loses to any number; -0 and +0 tie; zeros are +0") {
    const Operator op = last<HM>(DataType::FLOAT32, {5, 3});
    const std::vector<float> x = {2,     2,     1,     // a tie: the first
                                  kNaN,  -kInf, -5,    // NaN loses: -5
                                  kNaN,  kNaN,  kNaN,  // all NaN: the first
                                  -0.0f, 0.0f,  -1,    // -0 and +0 equal: the first
                                  kInf,  1,     kInf};
    CHECK(bits_out(op, x) == bits_of({1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0}));
    // Several axes: the first in row-major order over the axes, whatever order Axes lists them in.
    const std::vector<float> t = {5, 1, 1, 5};  // [[5, 1], [1, 5]]: the row over both axes ties at (0,0) and (1,1)
    CHECK(bits_out(listed<HM1>(DataType::FLOAT32, {2, 2}, {1, 0}), t) == bits_of({1, 0, 0, 0}));
}

TEST_CASE("SOFTMAX and LOG_SOFTMAX: hand-derived values, the NaN rows and the zeros") {
    const Operator sm = last<SM>(DataType::FLOAT32, {1, 2}), lsm = last<LSM>(DataType::FLOAT32, {1, 2});
    // [0, 0]: 1/2 each; log: -ln 2 = 0xbf317218 (struct.pack('>f', -math.log(2))).
    CHECK(bits_out(sm, {0, 0}) == bits_of({0.5f, 0.5f}));
    CHECK(bits_out(lsm, {0, 0}) == std::vector<uint32_t>{0xbf317218, 0xbf317218});
    // [7, 7, 7]: 1/3 = 0x3eaaaaab; log: -ln 3 = 0xbf8c9f54.
    CHECK(bits_out(last<SM>(DataType::FLOAT32, {3}), {7, 7, 7}) ==
          std::vector<uint32_t>{0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab});
    CHECK(bits_out(last<LSM>(DataType::FLOAT32, {3}), {7, 7, 7}) ==
          std::vector<uint32_t>{0xbf8c9f54, 0xbf8c9f54, 0xbf8c9f54});
    // One finite element and -inf: 1 and +0; log: exactly 0 (+0) and -inf.
    CHECK(bits_out(sm, {3, -kInf}) == bits_of({1, 0}));
    CHECK(bits_out(lsm, {-kInf, 3}) == bits_of({-kInf, 0}));
    // NaN, +inf, and -inf only: the whole row is the canonical NaN.
    for (const auto& row : std::vector<std::vector<float>>{{kNaN, 1}, {kInf, 1}, {-kInf, -kInf}}) {
        CHECK(bits_out(sm, row) == std::vector<uint32_t>{kCanonicalNaN, kCanonicalNaN});
        CHECK(bits_out(lsm, row) == std::vector<uint32_t>{kCanonicalNaN, kCanonicalNaN});
    }
    // One huge element: [1000, 0] gives 1 and e^-1000 -> +0; log: -e^-1000 rounds to -0, and -1000 - e^-1000 to -1000.
    CHECK(bits_out(sm, {1000, 0}) == bits_of({1, 0}));
    CHECK(bits_out(lsm, {1000, 0}) == bits_of({-0.0f, -1000}));
    // Every other element more than 2^29 below the largest.
    CHECK(bits_out(sm, {1e30f, -1e30f}) == bits_of({1, 0}));
    CHECK(bits_out(lsm, {1e30f, -1e30f}) == bits_of({-0.0f, -2e30f}));
    // x_i - m can be a midpoint: [2^25, -2] gives -(2^25 + 2), halfway between FLOAT32's -2^25 and
    // -(2^25 + 4); log1p(e^-(2^25+2)) > 0 puts the exact value beyond it: -(2^25 + 4), not the even -2^25.
    CHECK(bits_out(lsm, {33554432.0f, -2}) == bits_of({-0.0f, -33554436.0f}));
    // Subnormal results are kept: softmax([0, -100]) in FLOAT32 is e^-100 / (1 + e^-100) = 3.72e-44 = 27 * 2^-149.
    CHECK(bits_out(sm, {0, -100}) == std::vector<uint32_t>{0x3f800000, 27});
}

TEST_CASE("SOFTMAX1 and LOG_SOFTMAX1: random rows over one and several axes, against the page's formula in MPFR") {
    std::mt19937 rng(20261127);
    std::uniform_real_distribution<float> value(-12, 12);
    const std::vector<uint32_t> sizes = {3, 4, 5};
    std::vector<float> x(60);
    for (size_t i = 0; i < x.size(); ++i) x[i] = i % 17 == 3 ? -kInf : i % 13 == 5 ? 4.0f : value(rng);
    for (const auto& axes : std::vector<std::vector<uint32_t>>{{2}, {0}, {2, 0}, {0, 1, 2}})
        for (bool log : {false, true}) {
            INFO("axes " << axes.size() << " log " << log);
            const Operator op = log ? listed<LSM1>(DataType::FLOAT32, sizes, axes)
                                    : listed<SM1>(DataType::FLOAT32, sizes, axes);
            const auto got = bits_out(op, x);
            // Each element's row: the elements that agree with it outside the axes, by nested loops.
            for (uint32_t a = 0; a < 3; ++a)
                for (uint32_t b = 0; b < 4; ++b)
                    for (uint32_t c = 0; c < 5; ++c) {
                        const uint32_t at[3] = {a, b, c};
                        std::vector<double> row;
                        size_t self = 0;
                        for (uint32_t p = 0; p < 3; ++p)
                            for (uint32_t q = 0; q < 4; ++q)
                                for (uint32_t r = 0; r < 5; ++r) {
                                    const uint32_t co[3] = {p, q, r};
                                    bool same = true;
                                    for (uint32_t k = 0; k < 3; ++k)
                                        if (std::find(axes.begin(), axes.end(), k) == axes.end() && co[k] != at[k])
                                            same = false;
                                    if (!same) continue;
                                    if (p == a && q == b && r == c) self = row.size();
                                    row.push_back(x[(p * 4 + q) * 5 + r]);
                                }
                        const uint32_t flat = (a * 4 + b) * 5 + c;
                        CHECK(got[flat] == to_bits(float(naive<float>(log, row, self))));
                    }
        }
}

TEST_CASE("SOFTMAX and LOG_SOFTMAX: FLOAT16, strided and broadcast inputs, against the page's formula in MPFR") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-8, 8);
    // InputTensor {2, 6} stored transposed (strides 1, 2); the row of [i, :] is x[i + 2 j].
    std::vector<half> storage(12);
    for (auto& h : storage) h = half_from_double(value(rng));
    for (OT type : {OT::ACTIVATION_SOFTMAX, OT::ACTIVATION_LOG_SOFTMAX}) {
        SM s;  // one struct layout for both
        s.InputTensor = desc(DataType::FLOAT16, {2, 6}, {1, 2});
        s.OutputTensor = desc(DataType::FLOAT16, {2, 6});
        const Operator op = type == OT::ACTIVATION_SOFTMAX ? Operator{type, s}
                                                           : Operator{type, LSM{s.InputTensor, s.OutputTensor}};
        std::vector<std::byte> in(storage.size() * 2);
        std::memcpy(in.data(), storage.data(), in.size());
        const auto y = as_values<half>(run(op, {{"InputTensor", in}}).at("OutputTensor"));
        for (size_t i = 0; i < 2; ++i) {
            std::vector<double> row;
            for (size_t j = 0; j < 6; ++j) row.push_back(half_to_double(storage[i + 2 * j]));
            for (size_t j = 0; j < 6; ++j)
                CHECK(to_bits(y[i * 6 + j]) ==
                      to_bits(half_from_double(naive<half>(type == OT::ACTIVATION_LOG_SOFTMAX, row, j))));
        }
    }
    // Broadcast: a {3, 4} input whose rows are one row (strides 0, 1): every output row the same.
    SM1 b;
    b.InputTensor = desc(DataType::FLOAT32, {3, 4}, {0, 1});
    b.OutputTensor = desc(DataType::FLOAT32, {3, 4});
    b.AxisCount = 1;
    b.Axes = {1};
    const std::vector<float> r = {1, 2, 3, 4};
    std::vector<std::byte> in(16);
    std::memcpy(in.data(), r.data(), 16);
    const auto y = as_values<float>(run({OT::ACTIVATION_SOFTMAX1, b}, {{"InputTensor", in}}).at("OutputTensor"));
    for (size_t i = 0; i < 12; ++i) CHECK(to_bits(y[i]) == to_bits(float(naive<float>(false, {1, 2, 3, 4}, i % 4))));
}

TEST_CASE("softmax: the float64 pass and Ziv's loop alone give the same bits, long rows and hard values included") {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> value(-30, 30);
    using reference::SoftmaxKind;
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT16})
        for (SoftmaxKind k : {SoftmaxKind::Softmax, SoftmaxKind::LogSoftmax}) {
            std::vector<std::vector<double>> rows = {{0, -1e-7, 1e-7}, {65504, -65504, 0}, {1, 1, 1, 0.5}};
            std::vector<double> longrow(1000);
            for (double& v : longrow)
                v = t == DataType::FLOAT32 ? double(float(value(rng))) : half_to_double(half_from_double(value(rng)));
            rows.push_back(longrow);
            for (auto& row : rows) {
                for (double& v : row)
                    v = t == DataType::FLOAT32 ? double(float(v)) : half_to_double(half_from_double(v));
                CHECK(reference::softmax_row(k, t, row, true) == reference::softmax_row(k, t, row, false));
            }
        }
}

TEST_CASE(
    "SOFTMAX and LOG_SOFTMAX judging: a naive float32 backend passes; a dropped term and a missing max shift are caught") {
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 37 % 101) - 50) / 8.0f;
    const Operator sm = last<SM>(DataType::FLOAT32, {64}), lsm = last<LSM>(DataType::FLOAT32, {64});
    float m = -kInf;
    for (float v : x) m = std::max(m, v);
    float s = 0, s_dropped = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        s += std::exp(x[i] - m);
        if (i != 9) s_dropped += std::exp(x[i] - m);
    }
    std::vector<float> y, y_dropped, ly, ly_off;
    for (float v : x) {
        y.push_back(std::exp(v - m) / s);
        y_dropped.push_back(std::exp(v - m) / s_dropped);
        ly.push_back((v - m) - std::log(s));
        ly_off.push_back((v - m) - std::log(s) + 0x1p-10f);
    }
    CHECK(judged(sm, x, y));
    CHECK_FALSE(judged(sm, x, y_dropped));
    CHECK(judged(lsm, x, ly));
    CHECK_FALSE(judged(lsm, x, ly_off));
    // A row that overflows float32 without the max taken out: exp(100) is infinite, so y = NaN fails.
    std::vector<float> big = {100, 99};
    CHECK(judged(last<SM>(DataType::FLOAT32, {2}), big, {1 / (1 + std::exp(-1.0f)), 1 / (1 + std::exp(1.0f))}));
    CHECK_FALSE(judged(last<SM>(DataType::FLOAT32, {2}), big, {kNaN, kNaN}));
    // A row with the largest finite float, [-1, FLT_MAX, -FLT_MAX]: exactly [0, 1, 0] (exp(-1 - FLT_MAX)
    // is far below every subnormal). x - m overflows float32 at -FLT_MAX - FLT_MAX, and an input equal
    // to FLT_MAX once counted as out of range: the bound was infinite and a NaN row passed (found by a
    // FLOAT32 softmax computed in FLOAT16 on a GPU, where FLT_MAX is inf and the row NaN).
    const float fmax = std::numeric_limits<float>::max();
    CHECK(judged(last<SM>(DataType::FLOAT32, {3}), {-1, fmax, -fmax}, {0, 1, 0}));
    CHECK_FALSE(judged(last<SM>(DataType::FLOAT32, {3}), {-1, fmax, -fmax}, {kNaN, kNaN, kNaN}));
    CHECK_FALSE(judged(last<SM>(DataType::FLOAT32, {3}), {-1, fmax, -fmax}, {0, 0.5f, 0}));
    // Its LOG_SOFTMAX by hand: -1 - FLT_MAX rounds to -FLT_MAX; -log(1 + e^(-1 - FLT_MAX)) is a negative
    // tiny value, -0; -2 FLT_MAX is past FLOAT32's range, -inf, which a backend must match.
    const float finf = std::numeric_limits<float>::infinity();
    CHECK(judged(last<LSM>(DataType::FLOAT32, {3}), {-1, fmax, -fmax}, {-fmax, -0.0f, -finf}));
    CHECK_FALSE(judged(last<LSM>(DataType::FLOAT32, {3}), {-1, fmax, -fmax}, {-fmax, -0.0f, -fmax}));
    CHECK_FALSE(judged(last<LSM>(DataType::FLOAT32, {3}), {-1, fmax, -fmax}, {-fmax, -0.0f, kNaN}));
    // HARDMAX bit for bit: the last of tied maxima is wrong.
    CHECK(judged(last<HM>(DataType::FLOAT32, {3}), {1, 2, 2}, {0, 1, 0}));
    CHECK_FALSE(judged(last<HM>(DataType::FLOAT32, {3}), {1, 2, 2}, {0, 0, 1}));
}

TEST_CASE("softmax family: every rule of the pages, with its rule id") {
    Operator op = last<SM>(DataType::FLOAT32, {2, 3});
    get<SM>(op.Desc).OutputTensor.DataType = DataType::FLOAT16;
    CHECK(has_error(op, "softmax.same-data-type", "/desc/OutputTensor/DataType"));
    op = last<LSM>(DataType::FLOAT32, {2, 3});
    get<LSM>(op.Desc).OutputTensor.Sizes = {3, 2};
    CHECK(has_error(op, "log-softmax.same-sizes", "/desc/OutputTensor/Sizes"));
    CHECK(has_error(last<HM>(DataType::INT32, {2, 3}), "hardmax.data-type", "/desc/InputTensor/DataType"));
    CHECK(has_error(last<SM>(DataType::FLOAT32, {2, 2, 3}), "softmax.effective-rank", "/desc/InputTensor/Sizes"));
    CHECK_FALSE(
        has_error(last<SM>(DataType::FLOAT32, {1, 1, 2, 3}), "softmax.effective-rank", "/desc/InputTensor/Sizes"));
    CHECK(has_error(listed<SM1>(DataType::FLOAT32, {2, 3}, {}), "softmax1.axis-count", "/desc/AxisCount"));
    Operator l = listed<LSM1>(DataType::FLOAT32, {2, 3}, {1});
    get<LSM1>(l.Desc).Axes = {0, 1};
    CHECK(has_error(l, "log-softmax1.axes-length", "/desc/Axes"));
    CHECK(has_error(listed<HM1>(DataType::FLOAT32, {2, 3}, {2}), "hardmax1.axis-range", "/desc/Axes/0"));
    CHECK(has_error(listed<HM1>(DataType::FLOAT16, {2, 3}, {1, 1}), "hardmax1.axes-distinct", "/desc/Axes/1"));
}

}  // namespace dmlref_test_softmax
