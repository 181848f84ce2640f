// The recurrent family's record (reference/kit/family.hpp): the facts of DML_RNN_OPERATOR_DESC,
// DML_LSTM_OPERATOR_DESC and DML_GRU_OPERATOR_DESC from their pages, the policies their goldens record, how each output
// is judged (a computed bound carried through the steps), and coverage.
#include "recurrent.hpp"

#include "kit/policies.hpp"

namespace dmlref::reference {

namespace rec_recurrent {

using namespace kit;
using RNN = DML_RNN_OPERATOR_DESC;
using GRU = DML_GRU_OPERATOR_DESC;
using LSTM = DML_LSTM_OPERATOR_DESC;

// The policies (docs/golden.md, "Recurrent networks").
constexpr Policy kRecurrentState{"RecurrentState", "RoundedEachStep"};
constexpr Policy kRecurrentGateInput{"RecurrentGateInput", "RoundedSum"};
constexpr Policy kRecurrentSequenceLengths{"RecurrentSequenceLengths", "ZerosBeyondLength"};
constexpr Policy kGruIntermediates{"GruIntermediates", "RoundedToTensorType"};
constexpr Policy kLstmIntermediates{"LstmIntermediates", "RoundedToTensorType"};
constexpr Policy kLstmClip{"LstmClip", "ClampRoundedInput"};

const std::vector<std::string_view> kTensors = {"InputTensor",       "WeightTensor",     "RecurrenceTensor",
                                                "BiasTensor",        "HiddenInitTensor", "OutputSequenceTensor",
                                                "OutputSingleTensor"};

// The activations ONNX's RNN, GRU and LSTM default to (tanh; sigmoid, tanh; sigmoid, tanh, tanh): anything else is a
// coverage feature.
template <class D> std::string_view default_activation(size_t i) {
    if constexpr (std::is_same_v<D, LSTM>) return i % 3 == 0 ? "ACTIVATION_SIGMOID" : "ACTIVATION_TANH";
    else if constexpr (std::is_same_v<D, GRU>) return i % 2 == 0 ? "ACTIVATION_SIGMOID" : "ACTIVATION_TANH";
    else return "ACTIVATION_TANH";
}

template <class D> void detect(const Case& c, std::vector<std::string>& f) {
    const D& d = get<D>(c.op.Desc);
    f.push_back(std::string("direction-") + (d.Direction == 0   ? "forward"
                                             : d.Direction == 1 ? "backward"
                                                                : "bidirectional"));
    if (d.BiasTensor) f.push_back("bias");
    if (d.HiddenInitTensor) f.push_back("hidden-init");
    if (d.SequenceLengthsTensor) f.push_back("sequence-lengths");
    bool all_outputs = d.OutputSequenceTensor && d.OutputSingleTensor;
    if constexpr (std::is_same_v<D, LSTM>) all_outputs = all_outputs && d.OutputCellSingleTensor;
    if (!all_outputs) f.push_back("one-output");
    for (size_t i = 0; i < d.ActivationDescs.size(); ++i)
        if (d.ActivationDescs[i] && d.ActivationDescs[i]->name() != default_activation<D>(i)) {
            f.push_back("non-default-activation");
            break;
        }
    if constexpr (std::is_same_v<D, GRU>)
        if (d.LinearBeforeReset) f.push_back("linear-before-reset");
    if constexpr (std::is_same_v<D, LSTM>) {
        if (d.PeepholeTensor) f.push_back("peephole");
        if (d.CellMemInitTensor) f.push_back("cell-mem-init");
        if (d.UseClipThreshold) f.push_back("clip");
        if (d.CoupleInputForget) f.push_back("couple-input-forget");
    }
}

OutputRule computed(std::string_view output, ComputedBounds bounds) {
    return {output, TypeClass::Any, ToleranceRule::OperatorStated, BoundaryRule::None, bounds};
}

const std::vector<std::string_view> kLstmTensors = {
    "InputTensor",       "WeightTensor",   "RecurrenceTensor",     "BiasTensor",         "HiddenInitTensor",
    "CellMemInitTensor", "PeepholeTensor", "OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor"};

template <class D> OperatorRecord recurrent_record(std::vector<Policy> policies) {
    auto r = operator_record<D, validate, evaluate>(
        {.IntroducedIn = 0x1000,
         .InPlace = {},
         .Support = {{0x1000, std::is_same_v<D, LSTM> ? kLstmTensors : kTensors, 4, 4, kF32F16},
                     {0x1000, {"SequenceLengthsTensor"}, 4, 4, kU32}},
         .Policies = std::move(policies)});
    r.outputs = {computed("OutputSequenceTensor", recurrent_sequence_bounds),
                 computed("OutputSingleTensor", recurrent_single_bounds)};
    if constexpr (std::is_same_v<D, LSTM>)
        r.outputs.push_back(computed("OutputCellSingleTensor", recurrent_cell_single_bounds));
    r.desc_tolerance = tolerance_as<D, tolerance>;
    r.validate_values = validate_values_as<D, validate_values>;
    r.reads_inputs = true;
    r.explain = explain_recurrent;
    r.MinRank = 4;
    r.MaxRank = 4;
    r.ScopeTypes = kF32F16;
    r.features = {"direction-forward", "direction-backward", "direction-bidirectional", "bias", "hidden-init",
                  "sequence-lengths",  "one-output",         "non-default-activation"};
    if constexpr (std::is_same_v<D, GRU>) r.features.push_back("linear-before-reset");
    if constexpr (std::is_same_v<D, LSTM>)
        for (std::string_view f : {"peephole", "cell-mem-init", "clip", "couple-input-forget"}) r.features.push_back(f);
    r.detect = detect<D>;
    r.work_factor = recurrent_work_factor;
    // --max-work: an MPFR activation per gate and element (RNN one, GRU three, LSTM five)
    // (measured; docs/rules.md, limit.work).
    r.rounding_cost = std::is_same_v<D, DML_RNN_OPERATOR_DESC>   ? rounding_cost<700>
                      : std::is_same_v<D, DML_GRU_OPERATOR_DESC> ? rounding_cost<2000>
                                                                 : rounding_cost<3500>;
    r.BaseTensors = {"InputTensor"};
    return r;
}

const std::vector<Policy> kCommon = {kRecurrentState, kRecurrentGateInput, kRecurrentSequenceLengths,
                                     kNonFiniteSum,   kZeroResult,         kSubnormals};

}  // namespace rec_recurrent

}  // namespace dmlref::reference

namespace dmlref::kit {
const FamilyRecord& recurrent_family() {
    using namespace reference;
    using namespace reference::rec_recurrent;
    std::vector<Policy> gru = kCommon, lstm = kCommon;
    gru.insert(gru.begin() + 2, kGruIntermediates);
    lstm.insert(lstm.begin() + 2, {kLstmIntermediates, kLstmClip});
    static const FamilyRecord f{
        "recurrent", {recurrent_record<RNN>(kCommon), recurrent_record<LSTM>(lstm), recurrent_record<GRU>(gru)}};
    return f;
}
}  // namespace dmlref::kit
