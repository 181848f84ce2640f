// Derived fields of a generated case (docs/gen.md, "Derived fields"): {"$repeat": v} arrays,
// "auto" data types and dimension counts, and "auto" / "auto:ceil" tensor sizes computed from the
// desc (pooling windows, slice windows, resample scales, the forward tensors of a grad).
#include "gen_internal.hpp"

#include "dmlref/values.hpp"

#include <cmath>
#include <cstring>

namespace dmlref::gen {

uint64_t pooled_size(uint64_t in, uint64_t start, uint64_t end, uint64_t window, uint64_t stride, uint64_t dilation, bool ceil) {
    const uint64_t padded = in + start + end;
    const uint64_t extent = 1 + (window - 1) * dilation;
    if (stride == 0 || window == 0 || extent > padded) return 0;
    const uint64_t span = padded - extent;
    return span / stride + 1 + (ceil && span % stride ? 1 : 0);
}

namespace {

// The fields of an operator's desc, by name and kind, in the struct's order.
struct FieldNames {
    std::vector<std::pair<std::string, std::string>> items;  // (name, kind)
    void add(std::string_view n, const char* k) { items.emplace_back(std::string(n), k); }
    void tensor(std::string_view n, TensorDesc&, TensorRole) { add(n, "tensor"); }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>&, TensorRole) { add(n, "tensor"); }
    void data_type(std::string_view n, DataType&) { add(n, "data_type"); }
    void scalar(std::string_view n, DML_SCALAR_UNION&, DataType) { add(n, "scalar"); }
    void float32(std::string_view n, float&) { add(n, "float"); }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>&) { add(n, "scale_bias"); }
    void uint(std::string_view n, uint32_t&) { add(n, "uint"); }
    void uint_array(std::string_view n, std::vector<uint32_t>&) { add(n, "array"); }
    void int_array(std::string_view n, std::vector<int32_t>&) { add(n, "array"); }
    void float_array(std::string_view n, std::vector<float>&) { add(n, "array"); }
    void enumeration(std::string_view n, uint32_t&, const EnumNames&) { add(n, "enum"); }
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>&) { add(n, "fused_activation"); }
};

FieldNames field_names(OperatorType t) {
    Operator op = make_operator(t);
    FieldNames f;
    std::visit([&](auto& d) { std::decay_t<decltype(d)>::fields(d, f); }, op.Desc);
    return f;
}

bool has(const FieldNames& f, std::string_view n) {
    for (const auto& [name, kind] : f.items) if (name == n) return true;
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

// A FLOAT32 desc value (a raw number text or an integer) as the case reader would read it.
std::optional<float> float_value(const ordered_json& v) {
    std::string text;
    if (v.is_number_integer()) text = v.dump();
    else if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>()[0] == '\x1f') text = v.get<std::string>().substr(1);
    else return std::nullopt;
    const ParsedValue p = parse_decimal(DataType::FLOAT32, text);
    if (!p.ok) return std::nullopt;
    float f;
    const uint32_t b = uint32_t(p.bits);
    std::memcpy(&f, &b, 4);
    return f;
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
    std::vector<uint64_t> arr(const std::string& n, size_t count, uint64_t fallback) {
        std::vector<uint64_t> v(count, fallback);
        if (!desc.contains(n)) return v;
        auto got = uints(desc[n]);
        if (!got || got->size() != count) { fail("/desc/" + n, n + " needs " + std::to_string(count) + " non-negative integers to derive sizes"); return v; }
        return *got;
    }
};

ordered_json to_json(const std::vector<uint64_t>& v) {
    ordered_json a = ordered_json::array();
    for (auto x : v) a.push_back(x);
    return a;
}

}  // namespace

bool derive(ordered_json& c, const std::string& where, Diagnostics& diags) {
    if (!c.is_object() || !c.contains("operator") || !c["operator"].is_string() || !c.contains("desc") || !c["desc"].is_object())
        return true;  // nothing to derive; the case reader names what is missing
    const auto type = parse_operator_type(c["operator"].get<std::string>());
    if (!type) return true;
    const FieldNames f = field_names(*type);
    ordered_json& desc = c["desc"];
    Deriver d{desc, where, diags};

    // The tensor the others follow: the forward input (InputTensor, or a grad's OutputGradientTensor).
    std::string base;
    for (const char* n : {"InputTensor", "OutputGradientTensor", "InputGradientTensor"})
        if (has(f, n) && d.sizes(n)) { base = n; break; }
    if (base.empty()) return true;
    const std::vector<uint64_t> base_sizes = *d.sizes(base);
    const bool pooling = has(f, "WindowSize");
    const size_t rank = base_sizes.size();
    const size_t count = pooling ? (rank >= 2 ? rank - 2 : 0) : rank;

    // {"$repeat": v} and "auto" counts and data types.
    for (const auto& [name, kind] : f.items) {
        if (!desc.contains(name)) continue;
        ordered_json& v = desc[name];
        const std::string p = "/desc/" + name;
        if (v.is_object() && v.contains("$repeat")) {
            const ordered_json& r = v["$repeat"];
            ordered_json a = ordered_json::array();
            if (r.is_array() && r.empty()) { d.fail(p, "$repeat of an empty array"); continue; }
            for (size_t i = 0; i < count; ++i) a.push_back(r.is_array() ? r[i % r.size()] : r);
            v = a;
        } else if ((kind == "uint") && v == "auto") {
            v = count;
        } else if (kind == "data_type" && v == "auto") {
            v = desc[base]["DataType"];
        } else if (kind == "tensor" && v.is_object() && v.contains("DataType") && v["DataType"] == "auto") {
            v["DataType"] = desc[base]["DataType"];
        }
    }

    // "auto" sizes.
    for (const auto& [name, kind] : f.items) {
        if (kind != "tensor" || !desc.contains(name) || !desc[name].is_object() || !desc[name].contains("Sizes")) continue;
        ordered_json& s = desc[name]["Sizes"];
        if (!is_auto(s)) continue;
        const std::string p = "/desc/" + name + "/Sizes";
        const std::string mode = s.get<std::string>();
        if (mode != "auto" && mode != "auto:ceil") { d.fail(p, "Sizes is \"auto\" or \"auto:ceil\", not \"" + mode + "\""); continue; }
        const bool ceil = mode == "auto:ceil";
        const bool forward_output = name == "OutputTensor" || name == "OutputIndicesTensor" ||
                                    (name == "InputGradientTensor" && base != "InputGradientTensor");
        std::vector<uint64_t> out = base_sizes;
        if (pooling && forward_output) {
            const auto w = d.arr("WindowSize", count, 1), st = d.arr("Strides", count, 1), sp = d.arr("StartPadding", count, 0),
                       ep = d.arr("EndPadding", count, 0), dl = d.arr("Dilations", count, 1);
            for (size_t i = 0; i < count && d.ok; ++i) {
                out[i + 2] = pooled_size(base_sizes[i + 2], sp[i], ep[i], w[i], st[i], dl[i], ceil);
                if (out[i + 2] == 0)
                    d.fail(p, "no output size: the window of dimension " + std::to_string(i + 2) + " does not fit in the padded input");
            }
        } else if (has(f, "InputWindowSizes") && forward_output) {
            const auto ws = d.arr("InputWindowSizes", count, 1);
            auto st = desc.contains("InputWindowStrides") ? ints(desc["InputWindowStrides"]) : std::nullopt;
            if (!st || st->size() != count) { d.fail(p, "InputWindowStrides needs " + std::to_string(count) + " integers to derive sizes"); continue; }
            for (size_t i = 0; i < count && d.ok; ++i) {
                const uint64_t a = uint64_t(std::llabs((*st)[i]));
                if (a == 0 || ws[i] == 0) { d.fail(p, "a zero window size or stride has no output size"); break; }
                out[i] = 1 + (ws[i] - 1) / a;
            }
        } else if (has(f, "InputWindowSizes") && name == "OutputGradientTensor") {
            const auto ws = d.arr("InputWindowSizes", rank, 1), off = d.arr("InputWindowOffsets", rank, 0);
            for (size_t i = 0; i < rank; ++i) out[i] = off[i] + ws[i];
        } else if (has(f, "Offsets") && name == "OutputTensor") {  // SLICE: the output is the desc's Sizes
            out = d.arr("Sizes", count, 1);
        } else if (has(f, "Scales") && forward_output) {
            if (!desc.contains("Scales") || !desc["Scales"].is_array() || desc["Scales"].size() != count) {
                d.fail(p, "Scales needs " + std::to_string(count) + " entries to derive sizes");
                continue;
            }
            for (size_t i = 0; i < count; ++i) {
                const auto sc = float_value(desc["Scales"][i]);
                const double v = sc ? std::floor(double(base_sizes[i]) * double(*sc)) : 0.0;
                if (!sc || !(v >= 1.0) || v > 4294967295.0) { d.fail(p, "Scales[" + std::to_string(i) + "] gives no output size of at least 1"); break; }
                out[i] = uint64_t(v);
            }
        }
        s = to_json(out);
    }
    return d.ok;
}

}  // namespace dmlref::gen
