// dmlref validate: check cases against every rule of the spec, and report where each falls in
// DirectML's support tables (docs/cli.md).
#include "cli.hpp"

#include <iostream>
#include <memory>

namespace dmlref::cli {

namespace {

struct ValidateCmdOptions {
    std::vector<std::string> paths;
    std::string feature_level;
    LoadOptions load;
};

int cmd_validate(const ValidateCmdOptions& o) {
    std::optional<uint32_t> level;
    if (!o.feature_level.empty()) {
        level = parse_feature_level(o.feature_level);
        if (!level) {
            std::cerr
                << "dmlref validate: --feature-level " << printable(o.feature_level)
                << " is not a DirectML feature level: 1.0, 2.0, 2.1, 3.0, 3.1, 4.0, 4.1, 5.0, 5.1, 5.2, 6.0, 6.1, 6.2, 6.3 or 6.4"
                   " (written 5.1, 5_1 or DML_FEATURE_LEVEL_5_1)\n";
            return 2;
        }
    }
    std::vector<std::string> problems;
    const auto inputs = collect(o.paths, problems);
    for (const auto& p : problems) std::cerr << p << "\n";
    size_t invalid = problems.size(), outside = 0;
    for (const auto& in : inputs) {
        Diagnostics diags;
        Case c = load(in.file, o.load, diags);
        print_diagnostics(diags, in.file.string(), std::cerr);
        if (diags.has_errors()) {
            ++invalid;
            std::cout << shown(in.file) << ": invalid (" << diags.error_count() << " error"
                      << (diags.error_count() == 1 ? "" : "s") << ")\n";
            continue;
        }
        // DirectML's tensor-support tables: reported, never an error (docs/golden.md, Element types and storage).
        std::vector<std::string> why;
        std::string support;
        if (level) {
            const bool ok = supported_at(c.op, *level, &why);
            support = ok ? "inside DirectML's support tables at " + feature_level_name(*level)
                         : "outside DirectML's support tables at " + feature_level_name(*level);
            outside += !ok;
        } else {
            const auto lowest = lowest_supporting_feature_level(c.op, &why);
            support = lowest ? "inside DirectML's support tables from " + feature_level_name(*lowest)
                             : "outside DirectML's support tables at every feature level";
            outside += !lowest;
        }
        std::cout << shown(in.file) << ": valid; " << support << "\n";
        for (const auto& w : why) std::cout << "    " << w << "\n";
    }
    std::cout << inputs.size() << " cases: " << inputs.size() + problems.size() - invalid << " valid, " << invalid
              << " invalid; " << outside << " outside DirectML's support tables\n";
    return invalid ? 2 : 0;
}

}  // namespace

Command add_validate_command(CLI::App& app) {
    auto vo = std::make_shared<ValidateCmdOptions>();
    auto* validate = app.add_subcommand(
        "validate", "Check cases against the spec's rules, and report where they fall in DirectML's support tables.");
    validate->add_option("CASE", vo->paths, "case files or directories")->required();
    validate->add_option(
        "--feature-level", vo->feature_level,
        "check the support tables at this DML_FEATURE_LEVEL (e.g. 5.1); default: report the lowest that admits the case");
    add_load_options(*validate, vo->load);
    return {validate, [vo] { return cmd_validate(*vo); }};
}

}  // namespace dmlref::cli
