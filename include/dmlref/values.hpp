// One element's value as case files write it, and back, without losing a bit.
//
// Reading (docs/case-format.md, "Values"):
//   - a JSON number, or a string holding a decimal number: floats are rounded once, to nearest
//     with ties to even, from the exact decimal (never through a double first); integers must
//     be integers inside the type's range;
//   - "nan" / "-nan" (the canonical quiet NaN, positive or negative), "inf" / "-inf";
//   - "0x..." raw bits of the element, for any type (NaN payloads, signalling NaNs).
// Writing: integers as JSON numbers (as decimal strings beyond 2^53, where other JSON readers
// lose digits); floats as the shortest decimal that reads back to the same bits, -0 as -0.0,
// canonical NaNs as "nan"/"-nan", other NaNs as "0x..." bits, infinities as "inf"/"-inf".
#pragma once

#include "dmlref/types.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace dmlref {

// A scalar JSON token as the reader saw it.
struct ValueToken {
    enum class Kind { Integer, Unsigned, Number, String, Other } kind = Kind::Other;
    int64_t integer = 0;     // Kind::Integer
    uint64_t unsigned_ = 0;  // Kind::Unsigned
    std::string text;        // Kind::Number: the token exactly as written; Kind::String: the string
};

struct ParsedValue {
    bool ok = false;
    uint64_t bits = 0;     // the element's bits in the low bytes
    bool inexact = false;  // a decimal that had to be rounded
    std::string error;     // when !ok: what is wrong, for people
};

ParsedValue parse_value(DataType t, const ValueToken& token);

// Decimal text ("1.5", "-2e-3", "12345678901234567890") to the type, correctly rounded.
ParsedValue parse_decimal(DataType t, std::string_view text);

// The element's JSON text: a number token (e.g. 1.5, -0.0, 3, 1e+20) or a quoted string
// ("nan", "0x7fc00001", "18446744073709551615").
std::string format_value(DataType t, uint64_t bits);
// For values that specify an input (tensor data, desc scalars): the shortest decimal that is
// exactly the value, with at most 40 significant digits, else the raw bits ("0x00000001"), so
// that reading it back never rounds (and never warns).
std::string format_exact_value(DataType t, uint64_t bits);
// The same, never as a string: the shortest decimal for finite floats (for messages and tables);
// NaN and infinities as nan, -inf, and NaNs with other payloads as nan(0x7fc00001).
std::string display_value(DataType t, uint64_t bits);
std::string hex_bits(DataType t, uint64_t bits);  // "0x3c00", zero-padded to the element width

// Bits of an element read from memory, and written to memory.
uint64_t load_bits(DataType t, const std::byte* p);
void store_bits(DataType t, std::byte* p, uint64_t bits);

}  // namespace dmlref
