// DxDispatch's resources read as DxDispatch reads them (docs/dxdispatch.md cites its JsonParsers.cpp):
// elements, constant and sequence initializers, files; and how a case file spells them.
#include "interop/dxdispatch_internal.hpp"
#include "case/json_tokens.hpp"
#include "case/path_inside.hpp"

#include "dmlref/json_document.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/values.hpp"
#include "case/json_writer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace dmlref {

namespace fs = std::filesystem;

namespace dxdispatch_detail {

// DxDispatch parses with comments and trailing commas allowed (rapidjson kParseCommentsFlag |
// kParseTrailingCommasFlag). Both become spaces here, so line and column stay where they were.
std::string strip_comments_and_trailing_commas(std::string s) {
    bool in_string = false;
    size_t last_comma = std::string::npos;  // a comma not yet followed by a value
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            for (; i < s.size() && s[i] != '\n'; ++i) s[i] = ' ';
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            const size_t end = s.find("*/", i + 2);
            const size_t stop = end == std::string::npos ? s.size() : end + 2;
            for (; i < stop; ++i)
                if (s[i] != '\n') s[i] = ' ';
            --i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if ((c == '}' || c == ']') && last_comma != std::string::npos) s[last_comma] = ' ';
        last_comma = c == ',' ? i : std::string::npos;
        if (c == '"') in_string = true;
    }
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

ordered_json with_tokens(const JsonDocument& doc, const json& node, const std::string& ptr) {
    return with_number_text(doc, node, ptr);
}

// One element as DxDispatch reads it (JsonParsers.cpp): floats from a JSON number through a double
// (then to float, then to half), or "nan" / "inf" / "-inf" in any case; integers from JSON integers
// inside the type's range. Returns the bits, or sets `error`.
std::optional<uint64_t> dx_element(DataType t, const JsonDocument& doc, const json& node, const std::string& ptr,
                                   std::string& error) {
    if (is_float(t)) {
        double d;
        if (node.is_number()) {
            const ValueToken tok = doc.token(node, ptr);
            d = node.is_number_float() ? std::strtod(tok.text.c_str(), nullptr) : node.get<double>();
        } else if (node.is_string()) {
            const std::string s = node.get<std::string>();
            if (iequals(s, "nan")) d = std::numeric_limits<double>::quiet_NaN();
            else if (iequals(s, "inf")) d = std::numeric_limits<double>::infinity();
            else if (iequals(s, "-inf")) d = -std::numeric_limits<double>::infinity();
            else {
                error = "\"" + s + "\" is not a value DxDispatch reads: it expects a number or 'NaN', 'Inf', '-Inf'";
                return std::nullopt;
            }
        } else {
            error = "DxDispatch expects a number or 'NaN', 'Inf', '-Inf' here";
            return std::nullopt;
        }
        if (t == DataType::FLOAT64) return uint64_t(to_bits(d));
        const float f = static_cast<float>(d);  // DxDispatch: static_cast<float>(GetDouble())
        if (t == DataType::FLOAT32) return uint64_t(to_bits(f));
        return uint64_t(to_bits(half_from_double(double(f))));  // half_float::half(float), nearest-even
    }
    if (!node.is_number_integer()) {
        error = "DxDispatch reads " + std::string(name(t)) + " elements from JSON integers only";
        return std::nullopt;
    }
    return dispatch(t, [&]<class T>() -> std::optional<uint64_t> {
        if constexpr (std::is_integral_v<T>) {
            const bool fits = node.is_number_unsigned()
                                  ? node.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max())
                                  : std::is_signed_v<T> &&
                                        node.get<int64_t>() >= int64_t(std::numeric_limits<T>::min()) &&
                                        node.get<int64_t>() <= int64_t(std::numeric_limits<T>::max());
            if (!fits) {
                error = node.dump() + " is outside the range of " + std::string(name(t));
                return std::nullopt;
            }
            const T v = node.is_number_unsigned() ? T(node.get<uint64_t>()) : T(node.get<int64_t>());
            return uint64_t(to_bits(v));
        }
        return std::nullopt;
    });
}

// How the case file spells an element DxDispatch read as `bits` from `node`: the token as written
// when dmlref reads it to the same bits, else the exact bits (counted in `respelled`).
ordered_json spelling(DataType t, const JsonDocument& doc, const json& node, const std::string& ptr, uint64_t bits,
                      size_t& respelled) {
    if (node.is_number()) {
        const ParsedValue p = parse_value(t, doc.token(node, ptr));
        if (p.ok && p.bits == bits)
            return node.is_number_float() ? ordered_json(json_raw(doc.token(node, ptr).text))
                                          : ordered_json::parse(node.dump());
        ++respelled;
    }
    return json_raw(format_exact_value(t, bits));
}

uint64_t add_bits(DataType t, uint64_t a, uint64_t b) {  // value += valueDelta, in the element type
    return dispatch(t, [&]<class T>() -> uint64_t {
        const T x = from_bits<T>(bits_t<T>(a)), y = from_bits<T>(bits_t<T>(b));
        if constexpr (is_half_v<T>)
            return to_bits(half_from_double(half_to_double(x) + half_to_double(y)));  // exact sum, rounded once
        else if constexpr (std::is_floating_point_v<T>) return uint64_t(to_bits(T(x + y)));
        else return uint64_t(to_bits(T(std::make_unsigned_t<T>(x) + std::make_unsigned_t<T>(y))));  // wraps
    });
}

std::optional<Resource> read_resource(const JsonDocument& doc, const json& r, const std::string& ptr,
                                      const fs::path& model_dir, uint64_t max_bytes, bool allow_paths,
                                      Diagnostics& diags, size_t& respelled) {
    if (!r.is_object()) {
        diags.error(ptr, "dxdispatch.resource", "a resource must be an object");
        return std::nullopt;
    }
    Resource res;
    if (r.contains("type") && !(r["type"].is_string() && iequals(r["type"].get<std::string>(), "buffer"))) {
        diags.error(pointer_append(ptr, "type"), "dxdispatch.resource", "only buffer resources are read");
        return std::nullopt;
    }
    if (r.contains("initialValuesDataType")) {
        const json& t = r["initialValuesDataType"];
        auto dt = t.is_string() ? parse_data_type(t.get<std::string>()) : std::nullopt;
        if (!dt) {
            diags.error(pointer_append(ptr, "initialValuesDataType"), "dxdispatch.resource",
                        "not a DML_TENSOR_DATA_TYPE");
            return std::nullopt;
        }
        res.type = *dt;
    }
    const std::string vptr = pointer_append(ptr, "initialValues");
    if (!r.contains("initialValues")) {
        diags.error(ptr, "dxdispatch.resource", "the resource has no initialValues");
        return std::nullopt;
    }
    const json& iv = r["initialValues"];
    auto need_type = [&] {
        if (res.type != DataType::UNKNOWN) return true;
        diags.error(ptr, "dxdispatch.resource",
                    "initialValuesDataType is needed for these initialValues (dmlref reads typed buffers only)");
        return false;
    };
    std::vector<std::byte> values;
    std::string error;
    auto element = [&](const json& node, const std::string& p) -> std::optional<uint64_t> {
        auto b = dx_element(res.type, doc, node, p, error);
        if (!b) diags.error(p, "dxdispatch.value", error);
        return b;
    };
    auto too_big = [&](uint64_t n) {
        if (n <= max_bytes) return false;
        diags.error(ptr, "limit.buffer-bytes",
                    std::to_string(n) + " bytes, over the limit of " + std::to_string(max_bytes));
        return true;
    };
    if (iv.is_array()) {
        if (!need_type()) return std::nullopt;
        const size_t w = element_size(res.type);
        if (iv.empty() || too_big(iv.size() * w)) {
            if (iv.empty()) diags.error(vptr, "dxdispatch.resource", "initialValues must be non-empty");
            return std::nullopt;
        }
        values.resize(iv.size() * w);
        for (size_t i = 0; i < iv.size(); ++i) {
            const std::string p = pointer_append(vptr, i);
            auto b = element(iv[i], p);
            if (!b) return std::nullopt;
            store_bits(res.type, values.data() + i * w, *b);
            res.element_spelling.push_back(spelling(res.type, doc, iv[i], p, *b, respelled));
        }
        res.count = iv.size();
    } else if (iv.is_object() && (iv.contains("value") || iv.contains("valueStart"))) {
        if (!need_type()) return std::nullopt;
        const bool constant = iv.contains("value");
        res.kind = constant ? Resource::Kind::Constant : Resource::Kind::Sequence;
        if (!iv.contains("valueCount") || !iv["valueCount"].is_number_unsigned() ||
            iv["valueCount"].get<uint64_t>() == 0 || iv["valueCount"].get<uint64_t>() > 0xffffffffull) {
            diags.error(vptr, "dxdispatch.resource", "valueCount must be an integer from 1 to 4294967295");
            return std::nullopt;
        }
        res.count = iv["valueCount"].get<uint64_t>();
        const size_t w = element_size(res.type);
        if (too_big(res.count * w)) return std::nullopt;
        const std::string k1 = constant ? "value" : "valueStart";
        if (!constant && !iv.contains("valueDelta")) {
            diags.error(vptr, "dxdispatch.resource", "a sequence needs valueDelta");
            return std::nullopt;
        }
        auto first = element(iv[k1], pointer_append(vptr, k1));
        if (!first) return std::nullopt;
        res.first_bits = *first;
        (constant ? res.fill : res.start) = spelling(res.type, doc, iv[k1], pointer_append(vptr, k1), *first,
                                                     respelled);
        if (!constant) {
            auto step = element(iv["valueDelta"], pointer_append(vptr, "valueDelta"));
            if (!step) return std::nullopt;
            res.step_bits = *step;
            res.step = spelling(res.type, doc, iv["valueDelta"], pointer_append(vptr, "valueDelta"), *step, respelled);
        }
        values.resize(res.count * w);
        uint64_t v = res.first_bits;
        for (uint64_t i = 0; i < res.count; ++i) {
            store_bits(res.type, values.data() + i * w, v);
            if (!constant) v = add_bits(res.type, v, res.step_bits);
        }
    } else if (iv.is_object() && iv.contains("sourcePath") && iv["sourcePath"].is_string()) {
        res.kind = Resource::Kind::File;
        const std::string source = iv["sourcePath"].get<std::string>();
        fs::path file = model_dir / source;
        if (!allow_paths) {
            // A model read from someone else reads only inside its own folder tree, as a case's
            // Npy files do (docs/rules.md, dxdispatch.source-path).
            if (!path_inside(model_dir, source)) {
                diags.error(
                    pointer_append(vptr, "sourcePath"), "dxdispatch.source-path",
                    "\"" + printable(source) + "\" leads outside the model's folder " + model_dir.string() +
                        " (an absolute path, .., a symbolic link or a NUL byte); a model reads files only inside its own "
                        "folder unless import-dxdispatch is given --allow-paths");
                return std::nullopt;
            }
        } else if (!fs::exists(file)) {
            file = source;  // DxDispatch: beside the model, else the current directory
        }
        std::string ext = file.extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        try {
            if (ext == ".npy") {
                NpyArray a = read_npy(file, max_bytes);
                if (res.type != DataType::UNKNOWN && res.type != a.data_type) {
                    diags.error(pointer_append(vptr, "sourcePath"), "dxdispatch.resource",
                                file.string() + " holds " + std::string(name(a.data_type)) +
                                    ", not the initialValuesDataType " + std::string(name(res.type)));
                    return std::nullopt;
                }
                res.type = a.data_type;
                values = std::move(a.data);
            } else if (ext == ".jpg" || ext == ".png") {
                diags.error(pointer_append(vptr, "sourcePath"), "dxdispatch.resource",
                            "image initializers are not read");
                return std::nullopt;
            } else {
                if (!need_type()) return std::nullopt;
                std::error_code ec;
                const auto size = fs::file_size(file, ec);
                if (ec || too_big(size)) {
                    if (ec)
                        diags.error(pointer_append(vptr, "sourcePath"), "file.read", "cannot read " + file.string());
                    return std::nullopt;
                }
                std::ifstream in(file, std::ios::binary);
                std::ostringstream ss;
                ss << in.rdbuf();
                const std::string s = ss.str();
                values.resize(s.size());
                std::memcpy(values.data(), s.data(), s.size());
            }
        } catch (const NpyError& e) {
            diags.error(pointer_append(vptr, "sourcePath"), "file.read", file.string() + ": " + e.what());
            return std::nullopt;
        }
        res.count = values.size() / element_size(res.type);
    } else {
        diags.error(vptr, "dxdispatch.resource",
                    "initialValues must be an array, {valueCount, value}, {valueCount, valueStart, valueDelta} "
                    "or {sourcePath} (mixed-type lists and deferred resources are not read)");
        return std::nullopt;
    }
    uint64_t size = (values.size() + 3) & ~uint64_t(3);
    if (r.contains("initialValuesOffsetInBytes")) {
        if (!r["initialValuesOffsetInBytes"].is_number_unsigned()) {
            diags.error(pointer_append(ptr, "initialValuesOffsetInBytes"), "dxdispatch.resource",
                        "must be a non-negative integer");
            return std::nullopt;
        }
        res.values_offset = r["initialValuesOffsetInBytes"].get<uint64_t>();
    }
    if (r.contains("sizeInBytes")) {
        if (!r["sizeInBytes"].is_number_unsigned()) {
            diags.error(pointer_append(ptr, "sizeInBytes"), "dxdispatch.resource", "must be a non-negative integer");
            return std::nullopt;
        }
        size = r["sizeInBytes"].get<uint64_t>();
    }
    if (res.values_offset > size || values.size() > size - res.values_offset) {
        diags.error(ptr, "dxdispatch.resource",
                    "the buffer (" + std::to_string(size) + " bytes) is too small for its initialValues (" +
                        std::to_string(values.size()) + " bytes at offset " + std::to_string(res.values_offset) + ")");
        return std::nullopt;
    }
    if (too_big(size)) return std::nullopt;
    res.bytes.assign(size, std::byte{0});
    std::memcpy(res.bytes.data() + res.values_offset, values.data(), values.size());
    return res;
}

// The case's spelling of an input buffer bound at byte `offset` of the resource: a Fill or an Iota
// where DxDispatch's constant or sequence covers the buffer and dmlref's generator gives the same
// bits, else the list of elements (each as the model wrote it, where it wrote it).
ordered_json input_spelling(const Resource& res, uint64_t offset, const TensorDesc& d) {
    const DataType t = d.DataType;
    const size_t w = element_size(t);
    const uint64_t capacity = buffer_size(d) / w, needed = index_of_last_element(d) + 1;
    const std::byte* base = res.bytes.data() + offset;
    const bool aligned = res.type == t && offset == 0 && res.values_offset == 0;
    if (aligned && res.kind == Resource::Kind::Constant && res.count >= capacity) return {{"Fill", res.fill}};
    if (aligned && res.kind == Resource::Kind::Sequence && res.count >= capacity) {
        bool same = true;  // dmlref's Iota: Start + i * Step, rounded once (docs/case-format.md)
        dispatch(t, [&]<class T>() {
            const T s = from_bits<T>(bits_t<T>(res.first_bits)), st = from_bits<T>(bits_t<T>(res.step_bits));
            for (uint64_t i = 0; i < capacity && same; ++i) {
                uint64_t bits;
                if constexpr (is_floating_v<T>)
                    bits = uint64_t(to_bits(round_to_float<T>(widen(s) + double(i) * widen(st))));
                else {
                    const int128_t x = int128_t(s) + int128_t(i) * int128_t(st);
                    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
                        same = false;
                        return;
                    }
                    bits = uint64_t(to_bits(T(x)));
                }
                same = bits == load_bits(t, base + i * w);
            }
        });
        if (same) return {{"Iota", {{"Start", res.start}, {"Step", res.step}}}};
    }
    uint64_t n = needed;
    for (uint64_t i = capacity; i-- > needed;)
        if (load_bits(t, base + i * w) != 0) {
            n = i + 1;
            break;
        }
    ordered_json list = ordered_json::array();
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t bits = load_bits(t, base + i * w);
        if (aligned && res.kind == Resource::Kind::Array && i < res.element_spelling.size())
            list.push_back(res.element_spelling[i]);
        else list.push_back(json_raw(format_exact_value(t, bits)));
    }
    return list;
}

}  // namespace dxdispatch_detail

}  // namespace dmlref
