// The per-element bound of LOCAL_RESPONSE_NORMALIZATION and _GRAD (docs/tolerance.md, "Local
// response normalization"): a forward error analysis of each formula a backend may evaluate.
//
//   S_c = sum of X_j^2 over c's region;  B_c = Bias + (Alpha / L) * S_c
//   forward  Y_c = X_c * B_c^(-Beta)   or   X_c / B_c^Beta
//   grad     dX_j = dY_j B_j^(-Beta) - (2 Alpha Beta / L) X_j sum_c dY_c X_c B_c^(-Beta-1)   (as written), or
//            dY_j / D_j - 2 X_j sum_c ((dY_c ((X_c / D_c) / D_c)) (Beta B_c^(Beta-1)) Alpha) / L,
//            D = B^Beta   (the chain rule as autograd evaluates it: PyTorch's local_response_norm)
// with (Alpha / L) S in any of its three associations; the bound is the worst of the variants.
#include "local_response_normalization.hpp"
#include "lrn_region.hpp"

#include "dmlref/terms.hpp"

#include <cmath>
#include <limits>

namespace dmlref::reference {

namespace {

using namespace lrn_region;

// B = Bias + (Alpha / L) S with S the sum of the region's squares, in association `k`.
Quantity b_of(const Arithmetic& ar, const LrnParams& p, const std::vector<double>& region, int k) {
    std::vector<Quantity> squares;
    for (double v : region) {
        const Quantity x = ar.input(v);
        squares.push_back(ar.mul(x, x));
    }
    const Quantity S = ar.sum(squares), alpha = ar.constant(p.Alpha), L = ar.constant(p.LocalSize);
    const Quantity scaled = k == 0   ? ar.mul(ar.div(alpha, L), S)
                            : k == 1 ? ar.mul(alpha, ar.div(S, L))
                                     : ar.div(ar.mul(alpha, S), L);
    return ar.add(ar.constant(p.Bias), scaled);
}

double exact_b(const LrnParams& p, const std::vector<double>& region) {
    double s = 0;
    for (double v : region) s += v * v;
    return double(p.Bias) + double(p.Alpha) / p.LocalSize * s;
}

bool finite_all(const std::vector<double>& v) {
    for (double x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

std::vector<double> region_of(const RegionGeometry& g, const std::vector<double>& x, uint64_t c) {
    std::vector<double> r;
    for_each_in_box(g, coord_of(g, c), g.before, g.after, [&](uint64_t j) { r.push_back(x[j]); });
    return r;
}

void forward_bounds(const LrnParams& p, const std::vector<double>& x, const ArithmeticProfile& prof, TermSink& sink) {
    const RegionGeometry g = geometry_of(p);
    const double beta = p.Beta;
    for (uint64_t c = 0; c < x.size(); ++c) {
        const std::vector<double> region = region_of(g, x, c);
        if (!finite_all(region)) {
            sink.set_computed(c, kInf, 0, uint32_t(region.size()), false, true);
            continue;
        }
        const double scale = std::fabs(x[c]) * std::pow(std::fabs(exact_b(p, region)), -beta);
        const double error = computed_error(prof, p.X.DataType, [&](const Arithmetic& ar) {
            Quantity q{0, 0, 0};
            for (int k = 0; k < 3; ++k) {
                const Quantity B = b_of(ar, p, region, k), X = ar.input(x[c]);
                q = worst(q, worst(ar.mul(X, ar.pow(B, -beta)), ar.div(X, ar.pow(B, beta))));
            }
            return q;
        });
        sink.set_computed(c, error, std::isfinite(scale) ? scale : 0, uint32_t(region.size()));
    }
}

void grad_bounds(const LrnParams& p, const std::vector<double>& x, const std::vector<double>& dy,
                 const ArithmeticProfile& prof, TermSink& sink) {
    const RegionGeometry g = geometry_of(p);
    const double beta = p.Beta, alpha = p.Alpha, L = p.LocalSize;
    std::vector<std::vector<double>> regions(x.size());
    for (uint64_t c = 0; c < x.size(); ++c) regions[c] = region_of(g, x, c);
    for (uint64_t j = 0; j < x.size(); ++j) {
        std::vector<uint64_t> readers;  // {c : j in c's region}
        for_each_in_box(g, coord_of(g, j), g.after, g.before, [&](uint64_t c) { readers.push_back(c); });
        bool finite = std::isfinite(dy[j]) && finite_all(regions[j]);
        for (uint64_t c : readers) finite = finite && std::isfinite(dy[c]) && finite_all(regions[c]);
        if (!finite) {
            sink.set_computed(j, kInf, 0, uint32_t(readers.size() + 1), false, true);
            continue;
        }
        double scale = std::fabs(dy[j]) * std::pow(std::fabs(exact_b(p, regions[j])), -beta);
        for (uint64_t c : readers)
            scale += std::fabs(2 * alpha * beta / L * x[j] * dy[c] * x[c]) *
                     std::pow(std::fabs(exact_b(p, regions[c])), -beta - 1);
        const double error = computed_error(prof, p.X.DataType, [&](const Arithmetic& ar) {
            Quantity q{0, 0, 0};
            const Quantity Xj = ar.input(x[j]), dYj = ar.input(dy[j]);
            for (int k = 0; k < 3; ++k) {
                const Quantity Bj = b_of(ar, p, regions[j], k);
                // As written: B^(-Beta) and B^(-Beta-1), the constant 2 Alpha Beta / L.
                std::vector<Quantity> terms;
                for (uint64_t c : readers)
                    terms.push_back(
                        ar.mul(ar.mul(ar.input(dy[c]), ar.input(x[c])), ar.pow(b_of(ar, p, regions[c], k), -beta - 1)));
                const Quantity coef = ar.div(ar.mul(ar.constant(2 * alpha), ar.constant(beta)), ar.constant(L));
                const Quantity t1 = ar.mul(dYj, ar.pow(Bj, -beta));
                q = worst(q, ar.add(t1, ar.neg(ar.mul(ar.mul(coef, Xj), ar.sum(terms)))));
                // The chain rule through D = B^Beta, as autograd evaluates it.
                std::vector<Quantity> chain;
                for (uint64_t c : readers) {
                    const Quantity Bc = b_of(ar, p, regions[c], k), Dc = ar.pow(Bc, beta);
                    const Quantity m = ar.mul(ar.input(dy[c]), ar.div(ar.div(ar.input(x[c]), Dc), Dc));
                    const Quantity h = ar.mul(m, ar.mul(ar.constant(beta), ar.pow(Bc, beta - 1)));
                    chain.push_back(ar.div(ar.mul(h, ar.constant(alpha)), ar.constant(L)));
                }
                const Quantity t2 = ar.mul(ar.constant(2), ar.mul(Xj, ar.sum(chain)));
                q = worst(q, ar.add(ar.div(dYj, ar.pow(Bj, beta)), ar.neg(t2)));
            }
            return q;
        });
        sink.set_computed(j, error, std::isfinite(scale) ? scale : 0, uint32_t(readers.size() + 1));
    }
}

}  // namespace

}  // namespace dmlref::reference

namespace dmlref {

void lrn_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& prof, TermSink& sink) {
    using namespace reference;
    if (auto* d = get_if<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC>(&op.Desc)) {
        forward_bounds(lrn_region::params(*d), logical_doubles(d->InputTensor, input("InputTensor")), prof, sink);
    } else if (auto* d = get_if<DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>(&op.Desc)) {
        grad_bounds(lrn_region::params(*d), logical_doubles(d->InputTensor, input("InputTensor")),
                    logical_doubles(d->InputGradientTensor, input("InputGradientTensor")), prof, sink);
    } else {
        throw std::invalid_argument("not a local response normalization operator");
    }
}

}  // namespace dmlref
