// DML_OPERATOR_LP_POOLING and _LP_POOLING1.
//
// Spec: DML_LP_POOLING_OPERATOR_DESC and DML_LP_POOLING1_OPERATOR_DESC (DirectML API reference):
// "Computes the Lp-normalized value across the elements within the sliding window over the input
// tensor", P "the value of the P variable in the Lp-normalization function
// Y = (X1^P + X2^P + ... + Xn^P) ^ (1/P), where X1 to Xn representing each of the values within the
// sliding window", "either set to 1 or 2" in common use; LP_POOLING1 adds Dilations ("equivalent to"
// LP_POOLING with Dilations 1). Rules in docs/rules.md; open questions in docs/golden.md, "Lp pooling".
//
//   Tensors are {N, C, spatial...}; the window walk is average pooling's
//   (reference/pooling_geometry.hpp): window element k of output o reads input position
//   o * Strides - StartPadding + k * Dilations, and only positions inside the input are terms.
//   Y[n,c,o] = (sum over the real elements x of o's window of |x|^P)^(1/P)
//
// Decisions (docs/golden.md, "Lp pooling"; recorded as policies in golden files):
//   - |x|^P (LpPoolingTerms=AbsoluteValue): the page calls it an Lp norm; its formula's X^P
//     without the bars is the alternative reading SignedPowers (evaluated: x^P with its sign, a
//     negative sum's root NaN for P >= 3, as PyTorch's LPPool computes it).
//   - Padding is no term (LpPoolingPadding=NotATerm); a padded 0 would add 0^P = 0, the same value.
//     A window of padding only is the empty sum, +0, a defined value (LpPoolingEmptyWindow=Zero).
//   - The exact value rounded once (ComputedValue): P = 1 an exact rational sum; P >= 2 the sum of
//     the exact powers and its P-th root through a Ziv loop in MPFR with directed roundings (below),
//     the sum taken exactly where the loop needs it (a root that is a rounding midpoint). No
//     intermediate overflows (LpPoolingIntermediateOverflow=ExactValue): a FLOAT16 window of 300s
//     has a finite norm though 300^2 is beyond FLOAT16.
//   - A NaN element gives the canonical NaN; else an infinite one gives +inf (|-inf|^P = inf);
//     -0 is 0; an exact zero is +0.
//   - P = 0 (1/P undefined) is an error, lp-pooling.p.
//   - Output sizes: floor or ceil of the dilated formula (OutputSizes, as average pooling's).
//   - Every rank from 3 to 8 and every type is evaluated (DirectML's tables: 4 and 5, floats);
//     integers round half to even and saturate (IntegerResult).
#include "lp_pooling.hpp"
#include "correctly_rounded.hpp"
#include "exact_rational.hpp"

#include "dmlref/readings.hpp"

#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dmlref::reference {

namespace {

template <class D> void validate_lp_pooling(const D& d, std::string_view op, Diagnostics& diags) {
    const std::string prefix(op);
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           prefix + ".same-data-type");
    if (d.P == 0)
        diags.error("/desc/P", prefix + ".p",
                    "P is 0; Y = (X1^P + ... + Xn^P)^(1/P) needs P of at least 1 (1/0 is undefined)");
    validate_pooling_windows(diags, {op, "Lp pooling", "InputTensor", "OutputTensor", d.DimensionCount}, view(d));
}

// ---- One element -----------------------------------------------------------------------------

// MPFR's widest exponent range while the powers are formed: |x|^P of a FLOAT64 with P up to
// 2^32 - 1 has an exponent near 2^42, beyond MPFR's default 2^30 - 1. Restored on the way out.
struct WideExponents {
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    WideExponents() {
        mpfr_set_emin(mpfr_get_emin_min());
        mpfr_set_emax(mpfr_get_emax_max());
    }
    ~WideExponents() {
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
    }
    WideExponents(const WideExponents&) = delete;
    WideExponents& operator=(const WideExponents&) = delete;
};

struct Mpfr {
    mpfr_t v;
    explicit Mpfr(mpfr_prec_t p) { mpfr_init2(v, p); }
    ~Mpfr() { mpfr_clear(v); }
    Mpfr(const Mpfr&) = delete;
    Mpfr& operator=(const Mpfr&) = delete;
};

// Beyond this working precision the loop gives up (an undecided element: never seen; it would
// need a root within 2^-(2^22) of a rounding midpoint without being one).
constexpr mpfr_prec_t kMaxPrecision = mpfr_prec_t(1) << 22;
// Up to this many bits the sum of the powers is formed exactly when the loop needs it.
constexpr int64_t kExactBits = int64_t(1) << 20;

// The root of the sum of a_i^P, P >= 2, a_i > 0 exact in 64 bits: at precision w, the powers and
// their sum rounded down give a lower bound of the sum and rounded up an upper one, and their
// roots (rounded down and up) enclose the exact root Y. Where both ends round to one T, that is
// RN(Y). When the enclosure stays undecided, the precision doubles, or jumps to `exact_bits`, at
// which every power and the sum are exact (then a root with at most w bits, a rounding midpoint
// of T for one, comes out exact from both ends and rounds by ties-to-even).
// LpPoolingTerms=SignedPowers gives negative a_i with an odd P: the sum may be negative (no real
// root: the canonical NaN) or of a sign the enclosure does not yet decide (more precision).
template <class T> T root_of_powers(const std::vector<long double>& a, uint32_t P, int64_t exact_bits) {
    release_mpfr_caches_at_thread_exit();  // MPFR directly, outside Ziv's loop
    const WideExponents wide;
    mpfr_prec_t w = 64;
    for (;;) {
        Mpfr lo(w), hi(w), t(w);
        mpfr_set_zero(lo.v, 1);
        mpfr_set_zero(hi.v, 1);
        for (long double x : a) {
            Mpfr b(64);
            mpfr_set_ld(b.v, x, MPFR_RNDN);  // exact: 64 significant bits hold every element type
            mpfr_pow_ui(t.v, b.v, P, MPFR_RNDD);
            mpfr_add(lo.v, lo.v, t.v, MPFR_RNDD);
            mpfr_pow_ui(t.v, b.v, P, MPFR_RNDU);
            mpfr_add(hi.v, hi.v, t.v, MPFR_RNDU);
        }
        if (mpfr_sgn(hi.v) < 0) {  // no real root: NaN (0 in an integer type, as CAST stores a NaN)
            if constexpr (std::is_integral_v<T>) return T(0);
            else return canonical_nan<T>();
        }
        if (mpfr_sgn(lo.v) >= 0) {
            mpfr_rootn_ui(lo.v, lo.v, P, MPFR_RNDD);
            mpfr_rootn_ui(hi.v, hi.v, P, MPFR_RNDU);
            mpq_class qlo, qhi;
            mpfr_get_q(qlo.get_mpq_t(), lo.v);
            mpfr_get_q(qhi.get_mpq_t(), hi.v);
            const T rlo = round_rational<T>(qlo);
            if (qlo == qhi || to_bits(rlo) == to_bits(round_rational<T>(qhi))) return rlo;
        }
        if (w < exact_bits && exact_bits <= kExactBits) w = mpfr_prec_t(std::max<int64_t>(exact_bits, 2 * w));
        else w *= 2;
        if (w > kMaxPrecision)
            throw std::runtime_error("LP pooling: the root of an element stayed undecided at " +
                                     std::to_string(kMaxPrecision) + " bits (docs/golden.md, Lp pooling)");
    }
}

// The precision at which every a_i^P and their sum are exact: from the lowest set bit of any
// a_i^P to the top of the sum.
int64_t exact_precision(const std::vector<long double>& a, uint32_t P) {
    int64_t top = std::numeric_limits<int64_t>::min(), low = std::numeric_limits<int64_t>::max();
    for (long double x : a) {
        int e = 0;
        const long double f = std::frexp(std::fabs(x), &e);  // |x| = f 2^e, f in [1/2, 1)
        const uint64_t m = uint64_t(std::ldexp(f, 64));      // x = m 2^(e - 64), exactly
        top = std::max<int64_t>(top, e);
        low = std::min<int64_t>(low, int64_t(e) - 64 + std::countr_zero(m));
    }
    int64_t n_bits = 1;
    while ((uint64_t(1) << n_bits) < a.size()) ++n_bits;
    const int64_t span = top - low;  // below 2^15 for every element type
    if (span > (std::numeric_limits<int64_t>::max() - 64) / int64_t(P)) return std::numeric_limits<int64_t>::max();
    return int64_t(P) * span + n_bits + 2;
}

}  // namespace

template <class T> T lp_norm(const std::vector<T>& values, uint32_t P) {
    // LpPoolingTerms=SignedPowers (docs/golden.md, "Alternative readings"): the page's formula
    // without the bars, x^P with its sign for an odd P (an even P is the same either way).
    const bool signed_powers = (P & 1) && in_force<"LpPoolingTerms", "SignedPowers">();
    bool nan = false, infinite = false, negative_infinite = false;
    std::vector<long double> a;  // the nonzero magnitudes (signed values under SignedPowers), exact
    mpq_class sum;               // P = 1: the exact sum
    for (T v : values) {
        if constexpr (!std::is_integral_v<T>) {
            if (is_nan(v)) {
                nan = true;
                continue;
            }
            if (std::isinf(widen(v))) {
                (signed_powers && widen(v) < 0 ? negative_infinite : infinite) = true;
                continue;
            }
        }
        if (P == 1) {
            sum += signed_powers ? exact_value(v) : abs(exact_value(v));
            continue;
        }
        long double m;
        if constexpr (std::is_integral_v<T>) m = static_cast<long double>(v);
        else m = static_cast<long double>(widen(v));
        if (!signed_powers) m = std::fabs(m);
        if (m != 0) a.push_back(m);
    }
    if constexpr (!std::is_integral_v<T>) {
        // SignedPowers: +inf and -inf terms give NaN; a -inf term a negative sum, whose root is
        // NaN for P >= 3 and -inf for P = 1.
        if (nan || (infinite && negative_infinite) || (negative_infinite && P > 1)) return canonical_nan<T>();
        if (infinite) return round_to_float<T>(std::numeric_limits<double>::infinity());
        if (negative_infinite) return round_to_float<T>(-std::numeric_limits<double>::infinity());
    }
    if (P == 1) return round_rational<T>(sum);
    if (a.empty()) return round_rational<T>(mpq_class(0));
    return root_of_powers<T>(a, P, exact_precision(a, P));
}

#define DMLREF_LP_NORM(T) template T lp_norm<T>(const std::vector<T>&, uint32_t);
DMLREF_LP_NORM(half)
DMLREF_LP_NORM(float)
DMLREF_LP_NORM(double)
DMLREF_LP_NORM(int8_t)
DMLREF_LP_NORM(int16_t)
DMLREF_LP_NORM(int32_t)
DMLREF_LP_NORM(int64_t)
DMLREF_LP_NORM(uint8_t)
DMLREF_LP_NORM(uint16_t)
DMLREF_LP_NORM(uint32_t)
DMLREF_LP_NORM(uint64_t)
#undef DMLREF_LP_NORM

namespace {

// ---- The loop --------------------------------------------------------------------------------

template <class D> void lp_pool(const D& d, const Bindings& b) {
    const PoolingWindows w = pooling_windows(view(d));
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        std::vector<T> window;
        for_each_pooled(Y.sizes(), w.out, w.spatial, [&](int64_t n, int64_t c, const PoolingCoord& o) {
            window.clear();
            for_each_real_tap(w, o, [&](const PoolingCoord& pos) {
                window.push_back(x[pooling_offset(X.strides, n, c, pos, w.spatial)]);
            });
            y[pooling_offset(Y.strides, n, c, o, w.spatial)] = lp_norm<T>(window, d.P);
        });
    });
}

template <class D> std::optional<Tolerance> lp_tolerance(const D& d, std::string_view output) {
    if (output != "OutputTensor" || !valid(d, validate)) return std::nullopt;
    Tolerance t;
    if (!is_float(d.InputTensor.DataType)) {
        t.Why =
            "integer data is outside DirectML's tables; the golden is the exact value rounded half to even "
            "(docs/golden.md, IntegerResult): bit for bit";
        return t;
    }
    t.Kind = "Summed";
    t.MaxTerms = 0;
    t.Why =
        "each element is the exact (sum of |x|^P over its window's real elements)^(1/P), rounded once (docs/golden.md, "
        "Lp pooling); dmlref diff bounds each element from its window: the powers (pow, or products for P up to 4), "
        "their sum in any order, the root as a pow with exponent 1/P rounded to the working type "
        "(docs/tolerance.md, Lp pooling)";
    return t;
}

// ---- The bound (docs/tolerance.md, "Lp pooling") ---------------------------------------------

// One element from the magnitudes of its window's nonzero elements, in one working type.
Quantity lp_formula(const Arithmetic& ar, const std::vector<double>& a, uint32_t P) {
    std::vector<Quantity> powers;
    for (double v : a) {
        const Quantity x = ar.input(v);
        if (P == 1) {
            powers.push_back(x);
            continue;
        }
        Quantity q = ar.pow(x, double(P));
        if (P <= 4) {  // x * x * ... : P - 1 products (any association bounds the same)
            Quantity m = x;
            for (uint32_t k = 1; k < P; ++k) m = ar.mul(m, x);
            q = worst(q, m);
        }
        powers.push_back(q);
    }
    const Quantity s = ar.sum(powers);
    if (P == 1) return s;
    Quantity y = ar.pow(s, 1.0 / double(P));
    // The exponent 1/P rounded to the working type (exact for a power of two): S'^(1/P + delta)
    // = S'^(1/P) exp(delta ln S') with |delta| <= u / P.
    if ((P & (P - 1)) != 0 && std::isfinite(y.err) && s.lo - s.err > 0) {
        const double ln = std::max(std::fabs(std::log(s.lo - s.err)), std::fabs(std::log(s.hi + s.err)));
        const double grow = std::expm1(unit_roundoff(ar.type()) / double(P) * ln * (1 + 0x1p-40)) * (1 + 0x1p-40);
        y.err = (y.err + grow * (y.mag() + y.err)) * (1 + 0x1p-40);
    }
    return y;
}

template <class D>
void lp_bounds(const D& d, std::span<const std::byte> values, const ArithmeticProfile& prof, TermSink& sink) {
    const PoolingWindows w = pooling_windows(view(d));
    const DataType t = d.InputTensor.DataType;
    const std::vector<double> x = logical_doubles(d.InputTensor, values);
    const auto packed = packed_strides(d.InputTensor.Sizes);
    uint64_t e = 0;
    std::vector<double> a;
    for_each_pooled(d.OutputTensor.Sizes, w.out, w.spatial, [&](int64_t n, int64_t c, const PoolingCoord& o) {
        a.clear();
        uint32_t taps = 0;
        bool nan = false, infinite = false;
        double largest = 0;
        for_each_real_tap(w, o, [&](const PoolingCoord& pos) {
            const double v = x[size_t(pooling_offset(packed, n, c, pos, w.spatial))];
            ++taps;
            nan = nan || std::isnan(v);
            infinite = infinite || std::isinf(v);
            if (std::isfinite(v) && v != 0) {
                a.push_back(std::fabs(v));
                largest = std::max(largest, std::fabs(v));
            }
        });
        if (nan || infinite) sink.set_computed(e, std::numeric_limits<double>::infinity(), largest, taps, nan, true);
        else if (a.empty()) sink.set_computed(e, 0, 0, taps);  // +0: every backend's sum of zeros is 0
        else
            sink.set_computed(e, computed_error(prof, t, [&](const Arithmetic& ar) { return lp_formula(ar, a, d.P); }),
                              largest, taps);
        ++e;
    });
}

}  // namespace

// ---- The operators ---------------------------------------------------------------------------

void validate(const DML_LP_POOLING_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_lp_pooling(d, "lp-pooling", diags);
}
void validate(const DML_LP_POOLING1_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_lp_pooling(d, "lp-pooling1", diags);
}
void evaluate(const DML_LP_POOLING_OPERATOR_DESC& d, const Bindings& b) { lp_pool(d, b); }
void evaluate(const DML_LP_POOLING1_OPERATOR_DESC& d, const Bindings& b) { lp_pool(d, b); }
std::optional<Tolerance> tolerance(const DML_LP_POOLING_OPERATOR_DESC& d, std::string_view output) {
    return lp_tolerance(d, output);
}
std::optional<Tolerance> tolerance(const DML_LP_POOLING1_OPERATOR_DESC& d, std::string_view output) {
    return lp_tolerance(d, output);
}

}  // namespace dmlref::reference

namespace dmlref {

void lp_pooling_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    using namespace reference;
    if (auto* d = get_if<DML_LP_POOLING_OPERATOR_DESC>(&op.Desc)) lp_bounds(*d, input("InputTensor"), p, sink);
    else if (auto* d = get_if<DML_LP_POOLING1_OPERATOR_DESC>(&op.Desc)) lp_bounds(*d, input("InputTensor"), p, sink);
    else throw std::invalid_argument("not an Lp pooling operator");
}

}  // namespace dmlref
