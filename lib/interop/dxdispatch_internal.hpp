// What lib/interop/dxdispatch_*.cpp share: DxDispatch's reading of JSON text, elements and resources.
// Internal to dmlref.
#pragma once

#include "dmlref/dxdispatch.hpp"
#include "dmlref/json_document.hpp"
#include "case/json_writer.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dmlref::dxdispatch_detail {

// Comments and trailing commas (which DxDispatch's reader allows) replaced by spaces.
std::string strip_comments_and_trailing_commas(std::string s);
bool iequals(std::string_view a, std::string_view b);
// The node as case-file JSON, float tokens kept as written.
ordered_json with_tokens(const JsonDocument& doc, const json& node, const std::string& ptr);

// One resource as DxDispatch lays it out in memory (ParseModelBufferDesc), with how it was written.
struct Resource {
    DataType type = DataType::UNKNOWN;
    std::vector<std::byte> bytes;  // sizeInBytes (default: the values, rounded up to 4 bytes)
    uint64_t values_offset = 0;    // initialValuesOffsetInBytes
    enum class Kind { Array, Constant, Sequence, File } kind = Kind::Array;
    std::vector<ordered_json> element_spelling;  // Array: the case-file spelling of each element
    ordered_json fill, start, step;              // Constant / Sequence spellings
    uint64_t count = 0;                          // elements the initializer wrote
    uint64_t first_bits = 0, step_bits = 0;
};

// Reads resource `r` (at JSON pointer `ptr`); errors go to `diags`. `respelled` counts decimals
// that DxDispatch (through a double) and dmlref (once) round to different bits. A sourcePath is
// read only inside `model_dir`'s tree unless `allow_paths` (dxdispatch.source-path).
std::optional<Resource> read_resource(const JsonDocument& doc, const json& r, const std::string& ptr,
                                      const std::filesystem::path& model_dir, uint64_t max_bytes, bool allow_paths,
                                      Diagnostics& diags, size_t& respelled);

// The case file's spelling of the input buffer `d` bound at byte `offset` of `res`.
ordered_json input_spelling(const Resource& res, uint64_t offset, const TensorDesc& d);

}  // namespace dmlref::dxdispatch_detail
