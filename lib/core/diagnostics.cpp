#include "dmlref/diagnostics.hpp"

namespace dmlref {

namespace {
// At most `n` bytes of `s` (cut at a UTF-8 character boundary), with how much was left out: a key
// or a number of megabytes quoted in an error stays a line.
std::string clipped(std::string_view s, size_t n) {
    if (s.size() <= n) return std::string(s);
    size_t cut = n;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
    return std::string(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes in all)";
}
}  // namespace

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
    for (const auto& item : d.items()) if (item.severity == Severity::Error) return item.message;
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
