// The interior windows of a FLOAT32 max-pooling row scanned eight at a time in vector registers
// (argmax_row in max_pooling_windows.hpp): AVX-512 or AVX2 where the CPU has it. Internal to dmlref.
//
// Only comparisons and selections: no arithmetic, so no rounding; every instruction set gives
// the same winners, those of beats_fast's scalar loop (test/test_fast_pooling.cpp compares the
// whole operator with the plain loop).
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

}  // namespace dmlref::reference::fast
