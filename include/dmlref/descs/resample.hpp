// The descs of RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD and RESAMPLE_GRAD1, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// ---- Resampling ----------------------------------------------------------------------------
// DML_INTERPOLATION_MODE and DML_AXIS_DIRECTION, stored as uint32_t like every enum field.
inline constexpr uint32_t DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0;
inline constexpr uint32_t DML_INTERPOLATION_MODE_LINEAR = 1;
inline constexpr uint32_t DML_AXIS_DIRECTION_INCREASING = 0;
inline constexpr uint32_t DML_AXIS_DIRECTION_DECREASING = 1;
inline const EnumNames kInterpolationModeNames{"DML_INTERPOLATION_MODE_", {"NEAREST_NEIGHBOR", "LINEAR"}};
inline const EnumNames kAxisDirectionNames{"DML_AXIS_DIRECTION_", {"INCREASING", "DECREASING"}};

// Every dimension is resampled by its own entry of the arrays (ScaleCount or DimensionCount
// entries, one per tensor dimension). RESAMPLE has no offsets: it is RESAMPLE1 with
// InputPixelOffsets 0.5 and OutputPixelOffsets -0.5.
struct DML_RESAMPLE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RESAMPLE;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t ScaleCount = 0;
    std::vector<float> Scales;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.uint("ScaleCount", s.ScaleCount);
        v.float_array("Scales", s.Scales);
    }
};

struct DML_RESAMPLE1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RESAMPLE1;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

struct DML_RESAMPLE2_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RESAMPLE2;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t RoundingDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.enumeration("RoundingDirection", s.RoundingDirection, kAxisDirectionNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

// RESAMPLE2 and BOOL Antialiased (DirectML's BOOL: 0 FALSE, 1 TRUE): with LINEAR, the filter of a
// dimension whose 1 / Scale exceeds 2 is stretched by max(1, 1 / Scale). FALSE is RESAMPLE2.
struct DML_RESAMPLE3_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RESAMPLE3;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t RoundingDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    uint32_t Antialiased = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.enumeration("RoundingDirection", s.RoundingDirection, kAxisDirectionNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
        v.uint("Antialiased", s.Antialiased);
    }
};

// The grads take the forward operator's Scales and offsets: InputGradientTensor has the forward
// output's sizes, OutputGradientTensor the forward input's.
struct DML_RESAMPLE_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RESAMPLE_GRAD;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

struct DML_RESAMPLE_GRAD1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RESAMPLE_GRAD1;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t RoundingDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.enumeration("RoundingDirection", s.RoundingDirection, kAxisDirectionNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

}  // namespace dmlref
