// Element-wise maps over contiguous elements in runs spread over the cores, and FLOAT32 ones with
// SSE2 vectors, storing large outputs with non-temporal stores (no read of the output's cache
// lines before they are written). Internal to dmlref.
//
// The values are the caller's: f4(i) gives elements i..i+3 as a vector, f1(i) element i, and
// both must give the same bits (test/test_fast_paths.cpp compares every caller with its plain
// loop). How the results are stored never changes them.
#pragma once

#include "parallel.hpp"

#include "dmlref/tensor.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dmlref::reference::fast {

// From this many elements (16 MiB of FLOAT32) the output is written around the caches. A build
// may move the threshold (-DDMLREF_STREAMED_ELEMENTS=N, for timing); the values never depend on it.
#if defined(DMLREF_STREAMED_ELEMENTS)
inline constexpr size_t kStreamedElements = DMLREF_STREAMED_ELEMENTS;
#else
inline constexpr size_t kStreamedElements = size_t(1) << 22;
#endif

// Y and the inputs (Y's sizes) as single runs of contiguous elements, or false.
inline bool one_contiguous_run(const TensorView& Y, std::initializer_list<const TensorView*> inputs) {
    std::vector<const int64_t*> strides = {Y.strides.data()};
    for (const TensorView* t : inputs) strides.push_back(t->strides.data());
    int64_t expected = 1;
    for (size_t d = Y.sizes().size(); d-- > 0;) {
        if (Y.sizes()[d] == 1) continue;
        for (const int64_t* s : strides)
            if (s[d] != expected) return false;
        expected *= Y.sizes()[d];
    }
    return true;
}

// Elements [0, n) of an element-wise map as runs [begin, end) of kRunElements, spread over the
// cores by parallel_for: f(begin, end) for each; every element is written by one thread.
inline constexpr size_t kRunElements = size_t(1) << 14;
template <class F> void in_runs(size_t n, F&& f) {
    parallel_for(int64_t((n + kRunElements - 1) / kRunElements), [&](int64_t k) {
        const size_t begin = size_t(k) * kRunElements;
        f(begin, std::min(n, begin + kRunElements));
    });
}

#if defined(__SSE2__)
template <class F4, class F1> void floats_streamed(float* y, size_t n, F4&& f4, F1&& f1) {
    const bool streamed = n >= kStreamedElements && reinterpret_cast<uintptr_t>(y) % alignof(float) == 0;
    in_runs(n, [&](size_t i, size_t end) {
        if (streamed) {
            for (; i < end && reinterpret_cast<uintptr_t>(y + i) % 16 != 0; ++i) y[i] = f1(i);
            for (; i + 4 <= end; i += 4) _mm_stream_ps(y + i, f4(i));
            _mm_sfence();
        } else {
            for (; i + 4 <= end; i += 4) _mm_storeu_ps(y + i, f4(i));
        }
        for (; i < end; ++i) y[i] = f1(i);
    });
}

#endif

}  // namespace dmlref::reference::fast
