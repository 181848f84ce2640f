// Known-deviation baselines (dmlref/baseline.hpp, docs/diff.md "Baselines"): the entries of a
// diff report, the baseline file, and the comparison into new, known and fixed failures.
#include "dmlref/baseline.hpp"

#include "dmlref/json_document.hpp"
#include "dmlref/printable.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace dmlref {

namespace fs = std::filesystem;
using oj = nlohmann::ordered_json;

namespace {
constexpr int kBaselineFormat = 1;
auto key(const BaselineEntry& e) { return std::tie(e.Case, e.Output, e.Reading); }
bool before(const BaselineEntry& a, const BaselineEntry& b) { return key(a) < key(b); }
}  // namespace

std::vector<BaselineEntry> baseline_entries(const DiffReport& r) {
    std::vector<BaselineEntry> v;
    for (const auto& c : r.cases) {
        if (!c.errors.empty()) {
            v.push_back({c.name, "", "error", 0});
            continue;
        }
        for (const auto& o : c.outputs) {
            for (const auto& [reading, n] : o.readings)
                if (n) v.push_back({c.name, o.output, reading.empty() ? "none" : reading, n});
            if (o.over && o.readings.empty()) v.push_back({c.name, o.output, "none", o.over});
            if (!o.systematic.passed()) v.push_back({c.name, o.output, "systematic", 0});
        }
    }
    std::sort(v.begin(), v.end(), before);
    return v;
}

std::string baseline_json(const DiffReport& r) {
    oj root;
    root["dmlrefBaseline"] = kBaselineFormat;
    root["about"] = "known deviations of a backend from dmlref's goldens (docs/diff.md, Baselines)";
    oj failures = oj::array();
    for (const auto& e : baseline_entries(r))
        failures.push_back({{"case", e.Case}, {"output", e.Output}, {"reading", e.Reading}, {"elements", e.Elements}});
    root["failures"] = failures;
    return root.dump(2, ' ', false, oj::error_handler_t::replace) + "\n";
}

std::vector<BaselineEntry> read_baseline(const fs::path& file) {
    std::ifstream f(file, std::ios::binary);
    if (!f) throw BaselineError(file.string() + ": /: error: cannot read the baseline file [baseline.read]");
    std::stringstream ss;
    ss << f.rdbuf();
    // The strict reader of case files (a duplicate key is an error, not "the last wins").
    JsonDocument doc;
    try {
        doc = parse_json_text(ss.str());
    } catch (const CaseError& e) {
        const auto& items = e.diagnostics().items();
        const std::string why = items.empty() ? std::string("not JSON")
                                              : printable(items.front().message) + " [" + items.front().rule + "]";
        throw BaselineError(file.string() + ": " +
                            (items.empty() || items.front().path.empty() ? "/" : items.front().path) +
                            ": error: the baseline is not strict JSON: " + why + " [baseline.format]");
    }
    const auto& j = doc.root;
    auto bad = [&](const std::string& where, const std::string& what) {
        return BaselineError(file.string() + ": " + where + ": error: " + what +
                             " (docs/diff.md, Baselines) [baseline.format]");
    };
    if (!j.is_object() || !j.contains("dmlrefBaseline") || j["dmlrefBaseline"] != kBaselineFormat)
        throw bad("/dmlrefBaseline",
                  "a baseline starts with \"dmlrefBaseline\": 1 (written by dmlref diff --write-baseline)");
    if (!j.contains("failures") || !j["failures"].is_array()) throw bad("/failures", "\"failures\" must be an array");
    std::vector<BaselineEntry> v;
    for (size_t i = 0; i < j["failures"].size(); ++i) {
        const oj& e = j["failures"][i];
        const std::string at = "/failures/" + std::to_string(i);
        if (!e.is_object() || !e.contains("case") || !e["case"].is_string() || !e.contains("output") ||
            !e["output"].is_string() || !e.contains("reading") || !e["reading"].is_string() ||
            !e.contains("elements") || !e["elements"].is_number_unsigned())
            throw bad(at, "a failure is {\"case\": text, \"output\": text, \"reading\": text, \"elements\": count}");
        v.push_back({e["case"], e["output"], e["reading"], e["elements"].get<uint64_t>()});
    }
    std::sort(v.begin(), v.end(), before);
    for (size_t i = 1; i < v.size(); ++i)
        if (key(v[i]) == key(v[i - 1]))
            throw bad("/failures", "the failure (" + printable(v[i].Case) + ", " + printable(v[i].Output) + ", " +
                                       printable(v[i].Reading) + ") is listed twice");
    return v;
}

BaselineComparison compare_baseline(const DiffReport& r, const std::vector<BaselineEntry>& baseline) {
    BaselineComparison c;
    std::map<std::tuple<std::string, std::string, std::string>, const BaselineEntry*> known;
    for (const auto& e : baseline) known[{e.Case, e.Output, e.Reading}] = &e;
    const auto now = baseline_entries(r);
    std::map<std::tuple<std::string, std::string, std::string>, bool> seen;
    for (const auto& e : now) {
        auto it = known.find({e.Case, e.Output, e.Reading});
        seen[{e.Case, e.Output, e.Reading}] = true;
        if (it != known.end() && e.Elements <= it->second->Elements) {
            c.known.push_back(e);
        } else {
            c.fresh.push_back(e);
            c.fresh_was.push_back(it == known.end() ? 0 : it->second->Elements);
        }
    }
    for (const auto& e : baseline)
        if (!seen.count({e.Case, e.Output, e.Reading})) c.fixed.push_back(e);
    return c;
}

int BaselineComparison::exit_code(const DiffReport& r) const {
    for (const auto& c : r.cases)
        if (c.status() == CaseDiff::Status::Error) return 2;
    if (r.cases.empty()) return 2;
    return fresh.empty() ? 0 : 1;
}

namespace {
// Names are printed escaped (dmlref/printable.hpp): a case name with a newline or a terminal escape
// cannot forge a line of the report.
std::string entry_text(const BaselineEntry& e) {
    std::string s = printable(e.Case);
    if (!e.Output.empty()) s += " " + printable(e.Output);
    if (e.Reading == "error") return s + ": could not be compared";
    if (e.Reading == "systematic") return s + ": systematic error";
    s += ": " + std::to_string(e.Elements) + " element" + (e.Elements == 1 ? "" : "s");
    return s + (e.Reading == "none" ? " over tolerance, no known reading"
                                    : " follow" + std::string(e.Elements == 1 ? "s " : " ") + printable(e.Reading));
}
}  // namespace

std::string baseline_text(const BaselineComparison& c, const fs::path& file) {
    std::ostringstream s;
    s << "baseline " << file.string() << ": " << c.fresh.size() << " new, " << c.known.size() << " known, "
      << c.fixed.size() << " fixed\n";
    for (size_t i = 0; i < c.fresh.size(); ++i)
        s << "  new    " << entry_text(c.fresh[i])
          << (c.fresh_was[i] ? " (the baseline has " + std::to_string(c.fresh_was[i]) + ")" : std::string()) << "\n";
    for (const auto& e : c.known) s << "  known  " << entry_text(e) << "\n";
    for (const auto& e : c.fixed) s << "  fixed  " << entry_text(e) << "\n";
    return s.str();
}

std::string baseline_comparison_json(const BaselineComparison& c, const fs::path& file) {
    auto list = [](const std::vector<BaselineEntry>& v) {
        oj a = oj::array();
        for (const auto& e : v)
            a.push_back({{"case", e.Case}, {"output", e.Output}, {"reading", e.Reading}, {"elements", e.Elements}});
        return a;
    };
    oj j;
    j["file"] = file.generic_string();
    j["new"] = list(c.fresh);
    for (size_t i = 0; i < c.fresh.size(); ++i) j["new"][i]["baseline_elements"] = c.fresh_was[i];
    j["known"] = list(c.known);
    j["fixed"] = list(c.fixed);
    return j.dump(-1, ' ', false, oj::error_handler_t::replace);
}

}  // namespace dmlref
