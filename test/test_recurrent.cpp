// The recurrent family: RNN, GRU and LSTM. Expected values come from a naive loop written here over
// whole matrices in GMP rationals, rounded by MPFR at the points docs/golden.md's policies name, from
// hand derivations (sigmoid(0) = 1/2 and tanh(0) = 0 make GRU and LSTM halve their states; FLOAT16 ties that
// show the per-step rounding), and from planted backends judged by the bound; none from dmlref.
#include "mpfr_round.hpp"
#include "support.hpp"

#include "dmlref/descs/recurrent.hpp"
#include "dmlref/diff.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_recurrent {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using RNN = DML_RNN_OPERATOR_DESC;
using GRU = DML_GRU_OPERATOR_DESC;
using LSTM = DML_LSTM_OPERATOR_DESC;
using Vec = std::vector<double>;

DML_FUSED_ACTIVATION act(std::string_view name, float p0 = 0, float p1 = 0) {
    const auto& types = fused_activation_types();
    for (uint32_t i = 0; i < types.size(); ++i)
        if (types[i].Name == name) return {i, {p0, p1}};
    FAIL("no activation " << name);
    return {};
}

struct Spec {
    DataType t = DataType::FLOAT32;
    uint32_t S = 3, B = 1, I = 2, H = 2;
    uint32_t direction = DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
    bool bias = false, init = false, lengths = false, sequence = true, single = true;
    bool gru = false, linear_before_reset = false;
    std::vector<DML_FUSED_ACTIVATION> acts;
    bool lstm = false, peephole = false, cell_init = false, couple = false, cell_single = false;
    std::optional<float> clip;
    uint32_t dirs() const { return direction == DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL ? 2 : 1; }
    uint32_t G() const { return lstm ? 4 : gru ? 3 : 1; }
};

template <class D> void fill(D& d, const Spec& s) {
    d.InputTensor = desc(s.t, {1, s.S, s.B, s.I});
    d.WeightTensor = desc(s.t, {1, s.dirs(), s.G() * s.H, s.I});
    d.RecurrenceTensor = desc(s.t, {1, s.dirs(), s.G() * s.H, s.H});
    if (s.bias) d.BiasTensor = desc(s.t, {1, 1, s.dirs(), 2 * s.G() * s.H});
    if (s.init) d.HiddenInitTensor = desc(s.t, {1, s.dirs(), s.B, s.H});
    if (s.lengths) d.SequenceLengthsTensor = desc(DataType::UINT32, {1, 1, 1, s.B});
    if (s.sequence) d.OutputSequenceTensor = desc(s.t, {s.S, s.dirs(), s.B, s.H});
    if (s.single) d.OutputSingleTensor = desc(s.t, {1, s.dirs(), s.B, s.H});
    d.ActivationDescCount = uint32_t(s.acts.size());
    for (size_t i = 0; i < s.acts.size() && i < d.ActivationDescs.size(); ++i) d.ActivationDescs[i] = s.acts[i];
    d.Direction = s.direction;
}

Operator make(const Spec& s) {
    if (s.lstm) {
        LSTM d;
        fill(d, s);
        if (s.cell_init) d.CellMemInitTensor = desc(s.t, {1, s.dirs(), s.B, s.H});
        if (s.peephole) d.PeepholeTensor = desc(s.t, {1, 1, s.dirs(), 3 * s.H});
        if (s.cell_single) d.OutputCellSingleTensor = desc(s.t, {1, s.dirs(), s.B, s.H});
        d.UseClipThreshold = s.clip.has_value();
        d.ClipThreshold = s.clip.value_or(0);
        d.CoupleInputForget = s.couple;
        return {LSTM::kType, d};
    }
    if (s.gru) {
        GRU d;
        fill(d, s);
        d.LinearBeforeReset = s.linear_before_reset;
        return {GRU::kType, d};
    }
    RNN d;
    fill(d, s);
    return {RNN::kType, d};
}

struct Inputs {
    Vec x, w, r, bias, init;
    std::vector<uint32_t> lengths;
    Vec cell_init, peephole;
};

// Packed, padded to a multiple of 4 bytes (DirectML's buffer size rule).
template <class T> std::vector<std::byte> bytes_of(const Vec& v) {
    std::vector<T> t;
    for (double x : v) t.push_back(value_of<T>(x));
    std::vector<std::byte> b((t.size() * sizeof(T) + 3) / 4 * 4);
    std::memcpy(b.data(), t.data(), t.size() * sizeof(T));
    return b;
}

std::map<std::string, std::vector<std::byte>> buffers(const Spec& s, const Inputs& in) {
    auto typed = [&](const Vec& v) { return s.t == DataType::FLOAT16 ? bytes_of<half>(v) : bytes_of<float>(v); };
    std::map<std::string, std::vector<std::byte>> m = {
        {"InputTensor", typed(in.x)}, {"WeightTensor", typed(in.w)}, {"RecurrenceTensor", typed(in.r)}};
    if (s.bias) m["BiasTensor"] = typed(in.bias);
    if (s.init) m["HiddenInitTensor"] = typed(in.init);
    if (s.cell_init) m["CellMemInitTensor"] = typed(in.cell_init);
    if (s.peephole) m["PeepholeTensor"] = typed(in.peephole);
    if (s.lengths) {
        std::vector<std::byte> b(in.lengths.size() * 4);
        std::memcpy(b.data(), in.lengths.data(), b.size());
        m["SequenceLengthsTensor"] = b;
    }
    return m;
}

Vec doubles(const Spec& s, const std::vector<std::byte>& b) {
    Vec v;
    if (s.t == DataType::FLOAT16)
        for (half h : as_values<half>(b)) v.push_back(widen(h));
    else
        for (float f : as_values<float>(b)) v.push_back(f);
    return v;
}

// ---- The independent loop -------------------------------------------------------------------
// GMP rationals over whole vectors, rounded by MPFR (test/mpfr_round.hpp) exactly where
// docs/golden.md's policies round (RecurrentState, RecurrentGateInput, GruIntermediates,
// LstmIntermediates, LstmClip); the activations this loop knows are the piecewise-linear ones.
using Q = mpq_class;
using QVec = std::vector<Q>;

Q apply(const DML_FUSED_ACTIVATION& a, const Q& x) {
    const std::string_view n = a.name();
    if (n == "ACTIVATION_IDENTITY") return x;
    if (n == "ACTIVATION_RELU") return x > 0 ? x : Q(0);
    if (n == "ACTIVATION_LINEAR") return Q(double(a.Parameters[0])) * x + Q(double(a.Parameters[1]));
    if (n == "ACTIVATION_LEAKY_RELU") return x >= 0 ? x : Q(double(a.Parameters[0])) * x;
    FAIL("the naive loop has no " << n);
    return 0;
}

// m (rows x cols, row-major at `at`) times v.
QVec matvec(const Vec& m, size_t at, size_t rows, size_t cols, const QVec& v) {
    QVec out(rows, 0);
    for (size_t i = 0; i < rows; ++i)
        for (size_t k = 0; k < cols; ++k) out[i] += Q(m[at + i * cols + k]) * v[k];
    return out;
}

QVec qvec(const Vec& v, size_t from, size_t n) {
    QVec q;
    for (size_t i = from; i < from + n; ++i) q.push_back(Q(v[i]));
    return q;
}

struct Outputs {
    Vec sequence, single, cell;
};

// Per direction: the slice of every tensor, the time indices in order, then the gates as whole
// vectors. OutputSequence starts all zero.
Outputs naive(const Spec& s, const Inputs& in) {
    const size_t S = s.S, B = s.B, I = s.I, H = s.H, Dn = s.dirs(), G = s.G();
    auto rt = [&](const Q& q) { return Q(s.t == DataType::FLOAT16 ? mpfr_rounded<half>(q) : mpfr_rounded<float>(q)); };
    Outputs o{Vec(S * Dn * B * H, 0), Vec(Dn * B * H, 0), Vec(Dn * B * H, 0)};
    for (size_t d = 0; d < Dn; ++d) {
        const bool back = s.direction == DML_RECURRENT_NETWORK_DIRECTION_BACKWARD || d == 1;
        for (size_t b = 0; b < B; ++b) {
            QVec h = s.init ? qvec(in.init, (d * B + b) * H, H) : QVec(H, 0);
            QVec cell = s.cell_init ? qvec(in.cell_init, (d * B + b) * H, H) : QVec(H, 0);
            const size_t L = s.lengths ? in.lengths[b] : S;
            std::vector<size_t> order;
            for (size_t n = 0; n < L; ++n) order.push_back(back ? L - 1 - n : n);
            for (size_t t : order) {
                const QVec xt = qvec(in.x, (t * B + b) * I, I);
                auto bias = [&](size_t which, size_t gate, size_t j) {  // which 0: W bias, 1: R bias
                    return s.bias ? Q(in.bias[d * 2 * G * H + which * G * H + gate * H + j]) : Q(0);
                };
                auto xw = [&](size_t gate) { return matvec(in.w, (d * G + gate) * H * I, H, I, xt); };
                auto hr = [&](size_t gate, const QVec& v) { return matvec(in.r, (d * G + gate) * H * H, H, H, v); };
                auto clip = [&](const Q& v) {
                    if (!s.clip) return v;
                    const Q c = rt(Q(double(*s.clip)));
                    return v > c ? c : v < -c ? Q(-c) : v;
                };
                auto peep = [&](size_t which, size_t j) {
                    return s.peephole ? Q(in.peephole[(d * 3 + which) * H + j]) : Q(0);
                };
                QVec next(H);
                if (s.lstm) {
                    const DML_FUSED_ACTIVATION &f = s.acts[3 * d], &g = s.acts[3 * d + 1], &hh = s.acts[3 * d + 2];
                    const QVec xi = xw(0), hi = hr(0, h), xo = xw(1), ho = hr(1, h), xf = xw(2), hf = hr(2, h),
                               xc = xw(3), hc = hr(3, h);
                    QVec c2(H);
                    for (size_t j = 0; j < H; ++j) {
                        const Q i = rt(
                            apply(f, clip(rt(xi[j] + hi[j] + peep(0, j) * cell[j] + bias(0, 0, j) + bias(1, 0, j)))));
                        const Q ft = s.couple ? rt(1 - i)
                                              : rt(apply(f, clip(rt(xf[j] + hf[j] + peep(2, j) * cell[j] +
                                                                    bias(0, 2, j) + bias(1, 2, j)))));
                        const Q c = rt(apply(g, clip(rt(xc[j] + hc[j] + bias(0, 3, j) + bias(1, 3, j)))));
                        c2[j] = rt(ft * cell[j] + i * c);
                        const Q og = rt(
                            apply(f, clip(rt(xo[j] + ho[j] + peep(1, j) * c2[j] + bias(0, 1, j) + bias(1, 1, j)))));
                        next[j] = rt(og * rt(apply(hh, clip(c2[j]))));
                    }
                    cell = c2;
                } else if (!s.gru) {
                    const QVec a = xw(0), c = hr(0, h);
                    for (size_t j = 0; j < H; ++j)
                        next[j] = rt(apply(s.acts[d], rt(a[j] + c[j] + bias(0, 0, j) + bias(1, 0, j))));
                } else {
                    const DML_FUSED_ACTIVATION &f = s.acts[2 * d], &g = s.acts[2 * d + 1];
                    QVec z(H), r(H), hh(H);
                    const QVec xz = xw(0), hz = hr(0, h), xr = xw(1), hrr = hr(1, h), xh = xw(2);
                    for (size_t j = 0; j < H; ++j) {
                        z[j] = rt(apply(f, rt(xz[j] + hz[j] + bias(0, 0, j) + bias(1, 0, j))));
                        r[j] = rt(apply(f, rt(xr[j] + hrr[j] + bias(0, 1, j) + bias(1, 1, j))));
                    }
                    if (!s.linear_before_reset) {
                        QVec rh(H);
                        for (size_t j = 0; j < H; ++j) rh[j] = rt(r[j] * h[j]);
                        const QVec c = hr(2, rh);
                        for (size_t j = 0; j < H; ++j)
                            hh[j] = rt(apply(g, rt(xh[j] + c[j] + bias(1, 2, j) + bias(0, 2, j))));
                    } else {
                        const QVec c = hr(2, h);
                        for (size_t j = 0; j < H; ++j)
                            hh[j] = rt(apply(g, rt(xh[j] + r[j] * rt(c[j] + bias(1, 2, j)) + bias(0, 2, j))));
                    }
                    for (size_t j = 0; j < H; ++j) next[j] = rt((1 - z[j]) * hh[j] + z[j] * h[j]);
                }
                h = next;
                for (size_t j = 0; j < H; ++j) o.sequence[((t * Dn + d) * B + b) * H + j] = h[j].get_d();
            }
            for (size_t j = 0; j < H; ++j) {
                o.single[(d * B + b) * H + j] = h[j].get_d();
                o.cell[(d * B + b) * H + j] = cell[j].get_d();
            }
        }
    }
    return o;
}

// Small integers and halves in [-2, 2], from a seed.
Vec small(size_t n, uint32_t seed) {
    Vec v(n);
    for (size_t i = 0; i < n; ++i) v[i] = double(int((i * 7 + seed * 13 + i * i * 3) % 9) - 4) / 2;
    return v;
}

Inputs inputs_for(const Spec& s, uint32_t seed) {
    Inputs in;
    const size_t Dn = s.dirs(), G = s.G();
    in.x = small(size_t(s.S) * s.B * s.I, seed);
    in.w = small(Dn * G * s.H * s.I, seed + 1);
    in.r = small(Dn * G * s.H * s.H, seed + 2);
    for (double& v : in.r) v /= 4;  // keeps the state small
    if (s.bias) in.bias = small(Dn * 2 * G * s.H, seed + 3);
    if (s.init) in.init = small(Dn * s.B * s.H, seed + 4);
    if (s.cell_init) in.cell_init = small(Dn * s.B * s.H, seed + 5);
    if (s.peephole) in.peephole = small(Dn * 3 * s.H, seed + 6);
    for (uint32_t b = 0; b < s.B; ++b) in.lengths.push_back((b * 2 + seed) % (s.S + 1));
    return in;
}

void check(const Spec& s, const Inputs& in) {
    const Outputs want = naive(s, in);
    const auto got = run(make(s), buffers(s, in));
    if (s.sequence) CHECK(doubles(s, got.at("OutputSequenceTensor")) == want.sequence);
    if (s.single) CHECK(doubles(s, got.at("OutputSingleTensor")) == want.single);
    if (s.cell_single) CHECK(doubles(s, got.at("OutputCellSingleTensor")) == want.cell);
}

}  // namespace

TEST_CASE("recurrent: RNN against the naive loop: directions, bias, initial state, sequence lengths, both types") {
    const uint32_t dirs[] = {DML_RECURRENT_NETWORK_DIRECTION_FORWARD, DML_RECURRENT_NETWORK_DIRECTION_BACKWARD,
                             DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL};
    int trial = 0;
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT16})
        for (uint32_t dir : dirs)
            for (int options = 0; options < 4; ++options) {
                CAPTURE(trial);
                Spec s{.t = t, .S = 3, .B = 2, .I = 2, .H = 2, .direction = dir};
                s.bias = options & 1;
                s.init = options & 2;
                s.lengths = options == 3;
                for (uint32_t d = 0; d < s.dirs(); ++d)
                    s.acts.push_back(d == 0 ? act("ACTIVATION_RELU") : act("ACTIVATION_IDENTITY"));
                check(s, inputs_for(s, uint32_t(trial++)));
            }
}

TEST_CASE("recurrent: GRU against the naive loop: LinearBeforeReset, directions, sequence lengths") {
    int trial = 0;
    for (bool lbr : {false, true})
        for (uint32_t dir : {0u, 1u, 2u})
            for (int options = 0; options < 2; ++options) {
                CAPTURE(trial);
                Spec s{.S = 3,
                       .B = 2,
                       .I = 2,
                       .H = 2,
                       .direction = dir,
                       .bias = true,
                       .init = true,
                       .lengths = options == 1,
                       .gru = true,
                       .linear_before_reset = lbr};
                // f maps the small sums to dyadic gates (x / 8 + 1/2); g is the identity.
                for (uint32_t d = 0; d < s.dirs(); ++d) {
                    s.acts.push_back(act("ACTIVATION_LINEAR", 0.125f, 0.5f));
                    s.acts.push_back(act("ACTIVATION_IDENTITY"));
                }
                Inputs in = inputs_for(s, uint32_t(trial++));
                for (double& v : in.w) v /= 2;
                check(s, in);
            }
}

TEST_CASE("recurrent: LSTM against the naive loop: peepholes, CoupleInputForget, clip, directions, sequence lengths") {
    int trial = 0;
    for (uint32_t dir : {0u, 1u, 2u})
        for (int options = 0; options < 4; ++options) {
            CAPTURE(trial);
            Spec s{.S = 3,
                   .B = 2,
                   .I = 2,
                   .H = 2,
                   .direction = dir,
                   .bias = true,
                   .init = true,
                   .lengths = options == 3,
                   .lstm = true,
                   .peephole = options != 1,
                   .cell_init = true,
                   .couple = options == 2,
                   .cell_single = true};
            if (options == 1) s.clip = 0.5f;
            // f maps the small sums to dyadic gates (x / 8 + 1/2); g and h are the identity.
            for (uint32_t d = 0; d < s.dirs(); ++d) {
                s.acts.push_back(act("ACTIVATION_LINEAR", 0.125f, 0.5f));
                s.acts.push_back(act("ACTIVATION_IDENTITY"));
                s.acts.push_back(act("ACTIVATION_IDENTITY"));
            }
            Inputs in = inputs_for(s, uint32_t(trial++));
            for (double& v : in.w) v /= 2;
            for (double& v : in.peephole) v /= 4;
            check(s, in);
        }
}

TEST_CASE("recurrent: LSTM with zero weights halves its cell state (by hand)") {
    // i = f = o = sigmoid(0) = 1/2, c = tanh(0) = 0: C_t = C_(t-1) / 2 and, with h the identity,
    // H_t = C_t / 2. C_(-1) = 8, -4: C = 4, 2, 1 (-2, -1, -0.5), H = 2, 1, 0.5 (-1, -0.5, -0.25).
    Spec s{.S = 3,
           .B = 1,
           .I = 1,
           .H = 2,
           .acts = {act("ACTIVATION_SIGMOID"), act("ACTIVATION_TANH"), act("ACTIVATION_IDENTITY")},
           .lstm = true,
           .cell_init = true,
           .cell_single = true};
    Inputs in{.x = {1, 2, 3}, .w = Vec(8, 0), .r = Vec(16, 0), .cell_init = {8, -4}};
    const auto got = run(make(s), buffers(s, in));
    CHECK(doubles(s, got.at("OutputSequenceTensor")) == Vec{2, -1, 1, -0.5, 0.5, -0.25});
    CHECK(doubles(s, got.at("OutputSingleTensor")) == Vec{0.5, -0.25});
    CHECK(doubles(s, got.at("OutputCellSingleTensor")) == Vec{1, -0.5});
}

TEST_CASE("recurrent: GRU with sigmoid and tanh halves its state when every weight is 0 (by hand)") {
    // z = r = sigmoid(0) = 1/2, h = tanh(0) = 0: H_t = (1 - 1/2) 0 + 1/2 H_(t-1). Three steps: init / 8.
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT16}) {
        Spec s{.t = t,
               .S = 3,
               .B = 1,
               .I = 1,
               .H = 2,
               .init = true,
               .gru = true,
               .acts = {act("ACTIVATION_SIGMOID"), act("ACTIVATION_TANH")}};
        Inputs in{.x = {1, -2, 3}, .w = Vec(6, 0), .r = Vec(12, 0), .init = {5, -3}};
        const auto got = run(make(s), buffers(s, in));
        CHECK(doubles(s, got.at("OutputSequenceTensor")) == Vec{2.5, -1.5, 1.25, -0.75, 0.625, -0.375});
        CHECK(doubles(s, got.at("OutputSingleTensor")) == Vec{0.625, -0.375});
    }
}

TEST_CASE("recurrent: RecurrentState=RoundedEachStep: the state is stored in FLOAT16 at every step (by hand)") {
    // H_t = H_(t-1) + x_t (identity, W = R = 1). x = 1, 2^-11, 2^-11: 1 + 2^-11 is a tie between 1
    // and 1 + 2^-10 and rounds to even, 1, at both steps. Unrounded, the state would reach
    // 1 + 2^-10 exactly.
    Spec s{.t = DataType::FLOAT16, .S = 3, .B = 1, .I = 1, .H = 1, .acts = {act("ACTIVATION_IDENTITY")}};
    Inputs in{.x = {1, 0x1p-11, 0x1p-11}, .w = {1}, .r = {1}};
    const auto got = run(make(s), buffers(s, in));
    CHECK(doubles(s, got.at("OutputSequenceTensor")) == Vec{1, 1, 1});
    CHECK(doubles(s, got.at("OutputSingleTensor")) == Vec{1});
}

TEST_CASE("recurrent: RecurrentSequenceLengths=ZerosBeyondLength (by hand)") {
    // Two batches, lengths 2 and 0; H_t = H_(t-1) + x_t, init 10 and 20. Forward: batch 0 gives
    // 11, 13, then 0 at t = 2 and OutputSingle 13; batch 1 computes nothing: zeros, OutputSingle 20.
    // Backward: batch 0 runs t = 1 then t = 0: 12, then 13 at t = 0; OutputSingle 13.
    Spec s{.S = 3, .B = 2, .I = 1, .H = 1, .init = true, .lengths = true, .acts = {act("ACTIVATION_IDENTITY")}};
    Inputs in{.x = {1, 100, 2, 200, 4, 400}, .w = {1}, .r = {1}, .init = {10, 20}, .lengths = {2, 0}};
    auto got = run(make(s), buffers(s, in));
    CHECK(doubles(s, got.at("OutputSequenceTensor")) == Vec{11, 0, 13, 0, 0, 0});
    CHECK(doubles(s, got.at("OutputSingleTensor")) == Vec{13, 20});
    s.direction = DML_RECURRENT_NETWORK_DIRECTION_BACKWARD;
    got = run(make(s), buffers(s, in));
    CHECK(doubles(s, got.at("OutputSequenceTensor")) == Vec{13, 0, 12, 0, 0, 0});
    CHECK(doubles(s, got.at("OutputSingleTensor")) == Vec{13, 20});
    // A length above seq_length is refused.
    in.lengths = {4, 0};
    const Diagnostics d = validate_input_values(make(s), buffers(s, in), 0);
    REQUIRE(d.has_errors());
    CHECK(d.items()[0].rule == "rnn.sequence-length-range");
}

TEST_CASE("recurrent: the rules") {
    const Spec base{.acts = {act("ACTIVATION_TANH")}};
    CHECK(validate(make(base)).items().empty());
    Spec s = base;
    s.direction = 3;
    CHECK(has_error(make(s), "rnn.direction", "/desc/Direction"));
    s = base;
    s.acts.push_back(act("ACTIVATION_TANH"));
    CHECK(has_error(make(s), "rnn.activation-count", "/desc/ActivationDescCount"));
    s = base;
    s.sequence = s.single = false;
    CHECK(has_error(make(s), "rnn.output", "/desc/OutputSequenceTensor"));
    s = base;
    s.acts = {act("ACTIVATION_LINEAR", std::numeric_limits<float>::infinity(), 0)};
    CHECK(has_error(make(s), "rnn.fused-activation-parameter", "/desc/ActivationDescs[0]/Alpha"));
    s = base;
    s.acts = {act("ACTIVATION_SOFTPLUS", 0.5f)};
    CHECK(has_error(make(s), "rnn.fused-activation-steepness", "/desc/ActivationDescs[0]/Steepness"));
    s = base;
    s.acts = {act("ACTIVATION_CELU", 0)};
    CHECK(has_error(make(s), "rnn.fused-activation-celu-alpha", "/desc/ActivationDescs[0]/Alpha"));

    Operator op = make(base);
    auto& d = get<RNN>(op.Desc);
    d.ActivationDescs[1] = act("ACTIVATION_TANH");
    CHECK(has_error(op, "rnn.activation-descs", "/desc/ActivationDescs[1]"));
    op = make(base);
    get<RNN>(op.Desc).WeightTensor = desc(DataType::FLOAT32, {1, 1, 3, 2});
    CHECK(has_error(op, "rnn.weight-sizes", "/desc/WeightTensor/Sizes"));
    op = make(base);
    get<RNN>(op.Desc).RecurrenceTensor = desc(DataType::FLOAT16, {1, 1, 2, 2});
    CHECK(has_error(op, "rnn.same-data-type", "/desc/RecurrenceTensor/DataType"));
    op = make(base);
    get<RNN>(op.Desc).InputTensor = desc(DataType::FLOAT32, {3, 1, 2});
    CHECK(has_error(op, "rnn.dimension-count", "/desc/InputTensor/Sizes"));
    op = make(base);
    get<RNN>(op.Desc).InputTensor = desc(DataType::FLOAT32, {2, 3, 1, 2});
    CHECK(has_error(op, "rnn.input-sizes", "/desc/InputTensor/Sizes/0"));
    op = make(base);
    get<RNN>(op.Desc).OutputSequenceTensor = desc(DataType::FLOAT32, {2, 1, 1, 2});
    CHECK(has_error(op, "rnn.output-sequence-sizes", "/desc/OutputSequenceTensor/Sizes"));
    Spec l = base;
    l.lengths = true;
    op = make(l);
    get<RNN>(op.Desc).SequenceLengthsTensor->DataType = DataType::INT32;
    CHECK(has_error(op, "rnn.sequence-lengths-data-type", "/desc/SequenceLengthsTensor/DataType"));
    Spec i = base;
    i.t = DataType::INT32;
    CHECK(has_error(make(i), "rnn.data-type", "/desc/InputTensor/DataType"));
    Spec g{.gru = true, .acts = {act("ACTIVATION_SIGMOID"), act("ACTIVATION_TANH")}};
    CHECK(validate(make(g)).items().empty());
    op = make(g);
    get<GRU>(op.Desc).LinearBeforeReset = 2;
    CHECK(has_error(op, "gru.linear-before-reset", "/desc/LinearBeforeReset"));
    g.bias = true;
    op = make(g);
    get<GRU>(op.Desc).BiasTensor = desc(DataType::FLOAT32, {1, 1, 1, 4});
    CHECK(has_error(op, "gru.bias-sizes", "/desc/BiasTensor/Sizes"));
    Spec m{.acts = {act("ACTIVATION_SIGMOID"), act("ACTIVATION_TANH"), act("ACTIVATION_TANH")},
           .lstm = true,
           .peephole = true,
           .cell_init = true,
           .cell_single = true};
    CHECK(validate(make(m)).items().empty());
    op = make(m);
    get<LSTM>(op.Desc).PeepholeTensor = desc(DataType::FLOAT32, {1, 1, 1, 4});
    CHECK(has_error(op, "lstm.peephole-sizes", "/desc/PeepholeTensor/Sizes"));
    op = make(m);
    get<LSTM>(op.Desc).CellMemInitTensor = desc(DataType::FLOAT16, {1, 1, 1, 2});
    CHECK(has_error(op, "lstm.same-data-type", "/desc/CellMemInitTensor/DataType"));
    op = make(m);
    get<LSTM>(op.Desc).UseClipThreshold = 1;
    get<LSTM>(op.Desc).ClipThreshold = -1;
    CHECK(has_error(op, "lstm.clip-threshold", "/desc/ClipThreshold"));
    op = make(m);
    get<LSTM>(op.Desc).CoupleInputForget = 3;
    CHECK(has_error(op, "lstm.couple-input-forget", "/desc/CoupleInputForget"));
    m.sequence = m.single = m.cell_single = false;
    CHECK(has_error(make(m), "lstm.output", "/desc/OutputSequenceTensor"));
}

TEST_CASE("recurrent judging: float32 and float64 loops pass; a transposed recurrence and a skipped step fail") {
    // tanh RNN (and a sigmoid/tanh GRU), S = 6: a float32 loop with std::tanh and no extra
    // rounding, a float64 loop rounding only its outputs, both conforming; R read transposed, or
    // the state not carried at one step, are not.
    for (bool gru : {false, true}) {
        CAPTURE(gru);
        Spec s{.S = 6, .B = 2, .I = 3, .H = 4, .bias = true, .init = true, .gru = gru};
        s.acts = gru ? std::vector<DML_FUSED_ACTIVATION>{act("ACTIVATION_SIGMOID"), act("ACTIVATION_TANH")}
                     : std::vector<DML_FUSED_ACTIVATION>{act("ACTIVATION_TANH")};
        Inputs in = inputs_for(s, 5);
        for (double& v : in.x) v = v * 0.37 + 0.01;
        for (double& v : in.w) v = double(float(v * 0.29 - 0.03));
        for (double& v : in.r) v = double(float(v * 0.61 + 0.02));
        for (double& v : in.x) v = double(float(v));
        Case golden;
        golden.op = make(s);
        golden.inputs = buffers(s, in);
        golden = with_golden(golden, "OutputSequenceTensor");
        golden = with_golden(golden, "OutputSingleTensor");
        auto backend = [&](int variant, auto zero) {
            using F = decltype(zero);
            const size_t S = s.S, B = s.B, I = s.I, H = s.H, G = s.G();
            std::vector<float> seq(S * B * H), single(B * H);
            auto sig = [](F v) { return F(1) / (F(1) + std::exp(-v)); };
            for (size_t b = 0; b < B; ++b) {
                std::vector<F> h(H);
                for (size_t j = 0; j < H; ++j) h[j] = F(in.init[b * H + j]);
                for (size_t t = 0; t < S; ++t) {
                    auto pre = [&](size_t gate, size_t j, const std::vector<F>& hv, bool with_rb) {
                        F a = F(in.bias[gate * H + j]) + (with_rb ? F(in.bias[G * H + gate * H + j]) : F(0));
                        for (size_t k = 0; k < I; ++k)
                            a += F(in.x[(t * B + b) * I + k]) * F(in.w[(gate * H + j) * I + k]);
                        for (size_t k = 0; k < H; ++k) {
                            const size_t at = variant == 1 ? (gate * H + k) * H + j : (gate * H + j) * H + k;
                            a += hv[k] * F(in.r[at]);
                        }
                        return a;
                    };
                    std::vector<F> next(H);
                    if (!gru) {
                        for (size_t j = 0; j < H; ++j) next[j] = std::tanh(pre(0, j, h, true));
                    } else {
                        std::vector<F> z(H), r(H), rh(H);
                        for (size_t j = 0; j < H; ++j) {
                            z[j] = sig(pre(0, j, h, true));
                            r[j] = sig(pre(1, j, h, true));
                            rh[j] = r[j] * h[j];
                        }
                        for (size_t j = 0; j < H; ++j)
                            next[j] = (1 - z[j]) * std::tanh(pre(2, j, rh, true)) + z[j] * h[j];
                    }
                    if (!(variant == 2 && t == 3)) h = next;  // 2: the state not carried at t = 3
                    for (size_t j = 0; j < H; ++j) seq[(t * B + b) * H + j] = float(h[j]);
                }
                for (size_t j = 0; j < H; ++j) single[b * H + j] = float(h[j]);
            }
            auto bytes = [](const std::vector<float>& v) {
                std::vector<std::byte> out(v.size() * 4);
                std::memcpy(out.data(), v.data(), out.size());
                return out;
            };
            return census(golden, "OutputSequenceTensor", bytes(seq), {}).passed() &&
                   census(golden, "OutputSingleTensor", bytes(single), {}).passed();
        };
        CHECK(backend(0, 0.0f));
        CHECK(backend(0, 0.0));
        CHECK_FALSE(backend(1, 0.0f));
        CHECK_FALSE(backend(2, 0.0f));
    }
}

}  // namespace dmlref_test_recurrent
