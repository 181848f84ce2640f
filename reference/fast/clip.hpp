// Fast path of ELEMENT_WISE_CLIP1 without ScaleBias and with numeric bounds: D3D's min and max
// on the element type itself, branch-free, instead of through exact Numbers. Internal to dmlref.
//
// The same values as element_wise_clip.cpp's plain loop (test/test_fast_paths.cpp): with Min and
// Max not NaN the result is always one of x, Min or Max, whose bits store<T> would give back
// unchanged; a NaN x is ignored by min (giving Max), and -0 orders below +0.
#pragma once

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

namespace dmlref::reference::fast {

// a < b, a > b on values (FLOAT16 through its ordered key); neither holds for -0 against +0.
template <class T> inline bool less(T a, T b) {
    if constexpr (is_half_v<T>) return half_order_key(a) < half_order_key(b);
    else return a < b;
}
template <class T> inline bool negative_zero(T v) {
    if constexpr (std::is_integral_v<T>) return false;
    else return to_bits(v) == (bits_t<T>(1) << (sizeof(T) * 8 - 1));
}

// max(Min, min(x, Max)) with Min and Max not NaN.
template <class T> inline T clip1(T x, T Min, T Max) {
    // min_number(x, Max): NaN x gives Max; equal values give Max when it is -0, else x.
    const bool take_max = is_nan(x) | less(Max, x) | (!less(x, Max) & negative_zero(Max));
    const T m = select(take_max, Max, x);
    // max_number(Min, m): equal values give m when Min is -0, else Min.
    const bool take_m = less(Min, m) | (!less(m, Min) & negative_zero(Min));
    return select(take_m, m, Min);
}

// False, having written nothing, where the bounds are NaN.
template <class T> bool clip1_elements(const TensorView& X, const TensorView& Y, T Min, T Max) {
    if (is_nan(Min) || is_nan(Max)) return false;
    map_elements<T, T>(Y, [=](T x) { return clip1(x, Min, Max); }, X);
    return true;
}

}  // namespace dmlref::reference::fast
