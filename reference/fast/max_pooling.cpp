// MAX_POOLING*'s and MAX_POOLING_GRAD's fast paths (reference/max_pooling.hpp, max_pooling_fast), tried by
// the record before the plain loop: the window of reference/max_pooling_internal.hpp as max_pooling.hpp's
// volume, then the kernels, instantiated here for every element type. One or more than three spatial
// dimensions: false, and the plain loop runs. Internal to dmlref.
#include "max_pooling.hpp"
#include "../max_pooling.hpp"
#include "../max_pooling_internal.hpp"
#include "max_pooling_grad.hpp"
#include "max_pooling_windows.hpp"

namespace dmlref::reference {

namespace {

// The fast path's view of a window with two or three spatial dimensions.
fast::Volume volume_of(const maxpool::Window& w, const TensorView& X) {
    fast::Volume v{fast::unit_axis(), {}, {}, 0, X.strides[w.spatial], X.strides[w.spatial + 1]};
    fast::PoolAxis* axes[3] = {&v.D, &v.H, &v.W};
    for (size_t i = 0; i < w.spatial; ++i) {
        fast::PoolAxis& a = *axes[3 - w.spatial + i];
        a = {w.in[i], w.out[i], w.stride[i], w.size[i], w.start[i], w.dilation[i], {}, {}};
        a.ranges();
    }
    if (w.spatial == 3) v.xs_d = X.strides[2];
    return v;
}

// The forward's values and indices, volume by volume.
bool max_pool_fast_path(const TensorDesc& input, const TensorDesc& output, const std::optional<TensorDesc>& indices,
                        const std::vector<uint32_t>& Strides, const std::vector<uint32_t>& WindowSize,
                        const std::vector<uint32_t>& StartPadding, const std::vector<uint32_t>* Dilations,
                        const Bindings& b) {
    const maxpool::Window w = maxpool::window_of(input, output, Strides, WindowSize, StartPadding, Dilations);
    if (w.spatial != 2 && w.spatial != 3) return false;
    const TensorView X(input, b.at("InputTensor"));
    const TensorView Y(output, b.at("OutputTensor"));
    const std::optional<TensorView> I =
        indices ? std::optional<TensorView>(std::in_place, *indices, b.at("OutputIndicesTensor")) : std::nullopt;
    const bool wide_indices = indices && indices->DataType == DataType::UINT64;
    const fast::Volume v = volume_of(w, X);
    dispatch(input.DataType, [&]<class T>() { fast::max_pool_fast<T>(v, X, Y, I, wide_indices); });
    return true;
}

}  // namespace

bool max_pooling_fast(const DML_MAX_POOLING_OPERATOR_DESC& d, const Bindings& b) {
    return max_pool_fast_path(d.InputTensor, d.OutputTensor, std::nullopt, d.Strides, d.WindowSize, d.StartPadding,
                              nullptr, b);
}
bool max_pooling_fast(const DML_MAX_POOLING1_OPERATOR_DESC& d, const Bindings& b) {
    return max_pool_fast_path(d.InputTensor, d.OutputTensor, d.OutputIndicesTensor, d.Strides, d.WindowSize,
                              d.StartPadding, nullptr, b);
}
bool max_pooling_fast(const DML_MAX_POOLING2_OPERATOR_DESC& d, const Bindings& b) {
    return max_pool_fast_path(d.InputTensor, d.OutputTensor, d.OutputIndicesTensor, d.Strides, d.WindowSize,
                              d.StartPadding, &d.Dilations, b);
}

// The grad's sums, volume by volume.
bool max_pooling_fast(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const maxpool::Window w = maxpool::window_of(d.InputTensor, d.InputGradientTensor, d.Strides, d.WindowSize,
                                                 d.StartPadding, &d.Dilations);
    if (w.spatial != 2 && w.spatial != 3) return false;
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView dY(d.InputGradientTensor, b.at("InputGradientTensor"));
    const TensorView dX(d.OutputGradientTensor, b.at("OutputGradientTensor"));
    const fast::Volume v = volume_of(w, X);
    dispatch(d.InputTensor.DataType, [&]<class T>() { fast::max_pool_grad_fast<T>(v, X, dY, dX); });
    return true;
}

}  // namespace dmlref::reference
