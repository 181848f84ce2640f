// REDUCE (the twelve DML_REDUCE_FUNCTIONs), ARGMIN and ARGMAX (include/dmlref/descs/reduction.hpp).
// What reference/reduction.cpp defines for the family's record (reference/reduction_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/reduction.hpp"
#include "dmlref/bound.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref::reference {

void validate(const DML_REDUCE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_REDUCE_OPERATOR_DESC& d, const Bindings& b);
template <OperatorType T> void validate(const reduction_desc::ArgMinMax<T>& d, Diagnostics& diags);
template <OperatorType T> void evaluate(const reduction_desc::ArgMinMax<T>& d, const Bindings& b);

// The tolerance REDUCE's golden states: Bits for MIN, MAX, ARGMIN, ARGMAX and integer data;
// a per-element bound (Summed, MaxTerms N) for the float sums, products, norms and logarithms.
std::optional<Tolerance> tolerance(const DML_REDUCE_OPERATOR_DESC& d, std::string_view output);

// The number of input elements each output element reduces (the product of the reduced sizes).
uint64_t reduction_terms(const OperatorDesc& d);
std::string_view reduce_function_name(uint32_t function);
// The output elements whose choice is a tie (two or more elements equal to the chosen one, -0 and
// +0 included): ARGMIN, ARGMAX and REDUCE's ARGMIN, ARGMAX, MIN and MAX; empty for the others.
std::vector<uint64_t> reduction_ties(const Operator& op, std::span<const std::byte> input);

bool explain_reduction(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference

namespace dmlref {
// A product of the finite factors x in any order, in one working type: its exact range and the
// backend's error (docs/tolerance.md, "Reduction": MULTIPLY). Shared with CUMULATIVE_PRODUCT.
Quantity product_quantity(const Arithmetic& ar, const std::vector<double>& x);
// The per-element bound of REDUCE's float outputs (docs/tolerance.md, "Reduction").
void reduction_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
}  // namespace dmlref
