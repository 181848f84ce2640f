// DML_OPERATOR_ADAM_OPTIMIZER.
//
// Spec: DML_ADAM_OPTIMIZER_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md
// (adam-optimizer.*). With X, M, V, G, T the parameters, moments, gradient and training step:
//
//   M' = Beta1 * M + (1 - Beta1) * G                      -> OutputFirstMomentTensor
//   V' = Beta2 * V + (1 - Beta2) * G * G                  -> OutputSecondMomentTensor
//   Alpha = sqrt(1 - Beta2^T) / (1 - Beta1^T)
//   X' = X - LearningRate * Alpha * M' / (sqrt(V') + Epsilon)   -> OutputParametersTensor
//
// Rules (each with its id): the eight tensors "must have the same DataType" (.same-data-type),
// FLOAT32 or FLOAT16 (.data-type); the seven but TrainingStepTensor "must have the same Sizes"
// (.same-sizes); TrainingStepTensor is a scalar, all Sizes 1 (.training-step-sizes); Beta1 and
// Beta2 "between 0.0 and 1.0" (.beta-range); LearningRate and Epsilon finite (.hyperparameter);
// on the input values, T is a non-negative integer ("a single integer value") no larger than
// kAdamMaxStep, dmlref's limit (.training-step-value).
//
// Decisions (docs/golden.md, "Adam optimizer"):
//   - ComputedValue=ExactThenRoundOnce: each output is its formula evaluated exactly and rounded
//     once: 1 - Beta is exact, M' and V' are exact rationals, and X' is rational where its square
//     roots are (decided exactly), else evaluated in MPFR interval arithmetic at rising precision
//     until it rounds one way (Ziv's loop, reference/correctly_rounded.hpp).
//   - AdamMomentsInUpdate=Exact: X' uses the exact M' and V', not the outputs rounded to the
//     tensor type (the alternative Rounded, described; the tolerance admits it).
//   - AdamTrainingStepType=ParametersDataType: TrainingStepTensor has the parameters' type (the
//     page's "Tensor constraints" and "Tensor support"; its member text says UINT32, the
//     alternative, refused by .same-data-type).
//   - AdamTrainingStep=AsGiven: Beta^T with T the tensor's value; T = 0 makes Alpha 0 / 0 and X'
//     NaN (the alternative CountedFromOne, described: T + 1).
//   - AdamZeroStep=KeepsParameter: an update that is exactly zero (M' = 0, Alpha = 0, an
//     infinite sqrt(V')) leaves X's bits, -0 included.
//   - Special values follow IEEE's rules on the exact formula (NaN, inf - inf, 0 * inf, x / 0);
//     a NaN result is the canonical NaN (NonFiniteSum=CanonicalNaN); an exact zero is +0
//     (ZeroResult=PositiveZero).
#include "adam_optimizer.hpp"

#include "correctly_rounded.hpp"
#include "exact_rational.hpp"

#include "dmlref/values.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/working_types.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace dmlref::reference {

namespace {

using ADAM = DML_ADAM_OPTIMIZER_OPERATOR_DESC;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr std::string_view kAdam = "adam-optimizer";

// ---- The case's constants: T, the exact Beta^T and Alpha's parts -------------------------------

// x^n exactly, x a rational.
mpq_class power(const mpq_class& x, unsigned long n) {
    mpz_class num, den;
    mpz_pow_ui(num.get_mpz_t(), x.get_num_mpz_t(), n);
    mpz_pow_ui(den.get_mpz_t(), x.get_den_mpz_t(), n);
    mpq_class r(num, den);
    r.canonicalize();
    return r;
}

struct Constants {
    unsigned long T = 0;
    mpq_class b1, b2, lr, eps;
    mpq_class A2, B;                  // 1 - Beta2^T and 1 - Beta1^T, exactly (both in [0, 1])
    std::optional<mpq_class> rootA2;  // sqrt(A2) when it is rational
    double alpha_class = 0;           // Alpha's IEEE class: NaN, +inf, 0 or 1 (positive, finite)
};

Constants constants(const ADAM& d, double t) {
    Constants c;
    c.T = (unsigned long)t;
    c.b1 = exact_value(d.Beta1);
    c.b2 = exact_value(d.Beta2);
    c.lr = exact_value(d.LearningRate);
    c.eps = exact_value(d.Epsilon);
    c.A2 = 1 - power(c.b2, c.T);  // AdamTrainingStep=AsGiven: 0^0 is 1
    c.B = 1 - power(c.b1, c.T);
    if (sgn(c.A2) > 0) c.rootA2 = exact_power(c.A2, 0.5, ~0ul);
    else c.rootA2 = mpq_class(0);
    if (sgn(c.B) == 0) c.alpha_class = sgn(c.A2) == 0 ? kNaN : kInf;
    else c.alpha_class = sgn(c.A2) == 0 ? 0.0 : 1.0;
    return c;
}

// T from TrainingStepTensor's one element (validated first).
double step_of(const TensorDesc& t, std::span<const std::byte> bytes) {
    const std::vector<std::byte> v = gather_logical(t, bytes);
    return dispatch(t.DataType, [&]<class U>() -> double {
        if constexpr (std::is_integral_v<U>) return kNaN;
        else return double(widen(from_bits<U>(bits_t<U>(load_bits(t.DataType, v.data())))));
    });
}

// ---- One element ------------------------------------------------------------------------------

// A value's IEEE class, keeping its sign: NaN, +-inf, +-0 or +-1.
double cls(double v) { return v != v || std::isinf(v) || v == 0 ? v : v > 0 ? 1.0 : -1.0; }

// An exact value: finite (q) or an IEEE special (d: NaN or an infinity).
struct Exact {
    bool finite = true;
    mpq_class q;
    double d = 0;
    double cls() const { return finite ? double(sgn(q)) : d; }
};

// M' and V': IEEE's value where an input is NaN or infinite (the products of two FLOAT32 values
// and the sum of two of them are exact in double, so double arithmetic decides the special
// value); else the exact rational.
Exact first_moment(const Constants& c, double m, double g) {
    if (!std::isfinite(m) || !std::isfinite(g)) {
        const double b1 = c.b1.get_d();
        return {false, 0, b1 * m + (1 - b1) * g};
    }
    return {true, c.b1 * exact_value(m) + (1 - c.b1) * exact_value(g), 0};
}
Exact second_moment(const Constants& c, double v, double g) {
    if (!std::isfinite(v) || !std::isfinite(g)) {
        const double b2 = c.b2.get_d();
        return {false, 0, b2 * v + (1 - b2) * g * g};
    }
    const mpq_class gq = exact_value(g);
    return {true, c.b2 * exact_value(v) + (1 - c.b2) * gq * gq, 0};
}

// The class of D = sqrt(V') + Epsilon (NaN, +inf, +0, +1 or -1).
double denominator_class(const Constants& c, const Exact& V) {
    if (!V.finite) return V.d > 0 ? kInf : kNaN;  // sqrt(+inf) = inf; NaN, and sqrt(-inf) = NaN
    if (sgn(V.q) < 0) return kNaN;
    if (sgn(c.eps) >= 0) return sgn(V.q) == 0 && sgn(c.eps) == 0 ? 0.0 : 1.0;  // +0 + +-0 = +0
    const int s = cmp(V.q, c.eps * c.eps);                                     // sqrt(V') against -Epsilon > 0
    return s > 0 ? 1.0 : s == 0 ? 0.0 : -1.0;
}

// X' in double where it is a special value or X itself; nullopt where it is finite and computed.
std::optional<double> special_parameter(const Constants& c, double x, const Exact& M, const Exact& V) {
    const double step = cls(c.lr.get_d()) * c.alpha_class * M.cls() / denominator_class(c, V);
    if (step != step || x != x) return kNaN;
    if (std::isinf(step) || std::isinf(x)) return x - step;  // inf - inf is NaN
    if (step == 0) return x;                                 // AdamZeroStep=KeepsParameter
    return std::nullopt;
}

// X' exactly where it is rational: both square roots rational, or Epsilon = 0 with A2 / V' a
// perfect square. Otherwise X' is irrational (docs/golden.md, "Adam optimizer") and nullopt.
std::optional<mpq_class> rational_parameter(const Constants& c, const mpq_class& x, const mpq_class& M,
                                            const mpq_class& V) {
    const mpq_class k = c.lr * M / c.B;  // the step is k * sqrt(A2) / (sqrt(V') + Epsilon)
    if (c.rootA2) {
        if (sgn(V) == 0) return mpq_class(x - k * *c.rootA2 / c.eps);
        if (const auto r = exact_power(V, 0.5, ~0ul)) return mpq_class(x - k * *c.rootA2 / (*r + c.eps));
    }
    if (sgn(c.eps) == 0 && sgn(V) > 0)
        if (const auto r = exact_power(mpq_class(c.A2 / V), 0.5, ~0ul)) return mpq_class(x - k * *r);
    return std::nullopt;
}

// An MPFR interval [lo, hi].
struct MpfrInterval {
    mpfr_t lo, hi;
    explicit MpfrInterval(mpfr_prec_t w) { mpfr_inits2(w, lo, hi, (mpfr_ptr) nullptr); }
    ~MpfrInterval() { mpfr_clears(lo, hi, (mpfr_ptr) nullptr); }
    MpfrInterval(const MpfrInterval&) = delete;
    MpfrInterval& operator=(const MpfrInterval&) = delete;
    void set(const mpq_class& q) {
        mpfr_set_q(lo, q.get_mpq_t(), MPFR_RNDD);
        mpfr_set_q(hi, q.get_mpq_t(), MPFR_RNDU);
    }
};

// X' = X - s q with q = |LR| Alpha |M'| / |D| > 0 and s its sign, at working precision w: every
// operation rounded outward, so that X' lies in [lo, hi]; the midpoint and its correct bits.
long parameter_interval(const Constants& c, const mpq_class& x, const mpq_class& M, const mpq_class& V, mpfr_ptr y,
                        mpfr_prec_t w) {
    MpfrInterval p1(w), p2(w), a(w), b(w), r(w), m(w), lr(w), q(w), out(w);
    mpfr_t one;
    mpfr_init2(one, w);
    mpfr_set_ui(one, 1, MPFR_RNDN);
    long bits = 0;
    // Beta^T outward, then 1 - Beta^T (the exact one is in (0, 1] here).
    p1.set(c.b1);
    p2.set(c.b2);
    mpfr_pow_ui(p1.lo, p1.lo, c.T, MPFR_RNDD);
    mpfr_pow_ui(p1.hi, p1.hi, c.T, MPFR_RNDU);
    mpfr_pow_ui(p2.lo, p2.lo, c.T, MPFR_RNDD);
    mpfr_pow_ui(p2.hi, p2.hi, c.T, MPFR_RNDU);
    mpfr_sub(a.lo, one, p2.hi, MPFR_RNDD);
    mpfr_sub(a.hi, one, p2.lo, MPFR_RNDU);
    mpfr_sub(b.lo, one, p1.hi, MPFR_RNDD);
    mpfr_sub(b.hi, one, p1.lo, MPFR_RNDU);
    // D = sqrt(V') + Epsilon outward; its sign is known (denominator_class), so |D| is too.
    r.set(V);
    mpfr_sqrt(r.lo, r.lo, MPFR_RNDD);
    mpfr_sqrt(r.hi, r.hi, MPFR_RNDU);
    const double dsign = denominator_class(c, Exact{true, V, 0});
    mpfr_t e;
    mpfr_init2(e, w);
    mpfr_set_q(e, c.eps.get_mpq_t(), MPFR_RNDN);  // a FLOAT32: exact at w >= 64
    mpfr_add(r.lo, r.lo, e, MPFR_RNDD);
    mpfr_add(r.hi, r.hi, e, MPFR_RNDU);
    if (dsign < 0) {
        mpfr_swap(r.lo, r.hi);
        mpfr_neg(r.lo, r.lo, MPFR_RNDD);
        mpfr_neg(r.hi, r.hi, MPFR_RNDU);
    }
    if (mpfr_sgn(a.lo) > 0 && mpfr_sgn(b.lo) > 0 && mpfr_sgn(r.lo) > 0) {  // else undecided: more precision
        // q = |LR| sqrt(A2) |M'| / (B |D|), lo from the lows over the highs, rounded down; hi likewise up.
        m.set(abs(M));
        lr.set(abs(c.lr));
        mpfr_sqrt(q.lo, a.lo, MPFR_RNDD);
        mpfr_sqrt(q.hi, a.hi, MPFR_RNDU);
        mpfr_mul(q.lo, q.lo, lr.lo, MPFR_RNDD);
        mpfr_mul(q.hi, q.hi, lr.hi, MPFR_RNDU);
        mpfr_mul(q.lo, q.lo, m.lo, MPFR_RNDD);
        mpfr_mul(q.hi, q.hi, m.hi, MPFR_RNDU);
        mpfr_div(q.lo, q.lo, b.hi, MPFR_RNDD);
        mpfr_div(q.hi, q.hi, b.lo, MPFR_RNDU);
        mpfr_div(q.lo, q.lo, r.hi, MPFR_RNDD);
        mpfr_div(q.hi, q.hi, r.lo, MPFR_RNDU);
        out.set(x);  // a FLOAT32: exact
        const int s = sgn(c.lr) * sgn(M) * int(dsign);
        if (s > 0) {  // X - q
            mpfr_sub(out.lo, out.lo, q.hi, MPFR_RNDD);
            mpfr_sub(out.hi, out.hi, q.lo, MPFR_RNDU);
        } else {  // X + q
            mpfr_add(out.lo, out.lo, q.lo, MPFR_RNDD);
            mpfr_add(out.hi, out.hi, q.hi, MPFR_RNDU);
        }
        mpfr_add(y, out.lo, out.hi, MPFR_RNDN);
        mpfr_div_2ui(y, y, 1, MPFR_RNDN);
        mpfr_sub(q.hi, out.hi, out.lo, MPFR_RNDU);  // the width: |y - X'| <= width
        if (mpfr_zero_p(q.hi)) bits = kExact;
        else if (!mpfr_zero_p(y)) bits = std::max(0l, long(mpfr_get_exp(y)) - long(mpfr_get_exp(q.hi)));
    }
    mpfr_clears(one, e, (mpfr_ptr) nullptr);
    return bits;
}

template <class T> T rounded(const Exact& v) {
    if (!v.finite) return v.d != v.d ? canonical_nan<T>() : round_to_float<T>(v.d);
    return round_rational<T>(v.q);  // an exact zero is +0 (ZeroResult=PositiveZero)
}

template <class T> T parameter(const Constants& c, double x, const Exact& M, const Exact& V) {
    if (const auto s = special_parameter(c, x, M, V)) {
        if (*s != *s) return canonical_nan<T>();
        if (*s == x) return round_to_float<T>(x);  // X itself (its bits: X is of type T)
        return round_to_float<T>(*s);
    }
    const mpq_class xq = exact_value(x);
    if (const auto r = rational_parameter(c, xq, M.q, V.q)) return round_rational<T>(*r);
    return correctly_rounded<T>([&](mpfr_ptr y, mpfr_prec_t w) { return parameter_interval(c, xq, M.q, V.q, y, w); });
}

}  // namespace

// ---- Validation --------------------------------------------------------------------------------

void validate(const ADAM& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"GradientTensor", d.GradientTensor},
                                              {"InputFirstMomentTensor", d.InputFirstMomentTensor},
                                              {"InputParametersTensor", d.InputParametersTensor},
                                              {"InputSecondMomentTensor", d.InputSecondMomentTensor},
                                              {"OutputFirstMomentTensor", d.OutputFirstMomentTensor},
                                              {"OutputParametersTensor", d.OutputParametersTensor},
                                              {"OutputSecondMomentTensor", d.OutputSecondMomentTensor},
                                              {"TrainingStepTensor", d.TrainingStepTensor}};
    const DataType t = d.InputParametersTensor.DataType;
    for (const Named& n : all)
        if (n.desc.DataType != t) {
            diags.error(desc_path(n.name) + "/DataType", rule(kAdam, "same-data-type"),
                        std::string(n.name) + " is " + std::string(name(n.desc.DataType)) +
                            " and InputParametersTensor " + std::string(name(t)) + "; " + join_names(all) +
                            " must have the same DataType");
            break;
        }
    if (t != DataType::FLOAT32 && t != DataType::FLOAT16)
        diags.error(
            desc_path("InputParametersTensor") + "/DataType", rule(kAdam, "data-type"),
            "InputParametersTensor is " + std::string(name(t)) + "; the page's tables give FLOAT32 and FLOAT16");
    require_same_sizes(diags,
                       {{"InputParametersTensor", d.InputParametersTensor},
                        {"GradientTensor", d.GradientTensor},
                        {"InputFirstMomentTensor", d.InputFirstMomentTensor},
                        {"InputSecondMomentTensor", d.InputSecondMomentTensor},
                        {"OutputFirstMomentTensor", d.OutputFirstMomentTensor},
                        {"OutputParametersTensor", d.OutputParametersTensor},
                        {"OutputSecondMomentTensor", d.OutputSecondMomentTensor}},
                       rule(kAdam, "same-sizes"));
    for (uint32_t s : d.TrainingStepTensor.Sizes)
        if (s != 1) {
            diags.error(
                desc_path("TrainingStepTensor") + "/Sizes", rule(kAdam, "training-step-sizes"),
                "TrainingStepTensor has a size " + std::to_string(s) + "; it must be a scalar (all Sizes equal to 1)");
            break;
        }
    for (const auto& [field, v] : {std::pair{"Beta1", d.Beta1}, std::pair{"Beta2", d.Beta2}})
        if (!(v >= 0 && v <= 1))
            diags.error(desc_path(field), rule(kAdam, "beta-range"),
                        std::string(field) + " is " + std::to_string(v) + "; this value should be between 0.0 and 1.0");
    for (const auto& [field, v] : {std::pair{"LearningRate", d.LearningRate}, std::pair{"Epsilon", d.Epsilon}})
        if (!std::isfinite(v))
            diags.error(desc_path(field), rule(kAdam, "hyperparameter"),
                        std::string(field) + " is not finite; dmlref needs a finite value");
}

void validate_values(const ADAM& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    const auto s = in.find("TrainingStepTensor");
    if (!valid(d, validate) || s == in.end() || s->second.size() < buffer_size(d.TrainingStepTensor)) return;
    const double t = step_of(d.TrainingStepTensor, s->second);
    if (!(t >= 0 && t <= kAdamMaxStep && t == std::floor(t)))
        diags.error(pointer_append("/inputs/TrainingStepTensor", size_t(0)), rule(kAdam, "training-step-value"),
                    "TrainingStepTensor holds " + std::to_string(t) + "; it must hold an integer value from 0 to " +
                        std::to_string(uint64_t(kAdamMaxStep)) +
                        " (the page: \"a single integer value\"; the upper limit is dmlref's)");
}

// ---- The loop ---------------------------------------------------------------------------------

void evaluate(const ADAM& d, const Bindings& b) {
    const DataType t = d.InputParametersTensor.DataType;
    dispatch(t, [&]<class T>() {
        if constexpr (std::is_integral_v<T> || std::is_same_v<T, double>) {
            throw std::invalid_argument("ADAM_OPTIMIZER takes FLOAT32 and FLOAT16 (validate first)");
        } else {
            // Every input is read before any output is written: outputs may alias inputs.
            const Constants c = constants(d, step_of(d.TrainingStepTensor, b.at("TrainingStepTensor")));
            const std::vector<T> X = logical_values<T>(d.InputParametersTensor, b.at("InputParametersTensor"));
            const std::vector<T> M = logical_values<T>(d.InputFirstMomentTensor, b.at("InputFirstMomentTensor"));
            const std::vector<T> V = logical_values<T>(d.InputSecondMomentTensor, b.at("InputSecondMomentTensor"));
            const std::vector<T> G = logical_values<T>(d.GradientTensor, b.at("GradientTensor"));
            std::vector<T> x2(X.size()), m2(X.size()), v2(X.size());
            for (size_t i = 0; i < X.size(); ++i) {
                const double g = double(widen(G[i]));
                const Exact m = first_moment(c, double(widen(M[i])), g), v = second_moment(c, double(widen(V[i])), g);
                m2[i] = rounded<T>(m);
                v2[i] = rounded<T>(v);
                x2[i] = parameter<T>(c, double(widen(X[i])), m, v);  // AdamMomentsInUpdate=Exact
            }
            write_logical<T>(d.OutputParametersTensor, b.at("OutputParametersTensor"),
                             [&](uint64_t i) { return x2[i]; });
            write_logical<T>(d.OutputFirstMomentTensor, b.at("OutputFirstMomentTensor"),
                             [&](uint64_t i) { return m2[i]; });
            write_logical<T>(d.OutputSecondMomentTensor, b.at("OutputSecondMomentTensor"),
                             [&](uint64_t i) { return v2[i]; });
        }
    });
}

std::optional<Tolerance> adam_optimizer_tolerance(const ADAM& d, std::string_view output) {
    if (!valid(d, validate) || !output.starts_with("Output")) return std::nullopt;
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 0;
    t.Why =
        output == "OutputParametersTensor"
            ? "X - LearningRate * Alpha * M / (sqrt(V) + Epsilon): the exact value rounded once (docs/golden.md, Adam optimizer); "
              "dmlref diff bounds each element by a forward error analysis of the formula in the working types a backend may use, "
              "the moments rounded to the tensor type or not (docs/tolerance.md, Adam optimizer); a NaN golden matches any NaN"
            : "the exact moment (Beta * moment + (1 - Beta) * gradient term) rounded once (docs/golden.md, Adam optimizer); dmlref "
              "diff bounds each element by a forward error analysis (docs/tolerance.md, Adam optimizer); a NaN golden matches any NaN";
    return t;
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_adam_optimizer(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<ADAM>(&c.op.Desc);
    if (!d) return false;
    auto in = [&](const char* f) -> std::span<const std::byte> {
        const auto i = c.inputs.find(f);
        if (i == c.inputs.end()) throw std::invalid_argument(std::string("the case has no ") + f);
        return i->second;
    };
    const Constants k = constants(*d, step_of(d->TrainingStepTensor, in("TrainingStepTensor")));
    const double x = logical_doubles(d->InputParametersTensor, in("InputParametersTensor")).at(flat);
    const double m = logical_doubles(d->InputFirstMomentTensor, in("InputFirstMomentTensor")).at(flat);
    const double v = logical_doubles(d->InputSecondMomentTensor, in("InputSecondMomentTensor")).at(flat);
    const double g = logical_doubles(d->GradientTensor, in("GradientTensor")).at(flat);
    auto text = [](double z) {
        char b[40];
        std::snprintf(b, sizeof b, "%.17g", z);
        return std::string(b);
    };
    out.facts.emplace_back("inputs", "X = " + text(x) + ", M = " + text(m) + ", V = " + text(v) + ", G = " + text(g) +
                                         ", T = " + std::to_string(k.T));
    const Exact M = first_moment(k, m, g), V = second_moment(k, v, g);
    out.facts.emplace_back("moments", "M' = Beta1 M + (1 - Beta1) G = " + text(M.finite ? M.q.get_d() : M.d) +
                                          ", V' = Beta2 V + (1 - Beta2) G^2 = " + text(V.finite ? V.q.get_d() : V.d) +
                                          " (exact, shown rounded to double)");
    out.facts.emplace_back(
        "alpha", "Alpha = sqrt(1 - Beta2^T) / (1 - Beta1^T) = " +
                     (k.alpha_class == 1.0 ? text(std::sqrt(k.A2.get_d()) / k.B.get_d()) : text(k.alpha_class)));
    if (output == "OutputParametersTensor") {
        const auto s = special_parameter(k, x, M, V);
        out.facts.emplace_back(
            "rule", s ? "a special value or a zero update, by IEEE's rules on the exact formula"
                      : "X - LearningRate * Alpha * M' / (sqrt(V') + Epsilon), exact (or Ziv's loop), rounded once");
    }
    out.policies = {"ComputedValue", "AdamMomentsInUpdate", "AdamTrainingStep",
                    "AdamZeroStep",  "NonFiniteSum",        "ZeroResult"};
    return true;
}

// ---- Judging: each element's error bound (docs/tolerance.md, "Adam optimizer") ----------------

namespace {

// sqrt of a computed value within x.err of x (x >= 0, and the backend's value >= 0: a sum of
// non-negative terms rounded to nearest stays non-negative): |sqrt(x') - sqrt(x)| is at most
// sqrt(err) and err / (sqrt(lo) + sqrt(lo - err)); then the backend's own sqrt, assumed within
// kSqrtUlps ULPs of its working type (docs/tolerance.md, "Adam optimizer": an IEEE sqrt is
// within 1/2, an rsqrt and a multiply within about 2).
constexpr double kSqrtUlps = 4;
Quantity root(const Arithmetic& A, const Quantity& x) {
    if (!(x.lo >= 0) || !std::isfinite(x.hi) || !std::isfinite(x.err)) return {-kInf, kInf, kInf};
    const double lo = std::nextafter(std::sqrt(x.lo), 0.0), hi = std::nextafter(std::sqrt(x.hi), kInf);
    double prop = std::nextafter(std::sqrt(x.err), kInf);
    const double gap = std::sqrt(x.lo) + std::sqrt(std::max(0.0, x.lo - x.err));
    if (gap > 0) prop = std::min(prop, x.err / gap * (1 + 1e-15));
    const DataType w = A.type();
    const double own = kSqrtUlps * 2 * unit_roundoff(w) * (hi + prop) + smallest_normal(w);
    return {std::max(0.0, lo), hi, (prop + own) * (1 + 1e-15)};
}

// One more rounding to the tensor type t (the moments stored, then read back:
// AdamMomentsInUpdate=Rounded), where the working type is wider.
Quantity stored(const Arithmetic& A, const Quantity& q, DataType t) {
    if (A.type() == t || !std::isfinite(q.err)) return q;
    return {q.lo, q.hi, (q.err + unit_roundoff(t) * (q.mag() + q.err) + smallest_normal(t)) * (1 + 1e-15)};
}

struct Element {
    double x, m, v, g;
};

// The formula in a backend's working arithmetic; `which` 0: X', 1: M', 2: V'. The worst of the
// evaluation orders below: the gradient square as ((1 - Beta2) G) G or (1 - Beta2) (G G), the
// update as ((LR Alpha) M') / D or LR (Alpha (M' / D)), the moments used as computed or stored.
Quantity formula(const Arithmetic& A, const ADAM& d, double T, const Element& e, DataType t, int which,
                 bool no_negative_v) {
    const Quantity one = A.constant(1), b1 = A.constant(d.Beta1), b2 = A.constant(d.Beta2);
    const Quantity X = A.input(e.x), M = A.input(e.m), V = A.input(e.v), G = A.input(e.g);
    const Quantity c1 = A.add(one, A.neg(b1)), c2 = A.add(one, A.neg(b2));
    const Quantity Mn = A.add(A.mul(b1, M), A.mul(c1, G));
    const Quantity Vn = worst(A.add(A.mul(b2, V), A.mul(A.mul(c2, G), G)), A.add(A.mul(b2, V), A.mul(c2, A.mul(G, G))));
    if (which == 1) return Mn;
    if (which == 2) return Vn;
    // Beta^T: exactly 0 or 1 where Beta is (pow(0, T) = 0 for T > 0, pow(1, T) = 1), else pow.
    auto power = [&](float b, const Quantity& bq) {
        return b == 0 ? A.constant(T == 0 ? 1 : 0) : b == 1 ? one : A.pow(bq, T);
    };
    const Quantity alpha = A.div(root(A, A.add(one, A.neg(power(d.Beta2, b2)))), A.add(one, A.neg(power(d.Beta1, b1))));
    const Quantity lr = A.constant(d.LearningRate), eps = A.constant(d.Epsilon);
    Quantity worst_x{0, 0, 0};
    for (bool store : {false, true}) {
        const Quantity m = store ? stored(A, Mn, t) : Mn;
        Quantity v = store ? stored(A, Vn, t) : Vn;
        if (!no_negative_v) v.lo = std::min(v.lo, v.lo - v.err);  // a negative V' may come out: no bound near 0
        const Quantity D = A.add(root(A, v), eps);
        const Quantity s1 = A.div(A.mul(A.mul(lr, alpha), m), D);
        const Quantity s2 = A.mul(lr, A.mul(alpha, A.div(m, D)));
        const Quantity x = worst(A.add(X, A.neg(s1)), A.add(X, A.neg(s2)));
        worst_x = worst(worst_x, x);
    }
    return worst_x;
}

template <int Which>
void adam_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const auto* d = get_if<ADAM>(&op.Desc);
    if (!d) throw std::invalid_argument("not an ADAM_OPTIMIZER operator");
    const DataType t = d->InputParametersTensor.DataType;
    const double T = step_of(d->TrainingStepTensor, input("TrainingStepTensor"));
    const std::vector<double> X = logical_doubles(d->InputParametersTensor, input("InputParametersTensor"));
    const std::vector<double> M = logical_doubles(d->InputFirstMomentTensor, input("InputFirstMomentTensor"));
    const std::vector<double> V = logical_doubles(d->InputSecondMomentTensor, input("InputSecondMomentTensor"));
    const std::vector<double> G = logical_doubles(d->GradientTensor, input("GradientTensor"));
    const Constants c = constants(*d, T);
    for (uint64_t e = 0; e < X.size() && e < sink.elements().size(); ++e) {
        const Element el{X[e], M[e], V[e], G[e]};
        const Exact Mx = first_moment(c, el.m, el.g), Vx = second_moment(c, el.v, el.g);
        // The golden's special values: judged as non-finite values (a NaN golden matches any NaN).
        double special = 0;
        bool is_special = false;
        if (Which == 1 && !Mx.finite) special = Mx.d, is_special = true;
        if (Which == 2 && !Vx.finite) special = Vx.d, is_special = true;
        if (Which == 0)
            if (const auto s = special_parameter(c, el.x, Mx, Vx); s && !std::isfinite(*s))
                special = *s, is_special = true;
        if (is_special) {
            sink.set_computed(e, kInf, 0, 1, special != special, special == special);
            continue;
        }
        const double scale = std::fabs(el.x) + std::fabs(el.m) + std::fabs(el.v) + el.g * el.g;
        const double err = computed_error(
            p, t, [&](const Arithmetic& A) { return formula(A, *d, T, el, t, Which, el.v >= 0); });
        sink.set_computed(e, err, scale, 1);
    }
}

}  // namespace

void adam_parameters_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    adam_bounds<0>(op, input, p, sink);
}
void adam_first_moment_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                              TermSink& sink) {
    adam_bounds<1>(op, input, p, sink);
}
void adam_second_moment_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                               TermSink& sink) {
    adam_bounds<2>(op, input, p, sink);
}

}  // namespace dmlref::reference
