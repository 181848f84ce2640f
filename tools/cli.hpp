// What the command line's subcommands share (tools/cmd_*.cpp): collecting case files, loading
// a case with its diagnostics, and the text helpers of their reports. Each subcommand is one file
// that adds itself to the app and returns what to run when it is chosen.
#pragma once

#include "dmlref/case.hpp"

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

struct Input {
    fs::path file;
    fs::path relative;  // where its golden goes under -o
};


// Case files named on the command line; directories are searched for *.json, sorted.
std::vector<Input> collect(const std::vector<std::string>& args, std::vector<std::string>& problems);
std::string sizes_text(const std::vector<uint32_t>& s);             // "[2,3]"
std::string nd_index(const std::vector<uint32_t>& sizes, uint64_t flat);  // "[0,2]"
std::string pad(std::string s, size_t n);                            // padded with spaces to n
// The first output's type and sizes, for the summary line.
std::string shape_text(const Case& c);
// Reads a case; an unreadable file leaves its diagnostics in `diags` and an empty case.
Case load(const fs::path& file, uint64_t max_bytes, Diagnostics& diags);
void print_diagnostics(const Diagnostics& d, const std::string& file, std::ostream& os);

}  // namespace dmlref::cli
