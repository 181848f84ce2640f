#include "dmlref/diagnostics.hpp"

#include "dmlref/printable.hpp"

namespace dmlref {

std::string format(const Diagnostic& d, std::string_view file) {
    std::string s(clipped(file, 512));
    s += ": ";
    s += d.path.empty() ? "/" : clipped(d.path, 256);
    s += d.severity == Severity::Error ? ": error: " : ": warning: ";
    s += clipped(d.message, 1024);
    s += " [";
    s += d.rule;
    s += "]";
    return s;
}

namespace {
std::string first_message(const Diagnostics& d) {
    for (const auto& item : d.items())
        if (item.severity == Severity::Error) return item.message;
    return "invalid case";
}
}  // namespace

CaseError::CaseError(Diagnostics d) : std::runtime_error(first_message(d)), diagnostics_(std::move(d)) {}

std::string pointer_append(std::string_view base, std::string_view key) {
    std::string s(base);
    s += '/';
    for (char c : key) {
        if (c == '~') s += "~0";
        else if (c == '/') s += "~1";
        else s += c;
    }
    return s;
}

std::string pointer_append(std::string_view base, size_t index) {
    return std::string(base) + "/" + std::to_string(index);
}

}  // namespace dmlref
