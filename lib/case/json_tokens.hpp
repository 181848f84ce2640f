// A JSON document read by parse_json_text as an ordered_json for writing, each non-integer number
// kept as the text it was written with (JsonDocument::number_text). Internal to dmlref.
#pragma once

#include "dmlref/json_document.hpp"
#include "case/json_writer.hpp"

namespace dmlref {

// J is ordered_json (for writing) or json (to keep in a Case); strings become escaped raw tokens.
template <class J = ordered_json>
J with_number_text(const JsonDocument& doc, const json& node, const std::string& ptr = "") {
    if (node.is_object()) {
        J o = J::object();
        for (auto it = node.begin(); it != node.end(); ++it)
            o[it.key()] = with_number_text<J>(doc, it.value(), pointer_append(ptr, it.key()));
        return o;
    }
    if (node.is_array()) {
        J a = J::array();
        for (size_t i = 0; i < node.size(); ++i) a.push_back(with_number_text<J>(doc, node[i], pointer_append(ptr, i)));
        return a;
    }
    if (node.is_number_float()) return J(json_raw(doc.token(node, ptr).text));
    if (node.is_string()) return J(json_text(node.get<std::string>()));
    return J::parse(node.dump());
}

}  // namespace dmlref
