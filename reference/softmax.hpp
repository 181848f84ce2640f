// The softmax family: ACTIVATION_SOFTMAX, _SOFTMAX1, _LOG_SOFTMAX, _LOG_SOFTMAX1, _HARDMAX,
// _HARDMAX1 (include/dmlref/descs/softmax.hpp). What reference/softmax.cpp defines for the
// family's record (reference/softmax_record.cpp) and tests. Internal to dmlref.
#pragma once

#include "dmlref/descs/softmax.hpp"
#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/tolerance.hpp"
#include "common.hpp"

#include <optional>

namespace dmlref::reference {

template <OperatorType T> void validate(const softmax_desc::LastAxis<T>& d, Diagnostics& diags);
template <OperatorType T> void evaluate(const softmax_desc::LastAxis<T>& d, const Bindings& b);
template <OperatorType T> void validate(const softmax_desc::ListedAxes<T>& d, Diagnostics& diags);
template <OperatorType T> void evaluate(const softmax_desc::ListedAxes<T>& d, const Bindings& b);

// What one row of the family computes.
enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

// One row (the elements that share every coordinate outside the axes, in row-major order over
// the axes in increasing axis order) of FLOAT32 or FLOAT16 values, as the bits of `t`. `fast`:
// try the float64 pass first (false: Ziv's loop in MPFR for every element; the results are the
// same, which test/test_softmax.cpp checks).
std::vector<uint64_t> softmax_row(SoftmaxKind kind, DataType t, const std::vector<double>& x, bool fast = true);

// The rows of a tensor of these Sizes over the axes in `axes`: each row's packed logical indices.
std::vector<std::vector<uint64_t>> softmax_rows(const std::vector<uint32_t>& sizes, const std::vector<uint32_t>& axes);

// The operator's kind and axes (the last one for the forms without Axes); false for another operator.
bool softmax_params(const OperatorDesc& desc, SoftmaxKind& kind, const TensorDesc*& input, std::vector<uint32_t>& axes);

// Judging (docs/tolerance.md, "Softmax"): each element's bound from its own row.
void softmax_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink);
std::optional<Tolerance> softmax_tolerance(const OperatorDesc& desc, std::string_view output);
bool explain_softmax(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out);

}  // namespace dmlref::reference
