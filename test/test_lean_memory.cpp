// What `diff` and `run` hold at once: a diff frees a golden's inputs where judging its
// outputs reads none, and run reads a golden's .npy expected values after evaluating. Neither may
// change what is reported: each is checked against the path that holds everything.
#include "support.hpp"

#include "dmlref/diff.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/tolerance.hpp"

#include <filesystem>
#include <fstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_lean_memory {

namespace fs = std::filesystem;
using namespace dmlref;

namespace {

const fs::path kCases = fs::path(DMLREF_TEST_DATA).parent_path().parent_path() / "cases";

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("dmlref-lean-test-" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    fs::path operator/(const std::string& s) const { return path / s; }
};

void write_text(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

// Everything a census reports, as text, to compare two censuses in one CHECK.
std::string census_text(const OutputCensus& c) {
    std::string s = std::to_string(c.identical) + " " + std::to_string(c.within) + " " + std::to_string(c.over) +
                    " bounded " + std::to_string(c.bounded) + " nonfinite " + std::to_string(c.nonfinite_mismatches) +
                    "\n";
    for (auto v : c.verdicts) s += char('0' + int(v));
    s += "\n";
    for (const auto& [reason, n] : c.skipped) s += "skipped " + reason + " " + std::to_string(n) + "\n";
    for (const auto& [reason, b] : c.boundary)
        s += "boundary " + reason + " " + std::to_string(b.elements) + " " + std::to_string(b.over) + "\n";
    for (const auto& w : c.worst)
        s += "worst " + std::to_string(w.index) + " " + std::to_string(w.golden_bits) + " " +
             std::to_string(w.actual_bits) + " " + w.boundary + " " + std::to_string(w.bound) + "\n";
    for (auto h : c.histogram) s += std::to_string(h) + ",";
    return s;
}

}  // namespace

TEST_CASE("judging reads the inputs for bounds, term counts and input-valued boundaries only") {
    // Hand-read from docs/tolerance.md: RELU and CLIP move or select values (Bits) with no boundary
    // rule; RELU_GRAD's boundary is an input at zero; MAX_POOLING_GRAD and AVERAGE_POOLING are sums.
    auto load = [](const std::string& rel) {
        Diagnostics d;
        Case c = load_case(kCases / rel, d);
        REQUIRE_FALSE(d.has_errors());
        return c;
    };
    for (const auto& e : fs::directory_iterator(kCases / "relu")) {
        if (e.path().extension() != ".json") continue;
        Diagnostics d;
        const Case c = load_case(e.path(), d);
        if (d.has_errors() || c.expected.empty()) continue;
        INFO(e.path().string());
        const bool grad = c.op.Type == OperatorType::ACTIVATION_RELU_GRAD;
        for (const auto& [o, x] : c.expected) CHECK(judging_reads_inputs(c, o) == grad);
    }
    const Case pooling = load("max_pooling/overlapping_windows_add.json");
    CHECK(judging_reads_inputs(pooling, "OutputGradientTensor"));
}

TEST_CASE("a diff of a golden whose judging reads no inputs reports the same without them") {
    // Every bundled golden, each output against its own values with planted changes (every fifth
    // element one ULP off, every seventh a NaN where the type has one); where judging reads no
    // inputs, the census without the inputs must equal the census with them.
    size_t compared = 0, reading = 0;
    for (const auto& e : fs::recursive_directory_iterator(kCases)) {
        if (e.path().extension() != ".json") continue;
        Diagnostics d;
        Case c;
        try {
            c = load_case(e.path(), d);
        } catch (const CaseError&) {
            continue;
        }
        if (d.has_errors() || !c.expect_error.empty() || c.expected.empty()) continue;
        for (const auto& [name, x] : c.expected) {
            const std::string o = name;  // (a structured binding cannot be captured, as INFO does, under clang 14)
            if (judging_reads_inputs(c, o)) {
                ++reading;
                continue;
            }
            DataType t = DataType::UNKNOWN;
            for (const auto& f : tensor_fields(c.op))
                if (f.name == o) t = f.desc->DataType;
            const size_t w = element_size(t);
            std::vector<std::byte> actual = x.values;
            for (size_t i = 0; i < actual.size() / w; ++i) {
                uint64_t b = load_bits(t, actual.data() + i * w);
                if (i % 5 == 1) b ^= 1;
                if (i % 7 == 3 && is_float(t))
                    b = t == DataType::FLOAT16 ? 0x7e00 : t == DataType::FLOAT32 ? 0x7fc00000 : 0x7ff8000000000000ull;
                store_bits(t, actual.data() + i * w, b);
            }
            DiffOptions options;
            options.worst = 1000;
            const OutputCensus with = census(c, o, actual, options);
            Case without = c;
            without.inputs.clear();
            const OutputCensus lean = census(without, o, actual, options);
            INFO(e.path().string() << " " << o);
            CHECK(census_text(lean) == census_text(with));
            ++compared;
        }
    }
    CHECK(compared >= 20);
    CHECK(reading >= 20);
}

TEST_CASE("diff names the reading a backend follows after freeing the golden's inputs") {
    // RELU(NaN) is +0 under dmlref's ForwardNaN (docs/golden.md); a backend whose NaN propagates
    // returns that NaN. RELU's judging reads no inputs, so diff frees them; the diagnosis of the
    // two misses must read them again to name ForwardNaN=NaNPropagates.
    TempDir dir("readings");
    write_text(dir / "golden.json", R"({"format": 1, "name": "nan", "operator": "DML_OPERATOR_ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}},
        "inputs": {"InputTensor": ["nan", 1, -1, "nan"]},
        "expected": {"OutputTensor": {"Values": [0, 1, 0, 0]}}})");
    Diagnostics d;
    const Case golden = load_case(dir / "golden.json", d);
    REQUIRE_FALSE(d.has_errors());
    REQUIRE_FALSE(judging_reads_inputs(golden, "OutputTensor"));
    const uint32_t nan = 0x7fc00000u;  // "nan" as dmlref reads it (docs/case-format.md)
    REQUIRE(load_bits(DataType::FLOAT32, golden.inputs.at("InputTensor").data()) == nan);
    const std::vector<float> actual = {from_bits<float>(nan), 1.0f, 0.0f, from_bits<float>(nan)};
    std::vector<std::byte> bytes(actual.size() * 4);
    std::memcpy(bytes.data(), actual.data(), bytes.size());
    write_npy(dir / "actual.npy", DataType::FLOAT32, {4}, bytes);
    const CaseDiff r = diff_case(dir / "golden.json", dir / "actual.npy", DiffOptions{});
    REQUIRE(r.errors.empty());
    REQUIRE(r.outputs.size() == 1);
    CHECK(r.outputs[0].over == 2);
    REQUIRE(r.outputs[0].readings.size() == 1);
    CHECK(r.outputs[0].readings[0].first == "ForwardNaN=NaNPropagates");
    CHECK(r.outputs[0].readings[0].second == 2);
}

TEST_CASE("expected values read after evaluating: the same values, the same diagnostics in the same order") {
    TempDir dir("deferred");
    const uint64_t n = 64;
    write_text(dir / "c.json", R"({"format": 1, "name": "c", "operator": "DML_OPERATOR_ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [)" +
                                   std::to_string(n) + R"(]},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": [)" +
                                   std::to_string(n) + R"(]}},
        "inputs": {"InputTensor": {"Random": {"Seed": 7}}}})");
    Diagnostics d;
    const Case c = load_case(dir / "c.json", d);
    REQUIRE_FALSE(d.has_errors());
    write_golden_files(c, run_case(c), dir / "g.json", n - 1);  // the output in a .npy beside it
    LoadOptions deferred;
    deferred.defer_expected_npy = true;

    Diagnostics d1, d2;
    const Case whole = load_case(dir / "g.json", d1);
    Case later = load_case(dir / "g.json", d2, deferred);
    REQUIRE_FALSE(d1.has_errors());
    REQUIRE(later.deferred_expected.size() == 1);
    CHECK(later.expected.at("OutputTensor").values.empty());
    read_deferred_expected(later, d2);
    CHECK(later.deferred_expected.empty());
    CHECK(later.expected.at("OutputTensor").values == whole.expected.at("OutputTensor").values);
    CHECK(d2.items().size() == d1.items().size());

    // A changed .npy, and a second error after the expected output (an unknown policy): the
    // checksum error takes the place reading the file gave it, and the output has no values.
    std::string text;
    {
        std::ifstream f(dir / "g.json", std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    const size_t pol = text.find("\"policies\": {");
    REQUIRE(pol != std::string::npos);
    text.insert(pol + 13, "\"NoSuchPolicy\": \"X\", ");
    write_text(dir / "h.json", text);
    fs::path npy;
    for (const auto& e : fs::directory_iterator(dir.path))
        if (e.path().extension() == ".npy") npy = e.path();
    REQUIRE(!npy.empty());
    std::vector<std::byte> values = whole.expected.at("OutputTensor").values;
    values[0] ^= std::byte{1};
    write_npy(npy, DataType::FLOAT32, {n}, values);
    Diagnostics e1, e2;
    const Case bad_whole = load_case(dir / "h.json", e1);
    Case bad_later = load_case(dir / "h.json", e2, deferred);
    read_deferred_expected(bad_later, e2);
    REQUIRE(e1.items().size() >= 2);
    REQUIRE(e2.items().size() == e1.items().size());
    for (size_t i = 0; i < e1.items().size(); ++i) {
        CHECK(e2.items()[i].path == e1.items()[i].path);
        CHECK(e2.items()[i].rule == e1.items()[i].rule);
        CHECK(e2.items()[i].message == e1.items()[i].message);
    }
    CHECK(e1.items()[0].rule == "expected.npy-checksum");
    CHECK(bad_whole.expected.count("OutputTensor") == 0);
    CHECK(bad_later.expected.count("OutputTensor") == 0);
}

}  // namespace dmlref_test_lean_memory
