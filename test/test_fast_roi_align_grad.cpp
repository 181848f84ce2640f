// ROI_ALIGN_GRAD's fast path (reference/fast/roi_align_grad.cpp) against the plain loop of
// reference/roi_align.cpp, element for element (fast_check.hpp: one thread and three; some cases
// on every thread count from 1 to 16): random images, regions inside, partly outside, crossing the
// edges, far out of bounds, degenerate and inverted, on the integer and half grid (the exact
// geometry) and anywhere; scales, pixel offsets, AlignRegionsToCorners both ways, sample counts,
// both interpolation modes, AVERAGE and MAX (ties among the samples: the first greatest), FLOAT32
// and FLOAT16, packed and strided layouts, on plain, integer (ties) and hard values (NaN, +-inf,
// subnormals, +-0, the largest values), and regions repeated with dY negated, whose gradients
// cancel exactly (the bound cannot decide an exact 0: the plain loop's element). The path declines
// where OutputROIGradientTensor is bound. Then hand-derived cases: a gradient spread over halves,
// MAX's first greatest sample, and a sum exactly on a FLOAT32 (FLOAT16) tie.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "roi_random.hpp"
#include "support.hpp"

#include "../reference/fast/roi_align.hpp"

#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_roi_align_grad {

using namespace dmlref;
using namespace dmlref::test;

namespace {

// One ROI_ALIGN_GRAD case: the image (dX's sizes), the outputs (dY's), the desc's parameters and
// which optional tensors are bound.
struct GradCase {
    std::vector<uint32_t> in, out, x_strides, dx_strides, dy_strides;
    uint32_t regions = 1;
    uint32_t reduction = DML_REDUCE_FUNCTION_AVERAGE, mode = DML_INTERPOLATION_MODE_LINEAR;
    float scale_x = 1, scale_y = 1, ipo = 0.5f, opo = -0.5f;
    uint32_t min_samples = 1, max_samples = 1, corners = 0;
    bool input = false, roi_gradient = false;

    DML_ROI_ALIGN_GRAD_OPERATOR_DESC desc_of(DataType t) const {
        DML_ROI_ALIGN_GRAD_OPERATOR_DESC d;
        if (input || roi_gradient || reduction == DML_REDUCE_FUNCTION_MAX) d.InputTensor = desc(t, in, x_strides);
        d.InputGradientTensor = desc(t, {regions, in[1], out[0], out[1]}, dy_strides);
        d.ROITensor = desc(t, {regions, 4});
        d.BatchIndicesTensor = desc(DataType::UINT32, {regions});
        d.OutputGradientTensor = desc(t, in, dx_strides);
        if (roi_gradient) d.OutputROIGradientTensor = desc(t, {regions, 4});
        d.ReductionFunction = reduction;
        d.InterpolationMode = mode;
        d.SpatialScaleX = scale_x;
        d.SpatialScaleY = scale_y;
        d.InputPixelOffset = ipo;
        d.OutputPixelOffset = opo;
        d.MinimumSamplesPerOutput = min_samples;
        d.MaximumSamplesPerOutput = max_samples;
        d.AlignRegionsToCorners = corners;
        return d;
    }
};

std::vector<std::byte> bytes_of(const void* data, uint64_t size) {
    std::vector<std::byte> b(size);
    std::memcpy(b.data(), data, size);
    return b;
}

template <class T> std::vector<std::byte> filled(const TensorDesc& d, const std::vector<T>& values) {
    std::vector<T> v(buffer_size(d) / sizeof(T));
    for (size_t i = 0; i < v.size(); ++i) v[i] = values[i % values.size()];
    return bytes_of(v.data(), buffer_size(d));
}

// The buffers: X (when bound) and dY from `x` and `dy` (memory order, repeated), the regions, the
// batch indices, and the outputs filled with 0x5a.
template <class T>
Buffers grad_buffers(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, const std::vector<T>& x, const std::vector<T>& dy,
                     const std::vector<T>& rois, const std::vector<uint32_t>& batches) {
    Buffers b;
    if (d.InputTensor) {
        b.names.push_back("InputTensor");
        b.bytes.push_back(filled<T>(*d.InputTensor, x));
    }
    b.names.insert(b.names.end(), {"InputGradientTensor", "ROITensor", "BatchIndicesTensor", "OutputGradientTensor"});
    b.bytes.push_back(filled<T>(d.InputGradientTensor, dy));
    b.bytes.push_back(bytes_of(rois.data(), buffer_size(d.ROITensor)));
    b.bytes.push_back(bytes_of(batches.data(), buffer_size(d.BatchIndicesTensor)));
    b.bytes.emplace_back(buffer_size(*d.OutputGradientTensor), std::byte{0x5a});
    if (d.OutputROIGradientTensor) {
        b.names.push_back("OutputROIGradientTensor");
        b.bytes.emplace_back(buffer_size(*d.OutputROIGradientTensor), std::byte{0x5a});
    }
    return b;
}

GradCase random_case(std::mt19937_64& rng) {
    GradCase c;
    const uint32_t batch = 1 + uint32_t(rng() % 2), channels = 1 + uint32_t(rng() % 11);
    c.in = {batch, channels, 1 + uint32_t(rng() % 9), 1 + uint32_t(rng() % 9)};
    c.out = {1 + uint32_t(rng() % 4), 1 + uint32_t(rng() % 4)};
    c.regions = 1 + uint32_t(rng() % 5);
    c.x_strides = random_strides(rng, c.in);
    c.dx_strides = random_strides(rng, c.in);
    c.dy_strides = random_strides(rng, {c.regions, channels, c.out[0], c.out[1]});
    c.reduction = rng() % 3 ? DML_REDUCE_FUNCTION_AVERAGE : DML_REDUCE_FUNCTION_MAX;
    c.mode = rng() % 3 ? DML_INTERPOLATION_MODE_LINEAR : DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    c.scale_x = pick<float>(rng, {1.0f, 0.5f, 0.25f, 0.0625f, 0.3f, 2.0f, 1.0f / 3});
    c.scale_y = rng() % 2 ? c.scale_x : pick<float>(rng, {1.0f, 0.25f, 0.7f});
    c.ipo = pick<float>(rng, {0.5f, 0.0f, -0.5f, 0.25f, 1.0f / 3});
    c.opo = pick<float>(rng, {-0.5f, 0.0f, 0.5f, 0.1f});
    c.min_samples = 1 + uint32_t(rng() % 2);
    c.max_samples = c.min_samples + uint32_t(rng() % 3);
    c.corners = uint32_t(rng() % 3 == 0);
    c.input = rng() % 2;
    return c;
}

// The regions of a case (finite in T: validate_values' roi-finite) and their batch indices. With
// `mirrored`, the second half of the regions repeats the first (their dY is negated by the caller).
template <class T>
void random_regions(std::mt19937_64& rng, const GradCase& c, bool mirrored, std::vector<T>& rois,
                    std::vector<uint32_t>& batches) {
    for (uint32_t r = 0; r < c.regions; ++r) {
        if (mirrored && r >= (c.regions + 1) / 2) {
            const uint32_t from = r - (c.regions + 1) / 2;
            for (int k = 0; k < 4; ++k) rois.push_back(rois[from * 4 + k]);
            batches.push_back(batches[from]);
            continue;
        }
        const int kind = int(rng() % 4);
        float x1 = roi_coordinate(rng, c.in[3], kind), y1 = roi_coordinate(rng, c.in[2], kind);
        float x2 = roi_coordinate(rng, c.in[3], kind), y2 = roi_coordinate(rng, c.in[2], kind);
        if (rng() % 5 == 0) x2 = x1;                       // degenerate
        if (rng() % 3 != 0 && x2 < x1) std::swap(x1, x2);  // upright, or inverted
        if (rng() % 3 != 0 && y2 < y1) std::swap(y1, y2);
        if (rng() % 4 == 0) x1 /= c.scale_x, x2 /= c.scale_x, y1 /= c.scale_y, y2 /= c.scale_y;
        for (float v : {x1, y1, x2, y2}) {  // FLOAT16 ends at 65504
            const T z = value_of<T>(double(v));
            rois.push_back(std::isfinite(double(static_cast<float>(z))) ? z : value_of<T>(v < 0 ? -60000.0 : 60000.0));
        }
        batches.push_back(uint32_t(rng() % c.in[0]));
    }
}

// dY for a case: random values, or (mirrored) each later region's dY the negation of its twin's,
// element for element in memory order (dY packed).
template <class T>
std::vector<T> gradient_values(std::mt19937_64& rng, const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, bool mirrored,
                               uint32_t regions) {
    const size_t n = size_t(buffer_size(d.InputGradientTensor) / sizeof(T));
    std::vector<T> v = roi_values<T>(rng, n, mirrored ? int(rng() % 2) : int(rng() % 3));
    if (mirrored) {
        const size_t per = n / regions, half_regions = (regions + 1) / 2;
        for (size_t r = half_regions; r < regions; ++r)
            for (size_t i = 0; i < per; ++i)
                v[r * per + i] = value_of<T>(-double(static_cast<float>(v[(r - half_regions) * per + i])));
    }
    return v;
}

// Fast against plain on every thread count from 1 to 16.
void check_threads(const Operator& op, const Buffers& b) {
    const Buffers plain = evaluate_with(op, b, false, 1);
    for (int threads = 1; threads <= 16; ++threads) {
        CAPTURE(threads);
        CHECK(first_difference(plain, evaluate_with(op, b, true, threads)) == -1);
    }
}

template <class T> void check_random(uint64_t seed, int cases) {
    std::mt19937_64 rng = rng_for<T>(seed);
    const DataType t = data_type_of<T>();
    reference::fast::RoiGradFastCounts total;
    for (int k = 0; k < cases; ++k) {
        GradCase c = random_case(rng);
        const bool mirrored = rng() % 5 == 0;
        if (mirrored) {
            c.regions = 2 * (1 + uint32_t(rng() % 3));
            c.dy_strides.clear();
        }
        const DML_ROI_ALIGN_GRAD_OPERATOR_DESC d = c.desc_of(t);
        const Operator op{OperatorType::ROI_ALIGN_GRAD, d};
        std::vector<T> rois;
        std::vector<uint32_t> batches;
        random_regions<T>(rng, c, mirrored, rois, batches);
        const size_t nx = d.InputTensor ? size_t(buffer_size(*d.InputTensor) / sizeof(T)) : 1;
        const std::vector<T> x = roi_values<T>(rng, nx, int(rng() % 3));
        const std::vector<T> dy = gradient_values<T>(rng, d, mirrored, c.regions);
        CAPTURE(k);
        const Buffers b = grad_buffers<T>(d, x, dy, rois, batches);
        check_op(op, b);
        const auto n = reference::fast::roi_grad_fast_counts();
        CHECK(n.decided + n.undecided == uint64_t(c.in[0]) * c.in[1] * c.in[2] * c.in[3]);  // every element, once
        total.decided += n.decided;
        total.undecided += n.undecided;
        total.float_positions += n.float_positions;
        total.exact_positions += n.exact_positions;
        total.float_choices += n.float_choices;
        total.exact_choices += n.exact_choices;
        if (k % 16 == 0) check_threads(op, b);
    }
    MESSAGE("decided " << total.decided << ", the plain loop's " << total.undecided << "; positions in float64 "
                       << total.float_positions << ", exact " << total.exact_positions << "; MAX's choices in float64 "
                       << total.float_choices << ", exact " << total.exact_choices);
    CHECK(total.decided > 4 * total.undecided);  // the path does the work
    CHECK(total.undecided > 0);                  // and the plain loop's elements are reached
    CHECK(total.float_positions > total.exact_positions);
    CHECK(total.exact_positions > 0);  // the grid regions reach the exact geometry
    CHECK(total.float_choices > total.exact_choices);
    CHECK(total.exact_choices > 0);  // ties and hard values reach the exact choice
}

// A grad case run with the fast paths on: its OutputGradientTensor as doubles (packed dX).
template <class T> std::vector<double> fast_dx(const Operator& op, const Buffers& b, size_t n) {
    const Buffers fast = evaluate_with(op, b, true, 1);
    size_t at = 0;
    while (fast.names[at] != "OutputGradientTensor") ++at;
    std::vector<T> v(n);
    std::memcpy(v.data(), fast.bytes[at].data(), n * sizeof(T));
    std::vector<double> out;
    for (const T& e : v) out.push_back(double(static_cast<float>(e)));
    return out;
}

}  // namespace

TEST_CASE_TEMPLATE("ROI align grad fast path = plain loop, element for element", T, float, dmlref::half) {
    check_random<T>(31, 300);
}

// With OutputROIGradientTensor bound the path declines (the plain loop computes both outputs): the
// fast path's counts stay those of the call before.
TEST_CASE_TEMPLATE("ROI align grad fast path declines where OutputROIGradientTensor is bound", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(32);
    const DataType t = data_type_of<T>();
    GradCase c;
    c.in = {1, 3, 5, 6};
    c.out = {2, 2};
    c.regions = 2;
    const std::vector<T> rois = {value_of<T>(0.5),  value_of<T>(0.25), value_of<T>(4.0), value_of<T>(3.5),
                                 value_of<T>(-1.0), value_of<T>(1.0),  value_of<T>(5.5), value_of<T>(6.0)};
    const std::vector<T> x = roi_values<T>(rng, 90, 0), dy = roi_values<T>(rng, 24, 0);
    const DML_ROI_ALIGN_GRAD_OPERATOR_DESC plain_desc = c.desc_of(t);
    const Operator plain_op{OperatorType::ROI_ALIGN_GRAD, plain_desc};
    check_op(plain_op, grad_buffers<T>(plain_desc, x, dy, rois, {0, 0}));
    const auto before = reference::fast::roi_grad_fast_counts();
    CHECK(before.decided + before.undecided == 90);
    c.in = {1, 3, 4, 4};  // another size: a run of the path would count 48 elements
    c.roi_gradient = true;
    const DML_ROI_ALIGN_GRAD_OPERATOR_DESC d = c.desc_of(t);
    const Operator op{OperatorType::ROI_ALIGN_GRAD, d};
    check_op(op, grad_buffers<T>(d, x, dy, rois, {0, 0}));
    const auto after = reference::fast::roi_grad_fast_counts();
    CHECK(after.decided == before.decided);
    CHECK(after.undecided == before.undecided);
}

// One region [0, 2] x [0, 2] of a 3x3 image, 2x2 outputs of one sample each, InputPixelOffset 0,
// OutputPixelOffset -1/2: the samples sit at 1/2 and 3/2 along each axis, each tap weighs 1/4, so
// output (oy, ox) sends dY / 4 to the four elements (oy..oy+1, ox..ox+1). dY = 1, 2, 4, 8.
TEST_CASE_TEMPLATE("ROI align grad fast path spreads over halves, hand-derived", T, float, dmlref::half) {
    const DataType t = data_type_of<T>();
    GradCase c;
    c.in = {1, 1, 3, 3};
    c.out = {2, 2};
    c.ipo = 0;
    c.opo = -0.5f;
    const DML_ROI_ALIGN_GRAD_OPERATOR_DESC d = c.desc_of(t);
    const Operator op{OperatorType::ROI_ALIGN_GRAD, d};
    const std::vector<T> rois = {value_of<T>(0.0), value_of<T>(0.0), value_of<T>(2.0), value_of<T>(2.0)};
    const std::vector<T> dy = {value_of<T>(1.0), value_of<T>(2.0), value_of<T>(4.0), value_of<T>(8.0)};
    const Buffers b = grad_buffers<T>(d, {value_of<T>(0.0)}, dy, rois, {0});
    check_op(op, b);
    const std::vector<double> got = fast_dx<T>(op, b, 9);
    CHECK(reference::fast::roi_grad_fast_counts().undecided == 0);
    const std::vector<double> expected = {0.25, 0.75, 0.5, 1.25, 3.75, 2.5, 1.0, 3.0, 2.0};
    for (size_t i = 0; i < 9; ++i) {
        CAPTURE(i);
        CHECK(got[i] == expected[i]);
    }
}

// MAX, NEAREST_NEIGHBOR: one output of 2x2 samples at 1/2 and 3/2 (ties to the lower index: the
// samples read elements (0, 0), (0, 1), (1, 0), (1, 1)). X = 3 5 / 5 1: the first greatest sample
// in row-major order is (0, 1), which takes the whole dY = 7; X all equal: sample (0, 0) takes it.
TEST_CASE_TEMPLATE("ROI align grad fast path sends MAX's dY to the first greatest sample, hand-derived", T, float,
                   dmlref::half) {
    const DataType t = data_type_of<T>();
    GradCase c;
    c.in = {1, 1, 2, 2};
    c.out = {1, 1};
    c.ipo = 0;
    c.opo = -0.5f;
    c.min_samples = c.max_samples = 2;
    c.reduction = DML_REDUCE_FUNCTION_MAX;
    c.mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    const DML_ROI_ALIGN_GRAD_OPERATOR_DESC d = c.desc_of(t);
    const Operator op{OperatorType::ROI_ALIGN_GRAD, d};
    const std::vector<T> rois = {value_of<T>(0.0), value_of<T>(0.0), value_of<T>(2.0), value_of<T>(2.0)};
    for (const auto& [x, expected] :
         {std::pair<std::vector<double>, std::vector<double>>{{3, 5, 5, 1}, {0, 7, 0, 0}},
          std::pair<std::vector<double>, std::vector<double>>{{2, 2, 2, 2}, {7, 0, 0, 0}}}) {
        std::vector<T> xs;
        for (double v : x) xs.push_back(value_of<T>(v));
        const Buffers b = grad_buffers<T>(d, xs, {value_of<T>(7.0)}, rois, {0});
        check_op(op, b);
        CHECK(fast_dx<T>(op, b, 4) == expected);
    }
}

// A sum exactly on a FLOAT32 (FLOAT16) tie: two regions [0, 1] x [0, 0] of a 1x2 image, one output
// of one sample each at x = 1/2 (InputPixelOffset 0, OutputPixelOffset -1/2), which sends dY / 2
// to both elements. dY = 2 + 2 ulp and ulp: each element is 1 + 3 ulp / 2, the midpoint of 1 + ulp
// and 1 + 2 ulp, which ties to the even 1 + 2 ulp. The bound (never 0 for a non-zero sum) cannot
// decide it: the plain loop takes both elements.
TEST_CASE_TEMPLATE("ROI align grad fast path leaves an exact tie to the plain loop", T, float, dmlref::half) {
    const DataType t = data_type_of<T>();
    const double ulp = is_half_v<T> ? 0x1p-10 : 0x1p-23;
    GradCase c;
    c.in = {1, 1, 1, 2};
    c.out = {1, 1};
    c.regions = 2;
    c.ipo = 0;
    c.opo = -0.5f;
    const DML_ROI_ALIGN_GRAD_OPERATOR_DESC d = c.desc_of(t);
    const Operator op{OperatorType::ROI_ALIGN_GRAD, d};
    const std::vector<T> rois = {value_of<T>(0.0), value_of<T>(0.0), value_of<T>(1.0), value_of<T>(0.0),
                                 value_of<T>(0.0), value_of<T>(0.0), value_of<T>(1.0), value_of<T>(0.0)};
    const Buffers b = grad_buffers<T>(d, {value_of<T>(0.0)}, {value_of<T>(2 + 2 * ulp), value_of<T>(ulp)}, rois,
                                      {0, 0});
    check_op(op, b);
    const std::vector<double> got = fast_dx<T>(op, b, 2);
    CHECK(reference::fast::roi_grad_fast_counts().undecided == 2);
    CHECK(got[0] == 1 + 2 * ulp);
    CHECK(got[1] == 1 + 2 * ulp);
}

}  // namespace dmlref_test_fast_roi_align_grad
