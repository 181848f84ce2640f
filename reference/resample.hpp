// RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD and RESAMPLE_GRAD1.
// What reference/resample*.cpp define for the family's record (reference/resample_record.cpp) and
// tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/resample.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// The resample family (float types): the terms of the forward output (LINEAR: weight * X;
// NEAREST_NEIGHBOR: a copy, with a ghost term for the neighbour an admissible reading may read)
// or of the grad's dX (weight * dY), under the coordinate arithmetic `coordinates` admits.
// `values` is the buffer of InputTensor (forward) or InputGradientTensor (the grad's dY). The op must
// be a resample operator that validates.
void resample_terms(const Operator& op, std::span<const std::byte> values, Coordinates coordinates, TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_RESAMPLE_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE_OPERATOR_DESC& d, const Bindings& b);
Boundary boundary(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_RESAMPLE1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE1_OPERATOR_DESC& d, const Bindings& b);
Boundary boundary(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_RESAMPLE2_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE2_OPERATOR_DESC& d, const Bindings& b);
Boundary boundary(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_RESAMPLE3_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE3_OPERATOR_DESC& d, const Bindings& b);
Boundary boundary(const DML_RESAMPLE3_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE3_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, const Bindings& b);
Boundary boundary(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output);
void validate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, const Bindings& b);
Boundary boundary(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output);
// The fast paths, beside the loops (false: not taken).
bool evaluate_fast(const DML_RESAMPLE_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_RESAMPLE1_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_RESAMPLE2_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_RESAMPLE3_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, const Bindings& b);
bool evaluate_fast(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, const Bindings& b);
bool explain_resample(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
// The same for `op`, a RESAMPLE desc that stands for c's operator and reads c's InputTensor with
// its desc (UPSAMPLE_2D's, reference/upsample_2d.cpp), without a copy of the case.
bool explain_resample_as(const Case& c, const Operator& op, std::string_view output, uint64_t flat,
                         FamilyExplanation& out);

}  // namespace dmlref::reference
