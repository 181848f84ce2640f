// The tolerance model (docs/tolerance.md, docs/tolerance.md): how far a backend's output may
// be from the golden one, per operator, per output, per type, in one table (lib/judge/tolerance.cpp),
// and the comparison of one element under it.
#pragma once

#include "dmlref/bound.hpp"
#include "dmlref/case.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dmlref {

// What the table says for one (operator, output, type class).
enum class ToleranceRule {
    Bits,               // moved or selected values: bit for bit
    Ulp1WithScaleBias,  // Bits, or 1 ULP when the desc has a ScaleBias (x * Scale + Bias)
    Summed,             // exact sums rounded once: a bound per element from its number of terms
    OperatorStated,     // the operator's reference states it (Bits, or Summed with per-element
                        // Terms: the resample family, reference/resample.cpp)
};
enum class TypeClass { Any, Float, Integer };
// Elements on a decision boundary, where a backend that reads the spec differently would
// pick differently (docs/tolerance.md). Reported separately by the diff.
enum class BoundaryRule {
    None,
    ReluGradAtZero,      // InputTensor element is +0 or -0 (x > 0 against x >= 0)
    ClipGradAtMinOrMax,  // InputTensor element equals Min or Max (x <= Min against x < Min)
    ArgmaxTie,           // max pooling: a window with two or more elements equal to its maximum
    OperatorStated,      // the operator lists them (Boundary in the golden: the resample
                         // family's nearest-neighbour coordinates that float32 would move)
};

struct ToleranceRow {
    OperatorType op;
    std::string_view output;
    TypeClass types;
    ToleranceRule rule;
    BoundaryRule boundary;
};

// The table: every output field of every operator dmlref evaluates has a row for each type.
const std::vector<ToleranceRow>& tolerance_table();
// The row for this output of this case (Bits with no boundary rule when none matches).
ToleranceRow tolerance_row(const Case& c, std::string_view output);

// The tolerance dmlref states for an output of this case, as golden files record it.
Tolerance stated_tolerance(const Case& c, std::string_view output);

// For a Summed output: the number of terms of each logical element (row-major), or {} when the
// operator does not say per element (then every element has Tolerance.MaxTerms).
std::vector<uint32_t> term_counts(const Case& c, std::string_view output);

// Elements of this output that sit on a decision boundary, with the reason (the BoundaryRule's
// name), plus "Subnormal" for every golden element that a backend flushing subnormals to zero
// would change. `golden` holds the logical elements, packed row-major.
struct BoundaryElement {
    uint64_t Index;
    std::string Reason;
};
std::vector<BoundaryElement> boundary_elements(const Case& c, std::string_view output,
                                               const std::vector<std::byte>& golden);

// Whether judging this output in a diff reads the case's inputs: for its bound (computed and
// summed outputs, batch normalization), its term counts, or its boundary elements (an input value
// at zero, at Min or Max, an argmax tie; ROI align's). False for moved and selected values (Bits,
// or 1 ULP with ScaleBias) whose boundary elements the desc alone gives: `dmlref diff` frees the
// golden's inputs when no output reads them (alternative readings reload them when asked).
bool judging_reads_inputs(const Case& c, std::string_view output);

// Switches of the comparison, all off by default.
struct DiffSwitches {
    bool zeros_equal = false;         // +0 and -0 compare equal
    bool any_nan = false;             // any NaN equals any NaN (Bits and Ulp outputs too)
    bool flushed_subnormals = false;  // a zero of the same sign matches a subnormal golden
    bool operator==(const DiffSwitches&) const = default;
};

// How one element compares.
enum class Verdict : uint8_t { Identical, Within, Over, Skipped };

struct ElementTolerance {
    std::string_view kind = "Bits";  // "Bits", "Ulp", "Summed"
    uint64_t ulp = 0;                // Kind Ulp: the stated ULPs
    uint64_t terms = 0;              // Kind Summed without a bound: this element's number of terms
    double bound = -1;               // >= 0: the element's bound from its own terms (dmlref/bound.hpp)
    bool sum = false;                // the element is a sum: a NaN golden matches any NaN
};

struct Judgement {
    Verdict verdict = Verdict::Identical;
    bool comparable = true;  // false when a NaN or an infinity is involved (no ULP distance)
    uint64_t distance = 0;   // ULPs between the ordered encodings (integers: the difference)
    bool nonfinite = false;  // a mismatch where the golden or the actual is NaN or infinite
    bool flushed = false;    // accepted only because of DiffSwitches::flushed_subnormals
};

// Whether an output's elements are sums (docs/golden.md, Decisions): a NaN golden there matches any
// NaN, whatever the element's number of terms. MAX_POOLING_GRAD and the resample grads (float
// types), forward LINEAR resampling.
bool is_summed_output(const Case& c, std::string_view output);

// The terms of every element (logical row-major) of an output whose operator enumerates them
// (dmlref/terms.hpp), under the profile's arithmetic; nullopt for other outputs (integer types,
// element-wise operators) or when the case's inputs cannot be read. The sink also holds the
// groups of elements that share an admissible reading's term.
std::optional<TermSink> summed_terms(const Case& c, std::string_view output, const ArithmeticProfile& p);

// The ULP distance of two same-type values: the difference of their ordered integer encodings,
// in which -0 sits one below +0 (distance 1) unless zeros_equal. Integers: |a - b|. Not
// meaningful for NaN or infinities (Judgement::comparable).
uint64_t ulp_distance(DataType t, uint64_t a_bits, uint64_t b_bits, bool zeros_equal);

// The fallback Summed bound, for a golden whose terms dmlref cannot enumerate (an operator
// without a term enumeration): |actual - golden| <= (terms - 1/2) * ulp(golden), decided exactly. `terms`
// must be >= 2 and both values finite floats of type t.
bool within_summed_bound(DataType t, uint64_t golden_bits, uint64_t actual_bits, uint64_t terms);

Judgement judge(DataType t, uint64_t golden_bits, uint64_t actual_bits, const ElementTolerance& tol,
                const DiffSwitches& sw);

}  // namespace dmlref
