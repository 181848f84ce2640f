// DML_OPERATOR_CUMULATIVE_SUMMATION and _CUMULATIVE_PRODUCT.
//
// Spec: DML_CUMULATIVE_SUMMATION_OPERATOR_DESC and DML_CUMULATIVE_PRODUCT_OPERATOR_DESC (DirectML
// API reference); rules in docs/rules.md; the decisions in docs/golden.md, "Cumulative sum and
// product"; the bounds in docs/tolerance.md.
//
//   OutputTensor has InputTensor's DataType and Sizes. Along Axis, each line of the input is
//   traversed by ascending index (AxisDirection INCREASING) or descending index (DECREASING); the
//   output element at the k-th traversed position (k = 0, 1, ...) is the sum (product) of the
//   traversed elements 0..k, or 0..k-1 when HasExclusiveSum (HasExclusiveProduct) is TRUE: the
//   first is then the empty sum 0 (the empty product 1).
//
// Decisions (docs/golden.md; recorded as policies in golden files):
//   - Each output element is the exact value of its own prefix, rounded once: the prefix sums in
//     GMP rationals, the prefix products exactly (exact_product.hpp). Never a running float sum.
//   - A sum starts from +0 (an exclusive first element, -0 alone, cancellation: +0); a NaN, or
//     +inf with -inf, in the prefix gives the canonical NaN. A product's zero or infinity carries
//     the exclusive or of the signs; 0 times an infinity is NaN.
//   - Integers wrap to the width (two's complement). The alternative reading IntegerOverflow=Saturate
//     (docs/golden.md, "Alternative readings"; saturating_scan) clamps each output element's exact
//     prefix sum (product) once to the type's range, as a wide accumulator stored with saturation:
//     INT32 [2^31 - 1, 1, -1] gives 2^31 - 1, 2^31 - 1, 2^31 - 1. Not a running sum saturated at
//     every step (2^31 - 1, 2^31 - 1, 2^31 - 2): a saturating addition is not associative, so a
//     parallel scan built on it would depend on its tree, while a wide accumulator gives every
//     element one answer in any order; and it is the integer counterpart of the floats' "each
//     prefix exact, then rounded once" (and of REDUCE's Saturate, clamped once, at the end).
//   - OutputTensor may alias InputTensor (the pages allow in-place execution): every element is
//     read before any is written.
#include "cumulative.hpp"

#include "exact_product.hpp"
#include "exact_rational.hpp"
#include "reduction.hpp"  // product_quantity

#include "dmlref/bound.hpp"
#include "dmlref/readings.hpp"

#include <algorithm>
#include <limits>

namespace dmlref::reference {

namespace {

using SUM = DML_CUMULATIVE_SUMMATION_OPERATOR_DESC;
using PROD = DML_CUMULATIVE_PRODUCT_OPERATOR_DESC;

struct CumulativeParams {
    std::string_view op;
    const TensorDesc& input;
    const TensorDesc& output;
    uint32_t Axis;
    bool decreasing;
    uint32_t exclusive;
    std::string_view exclusive_field;
};

CumulativeParams params(const SUM& d) {
    return {"cumulative-summation",
            d.InputTensor,
            d.OutputTensor,
            d.Axis,
            d.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
            d.HasExclusiveSum,
            "HasExclusiveSum"};
}
CumulativeParams params(const PROD& d) {
    return {"cumulative-product",
            d.InputTensor,
            d.OutputTensor,
            d.Axis,
            d.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
            d.HasExclusiveProduct,
            "HasExclusiveProduct"};
}

void validate_cumulative(const CumulativeParams& p, Diagnostics& diags) {
    const std::initializer_list<Named> both = {{"InputTensor", p.input}, {"OutputTensor", p.output}};
    require_same_data_type(diags, both, rule(p.op, "same-data-type"));
    require_same_sizes(diags, both, rule(p.op, "same-sizes"));
    const uint32_t rank = p.input.DimensionCount();
    if (p.Axis >= rank)
        diags.error("/desc/Axis", rule(p.op, "axis-range"),
                    "Axis is " + std::to_string(p.Axis) + "; it must be less than InputTensor's DimensionCount (" +
                        std::to_string(rank) + ")");
    if (p.exclusive > 1)
        diags.error(desc_path(p.exclusive_field), rule(p.op, "exclusive-bool"),
                    std::string(p.exclusive_field) + " is " + std::to_string(p.exclusive) +
                        "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
}

// The lines along Axis: for each, the element offsets (through `strides`) and the logical
// row-major indices of its elements, in traversal order.
struct Line {
    std::vector<int64_t> offsets;
    std::vector<uint64_t> logical;
};

template <class F>
void for_each_line(const TensorDesc& d, const std::vector<int64_t>& strides, uint32_t axis, bool decreasing, F&& f) {
    const size_t rank = d.Sizes.size();
    const auto packed = packed_strides(d.Sizes);
    const uint32_t n = d.Sizes[axis];
    std::vector<uint32_t> c(rank, 0);
    Line line;
    line.offsets.resize(n);
    line.logical.resize(n);
    while (true) {
        int64_t off = 0, flat = 0;
        for (size_t i = 0; i < rank; ++i) {
            off += int64_t(c[i]) * strides[i];
            flat += int64_t(c[i]) * packed[i];
        }
        for (uint32_t k = 0; k < n; ++k) {
            const int64_t p = decreasing ? int64_t(n - 1 - k) : int64_t(k);
            line.offsets[k] = off + p * strides[axis];
            line.logical[k] = uint64_t(flat + p * packed[axis]);
        }
        f(line);
        size_t i = rank;
        for (; i-- > 0;) {
            if (i == axis) continue;
            if (++c[i] < d.Sizes[i]) break;
            c[i] = 0;
        }
        if (i == size_t(-1)) return;
    }
}

// IntegerOverflow=Saturate: a line's prefix values, exact, each clamped once to T's range. A sum
// is exact in int128 (each term below 2^64 in magnitude, fewer than 2^63 of them). A product
// keeps its sign and its magnitude, held at kBeyond (2^65, past every type's range) once it
// reaches it: a later factor is 0, which the product then is, or at least 1 in magnitude.
template <class T> void saturating_scan(const T* x, const Line& line, bool product, bool exclusive, std::vector<T>& r) {
    constexpr uint128_t kBeyond = uint128_t(1) << 65;
    int128_t sum = 0;
    bool negative = false;
    uint128_t magnitude = 1;
    auto clamped = [&]() {
        const int128_t v = product ? (negative ? -int128_t(magnitude) : int128_t(magnitude)) : sum;
        return T(std::clamp<int128_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    };
    for (size_t k = 0; k < line.offsets.size(); ++k) {
        const T v = x[line.offsets[k]];
        if (exclusive) r[line.logical[k]] = clamped();
        if (!product) sum += int128_t(v);
        else {
            const bool below = std::is_signed_v<T> && v < 0;
            negative = negative != below;
            if (__builtin_mul_overflow(magnitude, below ? uint128_t(-int128_t(v)) : uint128_t(v), &magnitude) ||
                magnitude > kBeyond)
                magnitude = kBeyond;
        }
        if (!exclusive) r[line.logical[k]] = clamped();
    }
}

void scan(const CumulativeParams& p, bool product, const Bindings& b) {
    const TensorView X(p.input, b.at("InputTensor"));
    const TensorView Y(p.output, b.at("OutputTensor"));
    const bool exclusive = p.exclusive != 0;
    dispatch(p.input.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        // Every value first (OutputTensor may alias InputTensor), in logical order.
        std::vector<T> r(element_count(p.output));
        const bool saturate = in_force<"IntegerOverflow", "Saturate">();
        for_each_line(p.input, X.strides, p.Axis, p.decreasing, [&](const Line& line) {
            if constexpr (std::is_integral_v<T>) {
                if (saturate) {
                    saturating_scan(x, line, product, exclusive, r);
                    return;
                }
                uint64_t acc = product ? 1 : 0;
                for (size_t k = 0; k < line.offsets.size(); ++k) {
                    const uint64_t v = as_u64(x[line.offsets[k]]);
                    if (exclusive) r[line.logical[k]] = static_cast<T>(acc);
                    acc = product ? acc * v : acc + v;
                    if (!exclusive) r[line.logical[k]] = static_cast<T>(acc);
                }
            } else if (product) {
                ExactProduct acc;
                for (size_t k = 0; k < line.offsets.size(); ++k) {
                    if (exclusive) r[line.logical[k]] = acc.template result<T>();
                    acc.multiply(x[line.offsets[k]]);
                    if (!exclusive) r[line.logical[k]] = acc.template result<T>();
                }
            } else {
                ExactRationalSum acc;
                for (size_t k = 0; k < line.offsets.size(); ++k) {
                    if (exclusive) r[line.logical[k]] = acc.template result<T>();
                    acc.add_quotient(x[line.offsets[k]], mpz_class(1));
                    if (!exclusive) r[line.logical[k]] = acc.template result<T>();
                }
            }
        });
        write_logical<T>(p.output, b.at("OutputTensor"), [&](uint64_t i) { return r[i]; });
    });
}

// Calls f(e, prefix values) for each output element e, its prefix's logical values in order.
template <class F> void for_each_prefix(const CumulativeParams& p, const std::vector<double>& x, F&& f) {
    const bool exclusive = p.exclusive != 0;
    for_each_line(p.input, packed_strides(p.input.Sizes), p.Axis, p.decreasing, [&](const Line& line) {
        std::vector<double> prefix;
        for (size_t k = 0; k < line.logical.size(); ++k) {
            if (!exclusive) prefix.push_back(x[line.logical[k]]);
            f(line.logical[k], prefix);
            if (exclusive) prefix.push_back(x[line.logical[k]]);
        }
    });
}

}  // namespace

void validate(const SUM& d, Diagnostics& diags) { validate_cumulative(params(d), diags); }
void validate(const PROD& d, Diagnostics& diags) { validate_cumulative(params(d), diags); }
void evaluate(const SUM& d, const Bindings& b) { scan(params(d), false, b); }
void evaluate(const PROD& d, const Bindings& b) { scan(params(d), true, b); }

std::vector<uint32_t> cumulative_term_counts(const OperatorDesc& desc) {
    const CumulativeParams p = get_if<SUM>(&desc) ? params(get<SUM>(desc)) : params(get<PROD>(desc));
    std::vector<uint32_t> counts(element_count(p.output));
    for_each_line(p.input, packed_strides(p.input.Sizes), p.Axis, p.decreasing, [&](const Line& line) {
        for (size_t k = 0; k < line.logical.size(); ++k) counts[line.logical[k]] = uint32_t(k + (p.exclusive ? 0 : 1));
    });
    return counts;
}

void cumulative_summation_terms(const Case& c, std::string_view, const ArithmeticProfile&, TermSink& sink) {
    const CumulativeParams p = params(get<SUM>(c.op.Desc));
    const auto it = c.inputs.find("InputTensor");
    if (it == c.inputs.end()) throw std::invalid_argument("no InputTensor");
    const std::vector<double> x = logical_doubles(p.input, it->second);
    for_each_prefix(p, x, [&](uint64_t e, const std::vector<double>& prefix) {
        for (double v : prefix) sink.add(e, v, 1.0, 0.0, false);  // copies of the inputs
    });
}

std::optional<Tolerance> tolerance(const PROD& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return std::nullopt;
    Tolerance t;
    if (!is_float(d.InputTensor.DataType)) {
        t.Why = "integer products wrap to the width (docs/golden.md, Cumulative sum and product): bit for bit";
        return t;
    }
    t.Kind = "Summed";
    t.Terms = cumulative_term_counts(d);
    t.MaxTerms = t.Terms.empty() ? 0 : *std::max_element(t.Terms.begin(), t.Terms.end());
    t.Why =
        "each element is the exact product of its prefix rounded once (docs/golden.md, Cumulative sum and product); "
        "Terms gives each element's number of factors, and dmlref diff bounds each element from its own factors "
        "(docs/tolerance.md, Cumulative sum and product)";
    return t;
}

bool explain_cumulative(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const bool product = get_if<PROD>(&c.op.Desc) != nullptr;
    if (!product && !get_if<SUM>(&c.op.Desc)) return false;
    if (output != "OutputTensor") return false;
    const CumulativeParams p = product ? params(get<PROD>(c.op.Desc)) : params(get<SUM>(c.op.Desc));
    const auto it = c.inputs.find("InputTensor");
    const std::vector<double> x = it != c.inputs.end() ? logical_doubles(p.input, it->second)
                                                       : std::vector<double>(element_count(p.input));
    for_each_line(p.input, packed_strides(p.input.Sizes), p.Axis, p.decreasing, [&](const Line& line) {
        for (size_t k = 0; k < line.logical.size(); ++k) {
            if (line.logical[k] != flat) continue;
            const size_t n = k + (p.exclusive ? 0 : 1);
            for (size_t j = 0; j < n && j < 64; ++j) {
                const auto idx = nd_coordinate(p.input.Sizes, line.logical[j]);
                out.inputs.push_back(input_element(c, "InputTensor", idx, "prefix"));
                ExplainedTerm term;
                term.tensor = "InputTensor";
                term.index = idx;
                term.value = x[line.logical[j]];
                term.note = std::string(product ? "factor " : "term ") + std::to_string(j);
                out.terms.push_back(std::move(term));
            }
            out.facts.emplace_back(
                "prefix", std::to_string(n) + (product ? " factors" : " terms") + " along Axis " +
                              std::to_string(p.Axis) +
                              (p.decreasing ? ", by descending index" : ", by ascending index") +
                              (p.exclusive ? ", the element itself excluded" : ", the element itself included"));
        }
    });
    out.facts.emplace_back("formula", product ? "the exact product of the prefix, rounded once (the empty product is 1)"
                                              : "the exact sum of the prefix, rounded once (the empty sum is +0)");
    for (const auto& pol : info(c.op.Type).Policies) out.policies.emplace_back(pol.Name);
    return true;
}

}  // namespace dmlref::reference

namespace dmlref {

void cumulative_product_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& prof,
                               TermSink& sink) {
    using namespace reference;
    const auto* d = get_if<DML_CUMULATIVE_PRODUCT_OPERATOR_DESC>(&op.Desc);
    if (!d) throw std::invalid_argument("not a CUMULATIVE_PRODUCT operator");
    const CumulativeParams p = params(*d);
    const std::vector<double> x = logical_doubles(p.input, input("InputTensor"));
    for_each_prefix(p, x, [&](uint64_t e, const std::vector<double>& prefix) {
        bool nonfinite = false, nan = false;
        double scale = 1;
        for (double v : prefix) {
            nonfinite = nonfinite || !std::isfinite(v);
            nan = nan || std::isnan(v);
            scale *= std::fabs(v);
        }
        const uint32_t n = uint32_t(prefix.size());
        if (nonfinite) {
            sink.set_computed(e, std::numeric_limits<double>::infinity(), 0, n, nan, true);
            return;
        }
        if (prefix.size() <= 1) {
            sink.set_computed(e, 0, scale, n);  // the empty product 1, or a copy
            return;
        }
        sink.set_computed(
            e,
            computed_error(prof, p.output.DataType, [&](const Arithmetic& ar) { return product_quantity(ar, prefix); }),
            scale, n);
    });
}

}  // namespace dmlref
