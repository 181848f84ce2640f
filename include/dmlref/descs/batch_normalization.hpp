// The descs of BATCH_NORMALIZATION, _GRAD, _TRAINING and _TRAINING_GRAD, with DirectML.h's struct and field names, and the fused activation they carry.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// ---- Batch normalization (DML_BATCH_NORMALIZATION*_OPERATOR_DESC) ------------------------------
// Spatial is a BOOL (0 or 1, as IncludePadding); deprecated at FL 4.0 and without effect on
// the values. A visitor reads FusedActivation with fused_activation(name, std::optional<...>&).
struct DML_BATCH_NORMALIZATION_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::BATCH_NORMALIZATION;
    TensorDesc InputTensor;
    TensorDesc MeanTensor;
    TensorDesc VarianceTensor;
    TensorDesc ScaleTensor;
    TensorDesc BiasTensor;
    TensorDesc OutputTensor;
    uint32_t Spatial = 1;
    float Epsilon = 0.0f;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("MeanTensor", s.MeanTensor, TensorRole::Input);
        v.tensor("VarianceTensor", s.VarianceTensor, TensorRole::Input);
        v.tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("Spatial", s.Spatial);
        v.float32("Epsilon", s.Epsilon);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

// BATCH_NORMALIZATION_GRAD and _TRAINING_GRAD have the same fields.
template <class Tag> struct BatchNormalizationGradFields {
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc MeanTensor;
    TensorDesc VarianceTensor;
    TensorDesc ScaleTensor;
    TensorDesc OutputGradientTensor;
    TensorDesc OutputScaleGradientTensor;
    TensorDesc OutputBiasGradientTensor;
    float Epsilon = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("MeanTensor", s.MeanTensor, TensorRole::Input);
        v.tensor("VarianceTensor", s.VarianceTensor, TensorRole::Input);
        v.tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.tensor("OutputScaleGradientTensor", s.OutputScaleGradientTensor, TensorRole::Output);
        v.tensor("OutputBiasGradientTensor", s.OutputBiasGradientTensor, TensorRole::Output);
        v.float32("Epsilon", s.Epsilon);
    }
};
struct BatchNormalizationGradTag {};
struct BatchNormalizationTrainingGradTag {};
struct DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC : BatchNormalizationGradFields<BatchNormalizationGradTag> {
    static constexpr OperatorType kType = OperatorType::BATCH_NORMALIZATION_GRAD;
};
struct DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC
    : BatchNormalizationGradFields<BatchNormalizationTrainingGradTag> {
    static constexpr OperatorType kType = OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD;
};

struct DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::BATCH_NORMALIZATION_TRAINING;
    TensorDesc InputTensor;
    TensorDesc ScaleTensor;
    TensorDesc BiasTensor;
    std::optional<TensorDesc> FusedAddTensor;
    TensorDesc OutputTensor;
    TensorDesc OutputMeanTensor;
    TensorDesc OutputVarianceTensor;
    float Epsilon = 0.0f;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("ScaleTensor", s.ScaleTensor, TensorRole::Input);
        v.tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.optional_tensor("FusedAddTensor", s.FusedAddTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.tensor("OutputMeanTensor", s.OutputMeanTensor, TensorRole::Output);
        v.tensor("OutputVarianceTensor", s.OutputVarianceTensor, TensorRole::Output);
        v.float32("Epsilon", s.Epsilon);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

}  // namespace dmlref
