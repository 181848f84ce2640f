// The descs of RNN, GRU and LSTM, with DirectML.h's struct and field names
// (DML_RNN_OPERATOR_DESC, DML_GRU_OPERATOR_DESC, DML_LSTM_OPERATOR_DESC).
//
// ActivationDescs (`const DML_OPERATOR_DESC*`, ActivationDescCount of them) is an array of
// activation operator descs whose InputTensor and OutputTensor are NULL: the activations DirectML
// allows to be fused, so each element is a DML_FUSED_ACTIVATION (include/dmlref/desc_base.hpp).
// The schema has no array kind for them: each element is a field of its own, named
// "ActivationDescs[0]", "ActivationDescs[1]", ... up to the most the operator takes (RNN 2, GRU 4,
// LSTM 6), absent where unused; ActivationDescCount says how many the desc gives, and validate
// checks it against Direction and the elements present (docs/golden.md, "Recurrent networks").
#pragma once

#include "dmlref/desc_base.hpp"

namespace dmlref {

// DML_RECURRENT_NETWORK_DIRECTION.
enum DML_RECURRENT_NETWORK_DIRECTION : uint32_t {
    DML_RECURRENT_NETWORK_DIRECTION_FORWARD = 0,
    DML_RECURRENT_NETWORK_DIRECTION_BACKWARD = 1,
    DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL = 2,
};
inline const EnumNames kRecurrentNetworkDirectionNames{"DML_RECURRENT_NETWORK_DIRECTION_",
                                                       {"FORWARD", "BACKWARD", "BIDIRECTIONAL"}};

// The field names of the ActivationDescs elements.
inline constexpr std::array<std::string_view, 6> kActivationDescNames = {"ActivationDescs[0]", "ActivationDescs[1]",
                                                                         "ActivationDescs[2]", "ActivationDescs[3]",
                                                                         "ActivationDescs[4]", "ActivationDescs[5]"};

template <size_t N, class S, class V> void activation_desc_fields(S& s, V& v) {
    v.uint("ActivationDescCount", s.ActivationDescCount);
    for (size_t i = 0; i < N; ++i) v.fused_activation(kActivationDescNames[i], s.ActivationDescs[i]);
}

// RNN's and GRU's fields up to Direction, which their structs share (DirectML.h's order).
template <size_t N, class S, class V> void rnn_gru_fields(S& s, V& v) {
    v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
    v.tensor("WeightTensor", s.WeightTensor, TensorRole::Input);
    v.tensor("RecurrenceTensor", s.RecurrenceTensor, TensorRole::Input);
    v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
    v.optional_tensor("HiddenInitTensor", s.HiddenInitTensor, TensorRole::Input);
    v.optional_tensor("SequenceLengthsTensor", s.SequenceLengthsTensor, TensorRole::Input);
    v.optional_tensor("OutputSequenceTensor", s.OutputSequenceTensor, TensorRole::Output);
    v.optional_tensor("OutputSingleTensor", s.OutputSingleTensor, TensorRole::Output);
    activation_desc_fields<N>(s, v);
    v.enumeration("Direction", s.Direction, kRecurrentNetworkDirectionNames);
}

// H_t = f(X_t W^T + H_(t-1) R^T + Wb + Rb), per direction.
struct DML_RNN_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::RNN;
    TensorDesc InputTensor;
    TensorDesc WeightTensor;
    TensorDesc RecurrenceTensor;
    std::optional<TensorDesc> BiasTensor;
    std::optional<TensorDesc> HiddenInitTensor;
    std::optional<TensorDesc> SequenceLengthsTensor;
    std::optional<TensorDesc> OutputSequenceTensor;
    std::optional<TensorDesc> OutputSingleTensor;
    uint32_t ActivationDescCount = 0;
    std::array<std::optional<DML_FUSED_ACTIVATION>, 2> ActivationDescs{};
    uint32_t Direction = DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
    template <class S, class V> static void fields(S& s, V& v) { rnn_gru_fields<2>(s, v); }
};

// z = f(..z), r = f(..r), h = g(..h) (LinearBeforeReset: where r multiplies), H_t = (1 - z) h + z H_(t-1).
struct DML_GRU_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::GRU;
    TensorDesc InputTensor;
    TensorDesc WeightTensor;
    TensorDesc RecurrenceTensor;
    std::optional<TensorDesc> BiasTensor;
    std::optional<TensorDesc> HiddenInitTensor;
    std::optional<TensorDesc> SequenceLengthsTensor;
    std::optional<TensorDesc> OutputSequenceTensor;
    std::optional<TensorDesc> OutputSingleTensor;
    uint32_t ActivationDescCount = 0;
    std::array<std::optional<DML_FUSED_ACTIVATION>, 4> ActivationDescs{};
    uint32_t Direction = DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
    uint32_t LinearBeforeReset = 0;  // BOOL
    template <class S, class V> static void fields(S& s, V& v) {
        rnn_gru_fields<4>(s, v);
        v.uint("LinearBeforeReset", s.LinearBeforeReset);
    }
};

// i = f(.. + Pi . C_(t-1)), f_t = f(.. + Pf . C_(t-1)) (CoupleInputForget: 1 - i), c = g(..),
// C_t = f_t . C_(t-1) + i . c, o = f(.. + Po . C_t), H_t = o . h(C_t); gates i, o, f, c in that order.
struct DML_LSTM_OPERATOR_DESC {
    static constexpr OperatorType kType = OperatorType::LSTM;
    TensorDesc InputTensor;
    TensorDesc WeightTensor;
    TensorDesc RecurrenceTensor;
    std::optional<TensorDesc> BiasTensor;
    std::optional<TensorDesc> HiddenInitTensor;
    std::optional<TensorDesc> CellMemInitTensor;
    std::optional<TensorDesc> SequenceLengthsTensor;
    std::optional<TensorDesc> PeepholeTensor;
    std::optional<TensorDesc> OutputSequenceTensor;
    std::optional<TensorDesc> OutputSingleTensor;
    std::optional<TensorDesc> OutputCellSingleTensor;
    uint32_t ActivationDescCount = 0;
    std::array<std::optional<DML_FUSED_ACTIVATION>, 6> ActivationDescs{};
    uint32_t Direction = DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
    float ClipThreshold = 0;
    uint32_t UseClipThreshold = 0;   // BOOL
    uint32_t CoupleInputForget = 0;  // BOOL
    template <class S, class V> static void fields(S& s, V& v) {
        v.tensor("InputTensor", s.InputTensor, TensorRole::Input);
        v.tensor("WeightTensor", s.WeightTensor, TensorRole::Input);
        v.tensor("RecurrenceTensor", s.RecurrenceTensor, TensorRole::Input);
        v.optional_tensor("BiasTensor", s.BiasTensor, TensorRole::Input);
        v.optional_tensor("HiddenInitTensor", s.HiddenInitTensor, TensorRole::Input);
        v.optional_tensor("CellMemInitTensor", s.CellMemInitTensor, TensorRole::Input);
        v.optional_tensor("SequenceLengthsTensor", s.SequenceLengthsTensor, TensorRole::Input);
        v.optional_tensor("PeepholeTensor", s.PeepholeTensor, TensorRole::Input);
        v.optional_tensor("OutputSequenceTensor", s.OutputSequenceTensor, TensorRole::Output);
        v.optional_tensor("OutputSingleTensor", s.OutputSingleTensor, TensorRole::Output);
        v.optional_tensor("OutputCellSingleTensor", s.OutputCellSingleTensor, TensorRole::Output);
        activation_desc_fields<6>(s, v);
        v.enumeration("Direction", s.Direction, kRecurrentNetworkDirectionNames);
        v.float32("ClipThreshold", s.ClipThreshold);
        v.uint("UseClipThreshold", s.UseClipThreshold);
        v.uint("CoupleInputForget", s.CoupleInputForget);
    }
};

}  // namespace dmlref
