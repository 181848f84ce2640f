// The interior windows of a FLOAT32 max-pooling row scanned eight at a time in vector registers,
// FLOAT16's sixteen at a time (argmax_row in max_pooling_windows.hpp): AVX-512 or AVX2 where the
// CPU has it. Internal to dmlref.
//
// Only comparisons and selections: no arithmetic, so no rounding; every instruction set gives
// the same winners, those of beats_fast's scalar loop (test/test_fast_pooling.cpp compares the
// whole operator with the plain loop). FLOAT16 compares 16-bit integer keys of the bit patterns
// (half_argmax_key), the values' bits passing unchanged.
#include "max_pooling_windows.hpp"

#include <algorithm>
#include <cstring>

namespace dmlref::reference::fast {

#if defined(__GNUC__)  // GCC and Clang vector extensions
namespace {

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

// Eight candidates p[0], p[S], ..., p[7 S]: reads p[0 .. 8 S) (S - 1 past the last). Through
// a reference, not a return value: no vector in the default ABI's calling convention.
template <int S> inline void load8(const float* p, v8f& out) {
    if constexpr (S == 1) {
        std::memcpy(&out, p, sizeof out);
    } else {
        v8f a, b;
        std::memcpy(&a, p, sizeof a);
        std::memcpy(&b, p + 8, sizeof b);
#if defined(__clang__) || __GNUC__ >= 12
        out = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#else
        out = __builtin_shuffle(a, b, v8i{0, 2, 4, 6, 8, 10, 12, 14});
#endif
    }
}

typedef int64_t v8l __attribute__((vector_size(64)));

template <int S>
inline int64_t scan(const float* const* candidates, const int32_t* candidate_index, int32_t m, int64_t n, float* value,
                    int64_t* index) {
    if (n < 8) return 0;
    for (int64_t next = 0; next < n; next += 8) {
        const int64_t k = std::min(next, n - 8);  // the last eight overlap the ones before: the same winners again
        v8f best, x;
        load8<S>(candidates[0] + k * S, best);
        v8i w = candidate_index[0] - v8i{};
        for (int32_t j = 1; j < m; ++j) {
            load8<S>(candidates[j] + k * S, x);
            // beats_fast: x > best, or best is NaN and x is not; = !(x <= best) and x is not NaN.
            const v8i wins = ~(x <= best) & (x == x);
            best = (v8f)(((v8i)x & wins) | ((v8i)best & ~wins));
            w = (wins & candidate_index[j]) | (w & ~wins);
        }
        std::memcpy(value + k, &best, sizeof best);
        // Window k + i's index: its candidate's for window 0, plus (k + i) * S.
        const v8l i = __builtin_convertvector(w, v8l) + (k + v8l{0, 1, 2, 3, 4, 5, 6, 7}) * S;
        std::memcpy(index + k, &i, sizeof i);
    }
    return n;
}

typedef int16_t v16s __attribute__((vector_size(32)));

// Sixteen FLOAT16 candidates' bits p[0], p[S], ..., p[15 S]: reads p[0 .. 16 S) (S - 1 past the last).
template <int S> __attribute__((always_inline)) inline void load16(const half* p, v16s& out) {
    if constexpr (S == 1) {
        std::memcpy(&out, p, sizeof out);
    } else {
        v16s a, b;
        std::memcpy(&a, p, sizeof a);
        std::memcpy(&b, p + 16, sizeof b);
#if defined(__clang__) || __GNUC__ >= 12
        out = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#else
        out = __builtin_shuffle(a, b, v16s{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
#endif
    }
}

// half_argmax_key (max_pooling_windows.hpp) of sixteen bit patterns, in 16 bits: the magnitude,
// negated for a negative value (-0 and +0 both 0; -inf is -0x7c00), and INT16_MIN for a NaN.
// Through a reference, as load8.
__attribute__((always_inline)) inline void argmax_keys(const v16s& b, v16s& key) {
    const v16s magnitude = b & 0x7fff;
    const v16s negative = b >> 15;  // 0 or -1 (arithmetic shift)
    const v16s nan = magnitude > 0x7c00;
    key = (((magnitude ^ negative) - negative) & ~nan) | (nan & int16_t(INT16_MIN));  // selects on masks: SSE2 too
}

// Always inlined: each clone of scan_windows compiles it for its own instruction set.
template <int S>
__attribute__((always_inline)) inline int64_t scan_half(const half* const* candidates, const int32_t* candidate_index,
                                                        int32_t m, int64_t n, half* value, int64_t* index) {
    if (n < 16 || m > INT16_MAX) return 0;
    for (int64_t next = 0; next < n; next += 16) {
        const int64_t k = std::min(next, n - 16);  // the last sixteen overlap the ones before: the same winners again
        v16s best, x;
        load16<S>(candidates[0] + k * S, best);
        v16s key, x_key, w = {};  // w: the winning candidate's j
        argmax_keys(best, key);
        for (int32_t j = 1; j < m; ++j) {
            load16<S>(candidates[j] + k * S, x);
            // beats_fast: x's key above best's.
            argmax_keys(x, x_key);
            const v16s wins = x_key > key;
            best = (x & wins) | (best & ~wins);
            key = (x_key & wins) | (key & ~wins);
            w = (wins & int16_t(j)) | (w & ~wins);
        }
        std::memcpy(static_cast<void*>(value + k), &best, sizeof best);
        int16_t winner[16];
        std::memcpy(winner, &w, sizeof w);
        for (int64_t i = 0; i < 16; ++i) index[k + i] = int64_t(candidate_index[winner[i]]) + (k + i) * S;
    }
    return n;
}

}  // namespace
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
int64_t
scan_windows(const float* const* candidates, const int32_t* candidate_index, int32_t m, int64_t n, int64_t step,
             float* value, int64_t* index) {
#if defined(__GNUC__)
    if (step == 1) return scan<1>(candidates, candidate_index, m, n, value, index);
    if (step == 2) return scan<2>(candidates, candidate_index, m, n, value, index);
#else
    (void)candidates, (void)candidate_index, (void)m, (void)n, (void)step, (void)value, (void)index;
#endif
    return 0;  // the caller's scalar scan
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
int64_t
scan_windows(const half* const* candidates, const int32_t* candidate_index, int32_t m, int64_t n, int64_t step,
             half* value, int64_t* index) {
#if defined(__GNUC__)
    if (step == 1) return scan_half<1>(candidates, candidate_index, m, n, value, index);
    if (step == 2) return scan_half<2>(candidates, candidate_index, m, n, value, index);
#else
    (void)candidates, (void)candidate_index, (void)m, (void)n, (void)step, (void)value, (void)index;
#endif
    return 0;  // the caller's scalar scan
}

}  // namespace dmlref::reference::fast
