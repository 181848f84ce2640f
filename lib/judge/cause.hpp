// What, not where: the cause of a failing summed or computed element (docs/explain.md, "The
// cause"). The likely bugs of a backend's sum are tested against the element's own terms, as its
// family's explain hook lists them: a term missing, a term extra (a neighbour taken in), the
// window or taps shifted by one, a term added twice, a term weighed with another's weight, a
// term's sign or the result's sign flipped, a wrong scale, and an accumulator narrower than the
// arithmetic profile admits. A cause is named only when it explains the actual value within the
// bound of its own sum and no other candidate does as well (every candidate that does is named).
// Internal to dmlref: lib/judge/explain.cpp consults it for `dmlref explain` and `diff --explain`.
#pragma once

#include "dmlref/explain.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dmlref {

// What the tests need of one element.
struct CauseInput {
    DataType type = DataType::FLOAT32;  // the output's
    uint64_t golden_bits = 0, actual_bits = 0;
    double bound = -1;                   // the element's own bound (lib/judge/bound.cpp), >= 0
    std::vector<ExplainedTerm> terms;    // every term: value * weight
    std::vector<DataType> accumulators;  // the accumulation types the profile admits (working_types)
    // Element `index` of input `tensor` as a double; nullopt when the index is outside the tensor
    // (it then counts as 0, as padding). Empty: neighbours cannot be read (no shift or extra tests).
    std::function<std::optional<double>(const std::string& tensor, const std::vector<uint64_t>& index)> read;
};

// One candidate that explains the actual value.
struct CauseFinding {
    std::string kind;  // "missing", "extra", "shifted", "twice", "weight", "term-sign", "sign", "scale", "accumulator"
    std::string what;  // the sentence: "the term InputTensor[0,0,2,2] x 0.1875 (= 0.75) is missing"
    double value = 0;  // the candidate's exact value (an accumulator: the golden)
    double bound = 0;  // how far from it the actual may be
};

struct CauseResult {
    bool tested = false;              // false: the element is not one to test (text says why)
    size_t candidates = 0;            // how many were tested
    std::vector<CauseFinding> found;  // every candidate that explains the actual value
    std::string text;                 // the line explain prints
};

CauseResult diagnose_cause(const CauseInput& in);

// The cause line of an explained element of `golden`: empty unless an actual value is given and
// the element is over tolerance with a bound from its terms.
std::string explain_cause(const Case& golden, const Explanation& e, const ArithmeticProfile& profile);

}  // namespace dmlref
