// The max pooling fast paths (reference/fast/max_pooling_*.hpp, max_pooling_scan.cpp) against the
// plain loop of reference/max_pooling.cpp, element for element (fast_check.hpp): MAX_POOLING2 and
// MAX_POOLING_GRAD over random geometries, strides and all eleven types, hard values included.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include <algorithm>
#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_pooling {

using namespace dmlref;
using namespace dmlref::test;

namespace {

// ---- MAX_POOLING2 and MAX_POOLING_GRAD ------------------------------------------------------

// One MAX_POOLING2 (forward) or MAX_POOLING_GRAD of the given geometry with random strides,
// checked element for element against the plain loop.
struct PoolingGeometry {
    uint32_t spatial = 0;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
};
// few_values: X's elements (the argmax's candidates) drawn from few_values_pool instead (FLOAT16 only).
const uint16_t few_values_pool[] = {0x0000, 0x8000, 0x3c00, 0x3c00, 0xbc00, 0x4000, 0x0001, 0x8001,
                                    0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xffff};
template <class T> Buffers with_few_values([[maybe_unused]] std::mt19937_64& rng, Buffers b) {
    if constexpr (is_half_v<T>) {
        const bool nan_rich = rng() % 2;  // windows of NaN only, often
        for (size_t i = 0; i + 1 < b.bytes[0].size(); i += 2) {
            const uint16_t h = nan_rich && rng() % 2 ? 0x7e00 : few_values_pool[rng() % std::size(few_values_pool)];
            std::memcpy(&b.bytes[0][i], &h, 2);
        }
    }
    return b;
}
template <class T>
void check_pooling_op(std::mt19937_64& rng, bool forward, DataType indices, const std::vector<uint32_t>& in,
                      const std::vector<uint32_t>& out, const PoolingGeometry& g, bool gapped = false,
                      bool few_values = false) {
    const DataType t = data_type_of<T>();
    auto random_strides = [&](std::mt19937_64& r, const std::vector<uint32_t>& sizes) {
        return gapped && r() % 3 != 0 ? gapped_strides(r, sizes) : dmlref::test::random_strides(r, sizes);
    };
    auto geometry = [&](auto& d) {
        d.DimensionCount = g.spatial;
        d.Strides = g.Strides;
        d.WindowSize = g.WindowSize;
        d.StartPadding = g.StartPadding;
        d.EndPadding = g.EndPadding;
        d.Dilations = g.Dilations;
    };
    if (forward) {
        DML_MAX_POOLING2_OPERATOR_DESC d;
        d.InputTensor = desc(t, in, random_strides(rng, in));
        d.OutputTensor = desc(t, out, random_strides(rng, out));
        d.OutputIndicesTensor = desc(indices, out, random_strides(rng, out));
        geometry(d);
        Buffers b = make_buffers<T>(
            rng, {{"InputTensor", &d.InputTensor}},
            {{"OutputTensor", &d.OutputTensor}, {"OutputIndicesTensor", &*d.OutputIndicesTensor}});
        check_op({OperatorType::MAX_POOLING2, d}, few_values ? with_few_values<T>(rng, std::move(b)) : b);
    } else {
        DML_MAX_POOLING_GRAD_OPERATOR_DESC d;
        d.InputTensor = desc(t, in, random_strides(rng, in));
        d.InputGradientTensor = desc(t, out, random_strides(rng, out));
        d.OutputGradientTensor = desc(t, in, random_strides(rng, in));
        geometry(d);
        Buffers b = make_buffers<T>(rng,
                                    {{"InputTensor", &d.InputTensor}, {"InputGradientTensor", &d.InputGradientTensor}},
                                    {{"OutputGradientTensor", &d.OutputGradientTensor}});
        check_op({OperatorType::MAX_POOLING_GRAD, d}, few_values ? with_few_values<T>(rng, std::move(b)) : b);
    }
}

template <class T> void check_pooling(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t spatial = rng() % 4 == 0 ? 1
                                                : 2 + uint32_t(rng() % 2);  // 1: the plain loop; 2 and 3: the fast path
        std::vector<uint32_t> in = {1 + uint32_t(rng() % 2), 1 + uint32_t(rng() % 3)}, out = in;
        PoolingGeometry g;
        g.spatial = spatial;
        for (uint32_t i = 0; i < spatial; ++i) {
            const uint32_t window = 1 + uint32_t(rng() % 3), dilation = 1 + uint32_t(rng() % 2),
                           stride = 1 + uint32_t(rng() % 3);
            const uint32_t start = uint32_t(rng() % window), end = uint32_t(rng() % window);
            const uint32_t span = 1 + (window - 1) * dilation;
            const uint32_t size = std::max(1u, span > start + end ? span - start - end : 1u) + uint32_t(rng() % 6);
            const uint32_t padded = size + start + end;
            const uint32_t floor_size = (padded - span) / stride + 1;
            const bool ceil = (padded - span) % stride != 0 && rng() % 2;
            in.push_back(size);
            out.push_back(floor_size + ceil);
            g.Strides.push_back(stride);
            g.WindowSize.push_back(window);
            g.StartPadding.push_back(start);
            g.EndPadding.push_back(end);
            g.Dilations.push_back(dilation);
        }
        INFO("spatial " << spatial << ", iteration " << k);
        const bool forward = rng() % 2;
        check_pooling_op<T>(rng, forward, rng() % 2 ? DataType::UINT32 : DataType::UINT64, in, out, g);
    }
}

// Wide rows for the interior scan (windows side by side, candidates read with step 1, 2 or
// more) and volumes whose dX elements take up to nine terms (stride 1, window 3), so that
// inexact additions, infinities and NaNs reach the exact retry.
template <class T> void check_pooling_wide(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t spatial = 2 + uint32_t(rng() % 2);
        std::vector<uint32_t> in = {1, 1 + uint32_t(rng() % 2)}, out = in;
        PoolingGeometry g;
        g.spatial = spatial;
        for (uint32_t i = 0; i < spatial; ++i) {
            const bool last = i + 1 == spatial;
            const uint32_t window = 1 + uint32_t(rng() % 4), dilation = rng() % 4 == 0 ? 2 : 1,
                           stride = 1 + uint32_t(rng() % 3);
            const uint32_t start = uint32_t(rng() % window), end = uint32_t(rng() % window);
            const uint32_t span = 1 + (window - 1) * dilation;
            const uint32_t size = span + (last ? uint32_t(rng() % 200) : uint32_t(rng() % 5));
            const uint32_t padded = size + start + end;
            in.push_back(size);
            out.push_back((padded - span) / stride + 1);
            g.Strides.push_back(stride);
            g.WindowSize.push_back(window);
            g.StartPadding.push_back(start);
            g.EndPadding.push_back(end);
            g.Dilations.push_back(dilation);
        }
        INFO("spatial " << spatial << ", width " << in.back() << ", stride " << g.Strides.back() << ", window "
                        << g.WindowSize.back() << ", iteration " << k);
        const bool forward = rng() % 3 == 0;
        check_pooling_op<T>(rng, forward, DataType::UINT64, in, out, g);
    }
}

}  // namespace

TEST_CASE_TEMPLATE("Max pooling fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1310);
    check_pooling<T>(rng, 120);
}

TEST_CASE_TEMPLATE("Max pooling fast path = plain loop on wide rows (interior scan, exact retries)", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1380);
    check_pooling_wide<T>(rng, 40);
}

// ---- MAX_POOLING_GRAD's rolling accumulator and the FLOAT32 vector scan ------------------------
// The geometries where max_pooling_grad.hpp's accumulator rolls along rows or depth (with gaps
// between windows, windows longer than the axis, a single depth position under several output
// depths) and where max_pooling_scan.cpp's eight-window blocks and overlapping last block run
// (FLOAT32 rows of at least 8 interior windows, steps 1 and 2): the benchmark's 3x3 / 2 window
// with padding 1, wide 2-D and 3-D volumes, rows read and written with a step (gapped strides),
// and the hard values (ties, infinities, NaN, inexact float64 sums) that send dX elements to the
// exact retry.

namespace {

struct AxisChoice {
    uint32_t in, window, stride, start, end, dilation;
};

template <class T>
void check_pooling_axes(std::mt19937_64& rng, const std::vector<uint32_t>& nc, const std::vector<AxisChoice>& axes,
                        bool few_values = false) {
    std::vector<uint32_t> in = nc, out = nc;
    PoolingGeometry g;
    g.spatial = uint32_t(axes.size());
    for (const AxisChoice& a : axes) {
        const uint32_t span = 1 + (a.window - 1) * a.dilation, padded = a.in + a.start + a.end;
        REQUIRE(padded >= span);
        in.push_back(a.in);
        out.push_back((padded - span) / a.stride + 1);
        g.Strides.push_back(a.stride);
        g.WindowSize.push_back(a.window);
        g.StartPadding.push_back(a.start);
        g.EndPadding.push_back(a.end);
        g.Dilations.push_back(a.dilation);
    }
    for (const bool forward : {false, true})
        for (const bool gapped : {false, true}) {
            INFO("forward " << forward << ", gapped " << gapped << ", in " << in.back() << ", window "
                            << axes.back().window << ", stride " << axes.back().stride);
            check_pooling_op<T>(rng, forward, DataType::UINT64, in, out, g, gapped, few_values);
        }
}

template <class T> void check_pooling_rolling(std::mt19937_64& rng) {
    // The benchmark's window (3x3, stride 2, padding 1) on rows of 15 to 70 columns.
    for (int k = 0; k < 6; ++k) {
        const uint32_t h = 5 + uint32_t(rng() % 8), w = 15 + uint32_t(rng() % 56), end = uint32_t(rng() % 2);
        check_pooling_axes<T>(rng, {1, 2}, {{h, 3, 2, 1, end, 1}, {w, 3, 2, 1, end, 1}});
    }
    // 2-D: windows apart (stride above the span: positions no window reads), dilated, longer than the rows' count.
    check_pooling_axes<T>(rng, {1, 1}, {{9, 2, 3, 0, 0, 1}, {40, 2, 3, 1, 0, 1}});
    check_pooling_axes<T>(rng, {2, 1}, {{7, 3, 1, 2, 1, 2}, {33, 3, 2, 2, 2, 2}});
    check_pooling_axes<T>(rng, {1, 1}, {{2, 4, 1, 3, 3, 1}, {24, 3, 1, 1, 1, 1}});
    // 3-D: the accumulator rolls along depth; one depth position read by two output depths.
    check_pooling_axes<T>(rng, {1, 2}, {{5, 3, 2, 1, 1, 1}, {4, 3, 1, 1, 1, 1}, {20, 3, 2, 1, 1, 1}});
    check_pooling_axes<T>(rng, {1, 1}, {{6, 2, 1, 0, 0, 2}, {3, 2, 2, 0, 1, 1}, {27, 2, 1, 0, 0, 1}});
    check_pooling_axes<T>(rng, {1, 1}, {{1, 2, 1, 1, 1, 1}, {5, 3, 2, 1, 1, 1}, {19, 3, 2, 1, 1, 1}});
}

}  // namespace

TEST_CASE_TEMPLATE("Max pooling fast path = plain loop: rolling accumulator, vector scan, gapped rows", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1400);
    check_pooling_rolling<T>(rng);
}

// FLOAT16's argmax on the bits (max_pooling_scan.cpp's sixteen-wide blocks, half_argmax_key) and
// its grad's bulk conversions (half_rows.hpp): X drawn from few values, so that windows tie
// (equal values, -0 against +0), hold NaNs of both signs and payloads (NaN only, often),
// infinities, subnormals and the largest finite values; rows of 16 to 300 columns, steps 1 and 2
// (and 3, the scalar scan), windows of 1 to 4, packed and gapped.
TEST_CASE("Max pooling fast path, FLOAT16: ties, signed zeros and NaNs on wide rows = plain loop") {
    std::mt19937_64 rng(1420);
    for (int k = 0; k < 24; ++k) {
        const uint32_t stride = 1 + uint32_t(rng() % 3), window = 1 + uint32_t(rng() % 4);
        const uint32_t start = uint32_t(rng() % window), end = uint32_t(rng() % window);
        const uint32_t w = std::max(window, 16 * stride + uint32_t(rng() % 280));
        const uint32_t h = window + uint32_t(rng() % 4);
        INFO("iteration " << k);
        if (k % 4 == 3)  // 3-D
            check_pooling_axes<half>(
                rng, {1, 2}, {{3, 2, 1, 0, 0, 1}, {h, window, 2, start, end, 1}, {w, window, stride, start, end, 1}},
                true);
        else
            check_pooling_axes<half>(
                rng, {1, 2}, {{h, window, 1 + uint32_t(rng() % 2), start, end, 1}, {w, window, stride, start, end, 1}},
                true);
    }
}

}  // namespace dmlref_test_fast_pooling
