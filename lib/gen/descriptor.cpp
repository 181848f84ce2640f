// The one-line case descriptor (docs/gen.md, "Descriptors"): parsing it into a planned case (the
// generator derives sizes and makes the inputs), and writing the descriptor of a case.
#include "dmlref/descriptor.hpp"

#include "gen/gen_internal.hpp"

#include "dmlref/descs/element_wise_logic.hpp"
#include "dmlref/descs/resample.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/values.hpp"

#include "../../reference/kit/family.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

namespace dmlref {

namespace {

// Token prefixes of the array fields, in the order a descriptor writes them. "p" is StartPadding
// and EndPadding together; "s" and "o" name whichever of their fields the operator has.
struct ArrayToken {
    std::string_view prefix;
    std::vector<std::string_view> fields;
};
const std::vector<ArrayToken> kArrays = {
    {"w", {"WindowSize", "WindowSizes"}},
    {"s", {"Strides", "InputWindowStrides"}},
    {"p", {"StartPadding"}},
    {"d", {"Dilations"}},
    {"o", {"Offsets", "InputWindowOffsets"}},
    {"ws", {"InputWindowSizes"}},
    {"sz", {"Sizes"}},
    {"sc", {"Scales"}},
    {"io", {"InputPixelOffsets"}},
    {"oo", {"OutputPixelOffsets"}},
    {"b", {"Bias"}},
    {"ax", {"Axes"}},
    {"rep", {"Repeats"}},
};

// Defaults for arrays a descriptor leaves out, per dimension (docs/gen.md).
const std::vector<std::pair<std::string_view, const char*>> kDefaults = {
    {"Strides", "1"},
    {"InputWindowStrides", "1"},
    {"StartPadding", "0"},
    {"EndPadding", "0"},
    {"Dilations", "1"},
    {"Offsets", "0"},
    {"InputWindowOffsets", "0"},
    {"InputPixelOffsets", "0.5"},
    {"OutputPixelOffsets", "-0.5"},
};

// Tokens of the scalar fields (key=value): unsigned integers and FLOAT32 values.
const std::vector<std::pair<std::string_view, std::string_view>> kUintTokens = {
    {"incpad", "IncludePadding"}, {"cc", "CrossChannel"},
    {"ls", "LocalSize"},          {"ch", "ChannelCount"},
    {"ac", "AxisCount"},          {"axis", "Axis"},
    {"exsum", "HasExclusiveSum"}, {"exprod", "HasExclusiveProduct"},
    {"bs", "BlockSize"},          {"aa", "Antialiased"},
};
// Signed INT fields (key=value, a value from -2^31 to 2^31-1).
const std::vector<std::pair<std::string_view, std::string_view>> kIntTokens = {
    {"off", "Offset"}, {"fb", "DiagonalFillBegin"}, {"fe", "DiagonalFillEnd"},  // DIAGONAL_MATRIX, DIAGONAL_MATRIX1
};
// DML_SIZE_2D fields (key=WIDTHxHEIGHT).
const std::vector<std::pair<std::string_view, std::string_view>> kSize2dTokens = {
    {"ss", "ScaleSize"}, {"pooled", "PooledSize"},  // UPSAMPLE_2D, ROI_POOLING
};
const std::vector<std::pair<std::string_view, std::string_view>> kFloatTokens = {
    {"min", "Min"},          {"max", "Max"},          {"alpha", "Alpha"},           {"beta", "Beta"},
    {"bias", "Bias"},        {"scale", "Scale"},      {"thr", "Threshold"},  // ACTIVATION_SHRINK
    {"pad", "PaddingValue"},  // PADDING (FLOAT), PADDING1 (DML_SCALAR_UNION)
    {"val", "Value"},        {"start", "ValueStart"}, {"delta", "ValueDelta"},  // FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE (DML_SCALAR_UNION)
    {"exp", "Exponent"},                                                        // ELEMENT_WISE_CONSTANT_POW
    {"gamma", "Gamma"},      {"steep", "Steepness"},  {"sis", "SigmoidInputScale"},  // ACTIVATION_SCALED_ELU, _SOFTPLUS, _SWISH
};
// Enumerations without a word of their own above: TOKEN=NAME, NAME one of the enum's names in any case.
const std::vector<std::pair<std::string_view, std::string_view>> kEnumTokens = {
    {"mode", "RoundingMode"}, {"fn", "Function"}, {"dir", "AxisDirection"},
    {"pmode", "PaddingMode"}, {"order", "Order"},
};
std::string_view token_of(const std::vector<std::pair<std::string_view, std::string_view>>& table,
                          std::string_view field) {
    for (const auto& [t, f] : table)
        if (f == field) return t;
    return "";
}
std::string_view field_of(const std::vector<std::pair<std::string_view, std::string_view>>& table,
                          std::string_view token) {
    for (const auto& [t, f] : table)
        if (t == token) return f;
    return "";
}

struct Fields : FieldVisitor {
    std::vector<std::pair<std::string, std::string>> items;  // (name, kind)
    void add(std::string_view n, const char* k) { items.emplace_back(std::string(n), k); }
    void tensor(std::string_view n, TensorDesc&, TensorRole r) override {
        add(n, r == TensorRole::Input ? "input" : "output");
    }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>&, TensorRole r) override {
        add(n, "optional");
        if (r == TensorRole::Input) optional_inputs.insert(std::string(n));
    }
    std::set<std::string> optional_inputs;
    void tensor_array(std::string_view, std::string_view n, std::vector<TensorDesc>&, TensorRole) override {
        add(n, "tensor_array");
    }
    void data_type(std::string_view n, DataType&) override { add(n, "data_type"); }
    void scalar(std::string_view n, DML_SCALAR_UNION&, DataType) override { add(n, "bound"); }
    void float32(std::string_view n, float&) override { add(n, "bound"); }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>&) override { add(n, "scale_bias"); }
    void uint(std::string_view n, uint32_t&) override { add(n, "count"); }
    void int32(std::string_view n, int32_t&) override { add(n, "int"); }
    void size_2d(std::string_view n, DML_SIZE_2D&) override { add(n, "size_2d"); }
    void uint_array(std::string_view n, std::vector<uint32_t>&) override { add(n, "array"); }
    void int_array(std::string_view n, std::vector<int32_t>&) override { add(n, "array"); }
    void float_array(std::string_view n, std::vector<float>&) override { add(n, "array"); }
    void enumeration(std::string_view n, uint32_t&, const EnumNames& e) override {
        add(n, "enum");
        if (!e.Names.empty()) enum_default[std::string(n)] = std::string(e.Names.front());
    }
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>&) override {
        add(n, "fused_activation");
    }
    std::map<std::string, std::string> enum_default;  // an enumeration's first name, its default
    bool has(std::string_view n) const {
        for (const auto& [name, k] : items)
            if (name == n) return true;
        return false;
    }
};

Fields fields_of(OperatorType t) {
    Operator op = make_operator(t);
    Fields f;
    op.Desc.fields(f);
    return f;
}

// The kind of the operator's tensor field `n` ("input", "output" or "optional"), or null.
const char* tensor_kind(const Fields& f, const std::string& n) {
    for (const auto& [name, k] : f.items)
        if (name == n && (k == "input" || k == "output" || k == "optional")) return k.c_str();
    return nullptr;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (ch == sep) {
            out.push_back(cur);
            cur.clear();
        } else cur += ch;
    }
    out.push_back(cur);
    return out;
}

// A number token as the case reader would read it: an integer, or exact decimal text.
bool number(const std::string& t, ordered_json& out) {
    if (t.empty()) return false;
    size_t i = t[0] == '-' ? 1 : 0;
    bool integer = i < t.size();
    for (size_t k = i; k < t.size(); ++k) integer = integer && std::isdigit((unsigned char)t[k]);
    if (integer && t.size() < 19) {
        out = std::stoll(t);
        return true;
    }
    // Within FLOAT64's range: the case's JSON reader refuses 1e999 as a number, and its error
    // would name a line of the made case, which the user never wrote.
    const ParsedValue v = parse_decimal(DataType::FLOAT64, t);
    if (!v.ok || (v.bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) return false;
    out = json_raw(t);
    return true;
}

// A sizes list, "2x3x9x9": integers separated by 'x', none below 0 unless `negative` (out= leaves
// negative sizes to the case's own rule). The one parser of sizes: the base tensor, out= and tensors.
std::optional<ordered_json> sizes_list(const std::string& s, bool negative = false) {
    ordered_json out = ordered_json::array();
    for (const auto& part : split(s, 'x')) {
        ordered_json v;
        if (!number(part, v) || !v.is_number_integer() || (!negative && v.get<int64_t>() < 0)) return std::nullopt;
        out.push_back(v);
    }
    return out;
}

bool packed(const TensorDesc& d) {
    if (d.Strides.empty()) return true;
    const auto p = packed_strides(d.Sizes);
    if (p.size() != d.Strides.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
        if (int64_t(d.Strides[i]) != p[i]) return false;
    return true;
}

std::string forward_output(const Fields& f) {
    for (const char* n : {"OutputTensor", "InputGradientTensor"})
        if (f.has(n)) return n;
    return "";
}

// The tensor a descriptor's TYPE and SIZES describe: the first of the record's BaseTensors the desc has.
std::string base_tensor(OperatorType t, const Fields& f) {
    for (std::string_view n : kit::record(t).BaseTensors)
        if (f.has(n)) return std::string(n);
    return "";
}

}  // namespace

std::optional<gen::Planned> descriptor_to_planned(const std::string& text, Diagnostics& diags) {
    std::istringstream ss(text);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    // The descriptor is echoed up to 200 bytes, a token up to 64: an error stays a line.
    const std::string echoed = clipped(text, 200);
    auto fail = [&](const std::string& m) {
        diags.error("", "descriptor.syntax", "\"" + echoed + "\": " + m + " (docs/gen.md, \"Descriptors\")");
        return std::nullopt;
    };
    if (tok.size() < 3) return fail("a descriptor is OPERATOR TYPE SIZES token...");
    for (auto& t : tok)
        if (t.size() > 4096) return fail("a token is longer than 4096 bytes");
    const auto op = parse_operator_type(tok[0]);
    if (!op) return fail("\"" + clipped(tok[0], 64) + "\" is not an operator");
    const auto type = parse_data_type(tok[1]);
    if (!type) return fail("\"" + clipped(tok[1], 64) + "\" is not a data type");
    const Fields f = fields_of(*op);
    const auto base_sizes = sizes_list(tok[2]);
    if (!base_sizes) return fail("\"" + clipped(tok[2], 64) + "\" is not sizes like 2x3x9x9");
    const ordered_json sizes = *base_sizes;

    ordered_json desc = ordered_json::object(), inputs = ordered_json::object();
    std::string recipe = "dyadic", sizes_mode = "auto", indices = "UINT32";
    ordered_json out_sizes;
    std::map<std::string, ordered_json> given;          // field -> value
    std::map<std::string, ordered_json> given_tensors;  // NameTensor= tokens: {DataType, Sizes}, or null (left out)
    std::optional<uint64_t> seed, random_seed;
    bool in_place = false;
    // Each field, flag and key is said once: a second token for it is an error, not "the last wins".
    std::set<std::string> said;
    for (size_t i = 3; i < tok.size(); ++i) {
        const std::string& t = tok[i];
        const auto eq = t.find('=');
        const std::string key = eq == std::string::npos ? t : t.substr(0, eq),
                          val = eq == std::string::npos ? "" : t.substr(eq + 1);
        auto twice = [&](const std::string& what) { return !said.insert(what).second; };
        const std::string shown = clipped(t, 64);
        if (t == "ceil" || t == "floor") {
            if (twice("ceil or floor")) return fail("\"" + t + "\": ceil or floor is given twice");
            sizes_mode = t == "ceil" ? "auto:ceil" : "auto";
            continue;
        }
        if (t == "inplace") {
            if (twice(t)) return fail("inplace is given twice");
            in_place = true;
            continue;
        }
        if (t == "nearest" || t == "linear") {
            if (twice("InterpolationMode")) return fail("\"" + t + "\": the interpolation mode is given twice");
            given["InterpolationMode"] = t == "linear" ? "LINEAR" : "NEAREST_NEIGHBOR";
            continue;
        }
        if (t == "up" || t == "down") {
            if (twice("RoundingDirection")) return fail("\"" + t + "\": the rounding direction is given twice");
            given["RoundingDirection"] = t == "down" ? "DECREASING" : "INCREASING";
            continue;
        }
        if (t == "posinf" || t == "neginf") {
            if (twice("InfinityMode")) return fail("\"" + t + "\": the infinity mode is given twice");
            given["InfinityMode"] = t == "posinf" ? "POSITIVE" : "NEGATIVE";
            continue;
        }
        if (eq != std::string::npos) {
            ordered_json v;
            if (twice(key)) return fail("\"" + shown + "\": " + key + "= is given twice");
            if (key == "seed" || key == "random") {
                uint64_t n = 0;
                const auto [end, ec] = std::from_chars(val.data(), val.data() + val.size(), n);
                if (val.empty() || ec != std::errc() || end != val.data() + val.size())
                    return fail("\"" + shown + "\": " + key + "= takes an unsigned integer below 2^64");
                (key == "seed" ? seed : random_seed) = n;
            } else if (key == "recipe") recipe = val;
            else if (!field_of(kEnumTokens, key).empty()) {
                std::string upper = val;
                for (char& ch : upper) ch = char(std::toupper((unsigned char)ch));
                given[std::string(field_of(kEnumTokens, key))] = upper;
            } else if (key == "idx") indices = val;
            else if (!field_of(kFloatTokens, key).empty()) {
                if (!number(val, v)) return fail(key + "= takes a number within FLOAT64's range");
                given[std::string(field_of(kFloatTokens, key))] = v;
            } else if (!field_of(kUintTokens, key).empty()) {
                if (!number(val, v) || !v.is_number_integer() || v.get<int64_t>() < 0)
                    return fail(key + "= takes an unsigned integer");
                given[std::string(field_of(kUintTokens, key))] = v;
            } else if (!field_of(kIntTokens, key).empty()) {
                if (!number(val, v) || !v.is_number_integer() || v.get<int64_t>() < INT32_MIN ||
                    v.get<int64_t>() > INT32_MAX)
                    return fail(key + "= takes an integer from -2147483648 to 2147483647");
                given[std::string(field_of(kIntTokens, key))] = v;
            } else if (!field_of(kSize2dTokens, key).empty()) {
                const auto parts = split(val, 'x');
                ordered_json w, h;
                if (parts.size() != 2 || !number(parts[0], w) || !number(parts[1], h) || !w.is_number_integer() ||
                    !h.is_number_integer() || w.get<int64_t>() < 0 || h.get<int64_t>() < 0)
                    return fail(key + "= takes WIDTHxHEIGHT, two unsigned integers");
                given[std::string(field_of(kSize2dTokens, key))] = ordered_json{{"Width", w}, {"Height", h}};
            } else if (key == "sb") {
                const auto parts = split(val, ',');
                ordered_json s, b;
                if (parts.size() != 2 || !number(parts[0], s) || !number(parts[1], b))
                    return fail("sb= takes Scale,Bias");
                given["ScaleBias"] = ordered_json{{"Scale", s}, {"Bias", b}};
            } else if (key == "out") {
                const auto o = sizes_list(val, true);
                if (!o) return fail("out= takes sizes like 2x2");
                out_sizes = *o;
            } else if (tensor_kind(f, key)) {
                // NameTensor=[TYPE:]SIZES, or NameTensor=none for an optional tensor left out.
                if (val == "none") {
                    if (std::string(tensor_kind(f, key)) != "optional")
                        return fail(key + " is not optional: give its sizes");
                    given_tensors[key] = nullptr;
                    continue;
                }
                const auto colon = val.find(':');
                ordered_json t = {{"DataType", "auto"}};
                if (colon != std::string::npos) {
                    const auto dt = parse_data_type(val.substr(0, colon));
                    if (!dt)
                        return fail("\"" + shown + "\": " + clipped(val.substr(0, colon), 64) + " is not a data type");
                    t["DataType"] = std::string(dmlref::name(*dt));
                }
                const auto sz = sizes_list(colon == std::string::npos ? val : val.substr(colon + 1));
                if (!sz) return fail("\"" + shown + "\": " + key + "= takes [TYPE:]SIZES like FLOAT32:2x3");
                t["Sizes"] = *sz;
                given_tensors[key] = t;
            } else return fail("unknown token \"" + shown + "\"");
            continue;
        }
        // An array token: the longest prefix that names one.
        const ArrayToken* at = nullptr;
        for (const auto& a : kArrays)
            if (t.rfind(a.prefix, 0) == 0 && t.size() > a.prefix.size() &&
                (!at || a.prefix.size() > at->prefix.size()) &&
                (std::isdigit((unsigned char)t[a.prefix.size()]) || t[a.prefix.size()] == '-'))
                at = &a;
        if (!at) return fail("unknown token \"" + shown + "\"");
        std::string field;
        for (auto n : at->fields)
            if (f.has(n)) field = std::string(n);
        if (field.empty())
            return fail("\"" + std::string(at->prefix) + "\" names no field of " + std::string(info(*op).Name));
        if (twice(field)) return fail("\"" + shown + "\": " + field + " is given twice");
        const std::string body = t.substr(at->prefix.size());
        ordered_json arr = ordered_json::array();
        for (const auto& s : split(body, at->prefix == "p" ? ',' : 'x')) {
            ordered_json v;
            if (!number(s, v)) return fail("\"" + shown + "\" is not a list of numbers");
            arr.push_back(v);
        }
        if (at->prefix == "p") {
            if (arr.size() % 2) return fail("p takes StartPadding then EndPadding: an even count");
            ordered_json a = ordered_json::array(), b = ordered_json::array();
            for (size_t k = 0; k < arr.size(); ++k) (k < arr.size() / 2 ? a : b).push_back(arr[k]);
            given["StartPadding"] = a;
            given["EndPadding"] = b;
        } else given[field] = arr;
    }

    const std::string base = base_tensor(*op, f), out = forward_output(f);
    for (const auto& [name, kind] : f.items) {
        if (kind == "input" || kind == "output" || kind == "optional") {
            const bool given_tensor = given_tensors.count(name) > 0;
            if (given_tensor && given_tensors[name].is_null()) continue;  // NameTensor=none
            if (given_tensor) desc[name] = given_tensors[name];
            else if (kind == "optional") {
                // Left out unless given, but for max pooling's OutputIndicesTensor (idx=).
                if (name.find("Indices") == std::string::npos || indices == "none") continue;
                desc[name] = ordered_json{{"DataType", indices}, {"Sizes", sizes_mode}};
            } else if (name == base)
                desc[name] = ordered_json{{"DataType", std::string(dmlref::name(*type))}, {"Sizes", sizes}};
            else
                desc[name] = ordered_json{
                    {"DataType", "auto"},
                    {"Sizes", name == out && !out_sizes.is_null() ? out_sizes : ordered_json(sizes_mode)}};
            if (kind == "input" || (kind == "optional" && f.optional_inputs.count(name))) {
                ordered_json r = ordered_json{{"Recipe", recipe}};
                if (random_seed) r = ordered_json{{"Recipe", {{"Name", "random"}, {"Seed", *random_seed}}}};
                inputs[name] = r;
            }
        } else if (kind == "data_type") desc[name] = "auto";
        else if (kind == "tensor_array")
            return fail(name + " is an array of tensors, which a descriptor cannot say (one sizes token)");
        else if (given.count(name)) desc[name] = given[name];
        else if (kind == "count" && (name == "DimensionCount" || name == "ScaleCount" || name == "RepeatsCount"))
            desc[name] = "auto";
        else if (kind == "count" && (name == "IncludePadding" || name == "Antialiased")) desc[name] = 0;
        else if (kind == "count") return fail("give " + std::string(token_of(kUintTokens, name)) + "= (" + name + ")");
        else if (kind == "int") return fail("give " + std::string(token_of(kIntTokens, name)) + "= (" + name + ")");
        else if (kind == "size_2d")
            return fail("give " + std::string(token_of(kSize2dTokens, name)) + "= (" + name + ")");
        else if (kind == "enum" && name == "InterpolationMode") desc[name] = "NEAREST_NEIGHBOR";
        else if (kind == "enum" && name == "RoundingDirection") desc[name] = "INCREASING";
        else if (kind == "enum" && f.enum_default.count(name)) desc[name] = f.enum_default.at(name);
        else if (kind == "array") {
            const char* d = nullptr;
            for (const auto& [n, v] : kDefaults)
                if (n == name) d = v;
            if (!d) return fail(name + " has no default; give it");
            ordered_json v;
            number(d, v);
            desc[name] = ordered_json{{"$repeat", v}};
        } else if (kind == "bound")
            return fail("give " + std::string(token_of(kFloatTokens, name)) + "= (" + name + ")");
        // scale_bias: absent unless given
    }
    gen::Planned p;
    p.name = "descriptor/" + gen::safe_label(text);
    p.description = "The case of the descriptor \"" + text + "\" (docs/gen.md)";
    p.seed = seed.value_or(0);
    p.doc = ordered_json{
        {"format", kCaseFormatVersion}, {"operator", std::string(info(*op).Name)}, {"desc", desc}, {"inputs", inputs}};
    if (in_place) {
        if (info(*op).InPlace.empty()) return fail(std::string(info(*op).Name) + " has no in-place execution");
        const auto& [o, i] = info(*op).InPlace.front();
        p.doc["inPlace"] = ordered_json{{std::string(o), std::string(i)}};
    }
    return p;
}

namespace {

std::string sizes_token(const std::vector<uint32_t>& s) {
    std::string t;
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
    return t;
}

// The tokens of a desc after OPERATOR TYPE SIZES; false when a field cannot be said.
struct TokenWriter : FieldVisitor {
    TokenWriter(DataType t, std::string_view base) : type(t), base_name(base) {}
    DataType type;
    std::string base_name;
    std::vector<std::string> tokens;
    // NameTensor=TYPE:SIZES for every tensor but the base one, in the struct's order: said only
    // where the derived types and sizes are not the case's (case_descriptor tries without first).
    std::vector<std::string> tensor_tokens;
    bool types_differ = false;
    std::vector<std::pair<size_t, std::string>> arrays;  // (rank in kArrays, token)
    std::string padding_start;
    // Non-array tokens first (in the struct's order), then the arrays in kArrays' order.
    std::vector<std::string> all() const {
        auto a = arrays;
        std::stable_sort(a.begin(), a.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<std::string> t = tokens;
        for (const auto& [r, s] : a) t.push_back(s);
        return t;
    }
    bool ok = true;
    std::string why;

    void no(const std::string& w) {
        ok = false;
        if (why.empty()) why = w;
    }
    void tensor(std::string_view n, TensorDesc& d, TensorRole) override {
        if (!packed(d)) no(std::string(n) + " has strides");
        if (d.Flags) no(std::string(n) + " has flags");
        if (d.TotalTensorSizeInBytes && d.TotalTensorSizeInBytes != calc_buffer_tensor_size(d))
            no(std::string(n) + " has a padded buffer");
        if (d.GuaranteedBaseOffsetAlignment) no(std::string(n) + " states an alignment");
        // The base tensor is TYPE SIZES; an indices output has its own type, derived or said by idx=.
        if (n == base_name || n.find("Indices") != std::string_view::npos) return;
        types_differ = types_differ || d.DataType != type;
        tensor_tokens.push_back(std::string(n) + "=" + std::string(name(d.DataType)) + ":" + sizes_token(d.Sizes));
    }
    void tensor_array(std::string_view, std::string_view n, std::vector<TensorDesc>&, TensorRole) override {
        no(std::string(n) + " is an array of tensors");
    }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole r) override {
        if (n.find("Indices") != std::string_view::npos) {  // max pooling's OutputIndicesTensor: idx=
            if (!d) tokens.push_back("idx=none");
            else if (d->DataType != DataType::UINT32) tokens.push_back("idx=" + std::string(name(d->DataType)));
        } else if (d) tensor(n, *d, r);  // others are left out unless said
    }
    void data_type(std::string_view, DataType&) override {}
    void uint(std::string_view n, uint32_t& v) override {
        const auto t = token_of(kUintTokens, n);
        if (!t.empty()) tokens.push_back(std::string(t) + "=" + std::to_string(v));
    }
    void int32(std::string_view n, int32_t& v) override {
        const auto t = token_of(kIntTokens, n);
        if (t.empty()) no(std::string(n) + " has no token");
        else tokens.push_back(std::string(t) + "=" + std::to_string(v));
    }
    void size_2d(std::string_view n, DML_SIZE_2D& v) override {
        const auto t = token_of(kSize2dTokens, n);
        if (t.empty()) no(std::string(n) + " has no token");
        else tokens.push_back(std::string(t) + "=" + std::to_string(v.Width) + "x" + std::to_string(v.Height));
    }
    void bound(std::string_view n, DataType t, uint64_t bits) {
        const std::string v = format_exact_value(t, bits);
        if (!v.empty() && v[0] == '"') no(std::string(n) + " is not a plain number");
        tokens.push_back(std::string(token_of(kFloatTokens, n)) + "=" + v);
    }
    void scalar(std::string_view n, DML_SCALAR_UNION& u, DataType t) override {
        if (!is_valid(t)) {
            no("MinMaxDataType is not valid");
            return;
        }
        bound(n, t,
              u.as<uint64_t>() & (element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1));
    }
    void float32(std::string_view n, float& f) override { bound(n, DataType::FLOAT32, to_bits(f)); }
    void scale_bias(std::string_view, std::optional<DML_SCALE_BIAS>& sb) override {
        if (sb)
            tokens.push_back("sb=" + format_exact_value(DataType::FLOAT32, to_bits(sb->Scale)) + "," +
                             format_exact_value(DataType::FLOAT32, to_bits(sb->Bias)));
    }
    template <class V> void array(std::string_view n, const std::vector<V>& v) {
        std::string body;
        const char sep = (n == "StartPadding" || n == "EndPadding") ? ',' : 'x';
        for (size_t i = 0; i < v.size(); ++i) {
            std::string e;
            if constexpr (std::is_same_v<V, float>) e = format_exact_value(DataType::FLOAT32, to_bits(v[i]));
            else e = std::to_string(v[i]);
            if (!e.empty() && e[0] == '"') no(std::string(n) + " holds a value that is not a plain number");
            body += (i ? std::string(1, sep) : "") + e;
        }
        if (v.empty()) {
            no(std::string(n) + " is empty");
            return;
        }
        if (n == "StartPadding") {
            padding_start = body;
            return;
        }
        for (size_t r = 0; r < kArrays.size(); ++r) {
            const auto& a = kArrays[r];
            if (n == "EndPadding" && a.prefix == "p") {
                arrays.emplace_back(r, "p" + padding_start + "," + body);
                return;
            }
            for (auto f : a.fields)
                if (f == n) {
                    arrays.emplace_back(r, std::string(a.prefix) + body);
                    return;
                }
        }
        no(std::string(n) + " has no token");
    }
    void uint_array(std::string_view n, std::vector<uint32_t>& v) override { array(n, v); }
    void int_array(std::string_view n, std::vector<int32_t>& v) override { array(n, v); }
    void float_array(std::string_view n, std::vector<float>& v) override { array(n, v); }
    void enumeration(std::string_view n, uint32_t& v, const EnumNames& e) override {
        if (n == "InterpolationMode") tokens.push_back(v == DML_INTERPOLATION_MODE_LINEAR ? "linear" : "nearest");
        else if (n == "RoundingDirection") tokens.push_back(v == DML_AXIS_DIRECTION_DECREASING ? "down" : "up");
        else if (n == "InfinityMode" && v != DML_IS_INFINITY_MODE_EITHER)
            tokens.push_back(v == DML_IS_INFINITY_MODE_POSITIVE ? "posinf" : "neginf");
        else if (const auto t = token_of(kEnumTokens, n); !t.empty()) {
            if (v >= e.Names.size()) {
                no(std::string(n) + " is not one of its names");
                return;
            }
            std::string lower(e.Names[v]);
            for (char& ch : lower) ch = char(std::tolower((unsigned char)ch));
            tokens.push_back(std::string(t) + "=" + lower);
        }
    }
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>& fa) override {
        if (fa) no(std::string(n) + " has no descriptor token");
    }
};

// The case a descriptor makes, parsed (without expected values).
std::optional<Case> roundtrip(const std::string& text) {
    Diagnostics d;
    auto p = descriptor_to_planned(text, d);
    if (!p) return std::nullopt;
    gen::Options o;
    o.evaluate = false;
    auto g = gen::make_case(*p, o, d);
    if (!g || d.has_errors()) return std::nullopt;
    Diagnostics cd;
    Case c = parse_case(parse_json_text(g->text), g->name + ".json", cd);
    if (cd.has_errors()) return std::nullopt;
    return c;
}

}  // namespace

std::string case_descriptor(const Case& c, std::string& why) {
    why.clear();
    const auto fields = tensor_fields(c.op);
    const TensorDesc* base = nullptr;
    for (std::string_view n : kit::record(c.op.Type).BaseTensors)
        for (const auto& f : fields)
            if (!base && f.name == n) base = f.desc;
    if (!base) {
        why = "the operator has no forward input";
        return "";
    }
    std::string base_name;
    for (const auto& f : fields)
        if (f.desc == base) base_name = std::string(f.name);
    TokenWriter w(base->DataType, base_name);
    c.op.Desc.fields(w);
    if (!w.ok) {
        why = w.why;
        return "";
    }
    std::string head = std::string(info(c.op.Type).Name) + " " + std::string(name(base->DataType)) + " " +
                       sizes_token(base->Sizes);
    std::string tail;
    for (const auto& t : w.all()) tail += " " + t;
    if (!c.in_place.empty()) tail += " inplace";

    std::string out_field;
    for (const char* n : {"OutputTensor", "InputGradientTensor"})
        for (const auto& f : fields)
            if (out_field.empty() && f.name == n && f.desc != base) out_field = n;
    std::vector<std::string> candidates;
    if (!w.types_differ) {
        candidates = {head + tail, head + tail + " ceil"};
        for (const auto& f : fields)
            if (f.name == out_field) candidates.push_back(head + tail + " out=" + sizes_token(f.desc->Sizes));
    }
    // Every other tensor said: types and sizes a descriptor does not derive (GEMM's B, a filter,
    // scales and zero points of their own types).
    std::string said;
    for (const auto& t : w.tensor_tokens) said += " " + t;
    if (!w.tensor_tokens.empty()) candidates.push_back(head + tail + said);
    auto same_tensors = [&](const Case& r) {
        const auto a = tensor_fields(c.op), b = tensor_fields(r.op);
        if (a.size() != b.size() || c.in_place != r.in_place) return false;
        for (size_t i = 0; i < a.size(); ++i) {
            TensorDesc x = *a[i].desc, y = *b[i].desc;
            if (x.TotalTensorSizeInBytes == calc_buffer_tensor_size(x)) x.TotalTensorSizeInBytes = 0;
            if (y.TotalTensorSizeInBytes == calc_buffer_tensor_size(y)) y.TotalTensorSizeInBytes = 0;
            if (packed(x)) x.Strides.clear();
            if (packed(y)) y.Strides.clear();
            if (a[i].name != b[i].name || x != y) return false;
        }
        TokenWriter v(base->DataType, base_name);
        r.op.Desc.fields(v);
        return v.all() == w.all();
    };
    for (const auto& text : candidates) {
        const auto r = roundtrip(text);
        if (!r || !same_tensors(*r)) continue;
        // Inputs: one Random seed for every input says them exactly; anything else stays the case's.
        std::optional<uint64_t> seed;
        for (const auto& [k, spec] : c.input_specs)
            if (spec.is_object() && spec.contains("Random") && spec["Random"].contains("Seed") &&
                spec["Random"]["Seed"].is_number_unsigned())
                seed = spec["Random"]["Seed"].get<uint64_t>();
        if (seed) {
            const std::string with = text + " random=" + std::to_string(*seed);
            if (const auto rr = roundtrip(with); rr && rr->input_specs == c.input_specs) return with;
        }
        why = "the inputs are the case's own (no recipe or single Random seed says them)";
        return text;
    }
    why = "its sizes or fields are not what a descriptor derives";
    return "";
}

}  // namespace dmlref
