// The CONVOLUTION family's record (reference/kit/family.hpp): the facts of
// DML_CONVOLUTION_OPERATOR_DESC and DML_CONVOLUTION_INTEGER_OPERATOR_DESC from their pages, how
// their outputs are judged (each float element by its own products and bias; integers bit for
// bit), coverage, gen's derived sizes and the work estimate.
#include "convolution.hpp"

#include "fast/convolution_f64.hpp"
#include "fused_activation.hpp"
#include "kit/policies.hpp"

#include "dmlref/checked.hpp"

#include <nlohmann/json.hpp>

namespace dmlref::reference {

namespace rec_convolution {

using namespace kit;
using CONV = DML_CONVOLUTION_OPERATOR_DESC;
using CONVI = DML_CONVOLUTION_INTEGER_OPERATOR_DESC;

// The policies (docs/golden.md, "Convolution").
constexpr Policy kConvolutionSum{"ConvolutionSum", "ExactThenRoundOnce"};
constexpr Policy kKernelFlip{"KernelFlip", "ConvolutionModeReversesEverySpatialDimension"};
constexpr Policy kBackwardDirection{"BackwardDirection", "AdjointOfForward"};
constexpr Policy kOutputPadding{"OutputPadding", "TransposedFormula"};
constexpr Policy kConvolutionOutputSizes{"ConvolutionOutputSizes", "Floor"};
constexpr Policy kPadding{"ConvolutionPadding", "NoTerm"};
constexpr Policy kFusedActivationInput{"FusedActivationInput", "RoundedSum"};
constexpr Policy kIntegerPadding{"IntegerPadding", "InputZeroPoint"};
constexpr Policy kIntegerOverflow{"IntegerOverflow", "WrapToWidth"};

// ---- Judging ----------------------------------------------------------------------------------

std::optional<Tolerance> convolution_tolerance(const OperatorDesc& desc, std::string_view) {
    const CONV& d = get<CONV>(desc);
    Diagnostics diags;
    validate(d, diags);
    if (diags.has_errors()) return std::nullopt;
    const ConvolutionGeometry g = convolution_geometry(d);
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = uint32_t(std::min<uint64_t>(g.max_terms() + (d.BiasTensor ? 1 : 0), UINT32_MAX));
    t.Why =
        d.FusedActivation
            ? "FusedActivation(Bias + the sum of the products): the exact sum rounded once, then the activation of it rounded once; "
              "dmlref diff bounds each element by its own products' sum in the profile's precision carried through the activation "
              "(docs/tolerance.md, Convolution); a NaN matches any NaN"
            : "Bias + the sum of the products, exact and rounded once: dmlref diff bounds each element from its own products (each "
              "rounded by a backend that forms it in the output precision) and the bias, summed in any order in the profile's "
              "precision (docs/tolerance.md, Convolution); a NaN matches any NaN";
    return t;
}

// ---- Coverage, gen and the work estimate ------------------------------------------------------

struct View {
    const TensorDesc& input;
    const TensorDesc& filter;
    const std::vector<uint32_t>& Strides;
    const std::vector<uint32_t>& Dilations;
    const std::vector<uint32_t>& StartPadding;
    const std::vector<uint32_t>& EndPadding;
    uint32_t GroupCount;
};

void geometry_features(const View& v, bool backward, std::vector<std::string>& f) {
    bool one = true, stride = false, dil = false, pad = false, asym = false;
    for (size_t i = 2; i < v.filter.Sizes.size(); ++i) one = one && v.filter.Sizes[i] == 1;
    for (size_t i = 0; i < v.Strides.size(); ++i) stride = stride || v.Strides[i] > 1;
    for (size_t i = 0; i < v.Dilations.size(); ++i) dil = dil || v.Dilations[i] > 1;
    for (size_t i = 0; i < v.StartPadding.size() && i < v.EndPadding.size(); ++i) {
        pad = pad || v.StartPadding[i] || v.EndPadding[i];
        asym = asym || v.StartPadding[i] != v.EndPadding[i];
    }
    if (one) f.push_back("1x1");
    if (stride) f.push_back("stride>1");
    if (dil) f.push_back("dilation>1");
    if (pad) f.push_back("padding");
    if (asym) f.push_back("asymmetric-padding");
    const uint64_t channels = v.input.Sizes.size() > 1 ? v.input.Sizes[1] : 0;
    if (v.GroupCount > 1) f.push_back(!backward && v.GroupCount == channels ? "depthwise" : "grouped");
    f.push_back("spatial-" + std::to_string(v.input.Sizes.size() >= 2 ? v.input.Sizes.size() - 2 : 0) + "d");
}

void detect_convolution(const Case& c, std::vector<std::string>& f) {
    const CONV& d = get<CONV>(c.op.Desc);
    const bool backward = d.Direction == kConvolutionDirectionBackward;
    geometry_features(
        {d.InputTensor, d.FilterTensor, d.Strides, d.Dilations, d.StartPadding, d.EndPadding, d.GroupCount}, backward,
        f);
    if (backward) f.push_back("transposed");
    for (uint32_t p : d.OutputPadding)
        if (p) {
            f.push_back("output-padding");
            break;
        }
    if (d.Mode == kConvolutionModeConvolution) f.push_back("mode-convolution");
    if (d.BiasTensor) f.push_back("bias");
    if (d.FusedActivation) f.push_back("fused-activation");
}

void detect_integer(const Case& c, std::vector<std::string>& f) {
    const CONVI& d = get<CONVI>(c.op.Desc);
    geometry_features(
        {d.InputTensor, d.FilterTensor, d.Strides, d.Dilations, d.StartPadding, d.EndPadding, d.GroupCount}, false, f);
    if (d.InputZeroPointTensor) f.push_back("input-zero-point");
    if (d.FilterZeroPointTensor)
        f.push_back(element_count(*d.FilterZeroPointTensor) > 1 ? "per-channel-zero-point" : "filter-zero-point");
}

template <class D> uint64_t taps(const OperatorDesc& desc) {
    const D& d = get<D>(desc);
    if (d.FilterTensor.Sizes.size() < 2) return 1;
    uint64_t k =
        d.FilterTensor.Sizes[1];  // products per element at most: FilterChannelCount (forward) times the kernel
    if constexpr (std::is_same_v<D, CONV>)
        if (d.Direction == kConvolutionDirectionBackward && d.GroupCount > 0 && d.InputTensor.Sizes.size() > 1)
            k = d.InputTensor.Sizes[1] / d.GroupCount;
    for (size_t i = 2; i < d.FilterTensor.Sizes.size(); ++i) k = saturating_mul(k, d.FilterTensor.Sizes[i]);
    return k;
}

// gen's "auto" sizes (docs/gen.md): OutputTensor {N, M, out...} from InputTensor, FilterTensor
// (its sizes given) and the arrays; BiasTensor {1, M, 1, ...}.
bool convolution_sizes(const SizeRequest& q, std::vector<uint64_t>& out, std::string& error_path, std::string& error) {
    if (q.tensor != "OutputTensor" && q.tensor != "BiasTensor") return true;
    const size_t rank = q.base_sizes.size();
    const size_t count = rank >= 2 ? rank - 2 : 0;
    const auto& filter = q.desc.contains("FilterTensor") ? q.desc["FilterTensor"] : nlohmann::ordered_json();
    std::optional<std::vector<uint64_t>> fs;
    if (filter.is_object() && filter.contains("Sizes") && filter["Sizes"].is_array())
        fs = json_uints(filter, "Sizes", rank, 1, error);
    if (!fs) {
        error_path = "/desc/FilterTensor/Sizes";
        error = "FilterTensor needs " + std::to_string(rank) + " sizes given to derive " + std::string(q.tensor) + "'s";
        return false;
    }
    bool backward = false;
    if (q.desc.contains("Direction")) {
        const auto& v = q.desc["Direction"];
        backward = (v.is_string() && v.get<std::string>().find("BACKWARD") != std::string::npos) ||
                   (v.is_number_unsigned() && v.get<uint64_t>() == 1);
    }
    uint64_t groups = 1;
    if (q.desc.contains("GroupCount") && q.desc["GroupCount"].is_number_unsigned())
        groups = q.desc["GroupCount"].get<uint64_t>();
    const uint64_t M = backward ? (*fs)[1] * groups : (*fs)[0];
    if (q.tensor == "BiasTensor") {
        out.assign(rank, 1);
        if (rank > 1) out[1] = M;
        return true;
    }
    std::vector<uint64_t> a[5];
    const char* names[5] = {"Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding"};
    const uint64_t fallback[5] = {1, 1, 0, 0, 0};
    for (int k = 0; k < 5; ++k) {
        auto v = json_uints(q.desc, names[k], count, fallback[k], error);
        if (!v) {
            error_path = std::string("/desc/") + names[k];
            return false;
        }
        a[k] = *v;
    }
    out[1] = M;
    for (size_t i = 0; i < count; ++i) {
        const int64_t in = int64_t(q.base_sizes[i + 2]), extent = 1 + (int64_t((*fs)[i + 2]) - 1) * int64_t(a[1][i]);
        const int64_t sp = int64_t(a[2][i]), ep = int64_t(a[3][i]), s = std::max<int64_t>(1, int64_t(a[0][i]));
        const int64_t size = backward ? (in - 1) * s + extent + int64_t(a[4][i]) - sp - ep
                                      : (in + sp + ep >= extent ? (in + sp + ep - extent) / s + 1 : 0);
        if (size < 1) {
            error = "no output size: the kernel of dimension " + std::to_string(i + 2) + " does not fit";
            return false;
        }
        out[i + 2] = uint64_t(size);
    }
    return true;
}

// The products of every element in the plain loop are enumerated once more for FastSum's second
// pass only when undecided: the work is the products per element.
template <class D> OperatorRecord convolution_common(OperatorRecord r) {
    r.explain = explain_convolution;
    r.MinRank = 3;
    r.work_factor = taps<D>;
    r.ArraysFrom = 2;
    r.BaseTensors = {"InputTensor"};
    r.sizes = convolution_sizes;
    return r;
}

const std::vector<std::string_view> kFloatTensors = {"InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"};
const std::vector<std::string_view> kIntegerInputs = {"InputTensor", "FilterTensor"};
const std::vector<std::string_view> kZeroPoints = {"InputZeroPointTensor", "FilterZeroPointTensor"};
const std::vector<std::string_view> kOutput = {"OutputTensor"};
const std::vector<DT> kI8U8 = {DT::INT8, DT::UINT8};
const std::vector<DT> kI32 = {DT::INT32};

OperatorRecord convolution() {
    auto r = convolution_common<CONV>(operator_record<CONV, validate, evaluate>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, kFloatTensors, 4, 5, kF32F16}, {0x4000, kFloatTensors, 3, 5, kF32F16}},
        .Policies = {kConvolutionSum, kNonFiniteSum, kKernelFlip, kBackwardDirection, kOutputPadding,
                     kConvolutionOutputSizes, kPadding, kFusedActivationInput, kSubnormals},
    }));
    // Integer data is refused (convolution.float-data); the row keeps every type judged.
    r.outputs = {
        {"OutputTensor", TypeClass::Float, ToleranceRule::OperatorStated, BoundaryRule::None, convolution_bounds},
        {"OutputTensor", TypeClass::Integer, ToleranceRule::Bits}};
    r.desc_tolerance = convolution_tolerance;
    r.fast = fast_as<CONV, fast::convolution_f64>;  // reference/fast/convolution_f64.cpp
    // --max-work: the taps counted cover the sum; the fused activation costs its own (measured;
    // docs/rules.md, limit.work).
    r.rounding_cost = [](const OperatorDesc& d) {
        return 100 + fused_activation_cost(get<DML_CONVOLUTION_OPERATOR_DESC>(d).FusedActivation);
    };
    r.MaxRank = 5;
    r.ScopeTypes = kF32F16;
    r.features = {"1x1",        "stride>1",       "dilation>1",       "padding",    "asymmetric-padding",
                  "depthwise",  "grouped",        "spatial-1d",       "spatial-2d", "spatial-3d",
                  "transposed", "output-padding", "mode-convolution", "bias",       "fused-activation"};
    r.detect = detect_convolution;
    return r;
}

OperatorRecord convolution_integer() {
    auto r = convolution_common<CONVI>(operator_record<CONVI, validate, evaluate>({
        .IntroducedIn = 0x2100,
        .Support = {{0x2100, kIntegerInputs, 4, 4, kI8U8},
                    {0x2100, kZeroPoints, 4, 4, kI8U8},
                    {0x2100, kOutput, 4, 4, kI32},
                    {0x4000, kIntegerInputs, 3, 4, kI8U8},
                    {0x4000, kZeroPoints, 1, 4, kI8U8},
                    {0x4000, kOutput, 3, 4, kI32}},
        .Policies = {kIntegerPadding, kIntegerOverflow, kConvolutionOutputSizes},
    }));
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits}};
    r.MaxRank = 4;
    r.ScopeTypes = kI8U8;
    r.features = {
        "1x1",     "stride>1",   "dilation>1", "padding",          "asymmetric-padding", "depthwise",
        "grouped", "spatial-1d", "spatial-2d", "input-zero-point", "filter-zero-point",  "per-channel-zero-point"};
    r.detect = detect_integer;
    return r;
}

}  // namespace rec_convolution

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& convolution_family() {
    using namespace reference::rec_convolution;
    static const FamilyRecord f{"convolution", {convolution(), convolution_integer()}};
    return f;
}
}  // namespace dmlref::kit
