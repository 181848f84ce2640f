// The GEMM family: GEMM, MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT. Expected values are derived by hand (written
// out below with why) or computed here independently: GMP rationals over A and B read in their
// transposed layout, rounded once by MPFR (test/mpfr_round.hpp), and a plain int64 loop for the
// integer product; none comes from dmlref.
#include "mpfr_round.hpp"
#include "support.hpp"

#include "dmlref/descs/gemm.hpp"
#include "dmlref/diff.hpp"

#include "../reference/fast/switch.hpp"

#include <limits>
#include <random>
#include <utility>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_gemm {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using GEMM = DML_GEMM_OPERATOR_DESC;
using MMI = DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC;
using MMIF = DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC;

float f32(uint32_t bits) { return from_bits<float>(bits); }
const float kInf = std::numeric_limits<float>::infinity();

struct GemmSpec {
    DataType t = DataType::FLOAT32;
    std::vector<uint32_t> a, b, out;  // Sizes as stored (A is [K, M] with TransA)
    bool ta = false, tb = false;
    float alpha = 1, beta = 1;
    bool c = false;
    std::vector<uint32_t> a_strides = {}, c_strides = {};
};

Operator gemm_op(const GemmSpec& s) {
    GEMM d;
    d.ATensor = desc(s.t, s.a, s.a_strides);
    d.BTensor = desc(s.t, s.b);
    if (s.c) d.CTensor = desc(s.t, s.out, s.c_strides);
    d.OutputTensor = desc(s.t, s.out);
    d.TransA = s.ta;
    d.TransB = s.tb;
    d.Alpha = s.alpha;
    d.Beta = s.beta;
    return {GEMM::kType, d};
}

template <class T>
std::vector<T> gemm(const Operator& op, const std::vector<T>& a, const std::vector<T>& b,
                    const std::vector<T>& c = {}) {
    const GEMM& d = get<GEMM>(op.Desc);
    std::map<std::string, std::vector<std::byte>> in = {{"ATensor", logical_buffer(d.ATensor, a)},
                                                        {"BTensor", logical_buffer(d.BTensor, b)}};
    if (d.CTensor) in["CTensor"] = logical_buffer(*d.CTensor, c);
    return as_values<T>(run(op, in).at("OutputTensor"));
}
std::vector<float> gemm(const GemmSpec& s, const std::vector<float>& a, const std::vector<float>& b,
                        const std::vector<float>& c = {}) {
    return gemm<float>(gemm_op(s), a, b, c);
}

Operator mmi_op(DataType ta, DataType tb, std::vector<uint32_t> a, std::vector<uint32_t> b, std::vector<uint32_t> out) {
    MMI d;
    d.ATensor = desc(ta, std::move(a));
    d.BTensor = desc(tb, std::move(b));
    d.OutputTensor = desc(DataType::INT32, std::move(out));
    return {MMI::kType, d};
}

}  // namespace

TEST_CASE("GEMM: hand-derived products, Alpha, Beta, C and both transposes") {
    // A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]]: AB = [[58, 64], [139, 154]].
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
    CHECK(gemm({.a = {2, 3}, .b = {3, 2}, .out = {2, 2}}, a, b) == std::vector<float>{58, 64, 139, 154});
    // Alpha 2, Beta 0.5, C = [[1, 2], [3, 4]]: 2 AB + C / 2.
    CHECK(gemm({.a = {2, 3}, .b = {3, 2}, .out = {2, 2}, .alpha = 2, .beta = 0.5f, .c = true}, a, b, {1, 2, 3, 4}) ==
          std::vector<float>{116.5f, 129, 279.5f, 310});
    // The same A stored transposed ([3, 2], TransA) and B stored transposed ([2, 3], TransB).
    CHECK(gemm({.a = {3, 2}, .b = {2, 3}, .out = {2, 2}, .ta = true, .tb = true}, {1, 4, 2, 5, 3, 6},
               {7, 9, 11, 8, 10, 12}) == std::vector<float>{58, 64, 139, 154});
    // Without CTensor, Beta is ignored (GemmBetaWithoutC=Ignored): a NaN Beta changes nothing.
    CHECK(gemm({.a = {2, 3}, .b = {3, 2}, .out = {2, 2}, .beta = std::numeric_limits<float>::quiet_NaN()}, a, b) ==
          std::vector<float>{58, 64, 139, 154});
    // 4-D: two batches, one channel; A's batch broadcast through a zero stride (Strides 0, 0, 3, 1).
    CHECK(gemm({.a = {2, 1, 2, 3}, .b = {2, 1, 3, 2}, .out = {2, 1, 2, 2}, .a_strides = {0, 0, 3, 1}},
               {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6},
               {7, 8, 9, 10, 11, 12, 1, 0, 0, 1, 0, 0}) == std::vector<float>{58, 64, 139, 154, 1, 2, 4, 5});
    // C broadcast along rows through a zero stride: c = [10, 20] for every row.
    CHECK(gemm({.a = {2, 3}, .b = {3, 2}, .out = {2, 2}, .c = true, .c_strides = {0, 1}}, a, b, {10, 20, 10, 20}) ==
          std::vector<float>{68, 84, 149, 174});
}

TEST_CASE("GEMM: the value is exact and rounded once (GemmValue=ExactThenRoundOnce)") {
    // A = [1, 2^-24], B = [1, 1]: AB = 1 + 2^-24, a float32 tie that rounds to 1; with C = 2^-25
    // the exact 1 + 2^-24 + 2^-25 is above the tie and rounds up to 1 + 2^-23 (0x3f800001).
    // Rounding AB first gives 1 + 2^-25, which rounds to 1.
    check_bits(gemm({.a = {1, 2}, .b = {2, 1}, .out = {1, 1}, .c = true}, {1, 0x1p-24f}, {1, 1}, {0x1p-25f}),
               std::vector<float>{f32(0x3f800001)});
    // Alpha = 1/3 in float32 (0x3eaaaaab = 11184811 / 2^25, so 3 Alpha = 1 + 2^-25 exactly), A = [3, 3],
    // B = [1, 2^-24]: the exact value (1 + 2^-25)(1 + 2^-24) = 1 + 2^-24 + 2^-25 + 2^-49 is above the
    // tie 1 + 2^-24 and rounds to 1 + 2^-23 (0x3f800001). Alpha's every digit counts.
    check_bits(gemm({.a = {1, 2}, .b = {2, 1}, .out = {1, 1}, .alpha = f32(0x3eaaaaab)}, {3, 3}, {1, 0x1p-24f}),
               std::vector<float>{f32(0x3f800001)});
    // Cancellation: [2^30, 1, -2^30] . [1, 1, 1] is exactly 1 (a float32 left-to-right sum gives 0).
    CHECK(gemm({.a = {1, 3}, .b = {3, 1}, .out = {1, 1}}, {0x1p30f, 1, -0x1p30f}, {1, 1, 1}) == std::vector<float>{1});
    // FLOAT16: 65504 + 65504 - 65504 overflows a left-to-right FLOAT16 sum, but the exact value is 65504.
    const Operator h = gemm_op({.t = DataType::FLOAT16, .a = {1, 3}, .b = {3, 1}, .out = {1, 1}});
    CHECK(gemm<half>(h, {half(65504.f), half(65504.f), half(-65504.f)}, {half(1.f), half(1.f), half(1.f)}) ==
          std::vector<half>{half(65504.f)});
    // FLOAT16 subnormals: 2^-24 * 2^-1 = 2^-25 is half the smallest subnormal, a tie: rounds to +0;
    // two of them are 2^-24 exactly.
    const Operator h2 = gemm_op({.t = DataType::FLOAT16, .a = {1, 2}, .b = {2, 1}, .out = {1, 1}});
    check_bits(gemm<half>(h2, {from_bits<half>(1), from_bits<half>(1)}, {half(0.5f), half(0.5f)}),
               std::vector<half>{from_bits<half>(1)});
    check_bits(gemm<half>(h2, {from_bits<half>(1), half(0.f)}, {half(0.5f), half(0.5f)}), std::vector<half>{half(0.f)});
}

TEST_CASE("GEMM: zeros, NaN and infinities (NonFiniteSum=CanonicalNaN, ZeroResult=PositiveZero)") {
    const GemmSpec s{.a = {1, 2}, .b = {2, 1}, .out = {1, 1}};
    check_bits(gemm(s, {-0.f, -0.f}, {1, 1}), std::vector<float>{0.f});  // -0 + -0: a sum starts from +0
    check_bits(gemm(s, {kInf, 1}, {1, 1}), std::vector<float>{kInf});
    check_bits(gemm(s, {kInf, kInf}, {1, -1}), std::vector<float>{f32(0x7fc00000)});         // +inf - inf
    check_bits(gemm(s, {kInf, 1}, {0, 1}), std::vector<float>{f32(0x7fc00000)});             // inf x 0
    check_bits(gemm(s, {f32(0x7fc00123), 1}, {1, 1}), std::vector<float>{f32(0x7fc00000)});  // payload not kept
    // Alpha 0 times an infinite product is NaN; Alpha infinite times a zero sum is NaN, times a
    // positive sum +inf, times a negative one -inf.
    GemmSpec z = s;
    z.alpha = 0;
    check_bits(gemm(z, {kInf, 1}, {1, 1}), std::vector<float>{f32(0x7fc00000)});
    check_bits(gemm(z, {5, 1}, {1, 1}), std::vector<float>{0.f});
    z.alpha = kInf;
    check_bits(gemm(z, {1, -1}, {1, 1}), std::vector<float>{f32(0x7fc00000)});
    check_bits(gemm(z, {1, 0x1p-149f}, {0x1p-149f, 0}), std::vector<float>{kInf});  // 2^-298 > 0
    check_bits(gemm(z, {-1, 0}, {1, 0}), std::vector<float>{-kInf});
    // Large values: 2^127 * 2 - 2^127 = 2^127 exactly (a partial sum 2^128 would overflow float32);
    // 2^127 * 2 + 2^127 * 2 = 2^129 overflows: +inf.
    check_bits(gemm(s, {0x1p127f, 0x1p127f}, {2, -1}), std::vector<float>{0x1p127f});
    check_bits(gemm(s, {0x1p127f, 0x1p127f}, {2, 2}), std::vector<float>{kInf});
}

TEST_CASE("GEMM: random shapes against exact rationals over the transposed layout") {
    std::mt19937 rng(2211);
    std::uniform_int_distribution<int> dim(1, 5), mant(-(1 << 20), 1 << 20), ex(-30, 10);
    for (int trial = 0; trial < 24; ++trial) {
        const uint32_t M = uint32_t(dim(rng)), N = uint32_t(dim(rng)),
                       K = uint32_t(dim(rng)) * (trial % 5 == 0 ? 40 : 1);
        const bool ta = trial % 2, tb = (trial / 2) % 2, with_c = trial % 3 != 0;
        const float alpha = trial % 4 == 0 ? 1.f : std::ldexp(float(mant(rng)), -20),
                    beta = std::ldexp(float(mant(rng)), -19);
        auto value = [&] { return std::ldexp(float(mant(rng)), ex(rng) - 20); };
        // A^T stored [K, M] when ta: at[k][m]; B^T stored [N, K] when tb.
        std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
        for (auto& v : a) v = value();
        for (auto& v : b) v = value();
        for (auto& v : c) v = value();
        GemmSpec s{.a = ta ? std::vector<uint32_t>{K, M} : std::vector<uint32_t>{M, K},
                   .b = tb ? std::vector<uint32_t>{N, K} : std::vector<uint32_t>{K, N},
                   .out = {M, N},
                   .ta = ta,
                   .tb = tb,
                   .alpha = alpha,
                   .beta = beta,
                   .c = with_c};
        const std::vector<float> got = gemm(s, a, b, c);
        for (uint32_t m = 0; m < M; ++m)
            for (uint32_t n = 0; n < N; ++n) {
                // Walk k from the end, reading the stored (possibly transposed) layouts directly.
                mpq_class sum = 0;
                for (uint32_t k = K; k-- > 0;) {
                    const float av = ta ? a[size_t(k) * M + m] : a[size_t(m) * K + k];
                    const float bv = tb ? b[size_t(n) * K + k] : b[size_t(k) * N + n];
                    sum += mpq_class(double(av)) * mpq_class(double(bv));
                }
                mpq_class exact = mpq_class(double(alpha)) * sum;
                if (with_c) exact += mpq_class(double(beta)) * mpq_class(double(c[size_t(m) * N + n]));
                const double want = mpfr_rounded<float>(std::as_const(exact));
                INFO("trial " << trial << " m " << m << " n " << n << " K " << K);
                CHECK(double(got[size_t(m) * N + n]) == want);
            }
    }
}

TEST_CASE("GEMM: FLOAT16 against exact rationals, Alpha and Beta from FLOAT32") {
    // Operands of at most 11 significant bits (FLOAT16 values), 4-D with the batch read through
    // a per-batch offset; the exact value rounded once to FLOAT16 by MPFR, subnormals included.
    std::mt19937 rng(16);
    std::uniform_int_distribution<int> mant(-2047, 2047), ex(-16, 2);
    const uint32_t B0 = 2, M = 3, N = 2, K = 7;
    auto value = [&] { return half(std::ldexp(float(mant(rng)), ex(rng) - 11)); };
    std::vector<half> a(B0 * M * K), b(B0 * K * N), c(B0 * M * N);
    for (auto& v : a) v = value();
    for (auto& v : b) v = value();
    for (auto& v : c) v = value();
    const float alpha = f32(0x3f9d70a4), beta = -0.375f;  // 1.23 in FLOAT32
    const Operator op = gemm_op({.t = DataType::FLOAT16,
                                 .a = {B0, 1, M, K},
                                 .b = {B0, 1, K, N},
                                 .out = {B0, 1, M, N},
                                 .alpha = alpha,
                                 .beta = beta,
                                 .c = true});
    const std::vector<half> got = gemm<half>(op, a, b, c);
    for (uint32_t p = 0; p < B0; ++p)
        for (uint32_t m = 0; m < M; ++m)
            for (uint32_t n = 0; n < N; ++n) {
                mpq_class sum = 0;
                for (uint32_t k = 0; k < K; ++k)
                    sum += mpq_class(double(float(a[(p * M + m) * K + k]))) *
                           mpq_class(double(float(b[(p * K + k) * N + n])));
                const mpq_class exact = mpq_class(double(alpha)) * sum +
                                        mpq_class(double(beta)) * mpq_class(double(float(c[(p * M + m) * N + n])));
                const double want = mpfr_rounded<half>(std::as_const(exact));
                INFO("batch " << p << " m " << m << " n " << n);
                CHECK(double(float(got[(p * M + m) * N + n])) == want);
            }
}

TEST_CASE("GEMM: FastSum's proof and the exact accumulator alone give the same bits") {
    // Values from a few binades apart, with ties and cancellations, so that some elements are
    // decided by FastSum and others fall back to ExactSum; Alpha inexact (split into two terms).
    std::mt19937 rng(99);
    const float pool[] = {0x1p30f, -0x1p30f,      1,         -1,   0x1p-24f, -0x1p-25f,
                          3,       0x1.fffffep0f, 0x1p-149f, -0.f, 0x1p100f, -0x1p100f};
    std::uniform_int_distribution<size_t> pick(0, std::size(pool) - 1);
    const uint32_t M = 4, N = 5, K = 9;
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (auto& v : a) v = pool[pick(rng)];
    for (auto& v : b) v = pool[pick(rng)];
    for (auto& v : c) v = pool[pick(rng)];
    for (const float alpha : {1.f, f32(0x3eaaaaab), -0x1p-3f}) {
        const GemmSpec s{.a = {M, K}, .b = {K, N}, .out = {M, N}, .alpha = alpha, .beta = f32(0x3dcccccd), .c = true};
        reference::set_fast_paths_enabled(false);
        const std::vector<float> exact = gemm(s, a, b, c);
        reference::set_fast_paths_enabled(true);
        check_bits(gemm(s, a, b, c), exact);
    }
}

TEST_CASE("GEMM: FusedActivation applies to the rounded value (FusedActivationInput=RoundedSum)") {
    Operator op = gemm_op({.a = {1, 2}, .b = {2, 1}, .out = {1, 1}});
    get<GEMM>(op.Desc).FusedActivation = DML_FUSED_ACTIVATION{5, {0, 0}};  // ACTIVATION_RELU
    CHECK(gemm<float>(op, {-3, 1}, {1, 1}) == std::vector<float>{0});
    CHECK(gemm<float>(op, {3, 1}, {1, 1}) == std::vector<float>{4});
    // LINEAR(1, -1) of 1 + 2^-24: the value rounds to 1 first, so the result is +0, not 2^-24.
    get<GEMM>(op.Desc).FusedActivation = DML_FUSED_ACTIVATION{0, {1, -1}};
    check_bits(gemm<float>(op, {1, 0x1p-24f}, {1, 1}), std::vector<float>{0.f});
}

TEST_CASE("GEMM: every rule of the page, with its rule id") {
    const GemmSpec ok{.a = {2, 3}, .b = {3, 2}, .out = {2, 2}, .c = true};
    auto with = [&](auto&& f) {
        Operator op = gemm_op(ok);
        f(get<GEMM>(op.Desc));
        return op;
    };
    CHECK_FALSE(validate(gemm_op(ok)).has_errors());
    CHECK(has_error(with([](GEMM& d) { d.BTensor.DataType = DataType::FLOAT16; }), "gemm.same-data-type",
                    "/desc/BTensor/DataType"));
    CHECK(has_error(
        with([](GEMM& d) {
            d.ATensor.DataType = d.BTensor.DataType = d.CTensor->DataType = d.OutputTensor.DataType = DataType::INT32;
        }),
        "gemm.data-type", "/desc/OutputTensor/DataType"));
    CHECK(has_error(with([](GEMM& d) { d.TransA = 2; }), "gemm.transform", "/desc/TransA"));
    CHECK(has_error(with([](GEMM& d) {
                        d.ATensor.Sizes = {1, 2, 3};
                    }),
                    "gemm.same-dimension-count", "/desc/ATensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) { d.ATensor.Sizes = {6}; }), "gemm.dimension-count", "/desc/ATensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) { d.BTensor.Sizes = {4, 2}; }), "gemm.inner-size", "/desc/BTensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) { d.ATensor.Sizes = {3, 3}; }), "gemm.output-sizes", "/desc/ATensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) { d.BTensor.Sizes = {3, 3}; }), "gemm.output-sizes", "/desc/BTensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) { d.CTensor->Sizes = {2, 1}; }), "gemm.c-sizes", "/desc/CTensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) {
                        d.CTensor->Sizes = {1, 2, 2};
                    }),
                    "gemm.same-dimension-count", "/desc/CTensor/Sizes"));
    CHECK(has_error(with([](GEMM& d) {
                        d.ATensor.Sizes = {2, 2, 3};
                        d.BTensor.Sizes = {1, 3, 2};
                        d.CTensor->Sizes = d.OutputTensor.Sizes = {2, 2, 2};
                    }),
                    "gemm.batch-sizes", "/desc/BTensor/Sizes/0"));
    CHECK(has_error(with([](GEMM& d) {
                        d.FusedActivation = DML_FUSED_ACTIVATION{6, {std::numeric_limits<float>::quiet_NaN(), 0}};
                    }),
                    "gemm.fused-activation-parameter", "/desc/FusedActivation/Alpha"));
}

TEST_CASE("GEMM judging: a float32 loop passes, a dropped term and a flipped transpose fail") {
    const uint32_t M = 3, N = 4, K = 50;
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 37 % 29) - 14) * 0x1p-4f + 0.3f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 17 % 23) - 11) * 0x1p-3f + 0.1f;
    for (size_t i = 0; i < c.size(); ++i) c[i] = float(i) - 5.5f;
    const GemmSpec s{.a = {M, K}, .b = {K, N}, .out = {M, N}, .alpha = 0.75f, .beta = -1.5f, .c = true};
    Case golden;
    golden.op = gemm_op(s);
    golden.inputs = {{"ATensor", logical_buffer(get<GEMM>(golden.op.Desc).ATensor, a)},
                     {"BTensor", logical_buffer(get<GEMM>(golden.op.Desc).BTensor, b)},
                     {"CTensor", logical_buffer(*get<GEMM>(golden.op.Desc).CTensor, c)}};
    golden = with_golden(golden, "OutputTensor");
    auto judged = [&](int variant) {
        std::vector<float> out(M * N);
        for (uint32_t m = 0; m < M; ++m)
            for (uint32_t n = 0; n < N; ++n) {
                float acc = 0;
                for (uint32_t k = 0; k < K; ++k) {
                    if (variant == 1 && m == 1 && n == 2 && k == 17) continue;    // one term dropped
                    const float bv = variant == 2 ? b[n * K + k] : b[k * N + n];  // 2: B read as if stored transposed
                    acc += a[m * K + k] * bv;
                }
                out[m * N + n] = s.alpha * acc + s.beta * c[m * N + n];
            }
        std::vector<std::byte> bytes(out.size() * 4);
        std::memcpy(bytes.data(), out.data(), bytes.size());
        return census(golden, "OutputTensor", bytes, {}).passed();
    };
    CHECK(judged(0));
    CHECK_FALSE(judged(1));
    CHECK_FALSE(judged(2));
}

TEST_CASE("MATRIX_MULTIPLY_INTEGER: zero points per tensor, per row and per column; a plain loop") {
    // A = [[1, 2], [3, 4]] (UINT8), B = [[5, 6], [7, 8]] (INT8): AB = [[19, 22], [43, 50]].
    Operator op = mmi_op(DataType::UINT8, DataType::INT8, {2, 2}, {2, 2}, {2, 2});
    auto run_mmi = [](const Operator& o, std::map<std::string, std::vector<std::byte>> in) {
        return as_values<int32_t>(run(o, std::move(in)).at("OutputTensor"));
    };
    auto ab = [&](const Operator& o) {
        const MMI& m = get<MMI>(o.Desc);
        return std::map<std::string, std::vector<std::byte>>{
            {"ATensor", logical_buffer(m.ATensor, std::vector<uint8_t>{1, 2, 3, 4})},
            {"BTensor", logical_buffer(m.BTensor, std::vector<int8_t>{5, 6, 7, 8})}};
    };
    CHECK(run_mmi(op, ab(op)) == std::vector<int32_t>{19, 22, 43, 50});
    // AZeroPoint 1 (per tensor): (A - 1) = [[0, 1], [2, 3]]: [[7, 8], [31, 36]].
    Operator op2 = op;
    get<MMI>(op2.Desc).AZeroPointTensor = desc(DataType::UINT8, {1, 1});
    auto in2 = ab(op2);
    in2["AZeroPointTensor"] = logical_buffer(*get<MMI>(op2.Desc).AZeroPointTensor, std::vector<uint8_t>{1});
    CHECK(run_mmi(op2, in2) == std::vector<int32_t>{7, 8, 31, 36});
    // Per row of A {2, 1}: rows minus 1 and 3: [[0, 1], [0, 1]] x B = [[7, 8], [7, 8]];
    // per column of B {1, 2}: columns minus 5 and 8: [[0, -2], [2, 0]]; A x that = [[4, -2], [8, -6]].
    Operator op3 = op;
    get<MMI>(op3.Desc).AZeroPointTensor = desc(DataType::UINT8, {2, 1});
    auto in3 = ab(op3);
    in3["AZeroPointTensor"] = logical_buffer(*get<MMI>(op3.Desc).AZeroPointTensor, std::vector<uint8_t>{1, 3});
    CHECK(run_mmi(op3, in3) == std::vector<int32_t>{7, 8, 7, 8});
    Operator op4 = op;
    get<MMI>(op4.Desc).BZeroPointTensor = desc(DataType::INT8, {1, 2});
    auto in4 = ab(op4);
    in4["BZeroPointTensor"] = logical_buffer(*get<MMI>(op4.Desc).BZeroPointTensor, std::vector<int8_t>{5, 8});
    CHECK(run_mmi(op4, in4) == std::vector<int32_t>{4, -2, 8, -6});

    // A 4-D random product against a plain int64 loop written over B's columns first.
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> v(0, 255);
    const uint32_t B0 = 2, C0 = 3, M = 3, K = 5, N = 4;
    Operator op5 = mmi_op(DataType::INT8, DataType::UINT8, {B0, C0, M, K}, {B0, C0, K, N}, {B0, C0, M, N});
    get<MMI>(op5.Desc).AZeroPointTensor = desc(DataType::INT8, {1, 1, M, 1});
    get<MMI>(op5.Desc).BZeroPointTensor = desc(DataType::UINT8, {1, 1, 1, N});
    std::vector<int8_t> a(B0 * C0 * M * K), za(M);
    std::vector<uint8_t> b(B0 * C0 * K * N), zb(N);
    for (auto& x : a) x = int8_t(v(rng) - 128);
    for (auto& x : za) x = int8_t(v(rng) - 128);
    for (auto& x : b) x = uint8_t(v(rng));
    for (auto& x : zb) x = uint8_t(v(rng));
    const MMI& d5 = get<MMI>(op5.Desc);
    const auto got = run_mmi(op5, {{"ATensor", logical_buffer(d5.ATensor, a)},
                                   {"BTensor", logical_buffer(d5.BTensor, b)},
                                   {"AZeroPointTensor", logical_buffer(*d5.AZeroPointTensor, za)},
                                   {"BZeroPointTensor", logical_buffer(*d5.BZeroPointTensor, zb)}});
    for (uint32_t p = 0; p < B0 * C0; ++p)
        for (uint32_t n = 0; n < N; ++n)
            for (uint32_t m = 0; m < M; ++m) {
                int64_t acc = 0;
                for (uint32_t k = 0; k < K; ++k)
                    acc += (int64_t(a[(p * M + m) * K + k]) - za[m]) * (int64_t(b[(p * K + k) * N + n]) - zb[n]);
                CHECK(got[(p * M + m) * N + n] == int32_t(acc));
            }
}

TEST_CASE("MATRIX_MULTIPLY_INTEGER: the INT32 sum wraps (IntegerOverflow=WrapToWidth)") {
    // K = 33100 through zero strides: a = -128 with AZeroPoint 127 gives -255, b = 0 with
    // BZeroPoint 255 gives -255; 33100 * 65025 = 2152327500 = 2^31 + 4843852, which wraps to
    // 2152327500 - 2^32 = -2142639796.
    MMI d;
    d.ATensor = desc(DataType::INT8, {1, 33100}, {0, 0});
    d.AZeroPointTensor = desc(DataType::INT8, {1});
    d.BTensor = desc(DataType::UINT8, {33100, 1}, {0, 0});
    d.BZeroPointTensor = desc(DataType::UINT8, {1});
    d.OutputTensor = desc(DataType::INT32, {1, 1});
    const Operator op{MMI::kType, d};
    const auto out = as_values<int32_t>(
        run(op, {{"ATensor", buffer(d.ATensor, std::vector<int8_t>{-128})},
                 {"AZeroPointTensor", buffer(*d.AZeroPointTensor, std::vector<int8_t>{127})},
                 {"BTensor", buffer(d.BTensor, std::vector<uint8_t>{0})},
                 {"BZeroPointTensor", buffer(*d.BZeroPointTensor, std::vector<uint8_t>{255})}})
            .at("OutputTensor"));
    CHECK(out == std::vector<int32_t>{-2142639796});
}

TEST_CASE("MATRIX_MULTIPLY_INTEGER: every rule of the page, with its rule id") {
    auto with = [](auto&& f) {
        Operator op = mmi_op(DataType::UINT8, DataType::INT8, {2, 3}, {3, 2}, {2, 2});
        f(get<MMI>(op.Desc));
        return op;
    };
    CHECK_FALSE(validate(with([](MMI&) {})).has_errors());
    CHECK(has_error(with([](MMI& d) { d.ATensor.DataType = DataType::INT16; }), "matrix-multiply-integer.data-type",
                    "/desc/ATensor/DataType"));
    CHECK(has_error(with([](MMI& d) { d.OutputTensor.DataType = DataType::FLOAT32; }),
                    "matrix-multiply-integer.output-data-type", "/desc/OutputTensor/DataType"));
    CHECK(has_error(with([](MMI& d) {
                        d.BTensor.Sizes = {1, 3, 2};
                    }),
                    "matrix-multiply-integer.same-dimension-count", "/desc/BTensor/Sizes"));
    CHECK(has_error(with([](MMI& d) {
                        d.ATensor.Sizes = {1, 1, 1, 2, 3};
                    }),
                    "matrix-multiply-integer.dimension-count", "/desc/ATensor/Sizes"));
    CHECK(has_error(with([](MMI& d) {
                        d.BTensor.Sizes = {2, 2};
                    }),
                    "matrix-multiply-integer.inner-size", "/desc/BTensor/Sizes"));
    CHECK(has_error(with([](MMI& d) {
                        d.OutputTensor.Sizes = {3, 2};
                    }),
                    "matrix-multiply-integer.output-sizes", "/desc/ATensor/Sizes"));
    CHECK(has_error(with([](MMI& d) { d.AZeroPointTensor = desc(DataType::INT8, {1}); }),
                    "matrix-multiply-integer.zero-point-data-type", "/desc/AZeroPointTensor/DataType"));
    CHECK(has_error(with([](MMI& d) {
                        d.AZeroPointTensor = desc(DataType::UINT8, {1, 2});
                    }),
                    "matrix-multiply-integer.zero-point-sizes", "/desc/AZeroPointTensor/Sizes/1"));
    CHECK(has_error(with([](MMI& d) { d.BZeroPointTensor = desc(DataType::INT8, {3}); }),
                    "matrix-multiply-integer.zero-point-sizes", "/desc/BZeroPointTensor/Sizes/0"));
    CHECK(has_error(with([](MMI& d) {
                        d.BZeroPointTensor = desc(DataType::INT8, {1, 1, 1, 1, 2});
                    }),
                    "matrix-multiply-integer.zero-point-dimension-count", "/desc/BZeroPointTensor/Sizes"));
    CHECK(has_error(with([](MMI& d) {
                        d.ATensor.Sizes = {2, 2, 3};
                        d.BTensor.Sizes = {1, 3, 2};
                        d.OutputTensor.Sizes = {2, 2, 2};
                    }),
                    "matrix-multiply-integer.batch-sizes", "/desc/BTensor/Sizes/0"));
}

TEST_CASE("MATRIX_MULTIPLY_INTEGER_TO_FLOAT: scales, zero points and bias against exact rationals") {
    // INT16 data over its range, per-row AScale and per-column BScale, zero points per row and per
    // column, a bias: each element AScale[m] BScale[n] sum_k (a - za)(b - zb) + bias, exact in GMP
    // (a loop over k from the end), rounded once to FLOAT32 and to FLOAT16 by MPFR.
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> v16(-32768, 32767), mant(-(1 << 20), 1 << 20);
    const uint32_t M = 3, N = 4, K = 6;
    for (const DataType out : {DataType::FLOAT32, DataType::FLOAT16}) {
        MMIF d;
        d.ATensor = desc(DataType::INT16, {M, K});
        d.AScaleTensor = desc(out, {M, 1});
        d.AZeroPointTensor = desc(DataType::INT16, {M, 1});
        d.BTensor = desc(DataType::INT16, {K, N});
        d.BScaleTensor = desc(out, {1, N});
        d.BZeroPointTensor = desc(DataType::INT16, {1, N});
        d.BiasTensor = desc(out, {M, N});
        d.OutputTensor = desc(out, {M, N});
        std::vector<int16_t> a(M * K), b(K * N), za(M), zb(N);
        for (auto* v : {&a, &b, &za, &zb})
            for (auto& x : *v) x = int16_t(v16(rng));
        // Scales and bias of at most 11 significant bits, exact in FLOAT16 too (multiples of 2^-24),
        // small enough in FLOAT16 that the values stay finite.
        const bool f16 = out == DataType::FLOAT16;
        std::vector<double> as(M), bs(N), bias(M * N);
        for (auto& x : as) x = std::ldexp(double(mant(rng) >> 10), f16 ? -24 : -20);
        for (auto& x : bs) x = std::ldexp(double(mant(rng) >> 10), f16 ? -20 : -12);
        for (auto& x : bias) x = std::ldexp(double(mant(rng) >> 10), 4);
        const Operator op{MMIF::kType, d};
        std::map<std::string, std::vector<std::byte>> in = {
            {"ATensor", logical_buffer(d.ATensor, a)},
            {"BTensor", logical_buffer(d.BTensor, b)},
            {"AZeroPointTensor", logical_buffer(*d.AZeroPointTensor, za)},
            {"BZeroPointTensor", logical_buffer(*d.BZeroPointTensor, zb)}};
        auto floats = [&](const TensorDesc& t, const std::vector<double>& v) {
            if (out == DataType::FLOAT32) {
                std::vector<float> f(v.begin(), v.end());
                return logical_buffer(t, f);
            }
            std::vector<half> h;
            for (double x : v) h.push_back(half(float(x)));
            return logical_buffer(t, h);
        };
        in["AScaleTensor"] = floats(d.AScaleTensor, as);
        in["BScaleTensor"] = floats(d.BScaleTensor, bs);
        in["BiasTensor"] = floats(*d.BiasTensor, bias);
        const auto bytes = run(op, in).at("OutputTensor");
        for (uint32_t m = 0; m < M; ++m)
            for (uint32_t n = 0; n < N; ++n) {
                mpz_class sum = 0;
                for (uint32_t k = K; k-- > 0;)
                    sum += mpz_class(long(a[m * K + k]) - za[m]) * mpz_class(long(b[k * N + n]) - zb[n]);
                const mpq_class exact = mpq_class(as[m]) * mpq_class(bs[n]) * mpq_class(sum) +
                                        mpq_class(bias[m * N + n]);
                const size_t e = m * N + n;
                const double got = out == DataType::FLOAT32 ? double(as_values<float>(bytes)[e])
                                                            : double(float(as_values<half>(bytes)[e]));
                const double want = out == DataType::FLOAT32 ? mpfr_rounded<float>(std::as_const(exact))
                                                             : mpfr_rounded<half>(std::as_const(exact));
                INFO(name(out) << " m " << m << " n " << n);
                CHECK(got == want);
            }
    }
}

TEST_CASE("MATRIX_MULTIPLY_INTEGER_TO_FLOAT: rounded once, no integer wrap, and every rule") {
    // AScale = 1/3 (0x3eaaaaab), BScale 3, bias 2^-24: 1 + 2^-25 + 2^-24 rounds to 1 + 2^-23.
    MMIF d;
    d.ATensor = desc(DataType::UINT8, {1, 1});
    d.AScaleTensor = desc(DataType::FLOAT32, {1});
    d.BTensor = desc(DataType::UINT8, {1, 1});
    d.BScaleTensor = desc(DataType::FLOAT32, {1});
    d.BiasTensor = desc(DataType::FLOAT32, {1, 1});
    d.OutputTensor = desc(DataType::FLOAT32, {1, 1});
    const Operator op{MMIF::kType, d};
    auto f = [](float x) { return std::vector<float>{x}; };
    const auto out = as_values<float>(run(op, {{"ATensor", buffer(d.ATensor, std::vector<uint8_t>{1})},
                                               {"BTensor", buffer(d.BTensor, std::vector<uint8_t>{1})},
                                               {"AScaleTensor", buffer(d.AScaleTensor, f(f32(0x3eaaaaab)))},
                                               {"BScaleTensor", buffer(d.BScaleTensor, f(3))},
                                               {"BiasTensor", buffer(*d.BiasTensor, f(0x1p-24f))}})
                                          .at("OutputTensor"));
    check_bits(out, std::vector<float>{f32(0x3f800001)});
    // INT32, K = 2: (2^31 - 1 + 2^31) (-2^31 - (2^31 - 1)) twice = -2 (2^32 - 1)^2 = -(2^65 - 2^34 + 2),
    // nearest FLOAT32 -2^65 (spacing 2^41 there); a wrapping 32- or 64-bit sum would be far off.
    MMIF w;
    w.ATensor = desc(DataType::INT32, {1, 2});
    w.AScaleTensor = desc(DataType::FLOAT32, {1});
    w.AZeroPointTensor = desc(DataType::INT32, {1});
    w.BTensor = desc(DataType::INT32, {2, 1});
    w.BScaleTensor = desc(DataType::FLOAT32, {1});
    w.BZeroPointTensor = desc(DataType::INT32, {1});
    w.OutputTensor = desc(DataType::FLOAT32, {1, 1});
    const Operator wop{MMIF::kType, w};
    const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    const auto wout = as_values<float>(
        run(wop, {{"ATensor", buffer(w.ATensor, std::vector<int32_t>{hi, hi})},
                  {"AScaleTensor", buffer(w.AScaleTensor, f(1))},
                  {"AZeroPointTensor", buffer(*w.AZeroPointTensor, std::vector<int32_t>{lo})},
                  {"BTensor", buffer(w.BTensor, std::vector<int32_t>{lo, lo})},
                  {"BScaleTensor", buffer(w.BScaleTensor, f(1))},
                  {"BZeroPointTensor", buffer(*w.BZeroPointTensor, std::vector<int32_t>{hi})}})
            .at("OutputTensor"));
    check_bits(wout, std::vector<float>{-0x1p65f});

    const std::string p = "matrix-multiply-integer-to-float.";
    auto with = [&](auto&& change) {
        MMIF x = d;
        change(x);
        return Operator{MMIF::kType, x};
    };
    CHECK_FALSE(validate(op).has_errors());
    CHECK(has_error(with([](MMIF& x) { x.ATensor.DataType = x.BTensor.DataType = DataType::INT64; }), p + "data-type",
                    "/desc/ATensor/DataType"));
    CHECK(has_error(with([](MMIF& x) { x.OutputTensor.DataType = DataType::INT32; }), p + "output-data-type",
                    "/desc/OutputTensor/DataType"));
    CHECK(has_error(with([](MMIF& x) { x.BTensor.DataType = DataType::INT8; }), p + "same-integer-data-type",
                    "/desc/BTensor/DataType"));
    CHECK(has_error(with([](MMIF& x) { x.BScaleTensor.DataType = DataType::FLOAT16; }), p + "same-float-data-type",
                    "/desc/BScaleTensor/DataType"));
    CHECK(has_error(with([](MMIF& x) {
                        x.BScaleTensor.Sizes = {1, 1};
                    }),
                    p + "quantization-dimension-count", "/desc/BScaleTensor/Sizes"));
    CHECK(has_error(with([](MMIF& x) {
                        x.BiasTensor->Sizes = {1, 1, 1};
                    }),
                    p + "same-dimension-count", "/desc/BiasTensor/Sizes"));
    CHECK(has_error(with([](MMIF& x) {
                        x.ATensor.Sizes = {2, 1};
                        x.OutputTensor.Sizes = {2, 1};
                    }),
                    p + "bias-sizes", "/desc/BiasTensor/Sizes"));
    CHECK(has_error(with([](MMIF& x) {
                        x.AScaleTensor.Sizes = {2};
                        x.BScaleTensor.Sizes = {2};
                    }),
                    p + "scale-sizes", "/desc/AScaleTensor/Sizes/0"));
    CHECK(has_error(with([](MMIF& x) { x.BTensor.Sizes = {2, 1}; }), p + "inner-size", "/desc/BTensor/Sizes"));
}

TEST_CASE("MATRIX_MULTIPLY_INTEGER_TO_FLOAT judging: a dequantize-then-float32 loop passes, a dropped term fails") {
    const uint32_t M = 2, N = 3, K = 20;
    MMIF d;
    d.ATensor = desc(DataType::INT8, {M, K});
    d.AScaleTensor = desc(DataType::FLOAT32, {M, 1});
    d.BTensor = desc(DataType::INT8, {K, N});
    d.BScaleTensor = desc(DataType::FLOAT32, {1, N});
    d.BiasTensor = desc(DataType::FLOAT32, {M, N});
    d.OutputTensor = desc(DataType::FLOAT32, {M, N});
    std::vector<int8_t> a(M * K), b(K * N);
    for (size_t i = 0; i < a.size(); ++i) a[i] = int8_t(int(i * 53 % 255) - 127);
    for (size_t i = 0; i < b.size(); ++i) b[i] = int8_t(int(i * 31 % 251) - 125);
    const std::vector<float> as = {0.0123f, 0.5f}, bs = {0.1f, 3.0f, 0.007f},
                             bias = {1.5f, -2.f, 0.25f, 100.f, -0.1f, 0.f};
    Case golden;
    golden.op = Operator{MMIF::kType, d};
    golden.inputs = {{"ATensor", logical_buffer(d.ATensor, a)},
                     {"BTensor", logical_buffer(d.BTensor, b)},
                     {"AScaleTensor", logical_buffer(d.AScaleTensor, as)},
                     {"BScaleTensor", logical_buffer(d.BScaleTensor, bs)},
                     {"BiasTensor", logical_buffer(*d.BiasTensor, bias)}};
    golden = with_golden(golden, "OutputTensor");
    auto judged = [&](bool drop) {
        std::vector<float> out(M * N);
        for (uint32_t m = 0; m < M; ++m)
            for (uint32_t n = 0; n < N; ++n) {
                float acc = 0;
                for (uint32_t k = 0; k < K; ++k)
                    if (!(drop && m == 1 && n == 1 && k == 3))
                        acc += (float(a[m * K + k]) * as[m]) * (float(b[k * N + n]) * bs[n]);
                out[m * N + n] = acc + bias[m * N + n];
            }
        std::vector<std::byte> bytes(out.size() * 4);
        std::memcpy(bytes.data(), out.data(), bytes.size());
        return census(golden, "OutputTensor", bytes, {}).passed();
    };
    CHECK(judged(false));
    CHECK_FALSE(judged(true));
}

}  // namespace dmlref_test_gemm
