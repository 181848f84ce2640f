// Known-deviation baselines for `dmlref diff` (docs/diff.md, "Baselines"): the failures of a
// run, per case, output and reading, written to a file; a later run is compared with it and
// reports new, known and fixed failures, failing only on new ones.
#pragma once

#include "dmlref/diff.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlref {

// One kind of failure: the over-tolerance elements of an output that follow `reading`
// ("ArgmaxNaN=NaNWins"; "none" for those that follow no known reading), a failed systematic
// check (reading "systematic", elements 0), or a case that could not be compared (output "",
// reading "error").
struct BaselineEntry {
    std::string Case;
    std::string Output;
    std::string Reading;
    uint64_t Elements = 0;
    bool operator==(const BaselineEntry&) const = default;
};

// A baseline file that cannot be used; the message names the file and the rule
// (baseline.read, baseline.format).
class BaselineError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::vector<BaselineEntry> baseline_entries(const DiffReport& r);
std::string baseline_json(const DiffReport& r);  // the file --write-baseline writes
std::vector<BaselineEntry> read_baseline(const std::filesystem::path& file);

struct BaselineComparison {
    std::vector<BaselineEntry> fresh;          // failures the baseline does not hold, or more elements than it holds
    std::vector<BaselineEntry> known;          // failures the baseline holds (at most as many elements)
    std::vector<BaselineEntry> fixed;          // baseline failures that are gone (Elements: the baseline's)
    std::vector<uint64_t> fresh_was;           // for each fresh entry, the baseline's elements (0: not in it)
    int exit_code(const DiffReport& r) const;  // 2 on an error, 1 on a new failure, else 0
};
BaselineComparison compare_baseline(const DiffReport& r, const std::vector<BaselineEntry>& baseline);
std::string baseline_text(const BaselineComparison& c, const std::filesystem::path& file);
// The comparison as a JSON object {"file", "new", "known", "fixed"} (text, ordered keys).
std::string baseline_comparison_json(const BaselineComparison& c, const std::filesystem::path& file);

}  // namespace dmlref
