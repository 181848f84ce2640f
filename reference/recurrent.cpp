// DML_OPERATOR_RNN, DML_OPERATOR_GRU and DML_OPERATOR_LSTM: a time loop over the sequence, per
// direction and batch.
//
// Spec: DML_RNN_OPERATOR_DESC, DML_GRU_OPERATOR_DESC, DML_LSTM_OPERATOR_DESC (DirectML API reference); rules in
// docs/rules.md; the decisions in docs/golden.md, "Recurrent networks"; the bounds in
// docs/tolerance.md, "Recurrent networks".
//
//   Sizes: InputTensor { 1, seq_length S, batch_size B, input_size I }; WeightTensor
//   { 1, num_directions D, G * hidden_size H, I }; RecurrenceTensor { 1, D, G * H, H };
//   BiasTensor { 1, 1, D, 2 * G * H } (the W biases of the G gates, then the R biases);
//   HiddenInitTensor { 1, D, B, H }; SequenceLengthsTensor { 1, 1, 1, B } (UINT32);
//   OutputSequenceTensor { S, D, B, H }; OutputSingleTensor { 1, D, B, H }. G is 1 for RNN, 3
//   for GRU (gates z, r, h in that order) and 4 for LSTM (gates i, o, f, c), whose
//   CellMemInitTensor and OutputCellSingleTensor are { 1, D, B, H } and PeepholeTensor
//   { 1, 1, D, 3 * H } (Pi, Po, Pf). Direction FORWARD runs t = 0 .. len - 1, BACKWARD
//   t = len - 1 .. 0, BIDIRECTIONAL both (direction 0 forward, 1 backward).
//
//   RNN  H_t = f(X_t W^T + H_(t-1) R^T + Wb + Rb)
//   GRU  z = f(X_t Wz^T + H_(t-1) Rz^T + Wbz + Rbz)
//        r = f(X_t Wr^T + H_(t-1) Rr^T + Wbr + Rbr)
//        h = g(X_t Wh^T + (r . H_(t-1)) Rh^T + Rbh + Wbh)          LinearBeforeReset FALSE
//        h = g(X_t Wh^T + r . (H_(t-1) Rh^T + Rbh) + Wbh)          LinearBeforeReset TRUE
//        H_t = (1 - z) . h + z . H_(t-1)
//   LSTM i = f(X_t Wi^T + H_(t-1) Ri^T + Pi . C_(t-1) + Wbi + Rbi)
//        f_t = f(X_t Wf^T + H_(t-1) Rf^T + Pf . C_(t-1) + Wbf + Rbf)     CoupleInputForget: f_t = 1 - i
//        c = g(X_t Wc^T + H_(t-1) Rc^T + Wbc + Rbc)
//        C_t = f_t . C_(t-1) + i . c
//        o = f(X_t Wo^T + H_(t-1) Ro^T + Po . C_t + Wbo + Rbo)
//        H_t = o . h(C_t)
//   f, g and h are ActivationDescs: one per direction for RNN, f then g per direction for GRU,
//   f, g, h per direction for LSTM.
//
// Decisions (docs/golden.md, "Recurrent networks"; recorded as policies in golden files):
//   - RecurrentState=RoundedEachStep: each step starts from the previous step's state as stored
//     in the tensor type (as a backend's OutputSequence holds it), and the new state is rounded
//     once to that type.
//   - RecurrentGateInput=RoundedSum: a gate's pre-activation sum of products is exact (products
//     of FLOAT32 or FLOAT16 values are exact in float64) and rounded once to the tensor type;
//     the activation applies to that rounded value and its exact result is rounded once more
//     (GEMM's FusedActivationInput).
//   - GruIntermediates=RoundedToTensorType: GRU's r . H_(t-1) (LinearBeforeReset FALSE) and
//     H_(t-1) Rh^T + Rbh (TRUE) are each rounded once to the tensor type, as the separate
//     element-wise product or matrix product a backend stores; H_t = h - z h + z H_(t-1) is
//     exact and rounded once.
//   - LstmIntermediates=RoundedToTensorType: the cell state C_t = f_t C_(t-1) + i c is exact and
//     rounded once (and carried rounded, as H is); CoupleInputForget's 1 - i is rounded once;
//     h(C_t) is rounded once and o h(C_t) is an exact product rounded once.
//   - LstmClip=ClampRoundedInput: with UseClipThreshold, every activation's input (the gates'
//     rounded sums and C_t for h) is clamped to [-ClipThreshold, +ClipThreshold], the threshold
//     rounded to the tensor type; a NaN stays NaN. ClipThreshold must be at least 0.
//   - RecurrentSequenceLengths=ZerosBeyondLength: OutputSequence holds +0 at the steps t >= the
//     batch's length (in both directions); OutputSingle holds the state after the last step
//     computed (for BACKWARD, after t = 0), and OutputCellSingle LSTM's cell state then; a length of
//     0 computes no step and gives the initial states (HiddenInitTensor, CellMemInitTensor, or 0).
//     Lengths above seq_length are refused.
//   - NonFiniteSum=CanonicalNaN, ZeroResult=PositiveZero (the sums, as GEMM's).
#include "recurrent.hpp"

#include "exact_sum.hpp"
#include "fused_activation.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/working_types.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using RNN = DML_RNN_OPERATOR_DESC;
using GRU = DML_GRU_OPERATOR_DESC;
using LSTM = DML_LSTM_OPERATOR_DESC;

template <class D> constexpr bool kGru = std::is_same_v<D, GRU>;
template <class D> constexpr bool kLstm = std::is_same_v<D, LSTM>;
template <class D> constexpr uint64_t kGates = kLstm<D> ? 4 : kGru<D> ? 3 : 1;
template <class D> constexpr uint64_t kActivationsPerDirection = kLstm<D> ? 3 : kGru<D> ? 2 : 1;
template <class D> constexpr const char* kShort = kLstm<D> ? "lstm" : kGru<D> ? "gru" : "rnn";
template <class D> std::string recurrent_rule(std::string_view id) {
    return std::string(kShort<D>) + "." + std::string(id);
}
template <class D>
constexpr const char* kPage = kLstm<D>  ? "DML_LSTM_OPERATOR_DESC"
                              : kGru<D> ? "DML_GRU_OPERATOR_DESC"
                                        : "DML_RNN_OPERATOR_DESC";

uint64_t directions(uint32_t direction) { return direction == DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL ? 2 : 1; }
bool reversed(uint32_t direction, uint64_t d) {
    return direction == DML_RECURRENT_NETWORK_DIRECTION_BACKWARD ||
           (direction == DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL && d == 1);
}

std::string sizes_text(const std::vector<uint32_t>& s) {
    std::string t = "{ ";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + " }";
}

// ---- Validation --------------------------------------------------------------------------------
//
// Tensor constraints: "BiasTensor, HiddenInitTensor, InputTensor, OutputSequenceTensor,
// OutputSingleTensor, RecurrenceTensor, and WeightTensor must have the same DataType"
// (<op>.same-data-type). Tensor support: every tensor 4-D (<op>.dimension-count), FLOAT32 or
// FLOAT16 (<op>.data-type), SequenceLengthsTensor UINT32 (<op>.sequence-lengths-data-type). The
// fields' Sizes sentences: <op>.input-sizes, .weight-sizes, .recurrence-sizes, .bias-sizes,
// .hidden-init-sizes, .sequence-lengths-sizes, .output-sequence-sizes, .output-single-sizes.
// ActivationDescs: "The number of activation functions is equal to the number of directions"
// (RNN; GRU: two per direction) (<op>.activation-count), each element given exactly up to
// ActivationDescCount (<op>.activation-descs), its parameters finite (the fused activations'
// rules, <op>.fused-activation-*). Direction is a DML_RECURRENT_NETWORK_DIRECTION
// (<op>.direction); LinearBeforeReset a BOOL (gru.linear-before-reset). Both outputs are
// optional: a desc with neither computes nothing and is refused (<op>.output).
// An ActivationDescs element's JSON pointer: its own field, "/desc/ActivationDescs[0]" (as the
// case reader names it; desc_path would read it as a tensor array's element).
std::string activation_path(size_t i) { return pointer_append("/desc", kActivationDescNames[i]); }

template <class D> void validate_recurrent(const D& d, Diagnostics& diags) {
    if (d.Direction > DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL) {
        diags.error(desc_path("Direction"), recurrent_rule<D>("direction"),
                    "Direction is " + std::to_string(d.Direction) +
                        "; it must be a DML_RECURRENT_NETWORK_DIRECTION (FORWARD, BACKWARD or BIDIRECTIONAL)");
        return;
    }
    auto boolean = [&](const char* field, uint32_t v, const char* id) {
        if (v > 1)
            diags.error(desc_path(field), recurrent_rule<D>(id),
                        std::string(field) + " is " + std::to_string(v) + "; it is a BOOL: 0 (FALSE) or 1 (TRUE)");
    };
    if constexpr (kGru<D>) boolean("LinearBeforeReset", d.LinearBeforeReset, "linear-before-reset");
    if constexpr (kLstm<D>) {
        boolean("UseClipThreshold", d.UseClipThreshold, "use-clip-threshold");
        boolean("CoupleInputForget", d.CoupleInputForget, "couple-input-forget");
        if (d.UseClipThreshold && !(d.ClipThreshold >= 0))
            diags.error(desc_path("ClipThreshold"), recurrent_rule<D>("clip-threshold"),
                        "ClipThreshold is " + std::to_string(d.ClipThreshold) +
                            "; clipping bounds the values to [-ClipThreshold, +ClipThreshold], "
                            "so it must be at least 0 (not NaN)");
    }
    std::vector<std::pair<std::string_view, const TensorDesc*>> data = {
        {"InputTensor", &d.InputTensor}, {"WeightTensor", &d.WeightTensor}, {"RecurrenceTensor", &d.RecurrenceTensor}};
    for (const auto& [n, t] :
         {std::pair<std::string_view, const std::optional<TensorDesc>*>{"BiasTensor", &d.BiasTensor},
          {"HiddenInitTensor", &d.HiddenInitTensor},
          {"OutputSequenceTensor", &d.OutputSequenceTensor},
          {"OutputSingleTensor", &d.OutputSingleTensor}})
        if (*t) data.emplace_back(n, &**t);
    if constexpr (kLstm<D>)
        for (const auto& [n, t] :
             {std::pair<std::string_view, const std::optional<TensorDesc>*>{"CellMemInitTensor", &d.CellMemInitTensor},
              {"PeepholeTensor", &d.PeepholeTensor},
              {"OutputCellSingleTensor", &d.OutputCellSingleTensor}})
            if (*t) data.emplace_back(n, &**t);
    const DataType type = d.InputTensor.DataType;
    if (type != DataType::FLOAT32 && type != DataType::FLOAT16)
        diags.error(desc_path("InputTensor") + "/DataType", recurrent_rule<D>("data-type"),
                    "InputTensor is " + std::string(name(type)) + "; the tensors are FLOAT32 or FLOAT16 (" + kPage<D> +
                        ", Tensor support)");
    for (const auto& [n, t] : data)
        if (t->DataType != type)
            diags.error(
                desc_path(n) + "/DataType", recurrent_rule<D>("same-data-type"),
                std::string(n) + " is " + std::string(name(t->DataType)) + " and InputTensor " +
                    std::string(name(type)) +
                    (kLstm<D>
                         ? "; BiasTensor, CellMemInitTensor, HiddenInitTensor, InputTensor, OutputCellSingleTensor, "
                           "OutputSequenceTensor, OutputSingleTensor, PeepholeTensor, RecurrenceTensor and WeightTensor must have the "
                           "same DataType"
                         : "; BiasTensor, HiddenInitTensor, InputTensor, OutputSequenceTensor, OutputSingleTensor, RecurrenceTensor and "
                           "WeightTensor must have the same DataType"));
    if (d.SequenceLengthsTensor) {
        data.emplace_back("SequenceLengthsTensor", &*d.SequenceLengthsTensor);
        if (d.SequenceLengthsTensor->DataType != DataType::UINT32)
            diags.error(desc_path("SequenceLengthsTensor") + "/DataType",
                        recurrent_rule<D>("sequence-lengths-data-type"),
                        "SequenceLengthsTensor is " + std::string(name(d.SequenceLengthsTensor->DataType)) +
                            "; it must be UINT32 (" + kPage<D> + ", Tensor support)");
    }
    bool any_output = d.OutputSequenceTensor || d.OutputSingleTensor;
    if constexpr (kLstm<D>) any_output = any_output || d.OutputCellSingleTensor;
    if (!any_output)
        diags.error(desc_path("OutputSequenceTensor"), recurrent_rule<D>("output"),
                    std::string(kLstm<D> ? "none of OutputSequenceTensor, OutputSingleTensor and OutputCellSingleTensor"
                                         : "neither OutputSequenceTensor nor OutputSingleTensor") +
                        " is given; the operator would compute nothing (docs/golden.md, Recurrent networks)");
    bool ranks = true;
    for (const auto& [n, t] : data)
        if (t->DimensionCount() != 4) {
            diags.error(desc_path(n) + "/Sizes", recurrent_rule<D>("dimension-count"),
                        std::string(n) + " has " + std::to_string(t->DimensionCount()) + " dimensions; it must have 4");
            ranks = false;
        }
    // The activations.
    const uint64_t D_ = directions(d.Direction), want = kActivationsPerDirection<D> * D_;
    if (d.ActivationDescCount != want)
        diags.error(desc_path("ActivationDescCount"), recurrent_rule<D>("activation-count"),
                    "ActivationDescCount is " + std::to_string(d.ActivationDescCount) + "; Direction " +
                        std::string(kRecurrentNetworkDirectionNames.Names[d.Direction]) + " takes " +
                        std::to_string(want) +
                        (kLstm<D>  ? " (f(), g() and h() for each direction)"
                         : kGru<D> ? " (f() and g() for each direction)"
                                   : " (one per direction)"));
    else
        for (size_t i = 0; i < d.ActivationDescs.size(); ++i)
            if (bool(d.ActivationDescs[i]) != (i < want))
                diags.error(activation_path(i), recurrent_rule<D>("activation-descs"),
                            std::string(kActivationDescNames[i]) + (i < want ? " is missing" : " is given") +
                                "; ActivationDescCount is " + std::to_string(want) + ", so ActivationDescs[0] to [" +
                                std::to_string(want - 1) + "] are given and no more");
    for (size_t i = 0; i < d.ActivationDescs.size(); ++i)
        if (d.ActivationDescs[i]) {
            Diagnostics a;
            validate_fused_activation(a, *d.ActivationDescs[i], kShort<D>);
            for (const Diagnostic& e : a.items()) {  // the element's own path, not FusedActivation's
                std::string path = e.path;
                const std::string from = desc_path("FusedActivation");
                if (path.rfind(from, 0) == 0) path = activation_path(i) + path.substr(from.size());
                diags.error(path, e.rule, e.message);
            }
        }
    if (!ranks) return;
    const uint32_t S = d.InputTensor.Sizes[1], B = d.InputTensor.Sizes[2], I = d.InputTensor.Sizes[3],
                   H = d.RecurrenceTensor.Sizes[3];
    const uint32_t G = uint32_t(kGates<D>), Dn = uint32_t(D_);
    auto expect = [&](std::string_view n, const TensorDesc& t, std::vector<uint32_t> want_sizes, std::string_view id,
                      std::string_view says) {
        if (t.Sizes == want_sizes) return;
        diags.error(
            desc_path(n) + "/Sizes", recurrent_rule<D>(id),
            std::string(n) + "'s Sizes are " + sizes_text(t.Sizes) + "; they must be " + sizes_text(want_sizes) + " (" +
                std::string(says) +
                ", with InputTensor { 1, seq_length, batch_size, input_size } and hidden_size from RecurrenceTensor's last size)");
    };
    if (d.InputTensor.Sizes[0] != 1)
        diags.error(desc_path("InputTensor") + "/Sizes/0", recurrent_rule<D>("input-sizes"),
                    "InputTensor's Sizes[0] is " + std::to_string(d.InputTensor.Sizes[0]) +
                        "; its Sizes are { 1, seq_length, batch_size, input_size }");
    const char* g = kLstm<D> ? "4 * " : kGru<D> ? "3 * " : "";
    expect("WeightTensor", d.WeightTensor, {1, Dn, G * H, I}, "weight-sizes",
           std::string("{ 1, num_directions, ") + g + "hidden_size, input_size }");
    expect("RecurrenceTensor", d.RecurrenceTensor, {1, Dn, G * H, H}, "recurrence-sizes",
           std::string("{ 1, num_directions, ") + g + "hidden_size, hidden_size }");
    if (d.BiasTensor)
        expect("BiasTensor", *d.BiasTensor, {1, 1, Dn, 2 * G * H}, "bias-sizes",
               kLstm<D>  ? "{ 1, 1, num_directions, 8 * hidden_size }"
               : kGru<D> ? "{ 1, 1, num_directions, 6 * hidden_size }"
                         : "{ 1, 1, num_directions, 2 * hidden_size }");
    if (d.HiddenInitTensor)
        expect("HiddenInitTensor", *d.HiddenInitTensor, {1, Dn, B, H}, "hidden-init-sizes",
               "{ 1, num_directions, batch_size, hidden_size }");
    if (d.SequenceLengthsTensor)
        expect("SequenceLengthsTensor", *d.SequenceLengthsTensor, {1, 1, 1, B}, "sequence-lengths-sizes",
               "{ 1, 1, 1, batch_size }");
    if (d.OutputSequenceTensor)
        expect("OutputSequenceTensor", *d.OutputSequenceTensor, {S, Dn, B, H}, "output-sequence-sizes",
               "{ seq_length, num_directions, batch_size, hidden_size }");
    if (d.OutputSingleTensor)
        expect("OutputSingleTensor", *d.OutputSingleTensor, {1, Dn, B, H}, "output-single-sizes",
               "{ 1, num_directions, batch_size, hidden_size }");
    if constexpr (kLstm<D>) {
        if (d.CellMemInitTensor)
            expect("CellMemInitTensor", *d.CellMemInitTensor, {1, Dn, B, H}, "cell-mem-init-sizes",
                   "{ 1, num_directions, batch_size, hidden_size }");
        if (d.PeepholeTensor)
            expect("PeepholeTensor", *d.PeepholeTensor, {1, 1, Dn, 3 * H}, "peephole-sizes",
                   "{ 1, 1, num_directions, 3 * hidden_size }");
        if (d.OutputCellSingleTensor)
            expect("OutputCellSingleTensor", *d.OutputCellSingleTensor, {1, Dn, B, H}, "output-cell-single-sizes",
                   "{ 1, num_directions, batch_size, hidden_size }");
    }
}

// SequenceLengthsTensor's values: at most seq_length (<op>.sequence-length-range; docs/golden.md,
// RecurrentSequenceLengths).
template <class D> void validate_lengths(const D& d, const InputBuffers& in, Diagnostics& diags) {
    const auto it = in.find("SequenceLengthsTensor");
    if (!d.SequenceLengthsTensor || it == in.end() || !valid(d, validate_recurrent) ||
        it->second.size() < buffer_size(*d.SequenceLengthsTensor))
        return;
    const std::vector<double> len = logical_doubles(*d.SequenceLengthsTensor, it->second);
    const uint32_t S = d.InputTensor.Sizes[1];
    int reported = 0;
    for (size_t b = 0; b < len.size(); ++b)
        if (len[b] > S && reported++ < 8)
            diags.error(pointer_append("/inputs/SequenceLengthsTensor", b), recurrent_rule<D>("sequence-length-range"),
                        "the sequence length of batch " + std::to_string(b) + " is " +
                            std::to_string(uint64_t(len[b])) + "; it must be at most seq_length, " + std::to_string(S));
}

// ---- The time loop -------------------------------------------------------------------------------

// The operator's inputs in logical order, widened exactly to double.
struct Problem {
    uint64_t S = 0, B = 0, I = 0, H = 0, D = 1, G = 1;
    uint32_t direction = 0;
    bool gru = false, linear_before_reset = false;
    bool lstm = false, couple = false;
    std::optional<double> clip;  // LSTM's ClipThreshold when UseClipThreshold
    std::vector<double> x, w, r, bias, init;
    std::vector<double> cell_init, peephole;  // LSTM
    std::vector<uint64_t> length;             // per batch
    std::vector<DML_FUSED_ACTIVATION> act;
    // Element [d, gate, j, k] of W and of R; the W and R biases of [d, gate, j] (0 without BiasTensor).
    double W(uint64_t d, uint64_t g, uint64_t j, uint64_t k) const { return w[((d * G + g) * H + j) * I + k]; }
    double R(uint64_t d, uint64_t g, uint64_t j, uint64_t k) const { return r[((d * G + g) * H + j) * H + k]; }
    double Wb(uint64_t d, uint64_t g, uint64_t j) const { return bias.empty() ? 0 : bias[(d * 2 * G + g) * H + j]; }
    double Rb(uint64_t d, uint64_t g, uint64_t j) const { return bias.empty() ? 0 : bias[(d * 2 * G + G + g) * H + j]; }
    double X(uint64_t t, uint64_t b, uint64_t k) const { return x[(t * B + b) * I + k]; }
    // LSTM's peephole weight of gate i (0), o (1) or f (2) for [d, j] (0 without PeepholeTensor).
    double P(uint64_t d, uint64_t g, uint64_t j) const { return peephole.empty() ? 0 : peephole[(d * 3 + g) * H + j]; }
};

template <class D, class In> Problem read_problem(const D& d, In&& input) {
    Problem p;
    p.S = d.InputTensor.Sizes[1];
    p.B = d.InputTensor.Sizes[2];
    p.I = d.InputTensor.Sizes[3];
    p.H = d.RecurrenceTensor.Sizes[3];
    p.D = directions(d.Direction);
    p.G = kGates<D>;
    p.direction = d.Direction;
    p.gru = kGru<D>;
    if constexpr (kGru<D>) p.linear_before_reset = d.LinearBeforeReset != 0;
    if constexpr (kLstm<D>) {
        p.lstm = true;
        p.couple = d.CoupleInputForget != 0;
        if (d.UseClipThreshold && std::isfinite(d.ClipThreshold))
            p.clip = double(d.ClipThreshold);  // an infinite one clamps nothing
        if (d.CellMemInitTensor) p.cell_init = logical_doubles(*d.CellMemInitTensor, input("CellMemInitTensor"));
        if (d.PeepholeTensor) p.peephole = logical_doubles(*d.PeepholeTensor, input("PeepholeTensor"));
    }
    p.x = logical_doubles(d.InputTensor, input("InputTensor"));
    p.w = logical_doubles(d.WeightTensor, input("WeightTensor"));
    p.r = logical_doubles(d.RecurrenceTensor, input("RecurrenceTensor"));
    if (d.BiasTensor) p.bias = logical_doubles(*d.BiasTensor, input("BiasTensor"));
    if (d.HiddenInitTensor) p.init = logical_doubles(*d.HiddenInitTensor, input("HiddenInitTensor"));
    p.length.assign(p.B, p.S);
    if (d.SequenceLengthsTensor) {
        const std::vector<double> len = logical_doubles(*d.SequenceLengthsTensor, input("SequenceLengthsTensor"));
        for (uint64_t b = 0; b < p.B; ++b) p.length[b] = std::min<uint64_t>(uint64_t(len[b]), p.S);
    }
    for (uint64_t i = 0; i < d.ActivationDescCount; ++i) p.act.push_back(*d.ActivationDescs[i]);
    return p;
}

// One step of one direction and batch: what the bound reads. Gate g's unit j is [g * H + j].
struct Step {
    uint64_t d = 0, b = 0, t = 0;
    std::vector<double> prev;  // H_(t-1), as stored
    std::vector<double> pre;   // each gate's exact pre-activation sum (float64)
    std::vector<double> gate;  // each gate's rounded output (RNN: the new state)
    std::vector<double>
        mid;  // GRU: r . H_(t-1) (LinearBeforeReset FALSE) or H_(t-1) Rh^T + Rbh (TRUE); LSTM: h(C_t); rounded
    std::vector<double> next;             // H_t, rounded
    std::vector<double> cell_prev, cell;  // LSTM: C_(t-1) and C_t, rounded
};

// LSTM's clip of an activation's input (UseClipThreshold): the rounded sum clamped to
// [-ClipThreshold, +ClipThreshold], the threshold rounded to T; NaN stays NaN (LstmClip).
template <class T> T clipped(const Problem& p, T y) {
    if (!p.clip) return y;
    const double v = widen(y), c = widen(round_to_float<T>(*p.clip));
    if (v > c) return round_to_float<T>(c);
    if (v < -c) return round_to_float<T>(-c);
    return y;
}

// A gate's pre-activation sum for unit j, exact: X_t W^T (+ h R^T when h is given) + the biases
// + extra (0 when none), as float64 and rounded once to T.
template <class T>
double gate_sum(const Problem& p, const Step& s, uint64_t g, uint64_t j, const std::vector<double>* h, bool rb,
                double extra, T& rounded) {
    ExactSum sum;
    for (uint64_t k = 0; k < p.I; ++k) sum.add(p.X(s.t, s.b, k) * p.W(s.d, g, j, k));
    if (h)
        for (uint64_t k = 0; k < p.H; ++k) sum.add((*h)[k] * p.R(s.d, g, j, k));
    sum.add(p.Wb(s.d, g, j));
    if (rb) sum.add(p.Rb(s.d, g, j));
    sum.add(extra);  // 0 adds nothing
    rounded = sum.result<T>();
    return sum.result<double>();
}

template <class T> double activate(const DML_FUSED_ACTIVATION& a, T y) { return widen(fused_activation<T>(a, y)); }

// a b, exact in float64 for values of T, rounded once (a NaN product: the canonical NaN).
template <class T> double rounded_product(double a, double b) {
    ExactSum e;
    e.add(a * b);
    return widen(e.result<T>());
}

template <class T> void lstm_step(const Problem& p, Step& s) {
    const uint64_t H = p.H;
    const DML_FUSED_ACTIVATION &f = p.act[3 * s.d], &g = p.act[3 * s.d + 1], &h = p.act[3 * s.d + 2];
    T y{};
    // Gates i (0), o (1), f (2), c (3); the peepholes of i and f read C_(t-1), o's reads C_t.
    for (uint64_t gi : {uint64_t(0), uint64_t(2), uint64_t(3)}) {
        if (gi == 2 && p.couple) continue;
        for (uint64_t j = 0; j < H; ++j) {
            const double peep = gi == 3 ? 0 : p.P(s.d, gi == 0 ? 0 : 2, j) * s.cell_prev[j];
            s.pre[gi * H + j] = gate_sum<T>(p, s, gi, j, &s.prev, true, peep, y);
            s.gate[gi * H + j] = activate(gi == 3 ? g : f, clipped(p, y));
        }
    }
    if (p.couple)  // CoupleInputForget: f = 1 - i, exact and rounded once
        for (uint64_t j = 0; j < H; ++j) {
            ExactSum one;
            one.add(1);
            one.add(-s.gate[j]);
            s.gate[2 * H + j] = widen(one.result<T>());
        }
    s.cell.assign(H, 0);
    for (uint64_t j = 0; j < H; ++j) {  // C_t = f C_(t-1) + i c, exact, rounded once
        ExactSum c;
        c.add(s.gate[2 * H + j] * s.cell_prev[j]);
        c.add(s.gate[j] * s.gate[3 * H + j]);
        s.cell[j] = widen(c.result<T>());
    }
    s.mid.assign(H, 0);
    for (uint64_t j = 0; j < H; ++j) {
        s.pre[H + j] = gate_sum<T>(p, s, 1, j, &s.prev, true, p.P(s.d, 1, j) * s.cell[j], y);
        s.gate[H + j] = activate(f, clipped(p, y));
        s.mid[j] = activate(h, clipped(p, round_to_float<T>(s.cell[j])));  // h(C_t), rounded
        s.next[j] = rounded_product<T>(s.gate[H + j], s.mid[j]);           // o h(C_t)
    }
}

template <class T> void step(const Problem& p, Step& s) {
    const uint64_t H = p.H;
    s.pre.assign(p.G * H, 0);
    s.gate.assign(p.G * H, 0);
    s.next.assign(H, 0);
    if (p.lstm) return lstm_step<T>(p, s);
    T y{};
    if (!p.gru) {
        const DML_FUSED_ACTIVATION& f = p.act[s.d];
        for (uint64_t j = 0; j < H; ++j) {
            s.pre[j] = gate_sum<T>(p, s, 0, j, &s.prev, true, 0, y);
            s.gate[j] = s.next[j] = activate(f, y);
        }
        return;
    }
    const DML_FUSED_ACTIVATION& f = p.act[2 * s.d];
    const DML_FUSED_ACTIVATION& g = p.act[2 * s.d + 1];
    for (uint64_t gi = 0; gi < 2; ++gi)  // z, r
        for (uint64_t j = 0; j < H; ++j) {
            s.pre[gi * H + j] = gate_sum<T>(p, s, gi, j, &s.prev, true, 0, y);
            s.gate[gi * H + j] = activate(f, y);
        }
    s.mid.assign(H, 0);
    for (uint64_t j = 0; j < H; ++j) {
        const double r = s.gate[H + j];
        if (!p.linear_before_reset) {
            s.mid[j] = rounded_product<T>(r, s.prev[j]);
            continue;
        }
        ExactSum q;  // H_(t-1) Rh^T + Rbh
        for (uint64_t k = 0; k < H; ++k) q.add(s.prev[k] * p.R(s.d, 2, j, k));
        q.add(p.Rb(s.d, 2, j));
        s.mid[j] = widen(q.result<T>());
    }
    for (uint64_t j = 0; j < H; ++j) {
        if (!p.linear_before_reset) s.pre[2 * H + j] = gate_sum<T>(p, s, 2, j, &s.mid, true, 0, y);
        else s.pre[2 * H + j] = gate_sum<T>(p, s, 2, j, nullptr, false, s.gate[H + j] * s.mid[j], y);
        s.gate[2 * H + j] = activate(g, y);
    }
    for (uint64_t j = 0; j < H; ++j) {  // (1 - z) h + z H_(t-1) = h - z h + z H_(t-1), exact, rounded once
        const double z = s.gate[j], h = s.gate[2 * H + j];
        ExactSum n;
        n.add(h);
        n.add(-(z * h));
        n.add(z * s.prev[j]);
        s.next[j] = widen(n.result<T>());
    }
}

// Runs every direction and batch, calling on_step(step) after each step, and end(d, b, state)
// with the final state.
template <class T, class OnStep, class End> void run(const Problem& p, OnStep&& on_step, End&& end) {
    for (uint64_t d = 0; d < p.D; ++d)
        for (uint64_t b = 0; b < p.B; ++b) {
            Step s;
            s.d = d;
            s.b = b;
            s.prev.assign(p.H, 0);
            if (!p.init.empty())
                for (uint64_t j = 0; j < p.H; ++j) s.prev[j] = p.init[(d * p.B + b) * p.H + j];
            s.cell_prev.assign(p.H, 0);
            if (!p.cell_init.empty())
                for (uint64_t j = 0; j < p.H; ++j) s.cell_prev[j] = p.cell_init[(d * p.B + b) * p.H + j];
            const uint64_t L = p.length[b];
            for (uint64_t n = 0; n < L; ++n) {
                s.t = reversed(p.direction, d) ? L - 1 - n : n;
                step<T>(p, s);
                on_step(s);
                s.prev = s.next;
                s.cell_prev = s.cell;
            }
            end(d, b, s.prev, s.cell_prev);
        }
}

template <class T, class D> void evaluate_recurrent(const D& d, const Bindings& bind) {
    const Problem p = read_problem(d, [&](const char* f) { return std::span<const std::byte>(bind.at(f)); });
    std::vector<T> seq(d.OutputSequenceTensor ? element_count(*d.OutputSequenceTensor) : 0, round_to_float<T>(0.0));
    std::vector<T> single(p.D * p.B * p.H), cell(p.D * p.B * p.H);
    run<T>(
        p,
        [&](const Step& s) {
        if (seq.empty()) return;
        for (uint64_t j = 0; j < p.H; ++j)
            seq[((s.t * p.D + s.d) * p.B + s.b) * p.H + j] = round_to_float<T>(s.next[j]);
        },
        [&](uint64_t dd, uint64_t b, const std::vector<double>& h, const std::vector<double>& c) {
        for (uint64_t j = 0; j < p.H; ++j) {
            single[(dd * p.B + b) * p.H + j] = round_to_float<T>(h[j]);
            cell[(dd * p.B + b) * p.H + j] = round_to_float<T>(c[j]);
        }
    });
    if (d.OutputSequenceTensor)
        write_logical<T>(*d.OutputSequenceTensor, bind.at("OutputSequenceTensor"), [&](uint64_t i) { return seq[i]; });
    if (d.OutputSingleTensor)
        write_logical<T>(*d.OutputSingleTensor, bind.at("OutputSingleTensor"), [&](uint64_t i) { return single[i]; });
    if constexpr (kLstm<D>)
        if (d.OutputCellSingleTensor)
            write_logical<T>(*d.OutputCellSingleTensor, bind.at("OutputCellSingleTensor"),
                             [&](uint64_t i) { return cell[i]; });
}

template <class D> void evaluate_any(const D& d, const Bindings& b) {
    if (d.InputTensor.DataType == DataType::FLOAT16) evaluate_recurrent<half>(d, b);
    else evaluate_recurrent<float>(d, b);
}

// ---- Judging (docs/tolerance.md, "Recurrent networks") -------------------------------------------

std::optional<Tolerance> stated(std::string_view what) {
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = 0;
    t.Why =
        "each step from the previous step's stored state, its gates' exact sums rounded once and activated (docs/golden.md, "
        "Recurrent networks); dmlref diff bounds each element by carrying a backend's admissible error of every step (" +
        std::string(what) +
        ") through the steps, for a backend computing in the profile's precision (docs/tolerance.md, "
        "Recurrent networks)";
    return t;
}

template <class D> std::optional<Tolerance> tolerance_any(const D& d, std::string_view output) {
    if ((output != "OutputSequenceTensor" && output != "OutputSingleTensor" && output != "OutputCellSingleTensor") ||
        !valid(d, validate_recurrent))
        return std::nullopt;
    if constexpr (kLstm<D>) return stated("the gates' sums with peepholes, the activations, f C + i c, o h(C)");
    return stated(kGru<D> ? "the gates' sums, r . H, the activations, (1 - z) h + z H"
                          : "the sum X W + H R + biases, the activation");
}

// The arithmetic of one working precision w, and the output type t.
struct Precision {
    DataType wt, t;
    double u, eta;    // w's unit roundoff and underflow
    double ut, etat;  // t's
    bool flush;
    bool wider() const { return wt != t; }
    // A value the backend stores in t (when w is wider): its rounding.
    double store(double v, double e) const { return wider() ? e + ut * (std::fabs(v) + e) + etat : e; }
    // The golden's rounding of a value v to t.
    double golden(double v) const { return ut * std::fabs(v) + etat; }
};

// A sum of n terms (magnitudes m, perturbation of the exact terms prop) in any order and
// association, FMA or not: gamma_n in w; two partial sums stored in t (an input projection
// computed for every step apart, say) when w is wider.
double sum_error(const Precision& q, uint64_t n, double m, double prop) {
    double e = prop + gamma_up(n, q.u) * m + double(n) * q.eta;
    if (q.wider()) e += 2 * (q.ut * m + q.etat);
    return e;
}

// Through an activation: the backend's pre-activation (within e_pre of the exact y, stored in t
// when w is wider) and the golden's rounded one; the result stored in t. Bounds |backend - a(y_t)|.
// With LSTM's clip, y is the clamped exact value and the golden's clamped input is within
// u_t (|y| + ClipThreshold) + eta_t of it (clamping moves neither value farther apart).
double through(const Precision& q, const DML_FUSED_ACTIVATION& a, double y, double e_pre, double clip = -1,
               bool rounded_input = false) {
    if (!std::isfinite(e_pre) || !std::isfinite(y)) return std::numeric_limits<double>::infinity();
    double golden = rounded_input ? 0 : q.golden(y);
    if (clip >= 0) {  // -1: no clip
        golden += q.ut * (std::fabs(y) + clip) + q.etat;
        y = std::clamp(y, -clip, clip);
    }
    const double e = q.store(y, e_pre);
    const ActivationError r = fused_activation_error(a, y, e + golden, q.wt, q.flush);
    if (!std::isfinite(r.error)) return std::numeric_limits<double>::infinity();
    return q.store(r.magnitude, r.error);
}

// |a~ b~ - a b| for |a~ - a| <= ea, |b~ - b| <= eb, the product rounded in w (and stored in t).
double product_error(const Precision& q, double a, double ea, double b, double eb) {
    const double m = (std::fabs(a) + ea) * (std::fabs(b) + eb);
    return q.store(a * b, m - std::fabs(a * b) + q.u * m + q.eta);
}

// The bounds of every element of one output, the largest over the profile's working types.
void bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& prof, std::string_view output,
            TermSink& sink) {
    const double inf = std::numeric_limits<double>::infinity();
    visit_as<RNN, GRU, LSTM>(op.Desc, [&](const auto& d) {
        const Problem p = read_problem(d, input);
        const DataType t = d.InputTensor.DataType;
        const bool sequence = output == "OutputSequenceTensor", cell_output = output == "OutputCellSingleTensor";
        std::vector<double> best(sequence ? p.S * p.D * p.B * p.H : p.D * p.B * p.H, 0);
        for (DataType wt : working_types(prof, t)) {
            const Precision q{wt,
                              t,
                              unit_roundoff(wt),
                              prof.flush_subnormals ? smallest_normal(wt) : subnormal_rounding_error(wt),
                              unit_roundoff(t),
                              prof.flush_subnormals ? smallest_normal(t) : subnormal_rounding_error(t),
                              prof.flush_subnormals};
            std::vector<double> cur(best.size(), 0);  // this working type's bounds
            std::vector<double> e_state, e_cell;      // |backend's H_(t-1) (C_(t-1)) - golden's|, per unit
            uint64_t cur_d = ~uint64_t(0), cur_b = 0;
            auto start = [&](uint64_t dd, uint64_t b) {
                if (dd == cur_d && b == cur_b) return;
                cur_d = dd;
                cur_b = b;
                e_state.assign(p.H, 0);
                e_cell.assign(p.H, 0);
            };
            const uint64_t nb = p.bias.empty() ? 0 : 2;
            // A gate's sum over X W (+ h R with errors eh) + biases (+ an extra term with error).
            auto gate_error = [&](const Step& s, uint64_t g, uint64_t j, const std::vector<double>* h,
                                  const std::vector<double>* eh, bool rb, double extra, double e_extra) {
                double m = 0, prop = 0;
                uint64_t n = p.I + (rb ? nb : nb / 2) + (e_extra >= 0 ? 1 : 0);
                for (uint64_t k = 0; k < p.I; ++k) m += std::fabs(p.X(s.t, s.b, k) * p.W(s.d, g, j, k));
                if (h) {
                    n += p.H;
                    for (uint64_t k = 0; k < p.H; ++k) {
                        const double rk = std::fabs(p.R(s.d, g, j, k));
                        m += (std::fabs((*h)[k]) + (*eh)[k]) * rk;
                        prop += (*eh)[k] * rk;
                    }
                }
                m += std::fabs(p.Wb(s.d, g, j)) + (rb ? std::fabs(p.Rb(s.d, g, j)) : 0);
                if (e_extra >= 0) {
                    m += std::fabs(extra) + e_extra;
                    prop += e_extra;
                }
                return sum_error(q, n, m, prop);
            };
            auto on_step = [&](const Step& s) {
                start(s.d, s.b);
                const uint64_t H = p.H;
                std::vector<double> out(H), next_e(H), cell_out(H, 0);
                if (p.lstm) {
                    const DML_FUSED_ACTIVATION &f = p.act[3 * s.d], &g = p.act[3 * s.d + 1], &h = p.act[3 * s.d + 2];
                    std::vector<double> e(4 * H);  // each gate's error against the golden's rounded gate
                    for (uint64_t gi : {uint64_t(0), uint64_t(2), uint64_t(3)}) {
                        if (gi == 2 && p.couple) continue;
                        for (uint64_t j = 0; j < H; ++j) {
                            const double pc = gi == 3 ? 0 : p.P(s.d, gi == 0 ? 0 : 2, j);
                            const double pre = gate_error(s, gi, j, &s.prev, &e_state, true, pc * s.cell_prev[j],
                                                          gi == 3 ? -1 : std::fabs(pc) * e_cell[j]);
                            e[gi * H + j] = through(q, gi == 3 ? g : f, s.pre[gi * H + j], pre, p.clip.value_or(-1)) +
                                            q.golden(s.gate[gi * H + j]);
                        }
                    }
                    if (p.couple)
                        for (uint64_t j = 0; j < H; ++j)
                            e[2 * H + j] = q.store(s.gate[2 * H + j], e[j] + q.u * std::fabs(1 - s.gate[j]) + q.eta) +
                                           q.golden(s.gate[2 * H + j]);
                    std::vector<double> ec(H);
                    for (uint64_t j = 0; j < H;
                         ++j) {  // C_t = f C_(t-1) + i c: the operands' spread, then two roundings in w
                        const double fv = s.gate[2 * H + j], iv = s.gate[j], cv = s.gate[3 * H + j],
                                     cp = s.cell_prev[j];
                        const double ef = e[2 * H + j], ei = e[j], ecv = e[3 * H + j], ecp = e_cell[j];
                        const double spread = ef * (std::fabs(cp) + ecp) + std::fabs(fv) * ecp +
                                              ei * (std::fabs(cv) + ecv) + std::fabs(iv) * ecv;
                        const double mag = (std::fabs(fv) + ef) * (std::fabs(cp) + ecp) +
                                           (std::fabs(iv) + ei) * (std::fabs(cv) + ecv);
                        cell_out[j] = q.store(s.cell[j], spread + gamma_up(2, q.u) * mag + 2 * q.eta);
                        ec[j] = cell_out[j] + q.golden(s.cell[j]);
                    }
                    for (uint64_t j = 0; j < H; ++j) {
                        const double po = p.P(s.d, 1, j);
                        const double pre = gate_error(s, 1, j, &s.prev, &e_state, true, po * s.cell[j],
                                                      std::fabs(po) * ec[j]);
                        const double eo = through(q, f, s.pre[H + j], pre, p.clip.value_or(-1)) +
                                          q.golden(s.gate[H + j]);
                        // h(C_t): the golden applies h to its rounded C_t, which the backend's is within ec of.
                        const double eh = through(q, h, s.cell[j], ec[j], p.clip.value_or(-1), true) +
                                          q.golden(s.mid[j]);
                        out[j] = product_error(q, s.gate[H + j], eo, s.mid[j], eh);
                        next_e[j] = out[j] + q.golden(s.next[j]);
                    }
                    e_cell = ec;
                } else if (!p.gru) {
                    for (uint64_t j = 0; j < H; ++j) {
                        out[j] = through(q, p.act[s.d], s.pre[j], gate_error(s, 0, j, &s.prev, &e_state, true, 0, -1));
                        next_e[j] = out[j] + q.golden(s.next[j]);
                    }
                } else {
                    const DML_FUSED_ACTIVATION& f = p.act[2 * s.d];
                    const DML_FUSED_ACTIVATION& g = p.act[2 * s.d + 1];
                    std::vector<double> ez(H), er(H), emid(H);
                    for (uint64_t j = 0; j < H; ++j) {
                        ez[j] = through(q, f, s.pre[j], gate_error(s, 0, j, &s.prev, &e_state, true, 0, -1)) +
                                q.golden(s.gate[j]);
                        er[j] = through(q, f, s.pre[H + j], gate_error(s, 1, j, &s.prev, &e_state, true, 0, -1)) +
                                q.golden(s.gate[H + j]);
                    }
                    for (uint64_t j = 0; j < H; ++j) {
                        if (!p.linear_before_reset) {
                            emid[j] = product_error(q, s.gate[H + j], er[j], s.prev[j], e_state[j]) +
                                      q.golden(s.mid[j]);
                        } else {
                            // H_(t-1) Rh^T + Rbh: no X W terms.
                            double m = std::fabs(p.Rb(s.d, 2, j)), prop = 0;
                            for (uint64_t k = 0; k < H; ++k) {
                                const double rk = std::fabs(p.R(s.d, 2, j, k));
                                m += (std::fabs(s.prev[k]) + e_state[k]) * rk;
                                prop += e_state[k] * rk;
                            }
                            emid[j] = q.store(s.mid[j], sum_error(q, H + (nb ? 1 : 0), m, prop)) + q.golden(s.mid[j]);
                        }
                    }
                    for (uint64_t j = 0; j < H; ++j) {
                        double e_pre;
                        if (!p.linear_before_reset) {
                            e_pre = gate_error(s, 2, j, &s.mid, &emid, true, 0, -1);
                        } else {
                            const double rq = s.gate[H + j] * s.mid[j];
                            e_pre = gate_error(s, 2, j, nullptr, nullptr, false, rq,
                                               product_error(q, s.gate[H + j], er[j], s.mid[j], emid[j]));
                        }
                        const double h = s.gate[2 * H + j], eh = through(q, g, s.pre[2 * H + j], e_pre) + q.golden(h);
                        const double z = s.gate[j], prev = s.prev[j], ep = e_state[j];
                        // (1 - z) h + z H_(t-1): the spread of the operands, then any evaluation form
                        // (h + z (H - h) or (1 - z) h + z H) with four roundings in w over its magnitudes.
                        const double spread = ez[j] * (std::fabs(prev - h) + ep + eh) + std::fabs(1 - z) * eh +
                                              std::fabs(z) * ep;
                        const double mag = (std::fabs(h) + eh) * (1 + 2 * (std::fabs(z) + ez[j])) +
                                           (std::fabs(z) + ez[j]) * (std::fabs(prev) + ep);
                        out[j] = q.store(s.next[j], spread + gamma_up(4, q.u) * mag + 4 * q.eta);
                        next_e[j] = out[j] + q.golden(s.next[j]);
                    }
                }
                for (uint64_t j = 0; j < H; ++j) {
                    double b = std::isfinite(out[j]) ? out[j] * (1 + 1e-9) : inf;
                    if (cell_output) b = std::isfinite(cell_out[j]) ? cell_out[j] * (1 + 1e-9) : inf;
                    if (sequence) cur[((s.t * p.D + s.d) * p.B + s.b) * H + j] = b;
                    else
                        cur[(s.d * p.B + s.b) * H + j] =
                            b;  // the last step's (a length of 0: the exact initial state, 0)
                    e_state[j] = std::isfinite(next_e[j]) ? next_e[j] : inf;
                }
            };
            auto none = [](uint64_t, uint64_t, const std::vector<double>&, const std::vector<double>&) {};
            if (t == DataType::FLOAT16) run<half>(p, on_step, none);
            else run<float>(p, on_step, none);
            for (size_t i = 0; i < best.size(); ++i) best[i] = std::max(best[i], cur[i]);
        }
        for (uint64_t i = 0; i < best.size() && i < sink.elements().size(); ++i)
            sink.set_computed(i, std::isnan(best[i]) ? inf : best[i], 0, 0);
    });
}

}  // namespace

void validate(const RNN& d, Diagnostics& diags) { validate_recurrent(d, diags); }
void evaluate(const RNN& d, const Bindings& b) { evaluate_any(d, b); }
void validate_values(const RNN& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_lengths(d, in, diags);
}
void validate(const GRU& d, Diagnostics& diags) { validate_recurrent(d, diags); }
void validate(const LSTM& d, Diagnostics& diags) { validate_recurrent(d, diags); }
void evaluate(const LSTM& d, const Bindings& b) { evaluate_any(d, b); }
void validate_values(const LSTM& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_lengths(d, in, diags);
}
void evaluate(const GRU& d, const Bindings& b) { evaluate_any(d, b); }
void validate_values(const GRU& d, const InputBuffers& in, uint64_t, Diagnostics& diags) {
    validate_lengths(d, in, diags);
}

std::optional<Tolerance> tolerance(const RNN& d, std::string_view output) { return tolerance_any(d, output); }
std::optional<Tolerance> tolerance(const GRU& d, std::string_view output) { return tolerance_any(d, output); }
std::optional<Tolerance> tolerance(const LSTM& d, std::string_view output) { return tolerance_any(d, output); }

uint64_t recurrent_work_factor(const OperatorDesc& desc) {
    return visit_as<RNN, GRU, LSTM>(desc, [](const auto& d) -> uint64_t {
        using D = std::decay_t<decltype(d)>;
        if (d.InputTensor.Sizes.size() != 4 || d.RecurrenceTensor.Sizes.size() != 4) return 1;
        // Every step of the sequence, even for OutputSingleTensor alone (it holds the last state).
        const uint64_t per_step = kGates<D> * (uint64_t(d.InputTensor.Sizes[3]) + d.RecurrenceTensor.Sizes[3] + 3);
        const uint64_t S = d.InputTensor.Sizes[1];
        return S != 0 && per_step > (UINT64_MAX - 1) / S ? UINT64_MAX : S * per_step + 1;  // saturating
    });
}

// ---- explain (dmlref/explain.hpp) -----------------------------------------------------------------

bool explain_recurrent(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    return visit_as<RNN, GRU, LSTM>(c.op.Desc, [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        const uint64_t B = d.InputTensor.Sizes[2], H = d.RecurrenceTensor.Sizes[3], Dn = directions(d.Direction);
        const uint64_t j = flat % H, b = (flat / H) % B, dir = (flat / (H * B)) % Dn;
        const bool seq = output == "OutputSequenceTensor";
        const char* formula =
            kLstm<D>
                ? "i = f(X Wi + H Ri + Pi C + b), f_t = f(X Wf + H Rf + Pf C + b) (CoupleInputForget: 1 - i), "
                  "c = g(X Wc + H Rc + b), C_t = f_t C_(t-1) + i c, o = f(X Wo + H Ro + Po C_t + b), H_t = o h(C_t)"
            : kGru<D> ? "z = f(X Wz + H Rz + b), r = f(X Wr + H Rr + b), h = g(X Wh + (r H) Rh + b) "
                        "(LinearBeforeReset: r (H Rh + Rbh)), H_t = (1 - z) h + z H_(t-1)"
                      : "H_t = f(X_t W^T + H_(t-1) R^T + Wb + Rb)";
        const uint64_t t = seq ? flat / (H * B * Dn) : 0;
        out.facts.emplace_back(
            "unit", "direction " + std::to_string(dir) + (reversed(d.Direction, dir) ? " (backward)" : " (forward)") +
                        ", batch " + std::to_string(b) + ", hidden unit " + std::to_string(j) +
                        (seq ? ", step t = " + std::to_string(t) : std::string(", the final state")));
        out.facts.emplace_back("formula", formula);
        if (seq) out.inputs.push_back(input_element(c, "InputTensor", {0, t, b, 0}, "x (the step's first input)"));
        if (d.SequenceLengthsTensor)
            out.inputs.push_back(input_element(c, "SequenceLengthsTensor", {0, 0, 0, b}, "the batch's length"));
        if (d.HiddenInitTensor)
            out.inputs.push_back(input_element(c, "HiddenInitTensor", {0, dir, b, j}, "initial state"));
        out.facts.emplace_back(
            "output", std::string(output) + ": each step from the previous step's stored state, rounded once per step");
        out.policies = {"RecurrentState", "RecurrentGateInput", "RecurrentSequenceLengths"};
        if constexpr (kGru<D>) out.policies.push_back("GruIntermediates");
        if constexpr (kLstm<D>) {
            out.policies.push_back("LstmIntermediates");
            if (d.UseClipThreshold) out.policies.push_back("LstmClip");
        }
        return true;
    });
}

}  // namespace dmlref::reference

namespace dmlref {
void recurrent_sequence_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                               TermSink& sink) {
    reference::bounds(op, input, p, "OutputSequenceTensor", sink);
}
void recurrent_single_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    reference::bounds(op, input, p, "OutputSingleTensor", sink);
}
void recurrent_cell_single_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p,
                                  TermSink& sink) {
    reference::bounds(op, input, p, "OutputCellSingleTensor", sink);
}
}  // namespace dmlref
