// `dmlref diff`: reading a backend's actual values (.npy files and raw buffers) for an output
// desc (docs/diff.md).
#include "dmlref/diff.hpp"

#include "dmlref/npy.hpp"
#include "dmlref/values.hpp"

#include <fstream>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace dmlref {

// ---- Reading actual values -------------------------------------------------------------------

namespace {

template <class V> std::vector<uint64_t> without_ones(const V& s) {
    std::vector<uint64_t> out;
    for (auto n : s)
        if (n != 1) out.push_back(n);
    return out;
}

std::string read_file_bytes(const fs::path& file, uint64_t max_bytes) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw DiffError(file.string() + ": no such file");
    const auto size = fs::file_size(file, ec);
    if (ec) throw DiffError(file.string() + ": cannot read: " + ec.message());
    if (size > max_bytes)
        throw DiffError(file.string() + ": " + std::to_string(size) + " bytes, over the limit of " +
                        std::to_string(max_bytes));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw DiffError(file.string() + ": cannot open");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A 1-D array holding the output's whole buffer (TotalTensorSizeInBytes / element size elements,
// as DxDispatch's writeFile dumps a resource), read through the output's Strides; nullopt when
// the array is not that.
std::optional<std::vector<std::byte>> logical_from_whole_buffer(const NpyArray& a, const TensorDesc& d) {
    if (a.shape.size() != 1 || a.data.size() != buffer_size(d)) return std::nullopt;
    return gather_logical(d, a.data);
}

}  // namespace

std::vector<std::byte> read_actual_npy(const fs::path& file, const TensorDesc& d, uint64_t max_bytes) {
    NpyArray a;
    try {
        a = read_npy(file, max_bytes);
    } catch (const NpyError& e) {
        throw DiffError(file.string() + ": " + e.what());
    }
    if (a.data_type != d.DataType)
        throw DiffError(file.string() + ": wrong dtype: the file holds " + npy_dtype(a.data_type) + " (" +
                        std::string(name(a.data_type)) + "), the golden output's DataType is " +
                        std::string(name(d.DataType)) + " (" + npy_dtype(d.DataType) + ")");
    // The elements are in row-major order of the shape; dimensions of size 1 do not change that order.
    if (without_ones(a.shape) == without_ones(d.Sizes)) return std::move(a.data);
    if (auto logical = logical_from_whole_buffer(a, d)) return std::move(*logical);
    std::string shape = "(";
    for (size_t i = 0; i < a.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape[i]);
    throw DiffError(file.string() + ": wrong shape: the file's shape is " + shape + (a.shape.size() == 1 ? ",)" : ")") +
                    ", the golden output's Sizes are " + sizes_text(d.Sizes) +
                    (a.shape.size() == 1 ? " (a 1-D file may also hold the whole buffer: " +
                                               std::to_string(buffer_size(d) / element_size(d.DataType)) + " elements)"
                                         : std::string()));
}

std::vector<std::byte> read_actual_raw(const fs::path& file, const TensorDesc& d, uint64_t max_bytes) {
    const std::string bytes = read_file_bytes(file, max_bytes);
    const uint64_t w = element_size(d.DataType);
    const uint64_t needed = (index_of_last_element(d) + 1) * w;
    const uint64_t total = buffer_size(d);
    const std::string what = std::string(name(d.DataType)) + " " + sizes_text(d.Sizes) +
                             (d.Strides.empty() ? "" : " with Strides " + sizes_text(d.Strides));
    if (bytes.size() < needed)
        throw DiffError(file.string() + ": truncated raw buffer: " + what + " needs at least " +
                        std::to_string(needed) +
                        " bytes (its last logical element ends there; TotalTensorSizeInBytes is " +
                        std::to_string(total) + "), the file has " + std::to_string(bytes.size()));
    if (bytes.size() > total)
        throw DiffError(
            file.string() + ": the raw buffer has " + std::to_string(bytes.size()) + " bytes, more than the " +
            std::to_string(total) + " of TotalTensorSizeInBytes for " + what +
            " (another DataType or Sizes?); set TotalTensorSizeInBytes in the golden's desc for a larger binding");
    std::vector<std::byte> buffer(total);
    std::memcpy(buffer.data(), bytes.data(), bytes.size());
    return gather_logical(d, buffer);
}

}  // namespace dmlref
