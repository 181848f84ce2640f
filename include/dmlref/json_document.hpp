// A JSON file read for a case: the document, plus the exact text of every non-integer number
// (by JSON pointer), so that decimals are rounded once from what was written, never through
// a double first. Integers written as -0 are refused: JSON parsers read them as integer 0 and
// the sign would be lost silently.
#pragma once

#include "dmlref/diagnostics.hpp"
#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <unordered_map>

namespace dmlref {

using json = nlohmann::json;

// Deepest nesting of arrays and objects read (a case needs about 6 levels); deeper is an error,
// json.depth, before anything deep is built.
inline constexpr size_t kMaxJsonDepth = 64;

struct JsonDocument {
    json root;
    std::unordered_map<std::string, std::string> number_text;  // pointer -> token text

    // The scalar at `pointer` (whose node is `node`) as a ValueToken.
    ValueToken token(const json& node, const std::string& pointer) const;
};

// Throws CaseError (path "", rule "json.syntax" / "json.negative-zero-integer" / "file.read")
// with the line and column; "json.depth" and "json.duplicate-key" with the JSON pointer.
JsonDocument read_json_file(const std::filesystem::path& file, uint64_t max_file_bytes = uint64_t(1) << 30);
JsonDocument parse_json_text(const std::string& text);

}  // namespace dmlref
