// The entry points of max pooling's fast paths (max_pooling.hpp): the kernels instantiated for
// every element type, here in the fast library. Internal to dmlref.
#include "max_pooling.hpp"
#include "max_pooling_grad.hpp"
#include "max_pooling_windows.hpp"

namespace dmlref::reference::fast {

void max_pool_volumes(DataType type, const Volume& v, const TensorView& X, const TensorView& Y,
                      const std::optional<TensorView>& I, bool wide_indices) {
    dispatch(type, [&]<class T>() { max_pool_fast<T>(v, X, Y, I, wide_indices); });
}

void max_pool_grad_volumes(DataType type, const Volume& v, const TensorView& X, const TensorView& dY,
                           const TensorView& dX) {
    dispatch(type, [&]<class T>() { max_pool_grad_fast<T>(v, X, dY, dX); });
}

}  // namespace dmlref::reference::fast
