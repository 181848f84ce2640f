// Forward error arithmetic for computed values (docs/tolerance.md, "Computed values"): ranges
// of exact values and bounds on a backend's error, every operation rounded outward or up.
#include "dmlref/bound.hpp"
#include "dmlref/working_types.hpp"

#include "dmlref/case.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace dmlref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Round-to-nearest results are within half an ULP of the exact one: the next double outward is
// never on the wrong side of it.
double up(double x) { return std::nextafter(x, kInf); }
double down(double x) { return std::nextafter(x, -kInf); }
// a + b and a * b rounded up: the rounded result where it is exact or already above (TwoSum's and
// FMA's exact remainder decide), else the next double. An exact sum stays itself: an input equal
// to the largest finite value is in range (mag + 0 <= max), not one step past it.
double add_up(double a, double b) {
    const double s = a + b;
    if (!std::isfinite(s)) return s;
    const double bb = s - a, rest = (a - (s - bb)) + (b - bb);
    return rest > 0 ? up(s) : s;
}
double mul_up(double a, double b) {
    const double p = a * b;
    if (!std::isfinite(p)) return p;
    if (std::fabs(p) < 0x1p-960) return up(p);  // near underflow the remainder may not be a double
    return std::fma(a, b, -p) > 0 ? up(p) : p;
}
// A double evaluation of a libm function (pow, log2, expm1, log1p) is within a few ULPs; a
// relative margin of 2^-40 covers it (glibc documents < 4 ULP for these).
constexpr double kLibmMargin = 0x1p-40;
double libm_up(double x) { return up(x + std::fabs(x) * kLibmMargin); }
double libm_down(double x) { return down(x - std::fabs(x) * kLibmMargin); }

double largest_finite(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return 65504.0;
        case DataType::FLOAT32: return double(std::numeric_limits<float>::max());
        default: return std::numeric_limits<double>::max();
    }
}

// v rounded to nearest in type t.
double round_to(DataType t, double v) {
    switch (t) {
        case DataType::FLOAT16: return half_to_double(half_from_double(v));
        case DataType::FLOAT32: return double(float(v));
        default: return v;
    }
}

Quantity no_bound(Quantity q) {
    q.err = kInf;
    return q;
}

// The range of a product of two ranges, outward.
std::pair<double, double> product_range(const Quantity& x, const Quantity& y) {
    const double c[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
    double lo = kInf, hi = -kInf;
    for (double v : c) {
        lo = std::min(lo, down(v));
        hi = std::max(hi, up(v));
    }
    return {lo, hi};
}

}  // namespace

Arithmetic::Arithmetic(DataType a, bool flush)
    : a_(a),
      flush_(flush),
      u_(unit_roundoff(a)),
      eta_(smallest_subnormal(a)),
      lambda_(smallest_normal(a)),
      max_(largest_finite(a)) {}

// ulps ULPs of a result of magnitude at most m: 1 ULP <= 2u |y| for a normal y, eta below;
// a flushed result moves by less than lambda.
double Arithmetic::round_err(double m, double ulps) const {
    double e = add_up(mul_up(2 * ulps * u_, m), ulps * 2 * eta_ / 2);
    if (flush_) e = add_up(e, lambda_);
    return e;
}

Quantity Arithmetic::checked(Quantity q) const {
    if (std::isnan(q.err) || std::isnan(q.lo) || std::isnan(q.hi) || !(add_up(q.mag(), q.err) <= max_))
        return no_bound(q);
    return q;
}

Quantity Arithmetic::input(double v) const {
    Quantity q{v, v, 0};
    if (flush_ && v != 0 && std::fabs(v) < lambda_) q.err = std::fabs(v);  // an operand flushed to 0
    return checked(q);
}

Quantity Arithmetic::constant(double v) const {
    const double r = round_to(a_, v);
    Quantity q{v, v, r == v ? 0.0 : std::isfinite(r) ? up(std::fabs(r - v)) : kInf};
    if (flush_ && r != 0 && std::fabs(r) < lambda_) q.err = add_up(q.err, std::fabs(r));
    return checked(q);
}

Quantity Arithmetic::add(const Quantity& x, const Quantity& y) const {
    Quantity q{down(x.lo + y.lo), up(x.hi + y.hi), add_up(x.err, y.err)};
    // The backend adds values within err of the exact ones, then rounds (additions underflow
    // exactly; a flushed result moves by less than lambda).
    q.err = add_up(q.err, mul_up(u_, add_up(q.mag(), q.err)));
    if (flush_) q.err = add_up(q.err, lambda_);
    return checked(q);
}

Quantity Arithmetic::neg(const Quantity& x) const { return {-x.hi, -x.lo, x.err}; }

void SumAccumulator::add(const Quantity& t) {
    lo = down(lo + t.lo);
    hi = up(hi + t.hi);
    err = add_up(err, t.err);
    magnitudes = add_up(magnitudes, add_up(t.mag(), t.err));
    ++n;
}

Quantity Arithmetic::sum(const std::vector<Quantity>& terms) const {
    if (terms.size() == 1) return terms[0];
    SumAccumulator acc;
    for (const Quantity& t : terms) acc.add(t);
    return sum(acc);
}

Quantity Arithmetic::sum(const SumAccumulator& terms) const {
    if (terms.n == 0) return {0, 0, 0};
    // Higham 4.2: any order and tree of n computed terms t'_i errs by at most gamma_(n-1) sum |t'_i|.
    Quantity q{terms.lo, terms.hi, terms.err};
    if (!(terms.magnitudes <= max_)) return no_bound(q);  // a partial sum may overflow
    q.err = add_up(q.err, mul_up(gamma_up(terms.n - 1, u_), terms.magnitudes));
    if (flush_) q.err = add_up(q.err, mul_up(double(terms.n - 1), lambda_));
    return checked(q);
}

Quantity Arithmetic::mul(const Quantity& x, const Quantity& y) const {
    const auto [lo, hi] = product_range(x, y);
    // |x'y' - xy| <= |x| ey + |y| ex + ex ey; the computed product is at most (|x| + ex)(|y| + ey).
    Quantity q{lo, hi, add_up(add_up(mul_up(x.mag(), y.err), mul_up(y.mag(), x.err)), mul_up(x.err, y.err))};
    q.err = add_up(q.err, round_err(mul_up(add_up(x.mag(), x.err), add_up(y.mag(), y.err)), 0.5));
    return checked(q);
}

Quantity Arithmetic::div(const Quantity& x, const Quantity& y) const {
    const double m = y.mig();
    if (!(m > y.err)) return no_bound({-kInf, kInf, 0});
    const Quantity inv{1 / y.hi, 1 / y.lo, 0};  // y's range holds no 0: 1/y is monotone on it
    const auto [lo, hi] = product_range(x, {down(std::min(inv.lo, inv.hi)), up(std::max(inv.lo, inv.hi)), 0});
    // |x'/y' - x/y| <= ex / (m - ey) + |x| ey / (m (m - ey)).
    const double gap = down(m - y.err);
    Quantity q{lo, hi, add_up(up(x.err / gap), up(mul_up(x.mag(), y.err) / down(m * gap)))};
    const double computed = up(add_up(x.mag(), x.err) / gap);
    q.err = add_up(q.err, round_err(computed, kStatedAccuracy.division));
    return checked(q);
}

Quantity Arithmetic::reciprocal(const Quantity& y) const {
    const double m = y.mig();
    if (!(m > y.err)) return no_bound({-kInf, kInf, 0});
    const double a = 1 / y.lo, b = 1 / y.hi;
    const double gap = down(m - y.err);
    Quantity q{down(std::min(a, b)), up(std::max(a, b)), up(y.err / down(m * gap))};
    q.err = add_up(q.err, round_err(up(1 / gap), kStatedAccuracy.reciprocal));
    return checked(q);
}

Quantity Arithmetic::pow(const Quantity& b, double p) const {
    // b's range and the backend's b' both positive, else no bound (the golden is NaN, 0 or inf
    // there, or a rounding may change the sign).
    if (!(b.lo > 0) || !(b.lo > b.err) || !std::isfinite(b.hi)) return no_bound({-kInf, kInf, 0});
    const double plo = std::pow(b.lo, p), phi = std::pow(b.hi, p);
    Quantity q{libm_down(std::min(plo, phi)), libm_up(std::max(plo, phi)), 0};
    // Propagated: b'^p = b^p (1 + r)^p with |r| <= ey / b.lo < 1; |(1 + r)^p - 1| is largest at
    // r = +-ey / b.lo (monotone in |r| on each side).
    const double r = up(b.err / b.lo);
    const double grow = std::max(std::fabs(std::expm1(p * std::log1p(r))), std::fabs(std::expm1(p * std::log1p(-r))));
    q.err = mul_up(q.mag(), libm_up(grow));
    const double computed = add_up(q.mag(), q.err);
    // The backend's pow: within StatedAccuracy::pow ULPs, and, for a pow evaluated as
    // exp2(p * log2 b'), the exponent's error |p| (log2 ULPs of |log2 b'|, or 8u near 1, plus
    // the product's rounding) turned into a relative error 2^e - 1.
    const double l2 = std::max(std::fabs(std::log2(down(b.lo - b.err))), std::fabs(std::log2(up(b.hi + b.err))));
    const double e = mul_up(std::fabs(p), add_up(mul_up(libm_up(l2), (2 * kStatedAccuracy.log2 + 1) * u_),
                                                 kStatedAccuracy.log2_near_one * u_));
    const double composed = libm_up(std::expm1(e * std::log(2.0)));
    q.err = add_up(q.err, add_up(mul_up(composed, computed), round_err(computed, kStatedAccuracy.pow)));
    return checked(q);
}

double Arithmetic::result_error(const Quantity& q, DataType t) const {
    if (std::isnan(q.err)) return kInf;
    double e = q.err;
    if (element_size(a_) > element_size(t)) {
        // Rounded once more to the output type.
        e = add_up(e, add_up(mul_up(unit_roundoff(t), add_up(q.mag(), q.err)), subnormal_rounding_error(t)));
        if (!(add_up(q.mag(), q.err) <= largest_finite(t))) return kInf;
    }
    if (flush_) e = add_up(e, smallest_normal(t));
    return e;
}

double computed_error(const ArithmeticProfile& p, DataType t,
                      const std::function<Quantity(const Arithmetic&)>& formula) {
    double worst_error = 0;
    for (DataType a : working_types(p, t)) {
        const Arithmetic ar(a, p.flush_subnormals);
        const double e = ar.result_error(formula(ar), t);
        worst_error = std::isnan(e) ? kInf : std::max(worst_error, e);
    }
    return worst_error;
}

std::vector<double> logical_doubles(const TensorDesc& d, std::span<const std::byte> buffer) {
    const std::vector<std::byte> bytes = gather_logical(d, buffer);
    std::vector<double> v;
    dispatch(d.DataType, [&]<class T>() {
        v.resize(bytes.size() / sizeof(T));
        for (size_t i = 0; i < v.size(); ++i) {
            T x;
            std::memcpy(static_cast<void*>(&x), bytes.data() + i * sizeof(T), sizeof(T));
            if constexpr (is_floating_v<T>) v[i] = widen(x);
            else v[i] = double(x);
        }
    });
    return v;
}

}  // namespace dmlref
