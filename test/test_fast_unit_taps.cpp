// The nearest-neighbour RESAMPLE grads' unit-tap sums (reference/fast/unit_tap_sums.hpp) against
// the plain loop, element for element over all eleven types (fast_check.hpp's harness), one sum
// derived by hand whose FLOAT32 result an unchecked float64 addition would change, and the bulk
// FLOAT16 kernels (reference/fast/half_rows.hpp) against independent computations: every FLOAT16
// rounding boundary through half_from_double, and sums of four FLOAT16 values in integers.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/fast/half_rows.hpp"

#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
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

// ---- FLOAT16 in bulk (reference/fast/half_rows.hpp) -------------------------------------------

// narrow_halves against half_from_double(s + 0) (numeric.hpp's correctly rounded narrowing, which
// exact_result<half> is): every FLOAT16 value, every rounding midpoint between neighbours (65520,
// the overflow boundary, included), the doubles next to each midpoint and a little farther, of both
// signs; zeros, FLOAT32's and float64's subnormal and overflow ranges, infinities and NaNs with
// payloads (signalling too), all passed in runs of 1 to 19 so that the kernels' tails run too.
TEST_CASE("FLOAT16 rows narrowed in bulk = half_from_double, on every rounding boundary") {
    std::vector<double> v;
    auto both = [&](double d) {
        v.push_back(d);
        v.push_back(-d);
    };
    constexpr double inf = std::numeric_limits<double>::infinity();
    for (uint32_t h = 0; h < 0x7c00; ++h) {
        const double lo = half_to_double(from_bits<half>(uint16_t(h)));
        const double hi = h + 1 == 0x7c00 ? 65536.0 : half_to_double(from_bits<half>(uint16_t(h + 1)));
        const double mid = (lo + hi) / 2, near = (hi - lo) * 0x1p-20;  // exact
        for (const double d : {lo, mid, std::nextafter(mid, 0.0), std::nextafter(mid, inf), mid - near, mid + near})
            both(d);
    }
    for (const double d : {0.0, std::numeric_limits<double>::denorm_min(), 0x1p-1022, 0x1p-150, 0x1p-149, 0x1p-127,
                           std::nextafter(0x1p-126, 0.0), 0x1p-126, 0x1p-26, std::nextafter(0x1p-25, 0.0), 0x1p-25,
                           std::nextafter(0x1p-25, 1.0), 1e-300, double(FLT_MAX), std::nextafter(double(FLT_MAX), inf),
                           0x1p128, 0x1p200, std::numeric_limits<double>::max(), inf})
        both(d);
    for (const uint64_t b : {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8123456789abcull, 0xfffc000000000001ull,
                             0x7ff0000000000001ull, 0xfff4000000000000ull, 0x7fffffffffffffffull})
        v.push_back(from_bits<double>(b));
    std::vector<half> got(v.size(), from_bits<half>(uint16_t(0x5a5a)));
    for (size_t i = 0, len = 1; i < v.size(); i += len, len = len % 19 + 1)
        reference::fast::narrow_halves(got.data() + i, v.data() + i, std::min(len, v.size() - i));
    size_t wrong = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const uint16_t want = to_bits(half_from_double(v[i] + 0.0));
        if (to_bits(got[i]) == want || ++wrong > 5) continue;  // the first five shown
        INFO("s = " << v[i] << ": got " << to_bits(got[i]) << ", want " << want);
        CHECK(to_bits(got[i]) == want);
    }
    CHECK(wrong == 0);
}

// sum_half_quads against sums in integers: a finite FLOAT16 is an integer multiple of 2^-24 below
// 2^40 of them, so four add exactly in int64, and the sum (below 2^42, exact in float64, +0 when
// zero) goes through half_from_double once. Terms are any finite bits, or values over a few
// binades (so that sums meet rounding midpoints), with signed zeros; some rows hold an infinity or
// a NaN, where the kernel must answer false.
TEST_CASE("FLOAT16 quads summed in bulk = their integer sum rounded once") {
    std::mt19937_64 rng(1500);
    auto scaled = [](half h) { return int64_t(std::ldexp(half_to_double(h), 24)); };  // exact
    for (int round = 0; round < 400; ++round) {
        const size_t n = 1 + rng() % 40;
        const int kind = round % 4;
        std::vector<half> a(2 * n), b(2 * n), got(n);
        auto term = [&] {
            const uint16_t bits = kind == 0 ? uint16_t(rng() % 0x7c00) : uint16_t(0x3800 + rng() % 0x0c00);
            return from_bits<half>(uint16_t(bits | (rng() % 2 ? 0x8000 : 0)));
        };
        for (std::vector<half>* r : {&a, &b})
            for (half& h : *r) h = rng() % 8 == 0 ? from_bits<half>(rng() % 2 ? 0x8000 : 0x0000) : term();
        bool special = false;
        if (kind == 3) {  // an infinity or a NaN in this row
            static const uint16_t hard[] = {0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01};
            (rng() % 2 ? a : b)[rng() % (2 * n)] = from_bits<half>(hard[rng() % std::size(hard)]);
            special = true;
        }
        const bool ok = reference::fast::sum_half_quads(got.data(), a.data(), b.data(), n);
        INFO("round " << round << ", n " << n);
        CHECK(ok == !special);
        if (special) continue;
        for (size_t i = 0; i < n; ++i) {
            const int64_t sum = scaled(a[2 * i]) + scaled(a[2 * i + 1]) + scaled(b[2 * i]) + scaled(b[2 * i + 1]);
            CHECK(to_bits(got[i]) == to_bits(half_from_double(std::ldexp(double(sum), -24))));
        }
    }
}

// The operator over FLOAT16 rows of every width from 1 to 40 (the kernels' eight-wide blocks and
// tails), packed, two taps per column and two or three per row (sum_quads, or the paired rows
// widened in bulk and narrowed in bulk), on terms that meet rounding midpoints, with signed zeros,
// the largest finite value (sums that overflow) and, in some rows, an infinity or a NaN.
TEST_CASE("Resample grad nearest fast path, FLOAT16 rows of every width = plain loop") {
    std::mt19937_64 rng(1510);
    for (uint32_t width = 1; width <= 40; ++width)
        for (const float row_scale : {2.0f, 3.0f}) {
            const std::vector<uint32_t> in = {1, 2, 3, width};
            const std::vector<uint32_t> out = {1, 2, uint32_t(3 * row_scale), 2 * width};
            ResampleCase c{in,
                           out,
                           {},
                           {},
                           {1, 1, row_scale, 2},
                           {0, 0, 0, 0},
                           {0, 0, 0, 0},
                           DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
                           0};
            const DML_RESAMPLE_GRAD1_OPERATOR_DESC d = c.grad(DataType::FLOAT16);
            std::vector<half> dy(buffer_size(d.InputGradientTensor) / sizeof(half));
            for (half& h : dy) {
                const uint64_t r = rng() % 64;
                h = r == 0
                        ? from_bits<half>(uint16_t(std::array<uint16_t, 4>{0x7c00, 0xfc00, 0x7e00, 0xfe00}[rng() % 4]))
                    : r < 4  ? from_bits<half>(uint16_t(0x7bff | (rng() % 2 ? 0x8000 : 0)))
                    : r < 12 ? from_bits<half>(uint16_t(rng() % 2 ? 0x8000 : 0))
                             : from_bits<half>(uint16_t((0x3000 + rng() % 0x1000) | (rng() % 2 ? 0x8000 : 0)));
            }
            if (rng() % 2)  // rows without an infinity or NaN: the vector path's results kept
                for (half& h : dy)
                    if ((to_bits(h) & 0x7c00) == 0x7c00) h = from_bits<half>(0x3c00);
            Buffers bufs;
            bufs.names = {"InputGradientTensor", "OutputGradientTensor"};
            std::vector<std::byte> bytes(buffer_size(d.InputGradientTensor));
            std::memcpy(bytes.data(), static_cast<const void*>(dy.data()), bytes.size());
            bufs.bytes = {bytes, std::vector<std::byte>(buffer_size(d.OutputGradientTensor), std::byte{0x5a})};
            INFO("width " << width << ", row scale " << row_scale);
            check_op({OperatorType::RESAMPLE_GRAD1, d}, bufs);
        }
}

}  // namespace dmlref_test_fast_unit_taps
