// GEMM's fast path (reference/fast/gemm_f64.cpp) against the plain loop, bit for bit: random
// shapes (K from 1 to 300), both transposes, Alpha, Beta and C (broadcast too), 3-D and 4-D
// batches (broadcast too), FLOAT32 and FLOAT16, a fused activation; adversarial data (cancellation
// down to one small term, ties halfway between two floats, zero results, overflow) whose elements
// the bound cannot decide, counted to show the exact path really runs; NaN and infinite inputs
// (the plain loop for the whole call); one thread against three; every float64 kernel the CPU has;
// calls in turn of growing and shrinking shapes, which reuse the float64 scratch kept across calls.
// The expected values are the plain loop's (reference/gemm.cpp), itself tested against exact
// rationals in test_gemm.cpp.
#include "f64_product_check.hpp"
#include "fast_check.hpp"
#include "support.hpp"

#include "dmlref/descs/gemm.hpp"

#include "../reference/fast/gemm_f64.hpp"

#include <cmath>
#include <limits>
#include <random>

// One namespace per file: the test binary is a unity build (test/meson.build).
namespace dmlref_test_fast_gemm {

using namespace dmlref;
using namespace dmlref::test;

namespace {

using GEMM = DML_GEMM_OPERATOR_DESC;

struct Shape {
    uint32_t batch = 0;  // 0: 2-D; else 3-D [batch, M, N] (4-D [1, batch, M, N] when batch4)
    bool batch4 = false, ta = false, tb = false, c = false;
    bool a_broadcast = false, c_broadcast = false;
    bool out_padded = false;  // OutputTensor's rows 3 elements apart more than packed
    uint32_t M = 1, N = 1, K = 1;
    float alpha = 1, beta = 0;
};

std::vector<uint32_t> dims(const Shape& s, uint32_t r, uint32_t c) {
    if (s.batch == 0) return {r, c};
    if (s.batch4) return {1, s.batch, r, c};
    return {s.batch, r, c};
}

// Strides repeating one matrix over the batch (the batch dimensions' strides 0).
std::vector<uint32_t> batch_broadcast(const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> st(sizes.size(), 0);
    st[sizes.size() - 1] = 1;
    st[sizes.size() - 2] = sizes.back();
    return st;
}

Operator make(const Shape& s, DataType t) {
    GEMM d;
    const auto a = s.ta ? dims(s, s.K, s.M) : dims(s, s.M, s.K);
    d.ATensor = desc(t, a, s.a_broadcast && s.batch ? batch_broadcast(a) : std::vector<uint32_t>{});
    d.BTensor = desc(t, s.tb ? dims(s, s.N, s.K) : dims(s, s.K, s.N));
    const auto out = dims(s, s.M, s.N);
    if (s.c) {
        std::vector<uint32_t> cs;
        if (s.c_broadcast) {  // one row of C for every row (stride 0 along M)
            cs.assign(out.size(), 0);
            uint32_t step = 1;
            for (size_t i = out.size(); i-- > 0;) {
                cs[i] = i + 2 == out.size() ? 0 : step;
                step *= out[i];
            }
        }
        d.CTensor = desc(t, out, cs);
    }
    d.OutputTensor = desc(t, out);
    if (s.out_padded) {
        std::vector<uint32_t> os(out.size());
        uint32_t step = 1;
        for (size_t i = out.size(); i-- > 0;) {
            os[i] = step;
            step *= out[i] + (i + 1 == out.size() ? 3 : 0);
        }
        d.OutputTensor = desc(t, out, os);
    }
    d.TransA = s.ta;
    d.TransB = s.tb;
    d.Alpha = s.alpha;
    d.Beta = s.beta;
    return {GEMM::kType, d};
}

// The buffers of op's inputs filled by value(rng) (in the tensor's type), the output by 0x5a.
template <class T, class V> Buffers buffers(const Operator& op, std::mt19937_64& rng, V&& value) {
    const GEMM& d = get<GEMM>(op.Desc);
    Buffers b;
    auto input = [&](const char* name, const TensorDesc& t) {
        std::vector<T> v(buffer_size(t) / sizeof(T));
        for (T& x : v) x = value_of<T>(value(rng));
        std::vector<std::byte> bytes(buffer_size(t));
        std::memcpy(bytes.data(), static_cast<const void*>(v.data()), bytes.size());
        b.names.push_back(name);
        b.bytes.push_back(std::move(bytes));
    };
    input("ATensor", d.ATensor);
    input("BTensor", d.BTensor);
    if (d.CTensor) input("CTensor", *d.CTensor);
    b.names.push_back("OutputTensor");
    b.bytes.emplace_back(buffer_size(d.OutputTensor), std::byte{0x5a});
    return b;
}

// The fast path (one thread and three, each kernel; and each of `threads`) against the plain
// loop (f64_product_check.hpp); the fast path's counts of its one-thread run on the best kernel.
reference::fast::GemmFastCounts check(const Operator& op, const Buffers& in, std::initializer_list<int> threads = {}) {
    return check_product_path(op, in, reference::fast::gemm_fast_counts, threads);
}

double uniform(std::mt19937_64& rng) { return std::uniform_real_distribution<double>(-1, 1)(rng); }

Shape random_shape(std::mt19937_64& rng, uint32_t max_k) {
    Shape s;
    s.M = 1 + uint32_t(rng() % 24);
    s.N = 1 + uint32_t(rng() % 24);
    s.K = 1 + uint32_t(rng() % max_k);
    s.ta = rng() % 2;
    s.tb = rng() % 2;
    s.batch = rng() % 3 == 0 ? 1 + uint32_t(rng() % 3) : 0;
    s.batch4 = rng() % 2;
    s.a_broadcast = rng() % 3 == 0;
    s.c = rng() % 2;
    s.c_broadcast = s.c && rng() % 3 == 0;
    s.out_padded = rng() % 4 == 0;
    const float alphas[] = {1, -1, 0.5f, 0x1.555556p-2f, -3.75e-3f};
    s.alpha = alphas[rng() % std::size(alphas)];
    const float betas[] = {0, 1, -0.5f, 0x1.99999ap-4f};
    s.beta = betas[rng() % std::size(betas)];
    return s;
}

}  // namespace

TEST_CASE("GEMM fast path = plain loop on random shapes, transposes, Alpha, Beta, C and batches") {
    std::mt19937_64 rng(20261127);
    uint64_t decided = 0, exact = 0;
    for (int i = 0; i < 40; ++i) {
        const Shape s = random_shape(rng, 300);
        const DataType t = i % 4 == 3 ? DataType::FLOAT16 : DataType::FLOAT32;
        INFO("case " << i << ": M " << s.M << " N " << s.N << " K " << s.K << " batch " << s.batch << " TransA " << s.ta
                     << " TransB " << s.tb << " C " << s.c << " Alpha " << s.alpha << " Beta " << s.beta);
        const Operator op = make(s, t);
        const auto counts = t == DataType::FLOAT16 ? check(op, buffers<half>(op, rng, uniform))
                                                   : check(op, buffers<float>(op, rng, uniform));
        decided += counts.decided;
        exact += counts.compensated + counts.exact;
    }
    // Random data: nearly every element decided by the bound (zeros aside: Alpha 0).
    CHECK(decided > 5 * exact);
}

TEST_CASE("GEMM fast path = plain loop on shapes cut into tiles, 1 to 16 threads") {
    // Sides up to 300: on several threads the output is cut into tiles of 64 and more (two per
    // thread), each its own product and decisions; the bits must not depend on the cut.
    std::mt19937_64 rng(99);
    for (int i = 0; i < 6; ++i) {
        Shape s = random_shape(rng, 96);
        s.M = 60 + uint32_t(rng() % 240);
        s.N = 60 + uint32_t(rng() % 240);
        if (i < 2) s.batch = 0;
        INFO("case " << i << ": M " << s.M << " N " << s.N << " K " << s.K << " batch " << s.batch << " TransA " << s.ta
                     << " TransB " << s.tb);
        const Operator op = make(s, i == 5 ? DataType::FLOAT16 : DataType::FLOAT32);
        if (i == 5) check(op, buffers<half>(op, rng, uniform), {2, 7, 16});
        else check(op, buffers<float>(op, rng, uniform), {2, 7, 16});
    }
}

TEST_CASE("GEMM fast path = plain loop on calls that reuse the scratch, growing and shrinking") {
    // The float64 copies of A, B and C and the tiles live in storage kept across calls
    // (f64::scratch): calls of other shapes in turn, larger and smaller than the one before, with
    // and without C (a C of the last call must not stand in), 1 to 16 threads (each thread its
    // own tiles' storage), must each give the plain loop's bits.
    std::mt19937_64 rng(2026);
    const uint32_t sides[][3] = {{70, 90, 200}, {5, 7, 3},    {130, 40, 260}, {1, 1, 1},
                                 {40, 130, 90}, {96, 96, 64}, {9, 300, 17},   {200, 150, 120}};
    for (int i = 0; i < int(std::size(sides)); ++i) {
        Shape s = random_shape(rng, 8);
        s.M = sides[i][0];
        s.N = sides[i][1];
        s.K = sides[i][2];
        s.c = i % 2 == 0;
        s.beta = s.c ? -0.5f : 0.f;
        INFO("call " << i << ": M " << s.M << " N " << s.N << " K " << s.K << " batch " << s.batch << " TransA " << s.ta
                     << " TransB " << s.tb << " C " << s.c);
        const Operator op = make(s, i == 3 ? DataType::FLOAT16 : DataType::FLOAT32);
        if (i == 3) check(op, buffers<half>(op, rng, uniform), {2, 16});
        else check(op, buffers<float>(op, rng, uniform), {2, 16});
    }
}

TEST_CASE("GEMM fast path: the scratch storage is kept and reused, per slot and thread") {
    using namespace reference::fast::f64;
    Doubles a = scratch(kScratchA, 1000);
    const double* first = a.data();
    a.data()[999] = 1;                              // writable to its end
    CHECK(scratch(kScratchA, 10).data() == first);  // smaller: the same storage
    CHECK(scratch(kScratchA, 1000).data() == first);
    CHECK(scratch(kScratchB, 1000).data() != first);  // another slot: other storage
    Doubles grown = scratch(kScratchA, 5000);         // larger: grown, then kept
    grown.data()[4999] = 2;
    CHECK(grown.size == 5000);
    CHECK(scratch(kScratchA, 3000).data() == grown.data());
    // Over kScratchKeep: an array of the call's own, the kept one untouched.
    const Doubles big = scratch(kScratchA, kScratchKeep + 1);
    CHECK(big.data() != grown.data());
    CHECK(scratch(kScratchA, 10).data() == grown.data());
}

TEST_CASE("GEMM fast path = plain loop with values across binades, K up to 300, a fused activation") {
    std::mt19937_64 rng(7);
    auto wide = [](std::mt19937_64& r) {
        return std::ldexp(std::uniform_real_distribution<double>(-1, 1)(r), int(r() % 40) - 20);
    };
    for (int i = 0; i < 12; ++i) {
        Shape s = random_shape(rng, 300);
        Operator op = make(s, DataType::FLOAT32);
        if (i % 3 == 0) get<GEMM>(op.Desc).FusedActivation = DML_FUSED_ACTIVATION{5, {0, 0}};  // ACTIVATION_RELU
        if (i % 3 == 1) get<GEMM>(op.Desc).FusedActivation = DML_FUSED_ACTIVATION{0, {0.5f, -0.25f}};  // LINEAR
        INFO("case " << i << ": M " << s.M << " N " << s.N << " K " << s.K);
        check(op, buffers<float>(op, rng, wide));
    }
}

TEST_CASE("GEMM fast path: adversarial elements take the exact path and give the plain loop's bits") {
    std::mt19937_64 rng(3);
    // Cancellation: each row of A is a small term t, then x, then -x, then 1; B is all ones. The
    // exact value is 1 + t, a float32 (t is a multiple of 2^-22 below 2^-18); a float64 sum in
    // order loses t ((t + x) - x = 0 for x >= 2^37), and gives 1. The product's bound, from the
    // rows' norms, is far wider than t; the compensated sum keeps t and decides every element
    // (x up to 2^41); with x up to 2^71 its own bound is too wide, and the exact path runs.
    for (const int big : {30, 60}) {
        const uint32_t M = 6, N = 5, half_k = 40, K = 2 * half_k + 2;
        const Operator op = make({.M = M, .N = N, .K = K}, DataType::FLOAT32);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 1.0; });
        std::vector<float> a(M * K);
        for (uint32_t m = 0; m < M; ++m) {
            a[m * K] = std::ldexp(float(1 + rng() % 15), -22) * (m % 2 ? -1.f : 1.f);
            for (uint32_t k = 1; k <= half_k; ++k) {
                const float x = std::ldexp(float(128 + rng() % 128), big + int(rng() % 5));
                a[m * K + k] = x;
                a[m * K + half_k + k] = -x;
            }
            a[m * K + K - 1] = 1;
        }
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(a.data()), a.size() * sizeof(float));
        const auto counts = check(op, in);
        INFO("x from 2^" << big);
        CHECK(counts.decided == 0);
        CHECK(counts.compensated == (big == 30 ? M * N : 0));
        CHECK(counts.exact == (big == 30 ? 0 : M * N));
    }
    // Near a tie, far below the float64 sums: 2^-24 +- 2^-40, x, -x, 1 with x of 24 random bits
    // between 2^23 and 2^73: the exact value 1 + 2^-24 +- 2^-40 rounds to 1 + 2^-23 or 1, but the
    // product and the compensated sum (whose partial sums span more than 53 bits, so that it loses
    // the 2^-40) both land within their bounds of the tie: the exact path decides every element.
    {
        const uint32_t M = 12, N = 2, half_k = 40, K = 2 * half_k + 3;
        const Operator op = make({.M = M, .N = N, .K = K}, DataType::FLOAT32);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 1.0; });
        std::vector<float> a(M * K);
        for (uint32_t m = 0; m < M; ++m) {
            a[m * K] = 0x1p-24f;
            a[m * K + 1] = m % 2 ? -0x1p-40f : 0x1p-40f;
            for (uint32_t k = 2; k < 2 + half_k; ++k) {
                const float x = std::ldexp(float((rng() & 0x7fffff) | 0x800000), int(rng() % 50));
                a[m * K + k] = x;
                a[m * K + half_k + k] = -x;
            }
            a[m * K + K - 1] = 1;
        }
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(a.data()), a.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.exact == M * N);
    }
    // Ties: [1, 2^-24, ...] . [1, 1, ...] is exactly 1 + 2^-24, halfway between two floats (it
    // rounds to 1); one more term of +-2^-60 moves it off the tie. Also exact zeros (a zero row:
    // the sign of a zero is the plain loop's) and overflow (2^127 * 2 + 2^127 * 2).
    {
        const uint32_t M = 8, N = 3, K = 3;
        const Operator op = make({.M = M, .N = N, .K = K}, DataType::FLOAT32);
        Buffers in = buffers<float>(op, rng, [](std::mt19937_64&) { return 1.0; });
        const std::vector<float> a = {
            1,  0x1p-24f,  0,          // the tie 1 + 2^-24 (1 + 2^-23 in column 2)
            1,  0x1p-24f,  0x1p-60f,   // just above it
            1,  0x1p-24f,  -0x1p-60f,  // just below it
            -1, -0x1p-24f, 0,          // the tie's negative
            0,  0,         0,          // an exact zero
            0,  0x1p127f,  0x1p127f,   // 2^128 and more: overflow
            0,  3,         0x1p-23f,   // decided
            0,  -0.f,      -0.f,       // -0 products: +0
        };
        REQUIRE(a.size() == M * K);
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(a.data()), a.size() * sizeof(float));
        std::vector<float> b(K * N, 1.f);
        b[1 * N + 2] = 2;  // one column where the tie becomes 1 + 2^-23 exactly
        std::memcpy(in.bytes[1].data(), static_cast<const void*>(b.data()), b.size() * sizeof(float));
        const auto counts = check(op, in);
        CHECK(counts.exact >= 4 * N);  // the ties, just off them (the compensated sum can't say), zeros, overflow
    }
    // FLOAT16: 65504, -65504 and the smallest subnormal (float64 holds this sum exactly, and the
    // bound decides it), and the tie 1 + 2^-11 (undecided).
    {
        const uint32_t M = 2, N = 2, K = 3;
        const Operator op = make({.M = M, .N = N, .K = K}, DataType::FLOAT16);
        Buffers in = buffers<half>(op, rng, [](std::mt19937_64&) { return 1.0; });
        const std::vector<half> a = {half(65504.f), from_bits<half>(1), half(-65504.f),  // exactly 2^-24
                                     half(1.f),     half(0x1p-11f),     half(0.f)};      // a tie
        std::memcpy(in.bytes[0].data(), static_cast<const void*>(a.data()), a.size() * sizeof(half));
        const auto counts = check(op, in);
        CHECK(counts.exact == N);
        CHECK(counts.decided == N);
        CHECK(counts.compensated == 0);
    }
}

TEST_CASE("GEMM fast path: NaN and infinite inputs, Alpha and Beta take the plain loop") {
    std::mt19937_64 rng(11);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    for (const float special : {inf, -inf, nan}) {
        for (int where = 0; where < 3; ++where) {
            const Operator op = make({.c = true, .M = 3, .N = 4, .K = 5, .beta = 0.5f}, DataType::FLOAT32);
            Buffers in = buffers<float>(op, rng, uniform);
            std::memcpy(in.bytes[size_t(where)].data() + 4 * (rng() % 3), &special, sizeof(float));
            check(op, in);
        }
        Operator op = make({.c = true, .M = 3, .N = 4, .K = 5, .alpha = special, .beta = 0.5f}, DataType::FLOAT32);
        check(op, buffers<float>(op, rng, uniform));
        op = make({.c = true, .M = 3, .N = 4, .K = 5, .beta = special}, DataType::FLOAT32);
        check(op, buffers<float>(op, rng, uniform));
    }
}

}  // namespace dmlref_test_fast_gemm
