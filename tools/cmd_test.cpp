// dmlref test: run a backend command on golden cases and judge its outputs (docs/test.md). The
// backend contract is tools/backend.hpp's (the one `dmlref reduce` uses); judging is `dmlref diff`'s
// (lib/judge/diff.cpp), and its baselines are `dmlref diff`'s (lib/judge/baseline.cpp). This file
// runs the cases in parallel and writes the reports: a line per case, a summary, and on request
// JSON, JUnit XML and HTML (the page: tools/test_html.hpp).
#include "backend.hpp"
#include "test_html.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/baseline.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/diff_golden.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/gen.hpp"
#include "dmlref/markup.hpp"
#include "dmlref/picture.hpp"
#include "dmlref/readings.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace dmlref::cli {

namespace {

// The exit status a backend gives for a case it does not support: the case is skipped, as
// automake's test harness skips on 77.
constexpr int kUnsupported = 77;

struct TestCmdOptions {
    std::vector<std::string> goldens;
    std::string backend, junit, json_file, html, keep, baseline, write_baseline;
    std::vector<std::string> filters, operators;
    unsigned jobs = 0;  // 0: one per hardware thread
    double timeout = 600;
    std::string accumulate = "any";
    bool tf32 = false;
    bool winograd = false;
    std::string statistics = "any";
    DiffSwitches switches;
    LoadOptions load;
    bool quiet = false;
};

enum class Outcome { Pass, Fail, Skip, Error };

std::string_view outcome_name(Outcome o) {
    switch (o) {
        case Outcome::Pass: return "PASS";
        case Outcome::Fail: return "FAIL";
        case Outcome::Skip: return "SKIP";
        default: return "ERROR";
    }
}

struct CaseResult {
    fs::path golden;
    std::string name, op;
    Outcome outcome = Outcome::Error;
    std::string why;  // one line: the cause of a FAIL, SKIP or ERROR
    std::string log;  // the backend's output, for an ERROR
    int status = 0;   // the backend's exit status (-1: killed)
    bool timed_out = false;
    double seconds = 0;  // the backend's run
    std::optional<CaseDiff> diff;
    // Per output of the diff, the cause explain names for each of its first worst elements (""
    // where none is named): add_causes, found while the case is held.
    std::vector<std::vector<std::string>> causes;
    bool known = false;  // a FAIL or ERROR whose every failure the --baseline holds
};

// The answer for a failing case in one line: per failing output, elements over, the worst
// error/bound or ULP distance, and the alternative reading the over elements follow.
std::string failure_line(const CaseDiff& d) {
    std::ostringstream s;
    bool first = true;
    for (const auto& o : d.outputs) {
        if (o.passed()) continue;
        s << (first ? "" : "; ") << o.output << ": ";
        first = false;
        if (o.over == 0) {  // every element inside, but the whole-tensor check fails
            s << "systematic error (the whole-tensor check of docs/tolerance.md)";
            continue;
        }
        s << o.over << " of " << o.elements << " elements over";
        if (!o.worst.empty()) {
            const WorstElement& w = o.worst.front();
            const uint64_t sign = is_float(o.data_type) ? uint64_t(1) << (8 * element_size(o.data_type) - 1) : 0;
            if (sign && (w.golden_bits ^ w.actual_bits) == sign)  // named as what it is, not as 2^31 ULP
                s << ((w.golden_bits & (sign - 1)) == 0 ? ", worst a zero of the other sign"
                                                        : ", worst the sign flipped");
            else if (w.bound > 0 && std::isfinite(w.ratio))
                s << ", worst error/bound " << std::setprecision(3) << w.ratio;
            else if (w.judgement.nonfinite) s << ", worst a NaN or infinity mismatch";
            else if (w.judgement.comparable)
                s << ", worst " << w.judgement.distance << (is_float(o.data_type) ? " ULP" : " apart");
        }
        for (const auto& [reading, n] : o.readings)
            if (!reading.empty()) {
                s << ", " << n << " follow " << reading;
                break;
            }
    }
    return s.str();
}

// What explain names as the cause of each of the first kCauses worst elements over tolerance of a
// failing output (docs/explain.md, "Cause"); the report shows it as "cause" beside the element.
constexpr size_t kCauses = 3;
std::vector<std::vector<std::string>> causes(const Case& golden, const CaseDiff& d, const DiffOptions& options) {
    std::vector<std::vector<std::string>> all(d.outputs.size());
    if (d.status() != CaseDiff::Status::Fail) return all;
    for (size_t k = 0; k < d.outputs.size(); ++k) {
        const OutputCensus& o = d.outputs[k];
        for (size_t i = 0; i < o.worst.size() && i < kCauses; ++i) {
            const WorstElement& w = o.worst[i];
            if (w.judgement.verdict != Verdict::Over) break;  // over tolerance come first
            const Explanation e = explain_element(golden, o.output, w.index, w.actual_bits, o.source, options);
            all[k].emplace_back();
            for (const auto& [key, text] : e.family.facts)
                if (key == "cause") all[k].back() = text;
        }
    }
    return all;
}

CaseResult run_one(const TestCmdOptions& o, const fs::path& golden, const Case& c, const fs::path& dir,
                   const DiffOptions& options) {
    CaseResult r;
    r.golden = golden;
    r.name = c.name;
    r.op = std::string(info(c.op.Type).Name);
    const auto t0 = std::chrono::steady_clock::now();
    const BackendRun run = run_backend(o.backend, c, dir, o.timeout);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.status = run.status;
    r.timed_out = run.timed_out;
    if (run.status == kUnsupported) {
        r.outcome = Outcome::Skip;
        r.why = "the backend does not support this case (exit 77)";
        return r;
    }
    if (run.status != 0) {
        r.outcome = Outcome::Error;
        r.why = run.timed_out    ? "the backend was killed after --timeout " + std::to_string(o.timeout) + " s"
                : run.status < 0 ? "the backend was killed by a signal"
                                 : "the backend exited with status " + std::to_string(run.status);
        r.log = log_excerpt(run.log, 4096);
        return r;
    }
    r.diff = diff_case(c, golden, run.out, options);  // the golden as read once (dmlref diff's judgement)
    if (!o.json_file.empty() || !o.html.empty()) r.causes = causes(c, *r.diff, options);
    switch (r.diff->status()) {
        case CaseDiff::Status::Pass: r.outcome = Outcome::Pass; break;
        case CaseDiff::Status::Fail:
            r.outcome = Outcome::Fail;
            r.why = failure_line(*r.diff);
            break;
        default:
            r.outcome = Outcome::Error;
            r.why = r.diff->errors.empty() ? "the outputs cannot be judged" : printable(r.diff->errors.front());
            r.log = log_excerpt(run.log, 4096);
    }
    return r;
}

// Control characters are not allowed in XML 1.0: printable() escapes them first.
std::string xml_escaped(std::string_view s) { return markup_escaped(printable(std::string(s))); }

// JUnit XML as Jenkins, GitLab and GitHub's test reporters read it: one testcase per case, its
// classname the operator; a FAIL a <failure>, an ERROR an <error> (with the backend's output), a
// SKIP <skipped>.
// A known failure (--baseline) is <skipped>, so that a CI's test reporter fails on new ones only.
std::string junit_xml(const std::vector<CaseResult>& results, double seconds) {
    size_t failures = 0, errors = 0, skipped = 0;
    for (const auto& r : results) {
        failures += r.outcome == Outcome::Fail && !r.known;
        errors += r.outcome == Outcome::Error && !r.known;
        skipped += r.outcome == Outcome::Skip || r.known;
    }
    std::ostringstream x;
    x << std::fixed << std::setprecision(3);
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<testsuites name=\"dmlref\" tests=\"" << results.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds << "\">\n";
    x << "  <testsuite name=\"dmlref\" tests=\"" << results.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds << "\">\n";
    for (const auto& r : results) {
        x << "    <testcase classname=\"" << xml_escaped(r.op) << "\" name=\"" << xml_escaped(r.name) << "\" file=\""
          << xml_escaped(r.golden.string()) << "\" time=\"" << r.seconds << "\"";
        if (r.known) {
            x << ">\n      <skipped message=\"known " << (r.outcome == Outcome::Fail ? "failure" : "error")
              << " (--baseline): " << xml_escaped(r.why) << "\"/>\n    </testcase>\n";
            continue;
        }
        switch (r.outcome) {
            case Outcome::Pass: x << "/>\n"; continue;
            case Outcome::Skip: x << ">\n      <skipped message=\"" << xml_escaped(r.why) << "\"/>\n"; break;
            case Outcome::Fail:
                x << ">\n      <failure type=\"over tolerance\" message=\"" << xml_escaped(r.why) << "\">"
                  << xml_escaped(report_text(DiffReport{{}, {}, {*r.diff}, false})) << "</failure>\n";
                break;
            case Outcome::Error:
                x << ">\n      <error type=\"backend\" message=\"" << xml_escaped(r.why) << "\">" << xml_escaped(r.log)
                  << "</error>\n";
                break;
        }
        x << "    </testcase>\n";
    }
    x << "  </testsuite>\n</testsuites>\n";
    return x.str();
}

// The results as `--json` writes them; `--html` builds its page from the same object.
// The causes run_one found, beside their elements in the case's diff report.
void add_causes(const std::vector<std::vector<std::string>>& causes, json& diff) {
    if (!diff.contains("outputs")) return;
    for (size_t k = 0; k < causes.size() && k < diff["outputs"].size(); ++k) {
        json& worst = diff["outputs"][k]["worst"];
        for (size_t i = 0; i < causes[k].size() && i < worst.size(); ++i)
            if (!causes[k][i].empty()) worst[i]["cause"] = causes[k][i];
    }
}

json json_report(const TestCmdOptions& o, const std::vector<CaseResult>& results, const DiffOptions& options,
                 const std::optional<BaselineComparison>& against) {
    json j;
    j["dmlref"] = DMLREF_VERSION;
    j["backend"] = o.backend;
    std::map<std::string, size_t> counts{{"passed", 0}, {"failed", 0}, {"skipped", 0}, {"errors", 0}};
    j["cases"] = json::array();
    for (const auto& r : results) {
        json c;
        c["name"] = r.name;
        c["golden"] = r.golden.string();
        c["operator"] = r.op;
        c["outcome"] = std::string(outcome_name(r.outcome));
        counts[r.outcome == Outcome::Pass   ? "passed"
               : r.outcome == Outcome::Fail ? "failed"
               : r.outcome == Outcome::Skip ? "skipped"
                                            : "errors"]++;
        if (!r.why.empty()) c["why"] = r.why;
        if (against && (r.outcome == Outcome::Fail || r.outcome == Outcome::Error)) c["known"] = r.known;
        c["backend"] = {{"status", r.status}, {"timed_out", r.timed_out}, {"seconds", r.seconds}};
        if (!r.log.empty()) c["log"] = r.log;
        if (r.diff) {  // the case as `dmlref diff --json` reports it (docs/diff.md)
            DiffReport one{options.switches, options.profile, {*r.diff}, false};
            c["diff"] = json::parse(report_json(one))["cases"][0];
            add_causes(r.causes, c["diff"]);
        }
        j["cases"].push_back(std::move(c));
    }
    j["summary"] = counts;
    if (against) j["baseline"] = json::parse(baseline_comparison_json(*against, o.baseline));
    return j;
}

// The cases judged (not skipped) as `dmlref diff` would report them, for the baselines: a backend
// that failed to run is a case that could not be compared (reading "error", docs/diff.md).
DiffReport judged_report(const std::vector<CaseResult>& results) {
    DiffReport report;
    for (const auto& r : results) {
        if (r.outcome == Outcome::Skip) continue;
        if (r.diff) {
            report.cases.push_back(*r.diff);
            for (auto& o : report.cases.back().outputs) o.verdicts = {};  // only the counts are needed
        } else {
            CaseDiff d;
            d.golden = r.golden;
            d.name = r.name;
            d.op = r.op;
            d.errors = {r.why};
            report.cases.push_back(std::move(d));
        }
    }
    return report;
}

// The pictures of every output over tolerance, per case, for the HTML report; the elements whose
// cause the report names (add_causes) in their own colour.
std::vector<std::vector<OutputPicture>> pictures(const std::vector<CaseResult>& results, const json& report) {
    std::vector<std::vector<OutputPicture>> all(results.size());
    for (size_t k = 0; k < results.size(); ++k) {
        if (!results[k].diff) continue;
        for (size_t n = 0; n < results[k].diff->outputs.size(); ++n) {
            const OutputCensus& o = results[k].diff->outputs[n];
            if (o.passed() || o.verdicts.size() != o.elements) continue;
            std::vector<uint64_t> caused;
            const json& c = report["cases"][k];
            if (c.contains("diff") && n < c["diff"]["outputs"].size())
                for (const auto& w : c["diff"]["outputs"][n]["worst"])
                    if (w.contains("cause") && w.contains("index")) caused.push_back(w["index"].get<uint64_t>());
            OutputPicture p{o.output, "", ""};
            try {
                p.png = mismatch_picture(o, PictureFormat::Png, caused);
            } catch (const DiffError& e) {
                p.why_none = e.what();
            }
            all[k].push_back(std::move(p));
        }
    }
    return all;
}

// The most bytes of golden buffers (inputs and expected values) kept from the first read to the
// run; a golden past it is read again for its run.
constexpr uint64_t kHeldBytes = uint64_t(512) << 20;

uint64_t held_bytes(const Case& c) {
    uint64_t n = 0;
    for (const auto& [name, b] : c.inputs) n += b.size();
    for (const auto& [name, e] : c.expected) n += e.values.size();
    return n;
}

bool selected(const TestCmdOptions& o, const Case& c) {
    bool by_name = o.filters.empty(), by_op = o.operators.empty();
    for (const auto& f : o.filters) by_name = by_name || c.name.find(f) != std::string::npos;
    const std::string op(info(c.op.Type).Name);
    for (const auto& n : o.operators) by_op = by_op || n == op || "DML_OPERATOR_" + op == n;
    return by_name && by_op;
}

int cmd_test(TestCmdOptions& o) {
    DiffOptions options;
    options.switches = o.switches;
    options.profile.accumulate = parse_accumulate(o.accumulate).value_or(Accumulate::Any);
    options.profile.tf32_operands = o.tf32;
    options.profile.winograd = o.winograd;
    options.profile.statistics = parse_statistics(o.statistics).value_or(Statistics::Any);
    options.max_bytes = o.load.max_bytes;

    // --baseline is read before anything is run, as `dmlref diff` does (docs/diff.md, Baselines).
    std::vector<BaselineEntry> baseline;
    if (!o.baseline.empty()) {
        try {
            baseline = read_baseline(o.baseline);
        } catch (const BaselineError& e) {
            std::cerr << e.what() << "\n";
            return 2;
        }
    }
    std::vector<std::string> problems;
    const auto inputs = collect(o.goldens, problems);
    for (const auto& p : problems) std::cerr << p << "\n";
    if (!problems.empty()) return 2;
    // Read every golden first: an unreadable one is an error of the command (exit 2), never a case
    // the backend is blamed for. A golden is read once: the backend's files, the verdict and the
    // causes all come from that read, kept until its case has run. Past kHeldBytes of kept
    // buffers, a golden is checked and let go, and read again when its turn comes, so that memory
    // stays bounded whatever the number of goldens.
    struct Work {
        fs::path golden;
        std::optional<Case> c;  // the golden as read; none: read it again to run it
    };
    std::vector<Work> work;
    size_t unreadable = 0, error_cases = 0;
    uint64_t held = 0;
    for (const auto& in : inputs) {
        Diagnostics diags;
        Case c = load(in.file, o.load, diags);
        // An error case (expectError, as gen writes them beside a sweep's goldens) tests dmlref's
        // reader, not a backend: left out when it reads with exactly the error it expects.
        std::string why;
        if (!c.expect_error.empty() &&
            (!diags.has_errors() || gen::expect_error_met(diags, c.expect_error, c.expect_error_path, why))) {
            ++error_cases;
            continue;
        }
        if (diags.has_errors()) {
            print_diagnostics(diags, in.file.string(), std::cerr);
            ++unreadable;
            continue;
        }
        if (!selected(o, c)) continue;
        const uint64_t bytes = held_bytes(c);
        if (unreadable || held + bytes > kHeldBytes) work.push_back({in.file, std::nullopt});
        else {
            held += bytes;
            work.push_back({in.file, std::move(c)});
        }
    }
    if (unreadable) {
        std::cerr << "dmlref test: " << unreadable << " golden" << (unreadable == 1 ? "" : "s")
                  << " cannot be read; nothing was run\n";
        return 2;
    }
    if (work.empty()) {
        std::cerr << "dmlref test: no case to run (" << inputs.size() << " files read, " << error_cases
                  << " error cases, the rest left out by --filter and --operator) [test.no-cases]\n";
        return 2;
    }
    // A directory of dmlref's own for the cases' files: under --keep (kept), or the temporary one.
    const bool keep = !o.keep.empty();
    const fs::path root = keep ? fs::path(o.keep)
                               : fs::temp_directory_path() / ("dmlref-test-" + std::to_string(getpid()));
    if (keep && fs::exists(root)) {
        std::cerr << shown(root)
                  << ": /: error: the folder exists; dmlref does not write into an old one [file.write]\n";
        return 2;
    }
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) {
        std::cerr << shown(root) << ": /: error: cannot make the folder: " << printable(ec.message())
                  << " [file.write]\n";
        return 2;
    }

    const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    std::vector<CaseResult> results(work.size());
    std::atomic<size_t> next{0}, done{0};
    const auto start = std::chrono::steady_clock::now();
    auto worker = [&] {
        for (size_t k; (k = next++) < work.size(); ++done) {
            const fs::path dir = root / std::to_string(k);
            if (!work[k].c) {  // let go after its check: read again
                Diagnostics diags;
                work[k].c = load(work[k].golden, o.load, diags);
                if (diags.has_errors()) {
                    CaseResult& r = results[k];
                    r.golden = work[k].golden;
                    r.name = work[k].golden.stem().string();
                    for (const auto& d : diags.items())
                        if (r.why.empty() && d.severity == Severity::Error)
                            r.why = "the golden cannot be read any more: " + printable(format(d, r.golden.string()));
                    work[k].c.reset();
                    continue;
                }
            }
            results[k] = run_one(o, work[k].golden, *work[k].c, dir, options);
            work[k].c.reset();  // done with: its memory goes back
            std::error_code removed;
            if (!keep) fs::remove_all(dir, removed);
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < std::min<size_t>(jobs, work.size()); ++t) threads.emplace_back(worker);
    const bool tty = ::isatty(STDERR_FILENO) && !o.quiet;
    while (tty && done < work.size()) {
        std::cerr << "\r\x1b[K[" << done << "/" << work.size() << "] running " << printable(o.backend) << std::flush;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    for (auto& t : threads) t.join();
    if (tty) std::cerr << "\r\x1b[K" << std::flush;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!keep) fs::remove_all(root, ec);

    // Known failures: the run against the baseline, limited to the cases judged now, so that a case
    // left out by --filter or skipped is never reported fixed.
    std::optional<BaselineComparison> against;
    const DiffReport judged = o.baseline.empty() && o.write_baseline.empty() ? DiffReport{} : judged_report(results);
    if (!o.baseline.empty()) {
        std::set<std::string> names;
        for (const auto& c : judged.cases) names.insert(c.name);
        std::vector<BaselineEntry> relevant;
        for (const auto& e : baseline)
            if (names.count(e.Case)) relevant.push_back(e);
        against = compare_baseline(judged, relevant);
        std::set<std::string> fresh;
        for (const auto& e : against->fresh) fresh.insert(e.Case);
        for (auto& r : results)
            r.known = (r.outcome == Outcome::Fail || r.outcome == Outcome::Error) && !fresh.count(r.name);
    }

    // The answer first: a line per case that did not pass (every case without --quiet), then the sums.
    size_t n[4] = {0, 0, 0, 0};
    for (const auto& r : results) {
        ++n[size_t(r.outcome)];
        if (r.outcome == Outcome::Pass && o.quiet) continue;
        std::cout << pad(r.known ? "KNOWN" : std::string(outcome_name(r.outcome)), 6) << pad(printable(r.name), 44)
                  << " " << (r.why.empty() ? r.op : pad(r.op, 24) + " " + r.why) << "\n";
        if (r.outcome == Outcome::Error && !o.quiet) {
            std::istringstream lines(r.log);
            std::string line;
            for (int k = 0; k < 5 && std::getline(lines, line); ++k) std::cout << "        | " << line << "\n";
        }
    }
    std::cout << results.size() << " cases: " << n[0] << " passed, " << n[1] << " failed, " << n[2] << " skipped, "
              << n[3] << " errors (" << std::fixed << std::setprecision(1) << seconds << " s, " << jobs << " jobs"
              << (keep ? "; files kept in " + shown(root) : "") << ")\n";
    if (against) std::cout << baseline_text(*against, o.baseline);
    try {
        if (!o.junit.empty()) write_file_atomic(o.junit, junit_xml(results, seconds));
        if (!o.json_file.empty() || !o.html.empty()) {
            const json report = json_report(o, results, options, against);
            if (!o.json_file.empty())
                write_file_atomic(o.json_file, report.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
            if (!o.html.empty()) write_file_atomic(o.html, test_html(report, pictures(results, report)));
        }
        if (!o.write_baseline.empty()) write_file_atomic(o.write_baseline, baseline_json(judged));
    } catch (const WriteError& e) {
        std::cerr << "dmlref test: error: cannot write a report: " << printable(e.what()) << " [" << e.rule() << "]\n";
        return 2;
    }
    // With --baseline only new failures fail the run; without, every failure and error does.
    if (against) return against->fresh.empty() ? 0 : 1;
    return n[1] || n[3] ? 1 : 0;
}

}  // namespace

Command add_test_command(CLI::App& app) {
    auto o = std::make_shared<TestCmdOptions>();
    auto* cmd = app.add_subcommand("test",
                                   "Run a backend command on golden cases and judge its outputs (docs/test.md).");
    cmd->add_option("GOLDENS", o->goldens, "golden case files, or directories of them")->required();
    cmd->add_option(
           "--backend", o->backend,
           "the command: run as `CMD CASE.json OUTDIR` (docs/test.md), it writes OUTDIR/<OutputField>.npy; exit 77 skips the case")
        ->required();
    cmd->add_option("-j,--jobs", o->jobs, "cases run at once (default: one per hardware thread)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option(
           "--timeout", o->timeout,
           "seconds one backend run may take (default 600); then its process group is killed and the case is an error")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--filter", o->filters, "run only cases whose name contains TEXT (repeatable: any of them)");
    cmd->add_option("--operator", o->operators,
                    "run only cases of this operator (CAST or DML_OPERATOR_CAST; repeatable)");
    cmd->add_option("--junit", o->junit, "also write the results as JUnit XML to FILE");
    cmd->add_option("--json", o->json_file, "also write the results, with each case's diff report, as JSON to FILE");
    cmd->add_option("--html", o->html,
                    "also write the results as one self-contained HTML page to FILE: per case the verdict, the worst "
                    "elements and the picture");
    cmd->add_option("--baseline", o->baseline,
                    "known failures (a file --write-baseline wrote): report new, known and fixed; exit 1 only on new");
    cmd->add_option("--write-baseline", o->write_baseline,
                    "write this run's failures, per case, output and reading, as a baseline FILE");
    cmd->add_option("--keep", o->keep,
                    "keep every case's files (inputs, outputs, the backend's log) in this new folder");
    cmd->add_flag("--zeros-equal", o->switches.zeros_equal, "treat +0 and -0 as equal");
    cmd->add_flag("--any-nan", o->switches.any_nan, "any NaN equals any NaN");
    cmd->add_flag("--accept-flushed-subnormals", o->switches.flushed_subnormals,
                  "accept a zero where the golden is subnormal");
    cmd->add_option("--accumulate", o->accumulate,
                    "precision of the backend's sums: any (default), output, float32, float64")
        ->check(CLI::IsMember({"any", "output", "float32", "float64"}));
    cmd->add_flag("--allow-tf32", o->tf32, "the bound admits FLOAT32 product operands rounded to TF32 (as diff)");
    cmd->add_flag("--allow-winograd", o->winograd, "the bound admits Winograd convolutions (as diff)");
    cmd->add_option("--statistics", o->statistics,
                    "batch statistics' forms, for the bound (as diff: any, stable, two-pass, online, one-pass)")
        ->check(CLI::IsMember({"any", "stable", "two-pass", "online", "one-pass"}));
    cmd->add_flag("-q,--quiet", o->quiet, "list only the cases that do not pass");
    add_load_options(*cmd, o->load);
    return {cmd, [o] { return cmd_test(*o); }};
}

}  // namespace dmlref::cli
