// Tensor values in JSON at speed (lib/case/json_values.cpp): element bits written as the text
// format_value gives, and number tokens read to bits where the result is certain; anything
// else (a rounded decimal, "nan", raw bits, an error) goes to the plain parse_value. Internal.
#pragma once

#include "dmlref/json_document.hpp"
#include "dmlref/types.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace dmlref {

// Appends format_value(t, bits) to `out`.
class ValueFormatter {
public:
    ValueFormatter(DataType t,
                   uint64_t count);  // count: how many values will be written (a table for FLOAT16 when many)
    void append(std::string& out, uint64_t bits) const;
    // The same text, in `buf` or, for the few values format_value spells out (non-finite floats,
    // integers past 2^53, FLOAT16 without the table), in `spill`.
    std::string_view text(uint64_t bits, char (&buf)[64], std::string& spill) const;

private:
    DataType t_;
    std::vector<std::string> half_table_;
};

// The bits of a token of kind `kind` (PackedArray::Kind) in type t, when a quick reading is
// certain to give what parse_value gives; with `exact_only`, only when the value is exactly
// representable (no value.inexact warning). False: ask parse_value.
bool quick_value(DataType t, uint8_t kind, std::string_view text, bool exact_only, uint64_t& bits);

}  // namespace dmlref
