// The fast paths (reference/fast/) against the plain loops, element for element (FastSum's own
// tests are in test_fast_sums.cpp): every fast operator path against the same
// operator with the fast paths switched off, over random shapes, strides, ranks and all eleven
// types, and with one thread against several. Expected values come from the plain loops
// (reference/<family>.cpp, which sum with ExactSum alone when the fast paths are off) and
// ExactSum, never from the fast code under test. The harness is fast_check.hpp; the pooling,
// fused LINEAR resample and unit-tap paths are tested in test_fast_pooling.cpp,
// test_fast_resample_linear.cpp and test_fast_unit_taps.cpp.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"
#include "test_tier.hpp"

#include <cstdlib>
#include <string_view>

#include "../reference/fast/streamed.hpp"
#include "../reference/fast/switch.hpp"
#include "../reference/fast_sum.hpp"

#include <cmath>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_paths {

using namespace dmlref;
using namespace dmlref::test;
using dmlref::reference::ExactSum;

namespace {

// ---- RESAMPLE2 and RESAMPLE_GRAD1 -----------------------------------------------------------

template <class T> void check_resample(std::mt19937_64& rng, int count) {
    static const float scales[] = {0.5f, 1.0f, 2.0f, 1.5f, 3.0f, 0.75f, 1.0f / 3, 4.0f, 1.0f};
    static const float offsets[] = {0.0f, 0.5f, -0.5f, 0.25f, 0.0f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 1 + uint32_t(rng() % 5);
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> Scales(rank), ipo(rank), opo(rank);
        for (uint32_t i = 0; i < rank; ++i) {
            const bool identity = i + 2 < rank && rng() % 4 != 0;  // leading dimensions: mostly one tap
            in[i] = 1 + uint32_t(rng() % 7);
            Scales[i] = identity ? 1.0f : scales[rng() % std::size(scales)];
            ipo[i] = identity ? 0.0f : offsets[rng() % std::size(offsets)];
            opo[i] = identity ? 0.0f : offsets[rng() % std::size(offsets)];
            out[i] = identity ? in[i]
                              : uint32_t(std::max<int64_t>(1, std::lround(in[i] * Scales[i]) + int64_t(rng() % 3) - 1));
        }
        const uint32_t mode = uint32_t(rng() % 2), rounding = uint32_t(rng() % 2);
        INFO("rank " << rank << ", mode " << mode << ", iteration " << k);
        const bool grad = rng() % 2 == 0;
        ResampleCase c{in, out, {}, {}, Scales, ipo, opo, mode, rounding};
        if (!grad) c.in_strides = random_strides(rng, in);
        c.out_strides = random_strides(rng, out);
        if (grad) c.in_strides = random_strides(rng, in);
        check_resample_case<T>(rng, c, grad);
    }
}

// Rows wide enough for the row loop's patterned reads (slot indices affine with step 1 or 2, or
// halved: a row upsampled by 2) and for more than one chunk of 256 columns, odd widths included:
// scales 2 and 1/2 (and others) with half-pixel and zero offsets along the last dimension.
template <class T> void check_resample_wide(std::mt19937_64& rng, int count) {
    static const float scales[] = {2.0f, 0.5f, 2.0f,  0.5f,
                                   1.0f, 3.0f, 0.25f, 16.0f};  // 16: a thousand terms per grad element
    static const float offsets[] = {0.5f, 0.0f, 0.25f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 2 + uint32_t(rng() % 3);
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> Scales(rank, 1.0f), ipo(rank, 0.0f), opo(rank, 0.0f);
        for (uint32_t i = 0; i < rank; ++i) {
            const bool last = i + 1 == rank, inner = i + 2 >= rank;
            if (inner)
                Scales[i] = k % 5 == 0 ? 16.0f : scales[rng() % std::size(scales)];  // every fifth: narrow chunks
            const uint32_t widest = Scales[i] > 4 ? 40 : 600;
            in[i] = last ? 8 + uint32_t(rng() % widest) : 1 + uint32_t(rng() % (inner ? 4 : 2));
            if (inner) {
                const float o = offsets[rng() % std::size(offsets)];
                ipo[i] = o;
                opo[i] = -o;
            }
            out[i] = uint32_t(
                std::max<int64_t>(1, std::lround(in[i] * Scales[i]) + (last ? int64_t(rng() % 3) - 1 : 0)));
        }
        const uint32_t mode = rng() % 3 ? DML_INTERPOLATION_MODE_LINEAR : DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
        INFO("rank " << rank << ", in " << in.back() << ", out " << out.back() << ", scale " << Scales.back()
                     << ", mode " << mode << ", iteration " << k);
        const bool grad = rng() % 3 != 0;
        ResampleCase c{in, out, {}, {}, Scales, ipo, opo, mode, 0};
        if (!grad) c.in_strides = random_strides(rng, in);
        c.out_strides = random_strides(rng, out);
        if (grad) c.in_strides = random_strides(rng, in);
        c.rounding = uint32_t(rng() % 2);
        check_resample_case<T>(rng, c, grad);
    }
}

// ---- ELEMENT_WISE_CLIP1 ----------------------------------------------------------------------

template <class T> void check_clip1(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 1 + uint32_t(rng() % 4);
        std::vector<uint32_t> sizes(rank);
        for (uint32_t& s : sizes) s = 1 + uint32_t(rng() % 9);
        DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC d;
        d.InputTensor = desc(data_type_of<T>(), sizes, random_strides(rng, sizes));
        d.OutputTensor = desc(data_type_of<T>(), sizes, random_strides(rng, sizes));
        d.MinMaxDataType = data_type_of<T>();
        d.Min = DML_SCALAR_UNION::of(hard_element<T>(rng));  // NaN, -0, +0, ties with x, Min > Max
        d.Max = DML_SCALAR_UNION::of(hard_element<T>(rng));
        INFO("iteration " << k);
        check_op({OperatorType::ELEMENT_WISE_CLIP1, d},
                 make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
    }
}

// ---- FLOAT32 element-wise paths (fast/streamed.hpp) -----------------------------------------

// CLIP1, CLIP_GRAD1, RELU and RELU_GRAD on FLOAT32 with `n` elements, packed or strided: n from
// fast::kStreamedElements up takes the streamed stores.
void check_floats_elementwise(std::mt19937_64& rng, uint32_t n, bool packed) {
    const std::vector<uint32_t> sizes = {n};
    const std::vector<uint32_t> strided = !packed && rng() % 3 == 0 ? std::vector<uint32_t>{2}
                                                                    : std::vector<uint32_t>{};
    const float Min = hard_element<float>(rng), Max = hard_element<float>(rng);
    INFO("n " << n << ", Min " << Min << ", Max " << Max << ", strided " << !strided.empty());
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC c;
    c.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    c.OutputTensor = desc(DataType::FLOAT32, sizes);
    c.MinMaxDataType = DataType::FLOAT32;
    c.Min = DML_SCALAR_UNION::of(Min);
    c.Max = DML_SCALAR_UNION::of(Max);
    check_op({OperatorType::ELEMENT_WISE_CLIP1, c},
             make_buffers<float>(rng, {{"InputTensor", &c.InputTensor}}, {{"OutputTensor", &c.OutputTensor}}));
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC g;
    g.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    g.InputGradientTensor = g.OutputGradientTensor = desc(DataType::FLOAT32, sizes);
    g.MinMaxDataType = DataType::FLOAT32;
    g.Min = c.Min;
    g.Max = c.Max;
    Buffers gb = make_buffers<float>(rng,
                                     {{"InputTensor", &g.InputTensor}, {"InputGradientTensor", &g.InputGradientTensor}},
                                     {{"OutputGradientTensor", &g.OutputGradientTensor}});
    // x equal to a bound (dX is +0 there) on every third and fifth element: random data seldom ties.
    const size_t step = strided.empty() ? 1 : strided[0];
    for (size_t i = 0; i < n; ++i)
        if (i % 3 == 0 || i % 5 == 0)
            std::memcpy(gb.bytes[0].data() + i * step * sizeof(float), i % 3 == 0 ? &Min : &Max, sizeof(float));
    check_op({OperatorType::ELEMENT_WISE_CLIP_GRAD1, g}, gb);
    DML_ACTIVATION_RELU_OPERATOR_DESC f;
    f.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    f.OutputTensor = desc(DataType::FLOAT32, sizes);
    check_op({OperatorType::ACTIVATION_RELU, f},
             make_buffers<float>(rng, {{"InputTensor", &f.InputTensor}}, {{"OutputTensor", &f.OutputTensor}}));
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC r;
    r.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    r.InputGradientTensor = r.OutputGradientTensor = desc(DataType::FLOAT32, sizes);
    check_op(
        {OperatorType::ACTIVATION_RELU_GRAD, r},
        make_buffers<float>(rng, {{"InputTensor", &r.InputTensor}, {"InputGradientTensor", &r.InputGradientTensor}},
                            {{"OutputGradientTensor", &r.OutputGradientTensor}}));
}

// ---- ACTIVATION_RELU and ACTIVATION_RELU_GRAD (FLOAT16) --------------------------------------

void check_relu_half(std::mt19937_64& rng) {
    // Every FLOAT16 bit pattern as x (NaNs, -0, subnormals, infinities), strided and packed.
    const uint32_t n = 1u << 16;
    for (const bool strided : {false, true}) {
        DML_ACTIVATION_RELU_OPERATOR_DESC r;
        r.InputTensor = desc(DataType::FLOAT16, {n}, strided ? std::vector<uint32_t>{2} : std::vector<uint32_t>{});
        r.OutputTensor = desc(DataType::FLOAT16, {n});
        Buffers in = make_buffers<half>(rng, {{"InputTensor", &r.InputTensor}}, {{"OutputTensor", &r.OutputTensor}});
        for (uint32_t i = 0; i < n; ++i) {
            const uint16_t b = uint16_t(i);
            std::memcpy(in.bytes[0].data() + size_t(i) * (strided ? 4 : 2), &b, 2);
        }
        check_op({OperatorType::ACTIVATION_RELU, r}, in);
        DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC g;
        g.InputTensor = r.InputTensor;
        g.InputGradientTensor = desc(DataType::FLOAT16, {n});
        g.OutputGradientTensor = desc(DataType::FLOAT16, {n},
                                      strided ? std::vector<uint32_t>{3} : std::vector<uint32_t>{});
        Buffers gin = make_buffers<half>(
            rng, {{"InputTensor", &g.InputTensor}, {"InputGradientTensor", &g.InputGradientTensor}},
            {{"OutputGradientTensor", &g.OutputGradientTensor}});
        gin.bytes[0] = in.bytes[0];
        check_op({OperatorType::ACTIVATION_RELU_GRAD, g}, gin);
    }
}

}  // namespace

TEST_CASE("RELU and RELU_GRAD FLOAT16 fast path = plain loop, every bit pattern") {
    std::mt19937_64 rng(1330);
    check_relu_half(rng);
}

TEST_CASE("CLIP_GRAD1 FLOAT16 fast path = plain loop, element for element") {
    std::mt19937_64 rng(1340);
    for (int k = 0; k < 300; ++k) {
        const std::vector<uint32_t> sizes = {1 + uint32_t(rng() % 9), 1 + uint32_t(rng() % 9)};
        DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC d;
        d.InputTensor = desc(DataType::FLOAT16, sizes, random_strides(rng, sizes));
        d.InputGradientTensor = desc(DataType::FLOAT16, sizes, random_strides(rng, sizes));
        d.OutputGradientTensor = desc(DataType::FLOAT16, sizes, random_strides(rng, sizes));
        d.MinMaxDataType = DataType::FLOAT16;
        d.Min = DML_SCALAR_UNION::of(hard_element<half>(rng));
        d.Max = DML_SCALAR_UNION::of(hard_element<half>(rng));
        INFO("iteration " << k);
        check_op(
            {OperatorType::ELEMENT_WISE_CLIP_GRAD1, d},
            make_buffers<half>(rng, {{"InputTensor", &d.InputTensor}, {"InputGradientTensor", &d.InputGradientTensor}},
                               {{"OutputGradientTensor", &d.OutputGradientTensor}}));
    }
}

TEST_CASE_TEMPLATE("CLIP1 fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1320);
    check_clip1<T>(rng, 400);
}

TEST_CASE_TEMPLATE("Resample fast path = plain loop on wide rows (patterned reads, chunks)", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1370);
    check_resample_wide<T>(rng, 40);
}

TEST_CASE_TEMPLATE("Resample fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1300);
    check_resample<T>(rng, 120);
}

TEST_CASE("CLIP1, CLIP_GRAD1, RELU and RELU_GRAD FLOAT32 fast paths = plain loop, element for element") {
    std::mt19937_64 rng(1390);
    // The sanitizer build (DMLREF_TEST_TIER=sanitizer, test/meson.build) runs a third of the small
    // sizes and one streamed run: the same paths, at a fraction of its 40 s there.
    const bool sanitizer = sanitizer_tier();
    for (int k = 0; k < (sanitizer ? 100 : 300); ++k) check_floats_elementwise(rng, 1 + uint32_t(rng() % 40), false);
    // Several runs over the cores (in_runs), the last one short; then streamed stores, with a tail
    // of fewer than four elements.
    check_floats_elementwise(rng, uint32_t(5 * reference::fast::kRunElements + 1), true);
    for (int k = 0; k < (sanitizer ? 1 : 2); ++k)
        check_floats_elementwise(rng, uint32_t(reference::fast::kStreamedElements) + 3, true);
}

TEST_CASE("CLIP1 and CLIP_GRAD1 FLOAT16 fast paths = plain loop over several runs of contiguous elements") {
    std::mt19937_64 rng(1395);
    const std::vector<uint32_t> sizes = {uint32_t(3 * reference::fast::kRunElements + 5)};
    for (int k = 0; k < 4; ++k) {
        DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC c;
        c.InputTensor = c.OutputTensor = desc(DataType::FLOAT16, sizes);
        c.MinMaxDataType = DataType::FLOAT16;
        c.Min = DML_SCALAR_UNION::of(hard_element<half>(rng));
        c.Max = DML_SCALAR_UNION::of(hard_element<half>(rng));
        check_op({OperatorType::ELEMENT_WISE_CLIP1, c},
                 make_buffers<half>(rng, {{"InputTensor", &c.InputTensor}}, {{"OutputTensor", &c.OutputTensor}}));
        DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC g;
        g.InputTensor = g.InputGradientTensor = g.OutputGradientTensor = desc(DataType::FLOAT16, sizes);
        g.MinMaxDataType = DataType::FLOAT16;
        g.Min = c.Min;
        g.Max = c.Max;
        check_op(
            {OperatorType::ELEMENT_WISE_CLIP_GRAD1, g},
            make_buffers<half>(rng, {{"InputTensor", &g.InputTensor}, {"InputGradientTensor", &g.InputGradientTensor}},
                               {{"OutputGradientTensor", &g.OutputGradientTensor}}));
    }
}

TEST_CASE("The element-for-element check fails on a planted difference") {
    std::mt19937_64 rng(5);
    DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
    d.InputGradientTensor = desc(DataType::FLOAT32, {1, 2, 8, 8});
    d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 2, 4, 4});
    d.InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    d.DimensionCount = 4;
    d.Scales = {1, 1, 2, 2};
    d.InputPixelOffsets = {0, 0, 0.5f, 0.5f};
    d.OutputPixelOffsets = {0, 0, -0.5f, -0.5f};
    const Operator op{OperatorType::RESAMPLE_GRAD1, d};
    const Buffers in = make_buffers<float>(rng, {{"InputGradientTensor", &d.InputGradientTensor}},
                                           {{"OutputGradientTensor", &d.OutputGradientTensor}});
    const Buffers plain = evaluate_with(op, in, false, 1);
    Buffers fast = evaluate_with(op, in, true, 1);
    CHECK(first_difference(plain, fast) == -1);
    fast.bytes[1][17] ^= std::byte{1};  // one bit of one element
    CHECK(first_difference(plain, fast) == 1);
}

}  // namespace dmlref_test_fast_paths
