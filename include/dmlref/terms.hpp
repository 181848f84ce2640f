// What a family's term enumeration and bound functions work with (docs/tolerance.md): for every
// element of a summed output, the terms a backend adds, with their weights; for a computed one,
// the bound of its error. Each family's functions are declared in reference/<family>.hpp.
#pragma once

#include "dmlref/bound.hpp"
#include "dmlref/operators.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace dmlref {

// ---- Computed operators (docs/tolerance.md, "Computed values") -----------------------------
// Each fills every element of its output with TermSink::set_computed: the bound of
// |backend - exact| from the operator's forward error analysis under the profile
// (dmlref/bound.hpp: Arithmetic, computed_error). `input(field)` is a bound input buffer (it
// throws std::invalid_argument when the case lacks it). The op must validate; float outputs only.
using InputBuffer = std::function<std::span<const std::byte>(const char* field)>;

// The values of a tensor in logical (row-major) order, widened exactly to double (integers
// beyond 2^53 rounded): what a bound function reads its inputs with.
std::vector<double> logical_doubles(const TensorDesc& d, std::span<const std::byte> buffer);

}  // namespace dmlref
