// DML_OPERATOR_LP_NORMALIZATION.
//
// Spec: the DML_LP_NORMALIZATION_OPERATOR_DESC page (DirectML API reference): "Performs an
// Lp-normalization function along the specified axis of the input tensor", P "either 1 or 2",
// Epsilon "to avoid division by zero"; rules in docs/rules.md; open questions in docs/golden.md,
// "Lp normalization".
//
//   Output = X / max(||X||_P, Epsilon), ||X||_1 = sum |X|, ||X||_2 = sqrt(sum X^2)
//
// with the norm taken over the elements along Axis that share the other coordinates.
//
// Decisions (docs/golden.md, "Lp normalization"):
//   - Epsilon as a floor of the norm (LpNormalizationEpsilon=MaxOfNormAndEpsilon): the page says
//     only what Epsilon is for; a norm at least Epsilon gives ONNX's LpNormalization exactly.
//   - The exact value rounded once: the sum is an exact rational; P = 1 is a rational quotient,
//     P = 2 is X (sum X^2)^(-1/2) through batch normalization's Ziv loop (reference/exact_ext.hpp).
//   - Non-finite values follow IEEE's rules on the exact formula (an infinite norm gives 0 for a
//     finite X and NaN for an infinite one; a zero vector with Epsilon <= 0 is 0 / 0, NaN).
//   - Every rank from 1 to 8 and every type (the page's table: 4-D FLOAT32/FLOAT16).
#include "lp_normalization.hpp"
#include "batch_normalization_internal.hpp"
#include "exact_ext.hpp"
#include "running_error.hpp"

namespace dmlref::reference {

namespace {

using namespace exact;

Ext abs_of(const Ext& a) {
    if (a.kind == Ext::NegInf) return inf_of(1);
    return a.finite() ? Ext{Ext::Finite, abs(a.q)} : a;
}

}  // namespace

std::vector<uint64_t> lp_groups(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, uint64_t& groups) {
    std::vector<uint32_t> reduced = d.InputTensor.Sizes;
    reduced.at(d.Axis) = 1;
    groups = 1;
    for (uint32_t s : reduced) groups *= s;
    return stat_index(d.InputTensor.Sizes, reduced);
}

void validate(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "lp-normalization.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                       "lp-normalization.same-sizes");
    if (d.Axis >= d.InputTensor.DimensionCount())
        diags.error(desc_path("Axis"), "lp-normalization.axis",
                    "Axis is " + std::to_string(d.Axis) + "; it must be below InputTensor's DimensionCount (" +
                        std::to_string(d.InputTensor.DimensionCount()) + ")");
    if (d.P != 1 && d.P != 2)
        diags.error(desc_path("P"), "lp-normalization.p",
                    "P is " + std::to_string(d.P) + "; the order of the normalization is either 1 or 2");
    if (!std::isfinite(d.Epsilon))
        diags.error(desc_path("Epsilon"), "lp-normalization.epsilon-finite",
                    "Epsilon is not finite; it must be finite (docs/golden.md)");
}

void evaluate(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) {
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
        uint64_t groups = 0;
        const auto k_of = lp_groups(d, groups);
        std::vector<Ext> sum(groups);
        for (uint64_t i = 0; i < x.size(); ++i) {
            const Ext v = ext(x[i]);
            sum[k_of[i]] = add(sum[k_of[i]], d.P == 1 ? abs_of(v) : mul(v, v));
        }
        const Ext eps = ext_float(d.Epsilon);
        // The divisor per vector: the norm, or Epsilon where the norm is below it (LpNormalizationEpsilon).
        std::vector<bool> floor(groups, false);
        std::vector<Root> roots(groups);
        for (uint64_t k = 0; k < groups; ++k) {
            const Ext& s = sum[k];
            if (s.finite() && sgn(eps.q) > 0) floor[k] = d.P == 1 ? s.q < eps.q : s.q < eps.q * eps.q;
            if (d.P == 2 && !floor[k]) roots[k] = root_of(s);
        }
        write_logical<T>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
            const uint64_t k = k_of[i];
            const Ext X = ext(x[i]);
            if (floor[k]) return round_ext<T>(div(X, eps));
            if (d.P == 1) return round_ext<T>(div(X, sum[k]));
            return scaled_root<T>(X, roots[k], Ext{});
        });
    });
}

std::optional<Tolerance> tolerance(const DML_LP_NORMALIZATION_OPERATOR_DESC& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return std::nullopt;
    return running_error::stated_computed(
        d.InputTensor.DataType,
        "the exact formula rounded once (docs/golden.md, Computed values); dmlref diff bounds each element by the "
        "vector's norm computed in the profile's precision (the sum in any order, the root within 4 ULP, the floor "
        "Epsilon, the division within 2.5 ULP; docs/tolerance.md, Lp normalization)");
}

}  // namespace dmlref::reference

// ---- The bound (docs/tolerance.md, "Lp normalization") ----------------------------------------
namespace dmlref {

namespace {

using namespace running_error;

std::vector<double> bounds(const InputBuffer& c, const DML_LP_NORMALIZATION_OPERATOR_DESC& d,
                           const ArithmeticProfile& prof) {
    const auto x = values(c, d.InputTensor, "InputTensor");
    uint64_t groups = 0;
    const auto k_of = reference::lp_groups(d, groups);
    const DataType t = d.InputTensor.DataType;
    const bool flush = prof.flush_subnormals;
    return over_profile(t, prof, [&](DataType wt, const W& w) {
        std::vector<std::vector<V>> terms(groups);
        for (uint64_t i = 0; i < x.size(); ++i) {
            const V v = w.in(x[i]);
            terms[k_of[i]].push_back(d.P == 1 ? V{std::fabs(x[i]), 0} : w.prod({v, v}));
        }
        const V eps = constant(w, wt, d.Epsilon);
        std::vector<double> value(groups), lo(groups), hi(groups);
        for (uint64_t k = 0; k < groups; ++k) {
            const V s = w.sum(terms[k]);
            double n = s.v, n_lo = s.v - s.e, n_hi = s.v + s.e;
            if (d.P == 2) {  // the root within kRootError unit roundoffs
                n = std::sqrt(s.v);
                n_lo = std::sqrt(std::max(n_lo, 0.0)) * (1 - kRootError * w.u);
                n_hi = std::sqrt(n_hi) * (1 + kRootError * w.u) + w.eta;
            }
            // The divisor max(norm, Epsilon), and where a backend's may lie.
            value[k] = std::max(n, eps.v);
            lo[k] = std::max(n_lo, eps.v - eps.e);
            hi[k] = std::max(n_hi, eps.v + eps.e);
        }
        std::vector<double> b(x.size());
        for (uint64_t i = 0; i < x.size(); ++i) {
            const uint64_t k = k_of[i];
            const double y = x[i] / value[k];
            if (!(lo[k] > 0) || !std::isfinite(y)) {
                b[i] = kInfinity;
                continue;
            }
            const double spread = std::max(std::fabs(x[i] / lo[k] - y), std::fabs(x[i] / hi[k] - y));
            const double e = spread + 5 * w.u * (std::fabs(y) + spread) + w.eta;  // the division within 2.5 ULP
            b[i] = stored(e, y, t, wt, flush);
        }
        return b;
    });
}

}  // namespace

void lp_normalization_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const std::vector<double> b = bounds(input, get<DML_LP_NORMALIZATION_OPERATOR_DESC>(op.Desc), p);
    for (uint64_t i = 0; i < b.size() && i < sink.elements().size(); ++i) sink.set_computed(i, b[i], 0, 0);
}

}  // namespace dmlref
