#include "dmlref/values.hpp"

#include "dmlref/bits.hpp"

#include "dmlref/numeric.hpp"

#include <cfenv>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace dmlref {

namespace {

// strtod under one rounding mode (glibc's strtod honours the current mode and is exact).
double strtod_rounded(const std::string& s, int mode) {
    const int saved = std::fegetround();
    std::fesetround(mode);
    const double d = std::strtod(s.c_str(), nullptr);
    std::fesetround(saved);
    return d;
}

// A decimal number in JSON's grammar (an optional '+' too): [-+]?digits[.digits][(e|E)[-+]?digits]
bool is_decimal_syntax(std::string_view s) {
    size_t i = 0;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t int_start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == int_start) return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const size_t frac = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == frac) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
        const size_t exp = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == exp) return false;
    }
    return i == s.size();
}

bool is_integer_syntax(std::string_view s) {
    size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

template <class T> uint64_t bits_of(T v) { return uint64_t(to_bits(v)); }

uint64_t width_mask(DataType t) {
    const uint32_t n = element_size(t) * 8;
    return n == 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1);
}

ParsedValue fail(std::string msg) {
    ParsedValue p;
    p.error = std::move(msg);
    return p;
}

ParsedValue parse_integer_text(DataType t, std::string_view s) {
    std::string_view digits = s;
    bool negative = false;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
    }
    // Accumulate in 128 bits; anything longer than 39 digits is out of every range.
    if (digits.size() > 38) return fail(std::string(s) + " is outside the range of " + std::string(name(t)));
    int128_t v = 0;
    for (char c : digits) v = v * 10 + (c - '0');
    if (negative) v = -v;
    int128_t lo, hi;
    dispatch(t, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
            lo = std::numeric_limits<T>::min();
            hi = std::numeric_limits<T>::max();
        } else {
            lo = 0;
            hi = -1;
        }
    });
    if (v < lo || v > hi) {
        const auto lo_s = dispatch(t, [&]<class T>() -> std::string {
            if constexpr (std::is_integral_v<T>)
                return std::to_string(std::numeric_limits<T>::min()) + " to " +
                       std::to_string(std::numeric_limits<T>::max());
            else return "";
        });
        return fail(std::string(s) + " is outside the range of " + std::string(name(t)) + " (" + lo_s + ")");
    }
    ParsedValue p;
    p.ok = true;
    p.bits = uint64_t(v) & width_mask(t);  // two's complement
    return p;
}

}  // namespace

ParsedValue parse_decimal(DataType t, std::string_view text) {
    if (!is_decimal_syntax(text)) return fail("\"" + std::string(text) + "\" is not a number");
    if (!is_float(t)) {
        if (!is_integer_syntax(text))
            return fail(std::string(text) + " is not an integer; " + std::string(name(t)) +
                        " elements must be integers");
        return parse_integer_text(t, text);
    }
    const std::string s(text);
    const double down = strtod_rounded(s, FE_DOWNWARD);
    const double up = strtod_rounded(s, FE_UPWARD);
    const bool exact_double = down == up && to_bits(down) == to_bits(up);
    ParsedValue p;
    p.ok = true;
    if (t == DataType::FLOAT64) {
        const double d = exact_double ? down : strtod_rounded(s, FE_TONEAREST);
        p.bits = bits_of(d);
        p.inexact = !exact_double;
    } else if (t == DataType::FLOAT32) {
        const int saved = std::fegetround();
        std::fesetround(FE_TONEAREST);
        const float f = std::strtof(s.c_str(), nullptr);  // correctly rounded from the decimal
        std::fesetround(saved);
        p.bits = bits_of(f);
        p.inexact = !exact_double || double(f) != down;
    } else {
        // FLOAT16: round the decimal to double by round-to-odd (truncate, then set the last bit
        // if anything was lost), then once to binary16. With 53 >= 11 + 2 bits the result is
        // the correctly rounded binary16 of the decimal (no double-rounding error).
        double odd = down;
        if (!exact_double) {
            const double toward_zero = std::signbit(down) || down < 0 ? up : down;
            odd = from_bits<double>(to_bits(toward_zero) | 1u);
        }
        const half h = half_from_double(odd);
        p.bits = bits_of(h);
        p.inexact = !exact_double || half_to_double(h) != down;
    }
    return p;
}

ParsedValue parse_value(DataType t, const ValueToken& token) {
    switch (token.kind) {
        case ValueToken::Kind::Integer: return parse_decimal(t, std::to_string(token.integer));
        case ValueToken::Kind::Unsigned: return parse_decimal(t, std::to_string(token.unsigned_));
        case ValueToken::Kind::Number: return parse_decimal(t, token.text);
        case ValueToken::Kind::Other: return fail("expected a number or a string");
        case ValueToken::Kind::String: break;
    }
    const std::string& s = token.text;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        uint64_t bits = 0;
        auto r = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
        if (r.ec != std::errc{} || r.ptr != s.data() + s.size())
            return fail("\"" + s + "\" is not a hexadecimal bit pattern");
        if ((bits & ~width_mask(t)) != 0)
            return fail("\"" + s + "\" has more bits than a " + std::to_string(element_size(t) * 8) + "-bit " +
                        std::string(name(t)) + " element");
        ParsedValue p;
        p.ok = true;
        p.bits = bits;
        return p;
    }
    if (s == "nan" || s == "-nan" || s == "inf" || s == "-inf") {
        if (!is_float(t)) return fail("\"" + s + "\" is not a value of the integer type " + std::string(name(t)));
        const bool negative = s[0] == '-';
        const bool nan = s.find("nan") != std::string::npos;
        ParsedValue p;
        p.ok = true;
        dispatch(t, [&]<class T>() {
            if constexpr (is_floating_v<T>) {
                T v = nan ? canonical_nan<T>() : T(std::numeric_limits<float>::infinity());
                uint64_t b = bits_of(v);
                if (negative) b |= uint64_t(1) << (element_size(t) * 8 - 1);
                p.bits = b;
            }
        });
        return p;
    }
    if (is_decimal_syntax(s)) return parse_decimal(t, s);
    return fail(
        "\"" + s +
        "\" is not a value: write a number, \"nan\", \"-nan\", \"inf\", \"-inf\" or raw bits such as \"0x7fc00001\"");
}

std::string hex_bits(DataType t, uint64_t bits) {
    static const char* digits = "0123456789abcdef";
    std::string s = "0x";
    for (int i = int(element_size(t)) * 2 - 1; i >= 0; --i) s += digits[(bits >> (4 * i)) & 0xf];
    return s;
}

bool is_nan_bits(DataType t, uint64_t bits) {
    return dispatch(t, [&]<class T>() { return is_nan(from_bits<T>(bits_t<T>(bits))); });
}

double element_value(DataType t, uint64_t bits) {
    switch (t) {
        case DataType::FLOAT16: return half_to_double(from_bits<half>(uint16_t(bits)));
        case DataType::FLOAT32: return double(from_bits<float>(uint32_t(bits)));
        case DataType::FLOAT64: return from_bits<double>(bits);
        case DataType::INT8: return double(int8_t(uint8_t(bits)));
        case DataType::INT16: return double(int16_t(uint16_t(bits)));
        case DataType::INT32: return double(int32_t(uint32_t(bits)));
        case DataType::INT64: return double(int64_t(bits));
        default: return double(bits);  // unsigned: the bits are the value (rounded to float64 past 2^53)
    }
}

namespace {

// Shortest decimal that reads back (through parse_decimal) to the same bits. Finite only.
std::string shortest_decimal(DataType t, uint64_t bits) {
    char buf[64];
    if (t == DataType::FLOAT64) {
        auto r = std::to_chars(buf, buf + sizeof buf, from_bits<double>(bits));
        return std::string(buf, r.ptr);
    }
    if (t == DataType::FLOAT32) {
        auto r = std::to_chars(buf, buf + sizeof buf, from_bits<float>(uint32_t(bits)));
        return std::string(buf, r.ptr);
    }
    const double d = half_to_double(from_bits<half>(uint16_t(bits)));
    for (int precision = 1; precision <= 17; ++precision) {
        auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, precision);
        std::string s(buf, r.ptr);
        if (parse_decimal(t, s).bits == bits) return s;
    }
    auto r = std::to_chars(buf, buf + sizeof buf, d);  // unreachable: 17 digits always round-trip
    return std::string(buf, r.ptr);
}

}  // namespace

std::string display_value(DataType t, uint64_t bits) {
    if (!is_float(t)) {
        return dispatch(t, [&]<class T>() -> std::string {
            if constexpr (std::is_integral_v<T>) return std::to_string(from_bits<T>(bits_t<T>(bits)));
            else return "";
        });
    }
    const uint64_t sign = uint64_t(1) << (element_size(t) * 8 - 1);
    const uint64_t magnitude = bits & ~sign;
    const bool negative = (bits & sign) != 0;
    const uint64_t inf = t == DataType::FLOAT16 ? 0x7c00 : t == DataType::FLOAT32 ? 0x7f800000 : 0x7ff0000000000000ull;
    if (magnitude == inf) return negative ? "-inf" : "inf";
    if (is_nan_bits(t, bits)) {
        const uint64_t canonical = dispatch(t, [&]<class T>() -> uint64_t {
            if constexpr (is_floating_v<T>) return bits_of(canonical_nan<T>());
            else return 0;
        });
        if (magnitude == canonical) return negative ? "-nan" : "nan";
        return "nan(" + hex_bits(t, bits) + ")";
    }
    std::string s = shortest_decimal(t, bits);
    if (magnitude == 0 && negative) return "-0.0";
    return s;
}

std::string format_value(DataType t, uint64_t bits) {
    if (!is_float(t)) {
        const std::string s = display_value(t, bits);
        // Beyond 2^53 many JSON readers round; write those as strings.
        const bool big = dispatch(t, [&]<class T>() {
            if constexpr (std::is_integral_v<T>) {
                const int128_t v = from_bits<T>(bits_t<T>(bits));
                return v > (int128_t(1) << 53) || v < -(int128_t(1) << 53);
            } else return false;
        });
        return big ? "\"" + s + "\"" : s;
    }
    const std::string s = display_value(t, bits);
    if (s == "nan" || s == "-nan" || s == "inf" || s == "-inf") return "\"" + s + "\"";
    if (s.rfind("nan(", 0) == 0) return "\"" + hex_bits(t, bits) + "\"";
    return s;
}

std::string format_exact_value(DataType t, uint64_t bits) {
    const std::string s = format_value(t, bits);
    if (!is_float(t) || s.front() == '"') return s;
    if (!parse_decimal(t, s).inexact) return s;
    const double d = dispatch(t, [&]<class T>() {
        if constexpr (is_floating_v<T>) return widen(from_bits<T>(bits_t<T>(bits)));
        else return 0.0;
    });
    char buf[96];
    for (int digits = 2; digits <= 40; ++digits) {
        auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, digits);
        const std::string e(buf, r.ptr);
        const ParsedValue p = parse_decimal(t, e);
        if (p.ok && !p.inexact && p.bits == bits) return e;
    }
    return "\"" + hex_bits(t, bits) + "\"";
}

uint64_t load_bits(DataType t, const std::byte* p) {
    uint64_t b = 0;
    std::memcpy(&b, p, element_size(t));  // little-endian hosts (checked in meson.build)
    return b;
}

void store_bits(DataType t, std::byte* p, uint64_t bits) { std::memcpy(p, &bits, element_size(t)); }

}  // namespace dmlref
