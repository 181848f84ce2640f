// `dmlref reduce`: shrink a case on which a backend fails to a small case on which it fails the
// same way (the same output, the same failure class), validating every candidate (docs/reduce.md).
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/diff.hpp"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlref {

// The kind of an over-tolerance element, from the golden and actual bits: "NaN" (a NaN on either
// side), "Infinity" (an infinity on either side, no NaN), "SignedZero" (+0 against -0),
// "FlushedSubnormal" (a subnormal golden, a zero actual), "Finite" (any other difference).
std::string failure_class(DataType t, uint64_t golden_bits, uint64_t actual_bits);

struct FailureKind {
    std::string output;  // OutputGradientTensor
    std::string klass;   // failure_class
    bool operator==(const FailureKind&) const = default;
};

// A backend: the outputs it computes for a case (logical elements, packed row-major, by output
// field), or nullopt when it fails to compute them.
using Backend = std::function<std::optional<std::map<std::string, std::vector<std::byte>>>(const Case&)>;

struct ReduceOptions {
    size_t max_runs = 1000;                            // backend runs at most
    DiffOptions diff;                                  // the comparison (switches)
    std::function<void(const std::string&)> progress;  // a line per accepted step
};

struct ReduceResult {
    Case reduced;
    FailureKind kind;
    size_t runs = 0;                                   // backend runs
    size_t accepted = 0;                               // candidates kept
    uint64_t elements_before = 0, elements_after = 0;  // logical elements of every tensor
    std::vector<std::string> steps;                    // what each accepted candidate changed
};

// Over-tolerance elements of the backend's outputs for `c`, by kind (empty: it passes).
std::map<FailureKind, uint64_t> failures(const Case& c, const std::map<std::string, std::vector<std::byte>>& actual,
                                         const DiffOptions& o);
bool operator<(const FailureKind& a, const FailureKind& b);

// The case as a case file without expected values: its desc as a golden writes it, every input
// as the list of its whole buffer (what a reduce backend is given).
std::string case_text(const Case& c);

// Why there is nothing to reduce: the backend's outputs for the original are within tolerance
// (`dmlref reduce` exits 1), or the backend computed none (it failed, hung or wrote no valid
// outputs; exit 2, an error and not a pass).
struct NothingToReduce : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct BackendFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Shrinks `c` (a valid case) while the backend keeps failing with the kind of the original's
// worst over-tolerance element. Throws NothingToReduce or BackendFailed when it cannot start.
ReduceResult reduce(const Case& c, const Backend& backend, const ReduceOptions& options = {});

}  // namespace dmlref
