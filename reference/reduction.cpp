// DML_OPERATOR_REDUCE, _ARGMIN and _ARGMAX.
//
// Spec: DML_REDUCE_OPERATOR_DESC, DML_REDUCE_FUNCTION, DML_ARGMIN_OPERATOR_DESC and
// DML_ARGMAX_OPERATOR_DESC (DirectML API reference); rules in docs/rules.md; the decisions in
// docs/golden.md, "Reduction"; the bounds in docs/tolerance.md, "Reduction".
//
//   OutputTensor has InputTensor's DimensionCount and Sizes, except that every axis in Axes has
//   size 1. Output element o reduces the N input elements whose coordinates equal o's outside
//   Axes (N = the product of the reduced sizes), taken in row-major order over the reduced axes
//   in increasing axis order: that order numbers them j = 0 .. N-1, and j is the index ARGMIN and
//   ARGMAX output ("each output index is with respect to the provided input axes").
//
//   ARGMAX, ARGMIN   the index j of the largest (smallest) element; AxisDirection INCREASING gives
//                    the first of equal elements, DECREASING the last; REDUCE's ARGMAX and ARGMIN
//                    are the INCREASING ones (DML_ARGMAX_OPERATOR_DESC's remarks).
//   MAX, MIN         max(max(x1, x2), ...), D3D's max and min.
//   SUM              x1 + ... + xN                      AVERAGE   (x1 + ... + xN) / N
//   L1               |x1| + ... + |xN|                  SUM_SQUARE  x1^2 + ... + xN^2
//   L2               sqrt(x1^2 + ... + xN^2)            MULTIPLY  x1 * ... * xN
//   LOG_SUM          log(x1 + ... + xN)                 LOG_SUM_EXP  log(exp(x1) + ... + exp(xN))
//
// Decisions (docs/golden.md, "Reduction"; recorded as policies in golden files):
//   - Every float value is the exact value of the formula rounded once to the output type: sums
//     and the mean in GMP rationals, the product as an exact integer times a power of two, L2
//     exactly where the sum of squares is a square of a rational, L2, LOG_SUM and LOG_SUM_EXP
//     otherwise through Ziv's loop over MPFR (correctly_rounded.hpp). A sum starts from +0.
//   - NaN: MIN and MAX ignore a NaN operand (D3D); all NaN gives the first NaN's bits. ARGMIN and
//     ARGMAX never choose a NaN unless every element is NaN (then the first in AxisDirection's
//     order). Every other function: a NaN element gives the canonical NaN.
//   - -0 and +0: MAX prefers +0, MIN -0 (D3D's recommended min and max); for ARGMIN and ARGMAX they
//     are equal values, a tie.
//   - Integers: SUM, MULTIPLY, L1 and SUM_SQUARE wrap to the width (two's complement); AVERAGE is
//     the exact mean rounded half to even. The alternative readings IntegerOverflow=Saturate and
//     IntegerResult=TruncateTowardZero are integer_reduce_alternative. L2, LOG_SUM and LOG_SUM_EXP take float data only.
//   - The index ARGMIN and ARGMAX write must fit the output type (any integer type): an error
//     otherwise. AxisCount is 1 to DimensionCount and Axes are distinct: errors otherwise.
#include "reduction.hpp"
#include "reduction_internal.hpp"

#include "correctly_rounded.hpp"
#include "exact_product.hpp"
#include "exact_rational.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/readings.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using OT = OperatorType;

constexpr std::array<std::string_view, 12> kFunctionNames = {
    "ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"};

bool is_arg(uint32_t f) { return f == DML_REDUCE_FUNCTION_ARGMAX || f == DML_REDUCE_FUNCTION_ARGMIN; }
bool is_transcendental(uint32_t f) {
    return f == DML_REDUCE_FUNCTION_L2 || f == DML_REDUCE_FUNCTION_LOG_SUM || f == DML_REDUCE_FUNCTION_LOG_SUM_EXP;
}

// What the three descs share.
struct ReductionParams {
    std::string_view op;  // rule prefix
    const TensorDesc& input;
    const TensorDesc& output;
    uint32_t AxisCount;
    const std::vector<uint32_t>& Axes;
};

ReductionParams params(const DML_REDUCE_OPERATOR_DESC& d) {
    return {"reduce", d.InputTensor, d.OutputTensor, d.AxisCount, d.Axes};
}
template <OT T> ReductionParams params(const reduction_desc::ArgMinMax<T>& d) {
    return {T == OT::ARGMIN ? "argmin" : "argmax", d.InputTensor, d.OutputTensor, d.AxisCount, d.Axes};
}

// ---- Validation ----------------------------------------------------------------------------

// The axes: AxisCount entries, each in [0, DimensionCount - 1], distinct. False when they are not
// (the later checks index by them).
bool validate_axes(const ReductionParams& p, Diagnostics& diags) {
    const uint32_t rank = p.input.DimensionCount();
    if (p.AxisCount == 0 || p.AxisCount > rank) {
        diags.error("/desc/AxisCount", rule(p.op, "axis-count"),
                    "AxisCount is " + std::to_string(p.AxisCount) + "; it must be 1 to InputTensor's DimensionCount (" +
                        std::to_string(rank) + ")");
        return false;
    }
    if (p.Axes.size() != p.AxisCount) {
        diags.error("/desc/Axes", rule(p.op, "axes-length"),
                    "Axes has " + std::to_string(p.Axes.size()) + " entries but AxisCount is " +
                        std::to_string(p.AxisCount) + "; AxisCount determines the size of the Axes array");
        return false;
    }
    bool ok = true;
    uint32_t seen = 0;
    for (size_t i = 0; i < p.Axes.size(); ++i) {
        const uint32_t a = p.Axes[i];
        if (a >= rank) {
            diags.error(pointer_append("/desc/Axes", i), rule(p.op, "axis-range"),
                        "Axes[" + std::to_string(i) + "] is " + std::to_string(a) +
                            "; values must be in the range [0, " + std::to_string(rank) +
                            " - 1] (InputTensor.DimensionCount - 1)");
            ok = false;
        } else if (seen & (1u << a)) {
            diags.error(pointer_append("/desc/Axes", i), rule(p.op, "axes-distinct"),
                        "Axes[" + std::to_string(i) + "] is " + std::to_string(a) +
                            ", an axis already named; each axis is reduced once");
            ok = false;
        } else {
            seen |= 1u << a;
        }
    }
    return ok;
}

uint32_t axis_mask(const std::vector<uint32_t>& axes) {
    uint32_t m = 0;
    for (uint32_t a : axes) m |= 1u << a;
    return m;
}

// The output's sizes: InputTensor's with 1 in every reduced axis. False when the axes are not valid.
bool validate_shape(const ReductionParams& p, Diagnostics& diags) {
    const uint32_t rank = p.input.DimensionCount();
    const std::string out_path = pointer_append(desc_path("OutputTensor"), "Sizes");
    const bool axes_ok = validate_axes(p, diags);
    if (p.output.DimensionCount() != rank) {
        diags.error(out_path, rule(p.op, "same-dimension-count"),
                    "OutputTensor has " + std::to_string(p.output.DimensionCount()) +
                        " dimensions but InputTensor has " + std::to_string(rank) +
                        "; they must have the same DimensionCount");
        return axes_ok;
    }
    if (!axes_ok) return false;
    const uint32_t mask = axis_mask(p.Axes);
    for (uint32_t i = 0; i < rank; ++i) {
        const uint32_t want = (mask >> i) & 1 ? 1 : p.input.Sizes[i];
        if (p.output.Sizes[i] != want)
            diags.error(pointer_append(out_path, i), rule(p.op, "output-sizes"),
                        "OutputTensor.Sizes[" + std::to_string(i) + "] is " + std::to_string(p.output.Sizes[i]) +
                            " but must be " + std::to_string(want) +
                            ((mask >> i) & 1 ? " (a reduced axis has size 1)"
                                             : " (InputTensor's size: the axis is not reduced)"));
    }
    return true;
}

uint64_t reduced_count(const TensorDesc& in, const std::vector<uint32_t>& axes) {
    uint64_t n = 1;
    for (uint32_t a : axes)
        if (a < in.Sizes.size()) n *= in.Sizes[a];
    return n;
}

// ARGMIN and ARGMAX write an index: an integer OutputTensor that holds N - 1.
void validate_index_output(const ReductionParams& p, bool axes_ok, Diagnostics& diags) {
    const DataType t = p.output.DataType;
    if (!is_valid(t)) return;  // the tensor's own rule reports it
    if (is_float(t)) {
        diags.error(
            pointer_append(desc_path("OutputTensor"), "DataType"), rule(p.op, "index-type"),
            "OutputTensor's DataType is " + std::string(name(t)) + "; ARGMIN and ARGMAX output an integral data type");
        return;
    }
    if (!axes_ok) return;
    const uint64_t n = reduced_count(p.input, p.Axes);
    const uint64_t most = dispatch(t, [&]<class T>() -> uint64_t {
        if constexpr (std::is_integral_v<T>) return uint64_t(std::numeric_limits<T>::max());
        else return 0;
    });
    if (n - 1 > most)
        diags.error(pointer_append(desc_path("OutputTensor"), "DataType"), rule(p.op, "index-fits"),
                    "the reduction has " + std::to_string(n) + " elements, so an index may be " +
                        std::to_string(n - 1) + ", more than " + std::string(name(t)) + " holds (" +
                        std::to_string(most) + ")");
}

// ---- The geometry ----------------------------------------------------------------------------

// Element offsets: of the first reduced element for each output element (in output row-major
// order), of each reduced element from there (j = 0 .. N-1), and of each output element.
struct ReductionGeometry {
    std::vector<int64_t> base, reduced, out;
};

ReductionGeometry geometry(const TensorDesc& in, const std::vector<int64_t>& in_strides, const TensorDesc& out,
                           const std::vector<int64_t>& out_strides, const std::vector<uint32_t>& axes) {
    ReductionGeometry g;
    const uint32_t mask = axis_mask(axes);
    const size_t rank = in.Sizes.size();
    // Output elements: row-major over the output's sizes.
    std::vector<uint32_t> c(rank, 0);
    const uint64_t outs = element_count(out);
    g.base.reserve(outs);
    g.out.reserve(outs);
    for (uint64_t o = 0; o < outs; ++o) {
        int64_t b = 0, w = 0;
        for (size_t i = 0; i < rank; ++i) {
            b += int64_t(c[i]) * in_strides[i];
            w += int64_t(c[i]) * out_strides[i];
        }
        g.base.push_back(b);
        g.out.push_back(w);
        for (size_t i = rank; i-- > 0;) {
            if (++c[i] < out.Sizes[i]) break;
            c[i] = 0;
        }
    }
    // Reduced elements: row-major over the reduced axes, in increasing axis order.
    std::vector<uint32_t> dims;
    for (uint32_t i = 0; i < rank; ++i)
        if ((mask >> i) & 1) dims.push_back(i);
    std::vector<uint32_t> r(dims.size(), 0);
    const uint64_t n = reduced_count(in, axes);
    g.reduced.reserve(n);
    for (uint64_t j = 0; j < n; ++j) {
        int64_t off = 0;
        for (size_t k = 0; k < dims.size(); ++k) off += int64_t(r[k]) * in_strides[dims[k]];
        g.reduced.push_back(off);
        for (size_t k = dims.size(); k-- > 0;) {
            if (++r[k] < in.Sizes[dims[k]]) break;
            r[k] = 0;
        }
    }
    return g;
}

// ---- Selection: MIN, MAX, ARGMIN, ARGMAX ---------------------------------------------------

template <class T> bool is_negative_zero(T x) {
    if constexpr (std::is_integral_v<T>) return false;
    else return widen(x) == 0 && std::signbit(widen(x));
}
template <class T> bool nan_of(T x) {
    if constexpr (std::is_integral_v<T>) return false;
    else return is_nan(x);
}

// The index of the chosen element of x[0..N-1] (through offsets): the largest (max) or smallest,
// NaN never chosen unless all are NaN; `last` picks the last of equal values (DECREASING).
// `nan_wins` (ArgMinMaxNaN=NaNWins): the first NaN in that order is chosen, before any number.
template <class T>
uint64_t arg_select(const T* x, int64_t base, const std::vector<int64_t>& reduced, bool max, bool last,
                    bool nan_wins = false) {
    const uint64_t n = reduced.size();
    uint64_t best = n;  // none yet
    for (uint64_t k = 0; k < n; ++k) {
        const uint64_t j = last ? n - 1 - k : k;  // scan in AxisDirection's order; the first found wins ties
        const T v = x[base + reduced[j]];
        if (nan_of(v)) {
            if (nan_wins) return j;
            continue;
        }
        if (best == n) {
            best = j;
            continue;
        }
        const T b = x[base + reduced[best]];
        if (max ? exact_gt(v, b) : exact_lt(v, b)) best = j;
    }
    if (best == n) best = last ? n - 1 : 0;  // every element NaN
    return best;
}

// MAX or MIN: D3D's, NaN ignored, +0 above -0; all NaN: the first NaN's bits. `nan_propagates`
// (ForwardNaN=NaNPropagates): the first NaN's bits wherever there is one.
template <class T>
T min_max(const T* x, int64_t base, const std::vector<int64_t>& reduced, bool max, bool nan_propagates = false) {
    bool have = false;
    T best{};
    for (int64_t off : reduced) {
        const T v = x[base + off];
        if (nan_of(v)) {
            if (nan_propagates) return v;
            continue;
        }
        if (!have) {
            best = v;
            have = true;
            continue;
        }
        if (max ? exact_gt(v, best) : exact_lt(v, best)) best = v;
        else if (exact_compare(v, best) == std::partial_ordering::equivalent &&
                 is_negative_zero(best) != is_negative_zero(v))
            best = max ? (is_negative_zero(v) ? best : v) : (is_negative_zero(v) ? v : best);
    }
    return have ? best : x[base + reduced.front()];
}

template <class O> void store_index(std::byte* out, int64_t off, uint64_t j) {
    if constexpr (std::is_integral_v<O>) reinterpret_cast<O*>(out)[off] = static_cast<O>(j);
}

// ---- Integer arithmetic, wrapping to the width ------------------------------------------------

template <class T> T wrap(uint64_t v) { return static_cast<T>(v); }  // modulo 2^width (C++20)

template <class T> T integer_reduce(uint32_t f, const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    if (f == DML_REDUCE_FUNCTION_AVERAGE) {
        ExactRationalSum s;
        for (int64_t off : reduced) s.add(exact_value(x[base + off]));
        return s.template result<T>(mpz_class(static_cast<unsigned long>(reduced.size())));
    }
    uint64_t acc = f == DML_REDUCE_FUNCTION_MULTIPLY ? 1 : 0;
    for (int64_t off : reduced) {
        const uint64_t v = as_u64(x[base + off]);
        switch (f) {
            case DML_REDUCE_FUNCTION_SUM: acc += v; break;
            case DML_REDUCE_FUNCTION_MULTIPLY: acc *= v; break;
            case DML_REDUCE_FUNCTION_L1: acc += std::is_signed_v<T> && int64_t(v) < 0 ? uint64_t(0) - v : v; break;
            case DML_REDUCE_FUNCTION_SUM_SQUARE: acc += v * v; break;
            default: break;
        }
    }
    return wrap<T>(acc);
}

// The alternative readings of the integer functions (docs/golden.md, "Alternative readings"):
// IntegerOverflow=Saturate, the exact SUM, MULTIPLY, L1 or SUM_SQUARE (a wide accumulator)
// clamped to T's range once, at the end; IntegerResult=TruncateTowardZero, AVERAGE's exact sum
// divided by N and truncated toward zero (always inside the range). A magnitude at or beyond
// kBeyond (2^65, past every type's range) is held there: later terms of L1 and SUM_SQUARE only
// add, and later factors of MULTIPLY are 0 (which the product becomes) or at least 1 in magnitude.
template <class T>
T integer_reduce_alternative(uint32_t f, const T* x, int64_t base, const std::vector<int64_t>& reduced, bool saturate,
                             bool truncate) {
    constexpr uint128_t kBeyond = uint128_t(1) << 65;
    auto magnitude = [](T v) { return std::is_signed_v<T> && v < 0 ? uint128_t(-int128_t(v)) : uint128_t(v); };
    if (f == DML_REDUCE_FUNCTION_AVERAGE) {
        if (!truncate) return integer_reduce(f, x, base, reduced);
        int128_t s = 0;  // exact: each term below 2^64 in magnitude
        for (int64_t off : reduced) s += int128_t(x[base + off]);
        return T(s / int128_t(reduced.size()));  // C++: toward zero
    }
    if (!saturate) return integer_reduce(f, x, base, reduced);
    bool negative = false;
    uint128_t m = f == DML_REDUCE_FUNCTION_MULTIPLY ? 1 : 0;
    int128_t sum = 0;
    for (int64_t off : reduced) {
        const T v = x[base + off];
        switch (f) {
            case DML_REDUCE_FUNCTION_SUM: sum += int128_t(v); break;
            case DML_REDUCE_FUNCTION_MULTIPLY:
                negative = negative != (std::is_signed_v<T> && v < 0);
                if (__builtin_mul_overflow(m, magnitude(v), &m) || m > kBeyond) m = kBeyond;
                break;
            case DML_REDUCE_FUNCTION_L1: m = std::min(m + magnitude(v), kBeyond); break;
            case DML_REDUCE_FUNCTION_SUM_SQUARE:  // a square below 2^128, held at kBeyond before the sum
                m = std::min(m + std::min(magnitude(v) * magnitude(v), kBeyond), kBeyond);
                break;
            default: break;
        }
    }
    if (f == DML_REDUCE_FUNCTION_SUM) {
        negative = sum < 0;
        m = uint128_t(negative ? -sum : sum);
    }
    if (negative && m != 0) {
        const uint128_t lowest = uint128_t(-int128_t(std::numeric_limits<T>::min()));  // 0 for unsigned T
        return m >= lowest ? std::numeric_limits<T>::min() : T(-int128_t(m));
    }
    return m >= uint128_t(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max() : T(m);
}

// ---- Floats: exact values rounded once ---------------------------------------------------------

struct NonFinite {
    bool nan = false, pos_inf = false, neg_inf = false;
};

template <class T> T sum_like(uint32_t f, const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    ExactRationalSum s;
    for (int64_t off : reduced) {
        const T v = x[base + off];
        if (is_nan(v)) {
            s.add_nan();
            continue;
        }
        const double d = widen(v);
        if (std::isinf(d)) {
            s.add_infinity(f == DML_REDUCE_FUNCTION_SUM || f == DML_REDUCE_FUNCTION_AVERAGE ? d < 0 : false);
            continue;
        }
        const mpq_class q(d);
        switch (f) {
            case DML_REDUCE_FUNCTION_L1: s.add(abs(q)); break;
            case DML_REDUCE_FUNCTION_SUM_SQUARE: s.add(q * q); break;
            default: s.add(q); break;
        }
    }
    if (f == DML_REDUCE_FUNCTION_AVERAGE)
        return s.template result<T>(mpz_class(static_cast<unsigned long>(reduced.size())));
    return s.template result<T>();
}

// The exact product rounded once (exact_product.hpp).
template <class T> T product(const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    ExactProduct p;
    for (int64_t off : reduced) p.multiply(x[base + off]);
    return p.template result<T>();
}

// MPFR's exponent of a non-zero value: |y| in [2^(EXP-1), 2^EXP).
long exp_of(mpfr_srcptr y) { return long(mpfr_get_exp(y)); }

template <class T> T l2(const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    mpq_class s = 0;
    bool inf = false;
    for (int64_t off : reduced) {
        const T v = x[base + off];
        if (is_nan(v)) return canonical_nan<T>();
        const double d = widen(v);
        if (std::isinf(d)) {
            inf = true;
            continue;
        }
        const mpq_class q(d);
        s += q * q;
    }
    if (inf) return round_to_float<T>(std::numeric_limits<double>::infinity());
    if (sgn(s) == 0) return T(0);
    if (const auto root = exact_power(s, 0.5)) return round_rational<T>(*root);
    return correctly_rounded<T>([&](mpfr_ptr y, mpfr_prec_t w) -> long {
        mpfr_t a;
        mpfr_init2(a, w + 2);
        mpfr_set_q(a, s.get_mpq_t(), MPFR_RNDN);  // relative error below 2^-(w+2)
        mpfr_sqrt(y, a, MPFR_RNDN);               // halves it, then half an ULP of w bits
        mpfr_clear(a);
        return long(w) - 2;
    });
}

// log(s) for an exact rational s > 0.
template <class T> T log_of(const mpq_class& s) {
    return correctly_rounded<T>([&](mpfr_ptr y, mpfr_prec_t w) -> long {
        mpfr_t a;
        mpfr_init2(a, w + 8);
        const int t1 = mpfr_set_q(a, s.get_mpq_t(), MPFR_RNDN);  // relative error below 2^-(w+8)
        const int t2 = mpfr_log(y, a, MPFR_RNDN);                // absolute error below 2^-(w+7), then half an ULP
        mpfr_clear(a);
        if (t1 == 0 && t2 == 0) return kExact;
        if (mpfr_zero_p(y)) return 0;
        // |error| < 2^-(w+6) + 2^(EXP - w) <= 2^(max(-6, EXP) - w + 1)
        return exp_of(y) - (std::max(-6L, exp_of(y)) - long(w) + 1);
    });
}

template <class T> T log_sum(const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    mpq_class s = 0;
    NonFinite nf;
    for (int64_t off : reduced) {
        const T v = x[base + off];
        if (is_nan(v)) {
            nf.nan = true;
            continue;
        }
        const double d = widen(v);
        if (std::isinf(d)) {
            (d > 0 ? nf.pos_inf : nf.neg_inf) = true;
            continue;
        }
        s += mpq_class(d);
    }
    if (nf.nan || (nf.pos_inf && nf.neg_inf) || nf.neg_inf) return canonical_nan<T>();  // log(-inf) is NaN
    if (nf.pos_inf) return round_to_float<T>(std::numeric_limits<double>::infinity());
    if (sgn(s) < 0) return canonical_nan<T>();
    if (sgn(s) == 0) return round_to_float<T>(-std::numeric_limits<double>::infinity());
    return log_of<T>(s);
}

template <class T> T log_sum_exp(const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    std::vector<double> v;
    bool pos_inf = false;
    for (int64_t off : reduced) {
        const T e = x[base + off];
        if (is_nan(e)) return canonical_nan<T>();
        const double d = widen(e);
        if (d == std::numeric_limits<double>::infinity()) pos_inf = true;
        else if (d != -std::numeric_limits<double>::infinity()) v.push_back(d);  // exp(-inf) = 0: no term
    }
    if (pos_inf) return round_to_float<T>(std::numeric_limits<double>::infinity());
    if (v.empty()) return round_to_float<T>(-std::numeric_limits<double>::infinity());
    const double m = *std::max_element(v.begin(), v.end());
    // log(sum exp(x_i)) = m + log(sum exp(x_i - m)); every exp is at most 1, the sum in [1, n].
    const long guard = 10 + long(std::ceil(std::log2(double(v.size()) + 2)));
    return correctly_rounded<T>([&](mpfr_ptr y, mpfr_prec_t w) -> long {
        const mpfr_prec_t p = w + guard;
        mpfr_t diff, t, sum, l, mm;
        mpfr_inits2(p, t, sum, l, (mpfr_ptr) nullptr);
        mpfr_init2(diff, 2200);  // x_i - m of two doubles, exactly
        mpfr_init2(mm, 64);
        mpfr_set_d(mm, m, MPFR_RNDN);
        mpfr_set_ui(sum, 0, MPFR_RNDN);
        bool exact = true;
        for (double d : v) {
            mpfr_set_d(diff, d, MPFR_RNDN);
            mpfr_sub_d(diff, diff, m, MPFR_RNDN);
            exact = mpfr_exp(t, diff, MPFR_RNDN) == 0 && exact;  // relative error below 2^-p each
            exact = mpfr_add(sum, sum, t, MPFR_RNDN) == 0 && exact;
        }
        exact = mpfr_log(l, sum, MPFR_RNDN) == 0 && exact;    // |error| <= (n + 2) 2^-p + 2^(EXP(l) - p)
        exact = mpfr_add(y, mm, l, MPFR_RNDN) == 0 && exact;  // then half an ULP of w bits
        mpfr_clears(diff, t, sum, l, mm, (mpfr_ptr) nullptr);
        if (exact) return kExact;
        if (mpfr_zero_p(y)) return 0;
        // (n + 2) 2^-p <= 2^-(w + 10); log(sum) < 2^guard, so 2^(EXP(l) - p) <= 2^-w ... below
        // 2^-(w - 1) in all; the final rounding 2^(EXP(y) - w - 1).
        return exp_of(y) - (std::max(-1L, exp_of(y)) - long(w) + 1);
    });
}

template <class T> T float_reduce(uint32_t f, const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    switch (f) {
        case DML_REDUCE_FUNCTION_MULTIPLY: return product(x, base, reduced);
        case DML_REDUCE_FUNCTION_L2: return l2(x, base, reduced);
        case DML_REDUCE_FUNCTION_LOG_SUM: return log_sum(x, base, reduced);
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP: return log_sum_exp(x, base, reduced);
        default: return sum_like(f, x, base, reduced);
    }
}

// ---- The loops -------------------------------------------------------------------------------

void reduce(uint32_t f, const TensorDesc& in, const TensorDesc& out, const std::vector<uint32_t>& axes,
            const Bindings& b, bool last) {
    const TensorView X(in, b.at("InputTensor"));
    const TensorView Y(out, b.at("OutputTensor"));
    const ReductionGeometry g = geometry(in, X.strides, out, Y.strides, axes);
    // The alternative readings (docs/golden.md, "Alternative readings"), each where it decides.
    const bool nan_wins = in_force<"ArgMinMaxNaN", "NaNWins">();
    const bool canonical_all_nan = in_force<"ReduceMinMaxAllNaN", "CanonicalNaN">();
    const bool nan_propagates = in_force<"ForwardNaN", "NaNPropagates">();
    const bool saturate = in_force<"IntegerOverflow", "Saturate">();
    const bool truncate = in_force<"IntegerResult", "TruncateTowardZero">();
    // Every output element is computed before any is written: OutputTensor never aliases the
    // input (the pages allow no in-place execution), but the values are read first anyway.
    dispatch(in.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        if (is_arg(f)) {
            std::vector<uint64_t> idx(g.base.size());
            for (size_t o = 0; o < g.base.size(); ++o)
                idx[o] = arg_select(x, g.base[o], g.reduced, f == DML_REDUCE_FUNCTION_ARGMAX, last, nan_wins);
            dispatch(out.DataType, [&]<class O>() {
                for (size_t o = 0; o < idx.size(); ++o) store_index<O>(Y.base, g.out[o], idx[o]);
            });
            return;
        }
        std::vector<T> r(g.base.size());
        for (size_t o = 0; o < g.base.size(); ++o) {
            if (f == DML_REDUCE_FUNCTION_MAX || f == DML_REDUCE_FUNCTION_MIN) {
                r[o] = min_max(x, g.base[o], g.reduced, f == DML_REDUCE_FUNCTION_MAX, nan_propagates);
                if constexpr (!std::is_integral_v<T>)
                    if (canonical_all_nan && is_nan(r[o])) r[o] = canonical_nan<T>();  // only when all are NaN
            } else if constexpr (std::is_integral_v<T>) {
                r[o] = saturate || truncate ? integer_reduce_alternative(f, x, g.base[o], g.reduced, saturate, truncate)
                                            : integer_reduce(f, x, g.base[o], g.reduced);
            } else r[o] = float_reduce(f, x, g.base[o], g.reduced);
        }
        T* y = Y.data<T>();
        for (size_t o = 0; o < r.size(); ++o) y[g.out[o]] = r[o];
    });
}

bool valid_reduce(const DML_REDUCE_OPERATOR_DESC& d) {
    Diagnostics diags;
    validate(d, diags);
    return !diags.has_errors();
}

}  // namespace

// ---- The operators ---------------------------------------------------------------------------

std::string_view reduce_function_name(uint32_t function) {
    return function < kFunctionNames.size() ? kFunctionNames[function] : "";
}

void validate(const DML_REDUCE_OPERATOR_DESC& d, Diagnostics& diags) {
    const ReductionParams p = params(d);
    const bool axes_ok = validate_shape(p, diags);
    if (is_arg(d.Function)) {
        validate_index_output(p, axes_ok, diags);
    } else {
        require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                               "reduce.same-data-type");
        if (is_transcendental(d.Function) && is_valid(d.InputTensor.DataType) && !is_float(d.InputTensor.DataType))
            diags.error(pointer_append(desc_path("InputTensor"), "DataType"), "reduce.function-data-type",
                        "DML_REDUCE_FUNCTION_" + std::string(reduce_function_name(d.Function)) +
                            " takes FLOAT32 or FLOAT16 data "
                            "(and FLOAT64, which dmlref adds); InputTensor's DataType is " +
                            std::string(name(d.InputTensor.DataType)));
    }
}

void evaluate(const DML_REDUCE_OPERATOR_DESC& d, const Bindings& b) {
    // ReduceArgTies=LastIndex (docs/golden.md, "Alternative readings"): ARGMAX and ARGMIN take the
    // last of equal elements, as the DECREASING ones do.
    reduce(d.Function, d.InputTensor, d.OutputTensor, d.Axes, b, in_force<"ReduceArgTies", "LastIndex">());
}

template <OperatorType T> void validate(const reduction_desc::ArgMinMax<T>& d, Diagnostics& diags) {
    const ReductionParams p = params(d);
    validate_index_output(p, validate_shape(p, diags), diags);
}

template <OperatorType T> void evaluate(const reduction_desc::ArgMinMax<T>& d, const Bindings& b) {
    const uint32_t f = T == OT::ARGMAX ? DML_REDUCE_FUNCTION_ARGMAX : DML_REDUCE_FUNCTION_ARGMIN;
    reduce(f, d.InputTensor, d.OutputTensor, d.Axes, b, d.AxisDirection == DML_AXIS_DIRECTION_DECREASING);
}

template <class T> T reduce_sum_element(const T* x, int64_t base, const std::vector<int64_t>& reduced) {
    return sum_like(DML_REDUCE_FUNCTION_SUM, x, base, reduced);
}
template float reduce_sum_element(const float*, int64_t, const std::vector<int64_t>&);
template half reduce_sum_element(const half*, int64_t, const std::vector<int64_t>&);

template void validate(const DML_ARGMIN_OPERATOR_DESC&, Diagnostics&);
template void validate(const DML_ARGMAX_OPERATOR_DESC&, Diagnostics&);
template void evaluate(const DML_ARGMIN_OPERATOR_DESC&, const Bindings&);
template void evaluate(const DML_ARGMAX_OPERATOR_DESC&, const Bindings&);

uint64_t reduction_terms(const OperatorDesc& desc) {
    if (auto* d = get_if<DML_REDUCE_OPERATOR_DESC>(&desc)) return reduced_count(d->InputTensor, d->Axes);
    if (auto* d = get_if<DML_ARGMIN_OPERATOR_DESC>(&desc)) return reduced_count(d->InputTensor, d->Axes);
    if (auto* d = get_if<DML_ARGMAX_OPERATOR_DESC>(&desc)) return reduced_count(d->InputTensor, d->Axes);
    return 1;
}

std::optional<Tolerance> tolerance(const DML_REDUCE_OPERATOR_DESC& d, std::string_view output) {
    if (output != "OutputTensor" || !valid_reduce(d)) return std::nullopt;
    Tolerance t;
    const uint32_t f = d.Function;
    if (is_arg(f) || f == DML_REDUCE_FUNCTION_MAX || f == DML_REDUCE_FUNCTION_MIN) {
        t.Why = "a selected element or its index: bit for bit (docs/golden.md, Reduction)";
        return t;
    }
    if (!is_float(d.InputTensor.DataType)) {
        t.Why =
            "integer reductions are exact (sums and products wrap to the width, the mean is rounded half to even; "
            "docs/golden.md, Reduction): bit for bit";
        return t;
    }
    const uint64_t n = reduced_count(d.InputTensor, d.Axes);
    t.Kind = "Summed";
    t.MaxTerms = uint32_t(std::min<uint64_t>(n, UINT32_MAX));
    t.Why = "each element is the exact value of DML_REDUCE_FUNCTION_" + std::string(reduce_function_name(f)) +
            " over its " + std::to_string(n) +
            " input elements, rounded once (docs/golden.md, Reduction); dmlref diff bounds each element "
            "from its own inputs (docs/tolerance.md, Reduction)";
    return t;
}

std::vector<uint64_t> reduction_ties(const Operator& op, std::span<const std::byte> input) {
    const TensorDesc* in = nullptr;
    const TensorDesc* out = nullptr;
    const std::vector<uint32_t>* axes = nullptr;
    bool max = true;
    if (auto* d = get_if<DML_REDUCE_OPERATOR_DESC>(&op.Desc)) {
        const uint32_t f = d->Function;
        if (!is_arg(f) && f != DML_REDUCE_FUNCTION_MAX && f != DML_REDUCE_FUNCTION_MIN) return {};
        in = &d->InputTensor;
        out = &d->OutputTensor;
        axes = &d->Axes;
        max = f == DML_REDUCE_FUNCTION_ARGMAX || f == DML_REDUCE_FUNCTION_MAX;
    } else if (auto* d = get_if<DML_ARGMIN_OPERATOR_DESC>(&op.Desc)) {
        in = &d->InputTensor;
        out = &d->OutputTensor;
        axes = &d->Axes;
        max = false;
    } else if (auto* d = get_if<DML_ARGMAX_OPERATOR_DESC>(&op.Desc)) {
        in = &d->InputTensor;
        out = &d->OutputTensor;
        axes = &d->Axes;
    } else return {};
    const TensorView X(*in, input);
    const ReductionGeometry g = geometry(*in, X.strides, *out, packed_strides(out->Sizes), *axes);
    std::vector<uint64_t> r;
    dispatch(in->DataType, [&]<class T>() {
        const T* x = X.data<T>();
        for (size_t o = 0; o < g.base.size(); ++o) {
            const uint64_t j = arg_select(x, g.base[o], g.reduced, max, false);
            const T best = x[g.base[o] + g.reduced[j]];
            if (nan_of(best)) continue;
            int equal = 0;
            for (int64_t off : g.reduced)
                equal += exact_compare(x[g.base[o] + off], best) == std::partial_ordering::equivalent;
            if (equal >= 2) r.push_back(o);
        }
    });
    return r;
}

// ---- explain ------------------------------------------------------------------------------------

bool explain_reduction(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const TensorDesc* in = nullptr;
    const TensorDesc* od = nullptr;
    const std::vector<uint32_t>* axes = nullptr;
    uint32_t f = 0;
    bool last = false;
    if (auto* d = get_if<DML_REDUCE_OPERATOR_DESC>(&c.op.Desc)) {
        in = &d->InputTensor;
        od = &d->OutputTensor;
        axes = &d->Axes;
        f = d->Function;
    } else if (auto* d = get_if<DML_ARGMIN_OPERATOR_DESC>(&c.op.Desc)) {
        in = &d->InputTensor;
        od = &d->OutputTensor;
        axes = &d->Axes;
        f = DML_REDUCE_FUNCTION_ARGMIN;
        last = d->AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    } else if (auto* d = get_if<DML_ARGMAX_OPERATOR_DESC>(&c.op.Desc)) {
        in = &d->InputTensor;
        od = &d->OutputTensor;
        axes = &d->Axes;
        f = DML_REDUCE_FUNCTION_ARGMAX;
        last = d->AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    } else return false;
    if (output != "OutputTensor") return false;
    const std::vector<uint64_t> at = nd_coordinate(od->Sizes, flat);
    const uint32_t mask = axis_mask(*axes);
    std::vector<uint32_t> dims;
    for (uint32_t i = 0; i < in->Sizes.size(); ++i)
        if ((mask >> i) & 1) dims.push_back(i);
    const uint64_t n = reduced_count(*in, *axes);
    const uint64_t shown = std::min<uint64_t>(n, 64);
    std::vector<uint64_t> r(dims.size(), 0);
    const auto it = c.inputs.find("InputTensor");
    const std::vector<double> values = it != c.inputs.end() ? logical_doubles(*in, it->second) : std::vector<double>{};
    for (uint64_t j = 0; j < shown; ++j) {
        std::vector<uint64_t> idx = at;
        for (size_t k = 0; k < dims.size(); ++k) idx[dims[k]] = r[k];
        out.inputs.push_back(input_element(c, "InputTensor", idx, "j=" + std::to_string(j)));
        if (!values.empty()) {
            uint64_t flat_in = 0;
            for (size_t i = 0; i < idx.size(); ++i) flat_in = flat_in * in->Sizes[i] + idx[i];
            ExplainedTerm term;
            term.tensor = "InputTensor";
            term.index = idx;
            term.value = values[flat_in];
            term.note = "term j=" + std::to_string(j);
            out.terms.push_back(std::move(term));
        }
        for (size_t k = dims.size(); k-- > 0;) {
            if (++r[k] < in->Sizes[dims[k]]) break;
            r[k] = 0;
        }
    }
    out.facts.emplace_back("function", std::string(reduce_function_name(f)));
    out.facts.emplace_back("elements", std::to_string(n) + " (the product of the reduced sizes)" +
                                           (shown < n ? "; the first " + std::to_string(shown) + " are listed" : ""));
    if (is_arg(f))
        out.facts.emplace_back(
            "ties", last ? "the last of equal elements (DECREASING)" : "the first of equal elements (INCREASING)");
    // The policies that decide this function's value (docs/golden.md, "Reduction").
    const bool integer = !is_float(in->DataType);
    std::vector<std::string> p;
    if (is_arg(f)) {
        p = {"ArgMinMaxNaN", "ArgMinMaxSignedZero", "ArgMinMaxIndex"};
        if (c.op.Type == OT::REDUCE) p.push_back("ReduceArgTies");
    } else if (f == DML_REDUCE_FUNCTION_MAX || f == DML_REDUCE_FUNCTION_MIN) {
        p = {"ForwardNaN", "SignedZeroMinMax", "ReduceMinMaxAllNaN"};
    } else if (integer) {
        p = {f == DML_REDUCE_FUNCTION_AVERAGE ? "IntegerResult" : "IntegerOverflow"};
    } else {
        p = {"ComputedValue", "NonFiniteSum"};
        if (f == DML_REDUCE_FUNCTION_AVERAGE) p.push_back("AverageDivisor");
        if (f == DML_REDUCE_FUNCTION_MULTIPLY) p.push_back("ProductSign");
        else if (f == DML_REDUCE_FUNCTION_LOG_SUM) p.push_back("ReduceLogDomain");
        else if (f != DML_REDUCE_FUNCTION_LOG_SUM_EXP) p.push_back("ZeroResult");
    }
    p.push_back("Subnormals");
    out.policies.insert(out.policies.end(), p.begin(), p.end());
    return true;
}

}  // namespace dmlref::reference

// ---- The bounds of REDUCE's float outputs (docs/tolerance.md, "Reduction") -----------------------

namespace dmlref {

namespace {

using namespace reference;

}  // namespace

// A product of n factors in any order (one working type): relative error gamma_(n-1); where a
// partial product may fall below the smallest normal, each of the n - 1 roundings may also lose
// up to eta / 2 absolutely, amplified by at most the product of the factors above 1. Where the
// product of the factors above 1 may overflow the working type, some order's running product
// is infinite (and a zero factor after it gives inf * 0 = NaN): no finite bound.
Quantity product_quantity(const Arithmetic& ar, const std::vector<double>& x) {
    const DataType a = ar.type();
    const double u = unit_roundoff(a), eta = smallest_subnormal(a), lambda = smallest_normal(a);
    const double largest = a == DataType::FLOAT16   ? 65504.0
                           : a == DataType::FLOAT32 ? double(std::numeric_limits<float>::max())
                                                    : std::numeric_limits<double>::max();
    double p = 1, hi = 1, lo = 1;
    bool zero = false;
    for (double v : x) {
        const double m = std::fabs(v);
        if (m == 0) {
            zero = true;
            continue;
        }
        p *= m;
        if (m > 1) hi *= m;
        else lo *= m;
    }
    const uint64_t n = x.size();
    const double g = gamma_up(n > 0 ? n - 1 : 0, u);
    if (!std::isfinite(hi) || !std::isfinite(g) || !(up(hi * up(1 + g)) <= largest)) return Quantity{-kInf, kInf, kInf};
    if (zero) return Quantity{0, 0, 0};  // no order overflows, and every order multiplies by the zero: exactly 0
    double err = up(g * up(p));
    if (up(lo) * (1 - g) < lambda || p < lambda) err = up(err + up(double(n) * up(eta * up(hi * (1 + g)))));
    return Quantity{-up(p), up(p), err};
}

namespace {

// log(s) of a quantity s > 0: the argument's error moves log by at most e / (m - e); log itself
// within the stated log2 accuracy (3 ULP relative, or 8 u absolute near 1) times ln 2, rounded.
Quantity log_quantity(const Arithmetic& ar, const Quantity& s) {
    const double m = s.mig();
    if (!(m > s.err) || !std::isfinite(s.err)) return Quantity{-kInf, kInf, kInf};
    const double u = unit_roundoff(ar.type()), eta = smallest_subnormal(ar.type());
    const double lo = std::log(m), hi = std::log(s.mag());
    const double r = up(std::max(std::fabs(lo), std::fabs(hi)) * (1 + 0x1p-40));
    const double arg = up(up(s.err / (m - s.err)) * (1 + 0x1p-40));
    const double own = up(up(2 * kStatedAccuracy.log2 * u * r) + up(kStatedAccuracy.log2_near_one * u) + up(2 * u * r) +
                          4 * eta);
    return Quantity{lo, hi, up(arg + own)};
}

// exp(x) within the stated exp2 accuracy, with the rounding of x * log2(e) (|x| u relative).
Quantity exp_quantity(const Arithmetic& ar, double x) {
    const double u = unit_roundoff(ar.type()), eta = smallest_subnormal(ar.type());
    const double v = std::exp(x);
    if (!std::isfinite(v)) return Quantity{0, kInf, kInf};
    const double rel = up(up(2 * kStatedAccuracy.exp2 * u) + up(2 * std::fabs(x) * u) + 0x1p-40);
    const double m = up(v * (1 + 0x1p-40));
    return Quantity{v * (1 - 0x1p-40), m, up(up(rel * m) + 2 * eta)};
}

void bound_element(uint32_t f, uint64_t e, const std::vector<double>& x, DataType t, const ArithmeticProfile& prof,
                   TermSink& sink) {
    const uint32_t n = uint32_t(std::min<size_t>(x.size(), UINT32_MAX));
    double scale = 0;
    bool nan = false, pos = false, neg = false;
    for (double v : x) {
        nan = nan || std::isnan(v);
        pos = pos || v == kInf;
        neg = neg || v == -kInf;
        if (std::isfinite(v)) scale += std::fabs(v);
    }
    if (nan || pos || neg) {
        // Judged as a non-finite value (LOG_SUM_EXP's -inf elements add nothing: no bound then).
        sink.set_computed(e, kInf, scale, n, nan || (pos && neg), true);
        return;
    }
    const double error = computed_error(prof, t, [&](const Arithmetic& ar) -> Quantity {
        std::vector<Quantity> in;
        for (double v : x) in.push_back(ar.input(v));
        switch (f) {
            case DML_REDUCE_FUNCTION_SUM: return ar.sum(in);
            case DML_REDUCE_FUNCTION_L1: {
                for (auto& q : in)
                    q = Quantity{std::fabs(q.lo) < std::fabs(q.hi) ? std::fabs(q.lo) : std::fabs(q.hi), q.mag(), q.err};
                return ar.sum(in);
            }
            case DML_REDUCE_FUNCTION_SUM_SQUARE:
            case DML_REDUCE_FUNCTION_L2: {
                std::vector<Quantity> sq;
                bool all_zero = true;
                for (const auto& q : in) {
                    sq.push_back(ar.mul(q, q));
                    all_zero = all_zero && q.mag() == 0;
                }
                const Quantity s = ar.sum(sq);
                if (f == DML_REDUCE_FUNCTION_SUM_SQUARE) return s;
                if (all_zero) return Quantity{0, 0, 0};  // sqrt(0) = 0 in every order
                return ar.pow(s, 0.5);                   // a sqrt is no worse than the stated pow
            }
            case DML_REDUCE_FUNCTION_AVERAGE: {
                const Quantity D = ar.constant(double(x.size()));
                if (x.size() == 1) return in.front();
                std::vector<Quantity> quotients, products;
                for (const auto& q : in) {
                    quotients.push_back(ar.div(q, D));
                    products.push_back(ar.mul(q, ar.reciprocal(D)));
                }
                const Quantity s = ar.sum(in);
                Quantity w = worst(ar.sum(quotients), ar.sum(products));
                w = worst(w, worst(ar.div(s, D), ar.mul(s, ar.reciprocal(D))));
                return w;
            }
            case DML_REDUCE_FUNCTION_MULTIPLY: return product_quantity(ar, x);
            case DML_REDUCE_FUNCTION_LOG_SUM: return log_quantity(ar, ar.sum(in));
            case DML_REDUCE_FUNCTION_LOG_SUM_EXP: {
                // Two variants: the sum of exp(x_i) (while it stays finite in A), and with the
                // largest element m taken out, m + log(sum exp(x_i - m)).
                const double m = *std::max_element(x.begin(), x.end());
                std::vector<Quantity> shifted, plain;
                bool finite = true;
                for (double v : x) {
                    const Quantity d = ar.add(ar.input(v), ar.neg(ar.input(m)));
                    const Quantity t1 = exp_quantity(ar, d.hi);
                    // d's own rounding error moves exp by a factor e^(d.err)
                    shifted.push_back(
                        Quantity{t1.lo, t1.hi, up(t1.err + up(t1.hi * up(std::expm1(d.err) * (1 + 0x1p-40))))});
                    const Quantity t2 = exp_quantity(ar, v);
                    finite = finite && std::isfinite(t2.err);
                    plain.push_back(t2);
                }
                Quantity q = ar.add(ar.input(m), log_quantity(ar, ar.sum(shifted)));
                if (finite) {
                    const Quantity p = log_quantity(ar, ar.sum(plain));
                    if (std::isfinite(p.err)) q = worst(q, p);  // an overflowing sum gives infinity, not a finite value
                }
                return q;
            }
            default: return Quantity{-kInf, kInf, kInf};
        }
    });
    sink.set_computed(e, error, scale, n);
}

}  // namespace

void reduction_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    const auto* d = get_if<DML_REDUCE_OPERATOR_DESC>(&op.Desc);
    if (!d) throw std::invalid_argument("not a REDUCE operator");
    const std::vector<double> x = logical_doubles(d->InputTensor, input("InputTensor"));
    const auto in_packed = packed_strides(d->InputTensor.Sizes);
    const auto out_packed = packed_strides(d->OutputTensor.Sizes);
    // Offsets in the packed logical layout; output elements in row-major order.
    const uint32_t mask = [&] {
        uint32_t m = 0;
        for (uint32_t a : d->Axes) m |= 1u << a;
        return m;
    }();
    const size_t rank = d->InputTensor.Sizes.size();
    std::vector<uint32_t> dims;
    for (uint32_t i = 0; i < rank; ++i)
        if ((mask >> i) & 1) dims.push_back(i);
    const uint64_t outs = element_count(d->OutputTensor);
    std::vector<uint32_t> c(rank, 0);
    std::vector<double> terms;
    for (uint64_t e = 0; e < outs; ++e) {
        terms.clear();
        int64_t base = 0;
        for (size_t i = 0; i < rank; ++i) base += int64_t(c[i]) * in_packed[i];
        std::vector<uint32_t> r(dims.size(), 0);
        do {
            int64_t off = base;
            for (size_t k = 0; k < dims.size(); ++k) off += int64_t(r[k]) * in_packed[dims[k]];
            terms.push_back(x[size_t(off)]);
            size_t k = dims.size();
            for (; k-- > 0;) {
                if (++r[k] < d->InputTensor.Sizes[dims[k]]) break;
                r[k] = 0;
            }
            if (k == size_t(-1)) break;
        } while (true);
        bound_element(d->Function, e, terms, d->OutputTensor.DataType, p, sink);
        for (size_t i = rank; i-- > 0;) {
            if (++c[i] < d->OutputTensor.Sizes[i]) break;
            c[i] = 0;
        }
    }
    (void)out_packed;
}

}  // namespace dmlref
