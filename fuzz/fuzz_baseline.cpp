// libFuzzer target for `dmlref diff --baseline FILE`'s reader (lib/judge/baseline.cpp): any bytes as
// a baseline file, read, compared with an empty report and printed. Properties: nothing crashes
// or throws past the API (BaselineError is the documented failure), and a printed report has no
// control character from the file in it (names are printed escaped). docs/fuzzing.md.
#include "dmlref/baseline.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace dmlref;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string file = (std::filesystem::is_directory("/dev/shm")
                                         ? std::string("/dev/shm")
                                         : std::filesystem::temp_directory_path().string()) +
                                    "/dmlref-fuzz-baseline-" + std::to_string(::getpid());
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    std::vector<BaselineEntry> baseline;
    try {
        baseline = read_baseline(file);
    } catch (const BaselineError&) {
        return 0;
    }
    const DiffReport empty{};
    const BaselineComparison c = compare_baseline(empty, baseline);
    if (c.fixed.size() != baseline.size()) std::abort();  // nothing ran: every entry is fixed
    const std::string text = baseline_text(c, "fuzz.json");
    for (char ch : text)
        if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7f) std::abort();  // escaped
    return 0;
}
