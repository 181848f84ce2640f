// A case error of one diagnostic, thrown: how the JSON parser and the document reader stop on bad
// input. Internal to dmlref.
#pragma once

#include "dmlref/diagnostics.hpp"

#include <string>

namespace dmlref::case_detail {

[[noreturn]] inline void fail(std::string rule, std::string message, std::string path = "") {
    Diagnostics d;
    d.error(std::move(path), std::move(rule), std::move(message));
    throw CaseError(std::move(d));
}

}  // namespace dmlref::case_detail
