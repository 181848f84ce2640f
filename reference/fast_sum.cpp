// FastSum's vectorised row update (fast_sum.hpp), cloned for AVX-512 and AVX2: each clone performs the
// same IEEE-754 double operations in the same order (no FMA: -ffp-contract=off), so the bits
// do not depend on which one the CPU runs.
#include "fast_sum.hpp"

#include <cstring>
#include <type_traits>
#include <utility>

namespace dmlref::reference {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void FastSum::add_scaled(double* __restrict s, double* __restrict c, double* __restrict b, const double* __restrict weight,
                         const double* __restrict value, double scale, size_t n) {
    for (size_t k = 0; k < n; ++k) add(s[k], c[k], b[k], (scale * weight[k]) * value[k]);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void FastSum::add_gathered(double* __restrict s, double* __restrict c, double* __restrict b, const double* __restrict weight,
                           const double* __restrict row, const int32_t* __restrict index, double scale, size_t n) {
    for (size_t k = 0; k < n; ++k) add(s[k], c[k], b[k], (scale * weight[k]) * row[index[k]]);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void FastSum::terms_gathered(double* __restrict out, const double* __restrict weight, const double* __restrict row,
                             const int32_t* __restrict index, double scale, size_t n) {
    for (size_t k = 0; k < n; ++k) out[k] = (scale * weight[k]) * row[index[k]];
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void FastSum::terms_strided(double* __restrict out, const double* __restrict weight, const double* __restrict value, int step,
                            double scale, size_t n) {
    if (step == 1)
        for (size_t k = 0; k < n; ++k) out[k] = (scale * weight[k]) * value[k];
    else
        for (size_t k = 0; k < n; ++k) out[k] = (scale * weight[k]) * value[2 * k];
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void FastSum::terms_gathered(double* __restrict out, const double* __restrict weight, const float* __restrict row,
                             const int32_t* __restrict index, double scale, size_t n) {
    for (size_t k = 0; k < n; ++k) out[k] = (scale * weight[k]) * double(row[index[k]]);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void FastSum::terms_strided(double* __restrict out, const double* __restrict weight, const float* __restrict value, int step,
                            double scale, size_t n) {
    if (step == 1)
        for (size_t k = 0; k < n; ++k) out[k] = (scale * weight[k]) * double(value[k]);
    else
        for (size_t k = 0; k < n; ++k) out[k] = (scale * weight[k]) * double(value[2 * k]);
}

namespace {
// terms_halved four pairs at a time: the four values widened together, each duplicated by a
// shuffle ({v0, v0, v1, v1} and {v2, v2, v3, v3}), so that weight and out are read and written
// with whole vectors (no interleaving of single lanes). The same operations as the scalar tail.
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef long long v4l __attribute__((vector_size(32)));
template <class V>
inline void halved(double* __restrict out, const double* __restrict weight, const V* __restrict value, double scale,
                   size_t pairs) {
    size_t i = 0;
#if defined(__GNUC__) && !defined(__clang__)
    for (; i + 4 <= pairs; i += 4) {
        v4d v;
        if constexpr (std::is_same_v<V, float>) {
            v4f f;
            std::memcpy(&f, value + i, sizeof f);
            v = __builtin_convertvector(f, v4d);
        } else {
            std::memcpy(&v, value + i, sizeof v);
        }
        const v4d lo = __builtin_shuffle(v, v4l{0, 0, 1, 1}), hi = __builtin_shuffle(v, v4l{2, 2, 3, 3});
        v4d w0, w1;
        std::memcpy(&w0, weight + 2 * i, sizeof w0);
        std::memcpy(&w1, weight + 2 * i + 4, sizeof w1);
        const v4d r0 = (scale * w0) * lo, r1 = (scale * w1) * hi;
        std::memcpy(out + 2 * i, &r0, sizeof r0);
        std::memcpy(out + 2 * i + 4, &r1, sizeof r1);
    }
#endif
    for (; i < pairs; ++i) {
        out[2 * i] = (scale * weight[2 * i]) * double(value[i]);
        out[2 * i + 1] = (scale * weight[2 * i + 1]) * double(value[i]);
    }
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif
void FastSum::terms_halved(double* __restrict out, const double* __restrict weight, const double* __restrict value, double scale,
                           size_t pairs) {
    halved(out, weight, value, scale, pairs);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif
void FastSum::terms_halved(double* __restrict out, const double* __restrict weight, const float* __restrict value, double scale,
                           size_t pairs) {
    halved(out, weight, value, scale, pairs);
}

namespace {
// add_tables for a fixed number of terms: the sums stay in registers.
template <size_t Q>
inline void add_fixed(double* __restrict s, double* __restrict c, double* __restrict b, const double* __restrict table,
                      size_t stride, size_t n) {
    for (size_t k = 0; k < n; ++k) {
        double S = 0, C = 0, B = 0;
        for (size_t j = 0; j < Q; ++j) FastSum::add(S, C, B, table[j * stride + k]);
        s[k] = S;
        c[k] = C;
        b[k] = B;
    }
}
template <size_t... Q>
inline bool add_fixed_any(size_t q, double* s, double* c, double* b, const double* table, size_t stride, size_t n,
                          std::index_sequence<Q...>) {
    return ((q == Q + 1 ? (add_fixed<Q + 1>(s, c, b, table, stride, n), true) : false) || ...);
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif
void FastSum::add_tables(double* __restrict s, double* __restrict c, double* __restrict b, const double* __restrict table, size_t q,
                         size_t stride, size_t n) {
    if (add_fixed_any(q, s, c, b, table, stride, n, std::make_index_sequence<16>{})) return;
    for (size_t k = 0; k < n; ++k) s[k] = c[k] = b[k] = 0;
    for (size_t j = 0; j < q; ++j)
        for (size_t k = 0; k < n; ++k) add(s[k], c[k], b[k], table[j * stride + k]);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool FastSum::narrow_floats(const double* __restrict s, const double* __restrict c, const double* __restrict b, float* out,
                            int64_t out_step, size_t n) {
    // narrow_rounded<float> without branches, so that the contiguous loop vectorises.
    auto one = [](double s, double c, double b, uint32_t& bad) {
        const double r = s + c;
        const double w = b * 0x1p-51 + std::fabs(r) * 0x1p-50 + 0x1p-1070;
        const uint32_t lo = to_bits(static_cast<float>(r - w)), hi = to_bits(static_cast<float>(r + w));
        const bool exact = b == 0;
        bad |= uint32_t(!exact) & (uint32_t(!(b <= std::numeric_limits<double>::max())) | uint32_t(lo != hi));
        return exact ? static_cast<float>(s + 0.0) : from_bits<float>(lo);
    };
    uint32_t bad = 0;
    if (out_step == 1) {
        for (size_t k = 0; k < n; ++k) out[k] = one(s[k], c[k], b[k], bad);
    } else {
        for (size_t k = 0; k < n; ++k) out[int64_t(k) * out_step] = one(s[k], c[k], b[k], bad);
    }
    return bad == 0;
}

}  // namespace dmlref::reference
