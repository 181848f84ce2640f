// Batch normalization's per-element error bound: a running error analysis over the formula's
// parts' magnitudes (docs/tolerance.md, "Batch normalization"; the arithmetic is
// reference/running_error.hpp's). One function per operator output (dmlref/terms.hpp) fills the
// sink with every logical element's (row-major) bound on |backend - exact value|: the largest over
// the profile's working precisions and over the evaluation forms listed in docs/tolerance.md, plus
// the final rounding to the output type; element_bound adds the golden's own rounding
// (docs/tolerance.md, Computed values).
#include "batch_normalization.hpp"
#include "batch_normalization_internal.hpp"
#include "common.hpp"
#include "fused_activation.hpp"
#include "running_error.hpp"

#include "dmlref/terms.hpp"
#include "dmlref/working_types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref {

namespace {

using namespace running_error;  // reference/running_error.hpp

// The rounding error of adding terms whose computed values are at most a_i in magnitude, in any
// order (any binary tree of additions; docs/tolerance.md, "Batch normalization": the statistics).
// Each addition rounds within u of its computed result, which is at most the sum of the a_i below
// it plus the error E so far; a tree's k-th largest subtree holds at most n - k + 1 leaves (the
// chain's count), so the additions' results sum to at most sum_i a_(i) c_i with the a sorted largest
// first and c = (n-1, n-1, n-2, ..., 1): E <= u (sum_i a_(i) c_i + (n-1) E) + (n-1) eta. For n
// equal terms this is about half of gamma_(n-1) sum a_i.
double order_error(const W& w, std::vector<double> a) {
    const uint64_t n = a.size();
    if (n < 2) return 0;
    const double chain = double(n - 1) * w.u;
    if (!(chain < 1)) return kInfinity;
    std::sort(a.begin(), a.end(), std::greater<>());
    double weighted = a[0] * double(n - 1);
    for (uint64_t i = 1; i < n; ++i) weighted += a[i] * double(n - i);
    return (w.u * weighted + double(n - 1) * w.eta) / (1 - chain) * (1 + 1e-12);
}

// A sum of terms in any order: their own errors plus order_error over their computed magnitudes.
V sum_any_order(const W& w, const std::vector<V>& t) {
    double v = 0, e = 0;
    std::vector<double> a;
    a.reserve(t.size());
    for (const V& x : t) {
        v += x.v;
        e += x.e;
        a.push_back(std::fabs(x.v) + x.e);
    }
    return {v, e + order_error(w, std::move(a))};
}

// The mean: the sum in any order, times 1/n rounded to w. Its value is the exact mean.
V group_mean(const W& w, const std::vector<double>& x) {
    std::vector<double> a;
    a.reserve(x.size());
    long double exact = 0;
    for (double v : x) {
        a.push_back(std::fabs(v));
        exact += v;
    }
    V m = w.mean(V{double(exact), order_error(w, std::move(a))}, x.size());
    m.v = double(exact / (long double)x.size());
    return m;
}

// The variance's exact value sum (x_i - mean)^2 / n and the sum of squared deviations.
long double deviations(const std::vector<double>& x, double mean) {
    long double s = 0;
    for (double v : x) s += (long double)(v - mean) * (v - mean);
    return s;
}

// Two-pass: the backend's mean~ = mean + delta (|delta| <= e_m), then t_i = fl(fl(x_i - mean~)^2),
// summed in any order, times 1/n. Exactly, sum (d_i - delta)^2 = S + n delta^2 (sum d_i = 0 with
// d_i = x_i - mean), so the mean's error enters only squared; each t_i is (d_i - delta)^2 (1 +
// theta), |theta| <= (1 + u)^3 - 1, plus an underflow eta.
V two_pass_variance(const W& w, const std::vector<double>& x, V mean) {
    const uint64_t n = x.size();
    const double g3 = std::pow(1 + w.u, 3) - 1, em = mean.e;
    const long double S = deviations(x, mean.v);
    std::vector<double> a;  // the computed terms' magnitudes
    a.reserve(n);
    for (double v : x) {
        const double d = std::fabs(v - mean.v) + em;
        a.push_back(d * d * (1 + g3) + w.eta);
    }
    const double e_sum = double(n) * em * em + g3 * (double(S) + double(n) * em * em) + double(n) * w.eta +
                         order_error(w, std::move(a));
    V var = w.mean(V{double(S), e_sum}, n);
    var.v = double(S / (long double)n);
    return var;
}

// One-pass E[x^2] - E[x]^2: the squares rounded once each, summed in any order, times 1/n; the
// backend's mean~ squared; their difference rounded. Large where |mean| is large against the
// spread (the cancellation), as a backend computing it that way is.
V one_pass_variance(const W& w, const std::vector<double>& x, V mean) {
    std::vector<double> a;
    a.reserve(x.size());
    long double squares = 0;
    double rounding = 0;
    for (double v : x) {
        squares += (long double)v * v;
        rounding += w.u * v * v + w.eta;
        a.push_back(v * v * (1 + w.u) + w.eta);
    }
    const V sum{double(squares), rounding + order_error(w, std::move(a))};
    V var = w.sub(w.mean(sum, x.size()), w.prod({mean, mean}));
    var.v = double(deviations(x, mean.v) / (long double)x.size());
    return var;
}

std::vector<double> bn_forward(const InputBuffer& c, const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d,
                               const ArithmeticProfile& p) {
    const auto x = values(c, d.InputTensor, "InputTensor"), mean = values(c, d.MeanTensor, "MeanTensor"),
               var = values(c, d.VarianceTensor, "VarianceTensor"), scale = values(c, d.ScaleTensor, "ScaleTensor"),
               bias = values(c, d.BiasTensor, "BiasTensor");
    const auto& in = d.InputTensor.Sizes;
    const auto im = reference::stat_index(in, d.MeanTensor.Sizes),
               iv = reference::stat_index(in, d.VarianceTensor.Sizes),
               is = reference::stat_index(in, d.ScaleTensor.Sizes), ib = reference::stat_index(in, d.BiasTensor.Sizes);
    const DataType t = d.InputTensor.DataType;
    return over_profile(t, p, [&](DataType wt, const W& w) {
        std::vector<double> b(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const V r = w.rsqrt(w.add(w.in(var[iv[i]]), constant(w, wt, d.Epsilon)));
            const double y = scale[is[i]] * (x[i] - mean[im[i]]) * r.v + bias[ib[i]];
            const double e = forward_error(w, w.in(x[i]), w.in(mean[im[i]]), r, w.in(scale[is[i]]), w.in(bias[ib[i]]),
                                           std::nullopt);
            b[i] = activated(d.FusedActivation, stored(e, y, t, wt, p.flush_subnormals), y, wt, t, p.flush_subnormals);
        }
        return b;
    });
}

// The statistics of every group in w, for the forms `form` covers: the mean as a sum in any order
// times 1/n; the variance two-pass, online (Welford's or Chan's updates: within kOnlineFactor times
// the two-pass bounds, an assumption) or one-pass. A union of forms (Stable: two-pass or online;
// Any: all three) takes the largest error of each statistic: Stable's are the online ones, and so
// is Any's mean.
BatchStatistics training_statistics(const W& w, const std::vector<double>& x, const std::vector<uint64_t>& k_of,
                                    size_t n_stat, BnStatistics form) {
    std::vector<std::vector<double>> groups(n_stat);
    for (size_t i = 0; i < x.size(); ++i) groups[k_of[i]].push_back(x[i]);
    static_assert(kOnlineFactor >= 1, "the online bounds hold the two-pass ones");
    BatchStatistics s;
    for (const auto& g : groups) {
        const V m0 = group_mean(w, g);
        V m = m0, var = form == BnStatistics::OnePass ? one_pass_variance(w, g, m0) : two_pass_variance(w, g, m0);
        if (form == BnStatistics::Online || form == BnStatistics::Stable || form == BnStatistics::Any) {
            var.e *= kOnlineFactor;
            m.e *= kOnlineFactor;
        }
        if (form == BnStatistics::Any) var.e = std::max(var.e, one_pass_variance(w, g, m0).e);
        s.mean.push_back(m);
        s.var.push_back(var);
    }
    return s;
}

std::vector<double> bn_training(const InputBuffer& c, const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d,
                                std::string_view output, const ArithmeticProfile& p, BnStatistics form) {
    const auto x = values(c, d.InputTensor, "InputTensor"), scale = values(c, d.ScaleTensor, "ScaleTensor"),
               bias = values(c, d.BiasTensor, "BiasTensor");
    const auto fused = d.FusedAddTensor ? values(c, *d.FusedAddTensor, "FusedAddTensor") : std::vector<double>{};
    const auto k_of = reference::stat_index(d.InputTensor.Sizes, d.ScaleTensor.Sizes);
    const DataType t = d.InputTensor.DataType;
    return over_profile(t, p, [&](DataType wt, const W& w) {
        const BatchStatistics s = training_statistics(w, x, k_of, scale.size(), form);
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
                b.push_back(activated(d.FusedActivation, stored(e, y, t, wt, p.flush_subnormals), y, wt, t,
                                      p.flush_subnormals));
            }
        return b;
    });
}

template <class D>
std::vector<double> bn_grad(const InputBuffer& c, const D& d, std::string_view output, bool training,
                            const ArithmeticProfile& p) {
    const auto x = values(c, d.InputTensor, "InputTensor"),
               dy = values(c, d.InputGradientTensor, "InputGradientTensor"),
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
            sdy[k] = sum_any_order(w, dys[k]);
            sc[k] = sum_any_order(w, cs[k]);
            dscale_e[k] = std::max(w.prod({sc[k], r[k]}).e, sum_any_order(w, cns[k]).e);
        }
        std::vector<double> b;
        if (output == "OutputBiasGradientTensor")
            for (size_t k = 0; k < n_stat; ++k) b.push_back(stored(sdy[k].e, sdy[k].v, t, wt, p.flush_subnormals));
        else if (output == "OutputScaleGradientTensor")
            for (size_t k = 0; k < n_stat; ++k)
                b.push_back(stored(dscale_e[k], sc[k].v * r[k].v, t, wt, p.flush_subnormals));
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
// _TRAINING's statistics admit the forms `form` names (the profile's, but for
// batch_normalization_training_bounds).
void fill(const Operator& op, const InputBuffer& input, std::string_view output, const ArithmeticProfile& p,
          TermSink& sink, BnStatistics form) {
    const std::vector<double> b =
        visit_as<DML_BATCH_NORMALIZATION_OPERATOR_DESC, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC,
                 DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(
            op.Desc, [&](const auto& d) -> std::vector<double> {
                using D = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_OPERATOR_DESC>) {
                    return bn_forward(input, d, p);
                } else if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>) {
                    return bn_training(input, d, output, p, form);
                } else if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC> ||
                                     std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>) {
                    return bn_grad(input, d, output,
                                   std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>, p);
                } else {
                    throw std::invalid_argument("not a batch normalization operator");
                }
            });
    for (uint64_t i = 0; i < b.size() && i < sink.elements().size(); ++i) sink.set_computed(i, b[i], 0, 0);
}

}  // namespace

void batch_normalization_training_bounds(const Operator& op, const InputBuffer& input, std::string_view output,
                                         const ArithmeticProfile& p, BnStatistics form, TermSink& sink) {
    fill(op, input, output, p, sink, form);
}
void batch_normalization_output_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                       TermSink& sink) {
    fill(op, input, "OutputTensor", p, sink, p.statistics);
}
void batch_normalization_mean_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                     TermSink& sink) {
    fill(op, input, "OutputMeanTensor", p, sink, p.statistics);
}
void batch_normalization_variance_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                         TermSink& sink) {
    fill(op, input, "OutputVarianceTensor", p, sink, p.statistics);
}
void batch_normalization_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                         TermSink& sink) {
    fill(op, input, "OutputGradientTensor", p, sink, p.statistics);
}
void batch_normalization_scale_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                               TermSink& sink) {
    fill(op, input, "OutputScaleGradientTensor", p, sink, p.statistics);
}
void batch_normalization_bias_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                              TermSink& sink) {
    fill(op, input, "OutputBiasGradientTensor", p, sink, p.statistics);
}

}  // namespace dmlref
