// `dmlref diff`: the text and JSON reports and the command (docs/diff.md); the picture of where
// an output mismatches is lib/judge/picture.cpp.
#include "dmlref/diff.hpp"
#include "dmlref/admissible.hpp"
#include "dmlref/baseline.hpp"

#include "dmlref/atomic_file.hpp"

#include "dmlref/npy.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>

namespace fs = std::filesystem;

namespace dmlref {

// ---- Reports -----------------------------------------------------------------------------------

namespace {

std::string pad(std::string s, size_t n) {
    if (s.size() < n) s.append(n - s.size(), ' ');
    return s;
}

std::string status_name(CaseDiff::Status s) {
    switch (s) {
        case CaseDiff::Status::Pass: return "PASS";
        case CaseDiff::Status::Fail: return "FAIL";
        case CaseDiff::Status::Error: return "ERROR";
    }
    return "";
}

std::string tolerance_text(const Tolerance& t, bool bounded) {
    if (t.Kind == "Ulp") return "Ulp: within " + std::to_string(t.Ulp) + " ULP";
    if (t.Kind == "Summed" && bounded && t.MaxTerms == 0)  // a computed operator (batch normalization)
        return "Summed: each element within its bound from the magnitudes of its formula's parts (docs/tolerance.md)";
    if (t.Kind == "Summed" && bounded)
        return "Summed: exact sums of up to " + std::to_string(t.MaxTerms) +
               " terms; each element within its bound from its own terms (docs/tolerance.md)";
    if (t.Kind == "Summed")
        return "Summed: exact sums of up to " + std::to_string(t.MaxTerms) +
               " terms; an element of n >= 2 terms may be (n - 1/2) ULP of the golden away, one term is bit for bit";
    return "Bits: bit for bit";
}

// A short, exact-enough decimal for magnitudes in reports.
std::string sci(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

std::string coordinate_text(const std::vector<uint64_t>& c) {
    std::string t = "[";
    for (size_t i = 0; i < c.size(); ++i) t += (i ? "," : "") + std::to_string(c[i]);
    return t + "]";
}

uint64_t skipped_total(const OutputCensus& o) {
    uint64_t n = 0;
    for (const auto& [reason, count] : o.skipped) n += count;
    return n;
}

std::string ordinal(uint64_t n) {  // 1st, 2nd, 3rd, 4th, 11th, 21st
    const uint64_t t = n % 100, u = n % 10;
    const char* suffix = t >= 11 && t <= 13 ? "th" : u == 1 ? "st" : u == 2 ? "nd" : u == 3 ? "rd" : "th";
    return std::to_string(n) + suffix;
}

std::string elements_text(uint64_t n) { return std::to_string(n) + (n == 1 ? " element" : " elements"); }

// The elements with several admissible writes (dmlref/admissible.hpp): how many, and how many the
// backend wrote with the k-th admissible value (k from 1), from the census' boundary counts.
struct SeveralWrites {
    uint64_t elements = 0, matched = 0;
    std::map<uint64_t, uint64_t> kth;
};
SeveralWrites several_writes(const OutputCensus& o) {
    SeveralWrites w;
    const std::string prefix = std::string(kSeveralWrites) + ":";
    for (const auto& [reason, b] : o.boundary) {
        if (reason == kSeveralWrites) w.elements = b.elements;
        if (reason.rfind(prefix, 0) == 0) {
            w.kth[std::stoull(reason.substr(prefix.size()))] = b.elements;
            w.matched += b.elements;
        }
    }
    return w;
}
bool several_writes_reason(const std::string& reason) { return reason.rfind(kSeveralWrites, 0) == 0; }

// "3 elements had several admissible writes; the backend wrote the 1st (2 elements), the 2nd (1 element)".
std::string several_writes_text(const SeveralWrites& w) {
    std::string t = elements_text(w.elements) + " had several admissible writes; the backend wrote";
    size_t listed = 0;
    for (const auto& [k, n] : w.kth) {
        t += std::string(listed++ ? "," : "") + " the " + ordinal(k);
        if (n != w.elements) t += " (" + elements_text(n) + ")";
    }
    if (w.matched < w.elements)
        t += std::string(listed ? "," : "") + " none of them" +
             (listed ? " (" + elements_text(w.elements - w.matched) + ")" : "");
    return t;
}

void output_details(const OutputCensus& o, std::ostream& s) {
    s << "  " << o.output << " " << name(o.data_type) << " " << sizes_text(o.sizes) << " from " << o.source << "\n";
    s << "    tolerance: " << tolerance_text(o.tolerance, o.bounded) << "\n";
    s << "    " << o.elements << " elements: " << o.identical << " bit-identical, " << o.within << " within tolerance, "
      << o.over << " over tolerance, " << skipped_total(o) << " skipped; " << o.nonfinite_mismatches
      << " non-finite mismatches";
    if (o.flushed_subnormals) s << "; " << o.flushed_subnormals << " flushed subnormals accepted";
    s << "\n";
    for (const auto& [reason, count] : o.skipped) s << "    skipped (don't care): " << count << " " << reason << "\n";
    for (const auto& [reason, b] : o.boundary)
        if (!several_writes_reason(reason))
            s << "    boundary elements: " << b.elements << " " << reason << ", " << b.over
              << " of them over tolerance\n";
    if (const SeveralWrites w = several_writes(o); w.elements)  // docs/diff.md, "Several admissible writes"
        s << "    several writes: " << several_writes_text(w) << "\n";
    for (const auto& [reading, n] : o.readings)  // docs/diff.md, "Readings"; changes no verdict
        s << "    readings: " << n << " element" << (n == 1 ? "" : "s") << (reading.empty() ? " over tolerance" : "")
          << (n == 1 ? " follows " : " follow ") << (reading.empty() ? "no known reading" : reading) << "\n";
    s << "    ULP distances:";
    for (size_t b = 0; b < o.histogram.size(); ++b)
        if (o.histogram[b]) s << "  " << histogram_label(b) << ": " << o.histogram[b];
    s << "\n";
    if (o.bounded) {
        s << "    profile: " << profile_text(o.profile) << "\n";
        s << "    summed elements: " << o.summed_elements << " with a non-zero bound; worst error/bound "
          << sci(o.worst_ratio) << "; admissible readings: " << o.admissible << " elements, " << o.lost_readings
          << " groups lost a term\n";
        s << "    detection limit: one term's error larger than " << sci(o.detection_limit) << ", or than "
          << sci(o.detection_limit_relative) << " of its element's sum |t|, never passes\n";
        const auto& c = o.systematic;
        s << "    systematic error: " << c.elements << " elements, mean r " << sci(c.mean()) << ", mean r away from 0 "
          << sci(c.mean_toward()) << "; |sum| <= " << sci(c.threshold) << " (false alarm " << sci(c.false_alarm)
          << "): " << (c.passed() ? "pass" : "FAIL") << "\n";
    }
    if (!o.worst.empty()) {
        // Columns as wide as their widest cell plus two spaces: they never run together.
        std::vector<std::vector<std::string>> rows;
        rows.push_back({"index", "golden", "actual", "ULPs"});
        if (o.bounded)
            for (const char* h : {"n", "sum|t|", "bound", "|error|", "error/bound"}) rows[0].push_back(h);
        rows[0].push_back("verdict");
        for (const auto& w : o.worst) {
            std::vector<std::string> row = {
                coordinate_text(w.coordinate),
                display_value(o.data_type, w.golden_bits) + " " + hex_bits(o.data_type, w.golden_bits),
                display_value(o.data_type, w.actual_bits) + " " + hex_bits(o.data_type, w.actual_bits),
                w.judgement.comparable ? std::to_string(w.judgement.distance) : "n/a"};
            if (o.bounded) {
                const bool b = w.bound >= 0 && w.judgement.comparable;
                row.push_back(std::to_string(w.terms));
                row.push_back(sci(w.abs_sum));
                row.push_back(w.bound >= 0 ? sci(w.bound) : "n/a");
                row.push_back(b ? sci(w.error) : "n/a");
                row.push_back(b ? sci(w.ratio) : "n/a");
            }
            row.push_back(std::string(w.judgement.verdict == Verdict::Over ? "over" : "within") +
                          (w.boundary.empty() ? "" : " (boundary: " + w.boundary + ")"));
            rows.push_back(std::move(row));
        }
        std::vector<size_t> width(rows[0].size(), 0);
        for (const auto& row : rows)
            for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size() + 2);
        for (const auto& row : rows) {
            s << "    ";
            for (size_t k = 0; k + 1 < row.size(); ++k) s << pad(row[k], width[k]);
            s << row.back() << "\n";
        }
    }
}

std::string switches_text(const DiffSwitches& s) {
    std::string t;
    if (s.zeros_equal) t += " --zeros-equal";
    if (s.any_nan) t += " --any-nan";
    if (s.flushed_subnormals) t += " --accept-flushed-subnormals";
    return t.empty() ? "none" : t.substr(1);
}

}  // namespace

std::string report_text(const DiffReport& r) {
    std::ostringstream s;
    size_t pass = 0, fail = 0, error = 0;
    s << "dmlref " << dmlref_version() << " diff; switches: " << switches_text(r.switches)
      << "; profile: " << profile_text(r.profile) << "\n";
    if (r.directory_mode) {
        // Columns as wide as their widest cell plus two spaces: they never run together.
        std::vector<std::vector<std::string>> rows = {{"status", "case", "elements", "identical", "within", "over",
                                                       "skipped", "worst ULPs", "worst error/bound"}};
        for (const auto& c : r.cases) {
            uint64_t n = 0, id = 0, wi = 0, ov = 0, sk = 0;
            uint64_t worst = 0;
            bool noncomparable = false, bounded = false;
            double ratio = 0;
            for (const auto& o : c.outputs) {
                n += o.elements;
                id += o.identical;
                wi += o.within;
                ov += o.over;
                sk += skipped_total(o);
                for (const auto& w : o.worst) {
                    if (!w.judgement.comparable) noncomparable = true;
                    else worst = std::max(worst, w.judgement.distance);
                    if (w.bound >= 0 && w.judgement.comparable) ratio = std::max(ratio, w.ratio);
                }
                bounded = bounded || o.bounded;
            }
            if (c.status() == CaseDiff::Status::Error) {
                rows.push_back({status_name(c.status()), printable(c.name), "see below"});
                continue;
            }
            rows.push_back({status_name(c.status()), printable(c.name), std::to_string(n), std::to_string(id),
                            std::to_string(wi), std::to_string(ov), std::to_string(sk),
                            noncomparable ? "n/a" : std::to_string(worst), bounded ? sci(ratio) : "-"});
        }
        std::vector<size_t> width(rows[0].size(), 0);
        for (const auto& row : rows)
            for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size() + 2);
        for (const auto& row : rows) {
            for (size_t k = 0; k + 1 < row.size(); ++k) s << pad(row[k], width[k]);
            s << row.back() << "\n";
        }
        s << "\n";
    }
    for (const auto& c : r.cases) {
        const auto st = c.status();
        pass += st == CaseDiff::Status::Pass;
        fail += st == CaseDiff::Status::Fail;
        error += st == CaseDiff::Status::Error;
        if (r.directory_mode && st == CaseDiff::Status::Pass) continue;
        s << status_name(st) << " " << printable(c.name) << (c.op.empty() ? "" : " " + c.op) << " ("
          << printable(c.golden.string()) << ")\n";
        for (const auto& e : c.errors) s << "  error: " << printable(e) << "\n";
        for (const auto& o : c.outputs) output_details(o, s);
    }
    s << r.cases.size() << " case" << (r.cases.size() == 1 ? "" : "s") << ": " << pass << " passed, " << fail
      << " failed, " << error << " errors\n";
    return s.str();
}

std::string report_json(const DiffReport& r) {
    using oj = nlohmann::ordered_json;
    oj root;
    root["dmlref"] = std::string(dmlref_version());
    root["switches"] = {{"zeros_equal", r.switches.zeros_equal},
                        {"any_nan", r.switches.any_nan},
                        {"accept_flushed_subnormals", r.switches.flushed_subnormals}};
    root["profile"] = {{"accumulate", std::string(name(r.profile.accumulate))},
                       {"coordinates", std::string(name(r.profile.coordinates))},
                       {"flush_subnormals", r.profile.flush_subnormals},
                       {"tf32_operands", r.profile.tf32_operands},
                       {"winograd", r.profile.winograd},
                       {"statistics", std::string(name(r.profile.statistics))}};
    size_t pass = 0, fail = 0, error = 0;
    oj cases = oj::array();
    for (const auto& c : r.cases) {
        const auto st = c.status();
        pass += st == CaseDiff::Status::Pass;
        fail += st == CaseDiff::Status::Fail;
        error += st == CaseDiff::Status::Error;
        oj cj;
        cj["golden"] = c.golden.generic_string();
        cj["name"] = c.name;
        cj["operator"] = c.op;
        cj["status"] = st == CaseDiff::Status::Pass ? "pass" : st == CaseDiff::Status::Fail ? "fail" : "error";
        cj["errors"] = c.errors;
        oj outs = oj::array();
        for (const auto& o : c.outputs) {
            oj j;
            j["output"] = o.output;
            j["source"] = o.source;
            j["DataType"] = std::string(name(o.data_type));
            j["Sizes"] = o.sizes;
            oj tol;
            tol["Kind"] = o.tolerance.Kind;
            if (o.tolerance.Kind == "Ulp") tol["Ulp"] = o.tolerance.Ulp;
            if (o.tolerance.Kind == "Summed") tol["MaxTerms"] = o.tolerance.MaxTerms;
            tol["Why"] = o.tolerance.Why;
            j["Tolerance"] = tol;
            j["passed"] = o.passed();
            j["elements"] = o.elements;
            j["identical"] = o.identical;
            j["within"] = o.within;
            j["over"] = o.over;
            j["skipped"] = skipped_total(o);
            j["skipped_by_reason"] = oj::object();
            for (const auto& [reason, n] : o.skipped) j["skipped_by_reason"][reason] = n;
            j["nonfinite_mismatches"] = o.nonfinite_mismatches;
            j["flushed_subnormals"] = o.flushed_subnormals;
            j["boundary"] = oj::object();
            for (const auto& [reason, b] : o.boundary)
                j["boundary"][reason] = {{"elements", b.elements}, {"over", b.over}};
            if (const SeveralWrites w = several_writes(o); w.elements) {  // by the value the backend wrote
                oj kth = oj::array();
                for (uint64_t k = 1; !w.kth.empty() && k <= w.kth.rbegin()->first; ++k)
                    kth.push_back(w.kth.count(k) ? w.kth.at(k) : 0);
                j["several_writes"] = {{"elements", w.elements}, {"wrote_kth", kth}, {"none", w.elements - w.matched}};
            }
            j["readings"] = oj::object();  // over-tolerance elements by the alternative reading they follow ("": none)
            for (const auto& [reading, n] : o.readings) j["readings"][reading.empty() ? "none" : reading] = n;
            oj hist = oj::array();
            for (size_t b = 0; b < o.histogram.size(); ++b)
                hist.push_back({{"bin", histogram_label(b)}, {"count", o.histogram[b]}});
            j["histogram"] = hist;
            j["bounded"] = o.bounded;
            if (o.bounded) {
                j["summed_elements"] = o.summed_elements;
                j["admissible_readings"] = o.admissible;
                j["lost_readings"] = o.lost_readings;
                j["worst_ratio"] = o.worst_ratio;
                j["detection_limit"] = o.detection_limit;
                j["detection_limit_relative"] = o.detection_limit_relative;
                const auto& c = o.systematic;
                j["systematic"] = {{"elements", c.elements},
                                   {"sum", c.sum},
                                   {"sum_away_from_zero", c.sum_toward},
                                   {"mean", c.mean()},
                                   {"mean_away_from_zero", c.mean_toward()},
                                   {"threshold", c.threshold},
                                   {"false_alarm", c.false_alarm},
                                   {"passed", c.passed()}};
            }
            oj worst = oj::array();
            for (const auto& w : o.worst) {
                oj wj;
                wj["index"] = w.index;
                wj["coordinate"] = w.coordinate;
                wj["golden"] = display_value(o.data_type, w.golden_bits);
                wj["golden_bits"] = hex_bits(o.data_type, w.golden_bits);
                wj["actual"] = display_value(o.data_type, w.actual_bits);
                wj["actual_bits"] = hex_bits(o.data_type, w.actual_bits);
                wj["ulp_distance"] = w.judgement.comparable ? oj(w.judgement.distance) : oj(nullptr);
                wj["verdict"] = w.judgement.verdict == Verdict::Over ? "over" : "within";
                wj["nonfinite"] = w.judgement.nonfinite;
                wj["boundary"] = w.boundary.empty() ? oj(nullptr) : oj(w.boundary);
                if (w.bound >= 0) {
                    auto num = [](double v) { return std::isfinite(v) ? oj(v) : oj(v > 0 ? "inf" : "-inf"); };
                    wj["terms"] = w.terms;
                    wj["abs_sum"] = num(w.abs_sum);
                    wj["bound"] = num(w.bound);
                    wj["error"] = w.judgement.comparable ? num(w.error) : oj(nullptr);
                    wj["ratio"] = w.judgement.comparable ? num(w.ratio) : oj(nullptr);
                }
                worst.push_back(wj);
            }
            j["worst"] = worst;
            outs.push_back(j);
        }
        cj["outputs"] = outs;
        cases.push_back(cj);
    }
    root["summary"] = {
        {"cases", r.cases.size()}, {"passed", pass}, {"failed", fail}, {"errors", error}, {"exit_code", r.exit_code()}};
    root["cases"] = cases;
    // A name that is not UTF-8 (a file name) is written with U+FFFD in its place, never an exception.
    return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The picture (write_mismatch_image) is lib/judge/picture.cpp.

// ---- The command -------------------------------------------------------------------------------

int run_diff(const DiffCommand& cmd, std::ostream& out, std::ostream& err) {
    if (cmd.format != "text" && cmd.format != "json") {
        err << "dmlref diff: error: --format is text or json, not " << cmd.format << "\n";
        return 2;
    }
    std::error_code ec;
    if (!cmd.image.empty() && fs::is_directory(cmd.golden, ec)) {
        err << "dmlref diff: error: --image is for a single golden file, not a directory\n";
        return 2;
    }
    if (!cmd.image.empty() && cmd.image.extension() != ".ppm" && cmd.image.extension() != ".png") {
        err << "dmlref diff: error: --image " << cmd.image.string() << ": the picture is written as .ppm or .png\n";
        return 2;
    }
    if (cmd.actual.empty() && cmd.options.files.empty()) {
        err << "dmlref diff: error: give ACTUAL (a file, a case file or a directory) or --output NAME=FILE\n";
        return 2;
    }
    std::vector<BaselineEntry> baseline;  // --baseline, read before anything is compared (docs/diff.md, Baselines)
    if (!cmd.baseline.empty()) {
        try {
            baseline = read_baseline(cmd.baseline);
        } catch (const BaselineError& e) {
            err << e.what() << "\n";
            return 2;
        }
    }
    const DiffReport report = diff(cmd.golden, cmd.actual, cmd.options);
    for (const auto& c : report.cases)
        for (const auto& e : c.errors) err << printable(e) << " [diff]\n";
    std::optional<BaselineComparison> against;
    if (!cmd.baseline.empty()) against = compare_baseline(report, baseline);
    // The JSON report, with the baseline comparison under "baseline" when one was given.
    auto json_text = [&] {
        std::string j = report_json(report);
        if (!against) return j;
        const size_t end = j.rfind('}');
        return j.substr(0, end) + ",\n  \"baseline\": " + baseline_comparison_json(*against, cmd.baseline) + "\n}\n";
    };
    if (cmd.format == "json") out << json_text();
    else out << report_text(report) << (against ? baseline_text(*against, cmd.baseline) : std::string());
    int code = against ? against->exit_code(report) : report.exit_code();
    if (!cmd.write_baseline.empty()) {
        try {
            write_file_atomic(cmd.write_baseline, baseline_json(report));
        } catch (const WriteError& e) {
            err << cmd.write_baseline.string() << ": cannot write the baseline: " << e.what() << " [" << e.rule()
                << "]\n";
            code = 2;
        }
    }
    if (!cmd.json_file.empty()) {
        try {
            write_file_atomic(cmd.json_file, json_text());
        } catch (const WriteError& e) {
            err << cmd.json_file.string() << ": cannot write the JSON report: " << e.what() << " [" << e.rule()
                << "]\n";
            code = 2;
        }
    }
    if (!cmd.image.empty() && !report.cases.empty()) {
        std::vector<const OutputCensus*> failing;
        for (const auto& o : report.cases.front().outputs)
            if (!o.passed()) failing.push_back(&o);
        if (failing.empty()) err << "dmlref diff: no output mismatches; no picture written\n";
        for (const auto* o : failing) {
            fs::path file = cmd.image;
            if (failing.size() > 1)
                file = cmd.image.parent_path() /
                       (cmd.image.stem().string() + "." + o->output + cmd.image.extension().string());
            try {
                write_mismatch_image(*o, file);
                err << "dmlref diff: picture of " << o->output << " in " << file.string() << "\n";
            } catch (const DiffError& e) {
                err << e.what() << "\n";
                code = 2;
            }
        }
    }
    return code;
}

}  // namespace dmlref
