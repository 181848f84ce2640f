// Helpers for the doctest suite: build descs and buffers in memory, run an operator, read
// values back, compare bits. Expected values in tests come from the spec pages, hand
// derivation or an independent computation written in the test, never from dmlref itself.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/descs/activation.hpp"
#include "dmlref/descs/average_pooling.hpp"
#include "dmlref/descs/batch_normalization.hpp"
#include "dmlref/descs/element_wise_clip.hpp"
#include "dmlref/descs/local_response_normalization.hpp"
#include "dmlref/descs/max_pooling.hpp"
#include "dmlref/descs/resample.hpp"
#include "dmlref/descs/roi_align.hpp"
#include "dmlref/descs/slice.hpp"
#include "dmlref/json_document.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/tolerance.hpp"
#include "dmlref/values.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace dmlref::test {

// All eleven storage types, for TEST_CASE_TEMPLATE.
#define DMLREF_ALL_TYPES \
    float, dmlref::half, double, uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t

inline TensorDesc desc(DataType t, std::vector<uint32_t> sizes, std::vector<uint32_t> strides = {}) {
    TensorDesc d;
    d.DataType = t;
    d.Sizes = std::move(sizes);
    d.Strides = std::move(strides);
    return d;
}

// A buffer for `d` (buffer_size bytes) holding `values` at the first elements, in memory order.
template <class T> std::vector<std::byte> buffer(const TensorDesc& d, const std::vector<T>& values) {
    std::vector<std::byte> b(buffer_size(d));
    REQUIRE(values.size() * sizeof(T) <= b.size());
    std::memcpy(b.data(), static_cast<const void*>(values.data()), values.size() * sizeof(T));
    return b;
}
// A buffer for `d` with `values` at the logical elements (row-major), every other byte `fill`.
template <class T>
std::vector<std::byte> logical_buffer(const TensorDesc& d, const std::vector<T>& values,
                                      std::byte fill = std::byte{0}) {
    std::vector<std::byte> b(buffer_size(d), fill);
    const auto strides = effective_strides(d);
    const auto packed = packed_strides(d.Sizes);
    REQUIRE(values.size() == element_count(d));
    for_each_run<2>(d.Sizes, {strides.data(), packed.data()}, {0, 0},
                    [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < n; ++i)
            std::memcpy(b.data() + (off[0] + i * step[0]) * sizeof(T),
                        static_cast<const void*>(&values[size_t(off[1] + i * step[1])]), sizeof(T));
    });
    return b;
}

template <class T> std::vector<T> as_values(const std::vector<std::byte>& bytes) {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(static_cast<void*>(v.data()), bytes.data(), v.size() * sizeof(T));
    return v;
}

// Runs `op` on input buffers by field name; returns each output's logical elements, packed.
inline std::map<std::string, std::vector<std::byte>> run(const Operator& op,
                                                         std::map<std::string, std::vector<std::byte>> inputs) {
    Diagnostics d = validate(op);
    for (const auto& item : d.items()) INFO(format(item, "<test>"));
    REQUIRE_FALSE(d.has_errors());
    Case c;
    c.op = op;
    c.inputs = std::move(inputs);
    return run_case(c).values;
}

// The case with its golden (dmlref's evaluation) as the expected output, as `dmlref run -o` writes it.
inline Case with_golden(Case c, const std::string& output) {
    auto out = run_case(c);
    ExpectedOutput& e = c.expected[output];
    e.values = out.values.at(output);
    e.tolerance = stated_tolerance(c, output);
    return c;
}

// Compares bit patterns (so NaN payloads and -0 count), reporting the first differing index.
template <class T> void check_bits(const std::vector<T>& actual, const std::vector<T>& expected) {
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        INFO("element " << i << ": actual " << hex_bits(data_type_of<T>(), to_bits(actual[i])) << ", expected "
                        << hex_bits(data_type_of<T>(), to_bits(expected[i])));
        CHECK(to_bits(actual[i]) == to_bits(expected[i]));
    }
}

// Parses a case from JSON text (as if read from `file`), returning its diagnostics.
inline Diagnostics diagnose(const std::string& text, const std::string& file = "test.json") {
    Diagnostics d;
    try {
        JsonDocument doc = parse_json_text(text);
        parse_case(doc, file, d);
    } catch (const CaseError& e) {
        d = e.diagnostics();
    }
    return d;
}

// Parses a case from JSON text (as if read from `file`), requiring that it has no error.
inline Case parse_valid(const std::string& text, const std::string& file = "golden.json") {
    Diagnostics d;
    Case c = parse_case(parse_json_text(text), file, d);
    for (const auto& item : d.items()) INFO(format(item, file));
    REQUIRE_FALSE(d.has_errors());
    return c;
}

// A RELU golden: OutputTensor of `type` and `sizes` with `values` (JSON text of the list), the
// tolerance and DontCare given as JSON text, and optional output Strides.
inline std::string relu_golden(const std::string& type, const std::string& sizes, const std::string& values,
                               const std::string& tolerance = R"({"Kind": "Bits", "Why": "test"})",
                               const std::string& dont_care = "", const std::string& output_strides = "") {
    return R"({"format": 1, "name": "t", "operator": "ACTIVATION_RELU",
        "desc": {"InputTensor": {"DataType": ")" +
           type + R"(", "Sizes": )" + sizes + R"(},
                 "OutputTensor": {"DataType": ")" +
           type + R"(", "Sizes": )" + sizes + (output_strides.empty() ? "" : ", \"Strides\": " + output_strides) +
           R"(}},
        "inputs": {"InputTensor": {"Fill": 0}},
        "expected": {"OutputTensor": {"Values": )" +
           values + R"(, "Tolerance": )" + tolerance + (dont_care.empty() ? "" : ", \"DontCare\": " + dont_care) +
           "}}}";
}

// The formatted first error (file, path, message, rule), or "" when there is none.
inline std::string first_error(const Diagnostics& d, const std::string& file = "test.json") {
    for (const auto& item : d.items())
        if (item.severity == Severity::Error) return format(item, file);
    return "";
}

// Whether validating `op` reports an error with this rule id at this JSON path.
inline bool has_error(const Operator& op, const std::string& rule, const std::string& path) {
    const Diagnostics d = validate(op);
    for (const auto& item : d.items()) {
        INFO(format(item, "<test>"));
        if (item.severity == Severity::Error && item.rule == rule && item.path == path) return true;
    }
    return false;
}

template <class T> T value_of(double v) {
    if constexpr (is_half_v<T>) return half_from_double(v);
    else return static_cast<T>(v);
}
template <class T> std::vector<T> values_of(std::initializer_list<double> v) {
    std::vector<T> r;
    for (double x : v) r.push_back(value_of<T>(x));
    return r;
}

// Row-major index arithmetic for the naive references in the tests.
inline uint64_t product(const std::vector<uint32_t>& s) {
    uint64_t p = 1;
    for (auto v : s) p *= v;
    return p;
}
inline std::vector<uint32_t> unflatten(uint64_t i, const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> c(sizes.size());
    for (size_t d = sizes.size(); d-- > 0;) {
        c[d] = uint32_t(i % sizes[d]);
        i /= sizes[d];
    }
    return c;
}
inline uint64_t flatten(const std::vector<uint32_t>& c, const std::vector<uint32_t>& sizes) {
    uint64_t i = 0;
    for (size_t d = 0; d < sizes.size(); ++d) i = i * sizes[d] + c[d];
    return i;
}

// A scratch folder, temp/dmlref-NAME, emptied when made and removed with the object.
struct Dir {
    std::filesystem::path path;
    // Named by the process too: two test runs at once (two build trees) must not share a folder.
    explicit Dir(const std::string& name)
        : path(std::filesystem::temp_directory_path() / ("dmlref-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~Dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;
    std::filesystem::path operator/(const std::string& s) const { return path / s; }
};

// Writes a file, making its folder first.
inline void write_text(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}
inline void write_bytes(const std::filesystem::path& file, const std::vector<std::byte>& b) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

}  // namespace dmlref::test
