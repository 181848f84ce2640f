#include "dmlref/generate.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"

#include <cmath>
#include <limits>

namespace dmlref {

std::vector<uint64_t> special_values(DataType t) {
    switch (t) {
        case DataType::FLOAT16:
            return {
                0x0000,  // +0
                0x8000,  // -0
                0x0001,  // smallest positive subnormal, 2^-24
                0x03ff,  // largest subnormal
                0x8001,  // smallest negative subnormal
                0x0400,  // smallest normal, 2^-14
                0x3c00,  // 1
                0xbc00,  // -1
                0x7bff,  // largest finite, 65504
                0xfbff,  // most negative finite
                0x7c00,  // +inf
                0xfc00,  // -inf
                0x7e00,  // canonical quiet NaN
                0xfe00,  // negative quiet NaN
                0x7e01,  // quiet NaN with a payload
                0x7d00,  // signalling NaN (quiet bit clear)
            };
        case DataType::FLOAT32:
            return {
                0x00000000,  // +0
                0x80000000,  // -0
                0x00000001,  // smallest positive subnormal, 2^-149
                0x007fffff,  // largest subnormal
                0x80000001,  // smallest negative subnormal
                0x00800000,  // smallest normal, 2^-126
                0x3f800000,  // 1
                0xbf800000,  // -1
                0x7f7fffff,  // largest finite
                0xff7fffff,  // most negative finite
                0x7f800000,  // +inf
                0xff800000,  // -inf
                0x7fc00000,  // canonical quiet NaN
                0xffc00000,  // negative quiet NaN
                0x7fc00001,  // quiet NaN with a payload
                0x7fa00000,  // signalling NaN (quiet bit clear)
            };
        case DataType::FLOAT64:
            return {
                0x0000000000000000ull,  // +0
                0x8000000000000000ull,  // -0
                0x0000000000000001ull,  // smallest positive subnormal, 2^-1074
                0x000fffffffffffffull,  // largest subnormal
                0x8000000000000001ull,  // smallest negative subnormal
                0x0010000000000000ull,  // smallest normal, 2^-1022
                0x3ff0000000000000ull,  // 1
                0xbff0000000000000ull,  // -1
                0x7fefffffffffffffull,  // largest finite
                0xffefffffffffffffull,  // most negative finite
                0x7ff0000000000000ull,  // +inf
                0xfff0000000000000ull,  // -inf
                0x7ff8000000000000ull,  // canonical quiet NaN
                0xfff8000000000000ull,  // negative quiet NaN
                0x7ff8000000000001ull,  // quiet NaN with a payload
                0x7ff4000000000000ull,  // signalling NaN (quiet bit clear)
            };
        default: break;
    }
    return dispatch(t, [&]<class T>() -> std::vector<uint64_t> {
        if constexpr (std::is_integral_v<T>) {
            auto b = [](T v) { return uint64_t(to_bits(v)); };
            using L = std::numeric_limits<T>;
            std::vector<uint64_t> v = {
                b(T(0)),             // zero
                b(T(1)),             // one
                b(L::max()),         // largest
                b(T(L::max() - 1)),  // largest - 1
                b(L::min()),         // smallest (0 for unsigned types)
                b(T(L::min() + 1)),  // smallest + 1
            };
            if constexpr (std::is_signed_v<T>) v.push_back(b(T(-1)));  // minus one
            return v;
        } else {
            return {};
        }
    });
}

void generate_random(DataType t, const RandomSpec& spec, std::byte* out, uint64_t count) {
    SplitMix64 rng{spec.Seed};
    const std::vector<uint64_t> specials = special_values(t);
    const size_t width = element_size(t);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t r1 = rng.next();
        const uint64_t r2 = rng.next();
        const double u = double(r1 >> 11) * 0x1p-53;
        uint64_t bits;
        if (u < spec.SpecialFraction) {
            bits = specials[r2 % specials.size()];
        } else if (spec.Distribution == "Uniform") {
            const double v = spec.Min + (spec.Max - spec.Min) * (double(r2 >> 11) * 0x1p-53);
            bits = dispatch(t, [&]<class T>() -> uint64_t {
                if constexpr (is_floating_v<T>) return uint64_t(to_bits(round_to_float<T>(v)));
                else return 0;  // the case reader allows Uniform for float types only
            });
        } else {  // "Integers"
            const uint128_t scaled = (uint128_t)r2 * ((uint128_t)spec.IntegerSpan + 1);
            const int128_t v = int128_t(spec.IntegerMin) + int128_t(scaled >> 64);
            bits = dispatch(t, [&]<class T>() -> uint64_t {
                if constexpr (is_floating_v<T>) return uint64_t(to_bits(round_to_float<T>(double(v))));
                else return uint64_t(to_bits(T(v)));
            });
        }
        store_bits(t, out + i * width, bits);
    }
}

}  // namespace dmlref
