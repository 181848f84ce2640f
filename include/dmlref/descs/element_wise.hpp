// The descs of the element-wise family, with DirectML.h's struct and field names.
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_ELEMENT_WISE_ADD_OPERATOR_DESC: OutputTensor = ATensor + BTensor.
struct DML_ELEMENT_WISE_ADD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ADD;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC: OutputTensor = ATensor - BTensor.
struct DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SUBTRACT;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC: OutputTensor = ATensor * BTensor.
struct DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MULTIPLY;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC: OutputTensor = ATensor / BTensor (integers: truncated).
struct DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_DIVIDE;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MAX_OPERATOR_DESC: OutputTensor = max(ATensor, BTensor).
struct DML_ELEMENT_WISE_MAX_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MAX;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MIN_OPERATOR_DESC: OutputTensor = min(ATensor, BTensor).
struct DML_ELEMENT_WISE_MIN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MIN;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MEAN_OPERATOR_DESC: OutputTensor = (ATensor + BTensor) / 2.
struct DML_ELEMENT_WISE_MEAN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MEAN;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC: OutputTensor = f(x) = x of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_IDENTITY;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_ABS_OPERATOR_DESC: OutputTensor = f(x) = abs(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_ABS_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ABS;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_CEIL_OPERATOR_DESC: OutputTensor = f(x) = ceil(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_CEIL_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_CEIL;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC: OutputTensor = f(x) = floor(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_FLOOR;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_SIGN_OPERATOR_DESC: OutputTensor = f(x) = sign(x).
struct DML_ELEMENT_WISE_SIGN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SIGN;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC: OutputTensor = f(x) = -x.
struct DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_NEGATE;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_SQRT_OPERATOR_DESC: OutputTensor = sqrt(x) of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_SQRT_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_SQRT;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_RECIP_OPERATOR_DESC: OutputTensor = 1 / x of g(x) = x * Scale + Bias when ScaleBias is given.
struct DML_ELEMENT_WISE_RECIP_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_RECIP;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
    }
};

// DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC: OutputTensor = max(x, Min) of g(x) = x * Scale + Bias when
// ScaleBias is given.
struct DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_THRESHOLD;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    std::optional<DML_SCALE_BIAS> ScaleBias;
    float Min = 0.0f;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.scale_bias("ScaleBias", s.ScaleBias);
        v.float32("Min", s.Min);
    }
};

// DML_ROUNDING_MODE.
inline const EnumNames kRoundingModeNames{"DML_ROUNDING_MODE_",
                                          {"HALVES_TO_NEAREST_EVEN", "TOWARD_ZERO", "TOWARD_INFINITY"}};

// DML_ELEMENT_WISE_ROUND_OPERATOR_DESC: OutputTensor = x rounded to an integer value by RoundingMode.
struct DML_ELEMENT_WISE_ROUND_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ROUND;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    uint32_t RoundingMode = 0;  // DML_ROUNDING_MODE
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.enumeration("RoundingMode", s.RoundingMode, kRoundingModeNames);
    }
};

// DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC: OutputTensor = a - (b * trunc(a / b)), the C modulus.
struct DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MODULUS_TRUNCATE;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC: OutputTensor = a - (b * floor(a / b)), the Python modulus.
struct DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_MODULUS_FLOOR;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC: OutputTensor = (a - b) * (a - b).
struct DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_DIFFERENCE_SQUARE;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
    }
};

// DML_VALUE_SCALE_2D_OPERATOR_DESC: Output = Scale * Input + Bias[channel], for {N, C, H, W} tensors.
struct DML_VALUE_SCALE_2D_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::VALUE_SCALE_2D;
    TensorDesc InputTensor;
    TensorDesc OutputTensor;
    float Scale = 1.0f;
    uint32_t ChannelCount = 1;
    std::vector<float> Bias;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.float32("Scale", s.Scale);
        v.uint("ChannelCount", s.ChannelCount);
        v.float_array("Bias", s.Bias);
    }
};

// DML_ELEMENT_WISE_ADD1_OPERATOR_DESC: OutputTensor = FusedActivation(ATensor + BTensor).
struct DML_ELEMENT_WISE_ADD1_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::ELEMENT_WISE_ADD1;
    TensorDesc ATensor;
    TensorDesc BTensor;
    TensorDesc OutputTensor;
    std::optional<DML_FUSED_ACTIVATION> FusedActivation;
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("ATensor", s.ATensor, TensorRole::Input);
        v.tensor("BTensor", s.BTensor, TensorRole::Input);
        v.tensor("OutputTensor", s.OutputTensor, TensorRole::Output);
        v.fused_activation("FusedActivation", s.FusedActivation);
    }
};

}  // namespace dmlref
