// Errors and warnings about a case or an operator desc. Each names where (a JSON pointer into
// the case, such as /desc/InputTensor/Sizes/2), the rule broken (a stable id, listed in
// docs/rules.md) and a sentence that quotes the spec's own rule where there is one.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dmlref {

enum class Severity { Error, Warning };

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string path;     // JSON pointer ("" is the whole document)
    std::string rule;     // stable id, e.g. "tensor.sizes.positive"
    std::string message;  // one sentence for people
};

class Diagnostics {
public:
    void error(std::string path, std::string rule, std::string message) {
        items_.push_back({Severity::Error, std::move(path), std::move(rule), std::move(message)});
    }
    void warning(std::string path, std::string rule, std::string message) {
        items_.push_back({Severity::Warning, std::move(path), std::move(rule), std::move(message)});
    }
    void append(const Diagnostics& other) { items_.insert(items_.end(), other.items_.begin(), other.items_.end()); }
    // Items [first, end) replaced by those of `other`.
    void replace(size_t first, size_t end, const Diagnostics& other) {
        items_.erase(items_.begin() + std::ptrdiff_t(first), items_.begin() + std::ptrdiff_t(end));
        items_.insert(items_.begin() + std::ptrdiff_t(first), other.items_.begin(), other.items_.end());
    }
    bool has_errors() const {
        for (const auto& d : items_)
            if (d.severity == Severity::Error) return true;
        return false;
    }
    size_t error_count() const {
        size_t n = 0;
        for (const auto& d : items_) n += d.severity == Severity::Error;
        return n;
    }
    const std::vector<Diagnostic>& items() const { return items_; }

private:
    std::vector<Diagnostic> items_;
};

// "FILE: PATH: error: MESSAGE [RULE]"; PATH is "/" for the whole document.
std::string format(const Diagnostic& d, std::string_view file);

// Thrown where a case cannot be read any further (unparseable JSON, an unreadable file).
// Carries the diagnostics gathered so far.
class CaseError : public std::runtime_error {
public:
    explicit CaseError(Diagnostics d);
    const Diagnostics& diagnostics() const { return diagnostics_; }

private:
    Diagnostics diagnostics_;
};

// JSON pointer helpers: escape a key ('~' -> "~0", '/' -> "~1") and join.
std::string pointer_append(std::string_view base, std::string_view key);
std::string pointer_append(std::string_view base, size_t index);

}  // namespace dmlref
