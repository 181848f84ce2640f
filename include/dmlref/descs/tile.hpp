// The desc of TILE, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

struct DML_TILE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::TILE;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t RepeatsCount = 0;
    std::vector<uint32_t> Repeats;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("RepeatsCount", s.RepeatsCount);
        v.uint_array("Repeats", s.Repeats);
    }
};

}  // namespace dmlref
