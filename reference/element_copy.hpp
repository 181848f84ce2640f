// Copying elements as bits, for the families that move values without computing them (slice,
// join_split, and the other data-movement families): the unsigned integer as wide as an element,
// and a strided copy over a logical shape. Internal to dmlref.
#pragma once

#include "dmlref/tensor.hpp"
#include "dmlref/types.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <span>

namespace dmlref::reference {

// Calls f.template operator()<U>() with U the unsigned integer as wide as an element of t.
template <class F> decltype(auto) by_width(DataType t, F&& f) {
    switch (element_size(t)) {
        case 1: return f.template operator()<uint8_t>();
        case 2: return f.template operator()<uint16_t>();
        case 4: return f.template operator()<uint32_t>();
        case 8: return f.template operator()<uint64_t>();
    }
    std::abort();  // validated before evaluation
}

// Copies element bits: dst[dst_base + dst_strides * c] = src[src_base + src_strides * c] for
// every c in `sizes`. U is the unsigned integer of the element's width.
template <class U>
void copy_elements(std::span<const uint32_t> sizes, std::byte* dst, const int64_t* dst_strides, int64_t dst_base,
                   const std::byte* src, const int64_t* src_strides, int64_t src_base) {
    U* d = reinterpret_cast<U*>(dst);
    const U* s = reinterpret_cast<const U*>(src);
    for_each_run<2>(sizes, {dst_strides, src_strides}, {dst_base, src_base},
                    [&](const std::array<int64_t, 2>& off, int64_t count, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < count; ++i) d[off[0] + i * step[0]] = s[off[1] + i * step[1]];
    });
}

}  // namespace dmlref::reference
