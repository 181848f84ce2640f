// DIAGONAL_MATRIX and DIAGONAL_MATRIX1. Expected values come from the pages' examples, by hand
// (each stated with its derivation), or from loops written here another way (walking each
// diagonal or each row's band rather than testing every element); none comes from dmlref's
// evaluation. Also the INT field kind (Offset, DiagonalFillBegin, DiagonalFillEnd) through the
// case reader and writer.
#include "support.hpp"

#include "dmlref/descs/diagonal_matrix.hpp"

#include <climits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_diagonal_matrix {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using DIAGONAL = DML_DIAGONAL_MATRIX_OPERATOR_DESC;
using DIAGONAL1 = DML_DIAGONAL_MATRIX1_OPERATOR_DESC;

DIAGONAL diagonal(DataType t, std::vector<uint32_t> sizes, int32_t offset, float value) {
    DIAGONAL d;
    d.OutputTensor = desc(t, std::move(sizes));
    d.Offset = offset;
    d.Value = value;
    return d;
}
template <class T> DIAGONAL1 diagonal1(std::vector<uint32_t> sizes, T value, int32_t begin, int32_t end) {
    DIAGONAL1 d;
    d.OutputTensor = desc(data_type_of<T>(), std::move(sizes));
    d.ValueDataType = d.OutputTensor.DataType;
    d.Value = DML_SCALAR_UNION::of(value);
    d.DiagonalFillBegin = begin;
    d.DiagonalFillEnd = end;
    return d;
}
template <class D> Operator op(const D& d) { return Operator{D::kType, d}; }
template <class T, class D> std::vector<T> out(const D& d, std::map<std::string, std::vector<std::byte>> in = {}) {
    return as_values<T>(run(op(d), std::move(in)).at("OutputTensor"));
}

// DIAGONAL_MATRIX by walking each matrix's diagonal: zeros, then Value at (y, y + Offset) for the
// rows whose column falls inside.
template <class U> std::vector<U> walk_diagonal(const std::vector<uint32_t>& s, int64_t offset, U value) {
    const uint64_t h = s[s.size() - 2], w = s.back(), n = product(s);
    std::vector<U> v(n, U(0));
    for (uint64_t m = 0; m < n / (h * w); ++m)
        for (int64_t y = 0; y < int64_t(h); ++y)
            if (y + offset >= 0 && y + offset < int64_t(w))
                v[m * h * w + uint64_t(y) * w + uint64_t(y + offset)] = value;
    return v;
}

// DIAGONAL_MATRIX1 row by row: the band's columns of row y are [y + Begin, y + End) clipped to
// the row; an inverted band (Begin > End) fills the row but [y + End, y + Begin).
template <class U>
std::vector<U> band_rows(const std::vector<uint32_t>& s, int64_t begin, int64_t end, U value,
                         const std::vector<U>& base) {
    const uint64_t h = s[s.size() - 2], w = s.back(), n = product(s);
    std::vector<U> v = base.empty() ? std::vector<U>(n, U(0)) : base;
    auto fill = [&](uint64_t row, int64_t from, int64_t to) {
        for (int64_t x = std::max<int64_t>(from, 0); x < std::min<int64_t>(to, int64_t(w)); ++x)
            v[row * w + uint64_t(x)] = value;
    };
    for (uint64_t row = 0; row < n / w; ++row) {
        const int64_t y = int64_t(row % h);
        if (begin <= end) fill(row, y + begin, y + end);
        else {
            fill(row, INT64_MIN / 2, y + end);
            fill(row, y + begin, INT64_MAX / 2);
        }
    }
    return v;
}

}  // namespace

TEST_CASE("DIAGONAL_MATRIX: the page's examples") {
    // Offset 0, Value 1, {1,1,3,3}: the identity.
    check_bits(out<float>(diagonal(DataType::FLOAT32, {1, 1, 3, 3}, 0, 1.0f)),
               std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
    // Offset 1: shifted right/up.
    check_bits(out<float>(diagonal(DataType::FLOAT32, {1, 1, 3, 3}, 1, 1.0f)),
               std::vector<float>{0, 1, 0, 0, 0, 1, 0, 0, 0});
    // Offset -1, {1,1,3,2}: shifted left/down.
    check_bits(out<float>(diagonal(DataType::FLOAT32, {1, 1, 3, 2}, -1, 1.0f)), std::vector<float>{0, 0, 1, 0, 0, 1});
    // Offset -3, {1,1,3,2}: off the matrix, all zeros.
    check_bits(out<float>(diagonal(DataType::FLOAT32, {1, 1, 3, 2}, -3, 1.0f)), std::vector<float>(6, 0.0f));
}

TEST_CASE("DIAGONAL_MATRIX1: the page's examples") {
    // Begin 0, End 3, Value 7, {4,5}: a strip three wide.
    check_bits(out<float>(diagonal1<float>({4, 5}, 7.0f, 0, 3)),
               std::vector<float>{7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7});
    const std::vector<float> input = {4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 1, 8, 7, 4, 3, 4, 2, 4};
    const TensorDesc in = desc(DataType::FLOAT32, {4, 5});
    // Begin INT32_MIN, End 1, Value 0: the strictly upper triangle kept.
    DIAGONAL1 upper = diagonal1<float>({4, 5}, 0.0f, INT32_MIN, 1);
    upper.InputTensor = in;
    check_bits(out<float>(upper, {{"InputTensor", buffer(in, input)}}),
               std::vector<float>{0, 7, 3, 7, 9, 0, 0, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 0, 4});
    // Begin 1, End 0 (inverted), Value 0: only the diagonal kept.
    DIAGONAL1 diag = diagonal1<float>({4, 5}, 0.0f, 1, 0);
    diag.InputTensor = in;
    check_bits(out<float>(diag, {{"InputTensor", buffer(in, input)}}),
               std::vector<float>{4, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0});
    // The first example (Begin 0, End 1, Value 7) shows 1 on the diagonal; its pseudocode, and
    // dmlref, write Value: 7 (docs/golden.md, "Diagonal matrix").
    check_bits(out<float>(diagonal1<float>({4, 5}, 7.0f, 0, 1)),
               std::vector<float>{7, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 7, 0});
    // The remark: DIAGONAL_MATRIX1 with Begin = Offset, End = Offset + 1 is DIAGONAL_MATRIX.
    for (int32_t offset : {-4, -1, 0, 2, 5})
        check_bits(out<float>(diagonal1<float>({2, 3, 4}, 1.0f, offset, offset + 1)),
                   out<float>(diagonal(DataType::FLOAT32, {2, 3, 4}, offset, 1.0f)));
}

TEST_CASE("DIAGONAL_MATRIX and DIAGONAL_MATRIX1: every width, ranks 2 to 8, against the row walks") {
    std::mt19937 rng(23);
    for (uint32_t rank = 2; rank <= 8; ++rank) {
        std::vector<uint32_t> sizes(rank, 1);
        for (auto& s : sizes) s = 1 + rng() % 2;
        sizes[rank - 2] = 2 + rng() % 4;
        sizes[rank - 1] = 2 + rng() % 4;
        const int32_t offset = int32_t(rng() % 9) - 4, begin = int32_t(rng() % 9) - 4, end = int32_t(rng() % 9) - 4;
        INFO("rank " << rank << " offset " << offset << " band [" << begin << ", " << end << ")");
        // The value 5 as each width's bits (an INT8 5 is 5 in every integer type; FLOAT16 5 is 0x4500).
        check_bits(out<uint8_t>(diagonal(DataType::INT8, sizes, offset, 5.0f)),
                   walk_diagonal<uint8_t>(sizes, offset, 5));
        check_bits(out<uint16_t>(diagonal(DataType::FLOAT16, sizes, offset, 5.0f)),
                   walk_diagonal<uint16_t>(sizes, offset, 0x4500));
        check_bits(out<uint32_t>(diagonal(DataType::UINT32, sizes, offset, 5.0f)),
                   walk_diagonal<uint32_t>(sizes, offset, 5));
        check_bits(out<uint64_t>(diagonal(DataType::FLOAT64, sizes, offset, 5.0f)),
                   walk_diagonal<uint64_t>(sizes, offset, 0x4014000000000000));
        check_bits(out<int8_t>(diagonal1<int8_t>(sizes, -3, begin, end)), band_rows<int8_t>(sizes, begin, end, -3, {}));
        check_bits(out<half>(diagonal1<half>(sizes, half(-0.0f), begin, end)),
                   band_rows<half>(sizes, begin, end, half(-0.0f), {}));
        check_bits(out<int64_t>(diagonal1<int64_t>(sizes, INT64_MIN, begin, end)),
                   band_rows<int64_t>(sizes, begin, end, INT64_MIN, {}));
        // With an input of distinct values: the band is Value, the rest the input.
        DIAGONAL1 with = diagonal1<uint16_t>(sizes, uint16_t(0xfffe), begin, end);
        with.InputTensor = with.OutputTensor;
        std::vector<uint16_t> input(product(sizes));
        for (size_t i = 0; i < input.size(); ++i) input[i] = uint16_t(i + 1);
        check_bits(out<uint16_t>(with, {{"InputTensor", buffer(*with.InputTensor, input)}}),
                   band_rows<uint16_t>(sizes, begin, end, 0xfffe, input));
    }
}

TEST_CASE("DIAGONAL_MATRIX: the FLOAT Value stored as CAST stores a FLOAT32 (DiagonalValueConversion=AsCast)") {
    // The page: 10.6 becomes 10. Truncation toward zero: -2.75 is -2 in INT8; saturation: 300 is
    // 127 in INT8, -1 is 0 in UINT8; NaN is 0 in integers.
    check_bits(out<int32_t>(diagonal(DataType::INT32, {2, 2}, 0, 10.6f)), std::vector<int32_t>{10, 0, 0, 10});
    check_bits(out<int8_t>(diagonal(DataType::INT8, {2, 2}, 0, -2.75f)), std::vector<int8_t>{-2, 0, 0, -2});
    check_bits(out<int8_t>(diagonal(DataType::INT8, {1, 2}, 1, 300.0f)), std::vector<int8_t>{0, 127});
    check_bits(out<uint8_t>(diagonal(DataType::UINT8, {1, 2}, 1, -1.0f)), std::vector<uint8_t>{0, 0});
    check_bits(out<uint8_t>(diagonal(DataType::UINT8, {1, 1}, 0, std::numeric_limits<float>::quiet_NaN())),
               std::vector<uint8_t>{0});
    // FLOAT16: 0.1f rounds to nearest: 0.1 = 1.6 x 2^-4, 0.6 x 1024 = 614.4 -> 614 = 0x266,
    // exponent 11: 0x2e66. -0 stays -0 on the diagonal; the zeros elsewhere are +0.
    check_bits(out<uint16_t>(diagonal(DataType::FLOAT16, {1, 2}, 0, 0.1f)), std::vector<uint16_t>{0x2e66, 0});
    check_bits(out<uint16_t>(diagonal(DataType::FLOAT16, {1, 2}, 1, -0.0f)), std::vector<uint16_t>{0, 0x8000});
    // FLOAT64: exact.
    check_bits(out<double>(diagonal(DataType::FLOAT64, {1, 1}, 0, 0.1f)), std::vector<double>{double(0.1f)});
}

TEST_CASE("DIAGONAL_MATRIX and DIAGONAL_MATRIX1: strided outputs, broadcast inputs, the INT extremes") {
    // A column-major {2,3} output (Strides {1,2}): the same logical identity.
    DIAGONAL s = diagonal(DataType::INT16, {2, 3}, 1, 9.0f);
    s.OutputTensor.Strides = {1, 2};
    const auto bytes = run(op(s), {}).at("OutputTensor");  // logical order
    check_bits(as_values<int16_t>(bytes), std::vector<int16_t>{0, 9, 0, 0, 0, 9});
    // A broadcast input (Strides {0, 1}: every row reads the row 1, 2, 3), band [0, 1).
    DIAGONAL1 b = diagonal1<int32_t>({3, 3}, -1, 0, 1);
    b.InputTensor = desc(DataType::INT32, {3, 3}, {0, 1});
    check_bits(out<int32_t>(b, {{"InputTensor", buffer(*b.InputTensor, std::vector<int32_t>{1, 2, 3})}}),
               std::vector<int32_t>{-1, 2, 3, 1, -1, 3, 1, 2, -1});
    // Offset INT32_MAX and INT32_MIN: y + Offset is never a column (no 32-bit wrap).
    check_bits(out<float>(diagonal(DataType::FLOAT32, {2, 2}, INT32_MAX, 1.0f)), std::vector<float>(4, 0.0f));
    check_bits(out<float>(diagonal(DataType::FLOAT32, {2, 2}, INT32_MIN, 1.0f)), std::vector<float>(4, 0.0f));
    // Band [INT32_MIN, INT32_MAX): every element; inverted [INT32_MAX, INT32_MIN): none; empty [2, 2): none.
    check_bits(out<uint8_t>(diagonal1<uint8_t>({2, 3}, 6, INT32_MIN, INT32_MAX)), std::vector<uint8_t>(6, 6));
    check_bits(out<uint8_t>(diagonal1<uint8_t>({2, 3}, 6, INT32_MAX, INT32_MIN)), std::vector<uint8_t>(6, 0));
    check_bits(out<uint8_t>(diagonal1<uint8_t>({2, 3}, 6, 2, 2)), std::vector<uint8_t>(6, 0));
}

TEST_CASE("DIAGONAL_MATRIX and DIAGONAL_MATRIX1: each rule") {
    CHECK(has_error(op(diagonal(DataType::FLOAT32, {4}, 0, 1.0f)), "diagonal-matrix.rank", "/desc/OutputTensor/Sizes"));
    CHECK(has_error(op(diagonal1<float>({4}, 1.0f, 0, 1)), "diagonal-matrix1.rank", "/desc/OutputTensor/Sizes"));
    DIAGONAL1 v = diagonal1<float>({2, 2}, 1.0f, 0, 1);
    v.ValueDataType = DataType::FLOAT16;
    CHECK(has_error(op(v), "diagonal-matrix1.value-data-type", "/desc/ValueDataType"));
    DIAGONAL1 t = diagonal1<float>({2, 2}, 1.0f, 0, 1);
    t.InputTensor = desc(DataType::INT32, {2, 2});
    CHECK(has_error(op(t), "diagonal-matrix1.input-data-type", "/desc/InputTensor/DataType"));
    t.InputTensor = desc(DataType::FLOAT32, {1, 2, 2});
    CHECK(has_error(op(t), "diagonal-matrix1.input-sizes", "/desc/InputTensor/Sizes"));
    t.InputTensor = desc(DataType::FLOAT32, {2, 3});
    CHECK(has_error(op(t), "diagonal-matrix1.input-sizes", "/desc/InputTensor/Sizes"));
}

TEST_CASE("INT fields: read from JSON in INT32's range, written back as integers") {
    auto text = [](const std::string& offset) {
        return R"({"format": 1, "name": "t", "operator": "DIAGONAL_MATRIX",
            "desc": {"OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]}, "Offset": )" +
               offset + R"(, "Value": 1},
            "inputs": {}})";
    };
    const Case c = parse_valid(text("-2147483648"));
    CHECK(get<DIAGONAL>(c.op.Desc).Offset == INT32_MIN);
    CHECK(get<DIAGONAL>(parse_valid(text("2147483647")).op.Desc).Offset == INT32_MAX);
    // Written back: the integer, in the struct's place.
    Case g = with_golden(c, "OutputTensor");
    const auto written = nlohmann::json::parse(write_golden(g, run_case(g), "t.json"));
    CHECK(written["desc"]["Offset"] == INT32_MIN);
    for (const char* bad : {"2147483648", "-2147483649", "1.5", "\"1\"", "true"}) {
        INFO(bad);
        const Diagnostics d = diagnose(text(bad));
        REQUIRE(d.has_errors());
        CHECK(d.items().at(0).rule == "case.int");
        CHECK(d.items().at(0).path == "/desc/Offset");
    }
}

}  // namespace dmlref_test_diagonal_matrix
