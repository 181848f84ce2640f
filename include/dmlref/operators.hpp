// Operator descs with DirectML's struct and field names (DirectML.h), so that a desc reads the
// same here, in DirectML and in a case file. Each desc lists its fields once, in `fields`, for
// every generic pass (JSON reading and writing, tensor validation, binding); the operator's own
// rules and its loop live in reference/<family>.cpp.
#pragma once

#include "dmlref/diagnostics.hpp"
#include "dmlref/tensor.hpp"
#include "dmlref/types.hpp"

#include <array>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dmlref {

// DML_SCALAR_UNION: 8 bytes; the companion *DataType field says which member is meant.
// FLOAT16 has no member: dmlref reads the binary16 bits from UInt16 (bytes 0..1), the policy
// "Float16ScalarUnion: UInt16Bits" (GOLDEN.md section 7).
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

// DML_OPERATOR_TYPE values (spec/dml-semantics.md section 1.4).
enum class OperatorType : uint32_t {
    ELEMENT_WISE_CLIP = 8,
    ACTIVATION_RELU = 44,
    MAX_POOLING = 58,
    SLICE = 60,
    MAX_POOLING1 = 91,
    RESAMPLE = 96,
    MAX_POOLING2 = 110,
    SLICE1 = 111,
    RESAMPLE1 = 116,
    ACTIVATION_RELU_GRAD = 129,
    MAX_POOLING_GRAD = 131,
    RESAMPLE_GRAD = 134,
    SLICE_GRAD = 135,
    ELEMENT_WISE_CLIP_GRAD = 142,
    ELEMENT_WISE_CLIP1 = 153,
    ELEMENT_WISE_CLIP_GRAD1 = 154,
    RESAMPLE2 = 161,
    RESAMPLE_GRAD1 = 162,
    // Computed values (spec/dml-training-ops.md section 1.1).
    AVERAGE_POOLING = 56,
    AVERAGE_POOLING_GRAD = 130,
    AVERAGE_POOLING1 = 166,
    LOCAL_RESPONSE_NORMALIZATION = 74,
    LOCAL_RESPONSE_NORMALIZATION_GRAD = 144,
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
// Arrays are read as given (any length); each operator's validate checks the length against
// DimensionCount, so that the error names the operator's rule.

// An enum's names in value order, and the prefix of its full spelling, so that JSON may say
// "LINEAR" or "DML_INTERPOLATION_MODE_LINEAR".
struct EnumNames {
    std::string_view Prefix;                  // "DML_INTERPOLATION_MODE_"
    std::vector<std::string_view> Names;      // index = value
};

struct DML_ACTIVATION_RELU_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

struct DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
    }
};

struct DML_ELEMENT_WISE_CLIP_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    float Min = 0.0f;
    float Max = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
        v.float32("Min", s.Min);
        v.float32("Max", s.Max);
    }
};

struct DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    DataType MinMaxDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION Min;
    DML_SCALAR_UNION Max;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
        v.data_type("MinMaxDataType", s.MinMaxDataType);
        v.scalar("Min", s.Min, s.MinMaxDataType);
        v.scalar("Max", s.Max, s.MinMaxDataType);
    }
};

struct DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    float Min = 0.0f;
    float Max = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.float32("Min", s.Min);
        v.float32("Max", s.Max);
    }
};

struct DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    DataType MinMaxDataType = DataType::UNKNOWN;
    DML_SCALAR_UNION Min;
    DML_SCALAR_UNION Max;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.data_type("MinMaxDataType", s.MinMaxDataType);
        v.scalar("Min", s.Min, s.MinMaxDataType);
        v.scalar("Max", s.Max, s.MinMaxDataType);
    }
};

struct DML_SLICE_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Offsets;
    std::vector<uint32_t> Sizes;
    std::vector<uint32_t> Strides;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Offsets", s.Offsets);
        v.uint_array("Sizes", s.Sizes);
        v.uint_array("Strides", s.Strides);
    }
};

// InputWindowStrides is `const INT*` in DirectML.h (the doc page's "UINT" is a doc error).
struct DML_SLICE1_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> InputWindowOffsets;
    std::vector<uint32_t> InputWindowSizes;
    std::vector<int32_t> InputWindowStrides;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("InputWindowOffsets", s.InputWindowOffsets);
        v.uint_array("InputWindowSizes", s.InputWindowSizes);
        v.int_array("InputWindowStrides", s.InputWindowStrides);
    }
};

struct DML_SLICE_GRAD_OPERATOR_DESC {
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> InputWindowOffsets;
    std::vector<uint32_t> InputWindowSizes;
    std::vector<int32_t> InputWindowStrides;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("InputWindowOffsets", s.InputWindowOffsets);
        v.uint_array("InputWindowSizes", s.InputWindowSizes);
        v.int_array("InputWindowStrides", s.InputWindowStrides);
    }
};

// Max pooling: the arrays have DimensionCount entries, one per spatial dimension (the
// tensors' dimensions after batch and channel), in the tensors' order.
struct DML_MAX_POOLING_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

struct DML_MAX_POOLING1_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputIndicesTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputIndicesTensor", s.OutputIndicesTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
    }
};

struct DML_MAX_POOLING2_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<TensorDesc> OutputIndicesTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.optional_tensor("OutputIndicesTensor", s.OutputIndicesTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
    }
};

struct DML_MAX_POOLING_GRAD_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
    }
};

// ---- Resampling ----------------------------------------------------------------------------
// DML_INTERPOLATION_MODE and DML_AXIS_DIRECTION, stored as uint32_t like every enum field.
inline constexpr uint32_t DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0;
inline constexpr uint32_t DML_INTERPOLATION_MODE_LINEAR = 1;
inline constexpr uint32_t DML_AXIS_DIRECTION_INCREASING = 0;
inline constexpr uint32_t DML_AXIS_DIRECTION_DECREASING = 1;
inline const EnumNames kInterpolationModeNames{"DML_INTERPOLATION_MODE_", {"NEAREST_NEIGHBOR", "LINEAR"}};
inline const EnumNames kAxisDirectionNames{"DML_AXIS_DIRECTION_", {"INCREASING", "DECREASING"}};

// Every dimension is resampled by its own entry of the arrays (ScaleCount or DimensionCount
// entries, one per tensor dimension). RESAMPLE has no offsets: it is RESAMPLE1 with
// InputPixelOffsets 0.5 and OutputPixelOffsets -0.5.
struct DML_RESAMPLE_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t ScaleCount = 0;
    std::vector<float> Scales;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.uint("ScaleCount", s.ScaleCount);
        v.float_array("Scales", s.Scales);
    }
};

struct DML_RESAMPLE1_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

struct DML_RESAMPLE2_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t RoundingDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.enumeration("RoundingDirection", s.RoundingDirection, kAxisDirectionNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

// The grads take the forward operator's Scales and offsets: InputGradientTensor has the forward
// output's sizes, OutputGradientTensor the forward input's.
struct DML_RESAMPLE_GRAD_OPERATOR_DESC {
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

struct DML_RESAMPLE_GRAD1_OPERATOR_DESC {
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    uint32_t RoundingDirection = DML_AXIS_DIRECTION_INCREASING;
    uint32_t DimensionCount = 0;
    std::vector<float> Scales;
    std::vector<float> InputPixelOffsets;
    std::vector<float> OutputPixelOffsets;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.enumeration("InterpolationMode", s.InterpolationMode, kInterpolationModeNames);
        v.enumeration("RoundingDirection", s.RoundingDirection, kAxisDirectionNames);
        v.uint("DimensionCount", s.DimensionCount);
        v.float_array("Scales", s.Scales);
        v.float_array("InputPixelOffsets", s.InputPixelOffsets);
        v.float_array("OutputPixelOffsets", s.OutputPixelOffsets);
    }
};

// ---- Average pooling (spec/dml-training-ops.md section 3) ---------------------------------
// BOOL fields (IncludePadding) are DirectML's BOOL, an integer: 0 (FALSE) or 1 (TRUE); the
// operator's validate rejects anything else. The arrays have one entry per spatial dimension.
struct DML_AVERAGE_POOLING_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t IncludePadding = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint("IncludePadding", s.IncludePadding);
    }
};

struct DML_AVERAGE_POOLING1_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    std::vector<uint32_t> Dilations;
    uint32_t IncludePadding = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint_array("Dilations", s.Dilations);
        v.uint("IncludePadding", s.IncludePadding);
    }
};

// InputGradientTensor has the forward output's sizes, OutputGradientTensor the forward input's.
// No Dilations (there is no AVERAGE_POOLING1 grad).
struct DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC {
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t DimensionCount = 0;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    uint32_t IncludePadding = 0;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("DimensionCount", s.DimensionCount);
        v.uint_array("Strides", s.Strides);
        v.uint_array("WindowSize", s.WindowSize);
        v.uint_array("StartPadding", s.StartPadding);
        v.uint_array("EndPadding", s.EndPadding);
        v.uint("IncludePadding", s.IncludePadding);
    }
};

// ---- Local response normalization (spec/dml-training-ops.md section 4) --------------------
// CrossChannel is a BOOL (0 or 1, as IncludePadding). The grad's InputTensor is the forward
// operator's input (not its output): B is recomputed.
struct DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t CrossChannel = 0;
    uint32_t LocalSize = 0;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    float Bias = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.uint("CrossChannel", s.CrossChannel);
        v.uint("LocalSize", s.LocalSize);
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
        v.float32("Bias", s.Bias);
    }
};

struct DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC {
    TensorDesc InputTensor;
    TensorDesc InputGradientTensor;
    TensorDesc OutputGradientTensor;
    uint32_t CrossChannel = 0;
    uint32_t LocalSize = 0;
    float Alpha = 0.0f;
    float Beta = 0.0f;
    float Bias = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("InputGradientTensor", s.InputGradientTensor, TensorRole::Input);
        v.tensor("OutputGradientTensor", s.OutputGradientTensor, TensorRole::Output);
        v.uint("CrossChannel", s.CrossChannel);
        v.uint("LocalSize", s.LocalSize);
        v.float32("Alpha", s.Alpha);
        v.float32("Beta", s.Beta);
        v.float32("Bias", s.Bias);
    }
};

using OperatorDesc = std::variant<
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC,
    DML_ACTIVATION_RELU_OPERATOR_DESC,
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC,
    DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC,
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC,
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC,
    DML_SLICE_OPERATOR_DESC,
    DML_SLICE1_OPERATOR_DESC,
    DML_SLICE_GRAD_OPERATOR_DESC,
    DML_MAX_POOLING_OPERATOR_DESC,
    DML_MAX_POOLING1_OPERATOR_DESC,
    DML_MAX_POOLING2_OPERATOR_DESC,
    DML_MAX_POOLING_GRAD_OPERATOR_DESC,
    DML_RESAMPLE_OPERATOR_DESC,
    DML_RESAMPLE1_OPERATOR_DESC,
    DML_RESAMPLE2_OPERATOR_DESC,
    DML_RESAMPLE_GRAD_OPERATOR_DESC,
    DML_RESAMPLE_GRAD1_OPERATOR_DESC,
    DML_AVERAGE_POOLING_OPERATOR_DESC,
    DML_AVERAGE_POOLING1_OPERATOR_DESC,
    DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC,
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC,
    DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>;

// DML_OPERATOR_DESC: the type and its desc.
struct Operator {
    OperatorType Type;
    OperatorDesc Desc;
};

// ---- Buffers bound to tensor fields ----------------------------------------------------
// The bytes behind each tensor field, by the field's name. An output may be bound to the
// same bytes as an input where the operator allows in-place execution.
class Bindings {
public:
    void bind(std::string field, std::span<std::byte> bytes) { buffers_.emplace_back(std::move(field), bytes); }
    // Throws std::out_of_range naming the field when it is not bound.
    std::span<std::byte> at(std::string_view field) const;

private:
    std::vector<std::pair<std::string, std::span<std::byte>>> buffers_;
};

// ---- Facts about each operator ---------------------------------------------------------
// A row of a "Tensor support" table: from FeatureLevel on, the named tensors (all, when
// Tensors is empty) support DimensionCount in [MinDims, MaxDims] and the listed DataTypes.
struct SupportRow {
    uint32_t FeatureLevel;  // DML_FEATURE_LEVEL value, e.g. 0x5100
    std::vector<std::string_view> Tensors;
    uint32_t MinDims;
    uint32_t MaxDims;
    std::vector<DataType> DataTypes;
};

// A decision the spec leaves open (GOLDEN.md section 7), as recorded in golden files.
struct Policy {
    std::string_view Name;
    std::string_view Value;
};

struct OperatorInfo {
    OperatorType Type;
    std::string_view Name;          // "ACTIVATION_RELU_GRAD"; the full name adds "DML_OPERATOR_"
    uint32_t IntroducedIn;          // feature level
    std::vector<std::pair<std::string_view, std::string_view>> InPlace;  // (output, input) that may alias
    std::vector<SupportRow> Support;  // ascending FeatureLevel
    std::vector<Policy> Policies;
};

const std::vector<OperatorInfo>& all_operators();
const OperatorInfo& info(OperatorType t);
// "DML_OPERATOR_ACTIVATION_RELU_GRAD" or "ACTIVATION_RELU_GRAD".
std::optional<OperatorType> parse_operator_type(std::string_view s);
std::string full_name(OperatorType t);
// An operator with a default-constructed desc of the right kind.
Operator make_operator(OperatorType t);

// The tensor fields of a desc in struct order (optional tensors that are absent are skipped).
struct TensorField {
    std::string_view name;
    TensorRole role;
    const TensorDesc* desc;
};
std::vector<TensorField> tensor_fields(const Operator& op);

// Every rule: each tensor desc, then the operator's own rules. Paths start at /desc.
struct ValidateOptions {
    uint64_t max_bytes = uint64_t(4) << 30;  // per buffer; keeps bad input from exhausting memory
};
Diagnostics validate(const Operator& op, const ValidateOptions& options = {});

// Fills the output buffers. The operator must have validated without errors; buffers must be
// at least buffer_size(desc) bytes (std::invalid_argument otherwise).
void evaluate(const Operator& op, const Bindings& bindings);

// Where the operator's tensors fall in DirectML's support tables: the lowest feature level
// whose rows admit every tensor, or nullopt with the reasons in `why`.
std::optional<uint32_t> lowest_supporting_feature_level(const Operator& op, std::vector<std::string>* why);
// Whether the tensors are inside the tables at one feature level; reasons in `why`.
bool supported_at(const Operator& op, uint32_t feature_level, std::vector<std::string>* why);
std::string feature_level_name(uint32_t level);  // 0x5100 -> "DML_FEATURE_LEVEL_5_1"
std::optional<uint32_t> parse_feature_level(std::string_view s);  // "5.1", "5_1", "DML_FEATURE_LEVEL_5_1"

// MAX_POOLING_GRAD: for each OutputGradientTensor element (logical row-major order), the number
// of InputGradientTensor elements summed into it (the windows whose argmax it is). The desc
// must have validated; `InputTensor` is the input's buffer. A tolerance model uses the counts
// (GOLDEN.md section 5).
std::vector<uint32_t> max_pooling_grad_term_counts(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& desc,
                                                   std::span<const std::byte> InputTensor);

// Max pooling elements on an argmax tie (GOLDEN.md section 5), logical indices in increasing
// order: for MAX_POOLING, 1 and 2, the outputs whose window holds two or more real elements equal
// to its maximum (-0 and +0 included); for MAX_POOLING_GRAD, the OutputGradientTensor elements
// tied for the maximum of some window. A backend that broke ties differently would differ there.
std::vector<uint64_t> max_pooling_argmax_ties(const Operator& op, std::span<const std::byte> InputTensor);

}  // namespace dmlref
