// Where an integer output's stated Ulp applies (docs/tolerance.md, "Comparing one element"): an
// operator that names its decision boundaries from the case's values (its record's case_boundary:
// the quantization family's rounding ties) admits the Ulp only at those elements, and the others
// are bit for bit. Internal to lib/judge (diff.cpp and explain.cpp judge alike).
#pragma once

#include "dmlref/case.hpp"

#include "../../reference/kit/family.hpp"

#include <string_view>

namespace dmlref {

inline bool ulp_only_at_boundary(const Case& c, DataType t, std::string_view kind) {
    const kit::OperatorRecord* r = kit::find_record(c.op.Type);
    return !is_float(t) && kind == "Ulp" && r && r->case_boundary;
}

}  // namespace dmlref
