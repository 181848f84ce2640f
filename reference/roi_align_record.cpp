// The ROI_ALIGN family's record (reference/kit/family.hpp): the facts of DML_ROI_ALIGN_OPERATOR_DESC,
// ROI_ALIGN1 and ROI_ALIGN_GRAD from their pages, the rules on input values, how the computed
// outputs are bounded from the regions, and coverage.
#include "roi_align.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_roi_align {

using namespace kit;
using ROI = DML_ROI_ALIGN_OPERATOR_DESC;
using ROI1 = DML_ROI_ALIGN1_OPERATOR_DESC;
using GRAD = DML_ROI_ALIGN_GRAD_OPERATOR_DESC;

constexpr Policy kRoiSampleCount{"RoiAlignSampleCount", "CeilOfExactAbsoluteSizeClamped"};
constexpr Policy kRoiSampleLoop{"RoiAlignSampleLoop", "HalfOpen"};
constexpr Policy kRoiCorners{"RoiAlignCorners", "StepOverCountMinusOneMidpointForOne"};
constexpr Policy kRoiOutOfBounds{"RoiAlignOutOfBounds", "OutsideMinusOneToSizePerSampleElseClamp"};
constexpr Policy kRoiNearest{"RoiAlignNearest", "TiesToLowerIndex"};
constexpr Policy kRoiMax{"RoiAlignMax", "WholeSampleFirstGreatestNaNLoses"};
constexpr Policy kRoiAverage{"RoiAlignAverageOutOfBounds", "CountsWithOutOfBoundsValue"};
constexpr Policy kRoiGradOutOfBounds{"RoiAlignGradOutOfBounds", "NoGradientNotAMaxCandidate"};
constexpr Policy kRoiRoiGradient{"RoiAlignRoiGradient", "ExactDerivativeConstantSampleCounts"};
constexpr Policy kRoiBatchIndex{"RoiAlignBatchIndex", "Error"};

std::vector<BoundaryElement> boundary(const Case& c, std::string_view output) {
    std::vector<BoundaryElement> out;
    for (auto& [i, why] : roi_align_boundary(c, output)) out.push_back({i, std::move(why)});
    return out;
}

// The region an output element pools (its four ROITensor values and batch index) and the rules
// that place its samples.
template <class D> bool explain(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const D& d = get<D>(c.op.Desc);
    const TensorDesc* pooled;
    if constexpr (std::is_same_v<D, GRAD>) pooled = &d.InputGradientTensor;
    else pooled = &d.OutputTensor;
    if (output == "OutputTensor") {  // a forward output element pools one region
        const uint64_t r = nd_coordinate(pooled->Sizes, flat)[0];
        // ROITensor is {NumROIs, 4} with up to two leading 1s; BatchIndicesTensor {NumROIs} likewise.
        for (uint64_t k = 0; k < 4; ++k) {
            std::vector<uint64_t> i(d.ROITensor.Sizes.size(), 0);
            i[i.size() - 2] = r;
            i.back() = k;
            out.inputs.push_back(input_element(c, "ROITensor", i, "region"));
        }
        std::vector<uint64_t> b(d.BatchIndicesTensor.Sizes.size(), 0);
        b.back() = r;
        out.inputs.push_back(input_element(c, "BatchIndicesTensor", b, "batch index"));
    }
    out.facts.emplace_back(
        "formula",
        std::string(d.ReductionFunction == DML_REDUCE_FUNCTION_MAX ? "the largest" : "the average") +
            " of the region's samples, each " +
            (d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR ? "interpolated bilinearly" : "its nearest element"));
    out.facts.emplace_back("samples per output", "from " + std::to_string(d.MinimumSamplesPerOutput) + " to " +
                                                     std::to_string(d.MaximumSamplesPerOutput) + " per axis");
    out.policies.insert(out.policies.end(), {"RoiAlignSampleCount", "RoiAlignOutOfBounds"});
    return true;
}

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    f.push_back(d.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR ? "LINEAR" : "NEAREST_NEIGHBOR");
    f.push_back(d.ReductionFunction == DML_REDUCE_FUNCTION_MAX ? "MAX" : "AVERAGE");
    if (d.MaximumSamplesPerOutput > 1) f.push_back("several-samples");
    if constexpr (!std::is_same_v<D, ROI>)
        if (d.AlignRegionsToCorners) f.push_back("align-corners");
}

// 4-D FLOAT32/FLOAT16 values, ROITensor 2 to 4-D, BatchIndicesTensor 1 to 4-D UINT32 (and UINT64
// from 5.0 for the forward operators). dmlref evaluates exactly what the tables allow (4-D,
// FLOAT32/FLOAT16; docs/golden.md, ROI align). The regions are input values: the tolerance and
// the boundaries are stated from the whole case.
template <class D> OperatorRecord roi_record(OperatorInfo info, std::vector<OutputRule> outputs) {
    auto r = operator_record<D, validate, evaluate>(std::move(info));
    r.validate_values = validate_values_as<D, validate_values>;
    r.outputs = std::move(outputs);
    r.case_tolerance = roi_align_tolerance;
    r.rounding_cost =
        rounding_cost<500>;  // the samples' average, exact and rounded once (measured; docs/rules.md, limit.work)
    r.case_boundary = boundary;
    r.explain = explain<D>;
    r.reads_inputs = true;
    r.MinRank = 4;
    r.MaxRank = 4;
    r.ScopeTypes = kF32F16;
    r.features = {"NEAREST_NEIGHBOR", "LINEAR", "AVERAGE", "MAX", "several-samples"};
    if constexpr (!std::is_same_v<D, ROI>) r.features.push_back("align-corners");
    r.detect = detect<D>;
    r.fast = fast_as<D, roi_align_fast_path>;
    return r;
}

OutputRule computed(std::string_view output, ComputedBounds bounds) {
    return {output, TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, bounds};
}

const std::vector<std::string_view> kValues = {"InputTensor", "OutputTensor"};
const std::vector<std::string_view> kRois = {"ROITensor"};
const std::vector<std::string_view> kIndices = {"BatchIndicesTensor"};
const std::vector<Policy> kForward = {kRoiSampleCount, kRoiSampleLoop, kRoiCorners,    kRoiOutOfBounds, kRoiNearest,
                                      kRoiMax,         kRoiAverage,    kRoiBatchIndex, kZeroWeightTaps, kComputedValue,
                                      kNonFiniteSum,   kZeroResult,    kSubnormals};

std::vector<SupportRow> forward_rows(uint32_t level) {
    return {{level, kValues, 4, 4, kF32F16},
            {level, kRois, 2, 4, kF32F16},
            {level, kIndices, 1, 4, kU32},
            {0x5000, kIndices, 1, 4, kU32U64}};
}

OperatorRecord roi_align_grad() {
    std::vector<Policy> grad = kForward;
    grad.push_back(kRoiGradOutOfBounds);
    grad.push_back(kRoiRoiGradient);
    const std::vector<std::string_view> values = {"InputTensor", "InputGradientTensor", "OutputGradientTensor"};
    const std::vector<std::string_view> rois = {"ROITensor", "OutputROIGradientTensor"};
    return roi_record<GRAD>(
        {.IntroducedIn = 0x4100,
         .Support = {{0x4100, values, 4, 4, kF32F16}, {0x4100, rois, 2, 4, kF32F16}, {0x4100, kIndices, 1, 4, kU32}},
         .Policies = grad},
        {computed("OutputGradientTensor", roi_align_gradient_bounds),
         computed("OutputROIGradientTensor", roi_align_roi_gradient_bounds)});
}

}  // namespace rec_roi_align

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& roi_align_family() {
    using namespace reference;
    using namespace reference::rec_roi_align;
    static const FamilyRecord f{
        "roi_align",
        {roi_record<ROI>({.IntroducedIn = 0x3000, .Support = forward_rows(0x3000), .Policies = kForward},
                         {computed("OutputTensor", roi_align_bounds)}),
         roi_record<ROI1>({.IntroducedIn = 0x4000, .Support = forward_rows(0x4000), .Policies = kForward},
                          {computed("OutputTensor", roi_align_bounds)}),
         roi_align_grad()}};
    return f;
}
}  // namespace dmlref::kit
