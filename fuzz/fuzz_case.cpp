// libFuzzer target for the whole case pipeline: JSON text -> parse_case (every rule) -> run ->
// write_golden -> parse again. Properties checked on every input:
//   - nothing crashes, hangs or throws past the API (CaseError is the documented failure);
//   - buffers stay under the byte limit given to the loader (a bad size is an error, not an
//     allocation);
//   - a valid case written as a golden reads back to the same input bits and expected values.
// Build and run: fuzz/run.sh [SECONDS] (docs/fuzzing.md). The bundled cases/ are the seed corpus.
#include "dmlref/case.hpp"
#include "dmlref/json_document.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace dmlref;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    LoadOptions options;
    options.max_bytes = 1 << 20;  // 1 MiB per buffer keeps every run small
    options.max_work = 1 << 24;   // and so does a bound on the work (limit.work)
    Diagnostics diags;
    Case c;
    try {
        const JsonDocument doc = parse_json_text(text);
        c = parse_case(doc, "fuzz/case.json", diags, options);
    } catch (const CaseError&) {
        return 0;
    }
    if (diags.has_errors()) return 0;
    const Outputs out = run_case(c);
    const std::string golden = write_golden(c, out, "fuzz/golden.json");
    Diagnostics again;
    const Case d = parse_case(parse_json_text(golden), "fuzz/golden.json", again, options);
    if (again.has_errors() || d.inputs != c.inputs || compare_expected(d, out).size() != 0) {
        std::fprintf(stderr, "golden did not read back:\n%s\n", golden.c_str());
        for (const auto& item : again.items()) std::fprintf(stderr, "%s\n", format(item, "golden").c_str());
        std::abort();
    }
    return 0;
}
