// Fast path of SLICE_GRAD: dX written once, in memory order, row by row (a row: dX's last
// dimension). Internal to dmlref.
//
// The plain loop (reference/slice.cpp) zeroes all of dX, then comes back for the copies: two
// passes over dX's memory. Here a row the window misses is zeroed, and a row it reaches is zeroed
// and given its dY elements 4 KiB at a time, while that part is still in L1. (Written around the
// caches with non-temporal stores it was slower on the device, whose 300 MiB L3 holds dX.) The
// bytes are the plain loop's (test/test_fast_slice.cpp): +0 everywhere, then
// dX[CopyStart + InputWindowStrides * c] = dY[c].
#pragma once

#include "odometer.hpp"
#include "parallel.hpp"
#include "streamed.hpp"

#include "dmlref/tensor.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <type_traits>

namespace dmlref::reference::fast {

// One axis of the window in coordinates: dX coordinate copy_start + step * c receives dY's c,
// for 0 <= c < count (dY's size on the axis).
struct SliceAxis {
    int64_t copy_start, step, count;
};

// The dY coordinate whose copy lands on dX coordinate j, or -1 where none does.
inline int64_t slice_source(const SliceAxis& a, int64_t j) {
    const int64_t d = j - a.copy_start;
    if (d % a.step != 0) return -1;
    const int64_t c = d / a.step;
    return c >= 0 && c < a.count ? c : -1;
}

// The dY coordinates c of the last axis whose targets fall in dX columns [a, b): [lo, hi).
inline std::array<int64_t, 2> slice_sources_in(const SliceAxis& x, int64_t a, int64_t b) {
    // target(c) = copy_start + step * c is monotonic in c; solve a <= target(c) < b.
    auto ceil_div = [](int64_t n, int64_t d) { return n / d + ((n % d != 0) && ((n < 0) == (d < 0))); };
    auto floor_div = [](int64_t n, int64_t d) { return n / d - ((n % d != 0) && ((n < 0) != (d < 0))); };
    int64_t lo, hi;
    if (x.step > 0) {
        lo = ceil_div(a - x.copy_start, x.step);
        hi = floor_div(b - 1 - x.copy_start, x.step) + 1;
    } else {
        lo = ceil_div(b - 1 - x.copy_start, x.step);
        hi = floor_div(a - x.copy_start, x.step) + 1;
    }
    return {std::max<int64_t>(lo, 0), std::min<int64_t>(hi, x.count)};
}

// A window of stride 2 over contiguous dY rows writes each dY element and the +0 after it: on a
// little-endian machine that pair is one unsigned integer twice as wide holding the element's
// bits, which a loop of plain stores writes and the compiler vectorises.
template <class U>
using widened = std::conditional_t<sizeof(U) == 1, uint16_t, std::conditional_t<sizeof(U) == 2, uint32_t, uint64_t>>;

// SLICE_GRAD with dX packed (every byte of it a logical element, in row-major order); dY may have
// any strides. U is the unsigned integer as wide as an element. False, having written nothing,
// where dX is not packed.
template <class U> bool slice_grad_rows(const TensorView& dY, const TensorView& dX, std::span<const SliceAxis> axes) {
    if (!one_contiguous_run(dX, {})) return false;
    const size_t n = dX.sizes().size();
    const int64_t width = dX.sizes()[n - 1];
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < n; ++i) rows *= dX.sizes()[i];
    const U* dy = dY.data<U>();
    U* dx = dX.data<U>();
    const SliceAxis& last = axes[n - 1];
    const int64_t dy_step = dY.strides[n - 1];
    constexpr int64_t kChunk = 4096 / sizeof(U);  // a row is written 4 KiB at a time

    // Writes dX columns [a, b) of one row into `to` (to[0] is column a): +0, then the copies.
    auto lay_out = [&](U* to, const U* dy_row, int64_t a, int64_t b) {
        std::memset(to, 0, size_t(b - a) * sizeof(U));
        if (dy_row == nullptr) return;
        const auto [lo, hi] = slice_sources_in(last, a, b);
        if (last.step == 1 && dy_step == 1 && hi > lo)  // a window of whole runs: one copy
            return void(std::memcpy(to + last.copy_start + lo - a, dy_row + lo, size_t(hi - lo) * sizeof(U)));
        if constexpr (sizeof(U) <= 4 && std::endian::native == std::endian::little) {
            if (last.step == 2 && dy_step == 1 && hi - lo >= 2) {  // every other column: see widened
                using Pair = widened<U>;
                std::byte* at = reinterpret_cast<std::byte*>(to + last.copy_start + 2 * lo - a);
                for (int64_t c = lo; c + 1 < hi; ++c) {
                    const Pair v = dy_row[c];
                    std::memcpy(at + (c - lo) * sizeof(Pair), &v, sizeof(Pair));
                }
                to[last.copy_start + 2 * (hi - 1) - a] = dy_row[hi - 1];  // the zero after it may lie past b
                return;
            }
        }
        for (int64_t c = lo; c < hi; ++c) to[last.copy_start + last.step * c - a] = dy_row[c * dy_step];
    };
    // One row: dy_row is dY's row that lands on it (element 0 of its last axis), or null.
    auto write_row = [&](U* row, const U* dy_row) {
        for (int64_t a = 0; a < width; a += kChunk) lay_out(row + a, dy_row, a, std::min(width, a + kChunk));
    };

    constexpr int64_t kBlock = 64;  // rows per parallel task
    parallel_for((rows + kBlock - 1) / kBlock, [&](int64_t block) {
        Odometer<uint32_t> j(dX.sizes().data(), n - 1, block * kBlock);  // the row's coordinates
        for (int64_t row = block * kBlock; row < std::min(rows, (block + 1) * kBlock); ++row) {
            const U* dy_row = dy;
            for (size_t i = 0; i + 1 < n && dy_row != nullptr; ++i) {
                const int64_t c = slice_source(axes[i], j.c[i]);
                dy_row = c < 0 ? nullptr : dy_row + c * dY.strides[i];
            }
            write_row(dx + row * width, dy_row);
            j.next();
        }
    });
    return true;
}

}  // namespace dmlref::reference::fast
