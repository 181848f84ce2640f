// Sweep spec combinators (docs/gen.md): axes of overrides by JSON pointer, combined by product,
// zip and concat, chosen by tier; each variant carries its name labels and description notes.
#include "gen/gen_internal.hpp"

#include <algorithm>

namespace dmlref::gen {

std::optional<Tier> parse_tier(std::string_view s) {
    if (s == "smoke") return Tier::Smoke;
    if (s == "ci") return Tier::Ci;
    if (s == "full") return Tier::Full;
    return std::nullopt;
}

std::string_view tier_name(Tier t) { return t == Tier::Smoke ? "smoke" : t == Tier::Ci ? "ci" : "full"; }

ordered_json raw_json(const JsonDocument& doc, const json& node, const std::string& pointer) {
    if (node.is_object()) {
        ordered_json o = ordered_json::object();
        for (auto it = node.begin(); it != node.end(); ++it)
            o[it.key()] = raw_json(doc, *it, pointer_append(pointer, it.key()));
        return o;
    }
    if (node.is_array()) {
        ordered_json a = ordered_json::array();
        for (size_t i = 0; i < node.size(); ++i) a.push_back(raw_json(doc, node[i], pointer_append(pointer, i)));
        return a;
    }
    if (node.is_number_float()) return json_raw(doc.token(node, pointer).text);
    return ordered_json::parse(node.dump());
}

std::string safe_label(std::string s) {
    for (char& ch : s) {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                        ch == ',' || ch == '_' || ch == '+' || ch == '-';
        if (!ok) ch = '-';
    }
    return s;
}

namespace {

// One expansion of a sweep's "cases": the tier, where problems go, the most variants any node may
// give (gen --max-cases; a product is refused before it is built), and the "defs" being expanded
// (a "use" of one of them is a cycle).
struct Expansion {
    const JsonDocument& doc;
    Tier tier;
    Diagnostics& diags;
    size_t max_cases;
    std::vector<std::string> using_defs;
    bool failed = false;
};

std::vector<Variant> expand_node(Expansion& x, const json& node, const std::string& pointer);

// A value's label: strings lower-cased, numbers as written, arrays joined by 'x'.
std::string value_label(const JsonDocument& doc, const json& v, const std::string& pointer, bool& ok) {
    if (v.is_string()) {
        std::string s = v.get<std::string>();
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
        return s;
    }
    if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
    if (v.is_number_float()) return doc.token(v, pointer).text;
    if (v.is_number()) return v.dump();
    if (v.is_array()) {
        std::string s;
        for (size_t i = 0; i < v.size(); ++i)
            s += (i ? "x" : "") + value_label(doc, v[i], pointer_append(pointer, i), ok);
        return s;
    }
    ok = false;
    return "";
}

bool is_tier_excluded(const json& node, const std::string& pointer, Tier tier, Diagnostics& diags) {
    if (!node.is_object() || !node.contains("tier")) return false;
    const auto t = node["tier"].is_string() ? parse_tier(node["tier"].get<std::string>()) : std::nullopt;
    if (!t) {
        diags.error(pointer_append(pointer, "tier"), "gen.tier", "\"tier\" is \"smoke\", \"ci\" or \"full\"");
        return true;
    }
    return tier < *t;
}

Variant merge(const Variant& a, const Variant& b) {
    Variant v = a;
    v.labels.insert(v.labels.end(), b.labels.begin(), b.labels.end());
    v.notes.insert(v.notes.end(), b.notes.begin(), b.notes.end());
    v.overrides.insert(v.overrides.end(), b.overrides.begin(), b.overrides.end());
    return v;
}

void list_of(Expansion& x, const json& node, const std::string& key, const std::string& pointer,
             std::vector<std::vector<Variant>>& parts) {
    const json& items = node[key];
    const std::string p = pointer_append(pointer, key);
    if (!items.is_array() || items.empty()) {
        x.diags.error(p, "gen.node", "\"" + key + "\" is a non-empty array of nodes");
        return;
    }
    for (size_t i = 0; i < items.size() && !x.failed; ++i)
        parts.push_back(expand_node(x, items[i], pointer_append(p, i)));
}

// Refuses a node that would give more than --max-cases variants, before they are made.
bool within_limit(Expansion& x, const std::string& pointer, long double count) {
    if (count <= (long double)x.max_cases) return true;
    if (!x.failed)
        x.diags.error(pointer, "gen.too-many-cases",
                      "this node gives " + std::to_string((unsigned long long)std::min<long double>(count, 1e19L)) +
                          " cases or more, past the limit of " + std::to_string(x.max_cases) +
                          " (gen --max-cases; split the spec, or narrow its axes)");
    x.failed = true;
    return false;
}

std::vector<Variant> axis(const JsonDocument& doc, const json& node, const std::string& pointer, Diagnostics& diags) {
    std::vector<std::string> pointers;
    if (node.contains("pointer") && node["pointer"].is_string()) pointers.push_back(node["pointer"].get<std::string>());
    if (node.contains("pointers") && node["pointers"].is_array())
        for (const auto& p : node["pointers"])
            if (p.is_string()) pointers.push_back(p.get<std::string>());
    const json& values = node["values"];
    if (pointers.empty() || !values.is_array()) {
        diags.error(pointer, "gen.node", "an axis has \"pointer\" (or \"pointers\") and an array of \"values\"");
        return {};
    }
    const std::string prefix = node.contains("axis") && node["axis"].is_string() ? node["axis"].get<std::string>() : "";
    const json labels = node.contains("labels") ? node["labels"] : json();
    const json notes = node.contains("notes") ? node["notes"] : json();
    for (const json* list : {&labels, &notes})
        if (!list->is_null() && (!list->is_array() || list->size() != values.size())) {
            diags.error(pointer, "gen.node", "an axis's \"labels\" and \"notes\" have one string per value");
            return {};
        }
    std::vector<Variant> out;
    for (size_t i = 0; i < values.size(); ++i) {
        const std::string vp = pointer_append(pointer_append(pointer, "values"), i);
        Variant v;
        bool ok = true;
        std::string label = labels.is_array() && labels[i].is_string() ? labels[i].get<std::string>()
                                                                       : prefix + value_label(doc, values[i], vp, ok);
        if (!ok) {
            diags.error(vp, "gen.node", "an object value needs its label in the axis's \"labels\"");
            return {};
        }
        if (!label.empty()) v.labels.push_back(safe_label(label));
        if (notes.is_array() && notes[i].is_string() && !notes[i].get<std::string>().empty())
            v.notes.push_back(notes[i].get<std::string>());
        for (const auto& p : pointers) v.overrides.push_back({p, raw_json(doc, values[i], vp), vp});
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<Variant> variants(const JsonDocument& doc, const json& node, const std::string& pointer, Tier tier,
                              Diagnostics& diags) {
    const json& items = node["variants"];
    const std::string p = pointer_append(pointer, "variants");
    if (!items.is_array()) {
        diags.error(p, "gen.node", "\"variants\" is an array of {\"label\", \"note\", \"set\": {pointer: value}}");
        return {};
    }
    std::vector<Variant> out;
    for (size_t i = 0; i < items.size(); ++i) {
        const json& it = items[i];
        const std::string ip = pointer_append(p, i);
        if (!it.is_object() || !it.contains("set") || !it["set"].is_object()) {
            diags.error(ip, "gen.node", "a variant is {\"label\": ..., \"note\": ..., \"set\": {pointer: value, ...}}");
            continue;
        }
        if (is_tier_excluded(it, ip, tier, diags)) continue;
        Variant v;
        if (it.contains("label") && it["label"].is_string() && !it["label"].get<std::string>().empty())
            v.labels.push_back(safe_label(it["label"].get<std::string>()));
        if (it.contains("note") && it["note"].is_string()) v.notes.push_back(it["note"].get<std::string>());
        for (auto s = it["set"].begin(); s != it["set"].end(); ++s) {
            const std::string sp = pointer_append(pointer_append(ip, "set"), s.key());
            v.overrides.push_back({s.key(), raw_json(doc, *s, sp), sp});
        }
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<Variant> expand_node(Expansion& x, const json& node, const std::string& pointer) {
    const JsonDocument& doc = x.doc;
    const Tier tier = x.tier;
    Diagnostics& diags = x.diags;
    if (x.failed) return {};
    if (!node.is_object()) {
        diags.error(pointer, "gen.node",
                    "a sweep node is an object: product, zip, concat, byTier, an axis or variants");
        return {};
    }
    if (is_tier_excluded(node, pointer, tier, diags)) return {};
    std::vector<std::vector<Variant>> parts;
    if (node.contains("product")) {
        list_of(x, node, "product", pointer, parts);
        long double count = 1;
        for (const auto& part : parts) count *= (long double)part.size();
        if (!within_limit(x, pointer, count)) return {};
        std::vector<Variant> acc{Variant{}};
        for (const auto& part : parts) {
            std::vector<Variant> next;
            for (const auto& a : acc)
                for (const auto& b : part) next.push_back(merge(a, b));
            acc = std::move(next);
        }
        return parts.empty() ? std::vector<Variant>{} : acc;
    }
    if (node.contains("concat")) {
        list_of(x, node, "concat", pointer, parts);
        long double count = 0;
        for (const auto& part : parts) count += (long double)part.size();
        if (!within_limit(x, pointer, count)) return {};
        std::vector<Variant> out;
        for (auto& part : parts) out.insert(out.end(), part.begin(), part.end());
        return out;
    }
    if (node.contains("zip")) {
        list_of(x, node, "zip", pointer, parts);
        if (x.failed) return {};
        const bool cycle = node.contains("cycle") && node["cycle"].is_boolean() && node["cycle"].get<bool>();
        size_t n = 0;
        for (const auto& part : parts) n = std::max(n, part.size());
        for (const auto& part : parts) {
            if (part.empty() || (part.size() != n && !cycle)) {
                diags.error(
                    pointer_append(pointer, "zip"), "gen.zip-length",
                    "the nodes of a zip give the same number of cases (or say \"cycle\": true to repeat the shorter ones)");
                return {};
            }
        }
        std::vector<Variant> out;
        for (size_t i = 0; i < n; ++i) {
            Variant v;
            for (const auto& part : parts) v = merge(v, part[i % part.size()]);
            out.push_back(std::move(v));
        }
        return out;
    }
    if (node.contains("byTier")) {
        const json& bt = node["byTier"];
        const std::string p = pointer_append(pointer, "byTier");
        if (!bt.is_object()) {
            diags.error(p, "gen.node", "\"byTier\" is {\"smoke\": node, \"ci\": node, \"full\": node}");
            return {};
        }
        // The node for the tier asked, else the nearest tier below it that has one.
        for (int t = int(tier); t >= 0; --t) {
            const std::string key(tier_name(Tier(t)));
            if (bt.contains(key)) return expand_node(x, bt[key], pointer_append(p, key));
        }
        return {};
    }
    if (node.contains("use")) {  // a node defined once in the file's "defs"
        const json& defs = doc.root.contains("defs") ? doc.root["defs"] : json();
        if (!node["use"].is_string() || !defs.is_object() || !defs.contains(node["use"].get<std::string>())) {
            diags.error(pointer_append(pointer, "use"), "gen.node", "\"use\" names a node in the file's \"defs\"");
            return {};
        }
        const std::string n = node["use"].get<std::string>();
        if (std::find(x.using_defs.begin(), x.using_defs.end(), n) != x.using_defs.end()) {
            std::string chain;
            for (const auto& u : x.using_defs) chain += u + " -> ";
            diags.error(pointer_append(pointer, "use"), "gen.use-cycle",
                        "\"use\": \"" + n + "\" is a cycle (" + chain + n + ")");
            x.failed = true;
            return {};
        }
        x.using_defs.push_back(n);
        auto out = expand_node(x, defs[n], pointer_append("/defs", n));
        x.using_defs.pop_back();
        return out;
    }
    if (node.contains("variants")) return variants(doc, node, pointer, tier, diags);
    if (node.contains("values")) return axis(doc, node, pointer, diags);
    diags.error(pointer, "gen.node", "a sweep node is an object: product, zip, concat, byTier, an axis or variants");
    return {};
}

}  // namespace

std::vector<Variant> expand(const JsonDocument& doc, const json& node, const std::string& pointer, Tier tier,
                            Diagnostics& diags, size_t max_cases) {
    Expansion x{doc, tier, diags, max_cases, {}};
    auto out = expand_node(x, node, pointer);
    if (x.failed) return {};
    return out;
}

}  // namespace dmlref::gen
