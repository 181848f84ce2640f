// BATCH_NORMALIZATION, _GRAD, _TRAINING and _TRAINING_GRAD. Expected values come from a naive
// evaluation in this file (the page's formula in MPFR at 300 bits, rounded by MPFR), from the
// central difference of sum(dY * Y) computed with that forward at 300 bits (an independent
// derivative), from the worked examples of spec/dml-training-ops.md section 5 and from hand
// derivations (perfect-square variances, ties).
#include "support.hpp"

#include "dmlref/tolerance.hpp"

#include <gmpxx.h>
#include <mpfr.h>

#include <random>

using namespace dmlref;
using namespace dmlref::test;

namespace {

constexpr mpfr_prec_t kPrecision = 300;

struct Big {
    mpfr_t v;
    Big() { mpfr_init2(v, kPrecision); mpfr_set_zero(v, 1); }
    explicit Big(double d) : Big() { mpfr_set_d(v, d, MPFR_RNDN); }
    Big(const Big& o) { mpfr_init2(v, kPrecision); mpfr_set(v, o.v, MPFR_RNDN); }
    Big& operator=(const Big& o) { mpfr_set(v, o.v, MPFR_RNDN); return *this; }
    ~Big() { mpfr_clear(v); }
};
Big operator+(const Big& a, const Big& b) { Big r; mpfr_add(r.v, a.v, b.v, MPFR_RNDN); return r; }
Big operator-(const Big& a, const Big& b) { Big r; mpfr_sub(r.v, a.v, b.v, MPFR_RNDN); return r; }
Big operator*(const Big& a, const Big& b) { Big r; mpfr_mul(r.v, a.v, b.v, MPFR_RNDN); return r; }
Big operator/(const Big& a, const Big& b) { Big r; mpfr_div(r.v, a.v, b.v, MPFR_RNDN); return r; }
Big sqrt_of(const Big& a) { Big r; mpfr_sqrt(r.v, a.v, MPFR_RNDN); return r; }

template <class T> T round_big(const Big& b) {
    if constexpr (std::is_integral_v<T>) {
        if (mpfr_nan_p(b.v)) return T(0);
        Big r;
        mpfr_rint(r.v, b.v, MPFR_RNDN);  // ties to even
        if (mpfr_cmp_d(r.v, double(std::numeric_limits<T>::min())) <= 0) return std::numeric_limits<T>::min();
        if (mpfr_cmp_d(r.v, std::ldexp(1.0, int(sizeof(T) * 8 - std::is_signed_v<T>))) >= 0) return std::numeric_limits<T>::max();
        return std::is_signed_v<T> ? T(mpfr_get_si(r.v, MPFR_RNDN)) : T(mpfr_get_ui(r.v, MPFR_RNDN));
    } else {
        int p, emin, emax;
        if constexpr (is_half_v<T>) { p = 11; emin = -23; emax = 16; }
        else if constexpr (std::is_same_v<T, float>) { p = 24; emin = -148; emax = 128; }
        else { p = 53; emin = -1073; emax = 1024; }
        const auto old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        mpfr_t x;
        mpfr_init2(x, p);
        int t = mpfr_set(x, b.v, MPFR_RNDN);
        t = mpfr_check_range(x, t, MPFR_RNDN);
        mpfr_subnormalize(x, t, MPFR_RNDN);
        const double d = mpfr_get_d(x, MPFR_RNDN);
        mpfr_clear(x);
        mpfr_set_emin(old_min);
        mpfr_set_emax(old_max);
        if (std::isnan(d)) return canonical_nan<T>();
        if (d == 0) return value_of<T>(0.0);  // an exact zero is +0 (docs/golden.md, ZeroResult)
        return value_of<T>(d);
    }
}

template <class T> Big big(T v) {
    Big r;
    if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_signed_v<T>) mpfr_set_si(r.v, long(v), MPFR_RNDN);
        else mpfr_set_ui(r.v, static_cast<unsigned long>(v), MPFR_RNDN);
    } else {
        mpfr_set_d(r.v, widen(v), MPFR_RNDN);
    }
    return r;
}

// Index of the statistics element that input element i broadcasts to: dimensions of size 1 are
// dropped (the definition, written independently of the reference's stride arithmetic).
uint64_t broadcast_index(uint64_t i, const std::vector<uint32_t>& in, const std::vector<uint32_t>& st) {
    auto c = unflatten(i, in);
    for (size_t d = 0; d < c.size(); ++d) if (st[d] == 1) c[d] = 0;
    return flatten(c, st);
}

std::vector<uint32_t> packed_plus(const std::vector<uint32_t>& sizes, uint32_t gap) {
    std::vector<uint32_t> s(sizes.size());
    uint32_t st = gap;
    for (size_t i = sizes.size(); i-- > 0;) { s[i] = st; st *= sizes[i]; }
    return s;
}

template <class T> std::vector<T> random_values(std::mt19937_64& rng, uint64_t n, bool nonnegative = false) {
    std::vector<T> v;
    for (uint64_t i = 0; i < n; ++i) {
        const bool pos = nonnegative || (std::is_integral_v<T> && !std::is_signed_v<T>);
        const int m = std::uniform_int_distribution<int>(pos ? 0 : -40, 40)(rng);
        if constexpr (std::is_integral_v<T>) v.push_back(T(m));
        else v.push_back(value_of<T>(std::ldexp(double(m), -3)));
    }
    return v;
}

std::vector<uint32_t> random_stat_sizes(std::mt19937_64& rng, const std::vector<uint32_t>& in) {
    std::vector<uint32_t> s;
    for (auto v : in) s.push_back(std::uniform_int_distribution<int>(0, 1)(rng) ? v : 1);
    return s;
}

std::optional<DML_FUSED_ACTIVATION> activation(std::string_view name, float a = 0, float b = 0) {
    const auto& t = fused_activation_types();
    for (uint32_t i = 0; i < t.size(); ++i)
        if (t[i].Name == name) return DML_FUSED_ACTIVATION{i, {a, b}};
    return std::nullopt;
}

// The activation applied to an already rounded value, rounded again (the separate operator).
template <class T> T naive_activate(const std::optional<DML_FUSED_ACTIVATION>& a, T y) {
    if (!a || a->name() == "ACTIVATION_IDENTITY") return y;
    const Big x = big(y);
    if (a->name() == "ACTIVATION_RELU") return mpfr_cmp_si(x.v, 0) > 0 ? y : value_of<T>(0.0);
    if (a->name() == "ACTIVATION_LEAKY_RELU") {
        if (!mpfr_nan_p(x.v) && mpfr_cmp_si(x.v, 0) >= 0) return y;
        return round_big<T>(Big(double(a->Parameters[0])) * x);
    }
    return round_big<T>(Big(double(a->Parameters[0])) * x + Big(double(a->Parameters[1])));  // LINEAR
}

struct Shape {
    std::vector<uint32_t> in, mean, var, scale, bias;
};

Shape random_shape(std::mt19937_64& rng, int max_rank) {
    Shape s;
    const int rank = std::uniform_int_distribution<int>(1, max_rank)(rng);
    for (int d = 0; d < rank; ++d) s.in.push_back(uint32_t(std::uniform_int_distribution<int>(1, max_rank > 4 ? 2 : 3)(rng)));
    s.mean = random_stat_sizes(rng, s.in);
    s.var = random_stat_sizes(rng, s.in);
    s.scale = random_stat_sizes(rng, s.in);
    s.bias = random_stat_sizes(rng, s.in);
    return s;
}

Operator bn_op(DataType t, const Shape& s, float eps, std::optional<DML_FUSED_ACTIVATION> act, bool strided) {
    DML_BATCH_NORMALIZATION_OPERATOR_DESC d;
    d.InputTensor = desc(t, s.in, strided ? packed_plus(s.in, 3) : std::vector<uint32_t>{});
    d.MeanTensor = desc(t, s.mean);
    d.VarianceTensor = desc(t, s.var);
    d.ScaleTensor = desc(t, s.scale);
    d.BiasTensor = desc(t, s.bias);
    d.OutputTensor = desc(t, s.in, strided ? packed_plus(s.in, 2) : std::vector<uint32_t>{});
    d.Epsilon = eps;
    d.FusedActivation = act;
    return {OperatorType::BATCH_NORMALIZATION, d};
}

template <class D> Operator grad_op(OperatorType type, DataType t, const std::vector<uint32_t>& in, const std::vector<uint32_t>& st, float eps) {
    D d;
    d.InputTensor = desc(t, in, packed_plus(in, 2));
    d.InputGradientTensor = desc(t, in);
    d.MeanTensor = d.VarianceTensor = d.ScaleTensor = d.OutputScaleGradientTensor = d.OutputBiasGradientTensor = desc(t, st);
    d.OutputGradientTensor = desc(t, in, packed_plus(in, 3));
    d.Epsilon = eps;
    return {type, d};
}

Operator training_op(DataType t, const std::vector<uint32_t>& in, const std::vector<uint32_t>& st, float eps, bool fused_add,
                     std::optional<DML_FUSED_ACTIVATION> act = std::nullopt) {
    DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC d;
    d.InputTensor = desc(t, in, packed_plus(in, 2));
    d.ScaleTensor = d.BiasTensor = d.OutputMeanTensor = d.OutputVarianceTensor = desc(t, st);
    if (fused_add) d.FusedAddTensor = desc(t, in);
    d.OutputTensor = desc(t, in, packed_plus(in, 3));
    d.Epsilon = eps;
    d.FusedActivation = act;
    return {OperatorType::BATCH_NORMALIZATION_TRAINING, d};
}

const float kEpsilons[] = {0.0f, 1e-5f, 0.25f, 1.0f};

// The batch statistics at 300 bits, per statistics element.
struct Stats {
    std::vector<Big> mean, var;
};
Stats batch_stats(const std::vector<Big>& x, const std::vector<uint32_t>& in, const std::vector<uint32_t>& st) {
    const uint64_t n = product(st), m = product(in) / n;
    Stats s{std::vector<Big>(n), std::vector<Big>(n)};
    for (uint64_t i = 0; i < x.size(); ++i) { auto& a = s.mean[broadcast_index(i, in, st)]; a = a + x[i]; }
    for (auto& a : s.mean) a = a / Big(double(m));
    for (uint64_t i = 0; i < x.size(); ++i) {
        const uint64_t k = broadcast_index(i, in, st);
        const Big c = x[i] - s.mean[k];
        s.var[k] = s.var[k] + c * c;
    }
    for (auto& a : s.var) a = a / Big(double(m));
    return s;
}

// L = sum dY * (Scale (X - mean) / sqrt(var + eps) + Bias) with the statistics either given
// (BATCH_NORMALIZATION_GRAD) or the batch's own (TRAINING).
Big loss(const std::vector<Big>& x, const std::vector<Big>& dy, const std::vector<Big>& scale, const std::vector<Big>& bias,
         const std::vector<uint32_t>& in, const std::vector<uint32_t>& st, const Stats* given, double eps) {
    const Stats s = given ? *given : batch_stats(x, in, st);
    Big sum;
    for (uint64_t i = 0; i < x.size(); ++i) {
        const uint64_t k = broadcast_index(i, in, st);
        const Big y = scale[k] * (x[i] - s.mean[k]) / sqrt_of(s.var[k] + Big(eps)) + bias[k];
        sum = sum + dy[i] * y;
    }
    return sum;
}

// d loss / d v[j] by the central difference with step 2^-100.
template <class F> Big derivative(std::vector<Big> v, size_t j, F&& f) {
    const Big h(std::ldexp(1.0, -100));
    const Big keep = v[j];
    v[j] = keep + h;
    const Big fp = f(v);
    v[j] = keep - h;
    const Big fm = f(v);
    Big r = fp - fm;
    mpfr_mul_2si(r.v, r.v, 99, MPFR_RNDN);
    return r;
}

template <class T> void check_close_to_derivative(const std::vector<T>& actual, const std::vector<T>& expected) {
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        CAPTURE(i);
        // An exact zero: the central difference leaves a residue of order 2^-200 instead.
        if (actual[i] == T(0) && std::fabs(double(expected[i])) < 1e-40) continue;
        CHECK(to_bits(actual[i]) == to_bits(expected[i]));
    }
}

}  // namespace

TEST_CASE_TEMPLATE("batch normalization: forward against the naive evaluation at 300 bits, every type, broadcasting, strided", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(72 + sizeof(T) * 5 + std::is_signed_v<T>);
    const DataType t = data_type_of<T>();
    const std::optional<DML_FUSED_ACTIVATION> acts[] = {std::nullopt, activation("ACTIVATION_RELU"),
                                                        activation("ACTIVATION_LEAKY_RELU", 0.125f), activation("ACTIVATION_LINEAR", -1.5f, 0.25f),
                                                        activation("ACTIVATION_IDENTITY")};
    for (int trial = 0; trial < 30; ++trial) {
        CAPTURE(trial);
        const Shape s = random_shape(rng, trial < 24 ? 4 : 8);
        const float eps = kEpsilons[trial % 4];
        const auto act = acts[trial % 5];
        const auto x = random_values<T>(rng, product(s.in));
        const auto mean = random_values<T>(rng, product(s.mean));
        const auto var = random_values<T>(rng, product(s.var), true);
        const auto scale = random_values<T>(rng, product(s.scale));
        const auto bias = random_values<T>(rng, product(s.bias));
        const Operator op = bn_op(t, s, eps, act, true);
        const auto& d = std::get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(op.Desc);
        auto y = run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x33})},
                          {"MeanTensor", buffer(d.MeanTensor, mean)}, {"VarianceTensor", buffer(d.VarianceTensor, var)},
                          {"ScaleTensor", buffer(d.ScaleTensor, scale)}, {"BiasTensor", buffer(d.BiasTensor, bias)}});
        std::vector<T> expected;
        for (uint64_t i = 0; i < x.size(); ++i) {
            const Big v = big(scale[broadcast_index(i, s.in, s.scale)]) * (big(x[i]) - big(mean[broadcast_index(i, s.in, s.mean)])) /
                              sqrt_of(big(var[broadcast_index(i, s.in, s.var)]) + Big(double(eps))) +
                          big(bias[broadcast_index(i, s.in, s.bias)]);
            expected.push_back(naive_activate<T>(act, round_big<T>(v)));
        }
        check_bits(as_values<T>(y.at("OutputTensor")), expected);
    }
}

TEST_CASE_TEMPLATE("batch normalization training: outputs against the naive evaluation at 300 bits, every type", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(151 + sizeof(T) * 5 + std::is_signed_v<T>);
    const DataType t = data_type_of<T>();
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const Shape s = random_shape(rng, trial < 16 ? 4 : 8);
        const float eps = kEpsilons[trial % 4];
        const bool fused_add = trial % 2;
        const auto act = trial % 3 == 0 ? activation("ACTIVATION_RELU") : std::nullopt;
        const auto x = random_values<T>(rng, product(s.in));
        const auto fa = random_values<T>(rng, product(s.in));
        const auto scale = random_values<T>(rng, product(s.scale));
        const auto bias = random_values<T>(rng, product(s.scale));
        const Operator op = training_op(t, s.in, s.scale, eps, fused_add, act);
        const auto& d = std::get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(op.Desc);
        std::map<std::string, std::vector<std::byte>> inputs = {
            {"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x21})}, {"ScaleTensor", buffer(d.ScaleTensor, scale)},
            {"BiasTensor", buffer(d.BiasTensor, bias)}};
        if (fused_add) inputs["FusedAddTensor"] = buffer(*d.FusedAddTensor, fa);
        auto r = run(op, inputs);
        std::vector<Big> xb;
        for (const T& v : x) xb.push_back(big(v));
        const Stats st = batch_stats(xb, s.in, s.scale);
        std::vector<T> y, m, v;
        for (uint64_t i = 0; i < x.size(); ++i) {
            const uint64_t k = broadcast_index(i, s.in, s.scale);
            Big e = big(scale[k]) * (xb[i] - st.mean[k]) / sqrt_of(st.var[k] + Big(double(eps))) + big(bias[k]);
            if (fused_add) e = e + big(fa[i]);
            y.push_back(naive_activate<T>(act, round_big<T>(e)));
        }
        for (size_t k = 0; k < st.mean.size(); ++k) { m.push_back(round_big<T>(st.mean[k])); v.push_back(round_big<T>(st.var[k])); }
        check_bits(as_values<T>(r.at("OutputTensor")), y);
        check_bits(as_values<T>(r.at("OutputMeanTensor")), m);
        check_bits(as_values<T>(r.at("OutputVarianceTensor")), v);
    }
}

TEST_CASE_TEMPLATE("batch normalization grad: the central difference of the forward at 300 bits", T, double, float) {
    std::mt19937_64 rng(146 + sizeof(T));
    const DataType t = data_type_of<T>();
    for (int trial = 0; trial < 12; ++trial) {
        CAPTURE(trial);
        const Shape s = random_shape(rng, 4);
        const float eps = kEpsilons[trial % 4];
        const auto x = random_values<T>(rng, product(s.in));
        const auto dy = random_values<T>(rng, product(s.in));
        const auto mean = random_values<T>(rng, product(s.mean));
        auto var = random_values<T>(rng, product(s.mean), true);
        if (eps == 0) for (auto& v : var) if (v == T(0)) v = T(1);  // the derivative needs D > 0
        const auto scale = random_values<T>(rng, product(s.mean));
        const Operator op = grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(OperatorType::BATCH_NORMALIZATION_GRAD, t, s.in, s.mean, eps);
        const auto& d = std::get<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(op.Desc);
        auto r = run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x44})}, {"InputGradientTensor", buffer(d.InputGradientTensor, dy)},
                          {"MeanTensor", buffer(d.MeanTensor, mean)}, {"VarianceTensor", buffer(d.VarianceTensor, var)},
                          {"ScaleTensor", buffer(d.ScaleTensor, scale)}});
        std::vector<Big> xb, dyb, sb, bb(mean.size());
        Stats given;
        for (const T& v : x) xb.push_back(big(v));
        for (const T& v : dy) dyb.push_back(big(v));
        for (const T& v : scale) sb.push_back(big(v));
        for (const T& v : mean) given.mean.push_back(big(v));
        for (const T& v : var) given.var.push_back(big(v));
        std::vector<T> dx, ds, db;
        for (size_t j = 0; j < xb.size(); ++j)
            dx.push_back(round_big<T>(derivative(xb, j, [&](const auto& v) { return loss(v, dyb, sb, bb, s.in, s.mean, &given, eps); })));
        for (size_t k = 0; k < sb.size(); ++k) {
            ds.push_back(round_big<T>(derivative(sb, k, [&](const auto& v) { return loss(xb, dyb, v, bb, s.in, s.mean, &given, eps); })));
            db.push_back(round_big<T>(derivative(bb, k, [&](const auto& v) { return loss(xb, dyb, sb, v, s.in, s.mean, &given, eps); })));
        }
        check_close_to_derivative(as_values<T>(r.at("OutputGradientTensor")), dx);
        check_close_to_derivative(as_values<T>(r.at("OutputScaleGradientTensor")), ds);
        check_close_to_derivative(as_values<T>(r.at("OutputBiasGradientTensor")), db);
    }
}

TEST_CASE_TEMPLATE("batch normalization training grad: the central difference of the training forward at 300 bits", T, double, float) {
    // Mean and Variance must be the batch's exact statistics: reduced dimensions of 1, 2 or 4
    // elements make them dyadic, and the small dyadic data makes them exact in T.
    std::mt19937_64 rng(152 + sizeof(T));
    const DataType t = data_type_of<T>();
    int checked = 0;
    for (int trial = 0; trial < 16; ++trial) {
        CAPTURE(trial);
        std::vector<uint32_t> in, st;
        const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
        for (int dim = 0; dim < rank; ++dim) {
            const bool reduced = std::uniform_int_distribution<int>(0, 2)(rng) != 0;
            in.push_back(reduced ? uint32_t(1) << std::uniform_int_distribution<int>(0, 2)(rng) : uint32_t(std::uniform_int_distribution<int>(1, 3)(rng)));
            st.push_back(reduced ? 1 : in.back());
        }
        const float eps = kEpsilons[trial % 4];
        const auto x = random_values<T>(rng, product(in));
        const auto dy = random_values<T>(rng, product(in));
        const auto scale = random_values<T>(rng, product(st));
        std::vector<Big> xb, dyb, sb, bb(scale.size());
        for (const T& v : x) xb.push_back(big(v));
        for (const T& v : dy) dyb.push_back(big(v));
        for (const T& v : scale) sb.push_back(big(v));
        const Stats exact = batch_stats(xb, in, st);
        std::vector<T> mean, var;
        bool usable = true;
        for (size_t k = 0; k < exact.mean.size(); ++k) {
            mean.push_back(value_of<T>(mpfr_get_d(exact.mean[k].v, MPFR_RNDN)));
            var.push_back(value_of<T>(mpfr_get_d(exact.var[k].v, MPFR_RNDN)));
            // The statistics must be exact in T (large slices may not be), and D > 0.
            usable = usable && mpfr_cmp(big(mean.back()).v, exact.mean[k].v) == 0 && mpfr_cmp(big(var.back()).v, exact.var[k].v) == 0;
            usable = usable && (eps > 0 || var.back() > T(0));
        }
        if (!usable) continue;
        ++checked;
        const Operator op = grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, t, in, st, eps);
        const auto& d = std::get<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(op.Desc);
        auto r = run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x44})}, {"InputGradientTensor", buffer(d.InputGradientTensor, dy)},
                          {"MeanTensor", buffer(d.MeanTensor, mean)}, {"VarianceTensor", buffer(d.VarianceTensor, var)},
                          {"ScaleTensor", buffer(d.ScaleTensor, scale)}});
        std::vector<T> dx, ds, db;
        for (size_t j = 0; j < xb.size(); ++j)
            dx.push_back(round_big<T>(derivative(xb, j, [&](const auto& v) { return loss(v, dyb, sb, bb, in, st, nullptr, eps); })));
        for (size_t k = 0; k < sb.size(); ++k) {
            ds.push_back(round_big<T>(derivative(sb, k, [&](const auto& v) { return loss(xb, dyb, v, bb, in, st, nullptr, eps); })));
            db.push_back(round_big<T>(derivative(bb, k, [&](const auto& v) { return loss(xb, dyb, sb, v, in, st, nullptr, eps); })));
        }
        check_close_to_derivative(as_values<T>(r.at("OutputGradientTensor")), dx);
        check_close_to_derivative(as_values<T>(r.at("OutputScaleGradientTensor")), ds);
        check_close_to_derivative(as_values<T>(r.at("OutputBiasGradientTensor")), db);
    }
    CHECK(checked >= 6);
}

TEST_CASE("batch normalization: the worked examples of spec/dml-training-ops.md section 5") {
    // X = [1, 2, 3, 4], Scale 2, Bias 0, Epsilon 0: mean 5/2, var 5/4.
    const std::vector<uint32_t> in = {1, 1, 2, 2}, st = {1, 1, 1, 1};
    const Operator tr = training_op(DataType::FLOAT32, in, st, 0.0f, false);
    const auto& td = std::get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(tr.Desc);
    auto r = run(tr, {{"InputTensor", logical_buffer(td.InputTensor, std::vector<float>{1, 2, 3, 4})},
                      {"ScaleTensor", buffer(td.ScaleTensor, std::vector<float>{2})}, {"BiasTensor", buffer(td.BiasTensor, std::vector<float>{0})}});
    const auto y = as_values<float>(r.at("OutputTensor"));
    const uint32_t bits[] = {0xC02BBAE3, 0xBF64F92E, 0x3F64F92E, 0x402BBAE3};
    for (int i = 0; i < 4; ++i) CHECK(to_bits(y[i]) == bits[i]);
    CHECK(as_values<float>(r.at("OutputMeanTensor"))[0] == 2.5f);
    CHECK(as_values<float>(r.at("OutputVarianceTensor"))[0] == 1.25f);
    // The grads with Mean 5/2, Variance 5/4, dY = [1, 0, 0, 0] (FLOAT64; the digest's 15 digits).
    for (auto type : {OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, OperatorType::BATCH_NORMALIZATION_GRAD}) {
        const Operator g = type == OperatorType::BATCH_NORMALIZATION_GRAD
                               ? grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(type, DataType::FLOAT64, in, st, 0.0f)
                               : grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(type, DataType::FLOAT64, in, st, 0.0f);
        std::map<std::string, std::vector<std::byte>> inputs;
        for (const auto& f : tensor_fields(g)) {
            if (f.role != TensorRole::Input) continue;
            const std::string n(f.name);
            const std::vector<double> v = n == "InputTensor" ? std::vector<double>{1, 2, 3, 4}
                                        : n == "InputGradientTensor" ? std::vector<double>{1, 0, 0, 0}
                                        : n == "MeanTensor" ? std::vector<double>{2.5} : n == "VarianceTensor" ? std::vector<double>{1.25}
                                        : std::vector<double>{2};
            inputs[n] = logical_buffer(*f.desc, v);
        }
        auto o = run(g, inputs);
        const auto dx = as_values<double>(o.at("OutputGradientTensor"));
        const std::vector<double> want = type == OperatorType::BATCH_NORMALIZATION_GRAD
                                             ? std::vector<double>{1.788854381999831, 0, 0, 0}
                                             : std::vector<double>{0.536656314599949, -0.715541752799932, -0.178885438199983, 0.357770876399966};
        for (int i = 0; i < 4; ++i) CHECK(dx[i] == doctest::Approx(want[i]).epsilon(1e-14));
        CHECK(as_values<double>(o.at("OutputScaleGradientTensor"))[0] == doctest::Approx(-1.341640786499873).epsilon(1e-14));
        CHECK(as_values<double>(o.at("OutputBiasGradientTensor"))[0] == 1.0);
        if (type == OperatorType::BATCH_NORMALIZATION_GRAD) CHECK(to_bits(dx[1]) == 0u);  // +0
    }
}

TEST_CASE("batch normalization: exact results and ties, hand derived") {
    const std::vector<uint32_t> one = {1, 1};
    auto forward = [&](DataType t, auto x, auto m, auto v, auto s, auto b, float eps) {
        using T = decltype(x);
        const Operator op = bn_op(t, {one, one, one, one, one}, eps, std::nullopt, false);
        auto r = run(op, {{"InputTensor", buffer(desc(t, one), std::vector<T>{x})}, {"MeanTensor", buffer(desc(t, one), std::vector<T>{m})},
                          {"VarianceTensor", buffer(desc(t, one), std::vector<T>{v})}, {"ScaleTensor", buffer(desc(t, one), std::vector<T>{s})},
                          {"BiasTensor", buffer(desc(t, one), std::vector<T>{b})}});
        return as_values<T>(r.at("OutputTensor"))[0];
    };
    // sqrt(3.75 + 0.25) = 2: 1.5 * (3 - 1) / 2 + 0.25 = 1.75 exactly.
    CHECK(forward(DataType::FLOAT32, 3.0f, 1.0f, 3.75f, 1.5f, 0.25f, 0.25f) == 1.75f);
    // FLOAT16 ties: (x - m) = 2^-10, D = 4: q = 2^-11. 1 + 2^-11 ties to 1 (even); 1 + 2^-10 + 2^-11 ties to 1 + 2^-9.
    const half h1 = half_from_double(1.0), hx = half_from_double(1.0 + std::ldexp(1.0, -10)), h4 = half_from_double(4.0);
    CHECK(to_bits(forward(DataType::FLOAT16, hx, h1, h4, h1, h1, 0.0f)) == to_bits(h1));
    CHECK(to_bits(forward(DataType::FLOAT16, hx, h1, h4, h1, hx, 0.0f)) == to_bits(half_from_double(1.0 + std::ldexp(1.0, -9))));
    // INT32: (7 - 2) / sqrt(4) = 2.5 ties to 2; (9 - 2) / 2 = 3.5 ties to 4.
    CHECK(forward(DataType::INT32, int32_t(7), int32_t(2), int32_t(4), int32_t(1), int32_t(0), 0.0f) == 2);
    CHECK(forward(DataType::INT32, int32_t(9), int32_t(2), int32_t(4), int32_t(1), int32_t(0), 0.0f) == 4);
    // Special values (IEEE on the exact formula): D = 0 with X = Mean is 0/0 = NaN; X != Mean gives inf;
    // a negative D is NaN; an infinite Variance gives Bias; X = Mean gives exactly Bias.
    CHECK(to_bits(forward(DataType::FLOAT32, 1.0f, 1.0f, 0.0f, 1.0f, 0.5f, 0.0f)) == 0x7FC00000u);
    CHECK(forward(DataType::FLOAT32, 2.0f, 1.0f, 0.0f, -1.0f, 0.5f, 0.0f) == -std::numeric_limits<float>::infinity());
    CHECK(to_bits(forward(DataType::FLOAT32, 2.0f, 1.0f, 1.0f, 1.0f, 0.5f, -2.0f)) == 0x7FC00000u);
    CHECK(forward(DataType::FLOAT32, 2.0f, 1.0f, std::numeric_limits<float>::infinity(), 1.0f, 0.5f, 0.0f) == 0.5f);
    CHECK(to_bits(forward(DataType::FLOAT32, 2.0f, 2.0f, 3.0f, 1.0f, -0.0f, 0.0f)) == 0u);  // an exact zero is +0
    // An irrational value: 1 / sqrt(2) rounded once to FLOAT32 is 0x3F3504F3.
    CHECK(to_bits(forward(DataType::FLOAT32, 1.0f, 0.0f, 2.0f, 1.0f, 0.0f, 0.0f)) == 0x3F3504F3u);
}

TEST_CASE("batch normalization: every validation rule") {
    const DataType f = DataType::FLOAT32;
    const Shape ok{{2, 3, 2}, {1, 3, 1}, {1, 3, 1}, {1, 3, 1}, {1, 3, 1}};
    auto bn = [&](auto edit) {
        Operator o = bn_op(f, ok, 1e-5f, std::nullopt, false);
        edit(std::get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(o.Desc));
        return o;
    };
    using BN = DML_BATCH_NORMALIZATION_OPERATOR_DESC;
    CHECK_FALSE(validate(bn([](BN&) {})).has_errors());
    CHECK(has_error(bn([](BN& d) { d.BiasTensor.DataType = DataType::FLOAT16; }), "bn.same-data-type", "/desc/BiasTensor/DataType"));
    CHECK(has_error(bn([](BN& d) { d.OutputTensor.Sizes = {2, 3, 1}; }), "bn.same-sizes", "/desc/OutputTensor/Sizes"));
    CHECK(has_error(bn([](BN& d) { d.MeanTensor.Sizes = {3, 1}; }), "bn.same-dimension-count", "/desc/MeanTensor/Sizes"));
    CHECK(has_error(bn([](BN& d) { d.ScaleTensor.Sizes = {1, 2, 1}; }), "bn.broadcast", "/desc/ScaleTensor/Sizes/1"));
    CHECK(has_error(bn([](BN& d) { d.Spatial = 2; }), "bn.spatial", "/desc/Spatial"));
    CHECK(has_error(bn([](BN& d) { d.Epsilon = std::numeric_limits<float>::infinity(); }), "bn.epsilon-finite", "/desc/Epsilon"));
    CHECK(has_error(bn([](BN& d) { d.FusedActivation = activation("ACTIVATION_SIGMOID"); }), "bn.fused-activation-unsupported",
                    "/desc/FusedActivation/Type"));
    CHECK(has_error(bn([](BN& d) { d.FusedActivation = activation("ACTIVATION_LEAKY_RELU", std::numeric_limits<float>::quiet_NaN()); }),
                    "bn.fused-activation-parameter", "/desc/FusedActivation/Alpha"));
    for (auto [type, op] : {std::pair{OperatorType::BATCH_NORMALIZATION_GRAD, std::string("bn-grad")},
                            std::pair{OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, std::string("bn-training-grad")}}) {
        CAPTURE(op);
        auto g = [&](auto edit) {
            Operator o = type == OperatorType::BATCH_NORMALIZATION_GRAD
                             ? grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(type, f, ok.in, ok.mean, 0.0f)
                             : grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(type, f, ok.in, ok.mean, 0.0f);
            std::visit([&](auto& d) { if constexpr (requires { d.OutputScaleGradientTensor; }) edit(d); }, o.Desc);
            return o;
        };
        CHECK_FALSE(validate(g([](auto&) {})).has_errors());
        CHECK(has_error(g([](auto& d) { d.InputGradientTensor.DataType = DataType::FLOAT64; }), op + ".same-data-type", "/desc/InputGradientTensor/DataType"));
        CHECK(has_error(g([](auto& d) { d.OutputGradientTensor.Sizes = {2, 3, 1}; }), op + ".same-sizes", "/desc/OutputGradientTensor/Sizes"));
        CHECK(has_error(g([](auto& d) { d.OutputBiasGradientTensor.Sizes = {1, 1, 1}; }), op + ".statistics-same-sizes",
                        "/desc/OutputBiasGradientTensor/Sizes"));
        CHECK(has_error(g([](auto& d) { d.ScaleTensor.Sizes = {3}; }), op + ".same-dimension-count", "/desc/ScaleTensor/Sizes"));
        CHECK(has_error(g([](auto& d) { d.MeanTensor.Sizes = d.VarianceTensor.Sizes = d.ScaleTensor.Sizes = d.OutputScaleGradientTensor.Sizes =
                                            d.OutputBiasGradientTensor.Sizes = {1, 3, 3}; }), op + ".broadcast", "/desc/MeanTensor/Sizes/2"));
        CHECK(has_error(g([](auto& d) { d.Epsilon = std::numeric_limits<float>::quiet_NaN(); }), op + ".epsilon-finite", "/desc/Epsilon"));
    }
    using TR = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC;
    auto tr = [&](auto edit) {
        Operator o = training_op(f, ok.in, ok.scale, 0.0f, true);
        edit(std::get<TR>(o.Desc));
        return o;
    };
    CHECK_FALSE(validate(tr([](TR&) {})).has_errors());
    CHECK(has_error(tr([](TR& d) { d.FusedAddTensor->DataType = DataType::FLOAT16; }), "bn-training.same-data-type", "/desc/FusedAddTensor/DataType"));
    CHECK(has_error(tr([](TR& d) { d.FusedAddTensor->Sizes = {2, 3, 1}; }), "bn-training.same-sizes", "/desc/FusedAddTensor/Sizes"));
    CHECK(has_error(tr([](TR& d) { d.OutputMeanTensor.Sizes = {1, 1, 1}; }), "bn-training.statistics-same-sizes", "/desc/OutputMeanTensor/Sizes"));
    CHECK(has_error(tr([](TR& d) { d.BiasTensor.Sizes = {3}; }), "bn-training.same-dimension-count", "/desc/BiasTensor/Sizes"));
    CHECK(has_error(tr([](TR& d) { d.ScaleTensor.Sizes = d.BiasTensor.Sizes = d.OutputMeanTensor.Sizes = d.OutputVarianceTensor.Sizes = {2, 2, 1}; }),
                    "bn-training.broadcast", "/desc/ScaleTensor/Sizes/1"));
    CHECK(has_error(tr([](TR& d) { d.Epsilon = -std::numeric_limits<float>::infinity(); }), "bn-training.epsilon-finite", "/desc/Epsilon"));
    CHECK(has_error(tr([](TR& d) { d.FusedActivation = activation("ACTIVATION_GELU"); }), "bn-training.fused-activation-unsupported",
                    "/desc/FusedActivation/Type"));
    CHECK(has_error(tr([](TR& d) { d.FusedActivation = activation("ACTIVATION_LINEAR", 1.0f, std::numeric_limits<float>::infinity()); }),
                    "bn-training.fused-activation-parameter", "/desc/FusedActivation/Beta"));
}

TEST_CASE("batch normalization: FusedActivation in the case format") {
    const std::string head = R"({"format": 1, "name": "t", "operator": "BATCH_NORMALIZATION", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]}, "MeanTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]},
        "VarianceTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]}, "ScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]},
        "BiasTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]},
        "Spatial": 1, "Epsilon": 0, "FusedActivation": )";
    const std::string tail = R"(}, "inputs": {"InputTensor": [3, -3], "MeanTensor": [1, 1], "VarianceTensor": [4, 4], "ScaleTensor": [1, 1], "BiasTensor": [0, 0]}})";
    auto load = [&](const std::string& fa, Diagnostics& d) { return parse_case(parse_json_text(head + fa + tail), "t.json", d); };
    for (const std::string fa : {"null", R"({"Type": "ACTIVATION_RELU"})", R"({"Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Alpha": 0.5})",
                                 R"({"Type": "ACTIVATION_LINEAR", "Desc": {"Alpha": 2, "Beta": 1, "InputTensor": null}})"}) {
        CAPTURE(fa);
        Diagnostics d;
        const Case c = load(fa, d);
        REQUIRE_FALSE(d.has_errors());
        // (3 - 1) / 2 = 1 and (-3 - 1) / 2 = -2, then the activation.
        const auto y = as_values<float>(run_case(c).values.at("OutputTensor"));
        const std::vector<float> want = fa == "null" ? std::vector<float>{1, -2} : fa.find("LEAKY") != std::string::npos ? std::vector<float>{1, -1}
                                      : fa.find("RELU") != std::string::npos ? std::vector<float>{1, 0} : std::vector<float>{3, -3};
        check_bits(y, want);
    }
    auto rule_of = [&](const std::string& fa) {
        const Diagnostics d = diagnose(head + fa + tail);
        for (const auto& i : d.items()) if (i.severity == Severity::Error) return i.rule + " " + i.path;
        return std::string();
    };
    CHECK(rule_of(R"({"Type": "ACTIVATION_SOFTMAX"})") == "fused-activation.type /desc/FusedActivation/Type");
    CHECK(rule_of(R"({"Alpha": 1})") == "fused-activation.type /desc/FusedActivation");
    CHECK(rule_of(R"({"Type": "ACTIVATION_RELU", "InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}})") ==
          "fused-activation.tensor /desc/FusedActivation/InputTensor");
    CHECK(rule_of(R"({"Type": "ACTIVATION_LEAKY_RELU"})") == "case.missing-field /desc/FusedActivation");
    CHECK(rule_of(R"({"Type": "ACTIVATION_RELU", "Alpha": 1})") == "case.unknown-key /desc/FusedActivation/Alpha");
    CHECK(rule_of(R"("RELU")") == "case.type /desc/FusedActivation");
}

TEST_CASE("batch normalization: the checks catch planted errors") {
    // A one-ULP error planted in a golden is caught by the naive comparison's bit check and, at
    // k + 1 ULP, by the stated tolerance.
    const Shape s{{1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}};
    const Operator op = bn_op(DataType::FLOAT32, s, 0.0f, std::nullopt, false);
    Case c;
    c.op = op;
    c.inputs = {{"InputTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{1, 2})},
                {"MeanTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{0, 0})},
                {"VarianceTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{2, 3})},
                {"ScaleTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{1, 1})},
                {"BiasTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{0, 0})}};
    const auto y = as_values<float>(run_case(c).values.at("OutputTensor"));
    const float want0 = round_big<float>(Big(1.0) / sqrt_of(Big(2.0))), want1 = round_big<float>(Big(2.0) / sqrt_of(Big(3.0)));
    CHECK(to_bits(y[0]) == to_bits(want0));
    CHECK(to_bits(y[1]) == to_bits(want1));
    const float planted = std::nextafter(y[0], 2.0f);
    CHECK(to_bits(planted) != to_bits(want0));
    const Tolerance t = stated_tolerance(c, "OutputTensor");
    REQUIRE(t.Kind == "Summed");
    CHECK(t.MaxTerms == 9);
    ElementTolerance e;
    e.kind = "Summed";
    e.terms = t.MaxTerms;
    const DiffSwitches sw;
    CHECK(judge(DataType::FLOAT32, to_bits(y[0]), to_bits(planted), e, sw).verdict == Verdict::Within);
    float far = y[0];
    for (int i = 0; i < 9; ++i) far = std::nextafter(far, 2.0f);  // 9 ULP > (9 - 1/2) ULP
    CHECK(judge(DataType::FLOAT32, to_bits(y[0]), to_bits(far), e, sw).verdict == Verdict::Over);
}
