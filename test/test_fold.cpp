// FOLD and UNFOLD. Expected values come from the pages' examples (DML_FOLD_OPERATOR_DESC,
// DML_UNFOLD_OPERATOR_DESC), by hand, or from naive loops written here another way (im2col over
// a zero-padded copy of the image; col2im as a scatter-add that skips padded positions, on
// doubles); none comes from dmlref's evaluation. FOLD(UNFOLD(x)) = x * (the number of taps that
// land on each position) is checked as a property, the counts counted here.
#include "support.hpp"

#include "dmlref/descs/fold.hpp"
#include "dmlref/bits.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/values.hpp"

#include <cmath>
#include <cstring>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fold {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using FOLD = DML_FOLD_OPERATOR_DESC;
using UNFOLD = DML_UNFOLD_OPERATOR_DESC;

struct Geo {
    std::vector<uint32_t> w, s, d, p0, p1;
};

template <class D> D make(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out, const Geo& g) {
    D x;
    x.InputTensor = desc(t, std::move(in));
    x.OutputTensor = desc(t, std::move(out));
    x.DimensionCount = uint32_t(g.w.size());
    x.WindowSizes = g.w;
    x.Strides = g.s;
    x.Dilations = g.d;
    x.StartPadding = g.p0;
    x.EndPadding = g.p1;
    return x;
}
Operator op(const FOLD& d) { return Operator{OperatorType::FOLD, d}; }
Operator op(const UNFOLD& d) { return Operator{OperatorType::UNFOLD, d}; }

std::vector<float> iota(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = float(i);
    return v;
}

template <class D> std::vector<float> run_f32(const D& d, const std::vector<float>& x) {
    return as_values<float>(run(op(d), {{"InputTensor", logical_buffer(d.InputTensor, x)}}).at("OutputTensor"));
}

// ---- The naive references, on doubles (exact for the small integers used) ---------------------

// Blocks per dimension, by counting the window positions that fit in the padded image.
std::vector<int64_t> blocks(const std::vector<uint32_t>& image, const Geo& g) {
    std::vector<int64_t> b;
    for (size_t i = 0; i < g.w.size(); ++i) {
        const int64_t padded = int64_t(image[i + 2]) + g.p0[i] + g.p1[i];
        int64_t n = 0;
        while (n * g.s[i] + int64_t(g.d[i]) * (g.w[i] - 1) < padded) ++n;
        b.push_back(n);
    }
    return b;
}

// The padded image's sizes, and a walk over every column element in the columns' row-major
// order: f(n, c, the tap's coordinate in the padded image).
std::vector<uint32_t> padded_sizes(const std::vector<uint32_t>& image, const Geo& g) {
    std::vector<uint32_t> padded = image;
    for (size_t i = 0; i < g.w.size(); ++i) padded[i + 2] += g.p0[i] + g.p1[i];
    return padded;
}
template <class F> void for_each_column(const std::vector<uint32_t>& image, const Geo& g, F&& f) {
    const std::vector<int64_t> b = blocks(image, g);
    const std::vector<uint32_t> bs(b.begin(), b.end());
    const uint64_t L = product(bs), K = product(g.w);
    for (uint32_t n = 0; n < image[0]; ++n)
        for (uint32_t c = 0; c < image[1]; ++c)
            for (uint64_t k = 0; k < K; ++k)
                for (uint64_t l = 0; l < L; ++l) {
                    const auto kk = unflatten(k, g.w), bb = unflatten(l, bs);
                    std::vector<uint32_t> at = {n, c};
                    for (size_t i = 0; i < g.w.size(); ++i) at.push_back(bb[i] * g.s[i] + kk[i] * g.d[i]);
                    f(at);
                }
}
// The image position of a padded position, or false for padding.
bool unpadded(std::vector<uint32_t>& at, const std::vector<uint32_t>& image, const Geo& g) {
    for (size_t i = 0; i < g.w.size(); ++i) {
        if (at[i + 2] < g.p0[i] || at[i + 2] - g.p0[i] >= image[i + 2]) return false;
        at[i + 2] -= g.p0[i];
    }
    return true;
}

// im2col: copy the image into a zero-padded image first, then read every tap there.
std::vector<double> naive_unfold(const std::vector<double>& x, const std::vector<uint32_t>& image, const Geo& g) {
    const std::vector<uint32_t> padded = padded_sizes(image, g);
    std::vector<double> xp(product(padded), 0.0);
    for (uint64_t e = 0; e < x.size(); ++e) {
        std::vector<uint32_t> c = unflatten(e, image);
        for (size_t i = 0; i < g.w.size(); ++i) c[i + 2] += g.p0[i];
        xp[flatten(c, padded)] = x[e];
    }
    std::vector<double> out;
    for_each_column(image, g, [&](const std::vector<uint32_t>& at) { out.push_back(xp[flatten(at, padded)]); });
    return out;
}

// col2im: add every column element into the image where its tap is not padding.
std::vector<double> naive_fold(const std::vector<double>& cols, const std::vector<uint32_t>& image, const Geo& g) {
    std::vector<double> out(product(image), 0.0);
    uint64_t e = 0;
    for_each_column(image, g, [&](std::vector<uint32_t> at) {
        if (unpadded(at, image, g)) out[flatten(at, image)] += cols[e];
        ++e;
    });
    return out;
}

// Doubles stored as `t` (exact for the values used: small integers), and back.
std::vector<std::byte> pack(DataType t, const std::vector<double>& v) {
    const size_t w = element_size(t);
    std::vector<std::byte> b(v.size() * w);
    for (size_t i = 0; i < v.size(); ++i) {
        uint64_t bits = 0;
        switch (t) {
            case DataType::FLOAT32: {
                const float f = float(v[i]);
                std::memcpy(&bits, &f, 4);
                break;
            }
            case DataType::FLOAT64: std::memcpy(&bits, &v[i], 8); break;
            case DataType::FLOAT16: bits = to_bits(half_from_double(v[i])); break;
            default: bits = uint64_t(int64_t(v[i])); break;  // two's complement, truncated to the width below
        }
        std::memcpy(b.data() + i * w, &bits, w);
    }
    return b;
}
std::vector<double> unpack(DataType t, const std::vector<std::byte>& b) {
    const size_t w = element_size(t);
    std::vector<double> v(b.size() / w);
    for (size_t i = 0; i < v.size(); ++i) v[i] = element_value(t, load_bits(t, b.data() + i * w));
    return v;
}
// The logical values placed through a desc's strides.
std::vector<std::byte> placed(const TensorDesc& d, const std::vector<std::byte>& packed_bytes) {
    const size_t w = element_size(d.DataType);
    std::vector<std::byte> b(buffer_size(d), std::byte{0x5a});
    const auto st = effective_strides(d);
    for (uint64_t i = 0; i < element_count(d); ++i) {
        const auto c = unflatten(i, d.Sizes);
        int64_t off = 0;
        for (size_t k = 0; k < c.size(); ++k) off += int64_t(c[k]) * st[k];
        std::memcpy(b.data() + off * int64_t(w), packed_bytes.data() + i * w, w);
    }
    return b;
}

// Column-major strides (dimension 0 fastest): a layout unlike the packed one.
std::vector<uint32_t> column_major(const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> s(sizes.size());
    uint32_t a = 1;
    for (size_t i = 0; i < sizes.size(); ++i) {
        s[i] = a;
        a *= sizes[i];
    }
    return s;
}

}  // namespace

TEST_CASE("UNFOLD and FOLD: the pages' examples") {
    const Geo g33{{3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
    const Geo pad{{3, 3}, {1, 1}, {1, 1}, {1, 0}, {1, 0}};
    // DML_UNFOLD_OPERATOR_DESC Example 1: a 5x5 iota, 3x3 windows: row k = (k0, k1) holds x[b0 + k0][b1 + k1].
    const std::vector<float> u1 = run_f32(make<UNFOLD>(DataType::FLOAT32, {1, 1, 5, 5}, {1, 9, 9}, g33), iota(25));
    CHECK(std::vector<float>(u1.begin(), u1.begin() + 9) == std::vector<float>{0, 1, 2, 5, 6, 7, 10, 11, 12});
    CHECK(std::vector<float>(u1.begin() + 36, u1.begin() + 45) ==
          std::vector<float>{6, 7, 8, 11, 12, 13, 16, 17, 18});  // row 4
    CHECK(std::vector<float>(u1.end() - 9, u1.end()) == std::vector<float>{12, 13, 14, 17, 18, 19, 22, 23, 24});
    // Example 2: StartPadding {1, 0}, EndPadding {1, 0}: {1, 9, 15}; its rows 0 and 8.
    const std::vector<float> u2 = run_f32(make<UNFOLD>(DataType::FLOAT32, {1, 1, 5, 5}, {1, 9, 15}, pad), iota(25));
    CHECK(std::vector<float>(u2.begin(), u2.begin() + 15) ==
          std::vector<float>{0, 0, 0, 0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17});
    CHECK(std::vector<float>(u2.end() - 15, u2.end()) ==
          std::vector<float>{7, 8, 9, 12, 13, 14, 17, 18, 19, 22, 23, 24, 0, 0, 0});
    // DML_FOLD_OPERATOR_DESC Example 1: a {1, 9, 4} iota folded into 4x4.
    CHECK(run_f32(make<FOLD>(DataType::FLOAT32, {1, 9, 4}, {1, 1, 4, 4}, g33), iota(36)) ==
          std::vector<float>{0, 5, 13, 9, 14, 38, 54, 32, 38, 86, 102, 56, 26, 57, 65, 35});
    // Example 2: padded, {1, 9, 8}.
    const std::vector<float> f2 = {26, 70, 102, 60, 78, 183, 231, 129, 84, 195, 243, 135, 82, 182, 214, 116};
    CHECK(run_f32(make<FOLD>(DataType::FLOAT32, {1, 9, 8}, {1, 1, 4, 4}, pad), iota(72)) == f2);
    // Example 3: two channels, rows 0-8 channel 0, rows 9-17 channel 1 (ColumnLayout).
    std::vector<float> f3 = f2;
    for (float v : {170, 358, 390, 204, 294, 615, 663, 345, 300, 627, 675, 351, 226, 470, 502, 260}) f3.push_back(v);
    CHECK(run_f32(make<FOLD>(DataType::FLOAT32, {1, 18, 8}, {1, 2, 4, 4}, pad), iota(144)) == f3);
    // ColumnsRank: the same columns given with the image's DimensionCount, {1, 1, 18, 8}.
    CHECK(run_f32(make<FOLD>(DataType::FLOAT32, {1, 1, 18, 8}, {1, 2, 4, 4}, pad), iota(144)) == f3);
}

TEST_CASE("UNFOLD and FOLD against naive loops: 1 to 6 spatial dimensions, types, strides, dilations, padding") {
    std::mt19937_64 rng(23);
    const DataType types[] = {DataType::FLOAT32, DataType::INT16,   DataType::FLOAT16,
                              DataType::UINT8,   DataType::FLOAT64, DataType::INT64};
    for (uint32_t D = 1; D <= 6; ++D)
        for (int rep = 0; rep < 2; ++rep) {
            const DataType t = types[(D + rep) % 6];
            Geo g;
            std::vector<uint32_t> image = {1 + uint32_t(rng() % 2), 1 + uint32_t(rng() % 2)};
            for (uint32_t i = 0; i < D; ++i) {
                const bool small = D > 3;  // keep the higher ranks cheap
                g.w.push_back(1 + uint32_t(rng() % (small ? 2 : 3)));
                g.s.push_back(1 + uint32_t(rng() % 2));
                g.d.push_back(1 + uint32_t(rng() % 2));
                g.p0.push_back(uint32_t(rng() % 2));
                g.p1.push_back(uint32_t(rng() % 2));
                const uint32_t extent = g.d[i] * (g.w[i] - 1) + 1;
                image.push_back(std::max<uint32_t>(extent, 1 + uint32_t(rng() % (small ? 3 : 5))));
            }
            const std::vector<int64_t> b = blocks(image, g);
            uint64_t L = 1;
            for (int64_t v : b) L *= uint64_t(v);
            std::vector<uint32_t> cols = {image[0], image[1] * uint32_t(product(g.w)), uint32_t(L)};
            if (rep == 1) cols.insert(cols.begin(), D - 1, 1u);  // ColumnsRank: the image's DimensionCount
            INFO("D " << D << " type " << name(t) << " rep " << rep);
            // UNFOLD, the image stored column-major.
            std::vector<double> x(product(image));
            for (auto& v : x) v = double(int(rng() % 9));
            UNFOLD u = make<UNFOLD>(t, image, cols, g);
            u.InputTensor.Strides = column_major(image);
            const auto uy = run(op(u), {{"InputTensor", placed(u.InputTensor, pack(t, x))}}).at("OutputTensor");
            CHECK(unpack(t, uy) == naive_unfold(x, image, g));
            // FOLD, the columns stored column-major; small values keep every sum exact in every type.
            std::vector<double> c(product(cols));
            for (auto& v : c) v = double(int(rng() % 5));
            FOLD f = make<FOLD>(t, cols, image, g);
            f.InputTensor.Strides = column_major(cols);
            const auto fy = run(op(f), {{"InputTensor", placed(f.InputTensor, pack(t, c))}}).at("OutputTensor");
            CHECK(unpack(t, fy) == naive_fold(c, image, g));
        }
}

TEST_CASE("FOLD(UNFOLD(x)) is x times the number of taps that land on each position") {
    // 2 x 7 x 6 image, windows 3 x 2, strides 2 x 1, dilations 1 x 2, padding {1, 0} / {0, 1}.
    const Geo g{{3, 2}, {2, 1}, {1, 2}, {1, 0}, {0, 1}};
    const std::vector<uint32_t> image = {2, 1, 7, 6};
    // Taps per position, counted here: for x along a dimension, the (k, b) with b * s + k * d - p0 = x.
    auto taps = [&](size_t i, int64_t x) {
        const std::vector<int64_t> b = blocks(image, g);
        int64_t n = 0;
        for (int64_t bb = 0; bb < b[i]; ++bb)
            for (int64_t k = 0; k < g.w[i]; ++k) n += (bb * g.s[i] + k * g.d[i] - int64_t(g.p0[i]) == x) ? 1 : 0;
        return n;
    };
    const std::vector<int64_t> b = blocks(image, g);
    const std::vector<uint32_t> cols = {2, 6, uint32_t(b[0] * b[1])};
    std::vector<int32_t> x(product(image));
    for (size_t i = 0; i < x.size(); ++i) x[i] = int32_t(i * 7 % 11) - 5;
    const UNFOLD u = make<UNFOLD>(DataType::INT32, image, cols, g);
    const auto c = run(op(u), {{"InputTensor", logical_buffer(u.InputTensor, x)}}).at("OutputTensor");
    const FOLD f = make<FOLD>(DataType::INT32, cols, image, g);
    const std::vector<int32_t> y = as_values<int32_t>(run(op(f), {{"InputTensor", c}}).at("OutputTensor"));
    bool some_zero = false, some_many = false;
    for (size_t i = 0; i < x.size(); ++i) {
        const auto at = unflatten(i, image);
        const int64_t n = taps(0, at[2]) * taps(1, at[3]);
        some_zero = some_zero || n == 0;
        some_many = some_many || n > 2;
        CHECK(y[i] == x[i] * n);
    }
    CHECK(some_zero);  // positions no window reaches (stride 2 past the last block)
    CHECK(some_many);
}

TEST_CASE("FOLD's sums: rounded once, +0, non-finite terms, padding dropped, integers wrap") {
    // 1-D: image 3, window 2, stride 1: blocks 2; position 1 sums column elements (k=1, b=0) and (k=0, b=1).
    const Geo g{{2}, {1}, {1}, {0}, {0}};
    // Columns {1, 2, 2} = [[k0b0, k0b1], [k1b0, k1b1]].
    const FOLD f = make<FOLD>(DataType::FLOAT32, {1, 2, 2}, {1, 1, 3}, g);
    const float e = std::ldexp(1.0f, -24);
    // With StartPadding 1: blocks 3 ((3 + 1 - 2) / 1 + 1); position 0 = (k1, b0) + (k0, b1).
    const FOLD f3 = make<FOLD>(DataType::FLOAT32, {1, 2, 3}, {1, 1, 3}, Geo{{2}, {1}, {1}, {1}, {0}});
    // Position 1 = (k0, b1) + (k1, b0) = 2^-24 + -0 = 2^-24.
    check_bits(run_f32(f, {1.0f, e, -0.0f, 5.0f}), std::vector<float>{1.0f, e, 5.0f});
    // Position 0: the single term -0 is +0 (ZeroResult: every sum starts from +0).
    check_bits(run_f32(f, {-0.0f, 3.0f, 2.0f, -0.0f}), std::vector<float>{0.0f, 5.0f, 0.0f});
    // Three terms on one position: windows of 3 with stride 1 over an image of 5: position 2 is
    // reached by (k2, b0), (k1, b1), (k0, b2): 1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly, where a
    // running FLOAT32 sum gives 1 (FloatSum=ExactThenRoundOnce).
    const FOLD t3 = make<FOLD>(DataType::FLOAT32, {1, 3, 3}, {1, 1, 5}, Geo{{3}, {1}, {1}, {0}, {0}});
    std::vector<float> cols(9, 0.0f);
    cols[2 * 3 + 0] = 1.0f;  // k2 b0
    cols[1 * 3 + 1] = e;     // k1 b1
    cols[0 * 3 + 2] = e;     // k0 b2
    CHECK(run_f32(t3, cols)[2] == 1.0f + 2 * e);
    // PaddedColumns=Dropped: the column element at the padding position (k0, b0) is NaN; it adds
    // nothing. Position 0 = (k1, b0) + (k0, b1) = 2 + 3.
    check_bits(run_f32(f3, {std::nanf(""), 3.0f, 7.0f, 2.0f, 4.0f, 9.0f}), std::vector<float>{5.0f, 11.0f, 9.0f});
    // NonFiniteSum=CanonicalNaN: +inf and -inf on one position; a NaN term with a payload.
    const std::vector<float> y = run_f32(f, {1.0f, INFINITY, -INFINITY, 2.0f});
    CHECK(std::isnan(y[1]));
    CHECK(to_bits(y[1]) == 0x7fc00000u);
    // UncoveredPosition=PositiveZero: stride 3, window 2 over 5 positions: blocks 2 (0-1, 3-4); 2 is uncovered.
    const FOLD u = make<FOLD>(DataType::FLOAT32, {1, 2, 2}, {1, 1, 5}, Geo{{2}, {3}, {1}, {0}, {0}});
    check_bits(run_f32(u, {-1.0f, -2.0f, -3.0f, -4.0f}), std::vector<float>{-1.0f, -3.0f, 0.0f, -2.0f, -4.0f});
    // IntegerOverflow=WrapToWidth: INT8 100 + 100 = -56; UINT16 65535 + 2 = 1.
    const FOLD i8 = make<FOLD>(DataType::INT8, {1, 2, 2}, {1, 1, 3}, g);
    const auto yi = as_values<int8_t>(
        run(op(i8), {{"InputTensor", logical_buffer(i8.InputTensor, std::vector<int8_t>{1, 100, 100, 2})}})
            .at("OutputTensor"));
    CHECK(yi == std::vector<int8_t>{1, -56, 2});
    const FOLD u16 = make<FOLD>(DataType::UINT16, {1, 2, 2}, {1, 1, 3}, g);
    const auto yu = as_values<uint16_t>(
        run(op(u16), {{"InputTensor", logical_buffer(u16.InputTensor, std::vector<uint16_t>{0, 65535, 2, 0})}})
            .at("OutputTensor"));
    CHECK(yu == std::vector<uint16_t>{0, 1, 0});
}

TEST_CASE("UNFOLD: padding is +0, bits are copied, dilation with padding") {
    // FLOAT16 1-D image [-0, 0x7d01 (a signalling NaN), 1.5, -2], window 2, dilation 2, StartPadding 1,
    // EndPadding 1: blocks (4 + 2 - 3) / 1 + 1 = 4; tap k of block b reads x = b + 2k - 1.
    const UNFOLD u = make<UNFOLD>(DataType::FLOAT16, {1, 1, 4}, {1, 2, 4}, Geo{{2}, {1}, {2}, {1}, {1}});
    const std::vector<uint16_t> x = {0x8000, 0x7d01, 0x3e00, 0xc000};
    const auto y = as_values<uint16_t>(
        run(op(u), {{"InputTensor", logical_buffer(u.InputTensor, x)}}).at("OutputTensor"));
    // k0: x = -1 (padding: +0), 0, 1, 2; k1: x = 1, 2, 3, 4 (padding: +0).
    check_bits(y, std::vector<uint16_t>{0x0000, 0x8000, 0x7d01, 0x3e00, 0x7d01, 0x3e00, 0xc000, 0x0000});
}

TEST_CASE("FOLD and UNFOLD rules, each with its id and path; explain") {
    const Geo g{{3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
    UNFOLD u = make<UNFOLD>(DataType::FLOAT32, {1, 1, 5, 5}, {1, 9, 9}, g);
    FOLD f = make<FOLD>(DataType::FLOAT32, {1, 9, 4}, {1, 1, 4, 4}, g);
    CHECK_FALSE(validate(op(u)).has_errors());
    CHECK_FALSE(validate(op(f)).has_errors());
    SUBCASE("same-data-type") {
        u.OutputTensor.DataType = DataType::FLOAT16;
        CHECK(has_error(op(u), "unfold.same-data-type", "/desc/OutputTensor/DataType"));
    }
    SUBCASE("dimension-count") {
        f.DimensionCount = 7;
        CHECK(has_error(op(f), "fold.dimension-count", "/desc/DimensionCount"));
        u.DimensionCount = 0;
        CHECK(has_error(op(u), "unfold.dimension-count", "/desc/DimensionCount"));
    }
    SUBCASE("array-length") {
        f.Dilations = {1};
        CHECK(has_error(op(f), "fold.array-length", "/desc/Dilations"));
    }
    SUBCASE("nonzero") {
        u.Strides = {1, 0};
        CHECK(has_error(op(u), "unfold.stride-nonzero", "/desc/Strides/1"));
        f.WindowSizes = {0, 3};
        CHECK(has_error(op(f), "fold.window-nonzero", "/desc/WindowSizes/0"));
        f.WindowSizes = {3, 3};
        f.Dilations = {0, 1};
        CHECK(has_error(op(f), "fold.dilation-nonzero", "/desc/Dilations/0"));
    }
    SUBCASE("image-rank") {
        u.InputTensor.Sizes = {1, 5, 5};
        CHECK(has_error(op(u), "unfold.image-rank", "/desc/InputTensor/Sizes"));
    }
    SUBCASE("window-fits") {
        f.Dilations = {2, 1};  // 5 positions in an image of 4
        CHECK(has_error(op(f), "fold.window-fits", "/desc/WindowSizes/0"));
    }
    SUBCASE("columns-rank") {
        u.OutputTensor.Sizes = {9, 9};
        CHECK(has_error(op(u), "unfold.columns-rank", "/desc/OutputTensor/Sizes"));
        f.InputTensor.Sizes = {2, 1, 9, 2};
        CHECK(has_error(op(f), "fold.columns-rank", "/desc/InputTensor/Sizes/0"));
    }
    SUBCASE("batch-size, window-channels, block-count") {
        f.InputTensor.Sizes = {2, 9, 4};
        CHECK(has_error(op(f), "fold.batch-size", "/desc/InputTensor/Sizes/0"));
        u.OutputTensor.Sizes = {1, 18, 9};
        CHECK(has_error(op(u), "unfold.window-channels", "/desc/OutputTensor/Sizes/1"));
        // A BlockCount one short (a clamp would take it): an error, in either form of the columns.
        u.OutputTensor.Sizes = {1, 1, 9, 8};
        CHECK(has_error(op(u), "unfold.block-count", "/desc/OutputTensor/Sizes/3"));
    }
    SUBCASE("explain: FOLD's terms and UNFOLD's source") {
        const std::string head =
            R"({"format": 1, "operator": "FOLD", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2, 2]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3]}, "DimensionCount": 1, "WindowSizes": [2], "Strides": [1],
            "Dilations": [1], "StartPadding": [0], "EndPadding": [0]}, "inputs": {"InputTensor": [1, 2, 3, 4]}})";
        const Case c = parse_valid(head);
        // Position 1: column elements (row 0, block 1) = 2 and (row 1, block 0) = 3.
        const Explanation e = explain_element(with_golden(c, "OutputTensor"), "OutputTensor", 1, std::nullopt, "", {});
        REQUIRE(e.family.terms.size() == 2);
        CHECK(e.family.terms[0].index == std::vector<uint64_t>{0, 0, 1});
        CHECK(e.family.terms[0].value == 2.0);
        CHECK(e.family.terms[1].index == std::vector<uint64_t>{0, 1, 0});
        CHECK(e.golden_bits == 0x40a00000u);  // 5
        const std::string un =
            R"({"format": 1, "operator": "UNFOLD", "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [1, 1, 3]},
            "OutputTensor": {"DataType": "INT8", "Sizes": [1, 2, 3]}, "DimensionCount": 1, "WindowSizes": [2], "Strides": [1],
            "Dilations": [1], "StartPadding": [1], "EndPadding": [0]}, "inputs": {"InputTensor": [7, 8, 9]}})";
        const Case d = parse_valid(un);
        // Column (row 1, block 2): tap 1 of block 2 reads x = 2 + 1 - 1 = 2 (9); (row 0, block 0) is padding.
        const Explanation s = explain_element(with_golden(d, "OutputTensor"), "OutputTensor", 5, std::nullopt, "", {});
        REQUIRE(s.family.inputs.size() == 1);
        CHECK(s.family.inputs[0].index == std::vector<uint64_t>{0, 0, 2});
        CHECK(s.golden_bits == 9);
        const Explanation p = explain_element(with_golden(d, "OutputTensor"), "OutputTensor", 0, std::nullopt, "", {});
        CHECK(p.family.inputs.empty());
        CHECK(p.golden_bits == 0);
    }
}

}  // namespace dmlref_test_fold
