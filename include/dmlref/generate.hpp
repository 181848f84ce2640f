// The seeded generator behind {"Random": {...}} inputs (docs/case-format.md, "Random").
//
// Algorithm (fixed; the same seed gives the same bits everywhere):
//   SplitMix64 with state = Seed; each element draws exactly two 64-bit words r1, r2.
//   u = (r1 >> 11) * 2^-53 in [0, 1).
//   If u < SpecialFraction: the element is Specials(type)[r2 mod count] (the curated list below).
//   Else, by Distribution:
//     "Uniform"  (float types): Min + (Max - Min) * ((r2 >> 11) * 2^-53), computed in double,
//                then rounded once to the type (nearest-even).
//     "Integers" (any type): Min + floor(((r2 as 128-bit) * (Max - Min + 1)) / 2^64), an integer in
//                [Min, Max], converted exactly to the type (Min, Max must be exact in the type).
#pragma once

#include "dmlref/types.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dmlref {

struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

// The curated boundary values of a type, one per line in lib/case/generate.cpp with a comment each.
std::vector<uint64_t> special_values(DataType t);

struct RandomSpec {
    uint64_t Seed = 0;
    std::string Distribution = "Uniform";  // "Uniform" or "Integers"
    double Min = -1.0, Max = 1.0;          // Uniform
    int64_t IntegerMin = 0;                // Integers (as 128-bit-safe signed range)
    uint64_t IntegerSpan = 0;              // Max - Min for Integers
    double SpecialFraction = 0.0;
};

// Fills `count` elements (element bits, little-endian) at `out`.
void generate_random(DataType t, const RandomSpec& spec, std::byte* out, uint64_t count);

}  // namespace dmlref
