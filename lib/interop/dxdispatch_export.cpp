// `dmlref export-dxdispatch`: a case as a DxDispatch model (docs/dxdispatch.md): its inputs as
// resources DxDispatch uploads bit for bit, the dispatchable, and writeFile commands for the outputs.
#include "interop/dxdispatch_internal.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cstdlib>

namespace dmlref {

using namespace dxdispatch_detail;

namespace {

[[noreturn]] void cannot_spell(const std::string& path, const std::string& what) {
    Diagnostics d;
    d.error(path, "dxdispatch.export",
            what + ": DxDispatch's JSON spells floats as numbers, 'NaN', 'Inf' or '-Inf' only");
    throw CaseError(std::move(d));
}

// An element as DxDispatch's JSON reads it back to exactly these bits, or nullopt: a number (the
// exact decimal, which a double holds exactly and so survives DxDispatch's conversions), "NaN"
// (the positive canonical quiet NaN, std::numeric_limits::quiet_NaN), "Inf", "-Inf"; integers as
// integer tokens.
std::optional<ordered_json> dx_spelling(DataType t, uint64_t bits) {
    if (!is_float(t))
        return dispatch(t, [&]<class T>() -> ordered_json {
            if constexpr (std::is_integral_v<T>) return ordered_json(from_bits<T>(bits_t<T>(bits)));
            return {};
        });
    const std::string s = format_exact_value(t, bits);
    if (s == "\"nan\"") return ordered_json("NaN");
    if (s == "\"inf\"") return ordered_json("Inf");
    if (s == "\"-inf\"") return ordered_json("-Inf");
    if (s.front() == '"') return std::nullopt;  // other NaNs, or bits with no short exact decimal
    // Check the round trip as DxDispatch reads it: decimal -> double -> float -> half.
    ordered_json token = json_raw(s);
    const double d = std::strtod(s.c_str(), nullptr);
    uint64_t back = t == DataType::FLOAT64   ? uint64_t(to_bits(d))
                    : t == DataType::FLOAT32 ? uint64_t(to_bits(float(d)))
                                             : uint64_t(to_bits(half_from_double(double(float(d)))));
    if (back != bits) return std::nullopt;
    return token;
}

// The desc with DxDispatch's spellings: full enum names, TotalTensorSizeInBytes where the case gives it,
// DML_SCALAR_UNION as a number or a member object ({"UInt16": bits} for FLOAT16).
struct DxDispatchDescWriter : FieldVisitor {
    ordered_json out = ordered_json::object();
    static ordered_json tensor_json(const TensorDesc& d) {
        ordered_json j;
        j["DataType"] = std::string(name(d.DataType));
        j["Sizes"] = d.Sizes;
        if (!d.Strides.empty()) j["Strides"] = d.Strides;
        if (d.Flags == DML_TENSOR_FLAG_OWNED_BY_DML) j["Flags"] = "DML_TENSOR_FLAG_OWNED_BY_DML";
        if (d.TotalTensorSizeInBytes)
            j["TotalTensorSizeInBytes"] =
                d.TotalTensorSizeInBytes;  // else DxDispatch computes DMLCalcBufferTensorSize too
        if (d.GuaranteedBaseOffsetAlignment) j["GuaranteedBaseOffsetAlignment"] = d.GuaranteedBaseOffsetAlignment;
        return j;
    }
    static ordered_json float_json(std::string_view n, float f) {
        auto s = dx_spelling(DataType::FLOAT32, to_bits(f));
        if (!s)
            cannot_spell("/desc/" + std::string(n), std::string(n) + " is " + hex_bits(DataType::FLOAT32, to_bits(f)));
        return *s;
    }
    void tensor(std::string_view n, TensorDesc& d, TensorRole) override { out[std::string(n)] = tensor_json(d); }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole) override {
        if (d) out[std::string(n)] = tensor_json(*d);
    }
    void tensor_array(std::string_view count, std::string_view n, std::vector<TensorDesc>& d, TensorRole) override {
        out[std::string(count)] = d.size();
        ordered_json a = ordered_json::array();
        for (const auto& t : d) a.push_back(tensor_json(t));
        out[std::string(n)] = a;
    }
    void data_type(std::string_view n, DataType& t) override { out[std::string(n)] = std::string(name(t)); }
    void float32(std::string_view n, float& f) override { out[std::string(n)] = float_json(n, f); }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>& sb) override {
        if (sb) out[std::string(n)] = {{"Scale", float_json(n, sb->Scale)}, {"Bias", float_json(n, sb->Bias)}};
    }
    void scalar(std::string_view n, DML_SCALAR_UNION& u, DataType t) override {
        const std::string path = "/desc/" + std::string(n);
        for (size_t i = is_valid(t) ? element_size(t) : 0; i < 8; ++i)
            if (u.Bytes[i] != 0)
                cannot_spell(path, std::string(n) + " has bytes past its " + std::string(name(t)) + " member");
        const uint64_t bits = u.as<uint64_t>();
        if (t == DataType::FLOAT16) {
            out[std::string(n)] = {{"UInt16", bits}};
            return;
        }  // DxDispatch reads FLOAT16 bits from UInt16
        auto s = dx_spelling(t, bits);
        if (!s) cannot_spell(path, std::string(n) + " is " + hex_bits(t, bits));
        static const std::map<DataType, std::string> member = {{DataType::FLOAT32, "Float32"},
                                                               {DataType::FLOAT64, "Float64"}};
        // DxDispatch takes a number or a member object; "NaN" and "Inf" need the member object.
        if (s->is_string() && !s->get<std::string>().empty() && s->get<std::string>()[0] != '\x1f')
            out[std::string(n)] = {{member.at(t), *s}};
        else out[std::string(n)] = *s;
    }
    void uint(std::string_view n, uint32_t& v) override { out[std::string(n)] = v; }
    void int32(std::string_view n, int32_t& v) override { out[std::string(n)] = v; }  // DxDispatch's ParseInt32Field
    // DxDispatch's ParseDmlSize2d reads the members "Width" and "Height".
    void size_2d(std::string_view n, DML_SIZE_2D& v) override {
        out[std::string(n)] = {{"Width", v.Width}, {"Height", v.Height}};
    }
    void uint_array(std::string_view n, std::vector<uint32_t>& v) override { out[std::string(n)] = v; }
    void int_array(std::string_view n, std::vector<int32_t>& v) override { out[std::string(n)] = v; }
    void float_array(std::string_view n, std::vector<float>& v) override {
        ordered_json a = ordered_json::array();
        for (float f : v) a.push_back(float_json(n, f));
        out[std::string(n)] = a;
    }
    void enumeration(std::string_view n, uint32_t& v, const EnumNames& e) override {
        out[std::string(n)] = std::string(e.Prefix) + std::string(e.Names.at(v));
    }
    // A nested DML_OPERATOR_DESC as {"Type": full name, "Desc": {FLOAT fields}} (the long form
    // dmlref reads; DxDispatch's generated ParseDmlOperatorDesc reads "Type" and "Desc" so).
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>& fa) override {
        if (!fa) return;
        const auto& t = fused_activation_types().at(fa->Type);
        ordered_json d = ordered_json::object();
        for (size_t k = 0; k < 2; ++k)
            if (!t.Parameters[k].empty()) d[std::string(t.Parameters[k])] = float_json(n, fa->Parameters[k]);
        out[std::string(n)] = {{"Type", "DML_OPERATOR_" + std::string(t.Name)}, {"Desc", d}};
    }
};

}  // namespace

DxExport export_dxdispatch(const Case& c, const std::string& file_stem, const std::string& output_dir) {
    DxExport x;
    ordered_json model;
    ordered_json resources = ordered_json::object(), bindings = ordered_json::object(),
                 commands = ordered_json::array();
    // A tensor array's elements bind as DxDispatch's list for the array field ("InputTensors":
    // ["InputTensors[0]", ...]); tensor_fields lists them in order.
    auto bind = [&](const std::string& field, const std::string& resource) {
        if (const auto e = split_tensor_array_element(field)) bindings[std::string(e->first)].push_back(resource);
        else bindings[field] = resource;
    };
    for (const auto& f : tensor_fields(c.op)) {
        const std::string field(f.name);
        const DataType t = f.desc->DataType;
        const size_t w = element_size(t);
        if (f.role == TensorRole::Input) {
            const std::vector<std::byte>& b = c.inputs.at(field);
            ordered_json values = ordered_json::array();
            bool spelled = true, constant = true;
            for (size_t i = 0; i < b.size() / w && spelled; ++i) {
                const uint64_t bits = load_bits(t, b.data() + i * w);
                constant = constant && bits == load_bits(t, b.data());
                auto s = dx_spelling(t, bits);
                if (s) values.push_back(*s);
                else spelled = false;
            }
            ordered_json r;
            r["initialValuesDataType"] = std::string(name(t));
            if (!spelled) {  // bits JSON cannot carry: a .npy beside the model, read by DxDispatch's npy reader
                const std::string file = file_stem + "." + field + ".npy";
                x.files.push_back({file, NpyArray{t, {b.size() / w}, b}});
                r["initialValues"] = {{"sourcePath", file}};
            } else if (constant) {
                r["initialValues"] = {{"valueCount", b.size() / w}, {"value", values.at(0)}};
            } else {
                r["initialValues"] = values;
            }
            resources[field] = r;
            bind(field, field);
        } else {
            auto ip = c.in_place.find(field);
            const std::string res = ip != c.in_place.end() ? ip->second : field;
            if (ip == c.in_place.end())
                resources[field] = {{"initialValuesDataType", std::string(name(t))},
                                    {"initialValues", {{"valueCount", buffer_size(*f.desc) / w}, {"value", 0}}}};
            bind(field, res);
            // No "dimensions": DxDispatch writes the resource as a 1-D array of its whole buffer,
            // which `dmlref diff` reads through the output's strides.
            commands.push_back({{"type", "writeFile"},
                                {"resource", res},
                                {"targetPath", (output_dir.empty() ? field : output_dir + "/" + field) + ".npy"}});
        }
    }
    model["resources"] = resources;
    DxDispatchDescWriter w;
    c.op.Desc.fields(w);
    std::string lower(info(c.op.Type).Name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    model["dispatchables"] = {{lower, {{"type", full_name(c.op.Type)}, {"desc", w.out}}}};
    commands.insert(commands.begin(),
                    ordered_json{{"type", "dispatch"}, {"dispatchable", lower}, {"bindings", bindings}});
    model["commands"] = commands;
    x.model = dump_json(model);
    return x;
}

}  // namespace dmlref
