// DML_OPERATOR_GEMM, and what the family's three operators share (reference/gemm_internal.hpp).
//
// Spec: DML_GEMM_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md; the decisions in
// docs/golden.md, "GEMM and the integer matrix products"; the bounds in docs/tolerance.md, "GEMM".
// The integer products are in reference/gemm_integer.cpp.
//
//   Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C). The last two dimensions
//   are the matrices; the leading ones (none to two: 2 to 4 dimensions) are batch dimensions,
//   each product independent. A's Sizes are { [Batch], [Channel], M, K } (K, M with TransA), B's
//   { [Batch], [Channel], K, N } (N, K with TransB), C's and Output's { [Batch], [Channel], M, N }.
//   Broadcasting is through strides (a zero stride repeats an element): the Sizes themselves
//   must match.
//
// Decisions (docs/golden.md; recorded as policies in golden files):
//   - GemmValue=ExactThenRoundOnce: each element is the exact real Alpha * sum_k a_k b_k + Beta * c
//     rounded to the output type: products of FLOAT32 or FLOAT16 operands are exact in float64,
//     Alpha times a product is split into two exact float64 terms, Beta * c is exact, and the
//     exact sum of those terms is rounded once to float64, then once to the output type, as every
//     summed value (FastSum, then ExactSum when undecided; docs/golden.md, "GEMM"). Nothing (A x B
//     in particular) is rounded to the output type before the end.
//   - FusedActivationInput=RoundedSum: the activation applies to that value already rounded to
//     the output type, then its exact result is rounded once more (ELEMENT_WISE_ADD1's decision).
//   - GemmBetaWithoutC=Ignored: without CTensor, Beta is ignored (the page: "If CTensor is not
//     provided, then this value is ignored"), so a NaN or infinite Beta changes nothing.
//   - NonFiniteSum=CanonicalNaN, ZeroResult=PositiveZero: a NaN term, or infinite terms of both
//     signs, give the canonical NaN; an exact zero is +0. With a finite Alpha an infinite product
//     is Alpha times it (0 x inf is NaN); with an infinite or NaN Alpha the value is Alpha times
//     the exact sum of the products (IEEE: inf x 0 is NaN), plus Beta * c.
#include "gemm_internal.hpp"

#include "exact_sum.hpp"
#include "fast_sum.hpp"
#include "fused_activation.hpp"

#include "dmlref/bound.hpp"

#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using GEMM = DML_GEMM_OPERATOR_DESC;

bool is_power_of_two(double x) {
    int e = 0;
    return std::frexp(std::fabs(x), &e) == 0.5;
}

// Veltkamp's split of a finite double p (|p| < 2^996) into hi + lo exactly, each of at most 26
// significant bits.
void split(double p, double& hi, double& lo) {
    const double c = 134217729.0 * p;  // 2^27 + 1
    hi = c - (c - p);
    lo = p - hi;
}

// The exact value's float64 terms (Alpha finite), to `add`: Alpha * p_k for each product p_k =
// a_k b_k (exact: at most 48 significant bits), as one term when Alpha is a power of two and
// otherwise as Alpha * hi + Alpha * lo (24 + 26 bits each: exact, and far from float64's
// overflow and underflow: |p| < 2^256, |p| >= 2^-298 or 0); then Beta * c (exact).
template <class Add>
void value_terms(double alpha, bool alpha_pow2, const std::vector<double>& a, const std::vector<double>& b,
                 const GemmShape& s, bool ta, bool tb, uint64_t batch, uint64_t m, uint64_t n,
                 std::optional<double> beta_c, Add&& add) {
    for (uint64_t k = 0; k < s.K; ++k) {
        const double p = a[a_index(s, ta, batch, m, k)] * b[b_index(s, tb, batch, k, n)];
        if (alpha_pow2 || !std::isfinite(p)) {
            add(alpha * p);
        } else {
            double hi = 0, lo = 0;
            split(p, hi, lo);
            add(alpha * hi);
            add(alpha * lo);
        }
    }
    if (beta_c) add(*beta_c);
}

template <class T> void gemm_loop(const GEMM& d, const Bindings& bind) {
    const std::span<const std::byte> cbuf = d.CTensor ? std::span<const std::byte>(bind.at("CTensor"))
                                                      : std::span<const std::byte>();
    const GemmData g = read_gemm(d, bind.at("ATensor"), bind.at("BTensor"), d.CTensor ? &cbuf : nullptr);
    const uint64_t count = g.s.Batch * g.s.M * g.s.N;
    std::vector<T> r(count);
    for (uint64_t e = 0; e < count; ++e) {
        const T y = gemm_element<T>(d, g, e);
        r[e] = d.FusedActivation ? fused_activation(*d.FusedActivation, y) : y;
    }
    write_logical<T>(d.OutputTensor, bind.at("OutputTensor"), [&](uint64_t i) { return r[i]; });
}

}  // namespace

// ---- The plain loop's per-element path (reference/gemm_internal.hpp) ---------------------------

GemmData read_gemm(const GEMM& d, std::span<const std::byte> a, std::span<const std::byte> b,
                   const std::span<const std::byte>* c) {
    GemmData g;
    g.ta = d.TransA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    g.tb = d.TransB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    g.s = gemm_shape(d.OutputTensor, d.ATensor, g.ta);
    g.a = logical_doubles(d.ATensor, a);
    g.b = logical_doubles(d.BTensor, b);
    if (d.CTensor && c) g.c = logical_doubles(*d.CTensor, *c);
    return g;
}

// The element's exact value rounded once to T (before any activation).
template <class T> T gemm_element(const GEMM& d, const GemmData& g, uint64_t e) {
    const uint64_t n = e % g.s.N, m = (e / g.s.N) % g.s.M, batch = e / (g.s.N * g.s.M);
    const double alpha = d.Alpha;
    std::optional<double> beta_c;
    if (d.CTensor) beta_c = double(d.Beta) * g.c[e];
    if (std::isfinite(alpha)) {
        const bool pow2 = is_power_of_two(alpha);
        return exact_sum_of<T>(
            [&](auto&& add) { value_terms(alpha, pow2, g.a, g.b, g.s, g.ta, g.tb, batch, m, n, beta_c, add); });
    }
    // Alpha infinite or NaN: Alpha times the exact sum of the products (a non-zero exact sum of
    // products of FLOAT32 or FLOAT16 values is at least 2^-298, so its float64 rounding keeps its
    // sign and is not 0), then Beta * c; every value is then infinite or NaN.
    ExactSum products;
    for (uint64_t k = 0; k < g.s.K; ++k)
        products.add(g.a[a_index(g.s, g.ta, batch, m, k)] * g.b[b_index(g.s, g.tb, batch, k, n)]);
    double v = alpha * products.result<double>();
    if (beta_c) v = v + *beta_c;
    return std::isnan(v) ? canonical_nan<T>() : round_to_float<T>(v);
}

template float gemm_element<float>(const GEMM&, const GemmData&, uint64_t);
template half gemm_element<half>(const GEMM&, const GemmData&, uint64_t);

// ---- What the family shares (reference/gemm_internal.hpp) ----------------------------------------

std::string rank_text(const TensorDesc& d) { return std::to_string(d.DimensionCount()); }

// The size rules of the three operators: A, B and Output have 2 to 4 dimensions, one count for
// all; the inner sizes agree; M and N are Output's; the batch dimensions equal Output's.
// False when the shape can't be read (the later checks would index past an array).
bool validate_shapes(Diagnostics& diags, std::string_view op, const TensorDesc& a, bool trans_a, const TensorDesc& b,
                     bool trans_b, const TensorDesc& out) {
    auto rule = [&](std::string_view id) { return std::string(op) + "." + std::string(id); };
    const uint32_t r = out.DimensionCount();
    bool ok = true;
    for (const Named& t : {Named{"ATensor", a}, Named{"BTensor", b}, Named{"OutputTensor", out}}) {
        const uint32_t n = t.desc.DimensionCount();
        if (n < 2 || n > 4) {
            diags.error(desc_path(t.name) + "/Sizes", rule("dimension-count"),
                        std::string(t.name) + " has " + std::to_string(n) + " dimensions; it must have 2 to 4");
            ok = false;
        } else if (n != r) {
            diags.error(desc_path(t.name) + "/Sizes", rule("same-dimension-count"),
                        std::string(t.name) + " has " + std::to_string(n) + " dimensions and OutputTensor " +
                            rank_text(out) + "; ATensor, BTensor and OutputTensor must have the same DimensionCount");
            ok = false;
        }
    }
    if (!ok) return false;
    const uint32_t M = out.Sizes[r - 2], N = out.Sizes[r - 1];
    const uint32_t a_rows = trans_a ? a.Sizes[r - 1] : a.Sizes[r - 2], K = trans_a ? a.Sizes[r - 2] : a.Sizes[r - 1];
    const uint32_t b_k = trans_b ? b.Sizes[r - 1] : b.Sizes[r - 2], b_cols = trans_b ? b.Sizes[r - 2] : b.Sizes[r - 1];
    if (b_k != K) {
        ok = false;
        diags.error("/desc/BTensor/Sizes", rule("inner-size"),
                    "TransB(B) has " + std::to_string(b_k) + " rows but TransA(A) has " + std::to_string(K) +
                        " columns; the inner dimension K must agree");
    }
    if (a_rows != M) {
        ok = false;
        diags.error("/desc/ATensor/Sizes", rule("output-sizes"),
                    "TransA(A) has " + std::to_string(a_rows) + " rows but OutputTensor has M = " + std::to_string(M) +
                        "; OutputTensor's Sizes are { [BatchCount], [ChannelCount], M, N }");
    }
    if (b_cols != N) {
        ok = false;
        diags.error("/desc/BTensor/Sizes", rule("output-sizes"),
                    "TransB(B) has " + std::to_string(b_cols) + " columns but OutputTensor has N = " +
                        std::to_string(N) + "; OutputTensor's Sizes are { [BatchCount], [ChannelCount], M, N }");
    }
    for (uint32_t i = 0; i + 2 < r; ++i)
        for (const Named& t : {Named{"ATensor", a}, Named{"BTensor", b}})
            if (t.desc.Sizes[i] != out.Sizes[i]) {
                ok = false;
                diags.error(
                    desc_path(t.name) + "/Sizes/" + std::to_string(i), rule("batch-sizes"),
                    std::string(t.name) + "'s Sizes[" + std::to_string(i) + "] is " + std::to_string(t.desc.Sizes[i]) +
                        " and OutputTensor's " + std::to_string(out.Sizes[i]) +
                        "; the batch dimensions (BatchCount, ChannelCount) must be equal (broadcast through a zero stride)");
            }
    return ok;
}

// A zero point's or scale's shape: 1 to 4 dimensions (`<stem>-dimension-count`), every size 1
// but the one at `from_end` from the end (1: per row of A, the second last; 0: per column of B,
// the last), which is 1 (per tensor) or `count` (`<stem>-sizes`). `stem` is the rule ids' start,
// the operator's short name and ".zero-point" or ".scale".
void validate_quantization(Diagnostics& diags, const std::string& stem, const TensorDesc& z, std::string_view name,
                           uint32_t from_end, uint32_t count, std::string_view what, std::string_view page) {
    const uint32_t r = z.DimensionCount();
    if (r < 1 || r > 4) {
        diags.error(desc_path(name) + "/Sizes", stem + "-dimension-count",
                    std::string(name) + " has " + std::to_string(r) + " dimensions; it must have 1 to 4");
        return;
    }
    const uint32_t axis = r == 1 ? 0 : (from_end < r ? r - 1 - from_end : 0);
    for (uint32_t i = 0; i < r; ++i) {
        const uint32_t s = z.Sizes[i];
        const bool ok = i == axis ? (s == 1 || s == count) : s == 1;
        if (!ok)
            diags.error(
                desc_path(name) + "/Sizes/" + std::to_string(i), stem + "-sizes",
                std::string(name) + "'s Sizes[" + std::to_string(i) + "] is " + std::to_string(s) + "; its Sizes are " +
                    (i == axis ? "1 (per tensor) or " + std::to_string(count) + " (" + std::string(what) + ") there"
                               : std::string("1 there")) +
                    " (" + std::string(page) + ")");
    }
}

void require_data_type(Diagnostics& diags, const TensorDesc& z, std::string_view name, const TensorDesc& data,
                       std::string_view data_name, const std::string& rule) {
    if (z.DataType != data.DataType)
        diags.error(desc_path(name) + "/DataType", rule,
                    std::string(name) + " is " + std::string(dmlref::name(z.DataType)) + " and " +
                        std::string(data_name) + " " + std::string(dmlref::name(data.DataType)) +
                        "; they must have the same DataType");
}

// A zero point's value for row m (per row) or column n (per column), as an integer.
int64_t zero_point_at(const std::vector<double>& z, uint64_t i) {
    return z.empty() ? 0 : int64_t(z.size() == 1 ? z[0] : z[i]);
}

// explain's rows shared by the integer products: the first 16 (a, b) pairs of element [batch, m,
// n], the zero points of row m and column n (per tensor: their one element), and the product fact.
void explain_integer_pairs(const Case& c, const TensorDesc& a, const TensorDesc& b, const TensorDesc& out_desc,
                           const std::optional<TensorDesc>& za, const std::optional<TensorDesc>& zb, uint64_t flat,
                           FamilyExplanation& out) {
    const GemmShape s = gemm_shape(out_desc, a, false);
    const uint64_t n = flat % s.N, m = (flat / s.N) % s.M, batch = flat / (s.N * s.M);
    for (uint64_t k = 0; k < s.K && k < 16; ++k) {
        out.inputs.push_back(input_element(c, "ATensor", nd_coordinate(a.Sizes, a_index(s, false, batch, m, k)), "a"));
        out.inputs.push_back(input_element(c, "BTensor", nd_coordinate(b.Sizes, b_index(s, false, batch, k, n)), "b"));
    }
    if (za)
        out.inputs.push_back(input_element(c, "AZeroPointTensor",
                                           nd_coordinate(za->Sizes, element_count(*za) == 1 ? 0 : m), "zero point"));
    if (zb)
        out.inputs.push_back(input_element(c, "BZeroPointTensor",
                                           nd_coordinate(zb->Sizes, element_count(*zb) == 1 ? 0 : n), "zero point"));
    out.facts.emplace_back("product", "batch " + std::to_string(batch) + ", row m = " + std::to_string(m) +
                                          ", column n = " + std::to_string(n) + ", K = " + std::to_string(s.K) +
                                          (s.K > 16 ? " (the first 16 pairs listed)" : ""));
}
GemmShape gemm_shape(const TensorDesc& out, const TensorDesc& a, bool trans_a) {
    GemmShape s;
    const size_t r = out.Sizes.size();
    if (r < 2 || a.Sizes.size() != r) return s;
    for (size_t i = 0; i + 2 < r; ++i) s.Batch *= out.Sizes[i];
    s.M = out.Sizes[r - 2];
    s.N = out.Sizes[r - 1];
    s.K = trans_a ? a.Sizes[r - 2] : a.Sizes[r - 1];
    return s;
}

// ---- GEMM -----------------------------------------------------------------------------------
//
// Tensor constraints: "ATensor, BTensor, CTensor, and OutputTensor must have the same DataType
// and DimensionCount" (gemm.same-data-type, gemm.same-dimension-count); "CTensor and
// OutputTensor must have the same Sizes" (gemm.c-sizes). Tensor support: 2 to 4 dimensions
// (gemm.dimension-count; 4 before DML_FEATURE_LEVEL_4_0, a support row), FLOAT32 and FLOAT16
// (gemm.data-type). The fields' Sizes sentences: gemm.inner-size, gemm.output-sizes,
// gemm.batch-sizes. TransA and TransB are DML_MATRIX_TRANSFORM values (gemm.transform).
void validate(const GEMM& d, Diagnostics& diags) {
    const TensorDesc& c = d.CTensor ? *d.CTensor : d.OutputTensor;
    require_same_data_type(
        diags, {{"ATensor", d.ATensor}, {"BTensor", d.BTensor}, {"CTensor", c}, {"OutputTensor", d.OutputTensor}},
        "gemm.same-data-type");
    if (d.OutputTensor.DataType != DataType::FLOAT32 && d.OutputTensor.DataType != DataType::FLOAT16)
        diags.error("/desc/OutputTensor/DataType", "gemm.data-type",
                    "OutputTensor is " + std::string(dmlref::name(d.OutputTensor.DataType)) +
                        "; GEMM's tensors are FLOAT32 or FLOAT16 (DML_GEMM_OPERATOR_DESC, Tensor support)");
    for (const auto& [name, v] : {std::pair<const char*, uint32_t>{"TransA", d.TransA}, {"TransB", d.TransB}})
        if (v > DML_MATRIX_TRANSFORM_TRANSPOSE)
            diags.error(desc_path(name), "gemm.transform",
                        std::string(name) + " is " + std::to_string(v) +
                            "; it must be DML_MATRIX_TRANSFORM_NONE or _TRANSPOSE");
    if (d.TransA > 1 || d.TransB > 1) return;
    const bool shapes = validate_shapes(diags, "gemm", d.ATensor, d.TransA != 0, d.BTensor, d.TransB != 0,
                                        d.OutputTensor);
    if (d.CTensor) {
        if (d.CTensor->DimensionCount() != d.OutputTensor.DimensionCount())
            diags.error("/desc/CTensor/Sizes", "gemm.same-dimension-count",
                        "CTensor has " + rank_text(*d.CTensor) + " dimensions and OutputTensor " +
                            rank_text(d.OutputTensor) +
                            "; ATensor, BTensor, CTensor and OutputTensor must have the same DimensionCount");
        else if (shapes && d.CTensor->Sizes != d.OutputTensor.Sizes)
            diags.error("/desc/CTensor/Sizes", "gemm.c-sizes",
                        "CTensor and OutputTensor must have the same Sizes (broadcast C through zero strides)");
    }
    if (d.FusedActivation) validate_fused_activation(diags, *d.FusedActivation, "gemm");
}

void evaluate(const GEMM& d, const Bindings& b) {
    if (d.OutputTensor.DataType == DataType::FLOAT16) gemm_loop<half>(d, b);
    else gemm_loop<float>(d, b);
}

// ---- Judging (docs/tolerance.md, "GEMM") ------------------------------------------------------

std::optional<Tolerance> gemm_tolerance(const GEMM& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return std::nullopt;
    const GemmShape s = gemm_shape(d.OutputTensor, d.ATensor, d.TransA != 0);
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = uint32_t(std::min<uint64_t>(s.K + (d.CTensor ? 1 : 0), std::numeric_limits<uint32_t>::max()));
    t.Why =
        "Alpha * sum_k a_k b_k + Beta * c, exact and rounded once: judged as a sum of its K products (each with Alpha) and "
        "Beta * c; dmlref diff bounds each element from its own terms, in any order, in the profile's precision, and a fused "
        "activation carries that bound through it; a NaN matches any NaN (docs/tolerance.md, GEMM)";
    return t;
}

void gemm_terms(const Case& c, std::string_view, const ArithmeticProfile& p, TermSink& sink) {
    const auto& d = get<GEMM>(c.op.Desc);
    auto input = [&](const char* f) -> std::span<const std::byte> {
        const auto it = c.inputs.find(f);
        if (it == c.inputs.end()) throw std::invalid_argument(std::string("no ") + f);
        return it->second;
    };
    const std::span<const std::byte> cbuf = d.CTensor ? input("CTensor") : std::span<const std::byte>();
    const GemmData g = read_gemm(d, input("ATensor"), input("BTensor"), d.CTensor ? &cbuf : nullptr);
    const DataType t = d.OutputTensor.DataType;
    const std::vector<DataType> ws = working_types(p, t);  // the working precisions a backend may use
    double u_max = 0;
    for (DataType w : ws) u_max = std::max(u_max, unit_roundoff(w));
    const double alpha = d.Alpha, beta = d.Beta;
    const bool activation = d.FusedActivation && d.FusedActivation->name() != "ACTIVATION_IDENTITY";
    const uint64_t count = g.s.Batch * g.s.M * g.s.N;
    for (uint64_t e = 0; e < count; ++e) {
        const uint64_t n = e % g.s.N, m = (e / g.s.N) % g.s.M, batch = e / (g.s.N * g.s.M);
        if (!activation) {
            // Term k: weight Alpha a_k (exact in float64), value b_k; a backend rounds the product,
            // and applies Alpha with one more rounding (delta: u |Alpha a_k|) unless Alpha is 1.
            for (uint64_t k = 0; k < g.s.K; ++k) {
                const double w = alpha * g.a[a_index(g.s, g.ta, batch, m, k)];
                sink.add(e, g.b[b_index(g.s, g.tb, batch, k, n)], w, alpha == 1 ? 0.0 : u_max * std::fabs(w), true);
            }
            if (d.CTensor) sink.add(e, g.c[e], beta, 0.0, beta != 1);
            continue;
        }
        // With an activation: the pre-activation value's error bound E (the sum's bound of
        // docs/tolerance.md, "The bound of a sum", with two roundings to form each term), then
        // the activation's error over [y - E, y + E] (ELEMENT_WISE_ADD1's method).
        double S = 0;
        uint64_t terms = 0;
        bool nan = false, inf = false;
        auto add = [&](double v) {
            if (std::isnan(v)) nan = true;
            else if (std::isinf(v)) inf = true;
            S += std::fabs(v);
            ++terms;
        };
        for (uint64_t k = 0; k < g.s.K; ++k)
            add(alpha * g.a[a_index(g.s, g.ta, batch, m, k)] * g.b[b_index(g.s, g.tb, batch, k, n)]);
        if (d.CTensor) add(beta * g.c[e]);
        const double y = widen(gemm_element<double>(d, g, e));
        if (nan || inf || !std::isfinite(y) || !std::isfinite(S)) {
            sink.set_computed(e, std::numeric_limits<double>::infinity(), S, uint32_t(terms), std::isnan(y),
                              std::isinf(y));
            continue;
        }
        S *= 1 + double(terms + 3) * 0x1p-52;  // rounded up: float64 products and a sum of `terms` magnitudes
        double worst = 0;
        for (DataType w : ws) {
            const double u = unit_roundoff(w);
            const double eta = p.flush_subnormals ? smallest_normal(w) : subnormal_rounding_error(w);
            // TF32 operands (the profile): each product moves by (2r + r^2) of itself more.
            const double tf = tf32_operand_error(p, t);
            const double F = (gamma_up(2, u) + 2 * tf + tf * tf) * S + 2.0 * double(terms) * eta;
            const double S2 = S + F;
            double pre = F + gamma_up(terms > 0 ? terms - 1 : 0, u) * S2;
            if (w != t)
                pre += unit_roundoff(t) * (std::fabs(y) + pre) +
                       (p.flush_subnormals ? smallest_normal(t) : subnormal_rounding_error(t));
            const double golden_pre = unit_roundoff(t) * std::fabs(y) + subnormal_rounding_error(t);
            const ActivationError r = fused_activation_error(*d.FusedActivation, y, pre + golden_pre, w,
                                                             p.flush_subnormals);
            double err = r.error;
            if (std::isfinite(err) && w != t)
                err += unit_roundoff(t) * (r.magnitude + r.error) + subnormal_rounding_error(t);
            worst = std::max(worst, err * (1 + 1e-9));
        }
        sink.set_computed(e, worst, S, uint32_t(std::min<uint64_t>(terms, std::numeric_limits<uint32_t>::max())));
    }
}

// ---- explain (docs/explain.md) ------------------------------------------------------------------

bool explain_gemm(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const auto* d = get_if<GEMM>(&c.op.Desc);
    if (!d || output != "OutputTensor") return false;
    const bool ta = d->TransA != 0, tb = d->TransB != 0;
    const GemmShape s = gemm_shape(d->OutputTensor, d->ATensor, ta);
    const uint64_t n = flat % s.N, m = (flat / s.N) % s.M, batch = flat / (s.N * s.M);
    auto find = [&](const char* f, const TensorDesc& desc) {
        const auto it = c.inputs.find(f);
        return it == c.inputs.end() ? std::vector<double>() : logical_doubles(desc, it->second);
    };
    const std::vector<double> a = find("ATensor", d->ATensor), b = find("BTensor", d->BTensor);
    for (uint64_t k = 0; k < s.K && k < 64; ++k) {
        const uint64_t ai = a_index(s, ta, batch, m, k), bi = b_index(s, tb, batch, k, n);
        ExplainedTerm term;
        term.tensor = "BTensor";
        term.index = nd_coordinate(d->BTensor.Sizes, bi);
        term.value = bi < b.size() ? b[bi] : 0;
        term.weight = ai < a.size() ? double(d->Alpha) * a[ai] : 0;
        std::string where;
        for (uint64_t x : nd_coordinate(d->ATensor.Sizes, ai)) where += (where.empty() ? "" : ",") + std::to_string(x);
        term.note = "k = " + std::to_string(k) + ": (Alpha * A[" + where + "]) * B";
        out.terms.push_back(std::move(term));
    }
    if (d->CTensor) {
        const std::vector<double> cv = find("CTensor", *d->CTensor);
        out.inputs.push_back(input_element(c, "CTensor", nd_coordinate(d->OutputTensor.Sizes, flat), "c"));
        ExplainedTerm term;
        term.tensor = "CTensor";
        term.index = nd_coordinate(d->OutputTensor.Sizes, flat);
        term.value = flat < cv.size() ? cv[flat] : 0;
        term.weight = d->Beta;
        term.note = "Beta * c";
        out.terms.push_back(std::move(term));
    }
    out.facts.emplace_back("product", "batch " + std::to_string(batch) + ", row m = " + std::to_string(m) +
                                          ", column n = " + std::to_string(n) + ", K = " + std::to_string(s.K) +
                                          (s.K > 64 ? " (the first 64 terms listed)" : "") +
                                          (ta ? ", A transposed" : "") + (tb ? ", B transposed" : ""));
    out.facts.emplace_back("formula", std::string("Alpha * sum_k a_k b_k") +
                                          (d->CTensor ? " + Beta * c" : " (no CTensor: Beta ignored)") +
                                          ", exact and rounded once" +
                                          (d->FusedActivation ? ", then FusedActivation of the rounded value" : ""));
    for (const auto& pol : info(c.op.Type).Policies) out.policies.emplace_back(pol.Name);
    return true;
}

}  // namespace dmlref::reference
