// The descs of BATCH_NORMALIZATION, _GRAD, _TRAINING and _TRAINING_GRAD, with DirectML.h's struct and field names, and the fused activation they carry.
#pragma once

#include "dmlref/desc_base.hpp"

#include <array>
#include <string_view>

namespace dmlref {

// ---- A fused activation (DirectML's `const DML_OPERATOR_DESC* FusedActivation`) ------------
// The activations DirectML allows to be fused (windows-ai-docs dml-fused-activations.md;
// spec/dml-training-ops.md section 5.2), each a DML_ACTIVATION_*_OPERATOR_DESC whose
// InputTensor and OutputTensor are NULL. Type is the index into fused_activation_types();
// Parameters hold the desc's FLOAT fields in its struct order (names in the table).
struct FusedActivationType {
    std::string_view Name;                       // "ACTIVATION_LEAKY_RELU"
    std::array<std::string_view, 2> Parameters;  // {"Alpha", ""}: the FLOAT fields, "" when fewer
};
inline const std::array<FusedActivationType, 17>& fused_activation_types() {
    static const std::array<FusedActivationType, 17> t = {{
        {"ACTIVATION_LINEAR", {"Alpha", "Beta"}},          {"ACTIVATION_SIGMOID", {"", ""}},
        {"ACTIVATION_HARD_SIGMOID", {"Alpha", "Beta"}},    {"ACTIVATION_TANH", {"", ""}},
        {"ACTIVATION_SCALED_TANH", {"Alpha", "Beta"}},     {"ACTIVATION_RELU", {"", ""}},
        {"ACTIVATION_LEAKY_RELU", {"Alpha", ""}},          {"ACTIVATION_THRESHOLDED_RELU", {"Alpha", ""}},
        {"ACTIVATION_ELU", {"Alpha", ""}},                 {"ACTIVATION_CELU", {"Alpha", ""}},
        {"ACTIVATION_SCALED_ELU", {"Alpha", "Gamma"}},     {"ACTIVATION_SOFTPLUS", {"Steepness", ""}},
        {"ACTIVATION_PARAMETRIC_SOFTPLUS", {"Alpha", "Beta"}}, {"ACTIVATION_SOFTSIGN", {"", ""}},
        {"ACTIVATION_IDENTITY", {"", ""}},                 {"ACTIVATION_SHRINK", {"Bias", "Threshold"}},
        {"ACTIVATION_GELU", {"", ""}},
    }};
    return t;
}

struct DML_FUSED_ACTIVATION {
    uint32_t Type = 0;                  // index into fused_activation_types()
    std::array<float, 2> Parameters{};  // unused entries are 0
    std::string_view name() const { return fused_activation_types().at(Type).Name; }
    bool operator==(const DML_FUSED_ACTIVATION&) const = default;
};

// ---- Batch normalization (spec/dml-training-ops.md section 5) ------------------------------
// Spatial is a BOOL (0 or 1, as IncludePadding); deprecated at FL 4.0 and without effect on
// the values. A visitor reads FusedActivation with fused_activation(name, std::optional<...>&).
struct DML_BATCH_NORMALIZATION_OPERATOR_DESC {
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
struct DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC : BatchNormalizationGradFields<BatchNormalizationGradTag> {};
struct DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC : BatchNormalizationGradFields<BatchNormalizationTrainingGradTag> {};

struct DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC {
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
