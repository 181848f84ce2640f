// libFuzzer target for `dmlref gen`'s inputs: a sweep spec (text starting with '{') or a one-line
// descriptor (anything else), planned (docs/gen.md; making the planned cases is the case
// pipeline's, which fuzz_case covers, and could ask for any size of tensor). Properties:
//   - nothing crashes, recurses without bound or throws past the API (diagnostics and CaseError
//     are the documented failures);
//   - a spec plans at most Options::max_cases cases, found from the counts before anything is
//     built (gen.too-many-cases), and a use cycle is an error (gen.use-cycle).
// Seeds: the bundled sweeps/, plus specs with defs, use and deep products, and descriptors
// (fuzz/run.sh). docs/fuzzing.md.
#include "dmlref/descriptor.hpp"
#include "dmlref/gen.hpp"
#include "dmlref/json_document.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace dmlref;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    gen::Options o;
    o.max_cases = 4096;  // keeps every run small; the limit itself is what is checked
    std::vector<gen::Planned> planned;
    Diagnostics diags;
    try {
        if (!text.empty() && text[0] == '{') {
            planned = gen::plan_spec(parse_json_text(text), o, diags);
        } else if (auto p = descriptor_to_planned(text, diags)) {
            planned.push_back(std::move(*p));
        }
    } catch (const CaseError&) {
        return 0;
    }
    if (planned.size() > o.max_cases) std::abort();  // the limit holds
    return 0;
}
