// The operator registry: names, DirectML's tensor-support tables (data, per operator), the
// policies each operator's goldens record, and the generic passes over a desc's fields.
#include "dmlref/operators.hpp"

#include "dmlref/case.hpp"

#include "../reference/common.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace dmlref {

namespace {

using DT = DataType;
const std::vector<DT> kF32F16 = {DT::FLOAT32, DT::FLOAT16};
const std::vector<DT> kClipTypes21 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::INT8, DT::UINT32, DT::UINT16, DT::UINT8};
const std::vector<DT> kTenTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT64, DT::INT32, DT::INT16, DT::INT8,
                                   DT::UINT64, DT::UINT32, DT::UINT16, DT::UINT8};
const std::vector<DT> kReluTypes51 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::INT8};
const std::vector<DT> kSliceTypes10 = {DT::FLOAT32, DT::FLOAT16, DT::INT32, DT::INT16, DT::UINT32, DT::UINT16};
const std::vector<DT> kEightTypes = kClipTypes21;  // F32 F16 I32 I16 I8 U32 U16 U8
const std::vector<DT> kElevenTypes = {DT::FLOAT64, DT::FLOAT32, DT::FLOAT16, DT::INT64, DT::INT32, DT::INT16, DT::INT8,
                                      DT::UINT64, DT::UINT32, DT::UINT16, DT::UINT8};
const std::vector<DT> kF32F16I8U8 = {DT::FLOAT32, DT::FLOAT16, DT::INT8, DT::UINT8};
const std::vector<DT> kU32 = {DT::UINT32};
const std::vector<DT> kU32U64 = {DT::UINT32, DT::UINT64};

// Policies (docs/golden.md, Decisions and docs/golden.md). Names are what golden files record.
const Policy kSelectedZero{"SelectedZero", "PositiveZero"};
const Policy kSubnormals{"Subnormals", "Preserve"};
const Policy kForwardNaN{"ForwardNaN", "D3DMinMaxIgnoresNaN"};
const Policy kGradNaN{"GradNaN", "FormulaLiteral"};
const Policy kSignedZeroMinMax{"SignedZeroMinMax", "NegativeZeroBelowPositiveZero"};
const Policy kMinGreaterThanMax{"MinGreaterThanMax", "FormulaLiteral"};
const Policy kFloat16ScalarUnion{"Float16ScalarUnion", "UInt16Bits"};
const Policy kClipFloatBound{"ClipFloatBoundCompare", "ExactValues"};
const Policy kClipBoundStore{"ClipBoundStore", "RoundNearestEvenSaturate"};
const Policy kClipGradBounds{"ClipGradBounds", "ZeroAtBounds"};
const Policy kScaleBias{"ScaleBiasArithmetic", "Float32UnfusedFloat64ForFloat64"};
const Policy kSliceZeroStride{"SliceZeroStride", "Error"};
const Policy kArgmaxTies{"ArgmaxTies", "LowestLogicalIndex"};
const Policy kArgmaxNaN{"ArgmaxNaN", "NaNLosesToAnyNumber"};
const Policy kPadding{"Padding", "NeverACandidate"};
const Policy kEmptyWindow{"EmptyWindow", "DontCare"};
const Policy kPoolingIndices{"Indices", "FlatLogicalIndex"};
const Policy kOutputSizes{"OutputSizes", "FloorOrCeil"};
const Policy kFloatSum{"FloatSum", "ExactThenRoundOnce"};
const Policy kIntegerSum{"IntegerSum", "WrapToWidth"};
const Policy kNonFiniteSum{"NonFiniteSum", "CanonicalNaN"};
const Policy kResampleCoordinate{"ResampleCoordinate", "Float64Division"};
const Policy kNearestRounding{"NearestNeighborRounding", "DecreasingFloorIncreasingCeil"};
const Policy kOldNearest{"OldNearestNeighbor", "DecreasingWithOutputPixelOffsetsMinusHalf"};
const Policy kNearestForward{"NearestNeighborValue", "CopyBits"};
const Policy kLinear{"LinearInterpolation", "ClampCoordinateProductOfWeights"};
const Policy kResampleSum{"ResampleSum", "ExactThenRoundOnce"};
const Policy kResampleInteger{"IntegerResult", "RoundHalfEvenSaturate"};
const Policy kZeroWeightTaps{"ZeroWeightTaps", "NoTerm"};
const Policy kResampleGradParameters{"ResampleGradParameters", "ForwardScalesAndOffsets"};
const Policy kScalesAndOffsets{"ScalesAndOffsets", "FinitePositiveScalesFiniteOffsets"};

// ---- Operators whose values are computed (docs/golden.md, Computed values; spec/dml-training-ops.md) ----
// Average pooling (section 3): tables from the pages (section 8 of the digest); dmlref
// evaluates ranks 3 to 8 and every type.
const Policy kIncludePaddingDivisor{"IncludePaddingDivisor", "WindowSizeProduct"};
const Policy kExcludePaddingDivisor{"ExcludePaddingDivisor", "RealElementCount"};
const Policy kComputedValue{"ComputedValue", "ExactThenRoundOnce"};
const Policy kIntegerResult{"IntegerResult", "RoundHalfEvenSaturate"};
const Policy kZeroResult{"ZeroResult", "PositiveZero"};

const Policy kLrnWindow{"LrnWindow", "ClippedOnnxRegion"};
const Policy kLrnEvenLocalSize{"LrnEvenLocalSize", "OneMoreAfter"};
const Policy kLrnDivisor{"LrnDivisor", "LocalSizeEvenWhenClipped"};
const Policy kLrnWithinChannel{"LrnWithinChannel", "EveryDimensionAfterChannelDivisorLocalSize"};
const Policy kLrnSpecialValues{"LrnSpecialValues", "IeeeOnTheExactFormula"};
const Policy kLrnGradTerms{"LrnGradTerms", "GroupedByB"};

// Batch normalization (section 5): 4-D FLOAT32/FLOAT16 at 1.0, 1 to 8 dimensions from 3.1 (the
// operators added later start there); dmlref evaluates ranks 1 to 8 and every type.
const Policy kBnFusedActivation{"BnFusedActivation", "RoundThenActivateAsSeparateOperator"};
// The fused activations' open questions (reference/fused_activation.cpp).
const Policy kBnActivationNaN{"BnActivationNaN", "NaNGivesNaN"};
const Policy kBnActivationInfinity{"BnActivationInfinity", "LimitOfTheFunction"};
const Policy kBnActivationExactCases{"BnActivationExactCases", "ExactWhereRational"};
const Policy kBnActivationTiny{"BnActivationTiny", "RoundTheExactValue"};
const Policy kBnActivationShrinkOrder{"BnActivationShrinkOrder", "PageOrder"};
const Policy kBnActivationCeluAlpha{"BnActivationCeluAlpha", "AlphaZeroRefused"};
const Policy kBnActivationSignedZero{"BnActivationSignedZero", "SelectedInputKeepsSign"};
const Policy kBnFusedAdd{"BnFusedAdd", "ExactSumBeforeActivation"};
const Policy kBnTrainingStatistics{"BnTrainingStatistics", "ExactBatchMeanAndVarianceForOutput"};
const Policy kBnVariance{"BnVariance", "PopulationTwoPassNoEpsilon"};
const Policy kBnTrainingGradMean{"BnTrainingGradMean", "SuppliedMeanTensorEverywhere"};
const Policy kBnBroadcast{"BnBroadcast", "EachTensorIndependently"};
const Policy kBnSpecialValues{"BnSpecialValues", "IeeeOnTheExactFormula"};
const Policy kBnSpatial{"BnSpatial", "NoEffectOnValues"};

void append_batch_normalization(std::vector<OperatorInfo>& r) {
    const std::vector<Policy> common = {kComputedValue, kBnSpecialValues, kIntegerResult, kZeroResult, kSubnormals};
    const std::vector<Policy> activation = {kBnFusedActivation, kBnActivationNaN, kBnActivationInfinity, kBnActivationExactCases,
                                            kBnActivationTiny, kBnActivationShrinkOrder, kBnActivationCeluAlpha,
                                            kBnActivationSignedZero};
    std::vector<Policy> bn = {kBnBroadcast, kBnSpatial};
    bn.insert(bn.end(), activation.begin(), activation.end());
    bn.insert(bn.end(), common.begin(), common.end());
    std::vector<Policy> training = {kBnVariance, kBnTrainingStatistics, kBnFusedAdd};
    training.insert(training.end(), activation.begin(), activation.end());
    training.insert(training.end(), common.begin(), common.end());
    std::vector<Policy> grad = {kNonFiniteSum};
    grad.insert(grad.end(), common.begin(), common.end());
    std::vector<Policy> training_grad = {kBnTrainingGradMean, kNonFiniteSum};
    training_grad.insert(training_grad.end(), common.begin(), common.end());
    r.push_back({OperatorType::BATCH_NORMALIZATION, "BATCH_NORMALIZATION", 0x1000, {},
                 // 0x4000: the same table; MeanTensor to BiasTensor may broadcast any dimension from then on (supported_at).
                 {{0x1000, {}, 4, 4, kF32F16}, {0x3100, {}, 1, 8, kF32F16}, {0x4000, {}, 1, 8, kF32F16}}, bn});
    r.push_back({OperatorType::BATCH_NORMALIZATION_GRAD, "BATCH_NORMALIZATION_GRAD", 0x3100, {},
                 {{0x3100, {}, 1, 8, kF32F16}}, grad});
    r.push_back({OperatorType::BATCH_NORMALIZATION_TRAINING, "BATCH_NORMALIZATION_TRAINING", 0x4100, {},
                 {{0x4100, {}, 1, 8, kF32F16}}, training});
    r.push_back({OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, "BATCH_NORMALIZATION_TRAINING_GRAD", 0x4100, {},
                 {{0x4100, {}, 1, 8, kF32F16}}, training_grad});
}

void append_computed_operators(std::vector<OperatorInfo>& r) {
    const std::vector<Policy> average = {kIncludePaddingDivisor, kExcludePaddingDivisor, kEmptyWindow, kOutputSizes,
                                         kComputedValue, kIntegerResult, kNonFiniteSum, kZeroResult, kSubnormals};
    r.push_back({OperatorType::AVERAGE_POOLING, "AVERAGE_POOLING", 0x1000, {}, {{0x1000, {}, 4, 5, kF32F16}}, average});
    r.push_back({OperatorType::AVERAGE_POOLING1, "AVERAGE_POOLING1", 0x6200, {}, {{0x6200, {}, 4, 5, kF32F16}}, average});
    r.push_back({OperatorType::AVERAGE_POOLING_GRAD, "AVERAGE_POOLING_GRAD", 0x3000, {}, {{0x3000, {}, 4, 5, kF32F16}}, average});
    // Local response normalization (section 4): 4-D FLOAT32/FLOAT16 at every level; dmlref
    // evaluates ranks 2 to 8 and every type.
    const std::vector<Policy> lrn = {kLrnWindow, kLrnEvenLocalSize, kLrnDivisor, kLrnWithinChannel, kComputedValue,
                                     kLrnSpecialValues, kIntegerResult, kSubnormals};
    std::vector<Policy> lrn_grad = lrn;
    lrn_grad.push_back(kLrnGradTerms);
    r.push_back({OperatorType::LOCAL_RESPONSE_NORMALIZATION, "LOCAL_RESPONSE_NORMALIZATION", 0x1000, {},
                 {{0x1000, {}, 4, 4, kF32F16}}, lrn});
    r.push_back({OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD, "LOCAL_RESPONSE_NORMALIZATION_GRAD", 0x3100, {},
                 {{0x3100, {}, 4, 4, kF32F16}}, lrn_grad});
    append_batch_normalization(r);
}

// ROI align (spec/dml-training-ops.md sections 6.6 and 8): 4-D FLOAT32/FLOAT16 values, ROITensor
// 2 to 4-D, BatchIndicesTensor 1 to 4-D UINT32 (and UINT64 from 5.0 for the forward operators).
// dmlref evaluates exactly what the tables allow (4-D, FLOAT32/FLOAT16; docs/golden.md, ROI align).
const Policy kRoiSampleCount{"RoiAlignSampleCount", "CeilOfExactAbsoluteSizeClamped"};
const Policy kRoiSampleLoop{"RoiAlignSampleLoop", "HalfOpen"};
const Policy kRoiCorners{"RoiAlignCorners", "StepOverCountMinusOneMidpointForOne"};
const Policy kRoiOutOfBounds{"RoiAlignOutOfBounds", "OutsideMinusOneToSizePerSampleElseClamp"};
const Policy kRoiNearest{"RoiAlignNearest", "TiesToLowerIndex"};
const Policy kRoiMax{"RoiAlignMax", "WholeSampleFirstGreatestNaNLoses"};
const Policy kRoiAverage{"RoiAlignAverageOutOfBounds", "CountsWithOutOfBoundsValue"};
const Policy kRoiGradOutOfBounds{"RoiAlignGradOutOfBounds", "NoGradientNotAMaxCandidate"};
const Policy kRoiRoiGradient{"RoiAlignRoiGradient", "ExactDerivativeConstantSampleCounts"};
const Policy kRoiBatchIndex{"RoiAlignBatchIndex", "Error"};

void append_roi_align_operators(std::vector<OperatorInfo>& r) {
    const std::vector<std::string_view> values = {"InputTensor", "OutputTensor"};
    const std::vector<std::string_view> rois = {"ROITensor"};
    const std::vector<std::string_view> indices = {"BatchIndicesTensor"};
    const std::vector<std::string_view> grad_values = {"InputTensor", "InputGradientTensor", "OutputGradientTensor"};
    const std::vector<std::string_view> grad_rois = {"ROITensor", "OutputROIGradientTensor"};
    const std::vector<SupportRow> forward30 = {{0x3000, values, 4, 4, kF32F16}, {0x3000, rois, 2, 4, kF32F16},
                                               {0x3000, indices, 1, 4, kU32}, {0x5000, indices, 1, 4, kU32U64}};
    std::vector<SupportRow> forward40 = forward30;
    for (auto& row : forward40) if (row.FeatureLevel == 0x3000) row.FeatureLevel = 0x4000;
    const std::vector<Policy> forward = {kRoiSampleCount, kRoiSampleLoop, kRoiCorners, kRoiOutOfBounds, kRoiNearest, kRoiMax,
                                         kRoiAverage, kRoiBatchIndex, kZeroWeightTaps, kComputedValue, kNonFiniteSum,
                                         kZeroResult, kSubnormals};
    std::vector<Policy> grad = forward;
    grad.push_back(kRoiGradOutOfBounds);
    grad.push_back(kRoiRoiGradient);
    r.push_back({OperatorType::ROI_ALIGN, "ROI_ALIGN", 0x3000, {}, forward30, forward});
    r.push_back({OperatorType::ROI_ALIGN1, "ROI_ALIGN1", 0x4000, {}, forward40, forward});
    r.push_back({OperatorType::ROI_ALIGN_GRAD, "ROI_ALIGN_GRAD", 0x4100, {},
                 {{0x4100, grad_values, 4, 4, kF32F16}, {0x4100, grad_rois, 2, 4, kF32F16}, {0x4100, indices, 1, 4, kU32}},
                 grad});
}

// Tables from the operators' pages (spec/dml-semantics.md section 4).
std::vector<OperatorInfo> make_registry() {
    std::vector<OperatorInfo> r;
    r.push_back({OperatorType::ELEMENT_WISE_CLIP, "ELEMENT_WISE_CLIP", 0x1000,
                 {{"OutputTensor", "InputTensor"}},
                 {{0x1000, {}, 4, 4, kF32F16}, {0x2100, {}, 4, 4, kClipTypes21}, {0x3000, {}, 1, 8, kClipTypes21},
                  {0x5000, {}, 1, 8, kTenTypes}},
                 {kForwardNaN, kSignedZeroMinMax, kMinGreaterThanMax, kClipFloatBound, kClipBoundStore, kScaleBias, kSubnormals}});
    r.push_back({OperatorType::ACTIVATION_RELU, "ACTIVATION_RELU", 0x1000,
                 {{"OutputTensor", "InputTensor"}},
                 {{0x1000, {}, 4, 4, kF32F16}, {0x2000, {}, 4, 5, kF32F16}, {0x3000, {}, 1, 8, kF32F16},
                  {0x5100, {}, 1, 8, kReluTypes51}},
                 {kForwardNaN, kSelectedZero, kSubnormals}});
    r.push_back({OperatorType::ACTIVATION_RELU_GRAD, "ACTIVATION_RELU_GRAD", 0x3000,
                 {},
                 {{0x3000, {}, 1, 8, kF32F16}, {0x5100, {}, 1, 8, kReluTypes51}},
                 {kGradNaN, kSelectedZero, kSubnormals}});
    r.push_back({OperatorType::ELEMENT_WISE_CLIP_GRAD, "ELEMENT_WISE_CLIP_GRAD", 0x3100,
                 {{"OutputGradientTensor", "InputTensor"}},
                 {{0x3100, {}, 1, 8, kClipTypes21}, {0x5000, {}, 1, 8, kTenTypes}},
                 {kGradNaN, kSelectedZero, kMinGreaterThanMax, kClipFloatBound, kClipGradBounds, kSubnormals}});
    r.push_back({OperatorType::ELEMENT_WISE_CLIP1, "ELEMENT_WISE_CLIP1", 0x5000,
                 {{"OutputTensor", "InputTensor"}},
                 {{0x5000, {}, 1, 8, kTenTypes}},
                 {kForwardNaN, kSignedZeroMinMax, kMinGreaterThanMax, kFloat16ScalarUnion, kScaleBias, kSubnormals}});
    r.push_back({OperatorType::ELEMENT_WISE_CLIP_GRAD1, "ELEMENT_WISE_CLIP_GRAD1", 0x5000,
                 {{"OutputGradientTensor", "InputTensor"}},
                 {{0x5000, {}, 1, 8, kTenTypes}},
                 {kGradNaN, kSelectedZero, kMinGreaterThanMax, kFloat16ScalarUnion, kClipGradBounds, kSubnormals}});
    r.push_back({OperatorType::SLICE, "SLICE", 0x1000,
                 {},
                 {{0x1000, {}, 4, 5, kSliceTypes10}, {0x2100, {}, 4, 5, kEightTypes}, {0x3000, {}, 1, 8, kEightTypes},
                  {0x4100, {}, 1, 8, kElevenTypes}},
                 {kSubnormals, kSliceZeroStride}});
    r.push_back({OperatorType::SLICE1, "SLICE1", 0x2100,
                 {},
                 {{0x2100, {}, 4, 5, kEightTypes}, {0x3000, {}, 1, 8, kEightTypes}, {0x4100, {}, 1, 8, kElevenTypes}},
                 {kSubnormals, kSliceZeroStride}});
    r.push_back({OperatorType::SLICE_GRAD, "SLICE_GRAD", 0x3000,
                 {},
                 {{0x3000, {}, 4, 5, kEightTypes}, {0x3100, {}, 1, 8, kEightTypes}, {0x4100, {}, 1, 8, kElevenTypes}},
                 {kSelectedZero, kSubnormals, kSliceZeroStride}});
    // Max pooling: values rows name InputTensor and OutputTensor, index rows OutputIndicesTensor.
    const std::vector<std::string_view> values = {"InputTensor", "OutputTensor"};
    const std::vector<std::string_view> indices = {"OutputIndicesTensor"};
    r.push_back({OperatorType::MAX_POOLING, "MAX_POOLING", 0x1000,
                 {},
                 {{0x1000, {}, 4, 5, kF32F16}, {0x3000, {}, 4, 5, kF32F16I8U8}, {0x5000, {}, 4, 5, kTenTypes}},
                 {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kOutputSizes, kSubnormals}});
    r.push_back({OperatorType::MAX_POOLING1, "MAX_POOLING1", 0x2000,
                 {},
                 {{0x2000, values, 4, 5, kF32F16}, {0x2000, indices, 4, 5, kU32},
                  {0x3000, values, 4, 5, kF32F16I8U8}, {0x5000, values, 4, 5, kTenTypes}, {0x5000, indices, 4, 5, kU32U64}},
                 {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kPoolingIndices, kOutputSizes, kSubnormals}});
    r.push_back({OperatorType::MAX_POOLING2, "MAX_POOLING2", 0x2100,
                 {},
                 {{0x2100, values, 4, 5, kF32F16}, {0x2100, indices, 4, 5, kU32},
                  {0x3000, values, 4, 5, kF32F16I8U8}, {0x5000, values, 4, 5, kTenTypes}, {0x5000, indices, 4, 5, kU32U64}},
                 {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kPoolingIndices, kOutputSizes, kSubnormals}});
    r.push_back({OperatorType::MAX_POOLING_GRAD, "MAX_POOLING_GRAD", 0x3000,
                 {},
                 {{0x3000, {}, 4, 4, kF32F16}, {0x4000, {}, 4, 5, kF32F16}},
                 {kArgmaxTies, kArgmaxNaN, kPadding, kEmptyWindow, kOutputSizes, kFloatSum, kIntegerSum, kNonFiniteSum,
                  kSelectedZero, kSubnormals}});
    // Resampling (spec/dml-semantics.md section 4); dmlref evaluates 1 to 8 dimensions.
    const std::vector<Policy> forward = {kResampleCoordinate, kNearestRounding, kNearestForward, kLinear, kResampleSum,
                                         kResampleInteger, kNonFiniteSum, kZeroWeightTaps, kScalesAndOffsets, kSubnormals};
    std::vector<Policy> forward_old = forward;
    forward_old[1] = kOldNearest;
    const std::vector<Policy> grad = {kResampleCoordinate, kNearestRounding, kLinear, kResampleGradParameters, kResampleSum,
                                      kResampleInteger, kNonFiniteSum, kZeroWeightTaps, kScalesAndOffsets, kSelectedZero,
                                      kSubnormals};
    std::vector<Policy> grad_old = grad;
    grad_old[1] = kOldNearest;
    r.push_back({OperatorType::RESAMPLE, "RESAMPLE", 0x2000,
                 {},
                 {{0x2000, {}, 4, 4, kF32F16}, {0x5100, {}, 1, 4, kF32F16}, {0x6200, {}, 1, 4, kF32F16I8U8}},
                 forward_old});
    r.push_back({OperatorType::RESAMPLE1, "RESAMPLE1", 0x2100,
                 {},
                 {{0x2100, {}, 4, 4, kF32F16}, {0x5100, {}, 1, 4, kF32F16}, {0x6200, {}, 1, 4, kF32F16I8U8}},
                 forward_old});
    r.push_back({OperatorType::RESAMPLE2, "RESAMPLE2", 0x5100,
                 {},
                 {{0x5100, {}, 1, 4, kF32F16}, {0x6200, {}, 1, 4, kF32F16I8U8}},
                 forward});
    r.push_back({OperatorType::RESAMPLE_GRAD, "RESAMPLE_GRAD", 0x3000,
                 {},
                 {{0x3000, {}, 4, 4, kF32F16}, {0x5100, {}, 1, 4, kF32F16}},
                 grad_old});
    r.push_back({OperatorType::RESAMPLE_GRAD1, "RESAMPLE_GRAD1", 0x5100,
                 {},
                 {{0x5100, {}, 1, 4, kF32F16}},
                 grad});
    append_computed_operators(r);
    append_roi_align_operators(r);
    return r;
}

// Collects the tensor fields of a desc.
struct TensorLister {
    std::vector<TensorField> out;
    void tensor(std::string_view n, const TensorDesc& d, TensorRole role) { out.push_back({n, role, &d}); }
    void optional_tensor(std::string_view n, const std::optional<TensorDesc>& d, TensorRole role) {
        if (d) out.push_back({n, role, &*d});
    }
    void data_type(std::string_view, const DataType&) {}
    void scalar(std::string_view, const DML_SCALAR_UNION&, DataType) {}
    void float32(std::string_view, const float&) {}
    void scale_bias(std::string_view, const std::optional<DML_SCALE_BIAS>&) {}
    void uint(std::string_view, const uint32_t&) {}
    void uint_array(std::string_view, const std::vector<uint32_t>&) {}
    void int_array(std::string_view, const std::vector<int32_t>&) {}
    void float_array(std::string_view, const std::vector<float>&) {}
    void enumeration(std::string_view, const uint32_t&, const EnumNames&) {}
    void fused_activation(std::string_view, const std::optional<DML_FUSED_ACTIVATION>&) {}
};

}  // namespace

const std::vector<OperatorInfo>& all_operators() {
    static const std::vector<OperatorInfo> registry = make_registry();
    return registry;
}

const OperatorInfo& info(OperatorType t) {
    for (const auto& i : all_operators())
        if (i.Type == t) return i;
    throw std::invalid_argument("unknown operator type " + std::to_string(uint32_t(t)));
}

std::optional<OperatorType> parse_operator_type(std::string_view s) {
    constexpr std::string_view prefix = "DML_OPERATOR_";
    if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
    for (const auto& i : all_operators())
        if (i.Name == s) return i.Type;
    return std::nullopt;
}

std::string full_name(OperatorType t) { return "DML_OPERATOR_" + std::string(info(t).Name); }

Operator make_operator(OperatorType t) {
    switch (t) {
        case OperatorType::ELEMENT_WISE_CLIP: return {t, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC{}};
        case OperatorType::ACTIVATION_RELU: return {t, DML_ACTIVATION_RELU_OPERATOR_DESC{}};
        case OperatorType::ACTIVATION_RELU_GRAD: return {t, DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC{}};
        case OperatorType::ELEMENT_WISE_CLIP_GRAD: return {t, DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC{}};
        case OperatorType::ELEMENT_WISE_CLIP1: return {t, DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC{}};
        case OperatorType::ELEMENT_WISE_CLIP_GRAD1: return {t, DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC{}};
        case OperatorType::SLICE: return {t, DML_SLICE_OPERATOR_DESC{}};
        case OperatorType::SLICE1: return {t, DML_SLICE1_OPERATOR_DESC{}};
        case OperatorType::SLICE_GRAD: return {t, DML_SLICE_GRAD_OPERATOR_DESC{}};
        case OperatorType::MAX_POOLING: return {t, DML_MAX_POOLING_OPERATOR_DESC{}};
        case OperatorType::MAX_POOLING1: return {t, DML_MAX_POOLING1_OPERATOR_DESC{}};
        case OperatorType::MAX_POOLING2: return {t, DML_MAX_POOLING2_OPERATOR_DESC{}};
        case OperatorType::MAX_POOLING_GRAD: return {t, DML_MAX_POOLING_GRAD_OPERATOR_DESC{}};
        case OperatorType::RESAMPLE: return {t, DML_RESAMPLE_OPERATOR_DESC{}};
        case OperatorType::RESAMPLE1: return {t, DML_RESAMPLE1_OPERATOR_DESC{}};
        case OperatorType::RESAMPLE2: return {t, DML_RESAMPLE2_OPERATOR_DESC{}};
        case OperatorType::RESAMPLE_GRAD: return {t, DML_RESAMPLE_GRAD_OPERATOR_DESC{}};
        case OperatorType::RESAMPLE_GRAD1: return {t, DML_RESAMPLE_GRAD1_OPERATOR_DESC{}};
        case OperatorType::AVERAGE_POOLING: return {t, DML_AVERAGE_POOLING_OPERATOR_DESC{}};
        case OperatorType::AVERAGE_POOLING1: return {t, DML_AVERAGE_POOLING1_OPERATOR_DESC{}};
        case OperatorType::AVERAGE_POOLING_GRAD: return {t, DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC{}};
        case OperatorType::LOCAL_RESPONSE_NORMALIZATION: return {t, DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC{}};
        case OperatorType::LOCAL_RESPONSE_NORMALIZATION_GRAD: return {t, DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC{}};
        case OperatorType::BATCH_NORMALIZATION: return {t, DML_BATCH_NORMALIZATION_OPERATOR_DESC{}};
        case OperatorType::BATCH_NORMALIZATION_GRAD: return {t, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC{}};
        case OperatorType::BATCH_NORMALIZATION_TRAINING: return {t, DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC{}};
        case OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD: return {t, DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC{}};
        case OperatorType::ROI_ALIGN: return {t, DML_ROI_ALIGN_OPERATOR_DESC{}};
        case OperatorType::ROI_ALIGN1: return {t, DML_ROI_ALIGN1_OPERATOR_DESC{}};
        case OperatorType::ROI_ALIGN_GRAD: return {t, DML_ROI_ALIGN_GRAD_OPERATOR_DESC{}};
    }
    throw std::invalid_argument("unknown operator type " + std::to_string(uint32_t(t)));
}

std::vector<TensorField> tensor_fields(const Operator& op) {
    return std::visit([](const auto& d) {
        TensorLister l;
        std::decay_t<decltype(d)>::fields(d, l);
        return std::move(l.out);
    }, op.Desc);
}

Diagnostics validate(const Operator& op, const ValidateOptions& options) {
    Diagnostics diags;
    for (const auto& f : tensor_fields(op))
        validate_tensor_desc(*f.desc, f.role, reference::desc_path(f.name), options.max_bytes, diags);
    std::visit([&](const auto& d) { reference::validate(d, diags); }, op.Desc);
    return diags;
}

Diagnostics validate_input_values(const Operator& op, const InputBuffers& inputs, uint64_t max_work) {
    Diagnostics diags;
    std::visit([&](const auto& d) { reference::validate_values(d, inputs, max_work, diags); }, op.Desc);
    return diags;
}

void evaluate(const Operator& op, const Bindings& bindings) {
    for (const auto& f : tensor_fields(op)) {
        const auto bytes = bindings.at(f.name);
        if (bytes.size() < buffer_size(*f.desc))
            throw std::invalid_argument(std::string(f.name) + " is bound to " + std::to_string(bytes.size()) +
                                        " bytes; its desc needs " + std::to_string(buffer_size(*f.desc)));
    }
    std::visit([&](const auto& d) { reference::evaluate(d, bindings); }, op.Desc);
}

std::vector<DontCare> dont_care(const Operator& op, std::string_view output) {
    return std::visit([&](const auto& d) { return reference::dont_care(d, output); }, op.Desc);
}

Boundary boundary(const Operator& op, std::string_view output) {
    return std::visit([&](const auto& d) { return reference::boundary(d, output); }, op.Desc);
}

std::optional<Tolerance> operator_tolerance(const Operator& op, std::string_view output) {
    return std::visit([&](const auto& d) { return reference::tolerance(d, output); }, op.Desc);
}

std::span<std::byte> Bindings::at(std::string_view field) const {
    for (const auto& [n, bytes] : buffers_)
        if (n == field) return bytes;
    throw std::out_of_range("no buffer is bound to " + std::string(field));
}

// ---- Support tables ------------------------------------------------------------------------

std::string feature_level_name(uint32_t level) {
    return "DML_FEATURE_LEVEL_" + std::to_string(level >> 12) + "_" + std::to_string((level >> 8) & 0xf);
}

std::optional<uint32_t> parse_feature_level(std::string_view s) {
    constexpr std::string_view prefix = "DML_FEATURE_LEVEL_";
    if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
    const auto sep = s.find_first_of("._");
    if (sep == std::string_view::npos || sep == 0 || sep + 1 >= s.size()) return std::nullopt;
    uint32_t major = 0, minor = 0;
    auto a = std::from_chars(s.data(), s.data() + sep, major);
    auto b = std::from_chars(s.data() + sep + 1, s.data() + s.size(), minor);
    if (a.ec != std::errc{} || a.ptr != s.data() + sep || b.ec != std::errc{} || b.ptr != s.data() + s.size())
        return std::nullopt;
    if (major < 1 || major > 15 || minor > 15) return std::nullopt;
    return (major << 12) | (minor << 8);
}

bool supported_at(const Operator& op, uint32_t level, std::vector<std::string>* why) {
    const OperatorInfo& oi = info(op.Type);
    bool ok = true;
    auto say = [&](std::string s) { ok = false; if (why) why->push_back(std::move(s)); };
    if (level < oi.IntroducedIn) {
        say("DML_OPERATOR_" + std::string(oi.Name) + " was introduced in " + feature_level_name(oi.IntroducedIn));
        return false;
    }
    for (const auto& f : tensor_fields(op)) {
        const SupportRow* row = nullptr;
        for (const auto& r : oi.Support) {
            const bool covers = r.Tensors.empty() || std::find(r.Tensors.begin(), r.Tensors.end(), f.name) != r.Tensors.end();
            if (covers && r.FeatureLevel <= level) row = &r;
        }
        if (!row) { say(std::string(f.name) + ": no support row at this feature level"); continue; }
        const uint32_t dims = f.desc->DimensionCount();
        if (dims < row->MinDims || dims > row->MaxDims)
            say(std::string(f.name) + ": DimensionCount " + std::to_string(dims) + " is outside " +
                std::to_string(row->MinDims) + " to " + std::to_string(row->MaxDims));
        if (std::find(row->DataTypes.begin(), row->DataTypes.end(), f.desc->DataType) == row->DataTypes.end())
            say(std::string(f.name) + ": DataType " + std::string(name(f.desc->DataType)) + " is not in the table");
    }
    // BATCH_NORMALIZATION before DML_FEATURE_LEVEL_4_0 (docs/golden.md, Batch normalization):
    // MeanTensor, VarianceTensor, ScaleTensor and BiasTensor take the Input's channel count and
    // its other sizes or 1; Spatial FALSE also requires Mean's and Variance's spatial sizes.
    if (const auto* d = std::get_if<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(&op.Desc); d && level < 0x4000) {
        const auto& in = d->InputTensor.Sizes;
        const std::pair<const char*, const TensorDesc*> stats[] = {
            {"MeanTensor", &d->MeanTensor}, {"VarianceTensor", &d->VarianceTensor}, {"ScaleTensor", &d->ScaleTensor}, {"BiasTensor", &d->BiasTensor}};
        for (const auto& [field, t] : stats) {
            if (t->Sizes.size() != in.size()) continue;  // a rule of the operator's validation
            for (size_t i = 0; i < in.size(); ++i) {
                const bool spatial = i >= 2 && !d->Spatial && (t == &d->MeanTensor || t == &d->VarianceTensor);
                if (t->Sizes[i] == in[i] || (t->Sizes[i] == 1 && i != 1 && !spatial)) continue;
                say(std::string(field) + ": Sizes[" + std::to_string(i) + "] " + std::to_string(t->Sizes[i]) + " must be " +
                    std::to_string(in[i]) + (i == 1 || spatial ? "" : " or 1") + " before DML_FEATURE_LEVEL_4_0" +
                    (spatial ? " (Spatial FALSE)" : ""));
            }
        }
    }
    return ok;
}

std::optional<uint32_t> lowest_supporting_feature_level(const Operator& op, std::vector<std::string>* why) {
    const OperatorInfo& oi = info(op.Type);
    for (const auto& r : oi.Support)
        if (supported_at(op, r.FeatureLevel, nullptr)) return r.FeatureLevel;
    // Explain against the newest row: that is the one a user would move to.
    if (why && !oi.Support.empty()) supported_at(op, oi.Support.back().FeatureLevel, why);
    return std::nullopt;
}

}  // namespace dmlref
