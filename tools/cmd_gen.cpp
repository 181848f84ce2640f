// dmlref gen: the cases of sweep specs (or one-line descriptors) written as golden case files,
// on every core, with the same bytes as one thread. docs/gen.md.
#include "cli.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/descriptor.hpp"
#include "dmlref/gen.hpp"
#include "dmlref/npy.hpp"

#include <atomic>
#include <map>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace dmlref::cli {

namespace {

struct GenOptions {
    std::vector<std::string> specs;
    std::string out_dir;
    std::string tier = "ci";
    std::string shard = "0/1";
    bool list = false;
    bool no_expected = false;
    bool overwrite = false;
    uint64_t npy_threshold = kDefaultNpyThreshold;
    unsigned jobs = 0;
    size_t max_cases = gen::Options{}.max_cases;
};

// Writes a made case as `target` (inside the output folder `root`): gen::write_case, never
// through a linked folder. The folder's lock is held from the check to the rename, so that of two
// gen writing one name at once (parallel shards), the second sees the first's file. `error` ends
// with its rule id.
bool write_file(const fs::path& root, const fs::path& target, const gen::Generated& g, uint64_t npy_threshold,
                bool overwrite, std::string& error) {
    if (!make_output_folder(root, target.parent_path(), error)) return false;
    try {
        if (gen::write_case(g, target, npy_threshold, overwrite)) return true;
        error = "exists with different contents (--overwrite replaces it) [file.write]";
    } catch (const WriteError& e) {
        error = "cannot be written: " + printable(e.what()) + " [" + e.rule() + "]";
    } catch (const NpyError& e) {
        error = "cannot write an output's .npy file beside it: " + printable(e.what()) + " [file.write]";
    }
    return false;
}

int cmd_gen(const GenOptions& o) {
    gen::Options go;
    const auto tier = gen::parse_tier(o.tier);
    if (!tier) {
        std::cerr << "dmlref gen: error: --tier is smoke, ci or full\n";
        return 2;
    }
    go.tier = *tier;
    uint64_t si = 0, sn = 0;
    char slash = 0;
    std::istringstream ss(o.shard);
    if (!(ss >> si >> slash >> sn) || slash != '/' || sn == 0 || si >= sn || !ss.eof()) {
        std::cerr << "dmlref gen: error: --shard is I/N with 0 <= I < N, e.g. 0/4\n";
        return 2;
    }
    go.shard_index = si;
    go.shard_count = sn;
    go.evaluate = !o.no_expected;
    go.golden_text = false;  // written from its case and outputs: gen::write_case
    go.max_cases = o.max_cases;
    if (!o.list && o.out_dir.empty()) {
        std::cerr << "dmlref gen: error: give -o DIR (or --list)\n";
        return 2;
    }

    // Plan every spec (a file, or a one-line descriptor), then take the shard.
    std::vector<gen::Planned> planned;
    std::map<std::string, std::string> made_by;  // case name -> the spec that gives it
    bool bad = false;
    for (const auto& s : o.specs) {
        Diagnostics d;
        std::error_code ec;
        std::vector<gen::Planned> p;
        if (!fs::exists(s, ec) && s.find(' ') != std::string::npos) {
            auto one = descriptor_to_planned(s, d);
            if (one) p.push_back(std::move(*one));
            print_diagnostics(d, "descriptor", std::cerr);
        } else {
            p = gen::plan_file(s, go, d);
            print_diagnostics(d, s, std::cerr);
        }
        bad = bad || d.has_errors();
        if (!bad && planned.size() + p.size() > go.max_cases) {
            std::cerr << s << ": /: error: the specs give " << planned.size() + p.size() << " cases, past the limit of "
                      << go.max_cases
                      << " (gen --max-cases; split the specs over several commands) [gen.too-many-cases]\n";
            return 2;
        }
        // Names are unique across the specs too: two cases of one name would write one file.
        for (const auto& c : p)
            if (auto [it, fresh] = made_by.emplace(c.name, s); !fresh && it->second != s) {
                std::cerr << shown(s) << ": /: error: the case " << printable(c.name) << " is also given by "
                          << shown(it->second) << "; one file cannot hold both [gen.duplicate-name]\n";
                bad = true;
            }
        planned.insert(planned.end(), p.begin(), p.end());
    }
    if (bad) return 2;
    planned = gen::shard(std::move(planned), go);
    if (o.list) {
        for (const auto& p : planned) std::cout << p.name << "\n";
        std::cout << planned.size() << " cases (tier " << o.tier << ", shard " << o.shard << ")\n";
        return 0;
    }

    // Make them on every core, each case written by the thread that made it and then dropped, so
    // that no more than one case per thread is held. The messages are kept by position and printed
    // in order, so that they and the bytes written do not depend on the number of threads.
    const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    struct Result {
        Diagnostics diags;
        bool made = false, written = false, error_case = false;
        std::string write_error;  // with the file it names
    };
    std::vector<Result> results(planned.size());
    std::atomic<size_t> next{0}, done{0};
    const bool tty = isatty(2);
    auto worker = [&] {
        for (size_t k; (k = next++) < planned.size();) {
            Result& r = results[k];
            if (auto made = gen::make_case(planned[k], go, r.diags)) {
                r.made = true;
                r.error_case = !made->expect_error.empty();
                const fs::path target = fs::path(o.out_dir) / (made->name + ".json");
                std::string error;
                r.written = write_file(o.out_dir, target, *made, o.npy_threshold, o.overwrite, error);
                if (!r.written) r.write_error = shown(target) + ": /: error: " + error;
            }
            ++done;
        }
    };
    std::vector<std::thread> pool;
    for (unsigned j = 1; j < std::min<size_t>(jobs, planned.size()); ++j) pool.emplace_back(worker);
    if (tty && planned.size() > 1) {
        std::thread progress([&] {
            while (done < planned.size()) {
                std::cerr << "\rgen: " << done << "/" << planned.size() << std::flush;
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            }
        });
        worker();
        for (auto& t : pool) t.join();
        progress.join();
        std::cerr << "\r\033[K";
    } else {
        worker();
        for (auto& t : pool) t.join();
    }

    size_t written = 0, errors = 0, error_cases = 0;
    for (size_t k = 0; k < planned.size(); ++k) {
        // A made case's problems are at its spec's nodes: name the spec file ("descriptor" for one).
        const std::string& by = made_by.at(planned[k].name);
        const Result& r = results[k];
        print_diagnostics(r.diags, planned[k].base_pointer.empty() ? std::string("descriptor") : by, std::cerr);
        if (!r.written) {
            if (!r.write_error.empty()) std::cerr << r.write_error << "\n";
            ++errors;
            continue;
        }
        ++written;
        error_cases += r.error_case;
    }
    std::cout << "dmlref gen: " << written << " cases (" << error_cases << " error cases) in " << o.out_dir << ", tier "
              << o.tier << (sn > 1 ? ", shard " + o.shard : std::string())
              << (errors ? ", " + std::to_string(errors) + " failed" : std::string()) << "\n";
    return errors ? 2 : 0;
}

}  // namespace

Command add_gen_command(CLI::App& app) {
    auto go = std::make_shared<GenOptions>();
    auto* g = app.add_subcommand("gen",
                                 "Generate cases (goldens) from sweep specs or one-line descriptors (docs/gen.md).");
    g->add_option("SPEC", go->specs,
                  "sweep spec files (JSON), or descriptors such as \"MAX_POOLING FLOAT32 1x1x5x5 w2x2\"")
        ->required();
    g->add_option("-o,--output", go->out_dir, "directory for the case files (DIR/<case name>.json)");
    g->add_option("--tier", go->tier, "smoke, ci (default) or full");
    g->add_option("--shard", go->shard, "I/N: only the cases at positions k with k % N == I");
    g->add_flag("--list", go->list, "print the case names, write nothing");
    g->add_flag("--no-expected", go->no_expected, "write the cases without evaluating them (no expected outputs)");
    g->add_flag("--overwrite", go->overwrite, "replace existing files whose contents differ");
    g->add_option("--npy-threshold", go->npy_threshold,
                  "outputs of more than N elements go to <golden>.<Output>.npy beside the golden, with a SHA-256 in "
                  "it, as run -o writes them (default 1048576; docs/case-format.md)")
        ->check(CLI::NonNegativeNumber);
    g->add_option("-j,--jobs", go->jobs, "threads (default: every core); the output is the same for any number");
    g->add_option("--max-cases", go->max_cases,
                  "the most cases the specs may give together (default 100000): more is an error, "
                  "found before any case is made")
        ->check(CLI::PositiveNumber);
    return {g, [go] { return cmd_gen(*go); }};
}

}  // namespace dmlref::cli
