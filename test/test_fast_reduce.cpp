// REDUCE's fast path for SUM (reference/fast/reduce_sum.cpp) against the plain loop, bit for
// bit: random shapes, ranks 1 to 4, one axis, neighbouring axes and all axes, strided and
// broadcast inputs, padded outputs, FLOAT32 and FLOAT16, hard values (NaN and infinities
// included), runs longer than one chunk; 1 thread against 3 and 7; adversarial sums (cancellation
// with rounding on the way, a rounding midpoint reached that way, an exact zero) that the
// compensated sums cannot decide, counted to show the plain loop's exact sum really runs.
// The expected values are the plain loop's (reference/reduction.cpp, an exact rational sum
// rounded once), itself tested against hand-derived values in test_reduce.cpp.
#include "fast_check.hpp"
#include "support.hpp"

#include "dmlref/descs/reduction.hpp"

#include "../reference/fast/reduce_sum.hpp"

#include <cmath>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_reduce {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using RD = DML_REDUCE_OPERATOR_DESC;

Operator make(DataType t, const std::vector<uint32_t>& sizes, const std::vector<uint32_t>& axes,
              const std::vector<uint32_t>& in_strides = {}, bool out_padded = false) {
    RD d;
    d.Function = DML_REDUCE_FUNCTION_SUM;
    d.InputTensor = desc(t, sizes, in_strides);
    std::vector<uint32_t> out = sizes;
    for (uint32_t a : axes) out[a] = 1;
    std::vector<uint32_t> os;
    if (out_padded) {  // every dimension's stride one element more than packed
        os.assign(out.size(), 0);
        uint32_t step = 1;
        for (size_t i = out.size(); i-- > 0;) {
            os[i] = step;
            step = step * out[i] + 1;
        }
    }
    d.OutputTensor = desc(t, out, os);
    d.AxisCount = uint32_t(axes.size());
    d.Axes = axes;
    return {RD::kType, d};
}

template <class T, class V> Buffers buffers(const Operator& op, std::mt19937_64& rng, V&& value) {
    const RD& d = get<RD>(op.Desc);
    Buffers b;
    std::vector<T> v(buffer_size(d.InputTensor) / sizeof(T));
    for (T& x : v) x = value_of<T>(value(rng));
    std::vector<std::byte> bytes(buffer_size(d.InputTensor));
    std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
    b.names = {"InputTensor", "OutputTensor"};
    b.bytes.push_back(std::move(bytes));
    b.bytes.emplace_back(buffer_size(d.OutputTensor), std::byte{0x5a});
    return b;
}

// The fast path (1, 3 and 7 threads) against the plain loop; the counts of its one-thread run.
reference::fast::ReduceSumCounts check(const Operator& op, const Buffers& in) {
    const Diagnostics diags = validate(op);
    for (const auto& item : diags.items()) INFO(format(item, "<test>"));
    REQUIRE_FALSE(diags.has_errors());
    const Buffers plain = evaluate_with(op, in, false, 1);
    const Buffers fast = evaluate_with(op, in, true, 1);
    const reference::fast::ReduceSumCounts counts = reference::fast::reduce_sum_counts();
    CHECK(first_difference(plain, fast) == -1);
    CHECK(first_difference(plain, evaluate_with(op, in, true, 3)) == -1);
    CHECK(first_difference(plain, evaluate_with(op, in, true, 7)) == -1);
    return counts;
}

double uniform(std::mt19937_64& rng) { return std::uniform_real_distribution<double>(-1, 1)(rng); }

// Mostly values across binades, some hard ones (fast_values.hpp: midpoints, subnormals, zeros
// of both signs, infinities and NaN, once in a while).
double mixed(std::mt19937_64& rng) {
    if (rng() % 64 == 0) return hard_value(rng);
    return std::ldexp(uniform(rng), int(rng() % 40) - 20);
}

}  // namespace

TEST_CASE("REDUCE SUM fast path = plain loop on random shapes, axes, strides and values") {
    std::mt19937_64 rng(20261127);
    uint64_t decided = 0;
    for (int i = 0; i < 60; ++i) {
        const uint32_t rank = 1 + uint32_t(rng() % 4);
        std::vector<uint32_t> sizes(rank);
        for (uint32_t& s : sizes) s = 1 + uint32_t(rng() % 12);
        // One block of neighbouring axes (the fast path's), or any set (the plain loop's, some).
        const uint32_t first = uint32_t(rng() % rank), count = 1 + uint32_t(rng() % (rank - first));
        std::vector<uint32_t> axes;
        for (uint32_t a = first; a < first + count; ++a) axes.push_back(a);
        if (i % 10 == 9 && rank >= 3) axes = {0, rank - 1};
        std::vector<uint32_t> strides;
        if (rng() % 3 == 0) {  // padded, and now and then a broadcast (stride 0) dimension
            strides.assign(rank, 0);
            uint32_t step = 1 + uint32_t(rng() % 2);
            for (size_t d = rank; d-- > 0;) {
                strides[d] = rng() % 8 == 0 ? 0 : step;
                step = step * sizes[d] + uint32_t(rng() % 3);
            }
        }
        const DataType t = i % 3 == 2 ? DataType::FLOAT16 : DataType::FLOAT32;
        const Operator op = make(t, sizes, axes, strides, rng() % 4 == 0);
        INFO("case " << i << ": rank " << rank << " first axis " << first << " count " << count);
        const bool hard = i % 2 == 1;
        const auto counts = t == DataType::FLOAT16 ? check(op, buffers<half>(op, rng, hard ? mixed : uniform))
                                                   : check(op, buffers<float>(op, rng, hard ? mixed : uniform));
        decided += counts.decided;
    }
    CHECK(decided > 0);
}

TEST_CASE("REDUCE SUM fast path = plain loop on runs longer than one chunk, all axes and one") {
    std::mt19937_64 rng(5);
    // 3 x 70001 along the last axis (chunks of 2^16), 150001 in all, and 100 x 700 over axis 0
    // (column sums in chunks of rows).
    for (const auto& [sizes, axes] : std::vector<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>>{
             {{3, 70001}, {1}}, {{150001}, {0}}, {{700, 100}, {0}}, {{2, 50, 1200}, {1}}}) {
        const Operator op = make(DataType::FLOAT32, sizes, axes);
        const auto counts = check(op, buffers<float>(op, rng, mixed));
        CHECK(counts.decided + counts.exact > 0);
    }
}

TEST_CASE("REDUCE SUM fast path: adversarial sums take the plain loop's exact sum") {
    // Each output sums one row of 4 (all in their own lanes) or one row of 64 (four terms in lane
    // 0, the others 0): 2^60, 1, -2^60, -1 cancel to an exact zero, but 2^60 + 1 rounds on the way,
    // so the compensated sum cannot prove the sign (+0); 2^60, 1, 2^-24, -2^60 is exactly
    // 1 + 2^-24, halfway between two floats (the plain loop rounds it to 1, even), reached with a
    // rounding; 1, 2^-24, 2^-40 is decided (every addition exact in float64, and above the midpoint).
    const std::vector<std::vector<float>> rows = {
        {0x1p60f, 1, -0x1p60f, -1}, {0x1p60f, 1, 0x1p-24f, -0x1p60f}, {1, 0x1p-24f, 0x1p-40f, 0}};
    for (const uint32_t spread : {1u, 16u}) {
        const uint32_t R = 4 * spread;
        const Operator op = make(DataType::FLOAT32, {uint32_t(rows.size()), R}, {1});
        std::mt19937_64 rng(1);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 0.0; });
        std::vector<float> x(rows.size() * R, 0.f);
        for (size_t r = 0; r < rows.size(); ++r)
            for (size_t k = 0; k < 4; ++k) x[r * R + k * spread] = rows[r][k];
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(x.data()), x.size() * sizeof(float));
        const auto counts = check(op, in);
        INFO("terms " << spread << " apart");
        CHECK(counts.exact == 2);
        CHECK(counts.decided == 1);
        // And the plain loop's values, by hand: +0, 1, 1 + 2^-23.
        const Buffers plain = evaluate_with(op, in, false, 1);
        float y[3];
        std::memcpy(y, plain.bytes[1].data(), sizeof y);
        CHECK(to_bits(y[0]) == 0u);
        CHECK(y[1] == 1.f);
        CHECK(y[2] == 1 + 0x1p-23f);
    }
    // The same midpoint as column sums (axis 0 of 4 x 3).
    {
        const Operator op = make(DataType::FLOAT32, {4, 3}, {0});
        std::mt19937_64 rng(2);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 0.0; });
        std::vector<float> x(12);
        for (size_t k = 0; k < 4; ++k)
            for (size_t c = 0; c < 3; ++c) x[k * 3 + c] = rows[c][k];
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(x.data()), x.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.exact == 2);
        CHECK(counts.decided == 1);
    }
    // A NaN or an infinity among the terms: left to the plain loop, which propagates them.
    {
        const Operator op = make(DataType::FLOAT32, {2, 5}, {1});
        std::mt19937_64 rng(3);
        Buffers in = buffers<float>(op, rng, uniform);
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        std::memcpy(in.bytes[0].data() + 4, &nan, 4);
        std::memcpy(in.bytes[0].data() + 5 * 4 + 8, &inf, 4);
        const auto counts = check(op, in);
        CHECK(counts.exact == 2);
    }
}

TEST_CASE("REDUCE SUM fast path: a block's float64 sum is taken as exact only where its exponents prove it") {
    // One run of 256 FLOAT32 terms, one block (reduce_sum.cpp, step 2a: exact where the largest and
    // smallest exponent fields of the nonzero terms differ by at most 29 - log2(256) = 21). By hand:
    // 253 terms 0.75 (field 126) sum to 189.75; with 2^-17 the sum is 189.75 + 2^-17, halfway
    // between the FLOAT32 neighbours 189.75 and 189.75 + 2^-16 (FLOAT32's spacing in [128, 256) is
    // 2^-16). Then -2^k and 2^k + 2^(k-23), both of field 127 + k, add 2^(k-23): the exact sum is
    // above the midpoint and rounds to 189.75 + 2^-16. With k = -22 (fields 126 and 105: 21 apart)
    // the block is proved exact, and it is (2^-45 is float64's spacing there). With k = -23 (fields
    // 126 and 104: 22 apart) it is not: a plain float64 sum, in the lanes' order, loses the 2^-46
    // (half of float64's spacing, a tie, to the even 189.75 + 2^-17) and would round to 189.75
    // (ties to even); FastSum's compensation keeps it, and the exact sum settles it.
    for (const int k : {-22, -23}) {
        INFO("k = " << k);
        const Operator op = make(DataType::FLOAT32, {1, 256}, {1});
        std::mt19937_64 rng(4);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 0.0; });
        std::vector<float> x(256, 0.75f);
        x[253] = 0x1p-17f;
        x[254] = -std::ldexp(1.f, k);
        x[255] = std::ldexp(1.f, k) + std::ldexp(1.f, k - 23);
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(x.data()), x.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.certified_blocks == (k == -22 ? 1u : 0u));
        CHECK(counts.uncertified_blocks == (k == -22 ? 0u : 1u));
        CHECK(counts.decided + counts.exact == 1);  // k = -23: FastSum leaves this tie to the exact sum
        const Buffers fast = evaluate_with(op, in, true, 1);
        float y;
        std::memcpy(&y, fast.bytes[1].data(), sizeof y);
        CHECK(y == 189.75f + 0x1p-16f);
    }
    // Random data in [-1, 1): nearly every block proved (a term below 2^-21 or so in magnitude
    // leaves its block to FastSum), and FLOAT16 blocks always, where finite.
    {
        const Operator op = make(DataType::FLOAT32, {4, 20000}, {1});
        std::mt19937_64 rng(6);
        const auto counts = check(op, buffers<float>(op, rng, uniform));
        CHECK(counts.certified_blocks + counts.uncertified_blocks == 4 * 79);
        CHECK(counts.certified_blocks >= 4 * 79 - 4);
    }
    {
        const Operator op = make(DataType::FLOAT16, {3, 1000}, {1});
        std::mt19937_64 rng(7);
        Buffers in = buffers<half>(op, rng, mixed);
        const uint16_t inf = 0x7c00;  // +infinity in the second run's first block
        std::memcpy(in.bytes[0].data() + 2 * 1000, &inf, 2);
        const auto counts = check(op, in);
        CHECK(counts.certified_blocks + counts.uncertified_blocks == 3 * 4);
        CHECK(counts.uncertified_blocks >= 1);
    }
}

}  // namespace dmlref_test_fast_reduce
