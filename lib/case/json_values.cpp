// Tensor values in JSON at speed: std::to_chars into one buffer, std::from_chars where the
// rounding is certain; tested value for value against format_value and parse_value.
#include "case/json_values.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace dmlref {

ValueFormatter::ValueFormatter(DataType t, uint64_t count) : t_(t) {
    // FLOAT16's shortest decimal takes a search; for many values, every pattern once.
    if (t == DataType::FLOAT16 && count >= 4096) {
        half_table_.resize(65536);
        for (uint32_t b = 0; b < 65536; ++b) half_table_[b] = format_value(t, b);
    }
}

void ValueFormatter::append(std::string& out, uint64_t bits) const {
    char buf[64];
    std::string spill;
    out += text(bits, buf, spill);
}

std::string_view ValueFormatter::text(uint64_t bits, char (&buf)[64], std::string& spill) const {
    char* e = buf;
    auto spelled = [&]() -> std::string_view {
        spill = format_value(t_, bits);
        return spill;
    };
    switch (t_) {
        case DataType::FLOAT16:
            if (!half_table_.empty()) return half_table_[bits & 0xffff];
            return spelled();
        case DataType::FLOAT32: {
            const uint32_t b = uint32_t(bits), mag = b & 0x7fffffffu;
            if (mag == 0) return b ? "-0.0" : "0";
            if (mag >= 0x7f800000u) return spelled();  // inf, nan
            e = std::to_chars(buf, buf + sizeof buf, from_bits<float>(b)).ptr;
            break;
        }
        case DataType::FLOAT64: {
            const uint64_t mag = bits & 0x7fffffffffffffffull;
            if (mag == 0) return bits ? "-0.0" : "0";
            if (mag >= 0x7ff0000000000000ull) return spelled();
            e = std::to_chars(buf, buf + sizeof buf, from_bits<double>(bits)).ptr;
            break;
        }
        case DataType::INT8: e = std::to_chars(buf, buf + sizeof buf, int8_t(bits)).ptr; break;
        case DataType::INT16: e = std::to_chars(buf, buf + sizeof buf, int16_t(bits)).ptr; break;
        case DataType::INT32: e = std::to_chars(buf, buf + sizeof buf, int32_t(bits)).ptr; break;
        case DataType::UINT8: e = std::to_chars(buf, buf + sizeof buf, uint8_t(bits)).ptr; break;
        case DataType::UINT16: e = std::to_chars(buf, buf + sizeof buf, uint16_t(bits)).ptr; break;
        case DataType::UINT32: e = std::to_chars(buf, buf + sizeof buf, uint32_t(bits)).ptr; break;
        case DataType::INT64: {
            const int64_t v = int64_t(bits);
            if (v > (int64_t(1) << 53) || v < -(int64_t(1) << 53)) return spelled();  // quoted
            e = std::to_chars(buf, buf + sizeof buf, v).ptr;
            break;
        }
        case DataType::UINT64:
            if (bits > (uint64_t(1) << 53)) return spelled();
            e = std::to_chars(buf, buf + sizeof buf, bits).ptr;
            break;
        default: return spelled();
    }
    return std::string_view(buf, size_t(e - buf));
}

namespace {

// Whether the decimal `s` (JSON number grammar) equals `v` exactly, decided from at most 19
// significant digits; nullopt when that is not enough to tell.
std::optional<bool> decimal_equals(std::string_view s, double v) {
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    size_t i = 0;
    const bool negative = !s.empty() && s[0] == '-';
    if (negative) ++i;
    bool point = false;
    int pending_zeros = 0;  // zeros not yet multiplied in (trailing zeros cost no digits)
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '.') {
            point = true;
            continue;
        }
        if (c < '0' || c > '9') break;
        if (point) --exp10;
        if (c == '0') {
            if (m != 0) ++pending_zeros;
            else if (!point) {
            }
            continue;
        }
        for (; pending_zeros; --pending_zeros) {
            if (++digits > 19) return std::nullopt;
            m *= 10;
        }
        if (++digits > 19) return std::nullopt;
        m = m * 10 + uint64_t(c - '0');
    }
    exp10 += pending_zeros;  // the value is m * 10^exp10
    if (i < s.size()) {      // exponent
        ++i;
        int e = 0, sign = 1;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            sign = s[i] == '-' ? -1 : 1;
            ++i;
        }
        for (; i < s.size(); ++i) {
            e = e * 10 + (s[i] - '0');
            if (e > 100000) return std::nullopt;
        }
        exp10 += sign * e;
    }
    if (m == 0) return v == 0 && std::signbit(v) == negative;
    if (std::signbit(v) != negative) return false;
    const double a = std::fabs(v);
    if (exp10 >= 0) {
        for (int k = 0; k < exp10; ++k) {
            if (m > UINT64_MAX / 10) return std::nullopt;
            m *= 10;
        }
        if (m > (uint64_t(1) << 53)) return std::nullopt;
        return double(m) == a;
    }
    if (-exp10 > 27) return std::nullopt;  // 5^27 < 2^63
    uint64_t p5 = 1;
    for (int k = 0; k < -exp10; ++k) p5 *= 5;
    if (m % p5 != 0) return false;  // not a dyadic rational: no binary float equals it
    const uint64_t q = m / p5;      // the value is q * 2^exp10
    if (q > (uint64_t(1) << 53)) return std::nullopt;
    return std::ldexp(double(q), exp10) == a;
}

}  // namespace

bool quick_value(DataType t, uint8_t kind, std::string_view s, bool exact_only, uint64_t& bits) {
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (kind == PackedArray::String || kind == PackedArray::Other) return false;
    if (!is_float(t)) {
        if (kind == PackedArray::Number) return false;
        return dispatch(t, [&]<class T>() {
            if constexpr (std::is_integral_v<T>) {
                T v;
                auto r = std::from_chars(b, e, v);
                if (r.ec != std::errc{} || r.ptr != e) return false;
                bits = uint64_t(to_bits(v)) &
                       (element_size(t) == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * element_size(t))) - 1);
                return true;
            } else return false;
        });
    }
    if (t == DataType::FLOAT32) {
        float f;
        auto r = std::from_chars(b, e, f);
        if (r.ec != std::errc{} || r.ptr != e || !std::isfinite(f)) return false;
        if (exact_only && decimal_equals(s, f) != true) return false;
        bits = to_bits(f);
        return true;
    }
    double d;
    auto r = std::from_chars(b, e, d);
    if (r.ec != std::errc{} || r.ptr != e || !std::isfinite(d)) return false;
    if (t == DataType::FLOAT64) {
        if (exact_only && decimal_equals(s, d) != true) return false;
        bits = to_bits(d);
        return true;
    }
    // FLOAT16 from the double nearest the decimal: right unless that double lies exactly halfway
    // between two binary16 values (a second rounding could then go the wrong way).
    const half h = half_from_double(d);
    const double hd = half_to_double(h);
    if (!std::isfinite(hd)) return false;
    if (hd != d) {
        if (exact_only) return false;
        const uint16_t hb = to_bits(h), sign = hb & 0x8000, mag = hb & 0x7fff;
        const uint16_t other = uint16_t(sign | (std::fabs(d) > std::fabs(hd) ? mag + 1 : mag - 1));
        const double od = half_to_double(from_bits<half>(other));
        if (!std::isfinite(od) || (hd + od) / 2 == d) return false;
    } else if (exact_only && decimal_equals(s, d) != true) return false;
    bits = to_bits(h);
    return true;
}

}  // namespace dmlref
