// The AVERAGE_POOLING family's record (reference/kit/family.hpp): the facts of
// DML_AVERAGE_POOLING_OPERATOR_DESC, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD from their pages,
// how their computed outputs are bounded, coverage, gen and the work estimate (the window geometry
// of reference/pooling_geometry.hpp).
#include "average_pooling.hpp"

#include "kit/policies.hpp"

#include "dmlref/checked.hpp"
#include "pooling_geometry.hpp"

#include "dmlref/bits.hpp"

namespace dmlref::reference {

namespace rec_average_pooling {

using namespace kit;
using AP = DML_AVERAGE_POOLING_OPERATOR_DESC;
using AP1 = DML_AVERAGE_POOLING1_OPERATOR_DESC;
using GRAD = DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC;

constexpr Policy kIncludePaddingDivisor{"IncludePaddingDivisor", "WindowSizeProduct"};
constexpr Policy kExcludePaddingDivisor{"ExcludePaddingDivisor", "RealElementCount"};

PoolingView view(const AP& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, nullptr};
}
PoolingView view(const AP1& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, &d.Dilations};
}
// The grad's windows are the forward operator's: its input has dX's sizes, its output dY's.
PoolingView view(const GRAD& d) {
    return {&d.OutputGradientTensor, &d.InputGradientTensor, &d.Strides, &d.WindowSize,
            &d.StartPadding,         &d.EndPadding,          nullptr};
}

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    pooling_window_features(view(d), f);
    // A window of padding only: a DontCare entry of the forward operator (0 / 0 only without
    // IncludePadding); the grad's forward windows send nothing there.
    const bool counted = std::is_same_v<D, GRAD> || d.IncludePadding == 0;
    const bool empty = counted && pooling_empty_windows(view(d)) > 0;
    if (empty) f.push_back("all-padding-window");
    f.push_back(d.IncludePadding ? "include-padding" : "exclude-padding");
}

template <class D> uint64_t taps(const OperatorDesc& d) { return pooling_window_taps(view(get<D>(d))); }

// An empty window is 0 / 0 only without IncludePadding: then it is a DontCare entry.
template <class D> uint64_t empty_entries(const OperatorDesc& desc) {
    const D& d = get<D>(desc);
    return d.IncludePadding == 0 ? pooling_empty_windows(view(d)) : 0;
}

template <class D> std::vector<uint64_t> windows(const Operator& op, const TensorDesc& in, int where) {
    return pooling_window_positions(view(get<D>(op.Desc)), in, where);
}

// D(o), the divisor of the forward window of pooled element `o` (its N-d index): the product of
// WindowSize with IncludePadding, else the number of the window's real elements.
template <class D> uint64_t divisor_at(const D& d, const std::vector<uint64_t>& o) {
    if (d.IncludePadding) return pooling_window_taps(view(d));
    const PoolingWindows w = pooling_windows(view(d));
    uint64_t n = 1;
    for (size_t i = 0; i < w.spatial; ++i) {
        const TapRange r = pooling_real_taps(w, i, int64_t(o[i + 2]));
        n *= uint64_t(r.hi - r.lo);
    }
    return n;
}

// The window of an output element (the grad: the dY elements whose windows hold a dX element),
// the divisor the page's IncludePadding chooses, and the terms: each listed element / D.
template <class D> bool explain(const Case& c, std::string_view, uint64_t flat, FamilyExplanation& out) {
    const D& d = get<D>(c.op.Desc);
    constexpr bool grad = std::is_same_v<D, GRAD>;
    explain_pooling_window(c, view(d), grad, flat, "InputTensor", "InputGradientTensor", out);
    std::vector<uint64_t> at;  // the forward's element
    if constexpr (!grad) at = nd_coordinate(d.OutputTensor.Sizes, flat);
    for (const auto& in : out.inputs) {
        const uint64_t D_o = divisor_at(d, grad ? in.index : at);  // the grad: dY's own window
        out.terms.push_back(
            {in.tensor, in.index, element_value(in.type, in.bits), 1.0 / double(D_o), "1/" + std::to_string(D_o)});
    }
    out.facts.emplace_back("formula", grad ? "dX = sum over the windows holding x of dY / divisor"
                                           : "Y = sum of the window's real elements / divisor");
    out.facts.emplace_back("divisor", d.IncludePadding ? "the window's size, padding included (IncludePadding TRUE)"
                                                       : "the window's real elements (IncludePadding FALSE)");
    out.policies.push_back(d.IncludePadding ? "IncludePaddingDivisor" : "ExcludePaddingDivisor");
    out.policies.push_back("ComputedValue");
    return true;
}

template <class D> OperatorRecord average_pooling_record(OperatorInfo info, std::string_view output) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    // Each float element is the exact mean rounded once, bounded by the family's forward error
    // analysis (docs/tolerance.md, "Computed values"); integers are stated Bits.
    r.outputs = {{output, TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, average_pooling_bounds}};
    r.desc_tolerance = tolerance_as<D, tolerance>;
    r.explain = explain<D>;
    r.fast = fast_as<D, average_pooling_fast>;
    r.MinRank = 3;
    r.features = {"padding", "stride>1", "overlapping-windows", "ceil-size", "all-padding-window"};
    if constexpr (std::is_same_v<D, AP1>) r.features.push_back("dilation>1");
    r.features.insert(r.features.end(), {"include-padding", "exclude-padding"});
    r.detect = detect<D>;
    r.work_factor = taps<D>;
    // --max-work: the exact sum rounded once, divided and rounded again, about 150 reads and 12 a
    // tap (measured; docs/rules.md, limit.work).
    r.rounding_cost = [](const OperatorDesc& d) { return saturating_add(150, saturating_mul(12, taps<D>(d))); };
    if constexpr (!std::is_same_v<D, GRAD>) {
        r.dont_care = dont_care_as<D, dont_care>;
        r.dont_care_entries = empty_entries<D>;
    }
    r.ArraysFrom = 2;
    r.sizes = pooling_sizes;
    r.windows = windows<D>;
    return r;
}

const std::vector<Policy> kAverage = {
    kIncludePaddingDivisor, kExcludePaddingDivisor, kEmptyWindow, kOutputSizes, kComputedValue,
    kIntegerResult,         kNonFiniteSum,          kZeroResult,  kSubnormals};

}  // namespace rec_average_pooling

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& average_pooling_family() {
    using namespace reference;
    using namespace reference::rec_average_pooling;
    static const FamilyRecord f{
        "average_pooling",
        {average_pooling_record<AP>(
             {.IntroducedIn = 0x1000, .Support = {{0x1000, {}, 4, 5, kF32F16}}, .Policies = kAverage}, "OutputTensor"),
         average_pooling_record<AP1>(
             {.IntroducedIn = 0x6200, .Support = {{0x6200, {}, 4, 5, kF32F16}}, .Policies = kAverage}, "OutputTensor"),
         average_pooling_record<GRAD>(
             {.IntroducedIn = 0x3000, .Support = {{0x3000, {}, 4, 5, kF32F16}}, .Policies = kAverage},
             "OutputGradientTensor")}};
    return f;
}
}  // namespace dmlref::kit
