// Golden I/O at speed: the JSON reader against nlohmann's parser, the quick value
// reading and writing against parse_value and format_value value for value, SHA-256 against
// FIPS 180-4's vectors, and goldens with their large outputs in .npy files beside them.
#include "support.hpp"

#include "../lib/case/json_values.hpp"
#include "../lib/case/sha256.hpp"
#include "dmlref/npy.hpp"

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace dmlref {
extern bool g_sha256_plain_only;
}

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_golden_io {

namespace fs = std::filesystem;
using namespace dmlref;
using namespace dmlref::test;

namespace {

std::string read_text(const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string error_rule(const std::string& text, std::string* path = nullptr) {
    try {
        parse_json_text(text, {true, {}});
    } catch (const CaseError& e) {
        for (const auto& item : e.diagnostics().items()) {
            if (path) *path = item.path;
            return item.rule;
        }
    }
    return "";
}

// A RELU case of n FLOAT32 elements with inputs as given.
std::string relu_case(uint64_t n, const std::string& inputs) {
    return R"({"format": 1, "name": "big", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [)" +
           std::to_string(n) + R"(]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [)" + std::to_string(n) +
           R"(]}}, "inputs": {"InputTensor": )" + inputs + "}}";
}

Diagnostics load(const fs::path& file, Case* out = nullptr) {
    Diagnostics d;
    try {
        Case c = load_case(file, d);
        if (out) *out = std::move(c);
    } catch (const CaseError& e) {
        d = e.diagnostics();
    }
    return d;
}

bool has_rule(const Diagnostics& d, const std::string& rule, const std::string& path) {
    for (const auto& item : d.items())
        if (item.severity == Severity::Error && item.rule == rule && item.path == path) return true;
    return false;
}

}  // namespace

TEST_CASE("SHA-256 gives FIPS 180-4's example digests, with and without the SHA extensions") {
    for (bool plain : {true, false}) {
        g_sha256_plain_only = plain;
        CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        Sha256 h;  // a million 'a's, fed in uneven pieces
        const std::string a(1000, 'a');
        for (int i = 0; i < 1000; ++i) h.update(a.data(), a.size());
        CHECK(h.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    // The two compression functions agree on every length around the block boundaries.
    std::mt19937_64 g(7);
    std::string s;
    for (int n = 0; n < 300; ++n) {
        s += char(g());
        g_sha256_plain_only = true;
        const std::string plain = sha256_hex(s);
        g_sha256_plain_only = false;
        CHECK(sha256_hex(s) == plain);
    }
}

TEST_CASE("the JSON reader accepts what nlohmann's strict parser accepts, and reads the same tree") {
    const std::vector<std::string> texts = {
        "{}",
        "[]",
        " [1, 2 ,3] ",
        "{\"a\": [true, false, null], \"b\": {\"c\": \"d\"}}",
        "\"x\"",
        "0",
        "-1",
        "1.5e3",
        "1E-2",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\"",
        "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
        "\xEF\xBB\xBF{\"a\": 1}",
        "[1.0, -0.0, 1e400, 1e-400]",
        "[2.5E+400]",
        "[-1.25e-400]",
        "[1.5e308]",
        // not JSON:
        "",
        "{",
        "[1,]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\": 1,}",
        "01",
        "1.",
        ".5",
        "+1",
        "-",
        "1e",
        "[1] x",
        "tru",
        "nul",
        "\"abc",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\t\"",
        "\"\xff\"",
        "\"\xc0\x80\"",
        "\"\xed\xa0\x80\"",
        "\"\xf4\x90\x80\x80\"",
        "\"\xe2\x82\"",
        "[1]]",
        "{\"a\": [1, {]}",
    };
    for (const auto& t : texts) {
        INFO(t);
        bool theirs = true;
        nlohmann::json expected;
        try {
            expected = nlohmann::json::parse(t);
        } catch (const nlohmann::json::exception&) {
            theirs = false;
        }
        bool ours = true;
        JsonDocument doc;
        try {
            doc = parse_json_text(t);
        } catch (const CaseError& e) {
            ours = false;
            CHECK(e.diagnostics().items().at(0).rule == "json.syntax");
        }
        CHECK(ours == theirs);
        if (ours && theirs) CHECK(doc.root.dump() == expected.dump());
    }
}

TEST_CASE("the JSON reader's own checks: depth, duplicate keys, -0, with the JSON pointer or line") {
    std::string path;
    CHECK(error_rule(std::string(70, '[') + std::string(70, ']'), &path) == "json.depth");
    CHECK(
        path ==
        "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0");
    CHECK(error_rule("{\"a\": {\"b~/\": 1, \"b~/\": 2}}", &path) == "json.duplicate-key");
    CHECK(path == "/a/b~0~1");
    CHECK(error_rule("{\"inputs\": {\"X\": [1, -0, 2]}}") == "json.negative-zero-integer");
    CHECK(error_rule("{\"a\": [1, -0.0, 2]}").empty());
    try {
        parse_json_text("{\"a\": 1,\n \"b\": ]}");
        FAIL("no error");
    } catch (const CaseError& e) {
        CHECK(format(e.diagnostics().items().at(0), "f.json").find("not valid JSON at line 2, column 7") !=
              std::string::npos);
    }
}

TEST_CASE("tensor data read packed gives the same case as read node by node") {
    // Every bundled case, and values in every notation (integers, decimals, rounded decimals,
    // strings of raw bits, nan, inf) in both inputs and expected values.
    std::vector<std::string> texts;
    for (const auto& e :
         fs::recursive_directory_iterator(fs::path(DMLREF_TEST_DATA).parent_path().parent_path() / "cases"))
        if (e.path().extension() == ".json") texts.push_back(read_text(e.path()));
    texts.push_back(
        R"({"format": 1, "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT16", "Sizes": [8]},
        "OutputTensor": {"DataType": "FLOAT16", "Sizes": [8]}}, "inputs": {"InputTensor": [1, -2.5, 0.1, "0x7e01", "nan", "-inf", 65519, 1e-8]},
        "expected": {"OutputTensor": {"Values": [1, 0, 0.1, "0x7e01", "nan", 0, 65504, 0], "Tolerance": {"Kind": "Bits"}}}})");
    texts.push_back(
        R"({"format": 1, "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "INT64", "Sizes": [3]},
        "OutputTensor": {"DataType": "INT64", "Sizes": [3]}}, "inputs": {"InputTensor": [-9223372036854775808, "9223372036854775807", 3]}})");
    for (const auto& t : texts) {
        Diagnostics d1, d2;
        Case a, b;
        try {
            a = parse_case(parse_json_text(t), "x/c.json", d1);
        } catch (const CaseError& e) {
            d1 = e.diagnostics();
        }
        try {
            b = parse_case(parse_json_text(t, {true, {}}), "x/c.json", d2);
        } catch (const CaseError& e) {
            d2 = e.diagnostics();
        }
        INFO(t.substr(0, 300));
        REQUIRE(d1.items().size() == d2.items().size());
        for (size_t i = 0; i < d1.items().size(); ++i) {
            CHECK(d1.items()[i].rule == d2.items()[i].rule);
            CHECK(d1.items()[i].path == d2.items()[i].path);
            CHECK(d1.items()[i].message == d2.items()[i].message);
        }
        CHECK(a.inputs == b.inputs);
        CHECK(a.input_specs == b.input_specs);
        REQUIRE(a.expected.size() == b.expected.size());
        for (const auto& [k, e] : a.expected) {
            CHECK(e.values == b.expected.at(k).values);
            CHECK(e.tolerance == b.expected.at(k).tolerance);
            CHECK(e.boundary == b.expected.at(k).boundary);
        }
    }
}

TEST_CASE("quick value reading agrees with parse_value wherever it answers") {
    std::mt19937_64 g(11);
    size_t answered = 0, asked = 0;
    for (DataType t : kAllDataTypes) {
        for (int k = 0; k < 4000; ++k) {
            uint64_t bits = g() & (element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1);
            if (k < 8)
                bits = std::vector<uint64_t>{0,          1,          0x3c00,     0x7bff,
                                             0x3f800000, 0x00000001, 0x7f7fffff, 0x3ff0000000000000}[k] &
                       (element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1);
            std::vector<std::string> texts = {format_value(t, bits), format_exact_value(t, bits)};
            if (is_float(t)) {  // decimals near the value with fewer and more digits than it needs
                const double d = dispatch(t, [&]<class T>() {
                    if constexpr (is_floating_v<T>) return widen(from_bits<T>(bits_t<T>(bits)));
                    else return 0.0;
                });
                char buf[512];
                for (int p : {1, 3, 5, 9, 17, 25})
                    texts.emplace_back(buf, std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, p).ptr);
                texts.emplace_back(buf, std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed, 30).ptr);
            }
            for (const auto& s : texts) {
                if (s.empty() || s[0] == '"' || s.find("inf") != std::string::npos ||
                    s.find("nan") != std::string::npos)
                    continue;
                const bool integer = s.find_first_of(".eE") == std::string::npos;
                const uint8_t kind = !integer      ? PackedArray::Number
                                     : s[0] == '-' ? PackedArray::Integer
                                                   : PackedArray::Unsigned;
                ValueToken tok;
                tok.kind = ValueToken::Kind::Number;
                tok.text = s;
                const ParsedValue p = parse_value(t, tok);
                for (bool exact_only : {false, true}) {
                    uint64_t q = 0;
                    ++asked;
                    if (!quick_value(t, kind, s, exact_only, q)) continue;
                    ++answered;
                    INFO(name(t) << " " << s << " exact_only " << exact_only);
                    REQUIRE(p.ok);
                    CHECK(q == p.bits);
                    if (exact_only) CHECK(!p.inexact);
                }
            }
        }
    }
    CHECK(answered > asked / 2);  // the quick path is the common one
}

TEST_CASE("quick value writing gives format_value's text for every type") {
    std::mt19937_64 g(5);
    for (DataType t : kAllDataTypes) {
        const uint64_t mask = element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1;
        for (uint64_t count : {uint64_t(1), uint64_t(1) << 20}) {  // FLOAT16 by table for many values
            const ValueFormatter f(t, count);
            std::vector<uint64_t> all;
            for (int k = 0; k < 20000; ++k) all.push_back(g() & mask);
            for (uint64_t b : {0ull, 1ull, 0x8000ull, 0x7c00ull, 0xfc00ull, 0x7e00ull, 0x7e01ull, 0x80000000ull,
                               0x7f800000ull, 0x7fc00000ull, 0x7f800001ull, 0x8000000000000000ull,
                               0x7ff8000000000000ull, (1ull << 53), (1ull << 53) + 1, ~0ull})
                all.push_back(b & mask);
            for (uint64_t b : all) {
                std::string s;
                f.append(s, b);
                INFO(name(t) << " " << hex_bits(t, b));
                CHECK(s == format_value(t, b));
            }
        }
    }
}

// The one .npy beside a golden whose name starts with `prefix` ("<stem>.<Output>."), or "".
fs::path beside(const fs::path& dir, const std::string& prefix) {
    fs::path found;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n.size() == prefix.size() + 20 && n.starts_with(prefix) && n.ends_with(".npy")) found = e.path();
    }
    return found;
}

TEST_CASE("a golden with its large output in a .npy file beside it reads back bit for bit") {
    Dir dir("golden-io-beside");
    const uint64_t n = 1000;
    write_text(dir / "c.json", relu_case(n, R"({"Random": {"Seed": 3, "SpecialFraction": 0.1}})"));
    Case c;
    REQUIRE(!load(dir / "c.json", &c).has_errors());
    const Outputs out = run_case(c);
    fs::create_directories(dir / "g");
    write_golden_files(c, out, dir / "g" / "c.json", n - 1);  // n > threshold: beside
    const std::string text = read_text(dir / "g" / "c.json");
    CHECK(text.find("\"Values\"") == std::string::npos);
    const fs::path npy_file = beside(dir / "g", "c.OutputTensor.");
    REQUIRE(!npy_file.empty());
    CHECK(text.find("\"Npy\": \"" + npy_file.filename().string() + "\"") != std::string::npos);
    const std::string npy = read_text(npy_file);
    g_sha256_plain_only = true;
    CHECK(text.find("\"Sha256\": \"" + sha256_hex(npy) + "\"") != std::string::npos);
    CHECK(npy_file.filename().string() ==
          "c.OutputTensor." + sha256_hex(npy).substr(0, 16) + ".npy");  // named by its digest
    g_sha256_plain_only = false;
    // The .npy holds the outputs' bytes after its header, and reads back as the expected values.
    REQUIRE(npy.size() >= n * 4);
    CHECK(std::memcmp(npy.data() + npy.size() - n * 4, out.values.at("OutputTensor").data(), n * 4) == 0);
    Case back;
    REQUIRE(!load(dir / "g" / "c.json", &back).has_errors());
    CHECK(back.expected.at("OutputTensor").values == out.values.at("OutputTensor"));
    CHECK(compare_expected(back, run_case(back)).empty());
    // Written again from what was read: the same bytes (the regeneration is a no-op).
    write_golden_files(back, run_case(back), dir / "g" / "c.json", n - 1);
    CHECK(read_text(dir / "g" / "c.json") == text);
    CHECK(read_text(npy_file) == npy);
    // At the threshold the values stay in the JSON, and are the same values.
    write_golden_files(c, out, dir / "g" / "inline.json", n);
    Case in;
    REQUIRE(!load(dir / "g" / "inline.json", &in).has_errors());
    CHECK(read_text(dir / "g" / "inline.json").find("\"Values\"") != std::string::npos);
    CHECK(beside(dir / "g", "inline.OutputTensor.").empty());
    CHECK(in.expected.at("OutputTensor").values == out.values.at("OutputTensor"));
    CHECK(read_text(dir / "g" / "inline.json") == write_golden(c, out, dir / "g" / "inline.json"));
}

TEST_CASE("a .npy beside a golden that changed, is missing, truncated or outside is an error with its rule") {
    Dir dir("golden-io-broken");
    write_text(dir / "c.json", relu_case(64, R"({"Random": {"Seed": 4}})"));
    Case c;
    REQUIRE(!load(dir / "c.json", &c).has_errors());
    const Outputs out = run_case(c);
    write_golden_files(c, out, dir / "g.json", 10);
    const fs::path gnpy = beside(dir.path, "g.OutputTensor.");
    REQUIRE(!gnpy.empty());
    const std::string npy = read_text(gnpy);
    const std::string text = read_text(dir / "g.json");
    REQUIRE(!load(dir / "g.json").has_errors());

    std::string flipped = npy;
    flipped[flipped.size() - 3] ^= 1;
    write_text(gnpy, flipped);
    CHECK(has_rule(load(dir / "g.json"), "expected.npy-checksum", "/expected/OutputTensor/Sha256"));

    write_text(gnpy, npy.substr(0, npy.size() - 4));
    CHECK(has_rule(load(dir / "g.json"), "expected.npy", "/expected/OutputTensor/Npy"));

    fs::remove(gnpy);
    CHECK(has_rule(load(dir / "g.json"), "expected.npy", "/expected/OutputTensor/Npy"));

    write_text(gnpy, npy);
    std::string bad_sum = text;
    bad_sum.replace(bad_sum.find("\"Sha256\": \"") + 11, 3, "XYZ");
    write_text(dir / "h.json", bad_sum);
    CHECK(has_rule(load(dir / "h.json"), "expected.npy-checksum", "/expected/OutputTensor/Sha256"));

    std::string outside = text;
    const std::string gname = gnpy.filename().string();
    outside.replace(outside.find(gname), gname.size(), "../" + gname);
    fs::create_directories(dir / "sub");
    write_text(dir / "sub" / "g.json", outside);
    CHECK(has_rule(load(dir / "sub" / "g.json"), "expected.npy-path", "/expected/OutputTensor/Npy"));

    // The right bytes under another dtype's header: the checksum holds, the dtype does not.
    NpyArray other{DataType::INT32, {64}, std::vector<std::byte>(out.values.at("OutputTensor"))};
    write_npy(gnpy, other);
    std::string resummed = text;
    resummed.replace(resummed.find("\"Sha256\": \"") + 11, 64, sha256_hex(read_text(gnpy)));
    write_text(dir / "i.json", resummed);
    CHECK(has_rule(load(dir / "i.json"), "expected.npy", "/expected/OutputTensor/Npy"));
}

TEST_CASE(".npy files are read straight into their buffer, header checks unchanged") {
    Dir dir("golden-io-npy");
    std::vector<std::byte> data(4096 * 8);
    for (size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 7);
    std::string sum;
    write_npy(dir / "a.npy", DataType::FLOAT64, {64, 64}, data, &sum);
    std::string again;
    const NpyArray a = read_npy(dir / "a.npy", 1 << 20, &again);
    CHECK(a.data == data);
    CHECK(a.shape == std::vector<uint64_t>{64, 64});
    CHECK(sum == again);
    CHECK(sum == sha256_hex(read_text(dir / "a.npy")));
    const std::string bytes = read_text(dir / "a.npy");
    CHECK(parse_npy(bytes, 1 << 20).data == data);
    write_text(dir / "t.npy", bytes.substr(0, bytes.size() - 1));
    CHECK_THROWS_WITH_AS(read_npy(dir / "t.npy", 1 << 20), doctest::Contains("truncated"), NpyError);
    write_text(dir / "h.npy", bytes.substr(0, 40));
    CHECK_THROWS_WITH_AS(read_npy(dir / "h.npy", 1 << 20), doctest::Contains("ends inside the header"), NpyError);
    write_text(dir / "m.npy", "\x93NUMPX" + bytes.substr(6));
    CHECK_THROWS_WITH_AS(read_npy(dir / "m.npy", 1 << 20), doctest::Contains("magic"), NpyError);
}

}  // namespace dmlref_test_golden_io
