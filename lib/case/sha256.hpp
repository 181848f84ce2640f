// SHA-256 (FIPS 180-4) for the checksums of .npy files beside a golden (docs/case-format.md).
// Internal to dmlref; tested against the standard's vectors in test/test_golden_io.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dmlref {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t n);
    void update(std::string_view s) { update(s.data(), s.size()); }
    std::array<uint8_t, 32> digest();  // ends the hash
    std::string hex();                 // the digest as 64 lowercase hex digits (ends the hash)

private:
    void blocks(const uint8_t* p, size_t count);
    std::array<uint32_t, 8> h_;
    std::array<uint8_t, 64> buffer_{};
    size_t buffered_ = 0;
    uint64_t length_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace dmlref
