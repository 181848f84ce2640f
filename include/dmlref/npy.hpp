// NumPy .npy files (format 1.0 and 2.0, little-endian; Fortran-order arrays are read into C order) for the eleven element types:
// '<f2' '<f4' '<f8' '|i1' '<i2' '<i4' '<i8' '|u1' '<u2' '<u4' '<u8' ('<i1'/'|u1' spellings too).
#pragma once

#include "dmlref/types.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlref {

struct NpyArray {
    DataType data_type = DataType::UNKNOWN;
    std::vector<uint64_t> shape;
    std::vector<std::byte> data;  // little-endian elements, C (row-major) order, whatever the file's order
};

// Thrown with a sentence that says what is wrong (the header, the dtype, the order, the size).
class NpyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads a .npy file; `max_bytes` bounds the data it will allocate (checked against the file size
// and the header before any allocation).
// The header and the data are read once each, the data straight into its buffer. With `sha256`,
// the SHA-256 of the file's bytes is stored there (hex).
NpyArray read_npy(const std::filesystem::path& file, uint64_t max_bytes, std::string* sha256 = nullptr);
NpyArray parse_npy(const std::string& bytes, uint64_t max_bytes);
// Written atomically (dmlref/atomic_file.hpp); throws NpyError when it cannot be written.
void write_npy(const std::filesystem::path& file, const NpyArray& a);
// The same from a buffer (no copy); with `sha256`, the SHA-256 of the file's bytes is stored there.
void write_npy(const std::filesystem::path& file, DataType t, const std::vector<uint64_t>& shape,
               std::span<const std::byte> data, std::string* sha256 = nullptr);
std::string npy_header(DataType t, const std::vector<uint64_t>& shape);  // the bytes before the data
std::string npy_bytes(const NpyArray& a);                                // the file's bytes
std::string npy_dtype(DataType t);                                       // "<f4"

}  // namespace dmlref
