// RNN, GRU and LSTM (include/dmlref/descs/recurrent.hpp): what reference/recurrent.cpp defines for the
// family's record (reference/recurrent_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/recurrent.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

#include <optional>
#include <vector>

namespace dmlref::reference {

void validate(const DML_RNN_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RNN_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_RNN_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate(const DML_GRU_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_GRU_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_GRU_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);
void validate(const DML_LSTM_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LSTM_OPERATOR_DESC& d, const Bindings& b);
void validate_values(const DML_LSTM_OPERATOR_DESC& d, const InputBuffers& in, uint64_t max_work, Diagnostics& diags);

// The golden records a computed tolerance for OutputSequenceTensor and OutputSingleTensor.
std::optional<Tolerance> tolerance(const DML_RNN_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_GRU_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_LSTM_OPERATOR_DESC& d, std::string_view output);

// Element reads per output element: the two matrix rows of every gate, at every step (an element of
// OutputSingleTensor needs the whole sequence).
uint64_t recurrent_work_factor(const OperatorDesc& d);

bool explain_recurrent(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference

namespace dmlref {
// Each element's bound, the backend's admissible per-step errors carried through the steps
// (docs/tolerance.md, "Recurrent networks").
void recurrent_sequence_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                               TermSink& sink);
void recurrent_single_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
void recurrent_cell_single_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                  TermSink& sink);
}  // namespace dmlref
