// Reading a case file (docs/case-format.md): the top level of a case, its operator, in-place
// bindings and policies; every error names the JSON pointer and a rule id, nothing is silently
// clamped or guessed. The parts are read by lib/case/case_read_desc.cpp and lib/case/case_read_values.cpp.
#include "case/case_reader.hpp"

#include "dmlref/admissible.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/readings.hpp"

#include <algorithm>
#include <cstdio>

#include <unistd.h>

namespace dmlref {

using namespace case_reader;

std::string_view dmlref_version() { return DMLREF_VERSION; }

// "expectError": "rule-id" or {"Rule": "rule-id", "Path": "/json/pointer"}, read first so that a
// case whose reading fails can still say which failure it expects.
static void read_expect_error(Reader& r, Case& c, const json& root) {
    if (!root.contains("expectError")) return;
    const json& e = root["expectError"];
    if (e.is_string()) {
        c.expect_error = e.get<std::string>();
        return;
    }
    if (r.is_object(e, "/expectError", "\"expectError\"")) {
        r.only_keys(e, "/expectError", {"Rule", "Path"}, "\"expectError\"");
        if (e.contains("Rule") && e["Rule"].is_string()) c.expect_error = e["Rule"].get<std::string>();
        else
            r.diags.error("/expectError/Rule", "case.missing-field",
                          "\"expectError\" names the rule id it expects in \"Rule\"");
        if (e.contains("Path") && e["Path"].is_string()) c.expect_error_path = e["Path"].get<std::string>();
    }
}

// "readings" (docs/case-format.md, "Readings"): the alternatives whose values the case shows.
// An array of policy names (every alternative of that policy for this operator) or of
// "Policy=Value" names; or, as dmlref writes it, an object keyed by "Policy=Value" whose values
// dmlref recomputes (they are never read as input).
static void read_readings(Reader& r, Case& c, const json& root) {
    if (!root.contains("readings")) return;
    const json& rd = root["readings"];
    std::vector<std::pair<std::string, std::string>> names;  // (name, JSON pointer)
    if (rd.is_array()) {
        for (size_t i = 0; i < rd.size(); ++i) {
            const std::string p = pointer_append("/readings", i);
            if (!rd[i].is_string())
                r.diags.error(p, "readings.type",
                              "a reading is named by a string: \"ArgmaxNaN\" or \"ArgmaxNaN=NaNWins\"");
            else names.emplace_back(rd[i].get<std::string>(), p);
        }
    } else if (rd.is_object()) {
        for (auto it = rd.begin(); it != rd.end(); ++it)
            names.emplace_back(it.key(), pointer_append("/readings", it.key()));
    } else {
        r.diags.error("/readings", "readings.type",
                      "\"readings\" is an array of policy or Policy=Value names (docs/case-format.md)");
        return;
    }
    for (const auto& [name, p] : names) {
        std::vector<std::string> found;
        for (const Alternative* a : alternatives_for(c.op.Type))
            if (name == a->Policy || name == a->name()) found.push_back(a->name());
        if (found.empty())
            r.diags.error(p, "readings.unknown",
                          "\"" + name +
                              "\" is not a policy with an alternative reading dmlref evaluates for DML_OPERATOR_" +
                              std::string(info(c.op.Type).Name) + " (docs/golden.md, Alternative readings)");
        for (auto& f : found)
            if (std::find(c.readings.begin(), c.readings.end(), f) == c.readings.end())
                c.readings.push_back(std::move(f));
    }
}

// ---- The case ----------------------------------------------------------------------------

namespace {

// "Admissible" of each expected output (docs/case-format.md, "Admissible values"): entries
// {"Index": i, "Values": [v, ...]} with increasing indices inside the output, each an element that
// several writes reach with different bits under the case's policies (dmlref::admissible), its
// values exactly the ones those writes carry, each once. Read once the inputs and policies are.
void read_admissible(Reader& r, const Case& c, const json& root) {
    if (!root.contains("expected") || !root["expected"].is_object()) return;
    for (const auto& f : tensor_fields(c.op)) {
        const std::string name(f.name);
        const json& ex = root["expected"];
        if (f.role != TensorRole::Output || !ex.contains(name) || !ex[name].is_object() ||
            !ex[name].contains("Admissible") || !c.expected.count(name))
            continue;
        const json& aj = ex[name]["Admissible"];
        const std::string ap = pointer_append(pointer_append("/expected", name), "Admissible");
        const char* form =
            "Admissible is an array of {\"Index\": i, \"Values\": [v, ...]}: an output element that "
            "several writes reach with different bits, and every value that could win";
        if (!aj.is_array()) {
            r.diags.error(ap, "expected.admissible", form);
            continue;
        }
        const DataType t = f.desc->DataType;
        const uint64_t n = element_count(*f.desc);
        const size_t w = element_size(t);
        const std::vector<Admissible> own = admissible(c, name);
        uint64_t previous = 0;
        for (size_t i = 0; i < aj.size(); ++i) {
            const std::string ip = pointer_append(ap, i);
            const json& x = aj[i];
            if (!x.is_object() || !x.contains("Index") || !x.contains("Values") || !r.is_array(x["Values"])) {
                r.diags.error(ip, "expected.admissible", form);
                continue;
            }
            r.only_keys(x, ip, {"Index", "Values"}, "an Admissible entry");
            const json& ij = x["Index"];
            const bool integer = ij.is_number_unsigned() || (ij.is_number_integer() && ij.get<int64_t>() >= 0);
            const uint64_t index = !integer                  ? 0
                                   : ij.is_number_unsigned() ? ij.get<uint64_t>()
                                                             : uint64_t(ij.get<int64_t>());
            const std::string xp = pointer_append(ip, "Index");
            if (!integer || index >= n) {
                r.diags.error(
                    xp, "expected.admissible-index",
                    "Index must be an element of " + name + ": a flat row-major index, 0 to " + std::to_string(n - 1));
                continue;
            }
            if (i > 0 && index <= previous) {
                r.diags.error(xp, "expected.admissible-index",
                              "Index " + std::to_string(index) + " does not follow " + std::to_string(previous) +
                                  ": Admissible lists each element once, in increasing order");
                continue;
            }
            previous = index;
            const std::string vp = pointer_append(ip, "Values");
            const size_t m = r.array_size(x["Values"]);
            if (m < 2) {
                r.diags.error(vp, "expected.admissible-count",
                              std::to_string(m) +
                                  " values given; an admissible list holds at least two (with one, the element's "
                                  "Values entry is its only answer)");
                continue;
            }
            std::vector<std::byte> buf(m * w);
            if (!r.values(t, x["Values"], vp, false, buf.data())) continue;
            const auto it = std::lower_bound(own.begin(), own.end(), index,
                                             [](const Admissible& a, uint64_t k) { return a.Index < k; });
            if (it == own.end() || it->Index != index) {
                r.diags.error(xp, "expected.admissible-index",
                              name + " element " + std::to_string(index) +
                                  " is not reached by several writes with different bits under this case's policies "
                                  "(DuplicateIndex): its Values entry is its only answer");
                continue;
            }
            std::vector<uint64_t> seen;
            for (size_t k = 0; k < m; ++k) {
                const uint64_t bits = load_bits(t, buf.data() + k * w);
                const std::string kp = pointer_append(vp, k);
                if (std::find(seen.begin(), seen.end(), bits) != seen.end())
                    r.diags.error(kp, "expected.admissible-count",
                                  format_value(t, bits) +
                                      " is listed twice; each value that could win is listed once, so a list has at "
                                      "most as many values as writes reach the element");
                else if (std::find(it->Values.begin(), it->Values.end(), bits) == it->Values.end())
                    r.diags.error(kp, "expected.admissible-value",
                                  "no write carries " + format_value(t, bits) + " into " + name + " element " +
                                      std::to_string(index) + "; an admissible value is one some write leaves there");
                seen.push_back(bits);
            }
            if (seen.size() == m && seen.size() < it->Values.size())
                r.diags.error(vp, "expected.admissible-count",
                              std::to_string(m) + " values listed; " + std::to_string(it->Values.size()) +
                                  " different values are written into " + name + " element " + std::to_string(index) +
                                  " and each could win");
        }
    }
}

}  // namespace

Case parse_case(const JsonDocument& doc, const fs::path& file, Diagnostics& diags, const LoadOptions& options) {
    Reader r{doc, diags};
    Case c;
    c.file = file;
    const json& root = doc.root;
    if (!r.is_object(root, "", "a case")) return c;
    r.only_keys(root, "",
                {"format", "name", "description", "operator", "desc", "inputs", "inPlace", "expected", "policies",
                 "readings", "provenance", "expectError"},
                "a case");
    read_expect_error(r, c, root);
    if (!root.contains("format") || !root["format"].is_number_integer() ||
        root["format"].get<int64_t>() != kCaseFormatVersion) {
        diags.error("/format", "case.format",
                    "a case file starts with \"format\": 1 (this dmlref reads case format version 1)");
        return c;
    }
    c.name = file.stem().string();
    if (root.contains("name")) {
        if (root["name"].is_string()) c.name = root["name"].get<std::string>();
        else diags.error("/name", "case.type", "\"name\" must be a string");
    }
    if (root.contains("description")) {
        if (root["description"].is_string()) c.description = root["description"].get<std::string>();
        else diags.error("/description", "case.type", "\"description\" must be a string");
    }

    // operator and desc
    if (!root.contains("operator") || !root["operator"].is_string()) {
        diags.error("/operator", "case.operator",
                    "\"operator\" must name the operator, e.g. \"DML_OPERATOR_ACTIVATION_RELU_GRAD\"");
        return c;
    }
    const auto type = parse_operator_type(root["operator"].get<std::string>());
    if (!type) {
        std::vector<std::string_view> names;
        for (const auto& i : all_operators()) names.push_back(i.Name);
        diags.error(
            "/operator", "case.operator",
            "\"" + root["operator"].get<std::string>() +
                "\" is not an operator dmlref evaluates (DML_OPERATOR_ followed by one of: " + list_text(names) + ")");
        return c;
    }
    c.op = make_operator(*type);
    if (!root.contains("desc") || !r.is_object(root["desc"], "/desc", "\"desc\"")) {
        if (!root.contains("desc")) diags.error("/desc", "case.missing-field", "the case has no \"desc\"");
        return c;
    }
    const size_t desc_diags = diags.items().size();
    bool desc_ok = read_desc(r, c.op, root["desc"]);
    if (!desc_ok || diags.has_errors()) return c;

    ValidateOptions vo;
    vo.max_bytes = options.max_bytes;
    diags.append(validate(c.op, vo));
    if (diags.has_errors()) return c;  // no buffers for a desc that is wrong
    record_desc_notation(r, c, root["desc"], desc_diags);
    if (const uint64_t work = work_estimate(c.op); work > options.max_work) {
        diags.error("/desc", "limit.work",
                    "running this case takes about " + std::to_string(work) +
                        " element reads and writes, over the limit of " + std::to_string(options.max_work) +
                        " (raise it with --max-work)");
        return c;
    }

    const auto fields = tensor_fields(c.op);
    auto find_field = [&](std::string_view n) -> const TensorField* {
        for (const auto& f : fields)
            if (f.name == n) return &f;
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
                                     std::find(allowed.begin(), allowed.end(),
                                               std::pair<std::string_view, std::string_view>{out->name, in->name}) !=
                                         allowed.end();
                if (!pair_ok) {
                    std::string allowed_text;
                    for (const auto& [o, i] : allowed)
                        allowed_text += (allowed_text.empty() ? "" : ", ") + std::string(o) + " with " + std::string(i);
                    diags.error(p, "in-place.allowed",
                                "DML_OPERATOR_" + std::string(info(c.op.Type).Name) +
                                    (allowed.empty() ? " does not support in-place execution"
                                                     : " allows in-place execution only for " + allowed_text));
                    continue;
                }
                TensorDesc a = *out->desc, b = *in->desc;
                a.Flags = b.Flags = 0;
                if (a != b || buffer_size(a) != buffer_size(b)) {
                    diags.error(
                        p, "in-place.same-range",
                        std::string(out->name) + " and " + std::string(in->name) +
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
        // Rules on the values themselves (ROI align's batch indices and regions).
        if (!diags.has_errors()) diags.append(validate_input_values(c.op, c.inputs, options.max_work));
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
                read_expected(r, c, *f, *it, p, base_dir, options);
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
                diags.error(
                    p, "policy.unknown",
                    "\"" + it.key() + "\" is not a policy of DML_OPERATOR_" + std::string(info(c.op.Type).Name));
            } else if (it->is_string() && it->get<std::string>() != k->Value &&
                       alternative_of(c.op.Type, it.key(), it->get<std::string>())) {
                c.policies[it.key()] = it->get<std::string>();  // an alternative reading (docs/golden.md)
            } else if (!it->is_string() || it->get<std::string>() != k->Value) {
                diags.error(
                    p, "policy.unsupported",
                    "dmlref implements " + std::string(k->Name) + " = " + std::string(k->Value) +
                        " only, or an alternative reading of it that docs/golden.md lists for this operator; this case asks for " +
                        it->dump());
            }
        }
    }
    read_readings(r, c, root);
    if (!diags.has_errors()) read_admissible(r, c, root);
    if (root.contains("provenance") && r.is_object(root["provenance"], "/provenance", "\"provenance\"")) {
        const json& pv = root["provenance"];
        r.only_keys(pv, "/provenance", {"dmlref", "format", "seeds"}, "provenance");
        if (pv.contains("dmlref") && !pv["dmlref"].is_string())
            diags.error("/provenance/dmlref", "case.type",
                        "the dmlref version in provenance must be a string (the version that wrote the golden)");
        if (pv.contains("format"))
            r.unsigned_value(pv["format"], "/provenance/format", 0xffffffffull, "the case format in provenance");
        if (pv.contains("seeds")) {
            if (!pv["seeds"].is_array())
                diags.error("/provenance/seeds", "case.type", "the seeds in provenance must be an array of integers");
            else
                for (size_t i = 0; i < pv["seeds"].size(); ++i)
                    r.unsigned_value(pv["seeds"][i], pointer_append("/provenance/seeds", i),
                                     std::numeric_limits<uint64_t>::max(), "a seed");
        }
    }
    return c;
}

Case load_case(const fs::path& file, Diagnostics& diags, const LoadOptions& options) {
    // Tensor data is read packed (lib/case/json_parse.cpp); a large file shows its progress on a terminal.
    JsonReadOptions jo;
    jo.pack_tensors = true;
    std::error_code ec;
    struct Line {
        bool shown = false;
        ~Line() {
            if (shown) std::fprintf(stderr, "\r\x1b[K");
        }
    } line;
    if (options.progress && fs::file_size(file, ec) > (uint64_t(16) << 20) && !ec && ::isatty(STDERR_FILENO)) {
        const std::string name = printable(file.string());
        jo.progress = [&line, name](size_t done, size_t total) {
            line.shown = true;
            std::fprintf(stderr, "\r\x1b[Kreading %s: %d%%", name.c_str(), int(100.0 * double(done) / double(total)));
            std::fflush(stderr);
        };
    }
    const JsonDocument doc = read_json_file(file, uint64_t(1) << 30, jo);
    return parse_case(doc, file, diags, options);
}

}  // namespace dmlref
