// DML_OPERATOR_MATRIX_MULTIPLY_INTEGER and DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT.
//
// Spec: DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC and
// DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC (DirectML API reference); rules in
// docs/rules.md; the decisions in docs/golden.md, "GEMM and the integer matrix products"; the
// bounds in docs/tolerance.md, "GEMM". The shape rules they share with GEMM are in
// reference/gemm.cpp (reference/gemm_internal.hpp).
//
//   MATRIX_MULTIPLY_INTEGER: Output = (A - AZeroPoint) x (B - BZeroPoint) in INT32, the zero
//   points per tensor (one element) or per row of A ({ .., M, 1 }) and per column of B
//   ({ .., 1, N }). IntegerOverflow=WrapToWidth: the exact sum is reduced modulo 2^32 to INT32
//   (two's complement), as an INT32 accumulator wraps. The alternative IntegerOverflow=Saturate
//   (docs/golden.md, "Alternative readings") clamps the exact sum once to INT32's range: K = 33100
//   products 255 x 255 give 2147483647. That is a saturating backend's product: the terms are
//   summed in a wider accumulator (each is at most 65025 in magnitude, so 64 bits never overflow)
//   and the sum is stored with saturation; an INT32 accumulator saturated after each term would
//   depend on the order of the K terms, which the page does not give (and a blocked or split-K
//   kernel sums them in pieces).
#include "gemm_internal.hpp"

#include "exact_rational.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/readings.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace dmlref::reference {

namespace {
using MMI = DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC;
}  // namespace

// ---- MATRIX_MULTIPLY_INTEGER ------------------------------------------------------------------
//
// Tensor constraints: "ATensor, BTensor, and OutputTensor must have the same DimensionCount"
// (matrix-multiply-integer.same-dimension-count); "BTensor and BZeroPointTensor must have the
// same DataType", likewise A (matrix-multiply-integer.zero-point-data-type). Tensor support: A
// and B INT8 or UINT8 (matrix-multiply-integer.data-type), Output INT32
// (matrix-multiply-integer.output-data-type), 2 to 4 dimensions (.dimension-count); zero points
// { [1], [1], AZeroPointCount, [1] } and { [1], [1], [1], BZeroPointCount } with 1 to 4
// dimensions (.zero-point-dimension-count), the count 1 (per tensor) or M (per row), N (per
// column) (.zero-point-sizes, the fields' sentences).
void validate(const MMI& d, Diagnostics& diags) {
    for (const Named& t : {Named{"ATensor", d.ATensor}, Named{"BTensor", d.BTensor}})
        if (t.desc.DataType != DataType::INT8 && t.desc.DataType != DataType::UINT8)
            diags.error(desc_path(t.name) + "/DataType", "matrix-multiply-integer.data-type",
                        std::string(t.name) + " is " + std::string(dmlref::name(t.desc.DataType)) +
                            "; it must be INT8 or UINT8");
    if (d.OutputTensor.DataType != DataType::INT32)
        diags.error("/desc/OutputTensor/DataType", "matrix-multiply-integer.output-data-type",
                    "OutputTensor is " + std::string(dmlref::name(d.OutputTensor.DataType)) + "; it must be INT32");
    if (!validate_shapes(diags, "matrix-multiply-integer", d.ATensor, false, d.BTensor, false, d.OutputTensor)) return;
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, false);
    const std::string zp = std::string("matrix-multiply-integer") + ".zero-point";
    const char* page = "DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC";
    if (d.AZeroPointTensor) {
        require_data_type(diags, *d.AZeroPointTensor, "AZeroPointTensor", d.ATensor, "ATensor",
                          "matrix-multiply-integer.zero-point-data-type");
        validate_quantization(diags, zp, *d.AZeroPointTensor, "AZeroPointTensor", 1, uint32_t(s.M), "per row of A",
                              page);
    }
    if (d.BZeroPointTensor) {
        require_data_type(diags, *d.BZeroPointTensor, "BZeroPointTensor", d.BTensor, "BTensor",
                          "matrix-multiply-integer.zero-point-data-type");
        validate_quantization(diags, zp, *d.BZeroPointTensor, "BZeroPointTensor", 0, uint32_t(s.N), "per column of B",
                              page);
    }
}

void evaluate(const MMI& d, const Bindings& bind) {
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, false);
    const std::vector<double> a = logical_doubles(d.ATensor, bind.at("ATensor"));
    const std::vector<double> b = logical_doubles(d.BTensor, bind.at("BTensor"));
    const std::vector<double> za = d.AZeroPointTensor
                                       ? logical_doubles(*d.AZeroPointTensor, bind.at("AZeroPointTensor"))
                                       : std::vector<double>{};
    const std::vector<double> zb = d.BZeroPointTensor
                                       ? logical_doubles(*d.BZeroPointTensor, bind.at("BZeroPointTensor"))
                                       : std::vector<double>{};
    std::vector<int32_t> r(s.Batch * s.M * s.N);
    const bool saturate = in_force<"IntegerOverflow", "Saturate">();
    for (uint64_t e = 0; e < r.size(); ++e) {
        const uint64_t n = e % s.N, m = (e / s.N) % s.M, batch = e / (s.N * s.M);
        int64_t acc = 0;  // exact: |term| <= 255 * 255 and K < 2^32
        for (uint64_t k = 0; k < s.K; ++k)
            acc += (int64_t(a[a_index(s, false, batch, m, k)]) - zero_point_at(za, m)) *
                   (int64_t(b[b_index(s, false, batch, k, n)]) - zero_point_at(zb, n));
        if (saturate) {  // IntegerOverflow=Saturate: the exact sum clamped once
            r[e] = int32_t(
                std::clamp<int64_t>(acc, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
            continue;
        }
        r[e] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc)));  // modulo 2^32
    }
    write_logical<int32_t>(d.OutputTensor, bind.at("OutputTensor"), [&](uint64_t i) { return r[i]; });
}

bool explain_matrix_multiply_integer(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<MMI>(&c.op.Desc);
    if (!d || output != "OutputTensor") return false;
    explain_integer_pairs(c, d->ATensor, d->BTensor, d->OutputTensor, d->AZeroPointTensor, d->BZeroPointTensor, flat,
                          out);
    out.facts.emplace_back("formula", "sum_k (a_k - AZeroPoint) (b_k - BZeroPoint), exact, then modulo 2^32 as INT32");
    for (const auto& pol : info(c.op.Type).Policies) out.policies.emplace_back(pol.Name);
    return true;
}

// ---- MATRIX_MULTIPLY_INTEGER_TO_FLOAT -------------------------------------------------------------
//
// Output = ((A - AZeroPoint) * AScale) x ((B - BZeroPoint) * BScale) + Bias: with AScale per
// tensor or per row m and BScale per tensor or per column n, element [m, n] is
// AScale[m] * BScale[n] * sum_k (a_k - za) (b_k - zb) + Bias[m, n], computed exactly (the integer
// sum in 128 bits, then GMP rationals) and rounded once (MmiToFloatValue=ExactThenRoundOnce).
// Tensor constraints: "AScaleTensor, AZeroPointTensor, BScaleTensor, and BZeroPointTensor must
// have the same DimensionCount" (.quantization-dimension-count); "ATensor, BiasTensor, BTensor,
// and OutputTensor must have the same DimensionCount" (.same-dimension-count); "BiasTensor and
// OutputTensor must have the same Sizes" (.bias-sizes); "ATensor, AZeroPointTensor, BTensor, and
// BZeroPointTensor must have the same DataType" (.same-integer-data-type); "AScaleTensor,
// BiasTensor, BScaleTensor, and OutputTensor must have the same DataType" (.same-float-data-type).
// Tensor support: A and B INT32, INT16, INT8, UINT32, UINT16, UINT8 (.data-type), Output FLOAT32
// or FLOAT16 (.output-data-type), the scales' and zero points' shapes as the fields say
// (.scale-*, .zero-point-*).
namespace {

using MMIF = DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC;
constexpr const char* kMmif = "matrix-multiply-integer-to-float";

struct MmifData {
    GemmShape s;
    std::vector<double> a, b, as, bs, za, zb, bias;
};

MmifData read_mmif(const MMIF& d, const std::function<std::span<const std::byte>(const char*)>& input) {
    MmifData g;
    g.s = gemm_shape(d.OutputTensor, d.ATensor, false);
    g.a = logical_doubles(d.ATensor, input("ATensor"));
    g.b = logical_doubles(d.BTensor, input("BTensor"));
    g.as = logical_doubles(d.AScaleTensor, input("AScaleTensor"));
    g.bs = logical_doubles(d.BScaleTensor, input("BScaleTensor"));
    if (d.AZeroPointTensor) g.za = logical_doubles(*d.AZeroPointTensor, input("AZeroPointTensor"));
    if (d.BZeroPointTensor) g.zb = logical_doubles(*d.BZeroPointTensor, input("BZeroPointTensor"));
    if (d.BiasTensor) g.bias = logical_doubles(*d.BiasTensor, input("BiasTensor"));
    return g;
}

// The exact integer sum of element e (|term| < 2^64, so 128 bits hold any K below 2^63).
int128_t mmif_sum(const MmifData& g, uint64_t batch, uint64_t m, uint64_t n) {
    int128_t acc = 0;
    for (uint64_t k = 0; k < g.s.K; ++k)
        acc += int128_t(int64_t(g.a[a_index(g.s, false, batch, m, k)]) - zero_point_at(g.za, m)) *
               (int64_t(g.b[b_index(g.s, false, batch, k, n)]) - zero_point_at(g.zb, n));
    return acc;
}

template <class T> T mmif_element(const MmifData& g, uint64_t e) {
    const uint64_t n = e % g.s.N, m = (e / g.s.N) % g.s.M, batch = e / (g.s.N * g.s.M);
    const double as = per(g.as, m), bs = per(g.bs, n), bias = g.bias.empty() ? 0.0 : g.bias[e];
    const int128_t sum = mmif_sum(g, batch, m, n);
    if (!std::isfinite(as) || !std::isfinite(bs) || !std::isfinite(bias)) {
        // IEEE's rules for the scales and the bias (a zero sum times an infinite scale is NaN):
        // every such value is infinite or NaN, so float64 gives it exactly.
        const double v = as * bs * (sum == 0 ? 0.0 : sum < 0 ? -1.0 : 1.0) + bias;
        return std::isnan(v) ? canonical_nan<T>() : round_to_float<T>(v);
    }
    const mpq_class exact = mpq_class(as) * mpq_class(bs) * mpq_class(to_mpz(sum)) + mpq_class(bias);
    return round_rational<T>(exact);
}

template <class T> void mmif_loop(const MMIF& d, const Bindings& bind) {
    const MmifData g = read_mmif(d, [&](const char* f) { return std::span<const std::byte>(bind.at(f)); });
    std::vector<T> r(g.s.Batch * g.s.M * g.s.N);
    for (uint64_t e = 0; e < r.size(); ++e) r[e] = mmif_element<T>(g, e);
    write_logical<T>(d.OutputTensor, bind.at("OutputTensor"), [&](uint64_t i) { return r[i]; });
}

}  // namespace

void validate(const MMIF& d, Diagnostics& diags) {
    const std::string op = kMmif;
    auto rule = [&](const char* id) { return op + "." + id; };
    for (const Named& t : {Named{"ATensor", d.ATensor}, Named{"BTensor", d.BTensor}})
        if (!is_integer_data(t.desc.DataType))
            diags.error(desc_path(t.name) + "/DataType", rule("data-type"),
                        std::string(t.name) + " is " + std::string(dmlref::name(t.desc.DataType)) +
                            "; it must be INT32, INT16, INT8, UINT32, UINT16 or UINT8");
    if (d.OutputTensor.DataType != DataType::FLOAT32 && d.OutputTensor.DataType != DataType::FLOAT16)
        diags.error("/desc/OutputTensor/DataType", rule("output-data-type"),
                    "OutputTensor is " + std::string(dmlref::name(d.OutputTensor.DataType)) +
                        "; it must be FLOAT32 or FLOAT16");
    const TensorDesc& za = d.AZeroPointTensor ? *d.AZeroPointTensor : d.ATensor;
    const TensorDesc& zb = d.BZeroPointTensor ? *d.BZeroPointTensor : d.BTensor;
    require_same_data_type(
        diags, {{"ATensor", d.ATensor}, {"AZeroPointTensor", za}, {"BTensor", d.BTensor}, {"BZeroPointTensor", zb}},
        rule("same-integer-data-type"));
    const TensorDesc& bias = d.BiasTensor ? *d.BiasTensor : d.OutputTensor;
    require_same_data_type(diags,
                           {{"AScaleTensor", d.AScaleTensor},
                            {"BiasTensor", bias},
                            {"BScaleTensor", d.BScaleTensor},
                            {"OutputTensor", d.OutputTensor}},
                           rule("same-float-data-type"));
    const uint32_t q = d.AScaleTensor.DimensionCount();
    for (const auto& [name, t] : {std::pair<const char*, const TensorDesc*>{
                                      "AZeroPointTensor", d.AZeroPointTensor ? &*d.AZeroPointTensor : nullptr},
                                  {"BScaleTensor", &d.BScaleTensor},
                                  {"BZeroPointTensor", d.BZeroPointTensor ? &*d.BZeroPointTensor : nullptr}})
        if (t && t->DimensionCount() != q)
            diags.error(
                desc_path(name) + "/Sizes", "matrix-multiply-integer-to-float.quantization-dimension-count",
                std::string(name) + " has " + std::to_string(t->DimensionCount()) + " dimensions and AScaleTensor " +
                    std::to_string(q) +
                    "; AScaleTensor, AZeroPointTensor, BScaleTensor and BZeroPointTensor must have the same DimensionCount");
    if (!validate_shapes(diags, op, d.ATensor, false, d.BTensor, false, d.OutputTensor)) return;
    if (d.BiasTensor) {
        if (d.BiasTensor->DimensionCount() != d.OutputTensor.DimensionCount())
            diags.error("/desc/BiasTensor/Sizes", "matrix-multiply-integer-to-float.same-dimension-count",
                        "BiasTensor has " + rank_text(*d.BiasTensor) + " dimensions and OutputTensor " +
                            rank_text(d.OutputTensor) +
                            "; ATensor, BiasTensor, BTensor and OutputTensor must have the same DimensionCount");
        else if (d.BiasTensor->Sizes != d.OutputTensor.Sizes)
            diags.error(
                "/desc/BiasTensor/Sizes", "matrix-multiply-integer-to-float.bias-sizes",
                "BiasTensor and OutputTensor must have the same Sizes (broadcast the bias through zero strides)");
    }
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, false);
    const char* page = "DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC";
    validate_quantization(diags, op + ".scale", d.AScaleTensor, "AScaleTensor", 1, uint32_t(s.M), "per row of A", page);
    validate_quantization(diags, op + ".scale", d.BScaleTensor, "BScaleTensor", 0, uint32_t(s.N), "per column of B",
                          page);
    // The zero points have the scales' DimensionCount (.quantization-dimension-count), so their
    // sizes are checked only where that holds and the scales' count is 1 to 4.
    auto same_count = [&](const std::optional<TensorDesc>& z) { return !z || z->DimensionCount() == q; };
    if (q < 1 || q > 4 || d.BScaleTensor.DimensionCount() != q || !same_count(d.AZeroPointTensor) ||
        !same_count(d.BZeroPointTensor))
        return;
    if (d.AZeroPointTensor)
        validate_quantization(diags, op + ".zero-point", *d.AZeroPointTensor, "AZeroPointTensor", 1, uint32_t(s.M),
                              "per row of A", page);
    if (d.BZeroPointTensor)
        validate_quantization(diags, op + ".zero-point", *d.BZeroPointTensor, "BZeroPointTensor", 0, uint32_t(s.N),
                              "per column of B", page);
}

void evaluate(const MMIF& d, const Bindings& b) {
    if (d.OutputTensor.DataType == DataType::FLOAT16) mmif_loop<half>(d, b);
    else mmif_loop<float>(d, b);
}

std::optional<Tolerance> mmi_to_float_tolerance(const MMIF& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return std::nullopt;
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, false);
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = uint32_t(std::min<uint64_t>(s.K + (d.BiasTensor ? 1 : 0), std::numeric_limits<uint32_t>::max()));
    t.Why =
        "AScale * BScale * sum_k (a_k - za) (b_k - zb) + Bias, exact and rounded once; dmlref diff bounds each element by "
        "gamma_(K+5) times the sum of its terms' magnitudes in the profile's precision (each dequantized operand rounded "
        "twice, the product, the additions, the bias); a NaN matches any NaN (docs/tolerance.md, GEMM)";
    return t;
}

bool explain_matrix_multiply_integer_to_float(const Case& c, std::string_view output, uint64_t flat,
                                              FamilyExplanation& out) {
    const auto* d = get_if<MMIF>(&c.op.Desc);
    if (!d || output != "OutputTensor") return false;
    explain_integer_pairs(c, d->ATensor, d->BTensor, d->OutputTensor, d->AZeroPointTensor, d->BZeroPointTensor, flat,
                          out);
    const GemmShape s = gemm_shape(d->OutputTensor, d->ATensor, false);
    const uint64_t n = flat % s.N, m = (flat / s.N) % s.M;
    out.inputs.push_back(input_element(
        c, "AScaleTensor", nd_coordinate(d->AScaleTensor.Sizes, element_count(d->AScaleTensor) == 1 ? 0 : m), "scale"));
    out.inputs.push_back(input_element(
        c, "BScaleTensor", nd_coordinate(d->BScaleTensor.Sizes, element_count(d->BScaleTensor) == 1 ? 0 : n), "scale"));
    if (d->BiasTensor)
        out.inputs.push_back(input_element(c, "BiasTensor", nd_coordinate(d->OutputTensor.Sizes, flat), "bias"));
    out.facts.emplace_back(
        "formula", "AScale * BScale * sum_k (a_k - AZeroPoint) (b_k - BZeroPoint) + Bias, exact and rounded once");
    for (const auto& pol : info(c.op.Type).Policies) out.policies.emplace_back(pol.Name);
    return true;
}

}  // namespace dmlref::reference

namespace dmlref {

// A backend dequantizes each operand (a - za, then times AScale: two roundings; b likewise),
// multiplies (one), adds the K products in any order (K - 1) and the bias (one): every term passes
// through at most K + 5 roundings in the working type w, so |backend - exact| <= gamma_(K+5)(u_w) S,
// S = sum_k |AScale (a_k - za) BScale (b_k - zb)| + |Bias|, plus 5 K eta_w for underflow, plus the
// rounding to the output type t when w is wider (docs/tolerance.md, "GEMM").
void mmi_to_float_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    using namespace reference;
    const auto* d = get_if<MMIF>(&op.Desc);
    if (!d) throw std::invalid_argument("not a MATRIX_MULTIPLY_INTEGER_TO_FLOAT operator");
    const MmifData g = read_mmif(*d, [&](const char* f) { return input(f); });
    const DataType t = d->OutputTensor.DataType;
    const std::vector<DataType> ws = working_types(p, t);
    for (uint64_t e = 0; e < g.s.Batch * g.s.M * g.s.N; ++e) {
        const uint64_t n = e % g.s.N, m = (e / g.s.N) % g.s.M, batch = e / (g.s.N * g.s.M);
        const double scale = std::fabs(per(g.as, m) * per(g.bs, n)), bias = g.bias.empty() ? 0.0 : g.bias[e];
        double S = 0;
        for (uint64_t k = 0; k < g.s.K; ++k)
            S += std::fabs((g.a[a_index(g.s, false, batch, m, k)] - double(zero_point_at(g.za, m))) *
                           (g.b[b_index(g.s, false, batch, k, n)] - double(zero_point_at(g.zb, n))));
        // Rounded up: the float64 products and sum of K terms err by less than (K + 4) 2^-53 relative.
        S = S * scale * (1 + double(g.s.K + 4) * 0x1p-52) + std::fabs(bias) * (1 + 0x1p-52);
        const uint32_t terms = uint32_t(
            std::min<uint64_t>(g.s.K + (g.bias.empty() ? 0 : 1), std::numeric_limits<uint32_t>::max()));
        const double y = widen(mmif_element<double>(g, e));
        if (!std::isfinite(S) || !std::isfinite(y)) {
            sink.set_computed(e, std::numeric_limits<double>::infinity(), S, terms, std::isnan(y), std::isinf(y));
            continue;
        }
        double worst = 0;
        for (DataType w : ws) {
            const double eta = p.flush_subnormals ? smallest_normal(w) : subnormal_rounding_error(w);
            double err = gamma_up(g.s.K + 5, unit_roundoff(w)) * S + 5.0 * double(g.s.K + 1) * eta;
            if (w != t)
                err += unit_roundoff(t) * (std::fabs(y) + err) +
                       (p.flush_subnormals ? smallest_normal(t) : subnormal_rounding_error(t));
            worst = std::max(worst, err * (1 + 1e-9));
        }
        sink.set_computed(e, worst, S, terms);
    }
}

}  // namespace dmlref
