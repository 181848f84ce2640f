#include "common.hpp"

namespace dmlref::reference {

std::string desc_path(std::string_view field) {
    if (const auto e = split_tensor_array_element(field))  // "InputTensors[2]" is /desc/InputTensors/2
        return pointer_append(pointer_append("/desc", e->first), e->second);
    return pointer_append("/desc", field);
}

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

bool validate_pooling_arrays(Diagnostics& diags, const PoolingArrays& a) {
    auto rule = [&](std::string_view id) { return std::string(a.op) + "." + std::string(id); };
    bool ok = true;
    if (a.DimensionCount != a.rank - 2) {
        diags.error("/desc/DimensionCount", rule("dimension-count"),
                    "DimensionCount is " + std::to_string(a.DimensionCount) + " but " + std::string(a.input) + " has " +
                        std::to_string(a.rank) + " dimensions; DimensionCount must be " + std::string(a.input) +
                        "'s DimensionCount - 2 = " + std::to_string(a.rank - 2));
        ok = false;
    }
    struct Array {
        std::string_view name;
        const std::vector<uint32_t>* v;
        std::string_view nonzero;
    };
    const Array arrays[] = {{"Strides", &a.Strides, "stride-nonzero"},
                            {"WindowSize", &a.WindowSize, "window-nonzero"},
                            {"StartPadding", &a.StartPadding, ""},
                            {"EndPadding", &a.EndPadding, ""},
                            {"Dilations", a.Dilations, "dilation-nonzero"}};
    for (const auto& x : arrays) {
        if (!x.v) continue;
        if (x.v->size() != a.DimensionCount) {
            diags.error(desc_path(x.name), rule("array-length"),
                        std::string(x.name) + " has " + std::to_string(x.v->size()) +
                            " entries; it must have DimensionCount = " + std::to_string(a.DimensionCount));
            ok = false;
            continue;
        }
        if (x.nonzero.empty()) continue;
        for (size_t i = 0; i < x.v->size(); ++i)
            if ((*x.v)[i] == 0)
                diags.error(pointer_append(desc_path(x.name), i), rule(x.nonzero),
                            std::string(x.name) + "[" + std::to_string(i) + "] is 0; it must be at least 1");
    }
    return ok;
}

}  // namespace dmlref::reference
