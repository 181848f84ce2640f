// The activations DirectML fuses into batch normalization: their evaluation on a rounded value
// (reference/fused_activation.cpp), their parameter rules, and a backend's error through them
// (reference/fused_activation_bound.cpp). Internal.
#pragma once

#include "dmlref/diagnostics.hpp"
#include "dmlref/operators.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace dmlref::reference {

// The fused activation of one activation page (its operator name, "ACTIVATION_LINEAR") with its
// parameters: the form in which fused_activation<T> evaluates an activation operator.
inline DML_FUSED_ACTIVATION fused(std::string_view name, float p0 = 0, float p1 = 0) {
    const auto& types = fused_activation_types();
    for (uint32_t k = 0; k < types.size(); ++k)
        if (types[k].Name == name) return {k, {p0, p1}};
    throw std::logic_error("no fused activation " + std::string(name));
}

// The activation applied to the already rounded normalized value y, rounded once more to T: the
// exact real value of the activation page's formula at y (docs/golden.md, BnFusedActivation and
// the BnActivation* rows). Instantiated for the eleven element types.
template <class T> T fused_activation(const DML_FUSED_ACTIVATION& a, T y);

// The activation's parameters: finite (`<op>.fused-activation-parameter`), SOFTPLUS's Steepness
// at least 1 (`<op>.fused-activation-steepness`), CELU's Alpha not 0 (`<op>.fused-activation-celu-alpha`).
void validate_fused_activation(Diagnostics& diags, const DML_FUSED_ACTIVATION& a, std::string_view op);

// A backend's error through the activation (docs/tolerance.md, "Fused activations"): y is the exact
// pre-activation value, E bounds how far the backend's pre-activation value (in working type w) is
// from the golden's rounded one (both lie within E of y). `error` bounds |act_w(z) - act(y_t)|,
// the activation's slope over [y - E, y + E] times E plus its own error in w (the stated
// accuracies of dmlref/bound.hpp); `magnitude` bounds |act| over the interval. +infinity when
// nothing can be said (an exponential that may overflow w).
struct ActivationError {
    double error = 0;
    double magnitude = 0;
};
ActivationError fused_activation_error(const DML_FUSED_ACTIVATION& a, double y, double E, DataType w, bool flush);

// --max-work's rounding cost of a fused activation per output element (kit::OperatorRecord::
// rounding_cost): as the activation_math family's, measured (docs/rules.md, limit.work); 0 without one.
uint64_t fused_activation_cost(const std::optional<DML_FUSED_ACTIVATION>& a);

}  // namespace dmlref::reference
