// The desc of RANDOM_GENERATOR, with DirectML.h's struct and field names, in DirectML.h's order.
#pragma once

#include "dmlref/desc_base.hpp"

#include <optional>

namespace dmlref {

// DML_RANDOM_GENERATOR_TYPE, stored as uint32_t like every enum field.
inline constexpr uint32_t DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 = 0;
inline const EnumNames kRandomGeneratorTypeNames{"DML_RANDOM_GENERATOR_TYPE_", {"PHILOX_4X32_10"}};

// OutputTensor: pseudo-random bits from the generator state in InputStateTensor (Philox 4x32-10:
// a 128-bit counter in elements 0 to 3, a 64-bit key in elements 4 and 5); OutputStateTensor,
// when given: the state with the counter advanced by ceil(outputSize / 4)
// (DML_RANDOM_GENERATOR_OPERATOR_DESC).
struct DML_RANDOM_GENERATOR_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RANDOM_GENERATOR;
    TensorDesc InputStateTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputStateTensor;
    uint32_t Type = DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputStateTensor", s.InputStateTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputStateTensor", s.OutputStateTensor, TensorRole::Output);
        v.enumeration("Type", s.Type, kRandomGeneratorTypeNames);
    }
};

}  // namespace dmlref
