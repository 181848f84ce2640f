// Ziv's loop: rising precision until the rounding of an MPFR evaluation is decided.
#include "correctly_rounded.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlref::reference {

namespace {

mpq_class to_rational(mpfr_srcptr x) {
    mpq_class q;
    mpfr_get_q(q.get_mpq_t(), x);  // exact: x is finite
    return q;
}

}  // namespace

void release_mpfr_caches_at_thread_exit() {
    struct Release {
        ~Release() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
    };
    static thread_local Release release;
    (void)release;
}

std::optional<mpq_class> exact_power(const mpq_class& b, double e, unsigned long max_bits) {
    if (sgn(b) <= 0 || !std::isfinite(e)) return std::nullopt;
    if (e == 0) return mpq_class(1);
    // e = m * 2^-k with m an odd integer.
    int exp2 = 0;
    double frac = std::frexp(std::fabs(e), &exp2);  // |e| = frac * 2^exp2, frac in [0.5, 1)
    long k = 53 - exp2;
    double mant = std::ldexp(frac, 53);  // an integer < 2^53
    uint64_t m = uint64_t(mant);
    while (k > 0 && (m & 1) == 0) {
        m >>= 1;
        --k;
    }
    mpz_class num = b.get_num(), den = b.get_den();
    // 2^k-th roots (k >= 0 here whenever e is not an integer of more than 53 bits).
    for (long i = 0; i < k; ++i) {
        if (!mpz_perfect_square_p(num.get_mpz_t()) || !mpz_perfect_square_p(den.get_mpz_t())) return std::nullopt;
        mpz_sqrt(num.get_mpz_t(), num.get_mpz_t());
        mpz_sqrt(den.get_mpz_t(), den.get_mpz_t());
    }
    unsigned long shift = k < 0 ? (unsigned long)(-k) : 0;  // e = m * 2^shift for integer exponents
    const double bits = double(mpz_sizeinbase(num.get_mpz_t(), 2) + mpz_sizeinbase(den.get_mpz_t(), 2)) * double(m) *
                        std::ldexp(1.0, int(std::min<unsigned long>(shift, 60)));
    if (bits > double(max_bits)) return std::nullopt;
    mpz_class n, d;
    mpz_pow_ui(n.get_mpz_t(), num.get_mpz_t(), m);
    mpz_pow_ui(d.get_mpz_t(), den.get_mpz_t(), m);
    for (unsigned long i = 0; i < shift; ++i) {
        n *= n;
        d *= d;
    }
    mpq_class r = e > 0 ? mpq_class(n, d) : mpq_class(d, n);
    r.canonicalize();
    return r;
}

ZivResult ziv_evaluate(const Evaluation& f, const std::function<bool(const ZivResult&)>& decided,
                       const ZivOptions& options) {
    release_mpfr_caches_at_thread_exit();
    ZivResult r;
    for (mpfr_prec_t precision = options.first_precision; precision <= options.max_precision; precision *= 2) {
        mpfr_t y;
        mpfr_init2(y, precision);
        mpfr_clear_flags();
        const long bits = f(y, precision);
        ++r.evaluations;
        r.precision = precision;
        if (mpfr_nan_p(y)) {
            mpfr_clear(y);
            r.nan = true;
            r.exact = true;
            return r;
        }
        if (mpfr_inf_p(y)) {
            r.infinity = mpfr_sgn(y);
            mpfr_clear(y);
            r.exact = true;
            return r;
        }
        const bool zero = mpfr_zero_p(y);
        // Past MPFR's exponent range (|value| beyond 2^(2^30), e.g. B^-Beta with a huge Beta):
        // a zero that underflowed is far below every type's smallest subnormal, so it rounds to
        // a zero of its sign; an overflow above became an infinity and was taken above.
        if (zero && mpfr_underflow_p()) {
            r.lower = r.upper = 0;
            r.negative_zero = mpfr_signbit(y);
            mpfr_clear(y);
            r.exact = true;
            return r;
        }
        if (bits == kExact) {
            r.lower = r.upper = to_rational(y);
            r.negative_zero = zero && mpfr_signbit(y);
            mpfr_clear(y);
            r.exact = true;
            return r;
        }
        if (!zero) {
            // |exact - y| < 2^(EXP(y) - bits): the exact value lies strictly inside (y - e, y + e).
            const mpq_class q = to_rational(y);
            mpq_class e = 1;
            const long shift = long(mpfr_get_exp(y)) - bits;
            if (shift >= 0) mpq_mul_2exp(e.get_mpq_t(), e.get_mpq_t(), mp_bitcnt_t(shift));
            else mpq_div_2exp(e.get_mpq_t(), e.get_mpq_t(), mp_bitcnt_t(-shift));
            r.lower = q - e;
            r.upper = q + e;
            if (decided(r)) {
                mpfr_clear(y);
                return r;
            }
        }
        mpfr_clear(y);
    }
    throw std::runtime_error("correctly rounded evaluation undecided at " + std::to_string(options.max_precision) +
                             " bits: an exact case the formula's exactness test missed");
}

}  // namespace dmlref::reference
