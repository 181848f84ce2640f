// LP_POOLING and LP_POOLING1.
// What reference/lp_pooling.cpp defines for the family's record (reference/lp_pooling_record.cpp)
// and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/lp_pooling.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"
#include "pooling_geometry.hpp"

namespace dmlref {

// LP_POOLING and LP_POOLING1 (OutputTensor): each element's bound (docs/tolerance.md, "Lp pooling").
void lp_pooling_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

void validate(const DML_LP_POOLING_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LP_POOLING_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_LP_POOLING1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_LP_POOLING1_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_LP_POOLING_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_LP_POOLING1_OPERATOR_DESC& d, std::string_view output);

// The window geometry of each desc (reference/pooling_geometry.hpp).
inline PoolingView view(const DML_LP_POOLING_OPERATOR_DESC& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, nullptr};
}
inline PoolingView view(const DML_LP_POOLING1_OPERATOR_DESC& d) {
    return {&d.InputTensor, &d.OutputTensor, &d.Strides, &d.WindowSize, &d.StartPadding, &d.EndPadding, &d.Dilations};
}

// (sum of |v|^P over the values)^(1/P), the exact value rounded once to T (docs/golden.md, "Lp
// pooling"): a NaN value gives the canonical NaN, else an infinite one +inf; no value, or only
// zeros, +0. P >= 1.
template <class T> T lp_norm(const std::vector<T>& values, uint32_t P);

}  // namespace dmlref::reference
