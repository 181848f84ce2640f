// What every desc is built from: DML_SCALAR_UNION, DML_SCALE_BIAS, enum names, and the
// `fields` convention that lets one generic pass read, write, validate and bind any desc.
#pragma once

#include "dmlref/tensor.hpp"
#include "dmlref/types.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace dmlref {

// DML_SCALAR_UNION: 8 bytes; the companion *DataType field says which member is meant.
// FLOAT16 has no member: dmlref reads the binary16 bits from UInt16 (bytes 0..1), the policy
// "Float16ScalarUnion: UInt16Bits" (docs/golden.md, Decisions).
struct DML_SCALAR_UNION {
    std::array<uint8_t, 8> Bytes{};

    template <class T> T as() const {  // the member for T (half: the UInt16 member's bits)
        T v;
        std::memcpy(static_cast<void*>(&v), Bytes.data(), sizeof v);
        return v;
    }
    template <class T> static DML_SCALAR_UNION of(T v) {
        DML_SCALAR_UNION u;
        std::memcpy(u.Bytes.data(), static_cast<const void*>(&v), sizeof v);
        return u;
    }
    bool operator==(const DML_SCALAR_UNION&) const = default;
};

// DML_SCALE_BIAS: f(x) = x * Scale + Bias, applied to the input before the operator.
struct DML_SCALE_BIAS {
    float Scale = 1.0f;
    float Bias = 0.0f;
    bool operator==(const DML_SCALE_BIAS&) const = default;
};

// ---- The descs --------------------------------------------------------------------------
// `fields(self, visitor)` names every field in the struct's order. A visitor provides:
//   tensor(name, TensorDesc&, TensorRole)          optional_tensor(name, std::optional<TensorDesc>&, role)
//   data_type(name, DataType&)                     scalar(name, DML_SCALAR_UNION&, DataType of the union)
//   float32(name, float&)                          scale_bias(name, std::optional<DML_SCALE_BIAS>&)
//   uint(name, uint32_t&)                          (DimensionCount, ScaleCount)
//   uint_array(name, std::vector<uint32_t>&)       int_array(name, std::vector<int32_t>&)
//   float_array(name, std::vector<float>&)
//   enumeration(name, uint32_t&, const EnumNames&) (the value is the index into the names)
//   fused_activation(name, std::optional<DML_FUSED_ACTIVATION>&)  (descs/batch_normalization.hpp)
// Arrays are read as given (any length); each operator's validate checks the length against
// DimensionCount, so that the error names the operator's rule.

// An enum's names in value order, and the prefix of its full spelling, so that JSON may say
// "LINEAR" or "DML_INTERPOLATION_MODE_LINEAR".
struct EnumNames {
    std::string_view Prefix;                  // "DML_INTERPOLATION_MODE_"
    std::vector<std::string_view> Names;      // index = value
};

}  // namespace dmlref
