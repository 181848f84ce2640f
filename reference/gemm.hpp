// GEMM, MATRIX_MULTIPLY_INTEGER and MATRIX_MULTIPLY_INTEGER_TO_FLOAT (include/dmlref/descs/gemm.hpp).
// What reference/gemm.cpp and reference/gemm_integer.cpp define for the family's record
// (reference/gemm_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/gemm.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

#include <optional>
#include <vector>

namespace dmlref::reference {

void validate(const DML_GEMM_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_GEMM_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC& d, const Bindings& b);

// The shape of one GEMM: Batch independent products of [M, K] x [K, N] (Batch is the product of
// OutputTensor's leading dimensions, none to two of them).
struct GemmShape {
    uint64_t Batch = 1, M = 1, N = 1, K = 1;
};
GemmShape gemm_shape(const TensorDesc& output, const TensorDesc& a, bool trans_a);

// The logical (row-major) index in A of element [batch, m, k] of TransA(A), and in B of element
// [batch, k, n] of TransB(B).
inline uint64_t a_index(const GemmShape& s, bool trans, uint64_t batch, uint64_t m, uint64_t k) {
    return batch * s.M * s.K + (trans ? k * s.M + m : m * s.K + k);
}
inline uint64_t b_index(const GemmShape& s, bool trans, uint64_t batch, uint64_t k, uint64_t n) {
    return batch * s.K * s.N + (trans ? n * s.K + k : k * s.N + n);
}

// Each output element's terms for the judge: K products Alpha a_k * b_k and Beta * c
// (docs/tolerance.md, "GEMM"); with a FusedActivation, a computed bound through it.
void gemm_terms(const Case& c, std::string_view output, const ArithmeticProfile& p, TermSink& sink);
std::optional<Tolerance> gemm_tolerance(const DML_GEMM_OPERATOR_DESC& d, std::string_view output);

std::optional<Tolerance> mmi_to_float_tolerance(const DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC& d,
                                                std::string_view output);

bool explain_gemm(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
bool explain_matrix_multiply_integer(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);
bool explain_matrix_multiply_integer_to_float(const Case& c, std::string_view output, uint64_t flat,
                                              FamilyExplanation& out);

}  // namespace dmlref::reference

namespace dmlref {
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT's per-element bound (docs/tolerance.md, "GEMM").
void mmi_to_float_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
}  // namespace dmlref
