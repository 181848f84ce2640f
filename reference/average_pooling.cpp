// DML_OPERATOR_AVERAGE_POOLING, _AVERAGE_POOLING1 and _AVERAGE_POOLING_GRAD.
//
// Spec: DML_AVERAGE_POOLING, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD_OPERATOR_DESC (DirectML API
// reference: structs, output size, forward, gradient); rules in docs/rules.md; open questions and
// the divisor evidence in docs/golden.md, "Average pooling" and "Computed values".
//
//   Tensors are {N, C, spatial...}; the arrays have one entry per spatial dimension.
//   Window element k of output o reads input position  p = o * Strides - StartPadding + k * Dilations
//   (per spatial dimension; Dilations = 1 for AVERAGE_POOLING and the grad).
//   dilated window = 1 + (WindowSize - 1) * Dilations
//   Out = (In + StartPadding + EndPadding - dilated window) / Strides + 1     (floor), or one more (ceil)
//   D(o) = IncludePadding ? prod(WindowSize) : the number of real (non-padding) elements of o's window
//   AVERAGE_POOLING*      Y[n,c,o] = (sum of the real elements of o's window) / D(o)
//   AVERAGE_POOLING_GRAD  dX[n,c,p] = sum over the windows o that hold p of dY[n,c,o] / D(o)
//                         (the adjoint of the forward map; padding taps receive nothing)
//
// Decisions (docs/golden.md, "Average pooling"; recorded as policies in golden files):
//   - The value is exact: the sum of the exact terms (rationals), divided exactly, rounded once
//     to the output type (floats nearest-even, subnormals kept, overflow to infinity; integers
//     half to even, saturated). No floating-point arithmetic on the way (exact_rational.hpp).
//   - IncludePadding = TRUE divides by prod(WindowSize) always: padding, a window overhanging
//     the padded input (ceil sizes) and dilation holes all count as taps.
//   - IncludePadding = FALSE divides by the number of real elements; a window with none is
//     undefined (0 / 0): golden +0, listed "don't care"; it sends no gradient (it has no taps).
//   - Output sizes: floor or ceil of the dilated formula; anything else is an error.
//   - A NaN term, or +inf with -inf, gives the canonical NaN; an exact zero is +0.
//   - Every rank from 3 to 8 and every type is evaluated (DirectML's tables: 4 and 5, floats).
#include "average_pooling.hpp"
#include "average_pooling_internal.hpp"
#include "common.hpp"
#include "exact_rational.hpp"
#include "fast/average_pooling.hpp"
#include "pooling_geometry.hpp"

#include "dmlref/terms.hpp"

#include <algorithm>
#include <limits>

namespace dmlref::reference {

namespace {

using Coord = PoolingCoord;

// What the three descs reduce to. For the grad, `input` is OutputGradientTensor (the forward
// input's sizes) and `pooled` is InputGradientTensor (the forward output's sizes).
struct Params {
    std::string_view op;  // rule prefix
    Named input;
    Named pooled;
    uint32_t DimensionCount;
    const std::vector<uint32_t>& Strides;
    const std::vector<uint32_t>& WindowSize;
    const std::vector<uint32_t>& StartPadding;
    const std::vector<uint32_t>& EndPadding;
    const std::vector<uint32_t>* Dilations;  // null: all 1
    uint32_t IncludePadding;
};

Params params(const DML_AVERAGE_POOLING_OPERATOR_DESC& d) {
    return {"average-pooling",
            {"InputTensor", d.InputTensor},
            {"OutputTensor", d.OutputTensor},
            d.DimensionCount,
            d.Strides,
            d.WindowSize,
            d.StartPadding,
            d.EndPadding,
            nullptr,
            d.IncludePadding};
}
Params params(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d) {
    return {"average-pooling1",
            {"InputTensor", d.InputTensor},
            {"OutputTensor", d.OutputTensor},
            d.DimensionCount,
            d.Strides,
            d.WindowSize,
            d.StartPadding,
            d.EndPadding,
            &d.Dilations,
            d.IncludePadding};
}
Params params(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d) {
    return {"average-pooling-grad",
            {"OutputGradientTensor", d.OutputGradientTensor},
            {"InputGradientTensor", d.InputGradientTensor},
            d.DimensionCount,
            d.Strides,
            d.WindowSize,
            d.StartPadding,
            d.EndPadding,
            nullptr,
            d.IncludePadding};
}

// ---- Validation ----------------------------------------------------------------------------

void validate_average_pooling(const Params& p, Diagnostics& diags) {
    require_same_data_type(diags, {p.input, p.pooled}, rule(p.op, "same-data-type"));
    if (p.IncludePadding > 1)
        diags.error("/desc/IncludePadding", rule(p.op, "include-padding"),
                    "IncludePadding is " + std::to_string(p.IncludePadding) + "; a BOOL must be 0 (FALSE) or 1 (TRUE)");
    validate_pooling_windows(
        diags, {p.op, "average pooling", p.input.name, p.pooled.name, p.DimensionCount},
        {&p.input.desc, &p.pooled.desc, &p.Strides, &p.WindowSize, &p.StartPadding, &p.EndPadding, p.Dilations});
}

// ---- The window (the walk itself: reference/pooling_geometry.hpp; the divisors:
// reference/average_pooling_internal.hpp) ---------------------------------------------------

using avgpool::divisor;
using avgpool::for_each_reader;
using avgpool::readers;
using avgpool::real_count;
using avgpool::Window;

Window window_of(const Params& p) {
    Window w;
    static_cast<PoolingWindows&>(w) = pooling_windows(
        {&p.input.desc, &p.pooled.desc, &p.Strides, &p.WindowSize, &p.StartPadding, &p.EndPadding, p.Dilations});
    for (size_t i = 0; i < w.spatial; ++i) w.taps *= static_cast<unsigned long>(w.size[i]);
    w.include_padding = p.IncludePadding != 0;
    return w;
}

// ---- Forward -------------------------------------------------------------------------------

void average_pool(const Params& p, const Bindings& b) {
    const Window w = window_of(p);
    const TensorView X(p.input.desc, b.at(p.input.name));
    const TensorView Y(p.pooled.desc, b.at(p.pooled.name));
    dispatch(p.input.desc.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        for_each_pooled(Y.sizes(), w.out, w.spatial, [&](int64_t n, int64_t c, const Coord& o) {
            y[pooling_offset(Y.strides, n, c, o, w.spatial)] = avgpool::average_element(w, x, X.strides, n, c, o);
        });
    });
}

// ---- Grad ----------------------------------------------------------------------------------

void average_pool_grad(const Params& p, const Bindings& b) {
    const Window w = window_of(p);
    const TensorView dY(p.pooled.desc, b.at(p.pooled.name));
    const TensorView dX(p.input.desc, b.at(p.input.name));
    const auto r = readers(w);
    dispatch(p.input.desc.DataType, [&]<class T>() {
        const T* dy = dY.data<T>();
        T* dx = dX.data<T>();
        for_each_pooled(dX.sizes(), w.in, w.spatial, [&](int64_t n, int64_t c, const Coord& x) {
            dx[pooling_offset(dX.strides, n, c, x, w.spatial)] = avgpool::average_grad_element(w, r, dy, dY.strides, n,
                                                                                               c, x);
        });
    });
}

// ---- The fast paths (reference/fast/average_pooling.cpp) -----------------------------------

bool pool_fast(const Params& p, const Bindings& b, bool grad) {
    const Window w = window_of(p);
    const TensorView in(p.input.desc, b.at(p.input.name)), pooled(p.pooled.desc, b.at(p.pooled.name));
    return grad ? fast::average_pool_grad(w, pooled, in) : fast::average_pool(w, in, pooled);
}

// ---- Don't care and tolerance --------------------------------------------------------------

std::vector<DontCare> empty_windows(const Params& p) {
    std::vector<DontCare> r;
    if (p.IncludePadding) return r;
    const Window w = window_of(p);
    uint64_t index = 0;
    for_each_pooled(p.pooled.desc.Sizes, w.out, w.spatial, [&](int64_t, int64_t, const Coord& o) {
        if (real_count(w, o) == 0)
            r.push_back({index, "EmptyWindow: IncludePadding is FALSE and the window holds no element of " +
                                    std::string(p.input.name) + ", so the average is 0 / 0 (docs/golden.md)"});
        ++index;
    });
    return r;
}

// Per element, the number of terms; the bound itself comes from average_pooling_bounds below
// (docs/tolerance.md, "Average pooling"), which dmlref diff derives from the golden's inputs.
std::optional<Tolerance> pooling_tolerance(const Params& p, bool grad) {
    Tolerance t;
    if (!is_float(p.input.desc.DataType)) {
        t.Why =
            "integer averages are outside DirectML's tables; the golden is the exact value rounded half to even "
            "(docs/golden.md, IntegerResult): bit for bit";
        return t;
    }
    const Window w = window_of(p);
    std::vector<uint32_t> terms;
    bool divides = false;
    auto count = [](uint64_t k) { return uint32_t(std::min<uint64_t>(k, UINT32_MAX)); };
    if (!grad) {
        for_each_pooled(p.pooled.desc.Sizes, w.out, w.spatial, [&](int64_t, int64_t, const Coord& o) {
            const mpz_class D = divisor(w, o);
            terms.push_back(count(D == 0 ? 0 : real_count(w, o)));
            divides = divides || D > 1;
        });
    } else {
        const auto r = readers(w);
        for_each_pooled(p.input.desc.Sizes, w.in, w.spatial, [&](int64_t, int64_t, const Coord& x) {
            uint64_t k = 0;
            for_each_reader(w, r, x, [&](const Coord& o) {
                ++k;
                divides = divides || divisor(w, o) > 1;
            });
            terms.push_back(count(k));
        });
    }
    const uint32_t most = terms.empty() ? 0 : *std::max_element(terms.begin(), terms.end());
    if (most < 2 && !divides) {
        t.Why = "every element is a copy of one term (or +0): bit for bit";
        return t;
    }
    t.Kind = "Summed";
    t.MaxTerms = most;
    t.Terms = std::move(terms);
    t.Why =
        std::string(grad ? "each element is an exact sum of dY / D over the windows that hold it"
                         : "each element is an exact sum of its window's real elements divided by D") +
        ", rounded once (docs/golden.md, Computed values). Terms gives each element's number of terms; dmlref diff "
        "bounds each element from its terms' magnitudes, the additions and the division (docs/tolerance.md, Average pooling)";
    return t;
}

// One element: sum of value_i / D_i over its terms (the forward has one D). A backend adds the
// n terms in any order after dividing the sum (forward) or each term (grad) by D, or multiplies
// by a reciprocal of D; D = 1 is no division. Non-finite terms: judged as non-finite values.
void bound_element(uint64_t e, const std::vector<std::pair<double, double>>& terms, bool divide_sum, DataType t,
                   const ArithmeticProfile& prof, TermSink& sink) {
    double scale = 0;
    bool nan = false, inf_pos = false, inf_neg = false;
    for (const auto& [v, D] : terms) {
        nan = nan || std::isnan(v);
        inf_pos = inf_pos || v == std::numeric_limits<double>::infinity();
        inf_neg = inf_neg || v == -std::numeric_limits<double>::infinity();
        if (std::isfinite(v)) scale += std::fabs(v) / D;
    }
    if (nan || inf_pos || inf_neg) {
        sink.set_computed(e, std::numeric_limits<double>::infinity(), scale, uint32_t(terms.size()),
                          nan || (inf_pos && inf_neg), true);
        return;
    }
    if (terms.empty()) {
        sink.set_computed(e, 0, 0, 0);  // +0 (or an empty window: don't care)
        return;
    }
    const double error = computed_error(prof, t, [&](const Arithmetic& ar) {
        std::vector<Quantity> quotients, products, values;
        for (const auto& [v, D] : terms) {
            const Quantity x = ar.input(v);
            values.push_back(x);
            if (D == 1) {
                quotients.push_back(x);
                products.push_back(x);
            } else {
                quotients.push_back(ar.div(x, ar.constant(D)));
                products.push_back(ar.mul(x, ar.reciprocal(ar.constant(D))));
            }
        }
        const double D = terms.front().second;
        Quantity q = worst(ar.sum(quotients), ar.sum(products));
        if (divide_sum && D != 1) {
            const Quantity s = ar.sum(values);
            q = worst(q, worst(ar.div(s, ar.constant(D)), ar.mul(s, ar.reciprocal(ar.constant(D)))));
        }
        return q;
    });
    sink.set_computed(e, error, scale, uint32_t(terms.size()));
}

void pooling_bounds(const Params& p, bool grad, std::span<const std::byte> values, const ArithmeticProfile& prof,
                    TermSink& sink) {
    const Window w = window_of(p);
    const DataType t = p.input.desc.DataType;
    if (!grad) {
        const std::vector<double> x = logical_doubles(p.input.desc, values);
        const auto packed = packed_strides(p.input.desc.Sizes);
        uint64_t e = 0;
        for_each_pooled(p.pooled.desc.Sizes, w.out, w.spatial, [&](int64_t n, int64_t c, const Coord& o) {
            std::vector<std::pair<double, double>> terms;
            const mpz_class Dz = divisor(w, o);
            if (Dz > 0 && Dz.get_d() <= 0x1p53) {
                const double D = Dz.get_d();
                for_each_real_tap(w, o, [&](const Coord& pos) {
                    terms.emplace_back(x[size_t(pooling_offset(packed, n, c, pos, w.spatial))], D);
                });
            }
            if (Dz.get_d() > 0x1p53) sink.set_computed(e, std::numeric_limits<double>::infinity(), 0, 0);
            else bound_element(e, terms, true, t, prof, sink);
            ++e;
        });
    } else {
        const std::vector<double> dy = logical_doubles(p.pooled.desc, values);
        const auto packed = packed_strides(p.pooled.desc.Sizes);
        const auto r = readers(w);
        uint64_t e = 0;
        for_each_pooled(p.input.desc.Sizes, w.in, w.spatial, [&](int64_t n, int64_t c, const Coord& x) {
            std::vector<std::pair<double, double>> terms;
            bool huge = false;
            for_each_reader(w, r, x, [&](const Coord& o) {
                const mpz_class D = divisor(w, o);
                huge = huge || D.get_d() > 0x1p53;
                terms.emplace_back(dy[size_t(pooling_offset(packed, n, c, o, w.spatial))], D.get_d());
            });
            if (huge) sink.set_computed(e, std::numeric_limits<double>::infinity(), 0, 0);
            else bound_element(e, terms, false, t, prof, sink);
            ++e;
        });
    }
}

}  // namespace

// ---- The operators -------------------------------------------------------------------------

void validate(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_average_pooling(params(d), diags);
}
void validate(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_average_pooling(params(d), diags);
}
void validate(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, Diagnostics& diags) {
    validate_average_pooling(params(d), diags);
}

void evaluate(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, const Bindings& b) { average_pool(params(d), b); }
void evaluate(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, const Bindings& b) { average_pool(params(d), b); }
void evaluate(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b) { average_pool_grad(params(d), b); }

bool average_pooling_fast(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, const Bindings& b) {
    return pool_fast(params(d), b, false);
}
bool average_pooling_fast(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, const Bindings& b) {
    return pool_fast(params(d), b, false);
}
bool average_pooling_fast(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, const Bindings& b) {
    return pool_fast(params(d), b, true);
}

std::vector<DontCare> dont_care(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? empty_windows(params(d)) : std::vector<DontCare>{};
}
std::vector<DontCare> dont_care(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? empty_windows(params(d)) : std::vector<DontCare>{};
}

std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? pooling_tolerance(params(d), false) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && valid(d, validate) ? pooling_tolerance(params(d), false) : std::nullopt;
}
std::optional<Tolerance> tolerance(const DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputGradientTensor" && valid(d, validate) ? pooling_tolerance(params(d), true) : std::nullopt;
}

}  // namespace dmlref::reference

namespace dmlref {

void average_pooling_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& p, TermSink& sink) {
    using namespace reference;
    if (auto* d = get_if<DML_AVERAGE_POOLING_OPERATOR_DESC>(&op.Desc))
        pooling_bounds(params(*d), false, input("InputTensor"), p, sink);
    else if (auto* d = get_if<DML_AVERAGE_POOLING1_OPERATOR_DESC>(&op.Desc))
        pooling_bounds(params(*d), false, input("InputTensor"), p, sink);
    else if (auto* d = get_if<DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC>(&op.Desc))
        pooling_bounds(params(*d), true, input("InputGradientTensor"), p, sink);
    else throw std::invalid_argument("not an average pooling operator");
}

}  // namespace dmlref
