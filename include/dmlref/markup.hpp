// Text escaped for HTML and XML: the characters markup gives meaning to, in text and in
// double-quoted attribute values. The coverage page (lib/gen/coverage_report.cpp) and the JUnit
// report of `dmlref test` (tools/cmd_test.cpp) write through it.
#pragma once
#include <string>
#include <string_view>

namespace dmlref {

inline std::string markup_escaped(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        switch (ch) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += ch;
        }
    }
    return out;
}

}  // namespace dmlref
