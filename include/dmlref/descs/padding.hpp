// The descs of PADDING and PADDING1, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_PADDING_MODE (DirectML.h): WRAP is the newest value.
enum DML_PADDING_MODE : uint32_t {
    DML_PADDING_MODE_CONSTANT = 0,
    DML_PADDING_MODE_EDGE = 1,
    DML_PADDING_MODE_REFLECTION = 2,
    DML_PADDING_MODE_SYMMETRIC = 3,
    DML_PADDING_MODE_WRAP = 4,
};
inline const EnumNames kPaddingModeNames{"DML_PADDING_MODE_", {"CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP"}};

struct DML_PADDING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::PADDING;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t PaddingMode = DML_PADDING_MODE_CONSTANT;
    float PaddingValue = 0.0f;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("PaddingMode", s.PaddingMode, kPaddingModeNames);
        v.float32("PaddingValue", s.PaddingValue);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

struct DML_PADDING1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::PADDING1;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t PaddingMode = DML_PADDING_MODE_CONSTANT;
    DataType PaddingValueDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION PaddingValue;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("PaddingMode", s.PaddingMode, kPaddingModeNames);
        v.data_type("PaddingValueDataType", s.PaddingValueDataType);
        v.scalar("PaddingValue", s.PaddingValue, s.PaddingValueDataType);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

}  // namespace dmlref
