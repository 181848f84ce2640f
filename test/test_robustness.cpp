// The library's own defences: saturating size arithmetic, strict JSON (depth,
// duplicate keys), .npy shapes past 2^64 bytes, escaped text, and the atomic writer. The command
// line's side is test/robustness.sh.
#include "support.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/checked.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/printable.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_robustness {

using namespace dmlref;
using namespace dmlref::test;
namespace fs = std::filesystem;

namespace {

std::string first_rule(const std::string& text) {
    try {
        parse_json_text(text);
    } catch (const CaseError& e) {
        return e.diagnostics().items().front().rule + " at " + e.diagnostics().items().front().path;
    }
    return "none";
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("buffer sizes past 2^64 saturate instead of wrapping") {
    // Hand derivation: (2^30 + 1 - 1) * 2^31 = 2^61 is the last element; (2^61 + 1) * 8 bytes is
    // 2^64 + 8, which wraps to 8 in 64-bit arithmetic.
    TensorDesc d = desc(DataType::FLOAT64, {(1u << 30) + 1}, {1u << 31});
    CHECK(index_of_last_element(d) == uint64_t(1) << 61);
    CHECK(calc_buffer_tensor_size(d) == kSaturated);
    Diagnostics diags;
    validate_tensor_desc(d, TensorRole::Input, "/desc/InputTensor", kSaturated, diags);
    REQUIRE(diags.has_errors());
    CHECK(diags.items().front().rule == "tensor.size-overflow");
    CHECK(saturating_mul(uint64_t(1) << 32, uint64_t(1) << 32) == kSaturated);
    CHECK(saturating_mul(uint64_t(1) << 31, uint64_t(1) << 32) == uint64_t(1) << 63);
    CHECK(saturating_add(kSaturated - 1, 1) == kSaturated);
    CHECK(saturating_add(kSaturated, 1) == kSaturated);
}

TEST_CASE("a TotalTensorSizeInBytes below the minimum stops validation before the overlap check") {
    // Interleaved output strides with a last element at 2^61: the overlap check would need 2^61 bits.
    TensorDesc d = desc(DataType::UINT8, {3, 2, 1u << 20}, {2, 3, 1u << 31});
    d.TotalTensorSizeInBytes = 16;
    Diagnostics diags;
    validate_tensor_desc(d, TensorRole::Output, "/desc/OutputTensor", uint64_t(1) << 20, diags);
    REQUIRE(diags.has_errors());
    CHECK(diags.items().front().rule == "tensor.total-size");
}

TEST_CASE("strict JSON: depth limit and duplicate keys, with the JSON pointer") {
    const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    CHECK(first_rule(deep).rfind("json.depth at /a/0/0", 0) == 0);
    // kMaxJsonDepth levels are fine, one more is not.
    CHECK(first_rule(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')) == "none");
    CHECK(
        first_rule(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')).rfind("json.depth", 0) ==
        0);
    CHECK(first_rule(R"({"x": {"k": 1, "k": 2}})") == "json.duplicate-key at /x/k");
    CHECK(first_rule(R"({"k": 1, "K": 2, "x": [{"k": 1}, {"k": 2}]})") == "none");
}

TEST_CASE(".npy shapes whose size passes 2^64 bytes are refused, whatever the limit") {
    // 2^32 * 2^32 elements wraps to 0 in 64 bits: the header would describe an empty array.
    std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }";
    h += std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
    std::string f = std::string("\x93NUMPY\x01\x00", 8) + char(h.size() & 0xff) + char(h.size() >> 8) + h;
    CHECK_THROWS_AS(parse_npy(f, kSaturated), NpyError);
}

TEST_CASE("printable escapes control characters, C1 controls and bytes that are not UTF-8") {
    CHECK(printable("plain name") == "plain name");
    CHECK(printable("a\nb\tc\x1b[2K") == "a\\nb\\tc\\x1b[2K");
    CHECK(printable("\xff\xfe") == "\\xff\\xfe");
    CHECK(printable("\xc2\x9b") == "\\u009b");                                   // CSI as a C1 control
    CHECK(printable("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // é and € stay
    CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");                       // a UTF-16 surrogate is not UTF-8
    CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");                                // an overlong '/'
    CHECK(is_utf8("caf\xc3\xa9"));
    CHECK_FALSE(is_utf8("caf\xe9"));
}

TEST_CASE("the atomic writer replaces files whole and never writes through a link") {
    const fs::path dir = fs::temp_directory_path() / ("dmlref-atomic-test-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_file_atomic(dir / "a.txt", "old");
    write_file_atomic(dir / "a.txt", "new contents");
    CHECK(slurp(dir / "a.txt") == "new contents");
    // A link: refused, its target untouched.
    write_file_atomic(dir / "target.txt", "target");
    fs::create_symlink(dir / "target.txt", dir / "link.txt");
    try {
        write_file_atomic(dir / "link.txt", "through");
        FAIL("wrote through a link");
    } catch (const WriteError& e) {
        CHECK(e.rule() == "file.not-regular");
    }
    CHECK(slurp(dir / "target.txt") == "target");
    // A folder in the way, or a folder that does not exist: an error, nothing left behind.
    fs::create_directories(dir / "sub.txt");
    CHECK_THROWS_AS(write_file_atomic(dir / "sub.txt", "x"), WriteError);
    CHECK_THROWS_AS(write_file_atomic(dir / "missing" / "x.txt", "x"), WriteError);
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir))
        files += e.path().filename().string().find(".tmp-") != std::string::npos;
    CHECK(files == 0);
    fs::remove_all(dir);
}

TEST_CASE(".npy with a 0 in its shape reads as an empty array (found by fuzz_npy: memcpy from null)") {
    std::string h = "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 0, 2), }";
    h += std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
    const std::string f = std::string("\x93NUMPY\x01\x00", 8) + char(h.size() & 0xff) + char(h.size() >> 8) + h;
    const NpyArray a = parse_npy(f, 1 << 20);
    CHECK(a.data.empty());
    CHECK(a.shape == std::vector<uint64_t>{1, 0, 2});
}

TEST_CASE("limit.work counts the all-padding DontCare entries the pooling operators list, without listing them") {
    // For every small pooling geometry: work_estimate is (input + output elements) x window, plus
    // 128 per entry of the operator's own DontCare lists (docs/rules.md, limit.work). The entries
    // are counted here by the operators' own enumeration (dont_care), window by window.
    size_t with_empty = 0, checked = 0;
    for (uint32_t in = 1; in <= 4; ++in)
        for (uint32_t window = 1; window <= 3; ++window)
            for (uint32_t stride = 1; stride <= 3; ++stride)
                for (uint32_t dilation = 1; dilation <= 3; ++dilation)
                    for (uint32_t start = 0; start <= 5; ++start)
                        for (uint32_t end = 0; end <= 5; ++end) {
                            const uint64_t span = 1 + uint64_t(window - 1) * dilation,
                                           padded = uint64_t(in) + start + end;
                            if (span > padded) continue;
                            const uint32_t out = uint32_t((padded - span) / stride + 1);
                            // 2-D: the geometry along the last axis, a fixed one (in 3, window 2,
                            // start 1) along the first.
                            const TensorDesc X = desc(DataType::FLOAT32, {2, 1, 3, in}),
                                             Y = desc(DataType::FLOAT32, {2, 1, 4, out});
                            DML_MAX_POOLING2_OPERATOR_DESC m{
                                X,          Y,           desc(DataType::UINT32, {2, 1, 4, out}),
                                2,          {1, stride}, {2, window},
                                {1, start}, {1, end},    {1, dilation}};
                            const Operator mp{OperatorType::MAX_POOLING2, m};
                            if (validate(mp).has_errors()) continue;
                            const uint64_t base = (product(X.Sizes) + 2 * product(Y.Sizes)) * 2 * window;
                            const uint64_t listed = dont_care(mp, "OutputTensor").size() +
                                                    dont_care(mp, "OutputIndicesTensor").size();
                            CHECK(work_estimate(mp) == base + 128 * listed);
                            m.OutputIndicesTensor.reset();
                            const Operator mp_plain{OperatorType::MAX_POOLING2, m};
                            CHECK(work_estimate(mp_plain) == (product(X.Sizes) + product(Y.Sizes)) * 2 * window +
                                                                 128 * dont_care(mp_plain, "OutputTensor").size());
                            for (uint32_t include : {0u, 1u}) {
                                const DML_AVERAGE_POOLING1_OPERATOR_DESC a{
                                    X, Y, 2, {1, stride}, {2, window}, {1, start}, {1, end}, {1, dilation}, include};
                                const Operator ap{OperatorType::AVERAGE_POOLING1, a};
                                REQUIRE_FALSE(validate(ap).has_errors());
                                // And its rounding cost: 150 an output element and 12 a tap (docs/rules.md).
                                CHECK(work_estimate(ap) == (product(X.Sizes) + product(Y.Sizes)) * 2 * window +
                                                               product(Y.Sizes) * (150 + 12 * 2 * window) +
                                                               128 * dont_care(ap, "OutputTensor").size());
                            }
                            with_empty += listed > 0;
                            ++checked;
                        }
    CHECK(checked > 500);
    CHECK(with_empty > 100);  // the geometries do hold all-padding windows
}

}  // namespace dmlref_test_robustness
