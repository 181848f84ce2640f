// The MAX_POOLING family's record (reference/kit/family.hpp): the facts of
// DML_MAX_POOLING_OPERATOR_DESC, MAX_POOLING1, MAX_POOLING2 and MAX_POOLING_GRAD from their pages,
// how their outputs are judged (the grad's sums by their terms, argmax ties apart), coverage,
// gen and the work estimate (the window geometry of reference/pooling_geometry.hpp).
#include "max_pooling.hpp"

#include "kit/policies.hpp"

#include "dmlref/checked.hpp"
#include "pooling_geometry.hpp"

namespace dmlref::reference {

namespace rec_max_pooling {

using namespace kit;
using MP = DML_MAX_POOLING_OPERATOR_DESC;
using MP1 = DML_MAX_POOLING1_OPERATOR_DESC;
using MP2 = DML_MAX_POOLING2_OPERATOR_DESC;
using GRAD = DML_MAX_POOLING_GRAD_OPERATOR_DESC;

constexpr Policy kArgmaxTies{"ArgmaxTies", "LowestLogicalIndex"};
constexpr Policy kArgmaxNaN{"ArgmaxNaN", "NaNLosesToAnyNumber"};
constexpr Policy kPadding{"Padding", "NeverACandidate"};
constexpr Policy kPoolingIndices{"Indices", "FlatLogicalIndex"};
constexpr Policy kFloatSum{"FloatSum", "ExactThenRoundOnce"};
constexpr Policy kIntegerSum{"IntegerSum", "WrapToWidth"};

PoolingView view(const MP& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, nullptr};
}
PoolingView view(const MP1& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, nullptr};
}
PoolingView view(const MP2& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, &d.Dilations};
}
PoolingView view(const GRAD& d) {
    return {&d.InputTensor,  &d.InputGradientTensor, &d.Strides,  &d.WindowSize,
            &d.StartPadding, &d.EndPadding,          &d.Dilations};
}

// ---- Judging ----------------------------------------------------------------------------------

std::vector<BoundaryElement> argmax_ties(const Case& c, std::string_view) {
    std::vector<BoundaryElement> out;
    if (c.inputs.count("InputTensor"))
        for (uint64_t i : max_pooling_argmax_ties(c.op, c.inputs.at("InputTensor"))) out.push_back({i, "ArgmaxTie"});
    return out;
}

std::vector<uint32_t> grad_term_counts(const Case& c, std::string_view) {
    if (!c.inputs.count("InputTensor")) return {};
    return max_pooling_grad_term_counts(get<GRAD>(c.op.Desc), c.inputs.at("InputTensor"));
}

void grad_terms(const Case& c, std::string_view, const ArithmeticProfile&, TermSink& sink) {
    auto input = [&](const char* field) -> std::span<const std::byte> {
        auto it = c.inputs.find(field);
        if (it == c.inputs.end()) throw std::invalid_argument(std::string("no ") + field);
        return it->second;
    };
    max_pooling_grad_terms(get<GRAD>(c.op.Desc), input("InputTensor"), input("InputGradientTensor"), sink);
}

// ---- Coverage, gen and the work estimate ------------------------------------------------------

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    pooling_window_features(view(d), f);
    // A window of padding only: a DontCare entry of the forward operator; the grad's forward
    // windows send nothing there.
    const bool empty = pooling_empty_windows(view(d)) > 0;
    if (empty) f.push_back("all-padding-window");
    if constexpr (std::is_same_v<D, MP1> || std::is_same_v<D, MP2>) {
        if (!d.OutputIndicesTensor) f.push_back("no-indices");
        else f.push_back(d.OutputIndicesTensor->DataType == DataType::UINT64 ? "indices-uint64" : "indices-uint32");
    }
}

template <class D> uint64_t taps(const OperatorDesc& d) { return pooling_window_taps(view(get<D>(d))); }

// One DontCare entry per empty window and output (the indices have their own list).
template <class D> uint64_t empty_entries(const OperatorDesc& desc) {
    const D& d = get<D>(desc);
    uint64_t per = 1;
    if constexpr (std::is_same_v<D, MP1> || std::is_same_v<D, MP2>) per = d.OutputIndicesTensor ? 2 : 1;
    return saturating_mul(pooling_empty_windows(view(d)), per);
}

template <class D> std::vector<uint64_t> windows(const Operator& op, const TensorDesc& in, int where) {
    return pooling_window_positions(view(get<D>(op.Desc)), in, where);
}

template <class D> OperatorRecord pooling_record(OperatorInfo info) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.explain = explain_max_pooling;
    r.fast = fast_as<D, max_pooling_fast>;
    r.case_boundary = argmax_ties;
    r.MinRank = 3;
    r.features = {"padding", "stride>1", "overlapping-windows", "ceil-size", "all-padding-window"};
    if constexpr (std::is_same_v<D, MP2> || std::is_same_v<D, GRAD>) r.features.push_back("dilation>1");
    if constexpr (std::is_same_v<D, MP1> || std::is_same_v<D, MP2>)
        r.features.insert(r.features.end(), {"indices-uint32", "indices-uint64", "no-indices"});
    r.detect = detect<D>;
    r.work_factor = taps<D>;
    if constexpr (!std::is_same_v<D, GRAD>) {
        r.dont_care = dont_care_as<D, dont_care>;
        r.dont_care_entries = empty_entries<D>;
    }
    r.ArraysFrom = 2;
    r.sizes = pooling_sizes;
    r.windows = windows<D>;
    return r;
}

const std::vector<std::string_view> kValues = {"InputTensor", "OutputTensor"};
const std::vector<std::string_view> kIndices = {"OutputIndicesTensor"};

OperatorRecord max_pooling() {
    auto r = pooling_record<MP>({
        .IntroducedIn = 0x1000,
        .Support = {{0x1000, {}, 4, 5, kF32F16}, {0x3000, {}, 4, 5, kF32F16I8U8}, {0x5000, {}, 4, 5, kTenTypes}},
        .Policies = {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kOutputSizes, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits, BoundaryRule::ArgmaxTie}};
    return r;
}

template <class D> OperatorRecord max_pooling_with_indices(uint32_t level) {
    auto r = pooling_record<D>({
        .IntroducedIn = level,
        .Support = {{level, kValues, 4, 5, kF32F16},
                    {level, kIndices, 4, 5, kU32},
                    {0x3000, kValues, 4, 5, kF32F16I8U8},
                    {0x5000, kValues, 4, 5, kTenTypes},
                    {0x5000, kIndices, 4, 5, kU32U64}},
        .Policies = {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kPoolingIndices, kOutputSizes, kSubnormals},
    });
    r.outputs = {{"OutputTensor", TypeClass::Any, ToleranceRule::Bits, BoundaryRule::ArgmaxTie},
                 {"OutputIndicesTensor", TypeClass::Any, ToleranceRule::Bits, BoundaryRule::ArgmaxTie}};
    return r;
}

OperatorRecord max_pooling_grad() {
    auto r = pooling_record<GRAD>({
        .IntroducedIn = 0x3000,
        .Support = {{0x3000, {}, 4, 4, kF32F16}, {0x4000, {}, 4, 5, kF32F16}},
        .Policies = {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kOutputSizes, kFloatSum, kIntegerSum,
                     kNonFiniteSum, kSelectedZero, kSubnormals},
    });
    // Overlapping windows add their gradients: float sums are exact, rounded once, judged by each
    // element's own terms; integer sums wrap exactly (docs/golden.md, Decisions).
    r.outputs = {{"OutputGradientTensor", TypeClass::Float, ToleranceRule::Summed, BoundaryRule::ArgmaxTie, nullptr,
                  grad_terms, nullptr, grad_term_counts},
                 {"OutputGradientTensor", TypeClass::Integer, ToleranceRule::Bits, BoundaryRule::ArgmaxTie}};
    return r;
}

}  // namespace rec_max_pooling

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& max_pooling_family() {
    using namespace reference::rec_max_pooling;
    static const FamilyRecord f{
        "max_pooling",
        {max_pooling(), max_pooling_with_indices<DML_MAX_POOLING1_OPERATOR_DESC>(0x2000),
         max_pooling_with_indices<DML_MAX_POOLING2_OPERATOR_DESC>(0x2100), max_pooling_grad()},
        // docs/golden.md, "Alternative readings".
        {{.Policy = "ArgmaxNaN",
          .Value = "NaNWins",
          .Meaning =
              "a NaN beats any number and any earlier NaN (`x > best || isnan(x)`): the last NaN of the window is the argmax",
          .Who = "PyTorch max_pool2d/3d (CPU and CUDA kernels), max_pool*_with_indices and their backward",
          // ROI_POOLING's bins take MAX_POOLING's rule (reference/roi_pooling.cpp).
          .Operators = {OperatorType::MAX_POOLING, OperatorType::MAX_POOLING1, OperatorType::MAX_POOLING2,
                        OperatorType::MAX_POOLING_GRAD, OperatorType::ROI_POOLING}}}};
    return f;
}
}  // namespace dmlref::kit
