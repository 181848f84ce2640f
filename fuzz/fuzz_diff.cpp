// libFuzzer target for diff's readers of a backend's outputs (lib/judge/diff.cpp): any bytes, as a
// .npy file and as a raw buffer, against a strided FLOAT16 golden output, then the census and
// the JSON report. Properties: nothing crashes (DiffError is the documented failure), and values
// that read have the output's logical size. docs/fuzzing.md.
#include "dmlref/descs/activation.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/json_document.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace dmlref;

namespace {

const Case& golden() {
    static const Case c = [] {
        const std::string text = R"({"format": 1, "name": "g", "operator": "DML_OPERATOR_ACTIVATION_RELU",
          "desc": {"InputTensor": {"DataType": "FLOAT16", "Sizes": [2, 3]},
                   "OutputTensor": {"DataType": "FLOAT16", "Sizes": [2, 3], "Strides": [4, 1]}},
          "inputs": {"InputTensor": [1, -2, 3, -4, "nan", "-inf"]},
          "expected": {"OutputTensor": {"Values": [1, 0, 3, 0, "nan", 0]}}})";
        Diagnostics d;
        Case k = parse_case(parse_json_text(text), "fuzz/golden.json", d);
        if (d.has_errors()) std::abort();
        return k;
    }();
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // In memory where there is a tmpfs: a file per input on a disk is slow.
    static const std::string file = (std::filesystem::is_directory("/dev/shm")
                                         ? std::string("/dev/shm")
                                         : std::filesystem::temp_directory_path().string()) +
                                    "/dmlref-fuzz-diff-" + std::to_string(::getpid());
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    const Case& g = golden();
    const TensorDesc& d = get<DML_ACTIVATION_RELU_OPERATOR_DESC>(g.op.Desc).OutputTensor;
    DiffOptions options;
    options.max_bytes = 1 << 20;
    for (int raw = 0; raw < 2; ++raw) {
        std::vector<std::byte> values;
        try {
            values = raw ? read_actual_raw(file, d, options.max_bytes) : read_actual_npy(file, d, options.max_bytes);
        } catch (const DiffError&) {
            continue;
        }
        if (values.size() != element_count(d) * element_size(d.DataType)) std::abort();
        CaseDiff cd;
        cd.golden = "fuzz/golden.json";
        cd.name = "g";
        cd.outputs.push_back(census(g, "OutputTensor", values, options));
        DiffReport r;
        r.cases.push_back(cd);
        (void)report_json(r);
        (void)report_text(r);
    }
    return 0;
}
