// Generating golden test vectors at scale (docs/gen.md): sweep specs (a base case plus axes of
// overrides by JSON pointer, combined by product, zip and concat, with tiers and shards), output
// sizes derived from the desc ("auto"), and input recipes (exact dyadic data, planted ties, NaN
// placement, x at Min or Max, each type's special values, Random).
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/diagnostics.hpp"
#include "dmlref/json_document.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dmlref::gen {

// smoke < ci < full: a tier holds every case of the tiers below it (where a spec says so by
// "byTier"; a node without tiers gives the same cases in every tier).
enum class Tier { Smoke = 0, Ci = 1, Full = 2 };
std::optional<Tier> parse_tier(std::string_view s);
std::string_view tier_name(Tier t);

struct Options {
    Tier tier = Tier::Ci;
    uint64_t shard_index = 0;  // --shard I/N keeps the cases whose position k has k % N == I
    uint64_t shard_count = 1;
    bool evaluate = true;       // write goldens (expected outputs); false: the inputs only
    size_t max_cases = 100000;  // the most cases a spec (and one gen command) may plan: gen.too-many-cases
    // An evaluated golden's text (Generated::text, every output inline); false: only its case and
    // outputs, which write_case writes with its large outputs in .npy files beside it (gen -o).
    bool golden_text = true;
};

// One generated case.
struct Generated {
    std::string name;  // also its path under the output directory, without ".json"
    std::string description;
    std::string text;          // the case file's bytes (a golden: only with Options::golden_text)
    std::string expect_error;  // the rule an error case expects, or ""
    // An evaluated golden (Options::evaluate, no expectError): the case and its expected outputs.
    std::optional<Case> golden;
    Outputs outputs;
};

// A case of a sweep, named and with its overrides applied, before its derived fields, recipes
// and expected values are made.
struct Planned {
    std::string name;
    std::string description;     // what the case exercises (the variants' notes)
    std::string sweep_note;      // which sweep made it, written last
    uint64_t seed = 0;           // the case's seed (case_seed of the sweep's seed and the name)
    nlohmann::ordered_json doc;  // the case; numbers that are not integers as exact text (internal form)
    // Where the spec says each part of the case, so that a problem of the made case is reported
    // at the spec's node: the base's pointer, and each override's case pointer with the spec
    // pointer of its value. Empty for a descriptor's case (its pointers are the case's own).
    std::string base_pointer;
    std::vector<std::pair<std::string, std::string>> origins;
};

// Every case a spec gives at the options' tier, in the spec's order (shards are taken by
// `shard`). Problems go to `diags` with JSON pointers into the spec; `file` names it.
std::vector<Planned> plan_spec(const JsonDocument& spec, const Options& options, Diagnostics& diags);
std::vector<Planned> plan_file(const std::filesystem::path& spec, const Options& options, Diagnostics& diags);
// The cases of shard I of N: those at positions k with k % N == I.
std::vector<Planned> shard(std::vector<Planned> cases, const Options& options);

// Makes a planned case: derived fields, recipes, and (Options::evaluate) its expected outputs.
// A case that does not validate is a problem in `diags`, unless it states "expectError".
std::optional<Generated> make_case(const Planned& p, const Options& options, Diagnostics& diags);

// Writes a made case to `file`: a golden as `run -o` writes it (write_golden_files: each output of
// more than `npy_threshold` elements as a .npy file beside it, named with its SHA-256), else its
// text; under the folder's lock (dmlref/folder_lock.hpp), each file atomically, and the .npy files
// an earlier golden of this name named removed. The same bytes already there are left as they
// are; other bytes are replaced only with `overwrite`, else false is returned and nothing is
// written. Throws WriteError or NpyError.
bool write_case(const Generated& g, const std::filesystem::path& file, uint64_t npy_threshold, bool overwrite);

// Whether a case's diagnostics are exactly the error it expects: at least one error, every
// error names `rule`, and, when `path` is given, one of them is at `path`. `why` says what was
// found otherwise.
bool expect_error_met(const Diagnostics& diags, const std::string& rule, const std::string& path, std::string& why);

// pooled_size, a pooling output size along one dimension: reference/kit/family.hpp.

// A seed from a sweep seed and a case name (SplitMix64 over FNV-1a of the name).
uint64_t case_seed(uint64_t sweep_seed, std::string_view name);

}  // namespace dmlref::gen
