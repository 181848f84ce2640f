// DML_OPERATOR_ACTIVATION_SOFTMAX, _SOFTMAX1, _LOG_SOFTMAX, _LOG_SOFTMAX1, _HARDMAX and _HARDMAX1.
//
// Spec: DirectML API reference, "DML_ACTIVATION_SOFTMAX_OPERATOR_DESC structure" (f(x[i]) =
// exp(x[i]) / sum(exp(x[0]), ..., exp(x[j-1])); an earlier revision of the page writes it
// exp(x_i - max(X)) / sum(exp(x - max(X)))), "DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC structure"
// (ln of that), "DML_ACTIVATION_HARDMAX_OPERATOR_DESC structure" (1 for the first occurrence of
// the largest value, 0 for all other values), and their "1" forms with AxisCount and Axes
// (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC, _LOG_SOFTMAX1_, _HARDMAX1_; HARDMAX1 as
// ReduceArgMax with DML_AXIS_DIRECTION_INCREASING broadcast back). Rules in docs/rules.md; the
// decisions in docs/golden.md, "Softmax"; the bounds in docs/tolerance.md, "Softmax".
//
//   A row is the set of elements that share every coordinate outside the axes: the forms
//   without Axes take the last dimension (the "1" pages: equivalent when Axes is
//   {DimensionCount - 1}), the "1" forms the listed ones. Within a row the elements are numbered
//   row-major over the axes in increasing axis order (HARDMAX's "first").
//
//   SOFTMAX      y_i = exp(x_i - m) / sum_j exp(x_j - m), m the row's largest element
//   LOG_SOFTMAX  y_i = (x_i - m) - log(sum_j exp(x_j - m))
//   HARDMAX      1 at the first largest element, +0 elsewhere
//
// Decisions (docs/golden.md, "Softmax"; recorded as policies in golden files):
//   - SOFTMAX and LOG_SOFTMAX: the exact value rounded once (ComputedValue). A float64 pass
//     bounds each element by interval arithmetic and decides its rounding where the interval
//     rounds to one value; Ziv's loop in MPFR decides the rest (correctly_rounded.hpp). Every
//     value is transcendental except where all finite elements of the row are equal (1/c, and
//     0 or -log c), which are taken apart, so the loop always ends.
//   - A NaN in the row makes every element of the row the canonical NaN (SoftmaxNaN); so does a
//     +inf (SoftmaxInfinity: x - max(X) is inf - inf), and a row of -inf only
//     (SoftmaxAllNegativeInfinity: 0 / 0). A -inf element among finite ones is exp(-inf) = 0:
//     SOFTMAX +0, LOG_SOFTMAX -inf.
//   - An exact zero is +0 (ZeroResult: LOG_SOFTMAX of a row with one finite element); a value
//     that rounds to zero keeps its sign (LOG_SOFTMAX's -e^-1000 is -0).
//   - HARDMAX: ARGMAX's decisions (NaN loses to any number, all NaN: the first element; -0 and
//     +0 are equal, the first wins).
#include "softmax.hpp"

#include "correctly_rounded.hpp"
#include "exact_rational.hpp"

#include "dmlref/bits.hpp"
#include "dmlref/bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using OT = OperatorType;

SoftmaxKind kind_of(OT t) {
    if (t == OT::ACTIVATION_SOFTMAX || t == OT::ACTIVATION_SOFTMAX1) return SoftmaxKind::Softmax;
    if (t == OT::ACTIVATION_LOG_SOFTMAX || t == OT::ACTIVATION_LOG_SOFTMAX1) return SoftmaxKind::LogSoftmax;
    return SoftmaxKind::Hardmax;
}

// The rule ids' prefix.
std::string prefix(OT t) {
    switch (t) {
        case OT::ACTIVATION_SOFTMAX: return "softmax";
        case OT::ACTIVATION_SOFTMAX1: return "softmax1";
        case OT::ACTIVATION_LOG_SOFTMAX: return "log-softmax";
        case OT::ACTIVATION_LOG_SOFTMAX1: return "log-softmax1";
        case OT::ACTIVATION_HARDMAX: return "hardmax";
        default: return "hardmax1";
    }
}

// ---- Validation ------------------------------------------------------------------------------

// "InputTensor and OutputTensor must have the same DataType, DimensionCount, and Sizes"; the
// tables' FLOAT32 and FLOAT16.
void validate_tensors(const std::string& p, const TensorDesc& in, const TensorDesc& out, Diagnostics& diags) {
    const std::initializer_list<Named> both = {{"InputTensor", in}, {"OutputTensor", out}};
    require_same_data_type(diags, both, p + ".same-data-type");
    require_same_sizes(diags, both, p + ".same-sizes");
    if (is_valid(in.DataType) && in.DataType != DataType::FLOAT32 && in.DataType != DataType::FLOAT16)
        diags.error(pointer_append(desc_path("InputTensor"), "DataType"), p + ".data-type",
                    "InputTensor's DataType is " + std::string(name(in.DataType)) +
                        "; the page's Tensor support lists FLOAT32 and FLOAT16");
}

// ---- One row -------------------------------------------------------------------------------

uint64_t bits_of(DataType t, double v) {
    return t == DataType::FLOAT32 ? uint64_t(to_bits(float(v))) : uint64_t(to_bits(half_from_double(v)));
}
uint64_t bits_of(DataType t, const mpq_class& v) {
    return t == DataType::FLOAT32 ? uint64_t(to_bits(round_rational<float>(v)))
                                  : uint64_t(to_bits(round_rational<half>(v)));
}
uint64_t nan_bits(DataType t) {
    return t == DataType::FLOAT32 ? uint64_t(to_bits(canonical_nan<float>()))
                                  : uint64_t(to_bits(canonical_nan<half>()));
}
uint64_t ziv_bits(DataType t, const Evaluation& f) {
    return t == DataType::FLOAT32 ? uint64_t(to_bits(correctly_rounded<float>(f)))
                                  : uint64_t(to_bits(correctly_rounded<half>(f)));
}

// Below these, a term leaves the exact row sum alone for all but the last 2^24 bits of its
// precision (kBeyond: every other term is that far below the largest), and exp(d) is still
// inside MPFR's default exponent range (2^-(2^30)).
constexpr double kBeyond = -536870912.0;    // -2^29
constexpr double kNegligible = 16777216.0;  // 2^24

// The row after its non-finite elements are taken out: m the largest element, k the first index
// holding it, the finite elements' differences d_j = x_j - m.
struct Row {
    const std::vector<double>& x;
    DataType t;
    double m = -kInf;
    size_t k = 0;
    size_t finite = 0, at_max = 0;
    double next = -kInf;  // the largest d_j over j != k (-inf when none)

    Row(const std::vector<double>& values, DataType type) : x(values), t(type) {
        for (size_t j = 0; j < x.size(); ++j)
            if (std::isfinite(x[j])) {
                if (finite == 0 || x[j] > m) m = x[j], k = j;
                ++finite;
            }
        for (size_t j = 0; j < x.size(); ++j) {
            if (!std::isfinite(x[j])) continue;
            at_max += x[j] == m;
            if (j != k) next = std::max(next, x[j] - m);
        }
    }
};

// The exact differences and the sum T = sum_{j != k} exp(d_j) at a precision, kept for the
// next element of the row that asks for the same precision.
class ExactRow {
public:
    explicit ExactRow(const Row& r) : row_(r) {
        const double floor = r.next - kNegligible;
        for (size_t j = 0; j < r.x.size(); ++j) {
            if (!std::isfinite(r.x[j]) || j == r.k || r.x[j] - r.m < floor) continue;  // the last: below 2^-(2^24) of T
            kept_.push_back(j);
        }
        mpfr_init2(t_, 64);
    }
    ~ExactRow() { mpfr_clear(t_); }
    ExactRow(const ExactRow&) = delete;
    ExactRow& operator=(const ExactRow&) = delete;

    // d_i exactly: two FLOAT32 values differ by a multiple of 2^-149 below 2^129 (278 bits).
    void difference(mpfr_ptr d, size_t i) const {
        mpfr_set_prec(d, 320);
        mpfr_set_d(d, row_.x[i], MPFR_RNDN);
        mpfr_sub_d(d, d, row_.m, MPFR_RNDN);
    }
    // T to p bits: every exp and every addition within 2^-p relative, so T within (n + 1) 2^-p.
    mpfr_srcptr sum(mpfr_prec_t p) {
        if (p == precision_) return t_;
        mpfr_set_prec(t_, p);
        mpfr_set_ui(t_, 0, MPFR_RNDN);
        mpfr_t d, e;
        mpfr_init2(d, 320);
        mpfr_init2(e, p);
        for (size_t j : kept_) {
            difference(d, j);
            mpfr_exp(e, d, MPFR_RNDN);
            mpfr_add(t_, t_, e, MPFR_RNDN);
        }
        mpfr_clears(d, e, (mpfr_ptr) nullptr);
        precision_ = p;
        return t_;
    }
    long guard() const { return 10 + long(std::ceil(std::log2(double(kept_.size()) + 4))); }

private:
    const Row& row_;
    std::vector<size_t> kept_;
    mpfr_t t_;
    mpfr_prec_t precision_ = 0;
};

// y_i in MPFR (Ziv's loop): SOFTMAX exp(d_i) / (1 + T), LOG_SOFTMAX d_i - log1p(T). Each step's
// relative error is below 2^-p, T's below (n + 1) 2^-p, and log1p's condition number is at most
// 1, so the value before the last rounding is within 2^-(w+8) relative; LOG_SOFTMAX's two terms
// have one sign (d_i <= 0 < log1p(T)): no cancellation. With the final rounding to w bits the
// error is below 2^(EXP(y) - w): w - 1 correct bits claimed.
uint64_t exact_element(SoftmaxKind kind, const Row& r, ExactRow& ex, size_t i) {
    return ziv_bits(r.t, [&](mpfr_ptr y, mpfr_prec_t w) -> long {
        const mpfr_prec_t p = w + ex.guard();
        mpfr_t d, a;
        mpfr_init2(d, 320);
        mpfr_init2(a, p);
        ex.difference(d, i);
        if (kind == SoftmaxKind::Softmax) {
            mpfr_add_ui(a, ex.sum(p), 1, MPFR_RNDN);
            mpfr_t e;
            mpfr_init2(e, p);
            mpfr_exp(e, d, MPFR_RNDN);
            mpfr_div(y, e, a, MPFR_RNDN);
            mpfr_clear(e);
        } else {
            mpfr_log1p(a, ex.sum(p), MPFR_RNDN);
            mpfr_sub(y, d, a, MPFR_RNDN);
        }
        mpfr_clears(d, a, (mpfr_ptr) nullptr);
        return long(w) - 1;
    });
}

// The float64 pass: T_hat = the sum of exp(d_j) in float64 with a bound on its error (each d_j
// within half an ULP, each exp within 4 ULP of glibc's, an assumption the test checks against
// MPFR, the sum within n half ULPs), then each element as an interval; decided where both ends
// round to one value (rounding is monotonic).
struct Float64Row {
    double t_hat = 0, t_err = 0;
    Float64Row(const Row& r) {
        const double u = 0x1p-53;
        double worst = 0;
        size_t n = 0, dropped = 0;
        for (size_t j = 0; j < r.x.size(); ++j) {
            if (!std::isfinite(r.x[j]) || j == r.k) continue;
            const double d = r.x[j] - r.m;
            if (d < -700) {
                ++dropped;
                continue;
            }  // exp(d) < 2^-1000
            t_hat += std::exp(d);
            worst = std::max(worst, -d);
            ++n;
        }
        const double rel = 4 * 2 * u + worst * 2 * u + double(n + 1) * 2 * u;
        t_err = t_hat * rel * 1.01 + double(dropped) * 0x1p-1000;
    }
    // The element's interval, or false where it says nothing.
    bool element(SoftmaxKind kind, const Row& r, size_t i, double& lo, double& hi) const {
        const double u = 0x1p-53;
        const double d = r.x[i] - r.m;
        const double derr = std::fabs(d) * u;
        if (kind == SoftmaxKind::Softmax) {
            const double e = i == r.k ? 1 : std::exp(d);
            const double erel = i == r.k ? 0 : 8 * u + std::fabs(d) * 2 * u;
            const double s_lo = (1 + t_hat - t_err) * (1 - 2 * u), s_hi = (1 + t_hat + t_err) * (1 + 2 * u);
            lo = e * (1 - erel) / s_hi * (1 - 2 * u);
            hi = e * (1 + erel) / s_lo * (1 + 2 * u);
        } else {
            const double t_lo = std::max(0.0, (t_hat - t_err) * (1 - 2 * u)), t_hi = (t_hat + t_err) * (1 + 2 * u);
            const double l_lo = std::log1p(t_lo) * (1 - 8 * u), l_hi = std::log1p(t_hi) * (1 + 8 * u);
            lo = (d - derr - l_hi) * (1 + 2 * u);
            hi = std::min(0.0, d + derr) - l_lo;
            hi = hi * (1 - 2 * u);
        }
        return std::isfinite(lo) && std::isfinite(hi) && lo <= hi;
    }
};

std::vector<uint64_t> hardmax_row(DataType t, const std::vector<double>& x) {
    size_t best = x.size();
    for (size_t j = 0; j < x.size(); ++j) {
        if (std::isnan(x[j])) continue;
        if (best == x.size() || x[j] > x[best]) best = j;  // -0 and +0 are equal: the first stays
    }
    if (best == x.size()) best = 0;  // every element NaN: all tied, the first
    std::vector<uint64_t> y(x.size(), bits_of(t, 0.0));
    if (!x.empty()) y[best] = bits_of(t, 1.0);
    return y;
}

}  // namespace

std::vector<uint64_t> softmax_row(SoftmaxKind kind, DataType t, const std::vector<double>& x, bool fast) {
    if (kind == SoftmaxKind::Hardmax) return hardmax_row(t, x);
    const size_t n = x.size();
    bool nan = false, pos_inf = false;
    for (double v : x) {
        nan = nan || std::isnan(v);
        pos_inf = pos_inf || v == kInf;
    }
    const Row r(x, t);
    if (nan || pos_inf || r.finite == 0) return std::vector<uint64_t>(n, nan_bits(t));
    const bool soft = kind == SoftmaxKind::Softmax;
    std::vector<uint64_t> y(n, soft ? bits_of(t, 0.0) : bits_of(t, -kInf));  // the -inf elements
    if (r.at_max == r.finite) {
        // Every finite element is the largest: 1/c, or 0 - log c (exactly +0 when c = 1).
        const unsigned long c = static_cast<unsigned long>(r.finite);
        uint64_t v = soft ? bits_of(t, mpq_class(1, c)) : bits_of(t, 0.0);
        if (!soft && c > 1)
            v = ziv_bits(t, [&](mpfr_ptr out, mpfr_prec_t) -> long {
                mpfr_log_ui(out, c, MPFR_RNDN);
                mpfr_neg(out, out, MPFR_RNDN);
                return long(mpfr_get_prec(out)) - 1;
            });
        for (size_t i = 0; i < n; ++i)
            if (std::isfinite(x[i])) y[i] = v;
        return y;
    }
    if (!soft && r.next + std::log(double(r.finite)) < -120) {
        // LOG_SOFTMAX where log1p(T) <= T < n e^next < 2^-160: y_i = d_i - log1p(T) lies in
        // (d_i - 2^-160, d_i), and so does d_i - 2^-2000; no rounding boundary of FLOAT32 or
        // FLOAT16 (all multiples of 2^-150) lies strictly between d_i (a multiple of 2^-149, maybe a
        // midpoint itself) and d_i - 2^-160, so both round alike: the largest element gives -0.
        // Ziv's loop could not decide a d_i that is a midpoint once T is below its last bits.
        mpq_class tiny(1);
        tiny /= mpq_class(mpz_class(1) << 2000);
        for (size_t i = 0; i < n; ++i)
            if (std::isfinite(x[i])) y[i] = bits_of(t, mpq_class(mpq_class(x[i]) - mpq_class(r.m) - tiny));
        return y;
    }
    if (r.next < kBeyond) {
        // SOFTMAX with every other element below m - 2^29 (exp of that is beyond MPFR's default
        // exponent range): T < n e^-(2^29), so 1 / (1 + T) rounds to 1 and the others to +0.
        for (size_t i = 0; i < n; ++i)
            if (std::isfinite(x[i])) y[i] = bits_of(t, i == r.k ? 1.0 : 0.0);
        return y;
    }
    const Float64Row f(r);
    std::optional<ExactRow> ex;
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(x[i])) continue;
        // SOFTMAX below e^-120 < 2^-173: +0 (FLOAT32's smallest subnormal is 2^-149).
        if (soft && x[i] - r.m < -120) {
            y[i] = bits_of(t, 0.0);
            continue;
        }
        double lo = 0, hi = 0;
        if (fast && f.element(kind, r, i, lo, hi)) {
            const uint64_t a = bits_of(t, lo), b = bits_of(t, hi);
            if (a == b) {
                y[i] = a;
                continue;
            }
        }
        if (!ex) ex.emplace(r);
        y[i] = exact_element(kind, r, *ex, i);
    }
    return y;
}

// ---- Rows of a tensor --------------------------------------------------------------------------

std::vector<std::vector<uint64_t>> softmax_rows(const std::vector<uint32_t>& sizes, const std::vector<uint32_t>& axes) {
    const size_t rank = sizes.size();
    uint32_t mask = 0;
    for (uint32_t a : axes)
        if (a < rank) mask |= 1u << a;
    const std::vector<int64_t> packed = packed_strides(sizes);
    // Offsets within a row: row-major over the axes in increasing order.
    std::vector<uint64_t> within = {0};
    for (size_t a = 0; a < rank; ++a) {
        if (!((mask >> a) & 1)) continue;
        std::vector<uint64_t> next;
        next.reserve(within.size() * sizes[a]);
        for (uint64_t o : within)
            for (uint32_t c = 0; c < sizes[a]; ++c) next.push_back(o + uint64_t(c) * uint64_t(packed[a]));
        within = std::move(next);
    }
    // Rows: row-major over the other dimensions.
    std::vector<uint64_t> starts = {0};
    for (size_t a = 0; a < rank; ++a) {
        if ((mask >> a) & 1) continue;
        std::vector<uint64_t> next;
        next.reserve(starts.size() * sizes[a]);
        for (uint64_t o : starts)
            for (uint32_t c = 0; c < sizes[a]; ++c) next.push_back(o + uint64_t(c) * uint64_t(packed[a]));
        starts = std::move(next);
    }
    std::vector<std::vector<uint64_t>> rows;
    rows.reserve(starts.size());
    for (uint64_t s : starts) {
        std::vector<uint64_t> r(within.size());
        for (size_t j = 0; j < within.size(); ++j) r[j] = s + within[j];
        rows.push_back(std::move(r));
    }
    return rows;
}

bool softmax_params(const OperatorDesc& desc, SoftmaxKind& kind, const TensorDesc*& input,
                    std::vector<uint32_t>& axes) {
    auto last = [&](const auto* d) {
        kind = kind_of(d->kType);
        input = &d->InputTensor;
        axes = {d->InputTensor.Sizes.empty() ? 0u : uint32_t(d->InputTensor.Sizes.size() - 1)};
        return true;
    };
    auto listed = [&](const auto* d) {
        kind = kind_of(d->kType);
        input = &d->InputTensor;
        axes = d->Axes;
        return true;
    };
    if (const auto* d = desc.get_if<DML_ACTIVATION_SOFTMAX_OPERATOR_DESC>()) return last(d);
    if (const auto* d = desc.get_if<DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC>()) return last(d);
    if (const auto* d = desc.get_if<DML_ACTIVATION_HARDMAX_OPERATOR_DESC>()) return last(d);
    if (const auto* d = desc.get_if<DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC>()) return listed(d);
    if (const auto* d = desc.get_if<DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC>()) return listed(d);
    if (const auto* d = desc.get_if<DML_ACTIVATION_HARDMAX1_OPERATOR_DESC>()) return listed(d);
    return false;
}

namespace {

// Every row computed before any element is written (the output may alias the input).
void evaluate_rows(SoftmaxKind kind, const TensorDesc& in, const TensorDesc& out, const std::vector<uint32_t>& axes,
                   const Bindings& b) {
    const std::vector<double> x = logical_doubles(in, b.at("InputTensor"));
    std::vector<uint64_t> y(x.size());
    std::vector<double> row;
    for (const auto& r : softmax_rows(in.Sizes, axes)) {
        row.clear();
        for (uint64_t i : r) row.push_back(x[i]);
        const std::vector<uint64_t> v = softmax_row(kind, in.DataType, row);
        for (size_t j = 0; j < r.size(); ++j) y[r[j]] = v[j];
    }
    if (out.DataType == DataType::FLOAT32)
        write_logical<float>(out, b.at("OutputTensor"), [&](uint64_t i) { return from_bits<float>(uint32_t(y[i])); });
    else if (out.DataType == DataType::FLOAT16)
        write_logical<half>(out, b.at("OutputTensor"), [&](uint64_t i) { return from_bits<half>(uint16_t(y[i])); });
}

}  // namespace

// ---- The operators -------------------------------------------------------------------------------

// DML_ACTIVATION_SOFTMAX_OPERATOR_DESC and its two siblings: the Tensor constraints
// (.same-data-type, .same-sizes), the tables' types (.data-type), and InputTensor's "effective
// rank no greater than 2" (.effective-rank: the DimensionCount without the leading dimensions of
// size 1).
template <OT T> void validate(const softmax_desc::LastAxis<T>& d, Diagnostics& diags) {
    const std::string p = prefix(T);
    validate_tensors(p, d.InputTensor, d.OutputTensor, diags);
    const auto& s = d.InputTensor.Sizes;
    size_t lead = 0;
    while (lead < s.size() && s[lead] == 1) ++lead;
    if (s.size() - lead > 2)
        diags.error(pointer_append(desc_path("InputTensor"), "Sizes"), p + ".effective-rank",
                    "InputTensor's effective rank (its DimensionCount without the leading dimensions of size 1) is " +
                        std::to_string(s.size() - lead) +
                        "; it must be no greater than 2 (the \"1\" operator takes Axes)");
}

template <OT T> void evaluate(const softmax_desc::LastAxis<T>& d, const Bindings& b) {
    evaluate_rows(kind_of(T), d.InputTensor, d.OutputTensor, {uint32_t(d.InputTensor.Sizes.size() - 1)}, b);
}

// The "1" forms: the Tensor constraints and types as above; AxisCount "determines the size of the
// Axes array" (.axes-length), Axes' values "must be in the range [0, InputTensor.DimensionCount -
// 1]" (.axis-range); AxisCount 0 or above DimensionCount (.axis-count) and an axis named twice
// (.axes-distinct) are refused, as REDUCE refuses them (docs/golden.md, Softmax).
template <OT T> void validate(const softmax_desc::ListedAxes<T>& d, Diagnostics& diags) {
    const std::string p = prefix(T);
    validate_tensors(p, d.InputTensor, d.OutputTensor, diags);
    const uint32_t rank = d.InputTensor.DimensionCount();
    if (d.AxisCount == 0 || d.AxisCount > rank) {
        diags.error("/desc/AxisCount", p + ".axis-count",
                    "AxisCount is " + std::to_string(d.AxisCount) + "; it must be 1 to InputTensor's DimensionCount (" +
                        std::to_string(rank) + ")");
        return;
    }
    if (d.Axes.size() != d.AxisCount) {
        diags.error("/desc/Axes", p + ".axes-length",
                    "Axes has " + std::to_string(d.Axes.size()) + " entries but AxisCount is " +
                        std::to_string(d.AxisCount) + "; AxisCount determines the size of the Axes array");
        return;
    }
    uint32_t seen = 0;
    for (size_t i = 0; i < d.Axes.size(); ++i) {
        const uint32_t a = d.Axes[i];
        if (a >= rank)
            diags.error(pointer_append("/desc/Axes", i), p + ".axis-range",
                        "Axes[" + std::to_string(i) + "] is " + std::to_string(a) +
                            "; values must be in the range [0, " + std::to_string(rank) +
                            " - 1] (InputTensor.DimensionCount - 1)");
        else if ((seen >> a) & 1)
            diags.error(pointer_append("/desc/Axes", i), p + ".axes-distinct",
                        "Axes[" + std::to_string(i) + "] is " + std::to_string(a) +
                            ", an axis already named; each axis is named once");
        else seen |= 1u << a;
    }
}

template <OT T> void evaluate(const softmax_desc::ListedAxes<T>& d, const Bindings& b) {
    evaluate_rows(kind_of(T), d.InputTensor, d.OutputTensor, d.Axes, b);
}

template void validate(const DML_ACTIVATION_SOFTMAX_OPERATOR_DESC&, Diagnostics&);
template void validate(const DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC&, Diagnostics&);
template void validate(const DML_ACTIVATION_HARDMAX_OPERATOR_DESC&, Diagnostics&);
template void validate(const DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC&, Diagnostics&);
template void validate(const DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC&, Diagnostics&);
template void validate(const DML_ACTIVATION_HARDMAX1_OPERATOR_DESC&, Diagnostics&);
template void evaluate(const DML_ACTIVATION_SOFTMAX_OPERATOR_DESC&, const Bindings&);
template void evaluate(const DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC&, const Bindings&);
template void evaluate(const DML_ACTIVATION_HARDMAX_OPERATOR_DESC&, const Bindings&);
template void evaluate(const DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC&, const Bindings&);
template void evaluate(const DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC&, const Bindings&);
template void evaluate(const DML_ACTIVATION_HARDMAX1_OPERATOR_DESC&, const Bindings&);

// ---- Judging (docs/tolerance.md, "Softmax") ----------------------------------------------------

namespace {

// exp of a backend's argument d' (|d' - d| <= d.err): e^d' is within e^d (e^err - 1) of e^d, and
// the backend's exp within the stated exp2 accuracy plus the rounding of d' log2(e) (2 (3 + |d|)
// u relative), evaluated at e^d' <= e^d e^err; a flushed subnormal loses up to the smallest normal.
Quantity exp_of(const Arithmetic& ar, const Quantity& d, bool flush) {
    const DataType a = ar.type();
    const double u = unit_roundoff(a);
    const double hi = up(std::exp(d.hi) * (1 + 0x1p-40)), lo = std::exp(d.lo) * (1 - 0x1p-40);
    const double largest = a == DataType::FLOAT16   ? 65504.0
                           : a == DataType::FLOAT32 ? double(std::numeric_limits<float>::max())
                                                    : std::numeric_limits<double>::max();
    if (!(hi * std::exp(std::min(d.err, 1.0)) < largest / 2) || !std::isfinite(d.err))
        return Quantity{0, kInf, kInf};  // may overflow A
    const double grow = up(std::exp(d.err) * (1 + 0x1p-40));
    const double own = up(up(2 * kStatedAccuracy.exp2 * u + 2 * d.mag() * u + 0x1p-40) * up(hi * grow));
    const double moved = up(hi * up(std::expm1(d.err) * (1 + 0x1p-40)));
    const double floor = 2 * smallest_subnormal(a) + (flush ? smallest_normal(a) : 0);
    return Quantity{lo, hi, up(up(own + moved) + floor)};
}

// log of the row sum S >= 1: the argument's error moves it by at most e / (m - e); the backend's
// log within the stated log2 accuracy (3 ULP relative, or 8 u absolute near 1), times ln 2.
Quantity log_of(const Arithmetic& ar, const Quantity& s) {
    const double m = s.mig();
    if (!(m > s.err) || !std::isfinite(s.err)) return Quantity{-kInf, kInf, kInf};
    const double u = unit_roundoff(ar.type());
    const double lo = std::log(m) * (1 - 0x1p-40), hi = up(std::log(s.mag()) * (1 + 0x1p-40));
    const double r = std::max(std::fabs(lo), std::fabs(hi));
    const double arg = up(up(s.err / (m - s.err)) * (1 + 0x1p-40));
    const double own = up(up(2 * kStatedAccuracy.log2 * u * r) + up(kStatedAccuracy.log2_near_one * u) + up(2 * u * r) +
                          4 * smallest_subnormal(ar.type()));
    return Quantity{lo, hi, up(arg + own)};
}

// One row's sums in one working type, shared by its elements: the shifted exps e_j = exp(x_j - m)
// and their sum; and, where no exp overflows A, the plain exps of the page's formula.
struct RowSums {
    std::vector<Quantity> shifted, plain;
    Quantity s_shifted, s_plain;
    bool plain_finite = true;
};

RowSums row_sums(const Arithmetic& ar, const std::vector<double>& x, double m, bool flush) {
    RowSums r;
    r.shifted.resize(x.size());
    r.plain.resize(x.size());
    std::vector<Quantity> a, b;
    for (size_t j = 0; j < x.size(); ++j) {
        if (!std::isfinite(x[j])) continue;  // exp(-inf) = 0: no term
        // Far below m, x_j - m may overflow the working type (-FLT_MAX - FLT_MAX), and its running
        // error is then unbounded. Rounding is monotone, so the backend's x_j - m is at most its
        // rounding of the exact difference (-inf included), which lies past exp's underflow: the
        // term is 0 or, by the stated exp accuracy, within two of A's smallest subnormals.
        if (x[j] - m < std::log(smallest_subnormal(ar.type())) - 4) {
            r.shifted[j] = Quantity{0, 0, 2 * smallest_subnormal(ar.type()) + (flush ? smallest_normal(ar.type()) : 0)};
        } else {
            r.shifted[j] = exp_of(ar, ar.add(ar.input(x[j]), ar.neg(ar.input(m))), flush);
        }
        r.plain[j] = exp_of(ar, ar.input(x[j]), flush);
        r.plain_finite = r.plain_finite && std::isfinite(r.plain[j].err);
        a.push_back(r.shifted[j]);
        b.push_back(r.plain[j]);
    }
    r.s_shifted = ar.sum(a);
    if (r.plain_finite) r.s_plain = ar.sum(b);
    r.plain_finite = r.plain_finite && std::isfinite(r.s_plain.err);
    return r;
}

// Element i in one working type, the worst of the variants a backend may use (docs/tolerance.md):
// SOFTMAX e_i / S or e_i * (1 / S), with or without m taken out; LOG_SOFTMAX (x_i - m) - log S,
// x_i - (m + log S), and without m where finite: x_i - log(sum exp(x_j)).
Quantity element_quantity(const Arithmetic& ar, SoftmaxKind kind, const RowSums& r, const std::vector<double>& x,
                          double m, size_t i) {
    if (kind == SoftmaxKind::Softmax) {
        auto ratio = [&](const Quantity& e, const Quantity& s) {
            return worst(ar.div(e, s), ar.mul(e, ar.reciprocal(s)));
        };
        Quantity q = ratio(r.shifted[i], r.s_shifted);
        if (r.plain_finite) q = worst(q, ratio(r.plain[i], r.s_plain));
        return q;
    }
    const Quantity xi = ar.input(x[i]), mm = ar.input(m);
    const Quantity l = log_of(ar, r.s_shifted);
    Quantity q = ar.add(ar.add(xi, ar.neg(mm)), ar.neg(l));
    q = worst(q, ar.add(xi, ar.neg(ar.add(mm, l))));
    if (r.plain_finite) {
        const Quantity lp = log_of(ar, r.s_plain);
        if (std::isfinite(lp.err)) q = worst(q, ar.add(xi, ar.neg(lp)));
    }
    return q;
}

}  // namespace

void softmax_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    SoftmaxKind kind{};
    const TensorDesc* in = nullptr;
    std::vector<uint32_t> axes;
    if (!softmax_params(op.Desc, kind, in, axes)) throw std::invalid_argument("not a softmax operator");
    const std::vector<double> x = logical_doubles(*in, input("InputTensor"));
    const DataType t = in->DataType;
    std::vector<double> row;
    for (const auto& idx : softmax_rows(in->Sizes, axes)) {
        row.clear();
        for (uint64_t i : idx) row.push_back(x[i]);
        const uint32_t n = uint32_t(std::min<size_t>(row.size(), UINT32_MAX));
        bool nan = false;
        double m = -kInf;
        for (double v : row) {
            nan = nan || std::isnan(v) || v == kInf;
            if (std::isfinite(v)) m = std::max(m, v);
        }
        if (nan || m == -kInf) {  // the golden row is NaN: any NaN matches
            for (uint64_t e : idx) sink.set_computed(e, 0, 0, n, true, false);
            continue;
        }
        // The row's sums per working type, computed once for all its elements.
        std::vector<std::pair<DataType, RowSums>> sums;
        auto sums_in = [&](const Arithmetic& ar) -> const RowSums& {
            for (const auto& [a, s] : sums)
                if (a == ar.type()) return s;
            sums.emplace_back(ar.type(), row_sums(ar, row, m, p.flush_subnormals));
            return sums.back().second;
        };
        for (size_t j = 0; j < row.size(); ++j) {
            const uint64_t e = idx[j];
            if (!std::isfinite(row[j])) {  // -inf: SOFTMAX's exact +0, LOG_SOFTMAX's -inf
                if (kind == SoftmaxKind::Softmax) sink.set_computed(e, 0, 1, n);
                else sink.set_computed(e, 0, kInf, n, false, true);
                continue;
            }
            // LOG_SOFTMAX far below m: (x_j - m) - log S <= x_j - m is beyond the output type's
            // largest finite value (-FLT_MAX - FLT_MAX): the golden is -inf, and every form of the
            // formula reaches it, its difference x_j - m overflowing (monotone rounding).
            const double t_max = t == DataType::FLOAT16   ? 65504.0
                                 : t == DataType::FLOAT32 ? double(std::numeric_limits<float>::max())
                                                          : std::numeric_limits<double>::max();
            if (kind == SoftmaxKind::LogSoftmax && row[j] - m < -t_max * (1 + unit_roundoff(t))) {
                sink.set_computed(e, 0, kInf, n, false, true);
                continue;
            }
            const double error = computed_error(
                p, t, [&](const Arithmetic& ar) { return element_quantity(ar, kind, sums_in(ar), row, m, j); });
            sink.set_computed(e, error, std::max(1.0, std::fabs(row[j] - m)), n);
        }
    }
}

std::optional<Tolerance> softmax_tolerance(const OperatorDesc& desc, std::string_view output) {
    SoftmaxKind kind{};
    const TensorDesc* in = nullptr;
    std::vector<uint32_t> axes;
    if (output != "OutputTensor" || !softmax_params(desc, kind, in, axes) || kind == SoftmaxKind::Hardmax)
        return std::nullopt;
    if (!is_float(in->DataType)) return std::nullopt;
    uint64_t n = 1;
    for (uint32_t a : axes)
        if (a < in->Sizes.size()) n *= in->Sizes[a];
    Tolerance t;
    t.Kind = "Summed";
    t.MaxTerms = uint32_t(std::min<uint64_t>(n, UINT32_MAX));
    t.Why =
        std::string(kind == SoftmaxKind::Softmax ? "exp(x_i - m) / sum exp(x_j - m)"
                                                 : "(x_i - m) - log(sum exp(x_j - m))") +
        " over the " + std::to_string(n) +
        " elements of the element's row: the exact value rounded once (docs/golden.md, "
        "Softmax); dmlref diff bounds each element from its own row in the working types a backend may use (docs/tolerance.md, "
        "Softmax); a NaN golden matches any NaN";
    return t;
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) ---------------------------------------------

bool explain_softmax(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    SoftmaxKind kind{};
    const TensorDesc* in = nullptr;
    std::vector<uint32_t> axes;
    if (output != "OutputTensor" || !softmax_params(c.op.Desc, kind, in, axes)) return false;
    const auto it = c.inputs.find("InputTensor");
    const std::vector<double> values = it != c.inputs.end() ? logical_doubles(*in, it->second) : std::vector<double>{};
    std::vector<uint64_t> row;
    size_t at = 0;
    for (const auto& r : softmax_rows(in->Sizes, axes)) {
        const auto pos = std::find(r.begin(), r.end(), flat);
        if (pos != r.end()) {
            row = r;
            at = size_t(pos - r.begin());
            break;
        }
    }
    const size_t shown = std::min<size_t>(row.size(), 64);
    for (size_t j = 0; j < shown; ++j)
        out.inputs.push_back(input_element(c, "InputTensor", nd_coordinate(in->Sizes, row[j]),
                                           j == at ? "x_i" : "j=" + std::to_string(j)));
    out.facts.emplace_back(
        "formula", kind == SoftmaxKind::Softmax      ? "exp(x_i - m) / sum_j exp(x_j - m), m the row's largest element"
                   : kind == SoftmaxKind::LogSoftmax ? "(x_i - m) - log(sum_j exp(x_j - m))"
                                                     : "1 at the row's first largest element, 0 elsewhere");
    out.facts.emplace_back("row",
                           std::to_string(row.size()) +
                               " elements (those sharing every coordinate outside the axes); this "
                               "element is number " +
                               std::to_string(at) +
                               (shown < row.size() ? "; the first " + std::to_string(shown) + " are listed" : ""));
    if (kind == SoftmaxKind::Hardmax) {
        out.policies = {"ArgMinMaxNaN", "ArgMinMaxSignedZero", "ArgMinMaxIndex", "ReduceArgTies"};
        return true;
    }
    bool nan = false, pos_inf = false, finite = false;
    for (uint64_t i : row)
        if (i < values.size()) {
            nan = nan || std::isnan(values[i]);
            pos_inf = pos_inf || values[i] == kInf;
            finite = finite || std::isfinite(values[i]);
        }
    if (nan)
        out.facts.emplace_back("decided by", "a NaN in the row: the canonical NaN"),
            out.policies.push_back("SoftmaxNaN");
    else if (pos_inf)
        out.facts.emplace_back("decided by", "+inf in the row: x - max is inf - inf, NaN"),
            out.policies.push_back("SoftmaxInfinity");
    else if (!finite && !values.empty())
        out.facts.emplace_back("decided by", "every element is -inf: 0 / 0, NaN"),
            out.policies.push_back("SoftmaxAllNegativeInfinity");
    else
        out.facts.emplace_back("decided by",
                               "the exact value rounded once (a float64 interval, else Ziv's loop in MPFR)");
    out.policies.insert(out.policies.end(), {"ComputedValue", "ZeroResult", "Subnormals"});
    return true;
}

}  // namespace dmlref::reference
