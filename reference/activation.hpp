// The activation family: ACTIVATION_IDENTITY, LINEAR, LEAKY_RELU, PARAMETERIZED_RELU,
// THRESHOLDED_RELU, SHRINK, HARD_SIGMOID, HARD_SWISH and SOFTSIGN (RELU and RELU_GRAD are the
// activation_relu family). What reference/activation*.cpp define for the family's record
// (reference/activation_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/activation.hpp"
#include "dmlref/bound.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref::reference {

// Every desc of the family, for visit_as.
#define DMLREF_ACTIVATION_DESCS                                                                   \
    DML_ACTIVATION_IDENTITY_OPERATOR_DESC, DML_ACTIVATION_LINEAR_OPERATOR_DESC,                   \
        DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC, DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC, \
        DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC, DML_ACTIVATION_SHRINK_OPERATOR_DESC,       \
        DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC, DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC,       \
        DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC

#define DMLREF_ACTIVATION_DECLARE(D)               \
    void validate(const D& d, Diagnostics& diags); \
    void evaluate(const D& d, const Bindings& b);  \
    std::optional<Tolerance> tolerance(const D& d, std::string_view output);
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_IDENTITY_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_LINEAR_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_SHRINK_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC)
DMLREF_ACTIVATION_DECLARE(DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC)
#undef DMLREF_ACTIVATION_DECLARE

// One element's golden, for tests and the bounds: the exact value of the page's formula at x
// (and the slope s, PARAMETERIZED_RELU), rounded once to T (docs/golden.md, "Activations").
template <class T> T activation_value(const OperatorDesc& d, T x, T s = T(0));

// Each float output element's error bound (docs/tolerance.md, "Activations"): 0 where the value
// is selected or certain, the forward error of the formula where it is computed.
void activation_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);

bool explain_activation(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
