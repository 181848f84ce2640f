// dmlref run: evaluate cases, check them against the expected values they hold, and write golden
// case files (-o) and .npy files for harnesses (--npy inputs, --npy-outputs outputs). docs/cli.md.
#include "cli.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/descriptor.hpp"
#include "dmlref/gen.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <fstream>
#include <iostream>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <unistd.h>

namespace dmlref::cli {

namespace {

// For harnesses: DIR/<Field>.npy for the tensors of one role. Inputs are their whole buffer in
// memory order (1-D, TotalTensorSizeInBytes / element size elements, as bound); outputs are the
// computed logical elements in the output's Sizes. Inputs and outputs go to separate directories
// (--npy, --npy-outputs), so a harness that skips a case finds no outputs there to pass with.
// Returns the number of files not written.
size_t write_npy_files(const Case& c, const Outputs& outputs, const fs::path& root, const fs::path& dir,
                       TensorRole role) {
    std::string error;
    if (!make_output_folder(root, dir, error)) {
        std::cerr << shown(dir) << ": /: error: " << error << "\n";
        return 1;
    }
    size_t failures = 0;
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != role) continue;
        const DataType t = f.desc->DataType;
        const auto& data = f.role == TensorRole::Input ? c.inputs.at(std::string(f.name))
                                                       : outputs.values.at(std::string(f.name));
        const std::vector<uint64_t> shape = f.role == TensorRole::Input
                                                ? std::vector<uint64_t>{data.size() / element_size(t)}
                                                : std::vector<uint64_t>(f.desc->Sizes.begin(), f.desc->Sizes.end());
        const fs::path file = dir / (std::string(f.name) + ".npy");
        try {
            write_npy(file, t, shape, data);  // from the buffer, no copy
        } catch (const NpyError& e) {
            std::cerr << shown(file) << ": /: error: " << printable(e.what()) << " [file.write]\n";
            ++failures;
        }
    }
    return failures;
}

// An error case ("expectError", docs/case-format.md): PASS when its diagnostics are exactly the
// error it expects; with -o its file is copied unchanged (it has no outputs).
bool run_error_case(const Case& c, const Diagnostics& diags, const Input& in, const std::string& out_dir,
                    const std::string& counter) {
    std::string why;
    const bool ok = gen::expect_error_met(diags, c.expect_error, c.expect_error_path, why);
    std::cout << counter << " " << (ok ? "PASS" : "FAIL") << "  " << pad(printable(c.name), 44) << " expects ["
              << c.expect_error << "]\n";
    if (!ok) {
        std::cout << "      " << why << "\n";
        print_diagnostics(diags, in.file.string(), std::cout);
    }
    if (ok && !out_dir.empty()) {
        const fs::path target = fs::path(out_dir) / in.relative;
        std::string folder_error;
        if (!make_output_folder(out_dir, target.parent_path(), folder_error)) {
            std::cerr << shown(target) << ": /: error: cannot write the case file: " << folder_error << "\n";
            return false;
        }
        if (fs::absolute(target) != fs::absolute(in.file)) {
            try {
                std::ifstream f(in.file, std::ios::binary);
                const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
                if (!f && !f.eof()) throw WriteError("file.read", "cannot read " + in.file.string());
                write_file_atomic(target, text);
            } catch (const WriteError& e) {
                std::cerr << shown(target) << ": /: error: cannot write the case file: " << printable(e.what()) << " ["
                          << e.rule() << "]\n";
                return false;
            }
        }
    }
    return ok;
}

// A one-line descriptor given instead of a file (docs/gen.md): made into a case file under `dir`.
// Returns the file, or "" after printing why not.
std::string descriptor_case(const std::string& text, const fs::path& dir) {
    Diagnostics d;
    std::optional<gen::Generated> g;
    gen::Options go;
    go.evaluate = false;
    if (auto p = descriptor_to_planned(text, d)) g = gen::make_case(*p, go, d);
    print_diagnostics(d, "descriptor", std::cerr);
    if (!g) return "";
    const fs::path file = dir / (fs::path(g->name).filename().string() + ".json");
    std::error_code ec;
    fs::create_directories(dir, ec);
    try {
        write_file_atomic(file, g->text);  // whole or not at all, never through a link
    } catch (const WriteError& e) {
        std::cerr << shown(file) << ": /: error: cannot write the case: " << printable(e.what()) << " [" << e.rule()
                  << "]\n";
        return "";
    }
    return file.string();
}

// Cases are read and evaluated ahead of the report on every core, `jobs` cases at a time; the
// report is printed in order, so its bytes do not depend on the number of threads.
struct Prepared {
    Diagnostics diags;
    Case c;
    std::optional<Outputs> outputs;  // when the case read without errors and has no expectError
    std::string failure;             // what evaluation threw
};

// With `progress`, a case of long work shows itself on the terminal while it runs (the line is
// overwritten by the next and cleared by the caller).
// Expected outputs in .npy files are read after evaluating (LoadOptions::defer_expected_npy), and
// unless `keep_inputs` (-o and --npy use them) the inputs are freed first: inputs, outputs and
// expected values are never all held at once.
void prepare(const std::vector<Input>& inputs, size_t first, const LoadOptions& lo, unsigned jobs, bool progress,
             bool keep_inputs, const std::map<std::string, std::string>& policies, std::vector<Prepared>& out) {
    out.assign(std::min<size_t>(jobs, inputs.size() - first), Prepared{});
    std::atomic<size_t> next{0};
    std::mutex terminal;
    auto work = [&] {
        for (size_t i; (i = next++) < out.size();) {
            Prepared& p = out[i];
            p.c = load(inputs[first + i].file, lo, p.diags);
            if (p.diags.has_errors() || !p.c.expect_error.empty()) {
                read_deferred_expected(p.c, p.diags);
                continue;
            }
            for (const auto& [name, value] : policies) p.c.policies[name] = value;  // --policy (docs/cli.md)
            if (const uint64_t w = work_estimate(p.c.op); progress && w > (uint64_t(1) << 26)) {
                std::lock_guard lock(terminal);
                std::cerr << "\r\x1b[K[" << first + i + 1 << "/" << inputs.size() << "] running " << printable(p.c.name)
                          << ": about " << w << " element reads and writes..." << std::flush;
            }
            try {
                p.outputs = run_case(p.c);
            } catch (const std::exception& e) {
                p.failure = e.what();
            }
            if (!keep_inputs && !p.c.deferred_expected.empty()) p.c.inputs.clear();
            read_deferred_expected(p.c, p.diags);
        }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < out.size(); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
}

struct RunOptions {
    std::vector<std::string> paths;
    std::string out_dir;
    std::string npy_dir;          // input buffers
    std::string npy_outputs_dir;  // computed outputs
    LoadOptions load;
    uint64_t npy_threshold = kDefaultNpyThreshold;
    bool overwrite_expected = false;
    bool quiet = false;
    unsigned jobs = 0;
    std::vector<std::string> policy;  // --policy NAME=VALUE, repeatable
};

// The first kShownValues logical elements of each output, as `run` shows a case with no expected
// values (a one-line descriptor's): its values and their bits.
constexpr uint64_t kShownValues = 16;
void print_first_values(const Case& c, const Outputs& outputs) {
    for (const auto& f : tensor_fields(c.op)) {
        const auto it = outputs.values.find(std::string(f.name));
        if (it == outputs.values.end() || !f.desc) continue;
        const DataType t = f.desc->DataType;
        const uint64_t size = element_size(t), n = size ? it->second.size() / size : 0;
        std::cout << "      " << f.name << ":";
        for (uint64_t i = 0; i < n && i < kShownValues; ++i) {
            const uint64_t bits = load_bits(t, it->second.data() + i * size);
            std::cout << " " << display_value(t, bits);
        }
        if (n > kShownValues) std::cout << " ... (" << n << " elements; -o DIR writes them all)";
        std::cout << "\n";
    }
}

int cmd_run(const RunOptions& o) {
    auto same_dir = [](const std::string& a, const std::string& b) {
        auto norm = [](const std::string& p) {
            std::string s = fs::weakly_canonical(fs::absolute(p)).string();
            while (s.size() > 1 && s.back() == '/') s.pop_back();
            return s;
        };
        return norm(a) == norm(b);
    };
    if (!o.npy_dir.empty() && !o.npy_outputs_dir.empty() && same_dir(o.npy_dir, o.npy_outputs_dir)) {
        std::cerr
            << "dmlref run: error: --npy and --npy-outputs name the same directory; dmlref's outputs beside the inputs "
               "would let a harness that skips a case diff dmlref against itself and pass (docs/cli.md)\n";
        return 2;
    }
    std::map<std::string, std::string> policies;  // --policy: alternative readings (docs/golden.md)
    for (const auto& text : o.policy) {
        Diagnostics d;
        if (auto p = parse_policy_option(text, d); p && !policies.emplace(p->first, p->second).second)
            d.error("", "policy.twice", p->first + " is given twice: one reading per policy in a run (docs/cli.md)");
        for (const auto& item : d.items()) std::cerr << format(item, "--policy") << "\n";
        if (d.has_errors()) return 2;
    }
    std::vector<std::string> args = o.paths;
    if (args.empty()) {
        // The bundled corpus: ./cases when run from a checkout, else the one this build came from.
        args.push_back(fs::is_directory("cases") ? "cases" : DMLREF_SOURCE_CASES);
    }
    std::vector<std::string> problems;
    const fs::path descriptor_dir = fs::temp_directory_path() / ("dmlref-descriptors-" + std::to_string(::getpid()));
    for (auto& a : args) {
        std::error_code ec;
        if (fs::exists(a, ec) || a.find(' ') == std::string::npos) continue;
        a = descriptor_case(a, descriptor_dir);
        if (a.empty())
            problems.push_back("descriptor: /: error: the descriptor cannot be made into a case [descriptor.syntax]");
    }
    std::erase(args, std::string());
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code ec;
            fs::remove_all(p, ec);
        }
    } cleanup{descriptor_dir};
    auto inputs = collect(args, problems);
    if (!o.out_dir.empty() || !o.npy_dir.empty() || !o.npy_outputs_dir.empty())
        drop_colliding_outputs(inputs, problems);
    for (const auto& p : problems) std::cerr << p << "\n";
    const bool progress = ::isatty(STDERR_FILENO) && !o.quiet;
    LoadOptions lo = o.load;
    lo.progress = !o.quiet;
    lo.defer_expected_npy = true;
    size_t passed = 0, failed = 0, fresh = 0, errors = problems.size();
    const size_t width = std::to_string(inputs.size()).size();
    std::cout << "dmlref " << dmlref_version() << ": running " << inputs.size() << " case"
              << (inputs.size() == 1 ? "" : "s") << "\n";
    const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    std::vector<Prepared> prepared;
    for (size_t k = 0; k < inputs.size(); ++k) {
        const auto& in = inputs[k];
        std::string counter = std::to_string(k + 1);
        counter = "[" + std::string(width - counter.size(), ' ') + counter + "/" + std::to_string(inputs.size()) + "]";
        if (k % jobs == 0) {
            prepare(inputs, k, lo, jobs, progress, !o.out_dir.empty() || !o.npy_dir.empty(), policies, prepared);
            if (progress) std::cerr << "\r\x1b[K" << std::flush;
        }
        Prepared& pr = prepared[k % jobs];
        Diagnostics& diags = pr.diags;
        Case& c = pr.c;
        if (!c.expect_error.empty()) {  // an error case: passes when reading fails with exactly its rule
            if (run_error_case(c, diags, in, o.out_dir, counter)) ++passed;
            else ++failed;
            continue;
        }
        if (diags.has_errors()) {
            ++errors;
            std::cout << counter << " ERROR " << shown(in.file) << "\n";
            print_diagnostics(diags, in.file.string(), std::cerr);
            continue;
        }
        if (!o.quiet) print_diagnostics(diags, in.file.string(), std::cerr);
        if (!pr.outputs) {
            ++errors;
            std::cout << counter << " ERROR " << shown(in.file) << "\n";
            std::cerr << shown(in.file) << ": /: error: evaluation failed: " << printable(pr.failure)
                      << " [evaluate]\n";
            continue;
        }
        Outputs outputs = std::move(*pr.outputs);
        const auto mismatches = compare_expected(c, outputs);
        std::string status = c.expected.empty() ? "NEW " : mismatches.empty() ? "PASS" : "FAIL";
        std::cout << counter << " " << status << "  " << pad(printable(c.name), 44) << " "
                  << pad(std::string(info(c.op.Type).Name), 24) << " " << shape_text(c) << "\n";
        if (!mismatches.empty()) {
            ++failed;
            std::cout << "      " << mismatches.size() << " element" << (mismatches.size() == 1 ? "" : "s")
                      << " differ from the case's expected values:\n";
            std::cout << "      " << pad("output", 22) << pad("index", 14) << pad("expected", 28) << "computed\n";
            for (size_t i = 0; i < mismatches.size() && i < 8; ++i) {
                const auto& m = mismatches[i];
                const TensorDesc* d = nullptr;
                for (const auto& f : tensor_fields(c.op))
                    if (f.name == m.output) d = f.desc;
                const DataType t = d->DataType;
                std::cout << "      " << pad(m.output, 22) << pad(nd_index(d->Sizes, m.index), 14)
                          << pad(display_value(t, m.expected_bits) + " " + hex_bits(t, m.expected_bits), 28)
                          << display_value(t, m.actual_bits) << " " << hex_bits(t, m.actual_bits) << "\n";
            }
            if (mismatches.size() > 8) std::cout << "      ... and " << mismatches.size() - 8 << " more\n";
            std::string why;  // the one-line reproducer (docs/gen.md, "Descriptors")
            const std::string descriptor = case_descriptor(c, why);
            if (!descriptor.empty())
                std::cout << "      reproducer: dmlref run \"" << descriptor << "\""
                          << (why.empty() ? "" : "  (inputs: the case file's)") << "\n";
        } else if (c.expected.empty()) {
            ++fresh;
            // A case with no expected values (a descriptor's): its first values, to read at once.
            if (!o.quiet && o.out_dir.empty()) print_first_values(c, outputs);
        } else ++passed;
        if (!o.out_dir.empty() && (mismatches.empty() || o.overwrite_expected)) {
            const fs::path target = fs::path(o.out_dir) / in.relative;
            std::string folder_error;
            if (!make_output_folder(o.out_dir, target.parent_path(), folder_error)) {
                ++errors;
                std::cerr << shown(target) << ": /: error: cannot write the golden file: " << folder_error << "\n";
            } else try {
                    write_golden_files(c, outputs, target, o.npy_threshold);
                } catch (const WriteError& e) {
                    ++errors;
                    std::cerr << shown(target) << ": /: error: cannot write the golden file: " << printable(e.what())
                              << " [" << e.rule() << "]\n";
                } catch (const NpyError& e) {
                    ++errors;
                    std::cerr << shown(target) << ": /: error: cannot write an output's .npy file beside the golden: "
                              << printable(e.what()) << " [file.write]\n";
                } catch (const std::exception&) {
                    ++errors;
                    std::cerr
                        << shown(target)
                        << ": /: error: cannot write the golden file: an internal error; please report it [internal.error]\n";
                }
        }
        const fs::path case_dir = fs::path(in.relative).replace_extension("");
        if (!o.npy_dir.empty())
            errors += write_npy_files(c, outputs, o.npy_dir, fs::path(o.npy_dir) / case_dir, TensorRole::Input);
        if (!o.npy_outputs_dir.empty())
            errors += write_npy_files(c, outputs, o.npy_outputs_dir, fs::path(o.npy_outputs_dir) / case_dir,
                                      TensorRole::Output);
    }
    std::cout << inputs.size() << " cases: " << passed << " passed, " << failed << " failed, " << fresh
              << " new (no expected values), " << errors << " errors";
    if (!o.out_dir.empty()) std::cout << "; goldens in " << o.out_dir;
    std::cout << "\n";
    if (errors) return 2;
    return failed ? 1 : 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
    auto ro = std::make_shared<RunOptions>();
    auto* run = app.add_subcommand(
        "run", "Evaluate cases; with -o, write golden case files. With no CASE, runs the bundled cases/.");
    run->add_option("CASE", ro->paths, "case files or directories (searched for *.json)");
    run->add_option("-o,--output", ro->out_dir,
                    "directory for the golden case files (mirrors the layout under a directory argument)");
    add_load_options(*run, ro->load);
    run->add_option("--npy", ro->npy_dir,
                    "also write DIR/<case>/<InputField>.npy: each input's buffer (1-D, memory order), for harnesses");
    run->add_option(
        "--npy-outputs", ro->npy_outputs_dir,
        "also write DIR/<case>/<OutputField>.npy: dmlref's computed outputs (their Sizes); never the --npy directory");
    run->add_option(
           "--npy-threshold", ro->npy_threshold,
           "with -o, outputs of more than N elements go to <golden>.<Output>.npy beside the golden, with a SHA-256 in it "
           "(default 1048576; docs/case-format.md)")
        ->check(CLI::NonNegativeNumber);
    run->add_flag("--overwrite-expected", ro->overwrite_expected,
                  "write goldens even for cases whose expected values differ");
    run->add_flag("-q,--quiet", ro->quiet, "do not print warnings");
    run->add_option("--policy", ro->policy,
                    "NAME=VALUE: evaluate under an alternative reading of a policy (docs/golden.md); repeatable");
    run->add_option(
        "-j,--jobs", ro->jobs,
        "threads that read and evaluate cases (default: every core); the report is the same for any number");
    return {run, [ro] { return cmd_run(*ro); }};
}

}  // namespace dmlref::cli
