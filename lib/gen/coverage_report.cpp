// The coverage matrices as text, JSON and a self-contained HTML page (docs/coverage.md).
#include "dmlref/coverage.hpp"
#include "dmlref/markup.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace dmlref {

namespace {

uint64_t count(const Coverage& c, OperatorType op, DataType t, uint32_t r) {
    auto a = c.cells.find(op);
    if (a == c.cells.end()) return 0;
    auto b = a->second.find(t);
    if (b == a->second.end()) return 0;
    auto d = b->second.find(r);
    return d == b->second.end() ? 0 : d->second;
}

uint64_t feature_count(const Coverage& c, OperatorType op, const std::string& f) {
    auto a = c.features.find(op);
    if (a == c.features.end()) return 0;
    auto b = a->second.find(f);
    return b == a->second.end() ? 0 : b->second;
}

// One cell's mark: the count, or '.' (a hole in dmlref's scope), '!' (a hole inside DirectML's
// tables), '-' (outside dmlref's scope).
std::string mark(const Coverage& c, OperatorType op, DataType t, uint32_t r) {
    const auto [lo, hi] = scope_ranks(op);
    const uint64_t n = count(c, op, t, r);
    if (n) return n > 999 ? "999+" : std::to_string(n);
    if (r < lo || r > hi || !scope_type(op, t)) return "-";
    return in_directml_tables(op, t, r) ? "!" : ".";
}

std::string pad_left(const std::string& s, size_t n) { return s.size() >= n ? s : std::string(n - s.size(), ' ') + s; }

}  // namespace

std::string coverage_text(const Coverage& c) {
    std::ostringstream o;
    const Holes h = holes(c);
    o << c.cases << " cases ("
      << [&] {
        uint64_t n = 0;
        for (const auto& [r, k] : c.error_rules) n += k;
        return n;
    }() << " error cases, "
        << c.unreadable << " unreadable)\n\n";
    if (!c.every_operator) o << "The operators these cases exercise (--all: every operator of dmlref's registry).\n\n";
    o << "Operator x type x rank: cases per cell; '!' none, inside DirectML's support tables; '.' none, inside\n"
         "dmlref's scope (11 types, ranks 1-8, max pooling 3-8); '-' outside it.\n";
    for (const auto& i : all_operators()) {
        if (!c.shown(i.Type)) continue;
        o << "\n" << i.Name << "\n  " << std::string(8, ' ');
        for (uint32_t r = 1; r <= 8; ++r) o << pad_left("r" + std::to_string(r), 5);
        o << "\n";
        for (DataType t : kAllDataTypes) {
            std::string n(name(t));
            o << "  " << n << std::string(8 - std::min<size_t>(8, n.size()), ' ');
            for (uint32_t r = 1; r <= 8; ++r) o << pad_left(mark(c, i.Type, t, r), 5);
            o << "\n";
        }
    }
    o << "\nOperator x feature: cases with the feature; features with none are listed as holes.\n";
    for (const auto& i : all_operators()) {
        if (!c.shown(i.Type)) continue;
        std::string line, missing;
        for (const auto& f : applicable_features(i.Type)) {
            const uint64_t n = feature_count(c, i.Type, f);
            if (n) line += " " + f + "=" + std::to_string(n);
            else missing += " " + f;
        }
        o << "  " << i.Name << ":" << line << "\n";
        if (!missing.empty()) o << "    holes:" << missing << "\n";
    }
    if (!c.error_rules.empty()) {
        o << "\nError cases by rule: " << c.error_rules.size() << " rule ids\n";
    }
    o << "\nHoles: " << h.scope << " (operator, type, rank) cells in dmlref's scope without a case (" << h.directml
      << " of them inside DirectML's tables); " << h.features << " (operator, feature) pairs without a case\n";
    return o.str();
}

std::string coverage_json(const Coverage& c) {
    nlohmann::ordered_json j;
    j["cases"] = c.cases;
    j["unreadable"] = c.unreadable;
    j["operators"] = c.every_operator ? "all" : "exercised";  // --all, or the operators the cases exercise
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (const auto& i : all_operators()) {
        if (!c.shown(i.Type)) continue;
        nlohmann::ordered_json op, cells = nlohmann::ordered_json::object(), scope = nlohmann::ordered_json::array(),
                                   dml = nlohmann::ordered_json::array(), feats = nlohmann::ordered_json::object(),
                                   fholes = nlohmann::ordered_json::array();
        const auto [lo, hi] = scope_ranks(i.Type);
        for (DataType t : kAllDataTypes) {
            nlohmann::ordered_json row = nlohmann::ordered_json::object();
            for (uint32_t r = 1; r <= 8; ++r) {
                const uint64_t n = count(c, i.Type, t, r);
                if (n) row[std::to_string(r)] = n;
                else if (r >= lo && r <= hi && scope_type(i.Type, t)) {
                    scope.push_back({std::string(name(t)), r});
                    if (in_directml_tables(i.Type, t, r)) dml.push_back({std::string(name(t)), r});
                }
            }
            cells[std::string(name(t))] = row;
        }
        for (const auto& f : applicable_features(i.Type)) {
            const uint64_t n = feature_count(c, i.Type, f);
            feats[f] = n;
            if (!n) fholes.push_back(f);
        }
        op["ranks"] = {lo, hi};
        op["cells"] = cells;
        op["features"] = feats;
        op["holes"] = {{"scope", scope}, {"directml", dml}, {"features", fholes}};
        ops[std::string(i.Name)] = op;
    }
    j["operators"] = ops;
    j["errorRules"] = c.error_rules;
    const Holes h = holes(c);
    j["holes"] = {{"scope", h.scope}, {"directml", h.directml}, {"features", h.features}};
    return j.dump(2) + "\n";
}

std::string coverage_html(const Coverage& c) {
    std::ostringstream o;
    const Holes h = holes(c);
    o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>dmlref coverage</title><style>\n"
         "body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}"
         ".ok{background:#c8ecc8}.dml{background:#f4a6a6}.scope{background:#f7d9a0}.out{background:#f2f2f2;color:#aaa}"
         "h2{margin-bottom:0}.grid{display:flex;flex-wrap:wrap;gap:2em}\n</style></head><body>\n";
    o << "<h1>dmlref coverage</h1><p>" << c.cases << " cases. Holes: " << h.scope << " (operator, type, rank) cells in "
      << "dmlref's scope without a case, " << h.directml << " of them inside DirectML's support tables; " << h.features
      << " (operator, feature) pairs without a case.</p>\n<p><span class=ok>&nbsp;n&nbsp;</span> cases "
         "<span class=dml>&nbsp;!&nbsp;</span> hole inside DirectML's tables <span class=scope>&nbsp;.&nbsp;</span> hole in "
         "dmlref's scope <span class=out>&nbsp;-&nbsp;</span> outside the scope</p>\n<div class=grid>\n";
    for (const auto& i : all_operators()) {
        if (!c.shown(i.Type)) continue;
        o << "<div><h2>" << i.Name << "</h2><table><tr><th></th>";
        for (uint32_t r = 1; r <= 8; ++r) o << "<th>r" << r << "</th>";
        o << "</tr>\n";
        for (DataType t : kAllDataTypes) {
            o << "<tr><th>" << name(t) << "</th>";
            for (uint32_t r = 1; r <= 8; ++r) {
                const std::string m = mark(c, i.Type, t, r);
                const char* cls = m == "!" ? "dml" : m == "." ? "scope" : m == "-" ? "out" : "ok";
                o << "<td class=" << cls << ">" << m << "</td>";
            }
            o << "</tr>\n";
        }
        o << "</table><table>";
        for (const auto& f : applicable_features(i.Type)) {
            const uint64_t n = feature_count(c, i.Type, f);
            o << "<tr><th>" << markup_escaped(f) << "</th><td class=" << (n ? "ok" : "scope") << ">" << n
              << "</td></tr>";
        }
        o << "</table></div>\n";
    }
    o << "</div>\n";
    if (!c.error_rules.empty()) {
        o << "<h2>Error cases by rule</h2><table>";
        for (const auto& [r, n] : c.error_rules)
            o << "<tr><th>" << markup_escaped(r) << "</th><td class=ok>" << n << "</td></tr>";
        o << "</table>\n";
    }
    o << "</body></html>\n";
    return o.str();
}

}  // namespace dmlref
