// The fast paths of AVERAGE_POOLING, AVERAGE_POOLING1 and AVERAGE_POOLING_GRAD (average_pooling.hpp):
// FLOAT32 and FLOAT16 data. docs/golden.md ("How average pooling's golden is computed") sums up
// why each element is the plain loop's bits; the derivations are at the code.
//
// The forward. Element o is V = S / D, S the exact sum of the n real elements x_i of o's window,
// D its divisor (docs/golden.md, Average pooling). Every FLOAT32 or FLOAT16 value is a double, a
// multiple of 2^-149 below 2^128: float64 sums of them never underflow (a sum whose result is
// subnormal is exact anyway) nor overflow, and S / D with D <= 2^20 is at least 2^-169, normal.
//   - s = the window's terms added in float64 into +0, one at a time, padding read as +0 (adding
//     zero is exact): at most T = prod(WindowSize) terms, so |s - S| <= gamma_(T-1) A, A the sum
//     of |x_i|, gamma_k = k u / (1 - k u), u = 2^-53 (Higham, "Accuracy and Stability of
//     Numerical Algorithms", 4.2: any order of recursive summation);
//   - a = the |x_i| added the same way: every addition rounds down by at most a factor (1 - u),
//     so a >= (1 - gamma_(T-1)) A; q = fl(s / D), m = fl(a / D) >= (a / D)(1 - u);
//   - |q - V| <= u |s / D| + |s - S| / D <= u |q| / (1 - u) + gamma_(T-1) m / ((1 - u)(1 - gamma_(T-1)))
//     <= u (1 + 2^-31) (|q| + (T - 1) m) for T <= 2^20 ((T - 1) u / (1 - 2 (T - 1) u) <= (T - 1) u (1 + 2^-31));
//   - e = fl(fl(fl((T - 1) m) + |q|) 2^-53 (1 + 2^-30)): three roundings down by at most (1 - u)
//     each, and (1 - u)^3 (1 + 2^-30) > 1 + 2^-31, so e bounds |q - V|; decide (decide.hpp) gives
//     the output's bits where [q - e, q + e] rounds to one value.
// Undecided elements (V within about 2^-50 |V| of a rounding boundary or tie of the output type,
// a NaN or infinite element in the window) are summed again with TwoSum (FastSum, fast_sum.hpp):
// where every addition was exact (b == 0) s is S itself, and where the remainder
// fma(-q, D, S) (exact: the remainder of a rounded quotient is a double) is 0, q = S / D = V exactly,
// rounded once (a value on a tie of the output type: 2x2 windows of FLOAT16 data, say). The rest
// take the plain loop's element (avgpool::average_element: exact rationals).
//
// The grad. Element x of dX is V = sum over the k windows o that hold x of dY[o] / D(o).
//   - t_o = fl(dY[o] / D(o)) once per dY element: |t_o - dY[o] / D(o)| <= u |t_o| / (1 - u);
//   - s = the t_o of x's windows added into +0 one at a time, a = their |t_o| the same way:
//     |s - sum t_o| <= gamma_(k-1) sum |t_o|, a >= (1 - gamma_(k-1)) sum |t_o|;
//   - |s - V| <= (u / (1 - u) + gamma_(k-1)) a / (1 - gamma_(k-1)) <= k u (1 + 2^-31) a, with k at
//     most K = prod(ceil(WindowSize / Strides)) (no dilation: a position is held by at most
//     ceil(WindowSize / Strides) windows along each dimension), K <= 2^20;
//   - e = fl(fl(K a) 2^-53 (1 + 2^-29)) >= K a u (1 + 2^-29)(1 - u)^2 bounds it.
// Undecided elements whose windows share one divisor (always with IncludePadding) are summed
// again as sum dY[o] with TwoSum and divided once, as in the forward; the rest take the plain
// loop's element (avgpool::average_grad_element).
//
// Layout: the last spatial dimension is a row. A task is one row of outputs (forward) or of dX
// (grad), spread over the threads by parallel_for; every element is computed by one task the
// same way, so the bits never depend on the thread count. With stride S along the row, the
// padded input row is split into S interleaved planes, so that every tap of a row of windows is
// one contiguous, vectorised loop of additions (plane r holds the padded positions r, r + S, ...).
#include "average_pooling.hpp"

#include "../fast_sum.hpp"
#include "decide.hpp"
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

namespace dmlref::reference::fast {

namespace {

using avgpool::Coord;

constexpr uint64_t kMaxTaps = uint64_t(1) << 20;

std::atomic<uint64_t> decided_count{0}, exact_count{0}, plain_count{0};

// s[i] += v[i] and a[i] += m[i] for i < n: one tap of a row of windows.
void add_tap(double* __restrict s, double* __restrict a, const double* __restrict v, const double* __restrict m,
             int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        s[i] += v[i];
        a[i] += m[i];
    }
}

// T's rounding of S / D where FastSum f holds S exactly (every addition exact) and the quotient
// is exact; false otherwise.
template <class T> bool exact_quotient(const FastSum& f, double D, T& out) {
    if (f.b != 0 || !std::isfinite(f.s)) return false;
    const double q = f.s / D;
    if (std::fma(-q, D, f.s) != 0) return false;  // the remainder S - q D, exact
    return rounds_to_one(q, q, out);
}

// A padded row split into `step` interleaved planes of `length` doubles: padded position j is
// plane j % step, index j / step. Values and magnitudes side by side.
struct Planes {
    int64_t step = 1, length = 0;
    double* value = nullptr;
    double* magnitude = nullptr;
    double* at(double* base, int64_t j) const { return base + (j % step) * length + j / step; }
};

// Widens count elements x[0], x[xstep], ... into padded positions first, first + 1, ...: plane by
// plane, each a strided read and a contiguous write.
template <class T> void widen_into(const Planes& p, const T* x, int64_t xstep, int64_t first, int64_t count) {
    for (int64_t r = 0; r < p.step; ++r) {
        const int64_t i0 = ((r - first) % p.step + p.step) % p.step;  // the first i with first + i in plane r
        if (i0 >= count) continue;
        const int64_t at = r * p.length + (first + i0) / p.step, n = (count - i0 + p.step - 1) / p.step;
        const int64_t step = xstep * p.step;
        const T* src = x + i0 * xstep;
        double* __restrict v = p.value + at;
        double* __restrict m = p.magnitude + at;
        for (int64_t k = 0; k < n; ++k) {
            const double d = widen_fast(src[k * step]);
            v[k] = d;
            m[k] = std::fabs(d);
        }
    }
}

// Per-call scratch of one thread.
std::vector<double>& scratch() {
    thread_local std::vector<double> s;
    return s;
}

// A dX row's sums and bounds, per thread.
std::vector<double>& row_sums() {
    thread_local std::vector<double> s;
    return s;
}

// A row's decisions (decide_all, decide.hpp): the values and the undecided flags, per thread.
template <class T> struct Decided {
    std::vector<T> value;
    std::vector<uint8_t> undecided;
};
template <class T> Decided<T>& decided_row(int64_t n) {
    thread_local Decided<T> d;
    d.value.resize(size_t(n));
    d.undecided.resize(size_t(n));
    return d;
}

// Writes the row's decided values to out[j * step]; true when every one was decided (the
// caller then has nothing left to do).
template <class T> bool write_decided(const Decided<T>& d, T* out, int64_t step, int64_t n) {
    const T* __restrict value = d.value.data();
    const uint8_t* __restrict undecided = d.undecided.data();
    uint8_t any = 0;
    for (int64_t j = 0; j < n; ++j) any |= undecided[j];
    if (step == 1 && !any) {
        std::memcpy(static_cast<void*>(out), value, size_t(n) * sizeof(T));
        return true;
    }
    for (int64_t j = 0; j < n; ++j)
        if (!undecided[j]) out[j * step] = value[j];
    return !any;
}

// Task `row`'s (n, c) and position `at` along the dimensions before the row's (extents `extent`);
// returns c.
int64_t split_row(int64_t row, const Coord& extent, size_t L, int64_t C, Coord& at, int64_t& n) {
    for (size_t i = L; i-- > 0;) {
        at[i] = row % extent[i];
        row /= extent[i];
    }
    n = row / C;
    return row % C;
}

// ---- Forward -------------------------------------------------------------------------------

template <class T> bool forward(const avgpool::Window& w, const TensorView& X, const TensorView& Y) {
    if (w.taps > kMaxTaps) return false;
    const uint64_t taps = w.taps.get_ui();
    const size_t L = w.spatial - 1;  // the row's dimension
    const int64_t W = w.in[L], OW = w.out[L], S = w.stride[L], dil = w.dilation[L], KW = w.size[L], pad = w.start[L];
    const int64_t Wp = (OW - 1) * S + (KW - 1) * dil + 1;  // padded positions a row of windows reads
    const int64_t length = (Wp + S - 1) / S;
    const int64_t jlo = std::min(pad, Wp), jhi = std::max(jlo, std::min(pad + W, Wp));  // the real ones
    std::vector<int64_t> row_count(static_cast<size_t>(OW));  // real taps along the row, per output
    for (int64_t j = 0; j < OW; ++j) {
        const TapRange r = pooling_real_taps(w, L, j);
        row_count[size_t(j)] = r.hi - r.lo;
    }
    int64_t outer = 1;
    for (size_t i = 0; i < L; ++i) outer *= w.out[i];
    const int64_t C = Y.sizes()[1], rows = int64_t(Y.sizes()[0]) * C * outer;
    const T* x = X.data<T>();
    T* y = Y.data<T>();
    const int64_t xstep = X.strides[L + 2], ystep = Y.strides[L + 2];
    const double n1 = double(taps - 1);
    std::atomic<uint64_t> exact{0}, plain{0};
    parallel_for(rows, [&](int64_t row) {
        std::vector<double>& buffer = scratch();
        buffer.assign(size_t(2 * S * length + 2 * OW), 0.0);
        const Planes p{S, length, buffer.data(), buffer.data() + S * length};
        double* s = p.magnitude + S * length;
        double* a = s + OW;
        Coord o{}, lo{}, hi{}, k{};
        int64_t n = 0;
        const int64_t c = split_row(row, w.out, L, C, o, n);
        int64_t outer_count = 1;
        for (size_t i = 0; i < L; ++i) {
            const TapRange r = pooling_real_taps(w, i, o[i]);
            lo[i] = k[i] = r.lo;
            hi[i] = r.hi;
            outer_count *= r.hi - r.lo;
        }
        if (outer_count > 0 && jhi > jlo) do {
                Coord pos{};
                for (size_t i = 0; i < L; ++i) pos[i] = o[i] * w.stride[i] - w.start[i] + k[i] * w.dilation[i];
                pos[L] = jlo - pad;
                widen_into(p, x + pooling_offset(X.strides, n, c, pos, w.spatial), xstep, jlo, jhi - jlo);
                for (int64_t t = 0; t < KW; ++t) add_tap(s, a, p.at(p.value, t * dil), p.at(p.magnitude, t * dil), OW);
            } while (pooling_next(k, lo, hi, L));
        Coord at = o;
        at[L] = 0;
        T* out = y + pooling_offset(Y.strides, n, c, at, w.spatial);
        uint64_t ex = 0, pl = 0;
        // q and its bound e in place of s and a (one vectorised loop), then the decisions.
        for (int64_t j = 0; j < OW; ++j) {
            const double Dd = double(w.include_padding ? int64_t(taps) : outer_count * row_count[size_t(j)]);
            const double q = s[j] / Dd;
            a[j] = (n1 * (a[j] / Dd) + std::fabs(q)) * 0x1p-53 * (1 + 0x1p-30);
            s[j] = q;
        }
        Decided<T>& d = decided_row<T>(OW);
        decide_all(s, a, d.value.data(), d.undecided.data(), OW);
        if (write_decided(d, out, ystep, OW)) return;
        for (int64_t j = 0; j < OW; ++j) {
            if (!d.undecided[size_t(j)]) continue;
            T& v = out[j * ystep];
            const int64_t D = w.include_padding ? int64_t(taps) : outer_count * row_count[size_t(j)];
            if (D == 0) {  // no real element, IncludePadding FALSE: +0 (DontCare)
                v = T(0);
                continue;
            }
            const double Dd = double(D);
            at[L] = j;
            FastSum f;
            for_each_real_tap(w, at, [&](const Coord& pos) {
                f.add(widen_fast(x[pooling_offset(X.strides, n, c, pos, w.spatial)]));
            });
            if (exact_quotient(f, Dd, v)) {
                ++ex;
                continue;
            }
            v = avgpool::average_element(w, x, X.strides, n, c, at);
            ++pl;
        }
        exact.fetch_add(ex, std::memory_order_relaxed);
        plain.fetch_add(pl, std::memory_order_relaxed);
    });
    decided_count = uint64_t(rows * OW) - exact - plain;
    exact_count = exact.load();
    plain_count = plain.load();
    return true;
}

// ---- Grad ----------------------------------------------------------------------------------

// The dY positions o along dimension i whose windows hold position x: [lo, hi) (no dilation).
TapRange holders(const avgpool::Window& w, size_t i, int64_t x) {
    const int64_t t = x + w.start[i];  // o * stride <= t <= o * stride + size - 1
    const int64_t first = t - w.size[i] + 1;
    const int64_t lo = first <= 0 ? 0 : (first + w.stride[i] - 1) / w.stride[i];
    const int64_t hi = std::min(w.out[i], t / w.stride[i] + 1);
    return {lo, std::max(lo, hi)};
}

template <class T> bool backward(const avgpool::Window& w, const TensorView& dY, const TensorView& dX) {
    if (w.taps > kMaxTaps) return false;
    const uint64_t taps = w.taps.get_ui();
    uint64_t K = 1;  // windows holding one position, at most
    for (size_t i = 0; i < w.spatial; ++i) K *= uint64_t((w.size[i] + w.stride[i] - 1) / w.stride[i]);
    const size_t L = w.spatial - 1;
    const int64_t W = w.in[L], OW = w.out[L], S = w.stride[L], KW = w.size[L], pad = w.start[L];
    int64_t out_outer = 1, in_outer = 1;
    for (size_t i = 0; i < L; ++i) {
        out_outer *= w.out[i];
        in_outer *= w.in[i];
    }
    const int64_t C = dX.sizes()[1], N = dX.sizes()[0];
    const T* dy = dY.data<T>();
    T* dx = dX.data<T>();
    const int64_t dystep = dY.strides[L + 2], dxstep = dX.strides[L + 2];

    // t_o = dY[o] / D(o), and |t_o|, one row of OW per dY row (N, C, outer positions).
    std::vector<int64_t> row_count(static_cast<size_t>(OW));
    for (int64_t j = 0; j < OW; ++j) {
        const TapRange r = pooling_real_taps(w, L, j);
        row_count[size_t(j)] = r.hi - r.lo;
    }
    const int64_t dy_rows = N * C * out_outer;
    // Kept between calls (of this thread): a fresh buffer of this size costs its page faults again.
    // The lambdas below see these through the references (a thread_local named in a lambda would
    // be each worker's own).
    thread_local std::vector<double> kept_terms, kept_magnitudes;
    std::vector<double>& t = kept_terms;
    std::vector<double>& tm = kept_magnitudes;
    t.resize(size_t(dy_rows * OW));
    tm.resize(size_t(dy_rows * OW));
    parallel_for(dy_rows, [&](int64_t row) {
        Coord o{};
        int64_t n = 0;
        const int64_t c = split_row(row, w.out, L, C, o, n);
        int64_t outer_count = 1;
        for (size_t i = 0; i < L; ++i) {
            const TapRange r = pooling_real_taps(w, i, o[i]);
            outer_count *= r.hi - r.lo;
        }
        const T* src = dy + pooling_offset(dY.strides, n, c, o, w.spatial);  // o[L] = 0
        double* tr = t.data() + row * OW;
        double* mr = tm.data() + row * OW;
        for (int64_t j = 0; j < OW; ++j) {
            const int64_t D = w.include_padding ? int64_t(taps) : outer_count * row_count[size_t(j)];
            // A window without a real element holds no dX position: its term is never read.
            const double v = D == 0 ? 0.0 : widen_fast(src[j * dystep]) / double(D);
            tr[j] = v;
            mr[j] = std::fabs(v);
        }
    });

    // dX rows. Along the row, window o's tap k lands on padded position o S + k (position x is
    // x + pad): plane k % S, index o + k / S, so each tap adds a contiguous run of t.
    const int64_t Wp = std::max(W + pad, (OW - 1) * S + KW);
    const int64_t length = (Wp + S - 1) / S + 1;
    const avgpool::Readers readers = avgpool::readers(w);
    const double Kd = double(K);
    std::atomic<uint64_t> exact{0}, plain{0};
    parallel_for(N * C * in_outer, [&](int64_t row) {
        std::vector<double>& buffer = scratch();
        buffer.assign(size_t(2 * S * length), 0.0);
        const Planes p{S, length, buffer.data(), buffer.data() + S * length};
        Coord x{}, lo{}, hi{}, k{};
        int64_t n = 0;
        const int64_t c = split_row(row, w.in, L, C, x, n);
        bool any = true;
        for (size_t i = 0; i < L; ++i) {
            const TapRange r = holders(w, i, x[i]);
            lo[i] = k[i] = r.lo;
            hi[i] = r.hi;
            any = any && r.hi > r.lo;
        }
        if (any) do {
                int64_t dy_row = n * C + c;
                for (size_t i = 0; i < L; ++i) dy_row = dy_row * w.out[i] + k[i];
                const double* tr = t.data() + dy_row * OW;
                const double* mr = tm.data() + dy_row * OW;
                for (int64_t tap = 0; tap < KW; ++tap) {
                    const int64_t shift = (tap % S) * length + tap / S;
                    add_tap(p.value + shift, p.magnitude + shift, tr, mr, OW);
                }
            } while (pooling_next(k, lo, hi, L));
        Coord at = x;
        at[L] = 0;
        T* out = dx + pooling_offset(dX.strides, n, c, at, w.spatial);
        uint64_t ex = 0, pl = 0;
        // The row's sums and bounds in order (padded position j + pad), then the decisions.
        std::vector<double>& sums = row_sums();
        sums.resize(size_t(2 * W));
        double* s = sums.data();
        double* e = s + W;
        for (int64_t r = 0; r < S; ++r) {
            const int64_t j0 = ((r - pad) % S + S) % S;  // the first j with j + pad in plane r
            const double* sv = p.value + r * length + (j0 + pad) / S;
            const double* sm = p.magnitude + r * length + (j0 + pad) / S;
            for (int64_t k = 0, j = j0; j < W; ++k, j += S) {
                s[j] = sv[k];
                e[j] = Kd * sm[k] * 0x1p-53 * (1 + 0x1p-29);
            }
        }
        Decided<T>& d = decided_row<T>(W);
        decide_all(s, e, d.value.data(), d.undecided.data(), W);
        if (write_decided(d, out, dxstep, W)) return;
        for (int64_t j = 0; j < W; ++j) {
            if (!d.undecided[size_t(j)]) continue;
            T& v = out[j * dxstep];
            at[L] = j;
            FastSum f;
            bool one = true;
            mpz_class D = 0;
            for_each_reader(w, readers, at, [&](const Coord& o) {
                const mpz_class d = avgpool::divisor(w, o);
                one = one && (D == 0 || d == D);
                D = d;
                f.add(widen_fast(dy[pooling_offset(dY.strides, n, c, o, w.spatial)]));
            });
            if (one && D != 0 && exact_quotient(f, D.get_d(), v)) {
                ++ex;
                continue;
            }
            v = avgpool::average_grad_element(w, readers, dy, dY.strides, n, c, at);
            ++pl;
        }
        exact.fetch_add(ex, std::memory_order_relaxed);
        plain.fetch_add(pl, std::memory_order_relaxed);
    });
    decided_count = uint64_t(N * C * in_outer * W) - exact - plain;
    exact_count = exact.load();
    plain_count = plain.load();
    return true;
}

}  // namespace

bool average_pool(const avgpool::Window& w, const TensorView& X, const TensorView& Y) {
    switch (X.desc.DataType) {
        case DataType::FLOAT32: return forward<float>(w, X, Y);
        case DataType::FLOAT16: return forward<half>(w, X, Y);
        default: return false;
    }
}

bool average_pool_grad(const avgpool::Window& w, const TensorView& dY, const TensorView& dX) {
    switch (dY.desc.DataType) {
        case DataType::FLOAT32: return backward<float>(w, dY, dX);
        case DataType::FLOAT16: return backward<half>(w, dY, dX);
        default: return false;
    }
}

AveragePoolingFastCounts average_pooling_fast_counts() {
    return {decided_count.load(), exact_count.load(), plain_count.load()};
}

}  // namespace dmlref::reference::fast
