// The average pooling fast paths (reference/fast/average_pooling.cpp) against the plain loop of
// reference/average_pooling.cpp, element for element (fast_check.hpp: one thread and three):
// AVERAGE_POOLING, AVERAGE_POOLING1 (dilations) and AVERAGE_POOLING_GRAD over random geometries of
// 1 to 3 spatial dimensions, strides, padding, floor and ceil sizes, IncludePadding both ways,
// packed and strided layouts, all eleven types (the fast path takes FLOAT32 and FLOAT16; the
// others must fall back), on plain values, hard values (subnormals, +-0, +-inf, NaN, the largest
// values) and values whose averages fall on or next to rounding ties of the output type, so that
// every way out of the decision is taken: the float64 bound, the exact retry, the plain element.
#include "fast_check.hpp"
#include "fast_values.hpp"
#include "support.hpp"

#include "../reference/fast/average_pooling.hpp"
#include "../reference/fast/parallel.hpp"

#include <array>
#include <cmath>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_average_pooling {

using namespace dmlref;
using namespace dmlref::test;

namespace {

enum class Op { Forward, Forward1, Grad };

struct Geometry {
    std::vector<uint32_t> in, out, Strides, WindowSize, StartPadding, EndPadding, Dilations;
    uint32_t IncludePadding = 0;
};

// A random geometry: N, C up to 2, `spatial` dimensions, windows up to 4 (dilated up to 2 for
// AVERAGE_POOLING1), strides up to 3, padding below the window, floor or ceil sizes.
Geometry random_geometry(std::mt19937_64& rng, uint32_t spatial, bool dilated, uint32_t widest) {
    Geometry g;
    g.in = {1 + uint32_t(rng() % 2), 1 + uint32_t(rng() % 2)};
    g.out = g.in;
    g.IncludePadding = uint32_t(rng() % 2);
    for (uint32_t i = 0; i < spatial; ++i) {
        const bool last = i + 1 == spatial;
        const uint32_t window = 1 + uint32_t(rng() % 4), dilation = dilated ? 1 + uint32_t(rng() % 2) : 1,
                       stride = 1 + uint32_t(rng() % 3);
        const uint32_t start = uint32_t(rng() % window), end = uint32_t(rng() % window);
        const uint32_t span = 1 + (window - 1) * dilation;
        const uint32_t size = std::max(1u, span > start + end ? span - start - end : 1u) +
                              uint32_t(rng() % (last ? widest : 5));
        const uint32_t padded = size + start + end;
        const uint32_t floor_size = (padded - span) / stride + 1;
        const bool ceil = (padded - span) % stride != 0 && rng() % 2;
        g.in.push_back(size);
        g.out.push_back(floor_size + ceil);
        g.Strides.push_back(stride);
        g.WindowSize.push_back(window);
        g.StartPadding.push_back(start);
        g.EndPadding.push_back(end);
        g.Dilations.push_back(dilation);
    }
    return g;
}

template <class D> void set_geometry(D& d, const Geometry& g) {
    d.DimensionCount = uint32_t(g.Strides.size());
    d.Strides = g.Strides;
    d.WindowSize = g.WindowSize;
    d.StartPadding = g.StartPadding;
    d.EndPadding = g.EndPadding;
    d.IncludePadding = g.IncludePadding;
}

// The operator of `op` on geometry g, with strides (empty: packed) for its input and output.
Operator make_op(Op op, DataType t, const Geometry& g, const std::vector<uint32_t>& in_strides,
                 const std::vector<uint32_t>& out_strides) {
    if (op == Op::Grad) {
        DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC d;
        d.InputGradientTensor = desc(t, g.out, out_strides);
        d.OutputGradientTensor = desc(t, g.in, in_strides);
        set_geometry(d, g);
        return {OperatorType::AVERAGE_POOLING_GRAD, d};
    }
    if (op == Op::Forward1) {
        DML_AVERAGE_POOLING1_OPERATOR_DESC d;
        d.InputTensor = desc(t, g.in, in_strides);
        d.OutputTensor = desc(t, g.out, out_strides);
        set_geometry(d, g);
        d.Dilations = g.Dilations;
        return {OperatorType::AVERAGE_POOLING1, d};
    }
    DML_AVERAGE_POOLING_OPERATOR_DESC d;
    d.InputTensor = desc(t, g.in, in_strides);
    d.OutputTensor = desc(t, g.out, out_strides);
    set_geometry(d, g);
    return {OperatorType::AVERAGE_POOLING, d};
}

// Buffers for op: its one input from `value`, its output filled (fast_check.hpp's make_buffers
// with a chosen value generator).
template <class T, class Value> Buffers op_buffers(const Operator& op, Value&& value) {
    const bool grad = op.Type == OperatorType::AVERAGE_POOLING_GRAD;
    const TensorDesc* in = nullptr;
    const TensorDesc* out = nullptr;
    if (grad) {
        const auto& d = get<DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC>(op.Desc);
        in = &d.InputGradientTensor;
        out = &d.OutputGradientTensor;
    } else if (op.Type == OperatorType::AVERAGE_POOLING1) {
        const auto& d = get<DML_AVERAGE_POOLING1_OPERATOR_DESC>(op.Desc);
        in = &d.InputTensor;
        out = &d.OutputTensor;
    } else {
        const auto& d = get<DML_AVERAGE_POOLING_OPERATOR_DESC>(op.Desc);
        in = &d.InputTensor;
        out = &d.OutputTensor;
    }
    Buffers b;
    std::vector<T> v(buffer_size(*in) / sizeof(T) + 1);
    for (size_t i = 0; i < v.size(); ++i) v[i] = value(i);
    std::vector<std::byte> bytes(buffer_size(*in));
    std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
    b.names = {grad ? "InputGradientTensor" : "InputTensor", grad ? "OutputGradientTensor" : "OutputTensor"};
    b.bytes.push_back(std::move(bytes));
    b.bytes.emplace_back(buffer_size(*out), std::byte{0x5a});
    return b;
}

// The three kinds of data: plain values (almost every element decided by the bound), hard
// values (hard_element: ties, subnormals, zeros, infinities, NaN), and small integers times one
// power of two (sums exact in float64, averages often on a rounding tie of T).
template <class T> T value_of_kind(std::mt19937_64& rng, int kind) {
    if constexpr (std::is_integral_v<T>) {
        return hard_element<T>(rng);
    } else {
        if (kind == 1) return hard_element<T>(rng);
        if (kind == 2) {
            const int bits = is_half_v<T> ? 12 : 25;
            return value_of<T>(std::ldexp(double(int64_t(rng() % (uint64_t(1) << bits)) - (int64_t(1) << (bits - 1))),
                                          -int(bits) + int(rng() % 3)));
        }
        return value_of<T>(std::ldexp(double(int64_t(rng() % 2001) - 1000), -10));
    }
}

template <class T> void check_random(std::mt19937_64& rng, int count, uint32_t widest) {
    const DataType t = data_type_of<T>();
    for (int k = 0; k < count; ++k) {
        const Op op = Op(rng() % 3);
        const uint32_t spatial = 1 + uint32_t(rng() % 3);
        const Geometry g = random_geometry(rng, spatial, op == Op::Forward1, widest);
        const int kind = int(rng() % 3);
        const bool strided = rng() % 3 == 0;
        const auto in_strides = strided ? gapped_strides(rng, g.in) : random_strides(rng, g.in);
        const auto out_strides = random_strides(rng, g.out);
        INFO("op " << int(op) << ", spatial " << spatial << ", kind " << kind << ", include padding "
                   << g.IncludePadding << ", last: in " << g.in.back() << " out " << g.out.back() << " window "
                   << g.WindowSize.back() << " stride " << g.Strides.back() << ", iteration " << k);
        const Operator o = make_op(op, t, g, in_strides, out_strides);
        check_op(o, op_buffers<T>(o, [&](size_t) { return value_of_kind<T>(rng, kind); }));
    }
}

}  // namespace

TEST_CASE_TEMPLATE("Average pooling fast path = plain loop, element for element", T, DMLREF_ALL_TYPES) {
    std::mt19937_64 rng = rng_for<T>(2210);
    const bool fast_type = std::is_same_v<T, float> || is_half_v<T>;
    check_random<T>(rng, fast_type ? 150 : 20, 8);
}

TEST_CASE_TEMPLATE("Average pooling fast path = plain loop on wide rows", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2290);
    check_random<T>(rng, 40, 120);
}

// ---- Tensors of several tasks ----------------------------------------------------------------
// The fast path hands rows to the threads in runs of at most some 2^13 units of work, on at most
// one thread per 2^13 units (forward) or 2^14 (grad), so the small random tensors above run mostly
// on one thread whatever the count. These are large enough for several runs and for three threads
// (check_op: one thread and three; the last call's allowance is checked), with the benchmark's
// windows (3x3, Strides 2, padding 1) and others, both ways of IncludePadding, packed and strided.
namespace {

Geometry box_geometry(std::vector<uint32_t> in, uint32_t window, uint32_t stride, uint32_t pad, uint32_t include) {
    Geometry g;
    g.in = in;
    g.out = in;
    g.IncludePadding = include;
    for (size_t i = 2; i < in.size(); ++i) {
        g.out[i] = (in[i] + 2 * pad - window) / stride + 1;
        g.Strides.push_back(stride);
        g.WindowSize.push_back(window);
        g.StartPadding.push_back(pad);
        g.EndPadding.push_back(pad);
        g.Dilations.push_back(1);
    }
    return g;
}

template <class T> void check_tasks(std::mt19937_64& rng) {
    const DataType t = data_type_of<T>();
    struct Case {
        std::vector<uint32_t> in;
        uint32_t window, stride, pad;
    };
    const Case cases[] = {{{2, 4, 64, 96}, 3, 2, 1}, {{2, 3, 60, 71}, 2, 1, 0}, {{1, 3, 30, 12, 50}, 3, 3, 1}};
    for (const Case& k : cases) {
        for (const Op op : {Op::Forward, Op::Grad}) {
            const uint32_t include = uint32_t(rng() % 2);
            const int kind = int(rng() % 3);
            const Geometry g = box_geometry(k.in, k.window, k.stride, k.pad, include);
            const bool strided = rng() % 2 == 0;
            const auto in_strides = strided ? gapped_strides(rng, g.in) : std::vector<uint32_t>{};
            INFO("op " << int(op) << ", dims " << k.in.size() << ", window " << k.window << ", include " << include
                       << ", kind " << kind << ", strided " << strided);
            const Operator o = make_op(op, t, g, in_strides, {});
            check_op(o, op_buffers<T>(o, [&](size_t) { return value_of_kind<T>(rng, kind); }));
            // The work, by hand: forward 2x4x64x96 (3x3 / 2) 2 * 4 * 32 rows of 48 * 9 additions,
            // 110,592, thirteen grains of 2^13; 2x3x60x71 (2x2 / 1) 2 * 3 * 59 rows of 70 * 4, 99,120,
            // twelve; 1x3x30x12x50 (3 / 3, padding 1) 3 * 10 * 4 rows of 17 * 27, 55,080, six. The
            // grads: 2 * 4 * 64 rows of 4 * 96 + 48 * 9 (417,792: 25 grains of 2^14), 2 * 3 * 60 of
            // 4 * 71 + 70 * 4 (203,040: twelve), 3 * 30 * 12 of 1 * 50 + 17 * 27 (549,720: 33).
            const int expected[2][3] = {{13, 12, 6}, {25, 12, 33}};
            CHECK(reference::fast::average_pooling_fast_counts().threads == expected[op == Op::Grad][&k - cases]);
        }
    }
}

}  // namespace

TEST_CASE_TEMPLATE("Average pooling fast path = plain loop on tensors of several tasks", T, float, dmlref::half) {
    std::mt19937_64 rng = rng_for<T>(2330);
    check_tasks<T>(rng);
}

// The thread rule (reference/fast/parallel.hpp): one thread per whole grain of work, at least one.
TEST_CASE("Average pooling fast path: threads follow the work") {
    using reference::threads_for_work;
    CHECK(threads_for_work(0, 1 << 13) == 1);
    CHECK(threads_for_work((1 << 13) - 1, 1 << 13) == 1);
    CHECK(threads_for_work(1 << 13, 1 << 13) == 1);
    CHECK(threads_for_work((1 << 14) - 1, 1 << 13) == 1);
    CHECK(threads_for_work(1 << 14, 1 << 13) == 2);
    CHECK(threads_for_work(110592, 1 << 13) == 13);
    CHECK(threads_for_work(int64_t(1) << 40, 1 << 13) == 1 << 16);
    // The benchmark's small forward (1x16x64x64: 16 * 32 rows of 32 * 9 additions, 147,456) takes
    // 18 threads (every core of 16), its grad (16 * 64 rows of 4 * 64 + 32 * 9, 557,056) 34; a
    // 1x1x8x8 forward (4 rows of 4 * 9, 144) one, and so does a 1x1x16x16 grad (16 rows of 4 * 16
    // + 8 * 9, 2,176). Each against the plain loop at one thread and three.
    struct Case {
        Op op;
        uint32_t channels, size;
        int threads;
    };
    for (const Case& k : {Case{Op::Forward, 16, 64, 18}, Case{Op::Grad, 16, 64, 34}, Case{Op::Forward, 1, 8, 1},
                          Case{Op::Grad, 1, 16, 1}}) {
        std::mt19937_64 rng(2340 + k.channels);
        const Geometry g = box_geometry({1, k.channels, k.size, k.size}, 3, 2, 1, 0);
        const Operator o = make_op(k.op, DataType::FLOAT32, g, {}, {});
        const Buffers in = op_buffers<float>(o, [&](size_t) { return value_of_kind<float>(rng, 0); });
        INFO("op " << int(k.op) << ", channels " << k.channels << ", size " << k.size);
        check_op(o, in);
        CHECK(reference::fast::average_pooling_fast_counts().threads == k.threads);
    }
}

// Rows per task (reference/fast/parallel.hpp), by hand: runs of at most about the task's work, as
// many as a multiple of the threads allows, every row in exactly one.
TEST_CASE("Average pooling fast path: rows per task fill every thread alike") {
    using reference::rows_per_task;
    // One thread: one task of every row.
    CHECK(rows_per_task(512, 288, 1 << 13, 1) == 512);
    CHECK(rows_per_task(0, 288, 1 << 13, 1) == 1);
    // 1x16x64x64's forward on 16 threads: 28 rows a task would be 19 tasks (two tasks' time on
    // some threads); 32 tasks of 16 rows take one round less of the largest task.
    CHECK(rows_per_task(512, 288, 1 << 13, 16) == 16);
    // Three threads: 19 tasks become 21 of ceil(512 / 21) = 25 rows (the last 12).
    CHECK(rows_per_task(512, 288, 1 << 13, 3) == 25);
    // 1x64x112x112's forward (56 * 9 a row): 16 rows a task, 224 tasks, already 14 a thread.
    CHECK(rows_per_task(3584, 504, 1 << 13, 16) == 16);
    // Rows heavier than a task: one row a task; fewer rows than threads: one row a task.
    CHECK(rows_per_task(100, 1 << 14, 1 << 13, 16) == 1);
    CHECK(rows_per_task(5, 10, 1 << 13, 16) == 1);
    // Every row in exactly one task of at most the task's work (or one row), and the rows of the
    // busiest thread (ceil(tasks / threads) tasks) no more than with tasks of the task's work.
    for (int64_t rows : {1, 2, 7, 31, 32, 33, 511, 512, 1000, 4099})
        for (int threads : {2, 3, 4, 16})
            for (int64_t work : {1, 100, 288, 5000, 9000}) {
                const int64_t per = rows_per_task(rows, work, 1 << 13, threads);
                const int64_t tasks = (rows + per - 1) / per;
                INFO("rows " << rows << ", threads " << threads << ", work " << work);
                CHECK(per >= 1);
                CHECK((tasks - 1) * per < rows);
                CHECK(per * work <= std::max<int64_t>(1 << 13, work));
                const int64_t plain = std::clamp<int64_t>((1 << 13) / work, 1, rows);
                CHECK((tasks + threads - 1) / threads * per <=
                      ((rows + plain - 1) / plain + threads - 1) / threads * plain);
            }
}

// FLOAT16 windows of up to 2^13 taps are summed exactly in float64 without magnitudes; larger
// ones take the bound with magnitudes. Both sides of that limit (a window of 8192 taps and one of
// 9261) against the plain loop, on values far apart in magnitude (the largest FLOAT16 values
// beside subnormals) and on sums that reach 2^29 (the largest value, mostly), where float64
// partial sums of more than 2^13 terms can round.
TEST_CASE("Average pooling fast path: FLOAT16 windows on either side of 2^13 taps") {
    std::mt19937_64 rng = rng_for<dmlref::half>(2350);
    const double pick[] = {65504.0, -65504.0, 0x1p-24, -0x1p-24, 0x1p-14, 1.0, 0x1.ffcp-1};
    struct Case {
        std::vector<uint32_t> in, window;
    };
    const Case cases[] = {{{1, 1, 64, 130}, {64, 128}}, {{1, 1, 21, 21, 23}, {21, 21, 21}}};
    for (const Case& k : cases) {
        for (const int mostly_largest : {0, 1}) {
            Geometry g;
            g.in = g.out = k.in;
            g.IncludePadding = uint32_t(mostly_largest);
            for (size_t i = 0; i < k.window.size(); ++i) {
                g.out[i + 2] = k.in[i + 2] - k.window[i] + 1;
                g.Strides.push_back(1);
                g.WindowSize.push_back(k.window[i]);
                g.StartPadding.push_back(0);
                g.EndPadding.push_back(0);
                g.Dilations.push_back(1);
            }
            INFO("window dimensions " << k.window.size() << ", mostly the largest " << mostly_largest);
            const Operator o = make_op(Op::Forward, DataType::FLOAT16, g, {}, {});
            check_op(o, op_buffers<dmlref::half>(o, [&](size_t) {
                         const size_t i = mostly_largest && rng() % 8 != 0 ? 0 : size_t(rng() % 7);
                         return value_of<dmlref::half>(pick[i]);
                     }));
        }
    }
}

// The FLOAT16 grad sums dY (M / D) exactly where K M <= 2^13 (K: the most windows holding a
// position, M: the divisors' least common multiple), with the bound and magnitudes otherwise:
// 3x3 windows, Strides 2 (K = 4) on the first side, 12x12 windows, Strides 1 (K = 144, M >= 144)
// on the other, each both ways of IncludePadding, on plain, hard and tie-prone values.
TEST_CASE("Average pooling fast path: FLOAT16 grad on either side of exact sums") {
    std::mt19937_64 rng = rng_for<dmlref::half>(2370);
    for (const auto& [window, stride, pad] : {std::array<uint32_t, 3>{3, 2, 1}, std::array<uint32_t, 3>{12, 1, 5}}) {
        for (const uint32_t include : {0u, 1u}) {
            for (const int kind : {0, 1, 2}) {
                const Geometry g = box_geometry({1, 2, 20, 26}, window, stride, pad, include);
                INFO("window " << window << ", include " << include << ", kind " << kind);
                const Operator o = make_op(Op::Grad, DataType::FLOAT16, g, {}, {});
                check_op(o,
                         op_buffers<dmlref::half>(o, [&](size_t) { return value_of_kind<dmlref::half>(rng, kind); }));
            }
        }
    }
}

// ---- Ties and near ties ----------------------------------------------------------------------
// FLOAT32: (2 + 2^-22) + (1 - 2^-24) + d is 3 (1 + 2^-24) + d, so its third is the midpoint
// 1 + 2^-24 between 1 and 1 + 2^-23 when d = 0 (a tie: to even, 1), and 2^-140 / 3 (or 2^-149 / 3)
// above or below it otherwise: 1 + 2^-23 or 1. The float64 bound cannot decide any of them; the
// tie is an exact sum and quotient (the exact retry), the others are not (2^-140 beside 3 needs
// more than 53 bits: the plain element). Scaled by 2^k the same holds, down to subnormal results.
// FLOAT16: (2 + 2^-9) + (1 - 2^-11) + d, the midpoint 1 + 2^-11 between 1 and 1 + 2^-10.
namespace {

struct TieRow {
    std::vector<double> input;     // triples: the windows (WindowSize 3, Strides 3)
    std::vector<double> expected;  // the third of each, rounded once, by hand
};

TieRow float32_ties() {
    TieRow r;
    const double a = 2 + 0x1p-22, b = 1 - 0x1p-24, up = 1 + 0x1p-23;
    for (const int k : {0, 20, -20, -100}) {
        const double s = std::ldexp(1.0, k);
        // d = 0: the tie, to even (1); d > 0: above it; d < 0: below it.
        for (const double d : {0.0, 0x1p-140, -0x1p-140, 0x1p-149, -0x1p-149}) {
            r.input.insert(r.input.end(), {a * s, b * s, d});
            const double e = d == 0 ? 1.0 : d > 0 ? up : 1.0;
            r.expected.push_back(e * s);
        }
    }
    // A subnormal result: the third of 2^-148 + 2^-148 + 2^-149 = 5 * 2^-149 is 5/3 * 2^-149,
    // nearer 2^-148 than 2^-149.
    r.input.insert(r.input.end(), {0x1p-148, 0x1p-148, 0x1p-149});
    r.expected.push_back(0x1p-148);
    // -0 and +0: an exact zero is +0; a negative third that rounds to zero is -0.
    r.input.insert(r.input.end(), {-0.0, -0.0, -0.0});
    r.expected.push_back(0.0);
    r.input.insert(r.input.end(), {-0x1p-149, 0.0, 0.0});
    r.expected.push_back(-0.0);
    return r;
}

TieRow float16_ties() {
    TieRow r;
    const double a = 2 + 0x1p-9, b = 1 - 0x1p-11, up = 1 + 0x1p-10;
    for (const double d : {0.0, 0x1p-24, -0x1p-24}) {
        r.input.insert(r.input.end(), {a, b, d});
        r.expected.push_back(d == 0 ? 1.0 : d > 0 ? up : 1.0);
    }
    r.input.insert(r.input.end(), {-0x1p-24, 0.0, 0.0});
    r.expected.push_back(-0.0);
    return r;
}

template <class T> void check_ties(const TieRow& r) {
    const DataType t = data_type_of<T>();
    const uint32_t n = uint32_t(r.input.size());
    Geometry g;
    g.in = {1, 1, n};
    g.out = {1, 1, n / 3};
    g.Strides = {3};
    g.WindowSize = {3};
    g.StartPadding = g.EndPadding = {0};
    g.Dilations = {1};
    for (const uint32_t include : {0u, 1u}) {
        g.IncludePadding = include;
        const Operator o = make_op(Op::Forward, t, g, {}, {});
        const Buffers in = op_buffers<T>(o, [&](size_t i) { return value_of<T>(i < n ? r.input[i] : 0.0); });
        check_op(o, in);
        const Buffers fast = evaluate_with(o, in, true, 1);
        const auto counts = reference::fast::average_pooling_fast_counts();
        CHECK(counts.exact > 0);
        if constexpr (std::is_same_v<T, float>) CHECK(counts.plain > 0);
        const T* y = reinterpret_cast<const T*>(fast.bytes[1].data());
        for (size_t j = 0; j < r.expected.size(); ++j) {
            INFO("window " << j << ": " << r.input[3 * j] << " + " << r.input[3 * j + 1] << " + "
                           << r.input[3 * j + 2]);
            CHECK(same_bits(y[j], value_of<T>(r.expected[j])));
        }
    }
}

// The grad of the same windows with Strides 1 and IncludePadding: dX[x] is the sum over the three
// windows holding x of dY / 3, and the windows over a triple's last element hold the triple
// (the other dY are zero), so the ties reappear in dX.
template <class T> void check_grad_ties(const TieRow& r) {
    const DataType t = data_type_of<T>();
    std::vector<double> dy;
    for (size_t j = 0; j < r.expected.size(); ++j) {
        dy.insert(dy.end(), r.input.begin() + long(3 * j), r.input.begin() + long(3 * j + 3));
        dy.insert(dy.end(), {0.0, 0.0});
    }
    const uint32_t m = uint32_t(dy.size());
    Geometry g;
    g.in = {1, 1, m + 2};
    g.out = {1, 1, m};
    g.Strides = {1};
    g.WindowSize = {3};
    g.StartPadding = g.EndPadding = {0};
    g.Dilations = {1};
    g.IncludePadding = 1;
    const Operator o = make_op(Op::Grad, t, g, {}, {});
    const Buffers in = op_buffers<T>(o, [&](size_t i) { return value_of<T>(i < m ? dy[i] : 0.0); });
    check_op(o, in);
    const Buffers fast = evaluate_with(o, in, true, 1);
    CHECK(reference::fast::average_pooling_fast_counts().exact > 0);
    const T* dx = reinterpret_cast<const T*>(fast.bytes[1].data());
    for (size_t j = 0; j < r.expected.size(); ++j) {
        INFO("triple " << j);
        // Window o covers dX o .. o + 2; dX 5 j + 2 is held by windows 5 j, 5 j + 1, 5 j + 2: the triple.
        CHECK(same_bits(dx[5 * j + 2], value_of<T>(r.expected[j])));
    }
}

}  // namespace

TEST_CASE("Average pooling fast path: ties and near ties of FLOAT32, by hand") {
    check_ties<float>(float32_ties());
    check_grad_ties<float>(float32_ties());
}

TEST_CASE("Average pooling fast path: ties of FLOAT16, by hand") {
    check_ties<dmlref::half>(float16_ties());
    check_grad_ties<dmlref::half>(float16_ties());
}

// A NaN or an infinity in a window leaves its element to the plain loop.
TEST_CASE("Average pooling fast path: non-finite windows take the plain element") {
    Geometry g;
    g.in = {1, 1, 6};
    g.out = {1, 1, 2};
    g.Strides = g.WindowSize = {3};
    g.StartPadding = g.EndPadding = {0};
    g.Dilations = {1};
    const Operator o = make_op(Op::Forward, DataType::FLOAT32, g, {}, {});
    const std::vector<double> v = {
        1.0, std::numeric_limits<double>::infinity(), 2.0, std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0};
    const Buffers in = op_buffers<float>(o, [&](size_t i) { return float(i < 6 ? v[i] : 0.0); });
    check_op(o, in);
    const Buffers fast = evaluate_with(o, in, true, 1);
    CHECK(reference::fast::average_pooling_fast_counts().plain == 2);
    const float* y = reinterpret_cast<const float*>(fast.bytes[1].data());
    CHECK(same_bits(y[0], std::numeric_limits<float>::infinity()));
    CHECK(same_bits(y[1], canonical_nan<float>()));
}

}  // namespace dmlref_test_fast_average_pooling
