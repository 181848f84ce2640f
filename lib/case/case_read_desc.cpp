// Reading a case's desc (docs/case-format.md): tensor descs and every field of the operator's
// desc struct, by DirectML's names.
#include "case/case_reader.hpp"
#include "case/case_notation.hpp"
#include "case/json_tokens.hpp"

namespace dmlref::case_reader {

namespace {

// ---- Tensor descs ------------------------------------------------------------------------

std::optional<DataType> read_data_type(Reader& r, const json& node, const std::string& path) {
    if (node.is_string()) {
        if (auto t = parse_data_type(node.get<std::string>())) return t;
        // DirectML's packed 4-bit types (QUANTIZE and DEQUANTIZE, DML_FEATURE_LEVEL_6_3): a named gap.
        const std::string s = node.get<std::string>();
        if (s == "INT4" || s == "UINT4" || s == "DML_TENSOR_DATA_TYPE_INT4" || s == "DML_TENSOR_DATA_TYPE_UINT4") {
            r.diags.error(
                path, "case.int4-unsupported",
                s + " (two elements packed in a byte) is not among dmlref's eleven element types; dmlref does not evaluate "
                    "INT4 and UINT4 tensors (docs/golden.md, \"Quantize and dequantize\")");
            return std::nullopt;
        }
    }
    r.diags.error(
        path, "case.data-type",
        node.dump() +
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
            r.diags.error(pointer_append(path, "Type"), "tensor.type",
                          "DML_TENSOR_DESC.Type must be DML_TENSOR_TYPE_BUFFER");
        path = pointer_append(path, "Desc");
        node = &(*node)["Desc"];
        if (!r.is_object(*node, path, "DML_BUFFER_TENSOR_DESC")) return std::nullopt;
    }
    r.only_keys(*node, path,
                {"DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
                 "GuaranteedBaseOffsetAlignment", "Type"},
                "DML_BUFFER_TENSOR_DESC");
    TensorDesc d;
    bool ok = true;
    if (node->contains("Type")) {
        const json& type = (*node)["Type"];
        if (!type.is_string() || (type != "DML_TENSOR_TYPE_BUFFER" && type != "BUFFER")) {
            r.diags.error(pointer_append(path, "Type"), "tensor.type",
                          "Type must be DML_TENSOR_TYPE_BUFFER (the only tensor type)");
            ok = false;
        }
    }
    if (!node->contains("DataType")) {
        r.diags.error(path, "case.missing-field", "the tensor desc has no DataType");
        ok = false;
    } else if (auto t = read_data_type(r, (*node)["DataType"], pointer_append(path, "DataType"))) d.DataType = *t;
    else ok = false;
    if (!node->contains("Sizes")) {
        r.diags.error(path, "case.missing-field", "the tensor desc has no Sizes");
        ok = false;
    } else if (auto s = r.uint_array((*node)["Sizes"], pointer_append(path, "Sizes"), "Sizes")) d.Sizes = *s;
    else ok = false;
    if (node->contains("Strides") && !(*node)["Strides"].is_null()) {
        if (auto s = r.uint_array((*node)["Strides"], pointer_append(path, "Strides"), "Strides")) d.Strides = *s;
        else ok = false;
    }
    if (node->contains("DimensionCount")) {
        auto n = r.unsigned_value((*node)["DimensionCount"], pointer_append(path, "DimensionCount"), 0xffffffffull,
                                  "DimensionCount");
        if (n && *n != d.Sizes.size() && ok) {
            r.diags.error(pointer_append(path, "DimensionCount"), "tensor.dimension-count-mismatch",
                          "DimensionCount is " + std::to_string(*n) + " but Sizes has " +
                              std::to_string(d.Sizes.size()) + " entries; Sizes must have DimensionCount entries");
            ok = false;
        }
    }
    if (node->contains("Flags")) {
        const json& f = (*node)["Flags"];
        if (f.is_string() && (f == "DML_TENSOR_FLAG_OWNED_BY_DML" || f == "OWNED_BY_DML"))
            d.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        else if (f.is_string() && (f == "DML_TENSOR_FLAG_NONE" || f == "NONE")) d.Flags = DML_TENSOR_FLAG_NONE;
        else if (auto v = r.unsigned_value(f, pointer_append(path, "Flags"), 0xffffffffull, "Flags"))
            d.Flags = uint32_t(*v);
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
        auto v = r.unsigned_value((*node)["GuaranteedBaseOffsetAlignment"],
                                  pointer_append(path, "GuaranteedBaseOffsetAlignment"), 0xffffffffull,
                                  "GuaranteedBaseOffsetAlignment");
        if (v) d.GuaranteedBaseOffsetAlignment = uint32_t(*v);
        else ok = false;
    }
    if (!ok) return std::nullopt;
    return d;
}

// ---- Desc fields -------------------------------------------------------------------------

struct DescReader : FieldVisitor {
    Reader& r;
    const json& node;
    std::string struct_name;
    std::vector<std::string_view> seen;
    bool ok = true;
    DescReader(Reader& reader, const json& n, std::string name) : r(reader), node(n), struct_name(std::move(name)) {}

    const json* field(std::string_view n, bool required) {
        seen.push_back(n);
        if (node.contains(std::string(n)) && !node[std::string(n)].is_null()) return &node[std::string(n)];
        if (required) {
            r.diags.error("/desc", "case.missing-field",
                          std::string(struct_name) + " needs the field " + std::string(n));
            ok = false;
        }
        return nullptr;
    }
    std::string path(std::string_view n) const { return pointer_append("/desc", n); }

    void tensor(std::string_view n, TensorDesc& d, TensorRole) override {
        if (const json* j = field(n, true)) {
            if (auto t = read_tensor_desc(r, *j, path(n))) d = *t;
            else ok = false;
        }
    }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole) override {
        if (const json* j = field(n, false)) {
            if (auto t = read_tensor_desc(r, *j, path(n))) d = *t;
            else ok = false;
        }
    }
    // An array of tensor descs; its count field may be left out, and when given must be the
    // array's length (case.tensor-count).
    void tensor_array(std::string_view count_name, std::string_view n, std::vector<TensorDesc>& d,
                      TensorRole) override {
        const json* count = field(count_name, false);
        const json* j = field(n, true);
        if (!j) return;
        if (!j->is_array()) {
            r.diags.error(path(n), "case.type", std::string(n) + " must be an array of tensor descs");
            ok = false;
            return;
        }
        d.clear();
        for (size_t i = 0; i < j->size(); ++i) {
            if (auto t = read_tensor_desc(r, (*j)[i], pointer_append(path(n), i))) d.push_back(*t);
            else ok = false;
        }
        if (count) {
            auto c = r.unsigned_value(*count, path(count_name), 0xffffffffull, count_name);
            if (!c) ok = false;
            else if (*c != j->size()) {
                r.diags.error(path(count_name), "case.tensor-count",
                              std::string(count_name) + " is " + std::to_string(*c) + " but " + std::string(n) +
                                  " holds " + std::to_string(j->size()) + " tensor descs; " + std::string(count_name) +
                                  " is the length of " + std::string(n) + " (or leave it out)");
                ok = false;
            }
        }
    }
    void data_type(std::string_view n, DataType& t) override {
        if (const json* j = field(n, true)) {
            if (auto v = read_data_type(r, *j, path(n))) t = *v;
            else ok = false;
        }
    }
    void float32(std::string_view n, float& f) override {
        if (const json* j = field(n, true)) {
            if (auto b = r.value(DataType::FLOAT32, *j, path(n), true)) f = from_bits<float>(uint32_t(*b));
            else ok = false;
        }
    }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>& sb) override {
        const json* j = field(n, false);
        if (!j) return;
        if (!r.is_object(*j, path(n), "DML_SCALE_BIAS")) {
            ok = false;
            return;
        }
        r.only_keys(*j, path(n), {"Scale", "Bias"}, "DML_SCALE_BIAS");
        DML_SCALE_BIAS v;
        for (auto [key, dst] : {std::pair{"Scale", &v.Scale}, std::pair{"Bias", &v.Bias}}) {
            if (!j->contains(key)) {
                r.diags.error(path(n), "case.missing-field", std::string("DML_SCALE_BIAS needs the field ") + key);
                ok = false;
                continue;
            }
            if (auto b = r.value(DataType::FLOAT32, (*j)[key], pointer_append(path(n), key), true))
                *dst = from_bits<float>(uint32_t(*b));
            else ok = false;
        }
        sb = v;
    }
    void uint(std::string_view n, uint32_t& v) override {
        if (const json* j = field(n, true)) {
            if (auto x = r.unsigned_value(*j, path(n), 0xffffffffull, n)) v = uint32_t(*x);
            else ok = false;
        }
    }
    // An INT field: an integer from INT32_MIN to INT32_MAX (case.int).
    void int32(std::string_view n, int32_t& v) override {
        const json* j = field(n, true);
        if (!j) return;
        const bool fits = (j->is_number_integer() && j->get<int64_t>() >= INT32_MIN &&
                           j->get<int64_t>() <= INT32_MAX) ||
                          (j->is_number_unsigned() && j->get<uint64_t>() <= uint64_t(INT32_MAX));
        if (!fits) {
            r.diags.error(path(n), "case.int",
                          std::string(n) + " must be an integer from -2147483648 to 2147483647, got " + j->dump());
            ok = false;
            return;
        }
        v = int32_t(j->get<int64_t>());
    }
    // DML_SIZE_2D: {"Width": w, "Height": h}, both members required, each a UINT.
    void size_2d(std::string_view n, DML_SIZE_2D& v) override {
        const json* j = field(n, true);
        if (!j) return;
        if (!r.is_object(*j, path(n), "DML_SIZE_2D")) {
            ok = false;
            return;
        }
        r.only_keys(*j, path(n), {"Width", "Height"}, "DML_SIZE_2D");
        for (auto [key, dst] : {std::pair{"Width", &v.Width}, std::pair{"Height", &v.Height}}) {
            if (!j->contains(key)) {
                r.diags.error(path(n), "case.missing-field", std::string("DML_SIZE_2D needs the field ") + key);
                ok = false;
                continue;
            }
            if (auto x = r.unsigned_value((*j)[key], pointer_append(path(n), key), 0xffffffffull, key))
                *dst = uint32_t(*x);
            else ok = false;
        }
    }
    void uint_array(std::string_view n, std::vector<uint32_t>& v) override {
        if (const json* j = field(n, true)) {
            if (auto x = r.uint_array(*j, path(n), n)) v = *x;
            else ok = false;
        }
    }
    void int_array(std::string_view n, std::vector<int32_t>& v) override {
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
            const bool fits = (e.is_number_integer() && e.get<int64_t>() >= INT32_MIN &&
                               e.get<int64_t>() <= INT32_MAX) ||
                              (e.is_number_unsigned() && e.get<uint64_t>() <= uint64_t(INT32_MAX));
            if (!fits) {
                r.diags.error(pointer_append(path(n), i), "case.int",
                              std::string(n) + "[" + std::to_string(i) +
                                  "] must be an integer from -2147483648 to 2147483647, got " + e.dump());
                ok = false;
                continue;
            }
            v.push_back(int32_t(e.get<int64_t>()));
        }
    }
    void float_array(std::string_view n, std::vector<float>& v) override {
        const json* j = field(n, true);
        if (!j) return;
        if (!j->is_array() || j->size() > 64) {
            r.diags.error(path(n), "case.type", std::string(n) + " must be an array of at most 8 numbers");
            ok = false;
            return;
        }
        v.clear();
        for (size_t i = 0; i < j->size(); ++i) {
            if (auto b = r.value(DataType::FLOAT32, (*j)[i], pointer_append(path(n), i), true))
                v.push_back(from_bits<float>(uint32_t(*b)));
            else ok = false;
        }
    }
    void enumeration(std::string_view n, uint32_t& v, const EnumNames& e) override {
        const json* j = field(n, true);
        if (!j) return;
        if (j->is_string()) {
            std::string s = j->get<std::string>();
            if (s.rfind(e.Prefix, 0) == 0) s = s.substr(e.Prefix.size());
            for (size_t i = 0; i < e.Names.size(); ++i)
                if (e.Names[i] == s) {
                    v = uint32_t(i);
                    return;
                }
        }
        std::string names;
        for (size_t i = 0; i < e.Names.size(); ++i) names += (i ? ", " : "") + std::string(e.Names[i]);
        r.diags.error(path(n), "case.enum",
                      j->dump() + " is not a value of " + std::string(n) + "; write one of " + names +
                          " (or with the prefix " + std::string(e.Prefix) + ")");
        ok = false;
    }
    // A fused activation (a nested DML_OPERATOR_DESC): null or absent for none; otherwise
    // {"Type": "ACTIVATION_LEAKY_RELU", "Alpha": 0.01} or the long form {"Type": ..., "Desc":
    // {"Alpha": 0.01}} ("type" and "desc" too, as DxDispatch's parser reads them). The
    // activation's InputTensor and OutputTensor may appear only as null.
    // Which types dmlref evaluates is the operator's rule; a type DirectML does not allow to be
    // fused is an error here (fused-activation.type).
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>& fa) override {
        const json* j = field(n, false);
        if (!j) return;
        std::string p = path(n);
        if (!r.is_object(*j, p, "a fused activation (DML_OPERATOR_DESC)")) {
            ok = false;
            return;
        }
        const auto& types = fused_activation_types();
        DML_FUSED_ACTIVATION v;
        const std::string type_key = j->contains("Type") || !j->contains("type") ? "Type" : "type";
        const std::string desc_key = j->contains("Desc") || !j->contains("desc") ? "Desc" : "desc";
        const json* type = j->contains(type_key) ? &(*j)[type_key] : nullptr;
        std::string name = type && type->is_string() ? type->get<std::string>() : "";
        if (name.rfind("DML_OPERATOR_", 0) == 0) name = name.substr(13);
        bool known = false;
        for (size_t i = 0; i < types.size(); ++i)
            if (types[i].Name == name) {
                v.Type = uint32_t(i);
                known = true;
            }
        if (!known) {
            std::string list;
            for (size_t i = 0; i < types.size(); ++i) list += (i ? ", " : "") + std::string(types[i].Name);
            r.diags.error(type ? pointer_append(p, type_key) : p, "fused-activation.type",
                          (type ? type->dump() + " is not an activation DirectML allows to be fused"
                                : std::string("the fused activation has no Type")) +
                              "; write one of " + list + " (docs/golden.md, Batch normalization)");
            ok = false;
            return;
        }
        const json* body = j;
        if (j->contains(desc_key)) {
            r.only_keys(*j, p, {type_key, desc_key}, "DML_OPERATOR_DESC");
            p = pointer_append(p, desc_key);
            body = &(*j)[desc_key];
            if (!r.is_object(*body, p, "the activation's desc")) {
                ok = false;
                return;
            }
        }
        std::vector<std::string_view> allowed = {"InputTensor", "OutputTensor"};
        if (body == j) allowed.push_back(type_key);
        const std::string struct_name = "DML_" + std::string(types[v.Type].Name) + "_OPERATOR_DESC";
        for (size_t k = 0; k < 2; ++k) {
            const std::string_view pn = types[v.Type].Parameters[k];
            if (pn.empty()) continue;
            allowed.push_back(pn);
            if (!body->contains(std::string(pn))) {
                r.diags.error(p, "case.missing-field", struct_name + " needs the field " + std::string(pn));
                ok = false;
                continue;
            }
            if (auto b = r.value(DataType::FLOAT32, (*body)[std::string(pn)], pointer_append(p, pn), true))
                v.Parameters[k] = from_bits<float>(uint32_t(*b));
            else ok = false;
        }
        r.only_keys(*body, p, allowed, struct_name);
        for (const char* t : {"InputTensor", "OutputTensor"})
            if (body->contains(t) && !(*body)[t].is_null()) {
                r.diags.error(pointer_append(p, t), "fused-activation.tensor",
                              std::string("a fused activation's ") + t +
                                  " must be null (DirectML: the fused operator's tensors are used)");
                ok = false;
            }
        fa = v;
    }
    // DML_SCALAR_UNION: a value in the union's data type, or an object naming one member.
    void scalar(std::string_view n, DML_SCALAR_UNION& u, DataType t) override {
        const json* j = field(n, true);
        if (!j) return;
        const std::string p = path(n);
        if (j->is_object()) {
            static const std::vector<std::pair<std::string_view, DataType>> members = {
                {"Int8", DataType::INT8},      {"UInt8", DataType::UINT8},   {"Int16", DataType::INT16},
                {"UInt16", DataType::UINT16},  {"Int32", DataType::INT32},   {"UInt32", DataType::UINT32},
                {"Int64", DataType::INT64},    {"UInt64", DataType::UINT64}, {"Float32", DataType::FLOAT32},
                {"Float64", DataType::FLOAT64}};
            if (j->size() != 1) {
                r.diags.error(p, "scalar-union.member",
                              "a DML_SCALAR_UNION object names exactly one member (Int8 .. Float64, or Bytes)");
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
                    if (auto b = r.unsigned_value((*j->begin())[i], pointer_append(mp, i), 255, "a byte"))
                        u.Bytes[i] = uint8_t(*b);
                    else ok = false;
                return;
            }
            for (const auto& [m, mt] : members)
                if (m == key) {
                    if (auto b = r.value(mt, *j->begin(), mp, true)) u = DML_SCALAR_UNION::of(*b);
                    else ok = false;
                    return;
                }
            r.diags.error(
                mp, "scalar-union.member",
                "\"" + key +
                    "\" is not a DML_SCALAR_UNION member (Bytes, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float32, Float64)");
            ok = false;
            return;
        }
        if (!is_valid(t)) {
            r.diags.error(p, "scalar-union.data-type",
                          "the value cannot be read: MinMaxDataType is not a valid data type");
            ok = false;
            return;
        }
        // docs/golden.md, Decisions: a FLOAT16 bound must be exact, or given as bits.
        if (t == DataType::FLOAT16) {
            const ParsedValue v = parse_value(t, r.doc.token(*j, p));
            if (v.ok && v.inexact) {
                r.diags.error(
                    p, "scalar-union.float16-exact",
                    r.doc.token(*j, p).text +
                        " is not exactly representable in FLOAT16; write an exact value or the bits, e.g. {\"UInt16\": " +
                        std::to_string(v.bits) + "} for " + display_value(t, v.bits));
                ok = false;
                return;
            }
        }
        // The other types: any value, rounded with a warning where inexact.
        if (auto bits = r.value(t, *j, p, true))
            u = DML_SCALAR_UNION::of(*bits);  // little-endian: the member of type t
        else ok = false;
    }
};

}  // namespace

bool read_desc(Reader& r, Operator& op, const json& node) {
    const std::string struct_name = "DML_" + std::string(info(op.Type).Name) + "_OPERATOR_DESC";
    DescReader dr(r, node, struct_name);
    op.Desc.fields(dr);
    r.only_keys(node, "/desc", dr.seen, struct_name);
    return dr.ok;
}

void record_desc_notation(Reader& r, Case& c, const json& node, size_t diags_before) {
    std::set<std::string> tensors;
    for (const auto& f : tensor_fields(c.op)) tensors.insert(std::string(f.name));
    const ordered_json canonical = canonical_desc_json(c.op);
    for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string p = pointer_append("/desc", it.key());
        if (tensors.count(it.key()) || it->is_null() || !canonical.contains(it.key()) ||
            inexact_under(r.diags, p, diags_before))
            continue;
        ordered_json written = with_number_text(r.doc, *it, p);
        const ordered_json& canon = canonical[it.key()];
        if (written.is_object() && canon.is_object()) {  // the reader's objects are unordered: dmlref's key order
            ordered_json ordered = ordered_json::object();
            for (const auto& [k, v] : canon.items())
                if (written.contains(k)) ordered[k] = written[k];
            for (const auto& [k, v] : written.items())
                if (!ordered.contains(k)) ordered[k] = v;
            written = std::move(ordered);
        }
        c.desc_notation[it.key()] = {written.dump(), canon.dump()};
    }
}

}  // namespace dmlref::case_reader
