// RESAMPLE LINEAR's fused row loop (reference/fast/resample_linear.hpp) against the plain loop,
// element for element (the harness of fast_check.hpp): many rows, odd and non-integer scales,
// offsets, strided last dimensions, all eleven types; and hand-derived probes of sums that are
// not exact in float64, proved or summed again exactly. The other resample shapes are in
// test_fast_paths.cpp.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_resample_linear {

using namespace dmlref;
using namespace dmlref::test;

namespace {

// Strides with the last dimension's stride 1 to 3 (a row read or written with gaps), the others
// padded by up to 2 elements.
std::vector<uint32_t> strided_last(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> strides(sizes.size());
    uint32_t s = 1 + uint32_t(rng() % 3);
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = s;
        s = s * sizes[i] + uint32_t(rng() % 3);
    }
    return strides;
}

// LINEAR resamples (and the grads of downsamplings, whose inputs are each read by at most two
// outputs per axis) with many rows (the row blocks and the cache of expanded source rows), odd
// and non-integer scales, offsets, and strided last dimensions on either side.
template <class T> void check_resample_linear(std::mt19937_64& rng, int count) {
    static const float scales[] = {2.0f, 0.5f, 1.5f, 3.0f, 0.75f, 1.0f / 3, 1.0f, 2.5f, 0.25f};
    static const float offsets[] = {0.5f, 0.0f, 0.25f, -0.5f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 2 + uint32_t(rng() % 3);
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> Scales(rank, 1.0f), ipo(rank, 0.0f), opo(rank, 0.0f);
        for (uint32_t i = 0; i < rank; ++i) {
            const bool inner = i + 2 >= rank;
            in[i] = inner ? 1 + uint32_t(rng() % 40) : 1 + uint32_t(rng() % 3);
            if (inner) {
                Scales[i] = scales[rng() % std::size(scales)];
                ipo[i] = offsets[rng() % std::size(offsets)];
                opo[i] = offsets[rng() % std::size(offsets)];
            }
            out[i] = inner ? uint32_t(std::max<int64_t>(1, std::lround(in[i] * Scales[i]) + int64_t(rng() % 3) - 1))
                           : in[i];
        }
        INFO("rank " << rank << ", in " << in[rank - 2] << "x" << in.back() << ", out " << out[rank - 2] << "x"
                     << out.back() << ", scales " << Scales[rank - 2] << ", " << Scales.back() << ", iteration " << k);
        const bool grad = rng() % 4 == 0;
        ResampleCase c{in, out, {}, {}, Scales, ipo, opo, DML_INTERPOLATION_MODE_LINEAR, 0};
        if (!grad) c.in_strides = strided_last(rng, in);
        c.out_strides = strided_last(rng, out);
        if (grad) c.in_strides = strided_last(rng, in);
        c.rounding = uint32_t(rng() % 2);
        check_resample_case<T>(rng, c, grad);
    }
}

// RESAMPLE2 LINEAR 2x2 -> 4x4, Scales 2, offsets 0: output (1, 1) is at x = 0.5 on both axes,
// so it reads X[0][0], X[0][1], X[1][0], X[1][1], each with weight 0.5 * 0.5 = 0.25, and its
// exact sum is (X00 + X01 + X10 + X11) / 4. Returns that output's bits from the fast path, after
// checking every output against the plain loop.
template <class T> auto linear_probe(const std::vector<double>& x) {
    DML_RESAMPLE2_OPERATOR_DESC d;
    d.InputTensor = desc(data_type_of<T>(), {2, 2});
    d.OutputTensor = desc(data_type_of<T>(), {4, 4});
    d.InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    d.DimensionCount = 2;
    d.Scales = {2, 2};
    d.InputPixelOffsets = d.OutputPixelOffsets = {0, 0};
    const Operator op{OperatorType::RESAMPLE2, d};
    Buffers b;
    std::vector<T> v;
    for (double e : x) v.push_back(value_of<T>(e));
    b.names = {"InputTensor", "OutputTensor"};
    b.bytes.emplace_back(v.size() * sizeof(T));
    std::memcpy(b.bytes[0].data(), static_cast<const void*>(v.data()), b.bytes[0].size());
    b.bytes.emplace_back(16 * sizeof(T), std::byte{0x5a});
    check_op(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    T y;
    std::memcpy(static_cast<void*>(&y), fast.bytes[1].data() + 5 * sizeof(T), sizeof(T));
    return to_bits(y);
}

}  // namespace

TEST_CASE_TEMPLATE("Resample LINEAR fused rows = plain loop (many rows, strided last dimensions)", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1400);
    check_resample_linear<T>(rng, 60);
}

TEST_CASE("Resample LINEAR fused rows: sums that are not exact in float64, proved or summed again exactly") {
    // (4 + 2^-22 + s 2^-51 + s 2^-78) / 4 = 1 + 2^-24 + s (2^-53 + 2^-80): no float64 holds it (the
    // terms span 80 bits). Rounded to float64: 1 + 2^-24 + s 2^-52, off FLOAT32's midpoint 1 + 2^-24,
    // so FLOAT32 gives 1 + 2^-23 for s = +1 and 1 for s = -1. FastSum's interval around
    // 1 + 2^-24 holds that midpoint: undecided, summed again exactly.
    CHECK(linear_probe<float>({4, 0x1p-22, 0x1p-51, 0x1p-78}) == 0x3f800001u);
    CHECK(linear_probe<float>({4, 0x1p-22, -0x1p-51, -0x1p-78}) == 0x3f800000u);
    // The same below FLOAT32's precision: (4 + 2^-28 + 2^-78) / 4 = 1 + 2^-30 + 2^-80, not exact in
    // float64 but far from a FLOAT32 boundary: proved by FastSum, 1.
    CHECK(linear_probe<float>({4, 0x1p-28, 0, 0x1p-78}) == 0x3f800000u);
    // FLOAT64: (4 + 2^-51 + s 2^-78) / 4 = 1 + 2^-53 + s 2^-80 (the float64 midpoint 1 + 2^-53
    // moved by s 2^-80): 1 + 2^-52 for s = +1, 1 for s = -1.
    CHECK(linear_probe<double>({4, 0x1p-51, 0, 0x1p-78}) == 0x3ff0000000000001u);
    CHECK(linear_probe<double>({4, 0x1p-51, 0, -0x1p-78}) == 0x3ff0000000000000u);
    // A NaN or infinite value (every addition then leaves a NaN error): the plain loop's rules.
    CHECK(linear_probe<float>({1, std::numeric_limits<double>::infinity(), 1, 1}) == 0x7f800000u);
    CHECK(linear_probe<float>({1, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                               1}) == to_bits(canonical_nan<float>()));
}

}  // namespace dmlref_test_fast_resample_linear
