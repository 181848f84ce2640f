// The ELEMENT_WISE_CLIP family's record (reference/kit/family.hpp): the facts of
// DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, CLIP1, CLIP_GRAD and CLIP_GRAD1 from their pages, how their
// outputs are judged, gen's min-max values, coverage, and the fast paths chosen before the plain
// loops of element_wise_clip.cpp.
#include "element_wise_clip.hpp"

#include "fast/clip.hpp"
#include "kit/policies.hpp"

#include "dmlref/values.hpp"

#include <cmath>

namespace dmlref::reference {

namespace rec_element_wise_clip {

using namespace kit;
using CLIP = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC;
using CLIP1 = DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC;
using GRAD = DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC;
using GRAD1 = DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC;

const std::vector<DT> kClipTypes21 = kEightTypes;
constexpr Policy kSignedZeroMinMax{"SignedZeroMinMax", "NegativeZeroBelowPositiveZero"};
constexpr Policy kFloat16ScalarUnion{"Float16ScalarUnion", "UInt16Bits"};
constexpr Policy kClipFloatBound{"ClipFloatBoundCompare", "ExactValues"};
constexpr Policy kClipBoundStore{"ClipBoundStore", "RoundNearestEvenSaturate"};
constexpr Policy kClipGradBounds{"ClipGradBounds", "ZeroAtBounds"};
constexpr Policy kScaleBias{"ScaleBiasArithmetic", "Float32UnfusedFloat64ForFloat64"};

// ---- Fast paths (reference/fast/clip.hpp), tried before the plain loops ----------------------

bool clip1_fast(const CLIP1& d, const Bindings& b) {
    if (d.ScaleBias) return false;
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    return dispatch(d.InputTensor.DataType,
                    [&]<class T>() { return fast::clip1_elements<T>(X, Y, d.Min.as<T>(), d.Max.as<T>()); });
}

bool clip_grad1_fast(const GRAD1& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    if (d.InputTensor.DataType == DataType::FLOAT16)
        return fast::clip_grad1_half(X, dY, dX, d.Min.as<half>(), d.Max.as<half>());
    if (d.InputTensor.DataType == DataType::FLOAT32)
        return fast::clip_grad1_floats(X, dY, dX, d.Min.as<float>(), d.Max.as<float>());
    return false;
}

// ---- Judging ---------------------------------------------------------------------------------

template <class D> bool scale_bias(const OperatorDesc& d) { return get<D>(d).ScaleBias.has_value(); }

// ClipGradAtMinOrMax: InputTensor elements equal to Min or Max (x <= Min against x < Min).
template <class D> std::vector<BoundaryElement> clip_grad_boundary(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    const D& g = get<D>(c.op.Desc);
    auto in = c.inputs.find("InputTensor");
    if (in == c.inputs.end() || !is_valid(g.InputTensor.DataType)) return out;
    dispatch(g.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(g.InputTensor, in->second);
        auto on_bound = [](T v, auto bound) { return exact_compare(v, bound) == std::partial_ordering::equivalent; };
        for (size_t i = 0; i < x.size(); ++i) {
            bool hit;
            if constexpr (std::is_same_v<D, GRAD>) hit = on_bound(x[i], g.Min) || on_bound(x[i], g.Max);
            else hit = on_bound(x[i], g.Min.template as<T>()) || on_bound(x[i], g.Max.template as<T>());
            if (hit) out.push_back({i, "ClipGradAtMinOrMax"});
        }
    });
    return out;
}

// ---- Coverage and gen --------------------------------------------------------------------------

// The bounds as values of the tensor's type, for "min>max" and gen's min-max recipe.
double bound_value(const CLIP& d, bool max) { return max ? double(d.Max) : double(d.Min); }
double bound_value(const GRAD& d, bool max) { return max ? double(d.Max) : double(d.Min); }
template <class D> double bound_value(const D& d, bool max) {  // CLIP1, CLIP_GRAD1: the scalar union in MinMaxDataType
    const DML_SCALAR_UNION& u = max ? d.Max : d.Min;
    if (!is_valid(d.MinMaxDataType)) return 0;
    return dispatch(d.MinMaxDataType, [&]<class T>() -> double {
        return double(widen(from_bits<T>(bits_t<T>(u.template as<uint64_t>()))));
    });
}

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    if constexpr (std::is_same_v<D, CLIP> || std::is_same_v<D, CLIP1>)
        if (d.ScaleBias) f.push_back("scale-bias");
    if (bound_value(d, false) > bound_value(d, true)) f.push_back("min>max");
}

// The bits of v rounded to nearest-even in t (a float type).
uint64_t float_bits(DataType t, double v) {
    return dispatch(t, [&]<class T>() -> uint64_t {
        if constexpr (is_floating_v<T>) return uint64_t(to_bits(round_to_float<T>(v)));
        else return 0;
    });
}

// The Min and Max a clip desc compares against, as values of the tensor's type (bits).
template <class D> bool float_bounds(const Operator& op, DataType t, uint64_t& lo, uint64_t& hi) {
    const D& d = get<D>(op.Desc);
    if (is_float(t)) {
        lo = float_bits(t, double(d.Min));
        hi = float_bits(t, double(d.Max));
    } else {
        auto to_int = [&](double v) {
            return dispatch(t, [&]<class T>() -> uint64_t {
                if constexpr (std::is_integral_v<T>) return uint64_t(to_bits(round_to_integer_saturate<T>(v)));
                else return 0;
            });
        };
        lo = to_int(std::ceil(double(d.Min)));
        hi = to_int(std::floor(double(d.Max)));
    }
    return true;
}

template <class D> bool union_bounds(const Operator& op, DataType t, uint64_t& lo, uint64_t& hi) {
    const D& d = get<D>(op.Desc);
    if (d.MinMaxDataType != t) return false;
    const uint64_t mask = element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (element_size(t) * 8)) - 1;
    lo = d.Min.template as<uint64_t>() & mask;
    hi = d.Max.template as<uint64_t>() & mask;
    return true;
}

template <class D> OperatorRecord clip_record(OperatorInfo info) {
    constexpr bool grad = std::is_same_v<D, GRAD> || std::is_same_v<D, GRAD1>;
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    if constexpr (grad) {
        r.outputs = {{"OutputGradientTensor", TypeClass::Any, ToleranceRule::Bits, BoundaryRule::ClipGradAtMinOrMax}};
        r.case_boundary = clip_grad_boundary<D>;
    } else {
        r.outputs = {{"OutputTensor", TypeClass::Float, ToleranceRule::Ulp1WithScaleBias},
                     {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
        r.has_scale_bias = scale_bias<D>;
    }
    r.explain = explain_clip;
    r.features = grad ? std::vector<std::string_view>{"min>max"}
                      : std::vector<std::string_view>{"scale-bias", "min>max"};
    r.detect = detect<D>;
    return r;
}

OperatorRecord clip() {
    auto r = clip_record<CLIP>({.IntroducedIn = 0x1000,
                                .InPlace = {{"OutputTensor", "InputTensor"}},
                                .Support = {{0x1000, {}, 4, 4, kF32F16},
                                            {0x2100, {}, 4, 4, kClipTypes21},
                                            {0x3000, {}, 1, 8, kClipTypes21},
                                            {0x5000, {}, 1, 8, kTenTypes}},
                                .Policies = {kForwardNaN, kSignedZeroMinMax, kMinGreaterThanMax, kClipFloatBound,
                                             kClipBoundStore, kScaleBias, kSubnormals}});
    r.min_max = float_bounds<CLIP>;
    return r;
}

OperatorRecord clip_grad() {
    auto r = clip_record<GRAD>(
        {.IntroducedIn = 0x3100,
         .InPlace = {{"OutputGradientTensor", "InputTensor"}},
         .Support = {{0x3100, {}, 1, 8, kClipTypes21}, {0x5000, {}, 1, 8, kTenTypes}},
         .Policies = {kGradNaN, kSelectedZero, kMinGreaterThanMax, kClipFloatBound, kClipGradBounds, kSubnormals}});
    r.min_max = float_bounds<GRAD>;
    return r;
}

OperatorRecord clip1() {
    auto r = clip_record<CLIP1>({.IntroducedIn = 0x5000,
                                 .InPlace = {{"OutputTensor", "InputTensor"}},
                                 .Support = {{0x5000, {}, 1, 8, kTenTypes}},
                                 .Policies = {kForwardNaN, kSignedZeroMinMax, kMinGreaterThanMax, kFloat16ScalarUnion,
                                              kScaleBias, kSubnormals}});
    r.fast = fast_as<CLIP1, clip1_fast>;
    r.min_max = union_bounds<CLIP1>;
    return r;
}

OperatorRecord clip_grad1() {
    auto r = clip_record<GRAD1>(
        {.IntroducedIn = 0x5000,
         .InPlace = {{"OutputGradientTensor", "InputTensor"}},
         .Support = {{0x5000, {}, 1, 8, kTenTypes}},
         .Policies = {kGradNaN, kSelectedZero, kMinGreaterThanMax, kFloat16ScalarUnion, kClipGradBounds, kSubnormals}});
    r.fast = fast_as<GRAD1, clip_grad1_fast>;
    r.min_max = union_bounds<GRAD1>;
    return r;
}

}  // namespace rec_element_wise_clip

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& element_wise_clip_family() {
    using namespace reference::rec_element_wise_clip;
    static const FamilyRecord f{
        "element_wise_clip",
        {clip(), clip_grad(), clip1(), clip_grad1()},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "GradNaN",
          .Value = "ZeroGradient",
          .Meaning = "CLIP_GRAD computes (Min <= x && x <= Max) ? dY : 0, so a NaN x gives +0",
          .Who = "PyTorch clamp_backward and hardtanh_backward",
          .Operators = {OperatorType::ELEMENT_WISE_CLIP_GRAD, OperatorType::ELEMENT_WISE_CLIP_GRAD1}},
         {.Policy = "ClipGradBounds",
          .Value = "GradientAtBounds",
          .Meaning = "dY passes where x equals Min or Max (the bounds are inside the pass-through range)",
          .Who = "PyTorch clamp_backward (where(x >= min & x <= max, dY, 0))",
          .Operators = {OperatorType::ELEMENT_WISE_CLIP_GRAD, OperatorType::ELEMENT_WISE_CLIP_GRAD1}},
         {.Policy = "ClipGradBounds",
          .Value = "HalfAtBounds",
          .Meaning =
              "where x equals Min or Max the gradient is dY / 2 (dY / 4 where x == Min == Max): the derivative of "
              "min(max(x, Min), Max) with max and min splitting a tie evenly; in the data type, rounded to nearest even "
              "(integers: toward zero)",
          .Who = "JAX jnp.clip (lax.max/lax.min JVP gives 0.5 on a tie)",
          .Operators = {OperatorType::ELEMENT_WISE_CLIP_GRAD, OperatorType::ELEMENT_WISE_CLIP_GRAD1}},
         {.Policy = "SelectedZero",
          .Value = "MaskProduct",
          .Meaning =
              "the gradient is dY multiplied by a 0/1 mask: a masked element is dY * 0, so -0 or a negative dY gives -0 and a "
              "NaN or infinite dY gives NaN (dY's NaN quieted, else the canonical NaN); integers are unchanged",
          .Who = "JAX relu (jax.nn.relu's JVP g * (x > 0)), frameworks that build a grad as dY * mask",
          // RELU_GRAD's loop (reference/activation_relu.cpp) follows it too.
          .Operators = {OperatorType::ACTIVATION_RELU_GRAD, OperatorType::ELEMENT_WISE_CLIP_GRAD,
                        OperatorType::ELEMENT_WISE_CLIP_GRAD1}}}};
    return f;
}
}  // namespace dmlref::kit
