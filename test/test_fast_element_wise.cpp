// The copy-speed element-wise fast paths (reference/fast/element_wise.cpp) against the plain loops,
// element for element (fast_check.hpp's check_op: fast on one thread and three, fast off): FLOAT16
// ADD, MULTIPLY, DIVIDE, SQRT, MAX, MIN, LESS_THAN; FLOAT32 MAX, MIN, LESS_THAN; INT8 and INT32
// LESS_THAN; CAST FLOAT32 <-> FLOAT16 and INT32, INT8, UINT8 -> FLOAT16. Every FLOAT16 bit pattern
// for the unary ones and as the first operand of the binary ones (against hard second operands,
// broadcast by a zero stride, and against shuffled patterns), NaN payloads, signed zeros,
// subnormals, ties of the rounding and the overflow edges, odd lengths, rows starting at odd
// elements, and shapes the fast paths leave to the plain loop. The expected values are the plain
// loops', never the fast code's.
#include "fast_check.hpp"
#include "support.hpp"
#include "test_tier.hpp"

#include "../reference/fast/streamed.hpp"

#include "dmlref/descs/cast.hpp"
#include "dmlref/descs/element_wise.hpp"
#include "dmlref/descs/element_wise_logic.hpp"

#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_element_wise {

using namespace dmlref;
using namespace dmlref::test;

namespace {

constexpr uint32_t kPatterns = 1u << 16;

// FLOAT16 second operands: -0, 1 (1 + 2^-11 is a tie of the rounding), 2^-11, the largest finite,
// infinity, the smallest subnormal, a negative NaN with a payload, a value near 1/3; with every
// pattern as the first operand these hit every kind of operand pair (NaN, zero, infinity,
// subnormal, ties) on both sides.
const uint16_t kHardHalves[] = {0x8000, 0x3c00, 0x1000, 0x7bff, 0x7c00, 0x0001, 0xfd55, 0x3555};

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

}  // namespace

TEST_CASE("FLOAT16 ADD, MULTIPLY, DIVIDE fast paths = plain loop: every pattern against hard and shuffled ones") {
    check_half_binary<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>(DataType::FLOAT16);
    check_half_binary<DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC>(DataType::FLOAT16);
    check_half_binary<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC>(DataType::FLOAT16);
}

TEST_CASE("FLOAT16 MAX, MIN, LESS_THAN fast paths = plain loop: every pattern against hard and shuffled ones") {
    check_half_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(DataType::FLOAT16);
    check_half_binary<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(DataType::FLOAT16);
    check_half_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC>(DataType::UINT8);
}

TEST_CASE("FLOAT16 SQRT fast path = plain loop, every bit pattern, packed and in padded rows") {
    std::mt19937_64 rng(2400);
    for (const bool padded : {false, true}) {
        DML_ELEMENT_WISE_SQRT_OPERATOR_DESC d;
        const std::vector<uint32_t> sizes = padded ? std::vector<uint32_t>{kPatterns / 64, 64} : std::vector{kPatterns};
        d.InputTensor = desc(DataType::FLOAT16, sizes, padded ? std::vector<uint32_t>{67, 1} : std::vector<uint32_t>{});
        d.OutputTensor = desc(DataType::FLOAT16, sizes,
                              padded ? std::vector<uint32_t>{65, 1} : std::vector<uint32_t>{});
        Buffers in = make_buffers<half>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}});
        for (uint32_t i = 0; i < kPatterns; ++i)
            put<uint16_t>(in, 0, padded ? size_t(i / 64) * 67 + i % 64 : i, uint16_t(i));
        check_op({OperatorType::ELEMENT_WISE_SQRT, d}, in);
    }
}

TEST_CASE("MAX, MIN, LESS_THAN fast paths = plain loop on random shapes, strides and hard values") {
    const int count = sanitizer_tier() ? 40 : 150;
    check_random_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, float>(DataType::FLOAT32, count);
    check_random_binary<DML_ELEMENT_WISE_MIN_OPERATOR_DESC, float>(DataType::FLOAT32, count);
    check_random_binary<DML_ELEMENT_WISE_MAX_OPERATOR_DESC, half>(DataType::FLOAT16, count);
    check_random_binary<DML_ELEMENT_WISE_ADD_OPERATOR_DESC, half>(DataType::FLOAT16, count);
    check_random_binary<DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, half>(DataType::FLOAT16, count);
    check_random_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, float>(DataType::UINT8, count);
    check_random_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, int8_t>(DataType::UINT8, count);
    check_random_binary<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC, int32_t>(DataType::UINT8, count);
}

TEST_CASE("FLOAT32 MAX and MIN fast paths = plain loop: every pair of hard values, NaN payloads and signed zeros") {
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
    const Operator mx = binary_op<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {h * h}, {},
                                                                      {}, {});
    const auto& dx = desc_of<DML_ELEMENT_WISE_MAX_OPERATOR_DESC>(mx);
    check(mx, dx.ATensor, dx.BTensor, dx.OutputTensor);
    const Operator mn = binary_op<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(DataType::FLOAT32, DataType::FLOAT32, {h * h}, {},
                                                                      {}, {});
    const auto& dn = desc_of<DML_ELEMENT_WISE_MIN_OPERATOR_DESC>(mn);
    check(mn, dn.ATensor, dn.BTensor, dn.OutputTensor);
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
}

TEST_CASE("Element-wise fast paths = plain loop with streamed outputs (packed, and rows at odd addresses)") {
    // From fast::kStreamedElements up the outputs go through non-temporal stores: a packed CAST
    // with an odd tail, and LESS_THAN into UINT8 rows of 1001 elements 1003 apart (every row's
    // first output at a different offset from a 16-byte boundary).
    const uint32_t n = uint32_t(reference::fast::kStreamedElements) + 5;
    check_cast<uint8_t>(DataType::INT8, DataType::FLOAT16, n, [](uint32_t i) { return uint8_t(i * 37u); });
    if (sanitizer_tier()) return;  // the rows once, in the release build's run
    std::mt19937_64 rng(2700);
    const uint32_t rows = n / 1001 + 1;
    const Operator op = binary_op<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC>(
        DataType::INT8, DataType::UINT8, {rows, 1001}, {1003, 1}, {0, 1}, {1003, 1});
    const auto& d = desc_of<DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC>(op);
    check_op(op, make_buffers<int8_t>(rng, {{"ATensor", &d.ATensor}, {"BTensor", &d.BTensor}},
                                      {{"OutputTensor", &d.OutputTensor}}));
}

}  // namespace dmlref_test_fast_element_wise
