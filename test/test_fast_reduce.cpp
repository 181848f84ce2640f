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
    // Each output sums four terms: 2^60, 1, -2^60, -1 cancel to an exact zero, but 2^60 + 1
    // rounds on the way, so the compensated sum cannot prove the sign (+0); 2^60, 1, 2^-24, -2^60
    // is exactly 1 + 2^-24, halfway between two floats (the plain loop rounds it to 1, even),
    // reached with a rounding; 1, 2^-24, 2^-40 is decided (every addition exact in float64, and
    // above the midpoint). The rows hold them in the order that makes 2^60 + 1 (or + 2^-24) the
    // first rounding addition: in a row of 4 each term has its own lane (reduce_sum.cpp, step 2),
    // and the lanes are folded 0 + 2 and 1 + 3, then the two; in a row of 64 (the terms 16 apart,
    // the others 0) the block is not proved (2^60 and 1 share a tracker), lane 0 sums the first
    // and third terms, lane 16 the second and fourth, and the fold adds lane 16 to lane 0. The
    // column sums add them in the order given (rows).
    const std::vector<std::vector<float>> rows = {
        {0x1p60f, 1, -0x1p60f, -1}, {0x1p60f, 1, 0x1p-24f, -0x1p60f}, {1, 0x1p-24f, 0x1p-40f, 0}};
    const std::vector<std::vector<float>> lane_rows = {
        {0x1p60f, -0x1p60f, 1, -1}, {0x1p60f, -0x1p60f, 1, 0x1p-24f}, {1, 0x1p-24f, 0x1p-40f, 0}};
    for (const uint32_t spread : {1u, 16u}) {
        const uint32_t R = 4 * spread;
        const Operator op = make(DataType::FLOAT32, {uint32_t(rows.size()), R}, {1});
        std::mt19937_64 rng(1);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 0.0; });
        std::vector<float> x(rows.size() * R, 0.f);
        for (size_t r = 0; r < rows.size(); ++r)
            for (size_t k = 0; k < 4; ++k) x[r * R + k * spread] = lane_rows[r][k];
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
    // A lane whose compensation grew and cancelled: lane 1 of a row of 160 (terms 1, 33, 65, 97,
    // 129; the others 0; the block is not proved) adds 2^80, 2^20, 2^-40, -2^20, -2^80 by
    // FastSum: 2^20 goes to the compensation c, 2^-40 is lost there (c's spacing at 2^20 is
    // 2^-32), -2^20 cancels c to 0 and -2^80 the sum s: s = c = 0, but the bound b = 2^21 holds
    // the loss. The exact sum is 2^-40. Folding the lanes keeps lane 1's bound in lane 0's, so the
    // fast path cannot call the element an exact 0 and takes the plain loop's exact sum.
    {
        const Operator op = make(DataType::FLOAT32, {1, 160}, {1});
        std::mt19937_64 rng(3);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 0.0; });
        std::vector<float> x(160, 0.f);
        x[1] = 0x1p80f;
        x[33] = 0x1p20f;
        x[65] = 0x1p-40f;
        x[97] = -0x1p20f;
        x[129] = -0x1p80f;
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(x.data()), x.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.exact == 1);
        const Buffers fast = evaluate_with(op, in, true, 1);
        float y;
        std::memcpy(&y, fast.bytes[1].data(), sizeof y);
        CHECK(y == 0x1p-40f);
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

TEST_CASE("REDUCE SUM fast path: a lane's float64 sum is taken as exact only where its exponents prove it") {
    // One run of 1024 FLOAT32 terms, one block (reduce_sum.cpp, step 2a): term j goes to float64
    // lane j mod 32, and the exponent fields of terms j and j + 16 (mod 32) are tracked together;
    // the lanes' plain float64 sums are taken as exact where, in every tracker, the largest and
    // smallest fields of the nonzero terms differ by at most 29 - log2(1024 / 32) = 24. Here
    // only lane 0 (terms 0, 32, ..., 992) holds nonzero terms, in this order: 29 terms 1.5 (field
    // 127), 2^-19 (field 108), then -2^-k and 2^-k + 2^-(k+23) (both of field 127 - k). By hand:
    // 29 * 1.5 + 2^-19 = 43.5 + 2^-19 is halfway between the FLOAT32 neighbours 43.5 and
    // 43.5 + 2^-18 (FLOAT32's spacing in [32, 64) is 2^-18), and the last two terms add 2^-(k+23),
    // so the exact sum is above that midpoint and rounds to 43.5 + 2^-18. With k = 24 (fields 127
    // and 103: 24 apart) the lane is proved exact, and it is: after 43.5 + 2^-19 - 2^-24 (exact),
    // adding 2^-24 + 2^-47 gives 43.5 + 2^-19 + 2^-47, a float64 (its spacing in [32, 64) is
    // 2^-47). With k = 25 (fields 127 and 102: 25 apart) it is not: a plain float64 sum loses the
    // 2^-48 (half of float64's spacing there, a tie, to the even 43.5 + 2^-19) and would round to
    // 43.5 (ties to even); FastSum's compensation keeps it, and the result is 43.5 + 2^-18.
    // The lane's terms at offset `lane` of each 32 (0: terms 0, 32, ..., 992); true where proved.
    const auto run_lane = [](size_t lane, int k, uint64_t seed) {
        const Operator op = make(DataType::FLOAT32, {1, 1024}, {1});
        std::mt19937_64 rng(seed);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 0.0; });
        std::vector<float> x(1024, 0.f);
        for (size_t i = 0; i < 29; ++i) x[lane + 32 * i] = 1.5f;
        x[lane + 32 * 29] = 0x1p-19f;
        x[lane + 32 * 30] = -std::ldexp(1.f, -k);
        x[lane + 32 * 31] = std::ldexp(1.f, -k) + std::ldexp(1.f, -k - 23);
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(x.data()), x.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.certified_blocks + counts.uncertified_blocks == 1u);
        CHECK(counts.decided + counts.exact == 1);
        const Buffers fast = evaluate_with(op, in, true, 1);
        float y;
        std::memcpy(&y, fast.bytes[1].data(), sizeof y);
        CHECK(y == 43.5f + 0x1p-18f);
        return counts.certified_blocks == 1u;
    };
    for (const int k : {24, 25}) {
        INFO("k = " << k);
        CHECK(run_lane(0, k, 4) == (k == 24));
    }
    // Lanes 0 and 16 share tracker 0: the same terms with k = 25 in lane 16 (terms 16, 48, ...,
    // 1008), lane 0 all zeros, are not proved either, and the result is the same.
    CHECK(!run_lane(16, 25, 5));
    // Random data in [-1, 1): nearly every block proved (a term below 2^-25 or so in magnitude
    // leaves its block to FastSum), and FLOAT16 blocks always, where finite.
    {
        const Operator op = make(DataType::FLOAT32, {4, 20000}, {1});
        std::mt19937_64 rng(6);
        const auto counts = check(op, buffers<float>(op, rng, uniform));
        CHECK(counts.certified_blocks + counts.uncertified_blocks == 4 * 20);  // 19 of 1024, one of 544
        CHECK(counts.certified_blocks >= 4 * 20 - 4);
    }
    {
        const Operator op = make(DataType::FLOAT16, {3, 1000}, {1});
        std::mt19937_64 rng(7);
        Buffers in = buffers<half>(op, rng, mixed);
        const uint16_t inf = 0x7c00;  // +infinity in the second run's first block
        std::memcpy(in.bytes[0].data() + 2 * 1000, &inf, 2);
        const auto counts = check(op, in);
        CHECK(counts.certified_blocks + counts.uncertified_blocks == 3);  // 992 terms each, then 8 one by one
        CHECK(counts.uncertified_blocks >= 1);
    }
}

}  // namespace dmlref_test_fast_reduce
