// The MAX_POOLING family's grad terms (include/dmlref/terms.hpp), term counts and argmax ties
// (docs/tolerance.md); the operators themselves are in max_pooling.cpp.

#include "max_pooling.hpp"
#include "max_pooling_internal.hpp"

#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/values.hpp"

#include <stdexcept>

namespace dmlref::reference {

namespace {

using namespace maxpool;

// The argmax's ties (docs/tolerance.md): the spatial logical indices of the window's real
// elements equal to its maximum (-0 and +0 are equal), when there are two or more; a NaN
// maximum has none.
template <class T>
std::vector<uint64_t> window_ties(const Window& w, const T* x, int64_t plane, const int64_t* xs, const PoolCoord& o) {
    const Argmax best = window_argmax(w, x, plane, xs, o);
    std::vector<uint64_t> tied;
    if (best.index == kNoElement || is_nan(x[best.offset])) return tied;
    for_each_window_element(w, plane, xs, o, [&](uint64_t index, int64_t offset) {
        if (exact_compare(x[offset], x[best.offset]) == std::partial_ordering::equivalent) tied.push_back(index);
    });
    if (tied.size() < 2) tied.clear();
    return tied;
}

}  // namespace

}  // namespace dmlref::reference

namespace dmlref {

std::vector<uint32_t> max_pooling_grad_term_counts(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d,
                                                   std::span<const std::byte> InputTensor) {
    using namespace reference;
    Diagnostics diags;
    validate(d, diags);
    if (diags.has_errors()) throw std::invalid_argument("max_pooling_grad_term_counts: the desc does not validate");
    if (InputTensor.size() < buffer_size(d.InputTensor))
        throw std::invalid_argument("InputTensor's buffer is too small");
    const Window w = window_of(d.InputTensor, d.InputGradientTensor, d.Strides, d.WindowSize, d.StartPadding,
                               &d.Dilations);
    const TensorView X(d.InputTensor, InputTensor);
    std::vector<uint32_t> counts(element_count(d.OutputGradientTensor), 0);
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        for (uint64_t t : grad_targets<T>(w, X, d.InputGradientTensor.Sizes))
            if (t != kNoElement) ++counts[t];
    });
    return counts;
}

void max_pooling_grad_terms(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, std::span<const std::byte> InputTensor,
                            std::span<const std::byte> InputGradientTensor, TermSink& sink) {
    using namespace reference;
    Diagnostics diags;
    validate(d, diags);
    if (diags.has_errors()) throw std::invalid_argument("max_pooling_grad_terms: the desc does not validate");
    if (InputTensor.size() < buffer_size(d.InputTensor) ||
        InputGradientTensor.size() < buffer_size(d.InputGradientTensor))
        throw std::invalid_argument("max_pooling_grad_terms: a buffer is too small");
    const Window w = window_of(d.InputTensor, d.InputGradientTensor, d.Strides, d.WindowSize, d.StartPadding,
                               &d.Dilations);
    const TensorView X(d.InputTensor, InputTensor);
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
            const std::vector<uint64_t> targets = grad_targets<T>(w, X, d.InputGradientTensor.Sizes);
            const std::vector<std::byte> bytes = gather_logical(d.InputGradientTensor, InputGradientTensor);
            const T* dy = reinterpret_cast<const T*>(bytes.data());
            for (size_t i = 0; i < targets.size(); ++i)
                if (targets[i] != kNoElement) sink.add(targets[i], widen(dy[i]), 1.0, 0.0, false);  // a copy of dY
        } else {
            throw std::invalid_argument("max_pooling_grad_terms: float types only (integer sums wrap exactly)");
        }
    });
}

std::vector<uint64_t> max_pooling_argmax_ties(const Operator& op, std::span<const std::byte> InputTensor) {
    using namespace reference;
    if (validate(op).has_errors()) throw std::invalid_argument("max_pooling_argmax_ties: the desc does not validate");
    // The pooled tensor's sizes (the forward output, or dY for the grad) and the window.
    const TensorDesc* input = nullptr;
    const TensorDesc* pooled = nullptr;
    const TensorDesc* dx = nullptr;
    const std::vector<uint32_t>*Strides = nullptr, *WindowSize = nullptr, *StartPadding = nullptr, *Dilations = nullptr;
    visit_as<DML_MAX_POOLING_OPERATOR_DESC, DML_MAX_POOLING1_OPERATOR_DESC, DML_MAX_POOLING2_OPERATOR_DESC,
             DML_MAX_POOLING_GRAD_OPERATOR_DESC>(op.Desc, [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, DML_MAX_POOLING_GRAD_OPERATOR_DESC>) {
            input = &d.InputTensor;
            pooled = &d.InputGradientTensor;
            dx = &d.OutputGradientTensor;
            Strides = &d.Strides;
            WindowSize = &d.WindowSize;
            StartPadding = &d.StartPadding;
            Dilations = &d.Dilations;
        } else if constexpr (std::is_same_v<D, DML_MAX_POOLING_OPERATOR_DESC> ||
                             std::is_same_v<D, DML_MAX_POOLING1_OPERATOR_DESC>) {
            input = &d.InputTensor;
            pooled = &d.OutputTensor;
            Strides = &d.Strides;
            WindowSize = &d.WindowSize;
            StartPadding = &d.StartPadding;
        } else if constexpr (std::is_same_v<D, DML_MAX_POOLING2_OPERATOR_DESC>) {
            input = &d.InputTensor;
            pooled = &d.OutputTensor;
            Strides = &d.Strides;
            WindowSize = &d.WindowSize;
            StartPadding = &d.StartPadding;
            Dilations = &d.Dilations;
        }
    });
    if (!input) throw std::invalid_argument("max_pooling_argmax_ties: not a max pooling operator");
    if (InputTensor.size() < buffer_size(*input)) throw std::invalid_argument("InputTensor's buffer is too small");
    const Window w = window_of(*input, *pooled, *Strides, *WindowSize, *StartPadding, Dilations);
    const TensorView X(*input, InputTensor);
    std::vector<uint64_t> flagged;
    dispatch(input->DataType, [&]<class T>() {
        uint64_t pooled_index = 0;
        std::vector<bool> tied_dx(dx ? element_count(*dx) : 0, false);
        for_each_output(w, X, pooled->Sizes, packed_strides(pooled->Sizes),
                        [&](int64_t plane_index, int64_t x_plane, const PoolCoord& o, int64_t) {
            const auto tied = window_ties(w, X.data<T>(), x_plane, X.strides.data() + 2, o);
            if (!tied.empty() && !dx) flagged.push_back(pooled_index);
            for (uint64_t t : tied)
                if (dx) tied_dx[uint64_t(plane_index) * uint64_t(w.in_plane) + t] = true;
            ++pooled_index;
        });
        for (uint64_t e = 0; e < tied_dx.size(); ++e)
            if (tied_dx[e]) flagged.push_back(e);
    });
    return flagged;
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool reference::explain_max_pooling(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    const TensorDesc* input = nullptr;
    const TensorDesc* pooled = nullptr;
    bool grad = false;
    const std::vector<uint32_t>*Strides = nullptr, *WindowSize = nullptr, *StartPadding = nullptr, *Dilations = nullptr;
    visit_as<DML_MAX_POOLING_OPERATOR_DESC, DML_MAX_POOLING1_OPERATOR_DESC, DML_MAX_POOLING2_OPERATOR_DESC,
             DML_MAX_POOLING_GRAD_OPERATOR_DESC>(c.op.Desc, [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, DML_MAX_POOLING_GRAD_OPERATOR_DESC>) {
            input = &d.InputTensor;
            pooled = &d.InputGradientTensor;
            grad = true;
            Strides = &d.Strides;
            WindowSize = &d.WindowSize;
            StartPadding = &d.StartPadding;
            Dilations = &d.Dilations;
        } else if constexpr (std::is_same_v<D, DML_MAX_POOLING_OPERATOR_DESC> ||
                             std::is_same_v<D, DML_MAX_POOLING1_OPERATOR_DESC>) {
            input = &d.InputTensor;
            pooled = &d.OutputTensor;
            Strides = &d.Strides;
            WindowSize = &d.WindowSize;
            StartPadding = &d.StartPadding;
        } else if constexpr (std::is_same_v<D, DML_MAX_POOLING2_OPERATOR_DESC>) {
            input = &d.InputTensor;
            pooled = &d.OutputTensor;
            Strides = &d.Strides;
            WindowSize = &d.WindowSize;
            StartPadding = &d.StartPadding;
            Dilations = &d.Dilations;
        }
    });
    if (!input) return false;
    using namespace maxpool;
    const Window w = window_of(*input, *pooled, *Strides, *WindowSize, *StartPadding, Dilations);
    const TensorView X(*input, std::span<const std::byte>(c.inputs.at("InputTensor")));
    const DataType t = input->DataType;
    const size_t width = element_size(t);
    const uint64_t channels = input->Sizes[1];
    auto x_index = [&](uint64_t plane_index, uint64_t spatial) {
        std::vector<uint64_t> idx = {plane_index / channels, plane_index % channels};
        std::vector<uint32_t> in_spatial(input->Sizes.begin() + 2, input->Sizes.end());
        for (uint64_t v : nd_coordinate(in_spatial, spatial)) idx.push_back(v);
        return idx;
    };
    // One pooled element's window: the facts, and its real elements with the argmax marked.
    // Returns the argmax's flat index in X (kNoElement for a window of padding only).
    auto window = [&](uint64_t pooled_flat, bool list) -> uint64_t {
        const uint64_t plane_index = pooled_flat / uint64_t(w.out_plane);
        PoolCoord o{};
        uint64_t rem = pooled_flat % uint64_t(w.out_plane);
        for (size_t i = w.spatial; i-- > 0;) {
            o[i] = int64_t(rem % uint64_t(w.out[i]));
            rem /= uint64_t(w.out[i]);
        }
        const int64_t x_plane = int64_t(plane_index / channels) * X.strides[0] +
                                int64_t(plane_index % channels) * X.strides[1];
        const int64_t* xs = X.strides.data() + 2;
        uint64_t best = kNoElement;
        std::vector<uint64_t> tied;
        bool nan = false;
        dispatch(t, [&]<class T>() {
            const T* x = X.data<T>();
            const Argmax a = window_argmax(w, x, x_plane, xs, o);
            best = a.index;
            tied = window_ties(w, x, x_plane, xs, o);
            for_each_window_element(w, x_plane, xs, o,
                                    [&](uint64_t, int64_t offset) { nan = nan || is_nan(x[offset]); });
        });
        if (!list) return best == kNoElement ? kNoElement : plane_index * uint64_t(w.in_plane) + best;
        std::string text = "InputTensor[" + std::to_string(plane_index / channels) + "," +
                           std::to_string(plane_index % channels);
        uint64_t positions = 1, real = 1;
        for (size_t i = 0; i < w.spatial; ++i) {
            const int64_t first = o[i] * w.stride[i] - w.start[i], last = first + (w.size[i] - 1) * w.dilation[i];
            text += "," + std::to_string(first) + ".." + std::to_string(last) +
                    (w.dilation[i] > 1 ? " step " + std::to_string(w.dilation[i]) : "");
            const KRange r = real_positions(w, i, o[i]);
            positions *= uint64_t(w.size[i]);
            real *= uint64_t(r.hi - r.lo);
        }
        text += "]  (" + std::to_string(real) + " real elements of " + std::to_string(positions) + " positions)";
        std::string key = "window";
        if (grad) {
            key = "window of dY[";
            for (uint64_t v : nd_coordinate(pooled->Sizes, pooled_flat)) key += std::to_string(v) + ",";
            key.back() = ']';
        }
        out.facts.emplace_back(key, text);
        for_each_window_element(w, x_plane, xs, o, [&](uint64_t index, int64_t offset) {
            out.inputs.push_back({"InputTensor", x_index(plane_index, index), t,
                                  load_bits(t, X.base + offset * int64_t(width)), index == best ? "argmax" : "window"});
        });
        if (best == kNoElement) {
            out.facts.emplace_back("argmax", "none: the window holds only padding");
            out.policies.push_back("EmptyWindow");
        } else {
            const uint64_t flat_x = plane_index * uint64_t(w.in_plane) + best;
            std::string at;
            for (uint64_t v : x_index(plane_index, best)) at += (at.empty() ? "" : ",") + std::to_string(v);
            out.facts.emplace_back("argmax", "InputTensor[" + at + "] (flat " + std::to_string(flat_x) + ")" +
                                                 (tied.empty() ? ""
                                                               : ", tied with " + std::to_string(tied.size() - 1) +
                                                                     " more: the lowest index wins"));
            if (!grad && output == "OutputIndicesTensor") out.policies.push_back("Indices");
        }
        if (!tied.empty()) out.policies.push_back("ArgmaxTies");
        if (nan) out.policies.push_back("ArgmaxNaN");
        if (real < positions) out.policies.push_back("Padding");
        return best == kNoElement ? kNoElement : plane_index * uint64_t(w.in_plane) + best;
    };
    if (!grad) {
        window(flat, true);
        return true;
    }
    // The grad: dX[e] sums the dY elements whose window's argmax is e.
    const TensorDesc& dy = *pooled;
    out.inputs.push_back(input_element(c, "InputTensor", nd_coordinate(input->Sizes, flat), "x"));
    uint64_t windows = 0;
    std::vector<uint64_t> targets;
    dispatch(t, [&]<class T>() { targets = grad_targets<T>(w, X, dy.Sizes); });
    for (uint64_t j = 0; j < targets.size(); ++j) {
        if (targets[j] != flat) continue;
        ++windows;
        const std::vector<uint64_t> at = nd_coordinate(dy.Sizes, j);
        const ExplainedInput g = input_element(c, "InputGradientTensor", at, "dY");
        out.terms.push_back(
            {"InputGradientTensor", at, element_value(t, g.bits), 1.0, "its window's argmax is this element"});
        if (windows <= 4) window(j, true);  // the first few windows in full
    }
    out.facts.insert(out.facts.begin(), {"argmax of", std::to_string(windows) + " windows (each sends its dY here)"});
    out.policies.push_back(is_float(t) ? "FloatSum" : "IntegerSum");
    if (is_float(t)) out.policies.push_back("NonFiniteSum");
    return true;
}

}  // namespace dmlref
