// The nearest-neighbour RESAMPLE grads' unit-tap sums (reference/fast/unit_tap_sums.hpp) against
// the plain loop, element for element over all eleven types (fast_check.hpp's harness), and one
// sum derived by hand whose FLOAT32 result an unchecked float64 addition would change.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include <array>
#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_unit_taps {

using namespace dmlref;
using namespace dmlref::test;

namespace {

// Every tap weighs 1, so the path sums plain values: mostly values of T's full precision over a
// range of 2^40 (so that some float64 sums of FLOAT32 values are inexact, most are exact), with
// hard values (infinity, NaN, subnormal, the largest finite) everywhere, nowhere or rarely, on
// rows upsampled by 2 (two taps per column, in pairs), by 3, 1 and 1/2, with zero and
// half-pixel offsets, both rounding directions, and strided and packed tensors.
template <class T> void check_unit_tap_sums(std::mt19937_64& rng, int count) {
    static const float scales[] = {2.0f, 2.0f, 2.0f, 3.0f, 1.0f, 0.5f};
    static const float offsets[] = {0.0f, 0.5f, 0.25f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 2 + uint32_t(rng() % 3);
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> Scales(rank, 1.0f), ipo(rank, 0.0f), opo(rank, 0.0f);
        for (uint32_t i = 0; i < rank; ++i) {
            const bool last = i + 1 == rank, inner = i + 2 >= rank;
            in[i] = last ? 1 + uint32_t(rng() % 300) : 1 + uint32_t(rng() % (inner ? 6 : 3));
            if (!inner) {
                out[i] = in[i];
                continue;
            }
            Scales[i] = scales[rng() % std::size(scales)];
            ipo[i] = offsets[rng() % std::size(offsets)];
            opo[i] = -ipo[i];
            out[i] = uint32_t(
                std::max<int64_t>(1, std::lround(in[i] * Scales[i]) + (rng() % 4 == 0 ? int64_t(rng() % 3) - 1 : 0)));
        }
        ResampleCase c{in, out, {}, {}, Scales, ipo, opo, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 0};
        c.out_strides = random_strides(rng, out);
        c.in_strides = random_strides(rng, in);
        c.rounding = uint32_t(rng() % 2);
        const DML_RESAMPLE_GRAD1_OPERATOR_DESC d = c.grad(data_type_of<T>());
        INFO("rank " << rank << ", dY row " << out.back() << ", dX row " << in.back() << ", scale " << Scales.back()
                     << ", iteration " << k);
        Buffers b = make_buffers<T>(rng, {{"InputGradientTensor", &d.InputGradientTensor}},
                                    {{"OutputGradientTensor", &d.OutputGradientTensor}});
        if constexpr (is_floating_v<T>) {
            // make_buffers' hard values everywhere, none, or at one place in 200.
            const uint64_t hard_one_in = std::array<uint64_t, 3>{1, 0, 200}[rng() % 3];
            const int bits = is_half_v<T> ? 11 : 24;  // T's significand
            std::vector<T> v(b.bytes[0].size() / sizeof(T));
            std::memcpy(static_cast<void*>(v.data()), b.bytes[0].data(), v.size() * sizeof(T));
            for (T& x : v)
                if (hard_one_in != 1 && (hard_one_in == 0 || rng() % hard_one_in != 0))
                    x = value_of<T>(
                        std::ldexp(double(int64_t(rng() % (uint64_t(1) << bits)) - (int64_t(1) << (bits - 1))),
                                   int(rng() % 40) - 36 - bits));
            std::memcpy(b.bytes[0].data(), static_cast<const void*>(v.data()), v.size() * sizeof(T));
        }
        check_op({OperatorType::RESAMPLE_GRAD1, d}, b);
    }
}

}  // namespace

TEST_CASE_TEMPLATE("Resample grad nearest fast path (unit-tap sums) = plain loop, element for element", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1400);
    check_unit_tap_sums<T>(rng, 60);
}

// A sum whose rounding a float64 addition left unchecked would change, derived by hand: dX's
// first element sums the 2x2 block a0 = 1 + 3*2^-23, a1 = -5*2^-54 (first dY row), b0 = 1, b1 = 0.
// The exact sum 2 + 3*2^-23 - 5*2^-54 rounds to float64 as 2 + 3*2^-23 - 2^-51 (0.375 of the
// 2^-51 spacing away, against 0.625 from 2 + 3*2^-23), which lies below the FLOAT32 midpoint
// 2 + 3*2^-23, so FLOAT32 gives 2 + 2^-22. Rounding a0 + a1 first (to 1 + 3*2^-23 - 2^-52) and then
// adding 1 lands on that midpoint (a float64 tie, to even), and ties-to-even gives 2 + 2^-21.
TEST_CASE("Resample grad nearest fast path: an inexact float64 addition is caught (hand-derived value)") {
    DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
    d.InputGradientTensor = desc(DataType::FLOAT32, {1, 1, 4, 8});
    d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 1, 2, 4});
    d.InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    d.RoundingDirection = DML_AXIS_DIRECTION_DECREASING;  // output 2i and 2i + 1 read input i
    d.DimensionCount = 4;
    d.Scales = {1, 1, 2, 2};
    d.InputPixelOffsets = {0, 0, 0, 0};
    d.OutputPixelOffsets = {0, 0, 0, 0};
    std::vector<float> dy(32, 0.25f);
    dy[0] = float(1 + 3 * 0x1p-23);
    dy[1] = float(-5 * 0x1p-54);
    dy[8] = 1.0f;
    dy[9] = 0.0f;
    const auto dx = as_values<float>(
        run({OperatorType::RESAMPLE_GRAD1, d}, {{"InputGradientTensor", buffer(d.InputGradientTensor, dy)}})
            .at("OutputGradientTensor"));
    CHECK(dx[0] == float(2 + 0x1p-22));
    for (size_t i = 1; i < dx.size(); ++i) CHECK(dx[i] == 1.0f);  // four terms of 1/4
    Buffers b;
    b.names = {"InputGradientTensor", "OutputGradientTensor"};
    b.bytes = {buffer(d.InputGradientTensor, dy), std::vector<std::byte>(32, std::byte{0x5a})};
    check_op({OperatorType::RESAMPLE_GRAD1, d}, b);
}

}  // namespace dmlref_test_fast_unit_taps
