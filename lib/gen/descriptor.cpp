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
#include <cstdio>
#include <cstring>
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
    {"OutputPadding", "0"},
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
// A field's token, or its DirectML name where it has none (P=2).
std::string spelled(const std::vector<std::pair<std::string_view, std::string_view>>& table, std::string_view field) {
    const auto t = token_of(table, field);
    return std::string(t.empty() ? field : t);
}
// What a descriptor lacks, when a field has no default: "give ls= (LocalSize)", "give P=".
std::string give(const std::vector<std::pair<std::string_view, std::string_view>>& table, std::string_view field) {
    const auto t = token_of(table, field);
    return "give " + (t.empty() ? std::string(field) + "=" : std::string(t) + "= (" + std::string(field) + ")");
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
    void tensor_array(std::string_view count, std::string_view n, std::vector<TensorDesc>&, TensorRole r) override {
        add(n, "tensor_array");
        array_count[std::string(n)] = std::string(count);
        if (r == TensorRole::Input) input_arrays.insert(std::string(n));
    }
    std::map<std::string, std::string> array_count;  // a tensor array's count field (InputTensors: InputCount)
    std::set<std::string> input_arrays;
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
        enum_names[std::string(n)] = &e;
    }
    std::map<std::string, const EnumNames*> enum_names;
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>&) override {
        add(n, "fused_activation");
    }
    std::map<std::string, std::string> enum_default;  // an enumeration's first name, its default
    bool has(std::string_view n) const { return !kind(n).empty(); }
    std::string kind(std::string_view n) const {
        for (const auto& [name, k] : items)
            if (name == n) return k;
        return "";
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
        if (t[0] == '-') out = std::stoll(t);
        else out = uint64_t(std::stoull(t));  // unsigned, as the case reader's JSON has it
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

// One tensor of a token, [TYPE:]SIZES[/STRIDES] (docs/gen.md): its DataType ("auto" unless
// given), Sizes and Strides (a zero stride broadcasts). Empty when it parses, else what is wrong
// and the rule broken.
std::pair<std::string, const char*> tensor_text(const std::string& s, ordered_json& t) {
    const auto colon = s.find(':');
    t = ordered_json{{"DataType", "auto"}};
    if (colon != std::string::npos) {
        const auto dt = parse_data_type(s.substr(0, colon));
        if (!dt) return {clipped(s.substr(0, colon), 64) + " is not a data type", "descriptor.syntax"};
        t["DataType"] = std::string(name(*dt));
    }
    const std::string rest = colon == std::string::npos ? s : s.substr(colon + 1);
    const auto slash = rest.find('/');
    const auto sizes = sizes_list(rest.substr(0, slash));
    if (!sizes) return {"a tensor is [TYPE:]SIZES[/STRIDES], like FLOAT32:2x3", "descriptor.syntax"};
    t["Sizes"] = *sizes;
    if (slash != std::string::npos) {
        const auto strides = sizes_list(rest.substr(slash + 1));
        if (!strides || strides->size() != sizes->size())
            return {"STRIDES are as many unsigned integers as SIZES, like 2x3/0x1", "descriptor.tensor"};
        t["Strides"] = *strides;
    }
    return {"", ""};
}

// A tensor's own values, after '@' (docs/gen.md): a recipe's name, random(MIN,MAX), fill(V) or
// iota(START,STEP), as the input the case holds; false when the text is none of them.
bool recipe_text(const std::string& s, ordered_json& spec) {
    const auto open = s.find('(');
    if (open == std::string::npos) {
        for (char ch : s)
            if (!std::isalnum((unsigned char)ch) && ch != '-') return false;
        spec = ordered_json{{"Recipe", s}};
        return !s.empty();
    }
    if (s.back() != ')') return false;
    const std::string fn = s.substr(0, open);
    std::vector<ordered_json> a;
    for (const auto& part : split(s.substr(open + 1, s.size() - open - 2), ','))
        if (!number(part, a.emplace_back())) return false;
    if (fn == "random" && a.size() == 2)
        spec = ordered_json{{"Recipe", {{"Name", "random"}, {"Min", a[0]}, {"Max", a[1]}}}};
    else if (fn == "fill" && a.size() == 1) spec = ordered_json{{"Fill", a[0]}};
    else if (fn == "iota" && a.size() == 2) spec = ordered_json{{"Iota", {{"Start", a[0]}, {"Step", a[1]}}}};
    else return false;
    return true;
}

// A fused activation, TYPE[,PARAMETER=VALUE...] (docs/gen.md), as the case's JSON: {"Type": ...,
// "Alpha": ...}. Empty when it parses, else what is wrong.
std::string fused_text(const std::string& s, ordered_json& out) {
    const auto parts = split(s, ',');
    std::string type = parts[0];
    for (char& ch : type) ch = char(std::toupper((unsigned char)ch));
    if (type.rfind("DML_OPERATOR_", 0) == 0) type = type.substr(13);
    const FusedActivationType* t = nullptr;
    for (const auto& a : fused_activation_types())
        if (a.Name == type) t = &a;
    if (!t)
        return "\"" + clipped(parts[0], 64) +
               "\" is not an activation DirectML fuses (docs/golden.md, \"Batch normalization\", lists them)";
    std::string takes;
    for (auto n : t->Parameters)
        if (!n.empty()) takes += (takes.empty() ? "" : " and ") + std::string(n);
    if (takes.empty()) takes = "no parameters";
    out = ordered_json{{"Type", std::string(t->Name)}};
    for (size_t i = 1; i < parts.size(); ++i) {
        const auto eq = parts[i].find('=');
        const std::string n = parts[i].substr(0, eq);
        if (eq == std::string::npos || n.empty() || (n != t->Parameters[0] && n != t->Parameters[1]))
            return std::string(t->Name) + " takes " + takes + "; \"" + clipped(parts[i], 64) + "\" is not one";
        if (out.contains(n)) return n + " is given twice";
        if (!number(parts[i].substr(eq + 1), out[n])) return n + " takes a number within FLOAT64's range";
    }
    for (auto n : t->Parameters)
        if (!n.empty() && !out.contains(std::string(n)))
            return std::string(t->Name) + " needs " + std::string(n) + "= (" + takes + ")";
    return "";
}

// The value of a field given by its DirectML name (P=2, Epsilon=1e-5, Mode=CONVOLUTION,
// OutputPadding=0x1, FusedActivation=ACTIVATION_RELU): what the field takes, by its kind in the
// desc's schema. Empty when it parses, else what the field takes.
std::string field_text(const Fields& f, const std::string& field, const std::string& kind, const std::string& val,
                       ordered_json& v) {
    if (kind == "count" || kind == "int") {
        const bool u = kind == "count";
        if (!number(val, v) || !v.is_number_integer() || v.get<int64_t>() < (u ? 0 : INT32_MIN) ||
            v.get<int64_t>() > (u ? int64_t(UINT32_MAX) : INT32_MAX))
            return u ? "an unsigned integer below 2^32" : "an integer from -2147483648 to 2147483647";
    } else if (kind == "bound") {
        if (!number(val, v)) return "a number within FLOAT64's range";
    } else if (kind == "data_type") {
        const auto t = parse_data_type(val);
        if (!t) return "a data type";
        v = std::string(name(*t));
    } else if (kind == "enum") {
        const EnumNames& e = *f.enum_names.at(field);
        std::string upper = val, all;
        for (char& ch : upper) ch = char(std::toupper((unsigned char)ch));
        if (upper.rfind(e.Prefix, 0) == 0) upper = upper.substr(e.Prefix.size());
        for (auto n : e.Names) {
            if (n == upper) v = upper;
            all += (all.empty() ? "" : ", ") + std::string(n);
        }
        if (!v.is_string()) return "one of " + all;
    } else if (kind == "size_2d") {
        const auto wh = sizes_list(val);
        if (!wh || wh->size() != 2) return "WIDTHxHEIGHT, two unsigned integers";
        v = ordered_json{{"Width", (*wh)[0]}, {"Height", (*wh)[1]}};
    } else if (kind == "array") {
        v = ordered_json::array();
        for (const auto& part : split(val, 'x'))
            if (!number(part, v.emplace_back())) return "numbers separated by x, like 1x2";
    } else if (kind == "fused_activation") {
        const std::string error = fused_text(val, v);
        if (!error.empty()) return "TYPE[,PARAMETER=VALUE...]: " + error;
    } else return "a value no descriptor token says";
    return "";
}

// The fields a descriptor says by their DirectML names (docs/gen.md): scalars, enumerations, arrays
// and fused activations; tensors have their own tokens.
bool named_field_kind(const std::string& kind) {
    for (const char* k : {"count", "int", "bound", "data_type", "enum", "size_2d", "array", "fused_activation"})
        if (kind == k) return true;
    return false;
}

// The per-dimension counts "auto" derives (docs/gen.md, "Derived fields"): never said.
bool derived_count(std::string_view n) { return n == "DimensionCount" || n == "ScaleCount" || n == "RepeatsCount"; }

// The largest count of a tensor array a descriptor makes: the made case stays small.
constexpr int64_t kMaxArrayCount = 1024;

// Whether d's Strides are absent or exactly the packed ones (a descriptor then omits them).
bool strides_are_packed(const TensorDesc& d) {
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

// The tensor a descriptor's TYPE and SIZES describe: the first of the record's BaseTensors the desc
// has and the descriptor does not leave out (MULTIHEAD_ATTENTION's QueryTensor=none: the stacked one).
std::string base_tensor(OperatorType t, const Fields& f, const std::map<std::string, ordered_json>& given) {
    for (std::string_view n : kit::record(t).BaseTensors)
        if (f.has(n) && !(given.count(std::string(n)) && given.at(std::string(n)).is_null())) return std::string(n);
    return "";
}

}  // namespace

std::optional<gen::Planned> descriptor_to_planned(const std::string& text, Diagnostics& diags) {
    std::istringstream ss(text);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    // The descriptor is echoed up to 200 bytes, a token up to 64: an error stays a line.
    const std::string echoed = clipped(text, 200);
    auto fail = [&](const std::string& m, const char* rule = "descriptor.syntax") {
        diags.error("", rule, "\"" + echoed + "\": " + m + " (docs/gen.md, \"Descriptors\")");
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
    std::map<std::string, ordered_json> given_inputs;   // NameTensor=...@RECIPE: a tensor's own values
    std::map<std::string, ordered_json> given_arrays;   // NameTensors=T,T,...: a tensor array's elements
    std::map<std::string, int64_t> given_counts;        // InputCount=N: a tensor array's length
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
            // A field said by its token and by its DirectML name (axis=1 Axis=2) is given twice too.
            std::string by_token;
            for (const auto* table : {&kEnumTokens, &kFloatTokens, &kUintTokens, &kIntTokens, &kSize2dTokens})
                if (by_token.empty()) by_token = field_of(*table, key);
            if (!by_token.empty() && twice(by_token))
                return fail("\"" + shown + "\": " + by_token + " is given twice", "descriptor.field");
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
                // NameTensor=[TYPE:]SIZES[/STRIDES][@RECIPE], NameTensor=@RECIPE (the derived tensor,
                // its own values), or NameTensor=none for an optional tensor left out.
                const std::string kind = tensor_kind(f, key);
                const auto at = val.find('@');
                const std::string body = val.substr(0, at);
                if (at != std::string::npos) {
                    if (kind == "output" || (kind == "optional" && !f.optional_inputs.count(key)))
                        return fail("\"" + shown + "\": " + key + " is an output: it takes no recipe",
                                    "descriptor.recipe");
                    if (body == "none")
                        return fail("\"" + shown + "\": a tensor left out takes no recipe", "descriptor.recipe");
                    if (!recipe_text(val.substr(at + 1), given_inputs[key]))
                        return fail(
                            "\"" + shown + "\": @ takes a recipe's name, random(MIN,MAX), fill(V) or iota(START,STEP)",
                            "descriptor.recipe");
                    if (body.empty()) continue;
                }
                if (body == "none") {
                    if (kind != "optional") return fail(key + " is not optional: give its sizes");
                    given_tensors[key] = nullptr;
                    continue;
                }
                ordered_json t;
                const auto [error, rule] = tensor_text(body, t);
                if (!error.empty()) return fail("\"" + shown + "\": " + error, rule);
                given_tensors[key] = t;
            } else if (f.kind(key) == "tensor_array") {
                // NameTensors=[TYPE:]SIZES[/STRIDES],...: every element of a tensor array.
                ordered_json a = ordered_json::array();
                for (const auto& part : split(val, ',')) {
                    const auto [error, rule] = tensor_text(part, a.emplace_back());
                    if (!error.empty()) return fail("\"" + shown + "\": " + error, rule);
                }
                given_arrays[key] = a;
            } else if (std::any_of(f.array_count.begin(), f.array_count.end(),
                                   [&](const auto& c) { return c.second == key; })) {
                // InputCount=N: a tensor array of N tensors, each derived.
                if (!number(val, v) || !v.is_number_integer() || v.get<int64_t>() < 1 ||
                    v.get<int64_t>() > kMaxArrayCount)
                    return fail(
                        "\"" + shown + "\": " + key + "= takes a count from 1 to " + std::to_string(kMaxArrayCount),
                        "descriptor.tensor");
                given_counts[key] = v.get<int64_t>();
            } else if (const auto e = split_tensor_array_element(key);
                       e && f.array_count.count(std::string(e->first)) && val.rfind('@', 0) == 0) {
                // InputTensors[1]=@RECIPE: one element's own values.
                if (!f.input_arrays.count(std::string(e->first)))
                    return fail("\"" + shown + "\": " + key + " is an output: it takes no recipe", "descriptor.recipe");
                if (!recipe_text(val.substr(1), given_inputs[key]))
                    return fail(
                        "\"" + shown + "\": @ takes a recipe's name, random(MIN,MAX), fill(V) or iota(START,STEP)",
                        "descriptor.recipe");
            } else if (named_field_kind(f.kind(key))) {
                // Any other field by its DirectML name, as its kind in the desc's schema reads it.
                const std::string takes = field_text(f, key, f.kind(key), val, v);
                if (!takes.empty()) return fail("\"" + shown + "\": " + key + "= takes " + takes, "descriptor.field");
                given[key] = v;
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
        if (twice(field) || (at->prefix == "p" && twice("EndPadding")))
            return fail("\"" + shown + "\": " + field + " is given twice");
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

    const std::string base = base_tensor(*op, f, given_tensors), out = forward_output(f);
    // Every input's values: the descriptor's recipe (or random=S), unless the tensor's token says its own.
    const ordered_json every = random_seed ? ordered_json{{"Recipe", {{"Name", "random"}, {"Seed", *random_seed}}}}
                                           : ordered_json{{"Recipe", recipe}};
    for (const auto& [name, kind] : f.items) {
        if (kind == "input" || kind == "output" || kind == "optional") {
            const bool given_tensor = given_tensors.count(name) > 0;
            const bool left_out = given_tensor ? given_tensors[name].is_null()
                                               : kind == "optional" && name != base &&
                                                     (name.find("Indices") == std::string::npos || indices == "none");
            if (left_out && given_inputs.count(name))
                return fail(name + " is left out: give its sizes with its recipe (" + name + "=SIZES@RECIPE)",
                            "descriptor.recipe");
            if (left_out) continue;  // NameTensor=none, or an optional tensor not given
            if (given_tensor) desc[name] = given_tensors[name];
            else if (name == base)
                desc[name] = ordered_json{{"DataType", std::string(dmlref::name(*type))}, {"Sizes", sizes}};
            else if (kind == "optional") {
                // Left out unless given, but for max pooling's OutputIndicesTensor (idx=).
                desc[name] = ordered_json{{"DataType", indices}, {"Sizes", sizes_mode}};
            } else
                desc[name] = ordered_json{
                    {"DataType", "auto"},
                    {"Sizes", name == out && !out_sizes.is_null() ? out_sizes : ordered_json(sizes_mode)}};
            if (kind == "input" || (kind == "optional" && f.optional_inputs.count(name)))
                inputs[name] = given_inputs.count(name) ? given_inputs[name] : every;
        } else if (kind == "tensor_array") {
            // NameTensors=T,T,... or its count (InputCount=N: N derived tensors); said as both, they agree.
            const std::string& count = f.array_count.at(name);
            ordered_json a = ordered_json::array();
            if (given_arrays.count(name)) a = given_arrays[name];
            else if (given_counts.count(count))
                for (int64_t k = 0; k < given_counts[count]; ++k)
                    a.push_back(ordered_json{{"DataType", "auto"}, {"Sizes", "auto"}});
            else
                return fail(
                    "give " + count + "=N or " + name + "=[TYPE:]SIZES,... (" + name + " is an array of tensors)",
                    "descriptor.tensor");
            if (given_counts.count(count) && given_counts[count] != int64_t(a.size()))
                return fail(count + "=" + std::to_string(given_counts[count]) + " but " + name + "= gives " +
                                std::to_string(a.size()) + " tensors",
                            "descriptor.tensor");
            desc[name] = a;
            if (f.input_arrays.count(name))
                for (size_t k = 0; k < a.size(); ++k) {
                    const std::string element(tensor_array_element(name, k));
                    inputs[element] = given_inputs.count(element) ? given_inputs[element] : every;
                }
        } else if (given.count(name)) desc[name] = given[name];
        else if (kind == "data_type") desc[name] = "auto";
        else if (kind == "count" && derived_count(name)) desc[name] = "auto";
        else if (kind == "count" && (name == "IncludePadding" || name == "Antialiased")) desc[name] = 0;
        else if (kind == "count") return fail(give(kUintTokens, name));
        else if (kind == "int") return fail(give(kIntTokens, name));
        else if (kind == "size_2d") return fail(give(kSize2dTokens, name));
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
        } else if (kind == "bound") return fail(give(kFloatTokens, name));
        // scale_bias: absent unless given
    }
    for (const auto& [name, spec] : given_inputs)
        if (!inputs.contains(name))
            return fail(clipped(name, 64) + "=@...: the case has no such input", "descriptor.recipe");
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
    TokenWriter(DataType t, std::string_view base, std::set<std::string> none = {})
        : type(t), base_name(base), left_out(std::move(none)) {}
    DataType type;
    std::string base_name;
    std::set<std::string> left_out;  // optional base tensors before base_name the case leaves out: Name=none
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
    // TYPE:SIZES, and /STRIDES where they are not the packed ones.
    std::string tensor_text(std::string_view n, const TensorDesc& d) {
        if (d.Flags) no(std::string(n) + " has flags");
        if (d.TotalTensorSizeInBytes && d.TotalTensorSizeInBytes != calc_buffer_tensor_size(d))
            no(std::string(n) + " has a padded buffer");
        if (d.GuaranteedBaseOffsetAlignment) no(std::string(n) + " states an alignment");
        types_differ = types_differ || d.DataType != type;
        return std::string(name(d.DataType)) + ":" + sizes_token(d.Sizes) +
               (strides_are_packed(d) ? "" : "/" + sizes_token(d.Strides));
    }
    void tensor(std::string_view n, TensorDesc& d, TensorRole) override {
        const std::string t = tensor_text(n, d);
        // The base tensor is TYPE SIZES, said by name only where it has strides.
        if (n != base_name || !strides_are_packed(d)) tensor_tokens.push_back(std::string(n) + "=" + t);
    }
    // The count (InputCount=N: every element derived), and every element said for the cases it does not derive.
    void tensor_array(std::string_view count, std::string_view n, std::vector<TensorDesc>& d, TensorRole) override {
        tokens.push_back(std::string(count) + "=" + std::to_string(d.size()));
        std::string all;
        for (size_t i = 0; i < d.size(); ++i) all += (i ? "," : "") + tensor_text(tensor_array_element(n, i), d[i]);
        if (d.empty()) no(std::string(n) + " is empty");
        tensor_tokens.push_back(std::string(n) + "=" + all);
    }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole r) override {
        if (n.find("Indices") != std::string_view::npos) {  // max pooling's OutputIndicesTensor: idx=
            if (!d) tokens.push_back("idx=none");
            else if (d->DataType != DataType::UINT32) tokens.push_back("idx=" + std::string(name(d->DataType)));
        } else if (d) tensor(n, *d, r);  // others are left out unless said
        else if (left_out.count(std::string(n))) tokens.push_back(std::string(n) + "=none");
    }
    // A data type field ("auto": the base tensor's) is said by name where it is another.
    void data_type(std::string_view n, DataType& t) override {
        if (t != type) tokens.push_back(std::string(n) + "=" + std::string(name(t)));
    }
    // The fields without a token of their own are said by their DirectML names (P=2); the
    // per-dimension counts are derived.
    void uint(std::string_view n, uint32_t& v) override {
        if (!derived_count(n)) tokens.push_back(spelled(kUintTokens, n) + "=" + std::to_string(v));
    }
    void int32(std::string_view n, int32_t& v) override {
        tokens.push_back(spelled(kIntTokens, n) + "=" + std::to_string(v));
    }
    void size_2d(std::string_view n, DML_SIZE_2D& v) override {
        tokens.push_back(spelled(kSize2dTokens, n) + "=" + std::to_string(v.Width) + "x" + std::to_string(v.Height));
    }
    void bound(std::string_view n, DataType t, uint64_t bits) {
        const std::string v = format_exact_value(t, bits);
        if (!v.empty() && v[0] == '"') no(std::string(n) + " is not a plain number");
        tokens.push_back(spelled(kFloatTokens, n) + "=" + v);
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
        arrays.emplace_back(kArrays.size(), std::string(n) + "=" + body);  // by name, after the others
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
        } else if (v >= e.Names.size()) no(std::string(n) + " is not one of its names");
        else if (v != 0) tokens.push_back(std::string(n) + "=" + std::string(e.Names[v]));  // the first is the default
    }
    // FusedActivation=TYPE[,PARAMETER=VALUE...]; absent when there is none.
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>& fa) override {
        if (!fa) return;
        const auto& t = fused_activation_types().at(fa->Type);
        std::string s = std::string(n) + "=" + std::string(t.Name);
        for (size_t k = 0; k < 2; ++k) {
            if (t.Parameters[k].empty()) continue;
            const std::string v = format_exact_value(DataType::FLOAT32, to_bits(fa->Parameters[k]));
            if (!v.empty() && v[0] == '"')
                no(std::string(n) + "'s " + std::string(t.Parameters[k]) + " is not a plain number");
            s += "," + std::string(t.Parameters[k]) + "=" + v;
        }
        tokens.push_back(s);
    }
};

// The most input elements a round trip copies from the case (below).
constexpr size_t kMaxOwnValues = size_t(1) << 16;

// The case a descriptor makes, parsed (without expected values). With `own`, its inputs are that
// case's buffers, bit for bit (up to kMaxOwnValues elements each): the rules on values (a scale
// not 0, indices in range) hold as they do there.
std::optional<Case> roundtrip(const std::string& text, const Case* own = nullptr) {
    Diagnostics d;
    auto p = descriptor_to_planned(text, d);
    if (!p) return std::nullopt;
    if (own)
        for (const auto& f : tensor_fields(own->op)) {
            const std::string k(f.name);
            const auto it = own->inputs.find(k);
            if (!p->doc["inputs"].contains(k) || it == own->inputs.end()) continue;
            const size_t width = element_size(f.desc->DataType), n = it->second.size() / width;
            if (n > kMaxOwnValues) continue;
            ordered_json bits = ordered_json::array();
            for (size_t i = 0; i < n; ++i) {
                uint64_t b = 0;
                std::memcpy(&b, it->second.data() + i * width, width);
                char text[24];
                std::snprintf(text, sizeof text, "0x%0*llx", int(2 * width), (unsigned long long)b);
                bits.push_back(text);
            }
            p->doc["inputs"][k] = bits;
        }
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
    // The base tensors before it that the case leaves out (optional ones) are said none.
    std::set<std::string> left_out;
    for (std::string_view n : kit::record(c.op.Type).BaseTensors) {
        if (n == base_name) break;
        left_out.insert(std::string(n));
    }
    TokenWriter w(base->DataType, base_name, left_out);
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
            if (strides_are_packed(x)) x.Strides.clear();
            if (strides_are_packed(y)) y.Strides.clear();
            if (a[i].name != b[i].name || x != y) return false;
        }
        TokenWriter v(base->DataType, base_name, left_out);
        r.op.Desc.fields(v);
        return v.all() == w.all();
    };
    for (const auto& text : candidates) {
        const auto r = roundtrip(text, &c);
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
