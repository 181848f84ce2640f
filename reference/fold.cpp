// DML_OPERATOR_FOLD and DML_OPERATOR_UNFOLD.
//
// Spec: DML_FOLD_OPERATOR_DESC and DML_UNFOLD_OPERATOR_DESC (DirectML API reference); rules in
// docs/rules.md (fold.*, unfold.*); the decisions in docs/golden.md, "Fold and unfold"; FOLD's
// bound in docs/tolerance.md.
//
// The image {N, C, S[0], ..., S[D-1]} (UNFOLD's InputTensor, FOLD's OutputTensor; D is
// DimensionCount) and the columns {N, C * K, BlockCount} (UNFOLD's OutputTensor, FOLD's
// InputTensor), K = prod(WindowSizes):
//
//   BlocksPerDimension[d] = (S[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1)
//                           / Strides[d] + 1,                BlockCount = prod_d BlocksPerDimension[d]
//
// Column row c * K + k and column l hold channel c's tap k of block l, k and l row-major over the
// spatial dimensions (the first slowest): the pages' examples (ColumnLayout). The tap's image
// position along d is
//
//   x[d] = b[d] * Strides[d] + k[d] * Dilations[d] - StartPadding[d]          (WindowPosition)
//
// and a padding position when outside [0, S[d]).
//
//   UNFOLD: columns[n, c*K + k, l] = image[n, c, x], +0 at a padding position (UnfoldPadding)
//   FOLD:   image[n, c, x] = the sum of columns[n, c*K + k, l] over every (k, l) whose tap lands
//           on x; column elements at padding positions are dropped (PaddedColumns), a position
//           no tap reaches is +0 (UncoveredPosition). Floats: the exact sum rounded once
//           (FloatSum); integers wrap to the width (IntegerOverflow).
//
// The alternative reading IntegerOverflow=Saturate (docs/golden.md, "Alternative readings")
// clamps FOLD's exact integer sum once to the type's range: INT8 100 + 100 is 127, and
// 100 + 100 - 100 is 100 (not 27, as a sum saturated at every step would give). That is what a
// saturating backend computes: a col2im gathers a position's taps into a wide register and stores
// the sum with saturation; a sum saturated after each tap would depend on the order of the taps,
// which the page does not give. It is REDUCE's reading of the same policy (reference/reduction.cpp).
//
// Rules (each with its id, fold.* or unfold.*): InputTensor and OutputTensor have one DataType
// (.same-data-type); DimensionCount is 1 to 6 (.dimension-count: the UNFOLD page's "[1, 6]",
// FOLD's "<= 6" with the tables' 3 dimensions at least); each array has DimensionCount entries
// (.array-length); WindowSizes, Strides and Dilations are at least 1 (.window-nonzero,
// .stride-nonzero, .dilation-nonzero); the image has DimensionCount + 2 dimensions (.image-rank:
// "(N, C, *)"); the dilated window fits the padded image (.window-fits: BlocksPerDimension at
// least 1); the columns have 3 dimensions or the image's, the extra leading ones of size 1
// (.columns-rank, ColumnsRank); and its sizes are N (.batch-size), C * K (.window-channels) and
// BlockCount (.block-count): a BlockCount other than the formula's is an error, never clamped.
#include "fold.hpp"

#include "exact_sum.hpp"
#include "fast_sum.hpp"

#include "dmlref/checked.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

namespace dmlref::reference {

namespace {

using UNFOLD = DML_UNFOLD_OPERATOR_DESC;
using FOLD = DML_FOLD_OPERATOR_DESC;

// One operator's tensors seen as image and columns.
struct Sides {
    std::string_view op;  // the rule ids' prefix
    bool fold;
    const TensorDesc& image;
    std::string_view image_name;
    const TensorDesc& columns;
    std::string_view columns_name;
    uint32_t DimensionCount;
    const std::vector<uint32_t>& WindowSizes;
    const std::vector<uint32_t>& Strides;
    const std::vector<uint32_t>& Dilations;
    const std::vector<uint32_t>& StartPadding;
    const std::vector<uint32_t>& EndPadding;
};

Sides sides(const UNFOLD& d) {
    return {"unfold",         false,         d.InputTensor, "InputTensor", d.OutputTensor, "OutputTensor",
            d.DimensionCount, d.WindowSizes, d.Strides,     d.Dilations,   d.StartPadding, d.EndPadding};
}
Sides sides(const FOLD& d) {
    return {"fold",           true,          d.OutputTensor, "OutputTensor", d.InputTensor,  "InputTensor",
            d.DimensionCount, d.WindowSizes, d.Strides,      d.Dilations,    d.StartPadding, d.EndPadding};
}

bool validate_sides(const Sides& s, Diagnostics& diags) {
    auto rule = [&](std::string_view id) { return std::string(s.op) + "." + std::string(id); };
    const TensorDesc& in = s.fold ? s.columns : s.image;
    const TensorDesc& out = s.fold ? s.image : s.columns;
    require_same_data_type(diags, {{"InputTensor", in}, {"OutputTensor", out}}, rule("same-data-type"));
    const uint32_t D = s.DimensionCount;
    if (D < 1 || D > 6) {
        diags.error(
            "/desc/DimensionCount", rule("dimension-count"),
            "DimensionCount is " + std::to_string(D) + "; it must be 1 to 6 (the spatial dimensions of the image)");
        return false;
    }
    struct Array {
        std::string_view name;
        const std::vector<uint32_t>* v;
        std::string_view nonzero;
    };
    const Array arrays[] = {{"WindowSizes", &s.WindowSizes, "window-nonzero"},
                            {"Strides", &s.Strides, "stride-nonzero"},
                            {"Dilations", &s.Dilations, "dilation-nonzero"},
                            {"StartPadding", &s.StartPadding, ""},
                            {"EndPadding", &s.EndPadding, ""}};
    bool ok = true;
    for (const auto& a : arrays)
        if (a.v->size() != D) {
            diags.error(desc_path(a.name), rule("array-length"),
                        std::string(a.name) + " has " + std::to_string(a.v->size()) +
                            " entries; it must have DimensionCount = " + std::to_string(D));
            ok = false;
        }
    if (!ok) return false;
    for (const auto& a : arrays) {
        if (a.nonzero.empty()) continue;
        for (size_t i = 0; i < D; ++i)
            if ((*a.v)[i] == 0) {
                diags.error(pointer_append(desc_path(a.name), i), rule(a.nonzero),
                            std::string(a.name) + "[" + std::to_string(i) + "] is 0; it must be at least 1");
                ok = false;
            }
    }
    if (s.image.DimensionCount() != D + 2) {
        diags.error(sizes_path(s.image_name), rule("image-rank"),
                    std::string(s.image_name) + " has " + std::to_string(s.image.DimensionCount()) +
                        " dimensions; the image is {N, C, " + "spatial...} with DimensionCount = " + std::to_string(D) +
                        " spatial dimensions, so " + std::to_string(D + 2));
        return false;
    }
    if (!ok) return false;
    for (size_t i = 0; i < D; ++i) {
        const uint64_t padded = uint64_t(s.image.Sizes[i + 2]) + s.StartPadding[i] + s.EndPadding[i];
        const uint64_t extent = uint64_t(s.Dilations[i]) * (s.WindowSizes[i] - 1) + 1;
        if (padded < extent) {
            diags.error(pointer_append(desc_path("WindowSizes"), i), rule("window-fits"),
                        "the window of spatial dimension " + std::to_string(i) + " spans " + std::to_string(extent) +
                            " positions (Dilations * (WindowSizes - 1) + 1) " + "but the padded image has " +
                            std::to_string(padded) +
                            " (size + StartPadding + EndPadding); BlocksPerDimension would be 0");
            ok = false;
        }
    }
    if (!ok) return false;
    const uint32_t r = s.columns.DimensionCount();
    if (r != 3 && r != D + 2) {
        diags.error(sizes_path(s.columns_name), rule("columns-rank"),
                    std::string(s.columns_name) + " has " + std::to_string(r) +
                        " dimensions; the columns {N, C * prod(WindowSizes), BlockCount} have 3 " +
                        "(the pages' examples) or the image's " + std::to_string(D + 2) +
                        " with leading 1s (the pages' \"same DimensionCount\")");
        return false;
    }
    for (uint32_t i = 0; i + 3 < r; ++i)
        if (s.columns.Sizes[i] != 1) {
            diags.error(pointer_append(sizes_path(s.columns_name), i), rule("columns-rank"),
                        std::string(s.columns_name) + ".Sizes[" + std::to_string(i) + "] is " +
                            std::to_string(s.columns.Sizes[i]) +
                            "; dimensions before {N, C * prod(WindowSizes), BlockCount} must be 1");
            return false;
        }
    uint64_t K = 1, L = 1;
    for (size_t i = 0; i < D; ++i) {
        const uint64_t padded = uint64_t(s.image.Sizes[i + 2]) + s.StartPadding[i] + s.EndPadding[i];
        const uint64_t extent = uint64_t(s.Dilations[i]) * (s.WindowSizes[i] - 1) + 1;
        K = saturating_mul(K, s.WindowSizes[i]);
        L = saturating_mul(L, (padded - extent) / s.Strides[i] + 1);
    }
    const std::string p = sizes_path(s.columns_name);
    if (s.columns.Sizes[r - 3] != s.image.Sizes[0]) {
        diags.error(pointer_append(p, r - 3), rule("batch-size"),
                    std::string(s.columns_name) + ".Sizes[" + std::to_string(r - 3) + "] is " +
                        std::to_string(s.columns.Sizes[r - 3]) + "; it is the batch N = " +
                        std::to_string(s.image.Sizes[0]) + " of " + std::string(s.image_name));
        ok = false;
    }
    const uint64_t rows = saturating_mul(s.image.Sizes[1], K);
    if (s.columns.Sizes[r - 2] != rows) {
        diags.error(pointer_append(p, r - 2), rule("window-channels"),
                    std::string(s.columns_name) + ".Sizes[" + std::to_string(r - 2) + "] is " +
                        std::to_string(s.columns.Sizes[r - 2]) +
                        "; it must be C * prod(WindowSizes) = " + std::to_string(s.image.Sizes[1]) + " * " +
                        std::to_string(K) + (rows == kSaturated ? " (beyond 2^64)" : " = " + std::to_string(rows)));
        ok = false;
    }
    if (s.columns.Sizes[r - 1] != L) {
        diags.error(
            pointer_append(p, r - 1), rule("block-count"),
            std::string(s.columns_name) + ".Sizes[" + std::to_string(r - 1) + "] is " +
                std::to_string(s.columns.Sizes[r - 1]) + "; BlockCount = prod(BlocksPerDimension) = " +
                (L == kSaturated ? std::string("beyond 2^64") : std::to_string(L)) +
                " with BlocksPerDimension[d] = (size + StartPadding + EndPadding - Dilations * (WindowSizes - 1) - 1) / Strides + 1");
        ok = false;
    }
    return ok;
}

bool valid_sides(const Sides& s) {
    Diagnostics diags;
    return validate_sides(s, diags) && !diags.has_errors();
}

// The geometry of a valid desc: for every (tap k, block l) its image position (the packed
// spatial index of the image plane), or -1 at a padding position.
struct FoldGeometry {
    size_t D = 0, rank = 0;                      // spatial dimensions; the columns' DimensionCount
    uint64_t N = 0, C = 0, K = 1, L = 1, P = 1;  // taps per window, blocks, positions per plane
    std::vector<int64_t> S, B;
    std::vector<int64_t> target;  // K * L entries, k * L + l
};

FoldGeometry geometry(const Sides& s) {
    FoldGeometry g;
    g.D = s.DimensionCount;
    g.rank = s.columns.DimensionCount();
    g.N = s.image.Sizes[0];
    g.C = s.image.Sizes[1];
    g.S.resize(g.D);
    g.B.resize(g.D);
    for (size_t i = 0; i < g.D; ++i) {
        g.S[i] = s.image.Sizes[i + 2];
        const int64_t extent = int64_t(s.Dilations[i]) * (int64_t(s.WindowSizes[i]) - 1) + 1;
        g.B[i] = (g.S[i] + s.StartPadding[i] + s.EndPadding[i] - extent) / s.Strides[i] + 1;
        g.K *= s.WindowSizes[i];
        g.L *= uint64_t(g.B[i]);
        g.P *= uint64_t(g.S[i]);
    }
    g.target.resize(g.K * g.L);
    std::vector<int64_t> k(g.D, 0), b(g.D, 0);
    for (uint64_t kk = 0; kk < g.K; ++kk) {
        std::fill(b.begin(), b.end(), 0);
        for (uint64_t l = 0; l < g.L; ++l) {
            int64_t pos = 0;
            bool inside = true;
            for (size_t i = 0; i < g.D; ++i) {
                const int64_t x = b[i] * s.Strides[i] + k[i] * s.Dilations[i] - int64_t(s.StartPadding[i]);
                inside = inside && x >= 0 && x < g.S[i];
                pos = pos * g.S[i] + x;
            }
            g.target[kk * g.L + l] = inside ? pos : -1;
            for (size_t i = g.D; i-- > 0;) {
                if (++b[i] < g.B[i]) break;
                b[i] = 0;
            }
        }
        for (size_t i = g.D; i-- > 0;) {
            if (++k[i] < int64_t(s.WindowSizes[i])) break;
            k[i] = 0;
        }
    }
    return g;
}

// FOLD's terms grouped by image position: position p's (k * L + l) entries are
// order[first[p] .. first[p + 1]), in increasing k * L + l.
struct FoldGroups {
    std::vector<uint64_t> first, order;
};

FoldGroups groups(const FoldGeometry& g) {
    FoldGroups r;
    r.first.assign(g.P + 1, 0);
    for (int64_t t : g.target)
        if (t >= 0) ++r.first[uint64_t(t) + 1];
    for (uint64_t p = 0; p < g.P; ++p) r.first[p + 1] += r.first[p];
    r.order.resize(r.first[g.P]);
    std::vector<uint64_t> next(r.first.begin(), r.first.end() - 1);
    for (uint64_t kl = 0; kl < g.target.size(); ++kl)
        if (g.target[kl] >= 0) r.order[next[uint64_t(g.target[kl])]++] = kl;
    return r;
}

// The strided element offset of every image position of a plane, from a view's spatial strides.
std::vector<int64_t> plane_offsets(const FoldGeometry& g, const std::vector<int64_t>& strides) {
    std::vector<int64_t> off(g.P);
    for (uint64_t p = 0; p < g.P; ++p) {
        uint64_t rest = p;
        int64_t o = 0;
        for (size_t i = g.D; i-- > 0;) {
            o += int64_t(rest % uint64_t(g.S[i])) * strides[i + 2];
            rest /= uint64_t(g.S[i]);
        }
        off[p] = o;
    }
    return off;
}

// The columns' logical index of (n, row, l), whatever leading 1s they have.
std::vector<uint64_t> column_index(const FoldGeometry& g, uint64_t n, uint64_t row, uint64_t l) {
    std::vector<uint64_t> idx(g.rank - 3, 0);
    idx.insert(idx.end(), {n, row, l});
    return idx;
}

// "[a,b]" of a row-major index over `sizes`, and the tap's image position.
std::vector<int64_t> unflatten(uint64_t i, const std::vector<int64_t>& sizes) {
    std::vector<int64_t> c(sizes.size());
    for (size_t d = sizes.size(); d-- > 0;) {
        c[d] = int64_t(i % uint64_t(sizes[d]));
        i /= uint64_t(sizes[d]);
    }
    return c;
}
std::string bracket(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

const Sides* sides_of(const OperatorDesc& desc, std::optional<Sides>& holder) {
    if (const auto* f = get_if<FOLD>(&desc)) holder.emplace(sides(*f));
    else if (const auto* u = get_if<UNFOLD>(&desc)) holder.emplace(sides(*u));
    return holder ? &*holder : nullptr;
}

}  // namespace

void validate(const UNFOLD& d, Diagnostics& diags) { validate_sides(sides(d), diags); }
void validate(const FOLD& d, Diagnostics& diags) { validate_sides(sides(d), diags); }

void evaluate(const UNFOLD& d, const Bindings& b) {
    const Sides s = sides(d);
    const FoldGeometry g = geometry(s);
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const size_t w = element_size(d.InputTensor.DataType);
    const std::vector<int64_t> xoff = plane_offsets(g, X.strides);
    const size_t r = g.rank;
    const int64_t ys0 = Y.strides[r - 3], ys1 = Y.strides[r - 2], ys2 = Y.strides[r - 1];
    // A copy of the tap's element, or +0 (all-zero bits in every type) at a padding position.
    for (uint64_t n = 0; n < g.N; ++n)
        for (uint64_t c = 0; c < g.C; ++c) {
            const int64_t plane = int64_t(n) * X.strides[0] + int64_t(c) * X.strides[1];
            for (uint64_t k = 0; k < g.K; ++k) {
                const int64_t row = int64_t(n) * ys0 + int64_t(c * g.K + k) * ys1;
                for (uint64_t l = 0; l < g.L; ++l) {
                    std::byte* dst = Y.base + (row + int64_t(l) * ys2) * int64_t(w);
                    const int64_t t = g.target[k * g.L + l];
                    if (t < 0) std::memset(dst, 0, w);
                    else std::memcpy(dst, X.base + (plane + xoff[uint64_t(t)]) * int64_t(w), w);
                }
            }
        }
}

void evaluate(const FOLD& d, const Bindings& b) {
    const Sides s = sides(d);
    const FoldGeometry g = geometry(s);
    const FoldGroups gr = groups(g);
    const TensorView X(d.InputTensor, b.at("InputTensor"));
    const TensorView Y(d.OutputTensor, b.at("OutputTensor"));
    const std::vector<int64_t> yoff = plane_offsets(g, Y.strides);
    const size_t r = g.rank;
    const int64_t xs0 = X.strides[r - 3], xs1 = X.strides[r - 2], xs2 = X.strides[r - 1];
    // Each (k, l)'s element offset within a (batch, channel) block of rows.
    std::vector<int64_t> coff(g.target.size());
    for (uint64_t kl = 0; kl < coff.size(); ++kl) coff[kl] = int64_t(kl / g.L) * xs1 + int64_t(kl % g.L) * xs2;
    const bool saturate = in_force<"IntegerOverflow", "Saturate">();
    dispatch(d.InputTensor.DataType, [&]<class T>() {
        const T* x = X.data<T>();
        T* y = Y.data<T>();
        for (uint64_t n = 0; n < g.N; ++n)
            for (uint64_t c = 0; c < g.C; ++c) {
                const int64_t in = int64_t(n) * xs0 + int64_t(c * g.K) * xs1;
                const int64_t out = int64_t(n) * Y.strides[0] + int64_t(c) * Y.strides[1];
                for (uint64_t p = 0; p < g.P; ++p) {
                    const uint64_t lo = gr.first[p], hi = gr.first[p + 1];
                    T v;
                    if constexpr (std::is_integral_v<T>) {
                        if (saturate) {
                            // IntegerOverflow=Saturate: exact in int128 (fewer than 2^63 terms
                            // below 2^64 in magnitude), clamped once to T's range.
                            int128_t sum = 0;
                            for (uint64_t t = lo; t < hi; ++t) sum += int128_t(x[in + coff[gr.order[t]]]);
                            y[out + yoff[p]] = T(std::clamp<int128_t>(sum, std::numeric_limits<T>::min(),
                                                                      std::numeric_limits<T>::max()));
                            continue;
                        }
                        uint64_t sum = 0;  // IntegerOverflow=WrapToWidth: two's complement
                        for (uint64_t t = lo; t < hi; ++t) sum += uint64_t(x[in + coff[gr.order[t]]]);
                        v = static_cast<T>(sum);
                    } else {
                        // FloatSum=ExactThenRoundOnce; no term: the empty sum +0 (UncoveredPosition).
                        v = exact_sum_of<T>([&](auto&& add) {
                            for (uint64_t t = lo; t < hi; ++t) add(widen(x[in + coff[gr.order[t]]]));
                        });
                    }
                    y[out + yoff[p]] = v;
                }
            }
    });
}

// ---- Judging (docs/tolerance.md, "Fold and unfold") --------------------------------------------

std::vector<uint32_t> fold_term_counts(const Case& c, std::string_view) {
    const auto* d = get_if<FOLD>(&c.op.Desc);
    if (!d || !valid_sides(sides(*d))) return {};
    const FoldGeometry g = geometry(sides(*d));
    const FoldGroups gr = groups(g);
    std::vector<uint32_t> counts(g.N * g.C * g.P);
    for (uint64_t e = 0; e < counts.size(); ++e) {
        const uint64_t p = e % g.P;
        counts[e] = uint32_t(gr.first[p + 1] - gr.first[p]);
    }
    return counts;
}

void fold_terms(const Case& c, std::string_view, const ArithmeticProfile&, TermSink& sink) {
    const auto* d = get_if<FOLD>(&c.op.Desc);
    if (!d || !valid_sides(sides(*d))) throw std::invalid_argument("fold_terms: not a valid FOLD");
    const auto it = c.inputs.find("InputTensor");
    if (it == c.inputs.end()) throw std::invalid_argument("no InputTensor");
    const FoldGeometry g = geometry(sides(*d));
    const FoldGroups gr = groups(g);
    const std::vector<double> x = logical_doubles(d->InputTensor, it->second);
    for (uint64_t n = 0; n < g.N; ++n)
        for (uint64_t ch = 0; ch < g.C; ++ch)
            for (uint64_t p = 0; p < g.P; ++p) {
                const uint64_t e = (n * g.C + ch) * g.P + p;
                for (uint64_t t = gr.first[p]; t < gr.first[p + 1]; ++t) {
                    const uint64_t kl = gr.order[t];
                    sink.add(e, x[((n * g.C + ch) * g.K + kl / g.L) * g.L + kl % g.L], 1.0, 0.0, false);  // a copy
                }
            }
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool explain_fold(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    std::optional<Sides> holder;
    const Sides* s = sides_of(c.op.Desc, holder);
    if (!s || output != "OutputTensor" || !valid_sides(*s)) return false;
    const FoldGeometry g = geometry(*s);
    std::vector<int64_t> W(s->WindowSizes.begin(), s->WindowSizes.end());
    auto position = [&](uint64_t k, uint64_t l) {  // the tap's image position, padding or not
        const std::vector<int64_t> kk = unflatten(k, W), bb = unflatten(l, g.B);
        std::vector<int64_t> x(g.D);
        for (size_t i = 0; i < g.D; ++i)
            x[i] = bb[i] * s->Strides[i] + kk[i] * s->Dilations[i] - int64_t(s->StartPadding[i]);
        return x;
    };
    auto tap = [&](uint64_t k, uint64_t l) {
        return "tap " + bracket(unflatten(k, W)) + " of block " + bracket(unflatten(l, g.B));
    };
    if (!s->fold) {
        // UNFOLD: column element (n, row, l) is the image element its tap lands on, or +0.
        const uint64_t l = flat % g.L, row = (flat / g.L) % (g.C * g.K), n = flat / (g.L * g.C * g.K);
        const uint64_t ch = row / g.K, k = row % g.K;
        const std::vector<int64_t> x = position(k, l);
        out.facts.emplace_back("column", "row " + std::to_string(row) + " = channel " + std::to_string(ch) + " * " +
                                             std::to_string(g.K) + " + " + tap(k, l));
        out.facts.emplace_back("image position", bracket(x) + " = block * Strides + tap * Dilations - StartPadding");
        const int64_t t = g.target[k * g.L + l];
        if (t < 0) {
            out.facts.emplace_back("value", "a padding position: +0");
        } else {
            std::vector<uint64_t> idx = {n, ch};
            for (int64_t v : x) idx.push_back(uint64_t(v));
            out.inputs.push_back(input_element(c, "InputTensor", idx, "source"));
        }
        out.policies = {"ColumnLayout", "ColumnsRank", "WindowPosition", "UnfoldPadding", "Subnormals"};
        return true;
    }
    // FOLD: image element (n, ch, p) sums the column elements whose taps land on it.
    const FoldGroups gr = groups(g);
    const uint64_t p = flat % g.P, ch = (flat / g.P) % g.C, n = flat / (g.P * g.C);
    const uint64_t terms = gr.first[p + 1] - gr.first[p];
    out.facts.emplace_back("position", "image position " + bracket(unflatten(p, g.S)) + " of channel " +
                                           std::to_string(ch) + ", batch " + std::to_string(n));
    out.facts.emplace_back("terms", std::to_string(terms) + " column element" + (terms == 1 ? "" : "s") +
                                        " (the taps that land here; those at padding positions are dropped)");
    const char* integers = in_force<"IntegerOverflow", "Saturate">() ? "integers clamped to the type's range"
                                                                     : "integers wrap to the width";
    out.facts.emplace_back("formula", terms ? "their exact sum, rounded once (" + std::string(integers) + ")"
                                            : std::string("no tap lands here: the empty sum, +0"));
    const auto it = c.inputs.find("InputTensor");
    const std::vector<double> x = it != c.inputs.end() ? logical_doubles(s->columns, it->second)
                                                       : std::vector<double>();
    for (uint64_t t = gr.first[p]; t < gr.first[p + 1] && t < gr.first[p] + 64; ++t) {
        const uint64_t kl = gr.order[t], k = kl / g.L, l = kl % g.L;
        const uint64_t row = ch * g.K + k;
        const std::vector<uint64_t> idx = column_index(g, n, row, l);
        out.inputs.push_back(input_element(c, "InputTensor", idx, "term"));
        ExplainedTerm term;
        term.tensor = "InputTensor";
        term.index = idx;
        term.value = x.empty() ? 0.0 : x[(n * g.C * g.K + row) * g.L + l];
        term.note = tap(k, l);
        out.terms.push_back(std::move(term));
    }
    out.policies = {"ColumnLayout", "ColumnsRank", "WindowPosition", "PaddedColumns", "UncoveredPosition"};
    if (is_float(s->image.DataType))
        out.policies.insert(out.policies.end(), {"FloatSum", "ZeroResult", "NonFiniteSum", "Subnormals"});
    else out.policies.push_back("IntegerOverflow");
    return true;
}

// ---- Coverage, gen and the work estimate ---------------------------------------------------

void fold_features(const OperatorDesc& desc, std::vector<std::string>& f) {
    std::optional<Sides> holder;
    const Sides* s = sides_of(desc, holder);
    if (!s || !valid_sides(*s)) return;
    bool pad = false, stride = false, overlap = false, dil = false;
    for (size_t i = 0; i < s->DimensionCount; ++i) {
        pad = pad || s->StartPadding[i] || s->EndPadding[i];
        stride = stride || s->Strides[i] > 1;
        dil = dil || s->Dilations[i] > 1;
        overlap = overlap || uint64_t(s->Dilations[i]) * (s->WindowSizes[i] - 1) + 1 > s->Strides[i];
    }
    if (pad) f.push_back("padding");
    if (stride) f.push_back("stride>1");
    if (overlap) f.push_back("overlapping-windows");
    if (dil) f.push_back("dilation>1");
    const uint32_t r = s->columns.DimensionCount();
    if (r == 3) f.push_back("columns-3d");
    if (r == s->DimensionCount + 2 && s->DimensionCount > 1) f.push_back("columns-image-rank");
    if (s->fold) {
        const FoldGeometry g = geometry(*s);
        std::vector<bool> reached(g.P, false);
        for (int64_t t : g.target)
            if (t >= 0) reached[uint64_t(t)] = true;
        if (std::find(reached.begin(), reached.end(), false) != reached.end()) f.push_back("uncovered-positions");
    }
}

uint64_t fold_window_taps(const OperatorDesc& desc) {
    std::optional<Sides> holder;
    const Sides* s = sides_of(desc, holder);
    uint64_t k = 1;
    if (s)
        for (uint32_t w : s->WindowSizes) k = saturating_mul(k, w);
    return k;
}

bool fold_sizes(const kit::SizeRequest& q, std::vector<uint64_t>& out, std::string& error_path, std::string& error) {
    if (q.tensor == q.base) return true;
    const size_t n = q.base_sizes.size();
    if (n < 3) {
        error = "the image has at least 3 dimensions (N, C and a spatial one)";
        return false;
    }
    const size_t D = n - 2;
    const char* names[5] = {"WindowSizes", "Strides", "Dilations", "StartPadding", "EndPadding"};
    const uint64_t fallback[5] = {1, 1, 1, 0, 0};
    std::vector<uint64_t> a[5];
    for (int i = 0; i < 5; ++i) {
        auto v = kit::json_uints(q.desc, names[i], D, fallback[i], error);
        if (!v) {
            error_path = std::string("/desc/") + names[i];
            return false;
        }
        a[i] = *v;
    }
    uint64_t K = 1, L = 1;
    for (size_t i = 0; i < D; ++i) {
        const uint64_t padded = q.base_sizes[i + 2] + a[3][i] + a[4][i];
        if (a[0][i] == 0 || a[1][i] == 0 || a[2][i] == 0 || padded < a[2][i] * (a[0][i] - 1) + 1) {
            error = "no BlockCount: the window of spatial dimension " + std::to_string(i) +
                    " is empty or does not fit in the padded image";
            error_path = "/desc/WindowSizes";
            return false;
        }
        K = saturating_mul(K, a[0][i]);
        L = saturating_mul(L, (padded - (a[2][i] * (a[0][i] - 1) + 1)) / a[1][i] + 1);
    }
    out.assign(n, 1);
    out[n - 3] = q.base_sizes[0];
    out[n - 2] = saturating_mul(q.base_sizes[1], K);
    out[n - 1] = L;
    return true;
}

}  // namespace dmlref::reference
