// libFuzzer target for .npy reading (lib/case/npy.cpp): any bytes -> parse_npy. Properties: nothing
// crashes or allocates past the limit (NpyError is the documented failure), and an array that
// reads writes back (npy_bytes) to bytes that read to the same array. docs/fuzzing.md.
#include "dmlref/npy.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace dmlref;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    NpyArray a;
    try {
        a = parse_npy(bytes, 1 << 20);
    } catch (const NpyError&) {
        return 0;
    }
    if (a.data.size() > (1u << 20)) std::abort();
    const NpyArray b = parse_npy(npy_bytes(a), 1 << 20);
    if (b.data_type != a.data_type || b.shape != a.shape || b.data != a.data) std::abort();
    return 0;
}
