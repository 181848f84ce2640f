// The fast-path tests' harness (test_fast_paths.cpp, test_fast_pooling.cpp,
// test_fast_resample_linear.cpp, test_fast_unit_taps.cpp): an operator run with the fast paths on
// (one thread and three) and off (the plain loops), compared byte for byte over every buffer, on
// random hard inputs and random strides.
#pragma once

#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/fast/switch.hpp"

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace dmlref::test {

// A random element of T: small values (ties), any bits (integers) or hard values (floats).
template <class T> T hard_element(std::mt19937_64& rng) {
    if constexpr (std::is_integral_v<T>) {
        if (rng() % 3 == 0) return T(int64_t(rng() % 7) - 3);  // small values: ties between windows' elements
        return static_cast<T>(rng());                          // any bits: wrapping sums
    } else {
        if (rng() % 4 == 0) return value_of<T>(double(int64_t(rng() % 5) - 2));  // ties
        return value_of<T>(hard_value(rng));
    }
}

// A test's generator for type T: seeded by the test's base and the type, so that each of the
// eleven types draws its own cases.
template <class T> std::mt19937_64 rng_for(uint64_t base) {
    return std::mt19937_64(base + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
}

// ---- Running an operator with and without the fast paths --------------------------------------

struct Buffers {
    std::vector<std::string> names;
    std::vector<std::vector<std::byte>> bytes;
};

// Random bytes for every input, and a fixed fill for every output (so that bytes outside the
// logical elements compare too).
template <class T>
Buffers make_buffers(std::mt19937_64& rng, const std::vector<std::pair<std::string, const TensorDesc*>>& inputs,
                     const std::vector<std::pair<std::string, const TensorDesc*>>& outputs) {
    Buffers b;
    for (const auto& [name, d] : inputs) {
        std::vector<T> v(buffer_size(*d) / sizeof(T) + 1);
        for (T& x : v) x = hard_element<T>(rng);
        std::vector<std::byte> bytes(buffer_size(*d));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.push_back(name);
        b.bytes.push_back(std::move(bytes));
    }
    for (const auto& [name, d] : outputs) {
        b.names.push_back(name);
        b.bytes.emplace_back(buffer_size(*d), std::byte{0x5a});
    }
    return b;
}

inline Buffers evaluate_with(const Operator& op, Buffers b, bool fast, int threads) {
    reference::set_fast_paths_enabled(fast);
    reference::set_fast_path_threads(threads);
    Bindings bindings;
    for (size_t i = 0; i < b.names.size(); ++i) bindings.bind(b.names[i], b.bytes[i]);
    evaluate(op, bindings);
    reference::set_fast_paths_enabled(true);
    reference::set_fast_path_threads(0);
    return b;
}

// The index of the first differing buffer, or -1.
inline int first_difference(const Buffers& a, const Buffers& b) {
    for (size_t i = 0; i < a.bytes.size(); ++i)
        if (a.bytes[i] != b.bytes[i]) return int(i);
    return -1;
}

// The plain loop's result for `inputs`, once the operator validates.
inline Buffers plain_result(const Operator& op, const Buffers& inputs) {
    const Diagnostics d = validate(op);
    for (const auto& item : d.items()) INFO(format(item, "<test>"));
    REQUIRE_FALSE(d.has_errors());
    return evaluate_with(op, inputs, false, 1);
}

// The fast paths on one thread and on three against the plain loop's result `plain`.
inline void check_fast(const Operator& op, const Buffers& inputs, const Buffers& plain) {
    const Buffers fast1 = evaluate_with(op, inputs, true, 1);
    const Buffers fast3 = evaluate_with(op, inputs, true, 3);
    const int diff = first_difference(plain, fast1);
    size_t at = 0;
    if (diff >= 0)
        while (plain.bytes[size_t(diff)][at] == fast1.bytes[size_t(diff)][at]) ++at;
    INFO("differing buffer: " << (diff < 0 ? "none" : plain.names[size_t(diff)]) << " at byte " << at << ": plain "
                              << (diff < 0 ? 0 : int(plain.bytes[size_t(diff)][at])) << ", fast "
                              << (diff < 0 ? 0 : int(fast1.bytes[size_t(diff)][at])));
    CHECK(diff == -1);
    CHECK(first_difference(fast1, fast3) == -1);
}

inline void check_op(const Operator& op, const Buffers& inputs) { check_fast(op, inputs, plain_result(op, inputs)); }

// Strides of a tensor padded by up to 2 elements per dimension (or packed).
inline std::vector<uint32_t> random_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    if (rng() % 2) return {};
    std::vector<uint32_t> strides(sizes.size());
    uint32_t s = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = s;
        s *= sizes[i] + uint32_t(rng() % 3);
    }
    return strides;
}

// Strides with elements 2 or 3 apart along the last dimension (rows read and written with a
// step), each other dimension padded by up to 2.
inline std::vector<uint32_t> gapped_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> strides(sizes.size());
    uint32_t s = 2 + uint32_t(rng() % 2);
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = s;
        s *= sizes[i] + uint32_t(rng() % 3);
    }
    return strides;
}

// ---- RESAMPLE2 and RESAMPLE_GRAD1 of one geometry ----------------------------------------------

// A resample's geometry: the forward's input and output sizes and strides (empty: packed), scales,
// pixel offsets, mode and rounding direction; the grad reads dY of `out` and writes dX of `in`.
struct ResampleCase {
    std::vector<uint32_t> in, out, in_strides, out_strides;
    std::vector<float> scales, input_offsets, output_offsets;
    uint32_t mode = DML_INTERPOLATION_MODE_LINEAR, rounding = 0;

    template <class Desc> void fill(Desc& d) const {
        d.InterpolationMode = mode;
        d.RoundingDirection = rounding;
        d.DimensionCount = uint32_t(in.size());
        d.Scales = scales;
        d.InputPixelOffsets = input_offsets;
        d.OutputPixelOffsets = output_offsets;
    }
    DML_RESAMPLE2_OPERATOR_DESC forward(DataType t) const {
        DML_RESAMPLE2_OPERATOR_DESC d;
        d.InputTensor = desc(t, in, in_strides);
        d.OutputTensor = desc(t, out, out_strides);
        fill(d);
        return d;
    }
    DML_RESAMPLE_GRAD1_OPERATOR_DESC grad(DataType t) const {
        DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
        d.InputGradientTensor = desc(t, out, out_strides);
        d.OutputGradientTensor = desc(t, in, in_strides);
        fill(d);
        return d;
    }
};

// RESAMPLE2 (or, with grad, RESAMPLE_GRAD1) of the geometry on make_buffers' inputs: fast against plain.
template <class T> void check_resample_case(std::mt19937_64& rng, const ResampleCase& c, bool grad) {
    const DataType t = data_type_of<T>();
    if (!grad) {
        const DML_RESAMPLE2_OPERATOR_DESC d = c.forward(t);
        check_op({OperatorType::RESAMPLE2, d},
                 make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
    } else {
        const DML_RESAMPLE_GRAD1_OPERATOR_DESC d = c.grad(t);
        check_op({OperatorType::RESAMPLE_GRAD1, d},
                 make_buffers<T>(rng, {{"InputGradientTensor", &d.InputGradientTensor}},
                                 {{"OutputGradientTensor", &d.OutputGradientTensor}}));
    }
}

}  // namespace dmlref::test
