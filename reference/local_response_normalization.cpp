// DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION and _LOCAL_RESPONSE_NORMALIZATION_GRAD.
//
// Spec: DML_LOCAL_RESPONSE_NORMALIZATION and _GRAD_OPERATOR_DESC (DirectML API reference: structs,
// formula, the 2018 page's region, gradient); rules in docs/rules.md; open questions in
// docs/golden.md, "Local response normalization" and "Computed values".
//
//   L = LocalSize. Along each windowed dimension (CrossChannel: the channel, dimension 1;
//   otherwise every dimension after the channel), element c's region is
//     [c - floor((L - 1) / 2), c + ceil((L - 1) / 2)] clipped to the tensor (ONNX, 2018 page)
//   S_c = sum of X^2 over c's region;  B_c = Bias + (Alpha / L) * S_c  (L even where clipped)
//   LOCAL_RESPONSE_NORMALIZATION       Y_c = X_c * B_c^(-Beta)   (the page's X / B^Beta)
//   LOCAL_RESPONSE_NORMALIZATION_GRAD  dX_j = dY_j * B_j^(-Beta)
//        - (2 * Alpha * Beta / L) * X_j * sum over {c : j in c's region} of dY_c * X_c * B_c^(-Beta - 1)
//   (the derivative of the forward map; {c : j in c's region} is the mirrored window
//   [j - ceil((L - 1) / 2), j + floor((L - 1) / 2)], clipped).
//
// Decisions (docs/golden.md, "Local response normalization"):
//   - The value is the exact real formula rounded once: S and B are exact rationals (GMP), the
//     power and products are evaluated in MPFR at rising precision until the rounding to the
//     output type is decided (correctly_rounded.hpp); exact results (16^-0.75 = 1/8, Beta = 0,
//     X = 0) come out exact.
//   - Non-finite inputs, B <= 0 and the like follow IEEE's rules on the exact formula (MPFR's
//     pow, mul and add on special values): B < 0 with a non-integer Beta is NaN, 0^(-Beta) is
//     +inf, 0 * inf is NaN; NaN results are the canonical NaN. The sign of a forward zero
//     follows X; an exact zero of the grad is +0 (a sum, docs/golden.md "Computed values").
//   - CrossChannel FALSE: the same clipped window on every dimension after the channel (H and
//     W for 4-D), divisor L as the page writes (not L^2).
//   - Every rank from 2 to 8 and every type is evaluated (DirectML's tables: 4-D floats).
#include "local_response_normalization.hpp"
#include "common.hpp"
#include "correctly_rounded.hpp"
#include "fast/local_response_normalization.hpp"
#include "dmlref/explain.hpp"
#include "lrn_region.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace dmlref::reference {

namespace {

using namespace lrn_region;

void validate_lrn(const LrnParams& p, Diagnostics& diags) {
    const uint32_t rank = p.X.DimensionCount();
    if (rank < 2 || rank > kMaxDimensionCount)
        diags.error("/desc/InputTensor/Sizes", rule(p.op, "rank"),
                    "InputTensor has " + std::to_string(rank) +
                        " dimensions; local response normalization needs 2 to 8 "
                        "(batch, channel and up to 6 more)");
    if (p.CrossChannel > 1)
        diags.error("/desc/CrossChannel", rule(p.op, "cross-channel"),
                    "CrossChannel is " + std::to_string(p.CrossChannel) + "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
    if (p.LocalSize == 0)
        diags.error("/desc/LocalSize", rule(p.op, "local-size"), "LocalSize is 0; it must be at least 1");
    for (auto [name, v] : {std::pair{"Alpha", p.Alpha}, std::pair{"Beta", p.Beta}, std::pair{"Bias", p.Bias}})
        if (!std::isfinite(v))
            diags.error(desc_path(name), rule(p.op, "parameter-finite"),
                        std::string(name) + " is not finite; Alpha, Beta and Bias must be finite (docs/golden.md)");
}

// S, exactly, or NaN / +inf when a value of the region is not finite.
struct Square {
    mpq_class value;
    int special = 0;  // 0 finite, 1 +inf, 2 NaN
};

// S of element i, exactly, or NaN / +inf when a value of its region is not finite.
template <class T> Square square_of(const RegionGeometry& g, const std::vector<T>& x, uint64_t i) {
    Square q;
    for_each_in_box(g, coord_of(g, i), g.before, g.after, [&](uint64_t j) {
        if constexpr (!std::is_integral_v<T>) {
            if (is_nan(x[j])) {
                q.special = 2;
                return;
            }
            if (std::isinf(widen(x[j]))) {
                q.special = std::max(q.special, 1);
                return;
            }
        }
        const mpq_class v = exact_value(x[j]);
        q.value += v * v;
    });
    return q;
}

template <class T> std::vector<Square> squares(const RegionGeometry& g, const std::vector<T>& x) {
    std::vector<Square> s(x.size());
    for (uint64_t i = 0; i < x.size(); ++i) s[i] = square_of(g, x, i);
    return s;
}

// B = Bias + (Alpha / L) * S into b at b's precision; the ternary value (0: exact).
int set_b(mpfr_ptr b, const Square& s, const LrnParams& p) {
    if (s.special != 0) {
        mpfr_set_inf(b, 1);
        if (s.special == 2) mpfr_set_nan(b);
        mpfr_mul_d(b, b, double(p.Alpha), MPFR_RNDN);
        mpfr_div_ui(b, b, p.LocalSize, MPFR_RNDN);
        mpfr_add_d(b, b, double(p.Bias), MPFR_RNDN);
        return 0;  // special values are exact
    }
    const mpq_class B = mpq_class(double(p.Bias)) + mpq_class(double(p.Alpha)) * s.value / mpq_class(p.LocalSize);
    return mpfr_set_q(b, B.get_mpq_t(), MPFR_RNDN);
}

// A value of any element type into an MPFR number of >= 64 bits: exact.
template <class T> void set_value(mpfr_ptr r, T v) {
    if constexpr (std::is_integral_v<T>) {
        const mpq_class q = exact_value(v);
        mpfr_set_q(r, q.get_mpq_t(), MPFR_RNDN);
    } else {
        mpfr_set_d(r, widen(v), MPFR_RNDN);
    }
}

// log2 bound of the condition factor: ceil(log2(|Beta| + k)).
long guard_bits(double beta, double k) { return long(std::ceil(std::log2(std::fabs(beta) + k))) + 2; }

// ---- Forward -------------------------------------------------------------------------------

template <class T> T lrn_value(const LrnParams& p, T x, const Square& s) {
    const double beta = double(p.Beta);
    // A rational power (the exactness test of a dyadic exponent): the value is rational.
    bool finite_x = true;
    if constexpr (!std::is_integral_v<T>) finite_x = std::isfinite(widen(x));
    if (finite_x && s.special == 0) {
        const mpq_class B = mpq_class(double(p.Bias)) + mpq_class(double(p.Alpha)) * s.value / mpq_class(p.LocalSize);
        if (sgn(B) > 0)
            if (const auto power = exact_power(B, -beta)) {
                if constexpr (!std::is_integral_v<T>)
                    if (widen(x) == 0) return x;  // a zero keeps its sign
                return round_rational<T>(mpq_class(exact_value(x) * *power));
            }
    }
    return correctly_rounded<T>([&](mpfr_ptr r, mpfr_prec_t w) -> long {
        mpfr_t b, t, xv;
        mpfr_inits2(w, b, t, xv, (mpfr_ptr) nullptr);
        set_value(xv, x);
        const int t0 = set_b(b, s, p);
        // B^(-Beta): -Beta is exact in any precision >= 24 bits.
        mpfr_t nb;
        mpfr_init2(nb, 64);
        mpfr_set_d(nb, -beta, MPFR_RNDN);
        const int tp = mpfr_pow(t, b, nb, MPFR_RNDN);
        const int tm = mpfr_mul(r, xv, t, MPFR_RNDN);
        // X = 0 times a finite power is an exact zero whatever the power's rounding.
        const bool exact = tm == 0 && ((t0 == 0 && tp == 0) || (mpfr_zero_p(xv) && mpfr_number_p(t)));
        mpfr_clears(b, t, xv, nb, (mpfr_ptr) nullptr);
        if (exact) return kExact;
        // Relative error: B's rounding amplified by |Beta|, the power's and the product's.
        return long(w) - guard_bits(beta, 3);
    });
}

void lrn(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) {
    const LrnParams p = params(d);
    const RegionGeometry g = geometry_of(p);
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
        const auto s = squares(g, x);
        write_logical<T>(d.OutputTensor, b.at("OutputTensor"), [&](uint64_t i) { return lrn_value<T>(p, x[i], s[i]); });
    });
}

// ---- Grad ----------------------------------------------------------------------------------

// With every B involved finite and non-zero (and > 0 unless Beta is an integer),
// dX_j = sum over groups g of K_g * B_g^(-Beta - 1), K_g rational: dY_j * B_j for the first term
// (dY_j B_j^-Beta = dY_j B_j B_j^(-Beta-1)) and -(2 Alpha Beta / L) X_j dY_c X_c for each reader c.
// A group holds the B's whose ratio to its first B_g has a rational power: B = r B_g with
// r^(-Beta-1) = f rational gives K B^(-Beta-1) = (K f) B_g^(-Beta-1) (12 = 4 * 3 with Beta 0.5:
// 12^-1.5 = 3^-1.5 / 8). What is left are powers B_g^(-Beta-1) whose ratios are irrational, and
// those are linearly independent over the rationals (radicals of rationals: Besicovitch, Mordell),
// so the sum is 0 exactly when every K_g is 0: cancellations that are exact come out as exact zeros
// (+0), and every other sum is non-zero, which Ziv's loop decides.
using PowerGroups = std::vector<std::pair<mpq_class, mpq_class>>;  // (B_g, K_g)

// b^e for a rational b != 0: exact_power for b > 0; for b < 0 only an integer e gives a real
// power, (-1)^e |b|^e. nullopt when it is not rational (or too large for exact_power).
std::optional<mpq_class> signed_power(const mpq_class& b, double e) {
    if (sgn(b) > 0) return exact_power(b, e);
    if (sgn(b) == 0 || e != std::trunc(e)) return std::nullopt;
    auto p = exact_power(mpq_class(-b), e);
    if (p && std::fmod(e, 2.0) != 0) *p = -*p;
    return p;
}

// S: the squares, indexed by element (a std::vector<Square>, or LazySquares).
template <class T, class S>
std::optional<PowerGroups> grouped_terms(const LrnParams& p, const std::vector<T>& x, const std::vector<T>& dy,
                                         const S& s, uint64_t j, const std::vector<uint64_t>& readers) {
    auto finite = [](T v) {
        if constexpr (std::is_integral_v<T>) return true;
        else return std::isfinite(widen(v));
    };
    const mpq_class alpha(double(p.Alpha)), bias(double(p.Bias)), beta(double(p.Beta)), L(p.LocalSize);
    const double e = -double(p.Beta) - 1.0;  // exact: Beta is a float
    const bool integer_beta = e == std::trunc(e);
    auto b_of = [&](uint64_t c) -> mpq_class { return bias + alpha * s[c].value / L; };
    // A real power of B: B > 0, or B < 0 with an integer exponent.
    auto usable = [&](uint64_t c) {
        if (!finite(dy[c]) || !finite(x[c]) || s[c].special) return false;
        const int sign = sgn(b_of(c));
        return sign > 0 || (sign < 0 && integer_beta);
    };
    if (!usable(j)) return std::nullopt;
    for (uint64_t c : readers)
        if (!usable(c)) return std::nullopt;
    PowerGroups groups;
    auto add = [&](const mpq_class& B, const mpq_class& K) {
        if (sgn(K) == 0) return;  // an exact zero term
        for (auto& [b, k] : groups)
            if (b == B) {
                k += K;
                return;
            }
        // A rational ratio's power (integer exponents need no grouping: every power is rational).
        // -Beta - 1 is m 2^-j with j >= 1 here, so B / b must be the square of a rational, which
        // needs num(B) den(B) num(b) den(b) to be a square: a cheap test first (residues, mostly).
        if (!integer_beta)
            for (auto& [b, k] : groups) {
                const mpz_class n = B.get_num() * B.get_den() * b.get_num() * b.get_den();
                if (!mpz_perfect_square_p(n.get_mpz_t())) continue;
                if (auto f = exact_power(mpq_class(B / b), e)) {
                    k += K * *f;
                    return;
                }
            }
        groups.emplace_back(B, K);
    };
    add(b_of(j), exact_value(dy[j]) * b_of(j));
    const mpq_class coef = 2 * alpha * beta / L * exact_value(x[j]);
    for (uint64_t c : readers) add(b_of(c), -coef * exact_value(dy[c]) * exact_value(x[c]));
    return groups;
}

template <class T> T grouped_value(const PowerGroups& groups, double beta) {
    // Every power rational: the sum is rational, rounded once.
    mpq_class exact = 0;
    bool rational = true;
    for (const auto& [B, K] : groups) {
        if (sgn(K) == 0) continue;
        const auto power = signed_power(B, -beta - 1.0);
        if (!power) {
            rational = false;
            break;
        }
        exact += K * *power;
    }
    if (rational) return round_rational<T>(exact);
    return correctly_rounded<T>([&](mpfr_ptr r, mpfr_prec_t w) -> long {
        mpfr_t b, t, k, e, mag, nb1;
        mpfr_inits2(w, b, t, k, (mpfr_ptr) nullptr);
        mpfr_inits2(32, e, mag, (mpfr_ptr) nullptr);
        mpfr_init2(nb1, 64);
        mpfr_set_d(nb1, -beta - 1.0, MPFR_RNDN);  // exact: Beta is a float
        mpfr_set_zero(r, 1);
        mpfr_set_zero(mag, 1);
        bool inexact = false;
        for (const auto& [B, K] : groups) {
            if (sgn(K) == 0) continue;  // an exact zero term
            inexact = (mpfr_set_q(b, B.get_mpq_t(), MPFR_RNDN) != 0) || inexact;
            inexact = (mpfr_pow(t, b, nb1, MPFR_RNDN) != 0) || inexact;
            inexact = (mpfr_set_q(k, K.get_mpq_t(), MPFR_RNDN) != 0) || inexact;
            inexact = (mpfr_mul(t, t, k, MPFR_RNDN) != 0) || inexact;
            inexact = (mpfr_add(r, r, t, MPFR_RNDN) != 0) || inexact;
            mpfr_abs(e, t, MPFR_RNDU);
            mpfr_add(mag, mag, e, MPFR_RNDU);
        }
        long bits = kExact;
        if (inexact) {
            bits = 0;
            if (!mpfr_zero_p(r)) {
                // Each term: B's rounding amplified by |Beta| + 1, the power, K's rounding, the
                // product; then one rounding per addition: |error| <= 2^(1-w) (|Beta| + 5 + G) sum|terms|.
                mpfr_mul_d(mag, mag, std::fabs(beta) + 5 + double(groups.size()), MPFR_RNDU);
                mpfr_mul_2si(mag, mag, 1 - long(w), MPFR_RNDU);
                bits = long(mpfr_get_exp(r)) - long(mpfr_get_exp(mag));
            }
        }
        mpfr_clears(b, t, k, e, mag, nb1, (mpfr_ptr) nullptr);
        return bits;
    });
}

template <class T, class S>
T lrn_grad_value(const LrnParams& p, const RegionGeometry& g, const std::vector<T>& x, const std::vector<T>& dy,
                 const S& s, uint64_t j) {
    const double beta = double(p.Beta);
    std::vector<uint64_t> readers;  // {c : j in c's region}: the mirrored window
    for_each_in_box(g, coord_of(g, j), g.after, g.before, [&](uint64_t c) { readers.push_back(c); });
    if (auto grouped = grouped_terms(p, x, dy, s, j, readers)) return grouped_value<T>(*grouped, beta);
    return correctly_rounded<T>([&](mpfr_ptr r, mpfr_prec_t w) -> long {
        // Each value carries whether it is inexact; a product with an exact zero factor (and a
        // finite other factor) is an exact zero whatever the other factor's rounding.
        mpfr_t b, t, u, v, m, mag, e1, e2, coef;
        mpfr_inits2(w, b, t, u, v, m, coef, (mpfr_ptr) nullptr);
        mpfr_inits2(32, mag, e1, e2, (mpfr_ptr) nullptr);
        mpfr_t nb, nb1;
        mpfr_inits2(64, nb, nb1, (mpfr_ptr) nullptr);
        mpfr_set_d(nb, -beta, MPFR_RNDN);
        mpfr_set_d(nb1, -beta - 1.0, MPFR_RNDN);  // exact: Beta is a float
        auto exact_zero = [](mpfr_srcptr a, bool inexact) { return !inexact && mpfr_zero_p(a); };
        auto product = [&](mpfr_ptr out, mpfr_srcptr a, bool ia, mpfr_srcptr c, bool ic) {
            const int tern = mpfr_mul(out, a, c, MPFR_RNDN);
            const bool zero_factor = (exact_zero(a, ia) && mpfr_number_p(c)) || (exact_zero(c, ic) && mpfr_number_p(a));
            return tern != 0 || ((ia || ic) && !zero_factor);
        };
        // T1 = dY_j * B_j^(-Beta) into u.
        bool inexact_t = set_b(b, s[j], p) != 0;
        inexact_t = (mpfr_pow(t, b, nb, MPFR_RNDN) != 0) || inexact_t;
        set_value(v, dy[j]);
        const bool inexact_u = product(u, v, false, t, inexact_t);
        // M = sum of dY_c * X_c * B_c^(-Beta - 1) into m; mag = sum of |terms| (rounded up).
        bool inexact_m = false;
        mpfr_set_zero(m, 1);
        mpfr_set_zero(mag, 1);
        for (uint64_t c : readers) {
            bool it = set_b(b, s[c], p) != 0;
            it = (mpfr_pow(t, b, nb1, MPFR_RNDN) != 0) || it;
            set_value(v, dy[c]);
            it = product(t, t, it, v, false);
            set_value(v, x[c]);
            it = product(t, t, it, v, false);
            inexact_m = (mpfr_add(m, m, t, MPFR_RNDN) != 0) || inexact_m || it;
            mpfr_abs(e1, t, MPFR_RNDU);
            mpfr_add(mag, mag, e1, MPFR_RNDU);
        }
        // T2 = (2 Alpha Beta / L) * X_j * M; dX = T1 - T2.
        mpfr_set_d(coef, 2.0 * double(p.Alpha), MPFR_RNDN);             // exact
        bool inexact_c = mpfr_mul_d(coef, coef, beta, MPFR_RNDN) != 0;  // exact when w >= 48
        inexact_c = (mpfr_div_ui(coef, coef, p.LocalSize, MPFR_RNDN) != 0) || inexact_c;
        set_value(v, x[j]);
        inexact_c = product(coef, coef, inexact_c, v, false);
        const bool inexact_t2 = product(t, coef, inexact_c, m, inexact_m);
        const bool inexact = (mpfr_sub(r, u, t, MPFR_RNDN) != 0) || inexact_u || inexact_t2;
        long bits = kExact;
        if (inexact && mpfr_number_p(r) && !mpfr_zero_p(r)) {
            // |error| <= 2^(1-w) * ((|Beta| + 3) |T1| + (|Beta| + n + 9) |coef X_j| sum|P_c| + |dX|).
            const double n = double(readers.size());
            mpfr_abs(e1, u, MPFR_RNDU);
            mpfr_mul_d(e1, e1, std::fabs(beta) + 3, MPFR_RNDU);
            mpfr_abs(e2, coef, MPFR_RNDU);
            mpfr_mul(e2, e2, mag, MPFR_RNDU);
            mpfr_mul_d(e2, e2, std::fabs(beta) + n + 9, MPFR_RNDU);
            mpfr_add(e1, e1, e2, MPFR_RNDU);
            mpfr_abs(e2, r, MPFR_RNDU);
            mpfr_add(e1, e1, e2, MPFR_RNDU);
            mpfr_mul_2si(e1, e1, 1 - long(w), MPFR_RNDU);
            bits = long(mpfr_get_exp(r)) - long(mpfr_get_exp(e1));
        } else if (inexact) {
            bits = 0;  // an inexact zero: no relative bound; more precision
        } else if (mpfr_zero_p(r)) {
            // An exact zero is +0 (docs/golden.md, Computed values): IEEE's signed zeros in T1 - T2
            // (dY_j = +0 times a negative B_j^-Beta gives -0, and -0 - +0 is -0) are not the value.
            mpfr_set_zero(r, 1);
        }
        mpfr_clears(b, t, u, v, m, coef, mag, e1, e2, nb, nb1, (mpfr_ptr) nullptr);
        return bits;
    });
}

// The squares of the elements asked for, each computed once: the fast path's undecided elements
// need those of their own region and of the regions that hold them, not the whole tensor's.
template <class T> struct LazySquares {
    const RegionGeometry& g;
    const std::vector<T>& x;
    mutable std::unordered_map<uint64_t, Square> cache;
    const Square& operator[](uint64_t i) const {
        auto it = cache.find(i);
        if (it == cache.end()) it = cache.emplace(i, square_of(g, x, i)).first;
        return it->second;
    }
};

void lrn_grad(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    const LrnParams p = params(d);
    const RegionGeometry g = geometry_of(p);
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
        const auto dy = logical_values<T>(d.InputGradientTensor, b.at("InputGradientTensor"));
        const auto s = squares(g, x);
        write_logical<T>(d.OutputGradientTensor, b.at("OutputGradientTensor"),
                         [&](uint64_t j) { return lrn_grad_value<T>(p, g, x, dy, s, j); });
    });
}

// The fast paths (reference/fast/local_response_normalization.cpp): FLOAT32 and FLOAT16 values
// in float64 with an error bound; the elements they leave undecided are the plain loops' lrn_value
// and lrn_grad_value (the grad's squares looked up lazily, for those elements only).
template <class D> bool lrn_fast(const D& d, const Bindings& b) {
    constexpr bool grad = std::is_same_v<D, DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>;
    const DataType t = d.InputTensor.DataType;
    if (t != DataType::FLOAT32 && t != DataType::FLOAT16) return false;
    const LrnParams p = params(d);
    const RegionGeometry g = geometry_of(p);
    bool done = false;
    dispatch(t, [&]<class T>() {
        if constexpr (std::is_same_v<T, float> || is_half_v<T>) {
            const auto x = logical_values<T>(d.InputTensor, b.at("InputTensor"));
            std::vector<T> dy;
            if constexpr (grad) dy = logical_values<T>(d.InputGradientTensor, b.at("InputGradientTensor"));
            std::vector<T> y(x.size());
            std::vector<uint8_t> undecided(x.size());
            if (!(grad ? fast::lrn_grad_decide<T>(p, g, x, dy, y, undecided)
                       : fast::lrn_decide<T>(p, g, x, y, undecided)))
                return;
            const LazySquares<T> s{g, x, {}};
            for (uint64_t i = 0; i < x.size(); ++i)
                if (undecided[i]) y[i] = grad ? lrn_grad_value<T>(p, g, x, dy, s, i) : lrn_value<T>(p, x[i], s[i]);
            auto value = [&](uint64_t i) { return y[i]; };
            if constexpr (grad) write_logical<T>(d.OutputGradientTensor, b.at("OutputGradientTensor"), value);
            else write_logical<T>(d.OutputTensor, b.at("OutputTensor"), value);
            done = true;
        }
    });
    return done;
}

// ---- Tolerance (docs/tolerance.md, "Local response normalization") -------------------------

// Per element, the number of terms (the region's size; the grad: 1 + the elements whose region
// holds it); the bound itself comes from lrn_bounds (local_response_normalization_bound.cpp).
std::optional<Tolerance> lrn_tolerance(const LrnParams& p, bool grad) {
    Tolerance t;
    if (!is_float(p.X.DataType)) {
        t.Why =
            "integer data is outside DirectML's tables; the golden is the exact value rounded half to even "
            "(docs/golden.md, IntegerResult): bit for bit";
        return t;
    }
    const RegionGeometry g = geometry_of(p);
    std::vector<uint32_t> terms;
    for (uint64_t i = 0; i < element_count(p.X); ++i) {
        uint64_t n = grad ? 1 : 0;
        for_each_in_box(g, coord_of(g, i), grad ? g.after : g.before, grad ? g.before : g.after,
                        [&](uint64_t) { ++n; });
        terms.push_back(uint32_t(std::min<uint64_t>(n, UINT32_MAX)));
    }
    t.Kind = "Summed";
    t.MaxTerms = terms.empty() ? 0 : *std::max_element(terms.begin(), terms.end());
    t.Terms = std::move(terms);
    t.Why =
        "the exact formula rounded once (docs/golden.md, Computed values). Terms gives each element's number of terms; "
        "dmlref diff bounds each element by a forward error analysis of the squares, the sum, B, the power (stated "
        "accuracy, calibrated on a GPU) and the products (docs/tolerance.md, Local response normalization)";
    return t;
}

}  // namespace

void validate(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, Diagnostics& diags) {
    require_same_data_type(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}},
                           "lrn.same-data-type");
    require_same_sizes(diags, {{"InputTensor", d.InputTensor}, {"OutputTensor", d.OutputTensor}}, "lrn.same-sizes");
    validate_lrn(params(d), diags);
}

void validate(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    const std::initializer_list<Named> all = {{"InputTensor", d.InputTensor},
                                              {"InputGradientTensor", d.InputGradientTensor},
                                              {"OutputGradientTensor", d.OutputGradientTensor}};
    require_same_data_type(diags, all, "lrn-grad.same-data-type");
    require_same_sizes(diags, all, "lrn-grad.same-sizes");
    validate_lrn(params(d), diags);
}

void evaluate(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) { lrn(d, b); }
void evaluate(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b) { lrn_grad(d, b); }
bool lrn_fast_path(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, const Bindings& b) {
    return lrn_fast(d, b);
}
bool lrn_fast_path(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    return lrn_fast(d, b);
}

std::optional<Tolerance> tolerance(const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? lrn_tolerance(params(d), false) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC& d,
                                   std::string_view output) {
    return output == "OutputGradientTensor" && valid(d, validate) ? lrn_tolerance(params(d), true) : std::nullopt;
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

// The element's clipped region (the X it squares), and for the grad the mirrored window of the
// elements c whose region holds it.
bool explain_lrn(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    (void)output;
    return visit_as<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC,
                    DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>(c.op.Desc, [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        constexpr bool grad = std::is_same_v<D, DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>;
        if constexpr (std::is_same_v<D, DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC> || grad) {
            if (!valid(d, validate)) return false;
            const LrnParams p = params(d);
            const RegionGeometry g = geometry_of(p);
            const RegionCoord at = coord_of(g, flat);
            auto box = [&](int64_t down, int64_t up) {
                std::string text = "InputTensor[";
                for (size_t k = 0; k < g.sizes.size(); ++k) {
                    text += k ? "," : "";
                    if (k < g.first_windowed || k >= g.last_windowed) {
                        text += std::to_string(at[k]);
                        continue;
                    }
                    text += std::to_string(std::max<int64_t>(0, at[k] - down)) + ".." +
                            std::to_string(std::min<int64_t>(g.sizes[k] - 1, at[k] + up));
                }
                return text + "]";
            };
            out.facts.emplace_back("region", box(g.before, g.after) + " (clipped; LocalSize " +
                                                 std::to_string(p.LocalSize) +
                                                 (p.CrossChannel ? ", across channels)" : ", within the channel)"));
            out.facts.emplace_back("formula",
                                   grad ? "dY_j * B_j^(-Beta) - (2 Alpha Beta / L) X_j sum dY_c X_c B_c^(-Beta - 1)"
                                        : "X * B^(-Beta), B = Bias + (Alpha / L) * sum of X^2 over the region");
            for_each_in_box(g, at, g.before, g.after, [&](uint64_t i) {
                out.inputs.push_back(
                    input_element(c, "InputTensor", nd_coordinate(g.sizes, i), i == flat ? "x" : "region"));
            });
            if (grad) {
                out.facts.emplace_back("regions holding it", box(g.after, g.before) + " (the mirrored window)");
                for_each_in_box(g, at, g.after, g.before, [&](uint64_t i) {
                    out.inputs.push_back(input_element(c, "InputGradientTensor", nd_coordinate(g.sizes, i), "dY"));
                });
            }
            out.policies.insert(out.policies.end(),
                                {"LrnWindow", "LrnEvenLocalSize", "LrnDivisor", "LrnSpecialValues"});
            if (!p.CrossChannel) out.policies.push_back("LrnWithinChannel");
            if (grad) out.policies.push_back("LrnGradTerms");
            return true;
        } else {
            return false;
        }
    });
}

}  // namespace dmlref::reference
