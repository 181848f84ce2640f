// The descs of GEMM, MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT, with DirectML.h's
// struct and field names (DML_GEMM_OPERATOR_DESC, DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC,
// DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_MATRIX_TRANSFORM.
enum DML_MATRIX_TRANSFORM : uint32_t { DML_MATRIX_TRANSFORM_NONE = 0, DML_MATRIX_TRANSFORM_TRANSPOSE = 1 };
inline const EnumNames kMatrixTransformNames{"DML_MATRIX_TRANSFORM_", {"NONE", "TRANSPOSE"}};

// Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C), over the last two
// dimensions; the leading ones (up to two) are batch dimensions.
struct DML_GEMM_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::GEMM;
    TensorDesc ATensor;
    TensorDesc BTensor;
    std::optional<TensorDesc> CTensor;
    TensorDesc OutputTensor;
    uint32_t TransA = DML_MATRIX_TRANSFORM_NONE;
    uint32_t TransB = DML_MATRIX_TRANSFORM_NONE;
    float Alpha = 1.0f;
    float Beta = 1.0f;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.optional_tensor("CTensor", s.CTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("TransA", s.TransA, kMatrixTransformNames);
        v.enumeration("TransB", s.TransB, kMatrixTransformNames);
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

// Output = (A - AZeroPoint) x (B - BZeroPoint) in INT32, over the last two dimensions.
struct DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MATRIX_MULTIPLY_INTEGER;
    TensorDesc ATensor;
    std::optional<TensorDesc> AZeroPointTensor;
    TensorDesc BTensor;
    std::optional<TensorDesc> BZeroPointTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.optional_tensor("AZeroPointTensor", s.AZeroPointTensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.optional_tensor("BZeroPointTensor", s.BZeroPointTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// Output = ((A - AZeroPoint) * AScale) x ((B - BZeroPoint) * BScale) + Bias, integer data and
// float scales, bias and output.
struct DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::MATRIX_MULTIPLY_INTEGER_TO_FLOAT;
    TensorDesc ATensor;
    TensorDesc AScaleTensor;
    std::optional<TensorDesc> AZeroPointTensor;
    TensorDesc BTensor;
    TensorDesc BScaleTensor;
    std::optional<TensorDesc> BZeroPointTensor;
    std::optional<TensorDesc> BiasTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("AScaleTensor", s.AScaleTensor, TensorRole::Input);
        v.optional_tensor("AZeroPointTensor", s.AZeroPointTensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("BScaleTensor", s.BScaleTensor, TensorRole::Input);
        v.optional_tensor("BZeroPointTensor", s.BZeroPointTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
