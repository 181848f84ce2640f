// clip.hpp's FLOAT16 loops over contiguous elements, cloned for x86-64-v4 (AVX-512BW) and AVX2: 16-bit
// integer operations on the bit patterns alone, so every clone gives the same bits.
#include "clip.hpp"

namespace dmlref::reference::fast {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void clip1_half_run(uint16_t* __restrict y, const uint16_t* __restrict x, size_t n, uint16_t Min, uint16_t Max) {
    for (size_t i = 0; i < n; ++i) y[i] = clip1_half_bits(x[i], Min, Max);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void clip_grad1_half_run(uint16_t* __restrict dx, const uint16_t* __restrict x, const uint16_t* __restrict dy, size_t n,
                         uint16_t Min, uint16_t Max) {
    for (size_t i = 0; i < n; ++i) dx[i] = clip_grad1_half_bits(x[i], dy[i], Min, Max);
}

}  // namespace dmlref::reference::fast
