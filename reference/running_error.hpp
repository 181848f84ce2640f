// A running error analysis over a formula's parts' magnitudes, for the normalizations' per-element
// bounds (docs/tolerance.md, "Batch normalization" and "Mean variance normalization";
// reference/batch_normalization_bound.cpp, reference/mean_variance_normalization.cpp).
//
// Each intermediate of a backend's evaluation is a V: its exact value v (evaluated in double;
// far more accurate than the bound) and e, a bound on |computed - v| for a backend computing in
// the working precision w (unit roundoff u, each add/sub/mul within half an ULP, D3D11's rule).
// Assumptions (docs/tolerance.md): rsqrt (or sqrt then a reciprocal or a division) within
// kRootError unit roundoffs of w; Welford-style statistics within twice the two-pass bound.
// Internal to dmlref.
#pragma once

#include "common.hpp"
#include "fused_activation.hpp"

#include "dmlref/terms.hpp"
#include "dmlref/working_types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace dmlref::running_error {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kRootError = 8;     // |r~ - D~^(-1/2)| <= 8 u r: rsqrt within 4 ULP of w (assumption)
inline constexpr double kOnlineFactor = 2;  // Welford / Chan statistics: within twice the two-pass bound (assumption)

struct V {
    double v = 0;  // the exact value
    double e = 0;  // |computed - v| <= e
};

// The arithmetic of one working precision.
struct W {
    double u;    // unit roundoff
    double eta;  // absolute error of one rounding below the normal range
    V in(double x) const { return {x, 0}; }
    // A rounding of a value whose unrounded computed result lies within e of v.
    double rnd(double v, double e) const { return e + u * (std::fabs(v) + e) + eta; }
    V add(V a, V b) const { return {a.v + b.v, rnd(a.v + b.v, a.e + b.e)}; }
    V neg(V a) const { return {-a.v, a.e}; }
    V sub(V a, V b) const { return add(a, neg(b)); }
    // A product of k factors in any order: |computed - v| <= prod(|v_i| + e_i)(1 + u)^(k-1) - prod |v_i|,
    // plus each rounding's underflow carried through the remaining factors.
    V prod(std::initializer_list<V> f) const {
        double v = 1, mag = 1, exact = 1, big = 1;
        for (const V& x : f) {
            v *= x.v;
            mag *= std::fabs(x.v) + x.e;
            exact *= std::fabs(x.v);
            big *= std::max(1.0, std::fabs(x.v) + x.e);
        }
        const double k = double(f.size()) - 1;
        return {v, mag * std::pow(1 + u, k) - exact + k * eta * big};
    }
    // A sum of n terms in any order: sum e_i + gamma_(n-1) sum (|v_i| + e_i).
    V sum(const std::vector<V>& t) const {
        double v = 0, e = 0, s = 0;
        for (const V& x : t) {
            v += x.v;
            e += x.e;
            s += std::fabs(x.v) + x.e;
        }
        const double n = double(t.size());
        if (n < 2) return {v, e};
        return {v, e + gamma_up(uint64_t(n - 1), u) * s + (n - 1) * eta};
    }
    // x / n as x * (1/n), 1/n rounded to w.
    V mean(V sum, uint64_t n) const { return prod({sum, V{1.0 / double(n), u / double(n)}}); }
    // D^(-1/2) of a computed D~ within D.e of D.v: the root's own error, then the spread of D~.
    V rsqrt(V D) const {
        if (!(D.v - D.e > 0)) return {D.v > 0 ? 1 / std::sqrt(D.v) : 0, kInfinity};
        const double r = 1 / std::sqrt(D.v), lo = 1 / std::sqrt(D.v + D.e), hi = 1 / std::sqrt(D.v - D.e);
        const double rho = kRootError * u;
        return {r, std::max(hi * (1 + rho) - r, r - lo * (1 - rho)) + eta};
    }
};

inline W working(DataType w, bool flush) {
    return {unit_roundoff(w), flush ? smallest_normal(w) : subnormal_rounding_error(w)};
}

// A desc value (float32) converted to w: exact unless w is narrower than float32.
inline V constant(const W& w, DataType wt, float c) {
    return {double(c), wt == DataType::FLOAT16 ? w.u * std::fabs(c) + w.eta : 0};
}

// The backend's error of one element stored in t (docs/tolerance.md, Computed values): its error
// e_w in w, plus its rounding to t when w is wider. The golden's own rounding of the exact value
// y is element_bound's (ulp(G)/2), not counted here.
inline double stored(double e_w, double y, DataType t, DataType w, bool flush) {
    if (!std::isfinite(e_w) || !std::isfinite(y)) return kInfinity;
    double b = e_w;
    if (w != t) {
        const W out = working(t, flush);
        b += out.u * (std::fabs(y) + e_w) + out.eta;
    }
    return b * (1 + 1e-9);  // the double evaluation of the bound itself
}

// The golden's rounding of the exact pre-activation value y to t (before its fused activation).
inline double golden_rounding(double y, DataType t, bool flush) {
    const W out = working(t, flush);
    return (out.u * std::fabs(y) + out.eta) * (1 + 1e-9);
}

// The fused activation applied to the pre-activation value y (docs/tolerance.md, "Fused
// activations"): the backend's value, within e_pre of y (its rounding to t included), and the
// golden's rounding of y both lie within E = e_pre + |golden's rounding| of y; the activation's
// slope and own error in w (reference/fused_activation_bound.cpp), then the backend's rounding of
// the result to t when w is wider. The golden's final rounding is element_bound's.
inline double activated(const std::optional<DML_FUSED_ACTIVATION>& a, double e_pre, double y, DataType wt, DataType t,
                        bool flush) {
    if (!a || a->name() == "ACTIVATION_IDENTITY" || !std::isfinite(e_pre)) return e_pre;
    const reference::ActivationError r = reference::fused_activation_error(*a, y, e_pre + golden_rounding(y, t, flush),
                                                                           wt, flush);
    if (!std::isfinite(r.error)) return kInfinity;
    double b = r.error;
    if (wt != t) {
        const W out = working(t, flush);
        b += out.u * (r.magnitude + r.error) + out.eta;
    }
    return b * (1 + 1e-9);
}

inline std::vector<double> values(const InputBuffer& input, const TensorDesc& d, const char* field) {
    return logical_doubles(d, input(field));  // throws std::invalid_argument when the case lacks it
}

// y = Scale (X - Mean) r + Bias (+ FusedAdd) in w, the larger error of two forms: subtract first
// ((X - Mean) Scale r + Bias, products in any order), or folded (a = Scale r, X a + (Bias - Mean a)).
inline double forward_error(const W& w, V x, V mean, V r, V scale, V bias, std::optional<V> fused) {
    const V q = w.prod({scale, w.sub(x, mean), r});
    const V y1 = fused ? w.sum({q, bias, *fused}) : w.add(q, bias);
    // The folded form uses one computed a~ in both products: its error enters as (X - Mean) (a~ - a),
    // not through |X| and |Mean| separately; the roundings are taken with a exact, plus the part of
    // them that |a~ - a| adds.
    const V a = w.prod({scale, r}), a0{a.v, 0};
    const V shift = fused ? w.sum({bias, *fused, w.neg(w.prod({mean, a0}))}) : w.sub(bias, w.prod({mean, a0}));
    const V y2 = w.add(w.prod({x, a0}), shift);
    const double shared = (std::fabs(x.v - mean.v) + mean.e) * a.e +
                          3 * w.u * (std::fabs(x.v) + std::fabs(mean.v) + mean.e) * a.e;
    return std::max(y1.e, y2.e + shared);
}

// Each statistics group's mean and variance with their errors (BATCH_NORMALIZATION_TRAINING's).
struct BatchStatistics {
    std::vector<V> mean, var;
};

template <class F> std::vector<double> over_profile(DataType t, const ArithmeticProfile& p, F&& per_precision) {
    std::vector<double> best;
    for (DataType wt : working_types(p, t)) {
        const std::vector<double> b = per_precision(wt, working(wt, p.flush_subnormals));
        if (best.empty()) best = b;
        else
            for (size_t i = 0; i < b.size(); ++i) best[i] = std::max(best[i], b[i]);
    }
    for (double& b : best)
        if (std::isnan(b)) b = kInfinity;
    return best;
}

// The tolerance a normalization's golden states for a computed output (docs/tolerance.md):
// integer data (outside DirectML's tables) bit for bit; float data Summed without terms, which
// dmlref diff bounds element by element from the formula's parts. `why` says how, for float data.
inline Tolerance stated_computed(DataType t, std::string why) {
    Tolerance tol;
    if (!is_float(t)) {
        tol.Why =
            "integer data is outside DirectML's tables; the golden is the exact value rounded half to even "
            "(docs/golden.md, IntegerResult): bit for bit";
        return tol;
    }
    tol.Kind = "Summed";
    tol.MaxTerms = 0;
    tol.Why = std::move(why);
    return tol;
}

}  // namespace dmlref::running_error
