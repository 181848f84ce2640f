// The MAX_POOLING family's grad terms (include/dmlref/terms.hpp), term counts and argmax ties
// (docs/tolerance.md); the operators themselves are in max_pooling.cpp.

#include "max_pooling_internal.hpp"

#include "dmlref/terms.hpp"

#include <stdexcept>

namespace dmlref::reference {

namespace {

using namespace maxpool;

// The argmax's ties (GOLDEN.md section 5): the spatial logical indices of the window's real
// elements equal to its maximum (-0 and +0 are equal), when there are two or more; a NaN
// maximum has none.
template <class T>
std::vector<uint64_t> window_ties(const Window& w, const T* x, int64_t plane, const int64_t* xs, const Coord& o) {
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
    if (InputTensor.size() < buffer_size(d.InputTensor)) throw std::invalid_argument("InputTensor's buffer is too small");
    const Window w = window_of(d.InputTensor, d.InputGradientTensor, d.Strides, d.WindowSize, d.StartPadding, &d.Dilations);
    const TensorView X(d.InputTensor, InputTensor);
    std::vector<uint32_t> counts(element_count(d.OutputGradientTensor), 0);
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        for (uint64_t t : grad_targets<T>(w, X, d.InputGradientTensor.Sizes)) if (t != kNoElement) ++counts[t];
    });
    return counts;
}

void max_pooling_grad_terms(const DML_MAX_POOLING_GRAD_OPERATOR_DESC& d, std::span<const std::byte> InputTensor,
                            std::span<const std::byte> InputGradientTensor, TermSink& sink) {
    using namespace reference;
    Diagnostics diags;
    validate(d, diags);
    if (diags.has_errors()) throw std::invalid_argument("max_pooling_grad_terms: the desc does not validate");
    if (InputTensor.size() < buffer_size(d.InputTensor) || InputGradientTensor.size() < buffer_size(d.InputGradientTensor))
        throw std::invalid_argument("max_pooling_grad_terms: a buffer is too small");
    const Window w = window_of(d.InputTensor, d.InputGradientTensor, d.Strides, d.WindowSize, d.StartPadding, &d.Dilations);
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
    if (validate(op).has_errors())
        throw std::invalid_argument("max_pooling_argmax_ties: the desc does not validate");
    // The pooled tensor's sizes (the forward output, or dY for the grad) and the window.
    const TensorDesc* input = nullptr;
    const TensorDesc* pooled = nullptr;
    const TensorDesc* dx = nullptr;
    const std::vector<uint32_t>* Strides = nullptr, * WindowSize = nullptr, * StartPadding = nullptr, * Dilations = nullptr;
    std::visit([&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, DML_MAX_POOLING_GRAD_OPERATOR_DESC>) {
            input = &d.InputTensor; pooled = &d.InputGradientTensor; dx = &d.OutputGradientTensor;
            Strides = &d.Strides; WindowSize = &d.WindowSize; StartPadding = &d.StartPadding; Dilations = &d.Dilations;
        } else if constexpr (std::is_same_v<D, DML_MAX_POOLING_OPERATOR_DESC> || std::is_same_v<D, DML_MAX_POOLING1_OPERATOR_DESC>) {
            input = &d.InputTensor; pooled = &d.OutputTensor;
            Strides = &d.Strides; WindowSize = &d.WindowSize; StartPadding = &d.StartPadding;
        } else if constexpr (std::is_same_v<D, DML_MAX_POOLING2_OPERATOR_DESC>) {
            input = &d.InputTensor; pooled = &d.OutputTensor;
            Strides = &d.Strides; WindowSize = &d.WindowSize; StartPadding = &d.StartPadding; Dilations = &d.Dilations;
        }
    }, op.Desc);
    if (!input) throw std::invalid_argument("max_pooling_argmax_ties: not a max pooling operator");
    if (InputTensor.size() < buffer_size(*input)) throw std::invalid_argument("InputTensor's buffer is too small");
    const Window w = window_of(*input, *pooled, *Strides, *WindowSize, *StartPadding, Dilations);
    const TensorView X(*input, InputTensor);
    std::vector<uint64_t> flagged;
    dispatch(input->DataType, [&]<class T>() {
        uint64_t pooled_index = 0;
        std::vector<bool> tied_dx(dx ? element_count(*dx) : 0, false);
        for_each_output(w, X, pooled->Sizes, packed_strides(pooled->Sizes), [&](int64_t plane_index, int64_t x_plane, const Coord& o, int64_t) {
            const auto tied = window_ties(w, X.data<T>(), x_plane, X.strides.data() + 2, o);
            if (!tied.empty() && !dx) flagged.push_back(pooled_index);
            for (uint64_t t : tied) if (dx) tied_dx[uint64_t(plane_index) * uint64_t(w.in_plane) + t] = true;
            ++pooled_index;
        });
        for (uint64_t e = 0; e < tied_dx.size(); ++e) if (tied_dx[e]) flagged.push_back(e);
    });
    return flagged;
}

}  // namespace dmlref
