// The error bound of a summed element from its own terms, rounded up (docs/tolerance.md).
#include "dmlref/bound.hpp"
#include "dmlref/working_types.hpp"
#include "dmlref/bits.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Operations on non-negative doubles, rounded up: the result of a round-to-nearest operation
// is within half an ULP of the exact one, so the next double up is never below it.
double next_up(double x) { return std::nextafter(x, kInfinity); }
double add_next_up(double a, double b) { return next_up(a + b); }
double mul_next_up(double a, double b) { return next_up(a * b); }

// a + b = s + e exactly (Knuth's TwoSum), for finite a, b whose sum does not overflow.
double two_sum(double a, double b, double& e) {
    const double s = a + b;
    const double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
    return s;
}

// Adds weight * value to the element's error-free sum, or gives that sum up where a product
// underflows (its FMA residual may then be inexact) or a sum overflows.
void add_exactly(ElementTerms& x, double weight, double value) {
    const double p = weight * value;
    if (!std::isfinite(p) || (std::fabs(p) < 0x1p-960 && weight != 0 && value != 0)) {
        x.exact_sum = false;
        return;
    }
    const double p_error = std::fma(weight, value, -p);  // p + p_error = weight * value exactly
    double e1 = 0, e2 = 0, e3 = 0;
    x.sum_hi = two_sum(x.sum_hi, p, e1);
    const double lo = two_sum(x.sum_lo, e1, e2);
    x.sum_lo = two_sum(lo, p_error, e3);
    if (e2 != 0 || e3 != 0 || !std::isfinite(x.sum_hi) || !std::isfinite(x.sum_lo)) x.exact_sum = false;
}

// Whether the element's terms, summed exactly in float64, are the golden g itself.
bool sum_is_golden(const ElementTerms& e, double g) {
    if (!e.exact_sum) return false;
    double err = 0;
    return two_sum(e.sum_hi, e.sum_lo, err) == g && err == 0;
}

uint64_t magnitude_bits(DataType t, uint64_t b) {
    switch (t) {
        case DataType::FLOAT16: return b & 0x7fff;
        case DataType::FLOAT32: return b & 0x7fffffff;
        default: return b & 0x7fffffffffffffff;
    }
}

uint64_t max_finite_bits(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return 0x7bff;
        case DataType::FLOAT32: return 0x7f7fffff;
        default: return 0x7fefffffffffffff;
    }
}

// The spacing of the golden's binade: from |g| to the next float away from zero (for the
// largest finite value, the spacing below it). Exact: a power of two.
double ulp_of(DataType t, uint64_t g) {
    const uint64_t mag = magnitude_bits(t, g);
    return mag < max_finite_bits(t) ? element_value(t, mag + 1) - element_value(t, mag)
                                    : element_value(t, mag) - element_value(t, mag - 1);
}

// |a - g| <= bound, exactly. s = a - g rounded to nearest and e its residual (TwoSum). Rounding
// is monotone and bound is a double, so |s| < bound and |s| > bound decide for the exact value
// too; |s| == bound leaves it to the residual's direction.
bool difference_within(double a, double g, double bound) {
    const double s = a - g;
    const double as = std::fabs(s);
    if (as != bound) return as < bound;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (-g - bb);
    if (s == 0) return e == 0;
    return (s > 0 ? e : -e) <= 0;
}

}  // namespace

double formation_allowance(const ElementTerms& e, DataType t, const ArithmeticProfile& p) {
    const double r = tf32_operand_error(p, t);
    if (r == 0 || e.products == 0) return e.formation;
    // Each operand of a product rounded to TF32 moves by less than r = 2^-10 of itself (toward
    // zero; to nearest 2^-11), so the product by at most (2r + r^2) of |weight * value|.
    return add_next_up(e.formation, mul_next_up(2 * r + r * r, e.product_sum));
}

namespace {

// The bound for one accumulation type `a` (a at least as wide as the output type t).
double bound_for(const ElementTerms& e, DataType t, DataType a, uint64_t golden_bits, const ArithmeticProfile& p) {
    const bool flush = p.flush_subnormals;
    const double ua = unit_roundoff(a), uo = unit_roundoff(t), u64 = unit_roundoff(DataType::FLOAT64);
    // Term formation: weight error (and TF32 operands), the product's rounding, its underflow.
    double F = formation_allowance(e, t, p);
    F = add_next_up(F, mul_next_up(ua, e.product_sum));
    F = add_next_up(F, mul_next_up(double(e.products), subnormal_rounding_error(a)));
    const double S1 = add_next_up(e.abs_sum, F);  // at least the sum of a backend's |term|
    const double g = e.n >= 2 ? gamma_up(e.n - 1, ua) : 0.0;
    if (!std::isfinite(g)) return kInfinity;
    const double sum_error = mul_next_up(g, S1);
    double bound = add_next_up(F, sum_error);
    // The golden's own rounding: the float64 terms and sum, then half an ULP of the golden. Where
    // the float64 terms sum exactly to the golden, only the terms' own float64 rounding remains.
    const double golden_error = sum_is_golden(e, element_value(t, golden_bits))
                                    ? mul_next_up(u64, e.abs_sum)
                                    : add_next_up(mul_next_up(2 * u64, e.abs_sum), ulp_of(t, golden_bits) / 2);
    // A wider accumulator is rounded once more, to the output type: by at most u_o times the
    // accumulated value, which lies within F + sum_error of the exact sum, itself within
    // golden_error of the golden. Where the golden is not finite, the sum of |term| bounds it.
    if (a != t) {
        double accumulated = add_next_up(S1, sum_error);
        const double golden = std::fabs(element_value(t, golden_bits));
        if (std::isfinite(golden))
            accumulated = std::min(accumulated,
                                   add_next_up(add_next_up(golden, golden_error), add_next_up(F, sum_error)));
        bound = add_next_up(bound, add_next_up(mul_next_up(uo, accumulated), subnormal_rounding_error(t)));
    }
    bound = add_next_up(bound, golden_error);
    if (flush) {
        // Every product, every partial sum and every operand may be flushed, each by less
        // than the smallest normal; then the result.
        const double ops = double(2 * uint64_t(e.n) + e.products);
        bound = add_next_up(bound, add_next_up(mul_next_up(ops, smallest_normal(a)), smallest_normal(t)));
    }
    return bound;
}

bool wider_or_same(DataType a, DataType t) { return element_size(a) >= element_size(t); }

}  // namespace

std::vector<DataType> working_types(const ArithmeticProfile& p, DataType t) {
    std::vector<DataType> types;
    auto add = [&](DataType a) {
        if (std::find(types.begin(), types.end(), a) == types.end()) types.push_back(a);
    };
    switch (p.accumulate) {
        case Accumulate::Any:
            for (DataType a : {t, DataType::FLOAT32, DataType::FLOAT64})
                if (wider_or_same(a, t)) add(a);
            break;
        case Accumulate::Output: add(t); break;
        case Accumulate::Float32: add(wider_or_same(DataType::FLOAT32, t) ? DataType::FLOAT32 : t); break;
        case Accumulate::Float64: add(DataType::FLOAT64); break;
    }
    return types;
}

std::string_view name(Accumulate a) {
    switch (a) {
        case Accumulate::Any: return "any";
        case Accumulate::Output: return "output";
        case Accumulate::Float32: return "float32";
        case Accumulate::Float64: return "float64";
    }
    return "?";
}

std::string_view name(Coordinates c) {
    switch (c) {
        case Coordinates::Any: return "any";
        case Coordinates::Float64: return "float64";
        case Coordinates::Float32Division: return "float32-division";
        case Coordinates::Float32Reciprocal: return "float32-reciprocal";
        case Coordinates::Float32ReciprocalFma: return "float32-reciprocal-fma";
    }
    return "?";
}

std::string_view name(Statistics s) {
    switch (s) {
        case Statistics::Any: return "any";
        case Statistics::Stable: return "stable";
        case Statistics::TwoPass: return "two-pass";
        case Statistics::Online: return "online";
        case Statistics::OnePass: return "one-pass";
    }
    return "?";
}

std::optional<Accumulate> parse_accumulate(std::string_view s) {
    for (Accumulate a : {Accumulate::Any, Accumulate::Output, Accumulate::Float32, Accumulate::Float64})
        if (name(a) == s) return a;
    return std::nullopt;
}

std::optional<Coordinates> parse_coordinates(std::string_view s) {
    for (Coordinates c : {Coordinates::Any, Coordinates::Float64, Coordinates::Float32Division,
                          Coordinates::Float32Reciprocal, Coordinates::Float32ReciprocalFma})
        if (name(c) == s) return c;
    return std::nullopt;
}

std::optional<Statistics> parse_statistics(std::string_view s) {
    for (Statistics f :
         {Statistics::Any, Statistics::Stable, Statistics::TwoPass, Statistics::Online, Statistics::OnePass})
        if (name(f) == s) return f;
    return std::nullopt;
}

std::string profile_text(const ArithmeticProfile& p) {
    return "accumulate=" + std::string(name(p.accumulate)) + " coordinates=" + std::string(name(p.coordinates)) +
           " subnormals=" + (p.flush_subnormals ? "may-flush" : "kept") +
           " operands=" + (p.tf32_operands ? "tf32" : "exact") +
           " convolution=" + (p.winograd ? "direct-or-winograd" : "direct") +
           " statistics=" + std::string(name(p.statistics));
}

void TermSink::add(uint64_t e, double value, double weight, double delta, bool product, bool ambiguous) {
    ElementTerms& x = elements_[e];
    ++x.n;
    if (std::isnan(value) || std::isnan(weight)) {
        x.nan = true;
        return;
    }
    const double v = std::fabs(value);
    if (std::isinf(value)) {
        // A weight of exactly 0 is no term (reference/resample.cpp); an infinite term makes the
        // golden infinite (or NaN with the other sign, which the golden records).
        x.infinite = x.infinite || weight != 0;
        if (delta > 0) x.infinite = true;
        if (weight != 0 || delta > 0) {
            // Its sign: value times weight (a weight within delta of 0 may take either sign).
            const bool negative = std::signbit(value) != std::signbit(weight);
            (negative ? x.negative_infinity : x.positive_infinity) = true;
            if (std::fabs(weight) <= delta) x.positive_infinity = x.negative_infinity = true;
        }
        return;
    }
    if (x.exact_sum) add_exactly(x, weight, value);
    const double t = mul_next_up(std::fabs(weight), v);
    const bool negative = std::signbit(value) != std::signbit(weight);
    ++(negative ? x.negative_terms : x.positive_terms);
    double& side = negative ? x.negative_sum : x.positive_sum;
    side = add_next_up(side, t);
    x.abs_sum = add_next_up(x.abs_sum, t);
    x.max_term = std::max(x.max_term, t);
    if (delta > 0) x.formation = add_next_up(x.formation, mul_next_up(delta, v));
    if (ambiguous && delta > 0) x.ambiguous_formation = add_next_up(x.ambiguous_formation, mul_next_up(delta, v));
    if (product) {
        ++x.products;
        x.product_sum = add_next_up(x.product_sum, mul_next_up(add_next_up(std::fabs(weight), delta), v));
    }
    x.ambiguous = x.ambiguous || ambiguous;
}

void TermSink::set_computed(uint64_t e, double error, double scale, uint32_t terms, bool nan, bool infinite) {
    ElementTerms& x = elements_[e];
    x = ElementTerms{};
    x.computed = true;
    x.n = terms;
    x.nan = nan;
    x.infinite = infinite && !nan;
    x.computed_error = std::isnan(error) ? kInfinity : error;
    x.abs_sum = scale;
    // The whole allowance counts as formation: the systematic check (which assumes unbiased
    // rounding) does not apply to computed elements, whose stated accuracies may be biased.
    x.formation = x.computed_error;
}

void TermSink::link(uint64_t a, uint64_t b) {
    if (parent_.empty()) {
        parent_.resize(elements_.size());
        for (uint64_t i = 0; i < parent_.size(); ++i) parent_[i] = i;
    }
    a = group(a);
    b = group(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
}

uint64_t TermSink::group(uint64_t e) {
    if (parent_.empty()) return e;
    while (parent_[e] != e) e = parent_[e] = parent_[parent_[e]];
    return e;
}

double unit_roundoff(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return std::ldexp(1.0, -11);
        case DataType::FLOAT32: return std::ldexp(1.0, -24);
        default: return std::ldexp(1.0, -53);
    }
}

double smallest_subnormal(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return std::ldexp(1.0, -24);
        case DataType::FLOAT32: return std::ldexp(1.0, -149);
        default: return std::ldexp(1.0, -1074);
    }
}

double subnormal_rounding_error(DataType t) {
    return t == DataType::FLOAT64 ? smallest_subnormal(t) : smallest_subnormal(t) / 2;
}

double smallest_normal(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return std::ldexp(1.0, -14);
        case DataType::FLOAT32: return std::ldexp(1.0, -126);
        default: return std::ldexp(1.0, -1022);
    }
}

double gamma_up(uint64_t k, double u) {
    if (k == 0) return 0;
    const double ku = double(k) * u;  // exact: u is a power of two and k < 2^53
    if (ku >= 1) return kInfinity;
    const double den = std::nextafter(1.0 - ku, 0.0);  // rounded down
    return next_up(ku / den);
}

double element_bound(const ElementTerms& e, DataType t, uint64_t golden_bits, const ArithmeticProfile& p) {
    if (e.infinite || e.nan) return kInfinity;  // judged as non-finite values, not by the bound
    // A computed element: the backend's distance from the exact value, plus the golden's own
    // (correct) rounding, at most half the spacing of the golden's binade. E = 0: the backend's
    // value is the exact one, a float of type t, so the golden is that float: bit for bit.
    if (e.computed) return e.computed_error == 0 ? 0.0 : add_next_up(e.computed_error, ulp_of(t, golden_bits) / 2);
    if (!e.inexact() && e.formation == 0) return 0;  // an exact copy, or +0
    double bound = 0;
    for (DataType a : working_types(p, t)) bound = std::max(bound, bound_for(e, t, a, golden_bits, p));
    return bound;
}

namespace {

// The least exact sum that rounds to infinity in a (round to nearest): the largest finite value
// plus half its ULP, 65520 for FLOAT16, 2^128 - 2^103 for FLOAT32; for FLOAT64 2^1024 - 2^970 is
// no double, and a magnitude rounded up reaches it only as +infinity.
double overflow_threshold(DataType a) {
    switch (a) {
        case DataType::FLOAT16: return 65520.0;
        case DataType::FLOAT32: return std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
        default: return kInfinity;
    }
}

}  // namespace

bool overflow_admissible(const ElementTerms& e, DataType t, uint64_t golden_bits, uint64_t actual_bits,
                         const ArithmeticProfile& p) {
    if (e.computed || e.nan) return false;
    const double actual = element_value(t, actual_bits);
    if (std::isfinite(actual)) return false;
    bool positive = e.positive_infinity, negative = e.negative_infinity;
    for (DataType a : working_types(p, t)) {
        const double ua = unit_roundoff(a);
        // An addition overflows to -inf only where both operands hold negative terms (a finite
        // operand plus a non-negative one rounds to no less than that operand), and then their
        // exact sum is at least -(N + F)(1 + u_A)^(k - 2) for k negative terms: rounding inflates
        // a negative partial sum by at most (1 + u_A) per level that joins negative terms. F: the
        // terms' formation error (weights, products). Likewise for +inf.
        double F = add_next_up(formation_allowance(e, t, p), mul_next_up(ua, e.product_sum));
        F = add_next_up(F, mul_next_up(double(e.products), subnormal_rounding_error(a)));
        auto reaches = [&](double side, uint32_t k) {
            if (k < 2) return false;  // one term of a sign: no sum of that sign to overflow
            const double g = gamma_up(k - 2, ua);
            return !std::isfinite(g) || mul_next_up(add_next_up(side, F), add_next_up(1, g)) >= overflow_threshold(a);
        };
        positive = positive || reaches(e.positive_sum, e.positive_terms);
        negative = negative || reaches(e.negative_sum, e.negative_terms);
        // A wider accumulator's finite result, rounded once more to t, overflows t where the
        // result's bound reaches t's threshold.
        const double golden = element_value(t, golden_bits);
        if (a != t && std::isfinite(golden) && !e.infinite) {
            const double b = bound_for(e, t, a, golden_bits, p);
            positive = positive || add_next_up(golden, b) >= overflow_threshold(t);
            negative = negative || add_next_up(-golden, b) >= overflow_threshold(t);
        }
    }
    if (std::isnan(actual)) return positive && negative;
    return actual > 0 ? positive && !e.negative_infinity : negative && !e.positive_infinity;
}

double conserved_bound(const ElementTerms& e, DataType t, uint64_t golden_bits, const ArithmeticProfile& p) {
    ElementTerms m = e;
    m.formation = std::max(0.0, e.formation - e.ambiguous_formation);
    m.abs_sum = add_next_up(e.abs_sum, e.ambiguous_formation);
    m.ambiguous_formation = 0;
    return element_bound(m, t, golden_bits, p);
}

bool within_bound(DataType t, uint64_t golden_bits, uint64_t actual_bits, double bound) {
    if (std::isinf(bound)) return true;
    return difference_within(element_value(t, actual_bits), element_value(t, golden_bits), bound);
}

double abs_error(DataType t, uint64_t golden_bits, uint64_t actual_bits) {
    return std::fabs(signed_error(t, golden_bits, actual_bits));
}

double signed_error(DataType t, uint64_t golden_bits, uint64_t actual_bits) {
    return element_value(t, actual_bits) - element_value(t, golden_bits);
}

void SystematicCheck::add(double r, bool golden_negative) {
    ++elements;
    sum += r;
    sum_toward += golden_negative ? -r : r;
}

void SystematicCheck::finish(double p) {
    false_alarm = p;
    threshold = std::sqrt(2.0 * double(elements) * std::log(2.0 / p));
}

}  // namespace dmlref
