// dmlref: evaluate DirectML operator cases and write golden files; validate cases.
//
// Exit codes (docs/cli.md):
//   0  every case ran (and matched its expected values, where it had some) / validated
//   1  a case's computed outputs differ from the expected values it holds (run), or a backend's
//      outputs are over tolerance (diff)
//   2  a case or an actual file is invalid or unreadable, or the command line is wrong
#include "dmlref/case.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/values.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fs = std::filesystem;
using namespace dmlref;

namespace {

struct Input {
    fs::path file;
    fs::path relative;  // where its golden goes under -o
};

// Case files named on the command line; directories are searched for *.json, sorted.
std::vector<Input> collect(const std::vector<std::string>& args, std::vector<std::string>& problems) {
    std::vector<Input> out;
    for (const auto& a : args) {
        const fs::path p(a);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<Input> found;
            for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file() && it->path().extension() == ".json")
                    found.push_back({it->path(), it->path().lexically_relative(p)});
            std::sort(found.begin(), found.end(), [](const Input& x, const Input& y) { return x.relative < y.relative; });
            if (found.empty()) problems.push_back(a + ": no .json case files in this directory");
            out.insert(out.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(p, ec)) {
            out.push_back({p, p.filename()});
        } else {
            problems.push_back(a + ": /: error: no such file or directory [file.read]");
        }
    }
    return out;
}

std::string sizes_text(const std::vector<uint32_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

std::string nd_index(const std::vector<uint32_t>& sizes, uint64_t flat) {
    std::vector<uint64_t> c(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) { c[i] = flat % sizes[i]; flat /= sizes[i]; }
    std::string t = "[";
    for (size_t i = 0; i < c.size(); ++i) t += (i ? "," : "") + std::to_string(c[i]);
    return t + "]";
}

std::string pad(std::string s, size_t n) {
    if (s.size() < n) s.append(n - s.size(), ' ');
    return s;
}

// The first output's type and sizes, for the summary line.
std::string shape_text(const Case& c) {
    for (const auto& f : tensor_fields(c.op))
        if (f.role == TensorRole::Output) return std::string(name(f.desc->DataType)) + " " + sizes_text(f.desc->Sizes);
    return "";
}

// Reads a case; an unreadable file leaves its diagnostics in `diags` and an empty case.
Case load(const fs::path& file, uint64_t max_bytes, Diagnostics& diags) {
    try {
        LoadOptions lo;
        lo.max_bytes = max_bytes;
        return load_case(file, diags, lo);
    } catch (const CaseError& e) {
        diags = e.diagnostics();
        return {};
    }
}

void print_diagnostics(const Diagnostics& d, const std::string& file, std::ostream& os) {
    for (const auto& item : d.items()) os << format(item, file) << "\n";
}

// For harnesses: DIR/<Field>.npy for every tensor of the case. Inputs are their whole buffer
// in memory order (1-D, TotalTensorSizeInBytes / element size elements, as bound); outputs are
// the computed logical elements in the output's Sizes. Returns the number of files not written.
size_t write_npy_files(const Case& c, const Outputs& outputs, const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    size_t failures = 0;
    for (const auto& f : tensor_fields(c.op)) {
        NpyArray a;
        a.data_type = f.desc->DataType;
        if (f.role == TensorRole::Input) {
            a.data = c.inputs.at(std::string(f.name));
            a.shape = {a.data.size() / element_size(a.data_type)};
        } else {
            a.data = outputs.values.at(std::string(f.name));
            a.shape.assign(f.desc->Sizes.begin(), f.desc->Sizes.end());
        }
        const fs::path file = dir / (std::string(f.name) + ".npy");
        try {
            write_npy(file, a);
        } catch (const NpyError& e) {
            std::cerr << file.string() << ": /: error: " << e.what() << " [file.write]\n";
            ++failures;
        }
    }
    return failures;
}

struct RunOptions {
    std::vector<std::string> paths;
    std::string out_dir;
    std::string npy_dir;
    uint64_t max_bytes = uint64_t(4) << 30;
    bool overwrite_expected = false;
    bool quiet = false;
};

int cmd_run(const RunOptions& o) {
    std::vector<std::string> args = o.paths;
    if (args.empty()) {
        // The bundled corpus: ./cases when run from a checkout, else the one this build came from.
        args.push_back(fs::is_directory("cases") ? "cases" : DMLREF_SOURCE_CASES);
    }
    std::vector<std::string> problems;
    const auto inputs = collect(args, problems);
    for (const auto& p : problems) std::cerr << p << "\n";
    size_t passed = 0, failed = 0, fresh = 0, errors = problems.size();
    const size_t width = std::to_string(inputs.size()).size();
    std::cout << "dmlref " << dmlref_version() << ": running " << inputs.size() << " case" << (inputs.size() == 1 ? "" : "s") << "\n";
    for (size_t k = 0; k < inputs.size(); ++k) {
        const auto& in = inputs[k];
        std::string counter = std::to_string(k + 1);
        counter = "[" + std::string(width - counter.size(), ' ') + counter + "/" + std::to_string(inputs.size()) + "]";
        Diagnostics diags;
        Case c = load(in.file, o.max_bytes, diags);
        if (diags.has_errors()) {
            ++errors;
            std::cout << counter << " ERROR " << in.file.string() << "\n";
            print_diagnostics(diags, in.file.string(), std::cerr);
            continue;
        }
        if (!o.quiet) for (const auto& item : diags.items()) std::cerr << format(item, in.file.string()) << "\n";
        Outputs outputs;
        try {
            outputs = run_case(c);
        } catch (const std::exception& e) {
            ++errors;
            std::cout << counter << " ERROR " << in.file.string() << "\n";
            std::cerr << in.file.string() << ": /: error: evaluation failed: " << e.what() << " [evaluate]\n";
            continue;
        }
        const auto mismatches = compare_expected(c, outputs);
        std::string status = c.expected.empty() ? "NEW " : mismatches.empty() ? "PASS" : "FAIL";
        std::cout << counter << " " << status << "  " << pad(c.name, 44) << " " << pad(std::string(info(c.op.Type).Name), 24)
                  << " " << shape_text(c) << "\n";
        if (!mismatches.empty()) {
            ++failed;
            std::cout << "      " << mismatches.size() << " element" << (mismatches.size() == 1 ? "" : "s")
                      << " differ from the case's expected values:\n";
            std::cout << "      " << pad("output", 22) << pad("index", 14) << pad("expected", 28) << "computed\n";
            for (size_t i = 0; i < mismatches.size() && i < 8; ++i) {
                const auto& m = mismatches[i];
                const TensorDesc* d = nullptr;
                for (const auto& f : tensor_fields(c.op)) if (f.name == m.output) d = f.desc;
                const DataType t = d->DataType;
                std::cout << "      " << pad(m.output, 22) << pad(nd_index(d->Sizes, m.index), 14)
                          << pad(display_value(t, m.expected_bits) + " " + hex_bits(t, m.expected_bits), 28)
                          << display_value(t, m.actual_bits) << " " << hex_bits(t, m.actual_bits) << "\n";
            }
            if (mismatches.size() > 8) std::cout << "      ... and " << mismatches.size() - 8 << " more\n";
        } else if (c.expected.empty()) ++fresh;
        else ++passed;
        if (!o.out_dir.empty() && (mismatches.empty() || o.overwrite_expected)) {
            const fs::path target = fs::path(o.out_dir) / in.relative;
            std::error_code ec;
            fs::create_directories(target.parent_path(), ec);
            std::ofstream f(target, std::ios::binary);
            f << write_golden(c, outputs, target);
            if (!f) {
                ++errors;
                std::cerr << target.string() << ": /: error: cannot write the golden file [file.write]\n";
            }
        }
        if (!o.npy_dir.empty()) errors += write_npy_files(c, outputs, fs::path(o.npy_dir) / fs::path(in.relative).replace_extension(""));
    }
    std::cout << inputs.size() << " cases: " << passed << " passed, " << failed << " failed, " << fresh
              << " new (no expected values), " << errors << " errors";
    if (!o.out_dir.empty()) std::cout << "; goldens in " << o.out_dir;
    std::cout << "\n";
    if (errors) return 2;
    return failed ? 1 : 0;
}

struct ValidateCmdOptions {
    std::vector<std::string> paths;
    std::string feature_level;
    uint64_t max_bytes = uint64_t(4) << 30;
};

int cmd_validate(const ValidateCmdOptions& o) {
    std::optional<uint32_t> level;
    if (!o.feature_level.empty()) {
        level = parse_feature_level(o.feature_level);
        if (!level) {
            std::cerr << "dmlref validate: --feature-level " << o.feature_level << " is not a feature level (write it as 5.1 or DML_FEATURE_LEVEL_5_1)\n";
            return 2;
        }
    }
    std::vector<std::string> problems;
    const auto inputs = collect(o.paths, problems);
    for (const auto& p : problems) std::cerr << p << "\n";
    size_t invalid = problems.size(), outside = 0;
    for (const auto& in : inputs) {
        Diagnostics diags;
        Case c = load(in.file, o.max_bytes, diags);
        print_diagnostics(diags, in.file.string(), std::cerr);
        if (diags.has_errors()) {
            ++invalid;
            std::cout << in.file.string() << ": invalid (" << diags.error_count() << " error" << (diags.error_count() == 1 ? "" : "s") << ")\n";
            continue;
        }
        // DirectML's tensor-support tables: reported, never an error (GOLDEN.md section 1).
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
        std::cout << in.file.string() << ": valid; " << support << "\n";
        for (const auto& w : why) std::cout << "    " << w << "\n";
    }
    std::cout << inputs.size() << " cases: " << inputs.size() + problems.size() - invalid << " valid, " << invalid
              << " invalid; " << outside << " outside DirectML's support tables\n";
    return invalid ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"dmlref: the bit-exact CPU reference for DirectML operators.\n"
                 "Exit codes: 0 success, 1 outputs differ from a case's expected values, 2 invalid input or usage."};
    app.set_version_flag("--version", std::string(dmlref_version()));
    app.require_subcommand(1);

    RunOptions ro;
    auto* run = app.add_subcommand("run", "Evaluate cases; with -o, write golden case files. With no CASE, runs the bundled cases/.");
    run->add_option("CASE", ro.paths, "case files or directories (searched for *.json)");
    run->add_option("-o,--output", ro.out_dir, "directory for the golden case files (mirrors the layout under a directory argument)");
    run->add_option("--max-bytes", ro.max_bytes, "largest buffer a case may allocate, in bytes (default 4 GiB)");
    run->add_option("--npy", ro.npy_dir, "also write DIR/<case>/<Field>.npy: input buffers (1-D, memory order) and computed outputs (their Sizes), for harnesses");
    run->add_flag("--overwrite-expected", ro.overwrite_expected, "write goldens even for cases whose expected values differ");
    run->add_flag("-q,--quiet", ro.quiet, "do not print warnings");

    ValidateCmdOptions vo;
    auto* validate = app.add_subcommand("validate", "Check cases against the spec's rules, and report where they fall in DirectML's support tables.");
    validate->add_option("CASE", vo.paths, "case files or directories")->required();
    validate->add_option("--feature-level", vo.feature_level, "check the support tables at this DML_FEATURE_LEVEL (e.g. 5.1); default: report the lowest that admits the case");
    validate->add_option("--max-bytes", vo.max_bytes, "largest buffer a case may allocate, in bytes (default 4 GiB)");

    DiffCommand dc;
    std::string golden, actual, json_file, image;
    std::vector<std::string> output_files;
    auto* diff = app.add_subcommand("diff", "Compare a backend's outputs with golden case files under the tolerance model (docs/diff.md).");
    diff->add_option("GOLDEN", golden, "a golden case file, or a directory of them")->required();
    diff->add_option("ACTUAL", actual, "the actual outputs: a .npy file, a raw buffer, a case file, or a directory");
    diff->add_option("--output", output_files, "NAME=FILE: the actual values of output NAME (a single golden); repeatable");
    diff->add_option("--worst", dc.options.worst, "list the K worst elements per output (default 10)");
    diff->add_option("--json", json_file, "also write the JSON report to FILE");
    diff->add_option("--format", dc.format, "text (default) or json, on standard output")->check(CLI::IsMember({"text", "json"}));
    diff->add_option("--image", image, "picture of where each mismatching output differs (FILE.ppm or FILE.png)");
    diff->add_flag("--zeros-equal", dc.options.switches.zeros_equal, "treat +0 and -0 as equal");
    diff->add_flag("--any-nan", dc.options.switches.any_nan, "any NaN equals any NaN");
    diff->add_flag("--accept-flushed-subnormals", dc.options.switches.flushed_subnormals, "accept a zero where the golden is subnormal");
    diff->add_option("--max-bytes", dc.options.max_bytes, "largest file to read, in bytes (default 4 GiB)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    try {
        if (*run) return cmd_run(ro);
        if (*validate) return cmd_validate(vo);
        if (*diff) {
            dc.golden = golden;
            dc.actual = actual;
            dc.json_file = json_file;
            dc.image = image;
            for (const auto& o : output_files) {
                const size_t eq = o.find('=');
                if (eq == std::string::npos || eq == 0 || eq + 1 == o.size()) {
                    std::cerr << "dmlref diff: error: --output " << o << " is not NAME=FILE\n";
                    return 2;
                }
                dc.options.files[o.substr(0, eq)] = o.substr(eq + 1);
            }
            return run_diff(dc, std::cout, std::cerr);
        }
    } catch (const std::exception& e) {
        std::cerr << "dmlref: error: " << e.what() << "\n";
        return 2;
    }
    return 2;
}
