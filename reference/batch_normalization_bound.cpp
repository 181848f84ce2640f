// Batch normalization's per-element error bound: a running error analysis over the formula's parts' magnitudes (docs/tolerance.md, "Batch normalization").
//
// Each intermediate of a backend's evaluation is a V: its exact value v (evaluated in double;
// far more accurate than the bound) and e, a bound on |computed - v| for a backend computing in
// the working precision w (unit roundoff u, each add/sub/mul within half an ULP, D3D11's rule).
// One function per operator output (dmlref/terms.hpp) fills the sink with every logical
// element's (row-major) bound on |backend - exact value|: the largest over the profile's working
// precisions and over the evaluation forms listed in docs/tolerance.md, plus the final rounding
// to the output type; element_bound adds the golden's own rounding (docs/tolerance.md, Computed values). Assumptions (docs/tolerance.md): rsqrt (or sqrt then a reciprocal or a
// division) within kRootError unit roundoffs of w; Welford-style statistics within twice the
// two-pass bound.
#include "batch_normalization.hpp"
#include "batch_normalization_internal.hpp"
#include "common.hpp"
#include "fused_activation.hpp"

#include "dmlref/terms.hpp"
#include "dmlref/working_types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRootError = 8;    // |r~ - D~^(-1/2)| <= 8 u r: rsqrt within 4 ULP of w (assumption)
constexpr double kOnlineFactor = 2; // Welford / Chan statistics: within twice the two-pass bound (assumption)

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
        if (!(D.v - D.e > 0)) return {D.v > 0 ? 1 / std::sqrt(D.v) : 0, kInf};
        const double r = 1 / std::sqrt(D.v), lo = 1 / std::sqrt(D.v + D.e), hi = 1 / std::sqrt(D.v - D.e);
        const double rho = kRootError * u;
        return {r, std::max(hi * (1 + rho) - r, r - lo * (1 - rho)) + eta};
    }
};

W working(DataType w, bool flush) {
    return {unit_roundoff(w), flush ? smallest_normal(w) : subnormal_rounding_error(w)};
}

// A desc value (float32) converted to w: exact unless w is narrower than float32.
V constant(const W& w, DataType wt, float c) { return {double(c), wt == DataType::FLOAT16 ? w.u * std::fabs(c) + w.eta : 0}; }

// The backend's error of one element stored in t (docs/tolerance.md, Computed values): its error
// e_w in w, plus its rounding to t when w is wider. The golden's own rounding of the exact value
// y is element_bound's (ulp(G)/2), not counted here.
double stored(double e_w, double y, DataType t, DataType w, bool flush) {
    if (!std::isfinite(e_w) || !std::isfinite(y)) return kInf;
    double b = e_w;
    if (w != t) {
        const W out = working(t, flush);
        b += out.u * (std::fabs(y) + e_w) + out.eta;
    }
    return b * (1 + 1e-9);  // the double evaluation of the bound itself
}

// The golden's rounding of the exact pre-activation value y to t (before its fused activation).
double golden_rounding(double y, DataType t, bool flush) {
    const W out = working(t, flush);
    return (out.u * std::fabs(y) + out.eta) * (1 + 1e-9);
}

// The fused activation applied to the pre-activation value y (docs/tolerance.md, "Fused
// activations"): the backend's value, within e_pre of y (its rounding to t included), and the
// golden's rounding of y both lie within E = e_pre + |golden's rounding| of y; the activation's
// slope and own error in w (reference/fused_activation_bound.cpp), then the backend's rounding of
// the result to t when w is wider. The golden's final rounding is element_bound's.
double activated(const std::optional<DML_FUSED_ACTIVATION>& a, double e_pre, double y, DataType wt, DataType t, bool flush) {
    if (!a || a->name() == "ACTIVATION_IDENTITY" || !std::isfinite(e_pre)) return e_pre;
    const reference::ActivationError r = reference::fused_activation_error(*a, y, e_pre + golden_rounding(y, t, flush), wt, flush);
    if (!std::isfinite(r.error)) return kInf;
    double b = r.error;
    if (wt != t) {
        const W out = working(t, flush);
        b += out.u * (r.magnitude + r.error) + out.eta;
    }
    return b * (1 + 1e-9);
}

std::vector<double> values(const InputBuffer& input, const TensorDesc& d, const char* field) {
    return logical_doubles(d, input(field));  // throws std::invalid_argument when the case lacks it
}

// y = Scale (X - Mean) r + Bias (+ FusedAdd) in w, the larger error of two forms: subtract first
// ((X - Mean) Scale r + Bias, products in any order), or folded (a = Scale r, X a + (Bias - Mean a)).
double forward_error(const W& w, V x, V mean, V r, V scale, V bias, std::optional<V> fused) {
    const V q = w.prod({scale, w.sub(x, mean), r});
    const V y1 = fused ? w.sum({q, bias, *fused}) : w.add(q, bias);
    // The folded form uses one computed a~ in both products: its error enters as (X - Mean) (a~ - a),
    // not through |X| and |Mean| separately; the roundings are taken with a exact, plus the part of
    // them that |a~ - a| adds.
    const V a = w.prod({scale, r}), a0{a.v, 0};
    const V shift = fused ? w.sum({bias, *fused, w.neg(w.prod({mean, a0}))}) : w.sub(bias, w.prod({mean, a0}));
    const V y2 = w.add(w.prod({x, a0}), shift);
    const double shared = (std::fabs(x.v - mean.v) + mean.e) * a.e + 3 * w.u * (std::fabs(x.v) + std::fabs(mean.v) + mean.e) * a.e;
    return std::max(y1.e, y2.e + shared);
}

struct Statistics {
    std::vector<V> mean, var;
};

// Two-pass batch statistics over the reduced sets, in w (times kOnlineFactor for online forms).
Statistics batch_statistics(const W& w, const std::vector<double>& x, const std::vector<uint64_t>& k_of, size_t n_stat) {
    std::vector<std::vector<V>> terms(n_stat);
    for (size_t i = 0; i < x.size(); ++i) terms[k_of[i]].push_back(w.in(x[i]));
    Statistics s;
    for (auto& t : terms) {
        const uint64_t n = t.size();
        V m = w.mean(w.sum(t), n);
        long double exact = 0;
        for (const V& v : t) exact += v.v;
        m.v = double(exact / n);
        std::vector<V> sq;
        long double var = 0;
        for (const V& v : t) {
            const V d = w.sub(v, m);
            sq.push_back(w.prod({d, d}));
            var += (long double)(v.v - m.v) * (v.v - m.v);
        }
        V vr = w.mean(w.sum(sq), n);
        vr.v = double(var / n);
        m.e *= kOnlineFactor;
        vr.e *= kOnlineFactor;
        s.mean.push_back(m);
        s.var.push_back(vr);
    }
    return s;
}

template <class F> std::vector<double> over_profile(DataType t, const ArithmeticProfile& p, F&& per_precision) {
    std::vector<double> best;
    for (DataType wt : working_types(p, t)) {
        const std::vector<double> b = per_precision(wt, working(wt, p.flush_subnormals));
        if (best.empty()) best = b;
        else
            for (size_t i = 0; i < b.size(); ++i) best[i] = std::max(best[i], b[i]);
    }
    for (double& b : best)
        if (std::isnan(b)) b = kInf;
    return best;
}

std::vector<double> bn_forward(const InputBuffer& c, const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const ArithmeticProfile& p) {
    const auto x = values(c, d.InputTensor, "InputTensor"), mean = values(c, d.MeanTensor, "MeanTensor"),
               var = values(c, d.VarianceTensor, "VarianceTensor"), scale = values(c, d.ScaleTensor, "ScaleTensor"),
               bias = values(c, d.BiasTensor, "BiasTensor");
    const auto& in = d.InputTensor.Sizes;
    const auto im = reference::stat_index(in, d.MeanTensor.Sizes), iv = reference::stat_index(in, d.VarianceTensor.Sizes),
               is = reference::stat_index(in, d.ScaleTensor.Sizes), ib = reference::stat_index(in, d.BiasTensor.Sizes);
    const DataType t = d.InputTensor.DataType;
    return over_profile(t, p, [&](DataType wt, const W& w) {
        std::vector<double> b(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const V r = w.rsqrt(w.add(w.in(var[iv[i]]), constant(w, wt, d.Epsilon)));
            const double y = scale[is[i]] * (x[i] - mean[im[i]]) * r.v + bias[ib[i]];
            const double e = forward_error(w, w.in(x[i]), w.in(mean[im[i]]), r, w.in(scale[is[i]]), w.in(bias[ib[i]]), std::nullopt);
            b[i] = activated(d.FusedActivation, stored(e, y, t, wt, p.flush_subnormals), y, wt, t, p.flush_subnormals);
        }
        return b;
    });
}

std::vector<double> bn_training(const InputBuffer& c, const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, std::string_view output,
                                const ArithmeticProfile& p) {
    const auto x = values(c, d.InputTensor, "InputTensor"), scale = values(c, d.ScaleTensor, "ScaleTensor"),
               bias = values(c, d.BiasTensor, "BiasTensor");
    const auto fused = d.FusedAddTensor ? values(c, *d.FusedAddTensor, "FusedAddTensor") : std::vector<double>{};
    const auto k_of = reference::stat_index(d.InputTensor.Sizes, d.ScaleTensor.Sizes);
    const DataType t = d.InputTensor.DataType;
    return over_profile(t, p, [&](DataType wt, const W& w) {
        const Statistics s = batch_statistics(w, x, k_of, scale.size());
        std::vector<double> b;
        if (output == "OutputMeanTensor")
            for (const V& m : s.mean) b.push_back(stored(m.e, m.v, t, wt, p.flush_subnormals));
        else if (output == "OutputVarianceTensor")
            for (const V& v : s.var) b.push_back(stored(v.e, v.v, t, wt, p.flush_subnormals));
        else
            for (size_t i = 0; i < x.size(); ++i) {
                const uint64_t k = k_of[i];
                const V r = w.rsqrt(w.add(s.var[k], constant(w, wt, d.Epsilon)));
                const std::optional<V> f = fused.empty() ? std::nullopt : std::optional<V>(w.in(fused[i]));
                const double y = scale[k] * (x[i] - s.mean[k].v) * r.v + bias[k] + (f ? f->v : 0);
                const double e = forward_error(w, w.in(x[i]), s.mean[k], r, w.in(scale[k]), w.in(bias[k]), f);
                b.push_back(activated(d.FusedActivation, stored(e, y, t, wt, p.flush_subnormals), y, wt, t, p.flush_subnormals));
            }
        return b;
    });
}

template <class D> std::vector<double> bn_grad(const InputBuffer& c, const D& d, std::string_view output, bool training, const ArithmeticProfile& p) {
    const auto x = values(c, d.InputTensor, "InputTensor"), dy = values(c, d.InputGradientTensor, "InputGradientTensor"),
               mean = values(c, d.MeanTensor, "MeanTensor"), var = values(c, d.VarianceTensor, "VarianceTensor"),
               scale = values(c, d.ScaleTensor, "ScaleTensor");
    const auto k_of = reference::stat_index(d.InputTensor.Sizes, d.MeanTensor.Sizes);
    const size_t n_stat = mean.size();
    const DataType t = d.InputTensor.DataType;
    return over_profile(t, p, [&](DataType wt, const W& w) {
        std::vector<V> r(n_stat);
        for (size_t k = 0; k < n_stat; ++k) r[k] = w.rsqrt(w.add(w.in(var[k]), constant(w, wt, d.Epsilon)));
        // Per statistic: sum dY, and sum dY (X - Mean) in both forms (dY (X - Mean), then r once;
        // or dY ((X - Mean) r) per element).
        std::vector<std::vector<V>> dys(n_stat), cs(n_stat), cns(n_stat);
        for (size_t i = 0; i < x.size(); ++i) {
            const uint64_t k = k_of[i];
            const V dx = w.sub(w.in(x[i]), w.in(mean[k]));
            dys[k].push_back(w.in(dy[i]));
            cs[k].push_back(w.prod({w.in(dy[i]), dx}));
            cns[k].push_back(w.prod({w.in(dy[i]), dx, r[k]}));
        }
        std::vector<V> sdy(n_stat), sc(n_stat);
        std::vector<double> dscale_e(n_stat);
        for (size_t k = 0; k < n_stat; ++k) {
            sdy[k] = w.sum(dys[k]);
            sc[k] = w.sum(cs[k]);
            dscale_e[k] = std::max(w.prod({sc[k], r[k]}).e, w.sum(cns[k]).e);
        }
        std::vector<double> b;
        if (output == "OutputBiasGradientTensor")
            for (size_t k = 0; k < n_stat; ++k) b.push_back(stored(sdy[k].e, sdy[k].v, t, wt, p.flush_subnormals));
        else if (output == "OutputScaleGradientTensor")
            for (size_t k = 0; k < n_stat; ++k) b.push_back(stored(dscale_e[k], sc[k].v * r[k].v, t, wt, p.flush_subnormals));
        else
            for (size_t i = 0; i < x.size(); ++i) {
                const uint64_t k = k_of[i];
                const V s = w.in(scale[k]);
                if (!training) {
                    const V g = w.prod({w.in(dy[i]), s, r[k]});
                    b.push_back(stored(g.e, g.v, t, wt, p.flush_subnormals));
                    continue;
                }
                // Scale r (dY - sum dY / n - (X - Mean) (sum dY (X - Mean) / n) r^2), 1/D as r^2
                // (a division 1/D~ is within it); products in any order, the three terms in any order.
                const uint64_t n = dys[k].size();
                const V mdy = w.mean(sdy[k], n), mc = w.mean(sc[k], n);
                const V proj = w.prod({w.sub(w.in(x[i]), w.in(mean[k])), mc, r[k], r[k]});
                const V inner = w.sum({w.in(dy[i]), w.neg(mdy), w.neg(proj)});
                const V g = w.prod({s, r[k], inner});
                b.push_back(stored(g.e, g.v, t, wt, p.flush_subnormals));
            }
        return b;
    });
}

}  // namespace

namespace {

// One output's bounds into the sink: each element's error against the exact value (the golden's
// half ULP is element_bound's). The case validates (summed_terms checks it); float outputs only.
void fill(const Operator& op, const InputBuffer& input, std::string_view output, const ArithmeticProfile& p, TermSink& sink) {
    const std::vector<double> b = visit_as<DML_BATCH_NORMALIZATION_OPERATOR_DESC, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(op.Desc, [&](const auto& d) -> std::vector<double> {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_OPERATOR_DESC>) {
            return bn_forward(input, d, p);
        } else if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>) {
            return bn_training(input, d, output, p);
        } else if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC> ||
                             std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>) {
            return bn_grad(input, d, output, std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>, p);
        } else {
            throw std::invalid_argument("not a batch normalization operator");
        }
    });
    for (uint64_t i = 0; i < b.size() && i < sink.elements().size(); ++i) sink.set_computed(i, b[i], 0, 0);
}

}  // namespace

void batch_normalization_output_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    fill(op, input, "OutputTensor", p, sink);
}
void batch_normalization_mean_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    fill(op, input, "OutputMeanTensor", p, sink);
}
void batch_normalization_variance_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    fill(op, input, "OutputVarianceTensor", p, sink);
}
void batch_normalization_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    fill(op, input, "OutputGradientTensor", p, sink);
}
void batch_normalization_scale_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                               TermSink& sink) {
    fill(op, input, "OutputScaleGradientTensor", p, sink);
}
void batch_normalization_bias_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                              TermSink& sink) {
    fill(op, input, "OutputBiasGradientTensor", p, sink);
}

}  // namespace dmlref
