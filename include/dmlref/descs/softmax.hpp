// The descs of the softmax family (ACTIVATION_SOFTMAX, ACTIVATION_SOFTMAX1, ACTIVATION_LOG_SOFTMAX,
// ACTIVATION_LOG_SOFTMAX1, ACTIVATION_HARDMAX, ACTIVATION_HARDMAX1), with DirectML.h's struct and
// field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

namespace softmax_desc {

// DML_ACTIVATION_SOFTMAX_OPERATOR_DESC, DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC and
// DML_ACTIVATION_HARDMAX_OPERATOR_DESC { InputTensor; OutputTensor; }: over the last dimension of
// an InputTensor of effective rank at most 2.
template <OperatorType T> struct LastAxis {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC, DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC and
// DML_ACTIVATION_HARDMAX1_OPERATOR_DESC { InputTensor; OutputTensor; AxisCount; Axes; }: over the
// dimensions listed in Axes.
template <OperatorType T> struct ListedAxes {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t AxisCount = 0;
    std::vector<uint32_t> Axes;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("AxisCount", s.AxisCount);
        v.uint_array("Axes", s.Axes);
    }
};

}  // namespace softmax_desc

using DML_ACTIVATION_SOFTMAX_OPERATOR_DESC = softmax_desc::LastAxis<OperatorType::ACTIVATION_SOFTMAX>;
using DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC = softmax_desc::LastAxis<OperatorType::ACTIVATION_LOG_SOFTMAX>;
using DML_ACTIVATION_HARDMAX_OPERATOR_DESC = softmax_desc::LastAxis<OperatorType::ACTIVATION_HARDMAX>;
using DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC = softmax_desc::ListedAxes<OperatorType::ACTIVATION_SOFTMAX1>;
using DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC = softmax_desc::ListedAxes<OperatorType::ACTIVATION_LOG_SOFTMAX1>;
using DML_ACTIVATION_HARDMAX1_OPERATOR_DESC = softmax_desc::ListedAxes<OperatorType::ACTIVATION_HARDMAX1>;

}  // namespace dmlref
