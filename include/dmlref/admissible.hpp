// Output elements with several admissible values (docs/case-format.md, "Admissible values"): where
// several writes reach one element with different bits and the page gives no guarantee of which
// wins (SCATTER_ELEMENTS, SCATTER_ND and MAX_UNPOOLING with repeated indices; docs/golden.md,
// DuplicateIndex=AnyWrite), every value that could win is right. The lists follow from a case's
// inputs and policies: `run -o` writes them in the golden, reading checks what a golden states
// against them, and `diff` and `explain` judge from them.
#pragma once

#include "dmlref/case.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace dmlref {

// One element and the values that could win: the bits, distinct, in the order of each one's last
// write in the operator's row-major order of its writes, so the last is the golden's value.
struct Admissible {
    uint64_t Index;  // flat logical (row-major) index
    std::vector<uint64_t> Values;
    bool operator==(const Admissible&) const = default;
};

// The elements of an output that several writes reach with different bits, increasing Index, from
// the case's inputs under its policies (none under DuplicateIndex=LastInOrder, and none for most
// operators, or where an input is missing).
std::vector<Admissible> admissible(const Case& c, std::string_view output);

// Whether the operator's outputs can have such elements (its family gives the lists).
bool has_admissible(OperatorType t);

// `dmlref diff` flags these elements with this boundary reason (OutputCensus::boundary: the elements,
// and those the backend wrote with none of the values over tolerance), and counts under
// "SeveralWrites:k" those it wrote with the k-th value of the list, k from 1 (docs/diff.md).
inline constexpr std::string_view kSeveralWrites = "SeveralWrites";

namespace kit {
// A family whose writes can collide gives its lists here, from its record's builder
// (reference/scatter_record.cpp, reference/unpooling_record.cpp): the kit's records are built
// before any lookup, so admissible() finds it.
using AdmissibleHook = std::vector<Admissible> (*)(const Case&, std::string_view output);
void set_admissible_hook(OperatorType t, AdmissibleHook hook);
}  // namespace kit

}  // namespace dmlref
