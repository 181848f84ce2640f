// The HTML report of `dmlref test --html` (docs/test.md, "Reports"): one self-contained page, built
// from the results `--json` writes and the pictures of the failing outputs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlref::cli {

// The picture of one output over tolerance: PNG bytes, or why there is none.
struct OutputPicture {
    std::string output;
    std::string png;
    std::string why_none;
};

// `report` is the object `dmlref test --json` writes; pictures[k] belong to report["cases"][k].
// Every text from the report is escaped; the page has no script and no reference outside itself
// (the pictures are data: URIs).
std::string test_html(const nlohmann::json& report, const std::vector<std::vector<OutputPicture>>& pictures);

}  // namespace dmlref::cli
