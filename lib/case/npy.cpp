// NumPy .npy files: reading (every header field checked before any allocation) and writing.
#include "dmlref/npy.hpp"

#include "dmlref/atomic_file.hpp"
#include "dmlref/checked.hpp"
#include "dmlref/printable.hpp"
#include "case/sha256.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <fstream>
#include <sstream>

namespace dmlref {

std::string npy_dtype(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return "<f2";
        case DataType::FLOAT32: return "<f4";
        case DataType::FLOAT64: return "<f8";
        case DataType::INT8: return "|i1";
        case DataType::INT16: return "<i2";
        case DataType::INT32: return "<i4";
        case DataType::INT64: return "<i8";
        case DataType::UINT8: return "|u1";
        case DataType::UINT16: return "<u2";
        case DataType::UINT32: return "<u4";
        case DataType::UINT64: return "<u8";
        case DataType::UNKNOWN: break;
    }
    return "";
}

namespace {

DataType dtype_from(const std::string& d) {
    for (DataType t : kAllDataTypes) {
        const std::string n = npy_dtype(t);
        if (d == n) return t;
        // One-byte types: '<i1', '>i1', '=i1' are the same bytes as '|i1'.
        if (element_size(t) == 1 && d.size() == 3 && (d[0] == '<' || d[0] == '=' || d[0] == '>') &&
            d.substr(1) == n.substr(1))
            return t;
    }
    return DataType::UNKNOWN;
}

// The value after 'key': in the header dict, as raw text up to the matching delimiter.
std::string header_value(const std::string& h, const std::string& key) {
    const std::string k1 = "'" + key + "'";
    size_t p = h.find(k1);
    if (p == std::string::npos) throw NpyError("the header has no '" + key + "' entry");
    p = h.find(':', p + k1.size());
    if (p == std::string::npos) throw NpyError("the header's '" + key + "' entry has no value");
    ++p;
    while (p < h.size() && h[p] == ' ') ++p;
    if (p >= h.size()) throw NpyError("the header's '" + key + "' entry has no value");
    if (h[p] == '\'') {
        const size_t e = h.find('\'', p + 1);
        if (e == std::string::npos) throw NpyError("the header's '" + key + "' string is not closed");
        return h.substr(p + 1, e - p - 1);
    }
    if (h[p] == '(') {
        const size_t e = h.find(')', p);
        if (e == std::string::npos) throw NpyError("the header's '" + key + "' tuple is not closed");
        return h.substr(p, e - p + 1);
    }
    size_t e = p;
    while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
    std::string v = h.substr(p, e - p);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
}

// A Fortran-order (column-major) array's elements rearranged into C (row-major) order: the
// element at index (i0, ..., ik-1) sits at sum(i_j * prod(shape[0..j-1])) in the file.
std::vector<std::byte> c_order_from_fortran(const std::vector<uint64_t>& shape, size_t width,
                                            const std::vector<std::byte>& f) {
    if (shape.size() < 2 || f.empty()) return f;
    std::vector<uint64_t> fortran_stride(shape.size());
    uint64_t s = 1;
    for (size_t j = 0; j < shape.size(); ++j) {
        fortran_stride[j] = s;
        s *= shape[j];
    }
    std::vector<std::byte> c(f.size());
    std::vector<uint64_t> index(shape.size(), 0);
    for (uint64_t n = 0; n < f.size() / width; ++n) {  // n: the C-order position of `index`
        uint64_t off = 0;
        for (size_t j = 0; j < shape.size(); ++j) off += index[j] * fortran_stride[j];
        std::memcpy(c.data() + n * width, f.data() + off * width, width);
        for (size_t j = shape.size(); j-- > 0;) {  // the next index in row-major order
            if (++index[j] < shape[j]) break;
            index[j] = 0;
        }
    }
    return c;
}

}  // namespace

namespace {

struct Header {
    NpyArray array;  // data_type and shape; data left empty
    bool fortran = false;
    size_t data_start = 0;
    uint64_t bytes = 0;  // of the data
};

// The header at the start of `f` (the first `f.size()` bytes of a file of `file_size` bytes):
// every field checked, and the data's size against the file's, before anything is allocated.
// Throws NeedMore with the prefix length it needs when `f` is too short to hold the header.
struct NeedMore {
    size_t bytes;
};

Header parse_header(std::string_view f, uint64_t file_size, uint64_t max_bytes) {
    if (file_size < 10 || (f.size() >= 6 && f.compare(0, 6, "\x93NUMPY") != 0))
        throw NpyError("not a .npy file (no \\x93NUMPY magic)");
    if (f.size() < 12 && f.size() < file_size) throw NeedMore{size_t(std::min<uint64_t>(file_size, 12))};
    if (f.compare(0, 6, "\x93NUMPY") != 0) throw NpyError("not a .npy file (no \\x93NUMPY magic)");
    const int major = static_cast<unsigned char>(f[6]);
    size_t header_len, header_start;
    if (major == 1) {
        header_len = size_t(uint8_t(f[8])) | size_t(uint8_t(f[9])) << 8;
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (file_size < 12) throw NpyError("the file ends inside the header length");
        header_len = size_t(uint8_t(f[8])) | size_t(uint8_t(f[9])) << 8 | size_t(uint8_t(f[10])) << 16 |
                     size_t(uint8_t(f[11])) << 24;
        header_start = 12;
    } else {
        throw NpyError("format version " + std::to_string(major) + " is not supported (1.0 and 2.0 are)");
    }
    if (header_start + header_len > file_size) throw NpyError("the file ends inside the header");
    if (header_start + header_len > f.size()) throw NeedMore{header_start + header_len};
    // Header text goes into messages escaped: it may hold control characters or bytes that are not UTF-8.
    const std::string h = printable(std::string(f.substr(header_start, header_len)));
    if (h.empty() || h[0] != '{') throw NpyError("the header is not a Python dict literal");
    Header r;
    NpyArray& a = r.array;
    const std::string descr = header_value(h, "descr");
    a.data_type = dtype_from(descr);
    if (a.data_type == DataType::UNKNOWN) {
        if (!descr.empty() && descr[0] == '>')
            throw NpyError("dtype '" + descr + "' is big-endian; dmlref reads little-endian data only");
        throw NpyError("dtype '" + descr +
                       "' is not one of the eleven element types (<f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8)");
    }
    const std::string order = header_value(h, "fortran_order");
    if (order != "True" && order != "False") throw NpyError("fortran_order is '" + order + "', not True or False");
    r.fortran = order == "True";
    const std::string shape = header_value(h, "shape");
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
        throw NpyError("shape '" + shape + "' is not a tuple");
    uint64_t count = 1;
    std::string item;
    std::istringstream ss(shape.substr(1, shape.size() - 2));
    while (std::getline(ss, item, ',')) {
        size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
        if (b == std::string::npos) continue;  // the trailing comma of a 1-tuple
        item = item.substr(b, e - b + 1);
        if (item.empty() || item.size() > 12 || item.find_first_not_of("0123456789") != std::string::npos)
            throw NpyError("shape '" + shape + "' has a dimension that is not a non-negative integer");
        const uint64_t n = std::stoull(item);
        a.shape.push_back(n);
        count = saturating_mul(count, n);
        if (count > max_bytes)
            throw NpyError("shape '" + shape + "' holds more elements than dmlref's byte limit allows");
    }
    const uint64_t bytes = saturating_mul(count, element_size(a.data_type));
    if (bytes > max_bytes)
        throw NpyError("the array needs " + std::to_string(bytes) + " bytes, over the limit of " +
                       std::to_string(max_bytes));
    const size_t data_start = header_start + header_len;
    if (file_size - data_start < bytes)
        throw NpyError("the file is truncated: shape " + shape + " of " + descr + " needs " + std::to_string(bytes) +
                       " data bytes, the file has " + std::to_string(file_size - data_start));
    if (file_size - data_start > bytes)
        throw NpyError("the file has " + std::to_string(file_size - data_start - bytes) +
                       " bytes after the data that shape " + shape + " describes");
    r.data_start = data_start;
    r.bytes = bytes;
    return r;
}

}  // namespace

NpyArray parse_npy(const std::string& f, uint64_t max_bytes) {
    Header h;
    try {
        h = parse_header(f, f.size(), max_bytes);
    } catch (const NeedMore&) {
        throw NpyError("the file ends inside the header");  // unreachable: all of the file is here
    }
    NpyArray a = std::move(h.array);
    a.data.resize(h.bytes);
    if (h.bytes)
        std::memcpy(a.data.data(), f.data() + h.data_start, h.bytes);  // never memcpy from or to null (a 0-sized array)
    if (h.fortran) a.data = c_order_from_fortran(a.shape, element_size(a.data_type), a.data);
    return a;
}

NpyArray read_npy(const std::filesystem::path& file, uint64_t max_bytes, std::string* sha256) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) throw NpyError("cannot read " + file.string() + ": " + ec.message());
    if (size > max_bytes + (uint64_t(1) << 20))
        throw NpyError(file.string() + " is larger than the limit of " + std::to_string(max_bytes) + " bytes");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
    if (!in) throw NpyError("cannot open " + file.string());
    // The header first (as much of it as it says it has), then the data in one read into its buffer.
    std::string head;
    Header h;
    for (size_t want = size_t(std::min<uint64_t>(size, 128));;) {
        const size_t had = head.size();
        head.resize(want);
        if (std::fread(head.data() + had, 1, want - had, in.get()) != want - had)
            throw NpyError("cannot read " + file.string());
        try {
            h = parse_header(head, size, max_bytes);
            break;
        } catch (const NeedMore& m) {
            if (m.bytes <= want) throw NpyError("the file ends inside the header");
            want = m.bytes;
        }
    }
    head.resize(h.data_start);  // the bytes read past the header are the data's first
    NpyArray a = std::move(h.array);
    a.data.resize(h.bytes);
    // Re-read from the data's start: simpler than splicing the bytes read with the header.
    if (std::fseek(in.get(), long(h.data_start), SEEK_SET) != 0) throw NpyError("cannot read " + file.string());
    if (h.bytes && std::fread(a.data.data(), 1, h.bytes, in.get()) != h.bytes)
        throw NpyError("cannot read " + file.string() + " (it changed while it was read, or a read failed)");
    if (sha256) {
        Sha256 hash;
        hash.update(head);
        hash.update(a.data.data(), a.data.size());
        *sha256 = hash.hex();
    }
    if (h.fortran) a.data = c_order_from_fortran(a.shape, element_size(a.data_type), a.data);
    return a;
}

std::string npy_header(DataType t, const std::vector<uint64_t>& shape_) {
    std::string shape = "(";
    for (size_t i = 0; i < shape_.size(); ++i)
        shape += std::to_string(shape_[i]) + (shape_.size() == 1 ? "," : (i + 1 < shape_.size() ? ", " : ""));
    shape += ")";
    std::string h = "{'descr': '" + npy_dtype(t) + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad with spaces so that the data starts on a 64-byte boundary; the header ends in '\n'.
    const size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    const uint16_t len = uint16_t(h.size());
    out += char(len & 0xff);
    out += char(len >> 8);
    out += h;
    return out;
}

std::string npy_bytes(const NpyArray& a) {
    std::string out = npy_header(a.data_type, a.shape);
    out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
    return out;
}

void write_npy(const std::filesystem::path& file, DataType t, const std::vector<uint64_t>& shape,
               std::span<const std::byte> data, std::string* sha256) {
    const std::string header = npy_header(t, shape);
    const std::string_view body(reinterpret_cast<const char*>(data.data()), data.size());
    if (sha256) {
        Sha256 hash;
        hash.update(header);
        hash.update(body);
        *sha256 = hash.hex();
    }
    try {
        write_file_atomic(file, {std::string_view(header), body});
    } catch (const WriteError& e) {
        throw NpyError("cannot write " + file.string() + ": " + e.what());
    }
}

void write_npy(const std::filesystem::path& file, const NpyArray& a) { write_npy(file, a.data_type, a.shape, a.data); }

}  // namespace dmlref
