// `dmlref import-dxdispatch`: a DxDispatch model's DirectML dispatchable, its desc and the resources
// its dispatch command binds, as a dmlref case (docs/dxdispatch.md).
#include "interop/dxdispatch_internal.hpp"

#include "dmlref/checked.hpp"

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace dmlref {

namespace fs = std::filesystem;
using namespace dxdispatch_detail;

namespace {

const json* member(const json& o, std::initializer_list<const char*> names, std::string& key) {
    for (const char* n : names)
        if (o.is_object() && o.contains(n)) {
            key = n;
            return &o[n];
        }
    return nullptr;
}

// A binding: a resource name, or {"name": ..., "elementOffset": ...}, or a list of one of those.
struct Binding {
    std::string resource;
    uint64_t element_offset = 0;
};
std::optional<Binding> read_binding(const json& b, const std::string& ptr, Diagnostics& diags) {
    if (b.is_array()) {
        if (b.size() != 1) {
            diags.error(ptr, "dxdispatch.binding", "a tensor field binds exactly one resource");
            return std::nullopt;
        }
        return read_binding(b[0], pointer_append(ptr, size_t(0)), diags);
    }
    if (b.is_string()) return Binding{b.get<std::string>(), 0};
    if (b.is_object() && b.contains("name") && b["name"].is_string()) {
        Binding r{b["name"].get<std::string>(), 0};
        if (b.contains("elementOffset")) {
            if (!b["elementOffset"].is_number_unsigned()) {
                diags.error(pointer_append(ptr, "elementOffset"), "dxdispatch.binding",
                            "elementOffset must be a non-negative integer");
                return std::nullopt;
            }
            r.element_offset = b["elementOffset"].get<uint64_t>();
        }
        return r;
    }
    diags.error(ptr, "dxdispatch.binding", "a binding is a resource name or an object with its \"name\"");
    return std::nullopt;
}

// The desc's field names in the struct's order, to write the case's desc in that order.
struct FieldNames : FieldVisitor {
    std::vector<std::string> names;
    std::vector<std::string> inputs;  // input tensor fields, optional ones included (ROI_ALIGN_GRAD's InputTensor)
    void add(std::string_view n) { names.emplace_back(n); }
    void tensor(std::string_view n, TensorDesc&, TensorRole r) override {
        add(n);
        if (r == TensorRole::Input) inputs.emplace_back(n);
    }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>&, TensorRole r) override {
        add(n);
        if (r == TensorRole::Input) inputs.emplace_back(n);
    }
    std::vector<std::string> input_arrays;  // tensor arrays of inputs (JOIN's InputTensors)
    void tensor_array(std::string_view count, std::string_view n, std::vector<TensorDesc>&, TensorRole r) override {
        add(count);
        add(n);
        if (r == TensorRole::Input) input_arrays.emplace_back(n);
    }
    void data_type(std::string_view n, DataType&) override { add(n); }
    void float32(std::string_view n, float&) override { add(n); }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>&) override { add(n); }
    void scalar(std::string_view n, DML_SCALAR_UNION&, DataType) override { add(n); }
    void uint(std::string_view n, uint32_t&) override { add(n); }
    void int32(std::string_view n, int32_t&) override { add(n); }
    void size_2d(std::string_view n, DML_SIZE_2D&) override { add(n); }
    void uint_array(std::string_view n, std::vector<uint32_t>&) override { add(n); }
    void int_array(std::string_view n, std::vector<int32_t>&) override { add(n); }
    void float_array(std::string_view n, std::vector<float>&) override { add(n); }
    void enumeration(std::string_view n, uint32_t&, const EnumNames&) override { add(n); }
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>&) override { add(n); }
};

std::string read_text(const fs::path& file, uint64_t max_bytes) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
        Diagnostics d;
        d.error("", "file.read", "cannot read the file: it does not exist or is not a regular file");
        throw CaseError(std::move(d));
    }
    if (fs::file_size(file, ec) > max_bytes) {
        Diagnostics d;
        d.error("", "limit.file-bytes",
                "the model is larger than the limit of " + std::to_string(max_bytes) + " bytes");
        throw CaseError(std::move(d));
    }
    std::ifstream in(file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

std::string import_dxdispatch(const fs::path& model, Diagnostics& diags, const DxImportOptions& options) {
    const JsonDocument doc = parse_json_text(strip_comments_and_trailing_commas(read_text(model, options.max_bytes)));
    const json& root = doc.root;
    for (const char* k : {"resources", "dispatchables"})
        if (!root.is_object() || !root.contains(k) || !root[k].is_object()) {
            diags.error("", "dxdispatch.model", std::string("a DxDispatch model has an object named '") + k + "'");
            return "";
        }
    if (!root.contains("commands") || !root["commands"].is_array()) {
        diags.error("", "dxdispatch.model", "a DxDispatch model has an array named 'commands'");
        return "";
    }

    // The dispatchable: the one named, or the only one whose type is an operator dmlref knows.
    std::string chosen;
    std::vector<std::string> known, others;
    for (auto it = root["dispatchables"].begin(); it != root["dispatchables"].end(); ++it) {
        std::string k;
        const json* type = member(it.value(), {"type", "Type"}, k);
        if (type && type->is_string() && parse_operator_type(type->get<std::string>())) known.push_back(it.key());
        else others.push_back(it.key() + (type && type->is_string() ? " (" + type->get<std::string>() + ")" : ""));
    }
    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s.empty() ? std::string("none") : s;
    };
    if (!options.dispatchable.empty()) {
        if (std::find(known.begin(), known.end(), options.dispatchable) == known.end()) {
            diags.error("/dispatchables", "dxdispatch.dispatchable",
                        "no dispatchable '" + options.dispatchable +
                            "' of an operator dmlref evaluates; those are: " + list(known));
            return "";
        }
        chosen = options.dispatchable;
    } else if (known.size() == 1) {
        chosen = known[0];
    } else {
        diags.error("/dispatchables", "dxdispatch.dispatchable",
                    known.empty() ? "no dispatchable is an operator dmlref evaluates (others: " + list(others) + ")"
                                  : "several dispatchables are operators dmlref evaluates (" + list(known) +
                                        "); name one with --dispatchable");
        return "";
    }
    const std::string dptr = pointer_append("/dispatchables", chosen);
    const json& disp = root["dispatchables"][chosen];
    std::string key;
    const OperatorType type = *parse_operator_type(member(disp, {"type", "Type"}, key)->get<std::string>());
    const json* desc = member(disp, {"desc", "Desc"}, key);
    if (!desc || !desc->is_object()) {
        diags.error(dptr, "dxdispatch.dispatchable", "the dispatchable has no desc object");
        return "";
    }
    const std::string desc_ptr = pointer_append(dptr, key);

    // Its dispatch command's bindings.
    const json* bindings = nullptr;
    std::string bptr;
    for (size_t i = 0; i < root["commands"].size() && !bindings; ++i) {
        const json& c = root["commands"][i];
        if (c.is_object() && c.contains("type") && c["type"].is_string() &&
            iequals(c["type"].get<std::string>(), "dispatch") && c.contains("dispatchable") &&
            c["dispatchable"] == chosen && c.contains("bindings") && c["bindings"].is_object()) {
            bindings = &c["bindings"];
            bptr = pointer_append(pointer_append("/commands", i), "bindings");
        }
    }
    if (!bindings) {
        diags.error("/commands", "dxdispatch.binding", "no dispatch command runs '" + chosen + "' with bindings");
        return "";
    }

    // The desc as DxDispatch spells it (DirectML's field names), without TotalTensorSizeInBytes 0
    // (DxDispatch's "compute it"). Read once with placeholder inputs for the tensor descs.
    const ordered_json as_written = with_tokens(doc, *desc, desc_ptr);
    ordered_json case_desc = ordered_json::object();
    FieldNames order;
    make_operator(type).Desc.fields(order);
    for (const auto& n : order.names)
        if (as_written.contains(n)) case_desc[n] = as_written[n];
    for (const auto& [k, v] : as_written.items())  // fields the struct lacks, for the reader to name
        if (!case_desc.contains(k)) case_desc[k] = v;
    for (auto& [field, value] : case_desc.items()) {
        ordered_json* t = value.is_object() && value.contains("Desc") ? &value["Desc"] : &value;
        if (t->is_object() && t->contains("TotalTensorSizeInBytes") && (*t)["TotalTensorSizeInBytes"] == 0)
            t->erase("TotalTensorSizeInBytes");
    }
    // DxDispatch reads non-finite floats as "nan", "inf" and "-inf" in any case, and
    // export-dxdispatch writes "NaN", "Inf", "-Inf" (a FLOAT field, or a DML_SCALAR_UNION's
    // {"Float32": "Inf"}); a case spells them in lower case. No enumeration or type name is
    // spelled so. (Strings here are the writer's escaped tokens, json_text.)
    std::function<void(ordered_json&)> respell = [&](ordered_json& v) {
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            for (const char* spelling : {"nan", "inf", "-inf"})
                if (iequals(s, json_text(spelling))) v = json_text(spelling);
        } else if (v.is_structured()) {
            for (auto& e : v) respell(e);
        }
    };
    respell(case_desc);
    ordered_json c;
    c["format"] = kCaseFormatVersion;
    c["name"] = json_text(options.name.empty() ? model.stem().string() : options.name);
    c["description"] = json_text("Imported from the DxDispatch model " + model.filename().string() +
                                 ", dispatchable '" + chosen + "' (dmlref import-dxdispatch, docs/dxdispatch.md).");
    c["operator"] = full_name(type);
    c["desc"] = case_desc;
    ordered_json placeholder = ordered_json::object();
    for (const auto& n : order.inputs)  // every input field, optional ones too (absent from a default desc)
        if (desc->contains(n) && !(*desc)[n].is_null()) placeholder[n] = {{"Fill", 0}};
    for (const auto& n : order.input_arrays)  // each element of an array of inputs
        if (desc->contains(n) && (*desc)[n].is_array())
            for (size_t i = 0; i < (*desc)[n].size(); ++i)
                placeholder[std::string(tensor_array_element(n, i))] = {{"Fill", 0}};
    c["inputs"] = placeholder;
    auto remap = [&](const Diagnostics& d) {  // the case's /desc paths are the model's desc paths
        for (const auto& item : d.items()) {
            std::string p = item.path.rfind("/desc", 0) == 0 ? desc_ptr + item.path.substr(5) : item.path;
            if (item.severity == Severity::Error) diags.error(p, item.rule, item.message);
            else diags.warning(p, item.rule, item.message);
        }
    };
    Case shape;
    {
        Diagnostics d;
        shape = parse_case(parse_json_text(dump_json(c)), model, d);
        // Errors under /inputs are the placeholder zeros' (a rule on input values: a quantization
        // scale of 0); the real values are checked when the imported case is read, below.
        bool desc_error = false;
        for (const auto& item : d.items())
            desc_error = desc_error || (item.severity == Severity::Error && item.path.rfind("/inputs", 0) != 0);
        if (desc_error) {
            remap(d);
            return "";
        }
    }

    // Inputs from their resources; outputs bound to an input's resource run in place.
    size_t respelled = 0;
    std::map<std::string, Resource> resources;
    std::map<std::string, std::string> bound;  // field -> resource name
    // A field's binding and its path: an element of a tensor array ("InputTensors[1]") is that
    // entry of the array field's list of bindings, as DxDispatch binds them.
    auto binding_of = [&](const std::string& field, std::string& p) -> const json* {
        if (const auto e = split_tensor_array_element(field)) {
            const std::string a(e->first);
            p = pointer_append(pointer_append(bptr, a), e->second);
            if (!bindings->contains(a) || !(*bindings)[a].is_array() || (*bindings)[a].size() <= e->second)
                return nullptr;
            return &(*bindings)[a][e->second];
        }
        p = pointer_append(bptr, field);
        return bindings->contains(field) ? &(*bindings)[field] : nullptr;
    };
    auto resource = [&](const std::string& field) -> std::pair<const Resource*, uint64_t> {
        std::string p;
        const json* bj = binding_of(field, p);
        if (!bj) {
            diags.error(bptr, "dxdispatch.binding", "nothing is bound to " + field);
            return {nullptr, 0};
        }
        auto b = read_binding(*bj, p, diags);
        if (!b) return {nullptr, 0};
        if (!root["resources"].contains(b->resource)) {
            diags.error(p, "dxdispatch.binding", "no resource named '" + b->resource + "'");
            return {nullptr, 0};
        }
        bound[field] = b->resource;
        if (!resources.count(b->resource)) {
            auto r = read_resource(doc, root["resources"][b->resource], pointer_append("/resources", b->resource),
                                   model.parent_path(), options.max_bytes, options.allow_paths, diags, respelled);
            if (!r) return {nullptr, 0};
            resources[b->resource] = std::move(*r);
        }
        const Resource& r = resources[b->resource];
        // In bytes, without wrapping: an offset past the resource is refused below, never read
        // modulo 2^64 from somewhere else.
        return {&r, saturating_mul(b->element_offset, element_size(r.type))};
    };
    ordered_json inputs = ordered_json::object();
    std::map<std::string, std::string> input_resource;
    for (const auto& f : tensor_fields(shape.op)) {
        if (f.role != TensorRole::Input) continue;
        auto [r, offset] = resource(std::string(f.name));
        if (!r) return "";
        if (offset > r->bytes.size() || r->bytes.size() - offset < buffer_size(*f.desc)) {
            std::string p;
            binding_of(std::string(f.name), p);
            diags.error(p, "dxdispatch.binding",
                        "the resource holds " + std::to_string(r->bytes.size()) + " bytes; " + std::string(f.name) +
                            " binds TotalTensorSizeInBytes " + std::to_string(buffer_size(*f.desc)) +
                            " bytes from byte " + std::to_string(offset));
            return "";
        }
        inputs[std::string(f.name)] = input_spelling(*r, offset, *f.desc);
        input_resource[bound[std::string(f.name)]] = std::string(f.name);
    }
    c["inputs"] = inputs;
    ordered_json in_place = ordered_json::object();
    for (const auto& f : tensor_fields(shape.op)) {
        if (f.role != TensorRole::Output) continue;
        Diagnostics ignored;  // an output's binding matters only when it names an input's resource
        std::string p;
        const json* bj = binding_of(std::string(f.name), p);
        auto b = bj ? read_binding(*bj, "", ignored) : std::nullopt;
        if (b && input_resource.count(b->resource)) in_place[std::string(f.name)] = input_resource[b->resource];
    }
    if (!in_place.empty()) c["inPlace"] = in_place;
    if (respelled)
        diags.warning(
            desc_ptr, "dxdispatch.rounding",
            std::to_string(respelled) + " decimal" + (respelled == 1 ? "" : "s") +
                " round to other bits through a double (DxDispatch) than once (dmlref); the case holds DxDispatch's bits");
    const std::string text = dump_json(c);
    Diagnostics check;
    parse_case(parse_json_text(text), model, check);
    remap(check);
    return check.has_errors() ? "" : text;
}

}  // namespace dmlref
