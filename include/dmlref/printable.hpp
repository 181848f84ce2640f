// Text from a case file or a file name made safe to print: control characters, DEL and bytes
// that are not UTF-8 are written as \n, \t, \xNN, so a name cannot forge a log line or move the
// terminal's cursor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dmlref {

// Length of the valid UTF-8 sequence starting at s[i] (1 to 4), or 0 when it is not one.
inline size_t utf8_sequence_length(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    size_t n;
    uint32_t cp;
    if (c < 0x80) return 1;
    else if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else return 0;
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3f);
    }
    static constexpr uint32_t min_for[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

inline bool is_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_sequence_length(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

inline std::string printable(std::string_view s) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const size_t n = utf8_sequence_length(s, i);
        const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;  // U+0080..U+009F
        if (n > 1 && !c1) {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        if (c1) {
            out += "\\u00";
            out += hex[static_cast<unsigned char>(s[i + 1]) >> 4];
            out += hex[s[i + 1] & 15];
            i += 2;
            continue;
        }
        if (n == 1 && c >= 0x20 && c != 0x7f) {
            out += char(c);
            ++i;
            continue;
        }
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
        ++i;
    }
    return out;
}

// At most `n` bytes of `s` (cut at a UTF-8 character boundary), with how much was left out: a key,
// a token or a number of megabytes quoted in an error stays a line.
inline std::string clipped(std::string_view s, size_t n) {
    if (s.size() <= n) return std::string(s);
    size_t cut = n;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
    return std::string(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes in all)";
}

}  // namespace dmlref
