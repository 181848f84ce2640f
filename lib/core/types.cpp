#include "dmlref/types.hpp"

namespace dmlref {

std::string_view name(DataType t) {
    switch (t) {
        case DataType::FLOAT32: return "FLOAT32";
        case DataType::FLOAT16: return "FLOAT16";
        case DataType::UINT32: return "UINT32";
        case DataType::UINT16: return "UINT16";
        case DataType::UINT8: return "UINT8";
        case DataType::INT32: return "INT32";
        case DataType::INT16: return "INT16";
        case DataType::INT8: return "INT8";
        case DataType::FLOAT64: return "FLOAT64";
        case DataType::UINT64: return "UINT64";
        case DataType::INT64: return "INT64";
        case DataType::UNKNOWN: break;
    }
    return "UNKNOWN";
}

std::string full_name(DataType t) { return "DML_TENSOR_DATA_TYPE_" + std::string(name(t)); }

std::optional<DataType> parse_data_type(std::string_view s) {
    constexpr std::string_view prefix = "DML_TENSOR_DATA_TYPE_";
    if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
    for (DataType t : kAllDataTypes)
        if (name(t) == s) return t;
    return std::nullopt;
}

}  // namespace dmlref
