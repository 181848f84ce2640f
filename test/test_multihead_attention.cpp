// MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1. Expected values come from hand derivations (one head, 2x2: softmax of
// [1, 0] is sigma(1) = e / (1 + e)), from a naive evaluation written here (per query row the scores
// as 300-bit MPFR sums, softmax normalized first, then the weighted sum of the values, one rounding;
// the tensors indexed through their own page shapes, stacked layouts built by hand), and from
// float32 backends written here against the bound (docs/tolerance.md, "Multihead attention").
// MULTIHEAD_ATTENTION1: hand derivations (two query heads on one key/value head; past keys beyond
// a batch's PastSequenceLengths left out) and MULTIHEAD_ATTENTION with the key/value heads copied
// out by hand here.
#include "bn_naive.hpp"

#include "dmlref/descs/multihead_attention.hpp"

#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_multihead_attention {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

namespace {

using MHA = DML_MULTIHEAD_ATTENTION_OPERATOR_DESC;

// A problem in the page's separate layout: Q [B, S, H*D], K [B, T, H*D], V [B, T, H*Dv],
// optional RelativePositionBias [B, H, S, T] and BOOLEAN mask [B, H, S, T].
struct Problem {
    uint32_t B = 1, S = 1, T = 1, H = 1, D = 1, Dv = 1;
    float scale = 1, filter = -10000;
    std::vector<float> q, k, v, rpb, mask_values;  // mask as 0/1 (INT32 in the case)
    bool bias_present = false;
    std::vector<float> bias;
};

Operator op_of(const Problem& p, DataType t = DataType::FLOAT32) {
    MHA d;
    d.QueryTensor = desc(t, {p.B, p.S, p.H * p.D});
    d.KeyTensor = desc(t, {p.B, p.T, p.H * p.D});
    d.ValueTensor = desc(t, {p.B, p.T, p.H * p.Dv});
    if (!p.rpb.empty()) d.RelativePositionBiasTensor = desc(t, {p.B, p.H, p.S, p.T});
    if (!p.mask_values.empty()) {
        d.MaskTensor = desc(DataType::INT32, {p.B, p.H, p.S, p.T});
        d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
    }
    if (p.bias_present) d.BiasTensor = desc(t, {2 * p.H * p.D + p.H * p.Dv});
    d.OutputTensor = desc(t, {p.B, p.S, p.H * p.Dv});
    d.Scale = p.scale;
    d.MaskFilterValue = p.filter;
    d.HeadCount = p.H;
    return {OperatorType::MULTIHEAD_ATTENTION, d};
}

template <class T> std::vector<T> cast_to(const std::vector<float>& x) {
    std::vector<T> r;
    for (float f : x) r.push_back(value_of<T>(double(f)));
    return r;
}

template <class T> Case case_of(const Problem& p) {
    Case c;
    c.op = op_of(p, data_type_of<T>());
    const MHA& d = get<MHA>(c.op.Desc);
    c.inputs["QueryTensor"] = logical_buffer(*d.QueryTensor, cast_to<T>(p.q));
    c.inputs["KeyTensor"] = logical_buffer(*d.KeyTensor, cast_to<T>(p.k));
    c.inputs["ValueTensor"] = logical_buffer(*d.ValueTensor, cast_to<T>(p.v));
    if (!p.rpb.empty())
        c.inputs["RelativePositionBiasTensor"] = logical_buffer(*d.RelativePositionBiasTensor, cast_to<T>(p.rpb));
    if (!p.mask_values.empty()) {
        std::vector<int32_t> m;
        for (float f : p.mask_values) m.push_back(int32_t(f));
        c.inputs["MaskTensor"] = logical_buffer(*d.MaskTensor, m);
    }
    if (p.bias_present) c.inputs["BiasTensor"] = logical_buffer(*d.BiasTensor, cast_to<T>(p.bias));
    return c;
}

template <class T> std::vector<T> golden(const Case& c) { return as_values<T>(run_case(c).values.at("OutputTensor")); }

// The naive evaluation: per (b, s, h) the scores in 300-bit MPFR, softmax normalized first.
template <class T> std::vector<T> naive(const Problem& p) {
    auto rd = [](float f) { return widen(value_of<T>(double(f))); };  // the input as stored in T
    std::vector<T> out(size_t(p.B) * p.S * p.H * p.Dv);
    for (uint32_t b = 0; b < p.B; ++b)
        for (uint32_t s = 0; s < p.S; ++s)
            for (uint32_t h = 0; h < p.H; ++h) {
                std::vector<Big> score;
                for (uint32_t t = 0; t < p.T; ++t) {
                    Big acc;
                    for (uint32_t i = 0; i < p.D; ++i) {
                        const size_t qi = (size_t(b) * p.S + s) * p.H * p.D + h * p.D + i,
                                     ki = (size_t(b) * p.T + t) * p.H * p.D + h * p.D + i;
                        Big qv(rd(p.q[qi])), kv(rd(p.k[ki]));
                        if (p.bias_present)
                            qv = qv + Big(rd(p.bias[h * p.D + i])), kv = kv + Big(rd(p.bias[p.H * p.D + h * p.D + i]));
                        acc = acc + qv * kv;
                    }
                    acc = Big(double(p.scale)) * acc;
                    const size_t at = ((size_t(b) * p.H + h) * p.S + s) * p.T + t;
                    if (!p.rpb.empty()) acc = acc + Big(rd(p.rpb[at]));
                    if (!p.mask_values.empty() && p.mask_values[at] == 0) acc = acc + Big(double(p.filter));
                    score.push_back(acc);
                }
                Big total;
                std::vector<Big> w;
                for (const Big& sc : score) {
                    Big e;
                    mpfr_exp(e.v, sc.v, MPFR_RNDN);  // no max taken out: 300 bits and MPFR's range hold these
                    w.push_back(e);
                    total = total + e;
                }
                for (uint32_t c = 0; c < p.Dv; ++c) {
                    Big o;
                    for (uint32_t t = 0; t < p.T; ++t) {
                        Big vv(rd(p.v[(size_t(b) * p.T + t) * p.H * p.Dv + h * p.Dv + c]));
                        if (p.bias_present) vv = vv + Big(rd(p.bias[2 * p.H * p.D + h * p.Dv + c]));
                        o = o + (w[t] / total) * vv;
                    }
                    out[(size_t(b) * p.S + s) * p.H * p.Dv + h * p.Dv + c] = round_big<T>(o);
                }
            }
    return out;
}

Problem random_problem(std::mt19937_64& rng, int trial) {
    auto U = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Problem p;
    p.B = uint32_t(U(1, 2)), p.S = uint32_t(U(1, 3)), p.T = uint32_t(U(1, 4)), p.H = uint32_t(U(1, 2)),
    p.D = uint32_t(U(1, 4)), p.Dv = uint32_t(U(1, 3));
    p.scale = trial % 3 == 0 ? 1.0f : 0.5f;
    auto fill = [&](std::vector<float>& x, size_t n) {
        for (size_t i = 0; i < n; ++i) x.push_back(float(U(-40, 40)) / 16);
    };
    fill(p.q, size_t(p.B) * p.S * p.H * p.D);
    fill(p.k, size_t(p.B) * p.T * p.H * p.D);
    fill(p.v, size_t(p.B) * p.T * p.H * p.Dv);
    const size_t st = size_t(p.B) * p.H * p.S * p.T;
    if (trial % 2) fill(p.rpb, st);
    if (trial % 4 >= 2)
        for (size_t i = 0; i < st; ++i) p.mask_values.push_back(float(U(0, 3) != 0));
    if (trial % 5 == 1) {
        p.bias_present = true;
        fill(p.bias, 2 * p.H * p.D + p.H * p.Dv);
    }
    return p;
}

std::vector<float> run_f32(const Problem& p) { return golden<float>(case_of<float>(p)); }

Problem two_by_two(float scale) {
    Problem p;
    p.S = p.T = p.D = p.Dv = 2;
    p.scale = scale;
    p.q = {1, 0, 0, 1};
    p.k = {1, 0, 0, 1};
    p.v = {1, 0, 0, 1};
    return p;
}

// sigma(x) = e^x / (1 + e^x) rounded to float32, from a 300-bit evaluation written out here.
float sigma(double x) {
    Big e;
    mpfr_set_d(e.v, x, MPFR_RNDN);
    mpfr_exp(e.v, e.v, MPFR_RNDN);
    return round_big<float>(e / (Big(1.0) + e));
}

}  // namespace

TEST_CASE("multihead attention: one head, 2x2, by hand") {
    // Q = K = V = I: the scores are I, so row 0 weighs its keys sigma(1), 1 - sigma(1), row 1 the reverse.
    const float a = sigma(1), b = sigma(-1);
    CHECK(run_f32(two_by_two(1)) == std::vector<float>{a, b, b, a});
    CHECK(a == 0.7310586f);  // e / (1 + e) = 0.73105857863...
    // Scale 0.5 halves the scores before the softmax.
    CHECK(run_f32(two_by_two(0.5f)) == std::vector<float>{sigma(0.5), sigma(-0.5), sigma(-0.5), sigma(0.5)});
    // Equal scores weigh the values equally: (1 + 2) / 2, exactly.
    Problem p;
    p.T = 2;
    p.q = {1};
    p.k = {0, 0};
    p.v = {1, 2};
    CHECK(run_f32(p) == std::vector<float>{1.5f});
    // RelativePositionBias is added after Scale: scores 0.5 * 1 + 0.5 and 0 + 0 -> sigma(1), not sigma(1.5).
    Problem r = two_by_two(0.5f);
    r.rpb = {0.5f, 0, 0, 0.5f};
    CHECK(run_f32(r) == std::vector<float>{a, b, b, a});
}

TEST_CASE("multihead attention: the BOOLEAN mask") {
    // Mask 0 adds MaskFilterValue -10000 to key 1 of row 0: its weight e^-10001 / (1 + e^-10001)
    // is below FLOAT32's subnormals, so row 0 is (1, +0); row 1 is unmasked.
    Problem p = two_by_two(1);
    p.mask_values = {1, 0, 1, 1};
    const auto y = run_f32(p);
    CHECK(y[0] == 1.0f);
    CHECK(to_bits(y[1]) == 0u);
    CHECK(y[2] == sigma(-1));
    CHECK(y[3] == sigma(1));
    // A fully masked row: -10000 added to every score cancels in the softmax, exactly.
    p.mask_values = {0, 0, 1, 1};
    CHECK(run_f32(p) == run_f32(two_by_two(1)));
    // With an infinite MaskFilterValue the fully masked row has no finite score: NaN (AttentionNonFinite).
    p.filter = -INFINITY;
    const auto z = run_f32(p);
    CHECK(std::isnan(z[0]));
    CHECK(std::isnan(z[1]));
    CHECK(z[2] == sigma(-1));
    // A partly masked row with -inf: the masked key has weight 0.
    p.mask_values = {1, 0, 1, 1};
    CHECK(run_f32(p)[0] == 1.0f);
}

TEST_CASE("multihead attention: against a naive evaluation at 300 bits") {
    std::mt19937_64 rng(2611);
    for (int trial = 0; trial < 24; ++trial) {
        CAPTURE(trial);
        const Problem p = random_problem(rng, trial);
        if (trial % 3 == 2) check_bits(golden<half>(case_of<half>(p)), naive<half>(p));
        else check_bits(golden<float>(case_of<float>(p)), naive<float>(p));
    }
}

TEST_CASE("multihead attention: stacked layouts, past keys and the present outputs") {
    // StackedQueryKeyValue [B, S, H, 3, D] built by hand from separate Q, K, V gives their result.
    std::mt19937_64 rng(2612);
    Problem p = random_problem(rng, 0);
    p.T = p.S;
    p.Dv = p.D;
    p.k.clear(), p.v.clear();
    for (size_t i = 0; i < p.q.size(); ++i)
        p.k.push_back(float(int(rng() % 33) - 16) / 8), p.v.push_back(float(int(rng() % 33) - 16) / 8);
    const auto separate = run_f32(p);
    MHA d = get<MHA>(op_of(p).Desc);
    d.QueryTensor.reset(), d.KeyTensor.reset(), d.ValueTensor.reset();
    d.StackedQueryKeyValueTensor = desc(DataType::FLOAT32, {p.B, p.S, p.H, 3, p.D});
    std::vector<float> qkv;
    for (uint32_t b = 0; b < p.B; ++b)
        for (uint32_t s = 0; s < p.S; ++s)
            for (uint32_t h = 0; h < p.H; ++h)
                for (const auto* x : {&p.q, &p.k, &p.v})
                    for (uint32_t i = 0; i < p.D; ++i)
                        qkv.push_back((*x)[(size_t(b) * p.S + s) * p.H * p.D + h * p.D + i]);
    const Operator stacked{OperatorType::MULTIHEAD_ATTENTION, d};
    const auto y = as_values<float>(
        run(stacked, {{"StackedQueryKeyValueTensor", logical_buffer(*d.StackedQueryKeyValueTensor, qkv)}})
            .at("OutputTensor"));
    check_bits(y, separate);

    // PastKey/PastValue are the first keys: splitting a problem's keys into past and new ones
    // (past in [B, H, P, D]) gives the same output; the present outputs are their concatenation.
    Problem whole = two_by_two(1);
    const auto expected = run_f32(whole);
    MHA e = get<MHA>(op_of(whole).Desc);
    e.KeyTensor = desc(DataType::FLOAT32, {1, 1, 2});
    e.ValueTensor = desc(DataType::FLOAT32, {1, 1, 2});
    e.PastKeyTensor = desc(DataType::FLOAT32, {1, 1, 1, 2});
    e.PastValueTensor = desc(DataType::FLOAT32, {1, 1, 1, 2});
    e.OutputPresentKeyTensor = desc(DataType::FLOAT32, {1, 1, 2, 2});
    e.OutputPresentValueTensor = desc(DataType::FLOAT32, {1, 1, 2, 2});
    const Operator past{OperatorType::MULTIHEAD_ATTENTION, e};
    const auto out = run(past, {{"QueryTensor", logical_buffer(*e.QueryTensor, whole.q)},
                                {"PastKeyTensor", logical_buffer(*e.PastKeyTensor, std::vector<float>{1, 0})},
                                {"KeyTensor", logical_buffer(*e.KeyTensor, std::vector<float>{0, 1})},
                                {"PastValueTensor", logical_buffer(*e.PastValueTensor, std::vector<float>{1, 0})},
                                {"ValueTensor", logical_buffer(*e.ValueTensor, std::vector<float>{0, 1})}});
    check_bits(as_values<float>(out.at("OutputTensor")), expected);
    CHECK(as_values<float>(out.at("OutputPresentKeyTensor")) == std::vector<float>{1, 0, 0, 1});
    CHECK(as_values<float>(out.at("OutputPresentValueTensor")) == std::vector<float>{1, 0, 0, 1});

    // KEY_SEQUENCE_LENGTH [1, B] = 1: key 1 (and later) set to MaskFilterValue, as the BOOLEAN
    // mask (1, 0) would add it, up to the added -10000 versus the set -10000 (both underflow here).
    MHA m = get<MHA>(op_of(two_by_two(1)).Desc);
    m.MaskTensor = desc(DataType::INT32, {1, 1});
    m.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH;
    const Operator seq{OperatorType::MULTIHEAD_ATTENTION, m};
    const Problem tt = two_by_two(1);
    const auto sy = as_values<float>(run(seq, {{"QueryTensor", logical_buffer(*m.QueryTensor, tt.q)},
                                               {"KeyTensor", logical_buffer(*m.KeyTensor, tt.k)},
                                               {"ValueTensor", logical_buffer(*m.ValueTensor, tt.v)},
                                               {"MaskTensor", logical_buffer(*m.MaskTensor, std::vector<int32_t>{1})}})
                                         .at("OutputTensor"));
    CHECK(sy == std::vector<float>{1, 0, 1, 0});
}

TEST_CASE("multihead attention: the page's rules") {
    const Operator ok = op_of(two_by_two(1));
    CHECK_FALSE(validate(ok).has_errors());
    auto with = [&](auto&& change) {
        MHA d = get<MHA>(ok.Desc);
        change(d);
        return Operator{OperatorType::MULTIHEAD_ATTENTION, d};
    };
    CHECK(has_error(with([](MHA& d) {
                        d.StackedQueryKeyTensor = desc(DataType::FLOAT32, {1, 2, 1, 2, 2});
                    }),
                    "multihead-attention.inputs", "/desc"));
    CHECK(has_error(with([](MHA& d) { d.ValueTensor.reset(); }), "multihead-attention.inputs", "/desc"));
    CHECK(has_error(with([](MHA& d) { d.KeyTensor->DataType = DataType::FLOAT16; }),
                    "multihead-attention.same-data-type", "/desc/KeyTensor/DataType"));
    CHECK(has_error(with([](MHA& d) { d.QueryTensor->DataType = DataType::INT32; }), "multihead-attention.data-type",
                    "/desc/QueryTensor/DataType"));
    CHECK(has_error(with([](MHA& d) {
                        d.QueryTensor->Sizes = {2, 2};
                    }),
                    "multihead-attention.dimension-count", "/desc/QueryTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.QueryTensor->Sizes = {2, 1, 2, 2};
                    }),
                    "multihead-attention.leading-ones", "/desc/QueryTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) { d.HeadCount = 0; }), "multihead-attention.head-count", "/desc/HeadCount"));
    CHECK(
        has_error(with([](MHA& d) { d.HeadCount = 3; }), "multihead-attention.head-count", "/desc/QueryTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.KeyTensor->Sizes = {1, 2, 4};
                    }),
                    "multihead-attention.key-sizes", "/desc/KeyTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.ValueTensor->Sizes = {1, 3, 2};
                    }),
                    "multihead-attention.value-sizes", "/desc/ValueTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.OutputTensor.Sizes = {1, 2, 4};
                    }),
                    "multihead-attention.output-sizes", "/desc/OutputTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) { d.BiasTensor = desc(DataType::FLOAT32, {5}); }), "multihead-attention.bias-sizes",
                    "/desc/BiasTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) { d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN; }),
                    "multihead-attention.mask-required", "/desc/MaskType"));
    CHECK(has_error(with([](MHA& d) { d.MaskType = 7; }), "multihead-attention.mask-type", "/desc/MaskType"));
    CHECK(has_error(with([](MHA& d) {
                        d.MaskTensor = desc(DataType::INT32, {8});
                        d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END;
                    }),
                    "multihead-attention.mask-type-not-built", "/desc/MaskType"));
    CHECK(has_error(with([](MHA& d) {
                        d.MaskTensor = desc(DataType::INT32, {1, 2, 2});
                        d.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
                    }),
                    "multihead-attention.mask-sizes", "/desc/MaskTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.RelativePositionBiasTensor = desc(DataType::FLOAT32, {1, 1, 2, 3});
                    }),
                    "multihead-attention.relative-position-bias-sizes", "/desc/RelativePositionBiasTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.PastKeyTensor = desc(DataType::FLOAT32, {1, 1, 1, 2});
                    }),
                    "multihead-attention.past-sizes", "/desc/PastKeyTensor"));
    CHECK(has_error(with([](MHA& d) {
                        d.OutputPresentKeyTensor = desc(DataType::FLOAT32, {1, 1, 3, 2});
                    }),
                    "multihead-attention.present-sizes", "/desc/OutputPresentKeyTensor/Sizes"));
    CHECK(has_error(with([](MHA& d) {
                        d.QueryTensor.reset(), d.KeyTensor.reset();
                        d.StackedQueryKeyTensor = desc(DataType::FLOAT32, {1, 2, 1, 3, 2});
                    }),
                    "multihead-attention.stacked-sizes", "/desc/StackedQueryKeyTensor/Sizes"));
}

// The bound (docs/tolerance.md, "Multihead attention"): an honest float32 implementation (scores
// summed in float, the max taken out, std::exp, the sum, a division, the weighted sum) is within
// it; Scale ignored, a mask shifted by one key and K read untransposed are not, somewhere.
TEST_CASE("multihead attention: the bound accepts a float32 backend and rejects planted bugs") {
    std::mt19937_64 rng(2613);
    std::uniform_real_distribution<float> U(-2, 2);
    int rejected_scale = 0, rejected_mask = 0, rejected_transpose = 0;
    double worst = 0;
    for (int trial = 0; trial < 10; ++trial) {
        CAPTURE(trial);
        Problem p;
        p.S = 3, p.T = 4, p.D = 4, p.Dv = 3, p.H = 1 + uint32_t(trial % 2);
        p.scale = 0.5f;
        for (size_t i = 0; i < size_t(p.S) * p.H * p.D; ++i) p.q.push_back(U(rng));
        for (size_t i = 0; i < size_t(p.T) * p.H * p.D; ++i) p.k.push_back(U(rng));
        for (size_t i = 0; i < size_t(p.T) * p.H * p.Dv; ++i) p.v.push_back(U(rng));
        for (size_t i = 0; i < size_t(p.H) * p.S * p.T; ++i) p.mask_values.push_back(float(rng() % 4 != 0));
        const Case c = case_of<float>(p);
        const auto g = golden<float>(c);
        const auto bound = batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
        REQUIRE(bound.has_value());
        // A float32 backend; `bug` plants one mistake.
        auto backend = [&](int bug) {
            std::vector<float> y(g.size());
            for (uint32_t s = 0; s < p.S; ++s)
                for (uint32_t h = 0; h < p.H; ++h) {
                    std::vector<float> sc(p.T);
                    for (uint32_t t = 0; t < p.T; ++t) {
                        float acc = 0;
                        for (uint32_t i = 0; i < p.D; ++i) {
                            // K untransposed: K read as [D, T] (element (i, t)) instead of [T, D].
                            const size_t ki = bug == 3 ? size_t(i % p.T) * p.H * p.D + h * p.D + t % p.D
                                                       : size_t(t) * p.H * p.D + h * p.D + i;
                            acc += p.q[size_t(s) * p.H * p.D + h * p.D + i] * p.k[ki];
                        }
                        sc[t] = (bug == 1 ? 1.0f : p.scale) * acc;
                        const uint32_t mt = bug == 2 ? (t + 1) % p.T : t;
                        if (p.mask_values[(size_t(h) * p.S + s) * p.T + mt] == 0) sc[t] += p.filter;
                    }
                    const float m = *std::max_element(sc.begin(), sc.end());
                    float z = 0;
                    for (float& x : sc) z += (x = std::exp(x - m));
                    for (uint32_t c2 = 0; c2 < p.Dv; ++c2) {
                        float o = 0;
                        for (uint32_t t = 0; t < p.T; ++t) o += sc[t] / z * p.v[size_t(t) * p.H * p.Dv + h * p.Dv + c2];
                        y[size_t(s) * p.H * p.Dv + h * p.Dv + c2] = o;
                    }
                }
            return y;
        };
        auto outside = [&](const std::vector<float>& y, size_t i) {
            return std::fabs(double(y[i]) - double(g[i])) > (*bound)[i];
        };
        const auto honest = backend(0), b1 = backend(1), b2 = backend(2), b3 = backend(3);
        for (size_t i = 0; i < g.size(); ++i) {
            CAPTURE(i);
            CHECK_FALSE(outside(honest, i));
            worst = std::max(worst, std::fabs(double(honest[i]) - double(g[i])) / (*bound)[i]);
            rejected_scale += outside(b1, i);
            rejected_mask += outside(b2, i);
            rejected_transpose += outside(b3, i);
        }
    }
    MESSAGE("honest float32: largest error / bound " << worst << "; planted bugs rejected at " << rejected_scale
                                                     << " (Scale ignored), " << rejected_mask << " (mask off by one), "
                                                     << rejected_transpose << " (K untransposed) elements");
    CHECK(worst > 0);
    CHECK(rejected_scale > 0);
    CHECK(rejected_mask > 0);
    CHECK(rejected_transpose > 0);
}

// ---- MULTIHEAD_ATTENTION1 ----------------------------------------------------------------------

namespace {

using MHA1 = DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC;

// Separate Q [1, S, Hq*D], K [1, T, Hkv*D], V [1, T, Hkv*Dv], FLOAT32.
MHA1 grouped(uint32_t S, uint32_t T, uint32_t Hq, uint32_t Hkv, uint32_t D, uint32_t Dv) {
    MHA1 d;
    d.QueryTensor = desc(DataType::FLOAT32, {1, S, Hq * D});
    d.KeyTensor = desc(DataType::FLOAT32, {1, T, Hkv * D});
    d.ValueTensor = desc(DataType::FLOAT32, {1, T, Hkv * Dv});
    d.OutputTensor = desc(DataType::FLOAT32, {1, S, Hq * Dv});
    d.QueryHeadCount = Hq;
    d.KeyValueHeadCount = Hkv;
    return d;
}

std::vector<std::byte> f32(const TensorDesc& t, const std::vector<float>& x) { return logical_buffer(t, x); }

std::vector<float> output_of(const MHA1& d, std::map<std::string, std::vector<std::byte>> in,
                             const char* out = "OutputTensor") {
    return as_values<float>(run(Operator{OperatorType::MULTIHEAD_ATTENTION1, d}, std::move(in)).at(out));
}

}  // namespace

TEST_CASE("multihead attention1: two query heads sharing one key/value head, by hand") {
    // Q = [1 | 0] (heads 0 and 1), K = [1; 0], V = [1; 0]: head 0 scores [1, 0] -> sigma(1);
    // head 1 scores [0, 0] -> (1 + 0) / 2 = 0.5 exactly.
    const MHA1 d = grouped(1, 2, 2, 1, 1, 1);
    const auto y = output_of(d, {{"QueryTensor", f32(*d.QueryTensor, {1, 0})},
                                 {"KeyTensor", f32(*d.KeyTensor, {1, 0})},
                                 {"ValueTensor", f32(*d.ValueTensor, {1, 0})}});
    CHECK(y == std::vector<float>{sigma(1), 0.5f});
}

TEST_CASE("multihead attention1: grouped heads equal MULTIHEAD_ATTENTION with the key/value heads copied") {
    // Hq = 4, Hkv = 2: query head h reads key/value head h / 2. MULTIHEAD_ATTENTION with HeadCount 4
    // and each key/value head written out twice, by hand here, gives the same bits.
    const uint32_t S = 2, T = 3, Hq = 4, Hkv = 2, D = 2, Dv = 3;
    std::mt19937_64 rng(2612);
    std::uniform_real_distribution<float> U(-2, 2);
    auto fill = [&](size_t n) {
        std::vector<float> x(n);
        for (float& v : x) v = U(rng);
        return x;
    };
    const auto q = fill(S * Hq * D), k = fill(T * Hkv * D), v = fill(T * Hkv * Dv);
    MHA1 g = grouped(S, T, Hq, Hkv, D, Dv);
    g.Scale = 0.5f;
    const auto y = output_of(g, {{"QueryTensor", f32(*g.QueryTensor, q)},
                                 {"KeyTensor", f32(*g.KeyTensor, k)},
                                 {"ValueTensor", f32(*g.ValueTensor, v)}});
    std::vector<float> k4, v4;
    for (uint32_t t = 0; t < T; ++t)
        for (uint32_t h = 0; h < Hq; ++h) {
            for (uint32_t i = 0; i < D; ++i) k4.push_back(k[(t * Hkv + h / 2) * D + i]);
            for (uint32_t i = 0; i < Dv; ++i) v4.push_back(v[(t * Hkv + h / 2) * Dv + i]);
        }
    MHA m;
    m.QueryTensor = g.QueryTensor;
    m.KeyTensor = desc(DataType::FLOAT32, {1, T, Hq * D});
    m.ValueTensor = desc(DataType::FLOAT32, {1, T, Hq * Dv});
    m.OutputTensor = g.OutputTensor;
    m.HeadCount = Hq;
    m.Scale = 0.5f;
    const auto want = as_values<float>(
        run(Operator{OperatorType::MULTIHEAD_ATTENTION, m}, {{"QueryTensor", f32(*m.QueryTensor, q)},
                                                             {"KeyTensor", f32(*m.KeyTensor, k4)},
                                                             {"ValueTensor", f32(*m.ValueTensor, v4)}})
            .at("OutputTensor"));
    REQUIRE(y.size() == want.size());
    for (size_t i = 0; i < y.size(); ++i) CHECK(to_bits(y[i]) == to_bits(want[i]));
}

TEST_CASE("multihead attention1: PastSequenceLengths leaves later past keys out") {
    // Q = [1]; past keys [0, 100] with values [5, 1000]; one new key 0 with value 1.
    MHA1 d = grouped(1, 1, 1, 1, 1, 1);
    d.PastKeyTensor = desc(DataType::FLOAT32, {1, 1, 2, 1});
    d.PastValueTensor = desc(DataType::FLOAT32, {1, 1, 2, 1});
    d.PastSequenceLengthsTensor = desc(DataType::FLOAT32, {1});
    d.OutputPresentKeyTensor = desc(DataType::FLOAT32, {1, 1, 3, 1});
    auto with_length = [&](float length, const char* out = "OutputTensor") {
        return output_of(d,
                         {{"QueryTensor", f32(*d.QueryTensor, {1})},
                          {"KeyTensor", f32(*d.KeyTensor, {0})},
                          {"ValueTensor", f32(*d.ValueTensor, {1})},
                          {"PastKeyTensor", f32(*d.PastKeyTensor, {0, 100})},
                          {"PastValueTensor", f32(*d.PastValueTensor, {5, 1000})},
                          {"PastSequenceLengthsTensor", f32(*d.PastSequenceLengthsTensor, {length})}},
                         out);
    };
    // Length 1: keys past 0 and the new one, equal scores: (5 + 1) / 2.
    CHECK(with_length(1) == std::vector<float>{3.0f});
    // Length 2 (and beyond): key 100 weighs 1 - O(e^-100): 1000 in FLOAT32.
    CHECK(with_length(2) == std::vector<float>{1000.0f});
    CHECK(with_length(7) == std::vector<float>{1000.0f});
    // Length 0, and a NaN length: only the new key.
    CHECK(with_length(0) == std::vector<float>{1.0f});
    CHECK(with_length(NAN) == std::vector<float>{1.0f});
    // The present key still holds every past key, then the new one.
    CHECK(with_length(1, "OutputPresentKeyTensor") == std::vector<float>{0, 100, 0});
}

TEST_CASE("multihead attention1: the page's rules and the grouped heads") {
    const MHA1 ok = grouped(1, 2, 2, 1, 1, 1);
    CHECK_FALSE(validate(Operator{OperatorType::MULTIHEAD_ATTENTION1, ok}).has_errors());
    auto with = [&](auto&& change) {
        MHA1 d = ok;
        change(d);
        return Operator{OperatorType::MULTIHEAD_ATTENTION1, d};
    };
    CHECK(has_error(with([](MHA1& d) { d.KeyValueHeadCount = 0; }), "multihead-attention.key-value-head-count",
                    "/desc/KeyValueHeadCount"));
    CHECK(has_error(with([](MHA1& d) {
                        d.KeyValueHeadCount = 2;
                        d.QueryHeadCount = 3;
                    }),
                    "multihead-attention.key-value-head-count", "/desc/KeyValueHeadCount"));
    CHECK(has_error(with([](MHA1& d) { d.QueryHeadCount = 0; }), "multihead-attention.head-count",
                    "/desc/QueryHeadCount"));
    CHECK(has_error(with([](MHA1& d) {
                        d.KeyTensor->Sizes = {1, 2, 2};
                    }),
                    "multihead-attention.key-sizes", "/desc/KeyTensor/Sizes"));
    CHECK(has_error(with([](MHA1& d) {
                        d.QueryTensor.reset(), d.KeyTensor.reset();
                        d.StackedQueryKeyTensor = desc(DataType::FLOAT32, {1, 1, 2, 2, 1});
                    }),
                    "multihead-attention.stacked-head-count", "/desc/StackedQueryKeyTensor"));
    CHECK(has_error(with([](MHA1& d) { d.PastSequenceLengthsTensor = desc(DataType::FLOAT32, {2}); }),
                    "multihead-attention.past-sequence-lengths-sizes", "/desc/PastSequenceLengthsTensor/Sizes"));
    CHECK(has_error(with([](MHA1& d) { d.PastSequenceLengthsTensor = desc(DataType::INT32, {1}); }),
                    "multihead-attention.data-type", "/desc/PastSequenceLengthsTensor/DataType"));
    CHECK(has_error(with([](MHA1& d) {
                        d.PastKeyTensor = desc(DataType::FLOAT32, {1, 2, 1, 1});
                        d.PastValueTensor = desc(DataType::FLOAT32, {1, 2, 1, 1});
                    }),
                    "multihead-attention.past-sizes", "/desc/PastKeyTensor/Sizes"));
}

}  // namespace dmlref_test_multihead_attention
