// dmlref diff: a backend's outputs against golden case files under the tolerance model
// (docs/diff.md); the comparison itself is lib/judge/diff.cpp.
#include "cli.hpp"

#include "dmlref/diff.hpp"
#include "dmlref/explain.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

#include <unistd.h>

namespace dmlref::cli {

namespace {

struct DiffCmdOptions {
    DiffCommand dc;
    std::string golden, actual, json_file, image, baseline, write_baseline;
    std::vector<std::string> output_files;
    std::string accumulate = "any", coordinates = "any", statistics = "any";
    size_t explain = 0;  // --explain K (docs/explain.md)
};

int cmd_diff(DiffCmdOptions& o) {
    DiffCommand& dc = o.dc;
    dc.golden = o.golden;
    dc.actual = o.actual;
    dc.json_file = o.json_file;
    dc.image = o.image;
    dc.baseline = o.baseline;  // docs/diff.md, Baselines
    dc.write_baseline = o.write_baseline;
    // CLI11's IsMember checks have admitted only these names.
    dc.options.profile.accumulate = parse_accumulate(o.accumulate).value_or(Accumulate::Any);
    dc.options.profile.coordinates = parse_coordinates(o.coordinates).value_or(Coordinates::Any);
    dc.options.profile.statistics = parse_statistics(o.statistics).value_or(Statistics::Any);
    for (const auto& f : o.output_files) {
        const size_t eq = f.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == f.size()) {
            std::cerr << "dmlref diff: error: --output " << f << " is not NAME=FILE\n";
            return 2;
        }
        dc.options.files[f.substr(0, eq)] = f.substr(eq + 1);
    }
    // Many cases show their progress on a terminal (a line overwritten per case, then cleared).
    if (::isatty(STDERR_FILENO))
        dc.options.progress = [](size_t k, size_t n, const std::string& name) {
            if (k < n) std::cerr << "\r\x1b[K[" << k + 1 << "/" << n << "] " << printable(name) << std::flush;
            else std::cerr << "\r\x1b[K" << std::flush;
        };
    const int code = run_diff(dc, std::cout, std::cerr);
    if (o.explain == 0 || code == 2) return code;
    return std::max(code, explain_worst(dc, o.explain, dc.format == "json", std::cout, std::cerr));
}

}  // namespace

Command add_diff_command(CLI::App& app) {
    auto o = std::make_shared<DiffCmdOptions>();
    DiffCommand& dc = o->dc;
    std::string& golden = o->golden;
    std::string& actual = o->actual;
    std::string& json_file = o->json_file;
    std::string& image = o->image;
    std::vector<std::string>& output_files = o->output_files;
    auto* diff = app.add_subcommand(
        "diff", "Compare a backend's outputs with golden case files under the tolerance model (docs/diff.md).");
    diff->add_option("GOLDEN", golden, "a golden case file, or a directory of them")->required();
    diff->add_option("ACTUAL", actual, "the actual outputs: a .npy file, a raw buffer, a case file, or a directory");
    diff->add_option("--output", output_files,
                     "NAME=FILE: the actual values of output NAME (a single golden); repeatable");
    diff->add_option("--worst", dc.options.worst, "list the K worst elements per output (default 10)")
        ->check(CLI::NonNegativeNumber);
    diff->add_option("--json", json_file, "also write the JSON report to FILE");
    diff->add_option("--format", dc.format, "text (default) or json, on standard output")
        ->check(CLI::IsMember({"text", "json"}));
    diff->add_option("--image", image, "picture of where each mismatching output differs (FILE.ppm or FILE.png)");
    diff->add_flag("--zeros-equal", dc.options.switches.zeros_equal, "treat +0 and -0 as equal");
    diff->add_flag("--any-nan", dc.options.switches.any_nan, "any NaN equals any NaN");
    diff->add_flag("--accept-flushed-subnormals", dc.options.switches.flushed_subnormals,
                   "accept a zero where the golden is subnormal");
    diff->add_option("--max-bytes", dc.options.max_bytes, "largest file to read, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    // The arithmetic profile a conforming backend may use (docs/tolerance.md).
    diff->add_option("--accumulate", o->accumulate,
                     "precision of a backend's sums: any (default: the output type or wider), output, float32, float64")
        ->check(CLI::IsMember({"any", "output", "float32", "float64"}));
    diff->add_option(
            "--coordinates", o->coordinates,
            "resample coordinate arithmetic: any (default), float64, float32-division, float32-reciprocal, float32-reciprocal-fma")
        ->check(CLI::IsMember({"any", "float64", "float32-division", "float32-reciprocal", "float32-reciprocal-fma"}));
    diff->add_flag(
        "--allow-flushed-subnormals", dc.options.profile.flush_subnormals,
        "the bound of summed elements admits flushing of subnormal operands and partial sums (adds its allowance)");
    diff->add_flag("--allow-tf32", dc.options.profile.tf32_operands,
                   "the bound of FLOAT32 products admits operands rounded to TF32 first (tensor cores; adds 2^-9 of "
                   "each product)");
    diff->add_flag("--allow-winograd", dc.options.profile.winograd,
                   "the bound of FORWARD 2-D 3x3 convolutions (strides and dilations 1) admits Winograd's F(2x2, 3x3) "
                   "and F(4x4, 3x3) (adds their allowance)");
    diff->add_option(
            "--statistics", o->statistics,
            "how a backend computes batch statistics (BATCH_NORMALIZATION_TRAINING, MEAN_VARIANCE_NORMALIZATION*): "
            "any (default), stable (two-pass or online, not E[X^2] - E[X]^2), two-pass, online, one-pass")
        ->check(CLI::IsMember({"any", "stable", "two-pass", "online", "one-pass"}));
    diff->add_option("--false-alarm", dc.options.false_alarm,
                     "false-alarm probability of the systematic-error check (default 1e-6)")
        ->check(CLI::Range(1e-300, 0.5));
    diff->add_option("--explain", o->explain, "explain the K worst elements of each output (docs/explain.md)")
        ->check(CLI::NonNegativeNumber);
    // Known deviations (docs/diff.md, Baselines).
    diff->add_option("--baseline", o->baseline,
                     "known failures (a file --write-baseline wrote): report new, known and fixed; exit 1 only on new");
    diff->add_option("--write-baseline", o->write_baseline,
                     "write this run's failures, per case, output and reading, as a baseline FILE");
    return {diff, [o] { return cmd_diff(*o); }};
}

}  // namespace dmlref::cli
