// The one-line case descriptor (docs/gen.md, "Descriptors"): parsing it into a planned case, and
// writing the descriptor of a case.
#include "dmlref/descriptor.hpp"

namespace dmlref {

std::optional<gen::Planned> descriptor_to_planned(const std::string& text, Diagnostics& diags) {
    diags.error("", "descriptor.syntax", "descriptors are not implemented yet: " + text);
    return std::nullopt;
}

std::string case_descriptor(const Case&, std::string& why) {
    why = "not implemented";
    return "";
}

}  // namespace dmlref
