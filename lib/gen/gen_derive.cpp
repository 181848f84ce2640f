// Derived fields of a generated case (docs/gen.md, "Derived fields"): {"$repeat": v} arrays,
// "auto" data types and dimension counts, and "auto" / "auto:ceil" tensor sizes computed from the
// desc (pooling windows, slice windows, resample scales, the forward tensors of a grad).
#include "gen/gen_internal.hpp"

#include "dmlref/values.hpp"

#include "../../reference/kit/family.hpp"

#include <cmath>
#include <cstring>
#include <map>

namespace dmlref::gen {

uint64_t pooled_size(uint64_t in, uint64_t start, uint64_t end, uint64_t window, uint64_t stride, uint64_t dilation,
                     bool ceil) {
    const uint64_t padded = in + start + end;
    const uint64_t extent = 1 + (window - 1) * dilation;
    if (stride == 0 || window == 0 || extent > padded) return 0;
    const uint64_t span = padded - extent;
    return span / stride + 1 + (ceil && span % stride ? 1 : 0);
}

namespace {

// The fields of an operator's desc, by name and kind, in the struct's order.
struct FieldNames : FieldVisitor {
    std::vector<std::pair<std::string, std::string>> items;  // (name, kind)
    void add(std::string_view n, const char* k) { items.emplace_back(std::string(n), k); }
    void tensor(std::string_view n, TensorDesc&, TensorRole) override { add(n, "tensor"); }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>&, TensorRole) override { add(n, "tensor"); }
    std::map<std::string, std::string> counted;  // a tensor array's count field -> the array
    void tensor_array(std::string_view count, std::string_view n, std::vector<TensorDesc>&, TensorRole) override {
        add(count, "tensor_count");
        add(n, "tensor_array");
        counted[std::string(count)] = std::string(n);
    }
    void data_type(std::string_view n, DataType&) override { add(n, "data_type"); }
    void scalar(std::string_view n, DML_SCALAR_UNION&, DataType) override { add(n, "scalar"); }
    void float32(std::string_view n, float&) override { add(n, "float"); }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>&) override { add(n, "scale_bias"); }
    void uint(std::string_view n, uint32_t&) override { add(n, "uint"); }
    void int32(std::string_view n, int32_t&) override { add(n, "int"); }
    void size_2d(std::string_view n, DML_SIZE_2D&) override { add(n, "size_2d"); }
    void uint_array(std::string_view n, std::vector<uint32_t>&) override { add(n, "array"); }
    void int_array(std::string_view n, std::vector<int32_t>&) override { add(n, "array"); }
    void float_array(std::string_view n, std::vector<float>&) override { add(n, "array"); }
    void enumeration(std::string_view n, uint32_t&, const EnumNames&) override { add(n, "enum"); }
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>&) override {
        add(n, "fused_activation");
    }
};

FieldNames field_names(OperatorType t) {
    Operator op = make_operator(t);
    FieldNames f;
    op.Desc.fields(f);
    return f;
}

bool has(const FieldNames& f, std::string_view n) {
    for (const auto& [name, kind] : f.items)
        if (name == n) return true;
    return false;
}

bool is_auto(const ordered_json& v) { return v.is_string() && v.get<std::string>().rfind("auto", 0) == 0; }

std::optional<std::vector<uint64_t>> uints(const ordered_json& a) {
    if (!a.is_array()) return std::nullopt;
    std::vector<uint64_t> v;
    for (const auto& x : a) {
        if (!x.is_number_integer()) return std::nullopt;
        const int64_t i = x.get<int64_t>();
        if (i < 0) return std::nullopt;
        v.push_back(uint64_t(i));
    }
    return v;
}

std::optional<std::vector<int64_t>> ints(const ordered_json& a) {
    if (!a.is_array()) return std::nullopt;
    std::vector<int64_t> v;
    for (const auto& x : a) {
        if (!x.is_number_integer()) return std::nullopt;
        v.push_back(x.get<int64_t>());
    }
    return v;
}

struct Deriver {
    ordered_json& desc;
    const std::string& where;
    Diagnostics& diags;
    bool ok = true;

    void fail(const std::string& p, const std::string& msg) {
        diags.error(p, "gen.auto", where + ": " + msg);
        ok = false;
    }
    const ordered_json* tensor(const std::string& n) const {
        if (!desc.contains(n) || !desc[n].is_object()) return nullptr;
        return &desc[n];
    }
    std::optional<std::vector<uint64_t>> sizes(const std::string& n) const {
        const auto* t = tensor(n);
        if (!t || !t->contains("Sizes")) return std::nullopt;
        return uints((*t)["Sizes"]);
    }
};

// The JSON pointer of a tensor field in the desc: "InputTensors[1]" is /desc/InputTensors/1.
std::string reference_path(const std::string& name) {
    if (const auto e = split_tensor_array_element(name))
        return pointer_append(pointer_append("/desc", e->first), e->second);
    return pointer_append("/desc", name);
}

ordered_json to_json(const std::vector<uint64_t>& v) {
    ordered_json a = ordered_json::array();
    for (auto x : v) a.push_back(x);
    return a;
}

}  // namespace

bool derive(ordered_json& c, const std::string& where, Diagnostics& diags) {
    if (!c.is_object() || !c.contains("operator") || !c["operator"].is_string() || !c.contains("desc") ||
        !c["desc"].is_object())
        return true;  // nothing to derive; the case reader names what is missing
    const auto type = parse_operator_type(c["operator"].get<std::string>());
    if (!type) return true;
    const kit::OperatorRecord& record = kit::record(*type);
    const FieldNames f = field_names(*type);
    ordered_json& desc = c["desc"];
    Deriver d{desc, where, diags};

    // The tensor the others follow (the record's BaseTensors: the first the case gives sizes for).
    std::string base;
    for (std::string_view n : record.BaseTensors)
        if (has(f, n) && d.sizes(std::string(n))) {
            base = n;
            break;
        }
    if (base.empty()) return true;
    const std::vector<uint64_t> base_sizes = *d.sizes(base);
    const size_t rank = base_sizes.size();
    const size_t count = rank >= record.ArraysFrom ? rank - record.ArraysFrom : 0;

    // {"$repeat": v} and "auto" counts and data types.
    for (const auto& [name, kind] : f.items) {
        if (!desc.contains(name)) continue;
        ordered_json& v = desc[name];
        const std::string p = "/desc/" + name;
        if (v.is_object() && v.contains("$repeat")) {
            const ordered_json& r = v["$repeat"];
            ordered_json a = ordered_json::array();
            if (r.is_array() && r.empty()) {
                d.fail(p, "$repeat of an empty array");
                continue;
            }
            for (size_t i = 0; i < count; ++i) a.push_back(r.is_array() ? r[i % r.size()] : r);
            v = a;
        } else if ((kind == "uint") && v == "auto") {
            v = count;
        } else if (kind == "data_type" && v == "auto") {
            v = desc[base]["DataType"];
        } else if (kind == "tensor" && v.is_object() && v.contains("DataType") && v["DataType"] == "auto") {
            v["DataType"] = desc[base]["DataType"];
        } else if (kind == "tensor_count" && v == "auto") {
            const std::string& a = f.counted.at(name);
            v = desc.contains(a) && desc[a].is_array() ? desc[a].size() : 0;
        } else if (kind == "tensor_array" && v.is_array()) {
            for (auto& t : v)
                if (t.is_object() && t.contains("DataType") && t["DataType"] == "auto")
                    t["DataType"] = desc[base]["DataType"];
        }
    }

    // "auto" sizes: the base's, unless the record's sizes rule says otherwise. A tensor array's
    // elements are tensors of their own ("InputTensors[1]").
    std::vector<std::pair<std::string, ordered_json*>> tensors;  // (name, its desc)
    for (const auto& [name, kind] : f.items) {
        if (kind == "tensor" && desc.contains(name) && desc[name].is_object()) tensors.emplace_back(name, &desc[name]);
        if (kind == "tensor_array" && desc.contains(name) && desc[name].is_array())
            for (size_t i = 0; i < desc[name].size(); ++i)
                if (desc[name][i].is_object())
                    tensors.emplace_back(std::string(tensor_array_element(name, i)), &desc[name][i]);
    }
    for (const auto& [name, t] : tensors) {
        if (!t->contains("Sizes")) continue;
        ordered_json& s = (*t)["Sizes"];
        if (!is_auto(s)) continue;
        const std::string p = reference_path(name) + "/Sizes";
        const std::string mode = s.get<std::string>();
        if (mode != "auto" && mode != "auto:ceil") {
            d.fail(p, "Sizes is \"auto\" or \"auto:ceil\", not \"" + mode + "\"");
            continue;
        }
        std::vector<uint64_t> out = base_sizes;
        if (record.sizes) {
            std::string error_path, error;
            if (!record.sizes({desc, name, base, base_sizes, mode == "auto:ceil"}, out, error_path, error)) {
                d.fail(error_path.empty() ? p : error_path, error);
                continue;
            }
        }
        s = to_json(out);
    }
    return d.ok;
}

}  // namespace dmlref::gen

namespace dmlref::kit {

std::optional<std::vector<uint64_t>> json_uints(const ordered_json& desc, std::string_view field, size_t count,
                                                uint64_t fallback, std::string& error) {
    const std::string n(field);
    if (!desc.contains(n)) return std::vector<uint64_t>(count, fallback);
    auto got = gen::uints(desc[n]);
    if (!got || got->size() != count) {
        error = n + " needs " + std::to_string(count) + " non-negative integers to derive sizes";
        return std::nullopt;
    }
    return got;
}

std::optional<std::vector<int64_t>> json_ints(const ordered_json& desc, std::string_view field, size_t count,
                                              std::string& error) {
    const std::string n(field);
    auto got = desc.contains(n) ? gen::ints(desc[n]) : std::nullopt;
    if (!got || got->size() != count) {
        error = n + " needs " + std::to_string(count) + " integers to derive sizes";
        return std::nullopt;
    }
    return got;
}

// A FLOAT32 desc value (a raw number text or an integer) as the case reader would read it.
std::optional<float> json_float(const ordered_json& v) {
    std::string text;
    if (v.is_number_integer()) text = v.dump();
    else if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>()[0] == '\x1f')
        text = v.get<std::string>().substr(1);
    else return std::nullopt;
    const ParsedValue p = parse_decimal(DataType::FLOAT32, text);
    if (!p.ok) return std::nullopt;
    float f;
    const uint32_t b = uint32_t(p.bits);
    std::memcpy(&f, &b, 4);
    return f;
}

}  // namespace dmlref::kit
