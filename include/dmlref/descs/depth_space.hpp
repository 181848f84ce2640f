// The descs of SPACE_TO_DEPTH, SPACE_TO_DEPTH1, DEPTH_TO_SPACE and DEPTH_TO_SPACE1, with
// DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_DEPTH_SPACE_ORDER (DirectML.h).
enum DML_DEPTH_SPACE_ORDER : uint32_t {
    DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW = 0,
    DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH = 1,
};
inline const EnumNames kDepthSpaceOrderNames{"DML_DEPTH_SPACE_ORDER_", {"DEPTH_COLUMN_ROW", "COLUMN_ROW_DEPTH"}};

namespace depth_space_desc {

// The four structs share their fields: InputTensor, OutputTensor, BlockSize, and Order for the
// "1" versions (the older ones are DEPTH_COLUMN_ROW).
template <OperatorType T, bool HasOrder> struct Desc {
    static constexpr OperatorType kType = T;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t BlockSize = 0;
    uint32_t Order = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("BlockSize", s.BlockSize);
        if constexpr (HasOrder) v.enumeration("Order", s.Order, kDepthSpaceOrderNames);
    }
};

}  // namespace depth_space_desc

using DML_SPACE_TO_DEPTH_OPERATOR_DESC = depth_space_desc::Desc<OperatorType::SPACE_TO_DEPTH, false>;
using DML_SPACE_TO_DEPTH1_OPERATOR_DESC = depth_space_desc::Desc<OperatorType::SPACE_TO_DEPTH1, true>;
using DML_DEPTH_TO_SPACE_OPERATOR_DESC = depth_space_desc::Desc<OperatorType::DEPTH_TO_SPACE, false>;
using DML_DEPTH_TO_SPACE1_OPERATOR_DESC = depth_space_desc::Desc<OperatorType::DEPTH_TO_SPACE1, true>;

}  // namespace dmlref
