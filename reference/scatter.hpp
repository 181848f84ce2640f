// SCATTER (SCATTER_ELEMENTS) and SCATTER_ND (include/dmlref/descs/scatter.hpp).
// What reference/scatter.cpp defines for the family's record (reference/scatter_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/admissible.hpp"
#include "dmlref/descs/scatter.hpp"
#include "gather.hpp"

namespace dmlref::reference {

void validate(const DML_SCATTER_OPERATOR_DESC& d, Diagnostics& diags);
void validate(const DML_SCATTER_ND_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_SCATTER_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate_values(const DML_SCATTER_ND_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_SCATTER_OPERATOR_DESC& d, const Bindings& b);
void evaluate(const DML_SCATTER_ND_OPERATOR_DESC& d, const Bindings& b);

// One write of a value into an output element (flat logical index), for any_write_sets.
struct Write {
    uint64_t target, bits;
};
// From every write a loop makes, in its order (the last wins): the elements that several writes
// reach with different bits, each with the distinct bits in the order of each one's last write
// (dmlref::Admissible; DuplicateIndex=AnyWrite). Also MAX_UNPOOLING's (reference/unpooling.cpp).
std::vector<Admissible> any_write_sets(std::vector<Write> writes);

// The UpdatesTensor elements written to an output element by another one too, for coverage.
uint64_t scatter_collisions(const Case& c);
// The OutputTensor elements several updates write with different bits, with every value that
// could win (none under DuplicateIndex=LastInOrder).
std::vector<Admissible> scatter_admissible(const Case& c, std::string_view output);
// Every output element names the update that wrote it, or the input element it copies.
bool explain_scatter(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
