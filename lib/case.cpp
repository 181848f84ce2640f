// Reading and writing case files (docs/case-format.md). Every error names the JSON pointer and
// a rule id; nothing is silently clamped or guessed.
#include "dmlref/case.hpp"
#include "dmlref/tolerance.hpp"

#include "dmlref/generate.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"
#include "json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <set>

namespace dmlref {

std::string_view dmlref_version() { return DMLREF_VERSION; }

namespace {

namespace fs = std::filesystem;

std::string list_text(const std::vector<std::string_view>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + std::string(names[i]);
    return s;
}

// ---- Reading helpers ---------------------------------------------------------------------

struct Reader {
    const JsonDocument& doc;
    Diagnostics& diags;

    // Reports keys of an object that are not in `allowed`.
    void only_keys(const json& node, const std::string& path, const std::vector<std::string_view>& allowed, std::string_view what) {
        for (auto it = node.begin(); it != node.end(); ++it)
            if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
                diags.error(pointer_append(path, it.key()), "case.unknown-key",
                            "\"" + it.key() + "\" is not a field of " + std::string(what) + " (fields: " + list_text(allowed) + ")");
    }

    bool is_object(const json& node, const std::string& path, std::string_view what) {
        if (node.is_object()) return true;
        diags.error(path, "case.type", std::string(what) + " must be a JSON object");
        return false;
    }

    std::optional<uint64_t> unsigned_value(const json& node, const std::string& path, uint64_t max, std::string_view what) {
        if (node.is_number_unsigned() || (node.is_number_integer() && node.get<int64_t>() >= 0)) {
            const uint64_t v = node.is_number_unsigned() ? node.get<uint64_t>() : uint64_t(node.get<int64_t>());
            if (v <= max) return v;
        }
        diags.error(path, "case.uint", std::string(what) + " must be an integer from 0 to " + std::to_string(max) +
                    ", got " + node.dump());
        return std::nullopt;
    }

    std::optional<std::vector<uint32_t>> uint_array(const json& node, const std::string& path, std::string_view what) {
        if (!node.is_array()) {
            diags.error(path, "case.type", std::string(what) + " must be an array of unsigned integers");
            return std::nullopt;
        }
        if (node.size() > 64) {
            diags.error(path, "case.array-length", std::string(what) + " has " + std::to_string(node.size()) + " entries; at most 8 dimensions are allowed");
            return std::nullopt;
        }
        std::vector<uint32_t> v;
        bool ok = true;
        for (size_t i = 0; i < node.size(); ++i) {
            auto x = unsigned_value(node[i], pointer_append(path, i), 0xffffffffull, std::string(what) + "[" + std::to_string(i) + "]");
            if (x) v.push_back(uint32_t(*x)); else ok = false;
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
            diags.warning(path, "value.inexact", doc.token(node, path).text + " is not exactly representable in " +
                          std::string(name(t)) + "; rounded to nearest-even, " + display_value(t, p.bits) + " (" + hex_bits(t, p.bits) + ")");
        return p.bits;
    }
};

// ---- Tensor descs ------------------------------------------------------------------------

std::optional<DataType> read_data_type(Reader& r, const json& node, const std::string& path) {
    if (node.is_string())
        if (auto t = parse_data_type(node.get<std::string>())) return t;
    r.diags.error(path, "case.data-type", node.dump() +
                  " is not a DML_TENSOR_DATA_TYPE; write one of FLOAT32, FLOAT16, FLOAT64, INT8, INT16, INT32, INT64, "
                  "UINT8, UINT16, UINT32, UINT64 (or the full DML_TENSOR_DATA_TYPE_ name)");
    return std::nullopt;
}

std::optional<TensorDesc> read_tensor_desc(Reader& r, const json& node_in, const std::string& path_in) {
    const json* node = &node_in;
    std::string path = path_in;
    if (!r.is_object(*node, path, "a tensor desc")) return std::nullopt;
    // The long form {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {...}}.
    if (node->contains("Desc")) {
        r.only_keys(*node, path, {"Type", "Desc"}, "DML_TENSOR_DESC");
        const json& type = (*node)["Type"];
        if (!type.is_string() || (type != "DML_TENSOR_TYPE_BUFFER" && type != "BUFFER"))
            r.diags.error(pointer_append(path, "Type"), "tensor.type", "DML_TENSOR_DESC.Type must be DML_TENSOR_TYPE_BUFFER");
        path = pointer_append(path, "Desc");
        node = &(*node)["Desc"];
        if (!r.is_object(*node, path, "DML_BUFFER_TENSOR_DESC")) return std::nullopt;
    }
    r.only_keys(*node, path, {"DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
                              "GuaranteedBaseOffsetAlignment", "Type"}, "DML_BUFFER_TENSOR_DESC");
    TensorDesc d;
    bool ok = true;
    if (node->contains("Type")) {
        const json& type = (*node)["Type"];
        if (!type.is_string() || (type != "DML_TENSOR_TYPE_BUFFER" && type != "BUFFER")) {
            r.diags.error(pointer_append(path, "Type"), "tensor.type", "Type must be DML_TENSOR_TYPE_BUFFER (the only tensor type)");
            ok = false;
        }
    }
    if (!node->contains("DataType")) { r.diags.error(path, "case.missing-field", "the tensor desc has no DataType"); ok = false; }
    else if (auto t = read_data_type(r, (*node)["DataType"], pointer_append(path, "DataType"))) d.DataType = *t;
    else ok = false;
    if (!node->contains("Sizes")) { r.diags.error(path, "case.missing-field", "the tensor desc has no Sizes"); ok = false; }
    else if (auto s = r.uint_array((*node)["Sizes"], pointer_append(path, "Sizes"), "Sizes")) d.Sizes = *s;
    else ok = false;
    if (node->contains("Strides") && !(*node)["Strides"].is_null()) {
        if (auto s = r.uint_array((*node)["Strides"], pointer_append(path, "Strides"), "Strides")) d.Strides = *s;
        else ok = false;
    }
    if (node->contains("DimensionCount")) {
        auto n = r.unsigned_value((*node)["DimensionCount"], pointer_append(path, "DimensionCount"), 0xffffffffull, "DimensionCount");
        if (n && *n != d.Sizes.size() && ok) {
            r.diags.error(pointer_append(path, "DimensionCount"), "tensor.dimension-count-mismatch",
                          "DimensionCount is " + std::to_string(*n) + " but Sizes has " + std::to_string(d.Sizes.size()) +
                          " entries; Sizes must have DimensionCount entries");
            ok = false;
        }
    }
    if (node->contains("Flags")) {
        const json& f = (*node)["Flags"];
        if (f.is_string() && (f == "DML_TENSOR_FLAG_OWNED_BY_DML" || f == "OWNED_BY_DML")) d.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        else if (f.is_string() && (f == "DML_TENSOR_FLAG_NONE" || f == "NONE")) d.Flags = DML_TENSOR_FLAG_NONE;
        else if (auto v = r.unsigned_value(f, pointer_append(path, "Flags"), 0xffffffffull, "Flags")) d.Flags = uint32_t(*v);
        else ok = false;
    }
    if (node->contains("TotalTensorSizeInBytes")) {
        auto v = r.unsigned_value((*node)["TotalTensorSizeInBytes"], pointer_append(path, "TotalTensorSizeInBytes"),
                                  std::numeric_limits<uint64_t>::max(), "TotalTensorSizeInBytes");
        if (v && *v == 0) {
            r.diags.error(pointer_append(path, "TotalTensorSizeInBytes"), "tensor.total-size",
                          "TotalTensorSizeInBytes is 0; leave it out to use DMLCalcBufferTensorSize");
            ok = false;
        } else if (v) d.TotalTensorSizeInBytes = *v;
        else ok = false;
    }
    if (node->contains("GuaranteedBaseOffsetAlignment")) {
        auto v = r.unsigned_value((*node)["GuaranteedBaseOffsetAlignment"], pointer_append(path, "GuaranteedBaseOffsetAlignment"),
                                  0xffffffffull, "GuaranteedBaseOffsetAlignment");
        if (v) d.GuaranteedBaseOffsetAlignment = uint32_t(*v); else ok = false;
    }
    if (!ok) return std::nullopt;
    return d;
}

// ---- Desc fields -------------------------------------------------------------------------

struct DescReader {
    Reader& r;
    const json& node;
    std::string struct_name;
    std::vector<std::string_view> seen;
    bool ok = true;

    const json* field(std::string_view n, bool required) {
        seen.push_back(n);
        if (node.contains(std::string(n)) && !node[std::string(n)].is_null()) return &node[std::string(n)];
        if (required) {
            r.diags.error("/desc", "case.missing-field", std::string(struct_name) + " needs the field " + std::string(n));
            ok = false;
        }
        return nullptr;
    }
    std::string path(std::string_view n) const { return pointer_append("/desc", n); }

    void tensor(std::string_view n, TensorDesc& d, TensorRole) {
        if (const json* j = field(n, true)) {
            if (auto t = read_tensor_desc(r, *j, path(n))) d = *t; else ok = false;
        }
    }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole) {
        if (const json* j = field(n, false)) {
            if (auto t = read_tensor_desc(r, *j, path(n))) d = *t; else ok = false;
        }
    }
    void data_type(std::string_view n, DataType& t) {
        if (const json* j = field(n, true)) {
            if (auto v = read_data_type(r, *j, path(n))) t = *v; else ok = false;
        }
    }
    void float32(std::string_view n, float& f) {
        if (const json* j = field(n, true)) {
            if (auto b = r.value(DataType::FLOAT32, *j, path(n), true)) f = from_bits<float>(uint32_t(*b)); else ok = false;
        }
    }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>& sb) {
        const json* j = field(n, false);
        if (!j) return;
        if (!r.is_object(*j, path(n), "DML_SCALE_BIAS")) { ok = false; return; }
        r.only_keys(*j, path(n), {"Scale", "Bias"}, "DML_SCALE_BIAS");
        DML_SCALE_BIAS v;
        for (auto [key, dst] : {std::pair{"Scale", &v.Scale}, std::pair{"Bias", &v.Bias}}) {
            if (!j->contains(key)) { r.diags.error(path(n), "case.missing-field", std::string("DML_SCALE_BIAS needs the field ") + key); ok = false; continue; }
            if (auto b = r.value(DataType::FLOAT32, (*j)[key], pointer_append(path(n), key), true)) *dst = from_bits<float>(uint32_t(*b));
            else ok = false;
        }
        sb = v;
    }
    void uint(std::string_view n, uint32_t& v) {
        if (const json* j = field(n, true)) {
            if (auto x = r.unsigned_value(*j, path(n), 0xffffffffull, n)) v = uint32_t(*x); else ok = false;
        }
    }
    void uint_array(std::string_view n, std::vector<uint32_t>& v) {
        if (const json* j = field(n, true)) {
            if (auto x = r.uint_array(*j, path(n), n)) v = *x; else ok = false;
        }
    }
    void int_array(std::string_view n, std::vector<int32_t>& v) {
        const json* j = field(n, true);
        if (!j) return;
        if (!j->is_array() || j->size() > 64) {
            r.diags.error(path(n), "case.type", std::string(n) + " must be an array of at most 8 integers");
            ok = false;
            return;
        }
        v.clear();
        for (size_t i = 0; i < j->size(); ++i) {
            const json& e = (*j)[i];
            const bool fits = (e.is_number_integer() && e.get<int64_t>() >= INT32_MIN && e.get<int64_t>() <= INT32_MAX) ||
                              (e.is_number_unsigned() && e.get<uint64_t>() <= uint64_t(INT32_MAX));
            if (!fits) {
                r.diags.error(pointer_append(path(n), i), "case.int", std::string(n) + "[" + std::to_string(i) +
                              "] must be an integer from -2147483648 to 2147483647, got " + e.dump());
                ok = false;
                continue;
            }
            v.push_back(int32_t(e.get<int64_t>()));
        }
    }
    void float_array(std::string_view n, std::vector<float>& v) {
        const json* j = field(n, true);
        if (!j) return;
        if (!j->is_array() || j->size() > 64) {
            r.diags.error(path(n), "case.type", std::string(n) + " must be an array of at most 8 numbers");
            ok = false;
            return;
        }
        v.clear();
        for (size_t i = 0; i < j->size(); ++i) {
            if (auto b = r.value(DataType::FLOAT32, (*j)[i], pointer_append(path(n), i), true)) v.push_back(from_bits<float>(uint32_t(*b)));
            else ok = false;
        }
    }
    void enumeration(std::string_view n, uint32_t& v, const EnumNames& e) {
        const json* j = field(n, true);
        if (!j) return;
        if (j->is_string()) {
            std::string s = j->get<std::string>();
            if (s.rfind(e.Prefix, 0) == 0) s = s.substr(e.Prefix.size());
            for (size_t i = 0; i < e.Names.size(); ++i)
                if (e.Names[i] == s) { v = uint32_t(i); return; }
        }
        std::string names;
        for (size_t i = 0; i < e.Names.size(); ++i) names += (i ? ", " : "") + std::string(e.Names[i]);
        r.diags.error(path(n), "case.enum", j->dump() + " is not a value of " + std::string(n) + "; write one of " + names +
                      " (or with the prefix " + std::string(e.Prefix) + ")");
        ok = false;
    }
    // DML_SCALAR_UNION: a value in the union's data type, or an object naming one member.
    void scalar(std::string_view n, DML_SCALAR_UNION& u, DataType t) {
        const json* j = field(n, true);
        if (!j) return;
        const std::string p = path(n);
        if (j->is_object()) {
            static const std::vector<std::pair<std::string_view, DataType>> members = {
                {"Int8", DataType::INT8}, {"UInt8", DataType::UINT8}, {"Int16", DataType::INT16},
                {"UInt16", DataType::UINT16}, {"Int32", DataType::INT32}, {"UInt32", DataType::UINT32},
                {"Int64", DataType::INT64}, {"UInt64", DataType::UINT64}, {"Float32", DataType::FLOAT32},
                {"Float64", DataType::FLOAT64}};
            if (j->size() != 1) {
                r.diags.error(p, "scalar-union.member", "a DML_SCALAR_UNION object names exactly one member (Int8 .. Float64, or Bytes)");
                ok = false;
                return;
            }
            const std::string key = j->begin().key();
            const std::string mp = pointer_append(p, key);
            if (key == "Bytes") {
                if (!j->begin()->is_array() || j->begin()->size() != 8) {
                    r.diags.error(mp, "scalar-union.bytes", "Bytes must be an array of 8 integers 0..255");
                    ok = false;
                    return;
                }
                for (size_t i = 0; i < 8; ++i)
                    if (auto b = r.unsigned_value((*j->begin())[i], pointer_append(mp, i), 255, "a byte")) u.Bytes[i] = uint8_t(*b);
                    else ok = false;
                return;
            }
            for (const auto& [m, mt] : members)
                if (m == key) {
                    if (auto b = r.value(mt, *j->begin(), mp, true)) u = DML_SCALAR_UNION::of(*b);
                    else ok = false;
                    return;
                }
            r.diags.error(mp, "scalar-union.member", "\"" + key + "\" is not a DML_SCALAR_UNION member (Bytes, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float32, Float64)");
            ok = false;
            return;
        }
        if (!is_valid(t)) {
            r.diags.error(p, "scalar-union.data-type", "the value cannot be read: MinMaxDataType is not a valid data type");
            ok = false;
            return;
        }
        // GOLDEN.md section 7: a FLOAT16 bound must be exact, or given as bits.
        if (t == DataType::FLOAT16) {
            const ParsedValue v = parse_value(t, r.doc.token(*j, p));
            if (v.ok && v.inexact) {
                r.diags.error(p, "scalar-union.float16-exact", r.doc.token(*j, p).text +
                              " is not exactly representable in FLOAT16; write an exact value or the bits, e.g. {\"UInt16\": " +
                              std::to_string(v.bits) + "} for " + display_value(t, v.bits));
                ok = false;
                return;
            }
        }
        // The other types: any value, rounded with a warning where inexact.
        if (auto bits = r.value(t, *j, p, true)) u = DML_SCALAR_UNION::of(*bits);  // little-endian: the member of type t
        else ok = false;
    }
};

// ---- Inputs ------------------------------------------------------------------------------

void read_input(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path,
                const fs::path& base_dir, const LoadOptions& options) {
    const TensorDesc& d = *f.desc;
    const DataType t = d.DataType;
    const size_t width = element_size(t);
    const uint64_t capacity = buffer_size(d) / width;  // elements the buffer holds
    const uint64_t needed = index_of_last_element(d) + 1;
    std::vector<std::byte> buffer(buffer_size(d));
    json canonical;

    auto count_ok = [&](uint64_t n, const std::string& p) {
        if (n < needed || n > capacity) {
            r.diags.error(p, "input.count",
                          std::to_string(n) + " values given; the buffer of " + std::string(f.name) + " holds " +
                          std::to_string(capacity) + " elements and its last logical element is element " +
                          std::to_string(needed - 1) + ", so give " +
                          (needed == capacity ? std::to_string(needed) : std::to_string(needed) + " to " + std::to_string(capacity)) +
                          " values (in memory order)");
            return false;
        }
        return true;
    };

    if (spec.is_array()) {
        if (!count_ok(spec.size(), path)) return;
        json values = json::array();
        bool ok = true;
        for (size_t i = 0; i < spec.size(); ++i) {
            auto b = r.value(t, spec[i], pointer_append(path, i), true);
            if (!b) { ok = false; continue; }
            store_bits(t, buffer.data() + i * width, *b);
            values.push_back(json_raw(format_exact_value(t, *b)));
        }
        if (!ok) return;
        canonical = values;
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Fill")) {
        auto b = r.value(t, spec["Fill"], pointer_append(path, "Fill"), true);
        if (!b) return;
        for (uint64_t i = 0; i < capacity; ++i) store_bits(t, buffer.data() + i * width, *b);
        canonical = {{"Fill", json_raw(format_exact_value(t, *b))}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Iota")) {
        const std::string p = pointer_append(path, "Iota");
        const json& io = spec["Iota"];
        if (!r.is_object(io, p, "Iota")) return;
        r.only_keys(io, p, {"Start", "Step"}, "Iota");
        if (!io.contains("Start") || !io.contains("Step")) {
            r.diags.error(p, "case.missing-field", "Iota needs Start and Step");
            return;
        }
        auto start = r.value(t, io["Start"], pointer_append(p, "Start"), true);
        auto step = r.value(t, io["Step"], pointer_append(p, "Step"), true);
        if (!start || !step) return;
        bool ok = true;
        dispatch(t, [&]<class T>() {
            const T s = from_bits<T>(bits_t<T>(*start)), st = from_bits<T>(bits_t<T>(*step));
            for (uint64_t i = 0; i < capacity && ok; ++i) {
                T v;
                if constexpr (is_floating_v<T>) {
                    // Start + i * Step in double (two roundings), then once to T.
                    v = round_to_float<T>(widen(s) + double(i) * widen(st));
                } else {
                    const int128_t x = int128_t(s) + int128_t(i) * int128_t(st);
                    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
                        r.diags.error(p, "input.iota-range", "Iota element " + std::to_string(i) + " is outside the range of " +
                                      std::string(name(t)));
                        ok = false;
                        return;
                    }
                    v = T(x);
                }
                store_bits(t, buffer.data() + i * width, uint64_t(to_bits(v)));
            }
        });
        if (!ok) return;
        canonical = {{"Iota", {{"Start", json_raw(format_exact_value(t, *start))}, {"Step", json_raw(format_exact_value(t, *step))}}}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Random")) {
        const std::string p = pointer_append(path, "Random");
        const json& rs = spec["Random"];
        if (!r.is_object(rs, p, "Random")) return;
        r.only_keys(rs, p, {"Seed", "Distribution", "Min", "Max", "SpecialFraction"}, "Random");
        RandomSpec g;
        bool ok = true;
        if (!rs.contains("Seed")) { r.diags.error(p, "case.missing-field", "Random needs a Seed (an unsigned 64-bit integer)"); return; }
        if (auto s = r.unsigned_value(rs["Seed"], pointer_append(p, "Seed"), std::numeric_limits<uint64_t>::max(), "Seed")) g.Seed = *s;
        else return;
        g.Distribution = rs.value("Distribution", is_float(t) ? "Uniform" : "Integers");
        if (g.Distribution != "Uniform" && g.Distribution != "Integers") {
            r.diags.error(pointer_append(p, "Distribution"), "input.random-distribution", "Distribution must be \"Uniform\" or \"Integers\"");
            return;
        }
        if (g.Distribution == "Uniform" && !is_float(t)) {
            r.diags.error(pointer_append(p, "Distribution"), "input.random-distribution", "Uniform is for float types; use \"Integers\" for " + std::string(name(t)));
            return;
        }
        json canon_random = {{"Seed", g.Seed}, {"Distribution", g.Distribution}};
        if (g.Distribution == "Uniform") {
            for (auto [key, dst, def] : {std::tuple{"Min", &g.Min, -1.0}, std::tuple{"Max", &g.Max, 1.0}}) {
                *dst = def;
                if (rs.contains(key)) {
                    auto b = r.value(DataType::FLOAT64, rs[key], pointer_append(p, key), false);
                    if (!b) { ok = false; continue; }
                    *dst = from_bits<double>(*b);
                    if (!std::isfinite(*dst)) { r.diags.error(pointer_append(p, key), "input.random-range", std::string(key) + " must be finite"); ok = false; }
                }
                canon_random[key] = json_raw(format_value(DataType::FLOAT64, to_bits(*dst)));
            }
            if (ok && !(g.Min <= g.Max)) { r.diags.error(p, "input.random-range", "Min must not exceed Max"); ok = false; }
        } else {
            int128_t lo = 0, hi = 0;
            for (auto [key, dst] : {std::pair{"Min", &lo}, std::pair{"Max", &hi}}) {
                if (!rs.contains(key)) { r.diags.error(p, "case.missing-field", std::string("Integers needs ") + key); ok = false; continue; }
                auto b = r.value(DataType::INT64, rs[key], pointer_append(p, key), false);
                if (!b) { ok = false; continue; }
                *dst = int64_t(*b);
                canon_random[key] = json_raw(format_value(DataType::INT64, *b));
            }
            if (ok) {
                // Min and Max must be values of the type (every integer between them is then one too).
                int128_t tmin, tmax;
                dispatch(t, [&]<class T>() {
                    if constexpr (std::is_integral_v<T>) { tmin = std::numeric_limits<T>::min(); tmax = std::numeric_limits<T>::max(); }
                    else { const int bits = std::numeric_limits<T>::digits; tmax = int128_t(1) << bits; tmin = -tmax; }
                });
                if (lo > hi || lo < tmin || hi > tmax) {
                    r.diags.error(p, "input.random-range", "Integers needs Min <= Max, both exactly representable in " + std::string(name(t)));
                    ok = false;
                }
                g.IntegerMin = int64_t(lo);
                g.IntegerSpan = uint64_t(hi - lo);
            }
        }
        if (rs.contains("SpecialFraction")) {
            auto b = r.value(DataType::FLOAT64, rs["SpecialFraction"], pointer_append(p, "SpecialFraction"), false);
            if (b) g.SpecialFraction = from_bits<double>(*b);
            if (!b || !(g.SpecialFraction >= 0.0 && g.SpecialFraction <= 1.0)) {
                r.diags.error(pointer_append(p, "SpecialFraction"), "input.random-range", "SpecialFraction must be from 0 to 1");
                ok = false;
            }
            canon_random["SpecialFraction"] = json_raw(format_value(DataType::FLOAT64, to_bits(g.SpecialFraction)));
        }
        if (!ok) return;
        generate_random(t, g, buffer.data(), capacity);
        c.seeds.push_back(g.Seed);
        canonical = {{"Random", canon_random}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Npy")) {
        const std::string p = pointer_append(path, "Npy");
        if (!spec["Npy"].is_string()) { r.diags.error(p, "case.type", "Npy must be a file name (relative to the case file)"); return; }
        const fs::path file = base_dir / spec["Npy"].get<std::string>();
        try {
            const NpyArray a = read_npy(file, options.max_bytes);
            if (a.data_type != t) {
                r.diags.error(p, "input.npy-dtype", file.string() + " holds " + npy_dtype(a.data_type) + " (" + std::string(name(a.data_type)) +
                              ") but " + std::string(f.name) + ".DataType is " + std::string(name(t)));
                return;
            }
            if (!count_ok(a.data.size() / width, p)) return;
            std::copy(a.data.begin(), a.data.end(), buffer.begin());
        } catch (const NpyError& e) {
            r.diags.error(p, "input.npy", file.string() + ": " + e.what());
            return;
        }
        canonical = {{"Npy", fs::absolute(file).lexically_normal().string()}};  // made relative on writing
    } else {
        r.diags.error(path, "input.form", "an input is an array of values (memory order), or one of {\"Fill\": v}, "
                      "{\"Iota\": {\"Start\": a, \"Step\": d}}, {\"Random\": {\"Seed\": n, ...}}, {\"Npy\": \"file.npy\"}");
        return;
    }
    c.inputs[std::string(f.name)] = std::move(buffer);
    c.input_specs[std::string(f.name)] = std::move(canonical);
}

// ---- Expected outputs --------------------------------------------------------------------

void read_expected(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path) {
    if (!r.is_object(spec, path, "an expected output")) return;
    r.only_keys(spec, path, {"Values", "Tolerance", "DontCare", "Boundary"}, "an expected output");
    const TensorDesc& d = *f.desc;
    const DataType t = d.DataType;
    const uint64_t n = element_count(d);
    ExpectedOutput e;
    if (!spec.contains("Values") || !spec["Values"].is_array()) {
        r.diags.error(path, "expected.values", "an expected output needs \"Values\": its logical elements in row-major order");
        return;
    }
    const json& values = spec["Values"];
    const std::string vp = pointer_append(path, "Values");
    if (values.size() != n) {
        r.diags.error(vp, "expected.count", std::to_string(values.size()) + " values given; " + std::string(f.name) + " has " +
                      std::to_string(n) + " logical elements (listed in row-major order of Sizes)");
        return;
    }
    e.values.resize(n * element_size(t));
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
        auto b = r.value(t, values[i], pointer_append(vp, i), false);
        if (b) store_bits(t, e.values.data() + i * element_size(t), *b); else ok = false;
    }
    if (spec.contains("Tolerance")) {
        const std::string tp = pointer_append(path, "Tolerance");
        const json& tj = spec["Tolerance"];
        if (r.is_object(tj, tp, "Tolerance")) {
            r.only_keys(tj, tp, {"Kind", "Ulp", "MaxTerms", "Terms", "Why"}, "Tolerance");
            e.tolerance.Kind = tj.value("Kind", std::string("Bits"));
            if (e.tolerance.Kind != "Bits" && e.tolerance.Kind != "Ulp" && e.tolerance.Kind != "Summed") {
                r.diags.error(pointer_append(tp, "Kind"), "expected.tolerance", "Tolerance.Kind must be \"Bits\", \"Ulp\" or \"Summed\"");
                ok = false;
            }
            if (tj.contains("MaxTerms")) {
                if (auto m = r.unsigned_value(tj["MaxTerms"], pointer_append(tp, "MaxTerms"), uint64_t(1) << 32, "MaxTerms")) e.tolerance.MaxTerms = *m;
                else ok = false;
            }
            if (tj.contains("Ulp")) {
                if (auto u = r.unsigned_value(tj["Ulp"], pointer_append(tp, "Ulp"), uint64_t(1) << 53, "Ulp")) e.tolerance.Ulp = *u;
                else ok = false;
            }
            if (tj.contains("Terms")) {
                const std::string mp = pointer_append(tp, "Terms");
                if (!tj["Terms"].is_array() || tj["Terms"].size() != n) {
                    r.diags.error(mp, "expected.tolerance", "Tolerance.Terms must list one term count per logical element (" +
                                  std::to_string(n) + ")");
                    ok = false;
                } else for (size_t i = 0; i < n; ++i) {
                    if (auto m = r.unsigned_value(tj["Terms"][i], pointer_append(mp, i), uint64_t(1) << 32, "Terms")) e.tolerance.Terms.push_back(uint32_t(*m));
                    else ok = false;
                }
            }
            if (tj.contains("Why") && tj["Why"].is_string()) e.tolerance.Why = tj["Why"].get<std::string>();
        } else ok = false;
    }
    if (spec.contains("DontCare")) {
        const std::string dp = pointer_append(path, "DontCare");
        const json& dj = spec["DontCare"];
        if (!dj.is_array()) { r.diags.error(dp, "expected.dont-care", "DontCare must be an array of {\"Index\": i, \"Reason\": \"...\"}"); ok = false; }
        else for (size_t i = 0; i < dj.size(); ++i) {
            const std::string ip = pointer_append(dp, i);
            if (!dj[i].is_object() || !dj[i].contains("Index") || !dj[i].contains("Reason") || !dj[i]["Reason"].is_string()) {
                r.diags.error(ip, "expected.dont-care", "a DontCare entry is {\"Index\": i, \"Reason\": \"...\"}");
                ok = false;
                continue;
            }
            auto idx = r.unsigned_value(dj[i]["Index"], pointer_append(ip, "Index"), n - 1, "Index");
            if (idx) e.dont_care.push_back({*idx, dj[i]["Reason"].get<std::string>()}); else ok = false;
        }
    }
    if (spec.contains("Boundary")) {
        const std::string bp = pointer_append(path, "Boundary");
        const json& bj = spec["Boundary"];
        if (!bj.is_object() || !bj.contains("Indices") || !bj["Indices"].is_array() || !bj.contains("Reason") ||
            !bj["Reason"].is_string()) {
            r.diags.error(bp, "expected.boundary", "Boundary is {\"Indices\": [i, ...], \"Reason\": \"...\"}");
            ok = false;
        } else {
            r.only_keys(bj, bp, {"Indices", "Reason"}, "Boundary");
            e.boundary.Reason = bj["Reason"].get<std::string>();
            for (size_t i = 0; i < bj["Indices"].size(); ++i) {
                auto idx = r.unsigned_value(bj["Indices"][i], pointer_append(pointer_append(bp, "Indices"), i), n - 1, "Index");
                if (idx) e.boundary.Indices.push_back(*idx); else ok = false;
            }
        }
    }
    if (ok) c.expected[std::string(f.name)] = std::move(e);
}

}  // namespace

// ---- The case ----------------------------------------------------------------------------

Case parse_case(const JsonDocument& doc, const fs::path& file, Diagnostics& diags, const LoadOptions& options) {
    Reader r{doc, diags};
    Case c;
    c.file = file;
    const json& root = doc.root;
    if (!r.is_object(root, "", "a case")) return c;
    r.only_keys(root, "", {"format", "name", "description", "operator", "desc", "inputs", "inPlace", "expected",
                           "policies", "provenance"}, "a case");
    if (!root.contains("format") || !root["format"].is_number_integer() || root["format"].get<int64_t>() != kCaseFormatVersion) {
        diags.error("/format", "case.format", "a case file starts with \"format\": 1 (this dmlref reads case format version 1)");
        return c;
    }
    c.name = root.contains("name") && root["name"].is_string() ? root["name"].get<std::string>() : file.stem().string();
    if (root.contains("description") && root["description"].is_string()) c.description = root["description"].get<std::string>();

    // operator and desc
    if (!root.contains("operator") || !root["operator"].is_string()) {
        diags.error("/operator", "case.operator", "\"operator\" must name the operator, e.g. \"DML_OPERATOR_ACTIVATION_RELU_GRAD\"");
        return c;
    }
    const auto type = parse_operator_type(root["operator"].get<std::string>());
    if (!type) {
        std::vector<std::string_view> names;
        for (const auto& i : all_operators()) names.push_back(i.Name);
        diags.error("/operator", "case.operator", "\"" + root["operator"].get<std::string>() +
                    "\" is not an operator dmlref evaluates (DML_OPERATOR_ followed by one of: " + list_text(names) + ")");
        return c;
    }
    c.op = make_operator(*type);
    if (!root.contains("desc") || !r.is_object(root["desc"], "/desc", "\"desc\"")) {
        if (!root.contains("desc")) diags.error("/desc", "case.missing-field", "the case has no \"desc\"");
        return c;
    }
    bool desc_ok = std::visit([&](auto& d) {
        using D = std::decay_t<decltype(d)>;
        std::string struct_name = "DML_" + std::string(info(*type).Name) + "_OPERATOR_DESC";
        DescReader dr{r, root["desc"], struct_name, {}, true};
        D::fields(d, dr);
        r.only_keys(root["desc"], "/desc", dr.seen, struct_name);
        return dr.ok;
    }, c.op.Desc);
    if (!desc_ok || diags.has_errors()) return c;

    ValidateOptions vo;
    vo.max_bytes = options.max_bytes;
    diags.append(validate(c.op, vo));
    if (diags.has_errors()) return c;  // no buffers for a desc that is wrong

    const auto fields = tensor_fields(c.op);
    auto find_field = [&](std::string_view n) -> const TensorField* {
        for (const auto& f : fields) if (f.name == n) return &f;
        return nullptr;
    };

    // inPlace: {"OutputField": "InputField"}
    if (root.contains("inPlace")) {
        const json& ip = root["inPlace"];
        if (r.is_object(ip, "/inPlace", "\"inPlace\"")) {
            for (auto it = ip.begin(); it != ip.end(); ++it) {
                const std::string p = pointer_append("/inPlace", it.key());
                const TensorField* out = find_field(it.key());
                const TensorField* in = it->is_string() ? find_field(it->get<std::string>()) : nullptr;
                const auto& allowed = info(c.op.Type).InPlace;
                const bool pair_ok = out && in && out->role == TensorRole::Output && in->role == TensorRole::Input &&
                    std::find(allowed.begin(), allowed.end(), std::pair<std::string_view, std::string_view>{out->name, in->name}) != allowed.end();
                if (!pair_ok) {
                    std::string allowed_text;
                    for (const auto& [o, i] : allowed) allowed_text += (allowed_text.empty() ? "" : ", ") + std::string(o) + " with " + std::string(i);
                    diags.error(p, "in-place.allowed", "DML_OPERATOR_" + std::string(info(c.op.Type).Name) +
                                (allowed.empty() ? " does not support in-place execution" : " allows in-place execution only for " + allowed_text));
                    continue;
                }
                TensorDesc a = *out->desc, b = *in->desc;
                a.Flags = b.Flags = 0;
                if (a != b || buffer_size(a) != buffer_size(b)) {
                    diags.error(p, "in-place.same-range", std::string(out->name) + " and " + std::string(in->name) +
                                " must have identical descs (DataType, Sizes, Strides, TotalTensorSizeInBytes) to share a buffer: "
                                "bindings may overlap only where the byte ranges are identical");
                    continue;
                }
                c.in_place[std::string(out->name)] = std::string(in->name);
            }
        }
    }

    // inputs
    const fs::path base_dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    const json empty = json::object();
    const json& inputs = root.contains("inputs") ? root["inputs"] : empty;
    if (r.is_object(inputs, "/inputs", "\"inputs\"")) {
        for (auto it = inputs.begin(); it != inputs.end(); ++it) {
            const TensorField* f = find_field(it.key());
            if (!f || f->role != TensorRole::Input)
                diags.error(pointer_append("/inputs", it.key()), "input.unknown",
                            "\"" + it.key() + "\" is not an input tensor of this desc");
        }
        for (const auto& f : fields) {
            if (f.role != TensorRole::Input) continue;
            const std::string p = pointer_append("/inputs", f.name);
            if (!inputs.contains(std::string(f.name))) {
                diags.error("/inputs", "input.missing", "no data for the input tensor " + std::string(f.name));
                continue;
            }
            read_input(r, c, f, inputs[std::string(f.name)], p, base_dir, options);
        }
    }

    // expected
    if (root.contains("expected")) {
        const json& ex = root["expected"];
        if (r.is_object(ex, "/expected", "\"expected\"")) {
            for (auto it = ex.begin(); it != ex.end(); ++it) {
                const std::string p = pointer_append("/expected", it.key());
                const TensorField* f = find_field(it.key());
                if (!f || f->role != TensorRole::Output) {
                    diags.error(p, "expected.unknown", "\"" + it.key() + "\" is not an output tensor of this desc");
                    continue;
                }
                read_expected(r, c, *f, *it, p);
            }
        }
    }

    // policies: a case may state the decisions it was made under; each must be dmlref's.
    if (root.contains("policies") && r.is_object(root["policies"], "/policies", "\"policies\"")) {
        const auto& known = info(c.op.Type).Policies;
        for (auto it = root["policies"].begin(); it != root["policies"].end(); ++it) {
            const std::string p = pointer_append("/policies", it.key());
            auto k = std::find_if(known.begin(), known.end(), [&](const Policy& q) { return q.Name == it.key(); });
            if (k == known.end()) {
                diags.error(p, "policy.unknown", "\"" + it.key() + "\" is not a policy of DML_OPERATOR_" + std::string(info(c.op.Type).Name));
            } else if (!it->is_string() || it->get<std::string>() != k->Value) {
                diags.error(p, "policy.unsupported", "dmlref implements " + std::string(k->Name) + " = " + std::string(k->Value) +
                            " only (docs/golden.md); this case asks for " + it->dump());
            }
        }
    }
    if (root.contains("provenance") && !root["provenance"].is_object())
        diags.error("/provenance", "case.type", "\"provenance\" must be a JSON object");
    return c;
}

Case load_case(const fs::path& file, Diagnostics& diags, const LoadOptions& options) {
    const JsonDocument doc = read_json_file(file);
    return parse_case(doc, file, diags, options);
}

// ---- Running -----------------------------------------------------------------------------

std::vector<std::byte> gather_logical(const TensorDesc& d, std::span<const std::byte> buffer) {
    const size_t w = element_size(d.DataType);
    std::vector<std::byte> out(element_count(d) * w);
    const auto strides = effective_strides(d);
    const auto packed = packed_strides(d.Sizes);
    for_each_run<2>(d.Sizes, {strides.data(), packed.data()}, {0, 0},
        [&](const std::array<int64_t, 2>& off, int64_t count, const std::array<int64_t, 2>& step) {
            for (int64_t i = 0; i < count; ++i)
                std::memcpy(out.data() + (off[1] + i * step[1]) * w, buffer.data() + (off[0] + i * step[0]) * w, w);
        });
    return out;
}

Outputs run_case(const Case& c) {
    std::map<std::string, std::vector<std::byte>> buffers = c.inputs;  // a copy: in-place writes into it
    Bindings b;
    const auto fields = tensor_fields(c.op);
    for (const auto& f : fields) {
        if (f.role != TensorRole::Output) continue;
        if (c.in_place.count(std::string(f.name))) continue;
        buffers[std::string(f.name)] = std::vector<std::byte>(buffer_size(*f.desc));
    }
    for (const auto& f : fields) {
        auto it = c.in_place.find(std::string(f.name));
        const std::string& owner = it != c.in_place.end() ? it->second : std::string(f.name);
        b.bind(std::string(f.name), buffers.at(owner));
    }
    evaluate(c.op, b);
    Outputs o;
    for (const auto& f : fields)
        if (f.role == TensorRole::Output) o.values[std::string(f.name)] = gather_logical(*f.desc, b.at(f.name));
    return o;
}

std::vector<Mismatch> compare_expected(const Case& c, const Outputs& outputs) {
    std::vector<Mismatch> m;
    for (const auto& f : tensor_fields(c.op)) {
        auto e = c.expected.find(std::string(f.name));
        if (e == c.expected.end()) continue;
        const DataType t = f.desc->DataType;
        const size_t w = element_size(t);
        const auto& actual = outputs.values.at(std::string(f.name));
        std::set<uint64_t> skip;
        for (const auto& d : e->second.dont_care) skip.insert(d.Index);
        for (const auto& d : dont_care(c.op, f.name)) skip.insert(d.Index);
        for (uint64_t i = 0; i < element_count(*f.desc); ++i) {
            if (skip.count(i)) continue;
            const uint64_t a = load_bits(t, actual.data() + i * w), x = load_bits(t, e->second.values.data() + i * w);
            if (a != x) m.push_back({std::string(f.name), i, x, a});
        }
    }
    return m;
}

// ---- Writing -----------------------------------------------------------------------------

namespace {

ordered_json tensor_desc_json(const TensorDesc& d) {
    ordered_json j;
    j["DataType"] = std::string(name(d.DataType));
    j["Sizes"] = d.Sizes;
    if (!d.Strides.empty()) j["Strides"] = d.Strides;
    if (d.Flags == DML_TENSOR_FLAG_OWNED_BY_DML) j["Flags"] = "OWNED_BY_DML";
    else if (d.Flags) j["Flags"] = d.Flags;
    if (d.TotalTensorSizeInBytes) j["TotalTensorSizeInBytes"] = d.TotalTensorSizeInBytes;
    if (d.GuaranteedBaseOffsetAlignment) j["GuaranteedBaseOffsetAlignment"] = d.GuaranteedBaseOffsetAlignment;
    return j;
}

struct DescWriter {
    ordered_json out = ordered_json::object();
    void tensor(std::string_view n, const TensorDesc& d, TensorRole) { out[std::string(n)] = tensor_desc_json(d); }
    void optional_tensor(std::string_view n, const std::optional<TensorDesc>& d, TensorRole) {
        if (d) out[std::string(n)] = tensor_desc_json(*d);
    }
    void data_type(std::string_view n, const DataType& t) { out[std::string(n)] = std::string(name(t)); }
    void float32(std::string_view n, const float& f) { out[std::string(n)] = json_raw(format_exact_value(DataType::FLOAT32, to_bits(f))); }
    void scale_bias(std::string_view n, const std::optional<DML_SCALE_BIAS>& sb) {
        if (!sb) return;
        out[std::string(n)] = {{"Scale", json_raw(format_exact_value(DataType::FLOAT32, to_bits(sb->Scale)))},
                               {"Bias", json_raw(format_exact_value(DataType::FLOAT32, to_bits(sb->Bias)))}};
    }
    void scalar(std::string_view n, const DML_SCALAR_UNION& u, DataType t) {
        // The value in its data type; bytes beyond the member, if any, as the Bytes member.
        bool extra = false;
        for (size_t i = is_valid(t) ? element_size(t) : 0; i < 8; ++i) extra = extra || u.Bytes[i] != 0;
        if (!is_valid(t) || extra) {
            std::vector<int> bytes(u.Bytes.begin(), u.Bytes.end());
            out[std::string(n)] = {{"Bytes", bytes}};
            return;
        }
        out[std::string(n)] = json_raw(format_exact_value(t, u.as<uint64_t>()));
    }
    void uint(std::string_view n, const uint32_t& v) { out[std::string(n)] = v; }
    void uint_array(std::string_view n, const std::vector<uint32_t>& v) { out[std::string(n)] = v; }
    void int_array(std::string_view n, const std::vector<int32_t>& v) { out[std::string(n)] = v; }
    void float_array(std::string_view n, const std::vector<float>& v) {
        ordered_json a = ordered_json::array();
        for (float f : v) a.push_back(json_raw(format_exact_value(DataType::FLOAT32, to_bits(f))));
        out[std::string(n)] = a;
    }
    void enumeration(std::string_view n, const uint32_t& v, const EnumNames& e) {
        out[std::string(n)] = v < e.Names.size() ? ordered_json(std::string(e.Names[v])) : ordered_json(v);
    }
};

ordered_json case_json(const Case& c, const fs::path& out_file) {
    ordered_json j;
    j["format"] = kCaseFormatVersion;
    j["name"] = json_text(c.name);
    if (!c.description.empty()) j["description"] = json_text(c.description);
    j["operator"] = full_name(c.op.Type);
    j["desc"] = std::visit([](const auto& d) {
        DescWriter w;
        std::decay_t<decltype(d)>::fields(d, w);
        return w.out;
    }, c.op.Desc);
    ordered_json inputs = ordered_json::object();
    const fs::path out_dir = out_file.has_parent_path() ? fs::absolute(out_file.parent_path()) : fs::current_path();
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Input) continue;
        json spec = c.input_specs.at(std::string(f.name));
        if (spec.is_object() && spec.contains("Npy"))
            spec["Npy"] = fs::path(spec["Npy"].get<std::string>()).lexically_relative(out_dir).generic_string();
        inputs[std::string(f.name)] = ordered_json::parse(spec.dump());
    }
    j["inputs"] = inputs;
    if (!c.in_place.empty()) {
        ordered_json ip = ordered_json::object();
        for (const auto& [o, i] : c.in_place) ip[o] = i;
        j["inPlace"] = ip;
    }
    return j;
}

ordered_json expected_json(DataType t, const std::vector<std::byte>& values, const Tolerance& tol, const std::vector<DontCare>& dc,
                           const Boundary& boundary) {
    ordered_json e;
    ordered_json v = ordered_json::array();
    const size_t w = element_size(t);
    for (size_t i = 0; i < values.size() / w; ++i) v.push_back(json_raw(format_value(t, load_bits(t, values.data() + i * w))));
    e["Values"] = v;
    ordered_json tj;
    tj["Kind"] = tol.Kind;
    if (tol.Kind == "Ulp") tj["Ulp"] = tol.Ulp;
    if (tol.Kind == "Summed") tj["MaxTerms"] = tol.MaxTerms;
    if (!tol.Terms.empty()) tj["Terms"] = tol.Terms;
    if (!tol.Why.empty()) tj["Why"] = json_text(tol.Why);
    e["Tolerance"] = tj;
    if (!dc.empty()) {
        ordered_json d = ordered_json::array();
        for (const auto& x : dc) d.push_back({{"Index", x.Index}, {"Reason", json_text(x.Reason)}});
        e["DontCare"] = d;
    }
    if (!boundary.Indices.empty()) e["Boundary"] = {{"Indices", boundary.Indices}, {"Reason", json_text(boundary.Reason)}};
    return e;
}

}  // namespace

std::string write_golden(const Case& c, const Outputs& outputs, const fs::path& out_file) {
    ordered_json j = case_json(c, out_file);
    ordered_json ex = ordered_json::object();
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Output) continue;
        auto given = c.expected.find(std::string(f.name));
        std::vector<DontCare> dc = given != c.expected.end() ? given->second.dont_care : std::vector<DontCare>{};
        for (auto& d : dont_care(c.op, f.name))  // the operator's own, unless the case names them already
            if (std::none_of(dc.begin(), dc.end(), [&](const DontCare& x) { return x.Index == d.Index; })) dc.push_back(std::move(d));
        std::sort(dc.begin(), dc.end(), [](const DontCare& a, const DontCare& b) { return a.Index < b.Index; });
        ex[std::string(f.name)] = expected_json(f.desc->DataType, outputs.values.at(std::string(f.name)), stated_tolerance(c, f.name), dc,
                                                   boundary(c.op, f.name));
    }
    j["expected"] = ex;
    ordered_json pol = ordered_json::object();
    for (const auto& p : info(c.op.Type).Policies) pol[std::string(p.Name)] = std::string(p.Value);
    j["policies"] = pol;
    ordered_json prov;
    prov["dmlref"] = std::string(dmlref_version());
    prov["format"] = kCaseFormatVersion;
    if (!c.seeds.empty()) prov["seeds"] = c.seeds;
    j["provenance"] = prov;
    return dump_json(j);
}

}  // namespace dmlref
