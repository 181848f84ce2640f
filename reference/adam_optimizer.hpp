// ADAM_OPTIMIZER (include/dmlref/descs/adam_optimizer.hpp). What reference/adam_optimizer.cpp
// defines for the family's record (reference/adam_optimizer_record.cpp) and tests. Internal to
// dmlref.
#pragma once

#include "dmlref/descs/adam_optimizer.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

void validate(const DML_ADAM_OPTIMIZER_OPERATOR_DESC& d, Diagnostics& diags);
void validate_values(const DML_ADAM_OPTIMIZER_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work,
                     Diagnostics& diags);
void evaluate(const DML_ADAM_OPTIMIZER_OPERATOR_DESC& d, const Bindings& b);
bool explain_adam_optimizer(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
std::optional<Tolerance> adam_optimizer_tolerance(const DML_ADAM_OPTIMIZER_OPERATOR_DESC& d, std::string_view output);

// The largest training step dmlref evaluates: Beta^T is computed exactly (a rational of about
// T times Beta's bits) to decide whether the update is rational (docs/golden.md, "Adam optimizer").
inline constexpr double kAdamMaxStep = 1 << 20;

// Each element's error bound (docs/tolerance.md, "Adam optimizer"), one function per output.
void adam_parameters_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void adam_first_moment_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void adam_second_moment_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                               TermSink& sink);

}  // namespace dmlref::reference
