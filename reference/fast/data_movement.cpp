// The data-movement fast paths (data_movement.hpp): the plain loops' bytes, copied a row at a time.
//
// A row is a run of output elements contiguous in memory (the output's last dimensions, packed);
// the dimensions before it are walked with their own strides, so padded and broadcast layouts
// take the same path. Per operator, what one output row reads:
//   GATHER          the input block after Axis at the row's resolved index (the plain loop's
//                   gathering::resolve, each index once): one memcpy per index; an index out of
//                   range gives zeros, as the plain loop writes where validate_values was not asked.
//   PADDING(1)      per dimension, the input index each output index reads (the plain loop's
//                   padding_source); a row whose leading coordinates fall in the padding is the
//                   value, any other is pieces of consecutive input indices (one memcpy each) and
//                   of the value (one fill), for every mode.
//   DEPTH_TO_SPACE  BlockSize input rows interleaved (the plain loop's depth_space_source names
//                   them); SPACE_TO_DEPTH one input row read every BlockSize elements.
//   TILE            the input block copied once, then doubled in place (memcpy of what is written).
//   JOIN, SPLIT     each tensor of the array copied whole: runs of stride 1 in both tensors with
//                   memcpy, in pieces of 256 KiB, others element by element; where every
//                   tensor's runs are such pieces, all tensors' pieces in one parallel loop.
// Rows, or pieces of runs, are spread over the cores (parallel.hpp); each output byte is written by
// one thread, with the same bits whatever the thread count.
#include "data_movement.hpp"

#include "odometer.hpp"
#include "parallel.hpp"
#include "slice_grad.hpp"

#include "../depth_space.hpp"
#include "../element_copy.hpp"
#include "../gather.hpp"
#include "../padding.hpp"

#include "dmlref/tensor.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

namespace dmlref::reference::fast {

namespace {

// ---- Rows -------------------------------------------------------------------------------------

// Rows of more bytes than this are not grown further by merging dimensions (a row is one task).
constexpr int64_t kMaxRowBytes = int64_t(1) << 18;
// Rows are handed to the cores in tasks of about this many bytes.
constexpr int64_t kTaskBytes = int64_t(1) << 16;

// Whether dimensions [from, R) of t are one contiguous run of elements (those of size 1 ignored).
bool contiguous_from(const TensorView& t, size_t from) {
    int64_t expected = 1;
    for (size_t i = t.sizes().size(); i-- > from;) {
        if (t.sizes()[i] == 1) continue;
        if (t.strides[i] != expected) return false;
        expected *= t.sizes()[i];
    }
    return true;
}

int64_t product(const std::vector<uint32_t>& s, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to; ++i) p *= s[i];
    return p;
}

// f(first, last) over rows [0, rows) of row_bytes each, in tasks spread over the cores.
template <class F> void over_rows(int64_t rows, int64_t row_bytes, F&& f) {
    const int64_t per = std::max<int64_t>(1, kTaskBytes / std::max<int64_t>(1, row_bytes));
    parallel_for((rows + per - 1) / per, [&](int64_t k) { f(k * per, std::min(rows, (k + 1) * per)); });
}

// n elements of type t from y, each U(value) for U the unsigned integer of t's width (the plain
// loops' store of the padding value): one memset where its bytes are equal, else doubled copies.
void fill(std::byte* y, int64_t n, DataType t, uint64_t value) {
    if (n <= 0) return;
    const size_t w = element_size(t);
    std::array<std::byte, 8> e{};
    by_width(t, [&]<class U>() {
        const U v = U(value);
        std::memcpy(e.data(), &v, sizeof(U));
    });
    if (std::all_of(e.begin(), e.begin() + std::ptrdiff_t(w), [&](std::byte x) { return x == e[0]; }))
        return void(std::memset(y, int(e[0]), size_t(n) * w));
    std::memcpy(y, e.data(), w);
    const size_t bytes = size_t(n) * w;
    for (size_t k = w; k < bytes; k *= 2) std::memcpy(y + k, y, std::min(k, bytes - k));
}

// ---- GATHER -----------------------------------------------------------------------------------

// OutputTensor's meaningful sizes are InputTensor's before Axis, IndicesTensor's, then InputTensor's
// after Axis (reference/gather.cpp); fitting them to R dimensions only adds or drops leading 1s, so
// OutputTensor's last R - Axis - 1 dimensions are InputTensor's, and row r of its first Axis + 1
// is (outer coordinate r / M, index element r % M) for the M index elements in row-major order.
bool gather_rows(const DML_GATHER_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView I(d.IndicesTensor, b.at("IndicesTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t R = X.sizes().size(), a = d.Axis;
    if (!contiguous_from(X, a + 1) || !contiguous_from(Y, a + 1)) return false;
    const size_t w = element_size(d.InputTensor.DataType), iw = element_size(d.IndicesTensor.DataType);
    const int64_t inner = product(X.sizes(), a + 1, R), outer = product(X.sizes(), 0, a);
    const int64_t M = int64_t(element_count(d.IndicesTensor));
    // Each index resolved once: the input's coordinate along Axis, or -1 where it is out of range.
    std::vector<int64_t> source(size_t(M), -1);
    Odometer<uint32_t> at(I.sizes().data(), R, 0);
    for (int64_t m = 0; m < M; ++m, at.next()) {
        const auto v = gathering::resolve(d.IndicesTensor.DataType, I.base + at.offset(I.strides.data()) * int64_t(iw),
                                          X.sizes()[a]);
        if (v) source[size_t(m)] = int64_t(*v);
    }
    const size_t row = size_t(inner) * w;
    over_rows(outer * M, int64_t(row), [&](int64_t first, int64_t last) {
        Odometer<uint32_t> y(Y.sizes().data(), a + 1, first);
        Odometer<uint32_t> x(X.sizes().data(), a, first / M);
        int64_t m = first % M;
        for (int64_t r = first; r < last; ++r, y.next()) {
            std::byte* to = Y.base + y.offset(Y.strides.data()) * int64_t(w);
            const int64_t s = source[size_t(m)];
            if (s < 0) std::memset(to, 0, row);
            else std::memcpy(to, X.base + (x.offset(X.strides.data()) + s * X.strides[a]) * int64_t(w), row);
            if (++m == M) {
                m = 0;
                x.next();
            }
        }
    });
    return true;
}

// ---- PADDING and PADDING1 -----------------------------------------------------------------------

template <class D> bool padding_rows(const D& d, const Bindings& b, uint64_t value) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t R = X.sizes().size(), w = element_size(d.OutputTensor.DataType);
    // The row: dimensions [t, R), every one after t unpadded (the same in both tensors).
    size_t t = R - 1;
    while (t > 0 && X.sizes()[t] == Y.sizes()[t] && product(Y.sizes(), t - 1, R) * int64_t(w) <= kMaxRowBytes &&
           contiguous_from(X, t - 1) && contiguous_from(Y, t - 1))
        --t;
    if (!contiguous_from(X, t) || !contiguous_from(Y, t)) return false;
    const int64_t block = product(Y.sizes(), t + 1, R);  // elements per index of dimension t
    // Per dimension up to t, the input index each output index reads (-1: the padding value).
    std::vector<std::vector<int64_t>> source(t + 1);
    for (size_t i = 0; i <= t; ++i)
        for (int64_t o = 0; o < int64_t(Y.sizes()[i]); ++o)
            source[i].push_back(padding_source(d.PaddingMode, o, d.StartPadding[i], d.InputTensor.Sizes[i]));
    // Dimension t in pieces: consecutive input indices (from >= 0), or the value (from -1).
    struct Piece {
        int64_t at, from, count;
    };
    std::vector<Piece> pieces;
    for (int64_t o = 0; o < int64_t(Y.sizes()[t]); ++o) {
        const int64_t s = source[t][size_t(o)];
        if (!pieces.empty()) {
            Piece& p = pieces.back();
            if ((s < 0 && p.from < 0) || (s >= 0 && p.from >= 0 && s == p.from + p.count)) {
                ++p.count;
                continue;
            }
        }
        pieces.push_back({o, s, 1});
    }
    const int64_t row = int64_t(Y.sizes()[t]) * block;
    over_rows(product(Y.sizes(), 0, t), row * int64_t(w), [&](int64_t first, int64_t last) {
        Odometer<uint32_t> c(Y.sizes().data(), t, first);
        for (int64_t r = first; r < last; ++r, c.next()) {
            int64_t yo = 0, xo = 0;
            bool pad = false;
            for (size_t i = 0; i < t; ++i) {
                const int64_t s = source[i][size_t(c.c[i])];
                pad = pad || s < 0;
                yo += c.c[i] * Y.strides[i];
                xo += s * X.strides[i];
            }
            std::byte* y = Y.base + yo * int64_t(w);
            if (pad) {
                fill(y, row, d.OutputTensor.DataType, value);
                continue;
            }
            for (const Piece& p : pieces) {
                std::byte* to = y + p.at * block * int64_t(w);
                if (p.from < 0) fill(to, p.count * block, d.OutputTensor.DataType, value);
                else std::memcpy(to, X.base + (xo + p.from * block) * int64_t(w), size_t(p.count * block) * w);
            }
        }
    });
    return true;
}

// ---- DEPTH_TO_SPACE and SPACE_TO_DEPTH ----------------------------------------------------------

// y[w b + j] = from[j][w] for w < n, j < b.
template <class U> void interleave(U* y, const std::vector<const U*>& from, size_t b, int64_t n) {
    if (b == 1) return void(std::memcpy(y, from[0], size_t(n) * sizeof(U)));
    if constexpr (sizeof(U) <= 4 && std::endian::native == std::endian::little) {
        if (b == 2) {  // a pair is one unsigned integer twice as wide (slice_grad.hpp, widened)
            using Pair = widened<U>;
            const U *a = from[0], *c = from[1];
            for (int64_t i = 0; i < n; ++i) {
                const Pair v = Pair(a[i]) | Pair(Pair(c[i]) << (8 * sizeof(U)));
                std::memcpy(y + 2 * i, &v, sizeof(Pair));
            }
            return;
        }
    }
    for (int64_t i = 0; i < n; ++i)
        for (size_t j = 0; j < b; ++j) y[size_t(i) * b + j] = from[j][i];
}

// y[w] = row[w b + j] for w < n.
template <class U> void deinterleave(U* y, const U* row, size_t b, size_t j, int64_t n) {
    if (b == 1) return void(std::memcpy(y, row, size_t(n) * sizeof(U)));
    if constexpr (sizeof(U) <= 4 && std::endian::native == std::endian::little) {
        if (b == 2) {
            using Pair = widened<U>;
            for (int64_t i = 0; i < n; ++i) {
                Pair v;
                std::memcpy(&v, row + 2 * i, sizeof(Pair));
                y[i] = U(v >> (8 * sizeof(U) * j));
            }
            return;
        }
    }
    for (int64_t i = 0; i < n; ++i) y[i] = row[size_t(i) * b + j];
}

template <class D>
constexpr bool kToSpace = D::kType == OperatorType::DEPTH_TO_SPACE || D::kType == OperatorType::DEPTH_TO_SPACE1;

// One output row {n, c, h, *}: DEPTH_TO_SPACE's column w b + j reads the input row that
// depth_space_source names for column j, at column w; SPACE_TO_DEPTH's column w reads the input row
// it names for column 0, at column w b + j (j its block column).
template <class D> bool depth_space_rows(const D& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    if (!contiguous_from(X, 3) || !contiguous_from(Y, 3)) return false;
    const uint64_t bs = d.BlockSize;
    const uint64_t channels = kToSpace<D> ? d.OutputTensor.Sizes[1] : d.InputTensor.Sizes[1];
    const int64_t width = Y.sizes()[3];
    const size_t w = element_size(d.OutputTensor.DataType);
    auto input_offset = [&](const std::array<uint64_t, 4>& s) {
        int64_t o = 0;
        for (size_t i = 0; i < 4; ++i) o += int64_t(s[i]) * X.strides[i];
        return o;
    };
    by_width(d.OutputTensor.DataType, [&]<class U>() {
        const U* x = X.data<U>();
        over_rows(product(Y.sizes(), 0, 3), width * int64_t(w), [&](int64_t first, int64_t last) {
            std::vector<const U*> from(kToSpace<D> ? bs : 1);
            Odometer<uint32_t> c(Y.sizes().data(), 3, first);
            for (int64_t r = first; r < last; ++r, c.next()) {
                U* y = Y.data<U>() + c.offset(Y.strides.data());
                const std::array<uint64_t, 4> o{uint64_t(c.c[0]), uint64_t(c.c[1]), uint64_t(c.c[2]), 0};
                if constexpr (kToSpace<D>) {
                    for (uint64_t j = 0; j < bs; ++j) {
                        std::array<uint64_t, 4> s = depth_space_source(true, d.Order, bs, channels,
                                                                       {o[0], o[1], o[2], j});
                        s[3] = 0;  // the row's start; column w is at w (stride 1)
                        from[j] = x + input_offset(s);
                    }
                    interleave<U>(y, from, bs, width / int64_t(bs));
                } else {
                    std::array<uint64_t, 4> s = depth_space_source(false, d.Order, bs, channels, o);
                    const uint64_t j = s[3];
                    s[3] = 0;
                    deinterleave<U>(y, x + input_offset(s), bs, j, width);
                }
            }
        });
    });
    return true;
}

// ---- TILE ---------------------------------------------------------------------------------------

// The row: OutputTensor's dimensions [t, R), none after t repeated, so a row is Repeats[t] copies
// of InputTensor's block [t, R) at the row's leading coordinates modulo InputTensor's sizes.
bool tile_rows(const DML_TILE_OPERATOR_DESC& d, const Bindings& b) {
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t R = X.sizes().size(), w = element_size(d.OutputTensor.DataType);
    size_t t = R - 1;
    while (t > 0 && d.Repeats[t] == 1 && product(Y.sizes(), t - 1, R) * int64_t(w) <= kMaxRowBytes &&
           contiguous_from(X, t - 1) && contiguous_from(Y, t - 1))
        --t;
    if (!contiguous_from(X, t) || !contiguous_from(Y, t)) return false;
    const size_t piece = size_t(product(X.sizes(), t, R)) * w, row = size_t(product(Y.sizes(), t, R)) * w;
    over_rows(product(Y.sizes(), 0, t), int64_t(row), [&](int64_t first, int64_t last) {
        Odometer<uint32_t> c(Y.sizes().data(), t, first);
        for (int64_t r = first; r < last; ++r, c.next()) {
            int64_t xo = 0;
            for (size_t i = 0; i < t; ++i) xo += (c.c[i] % int64_t(X.sizes()[i])) * X.strides[i];
            std::byte* y = Y.base + c.offset(Y.strides.data()) * int64_t(w);
            std::memcpy(y, X.base + xo * int64_t(w), piece);
            for (size_t k = piece; k < row; k *= 2) std::memcpy(y + k, y, std::min(k, row - k));
        }
    });
    return true;
}

// ---- JOIN and SPLIT -----------------------------------------------------------------------------

// n elements: to[i * ts] = from[i * fs].
template <class U> void copy_run(std::byte* to, int64_t ts, const std::byte* from, int64_t fs, int64_t n) {
    U* y = reinterpret_cast<U*>(to);
    const U* x = reinterpret_cast<const U*>(from);
    for (int64_t i = 0; i < n; ++i) y[i * ts] = x[i * fs];
}

// dst[dst_base + dst_strides c] = src[src_base + src_strides c] for every c in `sizes` (copy_elements'
// copy), w bytes an element: dimensions of size 1 dropped, contiguous ones merged (as
// for_each_run), the runs of stride 1 in both copied with memcpy in pieces of at most kPiece bytes.
constexpr int64_t kPiece = int64_t(1) << 18;
struct Block {
    std::byte* dst;
    const std::byte* src;
    int64_t w;
    std::vector<int64_t> size, ds, ss;  // merged dimensions, the last one the run
    int64_t rows() const {
        int64_t r = 1;
        for (size_t i = 0; i + 1 < size.size(); ++i) r *= size[i];
        return r;
    }
    bool unit() const { return ds.back() == 1 && ss.back() == 1; }
};
Block merged(const std::vector<uint32_t>& sizes, std::byte* dst, const int64_t* dst_strides, int64_t dst_base,
             const std::byte* src, const int64_t* src_strides, int64_t src_base, DataType t) {
    Block k{nullptr, nullptr, int64_t(element_size(t)), {}, {}, {}};
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == 1) continue;
        if (!k.size.empty() && k.ds.back() == dst_strides[i] * sizes[i] && k.ss.back() == src_strides[i] * sizes[i]) {
            k.size.back() *= sizes[i];
            k.ds.back() = dst_strides[i];
            k.ss.back() = src_strides[i];
            continue;
        }
        k.size.push_back(sizes[i]);
        k.ds.push_back(dst_strides[i]);
        k.ss.push_back(src_strides[i]);
    }
    k.dst = dst + dst_base * k.w;
    k.src = src + src_base * k.w;
    return k;
}

// One memcpy of a block whose runs are of stride 1 in both tensors.
struct Piece {
    std::byte* to;
    const std::byte* from;
    size_t bytes;
};
// Appends a unit block's pieces: each run cut into pieces of at most kPiece bytes.
void append_pieces(const Block& k, std::vector<Piece>& out) {
    const size_t outer = k.size.size() - 1;
    const int64_t n = k.size.back(), per = std::max<int64_t>(1, kPiece / k.w), rows = k.rows();
    Odometer<int64_t> c(k.size.data(), outer, 0);
    for (int64_t r = 0; r < rows; ++r, c.next()) {
        std::byte* to = k.dst + c.offset(k.ds.data()) * k.w;
        const std::byte* from = k.src + c.offset(k.ss.data()) * k.w;
        for (int64_t b = 0; b < n; b += per)
            out.push_back({to + b * k.w, from + b * k.w, size_t(std::min(per, n - b) * k.w)});
    }
}

// The pieces copied, spread over the cores.
void copy_pieces(const std::vector<Piece>& pieces) {
    parallel_for(int64_t(pieces.size()), [&](int64_t i) {
        std::memcpy(pieces[size_t(i)].to, pieces[size_t(i)].from, pieces[size_t(i)].bytes);
    });
}

void copy_block(const Block& k, DataType t) {
    const int64_t w = k.w;
    if (k.size.empty()) return void(std::memcpy(k.dst, k.src, size_t(w)));
    const int64_t n = k.size.back(), dstep = k.ds.back(), sstep = k.ss.back();
    const bool unit = k.unit();
    if (unit && n * w > kPiece) {  // runs of more than one piece
        std::vector<Piece> pieces;
        append_pieces(k, pieces);
        return copy_pieces(pieces);
    }
    auto run = [&](int64_t row_offset_d, int64_t row_offset_s) {
        std::byte* to = k.dst + row_offset_d * w;
        const std::byte* from = k.src + row_offset_s * w;
        if (unit) return void(std::memcpy(to, from, size_t(n * w)));
        by_width(t, [&]<class U>() { copy_run<U>(to, dstep, from, sstep, n); });
    };
    over_rows(k.rows(), n * w, [&](int64_t first, int64_t last) {
        Odometer<int64_t> c(k.size.data(), k.size.size() - 1, first);
        for (int64_t r = first; r < last; ++r, c.next()) run(c.offset(k.ds.data()), c.offset(k.ss.data()));
    });
}

// Tensor k of the array is the single tensor's stretch of Axis from Start[k] (reference/join_split.cpp).
// Where every tensor's runs are of stride 1 and at least kPiece bytes (a join or split along an
// outer axis of packed tensors), the pieces of all of them are spread over the cores in one
// parallel loop (one fork and one join, the load balanced across the tensors); otherwise each
// tensor is one copy_block.
bool join_split_blocks(const std::vector<TensorDesc>& array, std::string_view array_name, const TensorDesc& one,
                       std::string_view one_name, uint32_t axis, const Bindings& b, bool into_one) {
    const TensorView S(one, b.at(one_name));
    std::vector<Block> blocks;
    int64_t start = 0, piece_count = 0;
    bool together = true;
    for (size_t k = 0; k < array.size(); ++k) {
        const TensorView A(array[k], b.at(tensor_array_element(array_name, k)));
        const int64_t at = start * S.strides[axis];
        blocks.push_back(
            into_one ? merged(A.sizes(), S.base, S.strides.data(), at, A.base, A.strides.data(), 0, one.DataType)
                     : merged(A.sizes(), A.base, A.strides.data(), 0, S.base, S.strides.data(), at, one.DataType));
        const Block& blk = blocks.back();
        together = together && !blk.size.empty() && blk.unit() && blk.size.back() * blk.w >= kPiece;
        if (together) piece_count += blk.rows() * ((blk.size.back() * blk.w + kPiece - 1) / kPiece);
        start += array[k].Sizes[axis];
    }
    if (together && piece_count <= (int64_t(1) << 20)) {
        std::vector<Piece> pieces;
        pieces.reserve(size_t(piece_count));
        for (const Block& blk : blocks) append_pieces(blk, pieces);
        copy_pieces(pieces);
        return true;
    }
    for (const Block& blk : blocks) copy_block(blk, one.DataType);
    return true;
}

}  // namespace

bool data_movement_fast(const DML_GATHER_OPERATOR_DESC& d, const Bindings& b) { return gather_rows(d, b); }
bool data_movement_fast(const DML_PADDING_OPERATOR_DESC& d, const Bindings& b) {
    return padding_rows(d, b, padding_value_bits(d));
}
bool data_movement_fast(const DML_PADDING1_OPERATOR_DESC& d, const Bindings& b) {
    return padding_rows(d, b, padding_value_bits(d));
}
bool data_movement_fast(const DML_DEPTH_TO_SPACE_OPERATOR_DESC& d, const Bindings& b) { return depth_space_rows(d, b); }
bool data_movement_fast(const DML_DEPTH_TO_SPACE1_OPERATOR_DESC& d, const Bindings& b) {
    return depth_space_rows(d, b);
}
bool data_movement_fast(const DML_SPACE_TO_DEPTH_OPERATOR_DESC& d, const Bindings& b) { return depth_space_rows(d, b); }
bool data_movement_fast(const DML_SPACE_TO_DEPTH1_OPERATOR_DESC& d, const Bindings& b) {
    return depth_space_rows(d, b);
}
bool data_movement_fast(const DML_TILE_OPERATOR_DESC& d, const Bindings& b) { return tile_rows(d, b); }
bool data_movement_fast(const DML_JOIN_OPERATOR_DESC& d, const Bindings& b) {
    return join_split_blocks(d.InputTensors, "InputTensors", d.OutputTensor, "OutputTensor", d.Axis, b, true);
}
bool data_movement_fast(const DML_SPLIT_OPERATOR_DESC& d, const Bindings& b) {
    return join_split_blocks(d.OutputTensors, "OutputTensors", d.InputTensor, "InputTensor", d.Axis, b, false);
}

}  // namespace dmlref::reference::fast
