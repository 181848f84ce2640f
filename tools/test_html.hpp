// The HTML report of `dmlref test --html` (docs/test.md, "Reports"): a summary with a table per
// operator, then a section per case, failing ones first: the verdict, per failing output the
// elements over tolerance, the worst error/bound, the reading the over elements follow, the worst
// elements and the picture of where they are (lib/judge/picture.cpp) as an inline PNG. Built from
// the results `--json` writes. Included by tools/cmd_test.cpp only: a translation unit of its own
// would load the tool's precompiled header again, about 11 s of compile time for nothing.
#pragma once

#include "dmlref/markup.hpp"
#include "dmlref/printable.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace dmlref::cli {

// The picture of one output over tolerance: PNG bytes, or why there is none.
struct OutputPicture {
    std::string output;
    std::string png;
    std::string why_none;
};

namespace test_page {

using json = nlohmann::json;

// Text of the report (case names, messages, the backend's log are user data) made safe.
inline std::string h(const std::string& s) { return markup_escaped(printable(s)); }
// A count or a text of the report as text; json's own serializer is left out (compile time).
inline std::string str(const json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
    if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
    return j.is_boolean() ? (j.get<bool>() ? "true" : "false") : "";
}
inline std::string h(const json& j) { return h(str(j)); }
// The same line by line, the line breaks kept (a backend's output in <pre>).
inline std::string h_lines(const std::string& s) {
    std::string out;
    for (size_t at = 0; at < s.size();) {
        const size_t end = std::min(s.find('\n', at), s.size());
        out += h(s.substr(at, end - at)) + (end < s.size() ? "\n" : "");
        at = end + 1;
    }
    return out;
}

inline std::string text(const json& j, const char* key, const std::string& otherwise = "") {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : otherwise;
}

// A magnitude as the text report shows it: three digits; "inf" and null as they come.
inline std::string num(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_number()) return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v.get<double>());
    return b;
}

inline std::string base64(const std::string& bytes) {
    static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 2]));
        out += digits[(v >> 18) & 63];
        out += digits[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? digits[v & 63] : '=';
    }
    return out;
}

inline std::string coordinate(const json& c) {
    std::string t = "[";
    for (size_t i = 0; i < c.size(); ++i) t += (i ? "," : "") + str(c[i]);
    return t + "]";
}

// The tolerance an element of this output has, where the report has no bound of its own.
inline std::string stated_bound(const json& o) {
    const json& t = o["Tolerance"];
    const std::string kind = text(t, "Kind");
    if (kind == "Ulp") return str(t["Ulp"]) + " ULP";
    if (kind == "Bits") return "0 (bit for bit)";
    if (kind == "Summed") return "n - 1/2 ULP for n >= 2 terms, else 0";
    return "n/a";
}

// One element's error in words where a number would mislead: a sign flip is one bit, not 2^31 ULP.
inline std::string element_error(const json& o, const json& w) {
    const std::string golden = text(w, "golden_bits"), actual = text(w, "actual_bits");
    const bool is_float = text(o, "DataType").rfind("FLOAT", 0) == 0;
    if (is_float && golden.size() > 2 && golden.size() == actual.size() && golden.size() <= 18) {
        const uint64_t g = std::stoull(golden, nullptr, 16), a = std::stoull(actual, nullptr, 16);
        const uint64_t sign = uint64_t(1) << (4 * (golden.size() - 2) - 1);
        if ((g ^ a) == sign) return (g & (sign - 1)) == 0 ? "a zero of the other sign" : "the sign flipped";
    }
    if (w.contains("bound") && !w["error"].is_null()) return num(w["error"]);
    if (w["ulp_distance"].is_number()) return str(w["ulp_distance"]) + (is_float ? " ULP" : " apart");
    return w.value("nonfinite", false) ? "a NaN or infinity mismatch" : "n/a";
}

inline void output_section(std::ostream& s, const json& o, const std::vector<OutputPicture>& pictures) {
    const std::string name = text(o, "output");
    s << "<h4>" << h(name) << " <small>" << h(text(o, "DataType")) << " " << h(coordinate(o["Sizes"]))
      << "</small></h4>\n";
    if (o["passed"].get<bool>()) {
        s << "<p>within tolerance: " << str(o["elements"]) << " elements, " << str(o["identical"]) << " bit-identical, "
          << str(o["within"]) << " within, " << str(o["skipped"]) << " not judged</p>\n";
        return;
    }
    s << "<p><b>" << str(o["over"]) << " of " << str(o["elements"]) << " elements over tolerance</b> ("
      << str(o["identical"]) << " bit-identical, " << str(o["within"]) << " within, " << str(o["skipped"])
      << " not judged";
    if (o["nonfinite_mismatches"].get<uint64_t>())
        s << "; " << str(o["nonfinite_mismatches"]) << " a NaN or infinity mismatch";
    s << ")";
    if (o.value("bounded", false)) s << "; worst error/bound " << h(num(o["worst_ratio"]));
    else if (!o["worst"].empty()) s << "; worst " << h(element_error(o, o["worst"][0]));
    if (o.contains("systematic") && !o["systematic"]["passed"].get<bool>())
        s << "; the whole-tensor check for systematic error fails";
    s << "</p>\n<p class=\"tolerance\">tolerance: " << h(text(o["Tolerance"], "Kind")) << " &mdash; "
      << h(text(o["Tolerance"], "Why")) << "</p>\n";
    if (!o["readings"].empty()) {
        s << "<ul class=\"readings\">\n";
        for (const auto& [reading, n] : o["readings"].items())
            s << "<li>" << str(n) << (n == 1 ? " element" : " elements") << (reading == "none" ? " over tolerance" : "")
              << (n == 1 ? " follows " : " follow ")
              << (reading == "none" ? std::string("no known reading") : "<b>" + h(reading) + "</b>") << "</li>\n";
        s << "</ul>\n";
    }
    if (!o["worst"].empty()) {
        s << "<table class=\"worst\"><tr><th>index</th><th>golden</th><th>actual</th><th>error</th><th>bound</th>"
             "<th>verdict</th></tr>\n";
        for (const auto& w : o["worst"]) {
            const bool bounded = w.contains("bound");
            const std::string error = element_error(o, w);
            s << "<tr><td>" << h(coordinate(w["coordinate"])) << "</td><td>" << h(w["golden"]) << " <small>"
              << h(w["golden_bits"]) << "</small></td><td>" << h(w["actual"]) << " <small>" << h(w["actual_bits"])
              << "</small></td><td>" << h(error) << "</td><td>" << h(bounded ? num(w["bound"]) : stated_bound(o))
              << "</td><td class=\"" << h(w["verdict"]) << "\">" << h(w["verdict"]) << "</td></tr>\n";
            if (w.contains("cause"))  // what explain names (docs/explain.md, "Cause")
                s << "<tr class=\"cause\"><td colspan=\"6\">cause: " << h(w["cause"]) << "</td></tr>\n";
        }
        s << "</table>\n";
    }
    for (const auto& p : pictures)
        if (p.output == name) {
            if (p.png.empty()) s << "<p>no picture: " << h(p.why_none) << "</p>\n";
            else
                s << "<p><img alt=\"where " << h(name) << " differs\" src=\"data:image/png;base64," << base64(p.png)
                  << "\"></p>\n";
        }
}

// Failing cases first: new failures, new errors, known ones (--baseline), skipped, passed.
inline int rank(const json& c) {
    const std::string o = text(c, "outcome");
    if (c.value("known", false)) return 2;
    return o == "FAIL" ? 0 : o == "ERROR" ? 1 : o == "SKIP" ? 3 : 4;
}

}  // namespace test_page

// `report` is the object `dmlref test --json` writes; pictures[k] belong to report["cases"][k].
// Every text from the report is escaped; the page has no script and no reference outside itself
// (the pictures are data: URIs).
inline std::string test_html(const nlohmann::json& report, const std::vector<std::vector<OutputPicture>>& pictures) {
    using namespace test_page;
    using json = nlohmann::json;
    const json& cases = report["cases"];
    const json& sum = report["summary"];
    const bool baseline = report.contains("baseline");
    std::ostringstream s;
    s << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>dmlref test: " << cases.size()
      << " cases, " << str(sum["failed"]) << " failed, " << str(sum["errors"]) << " errors</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
         "table{border-collapse:collapse;margin:.5em 0}\n"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;font-variant-numeric:tabular-nums}\n"
         "section{border-left:6px solid #888;padding:.1em 1em;margin:1em 0}\n"
         "section.FAIL{border-color:#e60000}section.ERROR{border-color:#e08000}\n"
         "section.KNOWN{border-color:#b8a000}section.PASS{border-color:#00be00}\n"
         ".verdict{font-weight:bold}td.over{color:#e60000}tr.cause td{color:#7a3e00}\n"
         "img{image-rendering:pixelated;max-width:100%;border:1px solid #ccc}\n"
         "pre{background:#f4f4f4;padding:.5em;overflow:auto}.tolerance{color:#555;font-size:90%}\n"
         "</style></head><body>\n";
    s << "<h1>dmlref test</h1>\n<p>backend <code>" << h(text(report, "backend")) << "</code>; dmlref "
      << h(text(report, "dmlref")) << "</p>\n";
    s << "<p class=\"summary\"><b>" << cases.size() << " cases: " << str(sum["passed"]) << " passed, "
      << str(sum["failed"]) << " failed, " << str(sum["skipped"]) << " skipped, " << str(sum["errors"])
      << " errors</b></p>\n";
    if (baseline) {
        const json& b = report["baseline"];
        s << "<p>baseline <code>" << h(b["file"]) << "</code>: " << b["new"].size() << " new, " << b["known"].size()
          << " known, " << b["fixed"].size() << " fixed failures</p>\n";
        if (!b["fixed"].empty()) {
            s << "<ul class=\"fixed\">\n";
            for (const auto& e : b["fixed"])
                s << "<li>fixed: " << h(e["case"]) << " " << h(e["output"]) << " (" << h(e["reading"]) << ")</li>\n";
            s << "</ul>\n";
        }
    }
    // Per operator: cases by outcome.
    std::map<std::string, std::array<size_t, 5>> ops;  // passed, failed, skipped, errors, known
    for (const auto& c : cases) {
        auto& n = ops[text(c, "operator")];
        const std::string o = text(c, "outcome");
        ++n[o == "PASS" ? 0 : o == "FAIL" ? 1 : o == "SKIP" ? 2 : 3];
        n[4] += c.value("known", false);
    }
    s << "<table class=\"operators\"><tr><th>operator</th><th>cases</th><th>passed</th><th>failed</th>"
         "<th>skipped</th><th>errors</th>"
      << (baseline ? "<th>known</th>" : "") << "</tr>\n";
    for (const auto& [op, n] : ops) {
        s << "<tr><td>" << h(op) << "</td><td>" << n[0] + n[1] + n[2] + n[3] << "</td>";
        for (size_t k = 0; k < (baseline ? 5u : 4u); ++k) s << "<td>" << n[k] << "</td>";
        s << "</tr>\n";
    }
    s << "</table>\n<h2>Cases</h2>\n";
    std::vector<size_t> order(cases.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank(cases[a]) < rank(cases[b]); });
    static const std::vector<OutputPicture> none;
    for (const size_t k : order) {
        const json& c = cases[k];
        const std::string outcome = text(c, "outcome");
        const bool known = c.value("known", false);
        s << "<section class=\"" << (known ? "KNOWN" : h(outcome)) << "\" id=\"case-" << k
          << "\">\n<h3><span class=\"verdict\">" << h(outcome) << (known ? " (known)" : "") << "</span> "
          << h(text(c, "name")) << "</h3>\n";
        s << "<p>" << h(text(c, "operator")) << " &middot; <code>" << h(text(c, "golden"))
          << "</code> &middot; backend " << h(num(c["backend"]["seconds"])) << " s</p>\n";
        if (c.contains("why")) s << "<p class=\"why\">" << h(c["why"]) << "</p>\n";
        if (c.contains("log")) s << "<pre class=\"log\">" << h_lines(text(c, "log")) << "</pre>\n";
        if (c.contains("diff") && outcome != "PASS") {
            for (const auto& e : c["diff"]["errors"]) s << "<p class=\"error\">" << h(e) << "</p>\n";
            for (const auto& o : c["diff"]["outputs"]) output_section(s, o, k < pictures.size() ? pictures[k] : none);
        }
        s << "</section>\n";
    }
    s << "</body></html>\n";
    return s.str();
}

}  // namespace dmlref::cli
