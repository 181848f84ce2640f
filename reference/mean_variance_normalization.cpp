// DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, _NORMALIZATION1 and _NORMALIZATION2.
//
// Spec: the DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, ...1_OPERATOR_DESC and
// ...2_OPERATOR_DESC pages (DirectML API reference); rules in docs/rules.md; open questions in
// docs/golden.md, "Mean variance normalization".
//
//   Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias)
//
// with Mean and Variance taken over a group: the Input elements that differ only in the reduced
// dimensions (MVN: CrossChannel TRUE reduces dimensions 1 to DimensionCount - 1, FALSE 2 to
// DimensionCount - 1; MVN1 and MVN2: Axes). M = the group's element count.
//   Mean = sum X / M, Variance = sum (X - Mean)^2 / M (the population variance, exact).
//   NormalizeVariance FALSE (MVN, MVN1): Output = FusedActivation(Scale * (Input - Mean) + Bias).
//   MVN2: UseMean FALSE takes Mean as 0 (so Variance is the mean square, sum X^2 / M: RMS
//   normalization); UseVariance FALSE divides by nothing (Epsilon unused).
//   An absent ScaleTensor is 1, an absent BiasTensor 0; Scale and Bias broadcast on their own.
//
// Decisions (docs/golden.md, "Mean variance normalization"):
//   - The exact real value rounded once (MvnValue=ExactThenRoundOnce): Mean and Variance are exact
//     rationals, K = Scale (X - Mean) and Bias too, and K (Variance + Epsilon)^(-1/2) + Bias goes
//     through Ziv's loop (reference/exact_ext.hpp, as BATCH_NORMALIZATION's). The fused activation
//     is applied to that rounded value and rounded again (BnFusedActivation).
//   - Epsilon inside the square root (MvnEpsilon=InsideSquareRoot, the pages' formula).
//   - Non-finite values and Variance + Epsilon <= 0 follow IEEE's rules on the exact formula
//     (MvnSpecialValues=IeeeOnTheExactFormula): 0 / 0 is NaN, K / 0 is +-inf.
//   - Every rank from 1 to 8 (MVN: 2 to 8) and every type (DirectML's tables: FLOAT32/FLOAT16).
#include "mean_variance_normalization.hpp"
#include "batch_normalization_internal.hpp"
#include "exact_ext.hpp"
#include "fused_activation.hpp"
#include "running_error.hpp"

namespace dmlref::reference {

namespace {

using namespace exact;

uint32_t axes_mask(const std::vector<uint32_t>& axes) {
    uint32_t m = 0;
    for (uint32_t a : axes)
        if (a < 32) m |= 1u << a;
    return m;
}

// ---- Validation --------------------------------------------------------------------------------

void require_bool(Diagnostics& diags, uint32_t v, std::string_view field, std::string_view op, std::string_view id) {
    if (v > 1)
        diags.error(desc_path(field), rule(op, id),
                    std::string(field) + " is " + std::to_string(v) + "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
}

// The rules all three pages share: one DataType and DimensionCount for Input, Scale, Bias and
// Output; Output has Input's Sizes; Scale and Bias broadcast (each dimension 1 or Input's);
// Epsilon finite; the fused activation's parameters. False when the shapes cannot be used.
bool validate_common(const MvnPlan& p, Diagnostics& diags, std::string_view op) {
    const TensorDesc& s = p.scale ? *p.scale : p.input;
    const TensorDesc& b = p.bias ? *p.bias : p.input;
    const std::initializer_list<Named> all = {
        {"InputTensor", p.input}, {"ScaleTensor", s}, {"BiasTensor", b}, {"OutputTensor", p.output}};
    require_same_data_type(diags, all, rule(op, "same-data-type"));
    require_same_sizes(diags, {{"InputTensor", p.input}, {"OutputTensor", p.output}}, rule(op, "same-sizes"));
    bool ok = true;
    for (const Named& t : {Named{"ScaleTensor", s}, Named{"BiasTensor", b}}) {
        if (t.desc.DimensionCount() != p.input.DimensionCount()) {
            diags.error(
                desc_path(t.name) + "/Sizes", rule(op, "same-dimension-count"),
                std::string(t.name) + " has " + std::to_string(t.desc.DimensionCount()) +
                    " dimensions; InputTensor, ScaleTensor, BiasTensor and OutputTensor must have the same DimensionCount (" +
                    std::to_string(p.input.DimensionCount()) + ")");
            ok = false;
            continue;
        }
        for (size_t d = 0; d < t.desc.Sizes.size(); ++d)
            if (t.desc.Sizes[d] != 1 && t.desc.Sizes[d] != p.input.Sizes[d]) {
                diags.error(desc_path(t.name) + "/Sizes/" + std::to_string(d), rule(op, "broadcast"),
                            std::string(t.name) + ".Sizes[" + std::to_string(d) + "] is " +
                                std::to_string(t.desc.Sizes[d]) + "; it must be 1 (broadcast) or InputTensor's size " +
                                std::to_string(p.input.Sizes[d]));
                ok = false;
                break;
            }
    }
    if (!std::isfinite(p.epsilon))
        diags.error(desc_path("Epsilon"), rule(op, "epsilon-finite"),
                    "Epsilon is not finite; it must be finite (docs/golden.md)");
    if (p.activation) validate_fused_activation(diags, *p.activation, op);
    return ok;
}

// AxisCount is 1 to DimensionCount, Axes has AxisCount entries, each below DimensionCount, distinct.
void validate_axes(Diagnostics& diags, uint32_t count, const std::vector<uint32_t>& axes, uint32_t rank,
                   std::string_view op) {
    if (count == 0 || count > rank) {
        diags.error(desc_path("AxisCount"), rule(op, "axis-count"),
                    "AxisCount is " + std::to_string(count) + "; it must be 1 to InputTensor's DimensionCount (" +
                        std::to_string(rank) + ")");
        return;
    }
    if (axes.size() != count) {
        diags.error(desc_path("Axes"), rule(op, "axes-length"),
                    "Axes has " + std::to_string(axes.size()) + " entries but AxisCount is " + std::to_string(count) +
                        "; AxisCount determines the size of the Axes array");
        return;
    }
    uint32_t seen = 0;
    for (size_t i = 0; i < axes.size(); ++i) {
        const std::string where = pointer_append(desc_path("Axes"), i);
        if (axes[i] >= rank)
            diags.error(where, rule(op, "axis-range"),
                        "Axes[" + std::to_string(i) + "] is " + std::to_string(axes[i]) +
                            "; it must be below InputTensor's DimensionCount (" + std::to_string(rank) + ")");
        else if (seen & (1u << axes[i]))
            diags.error(where, rule(op, "axes-distinct"),
                        "Axes[" + std::to_string(i) + "] is " + std::to_string(axes[i]) + ", an axis already named");
        else seen |= 1u << axes[i];
    }
}

// ---- The plain loop ----------------------------------------------------------------------------

// A broadcast tensor's values at every logical Input element (nullopt when absent).
template <class T>
std::vector<Ext> per_element(const std::optional<TensorDesc>& t, const Bindings& b, const char* field,
                             const std::vector<uint32_t>& in, uint64_t n, const Ext& absent) {
    if (!t) return std::vector<Ext>(n, absent);
    const auto v = logical_values<T>(*t, b.at(field));
    const auto idx = stat_index(in, t->Sizes);
    std::vector<Ext> r(n);
    for (uint64_t i = 0; i < n; ++i) r[i] = ext(v[idx[i]]);
    return r;
}

void run(const MvnPlan& p, const Bindings& b) {
    dispatch(p.input.DataType, [&]<class T>() {
        const auto x = logical_values<T>(p.input, b.at("InputTensor"));
        const uint64_t n = x.size();
        uint64_t groups = 0, count = 0;
        const auto k_of = mvn_groups(p, groups, count);
        const auto scale = per_element<T>(p.scale, b, "ScaleTensor", p.input.Sizes, n, Ext{Ext::Finite, 1});
        const auto bias = per_element<T>(p.bias, b, "BiasTensor", p.input.Sizes, n, Ext{});
        const Ext M{Ext::Finite, mpq_class(mpz_class(static_cast<unsigned long>(count)))};
        std::vector<Ext> mean(groups), var(groups);
        if (p.use_mean) {
            for (uint64_t i = 0; i < n; ++i) mean[k_of[i]] = add(mean[k_of[i]], ext(x[i]));
            for (Ext& m : mean) m = div(m, M);
        }
        std::vector<Root> roots;
        if (p.use_variance) {
            for (uint64_t i = 0; i < n; ++i) {  // two passes: exact, so E[X^2] - E[X]^2 is the same value
                const Ext c = sub(ext(x[i]), mean[k_of[i]]);
                var[k_of[i]] = add(var[k_of[i]], mul(c, c));
            }
            for (const Ext& v : var) roots.push_back(root_of(add(div(v, M), ext_float(p.epsilon))));
        }
        write_logical<T>(p.output, b.at("OutputTensor"), [&](uint64_t i) {
            const Ext K = mul(scale[i], sub(ext(x[i]), mean[k_of[i]]));
            const T y = p.use_variance ? scaled_root<T>(K, roots[k_of[i]], bias[i]) : round_ext<T>(add(K, bias[i]));
            return p.activation ? fused_activation(*p.activation, y) : y;
        });
    });
}

std::optional<Tolerance> stated(const MvnPlan& p) {
    return running_error::stated_computed(
        p.input.DataType,
        "the exact formula rounded once (docs/golden.md, Computed values); dmlref diff bounds each element by the "
        "magnitudes of its formula's parts (the group's mean and variance, two-pass or E[X^2] - E[X]^2, X - Mean, "
        "Scale, the root, + Bias, the activation) for a backend computing in the profile's precision, with rsqrt "
        "within 4 ULP (docs/tolerance.md, Mean variance normalization)");
}

}  // namespace

MvnPlan mvn_plan(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d) {
    MvnPlan p{d.InputTensor, d.ScaleTensor,    d.BiasTensor, d.OutputTensor, 0, true, d.NormalizeVariance != 0,
              d.Epsilon,     d.FusedActivation};
    // MvnCrossChannelAxes=ChannelAndSpatialOrSpatial: TRUE reduces 1..r-1, FALSE 2..r-1.
    for (uint32_t a = d.CrossChannel ? 1 : 2; a < d.InputTensor.DimensionCount() && a < 32; ++a) p.axes |= 1u << a;
    return p;
}
MvnPlan mvn_plan(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d) {
    return {d.InputTensor,
            d.ScaleTensor,
            d.BiasTensor,
            d.OutputTensor,
            axes_mask(d.Axes),
            true,
            d.NormalizeVariance != 0,
            d.Epsilon,
            d.FusedActivation};
}
MvnPlan mvn_plan(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d) {
    return {d.InputTensor,  d.ScaleTensor,      d.BiasTensor, d.OutputTensor,   axes_mask(d.Axes),
            d.UseMean != 0, d.UseVariance != 0, d.Epsilon,    d.FusedActivation};
}

std::vector<uint64_t> mvn_groups(const MvnPlan& p, uint64_t& groups, uint64_t& count) {
    std::vector<uint32_t> reduced = p.input.Sizes;
    groups = 1;
    count = 1;
    for (size_t d = 0; d < reduced.size(); ++d) {
        if (d < 32 && (p.axes >> d) & 1u) {
            count *= reduced[d];
            reduced[d] = 1;
        }
        groups *= reduced[d];
    }
    return stat_index(p.input.Sizes, reduced);
}

void validate(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_common(mvn_plan(d), diags, "mvn");
    if (d.InputTensor.DimensionCount() < 2)
        diags.error(
            desc_path("InputTensor") + "/Sizes", "mvn.rank",
            "InputTensor has " + std::to_string(d.InputTensor.DimensionCount()) +
                " dimension; it needs at least 2 ({ BatchCount, ChannelCount, ... }: CrossChannel names dimension 1)");
    require_bool(diags, d.CrossChannel, "CrossChannel", "mvn", "cross-channel");
    require_bool(diags, d.NormalizeVariance, "NormalizeVariance", "mvn", "normalize-variance");
}

void validate(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_common(mvn_plan(d), diags, "mvn1");
    validate_axes(diags, d.AxisCount, d.Axes, d.InputTensor.DimensionCount(), "mvn1");
    require_bool(diags, d.NormalizeVariance, "NormalizeVariance", "mvn1", "normalize-variance");
}

void validate(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_common(mvn_plan(d), diags, "mvn2");
    validate_axes(diags, d.AxisCount, d.Axes, d.InputTensor.DimensionCount(), "mvn2");
    require_bool(diags, d.UseMean, "UseMean", "mvn2", "use-mean");
    require_bool(diags, d.UseVariance, "UseVariance", "mvn2", "use-variance");
}

void evaluate(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) { run(mvn_plan(d), b); }
void evaluate(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d, const Bindings& b) { run(mvn_plan(d), b); }
void evaluate(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d, const Bindings& b) { run(mvn_plan(d), b); }

std::optional<Tolerance> tolerance(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? stated(mvn_plan(d)) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? stated(mvn_plan(d)) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? stated(mvn_plan(d)) : std::nullopt;
}

}  // namespace dmlref::reference

// ---- The bound (docs/tolerance.md, "Mean variance normalization") ------------------------------
//
// Per group, in the working precision w: the mean as BATCH_NORMALIZATION_TRAINING's (a sum of M
// terms, times 1/M), and the variance as the largest error of the forms the profile admits
// (`statistics`; by default all): two-pass (sum (X - mean~)^2 / M), online (the two-pass bounds
// times kOnlineFactor for Welford-style updates) and one-pass E[X^2] - E[X]^2, whose cancellation
// is what makes it large where |Mean| is large against the spread. Then each element
// as BATCH_NORMALIZATION's (forward_error: subtract first, or the folded form), the root within
// kRootError unit roundoffs, the rounding to the output type and the fused activation.
namespace dmlref {

namespace {

using namespace running_error;

struct GroupStatistics {
    V mean, var;
};

// The forms the profile's `statistics` names (dmlref/bound.hpp) admit: two-pass, online (two-pass
// times kOnlineFactor, the mean's error too) and one-pass; a union takes each statistic's largest
// error.
GroupStatistics group_statistics(const W& w, const std::vector<V>& t, bool use_mean, Statistics form) {
    const uint64_t n = t.size();
    long double exact_sum = 0;
    for (const V& v : t) exact_sum += v.v;
    V mean{0, 0};
    if (use_mean) {
        mean = w.mean(w.sum(t), n);
        mean.v = double(exact_sum / n);
    }
    std::vector<V> centred, squares;
    long double exact_var = 0;
    for (const V& v : t) {
        const V d = w.sub(v, mean);
        centred.push_back(w.prod({d, d}));
        squares.push_back(w.prod({v, v}));
        exact_var += (long double)(v.v - mean.v) * (v.v - mean.v);
    }
    V two_pass = w.mean(w.sum(centred), n);
    V one_pass = w.sub(w.mean(w.sum(squares), n), w.prod({mean, mean}));
    static_assert(kOnlineFactor >= 1, "the online bounds hold the two-pass ones");
    const bool online = form == Statistics::Online || form == Statistics::Stable || form == Statistics::Any;
    double e = two_pass.e;
    if (online) {
        e = two_pass.e * kOnlineFactor;
        mean.e *= kOnlineFactor;
    }
    if (form == Statistics::OnePass) e = one_pass.e;
    if (form == Statistics::Any) e = std::max(e, one_pass.e);
    return {mean, V{double(exact_var / n), e}};
}

std::vector<double> bounds(const InputBuffer& c, const reference::MvnPlan& p, const ArithmeticProfile& prof) {
    const auto x = values(c, p.input, "InputTensor");
    const uint64_t n = x.size();
    auto broadcast = [&](const std::optional<TensorDesc>& t, const char* field, double absent) {
        std::vector<double> r(n, absent);
        if (!t) return r;
        const auto v = values(c, *t, field);
        const auto idx = reference::stat_index(p.input.Sizes, t->Sizes);
        for (uint64_t i = 0; i < n; ++i) r[i] = v[idx[i]];
        return r;
    };
    const auto scale = broadcast(p.scale, "ScaleTensor", 1), bias = broadcast(p.bias, "BiasTensor", 0);
    uint64_t groups = 0, count = 0;
    const auto k_of = reference::mvn_groups(p, groups, count);
    const DataType t = p.input.DataType;
    const bool flush = prof.flush_subnormals;
    return over_profile(t, prof, [&](DataType wt, const W& w) {
        std::vector<std::vector<V>> terms(groups);
        for (uint64_t i = 0; i < n; ++i) terms[k_of[i]].push_back(w.in(x[i]));
        std::vector<GroupStatistics> s;
        std::vector<V> r;
        for (const auto& g : terms) {
            s.push_back(group_statistics(w, g, p.use_mean, prof.statistics));
            r.push_back(p.use_variance ? w.rsqrt(w.add(s.back().var, constant(w, wt, p.epsilon))) : V{1, 0});
        }
        std::vector<double> b(n);
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t k = k_of[i];
            const double y = scale[i] * (x[i] - s[k].mean.v) * r[k].v + bias[i];
            const double e = forward_error(w, w.in(x[i]), s[k].mean, r[k], w.in(scale[i]), w.in(bias[i]), std::nullopt);
            b[i] = activated(p.activation, stored(e, y, t, wt, flush), y, wt, t, flush);
        }
        return b;
    });
}

}  // namespace

void mean_variance_normalization_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                        TermSink& sink) {
    using namespace reference;
    const std::vector<double> b =
        visit_as<DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC,
                 DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC>(
            op.Desc, [&](const auto& d) { return bounds(input, mvn_plan(d), p); });
    for (uint64_t i = 0; i < b.size() && i < sink.elements().size(); ++i) sink.set_computed(i, b[i], 0, 0);
}

}  // namespace dmlref
