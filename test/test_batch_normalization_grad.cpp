// BATCH_NORMALIZATION_GRAD and _TRAINING_GRAD against the central difference of sum(dY * Y(X,
// Scale, Bias)) computed with the forward in MPFR at 300 bits (bn_naive.hpp): an independent
// derivative, for statistics held constant (the grad) and for the batch's own statistics (the
// training grad, where the supplied Mean and Variance are exactly the batch's).
#include "bn_naive.hpp"

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_batch_normalization_grad {

using namespace dmlref;
using namespace dmlref::test;
using namespace dmlref::test::bn;

TEST_CASE_TEMPLATE("batch normalization grad: the central difference of the forward at 300 bits", T, double, float) {
    std::mt19937_64 rng(146 + sizeof(T));
    const DataType t = data_type_of<T>();
    for (int trial = 0; trial < 12; ++trial) {
        CAPTURE(trial);
        const Shape s = random_shape(rng, 4);
        const float eps = kEpsilons[trial % 4];
        const auto x = random_values<T>(rng, product(s.in));
        const auto dy = random_values<T>(rng, product(s.in));
        const auto mean = random_values<T>(rng, product(s.mean));
        auto var = random_values<T>(rng, product(s.mean), true);
        if (eps == 0)
            for (auto& v : var)
                if (v == T(0)) v = T(1);  // the derivative needs D > 0
        const auto scale = random_values<T>(rng, product(s.mean));
        const Operator op = grad_op<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(OperatorType::BATCH_NORMALIZATION_GRAD,
                                                                                t, s.in, s.mean, eps);
        const auto& d = get<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>(op.Desc);
        auto r = run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x44})},
                          {"InputGradientTensor", buffer(d.InputGradientTensor, dy)},
                          {"MeanTensor", buffer(d.MeanTensor, mean)},
                          {"VarianceTensor", buffer(d.VarianceTensor, var)},
                          {"ScaleTensor", buffer(d.ScaleTensor, scale)}});
        std::vector<Big> xb, dyb, sb, bb(mean.size());
        Stats given;
        for (const T& v : x) xb.push_back(big(v));
        for (const T& v : dy) dyb.push_back(big(v));
        for (const T& v : scale) sb.push_back(big(v));
        for (const T& v : mean) given.mean.push_back(big(v));
        for (const T& v : var) given.var.push_back(big(v));
        std::vector<T> dx, ds, db;
        for (size_t j = 0; j < xb.size(); ++j)
            dx.push_back(round_big<T>(
                derivative(xb, j, [&](const auto& v) { return loss(v, dyb, sb, bb, s.in, s.mean, &given, eps); })));
        for (size_t k = 0; k < sb.size(); ++k) {
            ds.push_back(round_big<T>(
                derivative(sb, k, [&](const auto& v) { return loss(xb, dyb, v, bb, s.in, s.mean, &given, eps); })));
            db.push_back(round_big<T>(
                derivative(bb, k, [&](const auto& v) { return loss(xb, dyb, sb, v, s.in, s.mean, &given, eps); })));
        }
        check_close_to_derivative(as_values<T>(r.at("OutputGradientTensor")), dx);
        check_close_to_derivative(as_values<T>(r.at("OutputScaleGradientTensor")), ds);
        check_close_to_derivative(as_values<T>(r.at("OutputBiasGradientTensor")), db);
    }
}

TEST_CASE_TEMPLATE("batch normalization training grad: the central difference of the training forward at 300 bits", T,
                   double, float) {
    // Mean and Variance must be the batch's exact statistics: reduced dimensions of 1, 2 or 4
    // elements make them dyadic, and the small dyadic data makes them exact in T.
    std::mt19937_64 rng(152 + sizeof(T));
    const DataType t = data_type_of<T>();
    int checked = 0;
    for (int trial = 0; trial < 16; ++trial) {
        CAPTURE(trial);
        std::vector<uint32_t> in, st;
        const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
        for (int dim = 0; dim < rank; ++dim) {
            const bool reduced = std::uniform_int_distribution<int>(0, 2)(rng) != 0;
            in.push_back(reduced ? uint32_t(1) << std::uniform_int_distribution<int>(0, 2)(rng)
                                 : uint32_t(std::uniform_int_distribution<int>(1, 3)(rng)));
            st.push_back(reduced ? 1 : in.back());
        }
        const float eps = kEpsilons[trial % 4];
        const auto x = random_values<T>(rng, product(in));
        const auto dy = random_values<T>(rng, product(in));
        const auto scale = random_values<T>(rng, product(st));
        std::vector<Big> xb, dyb, sb, bb(scale.size());
        for (const T& v : x) xb.push_back(big(v));
        for (const T& v : dy) dyb.push_back(big(v));
        for (const T& v : scale) sb.push_back(big(v));
        const Stats exact = batch_stats(xb, in, st);
        std::vector<T> mean, var;
        bool usable = true;
        for (size_t k = 0; k < exact.mean.size(); ++k) {
            mean.push_back(value_of<T>(mpfr_get_d(exact.mean[k].v, MPFR_RNDN)));
            var.push_back(value_of<T>(mpfr_get_d(exact.var[k].v, MPFR_RNDN)));
            // The statistics must be exact in T (large slices may not be), and D > 0.
            usable = usable && mpfr_cmp(big(mean.back()).v, exact.mean[k].v) == 0 &&
                     mpfr_cmp(big(var.back()).v, exact.var[k].v) == 0;
            usable = usable && (eps > 0 || var.back() > T(0));
        }
        if (!usable) continue;
        ++checked;
        const Operator op = grad_op<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(
            OperatorType::BATCH_NORMALIZATION_TRAINING_GRAD, t, in, st, eps);
        const auto& d = get<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>(op.Desc);
        auto r = run(op, {{"InputTensor", logical_buffer(d.InputTensor, x, std::byte{0x44})},
                          {"InputGradientTensor", buffer(d.InputGradientTensor, dy)},
                          {"MeanTensor", buffer(d.MeanTensor, mean)},
                          {"VarianceTensor", buffer(d.VarianceTensor, var)},
                          {"ScaleTensor", buffer(d.ScaleTensor, scale)}});
        std::vector<T> dx, ds, db;
        for (size_t j = 0; j < xb.size(); ++j)
            dx.push_back(round_big<T>(
                derivative(xb, j, [&](const auto& v) { return loss(v, dyb, sb, bb, in, st, nullptr, eps); })));
        for (size_t k = 0; k < sb.size(); ++k) {
            ds.push_back(round_big<T>(
                derivative(sb, k, [&](const auto& v) { return loss(xb, dyb, v, bb, in, st, nullptr, eps); })));
            db.push_back(round_big<T>(
                derivative(bb, k, [&](const auto& v) { return loss(xb, dyb, sb, v, in, st, nullptr, eps); })));
        }
        check_close_to_derivative(as_values<T>(r.at("OutputGradientTensor")), dx);
        check_close_to_derivative(as_values<T>(r.at("OutputScaleGradientTensor")), ds);
        check_close_to_derivative(as_values<T>(r.at("OutputBiasGradientTensor")), db);
    }
    CHECK(checked >= 6);
}

}  // namespace dmlref_test_batch_normalization_grad
