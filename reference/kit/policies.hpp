// Policies that several families record in their goldens, and the element-type lists of
// DirectML's tensor-support tables that several families share (docs/golden.md, Decisions).
// A policy one family alone records lives in that family's record. Internal to dmlref.
#pragma once

#include "family.hpp"

#include <vector>

namespace dmlref::kit {

using DT = DataType;
inline const std::vector<DT> kF32F16 = {DT::FLOAT32, DT::FLOAT16};
inline const std::vector<DT> kEightTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT32,  DT::INT16,
                                            DT::INT8,    DT::UINT32,  DT::UINT16, DT::UINT8};
inline const std::vector<DT> kTenTypes = {DT::FLOAT32, DT::FLOAT16, DT::INT64,  DT::INT32,  DT::INT16,
                                          DT::INT8,    DT::UINT64,  DT::UINT32, DT::UINT16, DT::UINT8};
inline const std::vector<DT> kElevenTypes = {DT::FLOAT64, DT::FLOAT32, DT::FLOAT16, DT::INT64,  DT::INT32, DT::INT16,
                                             DT::INT8,    DT::UINT64,  DT::UINT32,  DT::UINT16, DT::UINT8};
inline const std::vector<DT> kF32F16I8U8 = {DT::FLOAT32, DT::FLOAT16, DT::INT8, DT::UINT8};
inline const std::vector<DT> kU32 = {DT::UINT32};
inline const std::vector<DT> kU32U64 = {DT::UINT32, DT::UINT64};
// The index tensors of the gathers, scatters and ONE_HOT from DML_FEATURE_LEVEL_3_0.
inline const std::vector<DT> kIndexTypes = {DT::INT64, DT::INT32, DT::UINT64, DT::UINT32};

inline constexpr Policy kSelectedZero{"SelectedZero", "PositiveZero"};
inline constexpr Policy kSubnormals{"Subnormals", "Preserve"};
inline constexpr Policy kForwardNaN{"ForwardNaN", "D3DMinMaxIgnoresNaN"};
inline constexpr Policy kGradNaN{"GradNaN", "FormulaLiteral"};
inline constexpr Policy kMinGreaterThanMax{"MinGreaterThanMax", "FormulaLiteral"};
inline constexpr Policy kEmptyWindow{"EmptyWindow", "DontCare"};
inline constexpr Policy kOutputSizes{"OutputSizes", "FloorOrCeil"};
inline constexpr Policy kNonFiniteSum{"NonFiniteSum", "CanonicalNaN"};
inline constexpr Policy kZeroWeightTaps{"ZeroWeightTaps", "NoTerm"};
// Index tensors (docs/golden.md, "Gathering"): a negative index counts once from the end; one
// outside its dimension is refused.
inline constexpr Policy kNegativeIndex{"NegativeIndex", "FromEndOnce"};
inline constexpr Policy kOutOfRangeIndex{"OutOfRangeIndex", "Refused"};
// Computed values (docs/golden.md, Computed values).
inline constexpr Policy kComputedValue{"ComputedValue", "ExactThenRoundOnce"};
inline constexpr Policy kIntegerResult{"IntegerResult", "RoundHalfEvenSaturate"};
inline constexpr Policy kZeroResult{"ZeroResult", "PositiveZero"};

}  // namespace dmlref::kit
