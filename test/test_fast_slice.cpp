// SLICE_GRAD's fast path (reference/fast/slice_grad.hpp: dX written once, row by row) against
// the plain loop (reference/slice.cpp), byte for byte: random windows (offsets, sizes, strides of
// either sign) over ranks 1 to 8, dY packed or strided, dX packed (the fast path) or padded (the
// plain loop either way), every element width, one thread and three; rows of several chunks; and
// one window whose dX is derived by hand.
#include "fast_check.hpp"
#include "support.hpp"

#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_slice {

using namespace dmlref;
using namespace dmlref::test;

namespace {

// A random SLICE_GRAD: per axis a dX size, a window inside it and a stride, dY of the copied size.
DML_SLICE_GRAD_OPERATOR_DESC random_slice_grad(std::mt19937_64& rng, DataType t, uint32_t rank, uint32_t max_size) {
    DML_SLICE_GRAD_OPERATOR_DESC d;
    d.DimensionCount = rank;
    std::vector<uint32_t> dx(rank), dy(rank);
    for (uint32_t i = 0; i < rank; ++i) {
        dx[i] = 1 + uint32_t(rng() % max_size);
        const uint32_t offset = uint32_t(rng() % dx[i]);
        const uint32_t size = 1 + uint32_t(rng() % (dx[i] - offset));
        const int32_t magnitude = 1 + int32_t(rng() % 3);
        const int32_t stride = rng() % 3 == 0 ? -magnitude : magnitude;
        d.InputWindowOffsets.push_back(offset);
        d.InputWindowSizes.push_back(size);
        d.InputWindowStrides.push_back(stride);
        const uint32_t copied = 1 + (size - 1) / uint32_t(magnitude);
        dy[i] = 1 + uint32_t(rng() % copied);  // from one element to every element the window copies
    }
    d.InputGradientTensor = desc(t, dy, rng() % 2 ? random_strides(rng, dy) : gapped_strides(rng, dy));
    d.OutputGradientTensor = desc(t, dx, rng() % 4 == 0 ? random_strides(rng, dx) : std::vector<uint32_t>{});
    return d;
}

template <class T> void check_slice_grad(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 1 + uint32_t(rng() % 8);
        const DML_SLICE_GRAD_OPERATOR_DESC d = random_slice_grad(rng, data_type_of<T>(), rank, rank > 4 ? 4 : 40);
        INFO("rank " << rank << ", iteration " << k);
        check_op({OperatorType::SLICE_GRAD, d}, make_buffers<T>(rng, {{"InputGradientTensor", &d.InputGradientTensor}},
                                                                {{"OutputGradientTensor", &d.OutputGradientTensor}}));
    }
}

}  // namespace

TEST_CASE_TEMPLATE("SLICE_GRAD fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(1450);
    check_slice_grad<T>(rng, 150);
}

TEST_CASE("SLICE_GRAD fast path = plain loop on rows longer than its 4 KiB chunks") {
    // Rows of several chunks and a part (the window's elements found again per chunk), odd widths,
    // both signs of the last stride, a stride of 2 (the paired stores, whose last zero may fall in
    // the next chunk) and of 1 (whole runs copied), widths 1, 2, 4 and 8 bytes.
    std::mt19937_64 rng(1460);
    struct Shape {
        DataType t;
        std::vector<uint32_t> dx;
    };
    const Shape shapes[] = {{DataType::FLOAT32, {3, 5, 2357}},
                            {DataType::UINT8, {7, 9001}},
                            {DataType::FLOAT16, {4, 4097}},
                            {DataType::INT64, {5, 3, 1539}}};
    for (const Shape& s : shapes) {
        for (const int32_t step : {2, -3, 1, -2}) {
            DML_SLICE_GRAD_OPERATOR_DESC d;
            d.DimensionCount = uint32_t(s.dx.size());
            const uint32_t w = s.dx.back();
            d.InputWindowOffsets.assign(s.dx.size(), 1);
            d.InputWindowOffsets.back() = 3;
            d.InputWindowStrides.assign(s.dx.size(), 2);
            d.InputWindowStrides.back() = step;
            std::vector<uint32_t> dy;
            for (size_t i = 0; i < s.dx.size(); ++i) {
                d.InputWindowSizes.push_back(s.dx[i] - d.InputWindowOffsets[i] - 1);
                dy.push_back(1 + (d.InputWindowSizes[i] - 1) / uint32_t(std::abs(d.InputWindowStrides[i])));
            }
            d.InputGradientTensor = desc(s.t, dy);
            d.OutputGradientTensor = desc(s.t, s.dx);
            INFO("type " << int(s.t) << ", width " << w << ", last stride " << step);
            REQUIRE(w * element_size(s.t) > 4096);
            const auto run = [&]<class T>() {
                check_op({OperatorType::SLICE_GRAD, d},
                         make_buffers<T>(rng, {{"InputGradientTensor", &d.InputGradientTensor}},
                                         {{"OutputGradientTensor", &d.OutputGradientTensor}}));
            };
            switch (s.t) {
                case DataType::FLOAT32: run.operator()<float>(); break;
                case DataType::UINT8: run.operator()<uint8_t>(); break;
                case DataType::FLOAT16: run.operator()<half>(); break;
                default: run.operator()<int64_t>(); break;
            }
        }
    }
}

TEST_CASE("SLICE_GRAD fast path: a window derived by hand") {
    // dX 3x5, InputWindowOffsets {0, 1}, InputWindowSizes {3, 4}, InputWindowStrides {2, -3}:
    // CopyStart = {0, 1 + 4 - 1} = {0, 4}, so dX[2 * c0][4 - 3 * c1] = dY[c0][c1] for dY 2x2.
    DML_SLICE_GRAD_OPERATOR_DESC d;
    d.DimensionCount = 2;
    d.InputWindowOffsets = {0, 1};
    d.InputWindowSizes = {3, 4};
    d.InputWindowStrides = {2, -3};
    d.InputGradientTensor = desc(DataType::FLOAT32, {2, 2});
    d.OutputGradientTensor = desc(DataType::FLOAT32, {3, 5});
    const std::vector<float> dy = {1, 2, 3, 4};
    std::vector<float> dx(15, -7.0f);
    Bindings b;
    b.bind("InputGradientTensor", std::as_writable_bytes(std::span(const_cast<float*>(dy.data()), dy.size())));
    b.bind("OutputGradientTensor", std::as_writable_bytes(std::span(dx)));
    reference::set_fast_paths_enabled(true);
    evaluate({OperatorType::SLICE_GRAD, d}, b);
    CHECK(dx == std::vector<float>{0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 3});
}

}  // namespace dmlref_test_fast_slice
