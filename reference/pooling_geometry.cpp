// The window geometry of the pooling families for coverage, gen and the work estimate, and the
// window walk of the forward loops (reference/pooling_geometry.hpp). The loops and the rules live
// in reference/max_pooling.cpp, reference/average_pooling.cpp and reference/lp_pooling.cpp.
#include "pooling_geometry.hpp"
#include "common.hpp"

#include "dmlref/checked.hpp"

#include "dmlref/explain.hpp"

#include <algorithm>
#include <cstdlib>

namespace dmlref::reference {

namespace {

uint32_t dilation(const PoolingView& v, size_t i) {
    return v.Dilations && i < v.Dilations->size() ? (*v.Dilations)[i] : 1;
}

}  // namespace

PoolingWindows pooling_windows(const PoolingView& v) {
    PoolingWindows w;
    w.spatial = v.input->DimensionCount() - 2;
    for (size_t i = 0; i < w.spatial; ++i) {
        w.in[i] = v.input->Sizes[i + 2];
        w.out[i] = v.output->Sizes[i + 2];
        w.stride[i] = (*v.Strides)[i];
        w.size[i] = (*v.WindowSize)[i];
        w.start[i] = (*v.StartPadding)[i];
        w.dilation[i] = dilation(v, i);
    }
    return w;
}

void validate_pooling_windows(Diagnostics& diags, const PoolingRules& r, const PoolingView& v) {
    auto rule = [](std::string_view op, std::string_view id) { return std::string(op) + "." + std::string(id); };
    const TensorDesc& in = *v.input;
    const std::string in_path = pointer_append(desc_path(r.input), "Sizes");
    const uint32_t rank = in.DimensionCount();
    if (rank < 3 || rank > kMaxDimensionCount) {
        diags.error(in_path, rule(r.op, "rank"),
                    std::string(r.input) + " has " + std::to_string(rank) + " dimensions; " + std::string(r.what) +
                        " needs 3 to 8 "
                        "(batch, channel and 1 to 6 spatial dimensions)");
        return;
    }
    const bool shape_ok = validate_pooling_arrays(diags, {r.op, r.input, rank, r.DimensionCount, *v.Strides,
                                                          *v.WindowSize, *v.StartPadding, *v.EndPadding, v.Dilations});
    const TensorDesc& out = *v.output;
    const std::string out_path = pointer_append(desc_path(r.output), "Sizes");
    if (out.DimensionCount() != rank) {
        diags.error(out_path, rule(r.op, "same-dimension-count"),
                    std::string(r.output) + " has " + std::to_string(out.DimensionCount()) + " dimensions but " +
                        std::string(r.input) + " has " + std::to_string(rank) +
                        "; they must have the same DimensionCount");
        return;
    }
    for (size_t i = 0; i < 2; ++i)
        if (out.Sizes[i] != in.Sizes[i])
            diags.error(pointer_append(out_path, i), rule(r.op, "batch-channel"),
                        std::string(r.output) + ".Sizes[" + std::to_string(i) + "] is " + std::to_string(out.Sizes[i]) +
                            " but " + std::string(r.input) + ".Sizes[" + std::to_string(i) + "] is " +
                            std::to_string(in.Sizes[i]) + "; the batch and channel sizes must be the same");
    if (!shape_ok) return;
    for (size_t i = 0; i < r.DimensionCount; ++i) {
        const uint64_t dilation = v.Dilations ? (*v.Dilations)[i] : 1;
        if ((*v.Strides)[i] == 0 || (*v.WindowSize)[i] == 0 || dilation == 0) continue;  // reported above
        const uint64_t padded = uint64_t(in.Sizes[i + 2]) + (*v.StartPadding)[i] + (*v.EndPadding)[i];
        const uint64_t window = 1 + uint64_t((*v.WindowSize)[i] - 1) * dilation;
        if (window > padded) {
            diags.error(pointer_append("/desc/WindowSize", i), rule(r.op, "window-fits"),
                        "the window along spatial dimension " + std::to_string(i) + " spans " + std::to_string(window) +
                            " elements (1 + (WindowSize - 1) * Dilations) but the padded input has only " +
                            std::to_string(padded) + " (" + std::string(r.input) + ".Sizes[" + std::to_string(i + 2) +
                            "] + StartPadding + EndPadding)");
            continue;
        }
        const uint64_t floor_size = (padded - window) / (*v.Strides)[i] + 1;
        const uint64_t ceil_size = floor_size + ((padded - window) % (*v.Strides)[i] != 0);
        const uint64_t given = out.Sizes[i + 2];
        if (given == floor_size || given == ceil_size) continue;
        const std::string allowed = floor_size == ceil_size ? std::to_string(floor_size)
                                                            : std::to_string(floor_size) + " (floor) or " +
                                                                  std::to_string(ceil_size) + " (ceil mode)";
        diags.error(
            pointer_append(out_path, i + 2), rule(r.op, "output-size"),
            std::string(r.output) + ".Sizes[" + std::to_string(i + 2) + "] is " + std::to_string(given) +
                "; (InputSize + StartPadding + EndPadding - (1 + (WindowSize - 1) * Dilations)) / Strides + 1 allows " +
                allowed + " (docs/golden.md, OutputSizes)");
    }
}

TapRange pooling_real_taps(const PoolingWindows& w, size_t i, int64_t o) {
    const int64_t first = o * w.stride[i] - w.start[i];
    const int64_t lo = first >= 0 ? 0 : (-first + w.dilation[i] - 1) / w.dilation[i];
    const int64_t hi = first >= w.in[i] ? 0 : std::min(w.size[i], (w.in[i] - 1 - first) / w.dilation[i] + 1);
    return {lo, std::max(lo, hi)};
}

void pooling_window_features(const PoolingView& v, std::vector<std::string>& f) {
    bool pad = false, stride = false, overlap = false, ceil = false, dil = false;
    const size_t n = v.WindowSize->size();
    for (size_t i = 0; i < n; ++i) {
        pad = pad || (*v.StartPadding)[i] || (*v.EndPadding)[i];
        stride = stride || (*v.Strides)[i] > 1;
        overlap = overlap || (*v.WindowSize)[i] > (*v.Strides)[i];
        const uint32_t dl = dilation(v, i);
        dil = dil || dl > 1;
        const uint64_t padded = uint64_t(v.input->Sizes[i + 2]) + (*v.StartPadding)[i] + (*v.EndPadding)[i];
        const uint64_t extent = 1 + uint64_t((*v.WindowSize)[i] - 1) * dl;
        if (padded >= extent && v.output->Sizes[i + 2] > (padded - extent) / (*v.Strides)[i] + 1) ceil = true;
    }
    if (pad) f.push_back("padding");
    if (stride) f.push_back("stride>1");
    if (overlap) f.push_back("overlapping-windows");
    if (ceil) f.push_back("ceil-size");
    if (dil) f.push_back("dilation>1");
}

// A window is empty when, along some spatial dimension i, no tap o * Strides - StartPadding +
// k * Dilations (k < WindowSize) lies in [0, InputTensor.Sizes[i + 2]).
uint64_t pooling_empty_windows(const PoolingView& v) {
    const auto& in = v.input->Sizes;
    const auto& out = v.output->Sizes;
    if (in.size() < 3 || out.size() != in.size() || v.WindowSize->size() != in.size() - 2 ||
        v.Strides->size() != in.size() - 2 || v.StartPadding->size() != in.size() - 2)
        return 0;  // not valid: no list
    uint64_t all = 1, filled = 1;
    for (size_t i = 0; i + 2 < in.size(); ++i) {
        const int64_t dl = dilation(v, i) > 0 ? dilation(v, i) : 1;
        const int64_t n = in[i + 2], s = std::max<int64_t>((*v.Strides)[i], 1), p = (*v.StartPadding)[i],
                      w = (*v.WindowSize)[i];
        // Positions with first tap in [0, n) are never empty, those with first tap >= n always are;
        // only those with first tap < 0 (o < ceil(p / s)) need a look.
        uint64_t nonempty = 0;
        for (int64_t o = 0; o < int64_t(out[i + 2]); ++o) {
            const int64_t first = o * s - p;
            if (first >= n) break;
            if (first >= 0) {
                nonempty += std::min<int64_t>(out[i + 2] - o, (n - 1 - first) / s + 1);
                break;
            }
            const int64_t k = (-first + dl - 1) / dl;  // the first tap at or past 0
            nonempty += k < w && first + k * dl < n;
        }
        all = saturating_mul(all, out[i + 2]);
        filled = saturating_mul(filled, nonempty);
    }
    return saturating_mul(uint64_t(out[0]) * out[1], all - std::min(all, filled));
}

uint64_t pooling_window_taps(const PoolingView& v) {
    uint64_t factor = 1;
    for (uint32_t w : *v.WindowSize) factor = saturating_mul(factor, w);
    return factor;
}

std::vector<uint64_t> pooling_window_positions(const PoolingView& v, const TensorDesc& in, int where) {
    const size_t n = v.WindowSize->size();
    const TensorDesc* out = v.output;
    // The windows are the forward input's: not AVERAGE_POOLING_GRAD's dY (the pooled tensor itself).
    if (!out || out == &in || in.Sizes.size() != n + 2) return {};
    const auto packed = packed_strides(in.Sizes);
    std::vector<uint64_t> hits;
    for (int last = 0; last < 2; ++last) {
        std::vector<std::vector<uint32_t>> real;  // real coordinates in window order
        std::vector<uint32_t> k(n, 0);
        for (bool more = true; more;) {
            std::vector<uint32_t> p(n);
            bool inside = true;
            for (size_t i = 0; i < n; ++i) {
                const int64_t o = last ? int64_t(out->Sizes[i + 2]) - 1 : 0;
                const int64_t x = o * (*v.Strides)[i] - int64_t((*v.StartPadding)[i]) + int64_t(k[i]) * dilation(v, i);
                inside = inside && x >= 0 && x < int64_t(in.Sizes[i + 2]);
                p[i] = uint32_t(std::max<int64_t>(x, 0));
            }
            if (inside) real.push_back(p);
            more = false;
            for (size_t i = n; i-- > 0;) {
                if (++k[i] < (*v.WindowSize)[i]) {
                    more = true;
                    break;
                }
                k[i] = 0;
            }
        }
        if (real.empty()) continue;
        const auto& p = real[where == 0 ? 0 : where == 1 ? real.size() / 2 : real.size() - 1];
        for (uint64_t b = 0; b < in.Sizes[0]; ++b)
            for (uint64_t ch = 0; ch < in.Sizes[1]; ++ch) {
                uint64_t idx = b * packed[0] + ch * packed[1];
                for (size_t i = 0; i < n; ++i) idx += p[i] * packed[i + 2];
                hits.push_back(idx);
            }
    }
    return hits;
}

bool pooling_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& error_path, std::string& error) {
    const bool forward_output = q.tensor == "OutputTensor" || q.tensor == "OutputIndicesTensor" ||
                                (q.tensor == "InputGradientTensor" && q.base != "InputGradientTensor");
    if (!forward_output) return true;  // the tensors of the forward input's sizes
    const size_t count = q.base_sizes.size() >= 2 ? q.base_sizes.size() - 2 : 0;
    std::vector<uint64_t> a[5];
    const char* names[5] = {"WindowSize", "Strides", "StartPadding", "EndPadding", "Dilations"};
    const uint64_t fallback[5] = {1, 1, 0, 0, 1};
    for (int k = 0; k < 5; ++k) {
        auto v = kit::json_uints(q.desc, names[k], count, fallback[k], error);
        if (!v) {
            error_path = std::string("/desc/") + names[k];
            return false;
        }
        a[k] = *v;
    }
    for (size_t i = 0; i < count; ++i) {
        out[i + 2] = gen::pooled_size(q.base_sizes[i + 2], a[2][i], a[3][i], a[0][i], a[1][i], a[4][i], q.ceil);
        if (out[i + 2] == 0) {
            error = "no output size: the window of dimension " + std::to_string(i + 2) +
                    " does not fit in the padded input";
            return false;
        }
    }
    return true;
}

}  // namespace dmlref::reference

namespace dmlref::reference {

void explain_pooling_window(const Case& c, const PoolingView& v, bool grad, uint64_t flat, const char* values,
                            const char* grads, FamilyExplanation& out) {
    const size_t n = v.WindowSize->size();
    const TensorDesc& mine = grad ? *v.input : *v.output;  // the element explained
    const TensorDesc& other = grad ? *v.output : *v.input;
    const std::vector<uint64_t> at = nd_coordinate(mine.Sizes, flat);
    // Per spatial dimension, the coordinates of `other` that the element meets.
    std::vector<std::vector<uint64_t>> axis(n);
    for (size_t i = 0; i < n; ++i) {
        const int64_t s = (*v.Strides)[i], p = (*v.StartPadding)[i], w = (*v.WindowSize)[i];
        const int64_t dl = v.Dilations && i < v.Dilations->size() ? (*v.Dilations)[i] : 1;
        for (int64_t k = 0; k < int64_t(other.Sizes[i + 2]); ++k) {
            // Forward: input coordinate k is a tap of output at[i]; grad: output k has a tap at at[i].
            const int64_t o = grad ? k : int64_t(at[i + 2]);
            const int64_t x = grad ? int64_t(at[i + 2]) : k;
            const int64_t off = x - (o * s - p);
            if (off >= 0 && off % dl == 0 && off / dl < w) axis[i].push_back(uint64_t(k));
        }
    }
    std::string text;
    uint64_t count = 1;
    for (size_t i = 0; i < n; ++i) {
        text += (i ? " x " : "") + std::to_string(axis[i].size());
        count *= axis[i].size();
    }
    out.facts.emplace_back(grad ? "windows holding it" : "real elements in the window",
                           text + " = " + std::to_string(count));
    // The elements themselves, up to 64.
    std::vector<size_t> k(n, 0);
    for (uint64_t listed = 0; count > 0 && listed < 64; ++listed) {
        std::vector<uint64_t> idx = {at[0], at[1]};
        for (size_t i = 0; i < n; ++i) idx.push_back(axis[i][k[i]]);
        out.inputs.push_back(input_element(c, grad ? grads : values, idx, grad ? "dY" : "window"));
        size_t i = n;
        while (i-- > 0 && ++k[i] == axis[i].size()) k[i] = 0;
        if (i == size_t(-1)) break;
    }
}

}  // namespace dmlref::reference
