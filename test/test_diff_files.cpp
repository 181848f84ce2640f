// `dmlref diff` on files: actual .npy files, raw buffers with strides and case files (wrong
// shape, dtype, truncation), .npy format 2.0, directory mode, and run_diff's exit codes, JSON
// report and picture. Every expected count and location comes from where the test planted the
// difference, never from the diff's output.
#include "support.hpp"

#include "dmlref/diff.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/tolerance.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_diff_files {

namespace fs = std::filesystem;
using namespace dmlref;
using namespace dmlref::test;

TEST_CASE("actual files: .npy, raw buffers with strides, case files; wrong shape, dtype, truncation") {
    Dir dir("diff-test-files");
    const std::string text = relu_golden("FLOAT32", "[2, 3]", "[1, 2, 3, 4, 5, 6]",
                                         R"({"Kind": "Bits", "Why": "test"})", "", "[4, 1]");
    write_text(dir / "golden.json", text);
    const Case c = parse_valid(text);
    const TensorDesc& d = get<DML_ACTIVATION_RELU_OPERATOR_DESC>(c.op.Desc).OutputTensor;
    REQUIRE(buffer_size(d) == 28);  // (1*4 + 2*1 + 1) * 4 bytes

    SUBCASE("a raw buffer with strides: the gap bytes are ignored") {
        auto buffer = logical_buffer<float>(d, {1, 2, 3, 4, 5, 6}, std::byte{0xff});
        write_bytes(dir / "out.bin", buffer);
        CaseDiff r = diff_case(dir / "golden.json", dir / "out.bin", {});
        REQUIRE(r.errors.empty());
        CHECK(r.status() == CaseDiff::Status::Pass);
        CHECK(r.outputs.at(0).identical == 6);
        // Logical element [1,1] lives at buffer element 1*4 + 1 = 5.
        std::vector<float> v = as_values<float>(buffer);
        v[5] = 50;
        std::memcpy(buffer.data(), v.data(), buffer.size());
        write_bytes(dir / "out.bin", buffer);
        r = diff_case(dir / "golden.json", dir / "out.bin", {});
        CHECK(r.status() == CaseDiff::Status::Fail);
        CHECK(r.outputs.at(0).worst.at(0).coordinate == std::vector<uint64_t>{1, 1});
    }
    SUBCASE("a truncated raw buffer") {
        auto buffer = logical_buffer<float>(d, {1, 2, 3, 4, 5, 6});
        buffer.resize(27);  // the last logical element, [1,2], is buffer element 1*4 + 2 = 6: it ends at byte 28
        write_bytes(dir / "short.bin", buffer);
        const CaseDiff r = diff_case(dir / "golden.json", dir / "short.bin", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].find((dir / "short.bin").string() + ": truncated raw buffer") == 0);
        CHECK(r.errors[0].find("needs at least 28 bytes") != std::string::npos);
        CHECK(r.status() == CaseDiff::Status::Error);
        // Up to the last logical element is enough: 3 UINT8 need 3 bytes, though
        // TotalTensorSizeInBytes rounds up to 4.
        write_text(dir / "u8.json", relu_golden("UINT8", "[3]", "[7, 8, 9]"));
        write_bytes(dir / "u8.bin", {std::byte{7}, std::byte{8}, std::byte{9}});
        CHECK(diff_case(dir / "u8.json", dir / "u8.bin", {}).status() == CaseDiff::Status::Pass);
        buffer = logical_buffer<float>(d, {1, 2, 3, 4, 5, 6});
        buffer.resize(32);
        write_bytes(dir / "long.bin", buffer);
        CHECK(diff_case(dir / "golden.json", dir / "long.bin", {}).errors.at(0).find("more than the 28") !=
              std::string::npos);
    }
    SUBCASE(".npy: the right one passes; wrong shape and wrong dtype are errors naming the file") {
        NpyArray a{DataType::FLOAT32, {2, 3}, {}};
        a.data.resize(24);
        const std::vector<float> v{1, 2, 3, 4, 5, 6};
        std::memcpy(a.data.data(), v.data(), 24);
        write_npy(dir / "ok.npy", a);
        CHECK(diff_case(dir / "golden.json", dir / "ok.npy", {}).status() == CaseDiff::Status::Pass);
        a.shape = {1, 2, 1, 3};  // dimensions of size 1 do not change the order
        write_npy(dir / "ok4.npy", a);
        CHECK(diff_case(dir / "golden.json", dir / "ok4.npy", {}).status() == CaseDiff::Status::Pass);
        a.shape = {3, 2};
        write_npy(dir / "shape.npy", a);
        CaseDiff r = diff_case(dir / "golden.json", dir / "shape.npy", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0] == (dir / "shape.npy").string() +
                                 ": wrong shape: the file's shape is (3, 2), the golden output's Sizes are [2,3]");
        NpyArray b{DataType::FLOAT64, {2, 3}, std::vector<std::byte>(48)};
        write_npy(dir / "dtype.npy", b);
        r = diff_case(dir / "golden.json", dir / "dtype.npy", {});
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0] ==
              (dir / "dtype.npy").string() +
                  ": wrong dtype: the file holds <f8 (FLOAT64), the golden output's DataType is FLOAT32 (<f4)");
    }
    SUBCASE("a case file holding the outputs") {
        write_text(dir / "actual.json", relu_golden("FLOAT32", "[2, 3]", "[1, 2, 3, 4, 5, 7]"));
        CaseDiff r = diff_case(dir / "golden.json", dir / "actual.json", {});
        REQUIRE(r.errors.empty());
        CHECK(r.outputs.at(0).over == 1);
        CHECK(r.outputs.at(0).worst.at(0).index == 5);
        write_text(dir / "other.json", relu_golden("FLOAT16", "[2, 3]", "[1, 2, 3, 4, 5, 6]"));
        r = diff_case(dir / "golden.json", dir / "other.json", {});
        CHECK(r.errors.at(0).find("wrong dtype") != std::string::npos);
        write_text(dir / "other.json", relu_golden("FLOAT32", "[3, 2]", "[1, 2, 3, 4, 5, 6]"));
        r = diff_case(dir / "golden.json", dir / "other.json", {});
        CHECK(r.errors.at(0).find("wrong shape") != std::string::npos);
    }
}

TEST_CASE("npy: format 2.0 read; malformed headers are errors") {
    std::string h = "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }";
    while ((12 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string f = std::string("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i) f += char((h.size() >> (8 * i)) & 0xff);
    f += h + std::string("\x01\x00\xff\xff", 4);
    const NpyArray a = parse_npy(f, 1 << 20);
    CHECK(a.data_type == DataType::INT16);
    CHECK(a.shape == std::vector<uint64_t>{2});
    CHECK(load_bits(DataType::INT16, a.data.data() + 2) == 0xffff);
    auto error = [](const std::string& bytes) {
        try {
            parse_npy(bytes, 1 << 20);
        } catch (const NpyError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17)) == "the file ends inside the header");
    CHECK(error(std::string("\x93NUMPY\x01\x00\x08\x00{'x': 1}", 18)) == "the header has no 'descr' entry");
}

TEST_CASE("directory mode matches cases by relative path and summarises them") {
    Dir dir("diff-test-dirs");
    const std::string values = "[1, 2, 3, 4, 5, 6]";
    write_text(dir / "golden/relu/a.json", relu_golden("FLOAT32", "[2, 3]", values));
    write_text(dir / "golden/relu/b.json", relu_golden("FLOAT32", "[2, 3]", values));
    write_text(dir / "golden/c.json", relu_golden("FLOAT32", "[2, 3]", values));
    write_text(dir / "golden/d.json", relu_golden("FLOAT32", "[2, 3]", values));
    NpyArray a{DataType::FLOAT32, {2, 3}, std::vector<std::byte>(24)};
    const std::vector<float> v{1, 2, 3, 4, 5, 6};
    std::memcpy(a.data.data(), v.data(), 24);
    fs::create_directories(dir / "actual/relu/a");
    write_npy(dir / "actual/relu/a/OutputTensor.npy", a);                                              // pass
    write_text(dir / "actual/relu/b.json", relu_golden("FLOAT32", "[2, 3]", "[1, 2, 3, 4, 5, 6.5]"));  // fail
    fs::create_directories(dir / "actual/d");  // d: an empty directory
    // c has no actual outputs at all.
    const DiffReport r = diff(dir / "golden", dir / "actual", {});
    REQUIRE(r.cases.size() == 4);
    CHECK(r.directory_mode);
    CHECK(r.cases[0].golden == dir / "golden/c.json");
    CHECK(r.cases[0].status() == CaseDiff::Status::Error);
    CHECK(r.cases[0].errors.at(0).find("no actual outputs") != std::string::npos);
    CHECK(r.cases[1].status() == CaseDiff::Status::Error);
    CHECK(r.cases[1].errors.at(0).find("holds neither OutputTensor.npy nor OutputTensor.bin") != std::string::npos);
    CHECK(r.cases[2].status() == CaseDiff::Status::Pass);
    CHECK(r.cases[3].status() == CaseDiff::Status::Fail);
    CHECK(r.cases[3].outputs.at(0).worst.at(0).index == 5);
    CHECK(r.exit_code() == 2);
    const std::string text = report_text(r);
    CHECK(text.find("4 cases: 1 passed, 1 failed, 2 errors") != std::string::npos);
    const auto j = nlohmann::json::parse(report_json(r));
    CHECK(j["summary"]["exit_code"] == 2);
    CHECK(j["cases"][3]["status"] == "fail");
    CHECK(j["cases"][3]["outputs"][0]["over"] == 1);
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["coordinate"] == nlohmann::json::array({1, 2}));
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["golden_bits"] == "0x40c00000");
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["actual"] == "6.5");
    CHECK(j["cases"][3]["outputs"][0]["worst"][0]["ulp_distance"] == 0x40d00000 - 0x40c00000);
}

TEST_CASE("run_diff: exit codes 0, 1, 2, the JSON report and the picture") {
    Dir dir("diff-test-exit");
    write_text(dir / "golden.json", relu_golden("UINT8", "[2, 2]", "[1, 2, 3, 4]"));
    write_bytes(dir / "same.bin", {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}});
    write_bytes(dir / "off.bin", {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{5}});
    write_bytes(dir / "short.bin", {std::byte{1}, std::byte{2}, std::byte{3}});
    auto run_with = [&](DiffCommand cmd, const std::string& actual, std::string* err_text) {
        cmd.golden = dir / "golden.json";
        cmd.actual = actual.empty() ? fs::path() : dir / actual;
        std::ostringstream out, err;
        const int code = run_diff(cmd, out, err);
        if (err_text) *err_text = err.str();
        return code;
    };
    auto run = [&](const std::string& actual, std::string* err_text = nullptr) {
        return run_with(DiffCommand{}, actual, err_text);
    };
    CHECK(run("same.bin") == 0);
    CHECK(run("off.bin") == 1);
    std::string err;
    CHECK(run("short.bin", &err) == 2);
    CHECK(err.find((dir / "short.bin").string() + ": truncated raw buffer") != std::string::npos);
    CHECK(run("missing.bin", &err) == 2);
    CHECK(err.find((dir / "missing.bin").string() + ": no such file") != std::string::npos);
    CHECK(run("") == 2);
    DiffCommand named;
    named.options.files["OutputTensor"] = dir / "same.bin";
    CHECK(run_with(named, "", nullptr) == 0);
    named.options.files["NoSuchOutput"] = dir / "same.bin";
    CHECK(run_with(named, "", nullptr) == 2);
    write_text(dir / "bad.json", "{\"format\": 1");
    {
        DiffCommand cmd;
        cmd.golden = dir / "bad.json";
        cmd.actual = dir / "same.bin";
        std::ostringstream out, e;
        CHECK(run_diff(cmd, out, e) == 2);
        CHECK(e.str().find((dir / "bad.json").string()) != std::string::npos);
    }
    DiffCommand pic;
    pic.image = dir / "where.ppm";
    pic.json_file = dir / "report.json";
    CHECK(run_with(pic, "off.bin", nullptr) == 1);
    std::ifstream in(dir / "where.ppm", std::ios::binary);
    std::string header;
    std::getline(in, header);
    CHECK(header == "P6");
    // 2 x 2 elements scaled up 32 times (the most): 64 x 64 pixels of tiles. Below them the legend:
    // a margin of 4, then four rows of 11 pixels (a 7 x 7 swatch at x = 4, its label in a 5 x 7
    // font at x = 15, 6 pixels a character); the longest label, "not judged (don't care): 0", is
    // 26 characters: 4 + 11 + 26 * 6 + 4 = 175 wide, 64 + 8 + 4 * 11 = 116 high.
    std::string size_line;
    std::getline(in, size_line);
    CHECK(size_line == "175 116");
    std::string max_line;
    std::getline(in, max_line);
    std::vector<unsigned char> px(size_t(175 * 116 * 3));
    in.read(reinterpret_cast<char*>(px.data()), std::streamsize(px.size()));
    CHECK(in.gcount() == std::streamsize(px.size()));
    auto at = [&](size_t x, size_t y) {
        return std::array<int, 3>{px[(y * 175 + x) * 3], px[(y * 175 + x) * 3 + 1], px[(y * 175 + x) * 3 + 2]};
    };
    CHECK(at(0, 0) == std::array<int, 3>{96, 96, 96});        // [0,0] identical: grey
    CHECK(at(63, 63) == std::array<int, 3>{230, 0, 0});       // [1,1] over: red
    CHECK(at(100, 30) == std::array<int, 3>{255, 255, 255});  // beside the tiles: white
    CHECK(at(7, 75) == std::array<int, 3>{96, 96, 96});       // the legend's swatches, in order
    CHECK(at(7, 86) == std::array<int, 3>{0, 190, 0});
    CHECK(at(7, 97) == std::array<int, 3>{230, 0, 0});
    CHECK(at(7, 108) == std::array<int, 3>{40, 90, 255});
    size_t ink = 0;  // the labels' black pixels, right of the swatches
    for (size_t y = 72; y < 116; ++y)
        for (size_t x = 15; x < 175; ++x) ink += at(x, y) == std::array<int, 3>{0, 0, 0};
    CHECK(ink > 100);
    const auto j = nlohmann::json::parse(std::ifstream(dir / "report.json"));
    CHECK(j["summary"]["exit_code"] == 1);
    CHECK(j["cases"][0]["outputs"][0]["worst"][0]["index"] == 3);
    pic.image = dir / "where.png";
    CHECK(run_with(pic, "off.bin", nullptr) == 1);
    std::ifstream png(dir / "where.png", std::ios::binary);
    std::string sig(8, '\0');
    png.read(sig.data(), 8);
    CHECK(sig == "\x89PNG\r\n\x1a\n");
    // Deflated: its 116 rows of 1 + 175 * 3 bytes (61,016 stored) take a few hundred bytes. The
    // test runner (test/test_runner.sh) decodes such a PNG independently, with Python's zlib.
    CHECK(fs::file_size(dir / "where.png") < 2000);
}

}  // namespace dmlref_test_diff_files
