// Slice test support: SLICE, SLICE1 and SLICE_GRAD descs built in memory, for test_slice.cpp and
// test_slice_validation.cpp.
#pragma once

#include "support.hpp"

namespace dmlref::test::slicing {

using namespace dmlref;

inline Operator slice1(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out, std::vector<uint32_t> offsets,
                       std::vector<uint32_t> sizes, std::vector<int32_t> strides) {
    DML_SLICE1_OPERATOR_DESC d;
    d.InputTensor = desc(t, in);
    d.OutputTensor = desc(t, out);
    d.DimensionCount = uint32_t(in.size());
    d.InputWindowOffsets = std::move(offsets);
    d.InputWindowSizes = std::move(sizes);
    d.InputWindowStrides = std::move(strides);
    return {OperatorType::SLICE1, d};
}

// dY has the forward output's sizes (`out`), dX the forward input's (`in`).
inline Operator slice_grad(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out,
                           std::vector<uint32_t> offsets, std::vector<uint32_t> sizes, std::vector<int32_t> strides) {
    DML_SLICE_GRAD_OPERATOR_DESC d;
    d.InputGradientTensor = desc(t, out);
    d.OutputGradientTensor = desc(t, in);
    d.DimensionCount = uint32_t(in.size());
    d.InputWindowOffsets = std::move(offsets);
    d.InputWindowSizes = std::move(sizes);
    d.InputWindowStrides = std::move(strides);
    return {OperatorType::SLICE_GRAD, d};
}

inline Operator slice(DataType t, std::vector<uint32_t> in, std::vector<uint32_t> out, std::vector<uint32_t> offsets,
                      std::vector<uint32_t> strides) {
    DML_SLICE_OPERATOR_DESC d;
    d.InputTensor = desc(t, in);
    d.OutputTensor = desc(t, out);
    d.DimensionCount = uint32_t(in.size());
    d.Offsets = std::move(offsets);
    d.Sizes = out;
    d.Strides = std::move(strides);
    return {OperatorType::SLICE, d};
}

// validate(op) reports no error.
inline void check_valid(const Operator& op) {
    const Diagnostics d = validate(op);
    for (const auto& item : d.items()) INFO(format(item, "<op>"));
    CHECK_FALSE(d.has_errors());
}

}  // namespace dmlref::test::slicing
