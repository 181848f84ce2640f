// BATCH_NORMALIZATION and _TRAINING, and what every batch normalization operator shares (rules,
// the FusedActivation format, worked examples, planted errors). Expected values come from the
// naive evaluation of bn_naive.hpp (the page's formula in MPFR at 300 bits, rounded by MPFR),
// from worked examples of the pages' formulas (docs/golden.md, "Batch normalization") and from hand derivations
// (perfect-square variances, ties). The grads: test_batch_normalization_grad.cpp.
#include "bn_naive.hpp"

#include "dmlref/tolerance.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_batch_normalization {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

TEST_CASE_TEMPLATE(
    "batch normalization: forward against the naive evaluation at 300 bits, every type, broadcasting, strided", T,
    DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(72 + sizeof(T) * 5 + std::is_signed_v<T>);
    const DataType t = data_type_of<T>();
    // Every activation DirectML allows to be fused (BnFusedActivation), at least twice per type.
    const std::optional<DML_FUSED_ACTIVATION> acts[] = {std::nullopt,
                                                        activation("ACTIVATION_RELU"),
                                                        activation("ACTIVATION_LEAKY_RELU", 0.125f),
                                                        activation("ACTIVATION_LINEAR", -1.5f, 0.25f),
                                                        activation("ACTIVATION_IDENTITY"),
                                                        activation("ACTIVATION_SIGMOID"),
                                                        activation("ACTIVATION_HARD_SIGMOID", 0.25f, 0.5f),
                                                        activation("ACTIVATION_TANH"),
                                                        activation("ACTIVATION_SCALED_TANH", 1.25f, -0.75f),
                                                        activation("ACTIVATION_THRESHOLDED_RELU", 0.5f),
                                                        activation("ACTIVATION_ELU", 0.75f),
                                                        activation("ACTIVATION_CELU", -2.0f),
                                                        activation("ACTIVATION_SCALED_ELU", 1.6732f, 1.0507f),
                                                        activation("ACTIVATION_SOFTPLUS", 2.0f),
                                                        activation("ACTIVATION_PARAMETRIC_SOFTPLUS", 0.5f, -1.5f),
                                                        activation("ACTIVATION_SOFTSIGN"),
                                                        activation("ACTIVATION_SHRINK", 0.25f, 0.5f),
                                                        activation("ACTIVATION_GELU")};
    constexpr int kActs = int(std::size(acts));
    for (int trial = 0; trial < 2 * kActs; ++trial) {
        CAPTURE(trial);
        const Shape s = random_shape(rng, trial < 24 ? 4 : 8);
        const float eps = kEpsilons[trial % 4];
        const auto act = acts[trial % kActs];
        CAPTURE(act ? act->name() : std::string_view("none"));
        const auto x = random_values<T>(rng, product(s.in));
        const auto mean = random_values<T>(rng, product(s.mean));
        const auto var = random_values<T>(rng, product(s.var), true);
        const auto scale = random_values<T>(rng, product(s.scale));
        const auto bias = random_values<T>(rng, product(s.bias));
        const Operator op = bn_op(t, s, eps, act, true);
        const auto& d = get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(op.Desc);
        auto y = run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x33})},
                          {"MeanTensor", buffer(d.MeanTensor, mean)},
                          {"VarianceTensor", buffer(d.VarianceTensor, var)},
                          {"ScaleTensor", buffer(d.ScaleTensor, scale)},
                          {"BiasTensor", buffer(d.BiasTensor, bias)}});
        std::vector<T> expected;
        for (uint64_t i = 0; i < x.size(); ++i) {
            const Big v = big(scale[broadcast_index(i, s.in, s.scale)]) *
                              (big(x[i]) - big(mean[broadcast_index(i, s.in, s.mean)])) /
                              sqrt_of(big(var[broadcast_index(i, s.in, s.var)]) + Big(double(eps))) +
                          big(bias[broadcast_index(i, s.in, s.bias)]);
            expected.push_back(naive_activate<T>(act, round_big<T>(v)));
        }
        check_bits(as_values<T>(y.at("OutputTensor")), expected);
    }
}

TEST_CASE_TEMPLATE("batch normalization training: outputs against the naive evaluation at 300 bits, every type", T,
                   DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(151 + sizeof(T) * 5 + std::is_signed_v<T>);
    const DataType t = data_type_of<T>();
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const Shape s = random_shape(rng, trial < 16 ? 4 : 8);
        const float eps = kEpsilons[trial % 4];
        const bool fused_add = trial % 2;
        const auto act = trial % 3 == 0 ? activation("ACTIVATION_RELU") : std::nullopt;
        const auto x = random_values<T>(rng, product(s.in));
        const auto fa = random_values<T>(rng, product(s.in));
        const auto scale = random_values<T>(rng, product(s.scale));
        const auto bias = random_values<T>(rng, product(s.scale));
        const Operator op = training_op(t, s.in, s.scale, eps, fused_add, act);
        const auto& d = get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(op.Desc);
        std::map<std::string, std::vector<std::byte>> inputs = {
            {"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x21})},
            {"ScaleTensor", buffer(d.ScaleTensor, scale)},
            {"BiasTensor", buffer(d.BiasTensor, bias)}};
        if (fused_add) inputs["FusedAddTensor"] = buffer(*d.FusedAddTensor, fa);
        auto r = run(op, inputs);
        std::vector<Big> xb;
        for (const T& v : x) xb.push_back(big(v));
        const Stats st = batch_stats(xb, s.in, s.scale);
        std::vector<T> y, m, v;
        for (uint64_t i = 0; i < x.size(); ++i) {
            const uint64_t k = broadcast_index(i, s.in, s.scale);
            Big e = big(scale[k]) * (xb[i] - st.mean[k]) / sqrt_of(st.var[k] + Big(double(eps))) + big(bias[k]);
            if (fused_add) e = e + big(fa[i]);
            y.push_back(naive_activate<T>(act, round_big<T>(e)));
        }
        for (size_t k = 0; k < st.mean.size(); ++k) {
            m.push_back(round_big<T>(st.mean[k]));
            v.push_back(round_big<T>(st.var[k]));
        }
        check_bits(as_values<T>(r.at("OutputTensor")), y);
        check_bits(as_values<T>(r.at("OutputMeanTensor")), m);
        check_bits(as_values<T>(r.at("OutputVarianceTensor")), v);
    }
}

TEST_CASE("batch normalization: worked examples of the pages' formulas") {
    // X = [1, 2, 3, 4], Scale 2, Bias 0, Epsilon 0: mean 5/2, var 5/4.
    const std::vector<uint32_t> in = {1, 1, 2, 2}, st = {1, 1, 1, 1};
    const Operator tr = training_op(DataType::FLOAT32, in, st, 0.0f, false);
    const auto& td = get<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>(tr.Desc);
    auto r = run(tr, {{"InputTensor", logical_buffer(td.InputTensor, std::vector<float>{1, 2, 3, 4})},
                      {"ScaleTensor", buffer(td.ScaleTensor, std::vector<float>{2})},
                      {"BiasTensor", buffer(td.BiasTensor, std::vector<float>{0})}});
    const auto y = as_values<float>(r.at("OutputTensor"));
    const uint32_t bits[] = {0xC02BBAE3, 0xBF64F92E, 0x3F64F92E, 0x402BBAE3};
    for (int i = 0; i < 4; ++i) CHECK(to_bits(y[i]) == bits[i]);
    CHECK(as_values<float>(r.at("OutputMeanTensor"))[0] == 2.5f);
    CHECK(as_values<float>(r.at("OutputVarianceTensor"))[0] == 1.25f);
    // The grads with Mean 5/2, Variance 5/4, dY = [1, 0, 0, 0] (FLOAT64; checked to 15 significant digits).
    for (auto type : {OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, OperatorType::BATCH_NORMALIZATION_GRAD}) {
        const Operator g =
            type == OperatorType::BATCH_NORMALIZATION_GRAD
                ? grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(type, DataType::FLOAT64, in, st, 0.0f)
                : grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(type, DataType::FLOAT64, in, st, 0.0f);
        std::map<std::string, std::vector<std::byte>> inputs;
        for (const auto& f : tensor_fields(g)) {
            if (f.role != TensorRole::Input) continue;
            const std::string n(f.name);
            const std::vector<double> v = n == "InputTensor"           ? std::vector<double>{1, 2, 3, 4}
                                          : n == "InputGradientTensor" ? std::vector<double>{1, 0, 0, 0}
                                          : n == "MeanTensor"          ? std::vector<double>{2.5}
                                          : n == "VarianceTensor"      ? std::vector<double>{1.25}
                                                                       : std::vector<double>{2};
            inputs[n] = logical_buffer(*f.desc, v);
        }
        auto o = run(g, inputs);
        const auto dx = as_values<double>(o.at("OutputGradientTensor"));
        const std::vector<double> want = type == OperatorType::BATCH_NORMALIZATION_GRAD
                                             ? std::vector<double>{1.788854381999831, 0, 0, 0}
                                             : std::vector<double>{0.536656314599949, -0.715541752799932,
                                                                   -0.178885438199983, 0.357770876399966};
        for (int i = 0; i < 4; ++i) CHECK(dx[i] == doctest::Approx(want[i]).epsilon(1e-14));
        CHECK(as_values<double>(o.at("OutputScaleGradientTensor"))[0] ==
              doctest::Approx(-1.341640786499873).epsilon(1e-14));
        CHECK(as_values<double>(o.at("OutputBiasGradientTensor"))[0] == 1.0);
        if (type == OperatorType::BATCH_NORMALIZATION_GRAD) CHECK(to_bits(dx[1]) == 0u);  // +0
    }
}

TEST_CASE("batch normalization: exact results and ties, hand derived") {
    const std::vector<uint32_t> one = {1, 1};
    auto forward = [&](DataType t, auto x, auto m, auto v, auto s, auto b, float eps) {
        using T = decltype(x);
        const Operator op = bn_op(t, {one, one, one, one, one}, eps, std::nullopt, false);
        auto r = run(op, {{"InputTensor", buffer(desc(t, one), std::vector<T>{x})},
                          {"MeanTensor", buffer(desc(t, one), std::vector<T>{m})},
                          {"VarianceTensor", buffer(desc(t, one), std::vector<T>{v})},
                          {"ScaleTensor", buffer(desc(t, one), std::vector<T>{s})},
                          {"BiasTensor", buffer(desc(t, one), std::vector<T>{b})}});
        return as_values<T>(r.at("OutputTensor"))[0];
    };
    // sqrt(3.75 + 0.25) = 2: 1.5 * (3 - 1) / 2 + 0.25 = 1.75 exactly.
    CHECK(forward(DataType::FLOAT32, 3.0f, 1.0f, 3.75f, 1.5f, 0.25f, 0.25f) == 1.75f);
    // FLOAT16 ties: (x - m) = 2^-10, D = 4: q = 2^-11. 1 + 2^-11 ties to 1 (even); 1 + 2^-10 + 2^-11 ties to 1 + 2^-9.
    const half h1 = half_from_double(1.0), hx = half_from_double(1.0 + std::ldexp(1.0, -10)),
               h4 = half_from_double(4.0);
    CHECK(to_bits(forward(DataType::FLOAT16, hx, h1, h4, h1, h1, 0.0f)) == to_bits(h1));
    CHECK(to_bits(forward(DataType::FLOAT16, hx, h1, h4, h1, hx, 0.0f)) ==
          to_bits(half_from_double(1.0 + std::ldexp(1.0, -9))));
    // INT32: (7 - 2) / sqrt(4) = 2.5 ties to 2; (9 - 2) / 2 = 3.5 ties to 4.
    CHECK(forward(DataType::INT32, int32_t(7), int32_t(2), int32_t(4), int32_t(1), int32_t(0), 0.0f) == 2);
    CHECK(forward(DataType::INT32, int32_t(9), int32_t(2), int32_t(4), int32_t(1), int32_t(0), 0.0f) == 4);
    // Special values (IEEE on the exact formula): D = 0 with X = Mean is 0/0 = NaN; X != Mean gives inf;
    // a negative D is NaN; an infinite Variance gives Bias; X = Mean gives exactly Bias.
    CHECK(to_bits(forward(DataType::FLOAT32, 1.0f, 1.0f, 0.0f, 1.0f, 0.5f, 0.0f)) == 0x7FC00000u);
    CHECK(forward(DataType::FLOAT32, 2.0f, 1.0f, 0.0f, -1.0f, 0.5f, 0.0f) == -std::numeric_limits<float>::infinity());
    CHECK(to_bits(forward(DataType::FLOAT32, 2.0f, 1.0f, 1.0f, 1.0f, 0.5f, -2.0f)) == 0x7FC00000u);
    CHECK(forward(DataType::FLOAT32, 2.0f, 1.0f, std::numeric_limits<float>::infinity(), 1.0f, 0.5f, 0.0f) == 0.5f);
    CHECK(to_bits(forward(DataType::FLOAT32, 2.0f, 2.0f, 3.0f, 1.0f, -0.0f, 0.0f)) == 0u);  // an exact zero is +0
    // An irrational value: 1 / sqrt(2) rounded once to FLOAT32 is 0x3F3504F3.
    CHECK(to_bits(forward(DataType::FLOAT32, 1.0f, 0.0f, 2.0f, 1.0f, 0.0f, 0.0f)) == 0x3F3504F3u);
}

TEST_CASE("batch normalization: every validation rule") {
    const DataType f = DataType::FLOAT32;
    const Shape ok{{2, 3, 2}, {1, 3, 1}, {1, 3, 1}, {1, 3, 1}, {1, 3, 1}};
    auto bn = [&](auto edit) {
        Operator o = bn_op(f, ok, 1e-5f, std::nullopt, false);
        edit(get<DML_BATCH_NORMALIZATION_OPERATOR_DESC>(o.Desc));
        return o;
    };
    using BN = DML_BATCH_NORMALIZATION_OPERATOR_DESC;
    CHECK_FALSE(validate(bn([](BN&) {})).has_errors());
    CHECK(has_error(bn([](BN& d) { d.BiasTensor.DataType = DataType::FLOAT16; }), "bn.same-data-type",
                    "/desc/BiasTensor/DataType"));
    CHECK(has_error(bn([](BN& d) { d.OutputTensor.Sizes = {2, 3, 1}; }), "bn.same-sizes", "/desc/OutputTensor/Sizes"));
    CHECK(has_error(bn([](BN& d) {
                        d.MeanTensor.Sizes = {3, 1};
                    }),
                    "bn.same-dimension-count", "/desc/MeanTensor/Sizes"));
    CHECK(has_error(bn([](BN& d) { d.ScaleTensor.Sizes = {1, 2, 1}; }), "bn.broadcast", "/desc/ScaleTensor/Sizes/1"));
    CHECK(has_error(bn([](BN& d) { d.Spatial = 2; }), "bn.spatial", "/desc/Spatial"));
    CHECK(has_error(bn([](BN& d) { d.Epsilon = std::numeric_limits<float>::infinity(); }), "bn.epsilon-finite",
                    "/desc/Epsilon"));
    for (const char* every :
         {"ACTIVATION_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_GELU", "ACTIVATION_SOFTSIGN"})  // all evaluated
        CHECK_FALSE(validate(bn([&](BN& d) { d.FusedActivation = activation(every); })).has_errors());
    CHECK(has_error(bn([](BN& d) { d.FusedActivation = activation("ACTIVATION_SOFTPLUS", 0.5f); }),
                    "bn.fused-activation-steepness", "/desc/FusedActivation/Steepness"));
    CHECK_FALSE(validate(bn([](BN& d) { d.FusedActivation = activation("ACTIVATION_SOFTPLUS", 1.0f); })).has_errors());
    CHECK(has_error(bn([](BN& d) { d.FusedActivation = activation("ACTIVATION_CELU", 0.0f); }),
                    "bn.fused-activation-celu-alpha", "/desc/FusedActivation/Alpha"));
    CHECK_FALSE(validate(bn([](BN& d) { d.FusedActivation = activation("ACTIVATION_CELU", -2.0f); })).has_errors());
    CHECK(has_error(bn([](BN& d) {
                        d.FusedActivation = activation("ACTIVATION_LEAKY_RELU",
                                                       std::numeric_limits<float>::quiet_NaN());
                    }),
                    "bn.fused-activation-parameter", "/desc/FusedActivation/Alpha"));
    for (const auto& entry :
         {std::pair{OperatorType::BATCH_NORMALIZATION_GRAD, std::string("bn-grad")},
          std::pair{OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, std::string("bn-training-grad")}}) {
        const OperatorType type = entry.first;  // not a structured binding: clang 14 cannot capture one
        const std::string& op = entry.second;
        CAPTURE(op);
        auto g = [&](auto edit) {
            Operator o = type == OperatorType::BATCH_NORMALIZATION_GRAD
                             ? grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(type, f, ok.in, ok.mean, 0.0f)
                             : grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(type, f, ok.in, ok.mean,
                                                                                            0.0f);
            visit_as<DML_BATCH_NORMALIZATION_OPERATOR_DESC, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC,
                     DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC,
                     DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(o.Desc, [&](auto& d) {
                if constexpr (requires { d.OutputScaleGradientTensor; }) edit(d);
            });
            return o;
        };
        CHECK_FALSE(validate(g([](auto&) {})).has_errors());
        CHECK(has_error(g([](auto& d) { d.InputGradientTensor.DataType = DataType::FLOAT64; }), op + ".same-data-type",
                        "/desc/InputGradientTensor/DataType"));
        CHECK(has_error(g([](auto& d) {
                            d.OutputGradientTensor.Sizes = {2, 3, 1};
                        }),
                        op + ".same-sizes", "/desc/OutputGradientTensor/Sizes"));
        CHECK(has_error(g([](auto& d) {
                            d.OutputBiasGradientTensor.Sizes = {1, 1, 1};
                        }),
                        op + ".statistics-same-sizes", "/desc/OutputBiasGradientTensor/Sizes"));
        CHECK(has_error(g([](auto& d) { d.ScaleTensor.Sizes = {3}; }), op + ".same-dimension-count",
                        "/desc/ScaleTensor/Sizes"));
        CHECK(has_error(g([](auto& d) {
                            d.MeanTensor.Sizes = d.VarianceTensor.Sizes = d.ScaleTensor.Sizes =
                                d.OutputScaleGradientTensor.Sizes = d.OutputBiasGradientTensor.Sizes = {1, 3, 3};
                        }),
                        op + ".broadcast", "/desc/MeanTensor/Sizes/2"));
        CHECK(has_error(g([](auto& d) { d.Epsilon = std::numeric_limits<float>::quiet_NaN(); }), op + ".epsilon-finite",
                        "/desc/Epsilon"));
    }
    using TR = DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC;
    auto tr = [&](auto edit) {
        Operator o = training_op(f, ok.in, ok.scale, 0.0f, true);
        edit(get<TR>(o.Desc));
        return o;
    };
    CHECK_FALSE(validate(tr([](TR&) {})).has_errors());
    CHECK(has_error(tr([](TR& d) { d.FusedAddTensor->DataType = DataType::FLOAT16; }), "bn-training.same-data-type",
                    "/desc/FusedAddTensor/DataType"));
    CHECK(has_error(tr([](TR& d) {
                        d.FusedAddTensor->Sizes = {2, 3, 1};
                    }),
                    "bn-training.same-sizes", "/desc/FusedAddTensor/Sizes"));
    CHECK(has_error(tr([](TR& d) {
                        d.OutputMeanTensor.Sizes = {1, 1, 1};
                    }),
                    "bn-training.statistics-same-sizes", "/desc/OutputMeanTensor/Sizes"));
    CHECK(has_error(tr([](TR& d) { d.BiasTensor.Sizes = {3}; }), "bn-training.same-dimension-count",
                    "/desc/BiasTensor/Sizes"));
    CHECK(has_error(
        tr(
            [](TR& d) {
        d.ScaleTensor.Sizes = d.BiasTensor.Sizes = d.OutputMeanTensor.Sizes = d.OutputVarianceTensor.Sizes = {2, 2, 1};
        }),
        "bn-training.broadcast", "/desc/ScaleTensor/Sizes/1"));
    CHECK(has_error(tr([](TR& d) { d.Epsilon = -std::numeric_limits<float>::infinity(); }),
                    "bn-training.epsilon-finite", "/desc/Epsilon"));
    CHECK(has_error(tr([](TR& d) { d.FusedActivation = activation("ACTIVATION_SOFTPLUS", -1.0f); }),
                    "bn-training.fused-activation-steepness", "/desc/FusedActivation/Steepness"));
    CHECK(has_error(tr([](TR& d) { d.FusedActivation = activation("ACTIVATION_CELU", -0.0f); }),
                    "bn-training.fused-activation-celu-alpha", "/desc/FusedActivation/Alpha"));
    CHECK(has_error(tr([](TR& d) {
                        d.FusedActivation = activation("ACTIVATION_LINEAR", 1.0f,
                                                       std::numeric_limits<float>::infinity());
                    }),
                    "bn-training.fused-activation-parameter", "/desc/FusedActivation/Beta"));
}

TEST_CASE("batch normalization: FusedActivation in the case format") {
    const std::string head = R"({"format": 1, "name": "t", "operator": "BATCH_NORMALIZATION", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]}, "MeanTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]},
        "VarianceTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]}, "ScaleTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]},
        "BiasTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2]},
        "Spatial": 1, "Epsilon": 0, "FusedActivation": )";
    const std::string tail =
        R"(}, "inputs": {"InputTensor": [3, -3], "MeanTensor": [1, 1], "VarianceTensor": [4, 4], "ScaleTensor": [1, 1], "BiasTensor": [0, 0]}})";
    auto load = [&](const std::string& fa, Diagnostics& d) {
        return parse_case(parse_json_text(head + fa + tail), "t.json", d);
    };
    for (const std::string fa :
         {"null", R"({"Type": "ACTIVATION_RELU"})", R"({"Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Alpha": 0.5})",
          R"({"Type": "ACTIVATION_LINEAR", "Desc": {"Alpha": 2, "Beta": 1, "InputTensor": null}})",
          R"({"type": "DML_OPERATOR_ACTIVATION_LINEAR", "desc": {"Alpha": 2, "Beta": 1}})"}) {
        CAPTURE(fa);
        Diagnostics d;
        const Case c = load(fa, d);
        REQUIRE_FALSE(d.has_errors());
        // (3 - 1) / 2 = 1 and (-3 - 1) / 2 = -2, then the activation.
        const auto y = as_values<float>(run_case(c).values.at("OutputTensor"));
        const std::vector<float> want = fa == "null"                            ? std::vector<float>{1, -2}
                                        : fa.find("LEAKY") != std::string::npos ? std::vector<float>{1, -1}
                                        : fa.find("RELU") != std::string::npos  ? std::vector<float>{1, 0}
                                                                                : std::vector<float>{3, -3};
        check_bits(y, want);
    }
    auto rule_of = [&](const std::string& fa) {
        const Diagnostics d = diagnose(head + fa + tail);
        for (const auto& i : d.items())
            if (i.severity == Severity::Error) return i.rule + " " + i.path;
        return std::string();
    };
    CHECK(rule_of(R"({"Type": "ACTIVATION_SOFTMAX"})") == "fused-activation.type /desc/FusedActivation/Type");
    CHECK(rule_of(R"({"Alpha": 1})") == "fused-activation.type /desc/FusedActivation");
    CHECK(rule_of(R"({"Type": "ACTIVATION_RELU", "InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}})") ==
          "fused-activation.tensor /desc/FusedActivation/InputTensor");
    CHECK(rule_of(R"({"Type": "ACTIVATION_LEAKY_RELU"})") == "case.missing-field /desc/FusedActivation");
    CHECK(rule_of(R"({"Type": "ACTIVATION_RELU", "Alpha": 1})") == "case.unknown-key /desc/FusedActivation/Alpha");
    CHECK(rule_of(R"("RELU")") == "case.type /desc/FusedActivation");
}

TEST_CASE("batch normalization: the checks catch planted errors") {
    // A one-ULP error planted in a golden is caught by the naive comparison's bit check and, at
    // k + 1 ULP, by the stated tolerance.
    const Shape s{{1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}};
    const Operator op = bn_op(DataType::FLOAT32, s, 0.0f, std::nullopt, false);
    Case c;
    c.op = op;
    c.inputs = {{"InputTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{1, 2})},
                {"MeanTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{0, 0})},
                {"VarianceTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{2, 3})},
                {"ScaleTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{1, 1})},
                {"BiasTensor", buffer(desc(DataType::FLOAT32, s.in), std::vector<float>{0, 0})}};
    const auto y = as_values<float>(run_case(c).values.at("OutputTensor"));
    const float want0 = round_big<float>(Big(1.0) / sqrt_of(Big(2.0))),
                want1 = round_big<float>(Big(2.0) / sqrt_of(Big(3.0)));
    CHECK(to_bits(y[0]) == to_bits(want0));
    CHECK(to_bits(y[1]) == to_bits(want1));
    const float planted = std::nextafter(y[0], 2.0f);
    CHECK(to_bits(planted) != to_bits(want0));
    const Tolerance t = stated_tolerance(c, "OutputTensor");
    REQUIRE(t.Kind == "Summed");
    CHECK(t.MaxTerms == 0);  // no term count: the diff's magnitude bound (docs/tolerance.md)
    const auto bounds = batch_normalization_bounds(c, "OutputTensor", ArithmeticProfile{});
    REQUIRE(bounds.has_value());
    ElementTolerance e;
    e.kind = "Summed";
    e.bound = (*bounds)[0];
    const DiffSwitches sw;
    CHECK(judge(DataType::FLOAT32, to_bits(y[0]), to_bits(planted), e, sw).verdict == Verdict::Within);
    // The first float beyond the bound is over it.
    float far = y[0];
    REQUIRE(e.bound < 1e-5);
    while (double(far) - double(y[0]) <= e.bound) far = std::nextafter(far, 2.0f);
    CHECK(judge(DataType::FLOAT32, to_bits(y[0]), to_bits(far), e, sw).verdict == Verdict::Over);
    CHECK(judge(DataType::FLOAT32, to_bits(y[0]), to_bits(std::nextafter(far, 0.0f)), e, sw).verdict ==
          Verdict::Within);
}

}  // namespace dmlref_test_batch_normalization
