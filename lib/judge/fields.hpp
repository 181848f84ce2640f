// A case's tensor field by name and role: the lookup the judging passes share. Internal to dmlref.
#pragma once

#include "dmlref/case.hpp"
#include "dmlref/operators.hpp"

#include <string_view>

namespace dmlref {

// The desc of c's tensor field `name` of role `role`; null where it has none.
inline const TensorDesc* field_desc(const Case& c, std::string_view name, TensorRole role) {
    for (const auto& f : tensor_fields(c.op))
        if (f.name == name && f.role == role) return f.desc;
    return nullptr;
}

inline const TensorDesc* output_desc(const Case& c, std::string_view output) {
    return field_desc(c, output, TensorRole::Output);
}

}  // namespace dmlref
