// What the command line's subcommands share (tools/cmd_*.cpp): collecting case files, loading
// a case with its diagnostics, and the text helpers of their reports. Each subcommand is one file
// that adds itself to the app and returns what to run when it is chosen.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/json_document.hpp"
#include "dmlref/printable.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace dmlref::cli {

namespace fs = std::filesystem;

// A subcommand: its CLI11 app (parsed when chosen) and what to run then (the exit code).
struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};
Command add_run_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_import_dxdispatch_command(CLI::App& app);
Command add_export_dxdispatch_command(CLI::App& app);
Command add_reduce_command(CLI::App& app);
Command add_gen_command(CLI::App& app);
Command add_coverage_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
Command add_clarifications_command(CLI::App& app);
Command add_test_command(CLI::App& app);

struct Input {
    fs::path file;
    fs::path relative;  // where its golden goes under -o
};

// Case files named on the command line; directories are searched for *.json, sorted. Every
// entry that cannot be read (an unreadable folder, a dangling link, a name that is not UTF-8) is
// a problem line ("PATH: /: error: ... [rule]"), never skipped silently.
std::vector<Input> collect(const std::vector<std::string>& args, std::vector<std::string>& problems);
// Two inputs whose outputs would land on the same path under -o: a problem line for each later
// one (output.collision), which is then dropped from `inputs`.
void drop_colliding_outputs(std::vector<Input>& inputs, std::vector<std::string>& problems);
// Options every command that reads cases shares: --max-bytes, --max-work, --allow-paths. The
// numeric ones refuse negative and non-numeric values (CLI11 would wrap -1 to 2^64 - 1).
void add_load_options(CLI::App& app, LoadOptions& lo);
std::string nd_index(const std::vector<uint32_t>& sizes, uint64_t flat);  // "[0,2]"
std::string pad(std::string s, size_t n);                                 // padded with spaces to n
// The first output's type and sizes, for the summary line.
std::string shape_text(const Case& c);
// Reads a case; an unreadable file leaves its diagnostics in `diags` and an empty case.
// Any other failure (an internal error) also becomes a diagnostic: one bad case never stops a batch.
Case load(const fs::path& file, const LoadOptions& lo, Diagnostics& diags);
inline Case load(const fs::path& file, uint64_t max_bytes, Diagnostics& diags) {
    LoadOptions lo;
    lo.max_bytes = max_bytes;
    return load(file, lo, diags);
}
// Text from a case or a file name, escaped for a log line (dmlref/printable.hpp).
std::string shown(const fs::path& p);
// Makes `folder`, which lies inside the output folder `root`, one component at a time: a component
// inside root that is a symbolic link (or not a folder) is refused, so that nothing is written
// outside the output through a linked folder. root itself is the user's choice. False with `error`.
bool make_output_folder(const fs::path& root, const fs::path& folder, std::string& error);
void print_diagnostics(const Diagnostics& d, const std::string& file, std::ostream& os);

}  // namespace dmlref::cli
