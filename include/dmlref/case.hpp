// The JSON case format, version 1 (docs/case-format.md): an operator, its desc, the input
// buffers, and optionally the expected outputs with their tolerance, policies and provenance.
#pragma once

#include "dmlref/diagnostics.hpp"
#include "dmlref/operators.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmlref {

// JSON values are declared only (nlohmann/json_fwd.hpp): the evaluators, fast paths and records
// that include this header never parse nlohmann/json.hpp. A file that reads, writes or destroys
// them (a Case's input_specs among them) includes dmlref/json_document.hpp.
using json = nlohmann::json;
struct JsonDocument;

inline constexpr int kCaseFormatVersion = 1;
std::string_view dmlref_version();

// An element of an expected output that any value matches, and why (docs/golden.md, Decisions).
struct DontCare {
    uint64_t Index;      // flat logical (row-major) index
    std::string Reason;  // the decision that makes it undefined
};

// How far a backend's value may be from the golden one (docs/tolerance.md).
struct Tolerance {
    // "Bits": bit for bit. "Ulp": within Ulp units in the last place. "Summed": an exact sum of
    // up to MaxTerms terms rounded once; a backend summing in its own order and precision may
    // differ by a bound that grows with the element's number of terms (docs/tolerance.md).
    std::string Kind = "Bits";
    uint64_t Ulp = 0;
    uint64_t MaxTerms = 0;
    // "Summed" only, optional: each element's number of terms (logical row-major order), for a
    // per-element bound. Written when the operator states it (the resample family).
    std::vector<uint32_t> Terms;
    std::string Why;  // the reason, for people
    bool operator==(const Tolerance&) const = default;
};

// Elements on a decision boundary (docs/tolerance.md): their golden value follows dmlref's
// decision, and a correct backend may pick differently there (a nearest-neighbour coordinate
// within the coordinate arithmetic's error bound of an integer; docs/tolerance.md). They are compared
// like any other element; a diff reports them apart.
struct Boundary {
    std::vector<uint64_t> Indices;  // flat logical (row-major) indices, increasing
    std::string Reason;
    bool operator==(const Boundary&) const = default;
};

struct ExpectedOutput {
    std::vector<std::byte> values;  // logical elements, packed row-major, in the tensor's DataType
    Tolerance tolerance;
    std::vector<DontCare> dont_care;
    Boundary boundary;
};

struct Case {
    std::filesystem::path file;  // where it was read from ("" when built in memory)
    std::string name;
    std::string description;
    Operator op;
    // Input buffers by tensor field, TotalTensorSizeInBytes (or DMLCalcBufferTensorSize) long.
    std::map<std::string, std::vector<std::byte>> inputs;
    // How each input was given, canonicalised, to write back (generators stay generators).
    std::map<std::string, json> input_specs;
    // Output field -> input field whose buffer it is bound to (in-place execution).
    std::map<std::string, std::string> in_place;
    std::map<std::string, ExpectedOutput> expected;
    std::vector<uint64_t> seeds;  // of the Random inputs, for provenance
    // Alternative readings the case is evaluated under (policy -> value; docs/golden.md,
    // "Alternative readings"): from its "policies" where they name one, or `run --policy`.
    std::map<std::string, std::string> policies;
    // "readings": the alternatives ("Policy=Value") whose values the golden shows beside
    // dmlref's, for a spec owner (docs/case-format.md, "Readings"); run computes them.
    std::vector<std::string> readings;
    // Desc fields other than tensor descs as the author wrote them ({"UInt16": 15360}, "0x3c00",
    // short enum names), with the canonical text of the value they were read as. A golden writes
    // `written` while the field still has that value (docs/case-format.md, "Notation").
    struct Notation {
        std::string written;    // JSON text (keys in the author's order)
        std::string canonical;  // JSON text
    };
    std::map<std::string, Notation> desc_notation;
    // "expectError": an error case (docs/case-format.md) passes only when reading it fails with
    // exactly this rule id (at this JSON pointer, when given).
    std::string expect_error;
    std::string expect_error_path;
    // Expected outputs in .npy files not read yet (LoadOptions::defer_expected_npy): their values
    // are empty until read_deferred_expected.
    struct DeferredExpected {
        std::string output;
        std::filesystem::path file;
        std::string sha256;
        std::string npy_path, sha256_path;  // JSON pointers of Npy and Sha256
        uint64_t max_bytes = 0;
        size_t first_diag = 0, end_diag = 0;  // the diagnostics reading the output gave
    };
    std::vector<DeferredExpected> deferred_expected;
};

inline constexpr uint64_t kDefaultMaxWork = uint64_t(1) << 32;  // about 4.3e9, the most elements a tensor may have

struct LoadOptions {
    uint64_t max_bytes = uint64_t(4) << 30;  // per buffer and per .npy file
    // Npy files may be anywhere (an absolute path, .., a link out of the folder); by default a
    // case reads only inside its own folder tree (input.npy-path).
    bool allow_paths = false;
    // Most work a case may take, as work_estimate counts it (limit.work); checked before any
    // input is generated or read.
    uint64_t max_work = kDefaultMaxWork;
    // Reading a case file of more than 16 MiB shows "reading FILE: NN%" on standard error while
    // it parses, when standard error is a terminal.
    bool progress = true;
    // Expected outputs in .npy files are checked for their name, checksum text and path, but read
    // only by read_deferred_expected: `run` reads them after evaluating the case and freeing its
    // inputs, so that inputs, outputs and expected values are never all held at once.
    bool defer_expected_npy = false;
};

// Reads and checks a case. Errors and warnings go to `diags` with JSON pointers; the case is
// usable only when !diags.has_errors(). Unreadable JSON throws CaseError.
Case load_case(const std::filesystem::path& file, Diagnostics& diags, const LoadOptions& options = {});
Case parse_case(const JsonDocument& doc, const std::filesystem::path& file, Diagnostics& diags,
                const LoadOptions& options = {});

// Reads the expected outputs a load with defer_expected_npy left (Case::deferred_expected). An
// error replaces, in `diags`, what reading that output gave, as a load that read the file then
// reports it, and the output is left without expected values.
void read_deferred_expected(Case& c, Diagnostics& diags);

// The evaluated outputs of a case: logical elements, packed row-major, by output field.
struct Outputs {
    std::map<std::string, std::vector<std::byte>> values;
};

// An upper bound on the work of running a case, in element reads and writes: every tensor's
// elements (generated inputs by their whole buffer), an output element of a windowed operator
// counted once per window element. Saturates at 2^64 - 1. Checked against --max-work.
uint64_t work_estimate(const Operator& op);

// Binds buffers (outputs zero-filled, in-place outputs on a copy of their input) and evaluates.
Outputs run_case(const Case& c);

// Logical elements of a tensor in row-major order, packed, from its buffer.
std::vector<std::byte> gather_logical(const TensorDesc& d, std::span<const std::byte> buffer);

// One output element that differs from its expected value.
struct Mismatch {
    std::string output;
    uint64_t index;  // flat logical index
    uint64_t expected_bits, actual_bits;
};
// Bit-for-bit comparison of outputs against the case's expected values (don't-care skipped).
std::vector<Mismatch> compare_expected(const Case& c, const Outputs& outputs);

// The golden case: the case with `outputs` as its expected values, the tolerance and the
// operator's policies, and provenance. `out_file` is where it will be written (.npy paths
// are made relative to it). The text is deterministic: the same case gives the same bytes.
std::string write_golden(const Case& c, const Outputs& outputs, const std::filesystem::path& out_file);

// Outputs with more elements than this are stored as .npy files beside the golden (run -o,
// --npy-threshold; docs/case-format.md, "Large outputs").
inline constexpr uint64_t kDefaultNpyThreshold = uint64_t(1) << 20;

// Writes the golden to `out_file`, each output with more than `npy_threshold` elements as
// <golden stem>.<OutputField>.npy beside it with its SHA-256 in the golden; the .npy files first,
// then the golden, each atomically (dmlref/atomic_file.hpp). Throws WriteError or NpyError.
void write_golden_files(const Case& c, const Outputs& outputs, const std::filesystem::path& out_file,
                        uint64_t npy_threshold = kDefaultNpyThreshold);

// The elements of an output that are undefined for this desc, whatever the inputs (max pooling
// windows that hold only padding); {} for most operators. write_golden records them and
// compare_expected skips them.
std::vector<DontCare> dont_care(const Operator& op, std::string_view output);

// The elements of an output that sit on a decision boundary for this desc (docs/tolerance.md);
// none for most operators. write_golden records them.
Boundary boundary(const Operator& op, std::string_view output);

// The tolerance an operator states for an output from its desc alone (the resample family:
// "Summed" with per-element term counts), or nullopt.
std::optional<Tolerance> operator_tolerance(const Operator& op, std::string_view output);

// The tolerance dmlref states for an output of a case is stated_tolerance (dmlref/tolerance.hpp),
// from the judging rules of the operator's record.

}  // namespace dmlref
