// The desc of UPSAMPLE_2D, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/descs/resample.hpp"

namespace dmlref {

// Upsamples the image of a 4-D {N, C, H, W} InputTensor by the integer ScaleSize: output sizes
// {N, C, H * ScaleSize.Height, W * ScaleSize.Width} (DML_UPSAMPLE_2D_OPERATOR_DESC).
struct DML_UPSAMPLE_2D_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::UPSAMPLE_2D;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    DML_SIZE_2D ScaleSize;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.size_2d("ScaleSize", s.ScaleSize);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
    }
};

}  // namespace dmlref
