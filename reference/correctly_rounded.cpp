// Ziv's loop: rising precision until the rounding of an MPFR evaluation is decided.
#include "correctly_rounded.hpp"

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

ZivResult ziv_evaluate(const Evaluation& f, const std::function<bool(const ZivResult&)>& decided, const ZivOptions& options) {
    ZivResult r;
    for (mpfr_prec_t precision = options.first_precision; precision <= options.max_precision; precision *= 2) {
        mpfr_t y;
        mpfr_init2(y, precision);
        const long bits = f(y, precision);
        ++r.evaluations;
        r.precision = precision;
        if (mpfr_nan_p(y)) { mpfr_clear(y); r.nan = true; r.exact = true; return r; }
        if (mpfr_inf_p(y)) { r.infinity = mpfr_sgn(y); mpfr_clear(y); r.exact = true; return r; }
        const bool zero = mpfr_zero_p(y);
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
            if (decided(r)) { mpfr_clear(y); return r; }
        }
        mpfr_clear(y);
    }
    throw std::runtime_error("correctly rounded evaluation undecided at " + std::to_string(options.max_precision) +
                             " bits: an exact case the formula's exactness test missed");
}

}  // namespace dmlref::reference
