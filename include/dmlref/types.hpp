// The eleven DirectML element types (DML_TENSOR_DATA_TYPE), their storage in C++,
// and compile-time dispatch from the run-time enum to the storage type.
//
// Values and names are DirectML's (DML_TENSOR_DATA_TYPE, DirectML API reference). The
// storage type is the only template parameter an operator kernel has.
#pragma once

#include <Eigen/Core>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace dmlref {

using half = Eigen::half;

enum class DataType : uint32_t {
    UNKNOWN = 0,
    FLOAT32 = 1,
    FLOAT16 = 2,
    UINT32 = 3,
    UINT16 = 4,
    UINT8 = 5,
    INT32 = 6,
    INT16 = 7,
    INT8 = 8,
    FLOAT64 = 9,
    UINT64 = 10,
    INT64 = 11,
};

// Every type dmlref evaluates, in DirectML's enum order.
inline constexpr std::array<DataType, 11> kAllDataTypes = {
    DataType::FLOAT32, DataType::FLOAT16, DataType::UINT32,  DataType::UINT16, DataType::UINT8, DataType::INT32,
    DataType::INT16,   DataType::INT8,    DataType::FLOAT64, DataType::UINT64, DataType::INT64,
};

// "FLOAT32" (the suffix DxDispatch accepts); full_name gives "DML_TENSOR_DATA_TYPE_FLOAT32".
std::string_view name(DataType t);
std::string full_name(DataType t);
// Accepts the full or the short spelling; nullopt for anything else (UNKNOWN included).
std::optional<DataType> parse_data_type(std::string_view s);

constexpr uint32_t element_size(DataType t) {
    switch (t) {
        case DataType::FLOAT16:
        case DataType::UINT16:
        case DataType::INT16: return 2;
        case DataType::FLOAT32:
        case DataType::UINT32:
        case DataType::INT32: return 4;
        case DataType::FLOAT64:
        case DataType::UINT64:
        case DataType::INT64: return 8;
        case DataType::UINT8:
        case DataType::INT8: return 1;
        case DataType::UNKNOWN: break;
    }
    return 0;
}
constexpr bool is_float(DataType t) {
    return t == DataType::FLOAT16 || t == DataType::FLOAT32 || t == DataType::FLOAT64;
}
constexpr bool is_valid(DataType t) { return element_size(t) != 0; }
// INT8, INT16, INT32, INT64.
constexpr bool is_signed_integer(DataType t) {
    return t == DataType::INT8 || t == DataType::INT16 || t == DataType::INT32 || t == DataType::INT64;
}

// Storage type of each element type.
template <DataType> struct storage;
template <> struct storage<DataType::FLOAT32> { using type = float; };
template <> struct storage<DataType::FLOAT16> { using type = half; };
template <> struct storage<DataType::FLOAT64> { using type = double; };
template <> struct storage<DataType::UINT8> { using type = uint8_t; };
template <> struct storage<DataType::UINT16> { using type = uint16_t; };
template <> struct storage<DataType::UINT32> { using type = uint32_t; };
template <> struct storage<DataType::UINT64> { using type = uint64_t; };
template <> struct storage<DataType::INT8> { using type = int8_t; };
template <> struct storage<DataType::INT16> { using type = int16_t; };
template <> struct storage<DataType::INT32> { using type = int32_t; };
template <> struct storage<DataType::INT64> { using type = int64_t; };
template <DataType D> using storage_t = typename storage<D>::type;

// 128-bit integers hold every INT64 and UINT64 value and their exact comparisons (GCC/Clang).
__extension__ typedef __int128 int128_t;
__extension__ typedef unsigned __int128 uint128_t;

template <class T> inline constexpr bool is_half_v = std::is_same_v<T, half>;
template <class T> inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_half_v<T>;

template <class T> constexpr DataType data_type_of() {
    if constexpr (std::is_same_v<T, float>) return DataType::FLOAT32;
    else if constexpr (is_half_v<T>) return DataType::FLOAT16;
    else if constexpr (std::is_same_v<T, double>) return DataType::FLOAT64;
    else if constexpr (std::is_same_v<T, uint8_t>) return DataType::UINT8;
    else if constexpr (std::is_same_v<T, uint16_t>) return DataType::UINT16;
    else if constexpr (std::is_same_v<T, uint32_t>) return DataType::UINT32;
    else if constexpr (std::is_same_v<T, uint64_t>) return DataType::UINT64;
    else if constexpr (std::is_same_v<T, int8_t>) return DataType::INT8;
    else if constexpr (std::is_same_v<T, int16_t>) return DataType::INT16;
    else if constexpr (std::is_same_v<T, int32_t>) return DataType::INT32;
    else if constexpr (std::is_same_v<T, int64_t>) return DataType::INT64;
    else static_assert(sizeof(T) == 0, "not a DirectML element type");
}

// Calls f.template operator()<T>() with T the storage type of t. t must be valid.
template <class F> decltype(auto) dispatch(DataType t, F&& f) {
    switch (t) {
        case DataType::FLOAT32: return f.template operator()<float>();
        case DataType::FLOAT16: return f.template operator()<half>();
        case DataType::FLOAT64: return f.template operator()<double>();
        case DataType::UINT8: return f.template operator()<uint8_t>();
        case DataType::UINT16: return f.template operator()<uint16_t>();
        case DataType::UINT32: return f.template operator()<uint32_t>();
        case DataType::UINT64: return f.template operator()<uint64_t>();
        case DataType::INT8: return f.template operator()<int8_t>();
        case DataType::INT16: return f.template operator()<int16_t>();
        case DataType::INT32: return f.template operator()<int32_t>();
        case DataType::INT64: return f.template operator()<int64_t>();
        case DataType::UNKNOWN: break;
    }
    // Callers validate first; reaching this is a bug in dmlref, not in the case.
    std::abort();
}

// ---- Bits -----------------------------------------------------------------------------
// The unsigned integer of the same width, and exact conversions to and from it.
template <class T>
using bits_t = std::conditional_t<
    sizeof(T) == 1, uint8_t,
    std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

template <class T> inline bits_t<T> to_bits(T v) {
    static_assert(sizeof(T) == sizeof(bits_t<T>));
    bits_t<T> b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}
template <class T> inline T from_bits(bits_t<T> b) {
    T v;
    std::memcpy(static_cast<void*>(&v), &b, sizeof v);  // Eigen::half is trivially copyable in fact
    return v;
}

}  // namespace dmlref
