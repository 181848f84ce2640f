// The fast paths (reference/fast/) against the plain loops, element for element (FastSum's own
// tests are in test_fast_sums.cpp): every fast operator path against the same
// operator with the fast paths switched off, over random shapes, strides, ranks and all eleven
// types, and with one thread against several. Expected values come from the plain loops
// (reference/<family>.cpp, which sum with ExactSum alone when the fast paths are off) and
// ExactSum, never from the fast code under test.
#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/fast/streamed.hpp"
#include "../reference/fast/switch.hpp"
#include "../reference/fast_sum.hpp"

#include <cmath>
#include <limits>
#include <random>

using namespace dmlref;
using namespace dmlref::test;
using dmlref::reference::ExactSum;

namespace {

template <class T> T hard_element(std::mt19937_64& rng) {
    if constexpr (std::is_integral_v<T>) {
        if (rng() % 3 == 0) return T(int64_t(rng() % 7) - 3);  // small values: ties between windows' elements
        return static_cast<T>(rng());                          // any bits: wrapping sums
    } else {
        if (rng() % 4 == 0) return value_of<T>(double(int64_t(rng() % 5) - 2));  // ties
        return value_of<T>(hard_value(rng));
    }
}

// ---- Running an operator with and without the fast paths --------------------------------------

struct Buffers {
    std::vector<std::string> names;
    std::vector<std::vector<std::byte>> bytes;
};

// Random bytes for every input, and a fixed fill for every output (so that bytes outside the
// logical elements compare too).
template <class T> Buffers make_buffers(std::mt19937_64& rng, const std::vector<std::pair<std::string, const TensorDesc*>>& inputs,
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

Buffers evaluate_with(const Operator& op, Buffers b, bool fast, int threads) {
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
int first_difference(const Buffers& a, const Buffers& b) {
    for (size_t i = 0; i < a.bytes.size(); ++i)
        if (a.bytes[i] != b.bytes[i]) return int(i);
    return -1;
}

void check_op(const Operator& op, const Buffers& inputs) {
    const Diagnostics d = validate(op);
    for (const auto& item : d.items()) INFO(format(item, "<test>"));
    REQUIRE_FALSE(d.has_errors());
    const Buffers plain = evaluate_with(op, inputs, false, 1);
    const Buffers fast1 = evaluate_with(op, inputs, true, 1);
    const Buffers fast3 = evaluate_with(op, inputs, true, 3);
    const int diff = first_difference(plain, fast1);
    size_t at = 0;
    if (diff >= 0)
        while (plain.bytes[size_t(diff)][at] == fast1.bytes[size_t(diff)][at]) ++at;
    INFO("differing buffer: " << (diff < 0 ? "none" : plain.names[size_t(diff)]) << " at byte " << at << ": plain "
         << (diff < 0 ? 0 : int(plain.bytes[size_t(diff)][at])) << ", fast " << (diff < 0 ? 0 : int(fast1.bytes[size_t(diff)][at])));
    CHECK(diff == -1);
    CHECK(first_difference(fast1, fast3) == -1);
}

// Strides of a tensor padded by up to 2 elements per dimension (or packed).
std::vector<uint32_t> random_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
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
std::vector<uint32_t> gapped_strides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> strides(sizes.size());
    uint32_t s = 2 + uint32_t(rng() % 2);
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = s;
        s *= sizes[i] + uint32_t(rng() % 3);
    }
    return strides;
}

// ---- RESAMPLE2 and RESAMPLE_GRAD1 -----------------------------------------------------------

template <class T> void check_resample(std::mt19937_64& rng, int count) {
    static const float scales[] = {0.5f, 1.0f, 2.0f, 1.5f, 3.0f, 0.75f, 1.0f / 3, 4.0f, 1.0f};
    static const float offsets[] = {0.0f, 0.5f, -0.5f, 0.25f, 0.0f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 1 + uint32_t(rng() % 5);
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> Scales(rank), ipo(rank), opo(rank);
        for (uint32_t i = 0; i < rank; ++i) {
            const bool identity = i + 2 < rank && rng() % 4 != 0;  // leading dimensions: mostly one tap
            in[i] = 1 + uint32_t(rng() % 7);
            Scales[i] = identity ? 1.0f : scales[rng() % std::size(scales)];
            ipo[i] = identity ? 0.0f : offsets[rng() % std::size(offsets)];
            opo[i] = identity ? 0.0f : offsets[rng() % std::size(offsets)];
            out[i] = identity ? in[i] : uint32_t(std::max<int64_t>(1, std::lround(in[i] * Scales[i]) + int64_t(rng() % 3) - 1));
        }
        const uint32_t mode = uint32_t(rng() % 2), rounding = uint32_t(rng() % 2);
        const DataType t = data_type_of<T>();
        INFO("rank " << rank << ", mode " << mode << ", iteration " << k);
        if (rng() % 2) {
            DML_RESAMPLE2_OPERATOR_DESC d;
            d.InputTensor = desc(t, in, random_strides(rng, in));
            d.OutputTensor = desc(t, out, random_strides(rng, out));
            d.InterpolationMode = mode;
            d.RoundingDirection = rounding;
            d.DimensionCount = rank;
            d.Scales = Scales;
            d.InputPixelOffsets = ipo;
            d.OutputPixelOffsets = opo;
            check_op({OperatorType::RESAMPLE2, d}, make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
        } else {
            DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
            d.InputGradientTensor = desc(t, out, random_strides(rng, out));
            d.OutputGradientTensor = desc(t, in, random_strides(rng, in));
            d.InterpolationMode = mode;
            d.RoundingDirection = rounding;
            d.DimensionCount = rank;
            d.Scales = Scales;
            d.InputPixelOffsets = ipo;
            d.OutputPixelOffsets = opo;
            check_op({OperatorType::RESAMPLE_GRAD1, d},
                     make_buffers<T>(rng, {{"InputGradientTensor", &d.InputGradientTensor}}, {{"OutputGradientTensor", &d.OutputGradientTensor}}));
        }
    }
}

// Rows wide enough for the row loop's patterned reads (slot indices affine with step 1 or 2, or
// halved: a row upsampled by 2) and for more than one chunk of 256 columns, odd widths included:
// scales 2 and 1/2 (and others) with half-pixel and zero offsets along the last dimension.
template <class T> void check_resample_wide(std::mt19937_64& rng, int count) {
    static const float scales[] = {2.0f, 0.5f, 2.0f, 0.5f, 1.0f, 3.0f, 0.25f, 16.0f};  // 16: a thousand terms per grad element
    static const float offsets[] = {0.5f, 0.0f, 0.25f};
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 2 + uint32_t(rng() % 3);
        std::vector<uint32_t> in(rank), out(rank);
        std::vector<float> Scales(rank, 1.0f), ipo(rank, 0.0f), opo(rank, 0.0f);
        for (uint32_t i = 0; i < rank; ++i) {
            const bool last = i + 1 == rank, inner = i + 2 >= rank;
            if (inner) Scales[i] = k % 5 == 0 ? 16.0f : scales[rng() % std::size(scales)];  // every fifth: narrow chunks
            const uint32_t widest = Scales[i] > 4 ? 40 : 600;
            in[i] = last ? 8 + uint32_t(rng() % widest) : 1 + uint32_t(rng() % (inner ? 4 : 2));
            if (inner) {
                const float o = offsets[rng() % std::size(offsets)];
                ipo[i] = o;
                opo[i] = -o;
            }
            out[i] = uint32_t(std::max<int64_t>(1, std::lround(in[i] * Scales[i]) + (last ? int64_t(rng() % 3) - 1 : 0)));
        }
        const uint32_t mode = rng() % 3 ? DML_INTERPOLATION_MODE_LINEAR : DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
        const DataType t = data_type_of<T>();
        INFO("rank " << rank << ", in " << in.back() << ", out " << out.back() << ", scale " << Scales.back() << ", mode " << mode
                     << ", iteration " << k);
        if (rng() % 3 == 0) {
            DML_RESAMPLE2_OPERATOR_DESC d;
            d.InputTensor = desc(t, in, random_strides(rng, in));
            d.OutputTensor = desc(t, out, random_strides(rng, out));
            d.InterpolationMode = mode;
            d.RoundingDirection = uint32_t(rng() % 2);
            d.DimensionCount = rank;
            d.Scales = Scales;
            d.InputPixelOffsets = ipo;
            d.OutputPixelOffsets = opo;
            check_op({OperatorType::RESAMPLE2, d}, make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
        } else {
            DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
            d.InputGradientTensor = desc(t, out, random_strides(rng, out));
            d.OutputGradientTensor = desc(t, in, random_strides(rng, in));
            d.InterpolationMode = mode;
            d.RoundingDirection = uint32_t(rng() % 2);
            d.DimensionCount = rank;
            d.Scales = Scales;
            d.InputPixelOffsets = ipo;
            d.OutputPixelOffsets = opo;
            check_op({OperatorType::RESAMPLE_GRAD1, d},
                     make_buffers<T>(rng, {{"InputGradientTensor", &d.InputGradientTensor}}, {{"OutputGradientTensor", &d.OutputGradientTensor}}));
        }
    }
}

// ---- MAX_POOLING2 and MAX_POOLING_GRAD ------------------------------------------------------

// One MAX_POOLING2 (forward) or MAX_POOLING_GRAD of the given geometry with random strides,
// checked element for element against the plain loop.
struct PoolingGeometry {
    uint32_t spatial = 0;
    std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
};
template <class T> void check_pooling_op(std::mt19937_64& rng, bool forward, DataType indices, const std::vector<uint32_t>& in,
                                         const std::vector<uint32_t>& out, const PoolingGeometry& g, bool gapped = false) {
    const DataType t = data_type_of<T>();
    auto random_strides = [&](std::mt19937_64& r, const std::vector<uint32_t>& sizes) {
        return gapped && r() % 3 != 0 ? gapped_strides(r, sizes) : ::random_strides(r, sizes);
    };
    auto geometry = [&](auto& d) {
        d.DimensionCount = g.spatial;
        d.Strides = g.Strides;
        d.WindowSize = g.WindowSize;
        d.StartPadding = g.StartPadding;
        d.EndPadding = g.EndPadding;
        d.Dilations = g.Dilations;
    };
    if (forward) {
        DML_MAX_POOLING2_OPERATOR_DESC d;
        d.InputTensor = desc(t, in, random_strides(rng, in));
        d.OutputTensor = desc(t, out, random_strides(rng, out));
        d.OutputIndicesTensor = desc(indices, out, random_strides(rng, out));
        geometry(d);
        check_op({OperatorType::MAX_POOLING2, d},
                 make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}},
                                 {{"OutputTensor", &d.OutputTensor}, {"OutputIndicesTensor", &*d.OutputIndicesTensor}}));
    } else {
        DML_MAX_POOLING_GRAD_OPERATOR_DESC d;
        d.InputTensor = desc(t, in, random_strides(rng, in));
        d.InputGradientTensor = desc(t, out, random_strides(rng, out));
        d.OutputGradientTensor = desc(t, in, random_strides(rng, in));
        geometry(d);
        check_op({OperatorType::MAX_POOLING_GRAD, d},
                 make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}, {"InputGradientTensor", &d.InputGradientTensor}},
                                 {{"OutputGradientTensor", &d.OutputGradientTensor}}));
    }
}

template <class T> void check_pooling(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t spatial = rng() % 4 == 0 ? 1 : 2 + uint32_t(rng() % 2);  // 1: the plain loop; 2 and 3: the fast path
        std::vector<uint32_t> in = {1 + uint32_t(rng() % 2), 1 + uint32_t(rng() % 3)}, out = in;
        PoolingGeometry g;
        g.spatial = spatial;
        for (uint32_t i = 0; i < spatial; ++i) {
            const uint32_t window = 1 + uint32_t(rng() % 3), dilation = 1 + uint32_t(rng() % 2), stride = 1 + uint32_t(rng() % 3);
            const uint32_t start = uint32_t(rng() % window), end = uint32_t(rng() % window);
            const uint32_t span = 1 + (window - 1) * dilation;
            const uint32_t size = std::max(1u, span > start + end ? span - start - end : 1u) + uint32_t(rng() % 6);
            const uint32_t padded = size + start + end;
            const uint32_t floor_size = (padded - span) / stride + 1;
            const bool ceil = (padded - span) % stride != 0 && rng() % 2;
            in.push_back(size);
            out.push_back(floor_size + ceil);
            g.Strides.push_back(stride);
            g.WindowSize.push_back(window);
            g.StartPadding.push_back(start);
            g.EndPadding.push_back(end);
            g.Dilations.push_back(dilation);
        }
        INFO("spatial " << spatial << ", iteration " << k);
        const bool forward = rng() % 2;
        check_pooling_op<T>(rng, forward, rng() % 2 ? DataType::UINT32 : DataType::UINT64, in, out, g);
    }
}

// Wide rows for the interior scan (windows side by side, candidates read with step 1, 2 or
// more) and volumes whose dX elements take up to nine terms (stride 1, window 3), so that
// inexact additions, infinities and NaNs reach the exact retry.
template <class T> void check_pooling_wide(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t spatial = 2 + uint32_t(rng() % 2);
        std::vector<uint32_t> in = {1, 1 + uint32_t(rng() % 2)}, out = in;
        PoolingGeometry g;
        g.spatial = spatial;
        for (uint32_t i = 0; i < spatial; ++i) {
            const bool last = i + 1 == spatial;
            const uint32_t window = 1 + uint32_t(rng() % 4), dilation = rng() % 4 == 0 ? 2 : 1, stride = 1 + uint32_t(rng() % 3);
            const uint32_t start = uint32_t(rng() % window), end = uint32_t(rng() % window);
            const uint32_t span = 1 + (window - 1) * dilation;
            const uint32_t size = span + (last ? uint32_t(rng() % 200) : uint32_t(rng() % 5));
            const uint32_t padded = size + start + end;
            in.push_back(size);
            out.push_back((padded - span) / stride + 1);
            g.Strides.push_back(stride);
            g.WindowSize.push_back(window);
            g.StartPadding.push_back(start);
            g.EndPadding.push_back(end);
            g.Dilations.push_back(dilation);
        }
        INFO("spatial " << spatial << ", width " << in.back() << ", stride " << g.Strides.back() << ", window " << g.WindowSize.back()
                        << ", iteration " << k);
        const bool forward = rng() % 3 == 0;
        check_pooling_op<T>(rng, forward, DataType::UINT64, in, out, g);
    }
}

// ---- ELEMENT_WISE_CLIP1 ----------------------------------------------------------------------

template <class T> void check_clip1(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t rank = 1 + uint32_t(rng() % 4);
        std::vector<uint32_t> sizes(rank);
        for (uint32_t& s : sizes) s = 1 + uint32_t(rng() % 9);
        DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC d;
        d.InputTensor = desc(data_type_of<T>(), sizes, random_strides(rng, sizes));
        d.OutputTensor = desc(data_type_of<T>(), sizes, random_strides(rng, sizes));
        d.MinMaxDataType = data_type_of<T>();
        d.Min = DML_SCALAR_UNION::of(hard_element<T>(rng));  // NaN, -0, +0, ties with x, Min > Max
        d.Max = DML_SCALAR_UNION::of(hard_element<T>(rng));
        INFO("iteration " << k);
        check_op({OperatorType::ELEMENT_WISE_CLIP1, d},
                 make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}}, {{"OutputTensor", &d.OutputTensor}}));
    }
}

// ---- FLOAT32 element-wise paths (fast/streamed.hpp) -----------------------------------------

// CLIP1, CLIP_GRAD1 and RELU_GRAD on FLOAT32 with `n` elements, packed or strided: n from
// fast::kStreamedElements up takes the streamed stores.
void check_floats_elementwise(std::mt19937_64& rng, uint32_t n, bool packed) {
    const std::vector<uint32_t> sizes = {n};
    const std::vector<uint32_t> strided = !packed && rng() % 3 == 0 ? std::vector<uint32_t>{2} : std::vector<uint32_t>{};
    const float Min = hard_element<float>(rng), Max = hard_element<float>(rng);
    INFO("n " << n << ", Min " << Min << ", Max " << Max << ", strided " << !strided.empty());
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC c;
    c.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    c.OutputTensor = desc(DataType::FLOAT32, sizes);
    c.MinMaxDataType = DataType::FLOAT32;
    c.Min = DML_SCALAR_UNION::of(Min);
    c.Max = DML_SCALAR_UNION::of(Max);
    check_op({OperatorType::ELEMENT_WISE_CLIP1, c}, make_buffers<float>(rng, {{"InputTensor", &c.InputTensor}}, {{"OutputTensor", &c.OutputTensor}}));
    DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC g;
    g.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    g.InputGradientTensor = g.OutputGradientTensor = desc(DataType::FLOAT32, sizes);
    g.MinMaxDataType = DataType::FLOAT32;
    g.Min = c.Min;
    g.Max = c.Max;
    check_op({OperatorType::ELEMENT_WISE_CLIP_GRAD1, g},
             make_buffers<float>(rng, {{"InputTensor", &g.InputTensor}, {"InputGradientTensor", &g.InputGradientTensor}},
                                 {{"OutputGradientTensor", &g.OutputGradientTensor}}));
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC r;
    r.InputTensor = desc(DataType::FLOAT32, sizes, strided);
    r.InputGradientTensor = r.OutputGradientTensor = desc(DataType::FLOAT32, sizes);
    check_op({OperatorType::ACTIVATION_RELU_GRAD, r},
             make_buffers<float>(rng, {{"InputTensor", &r.InputTensor}, {"InputGradientTensor", &r.InputGradientTensor}},
                                 {{"OutputGradientTensor", &r.OutputGradientTensor}}));
}

// ---- ACTIVATION_RELU and ACTIVATION_RELU_GRAD (FLOAT16) --------------------------------------

void check_relu_half(std::mt19937_64& rng) {
    // Every FLOAT16 bit pattern as x (NaNs, -0, subnormals, infinities), strided and packed.
    const uint32_t n = 1u << 16;
    for (const bool strided : {false, true}) {
        DML_ACTIVATION_RELU_OPERATOR_DESC r;
        r.InputTensor = desc(DataType::FLOAT16, {n}, strided ? std::vector<uint32_t>{2} : std::vector<uint32_t>{});
        r.OutputTensor = desc(DataType::FLOAT16, {n});
        Buffers in = make_buffers<half>(rng, {{"InputTensor", &r.InputTensor}}, {{"OutputTensor", &r.OutputTensor}});
        for (uint32_t i = 0; i < n; ++i) {
            const uint16_t b = uint16_t(i);
            std::memcpy(in.bytes[0].data() + size_t(i) * (strided ? 4 : 2), &b, 2);
        }
        check_op({OperatorType::ACTIVATION_RELU, r}, in);
        DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC g;
        g.InputTensor = r.InputTensor;
        g.InputGradientTensor = desc(DataType::FLOAT16, {n});
        g.OutputGradientTensor = desc(DataType::FLOAT16, {n}, strided ? std::vector<uint32_t>{3} : std::vector<uint32_t>{});
        Buffers gin = make_buffers<half>(rng, {{"InputTensor", &g.InputTensor}, {"InputGradientTensor", &g.InputGradientTensor}},
                                         {{"OutputGradientTensor", &g.OutputGradientTensor}});
        gin.bytes[0] = in.bytes[0];
        check_op({OperatorType::ACTIVATION_RELU_GRAD, g}, gin);
    }
}

}  // namespace

TEST_CASE("RELU and RELU_GRAD FLOAT16 fast path = plain loop, every bit pattern") {
    std::mt19937_64 rng(1330);
    check_relu_half(rng);
}

TEST_CASE("CLIP_GRAD1 FLOAT16 fast path = plain loop, element for element") {
    std::mt19937_64 rng(1340);
    for (int k = 0; k < 300; ++k) {
        const std::vector<uint32_t> sizes = {1 + uint32_t(rng() % 9), 1 + uint32_t(rng() % 9)};
        DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC d;
        d.InputTensor = desc(DataType::FLOAT16, sizes, random_strides(rng, sizes));
        d.InputGradientTensor = desc(DataType::FLOAT16, sizes, random_strides(rng, sizes));
        d.OutputGradientTensor = desc(DataType::FLOAT16, sizes, random_strides(rng, sizes));
        d.MinMaxDataType = DataType::FLOAT16;
        d.Min = DML_SCALAR_UNION::of(hard_element<half>(rng));
        d.Max = DML_SCALAR_UNION::of(hard_element<half>(rng));
        INFO("iteration " << k);
        check_op({OperatorType::ELEMENT_WISE_CLIP_GRAD1, d},
                 make_buffers<half>(rng, {{"InputTensor", &d.InputTensor}, {"InputGradientTensor", &d.InputGradientTensor}},
                                    {{"OutputGradientTensor", &d.OutputGradientTensor}}));
    }
}

TEST_CASE_TEMPLATE("CLIP1 fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(1320 + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
    check_clip1<T>(rng, 400);
}

TEST_CASE_TEMPLATE("Resample fast path = plain loop on wide rows (patterned reads, chunks)", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(1370 + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
    check_resample_wide<T>(rng, 40);
}

TEST_CASE_TEMPLATE("Resample fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(1300 + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
    check_resample<T>(rng, 120);
}

TEST_CASE_TEMPLATE("Max pooling fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(1310 + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
    check_pooling<T>(rng, 120);
}

TEST_CASE_TEMPLATE("Max pooling fast path = plain loop on wide rows (interior scan, exact retries)", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(1380 + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
    check_pooling_wide<T>(rng, 40);
}

TEST_CASE("CLIP1, CLIP_GRAD1 and RELU_GRAD FLOAT32 fast paths = plain loop, element for element") {
    std::mt19937_64 rng(1390);
    for (int k = 0; k < 300; ++k) check_floats_elementwise(rng, 1 + uint32_t(rng() % 40), false);
    // Streamed stores, with a tail of fewer than four elements.
    for (int k = 0; k < 2; ++k) check_floats_elementwise(rng, uint32_t(reference::fast::kStreamedElements) + 3, true);
}

TEST_CASE("The element-for-element check fails on a planted difference") {
    std::mt19937_64 rng(5);
    DML_RESAMPLE_GRAD1_OPERATOR_DESC d;
    d.InputGradientTensor = desc(DataType::FLOAT32, {1, 2, 8, 8});
    d.OutputGradientTensor = desc(DataType::FLOAT32, {1, 2, 4, 4});
    d.InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    d.DimensionCount = 4;
    d.Scales = {1, 1, 2, 2};
    d.InputPixelOffsets = {0, 0, 0.5f, 0.5f};
    d.OutputPixelOffsets = {0, 0, -0.5f, -0.5f};
    const Operator op{OperatorType::RESAMPLE_GRAD1, d};
    const Buffers in = make_buffers<float>(rng, {{"InputGradientTensor", &d.InputGradientTensor}},
                                           {{"OutputGradientTensor", &d.OutputGradientTensor}});
    const Buffers plain = evaluate_with(op, in, false, 1);
    Buffers fast = evaluate_with(op, in, true, 1);
    CHECK(first_difference(plain, fast) == -1);
    fast.bytes[1][17] ^= std::byte{1};  // one bit of one element
    CHECK(first_difference(plain, fast) == 1);
}

// ---- MAX_POOLING_GRAD's rolling accumulator and the FLOAT32 vector scan ------------------------
// The geometries where max_pooling_grad.hpp's accumulator rolls along rows or depth (with gaps
// between windows, windows longer than the axis, a single depth position under several output
// depths) and where max_pooling_scan.cpp's eight-window blocks and overlapping last block run
// (FLOAT32 rows of at least 8 interior windows, steps 1 and 2): the benchmark's 3x3 / 2 window
// with padding 1, wide 2-D and 3-D volumes, rows read and written with a step (gapped strides),
// and the hard values (ties, infinities, NaN, inexact float64 sums) that send dX elements to the
// exact retry.

namespace {

struct AxisChoice {
    uint32_t in, window, stride, start, end, dilation;
};

template <class T> void check_pooling_axes(std::mt19937_64& rng, const std::vector<uint32_t>& nc, const std::vector<AxisChoice>& axes) {
    std::vector<uint32_t> in = nc, out = nc;
    PoolingGeometry g;
    g.spatial = uint32_t(axes.size());
    for (const AxisChoice& a : axes) {
        const uint32_t span = 1 + (a.window - 1) * a.dilation, padded = a.in + a.start + a.end;
        REQUIRE(padded >= span);
        in.push_back(a.in);
        out.push_back((padded - span) / a.stride + 1);
        g.Strides.push_back(a.stride);
        g.WindowSize.push_back(a.window);
        g.StartPadding.push_back(a.start);
        g.EndPadding.push_back(a.end);
        g.Dilations.push_back(a.dilation);
    }
    for (const bool forward : {false, true})
        for (const bool gapped : {false, true}) {
            INFO("forward " << forward << ", gapped " << gapped << ", in " << in.back() << ", window " << axes.back().window << ", stride "
                            << axes.back().stride);
            check_pooling_op<T>(rng, forward, DataType::UINT64, in, out, g, gapped);
        }
}

template <class T> void check_pooling_rolling(std::mt19937_64& rng) {
    // The benchmark's window (3x3, stride 2, padding 1) on rows of 15 to 70 columns.
    for (int k = 0; k < 6; ++k) {
        const uint32_t h = 5 + uint32_t(rng() % 8), w = 15 + uint32_t(rng() % 56), end = uint32_t(rng() % 2);
        check_pooling_axes<T>(rng, {1, 2}, {{h, 3, 2, 1, end, 1}, {w, 3, 2, 1, end, 1}});
    }
    // 2-D: windows apart (stride above the span: positions no window reads), dilated, longer than the rows' count.
    check_pooling_axes<T>(rng, {1, 1}, {{9, 2, 3, 0, 0, 1}, {40, 2, 3, 1, 0, 1}});
    check_pooling_axes<T>(rng, {2, 1}, {{7, 3, 1, 2, 1, 2}, {33, 3, 2, 2, 2, 2}});
    check_pooling_axes<T>(rng, {1, 1}, {{2, 4, 1, 3, 3, 1}, {24, 3, 1, 1, 1, 1}});
    // 3-D: the accumulator rolls along depth; one depth position read by two output depths.
    check_pooling_axes<T>(rng, {1, 2}, {{5, 3, 2, 1, 1, 1}, {4, 3, 1, 1, 1, 1}, {20, 3, 2, 1, 1, 1}});
    check_pooling_axes<T>(rng, {1, 1}, {{6, 2, 1, 0, 0, 2}, {3, 2, 2, 0, 1, 1}, {27, 2, 1, 0, 0, 1}});
    check_pooling_axes<T>(rng, {1, 1}, {{1, 2, 1, 1, 1, 1}, {5, 3, 2, 1, 1, 1}, {19, 3, 2, 1, 1, 1}});
}

}  // namespace

TEST_CASE_TEMPLATE("Max pooling fast path = plain loop: rolling accumulator, vector scan, gapped rows", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng(1400 + sizeof(T) * 7 + std::is_signed_v<T> + 2 * is_floating_v<T>);
    check_pooling_rolling<T>(rng);
}
