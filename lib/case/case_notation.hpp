// Keeping the author's notation in goldens (docs/case-format.md, "Notation"): what the reader
// records and the writer compares. Internal to dmlref.
#pragma once

#include "dmlref/case.hpp"
#include "case/json_writer.hpp"

#include <string>

namespace dmlref {

// The desc as a golden writes it canonically (lib/case/case_write.cpp).
ordered_json canonical_desc_json(const Operator& op);

// Whether `diags` holds a value.inexact warning under `path`, among its items from `from` on.
bool inexact_under(const Diagnostics& diags, const std::string& path, size_t from);

}  // namespace dmlref
