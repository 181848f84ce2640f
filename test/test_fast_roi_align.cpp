// ROI_ALIGN's and ROI_ALIGN1's fast path (reference/fast/roi_align.cpp) against the plain loop of
// reference/roi_align.cpp, element for element (fast_check.hpp: one thread and three): random
// images, regions inside, partly outside, crossing the edges, degenerate (x2 = x1) and inverted,
// on a grid of integers and halves (exact sample positions: the exact geometry) and anywhere;
// scales, pixel offsets, AlignRegionsToCorners both ways, sample counts, both interpolation modes
// and both reductions, OutOfBoundsInputValue (NaN and infinities too), UINT32 and UINT64 batch
// indices, packed and strided layouts, on plain, integer (ties) and hard values (NaN, +-inf,
// subnormals, +-0, the largest values). ROI align takes FLOAT32 and FLOAT16 only (docs/golden.md,
// ROI align): the nine other types are errors, and no path runs. Then hand-derived cases: sample
// positions exactly on integers and halves, whose values are known, and an average exactly on a
// FLOAT32 tie, which the bound must leave to the plain loop.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "roi_random.hpp"
#include "support.hpp"

#include "../reference/fast/roi_align.hpp"

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_roi_align {

using namespace dmlref;
using namespace dmlref::test;

namespace {

// One ROI align case: the image, the regions, the output and the desc's parameters.
struct RoiCase {
    std::vector<uint32_t> in, out, in_strides, out_strides;
    uint32_t regions = 1;
    bool align1 = true;
    DataType indices = DataType::UINT32;
    uint32_t reduction = DML_REDUCE_FUNCTION_AVERAGE, mode = DML_INTERPOLATION_MODE_LINEAR;
    float scale_x = 1, scale_y = 1, ipo = 0.5f, opo = -0.5f, oob = 0;
    uint32_t min_samples = 1, max_samples = 1, corners = 0;

    template <class D> void fill(D& d, DataType t) const {
        d.InputTensor = desc(t, in, in_strides);
        d.ROITensor = desc(t, {regions, 4});
        d.BatchIndicesTensor = desc(indices, {regions});
        d.OutputTensor = desc(t, {regions, in[1], out[0], out[1]}, out_strides);
        d.ReductionFunction = reduction;
        d.InterpolationMode = mode;
        d.SpatialScaleX = scale_x;
        d.SpatialScaleY = scale_y;
        d.OutOfBoundsInputValue = oob;
        d.MinimumSamplesPerOutput = min_samples;
        d.MaximumSamplesPerOutput = max_samples;
    }
    Operator op(DataType t) const {
        if (!align1) {
            DML_ROI_ALIGN_OPERATOR_DESC d;
            fill(d, t);
            return {OperatorType::ROI_ALIGN, d};
        }
        DML_ROI_ALIGN1_OPERATOR_DESC d;
        fill(d, t);
        d.InputPixelOffset = ipo;
        d.OutputPixelOffset = opo;
        d.AlignRegionsToCorners = corners;
        return {OperatorType::ROI_ALIGN1, d};
    }
};

std::vector<std::byte> bytes_of(const void* data, uint64_t size) {
    std::vector<std::byte> b(size);
    std::memcpy(b.data(), data, size);
    return b;
}

// The buffers: X's whole buffer from `values` (memory order), the regions, the batch indices and
// an output filled with 0x5a.
template <class T>
Buffers roi_buffers(const Operator& op, const std::vector<T>& values, const std::vector<T>& rois,
                    const std::vector<uint64_t>& batches) {
    const TensorDesc *in, *roi, *idx, *out;
    if (op.Type == OperatorType::ROI_ALIGN1) {
        const auto& a = get<DML_ROI_ALIGN1_OPERATOR_DESC>(op.Desc);
        in = &a.InputTensor, roi = &a.ROITensor, idx = &a.BatchIndicesTensor, out = &a.OutputTensor;
    } else {
        const auto& a = get<DML_ROI_ALIGN_OPERATOR_DESC>(op.Desc);
        in = &a.InputTensor, roi = &a.ROITensor, idx = &a.BatchIndicesTensor, out = &a.OutputTensor;
    }
    Buffers b;
    b.names = {"InputTensor", "ROITensor", "BatchIndicesTensor", "OutputTensor"};
    std::vector<T> x(buffer_size(*in) / sizeof(T));
    for (size_t i = 0; i < x.size(); ++i) x[i] = values[i % values.size()];
    b.bytes.push_back(bytes_of(x.data(), buffer_size(*in)));
    b.bytes.push_back(bytes_of(rois.data(), buffer_size(*roi)));
    if (idx->DataType == DataType::UINT64) {
        b.bytes.push_back(bytes_of(batches.data(), buffer_size(*idx)));
    } else {
        std::vector<uint32_t> narrow(batches.begin(), batches.end());
        b.bytes.push_back(bytes_of(narrow.data(), buffer_size(*idx)));
    }
    b.bytes.emplace_back(buffer_size(*out), std::byte{0x5a});
    return b;
}

RoiCase random_case(std::mt19937_64& rng) {
    RoiCase c;
    const uint32_t batch = 1 + uint32_t(rng() % 2), channels = 1 + uint32_t(rng() % 3);
    c.in = {batch, channels, 1 + uint32_t(rng() % 9), 1 + uint32_t(rng() % 9)};
    c.out = {1 + uint32_t(rng() % 4), 1 + uint32_t(rng() % 4)};
    c.regions = 1 + uint32_t(rng() % 4);
    c.in_strides = random_strides(rng, c.in);
    c.out_strides = random_strides(rng, {c.regions, channels, c.out[0], c.out[1]});
    c.align1 = rng() % 4 != 0;
    c.indices = rng() % 2 ? DataType::UINT32 : DataType::UINT64;
    c.reduction = rng() % 3 ? DML_REDUCE_FUNCTION_AVERAGE : DML_REDUCE_FUNCTION_MAX;
    c.mode = rng() % 3 ? DML_INTERPOLATION_MODE_LINEAR : DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    c.scale_x = pick<float>(rng, {1.0f, 0.5f, 0.25f, 0.0625f, 0.3f, 2.0f, 1.0f / 3});
    c.scale_y = rng() % 2 ? c.scale_x : pick<float>(rng, {1.0f, 0.25f, 0.7f});
    c.ipo = pick<float>(rng, {0.5f, 0.0f, -0.5f, 0.25f, 1.0f / 3});
    c.opo = pick<float>(rng, {-0.5f, 0.0f, 0.5f, 0.1f});
    c.oob = rng() % 4 ? pick<float>(rng, {0.0f, 1.5f, -2.0f, 0x1p-140f})
                      : pick<float>(rng, {NAN, INFINITY, -INFINITY, 3.4e38f});
    c.min_samples = 1 + uint32_t(rng() % 2);
    c.max_samples = c.min_samples + uint32_t(rng() % 3);
    c.corners = uint32_t(rng() % 3 == 0);
    return c;
}

template <class T> void check_random(uint64_t seed, int cases) {
    std::mt19937_64 rng = rng_for<T>(seed);
    const DataType t = data_type_of<T>();
    uint64_t decided = 0, undecided = 0, floats = 0, exacts = 0;
    for (int k = 0; k < cases; ++k) {
        const RoiCase c = random_case(rng);
        const Operator op = c.op(t);
        std::vector<T> rois;
        std::vector<uint64_t> batches;
        for (uint32_t r = 0; r < c.regions; ++r) {
            const int kind = int(rng() % 4);
            float x1 = roi_coordinate(rng, c.in[3], kind), y1 = roi_coordinate(rng, c.in[2], kind);
            float x2 = roi_coordinate(rng, c.in[3], kind), y2 = roi_coordinate(rng, c.in[2], kind);
            if (rng() % 5 == 0) x2 = x1;                       // degenerate
            if (rng() % 3 != 0 && x2 < x1) std::swap(x1, x2);  // upright, or inverted
            if (rng() % 3 != 0 && y2 < y1) std::swap(y1, y2);
            if (rng() % 4 == 0) {  // a region in the input's unscaled units
                x1 /= c.scale_x, x2 /= c.scale_x, y1 /= c.scale_y, y2 /= c.scale_y;
            }
            for (float v : {x1, y1, x2, y2}) {  // finite (validate_values' roi-finite): FLOAT16 ends at 65504
                const T z = value_of<T>(double(v));
                rois.push_back(std::isfinite(double(static_cast<float>(z))) ? z
                                                                            : value_of<T>(v < 0 ? -60000.0 : 60000.0));
            }
            batches.push_back(rng() % c.in[0]);
        }
        const uint64_t n = buffer_size(desc(t, c.in, c.in_strides)) / sizeof(T);
        const std::vector<T> values = roi_values<T>(rng, size_t(n), int(rng() % 3));
        CAPTURE(k);
        check_op(op, roi_buffers<T>(op, values, rois, batches));
        const auto counts = reference::fast::roi_fast_counts();
        decided += counts.decided;
        undecided += counts.undecided;
        floats += counts.float_positions;
        exacts += counts.exact_positions;
    }
    MESSAGE("decided " << decided << ", undecided " << undecided << "; positions in float64 " << floats << ", exact "
                       << exacts);
    CHECK(decided > 4 * undecided);  // the path does the work
    CHECK(floats > exacts);
    CHECK(exacts > 0);  // the grid regions reach the exact geometry
}

}  // namespace

TEST_CASE_TEMPLATE("ROI align fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    if constexpr (std::is_same_v<T, float> || is_half_v<T>) {
        check_random<T>(24, 300);
    } else {  // ROI align takes FLOAT32 and FLOAT16 only: the others are errors, and nothing runs
        std::mt19937_64 rng = rng_for<T>(24);
        const Operator op = random_case(rng).op(data_type_of<T>());
        CHECK(validate(op).has_errors());
    }
}

// Positions exactly on integers (X = s: ipo 0, opo 0, the region [0, W] over W outputs of one
// sample) and on halves (X = s + 1/2: opo -1/2): float64 cannot place them, so the exact geometry
// does. LINEAR on integers reads X itself, on halves the mean of two neighbours; NEAREST_NEIGHBOR
// on halves the lower neighbour (ties to the lower index).
TEST_CASE_TEMPLATE("ROI align fast path on integer and half positions, hand-derived", T, float, dmlref::half) {
    const DataType t = data_type_of<T>();
    const uint32_t w = 6;
    std::vector<T> values(w * w);
    for (uint32_t i = 0; i < w * w; ++i) values[i] = value_of<T>(double(i % 7) * 0.25 + 0.25);
    auto at = [&](uint32_t y, uint32_t x) { return double(static_cast<float>(values[y * w + x])); };
    for (const float opo : {0.0f, -0.5f})
        for (const uint32_t mode : {DML_INTERPOLATION_MODE_LINEAR, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR}) {
            RoiCase c;
            c.in = {1, 1, w, w};
            c.out = {w - 1, w - 1};
            c.ipo = 0;
            c.opo = opo;
            c.mode = mode;
            const Operator op = c.op(t);
            const std::vector<T> rois = {value_of<T>(0.0), value_of<T>(0.0), value_of<T>(double(w - 1)),
                                         value_of<T>(double(w - 1))};
            const Buffers b = roi_buffers<T>(op, values, rois, {0});
            check_op(op, b);
            const auto counts = reference::fast::roi_fast_counts();
            // Integers are cell edges for LINEAR, halves ties for NEAREST_NEIGHBOR: the exact geometry's.
            const bool edges = (opo == 0) == (mode == DML_INTERPOLATION_MODE_LINEAR);
            CHECK((counts.exact_positions > 0) == edges);
            CHECK(counts.undecided == 0);  // the exact values are representable and non-zero: decided
            const Buffers fast = evaluate_with(op, b, true, 1);
            std::vector<T> y((w - 1) * (w - 1));
            std::memcpy(y.data(), fast.bytes[3].data(), y.size() * sizeof(T));
            for (uint32_t oy = 0; oy < w - 1; ++oy)
                for (uint32_t ox = 0; ox < w - 1; ++ox) {
                    double expected;
                    if (opo == 0) expected = at(oy, ox);                                              // on the element
                    else if (mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) expected = at(oy, ox);  // the lower
                    else expected = (at(oy, ox) + at(oy, ox + 1) + at(oy + 1, ox) + at(oy + 1, ox + 1)) / 4;
                    CAPTURE(oy);
                    CAPTURE(ox);
                    CHECK(double(static_cast<float>(y[oy * (w - 1) + ox])) == expected);
                }
        }
}

// An average exactly on a FLOAT32 (FLOAT16) tie: the halves between 1 and 1 + 2 ulp average to
// 1 + ulp / 2 ... the midpoint of 1 and the next value, which the bound (never 0 for a non-zero
// sum) cannot decide: the plain loop takes it, ties to even give 1.
TEST_CASE_TEMPLATE("ROI align fast path leaves an exact tie to the plain loop", T, float, dmlref::half) {
    const DataType t = data_type_of<T>();
    const double ulp = is_half_v<T> ? 0x1p-10 : 0x1p-23;
    RoiCase c;
    c.in = {1, 1, 1, 2};
    c.out = {1, 1};
    c.ipo = 0;
    c.opo = -0.5f;  // the one sample at x = 1/2: weights 1/2 and 1/2
    const Operator op = c.op(t);
    const std::vector<T> values = {value_of<T>(1.0), value_of<T>(1.0 + ulp)};
    const std::vector<T> rois = {value_of<T>(0.0), value_of<T>(0.0), value_of<T>(1.0), value_of<T>(0.0)};
    const Buffers b = roi_buffers<T>(op, values, rois, {0});
    check_op(op, b);
    const Buffers fast = evaluate_with(op, b, true, 1);
    CHECK(reference::fast::roi_fast_counts().undecided == 1);
    T y;
    std::memcpy(&y, fast.bytes[3].data(), sizeof(T));
    CHECK(double(static_cast<float>(y)) == 1.0);
}

}  // namespace dmlref_test_fast_roi_align
