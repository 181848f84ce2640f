// REDUCE's fast path for SUM (reference/fast/reduce_sum.hpp): FLOAT32 and FLOAT16 data, the
// same bits as the plain loop of reference/reduction.cpp (each output element the exact sum of
// its elements, rounded once), at the speed of a float64 sum.
//
// How:
//  1. The geometry: the input's dimensions (those of size 1 dropped) are outer kept ones, then
//     one block of reduced ones, then inner kept ones; the reduced block is merged into one
//     dimension of R elements (stride sr), the inner kept ones into one of I (stride si, and a
//     stride of the output). Anything else returns false, and the plain loop runs.
//  2. Partial sums over a fixed partition of the terms, the same for any thread count. With
//     I = 1, each output's run is cut into chunks of 2^16 elements. A chunk of contiguous
//     elements is cut into blocks of kBlock = 256 (2a); a strided one, or a block 2a cannot
//     certify, is summed by FastSum (reference/fast_sum.hpp) in 16 interleaved lanes (element j
//     to lane j mod 16). With I > 1, each chunk of rows of 64Ki elements or less is summed
//     column by column (one FastSum per output element, the rows added in order). Every term is
//     a FLOAT32 or FLOAT16 value widened exactly. Each partial (s, c, b) holds its exact sum
//     within 2^-52 b of s + c.
//  2a. A block summed plainly in float64 is exact where its terms allow it, and the block
//     proves that from two integer reductions of its bits taken in the same pass. A finite
//     FLOAT32 value whose biased exponent field is E (its bits, sign cleared, shifted right by
//     23) is a multiple of 2^(max(E, 1) - 150) and below 2^(E - 126) in magnitude. Let Emax and
//     Emin be the largest and smallest fields of the block's nonzero terms: every term, and so
//     every partial sum of any subset, is a multiple of g = 2^(max(Emin, 1) - 150), and every
//     partial sum is below n 2^(Emax - 126) in magnitude. Where n 2^(Emax - 126) <= 2^53 g,
//     that is Emax - max(Emin, 1) <= 29 - log2(n) (21 for n = 256), every partial sum is an
//     integer multiple of g below 2^53 g: a float64 (g >= 2^-149 is far above float64's
//     subnormals), so every addition is exact, in whatever order, and the block's float64 sum
//     is its exact sum (a cancelling block gives +0, as the lanes from +0 do). Unsigned
//     integer max and min of the bits (sign cleared; the min over bits - 1, so that zeros wrap
//     to the top and drop out) give Emax and Emin; a max at 0x7f800000 or above is an
//     infinity or a NaN, which the block does not certify. FLOAT16 needs no range: every finite
//     FLOAT16 is a multiple of 2^-24 below 2^16, so a sum of n <= 2^13 of them (n 2^16 <= 2^53
//     2^-24) is exact in float64 whatever the exponents; the block certifies where no term is
//     an infinity or NaN. A certified block adds its sum to the chunk's FastSum as an exact
//     term; an uncertified one is summed again by the lanes and adds their partials.
//  3. Each output element's partial sums s and c added, in the partition's order, into one more
//     FastSum (s', c', b'): its exact sum is within 2^-52 b' of s' + c', so the element's exact
//     sum is within 2^-52 (b' + sum b) of s' + c' (the bounds add; the 2^-51 of narrow_rounded
//     covers the rounding of that sum of bounds). narrow_rounded (reference/fast_sum.hpp) then
//     proves T's rounding of the exact sum or leaves it undecided: a sum on or near a rounding
//     boundary, an exact zero reached with rounding on the way, a NaN or infinity among the
//     terms (b not finite), an overflow.
//  4. An undecided element takes the plain loop's own sum (reduce_sum_element, the exact
//     rational sum rounded once), so its bits are the plain loop's by construction; a decided
//     one is the correct rounding of the exact sum, which is what the plain loop computes. The
//     bits depend neither on the thread count nor on the partition.
// Memory: three float64 per lane or column per chunk, and the list of the reduced elements'
// offsets when an output element reaches step 4.
#include "reduce_sum.hpp"

#include "half_rows.hpp"
#include "parallel.hpp"

#include "../fast_sum.hpp"
#include "../reduction_internal.hpp"

#include "dmlref/numeric.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <vector>

namespace dmlref::reference::fast {

namespace {

using RD = DML_REDUCE_OPERATOR_DESC;

std::atomic<uint64_t> decided_count{0}, exact_count{0}, certified_count{0}, uncertified_count{0};

constexpr uint64_t kRun = uint64_t(1) << 16;  // elements per chunk of a run (I = 1)
constexpr int kLanes = 16;
constexpr uint64_t kColumns = 512;  // outputs per task when I > 1

// Step 2 for a chunk of a run: n terms x[j * step] into 16 lanes.
template <class T> inline void lanes(const T* __restrict x, int64_t step, uint64_t n, double* __restrict out) {
    double s[kLanes] = {}, c[kLanes] = {}, b[kLanes] = {};
    uint64_t j = 0;
    if (step == 1) {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) FastSum::add(s[l], c[l], b[l], widen_fast(x[j + uint64_t(l)]));
    } else {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l)
                FastSum::add(s[l], c[l], b[l], widen_fast(x[int64_t(j) * step + l * step]));
    }
    for (int l = 0; j < n; ++j, ++l) FastSum::add(s[l], c[l], b[l], widen_fast(x[int64_t(j) * step]));
    for (int l = 0; l < kLanes; ++l) {
        out[3 * l] = s[l];
        out[3 * l + 1] = c[l];
        out[3 * l + 2] = b[l];
    }
}

// Step 2a: the float64 sum of n <= kBlock contiguous terms in 16 lanes, with the unsigned max
// of their bits (sign cleared) and the unsigned min of those bits minus 1, for the proof.
constexpr uint64_t kBlock = 256;
constexpr uint32_t kBlockLog2 = 8;
struct Block {
    double sum;
    uint32_t top, low;  // max(bits & 0x7fffffff), min((bits & 0x7fffffff) - 1)
};
inline Block block_sum(const float* __restrict x, uint64_t n) {
    double acc[kLanes] = {};
    uint32_t top[kLanes] = {}, low[kLanes];
    for (int l = 0; l < kLanes; ++l) low[l] = 0xffffffffu;
    uint64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int l = 0; l < kLanes; ++l) {
            const float v = x[j + uint64_t(l)];
            const uint32_t bits = std::bit_cast<uint32_t>(v) & 0x7fffffffu;
            top[l] = std::max(top[l], bits);
            low[l] = std::min(low[l], bits - 1u);
            acc[l] += double(v);
        }
    for (int l = 0; j < n; ++j, ++l) {
        const uint32_t bits = std::bit_cast<uint32_t>(x[j]) & 0x7fffffffu;
        top[l] = std::max(top[l], bits);
        low[l] = std::min(low[l], bits - 1u);
        acc[l] += double(x[j]);
    }
    Block b{0, 0, 0xffffffffu};
    for (int l = 0; l < kLanes; ++l) {
        b.sum += acc[l];
        b.top = std::max(b.top, top[l]);
        b.low = std::min(b.low, low[l]);
    }
    return b;
}

// Whether step 2a proves a block's float64 sum exact.
inline bool certified(const Block& b, bool half_terms) {
    if (b.top >= 0x7f800000u) return false;               // an infinity or a NaN
    if (half_terms || b.low == 0xffffffffu) return true;  // FLOAT16 terms (n <= 2^13); or only zeros
    const uint32_t emax = b.top >> 23, emin = std::max<uint32_t>((b.low + 1u) >> 23, 1);
    return emax <= emin + (29 - kBlockLog2);
}

// Step 2 for a block of columns: rows r0..r1 of n columns (rows sr apart, columns si apart)
// into s, c, b (one FastSum per column, from +0).
template <class T>
inline void columns(const T* __restrict x, int64_t sr, int64_t si, uint64_t rows, uint64_t n, double* __restrict s,
                    double* __restrict c, double* __restrict b) {
    for (uint64_t i = 0; i < n; ++i) s[i] = c[i] = b[i] = 0;
    for (uint64_t r = 0; r < rows; ++r) {
        const T* row = x + int64_t(r) * sr;
        if (si == 1)
            for (uint64_t i = 0; i < n; ++i) FastSum::add(s[i], c[i], b[i], widen_fast(row[i]));
        else
            for (uint64_t i = 0; i < n; ++i) FastSum::add(s[i], c[i], b[i], widen_fast(row[int64_t(i) * si]));
    }
}

// The vectorised loops, cloned for AVX-512 and AVX2 where the CPU has them: the same IEEE
// operations, unfused.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_REDUCE_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#else
#define DMLREF_REDUCE_CLONES
#endif
DMLREF_REDUCE_CLONES void lanes_float(const float* x, int64_t step, uint64_t n, double* out) { lanes(x, step, n, out); }
DMLREF_REDUCE_CLONES void lanes_half(const half* x, int64_t step, uint64_t n, double* out) { lanes(x, step, n, out); }
DMLREF_REDUCE_CLONES void blocks_float(const float* x, uint64_t n, Block* out) {
    for (uint64_t j = 0, k = 0; j < n; j += kBlock, ++k) out[k] = block_sum(x + j, std::min(kBlock, n - j));
}
DMLREF_REDUCE_CLONES void blocks_half(const half* x, uint64_t n, Block* out) {
    float wide[kBlock];
    for (uint64_t j = 0, k = 0; j < n; j += kBlock, ++k) {
        const uint64_t m = std::min(kBlock, n - j);
        widen_halves(wide, x + j, m);  // exact
        out[k] = block_sum(wide, m);
    }
}
DMLREF_REDUCE_CLONES void columns_float(const float* x, int64_t sr, int64_t si, uint64_t rows, uint64_t n, double* s,
                                        double* c, double* b) {
    columns(x, sr, si, rows, n, s, c, b);
}
DMLREF_REDUCE_CLONES void columns_half(const half* x, int64_t sr, int64_t si, uint64_t rows, uint64_t n, double* s,
                                       double* c, double* b) {
    columns(x, sr, si, rows, n, s, c, b);
}

// Step 2 for a chunk of n <= kRun terms x[j * step] of one run: its partial (s, c, b) in out.
template <class T> void chunk_sum(const T* x, int64_t step, uint64_t n, double* out) {
    FastSum f;
    double bounds = 0;
    const auto add_lanes = [&](const T* p, int64_t st, uint64_t m) {
        double part[3 * kLanes];
        if constexpr (std::is_same_v<T, float>) lanes_float(p, st, m, part);
        else lanes_half(p, st, m, part);
        for (int l = 0; l < kLanes; ++l) {
            f.add(part[3 * l]);
            f.add(part[3 * l + 1]);
            bounds += part[3 * l + 2];
        }
    };
    if (step != 1) {
        add_lanes(x, step, n);
    } else {
        Block blocks[kRun / kBlock];
        if constexpr (std::is_same_v<T, float>) blocks_float(x, n, blocks);
        else blocks_half(x, n, blocks);
        uint64_t proved = 0, not_proved = 0;
        for (uint64_t j = 0, k = 0; j < n; j += kBlock, ++k) {
            if (certified(blocks[k], is_half_v<T>)) {
                f.add(blocks[k].sum);
                ++proved;
            } else {
                add_lanes(x + j, 1, std::min(kBlock, n - j));
                ++not_proved;
            }
        }
        certified_count.fetch_add(proved, std::memory_order_relaxed);
        uncertified_count.fetch_add(not_proved, std::memory_order_relaxed);
    }
    out[0] = f.s;
    out[1] = f.c;
    out[2] = f.b + bounds;
}

struct Dim {
    uint64_t size;
    int64_t in, out;  // strides
};

// Merges neighbouring dimensions into one (false when their strides, the input's and, with
// `output`, the output's, do not allow it).
bool merge(const std::vector<Dim>& dims, bool output, Dim& one) {
    one = {1, 0, 0};
    for (const Dim& d : dims) {
        if (one.size > 1 && (one.in != d.in * int64_t(d.size) || (output && one.out != d.out * int64_t(d.size))))
            return false;
        one = {one.size * d.size, d.in, d.out};
    }
    return true;
}

template <class T> bool sum_fast(const RD& d, const Bindings& bind) {
    const TensorView X(d.InputTensor, bind.at("InputTensor"));
    const TensorView Y(d.OutputTensor, bind.at("OutputTensor"));
    uint32_t mask = 0;
    for (uint32_t a : d.Axes) mask |= 1u << a;
    // Step 1.
    std::vector<Dim> outer, reduced, inner;
    std::vector<uint32_t> reduced_axes;
    for (uint32_t i = 0; i < d.InputTensor.Sizes.size(); ++i) {
        const uint64_t size = d.InputTensor.Sizes[i];
        if ((mask >> i) & 1) reduced_axes.push_back(i);
        if (size == 1) continue;
        const Dim dim{size, X.strides[i], Y.strides[i]};
        if ((mask >> i) & 1) {
            if (!inner.empty()) return false;  // kept axes between reduced ones
            reduced.push_back(dim);
        } else (reduced.empty() ? outer : inner).push_back(dim);
    }
    Dim R, I;
    if (reduced.empty() || !merge(reduced, false, R) || !merge(inner, true, I)) return false;
    // The outer elements' offsets, row-major.
    uint64_t O = 1;
    for (const Dim& o : outer) O *= o.size;
    std::vector<int64_t> in_base(O), out_base(O);
    {
        std::vector<uint64_t> at(outer.size(), 0);
        for (uint64_t o = 0; o < O; ++o) {
            int64_t a = 0, w = 0;
            for (size_t k = 0; k < outer.size(); ++k) {
                a += int64_t(at[k]) * outer[k].in;
                w += int64_t(at[k]) * outer[k].out;
            }
            in_base[o] = a;
            out_base[o] = w;
            for (size_t k = outer.size(); k-- > 0;) {
                if (++at[k] < outer[k].size) break;
                at[k] = 0;
            }
        }
    }
    const T* x = X.data<T>();
    certified_count.store(0, std::memory_order_relaxed);
    uncertified_count.store(0, std::memory_order_relaxed);
    const uint64_t outputs = O * I.size;
    // Step 2: partials[(element * chunks + chunk) * width + lane] as (s, c, b).
    std::vector<double> partial;
    uint64_t chunks, width;
    if (I.size == 1) {
        chunks = (R.size + kRun - 1) / kRun;
        width = 1;
        partial.resize(O * chunks * width * 3);
        parallel_for(int64_t(O * chunks), [&](int64_t t) {
            const uint64_t o = uint64_t(t) / chunks, ch = uint64_t(t) % chunks;
            const uint64_t j0 = ch * kRun, n = std::min(R.size, j0 + kRun) - j0;
            chunk_sum(x + in_base[o] + int64_t(j0) * R.in, R.in, n, partial.data() + uint64_t(t) * 3);
        });
    } else {
        const uint64_t rows = std::max<uint64_t>(1, kRun / std::min(I.size, kColumns));
        chunks = (R.size + rows - 1) / rows;
        width = 1;
        const uint64_t blocks = (I.size + kColumns - 1) / kColumns;
        partial.resize(outputs * chunks * 3);
        // Laid out [chunk][3][output] while summing, for contiguous columns.
        parallel_for(int64_t(O * blocks * chunks), [&](int64_t t) {
            const uint64_t ch = uint64_t(t) % chunks, blk = uint64_t(t) / chunks % blocks,
                           o = uint64_t(t) / chunks / blocks;
            const uint64_t i0 = blk * kColumns, n = std::min(I.size, i0 + kColumns) - i0;
            const uint64_t r0 = ch * rows, h = std::min(R.size, r0 + rows) - r0;
            const T* p = x + in_base[o] + int64_t(r0) * R.in + int64_t(i0) * I.in;
            double* s = partial.data() + ch * 3 * outputs + o * I.size + i0;
            if constexpr (std::is_same_v<T, float>) columns_float(p, R.in, I.in, h, n, s, s + outputs, s + 2 * outputs);
            else columns_half(p, R.in, I.in, h, n, s, s + outputs, s + 2 * outputs);
        });
    }
    // Step 3, for each output element in row-major order (outer, inner).
    std::vector<T> y(outputs);
    std::vector<unsigned char> undecided(outputs, 0);
    parallel_for(int64_t((outputs + 1023) / 1024), [&](int64_t t) {
        for (uint64_t e = uint64_t(t) * 1024; e < std::min(outputs, uint64_t(t) * 1024 + 1024); ++e) {
            FastSum f;
            double bounds = 0;
            for (uint64_t ch = 0; ch < chunks; ++ch)
                for (uint64_t l = 0; l < width; ++l) {
                    const double* p = I.size == 1 ? partial.data() + ((e * chunks + ch) * width + l) * 3 : nullptr;
                    const double s = p ? p[0] : partial[ch * 3 * outputs + e];
                    const double c = p ? p[1] : partial[ch * 3 * outputs + outputs + e];
                    const double b = p ? p[2] : partial[ch * 3 * outputs + 2 * outputs + e];
                    f.add(s);
                    f.add(c);
                    bounds += b;
                }
            undecided[e] = !narrow_rounded<T>(f.s, f.c, f.b + bounds, y[e]);
        }
    });
    // Step 4.
    const uint64_t exact = uint64_t(std::count(undecided.begin(), undecided.end(), 1));
    if (exact) {
        std::vector<int64_t> offsets;  // the reduced elements, row-major over the reduced axes
        std::vector<uint32_t> at(reduced_axes.size(), 0);
        for (uint64_t j = 0; j < R.size; ++j) {
            int64_t off = 0;
            for (size_t k = 0; k < reduced_axes.size(); ++k) off += int64_t(at[k]) * X.strides[reduced_axes[k]];
            offsets.push_back(off);
            for (size_t k = reduced_axes.size(); k-- > 0;) {
                if (++at[k] < d.InputTensor.Sizes[reduced_axes[k]]) break;
                at[k] = 0;
            }
        }
        parallel_for(int64_t(outputs), [&](int64_t e) {
            if (!undecided[size_t(e)]) return;
            const uint64_t o = uint64_t(e) / I.size, i = uint64_t(e) % I.size;
            y[size_t(e)] = reduce_sum_element<T>(x, in_base[o] + int64_t(i) * I.in, offsets);
        });
    }
    T* out = Y.data<T>();
    for (uint64_t e = 0; e < outputs; ++e) out[out_base[e / I.size] + int64_t(e % I.size) * I.out] = y[e];
    decided_count.store(outputs - exact, std::memory_order_relaxed);
    exact_count.store(exact, std::memory_order_relaxed);
    return true;
}

}  // namespace

bool reduce_sum(const RD& d, const Bindings& b) {
    if (d.Function != DML_REDUCE_FUNCTION_SUM || d.InputTensor.DataType != d.OutputTensor.DataType) return false;
    if (d.InputTensor.DataType == DataType::FLOAT32) return sum_fast<float>(d, b);
    if (d.InputTensor.DataType == DataType::FLOAT16) return sum_fast<half>(d, b);
    return false;
}

ReduceSumCounts reduce_sum_counts() {
    return {decided_count.load(), exact_count.load(), certified_count.load(), uncertified_count.load()};
}

}  // namespace dmlref::reference::fast
