// The descs of ROI_ALIGN, ROI_ALIGN1 and ROI_ALIGN_GRAD, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"
#include "dmlref/descs/resample.hpp"  // DML_INTERPOLATION_MODE and its names

namespace dmlref {

// ---- ROI align (DML_ROI_ALIGN*_OPERATOR_DESC) ----------------------------------------
// DML_REDUCE_FUNCTION, stored as uint32_t like every enum field; ROI align accepts AVERAGE and
// MAX only (the operator's validate says so, naming its rule).
inline constexpr uint32_t DML_REDUCE_FUNCTION_AVERAGE = 2;
inline constexpr uint32_t DML_REDUCE_FUNCTION_MAX = 7;
inline const EnumNames kReduceFunctionNames{"DML_REDUCE_FUNCTION_",
                                            {"ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX",
                                             "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"}};

// InputTensor {BatchCount, ChannelCount, InputHeight, InputWidth}; ROITensor {NumROIs, 4} (or with
// leading 1s), each row [x1, y1, x2, y2]; BatchIndicesTensor {NumROIs} (or with leading 1s);
// OutputTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth}. ROI_ALIGN is ROI_ALIGN1 with
// InputPixelOffset 0.5, OutputPixelOffset -0.5 and AlignRegionsToCorners FALSE.
struct DML_ROI_ALIGN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ROI_ALIGN;
    TensorDesc InputTensor;
    TensorDesc ROITensor;
    TensorDesc BatchIndicesTensor;
    TensorDesc OutputTensor;
    uint32_t ReductionFunction = DML_REDUCE_FUNCTION_AVERAGE;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    float SpatialScaleX = 1.0f;
    float SpatialScaleY = 1.0f;
    float OutOfBoundsInputValue = 0.0f;
    uint32_t MinimumSamplesPerOutput = 1;
    uint32_t MaximumSamplesPerOutput = 1;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("ROITensor", s.ROITensor, TensorRole::Input);
        v.tensor("BatchIndicesTensor", s.BatchIndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("ReductionFunction", s.ReductionFunction, kReduceFunctionNames);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.float32("SpatialScaleX", s.SpatialScaleX);
        v.float32("SpatialScaleY", s.SpatialScaleY);
        v.float32("OutOfBoundsInputValue", s.OutOfBoundsInputValue);
        v.uint("MinimumSamplesPerOutput", s.MinimumSamplesPerOutput);
        v.uint("MaximumSamplesPerOutput", s.MaximumSamplesPerOutput);
    }
};

// AlignRegionsToCorners is DirectML's BOOL: 0 (FALSE) or 1 (TRUE).
struct DML_ROI_ALIGN1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ROI_ALIGN1;
    TensorDesc InputTensor;
    TensorDesc ROITensor;
    TensorDesc BatchIndicesTensor;
    TensorDesc OutputTensor;
    uint32_t ReductionFunction = DML_REDUCE_FUNCTION_AVERAGE;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    float SpatialScaleX = 1.0f;
    float SpatialScaleY = 1.0f;
    float InputPixelOffset = 0.5f;
    float OutputPixelOffset = -0.5f;
    float OutOfBoundsInputValue = 0.0f;
    uint32_t MinimumSamplesPerOutput = 1;
    uint32_t MaximumSamplesPerOutput = 1;
    uint32_t AlignRegionsToCorners = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("ROITensor", s.ROITensor, TensorRole::Input);
        v.tensor("BatchIndicesTensor", s.BatchIndicesTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("ReductionFunction", s.ReductionFunction, kReduceFunctionNames);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.float32("SpatialScaleX", s.SpatialScaleX);
        v.float32("SpatialScaleY", s.SpatialScaleY);
        v.float32("InputPixelOffset", s.InputPixelOffset);
        v.float32("OutputPixelOffset", s.OutputPixelOffset);
        v.float32("OutOfBoundsInputValue", s.OutOfBoundsInputValue);
        v.uint("MinimumSamplesPerOutput", s.MinimumSamplesPerOutput);
        v.uint("MaximumSamplesPerOutput", s.MaximumSamplesPerOutput);
        v.uint("AlignRegionsToCorners", s.AlignRegionsToCorners);
    }
};

// InputGradientTensor has the forward output's sizes; OutputGradientTensor (optional) the forward
// input's, {BatchCount, ChannelCount, InputHeight, InputWidth}; OutputROIGradientTensor (optional)
// ROITensor's. InputTensor (the forward input) is needed for MAX and for the ROI gradient. No
// OutOfBoundsInputValue: out-of-bounds samples send no gradient.
struct DML_ROI_ALIGN_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ROI_ALIGN_GRAD;
    std::optional<TensorDesc> InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc ROITensor;
    TensorDesc BatchIndicesTensor;
    std::optional<TensorDesc> OutputGradientTensor;
    std::optional<TensorDesc> OutputROIGradientTensor;
    uint32_t ReductionFunction = DML_REDUCE_FUNCTION_AVERAGE;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    float SpatialScaleX = 1.0f;
    float SpatialScaleY = 1.0f;
    float InputPixelOffset = 0.5f;
    float OutputPixelOffset = -0.5f;
    uint32_t MinimumSamplesPerOutput = 1;
    uint32_t MaximumSamplesPerOutput = 1;
    uint32_t AlignRegionsToCorners = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.optional_tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("ROITensor", s.ROITensor, TensorRole::Input);
        v.tensor("BatchIndicesTensor", s.BatchIndicesTensor, TensorRole::Input);
        v.optional_tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.optional_tensor("OutputROIGradientTensor", s.OutputROIGradientTensor, TensorRole::Output);
        v.enumeration("ReductionFunction", s.ReductionFunction, kReduceFunctionNames);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.float32("SpatialScaleX", s.SpatialScaleX);
        v.float32("SpatialScaleY", s.SpatialScaleY);
        v.float32("InputPixelOffset", s.InputPixelOffset);
        v.float32("OutputPixelOffset", s.OutputPixelOffset);
        v.uint("MinimumSamplesPerOutput", s.MinimumSamplesPerOutput);
        v.uint("MaximumSamplesPerOutput", s.MaximumSamplesPerOutput);
        v.uint("AlignRegionsToCorners", s.AlignRegionsToCorners);
    }
};

}  // namespace dmlref
