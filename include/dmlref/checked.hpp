// Checked size arithmetic: every product and sum that sizes a buffer or a loop goes through
// these, so that a hostile desc gives an error instead of a wrapped-around (small) size.
#pragma once

#include <cstdint>
#include <limits>

namespace dmlref {

inline constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

// a * b and a + b, or kSaturated (2^64 - 1) when the result does not fit in 64 bits. A saturated
// size is then over every limit, so the limit check that follows refuses it.
inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

}  // namespace dmlref
