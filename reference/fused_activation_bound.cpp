// A backend's error through batch normalization's fused activation: the slope over the interval its pre-activation value may lie in, plus the activation's own error in the working type (docs/tolerance.md, "Fused activations").
//
// Each function below takes I = [lo, hi], an interval holding the golden's rounded pre-activation
// value and the backend's (|x| at most X there, at least m), and returns
//   error:     L * E + own, with L the largest |f'| on I (mean value theorem) and `own` the
//              backend's error evaluating the page's formula in w, operation by operation: + - *
//              within u (unit roundoff of w), a division within StatedAccuracy::division ULPs,
//              exp(x) as exp2(x log2 e) (exp2 within StatedAccuracy::exp2 ULPs; the argument's two
//              roundings add 2 u |x| relative), ln v as log2(v) ln 2 (log2 within 3 ULP, or 8 u
//              absolute near v = 1), tanh and erf within their stated ULPs;
//   magnitude: the largest |f| on I.
// One ULP of a result r is at most 2 u |r| + 2 eta. Where f jumps inside I (THRESHOLDED_RELU at
// Alpha, SHRINK at +-Threshold), the bound is the largest |f| on I twice. Values of exp, tanh, erf
// in double are within a few ULPs; the whole result is widened by 2^-20 relative (docs/tolerance.md).
#include "fused_activation.hpp"

#include "common.hpp"

#include "dmlref/bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

struct Interval {
    double lo, hi, E;  // the interval, and the distance bound between the two values in it
    double X() const { return std::max(std::fabs(lo), std::fabs(hi)); }
    double m() const { return lo > 0 ? lo : hi < 0 ? -hi : 0.0; }
    bool holds(double v) const { return lo <= v && v <= hi; }
};

struct ActivationPrecision {
    double u, eta, max;
    double ulps(double k, double r) const { return 2 * k * u * r + 2 * k * eta; }  // k ULPs of a result |r| <= r
    double rnd(double r) const { return u * r + eta; }                             // one rounding to nearest
    double exp_rel(double x) const { return 2 * kStatedAccuracy.exp2 * u + 2 * u * std::fabs(x); }
};

ActivationError none() { return {kInf, kInf}; }

double sigma(double x) { return 1 / (1 + std::exp(-x)); }

// LINEAR: Alpha x + Beta (a product and a sum, or one fma).
ActivationError linear(const Interval& I, const ActivationPrecision& w, double a, double b) {
    const double M = std::fabs(a) * I.X() + std::fabs(b);
    return {std::fabs(a) * I.E + 2 * w.rnd(M), M};
}

// SIGMOID: 1 / (1 + exp(-x)). f' = f (1 - f) <= 1/4, largest at the smallest |x|; the exp's
// relative error passes through 1 + e and the division unchanged at most.
ActivationError sigmoid(const Interval& I, const ActivationPrecision& w) {
    const double s = sigma(I.m()), M = sigma(I.hi);
    const double rel = w.exp_rel(I.X()) + w.u + 2 * kStatedAccuracy.division * w.u;
    const double overflow = -I.lo > std::log(w.max) ? M : 0.0;  // exp(-x) may overflow w: 1 / inf = 0
    return {s * (1 - s) * I.E + rel * M + w.ulps(kStatedAccuracy.division, M) + overflow, M};
}

// HARD_SIGMOID: max(0, min(Alpha x + Beta, 1)): slope |Alpha|; the clamps are exact.
ActivationError hard_sigmoid(const Interval& I, const ActivationPrecision& w, double a, double b) {
    return {std::fabs(a) * I.E + 2 * w.rnd(std::fabs(a) * I.X() + std::fabs(b)), 1};
}

// SCALED_TANH: Alpha tanh(Beta x) (TANH: Alpha = Beta = 1). tanh's condition number is at most
// 1, so Beta x's rounding adds u relative.
ActivationError scaled_tanh(const Interval& I, const ActivationPrecision& w, double a, double b) {
    const double t = std::tanh(std::fabs(b) * I.m()), M = std::fabs(a) * std::tanh(std::fabs(b) * I.X());
    const double rel = w.u + 2 * kStatedAccuracy.tanh * w.u + w.u;
    return {std::fabs(a * b) * (1 - t * t) * I.E + rel * M + w.ulps(kStatedAccuracy.tanh, M) + w.eta, M};
}

// RELU: max(0, x): slope 1, exact.
ActivationError relu(const Interval& I) { return {I.E, std::max(I.hi, 0.0)}; }

// LEAKY_RELU: x >= 0 ? x : Alpha x.
ActivationError leaky_relu(const Interval& I, const ActivationPrecision& w, double a) {
    const double L = std::max(I.hi >= 0 ? 1.0 : 0.0, I.lo < 0 ? std::fabs(a) : 0.0);
    const double M = I.X() * std::max(1.0, std::fabs(a));
    return {L * I.E + (I.lo < 0 ? w.rnd(M) : 0.0), M};
}

// THRESHOLDED_RELU: x > Alpha ? x : 0; a jump of |Alpha| at Alpha.
ActivationError thresholded_relu(const Interval& I, double a) {
    if (I.holds(a)) return {2 * I.X() + I.E, I.X()};
    return {I.lo > a ? I.E : 0.0, I.lo > a ? I.X() : 0.0};
}

// c (exp(x) - 1) for x in [lo, min(hi, 0)] (ELU, SCALED_ELU; CELU with x / Alpha), the argument
// carrying `arg_rel` relative: exp's error relative to e^x <= e^(largest x), the subtraction's and
// the product's roundings.
double expm1_own(double c, double x_lo, double x_hi, double arg_rel, const ActivationPrecision& w) {
    const double big = std::exp(x_hi), X = std::max(std::fabs(x_lo), std::fabs(x_hi));
    const double e = (w.exp_rel(X) + arg_rel * X) * big + w.ulps(kStatedAccuracy.exp2, big);
    const double diff = std::max(std::fabs(std::expm1(x_lo)), std::fabs(std::expm1(x_hi)));
    return std::fabs(c) * (e + w.rnd(diff + e)) + w.rnd(std::fabs(c) * (diff + e));
}

// ELU: x >= 0 ? x : Alpha (exp(x) - 1); slope 1 above 0, |Alpha| e^x below.
ActivationError elu(const Interval& I, const ActivationPrecision& w, double a) {
    double L = I.hi >= 0 ? 1 : 0, own = 0, M = std::max(I.hi, 0.0);
    if (I.lo < 0) {
        const double top = std::min(I.hi, 0.0);
        L = std::max(L, std::fabs(a) * std::exp(top));
        own = expm1_own(a, I.lo, top, 0, w);
        M = std::max(M, std::fabs(a) * std::fabs(std::expm1(I.lo)));
    }
    return {L * I.E + own, M};
}

// CELU: x >= 0 ? x : Alpha (exp(x / Alpha) - 1); slope e^(x / Alpha) below 0 (it grows when Alpha < 0).
ActivationError celu(const Interval& I, const ActivationPrecision& w, double a) {
    double L = I.hi >= 0 ? 1 : 0, own = 0, M = std::max(I.hi, 0.0);
    if (I.lo < 0) {
        const double top = std::min(I.hi, 0.0);
        const double z1 = I.lo / a, z2 = top / a, zlo = std::min(z1, z2), zhi = std::max(z1, z2);
        if (zhi > std::log(w.max)) return none();
        L = std::max(L, std::exp(zhi));
        own = expm1_own(a, zlo, zhi, 2 * kStatedAccuracy.division * w.u, w);  // x / Alpha: a division
        M = std::max(M, std::fabs(a) * std::max(std::fabs(std::expm1(zlo)), std::fabs(std::expm1(zhi))));
    }
    return {L * I.E + own, M};
}

// SCALED_ELU: x > 0 ? Gamma x : Gamma (Alpha exp(x) - Alpha); slope |Gamma| above 0, |Gamma Alpha| e^x below.
ActivationError scaled_elu(const Interval& I, const ActivationPrecision& w, double a, double g) {
    double L = 0, own = 0, M = 0;
    if (I.hi > 0) {
        L = std::fabs(g);
        M = std::fabs(g) * I.hi;
        own = w.rnd(M);
    }
    if (I.lo <= 0) {
        const double top = std::min(I.hi, 0.0);
        L = std::max(L, std::fabs(g * a) * std::exp(top));
        own = std::max(
            own, expm1_own(g * a, I.lo, top, 0, w) + w.rnd(std::fabs(g * a)));  // Gamma and Alpha: one more product
        M = std::max(M, std::fabs(g * a) * std::fabs(std::expm1(I.lo)));
    }
    return {L * I.E + own, M};
}

// c ln(1 + exp(b x)) / s (SOFTPLUS: c = 1, b = s = Steepness; PARAMETRIC_SOFTPLUS: c = Alpha, b = Beta,
// s = 1). Slope |c b / s| sigma(b x), largest at the largest b x. ln v of a v = 1 + e within
// (relative) r: r, plus log2's 3 ULP of |ln v| or 8 u near 1, plus the product by ln 2.
ActivationError softplus(const Interval& I, const ActivationPrecision& w, double c, double b, double s) {
    const double zhi = std::max(b * I.lo, b * I.hi), zX = std::fabs(b) * I.X();
    if (zhi > std::log(w.max)) return none();
    const double lnv = std::log1p(std::exp(zhi));  // the largest ln(1 + e^z) on I
    const double M = std::fabs(c / s) * lnv;
    const double r = w.exp_rel(zX) + w.u * zX /* b x rounded */ + w.u /* 1 + e */;
    const double ln_err = r + 2 * kStatedAccuracy.log2 * w.u * lnv + kStatedAccuracy.log2_near_one * w.u + w.rnd(lnv);
    const double own = std::fabs(c / s) * ln_err + (s != 1 ? w.ulps(kStatedAccuracy.division, M) : 0.0) +
                       (c != 1 ? w.rnd(M) : 0.0);
    return {std::fabs(c * b / s) * sigma(zhi) * I.E + own, M};
}

// SOFTSIGN: x / (1 + |x|): slope 1 / (1 + |x|)^2, largest at the smallest |x|.
ActivationError softsign(const Interval& I, const ActivationPrecision& w) {
    const double M = I.X() / (1 + I.X()), d = 1 + I.m();
    return {I.E / (d * d) + w.u * M + w.ulps(kStatedAccuracy.division, M), M};
}

// SHRINK: x - Bias above Threshold, x + Bias below -Threshold, 0 between; jumps at +-Threshold.
ActivationError shrink(const Interval& I, const ActivationPrecision& w, double bias, double t) {
    const double M = I.X() + std::fabs(bias);
    if (I.holds(t) || I.holds(-t)) return {2 * M + I.E + w.rnd(M), M};
    return {I.E + w.rnd(M), M};
}

// GELU: 0.5 x (1 + erf(x / sqrt(2))): |f'| <= 1.13 (its largest, 1.1289, at x = sqrt(2)). erf's
// argument carries 2u relative (the constant and the product; erf's condition number is at most
// 1), erf its stated ULPs of at most 1; 1 + erf adds u (up to 2); then the products by x and 0.5.
ActivationError gelu(const Interval& I, const ActivationPrecision& w) {
    const double X = I.X();
    const double erf_err = 2 * w.u + 2 * kStatedAccuracy.erf * w.u + 2 * kStatedAccuracy.erf * w.eta;
    const double M = std::max(std::max(I.hi, 0.0), 0.17);
    const double own = 0.5 * X * (erf_err + 2 * w.u) + 2 * w.rnd(X);
    return {1.13 * I.E + own, std::max(M, X)};
}

}  // namespace

ActivationError fused_activation_error(const DML_FUSED_ACTIVATION& a, double y, double E, DataType wt, bool flush) {
    if (!std::isfinite(y) || !std::isfinite(E)) return none();
    const double E2 = E + 0x1p-50 * std::fabs(y);  // y is the double evaluation of the exact value
    const Interval I{y - E2, y + E2, E2};
    const ActivationPrecision w{unit_roundoff(wt), flush ? smallest_normal(wt) : subnormal_rounding_error(wt),
                                wt == DataType::FLOAT16   ? 65504.0
                                : wt == DataType::FLOAT32 ? double(std::numeric_limits<float>::max())
                                                          : std::numeric_limits<double>::max()};
    const double p0 = a.Parameters[0], p1 = a.Parameters[1];
    const std::string_view n = a.name();
    ActivationError r;
    if (n == "ACTIVATION_IDENTITY") r = {I.E, I.X()};
    else if (n == "ACTIVATION_LINEAR") r = linear(I, w, p0, p1);
    else if (n == "ACTIVATION_SIGMOID") r = sigmoid(I, w);
    else if (n == "ACTIVATION_HARD_SIGMOID") r = hard_sigmoid(I, w, p0, p1);
    else if (n == "ACTIVATION_TANH") r = scaled_tanh(I, w, 1, 1);
    else if (n == "ACTIVATION_SCALED_TANH") r = scaled_tanh(I, w, p0, p1);
    else if (n == "ACTIVATION_RELU") r = relu(I);
    else if (n == "ACTIVATION_LEAKY_RELU") r = leaky_relu(I, w, p0);
    else if (n == "ACTIVATION_THRESHOLDED_RELU") r = thresholded_relu(I, p0);
    else if (n == "ACTIVATION_ELU") r = elu(I, w, p0);
    else if (n == "ACTIVATION_CELU") r = celu(I, w, p0);
    else if (n == "ACTIVATION_SCALED_ELU") r = scaled_elu(I, w, p0, p1);
    else if (n == "ACTIVATION_SOFTPLUS") r = softplus(I, w, 1, p0, p0);
    else if (n == "ACTIVATION_PARAMETRIC_SOFTPLUS") r = softplus(I, w, p0, p1, 1);
    else if (n == "ACTIVATION_SOFTSIGN") r = softsign(I, w);
    else if (n == "ACTIVATION_SHRINK") r = shrink(I, w, p0, p1);
    else if (n == "ACTIVATION_GELU") r = gelu(I, w);
    else return none();
    if (std::isnan(r.error) || std::isnan(r.magnitude)) return none();
    const double widen = 1 + 0x1p-20;  // the double evaluation of exp, tanh, log1p and the bound itself
    return {r.error * widen, r.magnitude * widen};
}

}  // namespace dmlref::reference
