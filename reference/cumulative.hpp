// CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT (include/dmlref/descs/cumulative.hpp). What
// reference/cumulative.cpp defines for the family's record (reference/cumulative_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/cumulative.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref::reference {

void validate(const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC& d, const Bindings& b);

// Each output element's number of terms (factors): its prefix along Axis in AxisDirection's order,
// the element itself included unless the scan is exclusive. Logical row-major order.
std::vector<uint32_t> cumulative_term_counts(const OperatorDesc& d);
// CUMULATIVE_SUMMATION's terms, element by element (TermSink::add: copies of the inputs).
void cumulative_summation_terms(const Case& c, std::string_view output, const ArithmeticProfile& p, TermSink& sink);
// CUMULATIVE_PRODUCT's stated tolerance: Bits for integers, a per-element bound for floats.
std::optional<Tolerance> tolerance(const DML_CUMULATIVE_PRODUCT_OPERATOR_DESC& d, std::string_view output);

bool explain_cumulative(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference

namespace dmlref {
// CUMULATIVE_PRODUCT's per-element bound (docs/tolerance.md, "Cumulative product").
void cumulative_product_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                               TermSink& sink);
}  // namespace dmlref
