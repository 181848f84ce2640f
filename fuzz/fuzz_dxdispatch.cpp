// libFuzzer target for `dmlref import-dxdispatch` (lib/interop/dxdispatch_import.cpp): any bytes as
// a DxDispatch model, imported with a 1 MiB limit per resource, and an imported case read back.
// Properties: nothing crashes or throws past the API (diagnostics and CaseError are the documented
// failures), no resource past the limit is allocated, and what imports is a valid case.
// Seeds: models `dmlref export-dxdispatch` writes for the bundled cases (fuzz/run.sh). docs/fuzzing.md.
#include "dmlref/case.hpp"
#include "dmlref/dxdispatch.hpp"
#include "dmlref/json_document.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace dmlref;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A folder of its own: a model's sourcePath may name files beside it (and never outside).
    static const std::filesystem::path dir = [] {
        const std::filesystem::path d = (std::filesystem::is_directory("/dev/shm")
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path()) /
                                        ("dmlref-fuzz-dxdispatch-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    const std::filesystem::path model = dir / "model.json";
    {
        std::ofstream out(model, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    DxImportOptions o;
    o.max_bytes = 1 << 20;
    Diagnostics diags;
    std::string text;
    try {
        text = import_dxdispatch(model, diags, o);
    } catch (const CaseError&) {
        return 0;
    }
    if (text.empty()) {
        if (!diags.has_errors()) std::abort();  // no case and no reason
        return 0;
    }
    Diagnostics d;
    try {
        (void)parse_case(parse_json_text(text), dir / "case.json", d);  // the limits the importer checked with
    } catch (const CaseError&) {
        std::abort();  // what imports reads back
    }
    if (d.has_errors()) std::abort();
    return 0;
}
