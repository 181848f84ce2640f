// The fast paths (reference/fast/, reference/fast_sum.hpp) against the plain loops, element for
// element: FastSum against ExactSum on hard term lists (rounding midpoints, cancellation,
// subnormals, overflow, infinities and NaN), then every fast operator path against the same
// operator with the fast paths switched off, over random shapes, strides, ranks and all eleven
// types, and with one thread against several. Expected values come from the plain loops
// (reference/<family>.cpp, which sum with ExactSum alone when the fast paths are off) and
// ExactSum, never from the fast code under test.
#include "support.hpp"

#include "../reference/fast/switch.hpp"
#include "../reference/fast_sum.hpp"

#include <cmath>
#include <limits>
#include <random>

using namespace dmlref;
using namespace dmlref::test;
using dmlref::reference::ExactSum;

namespace {

// Doubles that make sums hard: ties at the float64 (and float32, float16) rounding midpoints,
// cancellation, subnormals, the largest finite values, infinities and NaN.
double hard_value(std::mt19937_64& rng) {
    static const double pool[] = {
        0.0, -0.0, 1.0, -1.0, 0x1p-53, -0x1p-53, 0x1p-54, 3 * 0x1p-54, 0x1p-106, 1 + 0x1p-52, -(1 + 0x1p-52),
        0x1p-1074, -0x1p-1074, 0x1p-1022, 0x1p-149, 0x1p-24, 0x1p-11, 0x1p-25, 0x1p-12, 3.0, 0.1, -0.1, 0x1p60, -0x1p60,
        std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 3.4028234663852886e38, 65504.0,
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()};
    const size_t k = rng() % (std::size(pool) + 4);
    if (k < std::size(pool)) return pool[k];
    return std::ldexp(double(int64_t(rng() % 2001) - 1000), int(rng() % 12) - 6);  // plain values
}

template <class T> T hard_element(std::mt19937_64& rng) {
    if constexpr (std::is_integral_v<T>) {
        if (rng() % 3 == 0) return T(int64_t(rng() % 7) - 3);  // small values: ties between windows' elements
        return static_cast<T>(rng());                          // any bits: wrapping sums
    } else {
        if (rng() % 4 == 0) return value_of<T>(double(int64_t(rng() % 5) - 2));  // ties
        return value_of<T>(hard_value(rng));
    }
}

template <class T> bool same_bits(T a, T b) { return to_bits(a) == to_bits(b); }
// The same bits, or both NaN: a NaN's payload may depend on the order a vectorised loop adds in
// (a NaN anywhere leaves a sum undecided, so its payload never reaches a result).
bool same_double(double a, double b) { return same_bits(a, b) || (std::isnan(a) && std::isnan(b)); }

template <class T> void check_sums(std::mt19937_64& rng, int lists) {
    for (int l = 0; l < lists; ++l) {
        std::vector<double> terms(rng() % 7);
        for (double& t : terms) t = hard_value(rng);
        ExactSum e;
        for (double t : terms) e.add(t);
        const T expected = e.template result<T>();
        const T fast = reference::exact_sum_of<T>([&](auto&& add) { for (double t : terms) add(t); });
        INFO("terms " << terms.size() << ", list " << l);
        REQUIRE(same_bits(fast, expected));
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

// Sums whose terms are small floats: exact in float64, often on a FLOAT32 or FLOAT16 rounding
// midpoint (the case narrow_rounded must decide from FastSum's b == 0), with hard values mixed in.
double midpoint_value(std::mt19937_64& rng) {
    if (rng() % 5 == 0) return hard_value(rng);
    const int bits = rng() % 2 ? 24 : 11;  // FLOAT32 or FLOAT16 significands
    return std::ldexp(double(int64_t(rng() % (uint64_t(1) << bits)) - (int64_t(1) << (bits - 1))), int(rng() % 6) - bits);
}

// ---- MAX_POOLING2 and MAX_POOLING_GRAD ------------------------------------------------------

template <class T> void check_pooling(std::mt19937_64& rng, int count) {
    for (int k = 0; k < count; ++k) {
        const uint32_t spatial = rng() % 4 == 0 ? 1 : 2 + uint32_t(rng() % 2);  // 1: the plain loop; 2 and 3: the fast path
        std::vector<uint32_t> in = {1 + uint32_t(rng() % 2), 1 + uint32_t(rng() % 3)}, out = in;
        std::vector<uint32_t> Strides, WindowSize, StartPadding, EndPadding, Dilations;
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
            Strides.push_back(stride);
            WindowSize.push_back(window);
            StartPadding.push_back(start);
            EndPadding.push_back(end);
            Dilations.push_back(dilation);
        }
        const DataType t = data_type_of<T>();
        INFO("spatial " << spatial << ", iteration " << k);
        if (rng() % 2) {
            DML_MAX_POOLING2_OPERATOR_DESC d;
            d.InputTensor = desc(t, in, random_strides(rng, in));
            d.OutputTensor = desc(t, out, random_strides(rng, out));
            d.OutputIndicesTensor = desc(rng() % 2 ? DataType::UINT32 : DataType::UINT64, out, random_strides(rng, out));
            d.DimensionCount = spatial;
            d.Strides = Strides;
            d.WindowSize = WindowSize;
            d.StartPadding = StartPadding;
            d.EndPadding = EndPadding;
            d.Dilations = Dilations;
            check_op({OperatorType::MAX_POOLING2, d},
                     make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}},
                                     {{"OutputTensor", &d.OutputTensor}, {"OutputIndicesTensor", &*d.OutputIndicesTensor}}));
        } else {
            DML_MAX_POOLING_GRAD_OPERATOR_DESC d;
            d.InputTensor = desc(t, in, random_strides(rng, in));
            d.InputGradientTensor = desc(t, out, random_strides(rng, out));
            d.OutputGradientTensor = desc(t, in, random_strides(rng, in));
            d.DimensionCount = spatial;
            d.Strides = Strides;
            d.WindowSize = WindowSize;
            d.StartPadding = StartPadding;
            d.EndPadding = EndPadding;
            d.Dilations = Dilations;
            check_op({OperatorType::MAX_POOLING_GRAD, d},
                     make_buffers<T>(rng, {{"InputTensor", &d.InputTensor}, {"InputGradientTensor", &d.InputGradientTensor}},
                                     {{"OutputGradientTensor", &d.OutputGradientTensor}}));
        }
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

TEST_CASE_TEMPLATE("FastSum gives ExactSum's bits on hard term lists", T, float, half, double, int32_t, uint8_t, int64_t) {
    std::mt19937_64 rng(13);
    check_sums<T>(rng, 20000);
}

TEST_CASE("FastSum proves only what holds: a rounding midpoint is left to ExactSum") {
    reference::FastSum tie;  // 1 + 2^-53 lies halfway between 1 and 1 + 2^-52
    tie.add(1.0);
    tie.add(0x1p-53);
    CHECK_FALSE(tie.rounded().has_value());
    reference::FastSum above;  // 1 + 2^-53 + 2^-80 rounds up, and FastSum proves it
    for (double t : {1.0, 0x1p-53, 0x1p-80}) above.add(t);
    REQUIRE(above.rounded().has_value());
    CHECK(*above.rounded() == 1 + 0x1p-52);
    reference::FastSum cancel;  // the terms cancel, every addition exact: +0
    for (double t : {2.5, -1.25, -1.25}) cancel.add(t);
    REQUIRE(cancel.rounded().has_value());
    CHECK(to_bits(*cancel.rounded()) == 0u);
    // These cancel too, but 2^60 - 3 rounds on the way: FastSum's bound cannot prove +0, ExactSum does.
    const double rounding[] = {0x1p60, -3.0, -0x1p60, 3.0};
    reference::FastSum undecided;
    for (double t : rounding) undecided.add(t);
    CHECK_FALSE(undecided.rounded().has_value());
    CHECK(to_bits(reference::exact_sum_of<double>([&](auto&& add) { for (double t : rounding) add(t); })) == 0u);
}

TEST_CASE_TEMPLATE("narrow_rounded proves only ExactSum's FLOAT32 and FLOAT16 bits", T, float, half) {
    std::mt19937_64 rng(1350 + sizeof(T));
    int proved = 0;
    for (int l = 0; l < 40000; ++l) {
        std::vector<double> terms(rng() % 9);
        for (double& t : terms) t = l % 2 ? midpoint_value(rng) : hard_value(rng);
        ExactSum e;
        reference::FastSum f;
        for (double t : terms) { e.add(t); f.add(t); }
        T out{};
        INFO("terms " << terms.size() << ", list " << l);
        if (!reference::narrow_rounded<T>(f.s, f.c, f.b, out)) continue;
        ++proved;
        REQUIRE(same_bits(out, e.template result<T>()));
    }
    CHECK(proved > 30000);  // the proof settles nearly every list, NaN and infinities aside
}

TEST_CASE("narrow_rounded: an exact sum on a midpoint is decided, a double rounding onto one is not") {
    float out = 0;
    reference::FastSum tie;  // 1 + 2^-24: exactly halfway between two FLOAT32 values; ties to even
    for (double t : {1.0, 0x1p-24}) tie.add(t);
    REQUIRE(reference::narrow_rounded<float>(tie.s, tie.c, tie.b, out));
    CHECK(out == 1.0f);
    // 1 + 2^-24 + 2^-80 rounds to 1 + 2^-24 in float64 (ExactSum's first rounding), then ties to
    // even: 1.0f, although the exact sum lies above the midpoint. The proof must not decide it.
    const double above[] = {1.0, 0x1p-24, 0x1p-80};
    reference::FastSum f;
    for (double t : above) f.add(t);
    CHECK_FALSE(reference::narrow_rounded<float>(f.s, f.c, f.b, out));
    CHECK(reference::exact_sum_of<float>([&](auto&& add) { for (double t : above) add(t); }) == 1.0f);
}

TEST_CASE("FastSum's side-by-side loops = FastSum::add term by term") {
    std::mt19937_64 rng(1360);
    for (int l = 0; l < 200; ++l) {
        const size_t n = 1 + rng() % 300, q = rng() % 20, stride = n + rng() % 4;
        std::vector<double> table(q * stride + 1), weight(2 * n), value(2 * n + 2), s(n), c(n), b(n);
        std::vector<float> fvalue(2 * n + 2);
        std::vector<int32_t> index(2 * n);
        for (double& t : table) t = l % 2 ? midpoint_value(rng) : hard_value(rng);
        for (double& w : weight) w = rng() % 5 ? std::ldexp(double(1 + rng() % 7), -int(rng() % 4)) : 0.0;
        for (size_t k = 0; k < value.size(); ++k) { fvalue[k] = float(hard_value(rng)); value[k] = fvalue[k]; }
        for (int32_t& i : index) i = int32_t(rng() % value.size());
        const double scale = std::ldexp(double(1 + rng() % 5), -int(rng() % 3));
        INFO("list " << l << ", n " << n << ", q " << q);
        // add_tables against FastSum::add, sum by sum.
        reference::FastSum::add_tables(s.data(), c.data(), b.data(), table.data(), q, stride, n);
        for (size_t k = 0; k < n; ++k) {
            reference::FastSum f;
            for (size_t j = 0; j < q; ++j) f.add(table[j * stride + k]);
            REQUIRE(same_double(f.s, s[k]));
            REQUIRE(same_double(f.c, c[k]));
            REQUIRE(same_double(f.b, b[k]));
        }
        // narrow_floats against narrow_rounded, element by element (out only where proved).
        std::vector<float> out(n);
        const bool all = reference::FastSum::narrow_floats(s.data(), c.data(), b.data(), out.data(), 1, n);
        bool every = true;
        for (size_t k = 0; k < n; ++k) {
            float expected = 0;
            const bool proved = reference::narrow_rounded<float>(s[k], c[k], b[k], expected);
            every = every && proved;
            if (proved) REQUIRE(same_bits(out[k], expected));
        }
        CHECK(all == every);
        // The term tables: (scale * weight) * value, gathered, strided by 1 and 2, and halved.
        std::vector<double> got(2 * n), got_f(2 * n);
        auto term = [&](size_t k, size_t at) { return (scale * weight[k]) * value[at]; };
        reference::FastSum::terms_gathered(got.data(), weight.data(), value.data(), index.data(), scale, n);
        reference::FastSum::terms_gathered(got_f.data(), weight.data(), fvalue.data(), index.data(), scale, n);
        for (size_t k = 0; k < n; ++k) {
            REQUIRE(same_bits(got[k], term(k, size_t(index[k]))));
            REQUIRE(same_bits(got_f[k], term(k, size_t(index[k]))));
        }
        for (const int step : {1, 2}) {
            reference::FastSum::terms_strided(got.data(), weight.data(), value.data(), step, scale, n);
            reference::FastSum::terms_strided(got_f.data(), weight.data(), fvalue.data(), step, scale, n);
            for (size_t k = 0; k < n; ++k) {
                REQUIRE(same_bits(got[k], term(k, k * size_t(step))));
                REQUIRE(same_bits(got_f[k], term(k, k * size_t(step))));
            }
        }
        reference::FastSum::terms_halved(got.data(), weight.data(), value.data(), scale, n);
        reference::FastSum::terms_halved(got_f.data(), weight.data(), fvalue.data(), scale, n);
        for (size_t k = 0; k < 2 * n; ++k) {
            REQUIRE(same_bits(got[k], term(k, k / 2)));
            REQUIRE(same_bits(got_f[k], term(k, k / 2)));
        }
    }
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
