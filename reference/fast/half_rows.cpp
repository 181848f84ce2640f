// half_rows.hpp's bulk FLOAT16 conversions: F16C kernels (AVX2 and F16C, asked of the CPU at run
// time) and, elsewhere, loops of fast_sum.hpp's per-element conversions, which give the same bits
// (half_rows.hpp says why). The F16C kernels take their rounding from the instruction (nearest
// even), the float64 to float32 step from MXCSR's default (nearest; nothing in dmlref changes it),
// and that step is exact except outside FLOAT32's normal range, where half_rows.hpp shows it harmless.
#include "half_rows.hpp"

#include "../fast_sum.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define DMLREF_F16C_PATHS 1
#define DMLREF_F16C __attribute__((target("avx2,f16c")))
#endif

namespace dmlref::reference::fast {

namespace {

// The default loops: fast_sum.hpp's conversions one element at a time.
void widen_loop(float* __restrict out, const half* __restrict in, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void narrow_loop(half* __restrict out, const double* __restrict in, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = exact_result<half>(in[i]);
}

bool quads_loop(half* __restrict out, const half* __restrict a, const half* __restrict b, size_t n) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const double s = (widen_fast(a[2 * i]) + widen_fast(a[2 * i + 1])) +
                         (widen_fast(b[2 * i]) + widen_fast(b[2 * i + 1]));
        bad |= uint32_t(!std::isfinite(s));  // an infinity or NaN term (finite terms sum far below the overflow)
        out[i] = exact_result<half>(s);
    }
    return bad == 0;
}

#if defined(DMLREF_F16C_PATHS)

// FLOAT32's rounding to odd of s + 0 for four doubles (exact in FLOAT32's normal range; half_rows.hpp).
DMLREF_F16C inline __m128 odd_floats(__m256d s) {
    const __m256i bits = _mm256_castpd_si256(_mm256_add_pd(s, _mm256_setzero_pd()));  // -0 is +0
    const __m256i dropped = _mm256_set1_epi64x((int64_t(1) << 29) - 1);               // below FLOAT32's last bit
    const __m256i exact = _mm256_cmpeq_epi64(_mm256_and_si256(bits, dropped), _mm256_setzero_si256());
    const __m256i sticky = _mm256_andnot_si256(exact, _mm256_set1_epi64x(int64_t(1) << 29));
    return _mm256_cvtpd_ps(_mm256_castsi256_pd(_mm256_or_si256(_mm256_andnot_si256(dropped, bits), sticky)));
}

// exact_result<half> of eight doubles, lo's four then hi's.
DMLREF_F16C inline __m128i narrow8(__m256d lo, __m256d hi) {
    return _mm256_cvtps_ph(_mm256_set_m128(odd_floats(hi), odd_floats(lo)),
                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

DMLREF_F16C void widen_f16c(float* __restrict out, const uint16_t* __restrict in, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    for (; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}

// The tail of fewer than 8 elements goes through the same vector code on a padded copy.
DMLREF_F16C void narrow_f16c(uint16_t* __restrict out, const double* __restrict in, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         narrow8(_mm256_loadu_pd(in + i), _mm256_loadu_pd(in + i + 4)));
    if (i < n) {
        double t[8] = {};
        uint16_t h[8];
        std::memcpy(t, in + i, (n - i) * sizeof(double));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(h), narrow8(_mm256_loadu_pd(t), _mm256_loadu_pd(t + 4)));
        std::memcpy(out + i, h, (n - i) * sizeof(uint16_t));
    }
}

// The four pair sums p[0] + p[1], p[2] + p[3], p[4] + p[5], p[6] + p[7] in float64 (exact), in the
// lane order 0, 2, 1, 3 (VHADDPD's).
DMLREF_F16C inline __m256d pair_sums(const uint16_t* p) {
    const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_hadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(f)), _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
}

// Outputs 0 to 7 of sum_half_quads from a[0 .. 16) and b[0 .. 16); bad gets all ones in a lane
// whose sum is an infinity or NaN.
DMLREF_F16C inline __m128i quads8(const uint16_t* a, const uint16_t* b, __m256d& bad) {
    const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    // (a[2i] + a[2i + 1]) + (b[2i] + b[2i + 1]), and back to the order 0, 1, 2, 3.
    const __m256d lo = _mm256_permute4x64_pd(_mm256_add_pd(pair_sums(a), pair_sums(b)), 0xd8);
    const __m256d hi = _mm256_permute4x64_pd(_mm256_add_pd(pair_sums(a + 8), pair_sums(b + 8)), 0xd8);
    bad = _mm256_or_pd(bad, _mm256_cmp_pd(_mm256_and_pd(lo, magnitude), inf, _CMP_NLT_UQ));
    bad = _mm256_or_pd(bad, _mm256_cmp_pd(_mm256_and_pd(hi, magnitude), inf, _CMP_NLT_UQ));
    return narrow8(lo, hi);
}

DMLREF_F16C bool quads_f16c(uint16_t* __restrict out, const uint16_t* __restrict a, const uint16_t* __restrict b,
                            size_t n) {
    __m256d bad = _mm256_setzero_pd();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), quads8(a + 2 * i, b + 2 * i, bad));
    if (i < n) {
        uint16_t ta[16] = {}, tb[16] = {}, h[8];  // +0 where padded: finite
        std::memcpy(ta, a + 2 * i, (n - i) * 2 * sizeof(uint16_t));
        std::memcpy(tb, b + 2 * i, (n - i) * 2 * sizeof(uint16_t));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(h), quads8(ta, tb, bad));
        std::memcpy(out + i, h, (n - i) * sizeof(uint16_t));
    }
    return _mm256_movemask_pd(bad) == 0;
}

#endif

}  // namespace

bool have_f16c() {
#if defined(DMLREF_F16C_PATHS)
    // AVX2 (which GCC's and Clang's builtin test with the OS's saving of the AVX registers) and
    // F16C (CPUID leaf 1, ECX bit 29: Clang's builtin does not know the name).
    static const bool yes = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    }();
    return yes;
#else
    return false;
#endif
}

void widen_halves(float* __restrict out, const half* __restrict in, size_t n) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) return widen_f16c(out, reinterpret_cast<const uint16_t*>(in), n);
#endif
    widen_loop(out, in, n);
}

void narrow_halves(half* __restrict out, const double* __restrict in, size_t n) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c()) return narrow_f16c(reinterpret_cast<uint16_t*>(out), in, n);
#endif
    narrow_loop(out, in, n);
}

bool sum_half_quads(half* __restrict out, const half* __restrict a, const half* __restrict b, size_t n) {
#if defined(DMLREF_F16C_PATHS)
    if (have_f16c())
        return quads_f16c(reinterpret_cast<uint16_t*>(out), reinterpret_cast<const uint16_t*>(a),
                          reinterpret_cast<const uint16_t*>(b), n);
#endif
    return quads_loop(out, a, b, n);
}

}  // namespace dmlref::reference::fast
