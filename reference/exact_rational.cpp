// The one rounding of an exact rational to a binary format or an integer (docs/golden.md, Computed values).
#include "exact_rational.hpp"

#include <cmath>
#include <limits>

namespace dmlref::reference {

double round_rational_to_format(const mpq_class& v, const FloatFormat& f) {
    const int s = sgn(v);
    if (s == 0) return 0.0;  // +0: sums start from +0
    mpz_class a = abs(v.get_num());
    const mpz_class& b = v.get_den();
    // L = floor(log2 |v|): |v| in [2^L, 2^(L+1)).
    long L = long(mpz_sizeinbase(a.get_mpz_t(), 2)) - long(mpz_sizeinbase(b.get_mpz_t(), 2));
    {
        // |v| >= 2^L  <=>  a >= b * 2^L (shifting whichever side keeps integers).
        mpz_class lhs = a, rhs = b;
        if (L >= 0) rhs <<= mp_bitcnt_t(L);
        else lhs <<= mp_bitcnt_t(-L);
        if (lhs < rhs) --L;
    }
    // The quantum 2^E of the result: p bits below the leading one, never below the smallest
    // subnormal.
    const long E = std::max(L - (f.precision - 1), f.min_exponent);
    mpz_class num = a, den = b;
    if (E < 0) num <<= mp_bitcnt_t(-E);
    else den <<= mp_bitcnt_t(E);
    mpz_class q, r;
    mpz_fdiv_qr(q.get_mpz_t(), r.get_mpz_t(), num.get_mpz_t(), den.get_mpz_t());
    r <<= 1;
    const int c = cmp(r, den);
    if (c > 0 || (c == 0 && mpz_odd_p(q.get_mpz_t()))) ++q;
    // q <= 2^p; the value q * 2^E overflows when its leading binade is past max_exponent.
    const long top = E + long(mpz_sizeinbase(q.get_mpz_t(), 2)) - 1;
    const double inf = std::numeric_limits<double>::infinity();
    if (sgn(q) != 0 && top > f.max_exponent) return s < 0 ? -inf : inf;
    // q < 2^54 and q * 2^E is representable in double (every format here is inside double's).
    const double m = double(q.get_ui());
    const double d = std::ldexp(m, int(E));
    if (d == 0.0) return s < 0 ? -0.0 : 0.0;  // only when q rounded to 0: a value below half the smallest subnormal
    return s < 0 ? -d : d;
}

mpz_class round_rational_to_integer(const mpq_class& v) {
    mpz_class q, r;
    mpz_fdiv_qr(q.get_mpz_t(), r.get_mpz_t(), v.get_num_mpz_t(), v.get_den_mpz_t());  // r in [0, den)
    r <<= 1;
    const int c = cmp(r, v.get_den());
    if (c > 0 || (c == 0 && mpz_odd_p(q.get_mpz_t()))) ++q;
    return q;
}

}  // namespace dmlref::reference
