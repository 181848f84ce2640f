// What max pooling and average pooling share beyond their loops: the geometry of their windows,
// seen through one view of either family's desc, for coverage, gen and the work estimate.
// Internal to dmlref.
#pragma once

#include "kit/family.hpp"

#include <string>
#include <vector>

namespace dmlref::reference {

struct PoolingView {
    const TensorDesc* input;    // the forward InputTensor (AVERAGE_POOLING_GRAD: its OutputGradientTensor)
    const TensorDesc* output;   // the forward OutputTensor (a grad's InputGradientTensor)
    const std::vector<uint32_t>* Strides;
    const std::vector<uint32_t>* WindowSize;
    const std::vector<uint32_t>* StartPadding;
    const std::vector<uint32_t>* EndPadding;
    const std::vector<uint32_t>* Dilations;  // null where the desc has none (all 1)
};

// Coverage: padding, stride>1, overlapping-windows, ceil-size, dilation>1.
void pooling_window_features(const PoolingView& v, std::vector<std::string>& f);
// The number of output positions whose window holds only padding (the operator's own DontCare
// entries), counted per dimension without building the list; 0 for a view that does not validate.
uint64_t pooling_empty_windows(const PoolingView& v);
// The taps of one window (the product of WindowSize).
uint64_t pooling_window_taps(const PoolingView& v);
// gen's "windows" candidates (kit::WindowsHook) for the view's input.
std::vector<uint64_t> pooling_window_positions(const PoolingView& v, const TensorDesc& in, int where);
// gen's "auto" sizes of the pooled tensor (kit::SizesHook), for OutputTensor, OutputIndicesTensor
// and a grad's InputGradientTensor.
bool pooling_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& error_path, std::string& error);

}  // namespace dmlref::reference

namespace dmlref::reference {
// dmlref explain for a pooling element: the window of a forward output element, or for a
// grad's dX element the dY elements whose windows hold it (inputs named `values` and `grads`).
void explain_pooling_window(const Case& c, const PoolingView& v, bool grad, uint64_t flat, const char* values, const char* grads,
                            FamilyExplanation& out);
}  // namespace dmlref::reference
