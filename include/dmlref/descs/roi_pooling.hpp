// The desc of ROI_POOLING, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// Max pooling over regions of interest: InputTensor {N, C, H, W}; ROITensor rows [batch_id, x1, y1,
// x2, y2]; OutputTensor {num_rois, C, PooledSize.Height, PooledSize.Width}
// (DML_ROI_POOLING_OPERATOR_DESC).
struct DML_ROI_POOLING_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ROI_POOLING;
    TensorDesc InputTensor;
    TensorDesc ROITensor;
    TensorDesc OutputTensor;
    float SpatialScale = 1.0f;
    DML_SIZE_2D PooledSize;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("ROITensor", s.ROITensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.float32("SpatialScale", s.SpatialScale);
        v.size_2d("PooledSize", s.PooledSize);
    }
};

}  // namespace dmlref
