// TILE.
// What reference/tile.cpp defines for the family's record (reference/tile_record.cpp) and tests.
// Internal to dmlref.
#pragma once

#include "dmlref/descs/tile.hpp"
#include "dmlref/explain.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_TILE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_TILE_OPERATOR_DESC& d, const Bindings& b);
bool explain_tile(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
