// Writing case files: nlohmann's ordered_json as the tree (fields stay in the order dmlref puts
// them), with numbers kept as their exact text. A number whose text dmlref chose (the shortest
// decimal that reads back to the same bits) is stored as a string starting with '\x1f' and
// written without quotes. Arrays of scalars are written on as few lines as fit in 100 columns,
// so a tensor reads as rows, not one value per line. Internal to dmlref.
#pragma once

#include "dmlref/types.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstring>
#include <span>
#include <string>

namespace dmlref {

using ordered_json = nlohmann::ordered_json;

// A JSON value that writes `text` verbatim (a number token, or an already quoted string).
inline std::string json_raw(const std::string& text) { return "\x1f" + text; }

// A string from a case (a name, a reason), written as its own escaped JSON token, so that no
// text a user wrote can be taken for the raw marker.
inline std::string json_text(const std::string& s) { return json_raw(nlohmann::json(s).dump()); }

// An array of scalars given as their JSON texts joined by '\0' (tensor data: one node, not one
// per value); written exactly as the array of those raw tokens would be.
inline constexpr uint64_t kJsonTokenList = 0x746f6b656e73;  // "tokens"
template <class J = ordered_json> J json_tokens(std::string joined) {
    return J::binary(typename J::binary_t::container_type(joined.begin(), joined.end()), kJsonTokenList);
}

// Tensor values as their packed element bytes, written as the array of their format_value texts
// (lib/case/json_values.hpp) while the text is laid out: no token is built or stored first. The node
// refers to `values` (type, address, length), which must outlive every dump of it.
inline constexpr uint64_t kJsonValueView = 0x76616c756573;  // "values"
inline ordered_json json_value_view(DataType t, std::span<const std::byte> values) {
    ordered_json::binary_t::container_type b(1 + 2 * sizeof(uint64_t));
    b[0] = uint8_t(t);
    const uint64_t address = uint64_t(reinterpret_cast<uintptr_t>(values.data())), size = values.size();
    std::memcpy(b.data() + 1, &address, sizeof address);
    std::memcpy(b.data() + 1 + sizeof address, &size, sizeof size);
    return ordered_json::binary(std::move(b), kJsonValueView);
}

// Deterministic text: two-space indent, trailing newline.
std::string dump_json(const ordered_json& j);

}  // namespace dmlref
