// The descs of the element-wise family, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_ELEMENT_WISE_ADD_OPERATOR_DESC: OutputTensor = ATensor + BTensor.
struct DML_ELEMENT_WISE_ADD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ADD;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC: OutputTensor = ATensor - BTensor.
struct DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SUBTRACT;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC: OutputTensor = ATensor * BTensor.
struct DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MULTIPLY;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC: OutputTensor = ATensor / BTensor (integers: truncated).
struct DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_DIVIDE;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MAX_OPERATOR_DESC: OutputTensor = max(ATensor, BTensor).
struct DML_ELEMENT_WISE_MAX_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MAX;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MIN_OPERATOR_DESC: OutputTensor = min(ATensor, BTensor).
struct DML_ELEMENT_WISE_MIN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MIN;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MEAN_OPERATOR_DESC: OutputTensor = (ATensor + BTensor) / 2.
struct DML_ELEMENT_WISE_MEAN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MEAN;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC: OutputTensor = f(x) = x of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_IDENTITY;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ABS_OPERATOR_DESC: OutputTensor = f(x) = abs(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ABS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ABS;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_CEIL_OPERATOR_DESC: OutputTensor = f(x) = ceil(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_CEIL_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CEIL;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC: OutputTensor = f(x) = floor(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_FLOOR;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_SIGN_OPERATOR_DESC: OutputTensor = f(x) = sign(x).
struct DML_ELEMENT_WISE_SIGN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SIGN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC: OutputTensor = f(x) = -x.
struct DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_NEGATE;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

}  // namespace dmlref
