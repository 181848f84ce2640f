// CONVOLUTION and CONVOLUTION_INTEGER. Expected values come from the page's "Mode interactions"
// table and description (hand-derived, written beside them) or from computations written here
// that share nothing with reference/convolution.cpp: forward convolution as a GEMM over an im2col
// matrix in exact rationals; the transposed convolution as a scatter of every input element into
// the output; the adjoint identity <forward(y), x> = <y, backward(x)> in exact integers; the
// integer convolution over an input explicitly padded with its zero point.
#include "support.hpp"
#include "mpfr_round.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/descs/convolution.hpp"
#include "dmlref/terms.hpp"

#include "../reference/convolution.hpp"

#include <gmpxx.h>

#include <cmath>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_convolution {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using Sizes = std::vector<uint32_t>;

// One convolution's parameters, spatial arrays per dimension.
struct Conv {
    DataType type = DataType::FLOAT32;
    Sizes x, w, y;
    bool bias = false;
    uint32_t mode = kConvolutionModeCrossCorrelation, direction = kConvolutionDirectionForward, groups = 1;
    Sizes s, d, sp, ep, op;
};

// DimensionCount, the arrays (an empty one: its default in every dimension) and GroupCount.
template <class D, class C> void set_geometry(D& d, const C& c) {
    const size_t n = c.x.size() - 2;
    auto or_default = [&](const Sizes& v, uint32_t def) { return v.empty() ? Sizes(n, def) : v; };
    d.DimensionCount = uint32_t(n);
    d.Strides = or_default(c.s, 1);
    d.Dilations = or_default(c.d, 1);
    d.StartPadding = or_default(c.sp, 0);
    d.EndPadding = or_default(c.ep, 0);
    d.GroupCount = c.groups;
}

Operator make(const Conv& c) {
    DML_CONVOLUTION_OPERATOR_DESC d;
    const size_t n = c.x.size() - 2;
    d.InputTensor = desc(c.type, c.x);
    d.FilterTensor = desc(c.type, c.w);
    d.OutputTensor = desc(c.type, c.y);
    if (c.bias) {
        Sizes b(c.y.size(), 1);
        b[1] = c.y[1];
        d.BiasTensor = desc(c.type, b);
    }
    d.Mode = c.mode;
    d.Direction = c.direction;
    set_geometry(d, c);
    d.OutputPadding = c.op.empty() ? Sizes(n, 0) : c.op;
    return {OperatorType::CONVOLUTION, d};
}

// Logical values of each input; FLOAT32 (or FLOAT16) buffers made from them.
struct Data {
    std::vector<double> x, w, b;
};

template <class T> std::vector<T> typed(const std::vector<double>& v) {
    std::vector<T> r;
    for (double a : v) r.push_back(value_of<T>(a));
    return r;
}

std::vector<double> run_conv(const Operator& op, const Data& data) {
    const auto& d = get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc);
    std::map<std::string, std::vector<std::byte>> in;
    auto put = [&](const char* name, const TensorDesc& t, const std::vector<double>& v) {
        if (t.DataType == DataType::FLOAT16) in[name] = logical_buffer(t, typed<half>(v));
        else in[name] = logical_buffer(t, typed<float>(v));
    };
    put("InputTensor", d.InputTensor, data.x);
    put("FilterTensor", d.FilterTensor, data.w);
    if (d.BiasTensor) put("BiasTensor", *d.BiasTensor, data.b);
    const auto out = run(op, in).at("OutputTensor");
    std::vector<double> r;
    if (d.OutputTensor.DataType == DataType::FLOAT16)
        for (half h : as_values<half>(out)) r.push_back(half_to_double(h));
    else
        for (float f : as_values<float>(out)) r.push_back(f);
    return r;
}

// Compares values bit for bit through their float32 (or float16) encodings; +0 and -0 differ.
void check_same(const std::vector<double>& actual, const std::vector<double>& expected,
                DataType t = DataType::FLOAT32) {
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        INFO("element " << i << ": actual " << actual[i] << ", expected " << expected[i]);
        if (t == DataType::FLOAT16)
            CHECK(to_bits(half_from_double(actual[i])) == to_bits(half_from_double(expected[i])));
        else CHECK(to_bits(float(actual[i])) == to_bits(float(expected[i])));
    }
}

// A small deterministic generator (an LCG): values with full FLOAT32 significands over a few
// binades, or small integers.
struct Lcg {
    uint64_t s;
    uint64_t next() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return s >> 33;
    }
    double real() {  // +-[1, 2) * 2^e, e in -3..3, rounded to FLOAT32
        const double m = 1.0 + double(next() % (1u << 23)) / double(1u << 23);
        const int e = int(next() % 7) - 3;
        return float((next() & 1 ? -1.0 : 1.0) * std::ldexp(m, e));
    }
    double small() { return double(int(next() % 7) - 3); }
};
std::vector<double> fill(uint64_t n, Lcg& g, bool integers) {
    std::vector<double> v(n);
    for (auto& a : v) a = integers ? g.small() : g.real();
    return v;
}

// The filter with every spatial dimension reversed (Mode CONVOLUTION's kernel, per the page).
std::vector<double> reversed(const std::vector<double>& w, const Sizes& ws) {
    std::vector<double> r(w.size());
    for (uint64_t i = 0; i < w.size(); ++i) {
        Sizes c = unflatten(i, ws);
        for (size_t k = 2; k < c.size(); ++k) c[k] = ws[k] - 1 - c[k];
        r[flatten(c, ws)] = w[i];
    }
    return r;
}

// FORWARD cross-correlation as a GEMM over im2col, exact rationals, each element rounded once.
std::vector<double> im2col_gemm(const Conv& c, const Data& data) {
    const size_t n = c.x.size() - 2;
    const uint32_t N = c.x[0], C = c.x[1], M = c.y[1], G = c.groups, Cg = C / G, Mg = M / G;
    const Sizes kernel(c.w.begin() + 2, c.w.end()), outs(c.y.begin() + 2, c.y.end());
    const uint64_t K = product(kernel), P = product(outs);
    const std::vector<double> w = c.mode == kConvolutionModeConvolution ? reversed(data.w, c.w) : data.w;
    std::vector<mpq_class> y(product(c.y));
    for (uint32_t b = 0; b < N; ++b)
        for (uint32_t g = 0; g < G; ++g) {
            // col[(c, k)][p]: the input element that tap k of output position p reads, 0 over padding.
            std::vector<mpq_class> col(uint64_t(Cg) * K * P);
            for (uint32_t ch = 0; ch < Cg; ++ch)
                for (uint64_t k = 0; k < K; ++k)
                    for (uint64_t p = 0; p < P; ++p) {
                        const Sizes kc = unflatten(k, kernel), pc = unflatten(p, outs);
                        Sizes xc = {b, g * Cg + ch};
                        bool inside = true;
                        for (size_t j = 0; j < n; ++j) {
                            const int64_t at = int64_t(pc[j]) * (c.s.empty() ? 1 : c.s[j]) -
                                               (c.sp.empty() ? 0 : c.sp[j]) +
                                               int64_t(kc[j]) * (c.d.empty() ? 1 : c.d[j]);
                            inside = inside && at >= 0 && at < int64_t(c.x[j + 2]);
                            xc.push_back(uint32_t(std::max<int64_t>(at, 0)));
                        }
                        if (inside) col[(ch * K + k) * P + p] = mpq_class(data.x[flatten(xc, c.x)]);
                    }
            // Y_g = W_g (Mg x Cg K) * col (Cg K x P).
            for (uint32_t mm = 0; mm < Mg; ++mm)
                for (uint64_t p = 0; p < P; ++p) {
                    mpq_class acc = c.bias ? mpq_class(data.b[g * Mg + mm]) : mpq_class(0);
                    for (uint64_t r = 0; r < uint64_t(Cg) * K; ++r)
                        acc += mpq_class(w[(uint64_t(g * Mg + mm) * Cg) * K + r]) * col[r * P + p];
                    y[(uint64_t(b) * M + g * Mg + mm) * P + p] = acc;
                }
        }
    std::vector<double> r;
    for (const auto& q : y) r.push_back(c.type == DataType::FLOAT16 ? mpfr_rounded<half>(q) : mpfr_rounded<float>(q));
    return r;
}

// BACKWARD as a scatter: every input element X[n,c,i] times every filter tap W[c,m',t] lands on
// output position i * Strides - StartPadding + t * Dilations of channel g(c) M/G + m'.
std::vector<double> scatter(const Conv& c, const Data& data) {
    const size_t n = c.x.size() - 2;
    const uint32_t C = c.x[1], M = c.y[1], G = c.groups, Cg = C / G, Mg = M / G;
    const Sizes kernel(c.w.begin() + 2, c.w.end()), ins(c.x.begin() + 2, c.x.end());
    const std::vector<double> w = c.mode == kConvolutionModeConvolution ? reversed(data.w, c.w) : data.w;
    std::vector<mpq_class> y(product(c.y));
    for (uint64_t e = 0; e < y.size(); ++e)
        if (c.bias) y[e] = mpq_class(data.b[unflatten(e, c.y)[1]]);
    for (uint64_t xi = 0; xi < data.x.size(); ++xi) {
        const Sizes xc = unflatten(xi, c.x);
        const uint32_t g = xc[1] / Cg;
        for (uint32_t mm = 0; mm < Mg; ++mm)
            for (uint64_t k = 0; k < product(kernel); ++k) {
                const Sizes kc = unflatten(k, kernel);
                Sizes yc = {xc[0], g * Mg + mm};
                bool inside = true;
                for (size_t j = 0; j < n; ++j) {
                    const int64_t at = int64_t(xc[j + 2]) * (c.s.empty() ? 1 : c.s[j]) - (c.sp.empty() ? 0 : c.sp[j]) +
                                       int64_t(kc[j]) * (c.d.empty() ? 1 : c.d[j]);
                    inside = inside && at >= 0 && at < int64_t(c.y[j + 2]);
                    yc.push_back(uint32_t(std::max<int64_t>(at, 0)));
                }
                if (!inside) continue;
                Sizes wc = {xc[1], mm};
                wc.insert(wc.end(), kc.begin(), kc.end());
                y[flatten(yc, c.y)] += mpq_class(data.x[xi]) * mpq_class(w[flatten(wc, c.w)]);
            }
    }
    std::vector<double> r;
    for (const auto& q : y) r.push_back(mpfr_rounded<float>(q));
    return r;
}

// The forward output sizes {N, M, floor((In + pads - dilated kernel) / Strides) + 1}.
Sizes forward_sizes(const Conv& c) {
    Sizes y = {c.x[0], c.w[0]};
    for (size_t j = 0; j + 2 < c.x.size(); ++j) {
        const uint32_t s = c.s.empty() ? 1 : c.s[j], d = c.d.empty() ? 1 : c.d[j];
        const uint32_t pad = (c.sp.empty() ? 0 : c.sp[j]) + (c.ep.empty() ? 0 : c.ep[j]);
        y.push_back((c.x[j + 2] + pad - (1 + (c.w[j + 2] - 1) * d)) / s + 1);
    }
    return y;
}
// The transposed output sizes {N, M, (In - 1) Strides + dilated kernel - pads + OutputPadding}.
Sizes backward_sizes(const Conv& c) {
    Sizes y = {c.x[0], c.w[1] * c.groups};
    for (size_t j = 0; j + 2 < c.x.size(); ++j) {
        const uint32_t s = c.s.empty() ? 1 : c.s[j], d = c.d.empty() ? 1 : c.d[j];
        const uint32_t pad = (c.sp.empty() ? 0 : c.sp[j]) + (c.ep.empty() ? 0 : c.ep[j]);
        y.push_back((c.x[j + 2] - 1) * s + 1 + (c.w[j + 2] - 1) * d + (c.op.empty() ? 0 : c.op[j]) - pad);
    }
    return y;
}

// The shape classes the sweeps cover, small.
std::vector<Conv> geometries() {
    std::vector<Conv> v;
    auto add = [&](Conv c) {
        c.y = forward_sizes(c);
        v.push_back(c);
    };
    add({DataType::FLOAT32, {1, 2, 7}, {3, 2, 3}, {}, true});         // 1-D
    add({DataType::FLOAT32, {2, 3, 5, 4}, {2, 3, 1, 1}, {}, false});  // 1x1
    add({DataType::FLOAT32,
         {1, 4, 5, 5},
         {4, 1, 3, 3},
         {},
         true,
         kConvolutionModeCrossCorrelation,
         0,
         4,
         {1, 1},
         {1, 1},
         {1, 1},
         {1, 1}});  // depthwise
    add({DataType::FLOAT32,
         {1, 4, 6, 5},
         {6, 2, 2, 3},
         {},
         true,
         kConvolutionModeCrossCorrelation,
         0,
         2,
         {2, 1},
         {1, 2},
         {0, 2},
         {1, 0}});  // grouped, strided, dilated, asymmetric
    add({DataType::FLOAT32,
         {1, 2, 4, 4, 3},
         {2, 2, 2, 3, 2},
         {},
         false,
         kConvolutionModeConvolution,
         0,
         1,
         {1, 2, 1},
         {1, 1, 2},
         {1, 0, 1},
         {0, 1, 1}});  // 3-D, flipped
    add({DataType::FLOAT16,
         {1, 2, 6, 6},
         {2, 2, 3, 3},
         {},
         true,
         kConvolutionModeConvolution,
         0,
         1,
         {2, 2},
         {1, 1},
         {1, 1},
         {1, 1}});  // FLOAT16
    return v;
}

}  // namespace

// ---- The page ----------------------------------------------------------------------------------

TEST_CASE("convolution: the page's modes, by hand") {
    // x = [1, 2, 3, 4], w = [1, 10, 100]. CROSS_CORRELATION: y[o] = x[o] + 10 x[o+1] + 100 x[o+2] =
    // [321, 432]. CONVOLUTION "flips the order of elements in each filter kernel": [100, 10, 1]
    // gives [123, 234].
    Conv c{DataType::FLOAT32, {1, 1, 4}, {1, 1, 3}, {1, 1, 2}};
    const Data data{{1, 2, 3, 4}, {1, 10, 100}, {}};
    check_same(run_conv(make(c), data), {321, 432});
    c.mode = kConvolutionModeConvolution;
    check_same(run_conv(make(c), data), {123, 234});
    // BACKWARD, stride 2, EndPadding 1, OutputPadding 1 (CROSS_CORRELATION: the filter seen
    // transposed): y[o] = sum of x[i] w[o - 2i]: [1, 10, 100 + 2, 20, 200]; the last element
    // lies in the output padding and still takes x[1] w[2].
    Conv b{DataType::FLOAT32,
           {1, 1, 2},
           {1, 1, 3},
           {1, 1, 5},
           false,
           kConvolutionModeCrossCorrelation,
           kConvolutionDirectionBackward,
           1,
           {2},
           {1},
           {0},
           {1},
           {1}};
    check_same(run_conv(make(b), {{1, 2}, {1, 10, 100}, {}}), {1, 10, 102, 20, 200});
    // The same with BACKWARD CONVOLUTION (identity orientation: w reversed in the sum):
    // y[o] = sum of x[i] w[2 - (o - 2i)]: [100, 10, 1 + 200, 20, 2].
    b.mode = kConvolutionModeConvolution;
    check_same(run_conv(make(b), {{1, 2}, {1, 10, 100}, {}}), {100, 10, 201, 20, 2});
    // "the single bias value for that channel is added to every element in that channel".
    Conv two{DataType::FLOAT32, {1, 1, 3}, {2, 1, 1}, {1, 2, 3}, true};
    check_same(run_conv(make(two), {{1, 2, 3}, {2, -1}, {0.5, 4}}), {2.5, 4.5, 6.5, 3, 2, 1});
}

TEST_CASE("convolution: CONVOLUTION mode equals CROSS_CORRELATION with the kernel reversed") {
    Lcg g{11};
    for (Conv c : geometries()) {
        if (c.type != DataType::FLOAT32) continue;
        Data data{fill(product(c.x), g, false), fill(product(c.w), g, false), fill(c.y[1], g, false)};
        c.mode = kConvolutionModeConvolution;
        const auto flipped = run_conv(make(c), data);
        c.mode = kConvolutionModeCrossCorrelation;
        data.w = reversed(data.w, c.w);
        check_same(run_conv(make(c), data), flipped);
    }
}

// ---- Independent computations ---------------------------------------------------------------------

TEST_CASE("convolution: forward equals a GEMM over im2col, exact and rounded once") {
    Lcg g{7};
    for (const Conv& c : geometries()) {
        INFO("input " << c.x.size() << "-D, groups " << c.groups);
        // Full-significand data: the sums round; FLOAT16 data is FLOAT32 data rounded to it.
        Data data{fill(product(c.x), g, false), fill(product(c.w), g, false), fill(c.y[1], g, false)};
        if (c.type == DataType::FLOAT16)
            for (auto* v : {&data.x, &data.w, &data.b})
                for (auto& a : *v) a = half_to_double(half_from_double(a));
        check_same(run_conv(make(c), data), im2col_gemm(c, data), c.type);
    }
}

TEST_CASE("convolution: backward equals the scatter of every input element") {
    Lcg g{3};
    std::vector<Conv> cs = {
        {DataType::FLOAT32,
         {1, 2, 4},
         {2, 3, 3},
         {},
         true,
         kConvolutionModeCrossCorrelation,
         kConvolutionDirectionBackward,
         1,
         {2},
         {1},
         {1},
         {0},
         {1}},
        {DataType::FLOAT32,
         {2, 4, 3, 3},
         {4, 1, 2, 3},
         {},
         false,
         kConvolutionModeConvolution,
         kConvolutionDirectionBackward,
         2,
         {2, 3},
         {2, 1},
         {0, 1},
         {1, 2},
         {1, 2}},
        {DataType::FLOAT32,
         {1, 2, 2, 2, 3},
         {2, 2, 2, 1, 2},
         {},
         true,
         kConvolutionModeCrossCorrelation,
         kConvolutionDirectionBackward,
         1,
         {1, 2, 2},
         {1, 1, 2},
         {0, 0, 1},
         {0, 1, 0},
         {0, 1, 1}},
    };
    for (Conv c : cs) {
        c.y = backward_sizes(c);
        const Data data{fill(product(c.x), g, false), fill(product(c.w), g, false), fill(c.y[1], g, false)};
        check_same(run_conv(make(c), data), scatter(c, data));
    }
}

TEST_CASE("convolution: the adjoint identity <forward(y), x> = <y, backward(x)>, exactly") {
    // B: X {N, C, in} -> {N, M, out} with filter W {C, M/G, k}; F (FORWARD, same W and Mode):
    // {N, M, out} -> {N, C, in}. Small integers: every output is exact, the inner products too.
    Lcg g{5};
    std::vector<Conv> cs = {
        {DataType::FLOAT32,
         {1, 2, 5},
         {2, 3, 3},
         {},
         false,
         kConvolutionModeCrossCorrelation,
         kConvolutionDirectionBackward,
         1,
         {2},
         {2},
         {1},
         {2},
         {1}},
        {DataType::FLOAT32,
         {2, 4, 3, 4},
         {4, 2, 3, 2},
         {},
         false,
         kConvolutionModeConvolution,
         kConvolutionDirectionBackward,
         2,
         {3, 2},
         {1, 2},
         {2, 0},
         {1, 1},
         {2, 1}},
        {DataType::FLOAT32,
         {1, 3, 2, 3, 2},
         {3, 1, 2, 2, 2},
         {},
         false,
         kConvolutionModeCrossCorrelation,
         kConvolutionDirectionBackward,
         3,
         {2, 1, 2},
         {1, 2, 1},
         {1, 0, 0},
         {0, 1, 1},
         {1, 0, 1}},
    };
    for (Conv b : cs) {
        b.y = backward_sizes(b);
        Conv f = b;
        f.direction = kConvolutionDirectionForward;
        f.x = b.y;
        f.y = b.x;
        f.op = {};
        REQUIRE(forward_sizes(f) == b.x);
        const auto x = fill(product(b.x), g, true), y = fill(product(b.y), g, true), w = fill(product(b.w), g, true);
        const auto bx = run_conv(make(b), {x, w, {}});
        const auto fy = run_conv(make(f), {y, w, {}});
        mpq_class lhs = 0, rhs = 0;
        for (size_t i = 0; i < x.size(); ++i) lhs += mpq_class(fy[i]) * mpq_class(x[i]);
        for (size_t i = 0; i < y.size(); ++i) rhs += mpq_class(y[i]) * mpq_class(bx[i]);
        CHECK(lhs == rhs);
        CHECK(lhs != 0);  // the identity is not met vacuously
    }
}

// ---- Rounding, non-finite values, activation ---------------------------------------------------------

TEST_CASE("convolution: one rounding of the exact sum, non-finite sums, padding adds no term") {
    // FLOAT16: 2048 + 1 + 1 = 2050 exactly (a FLOAT16 value); adding in FLOAT16 in this order gives 2048.
    Conv c{DataType::FLOAT16, {1, 3, 1}, {1, 3, 1}, {1, 1, 1}};
    check_same(run_conv(make(c), {{2048, 1, 1}, {1, 1, 1}, {}}), {2050}, DataType::FLOAT16);
    // FLOAT32 cancellation: 2^30 - 2^30 + 2^-20 = 2^-20.
    Conv f{DataType::FLOAT32, {1, 3, 1}, {1, 3, 1}, {1, 1, 1}};
    check_same(run_conv(make(f), {{0x1p30, -0x1p30, 0x1p-20}, {1, 1, 1}, {}}), {0x1p-20});
    // Every product -0: the sum starts from +0.
    check_same(run_conv(make(f), {{-0.0, 0.0, -0.0}, {1, -1, 1}, {}}), {0.0});
    // inf - inf and a NaN product: the canonical NaN; 65504 + 65504 - 65504 in FLOAT16 without overflow.
    Conv h{DataType::FLOAT16, {1, 3, 3}, {1, 3, 1}, {1, 1, 3}};
    const double inf = INFINITY;
    const auto r = run_conv(make(h), {{inf, 65504, 1, inf, 65504, 2, inf, 65504, NAN}, {1, 1, -1}, {}});
    CHECK(to_bits(half_from_double(r[0])) == 0x7e00);
    CHECK(r[1] == 65504);
    CHECK(to_bits(half_from_double(r[2])) == 0x7e00);
    // Padding: an infinite weight over a padded position adds nothing (no 0 * inf).
    Conv p{DataType::FLOAT32,
           {1, 1, 2},
           {1, 1, 3},
           {1, 1, 2},
           false,
           kConvolutionModeCrossCorrelation,
           0,
           1,
           {1},
           {1},
           {1},
           {1}};
    check_same(run_conv(make(p), {{1, 2}, {inf, 1, 1}, {}}), {3, inf});
}

TEST_CASE("convolution: the fused activation applies to the rounded sum") {
    // 1 + 2^-24 rounds to 1 in FLOAT32 (a tie, to even); LINEAR(1, -1) of it is 0, not 2^-24.
    Conv c{DataType::FLOAT32, {1, 2, 1}, {1, 2, 1}, {1, 1, 1}};
    Operator op = make(c);
    auto& d = get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc);
    d.FusedActivation = DML_FUSED_ACTIVATION{0, {1.0f, -1.0f}};  // ACTIVATION_LINEAR, Alpha 1, Beta -1
    REQUIRE(d.FusedActivation->name() == "ACTIVATION_LINEAR");
    check_same(run_conv(op, {{1, 0x1p-24}, {1, 1}, {}}), {0.0});
    // RELU of a negative sum: +0.
    d.FusedActivation = DML_FUSED_ACTIVATION{5, {0, 0}};
    REQUIRE(d.FusedActivation->name() == "ACTIVATION_RELU");
    check_same(run_conv(op, {{1, -3}, {1, 1}, {}}), {0.0});
}

TEST_CASE("convolution: strided and broadcast bindings read through their strides") {
    // Channels-last input (Strides {12, 1, 4}) and a bias broadcast by a zero stride.
    Conv c{DataType::FLOAT32, {1, 4, 3}, {2, 4, 2}, {1, 2, 2}, true};
    Lcg g{9};
    const Data data{fill(12, g, false), fill(16, g, false), {0.5, 0.5}};
    Operator op = make(c);
    auto& d = get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc);
    d.InputTensor.Strides = {12, 1, 4};
    d.BiasTensor->Strides = {0, 0, 0};
    std::map<std::string, std::vector<std::byte>> in;
    in["InputTensor"] = logical_buffer(d.InputTensor, typed<float>(data.x));
    in["FilterTensor"] = logical_buffer(d.FilterTensor, typed<float>(data.w));
    in["BiasTensor"] = buffer(*d.BiasTensor, std::vector<float>{0.5f});
    std::vector<double> got;
    for (float v : as_values<float>(run(op, in).at("OutputTensor"))) got.push_back(v);
    check_same(got, im2col_gemm(c, data));
}

// ---- Judging --------------------------------------------------------------------------------------

TEST_CASE("convolution: each element's bound admits any summation order of its own products") {
    // 2^30 * 1 + 1 * 1 - 2^30 * 1 = 1; a FLOAT32 accumulator adding in this order gets 0 and a
    // conforming backend may: the bound is at least 1.
    Conv c{DataType::FLOAT32, {1, 3, 2}, {1, 3, 1}, {1, 1, 2}};
    const Operator op = make(c);
    const std::vector<float> x = {0x1p30f, 1, 1, 1, -0x1p30f, 2}, w = {1, 1, 1};
    const auto xb = buffer(get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc).InputTensor, x);
    const auto wb = buffer(get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc).FilterTensor, w);
    TermSink sink(2);
    reference::convolution_bounds(
        op,
        [&](const char* f) -> std::span<const std::byte> {
            return std::string(f) == "InputTensor" ? std::span<const std::byte>(xb) : std::span<const std::byte>(wb);
        },
        ArithmeticProfile{}, sink);
    REQUIRE(sink.elements()[0].n == 3);
    CHECK(element_bound(sink.elements()[0], DataType::FLOAT32, to_bits(1.0f), ArithmeticProfile{}) >= 1.0);
    // 1 + 1 + 2 = 4, by docs/tolerance.md's derivation in FLOAT32 (u = 2^-24, the widest term in
    // the float32 accumulator): the products' rounding u * 4 = 2^-22, gamma_2 * 4 = 2^-21 (to first
    // order); the golden is the terms' exact sum, so its own error is only 2^-53 * 4 (no half ULP
    // of 4): 3 * 2^-22 and a little more.
    const double b = element_bound(sink.elements()[1], DataType::FLOAT32, to_bits(4.0f), ArithmeticProfile{});
    CHECK(b >= 0x3p-22);
    CHECK(b < 0x3p-22 * 1.001);
}

// ---- Validation -------------------------------------------------------------------------------------

TEST_CASE("convolution: every rule of the page, with its id") {
    const Conv good{
        DataType::FLOAT32, {1, 4, 5, 5}, {6, 2, 3, 3}, {1, 6, 3, 3}, true, kConvolutionModeCrossCorrelation, 0, 2};
    REQUIRE_FALSE(validate(make(good)).has_errors());
    auto with = [&](auto change) {
        Operator op = make(good);
        change(get<DML_CONVOLUTION_OPERATOR_DESC>(op.Desc));
        return op;
    };
    using D = DML_CONVOLUTION_OPERATOR_DESC;
    CHECK(has_error(with([](D& d) { d.FilterTensor.DataType = DataType::FLOAT16; }), "convolution.same-data-type",
                    "/desc/FilterTensor/DataType"));
    CHECK(has_error(with([](D& d) {
                        d.InputTensor.DataType = d.FilterTensor.DataType = d.OutputTensor.DataType =
                            d.BiasTensor->DataType = DataType::INT32;
                    }),
                    "convolution.float-data", "/desc/InputTensor/DataType"));
    CHECK(has_error(with([](D& d) { d.InputTensor.Sizes = {1, 4}; }), "convolution.rank", "/desc/InputTensor/Sizes"));
    CHECK(has_error(with([](D& d) {
                        d.FilterTensor.Sizes = {6, 2, 3};
                    }),
                    "convolution.same-dimension-count", "/desc/FilterTensor/Sizes"));
    CHECK(has_error(with([](D& d) { d.DimensionCount = 3; }), "convolution.dimension-count", "/desc/DimensionCount"));
    CHECK(has_error(with([](D& d) { d.Dilations = {1}; }), "convolution.array-length", "/desc/Dilations"));
    CHECK(has_error(with([](D& d) { d.Strides = {1, 0}; }), "convolution.stride-nonzero", "/desc/Strides/1"));
    CHECK(has_error(with([](D& d) { d.Dilations = {0, 1}; }), "convolution.dilation-nonzero", "/desc/Dilations/0"));
    CHECK(has_error(with([](D& d) { d.GroupCount = 3; }), "convolution.group-count", "/desc/GroupCount"));
    CHECK(has_error(with([](D& d) { d.FilterTensor.Sizes[1] = 4; }), "convolution.filter-channels",
                    "/desc/FilterTensor/Sizes/1"));
    CHECK(has_error(with([](D& d) { d.FilterTensor.Sizes[0] = 4; }), "convolution.output-channels",
                    "/desc/FilterTensor/Sizes/0"));
    CHECK(
        has_error(with([](D& d) { d.OutputTensor.Sizes[0] = 2; }), "convolution.batch", "/desc/OutputTensor/Sizes/0"));
    CHECK(has_error(with([](D& d) { d.OutputTensor.Sizes[3] = 4; }), "convolution.output-size",
                    "/desc/OutputTensor/Sizes/3"));
    CHECK(has_error(with([](D& d) { d.FilterTensor.Sizes[2] = 6; }), "convolution.window-fits",
                    "/desc/FilterTensor/Sizes/2"));
    CHECK(has_error(with([](D& d) {
                        d.OutputPadding = {0, 1};
                    }),
                    "convolution.forward-output-padding", "/desc/OutputPadding/1"));
    CHECK(has_error(with([](D& d) {
                        d.BiasTensor->Sizes = {1, 6, 1, 2};
                    }),
                    "convolution.bias-sizes", "/desc/BiasTensor/Sizes"));
    CHECK(has_error(with([](D& d) {
                        d.FusedActivation = DML_FUSED_ACTIVATION{6, {NAN, 0}};
                    }),
                    "convolution.fused-activation-parameter", "/desc/FusedActivation/Alpha"));
    // BACKWARD swaps the filter's channel roles: {C, M / G, k}.
    Conv back{DataType::FLOAT32,
              {1, 4, 3, 3},
              {4, 3, 2, 2},
              {},
              false,
              kConvolutionModeCrossCorrelation,
              kConvolutionDirectionBackward,
              2};
    back.y = backward_sizes(back);
    CHECK(back.y == Sizes{1, 6, 4, 4});
    CHECK_FALSE(validate(make(back)).has_errors());
    back.w[0] = 6;
    CHECK(has_error(make(back), "convolution.filter-channels", "/desc/FilterTensor/Sizes/0"));
}

// ---- CONVOLUTION_INTEGER --------------------------------------------------------------------------

namespace {

struct IntConv {
    DataType xt = DataType::UINT8, wt = DataType::INT8;
    Sizes x, w, y;
    uint32_t groups = 1;
    Sizes s, d, sp, ep;
    std::optional<int32_t> xz;
    std::vector<int32_t> wz;  // empty: none; one value or one per output channel
};

Operator make(const IntConv& c) {
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC d;
    d.InputTensor = desc(c.xt, c.x);
    d.FilterTensor = desc(c.wt, c.w);
    d.OutputTensor = desc(DataType::INT32, c.y);
    if (c.xz) d.InputZeroPointTensor = desc(c.xt, Sizes(c.x.size(), 1));
    if (!c.wz.empty()) {
        Sizes z(c.x.size(), 1);
        z[1] = uint32_t(c.wz.size());
        d.FilterZeroPointTensor = desc(c.wt, z);
    }
    set_geometry(d, c);
    return {OperatorType::CONVOLUTION_INTEGER, d};
}

std::vector<std::byte> bytes_of(DataType t, const TensorDesc& d, const std::vector<int32_t>& v) {
    if (t == DataType::INT8) {
        std::vector<int8_t> b;
        for (int32_t a : v) b.push_back(int8_t(a));
        return logical_buffer(d, b);
    }
    std::vector<uint8_t> b;
    for (int32_t a : v) b.push_back(uint8_t(a));
    return logical_buffer(d, b);
}

std::vector<int32_t> run_int(const IntConv& c, const std::vector<int32_t>& x, const std::vector<int32_t>& w) {
    const Operator op = make(c);
    const auto& d = get<DML_CONVOLUTION_INTEGER_OPERATOR_DESC>(op.Desc);
    std::map<std::string, std::vector<std::byte>> in;
    in["InputTensor"] = bytes_of(c.xt, d.InputTensor, x);
    in["FilterTensor"] = bytes_of(c.wt, d.FilterTensor, w);
    if (c.xz) in["InputZeroPointTensor"] = bytes_of(c.xt, *d.InputZeroPointTensor, {*c.xz});
    if (!c.wz.empty()) in["FilterZeroPointTensor"] = bytes_of(c.wt, *d.FilterZeroPointTensor, c.wz);
    return as_values<int32_t>(run(op, in).at("OutputTensor"));
}

// 2-D: the input padded explicitly with its zero point, then an unpadded convolution in int64.
std::vector<int32_t> padded_naive(const IntConv& c, const std::vector<int32_t>& x, const std::vector<int32_t>& w) {
    const int32_t xz = c.xz.value_or(0);
    const uint32_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3], M = c.y[1], G = c.groups, Cg = C / G, Mg = M / G;
    const uint32_t PH = H + c.sp[0] + c.ep[0], PW = W + c.sp[1] + c.ep[1];
    std::vector<int32_t> p(uint64_t(N) * C * PH * PW, xz);
    for (uint32_t n = 0; n < N; ++n)
        for (uint32_t ch = 0; ch < C; ++ch)
            for (uint32_t h = 0; h < H; ++h)
                for (uint32_t v = 0; v < W; ++v)
                    p[((uint64_t(n) * C + ch) * PH + h + c.sp[0]) * PW + v + c.sp[1]] =
                        x[((uint64_t(n) * C + ch) * H + h) * W + v];
    std::vector<int32_t> y;
    for (uint32_t n = 0; n < N; ++n)
        for (uint32_t m = 0; m < M; ++m)
            for (uint32_t oh = 0; oh < c.y[2]; ++oh)
                for (uint32_t ow = 0; ow < c.y[3]; ++ow) {
                    const int32_t z = c.wz.empty() ? 0 : c.wz.size() == 1 ? c.wz[0] : c.wz[m];
                    int64_t acc = 0;
                    for (uint32_t ch = 0; ch < Cg; ++ch)
                        for (uint32_t kh = 0; kh < c.w[2]; ++kh)
                            for (uint32_t kw = 0; kw < c.w[3]; ++kw) {
                                const uint32_t ih = oh * c.s[0] + kh * c.d[0], iw = ow * c.s[1] + kw * c.d[1];
                                acc += int64_t(p[((uint64_t(n) * C + (m / Mg) * Cg + ch) * PH + ih) * PW + iw] - xz) *
                                       (w[((uint64_t(m) * Cg + ch) * c.w[2] + kh) * c.w[3] + kw] - z);
                            }
                    y.push_back(int32_t(acc));  // small: no wrap here
                }
    return y;
}

}  // namespace

TEST_CASE("convolution integer: zero points, padding with the input zero point, groups") {
    // By hand: x = [10, 20, 30] (UINT8) with zero point 10, w = [1, -1] (INT8) with zero point -1:
    // (0)(2) + (10)(0) = 0 and (10)(2) + (20)(0) = 20.
    IntConv h{DataType::UINT8, DataType::INT8, {1, 1, 3}, {1, 1, 2}, {1, 1, 2}, 1, {1}, {1}, {0}, {0}, 10, {-1}};
    CHECK(run_int(h, {10, 20, 30}, {1, -1}) == std::vector<int32_t>{0, 20});
    // Padding is the zero point: with StartPadding 1 the first window is (pad)(2) + (0)(0) = 0.
    h.sp = {1};
    h.y = {1, 1, 3};
    CHECK(run_int(h, {10, 20, 30}, {1, -1}) == std::vector<int32_t>{0, 0, 20});
    // Against the explicitly padded input: grouped, strided, dilated, per-channel filter zero points.
    Lcg g{13};
    IntConv c{DataType::UINT8, DataType::UINT8, {2, 4, 5, 6}, {6, 2, 2, 3}, {2, 6, 3, 2}, 2,
              {2, 2},          {1, 2},          {1, 1},       {1, 0},       128,          {1, 2, 3, 250, 5, 6}};
    std::vector<int32_t> x(product(c.x)), w(product(c.w));
    for (auto& a : x) a = int32_t(g.next() % 256);
    for (auto& a : w) a = int32_t(g.next() % 256);
    CHECK(run_int(c, x, w) == padded_naive(c, x, w));
    // INT8 data, no zero points, depthwise.
    IntConv dw{DataType::INT8, DataType::INT8, {1, 3, 4, 4}, {3, 1, 3, 3}, {1, 3, 4, 4}, 3,
               {1, 1},         {1, 1},         {1, 1},       {1, 1},       {},           {}};
    x.assign(product(dw.x), 0);
    w.assign(product(dw.w), 0);
    for (auto& a : x) a = int32_t(g.next() % 256) - 128;
    for (auto& a : w) a = int32_t(g.next() % 256) - 128;
    CHECK(run_int(dw, x, w) == padded_naive(dw, x, w));
}

TEST_CASE("convolution integer: the exact sum wraps to INT32") {
    // 33026 products of 255 * (0 - 255) = -65025 each: -2147515650, below INT32's minimum by
    // 32002; modulo 2^32 that is 2147451646.
    IntConv c{DataType::UINT8, DataType::UINT8, {1, 33026, 1}, {1, 33026, 1}, {1, 1, 1}, 1, {}, {}, {}, {}, 0, {255}};
    CHECK(run_int(c, std::vector<int32_t>(33026, 255), std::vector<int32_t>(33026, 0)) ==
          std::vector<int32_t>{2147451646});
}

TEST_CASE("convolution integer: every rule of the page, with its id") {
    const IntConv good{DataType::UINT8, DataType::INT8, {1, 2, 4, 4}, {4, 2, 3, 3}, {1, 4, 2, 2}, 1, {}, {}, {}, {}, 3,
                       {1, 2, 3, 4}};
    REQUIRE_FALSE(validate(make(good)).has_errors());
    using D = DML_CONVOLUTION_INTEGER_OPERATOR_DESC;
    auto with = [&](auto change) {
        Operator op = make(good);
        change(get<D>(op.Desc));
        return op;
    };
    CHECK(has_error(with([](D& d) { d.InputTensor.DataType = DataType::INT16; }), "convolution-integer.data-type",
                    "/desc/InputTensor/DataType"));
    CHECK(has_error(with([](D& d) { d.OutputTensor.DataType = DataType::INT16; }),
                    "convolution-integer.output-data-type", "/desc/OutputTensor/DataType"));
    CHECK(has_error(with([](D& d) { d.InputZeroPointTensor->DataType = DataType::INT8; }),
                    "convolution-integer.input-zero-point-data-type", "/desc/InputZeroPointTensor/DataType"));
    CHECK(has_error(with([](D& d) { d.FilterZeroPointTensor->DataType = DataType::UINT8; }),
                    "convolution-integer.filter-zero-point-data-type", "/desc/FilterZeroPointTensor/DataType"));
    CHECK(has_error(with([](D& d) {
                        d.InputZeroPointTensor->Sizes = {1, 2, 1, 1};
                    }),
                    "convolution-integer.input-zero-point-sizes", "/desc/InputZeroPointTensor/Sizes"));
    CHECK(has_error(with([](D& d) {
                        d.FilterZeroPointTensor->Sizes = {1, 3, 1, 1};
                    }),
                    "convolution-integer.filter-zero-point-sizes", "/desc/FilterZeroPointTensor/Sizes"));
    CHECK(has_error(with([](D& d) { d.InputZeroPointTensor->Sizes = {1}; }),
                    "convolution-integer.zero-point-dimension-count", "/desc/FilterZeroPointTensor/Sizes"));
    CHECK(has_error(with([](D& d) {
                        d.InputTensor.Sizes = {1, 2, 1, 4, 4};
                    }),
                    "convolution-integer.rank", "/desc/InputTensor/Sizes"));
    CHECK(has_error(with([](D& d) { d.OutputTensor.Sizes[2] = 3; }), "convolution-integer.output-size",
                    "/desc/OutputTensor/Sizes/2"));
    CHECK(has_error(with([](D& d) { d.GroupCount = 0; }), "convolution-integer.group-count", "/desc/GroupCount"));
    // The 1-D form (DML_FEATURE_LEVEL_4_0) and a 1-D zero point are allowed.
    IntConv one{DataType::INT8, DataType::INT8, {1, 1, 3}, {2, 1, 2}, {1, 2, 2}, 1, {}, {}, {}, {}, std::nullopt, {}};
    Operator op = make(one);
    get<D>(op.Desc).FilterZeroPointTensor = desc(DataType::INT8, {2});
    CHECK_FALSE(validate(op).has_errors());
}

}  // namespace dmlref_test_convolution
