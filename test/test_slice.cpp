// SLICE, SLICE1 and SLICE_GRAD: the pages' examples, the bits of every type, every rank, the
// adjoint identity and strided tensors. Expected values come from the pages (SLICE1's two
// examples, the SLICE_GRAD seed page's 4x4), from hand derivation, or from the naive coordinate
// loops below, which address memory by their own arithmetic and share nothing with
// reference/slice.cpp.
#include "slice_support.hpp"

#include <cstdint>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_slice {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::slicing;

namespace {

// A packed buffer holding `v`, rounded up to 4 bytes as DMLCalcBufferTensorSize does.
template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> b((v.size() * sizeof(T) + 3) / 4 * 4);
    std::memcpy(b.data(), static_cast<const void*>(v.data()), v.size() * sizeof(T));
    return b;
}

// ---- The naive reference -------------------------------------------------------------------

// Row-major coordinate of flat index `flat` in `sizes`.
std::vector<int64_t> coordinate(const std::vector<uint32_t>& sizes, uint64_t flat) {
    std::vector<int64_t> c(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) {
        c[i] = int64_t(flat % sizes[i]);
        flat /= sizes[i];
    }
    return c;
}

int64_t flat_index(const std::vector<uint32_t>& sizes, const std::vector<int64_t>& c) {
    int64_t f = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        REQUIRE(c[i] >= 0);
        REQUIRE(c[i] < int64_t(sizes[i]));
        f = f * sizes[i] + c[i];
    }
    return f;
}

// The input coordinate (flat, row-major) that output coordinate `flat_out` reads, by the
// SLICE1 page's formula.
int64_t window_source(const std::vector<uint32_t>& in, const std::vector<uint32_t>& out,
                      const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& sizes,
                      const std::vector<int32_t>& strides, uint64_t flat_out) {
    std::vector<int64_t> c = coordinate(out, flat_out), p(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        const int64_t start = int64_t(offsets[i]) + (strides[i] < 0 ? int64_t(sizes[i]) - 1 : 0);
        p[i] = start + int64_t(strides[i]) * c[i];
        // Every read stays inside the window.
        REQUIRE(p[i] >= int64_t(offsets[i]));
        REQUIRE(p[i] < int64_t(offsets[i]) + int64_t(sizes[i]));
    }
    return flat_index(in, p);
}

template <class T>
std::vector<T> naive_slice1(const std::vector<T>& x, const std::vector<uint32_t>& in, const std::vector<uint32_t>& out,
                            const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& sizes,
                            const std::vector<int32_t>& strides) {
    std::vector<T> y(product(out));
    for (uint64_t f = 0; f < y.size(); ++f) y[f] = x[size_t(window_source(in, out, offsets, sizes, strides, f))];
    return y;
}

template <class T>
std::vector<T> naive_slice_grad(const std::vector<T>& dy, const std::vector<uint32_t>& in,
                                const std::vector<uint32_t>& out, const std::vector<uint32_t>& offsets,
                                const std::vector<uint32_t>& sizes, const std::vector<int32_t>& strides) {
    std::vector<T> dx(product(in), T(0));
    std::vector<int> hits(dx.size(), 0);
    for (uint64_t f = 0; f < dy.size(); ++f) {
        const auto p = size_t(window_source(in, out, offsets, sizes, strides, f));
        ++hits[p];
        dx[p] = dy[f];
    }
    for (int h : hits) REQUIRE(h <= 1);  // the page: no accumulation is ever needed
    return dx;
}

// A random valid window per dimension: input size, offset, window size, stride (mixed signs)
// and an output size from 1 to the most the window allows.
struct RandomSlice {
    std::vector<uint32_t> in, out, offsets, sizes;
    std::vector<int32_t> strides;
};

RandomSlice random_slice(std::mt19937& rng, size_t rank, bool positive_only = false) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    RandomSlice s;
    for (size_t i = 0; i < rank; ++i) {
        const uint32_t in = uint32_t(pick(1, rank > 5 ? 3 : 5));
        const uint32_t size = uint32_t(pick(1, int(in)));
        const uint32_t offset = uint32_t(pick(0, int(in - size)));
        int32_t stride = pick(1, 3);
        if (!positive_only && pick(0, 1)) stride = -stride;
        const uint32_t max_out = 1 + (size - 1) / uint32_t(std::abs(stride));
        s.in.push_back(in);
        s.sizes.push_back(size);
        s.offsets.push_back(offset);
        s.strides.push_back(stride);
        s.out.push_back(uint32_t(pick(1, int(max_out))));
    }
    return s;
}

}  // namespace

// ---- The pages' examples -------------------------------------------------------------------

TEST_CASE("SLICE_GRAD: the seed page's 4x4 example") {
    // dY = [[a, c], [i, k]] with a..p = 1..16: a = 1, c = 3, i = 9, k = 11. The forward SLICE1
    // takes every other row and column of the whole 4x4: offsets 0, sizes 4, strides 2.
    const Operator op = slice_grad(DataType::FLOAT32, {4, 4}, {2, 2}, {0, 0}, {4, 4}, {2, 2});
    const auto out = run(op, {{"InputGradientTensor", bytes_of<float>({1, 3, 9, 11})}});
    check_bits(as_values<float>(out.at("OutputGradientTensor")), {1, 0, 3, 0, 0, 0, 0, 0, 9, 0, 11, 0, 0, 0, 0, 0});
}

TEST_CASE("SLICE1: the page's two examples") {
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i + 1);
    SUBCASE("strides {1,1,2,2}") {
        const Operator op = slice1(DataType::FLOAT32, {1, 1, 4, 4}, {1, 1, 2, 2}, {0, 0, 0, 1}, {1, 1, 4, 3},
                                   {1, 1, 2, 2});
        check_bits(as_values<float>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {2, 4, 10, 12});
    }
    SUBCASE("strides {1,1,-2,2}: the first output row is the window's last row") {
        const Operator op = slice1(DataType::FLOAT32, {1, 1, 4, 4}, {1, 1, 2, 2}, {0, 0, 0, 1}, {1, 1, 4, 3},
                                   {1, 1, -2, 2});
        check_bits(as_values<float>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {14, 16, 6, 8});
    }
}

TEST_CASE("SLICE: Out[c] = In[Offsets + Strides * c], hand derived") {
    // 4x4 = 1..16; Offsets {0,1}, Strides {2,2}, Sizes {2,2}: In[0][1], In[0][3], In[2][1], In[2][3].
    std::vector<int32_t> x(16);
    for (int i = 0; i < 16; ++i) x[size_t(i)] = i + 1;
    const Operator op = slice(DataType::INT32, {4, 4}, {2, 2}, {0, 1}, {2, 2});
    check_bits(as_values<int32_t>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {2, 4, 10, 12});
}

TEST_CASE("SLICE1: hand-derived corner cases") {
    std::vector<int32_t> x = {10, 11, 12, 13, 14, 15, 16};
    SUBCASE("negative stride starts at the window's end") {
        // window [2, 7) = 12..16, stride -2: CopyStart = 2 + 5 - 1 = 6 -> 16, 14, 12.
        const Operator op = slice1(DataType::INT32, {7}, {3}, {2}, {5}, {-2});
        check_bits(as_values<int32_t>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {16, 14, 12});
    }
    SUBCASE("output shorter than the window allows") {
        // window [1, 6), stride -1 allows 5; take 2: 15, 14.
        const Operator op = slice1(DataType::INT32, {7}, {2}, {1}, {5}, {-1});
        check_bits(as_values<int32_t>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {15, 14});
    }
    SUBCASE("stride larger than the window copies one element") {
        // window [3, 5), stride 9 (or -9) allows 1 + 1 / 9 = 1: 13 (or the window's end, 14).
        const Operator fwd = slice1(DataType::INT32, {7}, {1}, {3}, {2}, {9});
        check_bits(as_values<int32_t>(run(fwd, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {13});
        const Operator back = slice1(DataType::INT32, {7}, {1}, {3}, {2}, {-9});
        check_bits(as_values<int32_t>(run(back, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {14});
    }
    SUBCASE("INT32_MIN stride is a valid stride of magnitude 2^31") {
        const Operator op = slice1(DataType::INT32, {7}, {1}, {0}, {7}, {std::numeric_limits<int32_t>::min()});
        check_bits(as_values<int32_t>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")), {16});
    }
}

// ---- Every type: the bits move unchanged ---------------------------------------------------

namespace {
// Six values whose bits a converting copy could change: a signalling NaN with a payload, -0, the
// smallest subnormal, the extremes; for integers the extremes and their neighbours.
template <class T> std::vector<T> specials() {
    if constexpr (std::is_same_v<T, float>)
        return {from_bits<float>(0x7f800001u),     from_bits<float>(0x80000000u),
                from_bits<float>(0x00000001u),     from_bits<float>(0xffc12345u),
                std::numeric_limits<float>::max(), -std::numeric_limits<float>::infinity()};
    else if constexpr (std::is_same_v<T, double>)
        return {from_bits<double>(0x7ff0000000000001ull), from_bits<double>(0x8000000000000000ull),
                from_bits<double>(0x0000000000000001ull), from_bits<double>(0xfff8dead0000beefull),
                std::numeric_limits<double>::max(),       std::numeric_limits<double>::lowest()};
    else if constexpr (is_half_v<T>)
        return {from_bits<half>(0x7c01u), from_bits<half>(0x8000u), from_bits<half>(0x0001u),
                from_bits<half>(0xfe3fu), from_bits<half>(0x7bffu), from_bits<half>(0x83ffu)};
    else
        return {std::numeric_limits<T>::max(),
                std::numeric_limits<T>::min(),
                T(std::numeric_limits<T>::max() - 1),
                T(std::numeric_limits<T>::min() + 1),
                T(1),
                T(0)};
}
}  // namespace

TEST_CASE_TEMPLATE("Slice family copies the bits of every type", T, DMLREF_ALL_TYPES) {
    const DataType t = data_type_of<T>();
    const std::vector<T> v = specials<T>();  // v0..v5
    SUBCASE("SLICE1, stride -1 reverses") {
        const Operator op = slice1(t, {6}, {6}, {0}, {6}, {-1});
        check_bits(as_values<T>(run(op, {{"InputTensor", bytes_of(v)}}).at("OutputTensor")),
                   {v[5], v[4], v[3], v[2], v[1], v[0]});
    }
    SUBCASE("SLICE, offset 1 stride 2") {
        const Operator op = slice(t, {6}, {3}, {1}, {2});
        check_bits(as_values<T>(run(op, {{"InputTensor", bytes_of(v)}}).at("OutputTensor")), {v[1], v[3], v[5]});
    }
    SUBCASE("SLICE_GRAD on a 2x6, rows flipped, every third column") {
        // Forward: window rows [0,2) stride -1, columns [0,6) stride 3 -> out 2x2 reads
        // (1,0) (1,3) (0,0) (0,3). Backward scatters dY there; +0 elsewhere.
        const Operator op = slice_grad(t, {2, 6}, {2, 2}, {0, 0}, {2, 6}, {-1, 3});
        const std::vector<T> dy = {v[0], v[1], v[2], v[3]};
        const T z = from_bits<T>(0);
        check_bits(as_values<T>(run(op, {{"InputGradientTensor", bytes_of(dy)}}).at("OutputGradientTensor")),
                   {v[2], z, z, v[3], z, z, v[0], z, z, v[1], z, z});
    }
}

// ---- Every rank against the naive loops ----------------------------------------------------

TEST_CASE("SLICE1 and SLICE_GRAD match the naive loops at every rank, mixed-sign strides") {
    std::mt19937 rng(20260111);
    for (size_t rank = 1; rank <= 8; ++rank) {
        for (int trial = 0; trial < 12; ++trial) {
            const RandomSlice s = random_slice(rng, rank);
            CAPTURE(rank);
            CAPTURE(trial);
            std::vector<int32_t> x(product(s.in)), dy(product(s.out));
            for (auto& e : x) e = int32_t(rng());
            for (auto& e : dy) e = int32_t(rng());

            const Operator fwd = slice1(DataType::INT32, s.in, s.out, s.offsets, s.sizes, s.strides);
            check_bits(as_values<int32_t>(run(fwd, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")),
                       naive_slice1(x, s.in, s.out, s.offsets, s.sizes, s.strides));

            const Operator back = slice_grad(DataType::INT32, s.in, s.out, s.offsets, s.sizes, s.strides);
            check_bits(
                as_values<int32_t>(run(back, {{"InputGradientTensor", bytes_of(dy)}}).at("OutputGradientTensor")),
                naive_slice_grad(dy, s.in, s.out, s.offsets, s.sizes, s.strides));
        }
    }
}

TEST_CASE("SLICE matches the naive loop at every rank") {
    std::mt19937 rng(77);
    for (size_t rank = 1; rank <= 8; ++rank) {
        for (int trial = 0; trial < 12; ++trial) {
            // SLICE(Offsets, Strides) reads what SLICE1 with a positive window from Offsets does.
            const RandomSlice s = random_slice(rng, rank, true);
            CAPTURE(rank);
            std::vector<uint16_t> x(product(s.in));
            for (auto& e : x) e = uint16_t(rng());
            std::vector<uint32_t> strides(s.strides.begin(), s.strides.end());
            const Operator op = slice(DataType::UINT16, s.in, s.out, s.offsets, strides);
            check_bits(as_values<uint16_t>(run(op, {{"InputTensor", bytes_of(x)}}).at("OutputTensor")),
                       naive_slice1(x, s.in, s.out, s.offsets, s.sizes, s.strides));
        }
    }
}

// ---- The adjoint identity ------------------------------------------------------------------

TEST_CASE("SLICE_GRAD is the adjoint of SLICE1: sum(Slice1(x) * dy) == sum(x * SliceGrad(dy))") {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> small(-9, 9);
    for (size_t rank = 1; rank <= 6; ++rank) {
        for (int trial = 0; trial < 20; ++trial) {
            const RandomSlice s = random_slice(rng, rank);
            CAPTURE(rank);
            std::vector<int16_t> x(product(s.in)), dy(product(s.out));
            for (auto& e : x) e = int16_t(small(rng));
            for (auto& e : dy) e = int16_t(small(rng));
            const auto y = as_values<int16_t>(
                run(slice1(DataType::INT16, s.in, s.out, s.offsets, s.sizes, s.strides), {{"InputTensor", bytes_of(x)}})
                    .at("OutputTensor"));
            const auto dx = as_values<int16_t>(
                run(slice_grad(DataType::INT16, s.in, s.out, s.offsets, s.sizes, s.strides),
                    {{"InputGradientTensor", bytes_of(dy)}})
                    .at("OutputGradientTensor"));
            REQUIRE(y.size() == dy.size());
            REQUIRE(dx.size() == x.size());
            int64_t lhs = 0, rhs = 0;
            for (size_t i = 0; i < y.size(); ++i) lhs += int64_t(y[i]) * dy[i];
            for (size_t i = 0; i < x.size(); ++i) rhs += int64_t(x[i]) * dx[i];
            CHECK(lhs == rhs);
        }
    }
}

// ---- Strided tensors: only logical elements are read and written ---------------------------

TEST_CASE("SLICE1 with strided input and output writes only the output's logical elements") {
    // Input 3x4 stored with row stride 6 (2 gap elements per row); output 2x2 with strides {5, 2}.
    DML_SLICE1_OPERATOR_DESC d;
    d.InputTensor = desc(DataType::UINT32, {3, 4}, {6, 1});
    d.OutputTensor = desc(DataType::UINT32, {2, 2}, {5, 2});
    d.DimensionCount = 2;
    d.InputWindowOffsets = {1, 0};
    d.InputWindowSizes = {2, 4};
    d.InputWindowStrides = {-1, 3};
    const Operator op{OperatorType::SLICE1, d};
    check_valid(op);

    // Input logical (r, c) = 100 * r + c at element 6r + c; gaps hold 0xdead.
    std::vector<uint32_t> in(6 * 2 + 4, 0xdeadu);
    for (uint32_t r = 0; r < 3; ++r)
        for (uint32_t c = 0; c < 4; ++c) in[6 * r + c] = 100 * r + c;
    std::vector<std::byte> in_bytes = bytes_of(in);
    in_bytes.resize(buffer_size(d.InputTensor));
    std::vector<std::byte> out_bytes(buffer_size(d.OutputTensor), std::byte{0xab});

    Bindings b;
    b.bind("InputTensor", in_bytes);
    b.bind("OutputTensor", out_bytes);
    evaluate(op, b);

    // Out(i, j) = In(2 - i, 3j): rows 2, 1 of the window [1, 3), columns 0 and 3.
    const uint32_t sentinel = 0xababababu;
    const auto out = as_values<uint32_t>(out_bytes);  // elements 0..7 (buffer is 8 elements)
    REQUIRE(out.size() >= 8);
    const std::vector<uint32_t> expected = {200, sentinel, 203, sentinel, sentinel, 100, sentinel, 103};
    check_bits(std::vector<uint32_t>(out.begin(), out.begin() + 8), expected);
}

TEST_CASE("SLICE_GRAD with a strided dX zeroes and fills only dX's logical elements") {
    DML_SLICE_GRAD_OPERATOR_DESC d;
    d.InputGradientTensor = desc(DataType::INT8, {2, 2});
    d.OutputGradientTensor = desc(DataType::INT8, {3, 3}, {4, 1});  // one gap byte per row
    d.DimensionCount = 2;
    d.InputWindowOffsets = {0, 0};
    d.InputWindowSizes = {3, 3};
    d.InputWindowStrides = {2, -2};
    const Operator op{OperatorType::SLICE_GRAD, d};
    check_valid(op);

    std::vector<std::byte> dy = bytes_of<int8_t>({1, 2, 3, 4});
    dy.resize(buffer_size(d.InputGradientTensor));
    std::vector<std::byte> dx(buffer_size(d.OutputGradientTensor), std::byte{0x5a});
    Bindings b;
    b.bind("InputGradientTensor", dy);
    b.bind("OutputGradientTensor", dx);
    evaluate(op, b);

    // Forward reads Out(i, j) = In(2i, 2 - 2j): dY(0,0)->(0,2), (0,1)->(0,0), (1,0)->(2,2), (1,1)->(2,0).
    const int8_t s = 0x5a;
    const std::vector<int8_t> expected = {2, 0, 1, s, 0, 0, 0, s, 4, 0, 3};
    const auto got = as_values<int8_t>(dx);
    REQUIRE(got.size() >= expected.size());
    check_bits(std::vector<int8_t>(got.begin(), got.begin() + long(expected.size())), expected);
    for (size_t i = expected.size(); i < got.size(); ++i) CHECK(got[i] == s);  // rounding bytes of the buffer
}

}  // namespace dmlref_test_slice
