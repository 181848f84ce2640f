// The one-line case descriptor (docs/gen.md, "Descriptors"), in the spirit of benchdnn's problem
// descriptors: `MAX_POOLING_GRAD FLOAT16 2x3x9x9 w3x3 s2x2 p1,1,0,0 d1x1 ceil recipe=dyadic seed=7`.
// It converts to a case (through the generator's derived sizes and recipes) and from one,
// without losing anything it can express.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/gen.hpp"

#include <optional>
#include <string>

namespace dmlref {

// The case a descriptor stands for, planned like a sweep's case (gen::make_case makes it).
// Errors (rule `descriptor.syntax`) go to `diags`.
std::optional<gen::Planned> descriptor_to_planned(const std::string& text, Diagnostics& diags);

// The descriptor of a case, or "" with the reason in `why` when the case holds something a
// descriptor cannot say (strided or padded tensors, mixed data types, sizes other than the
// derived ones, inputs that are neither a recipe's nor one Random seed's).
std::string case_descriptor(const Case& c, std::string& why);

}  // namespace dmlref
