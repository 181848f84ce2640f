// The descs of SLICE, SLICE1 and SLICE_GRAD, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

struct DML_SLICE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::SLICE;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Offsets;
    std::vector<uint32_t> Sizes;
    std::vector<uint32_t> Strides;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Offsets", s.Offsets);
        v.uint_array("Sizes", s.Sizes);
        v.uint_array("Strides", s.Strides);
    }
};

// InputWindowStrides is `const INT*` in DirectML.h (the doc page's "UINT" is a doc error).
struct DML_SLICE1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::SLICE1;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> InputWindowOffsets;
    std::vector<uint32_t> InputWindowSizes;
    std::vector<int32_t> InputWindowStrides;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("InputWindowOffsets", s.InputWindowOffsets);
        v.uint_array("InputWindowSizes", s.InputWindowSizes);
        v.int_array("InputWindowStrides", s.InputWindowStrides);
    }
};

struct DML_SLICE_GRAD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::SLICE_GRAD;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> InputWindowOffsets;
    std::vector<uint32_t> InputWindowSizes;
    std::vector<int32_t> InputWindowStrides;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("InputWindowOffsets", s.InputWindowOffsets);
        v.uint_array("InputWindowSizes", s.InputWindowSizes);
        v.int_array("InputWindowStrides", s.InputWindowStrides);
    }
};

}  // namespace dmlref
