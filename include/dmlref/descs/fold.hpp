// The descs of FOLD and UNFOLD, with DirectML.h's struct and field names, in DirectML.h's order
// (DML_FOLD_OPERATOR_DESC, DML_UNFOLD_OPERATOR_DESC; DxDispatch's schema does not list them).
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// UNFOLD (im2col): InputTensor is the image {N, C, spatial...} with DimensionCount spatial
// dimensions; OutputTensor the columns {N, C * prod(WindowSizes), BlockCount}. The arrays have
// DimensionCount entries, one per spatial dimension.
struct DML_UNFOLD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::UNFOLD;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> WindowSizes;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> Dilations;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("WindowSizes", s.WindowSizes);
        v.uint_array("Strides", s.Strides);
        v.uint_array("Dilations", s.Dilations);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

// FOLD (col2im): the inverse scatter, overlapping values summed. InputTensor is the columns
// {N, C * prod(WindowSizes), BlockCount}, OutputTensor the image {N, C, spatial...}.
struct DML_FOLD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::FOLD;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> WindowSizes;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> Dilations;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("WindowSizes", s.WindowSizes);
        v.uint_array("Strides", s.Strides);
        v.uint_array("Dilations", s.Dilations);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

}  // namespace dmlref
