// MEAN_VARIANCE_NORMALIZATION, _NORMALIZATION1 and _NORMALIZATION2.
// What reference/mean_variance_normalization.cpp defines for the family's record
// (reference/mean_variance_normalization_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/mean_variance_normalization.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "common.hpp"

namespace dmlref {

// Each OutputTensor element's bound on |backend - exact value| (docs/tolerance.md, "Mean variance
// normalization"), for the three operators.
void mean_variance_normalization_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                        TermSink& sink);

}  // namespace dmlref

namespace dmlref::reference {

// The three descs as one: the dimensions the statistics are taken over (a bit per dimension),
// whether the mean is subtracted and the variance divided by, and the optional tensors.
struct MvnPlan {
    const TensorDesc& input;
    const std::optional<TensorDesc>& scale;
    const std::optional<TensorDesc>& bias;
    const TensorDesc& output;
    uint32_t axes = 0;
    bool use_mean = true;
    bool use_variance = true;
    float epsilon = 0;
    const std::optional<DML_FUSED_ACTIVATION>& activation;
};
MvnPlan mvn_plan(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d);
MvnPlan mvn_plan(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d);
MvnPlan mvn_plan(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d);
// For every logical element of the input, its statistics group (row-major over the input's
// sizes with the reduced dimensions set to 1); `count` is each group's element count.
std::vector<uint64_t> mvn_groups(const MvnPlan& p, uint64_t& groups, uint64_t& count);

void validate(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d, const Bindings& b);
void validate(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d, Diagnostics& diags);
void evaluate(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d, const Bindings& b);
std::optional<Tolerance> tolerance(const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC& d, std::string_view output);
std::optional<Tolerance> tolerance(const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC& d, std::string_view output);

}  // namespace dmlref::reference
