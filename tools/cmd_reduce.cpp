// dmlref reduce: shrink a case on which a backend command fails to a small reproducer
// (docs/reduce.md; the search itself is lib/judge/reduce.cpp). This file runs the command.
#include "backend.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/reduce.hpp"

#include <iostream>
#include <memory>
#include <unistd.h>

namespace dmlref::cli {

namespace {

struct ReduceCmdOptions {
    std::string golden, backend, out, work;
    size_t max_runs = 1000;
    double timeout = 600;  // seconds per backend run
    uint64_t max_bytes = uint64_t(4) << 30;
    bool quiet = false;
    bool overwrite = false;
};

// The contract (docs/reduce.md, tools/backend.hpp): `CMD CASE OUTDIR` through the shell, with
// DMLREF_INPUTS naming a directory of the inputs' buffers as .npy; the command writes
// OUTDIR/<OutputField>.npy.
struct CommandBackend {
    std::string command;
    fs::path work;
    uint64_t max_bytes;
    double timeout;
    size_t calls = 0;
    std::optional<std::map<std::string, std::vector<std::byte>>> operator()(const Case& c) {
        const fs::path dir = work / std::to_string(++calls);
        const BackendRun run = run_backend(command, c, dir, timeout);
        std::optional<std::map<std::string, std::vector<std::byte>>> outputs;
        if (run.status == 0) {
            outputs.emplace();
            for (const auto& f : tensor_fields(c.op)) {
                if (f.role != TensorRole::Output) continue;
                try {
                    (*outputs)[std::string(f.name)] = read_actual_npy(run.out / (std::string(f.name) + ".npy"), *f.desc,
                                                                      max_bytes);
                } catch (const DiffError&) {
                    outputs.reset();
                    break;
                }
            }
        }
        if (calls == 1 && !outputs)  // the original: keep the evidence
            std::cerr << "dmlref reduce: the backend command failed on the original case ("
                      << (run.timed_out ? "killed after --timeout " + std::to_string(timeout) + " s"
                                        : "exit " + std::to_string(run.status))
                      << "); its output:\n"
                      << log_excerpt(run.log) << "\n";
        std::error_code ec;
        fs::remove_all(dir, ec);
        return outputs;
    }
};

std::string summary(const Case& c) {
    std::string s;
    for (const auto& f : tensor_fields(c.op))
        s += "  " + pad(std::string(f.name), 22) + std::string(name(f.desc->DataType)) + " " +
             sizes_text(f.desc->Sizes) + (f.desc->Strides.empty() ? "" : " Strides " + sizes_text(f.desc->Strides)) +
             "\n";
    const json j = json::parse(case_text(c));
    std::string rest;
    for (const auto& [k, v] : j["desc"].items())
        if (!(v.is_object() && v.contains("Sizes"))) rest += (rest.empty() ? "" : ", ") + k + " " + v.dump();
    if (!rest.empty()) s += "  " + rest + "\n";
    return s;
}

int cmd_reduce(const ReduceCmdOptions& o) {
    Diagnostics diags;
    Case c = load(o.golden, o.max_bytes, diags);
    print_diagnostics(diags, o.golden, std::cerr);
    if (diags.has_errors()) return 2;
    const fs::path out = o.out.empty() ? fs::path(fs::path(o.golden).stem().string() + ".reduced.json")
                                       : fs::path(o.out);
    if (fs::exists(out) && !o.overwrite) {
        std::cerr << out.string()
                  << ": /: error: the file exists; dmlref does not overwrite it without --overwrite [file.write]\n";
        return 2;
    }
    // A directory of its own (removed at the end), inside --work or the temporary directory.
    const fs::path work = (o.work.empty() ? fs::temp_directory_path() : fs::path(o.work)) /
                          ("dmlref-reduce-" + std::to_string(getpid()));
    CommandBackend backend{o.backend, work, o.max_bytes, o.timeout};
    ReduceOptions ro;
    ro.max_runs = o.max_runs;
    if (!o.quiet) ro.progress = [](const std::string& line) { std::cout << "  " << line << "\n" << std::flush; };
    std::cout << "dmlref reduce: " << c.name << " (" << info(c.op.Type).Name << "), backend: " << o.backend << "\n";
    ReduceResult r;
    try {
        r = reduce(c, std::ref(backend), ro);
    } catch (const NothingToReduce& e) {  // a correct backend: exit 1, nothing written
        std::error_code ec;
        fs::remove_all(work, ec);
        std::cerr << "dmlref reduce: " << e.what() << "\n";
        return 1;
    } catch (const BackendFailed& e) {  // no outputs to judge: an error, never a pass
        std::error_code ec;
        fs::remove_all(work, ec);
        std::cerr << "dmlref reduce: error: " << e.what() << " [reduce.backend]\n";
        return 2;
    }
    std::error_code ec;
    fs::remove_all(work, ec);
    Case& reduced = r.reduced;
    reduced.name = c.name + "/reduced";
    reduced.description = "Reduced by dmlref reduce from " + fs::path(o.golden).filename().string() +
                          ": the backend's " + r.kind.output + " still differs (" + r.kind.klass + ") after " +
                          std::to_string(r.accepted) + " steps (docs/reduce.md).";
    try {
        write_file_atomic(out, write_golden(reduced, run_case(reduced), out));  // whole or not at all
    } catch (const WriteError& e) {
        std::cerr << shown(out) << ": /: error: cannot write the reduced case: " << printable(e.what()) << " ["
                  << e.rule() << "]\n";
        return 2;
    }
    std::cout << "kept failure: " << r.kind.output << " " << r.kind.klass << "; " << r.elements_before << " -> "
              << r.elements_after << " elements in " << r.runs << " backend runs (" << r.accepted << " steps)\n"
              << reduced.name << "\n"
              << summary(reduced) << "wrote " << out.string() << "\n";
    return 0;
}

}  // namespace

Command add_reduce_command(CLI::App& app) {
    auto o = std::make_shared<ReduceCmdOptions>();
    auto* cmd = app.add_subcommand(
        "reduce",
        "Shrink a case on which a backend fails to a small case on which it fails the same way (docs/reduce.md).");
    cmd->add_option("GOLDEN", o->golden, "the failing case (a golden or a plain case)")->required();
    cmd->add_option("--backend", o->backend,
                    "the command: run as `CMD CASE.json OUTDIR`, it writes OUTDIR/<OutputField>.npy")
        ->required();
    cmd->add_option(
        "-o,--output", o->out,
        "the reduced golden to write (default: GOLDEN's name with .reduced.json, here); an existing one only "
        "with --overwrite");
    cmd->add_flag("--overwrite", o->overwrite,
                  "replace an existing reduced golden (written whole, through a temporary)");
    cmd->add_option("--max-runs", o->max_runs, "backend runs at most (default 1000)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--timeout", o->timeout,
                    "seconds one backend run may take (default 600); then its process group is killed, "
                    "and the run counts as not reproducing (on the original case: an error)")
        ->check(CLI::PositiveNumber);
    cmd->add_option(
        "--work", o->work,
        "where to make the candidates' directory (default: the temporary directory); it is removed at the end");
    cmd->add_option("--max-bytes", o->max_bytes, "largest buffer a case may allocate, in bytes (default 4 GiB)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("-q,--quiet", o->quiet, "no line per step");
    return {cmd, [o] { return cmd_reduce(*o); }};
}

}  // namespace dmlref::cli
