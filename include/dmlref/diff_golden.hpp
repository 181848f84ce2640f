// `dmlref diff` of a golden already read (lib/judge/diff.cpp): for callers that hold the case,
// such as `dmlref test`, which reads each golden once. Kept out of diff.hpp, which most of the
// tree includes.
#pragma once

#include "dmlref/diff.hpp"

namespace dmlref {

// As diff_case(golden_file, actual, options), on `golden` as read from `golden_file` (named in
// the errors): the same census, readings and error texts.
CaseDiff diff_case(const Case& golden, const std::filesystem::path& golden_file, const std::filesystem::path& actual,
                   const DiffOptions& options);

}  // namespace dmlref
