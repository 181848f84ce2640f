// dmlref coverage: what a set of cases covers, operator x type x rank and operator x feature, with
// the holes against DirectML's support tables and dmlref's scope. docs/coverage.md.
#include "cli.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/coverage.hpp"

#include <fstream>
#include <iostream>
#include <memory>

namespace dmlref::cli {

namespace {

struct CoverageOptions {
    std::vector<std::string> paths;
    std::string format = "text";
    std::string json_file, html_file;
    bool fail_on_holes = false;
    bool all = false;
    uint64_t max_bytes = uint64_t(4) << 30;
};

bool write_text(const std::string& file, const std::string& text) {
    try {
        write_file_atomic(file, text);  // whole or not at all, never through a link (dmlref/atomic_file.hpp)
        return true;
    } catch (const WriteError& e) {
        std::cerr << shown(file) << ": /: error: cannot write the report: " << printable(e.what()) << " [" << e.rule()
                  << "]\n";
        return false;
    }
}

int cmd_coverage(const CoverageOptions& o) {
    if (o.format != "text" && o.format != "json") {
        std::cerr << "dmlref coverage: error: --format is text or json\n";
        return 2;
    }
    std::vector<std::string> problems;
    const auto inputs = collect(o.paths, problems);
    for (const auto& p : problems) std::cerr << p << "\n";
    Coverage cov;
    cov.every_operator = o.all;
    for (const auto& in : inputs) {
        Diagnostics d;
        Case c = load(in.file, o.max_bytes, d);
        if (!c.expect_error.empty()) {
            std::optional<OperatorType> op;
            try {
                const JsonDocument doc = read_json_file(in.file);
                if (doc.root.is_object() && doc.root.contains("operator") && doc.root["operator"].is_string())
                    op = parse_operator_type(doc.root["operator"].get<std::string>());
            } catch (const CaseError&) {
            }
            cov.add_error_case(c.expect_error, op);
        } else if (d.has_errors()) {
            ++cov.unreadable;
            print_diagnostics(d, in.file.string(), std::cerr);
        } else {
            cov.add(c);
        }
    }
    std::cout << (o.format == "json" ? coverage_json(cov) : coverage_text(cov));
    // Unreadable cases are counted and reported, and make the exit 2: a report over a folder of
    // broken files is not a success.
    bool ok = problems.empty() && cov.unreadable == 0;
    if (!o.json_file.empty()) ok = write_text(o.json_file, coverage_json(cov)) && ok;
    if (!o.html_file.empty()) ok = write_text(o.html_file, coverage_html(cov)) && ok;
    if (!ok) return 2;
    return o.fail_on_holes && holes(cov).scope ? 1 : 0;
}

}  // namespace

Command add_coverage_command(CLI::App& app) {
    auto co = std::make_shared<CoverageOptions>();
    auto* c = app.add_subcommand(
        "coverage",
        "What cases cover: operator x type x rank and operator x feature, with the holes (docs/coverage.md).");
    c->add_option("CASE", co->paths, "case files or directories (searched for *.json)")->required();
    c->add_option("--format", co->format, "text (default) or json, on standard output");
    c->add_option("--json", co->json_file, "also write the JSON report to FILE");
    c->add_option("--html", co->html_file, "also write a self-contained HTML page to FILE");
    c->add_flag("--all", co->all,
                "every operator of the registry (default: the operators the cases exercise), in the reports and "
                "the holes");
    c->add_flag("--fail-on-holes", co->fail_on_holes,
                "exit 1 when some (operator, type, rank) in dmlref's scope has no case");
    c->add_option("--max-bytes", co->max_bytes, "largest buffer a case may allocate, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    return {c, [co] { return cmd_coverage(*co); }};
}

}  // namespace dmlref::cli
