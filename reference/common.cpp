#include "common.hpp"

namespace dmlref::reference {

std::string desc_path(std::string_view field) { return pointer_append("/desc", field); }

std::string join_names(std::initializer_list<Named> tensors) {
    std::string s;
    size_t i = 0;
    for (const auto& t : tensors) {
        if (i > 0) s += (i + 1 == tensors.size()) ? " and " : ", ";
        s += t.name;
        ++i;
    }
    return s;
}


void require_same_data_type(Diagnostics& diags, std::initializer_list<Named> tensors, std::string_view rule) {
    const Named& first = *tensors.begin();
    for (const auto& t : tensors) {
        if (t.desc.DataType == first.desc.DataType) continue;
        diags.error(pointer_append(desc_path(t.name), "DataType"), std::string(rule),
                    std::string(t.name) + ".DataType is " + std::string(name(t.desc.DataType)) + " but " +
                    std::string(first.name) + ".DataType is " + std::string(name(first.desc.DataType)) + "; " +
                    join_names(tensors) + " must have the same DataType");
    }
}

void require_same_sizes(Diagnostics& diags, std::initializer_list<Named> tensors, std::string_view rule) {
    const Named& first = *tensors.begin();
    for (const auto& t : tensors) {
        if (t.desc.Sizes == first.desc.Sizes) continue;
        diags.error(pointer_append(desc_path(t.name), "Sizes"), std::string(rule),
                    std::string(t.name) + ".Sizes is " + sizes_text(t.desc.Sizes) + " but " + std::string(first.name) +
                    ".Sizes is " + sizes_text(first.desc.Sizes) + "; " + join_names(tensors) +
                    " must have the same DimensionCount and Sizes");
    }
}

}  // namespace dmlref::reference
