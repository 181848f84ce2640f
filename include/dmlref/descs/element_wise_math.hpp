// The descs of the element-wise math family (ELEMENT_WISE_EXP, LOG, SIN, COS, TAN, ASIN, ACOS, ATAN,
// SINH, COSH, TANH, ASINH, ACOSH, ATANH, ERF; POW, CONSTANT_POW, ATAN_YX), with DirectML.h's struct
// and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_ELEMENT_WISE_EXP_OPERATOR_DESC: OutputTensor = f(x) = exp(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_EXP_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_EXP;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_LOG_OPERATOR_DESC: OutputTensor = f(x) = log(x), the natural logarithm of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_LOG_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_LOG;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_SIN_OPERATOR_DESC: OutputTensor = f(x) = sin(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_SIN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SIN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_COS_OPERATOR_DESC: OutputTensor = f(x) = cos(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_COS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_COS;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_TAN_OPERATOR_DESC: OutputTensor = f(x) = tan(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_TAN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_TAN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ASIN_OPERATOR_DESC: OutputTensor = f(x) = asin(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ASIN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ASIN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ACOS_OPERATOR_DESC: OutputTensor = f(x) = acos(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ACOS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ACOS;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ATAN_OPERATOR_DESC: OutputTensor = f(x) = atan(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ATAN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ATAN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_SINH_OPERATOR_DESC: OutputTensor = f(x) = sinh(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_SINH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SINH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_COSH_OPERATOR_DESC: OutputTensor = f(x) = cosh(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_COSH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_COSH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_TANH_OPERATOR_DESC: OutputTensor = f(x) = tanh(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_TANH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_TANH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ASINH_OPERATOR_DESC: OutputTensor = f(x) = asinh(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ASINH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ASINH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC: OutputTensor = f(x) = acosh(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ACOSH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ATANH_OPERATOR_DESC: OutputTensor = f(x) = atanh(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ATANH_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ATANH;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ERF_OPERATOR_DESC: OutputTensor = f(x) = erf(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ERF_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ERF;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_POW_OPERATOR_DESC: OutputTensor = pow(g(x), e), e the element of ExponentTensor.
struct DML_ELEMENT_WISE_POW_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_POW;
    TensorDesc InputTensor;
    TensorDesc ExponentTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("ExponentTensor", s.ExponentTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC: OutputTensor = pow(g(x), Exponent).
struct DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CONSTANT_POW;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    float Exponent = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
        v.float32("Exponent", s.Exponent);
    }
};

// DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC: OutputTensor = atan2(y, x), y from ATensor, x from BTensor.
struct DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ATAN_YX;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
