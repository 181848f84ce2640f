// The error bound of a summed or computed element from its own terms (docs/tolerance.md, "The
// bound of a sum", "Computed values"): arithmetic profiles, the per-element term summary an
// operator's term enumeration fills, the forward error arithmetic a computed operator's bound
// function uses, the bound (never under-estimated), and the whole-tensor systematic check.
#pragma once

#include "dmlref/types.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dmlref {

// How a conforming backend may do its arithmetic. Defaults admit every listed choice.
enum class Accumulate : uint8_t {
    Any,      // the output type or any wider float type (default)
    Output,   // the output type: products and sums rounded to it
    Float32,  // products and sums in float32 (FLOAT16 outputs then rounded once at the end)
    Float64,  // products and sums in float64
};
enum class Coordinates : uint8_t {
    Any,                   // every formula below (default)
    Float64,               // x = (o - OutputPixelOffset) / Scale - InputPixelOffset in float64
    Float32Division,       // the same formula in float32, a true division
    Float32Reciprocal,     // (o - OutputPixelOffset) * float32(1 / Scale) - InputPixelOffset in float32
    Float32ReciprocalFma,  // the same with the multiply and subtract fused
};
// How a backend may compute batch statistics (BATCH_NORMALIZATION_TRAINING's mean and variance,
// MEAN_VARIANCE_NORMALIZATION*'s; docs/tolerance.md, "Batch normalization": the statistics forms).
// A bound admits every form it names: the largest of their bounds.
enum class Statistics : uint8_t {
    Any,      // two-pass, online or one-pass (default)
    Stable,   // two-pass or online: not one-pass E[X^2] - E[X]^2
    TwoPass,  // the mean, then the squared deviations from it
    Online,   // Welford's or Chan's updates
    OnePass,  // E[X^2] - E[X]^2
};

struct ArithmeticProfile {
    Accumulate accumulate = Accumulate::Any;
    Coordinates coordinates = Coordinates::Any;
    bool flush_subnormals = false;  // a backend may flush subnormal results and operands to zero
    // A backend may round the FLOAT32 operands of every product to TF32 (10 fraction bits, toward
    // zero or to nearest) before multiplying: tensor cores' FP32 convolutions and, where enabled,
    // matrix products (docs/tolerance.md, "TF32 operands").
    bool tf32_operands = false;
    // A backend may compute a FORWARD 2-D convolution with 3x3 filters, strides and dilations 1,
    // by Winograd's minimal filtering, F(2x2, 3x3) or F(4x4, 3x3) with the points 0, 1, -1, 2, -2
    // and infinity (docs/tolerance.md, "Winograd convolutions").
    bool winograd = false;
    // The batch statistics' forms the bound admits (Statistics above): BATCH_NORMALIZATION_TRAINING's
    // and MEAN_VARIANCE_NORMALIZATION*'s bounds only.
    Statistics statistics = Statistics::Any;
    bool operator==(const ArithmeticProfile&) const = default;
};

std::string_view name(Accumulate a);  // "any", "output", "float32", "float64"
std::string_view name(
    Coordinates c);  // "any", "float64", "float32-division", "float32-reciprocal", "float32-reciprocal-fma"
std::string_view name(Statistics s);  // "any", "stable", "two-pass", "online", "one-pass"
std::optional<Accumulate> parse_accumulate(std::string_view s);
std::optional<Coordinates> parse_coordinates(std::string_view s);
std::optional<Statistics> parse_statistics(std::string_view s);
// "accumulate=any coordinates=any subnormals=kept operands=exact convolution=direct statistics=any",
// as every report prints it.
std::string profile_text(const ArithmeticProfile& p);

// What the bound needs of one summed element. Sums of magnitudes are rounded up.
struct ElementTerms {
    uint32_t n = 0;          // terms a backend may add, ghost terms of admissible readings included
    uint32_t products = 0;   // of them, terms a backend forms as a rounded product weight * value
    double abs_sum = 0;      // S: the sum of |t| over the golden's terms t = weight * value
    double product_sum = 0;  // the sum of (|weight| + delta) * |value| over product terms
    double formation = 0;    // E: the sum of delta * |value|: how far a backend's weights move its terms
    double max_term = 0;     // the largest |t|
    bool nan = false;        // a NaN term, or infinite terms of both signs: the golden sum is NaN
    bool infinite = false;   // an infinite term
    bool positive_infinity = false, negative_infinity = false;  // its sign(s)
    // The finite terms of each sign: how many, and the sums of their |t| (what a partial sum of
    // that sign can reach: "Overflowing partial sums" in docs/tolerance.md).
    uint32_t positive_terms = 0, negative_terms = 0;
    double positive_sum = 0, negative_sum = 0;
    bool ambiguous = false;          // some term may land in another element (an admissible reading)
    double ambiguous_formation = 0;  // the part of `formation` from such terms (delta 1: the whole term)
    // A computed element (docs/tolerance.md, "Computed values"): `computed_error` bounds
    // |backend - exact value| from the operator's forward error analysis (Arithmetic below);
    // the bound adds the golden's own rounding. abs_sum then holds the element's scale.
    bool computed = false;
    double computed_error = 0;
    // The float64 terms weight * value summed without error (TwoSum, and each product's own
    // error by FMA) while that is possible: their exact sum is sum_hi + sum_lo where exact_sum
    // holds. Where it equals the golden, the golden has no rounding of its own beyond its terms'
    // (docs/tolerance.md, "The bound of a sum").
    double sum_hi = 0, sum_lo = 0;
    bool exact_sum = true;
    // The golden may be a rounding of its exact sum: two or more terms, or a weighted term.
    bool inexact() const { return n >= 2 || products > 0; }
};

// Collects the terms of every element of one output. Operators call add() once per term.
class TermSink {
public:
    explicit TermSink(uint64_t elements) : elements_(elements) {}
    // One term of element e: value (exactly widened), the golden's weight (1 for a copy, 0 for a
    // ghost term that only an admissible reading adds), the most a backend's weight may differ
    // from it, and whether a backend rounds weight * value (false for copies).
    void add(uint64_t e, double value, double weight, double delta, bool product, bool ambiguous = false);
    // Elements a and b share a term that lands in one of them (an admissible reading): their
    // sum keeps it whatever the reading, so the diff checks the group's total (conservation).
    void link(uint64_t a, uint64_t b);
    // A computed element: `error` bounds |backend - exact| (computed_error, below); `scale` is
    // the size of what the element is made of (for the report's relative detection limit),
    // `terms` its number of terms; nan / infinite as for a sum (judged as non-finite values).
    void set_computed(uint64_t e, double error, double scale, uint32_t terms, bool nan = false, bool infinite = false);
    uint64_t group(uint64_t e);  // the group's representative (e itself when unlinked)
    bool linked() const { return !parent_.empty(); }
    const std::vector<ElementTerms>& elements() const { return elements_; }
    std::vector<ElementTerms>& elements() { return elements_; }

private:
    std::vector<ElementTerms> elements_;
    std::vector<uint64_t> parent_;  // union-find over elements, empty until the first link
};

// The part of a summed element's bound that its terms' formation may take, biased or not: the
// terms' own formation error (their weights' deltas), plus, under tf32_operands for a FLOAT32
// output, each product's operands rounded to TF32 (docs/tolerance.md, "TF32 operands"). The
// whole-tensor systematic check discounts it.
double formation_allowance(const ElementTerms& e, DataType t, const ArithmeticProfile& p);
// Under tf32_operands, for data of type t: how far a product's operand may move when rounded to
// TF32, relative to itself (2^-10: toward zero; 0 where t is not FLOAT32 or the profile is off).
inline double tf32_operand_error(const ArithmeticProfile& p, DataType t) {
    return p.tf32_operands && t == DataType::FLOAT32 ? 0x1p-10 : 0.0;
}

// The most |backend - golden| may be for an element of float type t whose golden has bits
// golden_bits, under the profile (docs/tolerance.md gives the derivation). 0 for an exact
// copy; +infinity when the bound says nothing (gamma_(n-1) undefined, infinite terms).
double element_bound(const ElementTerms& e, DataType t, uint64_t golden_bits, const ArithmeticProfile& p);

// Whether a non-finite actual value is an outcome of a legal summation order that overflows a
// partial sum (docs/tolerance.md, "Overflowing partial sums"): +inf or -inf where a partial sum
// of that sign can overflow the accumulator (or an infinite term of that sign) and no infinite
// term has the other sign; NaN where both signs can be reached. For a summed element (not a
// computed one); false for a finite actual value.
bool overflow_admissible(const ElementTerms& e, DataType t, uint64_t golden_bits, uint64_t actual_bits,
                         const ArithmeticProfile& p);

// ---- Computed values (docs/tolerance.md, "Computed values") ---------------------------------
//
// A computed operator (average pooling, LRN, ROI align, batch normalization) plugs in
// with ONE function `void xxx_bounds(const Operator&, const InputBuffer&, const ArithmeticProfile&,
// TermSink&)` beside its evaluate loop (declared in dmlref/terms.hpp) and one row in
// lib/judge/tolerance.cpp's `computed_outputs()`. For every element it writes its formula once as a
// lambda over an Arithmetic (the backend's working type), covering each association or formula
// variant a conforming backend may use (the worst of them), and calls
//   sink.set_computed(e, computed_error(profile, output_type, formula), scale, terms).

// Accuracies assumed of a backend's operations beyond + - * (rounded to nearest, 1/2 ULP), in
// ULPs of the operation's working type. docs/tolerance.md states where each number comes from.
struct StatedAccuracy {
    double division = 2.5;     // x / y: D3D11.3's div; covers rcp (1 ULP) times x (1/2 ULP) and IEEE division
    double reciprocal = 1;     // 1 / y: D3D11.3's rcp
    double pow = 2;            // pow(b, p): the largest error measured of torch.pow float32 on an H100, 0.88 ULP
                               // over 2.8M arguments (docs/crosscheck-gpu.md, "pow"), doubled and rounded up
    double log2 = 3;           // a pow evaluated as exp2(p * log2 b): log2 within 3 ULP (D3D11.3), or
    double log2_near_one = 8;  // an absolute error of 8 u (2^-21 in float32) near b = 1
    // The fused activations of batch normalization (reference/fused_activation_bound.cpp):
    double exp2 =
        3;  // 2^x: D3D11.3's exp; exp(x) as exp2(x * log2(e)) adds |x| u relative per rounding of the argument
    double tanh = 4;  // assumption: no D3D figure; CUDA documents 2 ULP for tanhf, doubled
    double erf = 4;   // assumption: no D3D figure; CUDA documents 2 ULP for erff, doubled
};
inline constexpr StatedAccuracy kStatedAccuracy{};

// One quantity of a backend's evaluation of a formula: the exact (real) value lies in [lo, hi]
// (outward rounded) and the backend's value differs from it by at most err (rounded up;
// +infinity when nothing can be said: a divisor or base that may reach 0, an overflow).
struct Quantity {
    double lo = 0, hi = 0, err = 0;
    double mag() const { return std::max(std::fabs(lo), std::fabs(hi)); }  // max |exact|
    double mig() const { return lo > 0 ? lo : hi < 0 ? -hi : 0.0; }        // min |exact|
};

// A sum of Quantities fed one at a time (an element whose terms arrive scattered, as a grad's);
// Arithmetic::sum(acc) bounds it as Arithmetic::sum bounds the same terms in a vector.
struct SumAccumulator {
    double lo = 0, hi = 0, err = 0, magnitudes = 0;  // sums of the terms' lo, hi, err and mag() + err, outward
    uint64_t n = 0;
    void add(const Quantity& t);
};

// The arithmetic of one working type `a`: every operation takes the operands' ranges and
// errors, and returns the exact result's range and the backend's error: the operands' errors
// propagated plus the operation's own (round to nearest in `a`, or the stated accuracy;
// subnormals kept, or with `flush` any subnormal operand or result may become zero).
class Arithmetic {
public:
    Arithmetic(DataType a, bool flush);
    DataType type() const { return a_; }
    Quantity input(double v) const;     // an element of the input (a float type no wider than a: exact)
    Quantity constant(double v) const;  // a desc constant or count, converted to a by rounding
    Quantity add(const Quantity& x, const Quantity& y) const;
    Quantity neg(const Quantity& x) const;
    Quantity sum(const std::vector<Quantity>& terms) const;  // in any order and any tree
    Quantity sum(const SumAccumulator& terms) const;         // the same, terms fed one by one
    Quantity mul(const Quantity& x, const Quantity& y) const;
    Quantity div(const Quantity& x, const Quantity& y) const;  // within StatedAccuracy::division
    Quantity reciprocal(const Quantity& y) const;              // within StatedAccuracy::reciprocal
    Quantity pow(const Quantity& b, double p) const;           // b > 0; within the stated pow accuracy
    // The most the backend's result, stored in the output type t (rounded once more when `a`
    // is wider), may be from the exact value.
    double result_error(const Quantity& q, DataType t) const;

private:
    Quantity checked(Quantity q) const;  // no bound once a value may overflow `a`
    double round_err(double magnitude, double ulps) const;
    DataType a_;
    bool flush_;
    double u_, eta_, lambda_, max_;
};

// Of two evaluations of one exact value, the one with the larger error.
inline const Quantity& worst(const Quantity& x, const Quantity& y) { return y.err > x.err ? y : x; }

// The largest Arithmetic::result_error over the working types the profile admits for output type
// t (Accumulate::Any: t, FLOAT32 and FLOAT64, each at least as wide as t; Output: t; Float32,
// Float64) with its subnormal handling. `formula` evaluates the element in one Arithmetic.
double computed_error(const ArithmeticProfile& p, DataType t,
                      const std::function<Quantity(const Arithmetic&)>& formula);

// The bound of a group of linked elements' total: each element's bound with its admissible
// readings' terms counted as moved mass (in the sum of |t|) rather than as allowance.
double conserved_bound(const ElementTerms& e, DataType t, uint64_t golden_bits, const ArithmeticProfile& p);

// |actual - golden| <= bound, decided exactly (both finite floats of type t).
bool within_bound(DataType t, uint64_t golden_bits, uint64_t actual_bits, double bound);
// |actual - golden| rounded to nearest, for reports (both finite).
double abs_error(DataType t, uint64_t golden_bits, uint64_t actual_bits);
// actual - golden rounded to nearest (both finite).
double signed_error(DataType t, uint64_t golden_bits, uint64_t actual_bits);

// unit roundoff and smallest subnormal and normal of a float type.
double unit_roundoff(DataType t);
double smallest_subnormal(DataType t);
double smallest_normal(DataType t);
// The largest error of one rounding to nearest into t's subnormal range: half its smallest
// subnormal, as a double rounded up (half of FLOAT64's is not a double: it gives the whole).
double subnormal_rounding_error(DataType t);
// gamma_k = k u / (1 - k u), rounded up; +infinity when k u >= 1.
double gamma_up(uint64_t k, double u);

// The whole-tensor check for systematic error (docs/tolerance.md, "Systematic error"). Over
// the summed elements with a finite, non-zero bound that are finite on both sides and not on
// an admissible reading, r = soft(actual - golden, E) / (bound - E), where soft shrinks the
// error toward 0 by the formation allowance E (weight error, not rounding). Under the
// hypothesis that rounding errors are independent with mean 0, |sum r| exceeds
// sqrt(2 N ln(2 / p)) with probability at most p (Hoeffding); the same for sum r * sign(golden).
struct SystematicCheck {
    uint64_t elements = 0;   // N
    double sum = 0;          // sum of r
    double sum_toward = 0;   // sum of r * sign(golden): positive when errors point away from 0
    double threshold = 0;    // sqrt(2 N ln(2 / p))
    double false_alarm = 0;  // p
    void add(double r, bool golden_negative);
    void finish(double p = 1e-6);
    bool passed() const { return std::abs(sum) <= threshold && std::abs(sum_toward) <= threshold; }
    double mean() const { return elements ? sum / double(elements) : 0; }
    double mean_toward() const { return elements ? sum_toward / double(elements) : 0; }
};

}  // namespace dmlref
