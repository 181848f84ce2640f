// Each operator's term enumeration for the bound of its summed outputs (docs/tolerance.md):
// for every element of the output, the terms a backend adds, with their weights and how far a
// conforming backend's weights may move. Implemented beside each operator's evaluate loop.
#pragma once

#include "dmlref/bound.hpp"
#include "dmlref/operators.hpp"

#include <cstddef>
#include <span>

namespace dmlref {

// MAX_POOLING_GRAD (float types): each dY element is one term, weight 1, of its window's argmax
// (the same argmax the evaluate loop uses). Buffers as bound (InputTensor, InputGradientTensor).
void max_pooling_grad_terms(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, std::span<const std::byte> InputTensor,
                            std::span<const std::byte> InputGradientTensor, TermSink& sink);

// The resample family (float types): the terms of the forward output (LINEAR: weight * X;
// NEAREST_NEIGHBOR: a copy, with a ghost term for the neighbour an admissible reading may read)
// or of the grad's dX (weight * dY), under the coordinate arithmetic `coordinates` admits.
// `values` is the buffer of InputTensor (forward) or InputGradientTensor (the grad's dY). The op must
// be a resample operator that validates.
void resample_terms(const Operator& op, std::span<const std::byte> values, Coordinates coordinates, TermSink& sink);

}  // namespace dmlref
