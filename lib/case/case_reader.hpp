// What the case reader's files share (internal): the Reader, which checks JSON nodes and reports
// with a JSON pointer and a rule id, and the readers of each part of a case.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/json_document.hpp"
#include "dmlref/tolerance.hpp"

#include "dmlref/generate.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"
#include "case/json_writer.hpp"
#include "case/json_values.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <set>

namespace dmlref::case_reader {

namespace fs = std::filesystem;

inline std::string list_text(const std::vector<std::string_view>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + std::string(names[i]);
    return s;
}

// ---- Reading helpers ---------------------------------------------------------------------

struct Reader {
    const JsonDocument& doc;
    Diagnostics& diags;

    // Reports keys of an object that are not in `allowed`.
    void only_keys(const json& node, const std::string& path, const std::vector<std::string_view>& allowed,
                   std::string_view what) {
        for (auto it = node.begin(); it != node.end(); ++it)
            if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
                diags.error(pointer_append(path, it.key()), "case.unknown-key",
                            "\"" + it.key() + "\" is not a field of " + std::string(what) +
                                " (fields: " + list_text(allowed) + ")");
    }

    bool is_object(const json& node, const std::string& path, std::string_view what) {
        if (node.is_object()) return true;
        diags.error(path, "case.type", std::string(what) + " must be a JSON object");
        return false;
    }

    std::optional<uint64_t> unsigned_value(const json& node, const std::string& path, uint64_t max,
                                           std::string_view what) {
        if (node.is_number_unsigned() || (node.is_number_integer() && node.get<int64_t>() >= 0)) {
            const uint64_t v = node.is_number_unsigned() ? node.get<uint64_t>() : uint64_t(node.get<int64_t>());
            if (v <= max) return v;
        }
        diags.error(
            path, "case.uint",
            std::string(what) + " must be an integer from 0 to " + std::to_string(max) + ", got " + node.dump());
        return std::nullopt;
    }

    std::optional<std::vector<uint32_t>> uint_array(const json& node, const std::string& path, std::string_view what) {
        if (!node.is_array()) {
            diags.error(path, "case.type", std::string(what) + " must be an array of unsigned integers");
            return std::nullopt;
        }
        if (node.size() > 64) {
            diags.error(path, "case.array-length",
                        std::string(what) + " has " + std::to_string(node.size()) +
                            " entries; at most 8 dimensions are allowed");
            return std::nullopt;
        }
        std::vector<uint32_t> v;
        bool ok = true;
        for (size_t i = 0; i < node.size(); ++i) {
            auto x = unsigned_value(node[i], pointer_append(path, i), 0xffffffffull,
                                    std::string(what) + "[" + std::to_string(i) + "]");
            if (x) v.push_back(uint32_t(*x));
            else ok = false;
        }
        if (!ok) return std::nullopt;
        return v;
    }

    // One element value of type t at node/path. Inexact decimals warn when `warn_inexact`.
    std::optional<uint64_t> value(DataType t, const json& node, const std::string& path, bool warn_inexact) {
        const ParsedValue p = parse_value(t, doc.token(node, path));
        if (!p.ok) {
            diags.error(path, "value.parse", p.error + " (as " + std::string(name(t)) + ")");
            return std::nullopt;
        }
        if (p.inexact && warn_inexact)
            diags.warning(path, "value.inexact",
                          doc.token(node, path).text + " is not exactly representable in " + std::string(name(t)) +
                              "; rounded to nearest-even, " + display_value(t, p.bits) + " (" + hex_bits(t, p.bits) +
                              ")");
        return p.bits;
    }

    // Arrays of tensor data may be packed (JsonDocument::packed) or ordinary arrays.
    bool is_array(const json& node) const { return node.is_array() || doc.packed(node); }
    size_t array_size(const json& node) const {
        const PackedArray* a = doc.packed(node);
        return a ? a->size() : node.size();
    }
    // Every element of the array at node/path as a value of type t, stored at out + i * width;
    // false after reporting the elements that are not values of t.
    bool values(DataType t, const json& node, const std::string& path, bool warn_inexact, std::byte* out);
    // Element i of the array as an unsigned integer up to `max` (Terms, Indices).
    std::optional<uint64_t> unsigned_at(const json& node, size_t i, const std::string& path, uint64_t max,
                                        std::string_view what);
};

// /desc: the operator's desc struct, field by field (lib/case/case_read_desc.cpp). False on an error.
bool read_desc(Reader& r, Operator& op, const json& node);
// Keeps the author's notation of the desc's non-tensor fields in c.desc_notation (no field whose
// decimal was rounded, judged by the value.inexact warnings from `diags_before` on).
void record_desc_notation(Reader& r, Case& c, const json& node, size_t diags_before);
// One entry of /inputs (lib/case/case_read_values.cpp).
void read_input(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path,
                const fs::path& base_dir, const LoadOptions& options);
// One entry of /expected (lib/case/case_read_values.cpp).
void read_expected(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path,
                   const fs::path& base_dir, const LoadOptions& options);
// Whether the .npy file `name` (at `path`, read from `base_dir`) stays inside the case's folder
// tree (or paths are allowed); reports `rule` when not.
bool npy_path_ok(Reader& r, const std::string& name, const std::string& path, const fs::path& base_dir,
                 const LoadOptions& options, const char* rule);

}  // namespace dmlref::case_reader
