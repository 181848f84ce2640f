// Making the cases of a sweep spec (docs/gen.md): planning (names, overrides, seeds, shards),
// then each case's derived fields, recipe inputs and expected outputs.
#include "gen/gen_internal.hpp"

#include "case/golden_files.hpp"
#include "dmlref/generate.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace dmlref::gen {

uint64_t case_seed(uint64_t sweep_seed, std::string_view name) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
    for (unsigned char ch : name) {
        h ^= ch;
        h *= 0x100000001b3ull;
    }
    SplitMix64 r{sweep_seed ^ h};
    return r.next() >> 32;  // 32 bits: short in names and descriptors, exact in every JSON reader
}

bool expect_error_met(const Diagnostics& diags, const std::string& rule, const std::string& path, std::string& why) {
    bool at_path = path.empty();
    std::string others;
    size_t errors = 0;
    for (const auto& d : diags.items()) {
        if (d.severity != Severity::Error) continue;
        ++errors;
        if (d.rule != rule) others += (others.empty() ? "" : ", ") + d.rule + " at " + (d.path.empty() ? "/" : d.path);
        else if (d.path == path) at_path = true;
    }
    if (errors == 0) why = "the case is valid; it expects the error [" + rule + "]";
    else if (!others.empty()) why = "it expects only [" + rule + "] but found " + others;
    else if (!at_path) why = "[" + rule + "] is not reported at " + path;
    else return true;
    return false;
}

namespace {

void plan_sweep(const JsonDocument& doc, const json& sw, const std::string& sp, const Options& o, Diagnostics& diags,
                std::vector<Planned>& out) {
    if (!sw.is_object()) {
        diags.error(sp, "gen.sweep", "a sweep is an object with \"name\", \"base\" and \"cases\"");
        return;
    }
    for (auto it = sw.begin(); it != sw.end(); ++it)
        if (it.key() != "sweep" && it.key() != "name" && it.key() != "description" && it.key() != "seed" &&
            it.key() != "base" && it.key() != "cases" && !(it.key() == "defs" && sp.empty()))
            diags.error(pointer_append(sp, it.key()), "gen.sweep",
                        "\"" + it.key() + "\" is not a key of a sweep (name, description, seed, base, cases)");
    if (!sw.contains("name") || !sw["name"].is_string() || !sw.contains("base") || !sw["base"].is_object()) {
        diags.error(sp, "gen.sweep", "a sweep has a \"name\" (string) and a \"base\" case (object)");
        return;
    }
    const std::string name = sw["name"].get<std::string>();
    // The name is a path under the output directory: plain segments only.
    bool safe = true;
    std::string seg;
    for (size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || name[i] == '/') {
            safe = safe && !seg.empty() && seg != "." && seg != "..";
            seg.clear();
        } else {
            safe = safe && (std::isalnum((unsigned char)name[i]) || std::strchr("._,+-", name[i]));
            seg += name[i];
        }
    }
    if (!safe) {
        diags.error(pointer_append(sp, "name"), "gen.sweep",
                    "a sweep's name is a relative path of plain segments ([A-Za-z0-9._,+-], no \".\" or \"..\"): \"" +
                        name + "\"");
        return;
    }
    const std::string description = sw.contains("description") && sw["description"].is_string()
                                        ? sw["description"].get<std::string>()
                                        : "";
    uint64_t seed = 0;
    if (sw.contains("seed")) {
        if (!sw["seed"].is_number_unsigned()) {
            diags.error(pointer_append(sp, "seed"), "gen.sweep", "\"seed\" is an unsigned integer");
            return;
        }
        seed = sw["seed"].get<uint64_t>();
    }
    const ordered_json base = raw_json(doc, sw["base"], pointer_append(sp, "base"));
    std::vector<Variant> vs = sw.contains("cases")
                                  ? expand(doc, sw["cases"], pointer_append(sp, "cases"), o.tier, diags, o.max_cases)
                                  : std::vector<Variant>{Variant{}};
    if (out.size() + vs.size() > o.max_cases) {
        diags.error(sp, "gen.too-many-cases",
                    "with this sweep the spec gives " + std::to_string(out.size() + vs.size()) +
                        " cases, past the limit of " + std::to_string(o.max_cases) +
                        " (gen --max-cases; split the spec, or narrow its axes)");
        return;
    }
    for (const auto& v : vs) {
        Planned p;
        p.name = name;
        for (size_t i = 0; i < v.labels.size(); ++i) p.name += (i ? "_" : "/") + v.labels[i];
        for (const auto& n : v.notes) p.description += (p.description.empty() ? "" : "; ") + n;
        p.doc = base;
        p.base_pointer = pointer_append(sp, "base");
        for (const auto& ov : v.overrides) {
            p.origins.emplace_back(ov.pointer, ov.source);
            try {
                if (ov.pointer.empty()) p.doc = ov.value;
                else if (ov.value.is_null()) {
                    const ordered_json::json_pointer jp(ov.pointer);
                    p.doc[jp.parent_pointer()].erase(jp.back());
                } else p.doc[ordered_json::json_pointer(ov.pointer)] = ov.value;
            } catch (const std::exception& e) {
                diags.error(sp, "gen.pointer", p.name + ": cannot set " + ov.pointer + ": " + e.what());
            }
        }
        // The recipes the case's inputs use, when its labels do not name them already.
        std::vector<std::string> labels = v.labels;
        if (p.doc.is_object() && p.doc.contains("inputs") && p.doc["inputs"].is_object())
            for (const auto& [k, in] : p.doc["inputs"].items()) {
                if (!is_recipe(in)) continue;
                const ordered_json& r = in["Recipe"];
                const ordered_json n = r.is_object() && r.contains("Name") ? r["Name"] : r;
                if (!n.is_string()) continue;
                const std::string label = safe_label(n.get<std::string>());
                if (std::find(labels.begin(), labels.end(), label) == labels.end()) {
                    labels.push_back(label);
                    p.name += (p.name == name ? "/" : "_") + label;
                }
            }
        p.sweep_note = "A case of the sweep " + name + (description.empty() ? "" : " (" + description + ")") +
                       ", made by dmlref gen (docs/gen.md)";
        p.seed = case_seed(seed, p.name);
        out.push_back(std::move(p));
    }
}

// Top-level keys first, in the case format's order.
ordered_json ordered_case(const ordered_json& c) {
    ordered_json o = ordered_json::object();
    for (const char* k : {"format", "name", "description", "expectError", "operator", "desc", "inputs", "inPlace"})
        if (c.contains(k)) o[k] = c[k];
    for (auto it = c.begin(); it != c.end(); ++it)
        if (!o.contains(it.key())) o[it.key()] = *it;
    return o;
}

Case parse_text(const std::string& text, const std::string& name, Diagnostics& diags) {
    try {
        return parse_case(parse_json_text(text), name + ".json", diags);
    } catch (const CaseError& e) {
        diags.append(e.diagnostics());
        return {};
    }
}

}  // namespace

std::vector<Planned> plan_spec(const JsonDocument& doc, const Options& o, Diagnostics& diags) {
    std::vector<Planned> out;
    const json& root = doc.root;
    if (!root.is_object() || !root.contains("sweep") || root["sweep"] != 1) {
        diags.error("/sweep", "gen.sweep", "a sweep spec starts with \"sweep\": 1 (docs/gen.md)");
        return out;
    }
    if (root.contains("sweeps")) {
        if (!root["sweeps"].is_array()) {
            diags.error("/sweeps", "gen.sweep", "\"sweeps\" is an array of sweeps");
            return out;
        }
        for (auto it = root.begin(); it != root.end(); ++it)
            if (it.key() != "sweep" && it.key() != "sweeps" && it.key() != "defs")
                diags.error(pointer_append("", it.key()), "gen.sweep", "a file of \"sweeps\" has no other key");
        for (size_t i = 0; i < root["sweeps"].size(); ++i)
            plan_sweep(doc, root["sweeps"][i], pointer_append("/sweeps", i), o, diags, out);
    } else {
        plan_sweep(doc, root, "", o, diags, out);
    }
    std::set<std::string> seen;
    for (const auto& p : out)
        if (!seen.insert(p.name).second)
            diags.error("", "gen.duplicate-name",
                        "two cases are named " + p.name + ": give the axes labels that tell them apart");
    return out;
}

std::vector<Planned> plan_file(const std::filesystem::path& file, const Options& o, Diagnostics& diags) {
    try {
        return plan_spec(read_json_file(file), o, diags);
    } catch (const CaseError& e) {
        diags.append(e.diagnostics());
        return {};
    }
}

std::vector<Planned> shard(std::vector<Planned> cases, const Options& o) {
    if (o.shard_count <= 1) return cases;
    std::vector<Planned> out;
    for (size_t k = 0; k < cases.size(); ++k)
        if (k % o.shard_count == o.shard_index) out.push_back(std::move(cases[k]));
    return out;
}

namespace {

// The spec's node that says the part of the case at `path` (a pointer into the made case): the
// last override that set it or a node above it (later ones win), else the base; the part of the
// path below that node is kept. A descriptor's case has no spec: its own path.
std::string spec_pointer(const Planned& p, const std::string& given) {
    if (p.base_pointer.empty()) return given;
    // A derived part ("Sizes": "auto" made into an array) is not in the spec: its deepest node that
    // is, the "auto" itself.
    std::string path = given;
    while (!path.empty()) {
        try {
            if (p.doc.contains(ordered_json::json_pointer(path))) break;
        } catch (const std::exception&) {
        }
        path.erase(path.rfind('/'));
    }
    for (auto it = p.origins.rbegin(); it != p.origins.rend(); ++it) {
        const std::string& at = it->first;
        if (path == at ||
            (path.size() > at.size() && path.compare(0, at.size(), at) == 0 && (at.empty() || path[at.size()] == '/')))
            return it->second + path.substr(at.size());
    }
    return p.base_pointer + path;
}

// A problem of the made case, reported at the spec's node with the case's name and its own path.
void case_error(Diagnostics& diags, const Planned& p, const Diagnostic& d) {
    const std::string where = p.base_pointer.empty() ? std::string()
                                                     : " (case " + (d.path.empty() ? std::string("/") : d.path) + ")";
    diags.error(spec_pointer(p, d.path), "gen.case", p.name + where + ": " + d.message + " [" + d.rule + "]");
}

}  // namespace

std::optional<Generated> make_case(const Planned& p, const Options& o, Diagnostics& diags) {
    ordered_json c = p.doc;
    if (!c.is_object()) {
        diags.error("", "gen.case", p.name + ": the case is not a JSON object");
        return std::nullopt;
    }
    c["name"] = p.name;
    if (!c.contains("format")) c["format"] = kCaseFormatVersion;
    {
        Diagnostics dd;  // derived fields: their problems at the spec's node
        const bool derived = derive(c, p.name, dd);
        for (const auto& d : dd.items()) {
            if (d.severity == Severity::Error) diags.error(spec_pointer(p, d.path), d.rule, d.message);
            else diags.warning(spec_pointer(p, d.path), d.rule, d.message);
        }
        if (!derived) return std::nullopt;
    }
    std::string expect_rule, expect_path;
    if (c.contains("expectError")) {
        const auto& e = c["expectError"];
        if (e.is_string()) expect_rule = e.get<std::string>();
        else if (e.is_object() && e.contains("Rule") && e["Rule"].is_string()) {
            expect_rule = e["Rule"].get<std::string>();
            if (e.contains("Path") && e["Path"].is_string()) expect_path = e["Path"].get<std::string>();
        }
    }

    // Recipes need the parsed desc: parse once with zeros in their place.
    std::string recipe_notes;
    if (c.contains("inputs") && c["inputs"].is_object()) {
        ordered_json probe = c;
        bool any = false;
        for (auto& [k, v] : probe["inputs"].items())
            if (is_recipe(v)) {
                v = ordered_json{{"Fill", 0}};
                any = true;
            }
        if (any) {
            Diagnostics pd;
            probe.erase("expectError");
            Case parsed = parse_text(dump_json(probe), p.name, pd);
            if (pd.has_errors()) {
                if (expect_rule.empty()) {
                    for (const auto& d : pd.items())
                        if (d.severity == Severity::Error) case_error(diags, p, d);
                    return std::nullopt;
                }
                c["inputs"] = probe["inputs"];  // an error case: zeros stand in for its recipes
            } else {
                for (const auto& f : tensor_fields(parsed.op)) {
                    if (f.role != TensorRole::Input || !c["inputs"].contains(std::string(f.name))) continue;
                    ordered_json& in = c["inputs"][std::string(f.name)];
                    if (!is_recipe(in)) continue;
                    std::string note, error;
                    const ordered_json recipe = in;  // make_recipe writes over `in`
                    if (!make_recipe(parsed.op, f, recipe, case_seed(p.seed, f.name), in, note, error)) {
                        diags.error(spec_pointer(p, "/inputs/" + std::string(f.name)), "gen.recipe",
                                    p.name + ": " + error);
                        return std::nullopt;
                    }
                    recipe_notes += (recipe_notes.empty() ? "" : "; ") + note;
                }
            }
        }
    }
    std::string description;
    for (const std::string* part : {&p.description, static_cast<const std::string*>(&recipe_notes), &p.sweep_note})
        if (!part->empty()) description += (description.empty() ? "" : ". ") + *part;
    c["description"] = description;
    Generated g;
    g.name = p.name;
    g.description = description;
    g.expect_error = expect_rule;
    g.text = dump_json(ordered_case(c));
    if (!expect_rule.empty()) {
        Diagnostics cd;
        parse_text(g.text, p.name, cd);
        std::string why;
        if (!expect_error_met(cd, expect_rule, expect_path, why)) {
            diags.error("/expectError", "gen.expect-error", p.name + ": " + why);
            return std::nullopt;
        }
        return g;
    }
    if (!o.evaluate) return g;
    Diagnostics cd;
    Case parsed = parse_text(g.text, p.name, cd);
    if (cd.has_errors()) {
        for (const auto& d : cd.items())
            if (d.severity == Severity::Error) case_error(diags, p, d);
        return std::nullopt;
    }
    try {
        g.outputs = run_case(parsed);
        if (o.golden_text) g.text = write_golden(parsed, g.outputs, p.name + ".json");
        else g.text.clear();
        g.golden = std::move(parsed);
    } catch (const std::exception& e) {
        diags.error("", "gen.case", p.name + ": evaluation failed: " + e.what());
        return std::nullopt;
    }
    return g;
}

bool write_case(const Generated& g, const std::filesystem::path& file, uint64_t npy_threshold, bool overwrite) {
    const ExistingFile existing = overwrite ? ExistingFile::KeepSame : ExistingFile::Refuse;
    if (g.golden) return write_golden_files(*g.golden, g.outputs, file, npy_threshold, existing);
    return write_case_file(g.text, file, existing);
}

}  // namespace dmlref::gen
