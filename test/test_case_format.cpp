// The case format: lossless load -> write -> load for every type, the documented generator,
// .npy inputs, in-place cases, and golden files that compare against their expected values.
#include "support.hpp"

#include "dmlref/generate.hpp"
#include "dmlref/npy.hpp"

#include <filesystem>
#include <fstream>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_case_format {

using namespace dmlref;
using namespace dmlref::test;
namespace fs = std::filesystem;

namespace {

Case load_text(const std::string& text, const fs::path& file = "mem.json") {
    Diagnostics d;
    Case c = parse_case(parse_json_text(text), file, d);
    for (const auto& item : d.items()) INFO(format(item, file.string()));
    REQUIRE_FALSE(d.has_errors());
    return c;
}

// A RELU case of type t whose input is `values` (JSON texts), n elements.
std::string relu_case(DataType t, const std::vector<std::string>& values) {
    std::string v;
    for (size_t i = 0; i < values.size(); ++i) v += (i ? ", " : "") + values[i];
    const std::string n = std::to_string(values.size());
    const std::string td = "{\"DataType\": \"" + std::string(name(t)) + "\", \"Sizes\": [" + n + "]}";
    return "{\"format\": 1, \"operator\": \"ACTIVATION_RELU\", \"desc\": {\"InputTensor\": " + td +
           ", \"OutputTensor\": " + td + "}, \"inputs\": {\"InputTensor\": [" + v + "]}}";
}

}  // namespace

TEST_CASE("lossless: load, write, load gives identical bits for every type") {
    std::mt19937_64 rng(99);
    for (DataType t : kAllDataTypes) {
        INFO(name(t));
        // The curated specials (NaN payloads, -0, subnormals, extremes) and random bit patterns,
        // written as raw bits so that the source holds exactly these.
        std::vector<uint64_t> bits = special_values(t);
        const uint64_t mask = element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1;
        for (int i = 0; i < 200; ++i) bits.push_back(rng() & mask);
        std::vector<std::string> texts;
        for (uint64_t b : bits) texts.push_back("\"" + hex_bits(t, b) + "\"");
        const Case first = load_text(relu_case(t, texts));
        const auto& buf = first.inputs.at("InputTensor");
        for (size_t i = 0; i < bits.size(); ++i) REQUIRE(load_bits(t, buf.data() + i * element_size(t)) == bits[i]);
        // Written in canonical form (decimals, "nan", bits for payloads), read again: same bits.
        const std::string written = write_golden(first, run_case(first), "mem.json");
        const Case second = load_text(written);
        CHECK(second.inputs.at("InputTensor") == buf);
        // The golden's expected values read back as the outputs that were written.
        const Outputs o = run_case(second);
        CHECK(compare_expected(second, o).empty());
        CHECK(second.expected.at("OutputTensor").values == o.values.at("OutputTensor"));
        // And writing again gives the same text, byte for byte.
        CHECK(write_golden(second, o, "mem.json") == written);
    }
}

// The generator's algorithm written again here from docs/case-format.md: SplitMix64, two
// draws per element, Integers = Min + floor(r2 * (Max - Min + 1) / 2^64).
TEST_CASE("Random inputs follow the documented algorithm") {
    // SplitMix64's published outputs for seed 1234567 (Vigna's splitmix64.c test values).
    SplitMix64 g{1234567};
    CHECK(g.next() == 6457827717110365317ull);
    CHECK(g.next() == 3203168211198807973ull);
    CHECK(g.next() == 9817491932198370423ull);

    const Case c = load_text(R"({"format": 1, "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "INT32", "Sizes": [64]}, "OutputTensor": {"DataType": "INT32", "Sizes": [64]}},
        "inputs": {"InputTensor": {"Random": {"Seed": 42, "Distribution": "Integers", "Min": -5, "Max": 5}}}})");
    const auto v = as_values<int32_t>(c.inputs.at("InputTensor"));
    uint64_t state = 42;
    auto next = [&] {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    for (size_t i = 0; i < v.size(); ++i) {
        next();  // r1: decides specials; SpecialFraction is 0
        const uint64_t r2 = next();
        const int64_t expected = -5 + int64_t((uint128_t(r2) * 11) >> 64);
        REQUIRE(v[i] == expected);
    }
    CHECK(c.seeds == std::vector<uint64_t>{42});
}

TEST_CASE("Random with SpecialFraction 1 draws only the curated specials") {
    const Case c = load_text(R"({"format": 1, "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT16", "Sizes": [100]}, "OutputTensor": {"DataType": "FLOAT16", "Sizes": [100]}},
        "inputs": {"InputTensor": {"Random": {"Seed": 7, "SpecialFraction": 1}}}})");
    const auto specials = special_values(DataType::FLOAT16);
    for (uint16_t b : as_values<uint16_t>(c.inputs.at("InputTensor")))
        CHECK(std::find(specials.begin(), specials.end(), b) != specials.end());
}

TEST_CASE("Fill and Iota") {
    const Case c = load_text(R"({"format": 1, "operator": "ACTIVATION_RELU_GRAD",
        "desc": {"InputTensor": {"DataType": "INT16", "Sizes": [5]}, "InputGradientTensor": {"DataType": "INT16", "Sizes": [5]},
                 "OutputGradientTensor": {"DataType": "INT16", "Sizes": [5]}},
        "inputs": {"InputTensor": {"Iota": {"Start": -2, "Step": 1}}, "InputGradientTensor": {"Fill": 7}}})");
    // INT16 [5] is 10 bytes, rounded up to 12: the buffer holds 6 elements, all generated.
    check_bits(as_values<int16_t>(c.inputs.at("InputTensor")), std::vector<int16_t>{-2, -1, 0, 1, 2, 3});
    check_bits(as_values<int16_t>(c.inputs.at("InputGradientTensor")), std::vector<int16_t>{7, 7, 7, 7, 7, 7});
    // ReluGrad: x > 0 at 1, 2 -> [0, 0, 0, 7, 7]
    check_bits(as_values<int16_t>(run_case(c).values.at("OutputGradientTensor")), std::vector<int16_t>{0, 0, 0, 7, 7});
}

TEST_CASE(".npy inputs, and .npy files written and read back for every type") {
    const fs::path dir = fs::temp_directory_path() / ("dmlref-npy-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (DataType t : kAllDataTypes) {
        NpyArray a;
        a.data_type = t;
        a.shape = {2, 3};
        a.data.resize(6 * element_size(t));
        for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = std::byte(i * 37 + 1);
        write_npy(dir / "a.npy", a);
        const NpyArray b = read_npy(dir / "a.npy", 1 << 20);
        CHECK(b.data_type == t);
        CHECK(b.shape == a.shape);
        CHECK(b.data == a.data);
    }
    NpyArray x;
    x.data_type = DataType::FLOAT32;
    x.shape = {4};
    x.data = buffer<float>(desc(DataType::FLOAT32, {4}), {-1.0f, 2.0f, -0.0f, 3.0f});
    write_npy(dir / "x.npy", x);
    const std::string text = R"({"format": 1, "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}},
        "inputs": {"InputTensor": {"Npy": "x.npy"}}})";
    const Case c = load_text(text, dir / "case.json");
    check_bits(as_values<float>(run_case(c).values.at("OutputTensor")), std::vector<float>{0, 2, 0, 3});
    // Written next to another directory, the .npy path is made relative to the new file.
    const std::string golden = write_golden(c, run_case(c), dir / "sub" / "golden.json");
    CHECK(golden.find("\"Npy\": \"../x.npy\"") != std::string::npos);
}

TEST_CASE("malformed .npy files are clear errors") {
    auto header = [](const std::string& dict, size_t data_bytes) {
        std::string h = dict;
        while ((10 + h.size() + 1) % 64) h += ' ';
        h += '\n';
        std::string f = std::string("\x93NUMPY\x01\x00", 8);
        f += char(h.size() & 0xff);
        f += char(h.size() >> 8);
        return f + h + std::string(data_bytes, '\0');
    };
    auto error = [](const std::string& bytes) {
        try {
            parse_npy(bytes, 1 << 20);
        } catch (const NpyError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error("hello") == "not a .npy file (no \\x93NUMPY magic)");
    // Fortran order is read (into C order; test_npy_interop.cpp checks the element order).
    CHECK(error(header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8)) == "no error");
    CHECK(error(header("{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,), }", 8)) ==
          "fortran_order is 'maybe', not True or False");
    CHECK(error(header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8)) ==
          "dtype '>f4' is big-endian; dmlref reads little-endian data only");
    CHECK(error(header("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16))
              .find("is not one of the eleven element types") != std::string::npos);
    CHECK(error(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20))
              .find("the file is truncated: shape (2, 3) of <f4 needs 24 data bytes, the file has 20") == 0);
    CHECK(error(header("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000,), }", 0)).find("limit") !=
          std::string::npos);
    CHECK(error(header("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 4)) == "no error");
}

TEST_CASE("an in-place case runs with the output on the input's buffer") {
    const Case c = load_text(
        R"({"format": 1, "operator": "ELEMENT_WISE_CLIP1", "inPlace": {"OutputTensor": "InputTensor"},
        "desc": {"InputTensor": {"DataType": "UINT8", "Sizes": [4]}, "OutputTensor": {"DataType": "UINT8", "Sizes": [4]},
                 "MinMaxDataType": "UINT8", "Min": 10, "Max": 20},
        "inputs": {"InputTensor": [0, 15, 255, 20]}})");
    CHECK(c.in_place.at("OutputTensor") == "InputTensor");
    check_bits(as_values<uint8_t>(run_case(c).values.at("OutputTensor")), std::vector<uint8_t>{10, 15, 20, 20});
}

TEST_CASE("expected values that differ are reported element by element") {
    const Case c = load_text(R"({"format": 1, "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]}},
        "inputs": {"InputTensor": [1, -1, -0.0, 4]},
        "expected": {"OutputTensor": {"Values": [1, 0, -0.0, 4]}}})");
    const auto m = compare_expected(c, run_case(c));
    REQUIRE(m.size() == 1);  // RELU(-0) is +0, not the -0.0 written here
    CHECK(m[0].index == 2);
    CHECK(m[0].expected_bits == 0x80000000u);
    CHECK(m[0].actual_bits == 0u);
}

TEST_CASE("names and reasons with control characters are written escaped and read back") {
    // U+001F starts dmlref's internal marker for raw number tokens; a user's text must never be
    // taken for it, nor break the JSON.
    const std::string text = R"({"format": 1, "name": "\u001f1 \" \\ \n", "description": "\u001fraw",
        "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [2]}, "OutputTensor": {"DataType": "INT8", "Sizes": [2]}},
        "inputs": {"InputTensor": [1, -1]},
        "expected": {"OutputTensor": {"Values": [1, 0], "DontCare": [{"Index": 1, "Reason": "\u001f\u0000x"}]}}})";
    const Case c = load_text(text);
    CHECK(c.name ==
          "\x1f"
          "1 \" \\ \n");
    const std::string golden = write_golden(c, run_case(c), "mem.json");
    const Case d = load_text(golden);
    CHECK(d.name == c.name);
    CHECK(d.description == "\x1fraw");
    CHECK(d.expected.at("OutputTensor").dont_care.at(0).Reason == std::string("\x1f\0x", 3));
}

}  // namespace dmlref_test_case_format
