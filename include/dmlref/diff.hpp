// `dmlref diff GOLDEN ACTUAL`: a backend's outputs against golden case files, under the
// tolerance model (dmlref/tolerance.hpp), with a census per output (docs/diff.md).
//
// ACTUAL is, per output tensor, a .npy file (logical elements, shape = Sizes), a raw buffer
// (any other extension: the output's buffer as a backend dumps it, read with its DataType,
// Sizes, Strides and TotalTensorSizeInBytes), or a case file (.json) whose "expected" holds
// the outputs. How names map to outputs is in docs/diff.md.
#pragma once

#include "dmlref/bound.hpp"
#include "dmlref/case.hpp"
#include "dmlref/tolerance.hpp"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlref {

// A file that cannot be used, with the file named in the message.
class DiffError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct DiffOptions {
    DiffSwitches switches;
    ArithmeticProfile profile;                           // how a conforming backend may compute (dmlref/bound.hpp)
    double false_alarm = 1e-6;                           // of the systematic-error check
    size_t worst = 10;                                   // elements listed per output
    uint64_t max_bytes = uint64_t(4) << 30;              // per file read
    std::map<std::string, std::filesystem::path> files;  // --output NAME=FILE (single golden only)
    // Directory mode: called before each case (its index from 0, the number of cases, its name),
    // and once more with index == count when all are done. The CLI shows a progress line with it.
    std::function<void(size_t index, size_t count, const std::string& name)> progress;
};

// Histogram of ULP distances: 0, 1, 2, 3-4, 5-8, ..., (2^(k-1), 2^k], > 2^k, non-comparable.
inline constexpr int kHistogramTopPower = 20;
inline constexpr size_t kHistogramBins = 3 + (kHistogramTopPower - 1) + 1 + 1;
size_t histogram_bin(bool comparable, uint64_t distance);
std::string histogram_label(size_t bin);  // "0", "1", "2", "3-4", "5-8", ..., ">1048576", "non-comparable"

struct WorstElement {
    uint64_t index = 0;                // flat logical index
    std::vector<uint64_t> coordinate;  // N-d index
    uint64_t golden_bits = 0, actual_bits = 0;
    Judgement judgement;
    std::string boundary;  // the boundary reason, if the element is flagged
    // Summed elements with a bound from their terms (bound >= 0):
    uint32_t terms = 0;  // n
    double abs_sum = 0;  // the sum of |t|
    double bound = -1;   // the most |actual - golden| may be
    double error = 0;    // |actual - golden| (rounded to nearest)
    double ratio = 0;    // error / bound (infinite for an error over a zero bound)
};

struct BoundaryCount {
    uint64_t elements = 0;  // flagged elements compared
    uint64_t over = 0;      // of them, over tolerance
};

struct OutputCensus {
    std::string output;  // the output field (OutputGradientTensor)
    std::string source;  // the file the actual values came from
    DataType data_type = DataType::UNKNOWN;
    std::vector<uint32_t> sizes;
    Tolerance tolerance;    // as the golden states it
    uint64_t elements = 0;  // logical elements, skipped ones included
    uint64_t identical = 0, within = 0, over = 0;
    uint64_t nonfinite_mismatches = 0;              // over tolerance with a NaN or infinity on either side
    uint64_t flushed_subnormals = 0;                // within only because of --accept-flushed-subnormals
    std::map<std::string, uint64_t> skipped;        // don't-care elements by reason
    std::map<std::string, BoundaryCount> boundary;  // flagged elements by reason
    std::vector<uint64_t> histogram = std::vector<uint64_t>(kHistogramBins);
    // Summed outputs whose terms dmlref enumerates (dmlref/bound.hpp):
    bool bounded = false;  // each element judged by its bound from its own terms
    ArithmeticProfile profile;
    uint64_t summed_elements = 0;  // elements with a non-zero bound
    uint64_t admissible = 0;       // elements on an admissible reading (a term may land elsewhere)
    uint64_t lost_readings = 0;    // groups of linked elements whose total lost a term (members over)
    double worst_ratio = 0;        // the largest error / bound over finite elements with a non-zero bound
    double detection_limit = 0;    // the largest 2 * bound: a term larger than this is never hidden
    double detection_limit_relative =
        0;                            // the largest 2 * bound / sum |t|: the same, relative to the element's sum |t|
    SystematicCheck systematic;       // the whole-tensor check for systematic error
    std::vector<WorstElement> worst;  // worst first: over before within, then by error / bound, then by distance
    std::vector<Verdict> verdicts;    // per logical element, for the picture
    // Over-tolerance elements that follow each alternative reading ("ArgmaxNaN=NaNWins", docs/golden.md),
    // then "" for those that follow none; empty when nothing is over (dmlref/readings.hpp).
    std::vector<std::pair<std::string, uint64_t>> readings;
    bool passed() const { return over == 0 && systematic.passed(); }
};

struct CaseDiff {
    std::filesystem::path golden;
    std::string name;
    std::string op;                   // DML_OPERATOR_...
    std::vector<std::string> errors;  // "FILE: what is wrong"; the case then counts as an error
    std::vector<OutputCensus> outputs;
    enum class Status { Pass, Fail, Error };
    Status status() const;
};

struct DiffReport {
    DiffSwitches switches;
    ArithmeticProfile profile;
    std::vector<CaseDiff> cases;
    bool directory_mode = false;
    int exit_code() const;  // 0 every case passes, 1 some output mismatches, 2 some error
};

// One golden against its actual outputs. Errors (unreadable, wrong shape, wrong dtype,
// truncated) are recorded in the result, never thrown.
CaseDiff diff_case(const std::filesystem::path& golden, const std::filesystem::path& actual,
                   const DiffOptions& options);
// GOLDEN a file or a directory (then ACTUAL is a directory, matched by relative path).
DiffReport diff(const std::filesystem::path& golden, const std::filesystem::path& actual, const DiffOptions& options);

// The census of one output: its golden (from the case) against actual logical elements.
OutputCensus census(const Case& golden, std::string_view output, const std::vector<std::byte>& actual,
                    const DiffOptions& options);

// Reading actual values (logical elements, packed row-major) for an output desc.
std::vector<std::byte> read_actual_npy(const std::filesystem::path& file, const TensorDesc& d, uint64_t max_bytes);
std::vector<std::byte> read_actual_raw(const std::filesystem::path& file, const TensorDesc& d, uint64_t max_bytes);

std::string report_text(const DiffReport& r);
std::string report_json(const DiffReport& r);

// The picture of where an output mismatches (PPM P6, or PNG by the file's extension).
void write_mismatch_image(const OutputCensus& c, const std::filesystem::path& file);

// What the command line asks for; run_diff does everything and returns the exit code.
struct DiffCommand {
    std::filesystem::path golden;
    std::filesystem::path actual;  // may be empty when options.files names every output
    DiffOptions options;
    std::string format = "text";           // "text" or "json" (to standard output)
    std::filesystem::path json_file;       // also write the JSON report here
    std::filesystem::path image;           // picture of each mismatching output (single golden only)
    std::filesystem::path baseline;        // --baseline: known deviations; fail only on new ones (dmlref/baseline.hpp)
    std::filesystem::path write_baseline;  // --write-baseline: this run's failures as a baseline
};
int run_diff(const DiffCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace dmlref
