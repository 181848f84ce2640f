// `dmlref explain`: one output element of a golden, explained (docs/explain.md): its index, the
// inputs that reach it, its terms, the policies that decided it, its boundary flags, and the
// golden against an actual value with the error and the element's bound.
#pragma once

#include "dmlref/bits.hpp"
#include "dmlref/case.hpp"
#include "dmlref/diff.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dmlref {

// One input element that reaches the explained element.
struct ExplainedInput {
    std::string tensor;           // InputTensor
    std::vector<uint64_t> index;  // its N-d logical index
    DataType type = DataType::UNKNOWN;
    uint64_t bits = 0;
    std::string role;  // "window", "argmax", "tap", "source", "x", "dY", ...
};

// One term of a summed element: value * weight (weight 1 for a copy of dY).
struct ExplainedTerm {
    std::string tensor;  // where the value comes from (InputGradientTensor)
    std::vector<uint64_t> index;
    double value = 0;  // exactly widened
    double weight = 1;
    std::string note;  // "tap [1,0] x [0,1]", "dY[0,0,1,1]'s window"
};

// What an operator family's hook says about one element (reference/*: explain_element).
struct FamilyExplanation {
    std::vector<std::pair<std::string, std::string>> facts;  // ("window", "..."), ("argmax", "..."), ...
    std::vector<ExplainedInput> inputs;
    std::vector<ExplainedTerm> terms;
    std::vector<std::string> policies;  // the names (docs/golden.md) of the policies that decided it
};

// A family hook: fills `out` for element `flat` (logical row-major) of `output` and returns
// true, or returns false when the operator is not of its family. The case validates.
using ExplainHook = bool (*)(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

struct Explanation {
    std::string golden;  // the file
    std::string op;      // DML_OPERATOR_...
    std::string output;  // the output field
    DataType type = DataType::UNKNOWN;
    std::vector<uint32_t> sizes;
    uint64_t flat = 0;
    std::vector<uint64_t> index;
    uint64_t golden_bits = 0;
    bool family_known = false;  // a hook explained it
    FamilyExplanation family;
    std::vector<std::pair<std::string, std::string>> policies;  // (name, value) of family.policies
    std::string dont_care;                                      // the reason, when the element is don't care
    std::vector<std::string> boundary;                          // its Boundary flags, as the diff reports them
    std::string tolerance_kind;                                 // Bits, Ulp, Summed
    uint32_t term_count = 0;                                    // Summed with a bound: n
    std::string tolerance_note;  // Summed without a bound: its number of terms, said in words
    double abs_sum = 0;          // the sum of |t|
    double bound = -1;           // >= 0: the element's bound from its terms (lib/judge/bound.cpp)
    std::string profile;         // the arithmetic profile of the bound ("accumulate=any ...")
    // With an actual value:
    std::string actual_source;  // empty without one
    uint64_t actual_bits = 0;
    Judgement judgement;
    double error = 0;  // |actual - golden| (rounded to nearest), finite values only
};

// A problem with what explain was given (not a golden, an index out of range, a wrong rank):
// the message already reads "FILE: /pointer: error: sentence [rule.id]"; exit code 2.
class ExplainError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "0,1,2,3" (N-d, as many numbers as the output has dimensions) or "7" (flat; for a 1-D output
// the two are the same) to a flat logical index. Throws ExplainError (explain.index-*).
uint64_t parse_element_index(std::string_view text, const std::vector<uint32_t>& sizes, const std::string& file);

// Explains element `flat` of `output` (empty: the first output) of a golden case, against the
// actual element's bits when given (`actual_source` names where they came from).
Explanation explain_element(const Case& golden, std::string output, uint64_t flat, std::optional<uint64_t> actual_bits,
                            const std::string& actual_source, const DiffOptions& options);

// `dmlref diff --explain K`: the K worst elements of each output of a single golden, explained
// (text, or a JSON array with json). Returns 2 when the diff cannot be made, else 0.
int explain_worst(const DiffCommand& cmd, size_t k, bool json, std::ostream& out, std::ostream& err);

std::string explanation_text(const Explanation& e);
std::string explanation_json(const std::vector<Explanation>& e);  // a JSON array

// Helpers for the hooks: the N-d index of a flat logical index, and an input element's bits
// (element_value, dmlref/bits.hpp, widens bits to a double).
std::vector<uint64_t> nd_coordinate(const std::vector<uint32_t>& sizes, uint64_t flat);
ExplainedInput input_element(const Case& c, const std::string& field, const std::vector<uint64_t>& index,
                             std::string role);

}  // namespace dmlref
