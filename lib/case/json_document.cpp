// A JSON document read for a case (the parser is lib/case/json_parse.cpp): reading the file, and the
// scalars of the tree and of its packed arrays as ValueTokens.
#include "dmlref/json_document.hpp"

#include "case_fail.hpp"

#include <charconv>
#include <cstdio>
#include <memory>

namespace dmlref {

namespace {

using case_detail::fail;

}  // namespace

JsonDocument read_json_file(const std::filesystem::path& file, uint64_t max_file_bytes,
                            const JsonReadOptions& options) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        fail("file.read", "cannot read the file: it does not exist or is not a regular file");
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) fail("file.read", "cannot read the file: " + ec.message());
    if (size > max_file_bytes)
        fail("limit.file-bytes", "the file has " + std::to_string(size) + " bytes, over the limit of " +
                                     std::to_string(max_file_bytes) +
                                     " for a case file (put large tensors in .npy files)");
    // One read into one buffer (no stream copies).
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(file.c_str(), "rb"), &std::fclose);
    if (!f) fail("file.read", "cannot open the file");
    std::string text(size, '\0');
    const size_t got = size ? std::fread(text.data(), 1, size, f.get()) : 0;
    if (got != size || std::ferror(f.get()))
        fail("file.read", "cannot read the file (it changed while it was read, or a read failed)");
    return parse_json_text(text, options);
}

ValueToken JsonDocument::token(const json& node, const std::string& pointer) const {
    ValueToken t;
    if (node.is_number_unsigned()) {
        t.kind = ValueToken::Kind::Unsigned;
        t.unsigned_ = node.get<uint64_t>();
    } else if (node.is_number_integer()) {
        t.kind = ValueToken::Kind::Integer;
        t.integer = node.get<int64_t>();
    } else if (node.is_number_float()) {
        t.kind = ValueToken::Kind::Number;
        auto it = number_text.find(pointer);
        // Documents built in memory (not read from text) have no recorded text: use the double.
        if (it != number_text.end()) t.text = it->second;
        else {
            t.text = json(node).dump();
        }
    } else if (node.is_string()) {
        t.kind = ValueToken::Kind::String;
        t.text = node.get<std::string>();
    }
    return t;
}

ValueToken JsonDocument::token(const PackedArray& a, size_t i) {
    ValueToken t;
    const std::string_view s = a.text_at(i);
    switch (a.kinds[i]) {
        case PackedArray::Unsigned:
            t.kind = ValueToken::Kind::Unsigned;
            std::from_chars(s.data(), s.data() + s.size(), t.unsigned_);
            break;
        case PackedArray::Integer:
            t.kind = ValueToken::Kind::Integer;
            std::from_chars(s.data(), s.data() + s.size(), t.integer);
            break;
        case PackedArray::Number:
            t.kind = ValueToken::Kind::Number;
            t.text = std::string(s);
            break;
        case PackedArray::Other:
            t.kind = ValueToken::Kind::Other;
            t.text = std::string(s);
            break;
        default:
            t.kind = ValueToken::Kind::String;
            t.text = std::string(s);
            break;
    }
    return t;
}

const PackedArray* JsonDocument::packed(const json& node) const {
    if (!node.is_binary() || !node.get_binary().has_subtype()) return nullptr;
    const uint64_t k = node.get_binary().subtype();
    return k < packed_arrays.size() ? &packed_arrays[k] : nullptr;
}

}  // namespace dmlref
