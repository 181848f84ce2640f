// Actual outputs as harnesses write them: a 1-D .npy of the output's whole buffer (DxDispatch's
// writeFile) read through the output's strides, and Fortran-order .npy files. Every buffer below
// is laid out by the test itself from the strides, and every Fortran file is written by hand.
#include "support.hpp"

#include "dmlref/diff.hpp"
#include "dmlref/npy.hpp"

#include <filesystem>
#include <fstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_npy_interop {

namespace fs = std::filesystem;
using namespace dmlref;
using namespace dmlref::test;

namespace {

// A RELU golden whose OutputTensor has these sizes, strides and expected values (support.hpp).
std::string golden(const std::string& type, const std::string& sizes, const std::string& strides,
                   const std::string& values) {
    return relu_golden(type, sizes, values, R"({"Kind": "Bits", "Why": "test"})", "", strides);
}

template <class T> NpyArray npy(DataType t, std::vector<uint64_t> shape, const std::vector<T>& v) {
    NpyArray a{t, std::move(shape), std::vector<std::byte>(v.size() * sizeof(T))};
    std::memcpy(a.data.data(), v.data(), a.data.size());
    return a;
}

// A .npy file with fortran_order True (or False), its data bytes as the test lays them out.
std::string fortran_npy(const std::string& descr, const std::string& shape, const std::string& data,
                        bool fortran = true) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                    ", 'shape': " + shape + ", }";
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string f = std::string("\x93NUMPY\x01\x00", 8);
    f += char(h.size() & 0xff);
    f += char(h.size() >> 8);
    return f + h + data;
}

}  // namespace

TEST_CASE("diff reads a 1-D .npy of the whole output buffer through the output's strides") {
    Dir dir("npy-interop-buffer");
    // Sizes [2,3] with transposed strides [1,2]: logical [r,c] lives at buffer element r + 2c;
    // the buffer holds (1*1 + 2*2 + 1) = 6 elements.
    write_text(dir / "golden.json", golden("FLOAT32", "[2, 3]", "[1, 2]", "[1, 2, 3, 4, 5, 6]"));
    // Laid out by hand: element r + 2c holds the golden's [r,c] = 1 + 3r + c.
    //   [0,0]->0: 1  [1,0]->1: 4  [0,1]->2: 2  [1,1]->3: 5  [0,2]->4: 3  [1,2]->5: 6
    std::vector<float> buffer{1, 4, 2, 5, 3, 6};
    write_npy(dir / "buffer.npy", npy<float>(DataType::FLOAT32, {6}, buffer));
    CaseDiff r = diff_case(dir / "golden.json", dir / "buffer.npy", {});
    REQUIRE(r.errors.empty());
    CHECK(r.status() == CaseDiff::Status::Pass);
    CHECK(r.outputs.at(0).identical == 6);

    SUBCASE("a planted error is found at its logical coordinate") {
        buffer[3] = 50;  // buffer element 3 is logical [1,1]
        write_npy(dir / "bad.npy", npy<float>(DataType::FLOAT32, {6}, buffer));
        r = diff_case(dir / "golden.json", dir / "bad.npy", {});
        REQUIRE(r.errors.empty());
        CHECK(r.outputs.at(0).over == 1);
        CHECK(r.outputs.at(0).worst.at(0).coordinate == std::vector<uint64_t>{1, 1});
    }
    SUBCASE("read as the logical elements in row-major order, the same file would fail: the strides matter") {
        // The same six values as a (2, 3) array are read row-major: 1 4 2 / 5 3 6, four differ.
        write_npy(dir / "as_logical.npy", npy<float>(DataType::FLOAT32, {2, 3}, buffer));
        r = diff_case(dir / "golden.json", dir / "as_logical.npy", {});
        REQUIRE(r.errors.empty());
        CHECK(r.outputs.at(0).over == 4);
    }
    SUBCASE("neither the logical count nor the whole buffer: an error that names both") {
        write_npy(dir / "five.npy", npy<float>(DataType::FLOAT32, {5}, {1, 2, 3, 4, 5}));
        r = diff_case(dir / "golden.json", dir / "five.npy", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].find("wrong shape") != std::string::npos);
        CHECK(r.errors[0].find("whole buffer: 6 elements") != std::string::npos);
    }
}

TEST_CASE("a padded output's whole buffer, gaps ignored; FLOAT16 buffers rounded up to 4 bytes") {
    Dir dir("npy-interop-padded");
    // Sizes [2,2], Strides [3,1]: [r,c] at 3r + c; buffer (3 + 1 + 1) = 5 elements, rounded up
    // to 4 bytes: 5 FLOAT32 elements (20 bytes).
    write_text(dir / "golden.json", golden("FLOAT32", "[2, 2]", "[3, 1]", "[1, 2, 3, 4]"));
    const float gap = -99;
    write_npy(dir / "b.npy", npy<float>(DataType::FLOAT32, {5}, {1, 2, gap, 3, 4}));
    CaseDiff r = diff_case(dir / "golden.json", dir / "b.npy", {});
    REQUIRE(r.errors.empty());
    CHECK(r.status() == CaseDiff::Status::Pass);

    // FLOAT16 [3]: 6 bytes, TotalTensorSizeInBytes 8 = 4 halves. Both (3,) and (4,) are accepted.
    write_text(dir / "h.json", golden("FLOAT16", "[3]", "", "[1, 2, 3]"));
    const std::vector<uint16_t> halves{0x3c00, 0x4000, 0x4200, 0xffff};  // 1, 2, 3, then padding
    NpyArray a = npy<uint16_t>(DataType::FLOAT16, {4}, halves);
    write_npy(dir / "h4.npy", a);
    CHECK(diff_case(dir / "h.json", dir / "h4.npy", {}).status() == CaseDiff::Status::Pass);
    a.shape = {3};
    a.data.resize(6);
    write_npy(dir / "h3.npy", a);
    CHECK(diff_case(dir / "h.json", dir / "h3.npy", {}).status() == CaseDiff::Status::Pass);
}

TEST_CASE("Fortran-order .npy files are read in their logical (row-major) order") {
    // A (2, 3) int16 array a[r][c] = 10r + c: row-major 0 1 2 10 11 12; column-major (the file)
    // 0 10 1 11 2 12.
    auto le16 = [](std::initializer_list<int> v) {
        std::string s;
        for (int x : v) {
            s += char(x & 0xff);
            s += char((x >> 8) & 0xff);
        }
        return s;
    };
    const NpyArray a = parse_npy(fortran_npy("<i2", "(2, 3)", le16({0, 10, 1, 11, 2, 12})), 1 << 20);
    CHECK(a.shape == std::vector<uint64_t>{2, 3});
    const std::vector<int16_t> expected{0, 1, 2, 10, 11, 12};
    CHECK(as_values<int16_t>(a.data) == expected);

    // Three dimensions, (2, 2, 2), a[i][j][k] = 100i + 10j + k; column-major: i varies fastest.
    std::string col;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 2; ++i) col += le16({100 * i + 10 * j + k});
    const NpyArray b = parse_npy(fortran_npy("<i2", "(2, 2, 2)", col), 1 << 20);
    CHECK(as_values<int16_t>(b.data) == std::vector<int16_t>{0, 1, 10, 11, 100, 101, 110, 111});

    SUBCASE("diff of a golden against a Fortran-order file") {
        Dir dir("npy-interop-fortran");
        write_text(dir / "golden.json", golden("INT16", "[2, 3]", "", "[0, 1, 2, 10, 11, 12]"));
        std::ofstream(dir / "f.npy", std::ios::binary) << fortran_npy("<i2", "(2, 3)", le16({0, 10, 1, 11, 2, 12}));
        CHECK(diff_case(dir / "golden.json", dir / "f.npy", {}).status() == CaseDiff::Status::Pass);
        // The same bytes read as C order would be 0 10 1 / 11 2 12: a checker that ignored the
        // flag would fail here.
        std::ofstream(dir / "c.npy", std::ios::binary)
            << fortran_npy("<i2", "(2, 3)", le16({0, 10, 1, 11, 2, 12}), false);
        const CaseDiff r = diff_case(dir / "golden.json", dir / "c.npy", {});
        REQUIRE(r.errors.empty());
        CHECK(r.outputs.at(0).over == 4);
    }
}

}  // namespace dmlref_test_npy_interop
