// The bound that admits either zero where the golden is a zero the formula computes
// (docs/tolerance.md, "Zeros"): a backend's IEEE arithmetic may give -0 there (-0.5 * 0, x - x in
// the other order, expm1(-0)), while the golden's exact zero is +0 (ZeroResult=PositiveZero).
#pragma once

#include "dmlref/bound.hpp"

namespace dmlref::reference {

// Above zero and below the smallest subnormal's half: either zero and nothing else. No double lies
// below half of FLOAT64's smallest subnormal: there it is that subnormal itself.
inline double computed_zero_bound(DataType t) {
    return t == DataType::FLOAT64 ? smallest_subnormal(t) : smallest_subnormal(t) / 4;
}

}  // namespace dmlref::reference
