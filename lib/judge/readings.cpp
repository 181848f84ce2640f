// The alternative readings dmlref evaluates (docs/golden.md, "Alternative readings"), the
// --policy NAME=VALUE syntax, and the readings in force on a thread.
#include "dmlref/readings.hpp"

#include "dmlref/printable.hpp"

#include <algorithm>

namespace dmlref {

namespace detail {
thread_local uint32_t readings_mask = 0;
}

namespace {

using OT = OperatorType;
const std::vector<OT> kMaxPooling = {OT::MAX_POOLING, OT::MAX_POOLING1, OT::MAX_POOLING2, OT::MAX_POOLING_GRAD,
                                     OT::ROI_POOLING};  // ROI_POOLING's bins take MAX_POOLING's rule
const std::vector<OT> kClipGrads = {OT::ELEMENT_WISE_CLIP_GRAD, OT::ELEMENT_WISE_CLIP_GRAD1};
const std::vector<OT> kMaskGrads = {OT::ACTIVATION_RELU_GRAD, OT::ELEMENT_WISE_CLIP_GRAD, OT::ELEMENT_WISE_CLIP_GRAD1};
const std::vector<OT> kResample = {
    OT::RESAMPLE,      OT::RESAMPLE1,      OT::RESAMPLE2,  OT::RESAMPLE3,
    OT::RESAMPLE_GRAD, OT::RESAMPLE_GRAD1, OT::UPSAMPLE_2D};  // UPSAMPLE_2D is evaluated as RESAMPLE
const std::vector<OT> kAtomicGrads = {OT::MAX_POOLING_GRAD, OT::RESAMPLE_GRAD, OT::RESAMPLE_GRAD1};
const std::vector<OT> kForwardMinMax = {OT::ACTIVATION_RELU, OT::ELEMENT_WISE_CLIP, OT::ELEMENT_WISE_CLIP1};

std::vector<Alternative> make_alternatives() {
    return {
        {Reading::ArgmaxNaNWins, "ArgmaxNaN", "NaNWins",
         "a NaN beats any number and any earlier NaN (`x > best || isnan(x)`): the last NaN of the window is the argmax",
         "PyTorch max_pool2d/3d (CPU and CUDA kernels), max_pool*_with_indices and their backward", kMaxPooling},
        {Reading::GradNaNPassesGradient,
         "GradNaN",
         "PassesGradient",
         "RELU_GRAD computes x <= 0 ? 0 : dY, so a NaN x passes dY",
         "PyTorch threshold_backward (relu's gradient)",
         {OT::ACTIVATION_RELU_GRAD}},
        {Reading::GradNaNZeroGradient, "GradNaN", "ZeroGradient",
         "CLIP_GRAD computes (Min <= x && x <= Max) ? dY : 0, so a NaN x gives +0",
         "PyTorch clamp_backward and hardtanh_backward", kClipGrads},
        {Reading::ClipGradGradientAtBounds, "ClipGradBounds", "GradientAtBounds",
         "dY passes where x equals Min or Max (the bounds are inside the pass-through range)",
         "PyTorch clamp_backward (where(x >= min & x <= max, dY, 0))", kClipGrads},
        {Reading::ClipGradHalfAtBounds, "ClipGradBounds", "HalfAtBounds",
         "where x equals Min or Max the gradient is dY / 2 (dY / 4 where x == Min == Max): the derivative of "
         "min(max(x, Min), Max) with max and min splitting a tie evenly; in the data type, rounded to nearest even "
         "(integers: toward zero)",
         "JAX jnp.clip (lax.max/lax.min JVP gives 0.5 on a tie)", kClipGrads},
        {Reading::SelectedZeroMaskProduct, "SelectedZero", "MaskProduct",
         "the gradient is dY multiplied by a 0/1 mask: a masked element is dY * 0, so -0 or a negative dY gives -0 and a "
         "NaN or infinite dY gives NaN (dY's NaN quieted, else the canonical NaN); integers are unchanged",
         "JAX relu (jax.nn.relu's JVP g * (x > 0)), frameworks that build a grad as dY * mask", kMaskGrads},
        {Reading::SelectedZeroScatterAdd,
         "SelectedZero",
         "ScatterAdd",
         "dX starts at +0 and dY is added into it rather than copied: -0 becomes +0 and a signalling NaN is quieted "
         "(payload kept)",
         "scatter-add / index_put_(accumulate=True) based slice backward (PyTorch, XLA scatter)",
         {OT::SLICE_GRAD}},
        {Reading::ZeroWeightTapsMultiplyAll, "ZeroWeightTaps", "MultiplyAll",
         "LINEAR takes both taps of every dimension, also a tap of weight 0, so 0 x inf and 0 x NaN add a NaN",
         "PyTorch upsample_bilinear2d/linear1d/trilinear3d (h0lambda * x0 + h1lambda * x1), JAX image.resize",
         kResample},
        {Reading::SubnormalsFlushAtomicSums, "Subnormals", "FlushAtomicSums",
         "a summed grad flushes subnormal terms and a subnormal result to zero (sign kept), as float atomics do",
         "GPU backends that scatter a grad with atomicAdd on float (flush-to-zero atomics)", kAtomicGrads},
        {Reading::ForwardNaNPropagates, "ForwardNaN", "NaNPropagates",
         "min and max propagate a NaN operand: RELU(NaN) and CLIP(NaN) are that NaN (its bits)",
         "PyTorch relu and clamp, JAX jnp.maximum/jnp.clip, IEEE 754-2019 minimum/maximum", kForwardMinMax},
        {Reading::OldNearestFloorXPlusHalf,
         "OldNearestNeighbor",
         "FloorXPlusHalf",
         "the old nearest-neighbour rule as floor(x + 0.5), x computed with the desc's OutputPixelOffset (no extra -0.5)",
         "TF-DML's legacy nearest resize, ONNX Runtime's old comment, WPT's tie observation",
         {OT::RESAMPLE, OT::RESAMPLE1, OT::RESAMPLE_GRAD, OT::UPSAMPLE_2D}},
        {Reading::BnActivationPositiveZero,
         "BnActivationSignedZero",
         "PositiveZero",
         "a fused activation never gives -0: where the formula selects y itself (LEAKY_RELU's and ELU's y >= 0, "
         "THRESHOLDED_RELU's y > Alpha), a -0 normalized value gives +0",
         "activations written without a branch on y >= 0: PyTorch's elu (x > 0 ? x : Alpha (exp(x) - 1)), a LEAKY_RELU "
         "written as max(0, y) + Alpha min(0, y)",
         {OT::BATCH_NORMALIZATION, OT::BATCH_NORMALIZATION_TRAINING}},
        {Reading::ShiftCountModuloWidth,
         "ShiftCount",
         "ModuloWidth",
         "a shift count is taken modulo the element's width (its low bits only): 1 << 8 is 1 in UINT8, 3 << 255 is 0x80",
         "HLSL's << and >> (the count's low 5 bits for 32-bit values), x86 shift instructions, C compilers' shifts",
         {OT::ELEMENT_WISE_BIT_SHIFT_LEFT, OT::ELEMENT_WISE_BIT_SHIFT_RIGHT}},
        {Reading::SignedShiftArithmetic,
         "SignedShift",
         "Arithmetic",
         "BIT_SHIFT_RIGHT of a signed integer type is arithmetic: the sign bit comes in at the top (INT8 -128 >> 1 is -64; "
         "a count of the width or more gives -1 or 0)",
         "PyTorch bitwise_right_shift and C++'s >> on signed types, numpy right_shift",
         {OT::ELEMENT_WISE_BIT_SHIFT_RIGHT}},
        {Reading::FillSequenceStartPlusIndexTimesDelta,
         "FillSequenceValue",
         "StartPlusIndexTimesDelta",
         "FILL_VALUE_SEQUENCE's element i is ValueStart + i * ValueDelta computed exactly and rounded once to the type, "
         "not the page's running Value += Delta rounded at every step (the readings agree for integers)",
         "kernels that compute each element from its index (a GPU thread per element); PyTorch's and numpy's arange "
         "compute start + i * step per element, in the type's arithmetic (at most two roundings)",
         {OT::FILL_VALUE_SEQUENCE}},
    };
}

// Policies recorded by no operator's registry entry but named by an alternative: none today.
bool recorded_by_some_operator(std::string_view name) {
    for (const auto& o : all_operators())
        for (const auto& p : o.Policies)
            if (p.Name == name) return true;
    return false;
}

}  // namespace

const std::vector<Alternative>& alternatives() {
    static const std::vector<Alternative> a = make_alternatives();
    return a;
}

const Alternative& alternative(Reading r) { return alternatives().at(size_t(r)); }

std::vector<const Alternative*> alternatives_for(OperatorType t) {
    std::vector<const Alternative*> r;
    for (const auto& a : alternatives())
        if (std::find(a.Operators.begin(), a.Operators.end(), t) != a.Operators.end()) r.push_back(&a);
    return r;
}

const Alternative* find_alternative(std::string_view name, std::string_view value) {
    for (const auto& a : alternatives())
        if (a.Policy == name && a.Value == value) return &a;
    return nullptr;
}

const Alternative* alternative_of(OperatorType t, std::string_view name, std::string_view value) {
    const Alternative* a = find_alternative(name, value);
    if (!a || std::find(a->Operators.begin(), a->Operators.end(), t) == a->Operators.end()) return nullptr;
    return a;
}

bool is_policy_name(std::string_view name) {
    if (recorded_by_some_operator(name)) return true;
    return std::any_of(alternatives().begin(), alternatives().end(),
                       [&](const Alternative& a) { return a.Policy == name; });
}

bool is_known_value(std::string_view name, std::string_view value) {
    if (find_alternative(name, value)) return true;
    for (const auto& o : all_operators())
        for (const auto& p : o.Policies)
            if (p.Name == name && p.Value == value) return true;
    return false;
}

namespace {
// The values a policy may take, for messages: "NaNLosesToAnyNumber (default), NaNWins".
std::string known_values(std::string_view name) {
    std::vector<std::string> v;
    for (const auto& o : all_operators())
        for (const auto& p : o.Policies)
            if (p.Name == name && std::find(v.begin(), v.end(), std::string(p.Value) + " (default)") == v.end())
                v.push_back(std::string(p.Value) + " (default)");
    for (const auto& a : alternatives())
        if (a.Policy == name) v.push_back(std::string(a.Value));
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
}
}  // namespace

std::optional<std::pair<std::string, std::string>> parse_policy_option(std::string_view text, Diagnostics& diags,
                                                                       const std::string& path) {
    // What the user gave is echoed up to 64 bytes (dmlref/printable.hpp): an error stays a line.
    auto shown = [](std::string_view s) { return clipped(s, 64); };
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
        diags.error(path, "policy.syntax",
                    "\"" + shown(text) + "\" is not NAME=VALUE (e.g. ArgmaxNaN=NaNWins; docs/golden.md)");
        return std::nullopt;
    }
    const std::string name(text.substr(0, eq)), value(text.substr(eq + 1));
    if (!is_policy_name(name)) {
        diags.error(
            path, "policy.unknown-name",
            "\"" + shown(name) +
                "\" is not a policy of any operator; the policies and their alternatives are in docs/golden.md");
        return std::nullopt;
    }
    if (!is_known_value(name, value)) {
        diags.error(path, "policy.unknown-value",
                    "\"" + shown(value) + "\" is not a reading of " + name + " that dmlref evaluates; it knows " +
                        known_values(name) + " (docs/golden.md)");
        return std::nullopt;
    }
    return std::pair{name, value};
}

std::vector<std::pair<std::string, std::string>> policies_in_force(OperatorType t, const ReadingChoice& choice) {
    std::vector<std::pair<std::string, std::string>> r;
    for (const auto& p : info(t).Policies) {
        std::string value(p.Value);
        if (auto c = choice.find(std::string(p.Name)); c != choice.end() && alternative_of(t, p.Name, c->second))
            value = c->second;
        r.emplace_back(std::string(p.Name), value);
    }
    return r;
}

namespace {
uint32_t mask_of(const ReadingChoice& choice) {
    uint32_t m = 0;
    for (const auto& [name, value] : choice)
        if (const Alternative* a = find_alternative(name, value)) m |= 1u << unsigned(a->Id);
    return m;
}
}  // namespace

ScopedReadings::ScopedReadings(const ReadingChoice& choice) : saved_(detail::readings_mask) {
    detail::readings_mask = mask_of(choice);
}
ScopedReadings::ScopedReadings(Reading r) : saved_(detail::readings_mask) { detail::readings_mask = 1u << unsigned(r); }
ScopedReadings::~ScopedReadings() { detail::readings_mask = saved_; }

}  // namespace dmlref
