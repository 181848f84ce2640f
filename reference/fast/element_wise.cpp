// The copy-speed element-wise fast paths (element_wise.hpp): the same bits as the plain loops, on
// runs of stride 1, spread over the cores by parallel_for (each element written by one thread, so
// the bits never depend on the thread count). Why each gives the plain loop's bits is said at the
// kernel; docs/golden.md ("Element-wise" and "Cast") sums it up.
//
// FLOAT16 and FLOAT32 arithmetic, FLOAT32 MAX and MIN, the 8- to 32-bit integer divisions and the
// casts use AVX2 and F16C (asked of the CPU at run time: elsewhere they return false, or FLOAT32
// MAX and MIN take the loops below, and the plain loop runs); integer ADD, SUBTRACT, MULTIPLY, MAX,
// MIN and LESS_THAN are integer operations (on the bit patterns for floats; FLOAT32 LESS_THAN one
// IEEE compare), plain loops cloned for AVX2 and the baseline, every clone giving the same bits;
// 64-bit integer divisions are the CPU's, one at a time. Where the CPU has AVX-512 (F, BW, VL, DQ),
// FLOAT16 and FLOAT32 arithmetic, FLOAT16 MAX and MIN, integer ADD, SUBTRACT, MULTIPLY, MAX and
// MIN and INT8 LESS_THAN take AVX-512 kernels instead: 64 bytes a vector, masked loads and stores
// for a run's last elements, half the instructions an element or fewer.
#include "element_wise.hpp"

#include "streamed.hpp"
#include "half_rows.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/tensor.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define DMLREF_F16C_PATHS 1
#define DMLREF_F16C __attribute__((target("avx2,f16c")))
#define DMLREF_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")))
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DMLREF_CLONES
#endif

namespace dmlref::reference::fast {

namespace {

// ---- Instruction sets ---------------------------------------------------------------------------
//
// 0: the baseline; 1: AVX2 and F16C (half_rows.hpp's have_f16c); 2: AVX-512 F, BW, VL and DQ
// besides (Skylake-SP and later, Zen 4), asked of the CPU at run time. The kernels of a level
// need it; a test may cap the level (set_element_wise_isa) to compare the kernels of each level
// with the plain loops on one machine.
[[maybe_unused]] constexpr int kBaseline = 0, kAvx2 = 1, kAvx512 = 2;  // kAvx2 unused off x86-64

int cpu_isa() {
#if defined(DMLREF_F16C_PATHS)
    static const int level = [] {
        if (!have_f16c()) return kBaseline;
        __builtin_cpu_init();
        const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
        return avx512 ? kAvx512 : kAvx2;
    }();
    return level;
#else
    return kBaseline;
#endif
}

std::atomic<int> isa_limit{kAvx512};

// The level the kernels use now.
int isa() { return std::min(cpu_isa(), isa_limit.load(std::memory_order_relaxed)); }

// ---- Runs of stride 1 ---------------------------------------------------------------------------

// Shorter runs than this leave the tensor to the plain loop (a run costs a call and a tail).
constexpr int64_t kMinRun = 32;

// The runs of a map over Y's elements along which Y and every input have stride 1 (dimensions of
// size 1 dropped, contiguous ones merged, as for_each_run merges them), each at least kMinRun
// long; false where the runs are not of stride 1 or shorter. The runs are not listed: run i's
// offsets follow from i by the outer dimensions, so that a tensor of many short runs (a broadcast
// row) costs no serial walk and no allocation before the threads start.
template <size_t K> struct UnitRuns {
    int64_t length = 0;  // every run's length
    int64_t count = 1;   // how many runs
    size_t outer = 0;    // the dimensions over the runs, outermost first: sizes and element strides
    std::array<int64_t, kMaxDimensionCount> sizes{};
    std::array<std::array<int64_t, K>, kMaxDimensionCount> strides{};
};

template <size_t K> bool unit_runs(const std::array<const TensorView*, K>& t, UnitRuns<K>& r) {
    const std::vector<uint32_t>& sizes = t[0]->sizes();
    std::array<int64_t, K> inner_stride{};
    bool any = false;  // a dimension of size > 1 seen: the inner one is r.length, inner_stride
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == 0) return false;
        if (sizes[i] == 1) continue;
        std::array<int64_t, K> s;
        for (size_t k = 0; k < K; ++k) s[k] = t[k]->strides[i];
        if (any) {
            bool contiguous = true;  // the inner dimension so far continues into this one in every tensor
            for (size_t k = 0; k < K; ++k) contiguous = contiguous && inner_stride[k] == s[k] * int64_t(sizes[i]);
            if (contiguous) {
                r.length *= int64_t(sizes[i]);
                inner_stride = s;
                continue;
            }
            r.sizes[r.outer] = r.length;
            r.strides[r.outer++] = inner_stride;
            r.count *= r.length;
        }
        r.length = int64_t(sizes[i]);
        inner_stride = s;
        any = true;
    }
    for (size_t k = 0; k < K; ++k)
        if (inner_stride[k] != 1) return false;
    return any && r.length >= kMinRun;
}

// f(offsets, count) over every element of the runs, in pieces of about `piece` elements spread
// over the cores; each element is in exactly one piece. A piece of several runs finds its first
// run's offsets by division, then steps through the outer dimensions.
template <size_t K, class F> void over_runs(const UnitRuns<K>& r, size_t piece, F&& f) {
    const size_t length = size_t(r.length);
    if (r.count == 1) {
        in_runs(
            length,
            [&](size_t begin, size_t end) {
            std::array<int64_t, K> o;
            o.fill(int64_t(begin));
            f(o, end - begin);
            },
            piece);
        return;
    }
    const int64_t per = int64_t(std::max<size_t>(1, piece / length));  // runs per piece
    parallel_for((r.count + per - 1) / per, [&](int64_t p) {
        const int64_t first = p * per, last = std::min(r.count, first + per);
        std::array<int64_t, kMaxDimensionCount> counter{};
        std::array<int64_t, K> o{};
        int64_t rest = first;
        for (size_t d = r.outer; d-- > 0;) {
            counter[d] = rest % r.sizes[d];
            rest /= r.sizes[d];
            for (size_t k = 0; k < K; ++k) o[k] += counter[d] * r.strides[d][k];
        }
        for (int64_t i = first; i < last; ++i) {
            f(o, length);
            for (size_t d = r.outer; d-- > 0;) {  // the next run: an odometer, innermost first
                for (size_t k = 0; k < K; ++k) o[k] += r.strides[d][k];
                if (++counter[d] < r.sizes[d]) break;
                for (size_t k = 0; k < K; ++k) o[k] -= r.strides[d][k] * r.sizes[d];
                counter[d] = 0;
            }
        }
    });
}

// Large outputs whose call does not fit the last-level cache (streamed.hpp, stream_output) are
// written around the caches: the kernel writes kStaged elements at a time into a buffer in L1,
// which non-temporal stores copy out (no read of the output's cache lines before they are
// written). The bits are the kernel's either way. Where the output's elements are aligned to
// their size, the elements before its first 64-byte boundary are written by the kernel directly,
// so that every staged block lies at the same offsets from 64-byte boundaries as its place in
// the output: the AVX-512 copy (stream_out64) then reads each of the kernel's 64-byte stores
// whole, as one load, and stores it as one aligned non-temporal line. (The AVX-512 kernels'
// 64-byte stores read back in 16-byte pieces by stream_out made FLOAT32 ADD 1.6 times slower on
// a Zen 5, slower than the AVX2 kernel.)
constexpr size_t kStaged = 1024;

#if defined(DMLREF_F16C_PATHS)
DMLREF_AVX512 void stream_out64(std::byte* y, const std::byte* staged, size_t bytes) {
    const size_t head = std::min(bytes, size_t((64 - reinterpret_cast<uintptr_t>(y) % 64) % 64));
    std::memcpy(y, staged, head);
    size_t k = head;
    for (; k + 64 <= bytes; k += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(y + k), _mm512_loadu_si512(staged + k));
    std::memcpy(y + k, staged + k, bytes - k);
}
#endif

#if defined(__SSE2__)
void stream_out(std::byte* y, const std::byte* staged, size_t bytes) {
    const size_t head = std::min(bytes, size_t((16 - reinterpret_cast<uintptr_t>(y) % 16) % 16));
    std::memcpy(y, staged, head);
    size_t k = head;
    for (; k + 16 <= bytes; k += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(y + k),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(staged + k)));
    std::memcpy(y + k, staged + k, bytes - k);
}
inline bool streamed(const TensorView& Y, size_t bytes_per_element) {
    const size_t n = size_t(element_count(Y.desc));
    return stream_output(n, n * bytes_per_element);
}
inline void fence() { _mm_sfence(); }
#else
void stream_out(std::byte* y, const std::byte* staged, size_t bytes) { std::memcpy(y, staged, bytes); }
inline bool streamed(const TensorView&, size_t) { return false; }
inline void fence() {}
#endif

// The copy for streamed outputs: 64-byte non-temporal stores where the kernels are AVX-512's.
using StreamOut = void (*)(std::byte* y, const std::byte* staged, size_t bytes);
inline StreamOut stream_copy() {
#if defined(DMLREF_F16C_PATHS)
    if (isa() >= kAvx512) return stream_out64;
#endif
    return stream_out;
}

// A unary or binary map whose kernel is run(y, a, [b,] count) on the runs' first elements, the
// element sizes given (one driver for every kernel: no instantiation per kernel).
using UnaryRun = void (*)(void* y, const void* a, size_t n);
using BinaryRun = void (*)(void* y, const void* a, const void* b, size_t n);

// An AVX-512 binary kernel's walk over a broadcast input (repeat_map below): y[i] = op(f[i], q[i])
// for i < n (op(q[i], f[i]) where q_first), y, f and the result all of Size bytes, where q[i] is
// p[(j + i) mod period] and p holds period + 64 bytes' elements, p[k] = p[k mod period] (or
// only n where period = n and j = 0). Y's
// whole vectors are stored aligned to 64 bytes (non-temporal where stream), its first and last
// elements masked. y is aligned to Size.
using RepeatRun = void (*)(void* y, const void* f, const void* p, size_t n, size_t j, size_t period, bool q_first,
                           bool stream);

// A binary operator's kernels: `run` on runs of stride 1, and, where an AVX-512 kernel has it, its
// walk over a broadcast input.
struct Kernel {
    constexpr Kernel(BinaryRun r = nullptr, RepeatRun w = nullptr) : run(r), repeat(w) {}
    BinaryRun run;
    RepeatRun repeat;
};

// Where a run of n elements of `size` bytes written from y is long, the elements before y's first
// 64-byte boundary (a cache line's), which the kernel is called for apart, so that its vector
// stores do not straddle cache lines (a large buffer from malloc starts 16 bytes past one, and then
// every other 32-byte store, and every 64-byte one, would be split over two lines, which costs
// Intel cores store throughput). 0 for short runs and elements not aligned to their size. Every
// kernel maps element i to element i, so the split never changes a value.
constexpr size_t kAlignedRun = 1024;
inline size_t head_elements(const std::byte* y, size_t size, size_t n) {
    const size_t off = size_t(reinterpret_cast<uintptr_t>(y) % 64);
    if (n < kAlignedRun || off % size != 0) return 0;
    return (64 - off) % 64 / size;
}

bool unary_map(const TensorView& Y, const TensorView& A, size_t ys, size_t as, UnaryRun run) {
    UnitRuns<2> r;
    if (!unit_runs<2>({&Y, &A}, r)) return false;
    std::byte* y = Y.base;
    const std::byte* a = A.base;
    if (!streamed(Y, ys + as)) {
        over_runs<2>(r, kRunElements, [&](const std::array<int64_t, 2>& o, size_t n) {
            std::byte* yo = y + o[0] * int64_t(ys);
            const std::byte* ao = a + o[1] * int64_t(as);
            const size_t head = head_elements(yo, ys, n);
            if (head) run(yo, ao, head);
            run(yo + head * ys, ao + head * as, n - head);
        });
        return true;
    }
    const StreamOut out = stream_copy();
    over_runs<2>(r, kStreamedRun, [&](const std::array<int64_t, 2>& o, size_t n) {
        alignas(64) std::byte stage[kStaged * 8];
        std::byte* yo = y + o[0] * int64_t(ys);
        const std::byte* ao = a + o[1] * int64_t(as);
        const size_t head = head_elements(yo, ys, n);
        if (head) run(yo, ao, head);
        for (size_t j = head; j < n; j += kStaged) {
            const size_t m = std::min(kStaged, n - j);
            run(stage, ao + j * as, m);
            out(yo + j * ys, stage, m * ys);
        }
        fence();
    });
    return true;
}

// ---- One input broadcast over the other -----------------------------------------------------
//
// A backend's broadcast input (a bias row added to every row, a column, a channel's value over its
// image, a scalar) repeats: where Y and the other input are packed alike, the broadcast input's
// element for Y's element i is P[(i / block) mod period], P's own elements packed. Walked as runs
// (binary_map below), a row of P costs a call per row of Y, and a P of stride 0 along the run
// (a column, a scalar) is no run at all. Here Y's elements are walked in one stream per piece: P's
// period copied once, repeated out to period + kStaged elements (`ext`), so that any kStaged
// consecutive elements of the repetition lie consecutive in it (a row of 4096 FLOAT32 is 16 KiB,
// and stays in the L1 or L2 cache), or, for blocks of more than one element, P's elements for
// kStaged of Y's expanded into a buffer. An AVX-512 kernel's walk (RepeatRun) takes a whole piece
// of a period in one call, its vector stores aligned to Y's cache lines (and non-temporal where Y
// is streamed: no staging); the other kernels are called on stretches of up to a period and
// kStaged elements (kStaged where Y is streamed or P expanded), each but a piece's first starting
// on one of Y's 64-byte boundaries. Each element of Y is op(F's element i, P's element for i)
// either way: the kernels' bits, in any cut. The stream decision (streamed.hpp) counts P's bytes
// once: a row of 4096 is not 16M elements read.

struct Repeat {
    int64_t n = 1;       // Y's elements
    int64_t period = 1;  // P's elements
    int64_t block = 1;   // consecutive elements of Y that read one of P's
};

// Whether P, read with Y's sizes, repeats as above: its strides are 0 in every dimension of size > 1
// outside one band of neighbouring dimensions, inside which they are packed (1 in the band's
// innermost). A scalar is a period of 1.
bool repeating(const TensorView& Y, const TensorView& P, Repeat& r) {
    const std::vector<uint32_t>& sizes = Y.sizes();
    r = Repeat{};
    int band = 0;  // 0: inside P's band not yet reached (the block grows), 1: in it, 2: past it
    for (size_t d = sizes.size(); d-- > 0;) {
        if (sizes[d] == 0) return false;
        r.n *= int64_t(sizes[d]);
        if (sizes[d] == 1) continue;
        const int64_t s = P.strides[d];
        if (s == 0) {
            if (band == 0) r.block *= int64_t(sizes[d]);
            else band = 2;
            continue;
        }
        if (band == 2 || s != r.period) return false;
        band = 1;
        r.period *= int64_t(sizes[d]);
    }
    if (r.period == 1) r.block = 1;
    return true;
}

// Periods up to this many bytes are repeated into `ext`; longer rows take the runs (a call per row
// of this length costs nothing).
constexpr size_t kRepeatBytes = size_t(64) << 10;

// P's elements for Y's elements i .. i + m - 1 (blocks of more than one element), into out.
template <class T> void expand_as(std::byte* out, const std::byte* p, size_t i, size_t m, size_t block, size_t period) {
    for (size_t e = 0; e < m;) {
        const size_t at = i + e, count = std::min(m - e, block - at % block);
        T v;
        std::memcpy(&v, p + at / block % period * sizeof(T), sizeof(T));
        std::fill_n(reinterpret_cast<T*>(out) + e, count, v);
        e += count;
    }
}
void expand(std::byte* out, const std::byte* p, size_t i, size_t m, size_t block, size_t period, size_t ts) {
    switch (ts) {
        case 1: expand_as<uint8_t>(out, p, i, m, block, period); break;
        case 2: expand_as<uint16_t>(out, p, i, m, block, period); break;
        case 4: expand_as<uint32_t>(out, p, i, m, block, period); break;
        default: expand_as<uint64_t>(out, p, i, m, block, period); break;
    }
}

// The map over a broadcast input, or false (nothing written) where neither input repeats over the
// other packed as Y, where both are packed (binary_map's one run), or where a period is long.
bool repeat_map(const TensorView& Y, const TensorView& A, const TensorView& B, size_t ys, size_t ts, const Kernel& k) {
    Repeat r;
    bool p_first;  // the broadcast input is A
    if (one_contiguous_run(Y, {&A}) && repeating(Y, B, r)) p_first = false;
    else if (one_contiguous_run(Y, {&B}) && repeating(Y, A, r)) p_first = true;
    else return false;
    const size_t n = size_t(r.n), period = size_t(r.period), block = size_t(r.block);
    if (block == 1 && period == n) return false;  // both packed
    if (n < size_t(kMinRun) || reinterpret_cast<uintptr_t>(Y.base) % ys != 0) return false;
    if (block == 1 && period * ts > kRepeatBytes) return false;
    std::byte* y = Y.base;
    const std::byte* f = (p_first ? B : A).base;
    const std::byte* p = (p_first ? A : B).base;
    // What the call reads and writes: Y and F whole, P once.
    const bool stream = stream_output(n, n * (ys + ts) + period * ts);
    const RepeatRun walk = ys == ts ? k.repeat : nullptr;
    std::vector<std::byte> ext;
    if (block == 1) {
        ext.resize((period + kStaged) * ts);
        for (size_t e = 0; e < period + kStaged; e += period)
            std::memcpy(ext.data() + e * ts, p, std::min(period, period + kStaged - e) * ts);
    }
    const StreamOut out = stream_copy();
    in_runs(
        n,
        [&](size_t begin, size_t end) {
        if (block == 1 && walk) {
            walk(y + begin * ys, f + begin * ts, ext.data(), end - begin, begin % period, period, p_first, stream);
            if (stream) fence();
            return;
        }
        alignas(64) std::byte stage[kStaged * 8];     // the kernel's results, streamed out
        alignas(64) std::byte expanded[kStaged * 8];  // P's elements, blocks of more than one
        // The first call ends at Y's first 64-byte boundary; the others are whole multiples of 64
        // elements long but the last, so that each starts on one.
        const size_t head = std::min(end - begin, (64 - reinterpret_cast<uintptr_t>(y + begin * ys) % 64) % 64 / ys);
        for (size_t i = begin; i < end;) {
            size_t m = i == begin && head > 0 ? head : end - i;
            const std::byte* q;
            if (block == 1) {
                const size_t j = i % period, room = period + kStaged - j;
                if (m > room) m = room - room % 64;
                q = ext.data() + j * ts;
            } else {
                m = std::min(m, kStaged);
                expand(expanded, p, i, m, block, period, ts);
                q = expanded;
            }
            if (stream && !walk) m = std::min(m, kStaged);
            std::byte* yo = y + i * ys;
            const std::byte* fo = f + i * ts;
            if (walk) {
                walk(yo, fo, q, m, 0, m, p_first, stream);
            } else {
                std::byte* to = stream ? stage : yo;
                if (p_first) k.run(to, q, fo, m);
                else k.run(to, fo, q, m);
                if (stream) out(yo, stage, m * ys);
            }
            i += m;
        }
        if (stream) fence();
        },
        stream ? kStreamedRun : kRunElements);
    return true;
}

bool binary_map(const TensorView& Y, const TensorView& A, const TensorView& B, size_t ys, size_t ts, const Kernel& k) {
    if (repeat_map(Y, A, B, ys, ts, k)) return true;
    const BinaryRun run = k.run;
    UnitRuns<3> r;
    if (!unit_runs<3>({&Y, &A, &B}, r)) return false;
    std::byte* y = Y.base;
    const std::byte *a = A.base, *b = B.base;
    if (!streamed(Y, ys + 2 * ts)) {
        over_runs<3>(r, kRunElements, [&](const std::array<int64_t, 3>& o, size_t n) {
            std::byte* yo = y + o[0] * int64_t(ys);
            const std::byte *ao = a + o[1] * int64_t(ts), *bo = b + o[2] * int64_t(ts);
            const size_t head = head_elements(yo, ys, n);
            if (head) run(yo, ao, bo, head);
            run(yo + head * ys, ao + head * ts, bo + head * ts, n - head);
        });
        return true;
    }
    const StreamOut out = stream_copy();
    over_runs<3>(r, kStreamedRun, [&](const std::array<int64_t, 3>& o, size_t n) {
        alignas(64) std::byte stage[kStaged * 8];
        std::byte* yo = y + o[0] * int64_t(ys);
        const std::byte *ao = a + o[1] * int64_t(ts), *bo = b + o[2] * int64_t(ts);
        const size_t head = head_elements(yo, ys, n);
        if (head) run(yo, ao, bo, head);
        for (size_t j = head; j < n; j += kStaged) {
            const size_t m = std::min(kStaged, n - j);
            run(stage, ao + j * ts, bo + j * ts, m);
            out(yo + j * ys, stage, m * ys);
        }
        fence();
    });
    return true;
}

// A binary operator's kernel `run` over ATensor, BTensor and OutputTensor of one type; false where
// there is no kernel, the types differ or the runs are not of stride 1.
template <class D> bool same_type_binary(const D& d, const Bindings& bindings, const Kernel& run) {
    const DataType t = d.OutputTensor.DataType;
    if (!run.run || d.ATensor.DataType != t || d.BTensor.DataType != t) return false;
    const TensorView A(d.ATensor, bindings.at("ATensor")), B(d.BTensor, bindings.at("BTensor"));
    const TensorView Y(d.OutputTensor, bindings.at("OutputTensor"));
    const size_t size = element_size(t);
    return binary_map(Y, A, B, size, size, run);
}

// y[i] = f(a[i], b[i]) over n elements of the types given, inlined into each cloned loop below so
// that each clone vectorises it for its own target.
template <class TY, class T, class F> inline void each(void* yv, const void* av, const void* bv, size_t n, F f) {
    auto* y = static_cast<TY*>(yv);
    auto *a = static_cast<const T*>(av), *b = static_cast<const T*>(bv);
    for (size_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
}

// ---- AVX-512 vectors ----------------------------------------------------------------------------
//
// The AVX-512 kernels take 64 bytes a vector (16 FLOAT16 operands widened to 16 FLOAT32 lanes),
// two vectors an iteration, and the last elements of a run through masked loads and stores, which
// neither read nor write an element past the run (and fault on none); the lanes masked off hold
// zeros, whose results are not stored.

#if defined(DMLREF_F16C_PATHS)

// GCC 12's unmasked forms of some AVX-512 intrinsics (VCVTPH2PS, VCVTPS2PH, VSQRTPS, 32- and
// 64-bit VPMAX and VPMIN) pass an undefined merge source, which its -Wmaybe-uninitialized flags
// (GCC bug 105593, fixed in GCC 13); the zero-masking forms with every lane selected are the same
// instructions, and the kernels use those.
constexpr __mmask16 kAll16 = 0xffff;
constexpr __mmask8 kAll8 = 0xff;

// A mask of the first k lanes (k at most 64; all where k is 64).
inline uint64_t first_lanes(size_t k) { return k >= 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1; }

// The first k elements of Size bytes from p, the other lanes zero; and stored to p.
template <size_t Size> DMLREF_AVX512 inline __m512i load_first(const void* p, size_t k) {
    const uint64_t m = first_lanes(k);
    if constexpr (Size == 1) return _mm512_maskz_loadu_epi8(__mmask64(m), p);
    else if constexpr (Size == 2) return _mm512_maskz_loadu_epi16(__mmask32(m), p);
    else if constexpr (Size == 4) return _mm512_maskz_loadu_epi32(__mmask16(m), p);
    else return _mm512_maskz_loadu_epi64(__mmask8(m), p);
}
template <size_t Size> DMLREF_AVX512 inline void store_first(void* p, size_t k, __m512i v) {
    const uint64_t m = first_lanes(k);
    if constexpr (Size == 1) _mm512_mask_storeu_epi8(p, __mmask64(m), v);
    else if constexpr (Size == 2) _mm512_mask_storeu_epi16(p, __mmask32(m), v);
    else if constexpr (Size == 4) _mm512_mask_storeu_epi32(p, __mmask16(m), v);
    else _mm512_mask_storeu_epi64(p, __mmask8(m), v);
}

// y = F::op(a, b) over n elements of Size bytes in and out, 64 / Size elements a vector.
template <size_t Size, class F> DMLREF_AVX512 void vectors512(void* yv, const void* av, const void* bv, size_t n) {
    constexpr size_t L = 64 / Size;
    auto* y = static_cast<std::byte*>(yv);
    auto *a = static_cast<const std::byte*>(av), *b = static_cast<const std::byte*>(bv);
    size_t i = 0;
    for (; i + 2 * L <= n; i += 2 * L) {
        const __m512i r0 = F::op(_mm512_loadu_si512(a + i * Size), _mm512_loadu_si512(b + i * Size));
        const __m512i r1 = F::op(_mm512_loadu_si512(a + (i + L) * Size), _mm512_loadu_si512(b + (i + L) * Size));
        _mm512_storeu_si512(y + i * Size, r0);
        _mm512_storeu_si512(y + (i + L) * Size, r1);
    }
    for (; i < n; i += L) {
        const size_t k = std::min(L, n - i);
        store_first<Size>(y + i * Size, k, F::op(load_first<Size>(a + i * Size, k), load_first<Size>(b + i * Size, k)));
    }
}

// F::op(x, q), or F::op(q, x) where the broadcast operand q is the first.
template <class F, bool QFirst> DMLREF_AVX512 inline __m512i ordered(__m512i x, __m512i q) {
    if constexpr (QFirst) return F::op(q, x);
    else return F::op(x, q);
}

// A vector stored to a 64-byte boundary, non-temporal where Stream.
template <bool Stream> DMLREF_AVX512 inline void store_line(std::byte* at, __m512i v) {
    if constexpr (Stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(at), v);
    else _mm512_store_si512(at, v);
}

// The RepeatRun walk of F (repeat_map): the elements before y's first 64-byte boundary masked, then
// two vectors an iteration stored aligned (non-temporal where Stream), the last elements masked.
// The phase j steps by 64 bytes' elements modulo the period; p holds the period and 64 elements
// more, so that every vector read from p + j is whole.
template <size_t Size, class F, bool QFirst, bool Stream>
DMLREF_AVX512 void repeat512_walk(std::byte* y, const std::byte* f, const std::byte* p, size_t n, size_t j,
                                  size_t period) {
    constexpr size_t L = 64 / Size;
    const size_t step = L % period;
    size_t i = std::min(n, size_t((64 - reinterpret_cast<uintptr_t>(y) % 64) % 64) / Size);
    if (i > 0) {
        store_first<Size>(y, i, ordered<F, QFirst>(load_first<Size>(f, i), load_first<Size>(p + j * Size, i)));
        j = (j + i) % period;
    }
    for (; i + 2 * L <= n; i += 2 * L) {
        size_t j1 = j + step;
        j1 -= j1 >= period ? period : 0;
        const __m512i r0 = ordered<F, QFirst>(_mm512_loadu_si512(f + i * Size), _mm512_loadu_si512(p + j * Size));
        const __m512i r1 = ordered<F, QFirst>(_mm512_loadu_si512(f + (i + L) * Size),
                                              _mm512_loadu_si512(p + j1 * Size));
        store_line<Stream>(y + i * Size, r0);
        store_line<Stream>(y + (i + L) * Size, r1);
        j = j1 + step;
        j -= j >= period ? period : 0;
    }
    if (i + L <= n) {
        store_line<Stream>(y + i * Size,
                           ordered<F, QFirst>(_mm512_loadu_si512(f + i * Size), _mm512_loadu_si512(p + j * Size)));
        j += step;
        j -= j >= period ? period : 0;
        i += L;
    }
    if (i < n) {
        const size_t k = n - i;
        store_first<Size>(y + i * Size, k,
                          ordered<F, QFirst>(load_first<Size>(f + i * Size, k), load_first<Size>(p + j * Size, k)));
    }
}

template <size_t Size, class F>
DMLREF_AVX512 void repeat512(void* yv, const void* fv, const void* pv, size_t n, size_t j, size_t period, bool q_first,
                             bool stream) {
    auto* y = static_cast<std::byte*>(yv);
    auto *f = static_cast<const std::byte*>(fv), *p = static_cast<const std::byte*>(pv);
    if (q_first) {
        if (stream) repeat512_walk<Size, F, true, true>(y, f, p, n, j, period);
        else repeat512_walk<Size, F, true, false>(y, f, p, n, j, period);
    } else {
        if (stream) repeat512_walk<Size, F, false, true>(y, f, p, n, j, period);
        else repeat512_walk<Size, F, false, false>(y, f, p, n, j, period);
    }
}

// vectors512 and repeat512 of F.
template <size_t Size, class F> constexpr Kernel kernel512() { return {vectors512<Size, F>, repeat512<Size, F>}; }

#endif

// ---- FLOAT16 ADD, SUBTRACT, MULTIPLY, DIVIDE, SQRT (F16C) --------------------------------------
//
// The plain loop widens each FLOAT16 to float64, computes there and rounds once to FLOAT16, which is
// the correctly rounded result (reference/element_wise.cpp). Here the operands are widened to
// FLOAT32 (exact: every FLOAT16 is a FLOAT32, subnormals included), the operation is one IEEE
// FLOAT32 operation, and VCVTPS2PH rounds the FLOAT32 result once more to FLOAT16, to nearest-even
// (imm8 rounding control, not MXCSR), subnormals kept, overflow to infinity. The two roundings give
// the correctly rounded FLOAT16 result:
//   - a * b: the exact product of two 11-bit significands has at most 22 bits, and its exponent
//     lies in [2^-48, 2^32), inside FLOAT32's normal range: the FLOAT32 product is exact, so the
//     only rounding is VCVTPS2PH's.
//   - a + b, a - b, a / b, sqrt(a): a double rounding through a format of q bits is innocuous for the
//     basic operations of p-bit operands when q >= 2p + 2 (Figueroa, "When is double rounding
//     innocuous?", 1995): 24 >= 2 * 11 + 2. No FLOAT32 result is subnormal (the smallest non-zero
//     magnitudes: a sum 2^-24, a quotient 2^-24 / 65504 > 2^-40, a root 2^-12), where FLOAT32's
//     precision would fall below 24 bits; and no finite FLOAT16 operands overflow FLOAT32.
//   - Signed zeros, infinities and zero divisors are IEEE's in both formats (x / 0 the signed
//     infinity, sqrt(-0) = -0), and VCVTPS2PH keeps them.
//   - Every NaN result (a NaN operand, inf - inf, 0 * inf, 0 / 0, sqrt of a negative) is replaced by
//     FLOAT16's canonical NaN 0x7e00, as the plain loop's NaNResult/NonFiniteSum=CanonicalNaN do.
// test/test_fast_element_wise.cpp compares every FLOAT16 operand for SQRT and a dense sample of
// operand pairs for the others with the plain loop, bit for bit.

enum class ArithOp { Add, Subtract, Multiply, Divide, Sqrt };

#if defined(DMLREF_F16C_PATHS)

// Lanes whose FLOAT16 bits are a NaN become the canonical NaN 0x7e00.
DMLREF_F16C inline __m128i canonical_half_nans(__m128i h) {
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
    return _mm_blendv_epi8(h, _mm_set1_epi16(0x7e00), nan);
}

DMLREF_F16C inline __m256 load_halves(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Eight results y = F(a, b) of Size-byte elements at a time; a tail of fewer than 8 goes through the
// same vector code on padded copies (the casts' unary form: eights, below).
using EightPairs = void (*)(void* y, const void* a, const void* b);
template <size_t Size, EightPairs F> DMLREF_F16C void eight_pairs(void* yv, const void* av, const void* bv, size_t n) {
    auto* y = static_cast<unsigned char*>(yv);
    auto *a = static_cast<const unsigned char*>(av), *b = static_cast<const unsigned char*>(bv);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) F(y + i * Size, a + i * Size, b + i * Size);
    if (i < n) {
        alignas(32) unsigned char ta[8 * Size] = {}, tb[8 * Size] = {}, ty[8 * Size];
        std::memcpy(ta, a + i * Size, (n - i) * Size);
        std::memcpy(tb, b + i * Size, (n - i) * Size);
        F(ty, ta, tb);
        std::memcpy(y + i * Size, ty, (n - i) * Size);
    }
}

template <ArithOp Op> DMLREF_F16C void half_op8(void* y, const void* av, const void* bv) {
    const auto *a = static_cast<const uint16_t*>(av), *b = static_cast<const uint16_t*>(bv);
    const __m256 x = load_halves(a);
    __m256 r;
    if constexpr (Op == ArithOp::Add) r = _mm256_add_ps(x, load_halves(b));
    else if constexpr (Op == ArithOp::Subtract) r = _mm256_sub_ps(x, load_halves(b));
    else if constexpr (Op == ArithOp::Multiply) r = _mm256_mul_ps(x, load_halves(b));
    else if constexpr (Op == ArithOp::Divide) r = _mm256_div_ps(x, load_halves(b));
    else r = _mm256_sqrt_ps(x);
    _mm_storeu_si128(static_cast<__m128i*>(y),
                     canonical_half_nans(_mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
}

template <ArithOp Op> DMLREF_F16C void half_arith_run(void* y, const void* a, const void* b, size_t n) {
    eight_pairs<2, half_op8<Op>>(y, a, b, n);
}

DMLREF_F16C void half_sqrt_run(void* y, const void* x, size_t n) { half_arith_run<ArithOp::Sqrt>(y, x, x, n); }

// The same with AVX-512: VCVTPH2PS and VCVTPS2PH on 16 lanes (the same conversions, the same
// rounding control in imm8), the NaN lanes found by a compare into a mask.
template <ArithOp Op> DMLREF_AVX512 inline __m256i half_op16(__m256i a, __m256i b) {
    const __m512 x = _mm512_maskz_cvtph_ps(kAll16, a);
    __m512 r;
    if constexpr (Op == ArithOp::Add) r = _mm512_add_ps(x, _mm512_maskz_cvtph_ps(kAll16, b));
    else if constexpr (Op == ArithOp::Subtract) r = _mm512_sub_ps(x, _mm512_maskz_cvtph_ps(kAll16, b));
    else if constexpr (Op == ArithOp::Multiply) r = _mm512_mul_ps(x, _mm512_maskz_cvtph_ps(kAll16, b));
    else if constexpr (Op == ArithOp::Divide) r = _mm512_div_ps(x, _mm512_maskz_cvtph_ps(kAll16, b));
    else r = _mm512_maskz_sqrt_ps(kAll16, x);
    const __m256i h = _mm512_maskz_cvtps_ph(kAll16, r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_mask_mov_epi16(h, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), _mm256_set1_epi16(0x7e00));
}

// 32 FLOAT16 lanes of a 64-byte vector as two halves of 16 (vectors512's loop and masked tail).
template <ArithOp Op> struct HalfArith512 {
    template <int K> DMLREF_AVX512 static __m256i half(__m512i v) { return _mm512_maskz_extracti64x4_epi64(0xf, v, K); }
    DMLREF_AVX512 static __m512i op(__m512i a, __m512i b) {
        const __m512i lo = _mm512_maskz_inserti64x4(kAll8, _mm512_setzero_si512(),
                                                    half_op16<Op>(half<0>(a), half<0>(b)), 0);
        return _mm512_maskz_inserti64x4(kAll8, lo, half_op16<Op>(half<1>(a), half<1>(b)), 1);
    }
};
template <ArithOp Op> DMLREF_AVX512 void half_arith512(void* y, const void* a, const void* b, size_t n) {
    vectors512<2, HalfArith512<Op>>(y, a, b, n);
}

DMLREF_AVX512 void half_sqrt512(void* y, const void* x, size_t n) { half_arith512<ArithOp::Sqrt>(y, x, x, n); }

#endif

// ---- FLOAT32 ADD, SUBTRACT, MULTIPLY, DIVIDE, SQRT (AVX2) ---------------------------------------
//
// The plain loop (reference/element_wise.cpp; element_wise_unary.cpp for SQRT) widens the FLOAT32
// operands to float64, computes there and rounds once to FLOAT32 (round_to_float: the SSE2
// conversion, nearest-even, subnormals kept, overflow to infinity), which is the correctly rounded
// FLOAT32 result: a product is exact in float64, and a sum, difference, quotient or root rounded
// to float64 first is rounded innocuously (53 >= 2 * 24 + 2; docs/golden.md, "Element-wise").
// IEEE 754's FLOAT32 +, -, *, / and square root are correctly rounded too, under MXCSR's default
// (nearest-even, neither flush-to-zero nor denormals-are-zero: dmlref never changes it, and the plain
// loop's float64 arithmetic and conversion read the same MXCSR), so the one vector operation
// gives the same value, subnormal results and operands included. Signed zeros are IEEE's in both
// formats (x - x = +0, -0 + -0 = -0, sqrt(-0) = -0, 1 / -0 = -inf), and a result beyond FLOAT32's
// range is the infinity of its sign in both. Every NaN result (a NaN operand with any payload and
// sign, inf - inf, 0 * inf, 0 / 0, inf / inf, the root of a negative) becomes FLOAT32's canonical
// NaN 0x7fc00000, as the plain loop's NonFiniteSum/NaNResult=CanonicalNaN give. The descs with a
// ScaleBias (SQRT) take this path only without one; ADD1 only without a FusedActivation.

#if defined(DMLREF_F16C_PATHS)

template <ArithOp Op> DMLREF_F16C void float_op8(void* y, const void* av, const void* bv) {
    const auto *a = static_cast<const float*>(av), *b = static_cast<const float*>(bv);
    const __m256 x = _mm256_loadu_ps(a);
    __m256 r;
    if constexpr (Op == ArithOp::Add) r = _mm256_add_ps(x, _mm256_loadu_ps(b));
    else if constexpr (Op == ArithOp::Subtract) r = _mm256_sub_ps(x, _mm256_loadu_ps(b));
    else if constexpr (Op == ArithOp::Multiply) r = _mm256_mul_ps(x, _mm256_loadu_ps(b));
    else if constexpr (Op == ArithOp::Divide) r = _mm256_div_ps(x, _mm256_loadu_ps(b));
    else r = _mm256_sqrt_ps(x);
    const __m256 canonical = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    _mm256_storeu_ps(static_cast<float*>(y), _mm256_blendv_ps(r, canonical, _mm256_cmp_ps(r, r, _CMP_UNORD_Q)));
}

template <ArithOp Op> DMLREF_F16C void float_arith_run(void* y, const void* a, const void* b, size_t n) {
    eight_pairs<4, float_op8<Op>>(y, a, b, n);
}

DMLREF_F16C void float_sqrt_run(void* y, const void* x, size_t n) { float_arith_run<ArithOp::Sqrt>(y, x, x, n); }

// The same with AVX-512, 16 lanes a vector, the NaN lanes found by a compare into a mask.
template <ArithOp Op> struct FloatOp512 {
    DMLREF_AVX512 static __m512i op(__m512i av, __m512i bv) {
        const __m512 x = _mm512_castsi512_ps(av), z = _mm512_castsi512_ps(bv);
        __m512 r;
        if constexpr (Op == ArithOp::Add) r = _mm512_add_ps(x, z);
        else if constexpr (Op == ArithOp::Subtract) r = _mm512_sub_ps(x, z);
        else if constexpr (Op == ArithOp::Multiply) r = _mm512_mul_ps(x, z);
        else if constexpr (Op == ArithOp::Divide) r = _mm512_div_ps(x, z);
        else r = _mm512_maskz_sqrt_ps(kAll16, x);
        const __m512i canonical = _mm512_set1_epi32(0x7fc00000);
        return _mm512_mask_mov_epi32(_mm512_castps_si512(r), _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), canonical);
    }
};
template <ArithOp Op> DMLREF_AVX512 void float_arith512(void* y, const void* a, const void* b, size_t n) {
    vectors512<4, FloatOp512<Op>>(y, a, b, n);
}
DMLREF_AVX512 void float_sqrt512(void* y, const void* x, size_t n) { float_arith512<ArithOp::Sqrt>(y, x, x, n); }

// FLOAT16 and FLOAT32 arithmetic of the desc; false (nothing written) for other types, a ScaleBias,
// runs not of stride 1, or a CPU without AVX2 and F16C.
template <ArithOp Op, class D> bool float_arith(const D& d, const Bindings& bindings) {
    const DataType t = d.OutputTensor.DataType;
    if (isa() < kAvx2 || (t != DataType::FLOAT16 && t != DataType::FLOAT32)) return false;
    const bool h = t == DataType::FLOAT16, wide = isa() >= kAvx512;
    if constexpr (Op == ArithOp::Sqrt) {
        if (d.ScaleBias || d.InputTensor.DataType != t) return false;
        const TensorView Y(d.OutputTensor, bindings.at("OutputTensor")), X(d.InputTensor, bindings.at("InputTensor"));
        const size_t size = h ? 2 : 4;
        const UnaryRun run = h ? (wide ? half_sqrt512 : half_sqrt_run) : (wide ? float_sqrt512 : float_sqrt_run);
        return unary_map(Y, X, size, size, run);
    } else {
        const Kernel run = wide ? (h ? kernel512<2, HalfArith512<Op>>() : kernel512<4, FloatOp512<Op>>())
                                : Kernel(h ? half_arith_run<Op> : float_arith_run<Op>);
        return same_type_binary(d, bindings, run);
    }
}

#else

template <ArithOp, class D> bool float_arith(const D&, const Bindings&) { return false; }

#endif

// ---- Integer ADD, SUBTRACT, MULTIPLY, MAX, MIN ----------------------------------------------------
//
// The plain loop (reference/element_wise.cpp) wraps ADD, SUBTRACT and MULTIPLY to the width
// (IntegerOverflow=WrapToWidth: the result modulo 2^N, two's complement), which is the same N bits
// for signed and unsigned operands of N bits: one kernel per element size, on unsigned integers
// (no signed overflow in C++; 8- and 16-bit products in 32 bits, unsigned, before the truncation).
// MAX and MIN pick the larger (smaller) operand, so they depend on the sign: one kernel per type.
// IntegerOverflow=Saturate is an alternative reading (saturated_binary), and while any reading is in
// force the fast paths are off (switch.hpp): the kernels here are the default's alone. Plain loops
// cloned for AVX2 and the baseline, every clone giving the same bits.

enum class IntOp { Add, Subtract, Multiply, Max, Min };

template <IntOp Op, class T> inline T int_op(T a, T b) {
    if constexpr (Op == IntOp::Add) return T(a + b);
    else if constexpr (Op == IntOp::Subtract) return T(a - b);
    else if constexpr (Op == IntOp::Multiply) {
        if constexpr (sizeof(T) < 4) return T(uint32_t(a) * uint32_t(b));
        else return T(a * b);
    } else if constexpr (Op == IntOp::Max) return a > b ? a : b;
    else return a < b ? a : b;
}

#define DMLREF_INT_RUN(name, op, T)                                                  \
    DMLREF_CLONES void name(void* y, const void* a, const void* b, size_t n) {       \
        each<T, T>(y, a, b, n, [](T x, T z) { return int_op<IntOp::op, T>(x, z); }); \
    }
DMLREF_INT_RUN(add_u8_run, Add, uint8_t)
DMLREF_INT_RUN(add_u16_run, Add, uint16_t)
DMLREF_INT_RUN(add_u32_run, Add, uint32_t)
DMLREF_INT_RUN(add_u64_run, Add, uint64_t)
DMLREF_INT_RUN(subtract_u8_run, Subtract, uint8_t)
DMLREF_INT_RUN(subtract_u16_run, Subtract, uint16_t)
DMLREF_INT_RUN(subtract_u32_run, Subtract, uint32_t)
DMLREF_INT_RUN(subtract_u64_run, Subtract, uint64_t)
DMLREF_INT_RUN(multiply_u8_run, Multiply, uint8_t)
DMLREF_INT_RUN(multiply_u16_run, Multiply, uint16_t)
DMLREF_INT_RUN(multiply_u32_run, Multiply, uint32_t)
DMLREF_INT_RUN(multiply_u64_run, Multiply, uint64_t)
DMLREF_INT_RUN(max_i8_run, Max, int8_t)
DMLREF_INT_RUN(max_i16_run, Max, int16_t)
DMLREF_INT_RUN(max_i32_run, Max, int32_t)
DMLREF_INT_RUN(max_i64_run, Max, int64_t)
DMLREF_INT_RUN(max_u8_run, Max, uint8_t)
DMLREF_INT_RUN(max_u16_run, Max, uint16_t)
DMLREF_INT_RUN(max_u32_run, Max, uint32_t)
DMLREF_INT_RUN(max_u64_run, Max, uint64_t)
DMLREF_INT_RUN(min_i8_run, Min, int8_t)
DMLREF_INT_RUN(min_i16_run, Min, int16_t)
DMLREF_INT_RUN(min_i32_run, Min, int32_t)
DMLREF_INT_RUN(min_i64_run, Min, int64_t)
DMLREF_INT_RUN(min_u8_run, Min, uint8_t)
DMLREF_INT_RUN(min_u16_run, Min, uint16_t)
DMLREF_INT_RUN(min_u32_run, Min, uint32_t)
DMLREF_INT_RUN(min_u64_run, Min, uint64_t)
#undef DMLREF_INT_RUN

#if defined(DMLREF_F16C_PATHS)
// The same with AVX-512, 64 bytes a vector: the wrapping operations are the instructions' (VPADD,
// VPSUB, VPMULL: the low N bits of the sum, difference or product, which depend not on the
// signs), 8-bit products the low bytes of 16-bit products (the even bytes from the words as they
// are, the odd ones from the odd bytes shifted down times the odd bytes kept in place: the product
// times 2^8, its low byte in the word's high byte), MAX and MIN the signed or unsigned VPMAX and
// VPMIN of the width.
template <IntOp Op, size_t Size, bool Signed> struct IntOp512 {
    DMLREF_AVX512 static __m512i op(__m512i a, __m512i b) {
        if constexpr (Op == IntOp::Add) {
            if constexpr (Size == 1) return _mm512_add_epi8(a, b);
            else if constexpr (Size == 2) return _mm512_add_epi16(a, b);
            else if constexpr (Size == 4) return _mm512_add_epi32(a, b);
            else return _mm512_add_epi64(a, b);
        } else if constexpr (Op == IntOp::Subtract) {
            if constexpr (Size == 1) return _mm512_sub_epi8(a, b);
            else if constexpr (Size == 2) return _mm512_sub_epi16(a, b);
            else if constexpr (Size == 4) return _mm512_sub_epi32(a, b);
            else return _mm512_sub_epi64(a, b);
        } else if constexpr (Op == IntOp::Multiply) {
            if constexpr (Size == 1) {
                const __m512i even = _mm512_mullo_epi16(a, b);
                const __m512i odd = _mm512_mullo_epi16(_mm512_srli_epi16(a, 8),
                                                       _mm512_and_si512(b, _mm512_set1_epi16(int16_t(0xff00))));
                return _mm512_mask_blend_epi8(__mmask64(0xaaaaaaaaaaaaaaaaull), even, odd);
            } else if constexpr (Size == 2) return _mm512_mullo_epi16(a, b);
            else if constexpr (Size == 4) return _mm512_mullo_epi32(a, b);
            else return _mm512_mullo_epi64(a, b);
        } else if constexpr (Op == IntOp::Max) {
            if constexpr (Size == 1) return Signed ? _mm512_max_epi8(a, b) : _mm512_max_epu8(a, b);
            else if constexpr (Size == 2) return Signed ? _mm512_max_epi16(a, b) : _mm512_max_epu16(a, b);
            else if constexpr (Size == 4)
                return Signed ? _mm512_maskz_max_epi32(kAll16, a, b) : _mm512_maskz_max_epu32(kAll16, a, b);
            else return Signed ? _mm512_maskz_max_epi64(kAll8, a, b) : _mm512_maskz_max_epu64(kAll8, a, b);
        } else {
            if constexpr (Size == 1) return Signed ? _mm512_min_epi8(a, b) : _mm512_min_epu8(a, b);
            else if constexpr (Size == 2) return Signed ? _mm512_min_epi16(a, b) : _mm512_min_epu16(a, b);
            else if constexpr (Size == 4)
                return Signed ? _mm512_maskz_min_epi32(kAll16, a, b) : _mm512_maskz_min_epu32(kAll16, a, b);
            else return Signed ? _mm512_maskz_min_epi64(kAll8, a, b) : _mm512_maskz_min_epu64(kAll8, a, b);
        }
    }
};
// The AVX-512 kernels of Op for integer type t.
Kernel int_run512(IntOp op, DataType t) {
#define DMLREF_INT512(op, s)                                                                     \
    {                                                                                            \
        kernel512<1, IntOp512<IntOp::op, 1, s>>(), kernel512<2, IntOp512<IntOp::op, 2, s>>(),    \
            kernel512<4, IntOp512<IntOp::op, 4, s>>(), kernel512<8, IntOp512<IntOp::op, 8, s>>() \
    }
    static constexpr Kernel runs[5][2][4] = {{DMLREF_INT512(Add, false), DMLREF_INT512(Add, false)},
                                             {DMLREF_INT512(Subtract, false), DMLREF_INT512(Subtract, false)},
                                             {DMLREF_INT512(Multiply, false), DMLREF_INT512(Multiply, false)},
                                             {DMLREF_INT512(Max, false), DMLREF_INT512(Max, true)},
                                             {DMLREF_INT512(Min, false), DMLREF_INT512(Min, true)}};
#undef DMLREF_INT512
    return runs[int(op)][is_signed_integer(t)][std::countr_zero(element_size(t))];
}
#endif

// The kernel of Op for integer type t (index: log2 of the element size), or null.
Kernel int_run(IntOp op, DataType t) {
    static constexpr BinaryRun wrap[3][4] = {{add_u8_run, add_u16_run, add_u32_run, add_u64_run},
                                             {subtract_u8_run, subtract_u16_run, subtract_u32_run, subtract_u64_run},
                                             {multiply_u8_run, multiply_u16_run, multiply_u32_run, multiply_u64_run}};
    static constexpr BinaryRun select[2][2][4] = {
        {{max_u8_run, max_u16_run, max_u32_run, max_u64_run}, {max_i8_run, max_i16_run, max_i32_run, max_i64_run}},
        {{min_u8_run, min_u16_run, min_u32_run, min_u64_run}, {min_i8_run, min_i16_run, min_i32_run, min_i64_run}}};
    if (is_float(t) || !is_valid(t)) return nullptr;
#if defined(DMLREF_F16C_PATHS)
    if (isa() >= kAvx512) return int_run512(op, t);
#endif
    const int k = std::countr_zero(element_size(t));  // sizes 1, 2, 4, 8
    const int sign = is_signed_integer(t);
    switch (op) {
        case IntOp::Add: return wrap[0][k];
        case IntOp::Subtract: return wrap[1][k];
        case IntOp::Multiply: return wrap[2][k];
        case IntOp::Max: return select[0][sign][k];
        default: return select[1][sign][k];
    }
}

template <IntOp Op, class D> bool int_arith(const D& d, const Bindings& bindings) {
    return same_type_binary(d, bindings, int_run(Op, d.OutputTensor.DataType));
}

// The float kernels where the type is a float, the integer ones otherwise.
template <ArithOp F, IntOp I, class D> bool arith(const D& d, const Bindings& b) {
    return is_float(d.OutputTensor.DataType) ? float_arith<F>(d, b) : int_arith<I>(d, b);
}

// ---- MAX and MIN of FLOAT16 and FLOAT32 -----------------------------------------------------------
//
// The plain loop (reference/element_wise.cpp, maximum and minimum): both operands NaN give the
// canonical NaN; one NaN operand is ignored (the other's bits); equal values give, for MAX, b where a
// is negative (so +0 over -0) and a otherwise, for MIN, a where a is negative and b otherwise;
// else the larger (smaller) operand, its bits unchanged. Here, for FLOAT16, the order of values
// is the order of an integer key of the bits (sign and magnitude made two's complement, -0 and +0
// both 0), and the NaN tests are on the bits; FLOAT32 compares as FLOAT32 (below). The same
// choices, as compares and selects that vectorise.

template <class B, class S> inline S order_key(B bits) {
    constexpr B sign = B(B(1) << (sizeof(B) * 8 - 1));
    const S magnitude = S(bits & B(~sign)), negative = S(S(0) - S(bits >> (sizeof(B) * 8 - 1)));  // 0 or -1
    return S((magnitude ^ negative) - negative);
}

template <class B> inline bool nan_bits(B bits) {
    if constexpr (sizeof(B) == 2) return (bits & 0x7fffu) > 0x7c00u;
    else return (bits & 0x7fffffffu) > 0x7f800000u;
}

template <bool Max, class B, class S> inline B min_max_bits(B a, B b) {
    constexpr B canonical = sizeof(B) == 2 ? B(0x7e00u) : B(0x7fc00000u);
    const bool an = nan_bits(a), bn = nan_bits(b);
    const S ka = order_key<B, S>(a), kb = order_key<B, S>(b);
    const bool a_negative = (a >> (sizeof(B) * 8 - 1)) != 0;
    const bool take_a = Max ? (ka > kb) | ((ka == kb) & !a_negative) : (ka < kb) | ((ka == kb) & a_negative);
    B r = take_a ? a : b;
    r = an ? b : r;
    r = bn ? a : r;
    return (an & bn) ? canonical : r;
}

template <bool Max, class B, class S> inline void min_max_each(void* y, const void* a, const void* b, size_t n) {
    each<B, B>(y, a, b, n, [](B x, B z) { return min_max_bits<Max, B, S>(x, z); });
}
DMLREF_CLONES void max_half_run(void* y, const void* a, const void* b, size_t n) {
    min_max_each<true, uint16_t, int16_t>(y, a, b, n);
}
DMLREF_CLONES void min_half_run(void* y, const void* a, const void* b, size_t n) {
    min_max_each<false, uint16_t, int16_t>(y, a, b, n);
}
// FLOAT32 without AVX2: the order of values is FLOAT32's own compare (false for NaN, -0 == +0),
// fewer vector operations than the key; the same choices as min_max_bits.
template <bool Max> inline uint32_t min_max_float(uint32_t a, uint32_t b) {
    const float x = std::bit_cast<float>(a), z = std::bit_cast<float>(b);
    const bool an = x != x, bn = z != z, a_negative = (a >> 31) != 0;
    const bool take_a = Max ? (x > z) | ((x == z) & !a_negative) : (x < z) | ((x == z) & a_negative);
    uint32_t r = take_a ? a : b;
    r = an ? b : r;
    r = bn ? a : r;
    return (an & bn) ? 0x7fc00000u : r;
}
DMLREF_CLONES void max_float_run(void* y, const void* a, const void* b, size_t n) {
    each<uint32_t, uint32_t>(y, a, b, n, min_max_float<true>);
}
DMLREF_CLONES void min_float_run(void* y, const void* a, const void* b, size_t n) {
    each<uint32_t, uint32_t>(y, a, b, n, min_max_float<false>);
}

#if defined(DMLREF_F16C_PATHS)
// The same choices in fewer vector operations (the loops above, vectorised by the compiler, take
// about 25 per eight elements). VMAXPS(x, z) is the larger of two ordered operands and z where they
// are equal or either is a NaN (Intel SDM, MAXPS; VMINPS the same with the smaller). So where no
// operand is a NaN, MAX is max(a, b) & max(b, a): the larger operand twice where they differ, the
// same bits twice where they are equal and not zeros (FLOAT32 has one encoding per non-zero value),
// and b & a for two zeros, which is +0 unless both are -0 (SignedZeroMinMax); MIN is
// min(a, b) | min(b, a), -0 unless both are +0. Eight lanes with a NaN take the full selection:
// max(a, b) is b where a is a NaN and max(b, a) is a where b is; the lane that is a NaN is set to
// all ones (MAX, under the AND) or cleared (MIN, under the OR), which leaves the other operand's
// bits, and where both are NaNs the canonical NaN 0x7fc00000 (MinMaxNaN).
template <bool Max> DMLREF_F16C void float_min_max8(void* y, const void* av, const void* bv) {
    const __m256 a = _mm256_loadu_ps(static_cast<const float*>(av)), b = _mm256_loadu_ps(static_cast<const float*>(bv));
    __m256 x = Max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);  // right where a is a NaN
    __m256 z = Max ? _mm256_max_ps(b, a) : _mm256_min_ps(b, a);  // right where b is a NaN
    const __m256 unordered = _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
    if (_mm256_testz_ps(unordered, unordered)) {
        _mm256_storeu_ps(static_cast<float*>(y), Max ? _mm256_and_ps(x, z) : _mm256_or_ps(x, z));
        return;
    }
    const __m256 an = _mm256_cmp_ps(a, a, _CMP_UNORD_Q), bn = _mm256_cmp_ps(b, b, _CMP_UNORD_Q);
    const __m256 both = _mm256_and_ps(an, bn);
    __m256 r;
    if constexpr (Max) {
        r = _mm256_and_ps(_mm256_or_ps(x, bn), _mm256_or_ps(z, an));  // both NaNs: all ones
        r = _mm256_andnot_ps(_mm256_and_ps(both, _mm256_castsi256_ps(_mm256_set1_epi32(int(0x803fffff)))), r);
    } else {
        x = _mm256_andnot_ps(bn, x);
        z = _mm256_andnot_ps(an, z);
        r = _mm256_or_ps(_mm256_or_ps(x, z), _mm256_and_ps(both, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000))));
    }
    _mm256_storeu_ps(static_cast<float*>(y), r);
}
template <bool Max> DMLREF_F16C void float_min_max_run(void* y, const void* a, const void* b, size_t n) {
    eight_pairs<4, float_min_max8<Max>>(y, a, b, n);
}

// FLOAT16 with AVX-512, 32 lanes a vector, on another integer key of the bits: the bits with the
// magnitude's bits flipped where the sign is set (x ^ 0x7fff for a negative x), which is its own
// inverse and, as a signed 16-bit integer, orders the values that are not NaNs as order_key does
// except that -0 (key -1) lies below +0 (key 0): a negative value's key is -1 - its magnitude's
// bits, a positive one's its bits. Two operands with equal keys have the same bits, so the larger
// (smaller) key, turned back into bits, is min_max_bits's choice wherever no operand is a NaN,
// zeros included: MAX takes +0 over -0 in either order, MIN -0. Then the NaN lanes as in
// min_max_bits: b where a is a NaN, a where b is, the canonical NaN where both are.
template <bool Max> struct HalfMinMax512 {
    DMLREF_AVX512 static __m512i key(__m512i x) {
        return _mm512_xor_si512(x, _mm512_and_si512(_mm512_srai_epi16(x, 15), _mm512_set1_epi16(0x7fff)));
    }
    DMLREF_AVX512 static __mmask32 nan(__m512i x) {
        return _mm512_cmpgt_epi16_mask(_mm512_and_si512(x, _mm512_set1_epi16(0x7fff)), _mm512_set1_epi16(0x7c00));
    }
    DMLREF_AVX512 static __m512i op(__m512i a, __m512i b) {
        const __m512i ka = key(a), kb = key(b);
        __m512i r = key(Max ? _mm512_max_epi16(ka, kb) : _mm512_min_epi16(ka, kb));
        const __mmask32 an = nan(a), bn = nan(b);
        r = _mm512_mask_mov_epi16(r, an, b);
        r = _mm512_mask_mov_epi16(r, bn, a);
        return _mm512_mask_mov_epi16(r, an & bn, _mm512_set1_epi16(0x7e00));
    }
};
#endif

template <bool Max, class D> bool min_max(const D& d, const Bindings& bindings) {
    const DataType t = d.OutputTensor.DataType;
#if defined(DMLREF_F16C_PATHS)
    if (t == DataType::FLOAT16 && isa() >= kAvx512)
        return same_type_binary(d, bindings, kernel512<2, HalfMinMax512<Max>>());
#endif
    if (t == DataType::FLOAT16) return same_type_binary(d, bindings, Max ? max_half_run : min_half_run);
#if defined(DMLREF_F16C_PATHS)
    if (t == DataType::FLOAT32 && isa() >= kAvx2) return same_type_binary(d, bindings, float_min_max_run<Max>);
#endif
    if (t == DataType::FLOAT32) return same_type_binary(d, bindings, Max ? max_float_run : min_float_run);
    return int_arith<(Max ? IntOp::Max : IntOp::Min)>(d, bindings);
}

// ---- Integer DIVIDE, MODULUS_TRUNCATE, MODULUS_FLOOR ----------------------------------------------
//
// The plain loop (reference/element_wise.cpp, divide, modulus_truncate, modulus_floor): the quotient
// truncated toward zero, wrapped to the width (INT_MIN / -1 = INT_MIN, IntegerOverflow=WrapToWidth);
// TRUNCATE's remainder a - b * trunc(a / b), the dividend's sign (INT_MIN mod -1 = 0); FLOOR's that
// remainder plus b where it is not zero and its sign differs from b's (the divisor's sign; for
// unsigned types the same as TRUNCATE); a zero divisor gives all bits set (IntegerDivisionByZero=
// AllBitsSet) for all three. Here, eight elements at a time (AVX2; sizes 1, 2 and 4):
//   - The quotient of 8- and 16-bit operands is FLOAT32's a / b truncated (VCVTTPS2DQ), of 32-bit
//     operands float64's (VCVTTPD2DQ). Each operand is exact in that format, and so is the
//     truncation: where a / b is an integer k it is exact (|k| < 2^32), and otherwise it lies at
//     least 1 / |b| inside (k, k + 1) (the remainder is a non-zero multiple of 1 / |b|), while the
//     rounded quotient is within |a| / |b| 2^-p of it (p = 24 or 53 bits, |a| <= 2^16 or 2^32):
//     less than 1 / |b|, so the truncation is k.
//   - UINT32 operands are converted as x - 2^31 (signed) plus 2^31, exact in float64; their
//     quotient, in [0, 2^32), is floored (the same as truncated there), less 2^31 converted exactly,
//     and 2^31 added back to the bits.
//   - The one quotient beyond the type's range, INT_MIN / -1 = 2^(N-1), wraps: 8- and 16-bit
//     quotients are exact in the 32-bit lanes, whose low N bits are stored; the INT32 one converts
//     to VCVTTPD2DQ's "integer indefinite" 0x80000000 (Intel SDM), which is INT32_MIN, the wrapped
//     value.
//   - The remainders are a - b * q in 32-bit lanes, modulo 2^32: exact, since the true remainder
//     lies in the type (INT_MIN - (-1) * INT_MIN wraps to 0). FLOOR adds b where the remainder is
//     non-zero and of the other sign (signed types: the lanes hold the values sign-extended).
//   - A zero divisor's lanes (whatever the conversion made of an infinity or NaN) are ORed with
//     all ones.
// 64-bit operands are divided one at a time by the CPU's division, -1 and 0 divisors apart (the
// quotient -a wraps; x mod -1 = 0). A tail of fewer than 8 goes through padded copies (their zero
// divisors give lanes that are not stored).

enum class DivOp { Divide, Truncate, Floor };

#if defined(DMLREF_F16C_PATHS)

// Eight operands of Size bytes as 32-bit lanes: the values (Size 1 and 2), the bits (Size 4).
template <size_t Size, bool Signed> DMLREF_F16C inline __m256i widen8(const void* p) {
    if constexpr (Size == 1) {
        const __m128i v = _mm_loadl_epi64(static_cast<const __m128i*>(p));
        return Signed ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
    } else if constexpr (Size == 2) {
        const __m128i v = _mm_loadu_si128(static_cast<const __m128i*>(p));
        return Signed ? _mm256_cvtepi16_epi32(v) : _mm256_cvtepu16_epi32(v);
    } else {
        return _mm256_loadu_si256(static_cast<const __m256i*>(p));
    }
}

// Four 32-bit lanes as float64: INT32 values, or UINT32 ones (x - 2^31 as INT32, plus 2^31).
template <bool Signed> DMLREF_F16C inline __m256d doubles4(__m128i v) {
    if constexpr (Signed) return _mm256_cvtepi32_pd(v);
    else
        return _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(v, _mm_set1_epi32(INT32_MIN))),
                             _mm256_set1_pd(2147483648.0));
}

// trunc(a / b) of four 32-bit lanes (b non-zero; other lanes anything).
template <bool Signed> DMLREF_F16C inline __m128i quotient4(__m128i a, __m128i b) {
    const __m256d q = _mm256_div_pd(doubles4<Signed>(a), doubles4<Signed>(b));
    if constexpr (Signed) return _mm256_cvttpd_epi32(q);
    else
        return _mm_xor_si128(_mm256_cvttpd_epi32(_mm256_sub_pd(_mm256_floor_pd(q), _mm256_set1_pd(2147483648.0))),
                             _mm_set1_epi32(INT32_MIN));
}

// The low Size bytes of eight 32-bit lanes, stored.
template <size_t Size> DMLREF_F16C inline void store8(void* y, __m256i r) {
    if constexpr (Size == 4) {
        _mm256_storeu_si256(static_cast<__m256i*>(y), r);
    } else {
        const __m256i low = _mm256_and_si256(r, _mm256_set1_epi32(Size == 1 ? 0xff : 0xffff));
        const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(low), _mm256_extracti128_si256(low, 1));
        if constexpr (Size == 2) _mm_storeu_si128(static_cast<__m128i*>(y), w);
        else _mm_storel_epi64(static_cast<__m128i*>(y), _mm_packus_epi16(w, w));
    }
}

template <DivOp Op, size_t Size, bool Signed> DMLREF_F16C void int_divide8(void* y, const void* av, const void* bv) {
    const __m256i a = widen8<Size, Signed>(av), b = widen8<Size, Signed>(bv);
    __m256i r;
    if constexpr (Size < 4) r = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(a), _mm256_cvtepi32_ps(b)));
    else
        r = _mm256_set_m128i(quotient4<Signed>(_mm256_extracti128_si256(a, 1), _mm256_extracti128_si256(b, 1)),
                             quotient4<Signed>(_mm256_castsi256_si128(a), _mm256_castsi256_si128(b)));
    const __m256i zero = _mm256_setzero_si256();
    if constexpr (Op != DivOp::Divide) {
        r = _mm256_sub_epi32(a, _mm256_mullo_epi32(b, r));
        if constexpr (Op == DivOp::Floor && Signed) {
            const __m256i other_sign = _mm256_srai_epi32(_mm256_xor_si256(r, b), 31);
            const __m256i adjust = _mm256_andnot_si256(_mm256_cmpeq_epi32(r, zero), other_sign);
            r = _mm256_add_epi32(r, _mm256_and_si256(adjust, b));
        }
    }
    store8<Size>(y, _mm256_or_si256(r, _mm256_cmpeq_epi32(b, zero)));  // IntegerDivisionByZero=AllBitsSet
}

template <DivOp Op, size_t Size, bool Signed>
DMLREF_F16C void int_divide_run(void* y, const void* a, const void* b, size_t n) {
    eight_pairs<Size, int_divide8<Op, Size, Signed>>(y, a, b, n);
}

#endif

template <DivOp Op, bool Signed> void int_divide64_run(void* yv, const void* av, const void* bv, size_t n) {
    using S = std::conditional_t<Signed, int64_t, uint64_t>;
    auto* y = static_cast<uint64_t*>(yv);
    auto *a = static_cast<const S*>(av), *b = static_cast<const S*>(bv);
    for (size_t i = 0; i < n; ++i) {
        const S x = a[i], z = b[i];
        uint64_t r;
        if (z == 0) {
            r = ~uint64_t(0);
        } else if (Signed && z == S(-1)) {
            r = Op == DivOp::Divide ? uint64_t(0) - uint64_t(x) : 0;  // INT64_MIN / -1 wraps
        } else {
            const S q = S(x / z), m = S(x % z);
            r = uint64_t(Op == DivOp::Divide ? q : m);
            if (Op == DivOp::Floor && Signed && m != 0 && (m < 0) != (z < 0)) r = uint64_t(m) + uint64_t(z);
        }
        y[i] = r;
    }
}

// The kernel of Op for integer type t, or null (a float; 8- to 32-bit types without AVX2).
BinaryRun int_divide_kernel(DivOp op, DataType t) {
    if (is_float(t) || !is_valid(t)) return nullptr;
    const bool sign = is_signed_integer(t);
    if (!sign && op == DivOp::Floor) op = DivOp::Truncate;  // the same for unsigned types
    const size_t size = element_size(t);
    if (size == 8) {
        static constexpr BinaryRun runs64[3][2] = {
            {int_divide64_run<DivOp::Divide, false>, int_divide64_run<DivOp::Divide, true>},
            {int_divide64_run<DivOp::Truncate, false>, int_divide64_run<DivOp::Truncate, true>},
            {nullptr, int_divide64_run<DivOp::Floor, true>}};  // unsigned: Truncate's
        return runs64[int(op)][sign];
    }
#if defined(DMLREF_F16C_PATHS)
    if (isa() < kAvx2) return nullptr;
    static constexpr BinaryRun runs[3][2][3] = {
        {{int_divide_run<DivOp::Divide, 1, false>, int_divide_run<DivOp::Divide, 2, false>,
          int_divide_run<DivOp::Divide, 4, false>},
         {int_divide_run<DivOp::Divide, 1, true>, int_divide_run<DivOp::Divide, 2, true>,
          int_divide_run<DivOp::Divide, 4, true>}},
        {{int_divide_run<DivOp::Truncate, 1, false>, int_divide_run<DivOp::Truncate, 2, false>,
          int_divide_run<DivOp::Truncate, 4, false>},
         {int_divide_run<DivOp::Truncate, 1, true>, int_divide_run<DivOp::Truncate, 2, true>,
          int_divide_run<DivOp::Truncate, 4, true>}},
        {{nullptr, nullptr, nullptr},  // unsigned: Truncate's
         {int_divide_run<DivOp::Floor, 1, true>, int_divide_run<DivOp::Floor, 2, true>,
          int_divide_run<DivOp::Floor, 4, true>}}};
    return runs[int(op)][sign][std::countr_zero(size)];
#else
    return nullptr;
#endif
}

template <DivOp Op, class D> bool int_divide(const D& d, const Bindings& bindings) {
    return same_type_binary(d, bindings, int_divide_kernel(Op, d.OutputTensor.DataType));
}

// ---- LESS_THAN into UINT8 ------------------------------------------------------------------------
//
// The plain loop (reference/element_wise_logic.cpp) writes 1 where exact_lt(a, b), else 0
// (BooleanOutput=OneOrZeroOfOutputType). Integers and FLOAT32 compare as C++ does (NaN false,
// -0 < +0 false); FLOAT16 through the order key of its bits, with a NaN operand false.

DMLREF_CLONES void less_half_run(void* y, const void* a, const void* b, size_t n) {
    each<uint8_t, uint16_t>(y, a, b, n, [](uint16_t x, uint16_t z) {
        const bool xn = nan_bits(x), zn = nan_bits(z);
        const bool numbers = !(xn | zn);
        return uint8_t(numbers & (order_key<uint16_t, int16_t>(x) < order_key<uint16_t, int16_t>(z)));
    });
}
template <class T> inline void less_each(void* y, const void* a, const void* b, size_t n) {
    each<uint8_t, T>(y, a, b, n, [](T x, T z) { return uint8_t(x < z); });
}
DMLREF_CLONES void less_float_run(void* y, const void* a, const void* b, size_t n) { less_each<float>(y, a, b, n); }
DMLREF_CLONES void less_int8_run(void* y, const void* a, const void* b, size_t n) { less_each<int8_t>(y, a, b, n); }
DMLREF_CLONES void less_int32_run(void* y, const void* a, const void* b, size_t n) { less_each<int32_t>(y, a, b, n); }

#if defined(DMLREF_F16C_PATHS)
// INT8 with AVX-512: 64 signed compares into a mask, 1 where set, 0 elsewhere.
struct LessInt8x512 {
    DMLREF_AVX512 static __m512i op(__m512i a, __m512i b) {
        return _mm512_maskz_mov_epi8(_mm512_cmplt_epi8_mask(a, b), _mm512_set1_epi8(1));
    }
};
#endif

// ---- CAST (F16C) --------------------------------------------------------------------------------
//
// The plain loop (reference/cast.cpp) for the pairs here:
//   - FLOAT32 -> FLOAT16: the value rounded once to nearest-even, overflow to infinity, subnormals
//     kept; a NaN keeps its sign and the top 10 bits of its fraction, quiet bit set
//     (CastNaN=QuietKeepsSignAndPayload). VCVTPS2PH with nearest-even in imm8 does exactly that:
//     one rounding of the exact FLOAT32 value, and for a NaN the sign, the fraction's top bits and
//     the quiet bit (Intel SDM, VCVTPS2PH, NaN handling).
//   - FLOAT16 -> FLOAT32: exact; a NaN keeps sign and payload shifted up 13 bits, quiet bit set.
//     VCVTPH2PS widens exactly; the quiet bit is set here on every NaN lane, which is the plain
//     loop's encoding whether or not the instruction quiets a signalling NaN itself.
//   - INT8, UINT8 -> FLOAT16: every such integer is a FLOAT32 (exact) and VCVTPS2PH rounds it once.
//   - INT32 -> FLOAT16: VCVTDQ2PS rounds an integer beyond 2^24 to FLOAT32 first. It is exact
//     below 2^24 in magnitude, so the one rounding is VCVTPS2PH's; from 65520 in magnitude up the
//     plain loop gives the infinity of the sign, and so does VCVTPS2PH, because the FLOAT32 value,
//     rounded from an integer of at least 65520 (itself a FLOAT32), is at least 65520 too.

#if defined(DMLREF_F16C_PATHS)

DMLREF_F16C inline __m128i to_halves(__m256 v) {
    return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// Eight elements from in[] to out[] by F; a tail of fewer than 8 through a padded copy.
using Eight = void (*)(unsigned char* out, const unsigned char* in);
template <size_t In, size_t Out, Eight F> DMLREF_F16C void eights(void* out, const void* in, size_t n) {
    auto* o = static_cast<unsigned char*>(out);
    auto* s = static_cast<const unsigned char*>(in);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) F(o + i * Out, s + i * In);
    if (i < n) {
        alignas(32) unsigned char ti[8 * In] = {}, to[8 * Out];
        std::memcpy(ti, s + i * In, (n - i) * In);
        F(to, ti);
        std::memcpy(o + i * Out, to, (n - i) * Out);
    }
}

DMLREF_F16C void float_to_half8(unsigned char* o, const unsigned char* s) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), to_halves(_mm256_loadu_ps(reinterpret_cast<const float*>(s))));
}

DMLREF_F16C void half_to_float8(unsigned char* o, const unsigned char* s) {
    const __m256 v = load_halves(reinterpret_cast<const uint16_t*>(s));
    const __m256 quiet = _mm256_and_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q),
                                       _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
    _mm256_storeu_ps(reinterpret_cast<float*>(o), _mm256_or_ps(v, quiet));
}

DMLREF_F16C void int32_to_half8(unsigned char* o, const unsigned char* s) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), to_halves(_mm256_cvtepi32_ps(v)));
}

template <bool Signed> DMLREF_F16C void int8_to_half8(unsigned char* o, const unsigned char* s) {
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s));
    const __m256i w = Signed ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), to_halves(_mm256_cvtepi32_ps(w)));
}

bool cast_fast(const TensorView& Y, const TensorView& X, DataType to, DataType from) {
    if (isa() < kAvx2) return false;
    if (to == DataType::FLOAT32 && from == DataType::FLOAT16)
        return unary_map(Y, X, 4, 2, eights<2, 4, half_to_float8>);
    if (to != DataType::FLOAT16) return false;
    switch (from) {
        case DataType::FLOAT32: return unary_map(Y, X, 2, 4, eights<4, 2, float_to_half8>);
        case DataType::INT32: return unary_map(Y, X, 2, 4, eights<4, 2, int32_to_half8>);
        case DataType::INT8: return unary_map(Y, X, 2, 1, eights<1, 2, int8_to_half8<true>>);
        case DataType::UINT8: return unary_map(Y, X, 2, 1, eights<1, 2, int8_to_half8<false>>);
        default: return false;
    }
}

#else

bool cast_fast(const TensorView&, const TensorView&, DataType, DataType) { return false; }

#endif

}  // namespace

int set_element_wise_isa(int limit) {
    isa_limit.store(std::clamp(limit, kBaseline, kAvx512), std::memory_order_relaxed);
    return isa();
}
int element_wise_isa() { return isa(); }

bool element_wise_fast(const DML_ELEMENT_WISE_ADD_OPERATOR_DESC& d, const Bindings& b) {
    return arith<ArithOp::Add, IntOp::Add>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC& d, const Bindings& b) {
    return !d.FusedActivation && arith<ArithOp::Add, IntOp::Add>(d, b);  // without an activation, ADD
}
bool element_wise_fast(const DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC& d, const Bindings& b) {
    return arith<ArithOp::Subtract, IntOp::Subtract>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC& d, const Bindings& b) {
    return arith<ArithOp::Multiply, IntOp::Multiply>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC& d, const Bindings& b) {
    return is_float(d.OutputTensor.DataType) ? float_arith<ArithOp::Divide>(d, b) : int_divide<DivOp::Divide>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC& d, const Bindings& b) {
    return int_divide<DivOp::Truncate>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC& d, const Bindings& b) {
    return int_divide<DivOp::Floor>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_SQRT_OPERATOR_DESC& d, const Bindings& b) {
    return float_arith<ArithOp::Sqrt>(d, b);
}
bool element_wise_fast(const DML_ELEMENT_WISE_MAX_OPERATOR_DESC& d, const Bindings& b) { return min_max<true>(d, b); }
bool element_wise_fast(const DML_ELEMENT_WISE_MIN_OPERATOR_DESC& d, const Bindings& b) { return min_max<false>(d, b); }

bool element_wise_fast(const DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC& d, const Bindings& b) {
    const DataType t = d.ATensor.DataType;
    if (d.OutputTensor.DataType != DataType::UINT8 || d.BTensor.DataType != t) return false;
    const TensorView A(d.ATensor, b.at("ATensor")), B(d.BTensor, b.at("BTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    switch (t) {
        case DataType::FLOAT16: return binary_map(Y, A, B, 1, 2, less_half_run);
        case DataType::FLOAT32: return binary_map(Y, A, B, 1, 4, less_float_run);
        case DataType::INT8:
#if defined(DMLREF_F16C_PATHS)
            if (isa() >= kAvx512) return binary_map(Y, A, B, 1, 1, kernel512<1, LessInt8x512>());
#endif
            return binary_map(Y, A, B, 1, 1, less_int8_run);
        case DataType::INT32: return binary_map(Y, A, B, 1, 4, less_int32_run);
        default: return false;
    }
}

bool element_wise_fast(const DML_CAST_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    return cast_fast(Y, X, d.OutputTensor.DataType, d.InputTensor.DataType);
}

}  // namespace dmlref::reference::fast
