// The per-element bound of ROI_ALIGN and ROI_ALIGN1's OutputTensor (docs/tolerance.md, "ROI
// align"): a forward error analysis of each sample a backend reads, its coordinates computed in
// float32, then the AVERAGE or MAX over the samples.
//
//   coordinate   x = x1 * SpatialScale + t * (x2 - x1) * SpatialScale - InputPixelOffset, in
//                float32 (four association variants); delta = its error (Arithmetic, FLOAT32)
//   sample       the bilinear value at (x', y') with |x' - x| <= delta_x, |y' - y| <= delta_y:
//                |v(x', y') - v(x, y)| <= delta_x slope_x + delta_y slope_y (slopes: the largest
//                |X[r][c + 1] - X[r][c]| (resp. rows) over the taps the moved point may read),
//                NEAREST_NEIGHBOR: the largest |X - v| over the elements it may read; a sample
//                whose coordinate may cross -1 or the size may read OutOfBoundsInputValue instead
//   evaluation   the taps' weights (1 - l, l), their products and sums, or a lerp, rounded in A
//   AVERAGE      the sum of the Sx * Sy samples (or of all their tap products) divided by
//                Sx * Sy, or times its reciprocal, or each sample divided first
//   MAX          the greatest of the backend's samples: within the largest error of a sample that
//                may be the greatest (a near tie may select another sample)
// The grad's bound is reference/roi_align_grad_bound.cpp.
#include "roi_align.hpp"
#include "roi_align_bound.hpp"

#include "dmlref/terms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref::reference::roi {

namespace {}  // namespace

Quantity sample_t(const Params& p, uint64_t out, uint64_t samples, uint64_t o, uint64_t i) {
    const Arithmetic ar(DataType::FLOAT32, false);
    const uint64_t n = out * samples, s = o * samples + i;
    return p.corners && n == 1 ? ar.constant(0.5)
                               : ar.div(ar.add(ar.constant(double(s)), ar.neg(ar.constant(double(p.opo)))),
                                        ar.constant(double(p.corners ? n - 1 : n)));
}

double coordinate_error(const Params& p, double raw_lo, double raw_hi, float scale, uint64_t out, uint64_t samples,
                        uint64_t o, uint64_t i) {
    const Arithmetic ar(DataType::FLOAT32, false);
    const Quantity sc = ar.constant(double(scale)), ipo = ar.constant(double(p.ipo)), opo = ar.constant(double(p.opo));
    const Quantity x1s = ar.mul(ar.constant(raw_lo), sc), x2s = ar.mul(ar.constant(raw_hi), sc);
    const Quantity w = worst(ar.add(x2s, ar.neg(x1s)),
                             ar.mul(ar.add(ar.constant(raw_hi), ar.neg(ar.constant(raw_lo))), sc));
    const Quantity t = sample_t(p, out, samples, o, i);
    Quantity q = ar.add(ar.add(x1s, ar.mul(t, w)), ar.neg(ipo));   // (x1s + t wS) - ipo
    q = worst(q, ar.add(ar.add(x1s, ar.neg(ipo)), ar.mul(t, w)));  // (x1s - ipo) + t wS
    q = worst(q, ar.add(ar.add(ar.mul(ar.add(ar.constant(1), ar.neg(t)), x1s), ar.mul(t, x2s)),
                        ar.neg(ipo)));  // (1 - t) x1s + t x2s
    if (!p.corners) {                   // torchvision's bins: start + o bin + (i - opo) bin / S
        const Quantity bin = ar.div(w, ar.constant(double(out)));
        const Quantity off = ar.div(ar.mul(ar.add(ar.constant(double(i)), ar.neg(opo)), bin),
                                    ar.constant(double(samples)));
        q = worst(q, ar.add(ar.add(ar.add(x1s, ar.neg(ipo)), ar.mul(ar.constant(double(o)), bin)), off));
    }
    return q.err;
}

AxisRead axis_read(const Params& p, const AxisSample& a, int64_t size, double delta) {
    AxisRead r;
    r.oob = a.oob;
    r.delta = delta;
    r.index[0] = a.index[0];
    r.index[1] = a.index[1];
    r.weight[0] = a.weight[0].get_d();
    r.weight[1] = a.weight[1].get_d();
    r.coordinate = a.coordinate.get_d();
    if (delta == 0) {
        r.may_in = !a.oob;
        r.may_out = a.oob;
        r.k0 = a.index[0];
        r.k1 = sgn(a.weight[1]) != 0 ? a.index[1] : a.index[0];
        r.may_clamp = a.clamped;
        return r;
    }
    const double x = a.coordinate.get_d();
    const double d = r.delta = delta + 0x1p-48 * (std::fabs(x) + 1);  // x rounded to double
    const double lo = x - d, hi = x + d;
    r.may_out = lo < -1 || hi > double(size);
    r.may_in = hi >= -1 && lo <= double(size);
    r.may_clamp = lo < 0 || hi > double(size - 1);
    const double clo = std::clamp(lo, 0.0, double(size - 1)), chi = std::clamp(hi, 0.0, double(size - 1));
    if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        auto nearest = [&](double z) { return std::clamp<int64_t>(int64_t(std::ceil(z - 0.5)), 0, size - 1); };
        r.k0 = nearest(clo);
        r.k1 = nearest(chi);
    } else {
        r.k0 = int64_t(std::floor(clo));
        r.k1 = std::min<int64_t>(int64_t(std::floor(chi)) + 1, size - 1);
    }
    return r;
}

SampleFacts sample_facts(const Params& p, const AxisRead& ay, const AxisRead& ax, const std::vector<double>& x,
                         uint64_t plane, uint64_t width) {
    SampleFacts f;
    const double oob = double(p.oob_value);
    f.oob = ay.oob || ax.oob;
    const bool may_in = ay.may_in && ax.may_in, may_out = ay.may_out || ax.may_out;
    f.mixed = f.oob ? may_in : may_out;
    auto at = [&](int64_t r, int64_t c) { return x[size_t(plane + uint64_t(r) * width + uint64_t(c))]; };
    if ((f.oob || f.mixed) && !std::isfinite(oob)) f.nonfinite = true;
    if (f.oob) {
        f.lo = f.hi = oob;
    } else {
        double v = 0, m = 0;
        f.terms = 0;
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                const double w = ay.weight[a] * ax.weight[b];
                if (w == 0) continue;
                const double t = w * at(ay.index[a], ax.index[b]);
                v += t;
                m += std::fabs(t);
                ++f.terms;
            }
        const double rad = 0x1p-48 * m;  // the exact weights and sum, rounded to double
        f.lo = v - rad;
        f.hi = v + rad;
    }
    if (!may_in) return f;
    f.vmin = kInf;
    f.vmax = -kInf;
    double slope_x = 0, slope_y = 0, far = 0;
    const double v = (f.lo + f.hi) / 2;
    for (int64_t r = ay.k0; r <= ay.k1; ++r)
        for (int64_t c = ax.k0; c <= ax.k1; ++c) {
            const double e = at(r, c);
            if (!std::isfinite(e)) f.nonfinite = true;
            f.vmin = std::min(f.vmin, e);
            f.vmax = std::max(f.vmax, e);
            if (c < ax.k1) slope_x = std::max(slope_x, std::fabs(at(r, c + 1) - e));
            if (r < ay.k1) slope_y = std::max(slope_y, std::fabs(at(r + 1, c) - e));
            far = std::max(far, std::fabs(e - v) + (f.hi - f.lo));
        }
    if (f.nonfinite || f.oob) return f;
    if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) f.displacement = (ax.delta == 0 && ay.delta == 0) ? 0 : far;
    else f.displacement = ax.delta * slope_x * (1 + 0x1p-40) + ay.delta * slope_y * (1 + 0x1p-40);
    return f;
}

Quantity sample_quantity(const Params& p, const Arithmetic& ar, const SampleFacts& f, std::vector<Quantity>* products) {
    const Quantity oob = ar.constant(double(p.oob_value));
    Quantity q{f.lo, f.hi, 0};
    double in_err = 0;
    if (!f.oob || f.mixed) {
        if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
            in_err = f.displacement;
        } else {
            // l = x' - floor(x') is exact in float32; a backend may round it to A (FLOAT16): u_A.
            const Quantity X{f.vmin, f.vmax, 0}, l{0, 1, unit_roundoff(ar.type())};
            const Quantity h = ar.add(ar.constant(1), ar.neg(l));
            const Quantity wyx[4] = {ar.mul(h, h), ar.mul(h, l), ar.mul(l, h), ar.mul(l, l)};
            std::vector<Quantity> taps;
            for (const Quantity& w : wyx)
                taps.push_back(worst(ar.mul(w, X), ar.mul(h, ar.mul(h, X))));  // (wy wx) X or wy (wx X); h covers l
            const Quantity summed = ar.sum(taps);
            const Quantity diff = ar.add(X, ar.neg(X));
            const Quantity row = ar.add(X, ar.mul(l, diff));  // lerp: a + l (b - a)
            const Quantity lerp = ar.add(row, ar.mul(l, ar.add(row, ar.neg(row))));
            const Quantity row2 = ar.add(ar.mul(h, X), ar.mul(l, X));  // (1 - l) a + l b
            const Quantity weighted = ar.add(ar.mul(h, row2), ar.mul(l, row2));
            in_err = up(worst(summed, worst(lerp, weighted)).err + f.displacement);
            if (products && !f.oob && !f.mixed)
                for (const Quantity& t : taps) products->push_back(t);
        }
    }
    if (f.oob && !f.mixed) return {oob.lo, oob.hi, oob.err};
    if (!f.oob && !f.mixed) {
        q.err = in_err;
        return q;
    }
    // Either reading: the other one is at most |OutOfBoundsInputValue| + the box's largest magnitude away.
    const double spread = up(std::fabs(double(p.oob_value)) + std::max(std::fabs(f.vmin), std::fabs(f.vmax)));
    q.lo = std::min(q.lo, std::min(f.vmin, double(p.oob_value)));
    q.hi = std::max(q.hi, std::max(f.vmax, double(p.oob_value)));
    q.err = up(up(std::max(in_err, oob.err)) + spread);
    if (products) products->push_back(q);
    return q;
}

namespace {

void forward_bounds(const Params& p, const std::vector<double>& x, std::span<const std::byte> roi,
                    std::span<const std::byte> indices, const ArithmeticProfile& prof, TermSink& sink) {
    const TensorDesc& img = *p.input;
    const uint64_t channels = img.Sizes[1], height = img.Sizes[2], width = img.Sizes[3];
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    const bool max = p.reduction == DML_REDUCE_FUNCTION_MAX;
    for (uint64_t r = 0; r < region_count(p); ++r) {
        const Region g = region(p, roi, indices, r);
        if (g.batch >= img.Sizes[0]) throw std::invalid_argument("a batch index is out of range");
        const double raw[4] = {roi_value(p, roi, r, 0), roi_value(p, roi, r, 1), roi_value(p, roi, r, 2),
                               roi_value(p, roi, r, 3)};
        // The axes' samples and what a float32 coordinate may read, shared by the channels.
        std::vector<AxisRead> ys(size_t(out_h * g.sy)), xs(size_t(out_w * g.sx));
        for (uint64_t o = 0; o < out_h; ++o)
            for (uint64_t i = 0; i < g.sy; ++i)
                ys[size_t(o * g.sy + i)] = axis_read(p, g.y(o, i), int64_t(height),
                                                     coordinate_error(p, raw[1], raw[3], p.scale_y, out_h, g.sy, o, i));
        for (uint64_t o = 0; o < out_w; ++o)
            for (uint64_t i = 0; i < g.sx; ++i)
                xs[size_t(o * g.sx + i)] = axis_read(p, g.x(o, i), int64_t(width),
                                                     coordinate_error(p, raw[0], raw[2], p.scale_x, out_w, g.sx, o, i));
        const double count = double(g.sx) * double(g.sy);
        for (uint64_t c = 0; c < channels; ++c) {
            const uint64_t plane = (g.batch * channels + c) * height * width;
            for (uint64_t oy = 0; oy < out_h; ++oy)
                for (uint64_t ox = 0; ox < out_w; ++ox) {
                    const uint64_t e = ((r * channels + c) * out_h + oy) * out_w + ox;
                    std::vector<SampleFacts> facts;
                    bool nonfinite = false;
                    uint32_t terms = 0;
                    double scale = 0;
                    for (uint64_t iy = 0; iy < g.sy; ++iy)
                        for (uint64_t ix = 0; ix < g.sx; ++ix) {
                            facts.push_back(sample_facts(p, ys[size_t(oy * g.sy + iy)], xs[size_t(ox * g.sx + ix)], x,
                                                         plane, width));
                            nonfinite = nonfinite || facts.back().nonfinite;
                            terms += facts.back().terms;
                            const double m = std::max(std::fabs(facts.back().lo), std::fabs(facts.back().hi));
                            scale = max ? std::max(scale, m) : scale + m / count;
                        }
                    if (nonfinite) {
                        sink.set_computed(e, kInf, 0, terms, false, true);
                        continue;
                    }
                    const double error = computed_error(prof, p.pooled.DataType, [&](const Arithmetic& ar) {
                        std::vector<Quantity> samples, products;
                        bool flat = true;
                        for (const SampleFacts& f : facts) {
                            samples.push_back(sample_quantity(p, ar, f, &products));
                            flat = flat && !f.oob && !f.mixed && p.mode == DML_INTERPOLATION_MODE_LINEAR;
                        }
                        if (max) {
                            // The exact greatest is at least L; a sample that may be it errs by at most e_top;
                            // the backend's greatest is within e_top below, and within the error of any sample
                            // that may reach L - e_top above.
                            double L = -kInf, hi = -kInf, e_top = 0, e = 0;
                            for (const Quantity& s : samples) L = std::max(L, s.lo), hi = std::max(hi, s.hi);
                            for (const Quantity& s : samples)
                                if (s.hi >= L) e_top = std::max(e_top, s.err);
                            for (const Quantity& s : samples)
                                if (up(s.hi + s.err) >= L - e_top) e = std::max(e, s.err);
                            return Quantity{L, hi, std::max(e, e_top)};
                        }
                        Quantity total = ar.sum(samples);
                        if (flat && products.size() > samples.size()) {
                            Quantity all = ar.sum(products);  // every tap product in one sum, any order
                            double moved = 0;
                            for (const SampleFacts& f : facts) moved = up(moved + f.displacement);
                            all.err = up(all.err + moved);
                            total = worst(total, all);
                        }
                        if (count == 1) return total;
                        const Quantity n = ar.constant(count);
                        std::vector<Quantity> divided, scaled;
                        for (const Quantity& s : samples) {
                            divided.push_back(ar.div(s, n));
                            scaled.push_back(ar.mul(s, ar.reciprocal(n)));
                        }
                        return worst(worst(ar.div(total, n), ar.mul(total, ar.reciprocal(n))),
                                     worst(ar.sum(divided), ar.sum(scaled)));
                    });
                    sink.set_computed(e, error, std::isfinite(scale) ? scale : 0, terms);
                }
        }
    }
}

}  // namespace

}  // namespace dmlref::reference::roi

namespace dmlref {

void roi_align_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& prof, TermSink& sink) {
    using namespace reference::roi;
    auto run = [&](const Params& p) {
        forward_bounds(p, logical_doubles(*p.input, input("InputTensor")), input("ROITensor"),
                       input("BatchIndicesTensor"), prof, sink);
    };
    if (auto* d = get_if<DML_ROI_ALIGN_OPERATOR_DESC>(&op.Desc)) run(params(*d));
    else if (auto* d = get_if<DML_ROI_ALIGN1_OPERATOR_DESC>(&op.Desc)) run(params(*d));
    else throw std::invalid_argument("not a forward ROI align operator");
}

}  // namespace dmlref
