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

// An output of n elements, in a call that reads and writes `bytes` in all, is streamed where it is
// large and the call's data does not fit the last-level cache (switch.hpp): data that fits is read
// from the cache by the next call or operator, and non-temporal stores would evict it to memory
// (on many cores a cache-resident map runs at the cache's bandwidth, well above memory's).
// DMLREF_LAST_LEVEL_CACHE in the environment (switch.hpp) sets the cache size this compares with,
// for timing one machine's choice on another.
inline bool stream_output(size_t n, size_t bytes) { return n >= kStreamedElements && bytes > last_level_cache_bytes(); }

// Streamed outputs go in pieces of this many elements (a fence each): enough pieces to balance
// 16 cores and more on a 16M-element tensor, each long enough that its fence costs nothing.
inline constexpr size_t kStreamedRun = size_t(1) << 17;

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

// Elements [0, n) of an element-wise map as runs [begin, end) of `run` elements, spread over the
// cores by parallel_for: f(begin, end) for each; every element is written by one thread.
inline constexpr size_t kRunElements = size_t(1) << 14;
template <class F> void in_runs(size_t n, F&& f, size_t run = kRunElements) {
    parallel_for(int64_t((n + run - 1) / run), [&](int64_t k) {
        const size_t begin = size_t(k) * run;
        f(begin, std::min(n, begin + run));
    });
}

#if defined(__SSE2__)
// The callers' f4 and f1 capture by value: each run works on its own copies, which the compiler
// keeps in registers (a closure reached through parallel_for is in memory, where the vector stores
// might alias it: reloading its pointers every iteration cost 20% on one core).
// `bytes` is what the call reads and writes per element (stream_output).
template <class F4, class F1> void floats_streamed(float* y, size_t n, size_t bytes, const F4& f4, const F1& f1) {
    const bool streamed = stream_output(n, n * bytes) && reinterpret_cast<uintptr_t>(y) % alignof(float) == 0;
    in_runs(
        n,
        [&](size_t i, size_t end) {
        const F4 g4 = f4;
        const F1 g1 = f1;
        float* const out = y;
        if (streamed) {
            for (; i < end && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i) out[i] = g1(i);
            for (; i + 4 <= end; i += 4) _mm_stream_ps(out + i, g4(i));
            _mm_sfence();
        } else {
            for (; i + 4 <= end; i += 4) _mm_storeu_ps(out + i, g4(i));
        }
        for (; i < end; ++i) out[i] = g1(i);
        },
        streamed ? kStreamedRun : kRunElements);  // a fence per run: streamed runs are long
}

#endif

}  // namespace dmlref::reference::fast
