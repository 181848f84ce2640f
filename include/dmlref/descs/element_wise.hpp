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

}  // namespace dmlref
