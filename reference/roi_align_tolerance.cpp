// ROI align's stated tolerance, counted from the case's own regions (docs/tolerance.md, "ROI align"):
// each output's Terms (the bounds are computed per element by reference/roi_align_bound.cpp and
// reference/roi_align_grad_bound.cpp), and the elements on a decision boundary.
#include "roi_align.hpp"
#include "roi_align_internal.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace dmlref::reference {

namespace roi {
namespace {

uint32_t clamp32(uint64_t k) { return uint32_t(std::min<uint64_t>(k, UINT32_MAX)); }

// Tap terms of one sample (an out-of-bounds sample is one term, OutOfBoundsInputValue), and
// whether a weight other than 1 is involved.
std::pair<uint64_t, bool> sample_terms(const AxisSample& ay, const AxisSample& ax) {
    if (ay.oob || ax.oob) return {1, false};
    uint64_t n = 0;
    bool weighted = false;
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            const mpq_class w = ay.weight[a] * ax.weight[b];
            if (sgn(w) == 0) continue;
            ++n;
            weighted = weighted || w != 1;
        }
    return {n, weighted};
}

// `copies` is set to false where an element is more than a copy of one value (a sum, a weight, a division).
std::vector<uint32_t> terms(const Params& p, const Case& c, std::string_view output, bool& copies) {
    const auto roi = std::span<const std::byte>(c.inputs.at("ROITensor"));
    const auto indices = std::span<const std::byte>(c.inputs.at("BatchIndicesTensor"));
    const TensorDesc& img = image_desc(p);
    const uint64_t channels = img.Sizes[1], height = img.Sizes[2], width = img.Sizes[3];
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    std::vector<uint32_t> k;
    std::vector<uint64_t> dx_terms(output == "OutputGradientTensor" ? size_t(img.Sizes[0] * channels * height * width)
                                                                    : 0);
    std::vector<uint64_t> roi_terms(output == "OutputROIGradientTensor" ? size_t(region_count(p) * 4) : 0);
    bool dx_weighted = false;
    for (uint64_t r = 0; r < region_count(p); ++r) {
        const Region g = region(p, roi, indices, r);
        const bool divides = p.reduction != DML_REDUCE_FUNCTION_MAX && g.sx * g.sy > 1;  // the grad's dY / (Sx * Sy)
        for (uint64_t ch = 0; ch < channels; ++ch)
            for (uint64_t oy = 0; oy < out_h; ++oy)
                for (uint64_t ox = 0; ox < out_w; ++ox) {
                    uint64_t n = 0, most = 0;
                    bool weighted = false;
                    for (uint64_t iy = 0; iy < g.sy; ++iy)
                        for (uint64_t ix = 0; ix < g.sx; ++ix) {
                            const AxisSample& ay = g.y(oy, iy);
                            const AxisSample& ax = g.x(ox, ix);
                            const auto [t, w] = sample_terms(ay, ax);
                            n += t;
                            most = std::max(most, t);
                            weighted = weighted || w;
                            if (ay.oob || ax.oob || !p.grad) continue;
                            for (int a = 0; a < 2 && !dx_terms.empty(); ++a)
                                for (int b = 0; b < 2; ++b)
                                    if (sgn(ay.weight[a] * ax.weight[b]) != 0)
                                        ++dx_terms[size_t(((g.batch * channels + ch) * height + uint64_t(ay.index[a])) *
                                                              width +
                                                          uint64_t(ax.index[b]))];
                            if (!roi_terms.empty()) {
                                if (ax.slope) roi_terms[size_t(r * 4)] += 2, roi_terms[size_t(r * 4 + 2)] += 2;
                                if (ay.slope) roi_terms[size_t(r * 4 + 1)] += 2, roi_terms[size_t(r * 4 + 3)] += 2;
                            }
                        }
                    dx_weighted = dx_weighted || weighted || divides;
                    if (p.grad) continue;
                    // The forward's bound is computed per element (roi_align_bounds, reference/roi_align_bound.cpp):
                    // Terms only records the tap terms of its samples.
                    k.push_back(clamp32(n));
                    const uint64_t read = p.reduction == DML_REDUCE_FUNCTION_MAX ? most : n;  // MAX of copies is a copy
                    copies = copies && read <= 1 && !weighted && !divides;
                }
    }
    if (output == "OutputGradientTensor") {
        for (uint64_t m : dx_terms) {
            k.push_back(clamp32(m));
            copies = copies && m <= 1 && !dx_weighted;
        }
    }
    if (output == "OutputROIGradientTensor") {
        for (uint64_t m : roi_terms) {
            k.push_back(clamp32(m));
            copies = copies && m == 0;  // each term is dY times a slope times a coordinate's derivative
        }
    }
    return k;
}

// Why a sample sits on a decision of the exact formula, or "" (docs/tolerance.md, ROI align):
// a nearest-neighbour coordinate exactly halfway between two elements, a coordinate exactly on
// the out-of-bounds limit (-1 or the size), and, for the ROI gradient, a linear sample exactly on
// a cell edge or the clamp limit (where the derivative has a kink and dmlref takes the right one).
std::string decision(const Params& p, const AxisSample& a, uint64_t size, bool kinks) {
    const mpq_class& x = a.coordinate;
    const bool integer = x.get_den() == 1;
    // -1 and the size are the only integers that are in bounds and clamped.
    if (integer && !a.oob && (x == -1 || (a.clamped && x > 0))) return "RoiAlignOutOfBoundsLimit";
    if (a.oob) return "";
    if (p.mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR)
        return !a.clamped && mpq_class(x - mpq_class(1, 2)).get_den() == 1 ? "RoiAlignNearestTie" : "";
    return kinks && integer && size > 1 ? "RoiAlignCellEdge" : "";  // one element: constant, no edge
}

std::vector<std::pair<uint64_t, std::string>> boundary(const Params& p, const Case& c, std::string_view output) {
    const auto roi = std::span<const std::byte>(c.inputs.at("ROITensor"));
    const auto indices = std::span<const std::byte>(c.inputs.at("BatchIndicesTensor"));
    const TensorDesc& img = image_desc(p);
    const uint64_t channels = img.Sizes[1], height = img.Sizes[2], width = img.Sizes[3];
    const uint64_t out_h = p.pooled.Sizes[2], out_w = p.pooled.Sizes[3];
    const bool droi = output == "OutputROIGradientTensor";
    std::map<uint64_t, std::string> flagged;
    for (uint64_t r = 0; r < region_count(p); ++r) {
        const Region g = region(p, roi, indices, r);
        for (uint64_t oy = 0; oy < out_h; ++oy)
            for (uint64_t ox = 0; ox < out_w; ++ox)
                for (uint64_t iy = 0; iy < g.sy; ++iy)
                    for (uint64_t ix = 0; ix < g.sx; ++ix) {
                        const AxisSample& ay = g.y(oy, iy);
                        const AxisSample& ax = g.x(ox, ix);
                        std::string why = decision(p, ax, width, droi);
                        if (why.empty()) why = decision(p, ay, height, droi);
                        if (why.empty()) continue;
                        for (uint64_t ch = 0; ch < channels; ++ch) {
                            if (output == "OutputTensor") {
                                flagged.emplace(((r * channels + ch) * out_h + oy) * out_w + ox, why);
                            } else if (output == "OutputGradientTensor") {
                                // The taps it reads and the neighbours it might read instead.
                                for (int64_t dy = -1; dy <= 2; ++dy)
                                    for (int64_t dx = -1; dx <= 2; ++dx) {
                                        const int64_t yy = ay.index[0] + dy, xx = ax.index[0] + dx;
                                        if (yy < 0 || xx < 0 || yy >= int64_t(height) || xx >= int64_t(width)) continue;
                                        flagged.emplace(
                                            ((g.batch * channels + ch) * height + uint64_t(yy)) * width + uint64_t(xx),
                                            why);
                                    }
                            }
                        }
                        if (droi)
                            for (uint64_t k = 0; k < 4; ++k) flagged.emplace(r * 4 + k, why);
                    }
    }
    return {flagged.begin(), flagged.end()};
}

}  // namespace
}  // namespace roi

std::vector<std::pair<uint64_t, std::string>> roi_align_boundary(const Case& c, std::string_view output) {
    std::optional<roi::Params> p;
    visit_as<DML_ROI_ALIGN_OPERATOR_DESC, DML_ROI_ALIGN1_OPERATOR_DESC, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(
        c.op.Desc, [&](const auto& d) {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, DML_ROI_ALIGN_OPERATOR_DESC> ||
                          std::is_same_v<D, DML_ROI_ALIGN1_OPERATOR_DESC> ||
                          std::is_same_v<D, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>)
                p.emplace(roi::params(d));
        });
    if (!p || validate(c.op).has_errors() || !c.inputs.count("ROITensor") || !c.inputs.count("BatchIndicesTensor") ||
        validate_input_values(c.op, c.inputs, UINT64_MAX).has_errors())
        return {};
    return roi::boundary(*p, c, output);
}

std::optional<Tolerance> roi_align_tolerance(const Case& c, std::string_view output) {
    std::optional<roi::Params> p;
    visit_as<DML_ROI_ALIGN_OPERATOR_DESC, DML_ROI_ALIGN1_OPERATOR_DESC, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>(
        c.op.Desc, [&](const auto& d) {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, DML_ROI_ALIGN_OPERATOR_DESC> ||
                          std::is_same_v<D, DML_ROI_ALIGN1_OPERATOR_DESC> ||
                          std::is_same_v<D, DML_ROI_ALIGN_GRAD_OPERATOR_DESC>)
                p.emplace(roi::params(d));
        });
    if (!p) return std::nullopt;
    Tolerance t;
    t.Why = "the regions or inputs are missing or invalid: bit for bit";
    if (validate(c.op).has_errors() || !c.inputs.count("ROITensor") || !c.inputs.count("BatchIndicesTensor") ||
        validate_input_values(c.op, c.inputs, UINT64_MAX).has_errors())
        return t;
    bool copies = true;
    std::vector<uint32_t> terms = roi::terms(*p, c, output, copies);
    const uint32_t most = terms.empty() ? 0 : *std::max_element(terms.begin(), terms.end());
    if (copies) {
        t.Why = p->grad ? "every element is +0 or a copy of one dY value: bit for bit"
                        : "every element is a copy of one input value or OutOfBoundsInputValue (or +0): bit for bit";
        return t;
    }
    t.Kind = "Summed";
    t.MaxTerms = most;
    t.Terms = std::move(terms);
    t.Why =
        output == "OutputROIGradientTensor"
            ? "each element is an exact sum of dY times the bilinear slopes times the coordinates' derivatives, rounded once "
              "(docs/golden.md, ROI align). Terms gives each element's terms; dmlref diff bounds each element from every "
              "monomial a backend may add, float32 coordinates, near cell edges and near ties included (docs/tolerance.md, ROI align)"
        : output == "OutputGradientTensor"
            ? "each element is an exact sum of bilinear taps of dY (times 1 / (Sx * Sy) for AVERAGE), rounded once (docs/golden.md, "
              "ROI align). Terms gives each element's terms; dmlref diff bounds each element from every term a backend may add, "
              "float32 coordinates, moved taps and near ties included (docs/tolerance.md, ROI align)"
            : "each element is an exact sum of bilinear taps (times 1 / (Sx * Sy) for AVERAGE) or the greatest sample (MAX), "
              "rounded once (docs/golden.md, ROI align). Terms gives each element's tap terms; dmlref diff bounds each element "
              "from its samples' magnitudes, float32 coordinates, the additions and the division (docs/tolerance.md, ROI align)";
    return t;
}

}  // namespace dmlref::reference
