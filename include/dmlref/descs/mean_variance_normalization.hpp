// The descs of MEAN_VARIANCE_NORMALIZATION, _NORMALIZATION1 and _NORMALIZATION2, with DirectML.h's
// struct and field names (DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, ...1_..., ...2_...).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// CrossChannel and NormalizeVariance are BOOLs (0 or 1). ScaleTensor and BiasTensor are optional.
struct DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MEAN_VARIANCE_NORMALIZATION;
    TensorDesc InputTensor;
    std::optional<TensorDesc> ScaleTensor;
    std::optional<TensorDesc> BiasTensor;
    TensorDesc OutputTensor;
    uint32_t CrossChannel = 0;
    uint32_t NormalizeVariance = 1;
    float Epsilon = 0.0f;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.optional_tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("CrossChannel", s.CrossChannel);
        v.uint("NormalizeVariance", s.NormalizeVariance);
        v.float32("Epsilon", s.Epsilon);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

// Axes: the dimensions the mean and variance are taken over (AxisCount of them).
struct DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MEAN_VARIANCE_NORMALIZATION1;
    TensorDesc InputTensor;
    std::optional<TensorDesc> ScaleTensor;
    std::optional<TensorDesc> BiasTensor;
    TensorDesc OutputTensor;
    uint32_t AxisCount = 0;
    std::vector<uint32_t> Axes;
    uint32_t NormalizeVariance = 1;
    float Epsilon = 0.0f;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.optional_tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("AxisCount", s.AxisCount);
        v.uint_array("Axes", s.Axes);
        v.uint("NormalizeVariance", s.NormalizeVariance);
        v.float32("Epsilon", s.Epsilon);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

// UseMean and UseVariance are BOOLs (docs/golden.md, "Mean variance normalization": what they do).
struct DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MEAN_VARIANCE_NORMALIZATION2;
    TensorDesc InputTensor;
    std::optional<TensorDesc> ScaleTensor;
    std::optional<TensorDesc> BiasTensor;
    TensorDesc OutputTensor;
    uint32_t AxisCount = 0;
    std::vector<uint32_t> Axes;
    uint32_t UseMean = 1;
    uint32_t UseVariance = 1;
    float Epsilon = 0.0f;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.optional_tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("AxisCount", s.AxisCount);
        v.uint_array("Axes", s.Axes);
        v.uint("UseMean", s.UseMean);
        v.uint("UseVariance", s.UseVariance);
        v.float32("Epsilon", s.Epsilon);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

}  // namespace dmlref
