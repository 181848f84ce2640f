// The copy-speed element-wise fast paths (reference/fast/element_wise.cpp) against the plain loops,
// element for element (fast_check.hpp's check_op: fast on one thread and three, fast off): FLOAT16
// and FLOAT32 ADD (and ADD1), SUBTRACT, MULTIPLY, DIVIDE, SQRT; FLOAT16 MAX, MIN, LESS_THAN; FLOAT32
// MAX, MIN, LESS_THAN; integer ADD, SUBTRACT, MULTIPLY, MAX, MIN, DIVIDE, MODULUS_TRUNCATE and
// MODULUS_FLOOR of every width (every 8-bit pair, zero divisors, INT_MIN / -1, quotients next to
// an integer); INT8 and INT32 LESS_THAN; CAST FLOAT32 <-> FLOAT16 and INT32, INT8, UINT8 -> FLOAT16. Every FLOAT16 bit pattern
// for the unary ones and as the first operand of the binary ones (against hard second operands,
// broadcast by a zero stride, and against shuffled patterns), NaN payloads, signed zeros,
// subnormals, ties of the rounding and the overflow edges, odd lengths, rows starting at odd
// elements, and shapes the fast paths leave to the plain loop. The expected values are the plain
// loops', never the fast code's.
#include "fast_check.hpp"
#include "support.hpp"
#include "test_tier.hpp"

#include "../reference/fast/clip.hpp"
#include "../reference/fast/element_wise.hpp"
#include "../reference/fast/streamed.hpp"

#include "dmlref/descs/cast.hpp"
#include "dmlref/descs/element_wise.hpp"
#include "dmlref/descs/element_wise_clip.hpp"
#include "dmlref/descs/element_wise_logic.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <type_traits>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_element_wise {

using namespace dmlref;
using namespace dmlref::test;

namespace {

constexpr uint32_t kPatterns = 1u << 16;

// FLOAT16 second operands: -0 and +0, 1 and -1 (1 + 2^-11 is a tie of the rounding), 2^-11, the
// largest finite, both infinities, the smallest and the largest subnormal, a negative NaN with a
// payload, a signalling NaN, a value near 1/3; with every pattern as the first operand these hit
// every kind of operand pair (NaN, zero, infinity, subnormal, ties) on both sides.
const uint16_t kHardHalves[] = {0x8000, 0x0000, 0x3c00, 0xbc00, 0x1000, 0x7bff, 0x7c00,
                                0xfc00, 0x0001, 0x03ff, 0xfd55, 0x7c01, 0x3555};

// f() at each instruction-set level of the element-wise kernels this CPU has (AVX-512, AVX2 and
// F16C, the baseline: reference/fast/element_wise.hpp), so that each level's kernels meet the
// plain loop here; the default level restored after.
struct AllLevels {
    ~AllLevels() { reference::fast::set_element_wise_isa(2); }
};
template <class F> void at_each_isa(F&& f) {
    const AllLevels restore;
    for (int level = 2; level >= 0; --level) {
        if (reference::fast::set_element_wise_isa(level) != level) continue;
        INFO("instruction-set level " << level);
        f();
    }
}

// check_op at each level: the inputs' plain-loop result computed once (it is the same at every
// level), the fast paths at each.
void check_op_at_each_isa(const Operator& op, const Buffers& inputs) {
    const Buffers plain = plain_result(op, inputs);
    at_each_isa([&] { check_fast(op, inputs, plain); });
}

template <class T> void put(Buffers& b, size_t buffer, size_t element, T v) {
    std::memcpy(b.bytes[buffer].data() + element * sizeof(T), &v, sizeof(T));
}

template <class D>
Operator binary_op(DataType in, DataType out, const std::vector<uint32_t>& sizes,
                   const std::vector<uint32_t>& a_strides, const std::vector<uint32_t>& b_strides,
                   const std::vector<uint32_t>& y_strides) {
    D d;
    d.ATensor = desc(in, sizes, a_strides);
    d.BTensor = desc(in, sizes, b_strides);
    d.OutputTensor = desc(out, sizes, y_strides);
    return {D::kType, d};
}

template <class D> const D& desc_of(const Operator& op) { return get<D>(op.Desc); }

// Every FLOAT16 pattern as A against the hard halves as B, B one row broadcast by a zero stride;
// then A against shuffled patterns, packed. `out` is the output type.
template <class D> void check_half_binary(DataType out) {
    std::mt19937_64 rng(2100 + uint64_t(D::kType));
    const uint32_t hard = uint32_t(std::size(kHardHalves));
    const std::vector<uint32_t> sizes = {hard, kPatterns};
    {
        const Operator op = binary_op<D>(DataType::FLOAT16, out, sizes, {}, {1, 0}, {});
        const D& d = desc_of<D>(op);
        Buffers in = make_buffers<half>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                        {{"OutputTensor", &d.OutputTensor}});
        for (uint32_t r = 0; r < hard; ++r) {
            put<uint16_t>(in, 1, r, kHardHalves[r]);
            for (uint32_t i = 0; i < kPatterns; ++i) put<uint16_t>(in, 0, size_t(r) * kPatterns + i, uint16_t(i));
        }
        check_op(op, in);
    }
    // Shuffled pairs: every pattern against a pseudo-random one, several times over; an odd
    // length (a tail in every piece).
    const uint32_t rounds = sanitizer_tier() ? 1 : 2;
    const uint32_t n = rounds * kPatterns - 3;
    const Operator op = binary_op<D>(DataType::FLOAT16, out, {n}, {}, {}, {});
    const D& d = desc_of<D>(op);
    Buffers in = make_buffers<half>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                    {{"OutputTensor", &d.OutputTensor}});
    for (uint32_t i = 0; i < n; ++i) {
        put<uint16_t>(in, 0, i, uint16_t(i));
        put<uint16_t>(in, 1, i, uint16_t(rng()));
    }
    check_op(op, in);
}

// Random shapes, strides and hard elements of T: runs of stride 1, rows starting at odd elements
// (padded rows), broadcast rows and columns, and strided shapes the fast paths refuse.
template <class D, class T> void check_random_binary(DataType out, int count) {
    std::mt19937_64 rng = rng_for<T>(2200 + uint64_t(D::kType));
    for (int k = 0; k < count; ++k) {
        const std::vector<uint32_t> sizes = {1 + uint32_t(rng() % 5), 1 + uint32_t(rng() % 90)};
        auto strides = [&](std::vector<uint32_t> s) {
            switch (rng() % 4) {
                case 0: return std::vector<uint32_t>{};
                case 1: return std::vector<uint32_t>{0, 1};                               // one row, broadcast
                case 2: return std::vector<uint32_t>{s[1] + 1 + uint32_t(rng() % 3), 1};  // padded rows
                default: return random_strides(rng, s);
            }
        };
        std::vector<uint32_t> y_strides = strides(sizes);
        if (!y_strides.empty() && y_strides[0] == 0) y_strides.clear();  // an output is never broadcast
        const Operator op = binary_op<D>(data_type_of<T>(), out, sizes, strides(sizes), strides(sizes), y_strides);
        const D& d = desc_of<D>(op);
        INFO("iteration " << k << ", sizes " << sizes[0] << " x " << sizes[1]);
        check_op(op, make_buffers<T>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                     {{"OutputTensor", &d.OutputTensor}}));
    }
}

// Random shapes of rank 3 to 5 whose runs lie under several outer dimensions: sizes of 1 (dropped),
// A and B broadcast along random outer dimensions (a zero stride), padded dimensions (not merged),
// packed ones (merged), and enough runs for several pieces of fast::kRunElements, so that a piece
// starts in the middle of the outer dimensions' odometer.
template <class D, class T> void check_outer_dimensions(int count) {
    std::mt19937_64 rng = rng_for<T>(2250 + uint64_t(D::kType));
    for (int k = 0; k < count; ++k) {
        const size_t rank = 3 + rng() % 3;
        std::vector<uint32_t> sizes(rank);
        for (size_t i = 0; i + 1 < rank; ++i) sizes[i] = rng() % 4 == 0 ? 1 : 2 + uint32_t(rng() % 12);
        sizes[rank - 1] = rng() % 8 == 0 ? 1 + uint32_t(rng() % 31) : 32 + uint32_t(rng() % 100);
        for (;;) {  // at most 2^17 elements: halve the largest outer dimension
            uint64_t n = 1;
            for (uint32_t v : sizes) n *= v;
            if (n <= (1u << 17)) break;
            uint32_t& largest = *std::max_element(sizes.begin(), sizes.end() - 1);
            largest = (largest + 1) / 2;
        }
        // Per dimension, innermost first: 0 (broadcast; inputs only, outer dimensions only), the
        // packed stride, or one padded by up to 3 elements.
        auto strides = [&](bool input) {
            std::vector<uint32_t> s(rank);
            uint32_t next = 1;
            for (size_t i = rank; i-- > 0;) {
                const uint64_t r = rng() % 6;
                if (input && i + 1 < rank && r == 0) {
                    s[i] = 0;
                    continue;
                }
                s[i] = next;
                next *= sizes[i] + (r == 1 ? 1 + uint32_t(rng() % 3) : 0);
            }
            return s;
        };
        const Operator op = binary_op<D>(data_type_of<T>(), data_type_of<T>(), sizes, strides(true), strides(true),
                                         strides(false));
        const D& d = desc_of<D>(op);
        std::ostringstream shape;
        for (uint32_t v : sizes) shape << v << ' ';
        INFO("iteration " << k << ", sizes " << shape.str());
        check_op(op, make_buffers<T>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                     {{"OutputTensor", &d.OutputTensor}}));
    }
}

// CAST from `from` to `to`, n elements, the input's elements set by f(i) (bits of From).
template <class From, class F> void check_cast(DataType from, DataType to, uint32_t n, F f, bool padded = false) {
    std::mt19937_64 rng(2300);
    DML_CAST_OPERATOR_DESC d;
    // Padded: rows of 37 elements 40 apart, each starting at an element not a multiple of 8.
    const std::vector<uint32_t> sizes = padded ? std::vector<uint32_t>{n / 37, 37} : std::vector<uint32_t>{n};
    d.InputTensor = desc(from, sizes, padded ? std::vector<uint32_t>{40, 1} : std::vector<uint32_t>{});
    d.OutputTensor = desc(to, sizes, padded ? std::vector<uint32_t>{41, 1} : std::vector<uint32_t>{});
    Buffers in = make_buffers<From>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}});
    const size_t count = buffer_size(d.InputTensor) / sizeof(From);
    for (size_t i = 0; i < count; ++i) put<From>(in, 0, i, f(uint32_t(i)));
    check_op({OperatorType::CAST, d}, in);
}

// FLOAT32 bit patterns: zeros, ones and their neighbours, ties of a sum's rounding (1 + 2^-24 is
// half an ULP of 1), the largest finite and the overflow edge, the smallest normal, subnormals,
// infinities, NaNs of both signs with payloads (quiet and signalling).
const uint32_t kHardFloats[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f800001, 0x33800000, 0x33800001,
                                0xb3800000, 0x34000000, 0x3fc00000, 0x40400000, 0x3eaaaaab, 0x7f7fffff, 0xff7fffff,
                                0x7f000000, 0x73800000, 0x00800000, 0x80800000, 0x00400000, 0x00000001, 0x80000001,
                                0x007fffff, 0x1f800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
                                0xff812345, 0x7fffffff, 0x5f800000, 0x20000000};

// A FLOAT32 pattern: a hard one, any 32 bits, a value near 1 (sums and differences that round,
// quotients of nearby values), or a small one (subnormal results).
uint32_t float_bits(std::mt19937_64& rng) {
    const uint64_t r = rng();
    switch (r % 4) {
        case 0: return kHardFloats[(r >> 8) % std::size(kHardFloats)];
        case 1: return uint32_t(r >> 16);
        case 2:
            return uint32_t((r >> 40) & 1) << 31 | uint32_t(120 + (r >> 8) % 16) << 23 | (uint32_t(r >> 41) & 0x7fffff);
        default: return uint32_t((r >> 40) & 1) << 31 | uint32_t((r >> 8) % 30) << 23 | (uint32_t(r >> 41) & 0x7fffff);
    }
}

// A binary operator of FLOAT32 on every pair of hard patterns (packed), then n random pairs, packed
// and with B one row of 64 broadcast by a zero stride over rows written 67 apart.
template <class D> void check_float_binary(uint32_t n) {
    std::mt19937_64 rng(2800 + uint64_t(D::kType));
    const uint32_t h = uint32_t(std::size(kHardFloats));
    {
        const Operator op = binary_op<D>(DataType::FLOAT32, DataType::FLOAT32, {h * h}, {}, {}, {});
        const D& d = desc_of<D>(op);
        Buffers in = make_buffers<float>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                         {{"OutputTensor", &d.OutputTensor}});
        for (uint32_t k = 0; k < h * h; ++k) {
            put<uint32_t>(in, 0, k, kHardFloats[k % h]);
            put<uint32_t>(in, 1, k, kHardFloats[k / h]);
        }
        check_op(op, in);
    }
    for (const bool broadcast : {false, true}) {
        const std::vector<uint32_t> sizes = broadcast ? std::vector<uint32_t>{n / 64, 64} : std::vector<uint32_t>{n};
        const Operator op = broadcast ? binary_op<D>(DataType::FLOAT32, DataType::FLOAT32, sizes, {}, {0, 1}, {67, 1})
                                      : binary_op<D>(DataType::FLOAT32, DataType::FLOAT32, sizes, {}, {}, {});
        const D& d = desc_of<D>(op);
        Buffers in = make_buffers<float>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                         {{"OutputTensor", &d.OutputTensor}});
        for (size_t i = 0; i < buffer_size(d.ATensor) / 4; ++i) put<uint32_t>(in, 0, i, float_bits(rng));
        for (size_t i = 0; i < buffer_size(d.BTensor) / 4; ++i) put<uint32_t>(in, 1, i, float_bits(rng));
        check_op(op, in);
    }
}

// Integer edges of T: 0, 1, -1 (all bits), the extremes and their neighbours, 2^(N/2) (products
// that wrap), a bit pattern.
template <class T> std::vector<T> integer_edges() {
    using L = std::numeric_limits<T>;
    const T half = T(T(1) << (sizeof(T) * 4));
    return {T(0),     T(1),
            T(-1),    T(2),
            L::max(), T(L::max() - 1),
            L::min(), T(L::min() + 1),
            half,     T(half + 1),
            T(0x55),  T(uint64_t(0x9e3779b97f4a7c15ull))};
}

// A binary integer operator on every pair of T's edges, then on random shapes and strides.
template <class D, class T> void check_integer_binary(int count) {
    std::mt19937_64 rng = rng_for<T>(2900 + uint64_t(D::kType));
    const std::vector<T> e = integer_edges<T>();
    const uint32_t h = uint32_t(e.size());
    // Every pair, repeated to 5 * h * h elements (several vectors and a tail).
    const uint32_t n = 5 * h * h;
    const Operator op = binary_op<D>(data_type_of<T>(), data_type_of<T>(), {n}, {}, {}, {});
    const D& d = desc_of<D>(op);
    Buffers in = make_buffers<T>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                 {{"OutputTensor", &d.OutputTensor}});
    for (uint32_t k = 0; k < n; ++k) {
        put<T>(in, 0, k, e[k % h]);
        put<T>(in, 1, k, e[(k / h) % h]);
    }
    check_op(op, in);
    check_random_binary<D, T>(data_type_of<T>(), count);
}

// f.template operator()<T>() for each of the eight integer element types.
template <class F> void each_integer_type(F&& f) {
    f.template operator()<int8_t>();
    f.template operator()<uint8_t>();
    f.template operator()<int16_t>();
    f.template operator()<uint16_t>();
    f.template operator()<int32_t>();
    f.template operator()<uint32_t>();
    f.template operator()<int64_t>();
    f.template operator()<uint64_t>();
}

template <class D> void check_integer_types(int count) {
    each_integer_type([&]<class T>() { check_integer_binary<D, T>(count); });
}

// A divisor of T: 0, +-1, the extremes, small values, or any bits at a random magnitude.
template <class T> T divisor(std::mt19937_64& rng) {
    using L = std::numeric_limits<T>;
    const uint64_t r = rng();
    switch (r % 6) {
        case 0: {
            const T edges[] = {T(0), T(1), T(-1), T(2), L::max(), L::min(), T(L::min() + 1), T(L::max() - 1)};
            return edges[(r >> 8) % std::size(edges)];
        }
        case 1: return T(int64_t((r >> 8) % 41) - 20);
        default: return T(T(rng()) >> ((r >> 8) % (sizeof(T) * 8)));
    }
}

// A dividend for divisor b: q * b + e with e in {0, +-1, b - 1, 1 - b} (a quotient that is an
// integer or lies next to one, where a rounded quotient would truncate wrongly), wrapping; an
// extreme; or any bits.
template <class T> T dividend(std::mt19937_64& rng, T b) {
    using U = std::make_unsigned_t<T>;
    using L = std::numeric_limits<T>;
    const uint64_t r = rng();
    if (r % 8 == 0) return (r >> 8) % 2 ? L::min() : L::max();
    if (r % 8 == 1) return T(rng());
    const U q = U(U(rng()) >> ((r >> 8) % (sizeof(T) * 8)));
    const U e[] = {U(0), U(1), U(~U(0)), U(U(b) - 1), U(1 - U(b))};
    return T(U(uint64_t(q) * uint64_t(U(b)) + uint64_t(e[(r >> 16) % std::size(e)])));
}

// A division operator of T, element for element: for 8-bit types every pair of values; otherwise
// n pairs of divisor() and dividend(); packed, then B one row of 64 broadcast by a zero stride
// over rows written 67 apart.
template <class D, class T> void check_division(uint32_t n) {
    std::mt19937_64 rng = rng_for<T>(3200 + uint64_t(D::kType));
    const DataType t = data_type_of<T>();
    if constexpr (sizeof(T) == 1) n = 1u << 16;
    for (const bool broadcast : {false, true}) {
        const std::vector<uint32_t> sizes = broadcast ? std::vector<uint32_t>{n / 64, 64} : std::vector<uint32_t>{n};
        const Operator op = broadcast ? binary_op<D>(t, t, sizes, {}, {0, 1}, {67, 1})
                                      : binary_op<D>(t, t, sizes, {}, {}, {});
        const D& d = desc_of<D>(op);
        Buffers in = make_buffers<T>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                     {{"OutputTensor", &d.OutputTensor}});
        const size_t na = buffer_size(d.ATensor) / sizeof(T), nb = buffer_size(d.BTensor) / sizeof(T);
        std::vector<T> b(nb);
        for (size_t i = 0; i < nb; ++i) {
            b[i] = sizeof(T) == 1 && !broadcast ? T(i >> 8) : divisor<T>(rng);
            put<T>(in, 1, i, b[i]);
        }
        for (size_t i = 0; i < na; ++i)
            put<T>(in, 0, i, sizeof(T) == 1 && !broadcast ? T(i) : dividend<T>(rng, b[broadcast ? i % 64 : i]));
        INFO("broadcast " << broadcast);
        check_op(op, in);
    }
}

template <class D> void check_division_types(uint32_t n, int count) {
    each_integer_type([&]<class T>() { check_division<D, T>(n); });
    check_integer_types<D>(count);
}

// Streams every large output while alive (the last-level cache size taken as 0), then restores it.
struct StreamEverything {
    size_t saved = reference::last_level_cache_bytes();
    StreamEverything() { reference::set_last_level_cache_bytes(0); }
    ~StreamEverything() { reference::set_last_level_cache_bytes(saved); }
};

TEST_CASE("cache sizes as sysfs and DMLREF_LAST_LEVEL_CACHE write them, and what is not one") {
    using reference::parse_cache_size;
    CHECK(parse_cache_size("32768K\n") == size_t(32768) * 1024);  // sysfs's form
    CHECK(parse_cache_size("300M") == size_t(300) << 20);
    CHECK(parse_cache_size("1g") == size_t(1) << 30);
    CHECK(parse_cache_size("4096") == size_t(4096));
    CHECK(parse_cache_size("0") == size_t(0));
    // Not sizes: no digits, a fraction, a unit with more after it, a sign, past size_t.
    for (const char* bad :
         {"", "K", "abc", "1.5G", "300MB", "-1", "+5", "12 34", "99999999999999999999", "18446744073709551615G"})
        CHECK_MESSAGE(!parse_cache_size(bad).has_value(), bad);
}

// CLIP_GRAD1 FLOAT32's bounds: ordinary ones, signed zeros (x = -0 or +0 equal to both), infinite
// ones, subnormal ones, bounds in the wrong order (every dX +0), equal ones.
const std::pair<uint32_t, uint32_t> kClipBounds[] = {
    {0xbf000000, 0x3f000000}, {0x80000000, 0x00000000}, {0x00000000, 0x3f800000}, {0xff800000, 0x7f800000},
    {0x00000001, 0x007fffff}, {0x3f800000, 0xbf800000}, {0x3eaaaaab, 0x3eaaaaab}, {0xff7fffff, 0x80000001}};

// CLIP_GRAD1 of FLOAT32 over n packed elements: X every hard pattern, the bounds, their
// neighbours and random patterns; dY random patterns (NaN payloads kept as bits).
// each_isa: at every level, the inputs and the plain loop once (else at the level set now).
void check_clip_grad1_floats(std::mt19937_64& rng, uint32_t n, uint32_t lo, uint32_t hi, bool each_isa = false) {
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC g;
    g.InputTensor = g.InputGradientTensor = g.OutputGradientTensor = desc(DataType::FLOAT32, {n});
    g.MinMaxDataType = DataType::FLOAT32;
    g.Min = DML_SCALAR_UNION::of(std::bit_cast<float>(lo));
    g.Max = DML_SCALAR_UNION::of(std::bit_cast<float>(hi));
    Buffers in = make_buffers<float>(rng,
                                     {{"InputTensor", &g.InputTensor}, {"InputGradientTensor", &g.InputGradientTensor}},
                                     {{"OutputGradientTensor", &g.OutputGradientTensor}});
    const uint32_t near[] = {lo, hi, lo + 1, lo - 1, hi + 1, hi - 1};
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        put<uint32_t>(in, 0, i, r % 3 == 0 ? near[(r >> 8) % std::size(near)] : float_bits(rng));
        put<uint32_t>(in, 1, i, float_bits(rng));
    }
    INFO("n " << n << ", Min bits " << lo << ", Max bits " << hi);
    if (each_isa) check_op_at_each_isa({OperatorType::ELEMENT_WISE_CLIP_GRAD1, g}, in);
    else check_op({OperatorType::ELEMENT_WISE_CLIP_GRAD1, g}, in);
}

}  // namespace

TEST_CASE("CLIP_GRAD1 FLOAT32 fast path = plain loop at each level: hard bounds, every length to 100, streamed") {
    std::mt19937_64 rng(2900);
    at_each_isa([&] {
        for (const auto& [lo, hi] : kClipBounds)
            for (uint32_t n = 1; n <= 100; ++n) check_clip_grad1_floats(rng, n, lo, hi);
    });
    // Several pieces over the cores, with a tail; then the same streamed.
    const uint32_t n = uint32_t(reference::fast::kStreamedElements) + 5;
    check_clip_grad1_floats(rng, n, kClipBounds[0].first, kClipBounds[0].second, true);
    const StreamEverything streamed;
    check_clip_grad1_floats(rng, n, kClipBounds[1].first, kClipBounds[1].second, true);
}

TEST_CASE("CLIP_GRAD1 FLOAT32's AVX-512 kernel = its formula at every offset from a cache line") {
    // The kernel itself, called at outputs 0 to 16 elements (and one byte) past a 64-byte boundary,
    // so that its masked first elements, aligned vectors and masked last ones meet every split;
    // the expected dX is the formula dX = (x <= Min || x >= Max) ? +0 : dY, on the values, and
    // the bytes around the output stay as they were.
    const AllLevels restore;
    if (reference::fast::set_element_wise_isa(2) != 2) return;
    std::mt19937_64 rng(2950);
    const size_t n = 1000;
    alignas(64) static float x[n + 32], dy[n + 32];
    alignas(64) static unsigned char out[(n + 40) * 4];
    for (size_t i = 0; i < n + 32; ++i) {
        x[i] = std::bit_cast<float>(float_bits(rng));
        dy[i] = std::bit_cast<float>(float_bits(rng));
    }
    for (const auto& [lo, hi] : kClipBounds) {
        const float Min = std::bit_cast<float>(lo), Max = std::bit_cast<float>(hi);
        for (size_t skip = 0; skip <= 17; ++skip)
            for (const size_t count : {n, size_t(31), size_t(47), size_t(5)}) {
                const size_t shift = skip == 17 ? 1 : skip * 4;  // bytes from the boundary
                std::memset(out, 0x5a, sizeof out);
                float* dx = reinterpret_cast<float*>(out + shift);
                const size_t from = skip % 17;  // where in x and dY the elements are read
                REQUIRE(reference::fast::clip_grad1_float512(dx, x + from, dy + from, count, Min, Max));
                INFO("bytes past the boundary " << shift << ", count " << count);
                size_t wrong = 0;
                for (size_t i = 0; i < count; ++i) {
                    const float v = x[from + i];
                    const uint32_t expected = (v <= Min || v >= Max) ? 0u : std::bit_cast<uint32_t>(dy[from + i]);
                    uint32_t got;
                    std::memcpy(&got, out + shift + 4 * i, 4);
                    wrong += got != expected;
                }
                for (size_t k = 0; k < sizeof out; ++k)
                    if (k < shift || k >= shift + 4 * count) wrong += out[k] != 0x5a;
                CHECK(wrong == 0);
            }
    }
}

TEST_CASE("The element-wise kernels' instruction-set levels go as far as the CPU does") {
    // Each level's kernels meet the plain loops below only where it is reached: AVX-512 on a CPU
    // with AVX-512 F, BW, VL and DQ, AVX2 where it has AVX2 and F16C (CPUID leaf 1, ECX bit 29).
    const AllLevels restore;
    CHECK(reference::fast::set_element_wise_isa(0) == 0);
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool avx2 = __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx >> 29 & 1);
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    CHECK(reference::fast::set_element_wise_isa(1) == (avx2 ? 1 : 0));
    CHECK(reference::fast::set_element_wise_isa(2) == (avx512 ? 2 : avx2 ? 1 : 0));
#endif
}

TEST_CASE("FLOAT16 ADD, MULTIPLY, DIVIDE fast paths = plain loop: every pattern against hard and shuffled ones") {
    at_each_isa([&] {
        check_half_binary<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(DataType::FLOAT16);
        check_half_binary<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(DataType::FLOAT16);
        check_half_binary<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(DataType::FLOAT16);
    });
}

TEST_CASE("FLOAT16 MAX, MIN, LESS_THAN fast paths = plain loop: every pattern against hard and shuffled ones") {
    at_each_isa([&] {
        check_half_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(DataType::FLOAT16);
        check_half_binary<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(DataType::FLOAT16);
        check_half_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC>(DataType::UINT8);
    });
}

TEST_CASE("FLOAT16 SQRT fast path = plain loop, every bit pattern, packed and in padded rows of 61") {
    at_each_isa([&] {
        std::mt19937_64 rng(2400);
        for (const bool padded : {false, true}) {
            DML_ELEMENT_WISE_SQRT_OPERATOR_DESC d;
            const std::vector<uint32_t> sizes = padded ? std::vector<uint32_t>{(kPatterns + 60) / 61, 61}
                                                       : std::vector{kPatterns};
            d.InputTensor = desc(DataType::FLOAT16, sizes,
                                 padded ? std::vector<uint32_t>{67, 1} : std::vector<uint32_t>{});
            d.OutputTensor = desc(DataType::FLOAT16, sizes,
                                  padded ? std::vector<uint32_t>{65, 1} : std::vector<uint32_t>{});
            Buffers in = make_buffers<half>(rng, {{"InputTensor", &d.InputTensor}},
                                            {{"OutputTensor", &d.OutputTensor}});
            for (uint32_t i = 0; i < kPatterns; ++i)
                put<uint16_t>(in, 0, padded ? size_t(i / 61) * 67 + i % 61 : i, uint16_t(i));
            check_op({OperatorType::ELEMENT_WISE_SQRT, d}, in);
        }
    });
}

TEST_CASE("MAX, MIN, LESS_THAN fast paths = plain loop on random shapes, strides and hard values") {
    at_each_isa([&] {
        const int count = sanitizer_tier() ? 40 : 150;
        check_random_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, float>(DataType::FLOAT32, count);
        check_random_binary<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, float>(DataType::FLOAT32, count);
        check_random_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, half>(DataType::FLOAT16, count);
        check_random_binary<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, half>(DataType::FLOAT16, count);
        check_random_binary<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, half>(DataType::FLOAT16, count);
        check_random_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, float>(DataType::UINT8, count);
        check_random_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, int8_t>(DataType::UINT8, count);
        check_random_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, int32_t>(DataType::UINT8, count);
    });
}

TEST_CASE("FLOAT32 MAX and MIN fast paths = plain loop: every pair of hard values, NaN payloads and signed zeros") {
    at_each_isa([&] {
        const uint32_t hard[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
                                 0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345, 0x7fffffff, 0x00000001,
                                 0x80000001, 0x007fffff, 0x7f7fffff, 0xff7fffff, 0x3f800001, 0x00800000};
        const uint32_t h = uint32_t(std::size(hard));
        std::mt19937_64 rng(2500);
        auto check = [&](Operator op, const TensorDesc& a, const TensorDesc& b, const TensorDesc& y) {
            // Element k: A = hard[k % h], B = hard[k / h], every pair, packed.
            Buffers in = make_buffers<float>(rng, {{"ATensor", &a}, {"BTensor", &b}}, {{"OutputTensor", &y}});
            for (uint32_t k = 0; k < h * h; ++k) {
                put<uint32_t>(in, 0, k, hard[k % h]);
                put<uint32_t>(in, 1, k, hard[k / h]);
            }
            check_op(op, in);
        };
        const Operator mx = binary_op<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {h * h},
                                                                          {}, {}, {});
        const auto& dx = desc_of<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(mx);
        check(mx, dx.ATensor, dx.BTensor, dx.OutputTensor);
        const Operator mn = binary_op<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {h * h},
                                                                          {}, {}, {});
        const auto& dn = desc_of<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(mn);
        check(mn, dn.ATensor, dn.BTensor, dn.OutputTensor);
    });
}

TEST_CASE("CAST fast paths = plain loop: FLOAT16 <-> FLOAT32, INT32, INT8, UINT8 -> FLOAT16") {
    // Every FLOAT16 pattern into FLOAT32 (NaN payloads, signalling NaNs, subnormals).
    check_cast<uint16_t>(DataType::FLOAT16, DataType::FLOAT32, kPatterns, [](uint32_t i) { return uint16_t(i); });
    check_cast<uint16_t>(
        DataType::FLOAT16, DataType::FLOAT32, 37 * 300, [](uint32_t i) { return uint16_t(i * 7); }, true);
    // FLOAT32 into FLOAT16: every pattern of the top 16 bits with low bits below, at and above the
    // tie of FLOAT16's rounding in the normal range (0x1000) and the values' neighbours: every
    // exponent, subnormal results and their ties, the overflow edge (65520 = 0x477ff000 is the tie
    // to infinity), NaN payloads (0x7f800001 signalling, its payload below FLOAT16's bits).
    const uint32_t lows[] = {0x0000, 0x1000, 0x0fff, 0x1001, 0x2000, 0x3000, 0xffff, 0x0001};
    const uint32_t l = uint32_t(std::size(lows));
    check_cast<float>(DataType::FLOAT32, DataType::FLOAT16, kPatterns * l,
                      [&](uint32_t i) { return from_bits<float>((i / l) << 16 | lows[i % l]); });
    check_cast<float>(
        DataType::FLOAT32, DataType::FLOAT16, 37 * 500, [](uint32_t i) { return from_bits<float>(i * 2654435761u); },
        true);
    // INT32 into FLOAT16: around 2048 (ties from 2049 up), 65504 to 65520 (the last finite, the tie
    // to infinity), 2^24 (FLOAT32's exact limit), the extremes, and spread values.
    std::vector<int32_t> ints;
    for (int32_t base : {0, 2048, 4096, 65504, 65520, 1 << 24, 1 << 30, INT32_MAX - 40})
        for (int32_t k = -40; k <= 40; ++k) {
            ints.push_back(base + k);
            ints.push_back(-(base + k));
        }
    ints.push_back(INT32_MIN);
    for (uint32_t k = 0; k < 4000; ++k) ints.push_back(int32_t(k * 2654435761u) >> (k % 31));
    check_cast<int32_t>(DataType::INT32, DataType::FLOAT16, uint32_t(ints.size()), [&](uint32_t i) { return ints[i]; });
    check_cast<int32_t>(
        DataType::INT32, DataType::FLOAT16, 37 * 50, [&](uint32_t i) { return ints[i % ints.size()]; }, true);
    // Every INT8 and UINT8 value, and an odd length.
    check_cast<uint8_t>(DataType::INT8, DataType::FLOAT16, 256 * 3 + 5, [](uint32_t i) { return uint8_t(i); });
    check_cast<uint8_t>(DataType::UINT8, DataType::FLOAT16, 256 * 3 + 5, [](uint32_t i) { return uint8_t(i); });
    check_cast<uint8_t>(
        DataType::INT8, DataType::FLOAT16, 37 * 20, [](uint32_t i) { return uint8_t(i); }, true);
}

TEST_CASE("FLOAT32 ADD, SUBTRACT, MULTIPLY, DIVIDE fast paths = plain loop: hard pairs, random bits, broadcast") {
    at_each_isa([&] {
        const uint32_t n = sanitizer_tier() ? 64 * 200 : 64 * 1500;
        check_float_binary<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(n);
        check_float_binary<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC>(n);
        check_float_binary<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(n);
        check_float_binary<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(n);
        check_float_binary<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(n / 8);
        check_half_binary<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC>(DataType::FLOAT16);
    });
}

TEST_CASE("FLOAT32 arithmetic fast paths = plain loop on random shapes and strides, taken and declined") {
    at_each_isa([&] {
        const int count = sanitizer_tier() ? 30 : 100;
        check_random_binary<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, float>(DataType::FLOAT32, count);
        check_random_binary<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, float>(DataType::FLOAT32, count);
        check_random_binary<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, float>(DataType::FLOAT32, count);
        check_random_binary<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, float>(DataType::FLOAT32, count);
        check_random_binary<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, half>(DataType::FLOAT16, count);
        check_random_binary<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, half>(DataType::FLOAT16, count);
    });
}

TEST_CASE("ADD1 with a FusedActivation and SQRT with a ScaleBias decline the FLOAT32 fast paths") {
    std::mt19937_64 rng(3000);
    Operator add1 = binary_op<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {4096}, {}, {},
                                                                   {});
    auto& a = get<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>(add1.Desc);
    a.FusedActivation = DML_FUSED_ACTIVATION{5, {0, 0}};  // RELU
    Buffers in = make_buffers<float>(rng, {{"ATensor", &a.ATensor}, {"BTensor", &a.BTensor}},
                                     {{"OutputTensor", &a.OutputTensor}});
    for (size_t i = 0; i < 4096; ++i) put<uint32_t>(in, 0, i, float_bits(rng));
    check_op(add1, in);
    DML_ELEMENT_WISE_SQRT_OPERATOR_DESC d;
    d.InputTensor = desc(DataType::FLOAT32, {4096}, {});
    d.OutputTensor = desc(DataType::FLOAT32, {4096}, {});
    d.ScaleBias = DML_SCALE_BIAS{0.5f, -3.0f};
    Buffers x = make_buffers<float>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}});
    check_op({OperatorType::ELEMENT_WISE_SQRT, d}, x);
}

TEST_CASE("FLOAT32 SQRT fast path = plain loop: hard and random patterns, packed and in padded rows") {
    at_each_isa([&] {
        std::mt19937_64 rng(3100);
        const uint32_t rows = sanitizer_tier() ? 100 : 1000;
        for (const bool padded : {false, true}) {
            DML_ELEMENT_WISE_SQRT_OPERATOR_DESC d;
            const std::vector<uint32_t> sizes = padded ? std::vector<uint32_t>{rows, 61} : std::vector{rows * 61};
            d.InputTensor = desc(DataType::FLOAT32, sizes,
                                 padded ? std::vector<uint32_t>{64, 1} : std::vector<uint32_t>{});
            d.OutputTensor = desc(DataType::FLOAT32, sizes,
                                  padded ? std::vector<uint32_t>{63, 1} : std::vector<uint32_t>{});
            Buffers in = make_buffers<float>(rng, {{"InputTensor", &d.InputTensor}},
                                             {{"OutputTensor", &d.OutputTensor}});
            const uint32_t h = uint32_t(std::size(kHardFloats));
            for (size_t i = 0; i < buffer_size(d.InputTensor) / 4; ++i)
                put<uint32_t>(in, 0, i, i < h ? kHardFloats[i] : float_bits(rng));
            check_op({OperatorType::ELEMENT_WISE_SQRT, d}, in);
        }
    });
}

TEST_CASE("Integer ADD, SUBTRACT, MULTIPLY fast paths = plain loop (wrapping): every type, edges, random shapes") {
    at_each_isa([&] {
        const int count = sanitizer_tier() ? 10 : 40;
        check_integer_types<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(count);
        check_integer_types<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC>(count);
        check_integer_types<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(count);
    });
}

TEST_CASE("Integer MAX and MIN fast paths = plain loop: every type, edges, random shapes") {
    at_each_isa([&] {
        const int count = sanitizer_tier() ? 10 : 40;
        check_integer_types<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(count);
        check_integer_types<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(count);
    });
}

TEST_CASE("FLOAT32 MAX and MIN fast paths = plain loop: random bits, NaNs and zeros, packed and broadcast") {
    at_each_isa([&] {
        const uint32_t n = sanitizer_tier() ? 64 * 200 : 64 * 1500;
        check_float_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(n);
        check_float_binary<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(n);
    });
}

TEST_CASE("Integer DIVIDE and MODULUS fast paths = plain loop: zero divisors, INT_MIN / -1, near-integer quotients") {
    const uint32_t n = sanitizer_tier() ? 64 * 100 : 64 * 1000;
    const int count = sanitizer_tier() ? 10 : 40;
    check_division_types<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(n, count);
    check_division_types<DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC>(n, count);
    check_division_types<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC>(n, count);
}

TEST_CASE("Element-wise fast paths = plain loop on runs under several outer dimensions, broadcast and padded") {
    at_each_isa([&] {
        const int count = sanitizer_tier() ? 15 : 60;
        check_outer_dimensions<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(count);
        check_outer_dimensions<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, half>(count);
        check_outer_dimensions<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, float>(count);
        check_outer_dimensions<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, int32_t>(count);
        check_outer_dimensions<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC, int16_t>(count);
    });
}

TEST_CASE("Element-wise fast paths = plain loop over several runs on the cores") {
    // Long enough for several pieces of fast::kRunElements (check_op runs one thread and three).
    std::mt19937_64 rng(2600);
    const uint32_t n = uint32_t(3 * reference::fast::kRunElements + 7);
    const Operator op = binary_op<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(DataType::FLOAT16, DataType::FLOAT16, {n}, {},
                                                                         {}, {});
    const auto& d = desc_of<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(op);
    check_op(op, make_buffers<half>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                    {{"OutputTensor", &d.OutputTensor}}));
    check_cast<float>(DataType::FLOAT32, DataType::FLOAT16, n, [](uint32_t i) { return float(i) * 0.37f; });
    const Operator add = binary_op<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {n}, {},
                                                                       {}, {});
    const auto& da = desc_of<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(add);
    check_op(add, make_buffers<float>(rng, {{"ATensor", &da.ATensor}, {"BTensor", &da.BTensor}},
                                      {{"OutputTensor", &da.OutputTensor}}));
    const Operator mul = binary_op<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(DataType::INT32, DataType::INT32, {n}, {},
                                                                            {}, {});
    const auto& dm = desc_of<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(mul);
    check_op(mul, make_buffers<int32_t>(rng, {{"ATensor", &dm.ATensor}, {"BTensor", &dm.BTensor}},
                                        {{"OutputTensor", &dm.OutputTensor}}));
    const Operator mod = binary_op<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC>(DataType::INT16, DataType::INT16, {n},
                                                                                 {}, {}, {});
    const auto& dd = desc_of<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC>(mod);
    check_op(mod, make_buffers<int16_t>(rng, {{"ATensor", &dd.ATensor}, {"BTensor", &dd.BTensor}},
                                        {{"OutputTensor", &dd.OutputTensor}}));
}

TEST_CASE("Element-wise fast paths = plain loop on long rows whose outputs start anywhere in a 64-byte block") {
    at_each_isa([&] {
        // Rows of 1500 elements written 1501 apart: each row's kernel is called first for the elements
        // before its output's 64-byte boundary (a different count in each row), then for the rest.
        std::mt19937_64 rng(2650);
        auto rows = [&]<class D, class T>(DataType t) {
            const Operator op = binary_op<D>(t, t, {17, 1500}, {1503, 1}, {0, 1}, {1501, 1});
            const D& d = desc_of<D>(op);
            INFO("type " << int(t));
            check_op(op, make_buffers<T>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                         {{"OutputTensor", &d.OutputTensor}}));
        };
        rows.operator()<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(DataType::INT8);
        rows.operator()<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, half>(DataType::FLOAT16);
        rows.operator()<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, float>(DataType::FLOAT32);
        rows.operator()<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, uint16_t>(DataType::UINT16);
        rows.operator()<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC, int32_t>(DataType::INT32);
        rows.operator()<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, uint64_t>(DataType::UINT64);
        rows.operator()<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, int8_t>(DataType::INT8);
        rows.operator()<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, half>(DataType::FLOAT16);
    });
}

// D over T in rows of every length from 32 (the shortest run the fast paths take) to 160: every
// tail of a vector of 16, 32 and 64 lanes, and rows read and written at offsets that move from
// row to row (A, B and Y padded differently); B packed or one row broadcast by a zero stride.
template <class D, class T> void check_every_length(DataType out) {
    std::mt19937_64 rng = rng_for<T>(3300 + uint64_t(D::kType));
    for (uint32_t length = 32; length <= 160; ++length)
        for (const bool broadcast : {false, true}) {
            const std::vector<uint32_t> sizes = {3, length};
            const std::vector<uint32_t> b_strides = broadcast ? std::vector<uint32_t>{0, 1}
                                                              : std::vector{length + 1, 1u};
            const Operator op = binary_op<D>(data_type_of<T>(), out, sizes, {length + 3, 1}, b_strides,
                                             {length + 5, 1});
            const D& d = desc_of<D>(op);
            INFO("length " << length << ", broadcast " << broadcast);
            check_op(op, make_buffers<T>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                         {{"OutputTensor", &d.OutputTensor}}));
        }
}

TEST_CASE("Element-wise fast paths = plain loop on rows of every length from 32 to 160, at moving offsets") {
    at_each_isa([&] {
        check_every_length<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, half>(DataType::FLOAT16);
        check_every_length<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, half>(DataType::FLOAT16);
        check_every_length<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, half>(DataType::FLOAT16);
        check_every_length<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, half>(DataType::FLOAT16);
        check_every_length<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, half>(DataType::FLOAT16);
        check_every_length<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, half>(DataType::FLOAT16);
        check_every_length<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, float>(DataType::FLOAT32);
        check_every_length<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, float>(DataType::FLOAT32);
        check_every_length<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(DataType::INT8);
        check_every_length<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, uint8_t>(DataType::UINT8);
        check_every_length<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, int8_t>(DataType::INT8);
        check_every_length<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, int8_t>(DataType::INT8);
        check_every_length<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, uint8_t>(DataType::UINT8);
        check_every_length<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, int16_t>(DataType::INT16);
        check_every_length<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, int32_t>(DataType::INT32);
        check_every_length<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, uint64_t>(DataType::UINT64);
        check_every_length<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, int8_t>(DataType::UINT8);
    });
}

TEST_CASE("Element-wise fast paths = plain loop with streamed outputs (packed, and rows at odd addresses)") {
    // From fast::kStreamedElements up the outputs go through non-temporal stores: a packed CAST
    // with an odd tail, and LESS_THAN into UINT8 rows of 1001 elements 1003 apart (every row's
    // first output at a different offset from a 16-byte boundary).
    // Streamed only where the call's data exceeds the last-level cache: here taken as 0.
    const StreamEverything streamed;
    const uint32_t n = uint32_t(reference::fast::kStreamedElements) + 5;
    at_each_isa([&] {
        check_cast<uint8_t>(DataType::INT8, DataType::FLOAT16, n, [](uint32_t i) { return uint8_t(i * 37u); });
    });
    if (sanitizer_tier()) return;  // the rows once, in the release build's run
    // Each operator's inputs and plain loop once, its fast paths at every level.
    {
        // FLOAT32 DIVIDE, packed, with an odd tail.
        std::mt19937_64 r(2750);
        const Operator op = binary_op<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {n},
                                                                             {}, {}, {});
        const auto& d = desc_of<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(op);
        Buffers in = make_buffers<float>(r, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                         {{"OutputTensor", &d.OutputTensor}});
        for (uint32_t i = 0; i < n; ++i) put<uint32_t>(in, 0, i, float_bits(r));
        check_op_at_each_isa(op, in);
    }
    {
        // FLOAT16 MULTIPLY, packed, with an odd tail (every pattern as A, B random patterns).
        std::mt19937_64 r(2755);
        const Operator op = binary_op<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(DataType::FLOAT16, DataType::FLOAT16,
                                                                               {n}, {}, {}, {});
        const auto& d = desc_of<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(op);
        Buffers in = make_buffers<half>(r, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                        {{"OutputTensor", &d.OutputTensor}});
        for (uint32_t i = 0; i < n; ++i) {
            put<uint16_t>(in, 0, i, uint16_t(i));
            put<uint16_t>(in, 1, i, uint16_t(r()));
        }
        check_op_at_each_isa(op, in);
    }
    {
        // INT32 DIVIDE, packed, with an odd tail (zero divisors among the small values).
        std::mt19937_64 r(2760);
        const Operator op = binary_op<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(DataType::INT32, DataType::INT32, {n}, {},
                                                                             {}, {});
        const auto& d = desc_of<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(op);
        check_op_at_each_isa(op, make_buffers<int32_t>(r, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                                       {{"OutputTensor", &d.OutputTensor}}));
    }
    std::mt19937_64 rng(2700);
    const uint32_t rows = n / 1001 + 1;
    const Operator op = binary_op<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC>(
        DataType::INT8, DataType::UINT8, {rows, 1001}, {1003, 1}, {0, 1}, {1003, 1});
    const auto& d = desc_of<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC>(op);
    check_op_at_each_isa(op, make_buffers<int8_t>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                                  {{"OutputTensor", &d.OutputTensor}}));
}

// ---- One input broadcast over the other (fast::repeat_map) --------------------------------------

// Bits for the broadcast tests: FLOAT32 float_bits (NaN payloads, signed zeros, infinities,
// subnormals, sums that round), FLOAT16 the hard halves or any 16 bits, integers any bits or small
// values (wrapping sums and products).
template <class T> void fill_bits(std::mt19937_64& rng, std::vector<std::byte>& bytes) {
    const size_t count = bytes.size() / sizeof(T);
    for (size_t i = 0; i < count; ++i) {
        if constexpr (std::is_same_v<T, float>) {
            const uint32_t v = float_bits(rng);
            std::memcpy(bytes.data() + i * 4, &v, 4);
        } else if constexpr (std::is_same_v<T, half>) {
            const uint64_t r = rng();
            const uint16_t v = r % 3 == 0 ? kHardHalves[(r >> 8) % std::size(kHardHalves)] : uint16_t(r >> 16);
            std::memcpy(bytes.data() + i * 2, &v, 2);
        } else {
            const T v = hard_element<T>(rng);
            std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
        }
    }
}

// D over T operands (output type `out`, packed) of `sizes`, A's and B's strides given: the plain
// loop once against the fast paths at each instruction-set level, on one thread and three, every
// byte of every buffer compared. The
// output is bound `shift` bytes into its buffer (its first element anywhere in a 64-byte block);
// in_place binds it to A's bytes (A packed as the output), as an operator computing in place.
template <class D, class T>
void check_broadcast(DataType out, const std::vector<uint32_t>& sizes, const std::vector<uint32_t>& a_strides,
                     const std::vector<uint32_t>& b_strides, size_t shift, bool in_place = false) {
    std::mt19937_64 rng = rng_for<T>(3500 + uint64_t(D::kType) + sizes.back() + shift);
    const Operator op = binary_op<D>(data_type_of<T>(), out, sizes, a_strides, b_strides, {});
    const D& d = desc_of<D>(op);
    {
        const Diagnostics v = validate(op);
        REQUIRE_FALSE(v.has_errors());
    }
    const size_t y_bytes = buffer_size(d.OutputTensor);
    std::vector<std::byte> a(buffer_size(d.ATensor) + (in_place ? shift : 0)), b(buffer_size(d.BTensor));
    std::vector<std::byte> y(y_bytes + shift + 64, std::byte{0x5a});
    fill_bits<T>(rng, a);
    fill_bits<T>(rng, b);
    auto run = [&](bool fast, int threads) {
        std::vector<std::byte> ra = a, rb = b, ry = y;
        reference::set_fast_paths_enabled(fast);
        reference::set_fast_path_threads(threads);
        Bindings bindings;
        bindings.bind("BTensor", rb);
        if (in_place) {
            const std::span<std::byte> both = std::span<std::byte>(ra).subspan(shift);
            bindings.bind("ATensor", both);
            bindings.bind("OutputTensor", both);
        } else {
            bindings.bind("ATensor", ra);
            bindings.bind("OutputTensor", std::span<std::byte>(ry).subspan(shift, y_bytes));
        }
        evaluate(op, bindings);
        reference::set_fast_paths_enabled(true);
        reference::set_fast_path_threads(0);
        return std::array<std::vector<std::byte>, 3>{std::move(ra), std::move(rb), std::move(ry)};
    };
    const auto plain = run(false, 1);  // the plain loop runs at every level alike: once
    at_each_isa([&] {
        for (const int threads : {1, 3}) {
            const auto fast = run(true, threads);
            for (size_t k = 0; k < 3; ++k) {
                const std::vector<std::byte>&p = plain[k], &f = fast[k];
                size_t at = p.size();  // memcmp first: the test binary's own loops are not optimised
                if (std::memcmp(p.data(), f.data(), p.size()) != 0)
                    at = size_t(std::mismatch(p.begin(), p.end(), f.begin()).first - p.begin());
                INFO("threads " << threads << ", buffer "
                                << "ABY"[k] << ", first difference at byte " << at << " of " << p.size());
                CHECK(at == p.size());
            }
        }
    });
}

// The broadcast shapes a backend sends, each long enough for several pieces of fast::kRunElements
// (pieces that start in the middle of a row or of a block): rows of many lengths (shorter than a
// vector, not a multiple of one, longer than a piece) broadcast as B and as A, columns, a channel's
// value over its image, scalars, a row of two dimensions, dimensions of size 1 among them, and a
// shape whose B does not repeat (the runs take it); the output at several offsets from a 64-byte
// boundary, and in place over A.
template <class D, class T> void check_broadcast_shapes(DataType out, bool in_place) {
    const uint32_t target = 40000;  // elements: three pieces of kRunElements and more
    struct Shape {
        std::vector<uint32_t> sizes, a, b;
    };
    std::vector<Shape> shapes;
    for (const uint32_t length : {1u, 2u, 3u, 5u, 31u, 64u, 65u, 100u, 1000u, 4096u, 20000u}) {
        const uint32_t rows = std::max(2u, target / length);
        shapes.push_back({{rows, length}, {}, {0, 1}});  // a row as B
        shapes.push_back({{rows, length}, {0, 1}, {}});  // a row as A
        shapes.push_back({{rows, length}, {}, {1, 0}});  // a column as B (rows elements, each over a row)
    }
    shapes.push_back({{3, 16, 9, 100}, {}, {0, 1, 0, 0}});  // a channel's value over its image, as B
    shapes.push_back({{2, 3, 5, 1400}, {0, 1, 0, 0}, {}});  // the same as A
    shapes.push_back({{200, 210}, {}, {0, 0}});             // a scalar as B
    shapes.push_back({{200, 210}, {0, 0}, {}});             // a scalar as A
    shapes.push_back({{7, 1, 90, 70}, {}, {0, 9, 70, 1}});  // a row of two dimensions, a size-1 one among them
    shapes.push_back({{40, 5, 200}, {}, {200, 0, 1}});      // B does not repeat: the runs
    auto text = [](const std::vector<uint32_t>& v) {
        std::ostringstream o;
        o << '{';
        for (uint32_t x : v) o << ' ' << x;
        o << " }";
        return o.str();
    };
    size_t k = 0;
    for (const Shape& s : shapes) {
        if (in_place && !s.a.empty()) continue;  // in place over a packed A only
        const size_t shift = (k++ * 12) % 64;    // bytes: not a multiple of 8 for some, declined
        INFO("sizes " << text(s.sizes) << ", A strides " << text(s.a) << ", B strides " << text(s.b) << ", shift "
                      << shift << (in_place ? ", in place" : ""));
        check_broadcast<D, T>(out, s.sizes, s.a, s.b, shift, in_place);
    }
}

TEST_CASE("Integer fast paths = plain loop on a broadcast input: rows, columns, channels, scalars, as A or B") {
    using namespace dmlref;
    check_broadcast_shapes<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(DataType::INT8, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(DataType::INT8, true);
    check_broadcast_shapes<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, int8_t>(DataType::UINT8, false);
    if (sanitizer_tier()) return;
    check_broadcast_shapes<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, uint8_t>(DataType::UINT8, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, int8_t>(DataType::INT8, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, int8_t>(DataType::INT8, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, uint16_t>(DataType::UINT16, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, int32_t>(DataType::INT32, true);
    check_broadcast_shapes<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, uint64_t>(DataType::UINT64, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, int32_t>(DataType::INT32, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC, int16_t>(DataType::INT16, false);
}

TEST_CASE("FLOAT16 and FLOAT32 fast paths = plain loop on a broadcast input: rows, columns, scalars, as A or B") {
    using namespace dmlref;
    check_broadcast_shapes<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, float>(DataType::FLOAT32, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, float>(DataType::UINT8, false);
    if (sanitizer_tier()) return;
    check_broadcast_shapes<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, float>(DataType::FLOAT32, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, float>(DataType::FLOAT32, true);
    check_broadcast_shapes<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, float>(DataType::FLOAT32, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, float>(DataType::FLOAT32, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, half>(DataType::FLOAT16, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, half>(DataType::FLOAT16, true);
    check_broadcast_shapes<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, half>(DataType::FLOAT16, false);
    check_broadcast_shapes<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, half>(DataType::FLOAT16, false);
}

TEST_CASE("Element-wise fast paths = plain loop on broadcast inputs with streamed outputs") {
    if (sanitizer_tier()) return;  // 4M elements a shape: the release build's run
    using namespace dmlref;
    const StreamEverything streamed;
    const uint32_t rows = uint32_t(reference::fast::kStreamedElements / 4096) + 1;
    // The bench's row (4096 INT8 as B), its output 16 bytes past a 64-byte boundary, and in place.
    check_broadcast<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(DataType::INT8, {rows, 4096}, {}, {0, 1}, 16);
    check_broadcast<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, int8_t>(DataType::INT8, {rows, 4096}, {}, {0, 1}, 0, true);
    // A row of 1000 FLOAT32 as A, a column of FLOAT16, a scalar compared into UINT8.
    check_broadcast<DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, float>(DataType::FLOAT32, {rows * 4, 1000}, {0, 1}, {},
                                                                    12);
    check_broadcast<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, half>(DataType::FLOAT16, {rows, 4096}, {}, {1, 0}, 8);
    check_broadcast<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, float>(DataType::UINT8, {rows, 4096}, {}, {0, 0},
                                                                             3);
}

}  // namespace dmlref_test_fast_element_wise
