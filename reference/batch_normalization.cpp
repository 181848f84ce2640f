// DML_OPERATOR_BATCH_NORMALIZATION, _GRAD, _TRAINING and _TRAINING_GRAD.
//
// Spec: the DML_BATCH_NORMALIZATION, _GRAD, _TRAINING and _TRAINING_GRAD_OPERATOR_DESC pages
// (DirectML API reference: structs, formulas, broadcasting, support); rules in docs/rules.md; open
// questions in docs/golden.md, "Batch normalization" and "Computed values".
//
//   D = Variance + Epsilon, r = D^(-1/2); sums and means run over the reduced set R of a
//   statistics element k (the Input elements that broadcast to it), M = |R|.
//   BATCH_NORMALIZATION      Y = Act(Scale (X - Mean) r + Bias)      (Mean, Variance, Scale and
//                            Bias each broadcast on their own)
//   BATCH_NORMALIZATION_TRAINING
//                            mean_k = sum X / M, var_k = sum (X - mean_k)^2 / M (no Epsilon)
//                            Y = Act(Scale (X - mean) (var + Epsilon)^(-1/2) + Bias + FusedAdd)
//                            OutputMean = mean, OutputVariance = var
//   BATCH_NORMALIZATION_GRAD (Mean and Variance constants)
//                            dX = dY Scale r, dScale = r sum dY (X - Mean), dBias = sum dY
//   BATCH_NORMALIZATION_TRAINING_GRAD (batch statistics)
//                            dX = Scale r (dY - mean(dY) - (X - Mean) mean(dY (X - Mean)) / D)
//                            dScale and dBias as BATCH_NORMALIZATION_GRAD
//
// Decisions (docs/golden.md, "Batch normalization"):
//   - Every output is the exact real value of its formula rounded once: everything but r is an
//     exact rational (GMP); a value K r + c (K, c rational) is exact when D is a perfect square
//     (exact_power) and otherwise goes through Ziv's loop in MPFR (correctly_rounded.hpp). Then
//     the fused activation is applied to that rounded value and rounded again, as the separate
//     operator would (BnFusedActivation; reference/fused_activation.cpp); Output of _TRAINING uses
//     the exact mean and variance.
//   - Non-finite values and D <= 0 follow IEEE's rules on the exact formula (sqrt of a negative
//     is NaN, K / 0 is +-inf, 0 / 0 NaN); a NaN result is the canonical NaN; an exact zero is +0.
//   - _TRAINING_GRAD uses the supplied MeanTensor everywhere (also where the page writes
//     mean(Input)).
//   - Every rank from 1 to 8 and every type (DirectML's tables: FLOAT32/FLOAT16).
#include "batch_normalization.hpp"
#include "batch_normalization_internal.hpp"
#include "common.hpp"
#include "correctly_rounded.hpp"
#include "exact_ext.hpp"
#include "fused_activation.hpp"
#include "running_error.hpp"

#include <cmath>

namespace dmlref::reference {

namespace {

using namespace exact;  // Ext, scaled_root (reference/exact_ext.hpp)

// ---- The fused activation (applied to the rounded value, as the separate operator) -----------

template <class T> T activate(const std::optional<DML_FUSED_ACTIVATION>& a, T y) {
    return a ? fused_activation(*a, y) : y;
}

// ---- Shapes ------------------------------------------------------------------------------------

uint64_t count_of(const TensorDesc& d) { return element_count(d); }

// ---- Validation --------------------------------------------------------------------------------

// Every tensor has the first one's dimension count; false otherwise.
bool same_dimension_count(Diagnostics& diags, std::initializer_list<Named> tensors, std::string_view op) {
    bool ok = true;
    const Named& first = *tensors.begin();
    for (const Named& t : tensors)
        if (t.desc.DimensionCount() != first.desc.DimensionCount()) {
            diags.error(desc_path(t.name) + "/Sizes", rule(op, "same-dimension-count"),
                        std::string(t.name) + " has " + std::to_string(t.desc.DimensionCount()) + " dimensions; " +
                            join_names(tensors) + " must have the same DimensionCount (" + std::string(first.name) +
                            ": " + std::to_string(first.desc.DimensionCount()) + ")");
            ok = false;
        }
    return ok;
}

// Each dimension of a statistics tensor is 1 (broadcast) or the input's.
void broadcasts(Diagnostics& diags, const Named& stat, const TensorDesc& input, std::string_view op) {
    for (size_t d = 0; d < stat.desc.Sizes.size(); ++d)
        if (stat.desc.Sizes[d] != 1 && stat.desc.Sizes[d] != input.Sizes[d]) {
            diags.error(desc_path(stat.name) + "/Sizes/" + std::to_string(d), rule(op, "broadcast"),
                        std::string(stat.name) + ".Sizes[" + std::to_string(d) + "] is " +
                            std::to_string(stat.desc.Sizes[d]) + "; it must be 1 (broadcast) or InputTensor's size " +
                            std::to_string(input.Sizes[d]));
            return;
        }
}

void epsilon_finite(Diagnostics& diags, float e, std::string_view op) {
    if (!std::isfinite(e))
        diags.error(desc_path("Epsilon"), rule(op, "epsilon-finite"),
                    "Epsilon is not finite; it must be finite (docs/golden.md)");
}

void validate_activation(Diagnostics& diags, const std::optional<DML_FUSED_ACTIVATION>& a, std::string_view op) {
    if (a) validate_fused_activation(diags, *a, op);
}

// ---- BATCH_NORMALIZATION ---------------------------------------------------------------------

// One output element: Act(RN(Scale (X - Mean) r + Bias)), r from `root` (D = Variance + Epsilon).
template <class T>
T bn_value(T x, T mean, const Root& root, T scale, T bias, const std::optional<DML_FUSED_ACTIVATION>& a) {
    const Ext K = mul(ext(scale), sub(ext(x), ext(mean)));
    return activate<T>(a, scaled_root<T>(K, root, ext(bias)));
}

void bn(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) {
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
        const auto mean = logical_values<T>(d.MeanTensor, b.at("MeanTensor"));
        const auto var = logical_values<T>(d.VarianceTensor, b.at("VarianceTensor"));
        const auto scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
        const auto bias = logical_values<T>(d.BiasTensor, b.at("BiasTensor"));
        const auto& in = d.InputTensor.Sizes;
        const auto im = stat_index(in, d.MeanTensor.Sizes), iv = stat_index(in, d.VarianceTensor.Sizes),
                   is = stat_index(in, d.ScaleTensor.Sizes), ib = stat_index(in, d.BiasTensor.Sizes);
        std::vector<Root> roots;
        for (const T& v : var) roots.push_back(root_of(add(ext(v), ext_float(d.Epsilon))));
        write_logical<T>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
            return bn_value(x[i], mean[im[i]], roots[iv[i]], scale[is[i]], bias[ib[i]], d.FusedActivation);
        });
    });
}

// ---- BATCH_NORMALIZATION_GRAD and _TRAINING_GRAD -----------------------------------------------

template <class D> void bn_grad(const D& d, const Bindings& b, bool training) {
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
        const auto dy = logical_values<T>(d.InputGradientTensor, b.at("InputGradientTensor"));
        const auto mean = logical_values<T>(d.MeanTensor, b.at("MeanTensor"));
        const auto var = logical_values<T>(d.VarianceTensor, b.at("VarianceTensor"));
        const auto scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
        const auto k_of = stat_index(d.InputTensor.Sizes, d.MeanTensor.Sizes);
        const size_t n = mean.size();
        const mpq_class M(mpz_class(count_of(d.InputTensor) / n));  // |R|: the statistics divide the input
        std::vector<Ext> sum_dy(n), sum_c(n);                       // sum dY and sum dY (X - Mean) per statistic
        for (uint64_t i = 0; i < x.size(); ++i) {
            const uint64_t k = k_of[i];
            sum_dy[k] = add(sum_dy[k], ext(dy[i]));
            sum_c[k] = add(sum_c[k], mul(ext(dy[i]), sub(ext(x[i]), ext(mean[k]))));
        }
        std::vector<Root> roots;
        for (const T& v : var) roots.push_back(root_of(add(ext(v), ext_float(d.Epsilon))));
        write_logical<T>(d.OutputGradientTensor, b.at("OutputGradientTensor"), [&](uint64_t i) {
            const uint64_t k = k_of[i];
            const Ext s = ext(scale[k]);
            if (!training) return scaled_root<T>(mul(ext(dy[i]), s), roots[k], Ext{});
            const Ext m = Ext{Ext::Finite, M};
            const Ext centered = sub(ext(x[i]), ext(mean[k]));
            const Ext inner = sub(sub(ext(dy[i]), div(sum_dy[k], m)), div(mul(centered, div(sum_c[k], m)), roots[k].D));
            return scaled_root<T>(mul(s, inner), roots[k], Ext{});
        });
        write_logical<T>(d.OutputScaleGradientTensor, b.at("OutputScaleGradientTensor"),
                         [&](uint64_t k) { return scaled_root<T>(sum_c[k], roots[k], Ext{}); });
        write_logical<T>(d.OutputBiasGradientTensor, b.at("OutputBiasGradientTensor"),
                         [&](uint64_t k) { return round_ext<T>(sum_dy[k]); });
    });
}

// ---- BATCH_NORMALIZATION_TRAINING --------------------------------------------------------------

// One OutputTensor element: Act(RN(Scale (X - mean) r + Bias + FusedAdd)), the statistics exact.
template <class T>
T bn_training_value(T x, const Ext& mean, const Root& root, T scale, T bias, const T* fused_add,
                    const std::optional<DML_FUSED_ACTIVATION>& a) {
    const Ext K = mul(ext(scale), sub(ext(x), mean));
    const Ext c = fused_add ? add(ext(bias), ext(*fused_add)) : ext(bias);
    return activate<T>(a, scaled_root<T>(K, root, c));
}

void bn_training(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, const Bindings& b) {
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
        const auto scale = logical_values<T>(d.ScaleTensor, b.at("ScaleTensor"));
        const auto bias = logical_values<T>(d.BiasTensor, b.at("BiasTensor"));
        std::vector<T> fused_add;
        if (d.FusedAddTensor) fused_add = logical_values<T>(*d.FusedAddTensor, b.at("FusedAddTensor"));
        const auto k_of = stat_index(d.InputTensor.Sizes, d.ScaleTensor.Sizes);
        const size_t n = scale.size();
        const Ext M{Ext::Finite, mpq_class(mpz_class(count_of(d.InputTensor) / n))};
        std::vector<Ext> mean(n), var(n);
        for (uint64_t i = 0; i < x.size(); ++i) mean[k_of[i]] = add(mean[k_of[i]], ext(x[i]));
        for (auto& m : mean) m = div(m, M);
        for (uint64_t i = 0; i < x.size(); ++i) {  // two passes: the exact population variance
            const Ext c = sub(ext(x[i]), mean[k_of[i]]);
            var[k_of[i]] = add(var[k_of[i]], mul(c, c));
        }
        for (auto& v : var) v = div(v, M);
        std::vector<Root> roots;
        for (const auto& v : var) roots.push_back(root_of(add(v, ext_float(d.Epsilon))));
        write_logical<T>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) {
            const uint64_t k = k_of[i];
            return bn_training_value(x[i], mean[k], roots[k], scale[k], bias[k],
                                     fused_add.empty() ? nullptr : &fused_add[i], d.FusedActivation);
        });
        write_logical<T>(d.OutputMeanTensor, b.at("OutputMeanTensor"),
                         [&](uint64_t k) { return round_ext<T>(mean[k]); });
        write_logical<T>(d.OutputVarianceTensor, b.at("OutputVarianceTensor"),
                         [&](uint64_t k) { return round_ext<T>(var[k]); });
    });
}

// ---- Tolerance (docs/tolerance.md "Batch normalization") ---------------------------------------

// What goldens record; `dmlref diff` bounds each element from the magnitudes of its formula's
// parts (reference/batch_normalization_bound.cpp).
std::optional<Tolerance> stated(DataType t, std::string what) {
    return running_error::stated_computed(
        t,
        "the exact formula rounded once (docs/golden.md, Computed values); dmlref diff bounds each element by the "
        "magnitudes of its formula's parts (" +
            what +
            "), for a backend computing in the profile's precision, "
            "with rsqrt within 4 ULP (docs/tolerance.md, Batch normalization)");
}

}  // namespace

// For every logical element of `in`, the logical index of the element of `stat` it broadcasts to
// (stat's dimensions are 1 or in's).
std::vector<uint64_t> stat_index(const std::vector<uint32_t>& in, const std::vector<uint32_t>& stat) {
    const auto packed = packed_strides(stat);
    uint64_t n = 1;
    for (auto s : in) n *= s;
    std::vector<uint64_t> idx(n);
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t rest = i, k = 0;
        for (size_t d = in.size(); d-- > 0;) {
            const uint64_t c = rest % in[d];
            rest /= in[d];
            if (stat[d] != 1) k += c * uint64_t(packed[d]);
        }
        idx[i] = k;
    }
    return idx;
}

template <class T>
T batch_normalization_element(T x, T mean, T variance, T scale, T bias, float epsilon,
                              const std::optional<DML_FUSED_ACTIVATION>& activation) {
    return bn_value(x, mean, root_of(add(ext(variance), ext_float(epsilon))), scale, bias, activation);
}
template float batch_normalization_element(float, float, float, float, float, float,
                                           const std::optional<DML_FUSED_ACTIVATION>&);
template half batch_normalization_element(half, half, half, half, half, float,
                                          const std::optional<DML_FUSED_ACTIVATION>&);

template <class T> T batch_normalization_grad_element(T dy, T scale, T variance, float epsilon) {
    return scaled_root<T>(mul(ext(dy), ext(scale)), root_of(add(ext(variance), ext_float(epsilon))), Ext{});
}
template <class T> T batch_normalization_scale_gradient(const mpq_class& sum, T variance, float epsilon) {
    return scaled_root<T>(Ext{Ext::Finite, sum}, root_of(add(ext(variance), ext_float(epsilon))), Ext{});
}
template <class T>
T batch_normalization_training_grad_element(T dy, T x, T mean, T scale, T variance, const mpq_class& sum_dy,
                                            const mpq_class& sum_c, uint64_t M, float epsilon) {
    const Root root = root_of(add(ext(variance), ext_float(epsilon)));
    const Ext m = Ext{Ext::Finite, mpq_class(mpz_class(M))};
    const Ext centered = sub(ext(x), ext(mean));
    const Ext inner = sub(sub(ext(dy), div(Ext{Ext::Finite, sum_dy}, m)),
                          div(mul(centered, div(Ext{Ext::Finite, sum_c}, m)), root.D));
    return scaled_root<T>(mul(ext(scale), inner), root, Ext{});
}
template float batch_normalization_training_grad_element(float, float, float, float, float, const mpq_class&,
                                                         const mpq_class&, uint64_t, float);
template half batch_normalization_training_grad_element(half, half, half, half, half, const mpq_class&,
                                                        const mpq_class&, uint64_t, float);
template float batch_normalization_grad_element(float, float, float, float);
template half batch_normalization_grad_element(half, half, half, float);
template float batch_normalization_scale_gradient(const mpq_class&, float, float);
template half batch_normalization_scale_gradient(const mpq_class&, half, float);

template <class T>
T batch_normalization_training_element(T x, const mpq_class& mean, const mpq_class& variance, T scale, T bias,
                                       const T* fused_add, float epsilon,
                                       const std::optional<DML_FUSED_ACTIVATION>& activation) {
    const Root root = root_of(add(Ext{Ext::Finite, variance}, ext_float(epsilon)));
    return bn_training_value(x, Ext{Ext::Finite, mean}, root, scale, bias, fused_add, activation);
}
template float batch_normalization_training_element(float, const mpq_class&, const mpq_class&, float, float,
                                                    const float*, float, const std::optional<DML_FUSED_ACTIVATION>&);
template half batch_normalization_training_element(half, const mpq_class&, const mpq_class&, half, half, const half*,
                                                   float, const std::optional<DML_FUSED_ACTIVATION>&);

void validate(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},       {"MeanTensor", d.MeanTensor},
                                              {"VarianceTensor", d.VarianceTensor}, {"ScaleTensor", d.ScaleTensor},
                                              {"BiasTensor", d.BiasTensor},         {"OutputTensor", d.OutputTensor}};
    require_same_data_type(diags, all, "bn.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, "bn.same-sizes");
    if (same_dimension_count(diags, all, "bn"))
        for (const Named& s : {Named{"MeanTensor", d.MeanTensor}, Named{"VarianceTensor", d.VarianceTensor},
                               Named{"ScaleTensor", d.ScaleTensor}, Named{"BiasTensor", d.BiasTensor}})
            broadcasts(diags, s, d.InputTensor, "bn");
    if (d.Spatial > 1)
        diags.error(desc_path("Spatial"), "bn.spatial",
                    "Spatial is " + std::to_string(d.Spatial) + "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
    epsilon_finite(diags, d.Epsilon, "bn");
    validate_activation(diags, d.FusedActivation, "bn");
}

template <class D> static void validate_bn_grad(const D& d, Diagnostics& diags, std::string_view op) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},
                                              {"InputGradientTensor", d.InputGradientTensor},
                                              {"MeanTensor", d.MeanTensor},
                                              {"VarianceTensor", d.VarianceTensor},
                                              {"ScaleTensor", d.ScaleTensor},
                                              {"OutputGradientTensor", d.OutputGradientTensor},
                                              {"OutputScaleGradientTensor", d.OutputScaleGradientTensor},
                                              {"OutputBiasGradientTensor", d.OutputBiasGradientTensor}};
    require_same_data_type(diags, all, rule(op, "same-data-type"));
    require_same_sizes(diags,
                       {{"InputTensor", d.InputTensor},
                        {"InputGradientTensor", d.InputGradientTensor},
                        {"OutputGradientTensor", d.OutputGradientTensor}},
                       rule(op, "same-sizes"));
    require_same_sizes(diags,
                       {{"MeanTensor", d.MeanTensor},
                        {"VarianceTensor", d.VarianceTensor},
                        {"ScaleTensor", d.ScaleTensor},
                        {"OutputScaleGradientTensor", d.OutputScaleGradientTensor},
                        {"OutputBiasGradientTensor", d.OutputBiasGradientTensor}},
                       rule(op, "statistics-same-sizes"));
    if (same_dimension_count(diags, all, op)) broadcasts(diags, {"MeanTensor", d.MeanTensor}, d.InputTensor, op);
    epsilon_finite(diags, d.Epsilon, op);
}

void validate(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_bn_grad(d, diags, "bn-grad");
}
void validate(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_bn_grad(d, diags, "bn-training-grad");
}

void validate(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, Diagnostics& diags) {
    const TensorDesc& fa = d.FusedAddTensor ? *d.FusedAddTensor : d.InputTensor;
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},
                                              {"ScaleTensor", d.ScaleTensor},
                                              {"BiasTensor", d.BiasTensor},
                                              {"FusedAddTensor", fa},
                                              {"OutputTensor", d.OutputTensor},
                                              {"OutputMeanTensor", d.OutputMeanTensor},
                                              {"OutputVarianceTensor", d.OutputVarianceTensor}};
    require_same_data_type(diags, all, "bn-training.same-data-type");
    require_same_sizes(diags,
                       {{"InputTensor", d.InputTensor}, {"FusedAddTensor", fa}, {"OutputTensor", d.OutputTensor}},
                       "bn-training.same-sizes");
    require_same_sizes(diags,
                       {{"ScaleTensor", d.ScaleTensor},
                        {"BiasTensor", d.BiasTensor},
                        {"OutputMeanTensor", d.OutputMeanTensor},
                        {"OutputVarianceTensor", d.OutputVarianceTensor}},
                       "bn-training.statistics-same-sizes");
    if (same_dimension_count(diags, all, "bn-training"))
        broadcasts(diags, {"ScaleTensor", d.ScaleTensor}, d.InputTensor, "bn-training");
    epsilon_finite(diags, d.Epsilon, "bn-training");
    validate_activation(diags, d.FusedActivation, "bn-training");
}

void evaluate(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) { bn(d, b); }
void evaluate(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b) { bn_grad(d, b, false); }
void evaluate(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, const Bindings& b) { bn_training(d, b); }
void evaluate(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d, const Bindings& b) { bn_grad(d, b, true); }

// Per output (docs/tolerance.md, "Batch normalization").
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_OPERATOR_DESC& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return std::nullopt;
    return stated(d.InputTensor.DataType, "X - Mean, Scale, the root, + Bias, the activation");
}

template <class D>
static std::optional<Tolerance> bn_grad_tolerance(const D& d, std::string_view output, bool training) {
    if (output == "OutputBiasGradientTensor") return stated(d.InputTensor.DataType, "the sum of |dY|");
    if (output == "OutputScaleGradientTensor")
        return stated(d.InputTensor.DataType, "the sum of |dY (X - Mean)|, the root");
    if (output != "OutputGradientTensor") return std::nullopt;
    if (!training) return stated(d.InputTensor.DataType, "dY, Scale, the root");
    return stated(d.InputTensor.DataType, "dY, the means of dY and dY (X - Mean), the root, Scale");
}

std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC& d, std::string_view output) {
    return valid(d, validate) ? bn_grad_tolerance(d, output, false) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC& d,
                                   std::string_view output) {
    return valid(d, validate) ? bn_grad_tolerance(d, output, true) : std::nullopt;
}

std::optional<Tolerance> tolerance(const DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC& d, std::string_view output) {
    if (!valid(d, validate)) return std::nullopt;
    const DataType t = d.InputTensor.DataType;
    if (output == "OutputMeanTensor") return stated(t, "the sum of |X| over the batch, / n");
    if (output == "OutputVarianceTensor") return stated(t, "the sum of (|X - mean| + its error)^2, / n");
    if (output != "OutputTensor") return std::nullopt;
    return stated(t, "the batch statistics, X - mean, Scale, the root, + Bias + FusedAdd, the activation");
}

}  // namespace dmlref::reference
