// The per-element bound of ROI_ALIGN_GRAD's two outputs (docs/tolerance.md, "ROI align", "The
// grad"): every term a backend may add to an element, formed in its working type A from float32
// sample coordinates, then all of the element's terms summed in any order (Arithmetic::sum).
//
//   OutputGradientTensor     dX[tap] += dY * (w_y * w_x) * share over the samples that read the tap,
//                            share = 1 / (Sx * Sy) (AVERAGE), or 1 for the greatest sample (MAX)
//   OutputROIGradientTensor  dROI[r][j] += dY * share * SpatialScale * c * w_o * (+X or -X) over the
//                            samples with a slope along j's axis, expanded to monomials: c = 1 and
//                            c = -t for the first coordinate (x1, y1), c = t for the second (x2, y2);
//                            w_o the other axis's weights, X the cell's two elements along j's axis
//   weights      l = x' - floor(x') within the coordinate error delta of the exact one (rounded
//                to A when A is narrower than float32) and 1 - l (one rounding)
//   moved reads  a coordinate within delta of a cell edge may read the next cell: a ghost term
//                (exact value 0, at most the weight it may get); within delta of -1 or the size,
//                an in-bounds sample may send nothing (the term may vanish), an out-of-bounds one
//                may send its clamped reading (ghost terms of weight up to 1); a coordinate that
//                may be clamped may have no slope
//   MAX          every sample that may be the backend's greatest (a near tie, the forward's
//                assumption 12) may receive the whole dY, the exact greatest may receive nothing
#include "roi_align.hpp"
#include "roi_align_bound.hpp"

#include "dmlref/terms.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace dmlref::reference::roi {

namespace {

// How a term enters an element: as formed, possibly not at all, or only possibly.
enum class Presence { Normal, MayVanish, Ghost, Absent };

Presence combine(Presence a, Presence b) { return std::max(a, b); }  // the less certain of the two

Quantity present(const Quantity& q, Presence m) {
    switch (m) {
        case Presence::Normal: return q;
        case Presence::MayVanish: return {std::min(q.lo, 0.0), std::max(q.hi, 0.0), up(q.mag() + q.err)};  // q' or 0
        default: return {0, 0, up(q.mag() + q.err)};                                                       // 0 or q'
    }
}

// One element a backend may read along one axis for one sample, with its weight in A.
struct Tap {
    int64_t index;
    Quantity w;
};

// The taps of one axis sample: the exact ones (weights within the coordinate error) and the
// elements a moved coordinate may reach (ghosts, exact weight 0). An out-of-bounds coordinate's
// taps are the elements its clamped reading may read, weight in [0, 1].
std::vector<Tap> axis_taps(const Params& p, const Arithmetic& ar, const AxisSample& s, const AxisRead& r) {
    std::vector<Tap> taps;
    if (s.oob) {
        if (r.may_in)
            for (int64_t k = r.k0; k <= r.k1; ++k) taps.push_back({k, {0, 1, 0}});
        return taps;
    }
    const bool moves = r.k0 != r.k1 || r.index[0] != r.k0;  // a moved coordinate may read another element
    if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        taps.push_back({s.index[0], {1, 1, moves ? 1.0 : 0.0}});
        for (int64_t k = r.k0; k <= r.k1; ++k)
            if (k != s.index[0]) taps.push_back({k, {0, 0, 1}});
        return taps;
    }
    const double l_err = up(
        r.delta + (element_size(ar.type()) < element_size(DataType::FLOAT32) ? unit_roundoff(ar.type()) : 0.0));
    const bool two = r.weight[1] != 0;
    if (two) {
        const Quantity l{r.weight[1], r.weight[1], l_err};
        taps.push_back({s.index[0], ar.add(ar.constant(1), ar.neg(l))});
        taps.push_back({s.index[1], l});
    } else {
        taps.push_back({s.index[0], {1, 1, moves ? l_err : 0.0}});
    }
    for (int64_t k = r.k0; k <= r.k1; ++k)
        if (k != s.index[0] && !(two && k == s.index[1])) taps.push_back({k, {0, 0, l_err}});
    return taps;
}

// The cells [c, c + 1) a coordinate within delta of the exact one may read unclamped, with a
// slope: first > last when none.
std::pair<int64_t, int64_t> slope_cells(const AxisSample& e, const AxisRead& r, int64_t size) {
    if (r.delta == 0)
        return e.slope ? std::pair<int64_t, int64_t>{e.index[0], e.index[0]} : std::pair<int64_t, int64_t>{1, 0};
    const double a = std::max(r.coordinate - r.delta, 0.0), b = std::min(r.coordinate + r.delta, double(size - 1));
    if (a > b || size < 2) return {1, 0};
    return {std::min<int64_t>(int64_t(std::floor(a)), size - 2), std::min<int64_t>(int64_t(std::floor(b)), size - 2)};
}

// One output element's bound under construction: its terms' sum in each working type.
struct Element {
    std::array<SumAccumulator, 3> acc;
    uint32_t terms = 0;
    double scale = 0;        // the sum of the exact terms' magnitudes (the report's scale)
    bool nonfinite = false;  // a non-finite term certainly reaches it: judged as non-finite values
    bool unbounded = false;  // a non-finite term may reach it: the bound says nothing
};

struct GradBound {
    const Params& p;
    const ArithmeticProfile& prof;
    std::vector<Arithmetic> types;  // the working types the profile admits
    std::vector<double> x, dy;      // InputTensor (when bound) and InputGradientTensor, logical order
    bool roi_output;                // OutputROIGradientTensor, else OutputGradientTensor
    std::vector<Element> elements;

    // Adds term q (formed in types[k]) with its presence; `finite` whether its factors are.
    void add(Element& e, size_t k, const Quantity& q, Presence m, bool finite) {
        if (m == Presence::Absent) return;
        if (!finite) {
            (m == Presence::Ghost ? e.unbounded : e.nonfinite) = true;
            return;
        }
        e.acc[k].add(present(q, m));
        if (k == 0) {
            ++e.terms;
            if (m != Presence::Ghost) e.scale = up(e.scale + q.mag());
        }
    }

    void region(std::span<const std::byte> roi, std::span<const std::byte> indices, uint64_t r);
    void finish(TermSink& sink) const;
};

void GradBound::region(std::span<const std::byte> roi, std::span<const std::byte> indices, uint64_t r) {
    const TensorDesc& img = image_desc(p);
    const uint64_t channels = img.Sizes[1], height = img.Sizes[2], width = img.Sizes[3];
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    const bool max = p.reduction == DML_REDUCE_FUNCTION_MAX;
    const Region g = roi::region(p, roi, indices, r);
    if (g.batch >= img.Sizes[0]) throw std::invalid_argument("a batch index is out of range");
    const double raw[4] = {roi_value(p, roi, r, 0), roi_value(p, roi, r, 1), roi_value(p, roi, r, 2),
                           roi_value(p, roi, r, 3)};
    // Each axis's samples: exact, what a float32 coordinate may read, t's float32 error, and the taps per type.
    struct AxisFacts {
        std::vector<AxisSample> exact;
        std::vector<AxisRead> read;
        std::vector<double> t_err;
        std::vector<std::vector<std::vector<Tap>>> taps;  // [type][sample]
    } axes[2];                                            // 0: x, 1: y
    for (int a = 0; a < 2; ++a) {
        const uint64_t out = a == 0 ? out_w : out_h, per = a == 0 ? g.sx : g.sy;
        const int64_t size = int64_t(a == 0 ? width : height);
        const float scale = a == 0 ? p.scale_x : p.scale_y;
        AxisFacts& f = axes[a];
        f.taps.resize(types.size());
        for (uint64_t o = 0; o < out; ++o)
            for (uint64_t i = 0; i < per; ++i) {
                f.exact.push_back(a == 0 ? g.x(o, i) : g.y(o, i));
                f.read.push_back(
                    axis_read(p, f.exact.back(), size, coordinate_error(p, raw[a], raw[a + 2], scale, out, per, o, i)));
                f.t_err.push_back(sample_t(p, out, per, o, i).err);
                for (size_t k = 0; k < types.size(); ++k)
                    f.taps[k].push_back(axis_taps(p, types[k], f.exact.back(), f.read.back()));
            }
    }
    const uint64_t count = g.sx * g.sy;
    for (uint64_t c = 0; c < channels; ++c) {
        const uint64_t plane = (g.batch * channels + c) * height * width;
        for (uint64_t oy = 0; oy < out_h; ++oy)
            for (uint64_t ox = 0; ox < out_w; ++ox) {
                const double grad = dy[size_t(((r * channels + c) * out_h + oy) * out_w + ox)];
                // MAX: the samples that may be the backend's greatest, from the forward's sample analysis.
                std::vector<SampleFacts> facts;
                if (max)
                    for (uint64_t iy = 0; iy < g.sy; ++iy)
                        for (uint64_t ix = 0; ix < g.sx; ++ix)
                            facts.push_back(sample_facts(p, axes[1].read[size_t(oy * g.sy + iy)],
                                                         axes[0].read[size_t(ox * g.sx + ix)], x, plane, width));
                for (size_t k = 0; k < types.size(); ++k) {
                    const Arithmetic& ar = types[k];
                    std::vector<Presence> presence(size_t(count), Presence::Absent);
                    bool uncertain = false;  // MAX over a non-finite sample: the choice is unknown
                    if (max) {
                        std::vector<Quantity> v;
                        double L = -kInf, e_top = 0;
                        for (uint64_t s = 0; s < count; ++s) {
                            v.push_back(sample_quantity(p, ar, facts[s], nullptr));
                            uncertain = uncertain || facts[s].nonfinite;
                            if (!facts[s].oob && !facts[s].mixed) L = std::max(L, v[s].lo);  // certainly read
                        }
                        for (uint64_t s = 0; s < count; ++s)
                            if (v[s].hi >= L && (!facts[s].oob || facts[s].mixed)) e_top = std::max(e_top, v[s].err);
                        // The exact greatest: the first with the greatest value among the in-bounds samples.
                        uint64_t chosen = UINT64_MAX, candidates = 0;
                        for (uint64_t s = 0; s < count; ++s) {
                            if (facts[s].oob && !facts[s].mixed) continue;
                            if (!(up(v[s].hi + v[s].err) >= L - e_top)) continue;
                            ++candidates;
                            presence[s] = Presence::Ghost;
                            if (!facts[s].oob &&
                                (chosen == UINT64_MAX || v[s].lo + v[s].hi > v[chosen].lo + v[chosen].hi))
                                chosen = s;
                        }
                        if (chosen != UINT64_MAX)
                            presence[chosen] = candidates > 1 || facts[chosen].mixed ? Presence::MayVanish
                                                                                     : Presence::Normal;
                    }
                    for (uint64_t iy = 0; iy < g.sy; ++iy)
                        for (uint64_t ix = 0; ix < g.sx; ++ix) {
                            const size_t sy = size_t(oy * g.sy + iy), sx = size_t(ox * g.sx + ix),
                                         s = size_t(iy * g.sx + ix);
                            const AxisRead &ry = axes[1].read[sy], &rx = axes[0].read[sx];
                            Presence m = presence[s];
                            if (!max) {
                                const bool in = !ry.oob && !rx.oob, may_in = ry.may_in && rx.may_in,
                                           may_out = ry.may_out || rx.may_out;
                                m = in       ? (may_out ? Presence::MayVanish : Presence::Normal)
                                    : may_in ? Presence::Ghost
                                             : Presence::Absent;
                            }
                            if (m == Presence::Absent) continue;
                            const bool finite = std::isfinite(grad) && !(max && uncertain);
                            const Quantity share = max || count == 1
                                                       ? Quantity{1, 1, 0}
                                                       : ar.div(ar.constant(1), ar.constant(double(count)));
                            const Quantity gs = ar.mul(ar.input(std::isfinite(grad) ? grad : 0), share);
                            const auto& ty = axes[1].taps[k][sy];
                            const auto& tx = axes[0].taps[k][sx];
                            if (!roi_output) {
                                for (const Tap& a : ty)
                                    for (const Tap& b : tx) {
                                        const uint64_t at = ((g.batch * channels + c) * height + uint64_t(a.index)) *
                                                                width +
                                                            uint64_t(b.index);
                                        add(elements[size_t(at)], k, ar.mul(ar.mul(a.w, b.w), gs), m, finite);
                                    }
                                continue;
                            }
                            if (p.mode != DML_INTERPOLATION_MODE_LINEAR) continue;  // nearest: no slope, dROI = 0
                            for (int j = 0; j < 2; ++j) {  // 0: x (ROI 0 and 2), 1: y (ROI 1 and 3)
                                const AxisFacts& own = axes[j];
                                const size_t so = j == 0 ? sx : sy;
                                const AxisSample& e = own.exact[so];
                                const AxisRead& ro = own.read[so];
                                const auto& other = j == 0 ? ty : tx;
                                const int64_t size = int64_t(j == 0 ? width : height);
                                const Quantity scale = ar.constant(double(j == 0 ? p.scale_x : p.scale_y));
                                const double t = e.t.get_d();
                                const Quantity tq{
                                    t, t,
                                    up(own.t_err[so] +
                                       (element_size(ar.type()) < 4 ? unit_roundoff(ar.type()) * std::fabs(t) : 0))};
                                // The cells whose slope the backend may take: the exact one, and any a moved
                                // coordinate reaches unclamped ([0, size - 1), a cell c being [c, c + 1)).
                                const auto [first, last] = slope_cells(e, ro, size);
                                const bool others = ro.may_clamp || first != last || (e.slope && first != e.index[0]);
                                for (int64_t cell = first; cell <= last; ++cell) {
                                    const bool exact_cell = e.slope && cell == e.index[0];
                                    if (!exact_cell && ro.delta == 0) continue;
                                    const Presence cm = combine(
                                        m, exact_cell ? (others ? Presence::MayVanish : Presence::Normal)
                                                      : Presence::Ghost);
                                    for (const Tap& o : other) {
                                        const uint64_t row[2] = {uint64_t(j == 0 ? o.index : cell),
                                                                 uint64_t(j == 0 ? o.index : cell + 1)};
                                        const uint64_t col[2] = {uint64_t(j == 0 ? cell : o.index),
                                                                 uint64_t(j == 0 ? cell + 1 : o.index)};
                                        for (int side = 0; side < 2; ++side) {  // +X[cell + 1], -X[cell]
                                            const double xv = x[size_t(plane + row[side] * width + col[side])];
                                            const bool ok = finite && std::isfinite(xv);
                                            const Quantity xq = ar.input(std::isfinite(xv) ? (side ? xv : -xv) : 0);
                                            const Quantity base = ar.mul(ar.mul(gs, scale), ar.mul(o.w, xq));
                                            add(elements[size_t(r * 4 + uint64_t(j))], k, base, cm, ok);  // c = 1
                                            add(elements[size_t(r * 4 + uint64_t(j))], k, ar.mul(base, ar.neg(tq)), cm,
                                                ok);  // c = -t
                                            add(elements[size_t(r * 4 + 2 + uint64_t(j))], k, ar.mul(base, tq), cm,
                                                ok);  // c = t
                                        }
                                    }
                                }
                            }
                        }
                }
            }
    }
}

void GradBound::finish(TermSink& sink) const {
    const DataType t = roi_output ? p.droi->DataType : p.dx->DataType;
    for (size_t e = 0; e < elements.size(); ++e) {
        const Element& el = elements[e];
        if (el.nonfinite || el.unbounded) {
            sink.set_computed(e, kInf, el.scale, el.terms, false, el.nonfinite);
            continue;
        }
        double error = 0;
        for (size_t k = 0; k < types.size(); ++k) {
            const double ek = types[k].result_error(types[k].sum(el.acc[k]), t);
            error = std::isnan(ek) ? kInf : std::max(error, ek);
        }
        sink.set_computed(e, error, std::isfinite(el.scale) ? el.scale : 0, el.terms);
    }
}

void grad_bounds(const DML_ROI_ALIGN_GRAD_OPERATOR_DESC& d, bool roi_output, const InputBuffer& input,
                 const ArithmeticProfile& prof, TermSink& sink) {
    const Params p = params(d);
    if (roi_output ? !p.droi : !p.dx) throw std::invalid_argument("the case has no such output");
    GradBound b{p, prof, {}, {}, {}, roi_output, {}};
    const DataType t = roi_output ? p.droi->DataType : p.dx->DataType;
    computed_error(prof, t, [&](const Arithmetic& ar) {
        b.types.push_back(ar);
        return Quantity{};
    });
    if (b.types.size() > 3) throw std::logic_error("more working types than an Element holds");
    if (p.input) b.x = logical_doubles(*p.input, input("InputTensor"));
    if (b.x.empty() && (roi_output || p.reduction == DML_REDUCE_FUNCTION_MAX))
        throw std::invalid_argument("no InputTensor");
    b.dy = logical_doubles(p.pooled, input("InputGradientTensor"));
    b.elements.resize(roi_output ? size_t(region_count(p) * 4) : size_t(element_count(*p.dx)));
    for (uint64_t r = 0; r < region_count(p); ++r) b.region(input("ROITensor"), input("BatchIndicesTensor"), r);
    b.finish(sink);
}

}  // namespace

}  // namespace dmlref::reference::roi

namespace dmlref {

void roi_align_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& prof,
                               TermSink& sink) {
    const auto* d = get_if<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(&op.Desc);
    if (!d) throw std::invalid_argument("not ROI_ALIGN_GRAD");
    reference::roi::grad_bounds(*d, false, input, prof, sink);
}

void roi_align_roi_gradient_bounds(const Operator& op, const InputBuffer& input, const ArithmeticProfile& prof,
                                   TermSink& sink) {
    const auto* d = get_if<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(&op.Desc);
    if (!d) throw std::invalid_argument("not ROI_ALIGN_GRAD");
    reference::roi::grad_bounds(*d, true, input, prof, sink);
}

}  // namespace dmlref
