// A JSON file read for a case: the document, plus the exact text of every non-integer number
// (by JSON pointer), so that decimals are rounded once from what was written, never through
// a double first. Integers written as -0 are refused: JSON parsers read them as integer 0 and
// the sign would be lost silently.
#pragma once

#include "dmlref/diagnostics.hpp"
#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>
#include <string>
#include <unordered_map>

namespace dmlref {

using json = nlohmann::json;

// Deepest nesting of arrays and objects read (a case needs about 6 levels); deeper is an error,
// json.depth, before anything deep is built.
inline constexpr size_t kMaxJsonDepth = 64;

// An array of scalars (numbers and strings) kept as its tokens, not as one JSON node per value:
// the tensor data of a case (lib/case/json_parse.cpp says which arrays). In the document it stands
// as a binary node whose subtype is its index in JsonDocument::packed_arrays.
struct PackedArray {
    // Integer: a negative integer token. Other: an element after the first that is not a scalar
    // (null, true, false, an object, an array): kept as its kind alone, an error for every reader.
    enum Kind : uint8_t { Unsigned, Integer, Number, String, Other };
    std::string text;            // the tokens' texts (strings unescaped), one after another
    std::vector<uint32_t> ends;  // where each token's text ends in `text`
    std::vector<uint8_t> kinds;
    size_t size() const { return ends.size(); }
    std::string_view text_at(size_t i) const {
        const size_t b = i ? ends[i - 1] : 0;
        return std::string_view(text).substr(b, ends[i] - b);
    }
};

struct JsonDocument {
    json root;
    std::unordered_map<std::string, std::string> number_text;  // pointer -> token text
    std::vector<PackedArray> packed_arrays;

    // The scalar at `pointer` (whose node is `node`) as a ValueToken.
    ValueToken token(const json& node, const std::string& pointer) const;
    // Element i of a packed array as a ValueToken.
    static ValueToken token(const PackedArray& a, size_t i);
    // The packed array `node` stands for, or nullptr when it is an ordinary node.
    const PackedArray* packed(const json& node) const;
};

struct JsonReadOptions {
    // Keep a case's tensor data as packed arrays (/inputs/X, /expected/X/Values,
    // /expected/X/Tolerance/Terms, /expected/X/Boundary/Indices when they hold only scalars).
    bool pack_tensors = false;
    // Called now and then with the bytes read so far (for progress on a terminal).
    std::function<void(size_t done, size_t total)> progress;
};

// Throws CaseError (path "", rule "json.syntax" / "json.negative-zero-integer" / "file.read")
// with the line and column; "json.depth" and "json.duplicate-key" with the JSON pointer.
JsonDocument read_json_file(const std::filesystem::path& file, uint64_t max_file_bytes = uint64_t(1) << 30,
                            const JsonReadOptions& options = {});
JsonDocument parse_json_text(std::string_view text, const JsonReadOptions& options = {});

}  // namespace dmlref
