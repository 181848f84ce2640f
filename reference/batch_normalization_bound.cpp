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

std::vector<double> bn_training(const InputBuffer& c, const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d,
                                std::string_view output, const ArithmeticProfile& p) {
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
            sdy[k] = w.sum(dys[k]);
            sc[k] = w.sum(cs[k]);
            dscale_e[k] = std::max(w.prod({sc[k], r[k]}).e, w.sum(cns[k]).e);
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
void fill(const Operator& op, const InputBuffer& input, std::string_view output, const ArithmeticProfile& p,
          TermSink& sink) {
    const std::vector<double> b =
        visit_as<DML_BATCH_NORMALIZATION_OPERATOR_DESC, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC,
                 DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(
            op.Desc, [&](const auto& d) -> std::vector<double> {
                using D = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_OPERATOR_DESC>) {
                    return bn_forward(input, d, p);
                } else if constexpr (std::is_same_v<D, DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>) {
                    return bn_training(input, d, output, p);
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

void batch_normalization_output_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                       TermSink& sink) {
    fill(op, input, "OutputTensor", p, sink);
}
void batch_normalization_mean_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                     TermSink& sink) {
    fill(op, input, "OutputMeanTensor", p, sink);
}
void batch_normalization_variance_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                         TermSink& sink) {
    fill(op, input, "OutputVarianceTensor", p, sink);
}
void batch_normalization_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                         TermSink& sink) {
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
