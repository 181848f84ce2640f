// The RESAMPLE family's terms under a coordinate arithmetic (include/dmlref/terms.hpp, docs/tolerance.md)
// and the nearest-neighbour boundary they imply; the operators themselves are in resample.cpp.

#include "resample.hpp"
#include "resample_internal.hpp"

#include "dmlref/explain.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dmlref::reference {

namespace resampling {

namespace {

// ---- Terms under a coordinate arithmetic (dmlref/terms.hpp, docs/tolerance.md) ---------------

// One position's taps as a conforming backend may form them: the golden's weight (0 for a ghost
// tap only other arithmetic adds), the most another admitted formula's weight differs from it,
// and whether the tap is an admissible reading (nearest neighbour: it may go to either index).
struct ProfileTap {
    uint32_t index;
    double weight;
    double delta;
    bool ambiguous;
    bool split;  // a ghost product of weight 0 (a clamped edge a backend splits into two taps)
};
struct ProfileAxis {
    std::vector<ProfileTap> taps;
    std::vector<uint32_t> first{0};
};

// The coordinate of output position o under one formula (Coordinates in dmlref/bound.hpp).
// opo is the OutputPixelOffset with the old nearest-neighbour rule's -0.5 already applied.
std::vector<double> formula_coordinates(Coordinates f, uint32_t o, float Scale, float ipo, float opo) {
    const double x64 = (double(o) - double(opo)) / double(Scale) - double(ipo);
    const float a = float(o) - opo;
    const float r1 = 1.0f / Scale, r2 = float(1.0 / double(Scale));
    std::vector<double> xs;
    if (f == Coordinates::Any || f == Coordinates::Float64) xs.push_back(x64);
    if (f == Coordinates::Any || f == Coordinates::Float32Division) xs.push_back(double(a / Scale - ipo));
    if (f == Coordinates::Any || f == Coordinates::Float32Reciprocal) {
        xs.push_back(double(a * r1 - ipo));
        xs.push_back(double(a * r2 - ipo));
    }
    if (f == Coordinates::Any || f == Coordinates::Float32ReciprocalFma) {
        xs.push_back(double(std::fmaf(a, r1, -ipo)));
        xs.push_back(double(std::fmaf(a, r2, -ipo)));
    }
    return xs;
}

ProfileAxis profile_axis(const Params& p, size_t i, Coordinates f) {
    const uint32_t in = p.input.desc.Sizes[i], out = p.output.desc.Sizes[i];
    const float Scale = p.Scales[i];
    const float ipo = p.InputPixelOffsets ? (*p.InputPixelOffsets)[i] : 0.5f;
    const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    const bool old_rule = nearest && !p.RoundingDirection;
    const bool ceil = p.RoundingDirection == DML_AXIS_DIRECTION_INCREASING;
    const float opo = (p.OutputPixelOffsets ? (*p.OutputPixelOffsets)[i] : -0.5f) - (old_rule ? 0.5f : 0.0f);
    // w0 = 1 - w1 rounds once in float32 (exactly in float64).
    const double weight_rounding = f == Coordinates::Float64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    const Axis golden = forward_axis(p, i);
    ProfileAxis a;
    for (uint32_t o = 0; o < out; ++o) {
        const std::vector<double> xs = formula_coordinates(f, o, Scale, ipo, opo);
        const double x = (double(o) - double(opo)) / double(Scale) - double(ipo);
        double eps = 0;
        for (double y : xs) eps = std::max(eps, std::fabs(y - x));
        auto golden_weight = [&](uint32_t j) {
            double w = 0;
            for (uint32_t k = golden.first[o]; k < golden.first[o + 1]; ++k)
                if (golden.taps[k].index == j) w += golden.taps[k].weight;
            return w;
        };
        const double lo = x - eps, hi = x + eps;
        if (nearest) {
            const uint32_t j_lo = nearest_index(lo, ceil, in), j_hi = nearest_index(hi, ceil, in);
            const uint32_t j64 = golden.taps[golden.first[o]].index;
            const bool amb = j_lo != j_hi;
            for (uint32_t j = j_lo; j <= j_hi; ++j)
                a.taps.push_back({j, j == j64 ? 1.0 : 0.0, amb ? 1.0 : 0.0, amb, false});
        } else if (stretched(p, i)) {
            // RESAMPLE3's stretched filter (docs/tolerance.md, "Resampling"): a backend forms
            // t_j = 1 - |j - x'| Scale within e of the golden's (x' within eps of x, three
            // roundings), sums n of them into T' within n (e + u T) of T, and divides: its weight
            // differs from t_j / T by at most (e + w_j n (e + u T)) / (T - n (e + u T)) + 2 u w_j.
            const double s = double(Scale), top = double(in - 1), u = weight_rounding;
            const double clo = std::clamp(lo, 0.0, top), chi = std::clamp(hi, 0.0, top), xc = std::clamp(x, 0.0, top);
            const double half = 1 / s;
            const uint32_t j0 = uint32_t(std::max(0.0, std::floor(clo - half))),
                           j1 = uint32_t(std::min(top, std::ceil(chi + half)));
            double total = 0;
            for (uint32_t j = j0; j <= j1; ++j) total += std::max(0.0, stretched_triangle(double(j), xc, s));
            const double e = s * eps * (1 + u) + 4 * u, n = double(j1 - j0 + 1);
            const double denominator = total - n * (e + u * total);
            for (uint32_t j = j0; j <= j1; ++j) {
                const double w = golden_weight(j);
                const bool reached = double(j) > clo - half && double(j) < chi + half;
                if (w == 0 && !reached) continue;
                const double delta = denominator > 0 ? 1.01 * ((e + w * n * (e + u * total)) / denominator + 2 * u * w)
                                                     : std::numeric_limits<double>::infinity();
                a.taps.push_back({j, w, delta, false, false});
            }
        } else {
            const double top = double(in - 1);
            const double clo = std::clamp(lo, 0.0, top), chi = std::clamp(hi, 0.0, top);
            const uint32_t j0 = uint32_t(std::floor(clo)), j1 = std::min(uint32_t(std::floor(chi)) + 1, in - 1);
            for (uint32_t j = j0; j <= j1; ++j) {
                const double w = golden_weight(j);
                // The hat function of index j is non-zero somewhere on [clo, chi]?
                const bool reached = clo < double(j) + 1 && chi > double(j) - 1;
                if (w == 0 && !reached) continue;
                a.taps.push_back({j, w, eps + weight_rounding, false, false});
            }
            // A coordinate past an edge: a backend may split the edge element's weight 1 into
            // two taps on it (w0 and w1 on index In - 1, or 1 and 0 on index 0).
            if (hi > top || lo < 0) a.taps.push_back({hi > top ? in - 1 : 0, 0.0, 0.0, false, true});
        }
        a.first.push_back(uint32_t(a.taps.size()));
    }
    return a;
}

// Calls f(flat forward-output index, flat forward-input index, weight, delta, ambiguous, split)
// for every combination of one tap per dimension of every forward output position.
template <class F> void for_each_profile_term(const Params& p, Coordinates coordinates, F&& f) {
    std::vector<ProfileAxis> axes;
    for (size_t i = 0; i < p.count; ++i) axes.push_back(profile_axis(p, i, coordinates));
    const bool linear = p.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
    const auto in_packed = packed_strides(p.input.desc.Sizes);
    const size_t n = axes.size();
    Coord c{};
    uint64_t out_index = 0;
    do {
        Coord k{};
        bool empty = false;
        for (size_t i = 0; i < n; ++i) {
            k[i] = axes[i].first[c[i]];
            empty = empty || k[i] == axes[i].first[c[i] + 1];
        }
        while (!empty) {
            double weight = 1, delta = 0;
            bool ambiguous = false, split = false;
            int64_t in_index = 0;
            for (size_t i = 0; i < n; ++i) {
                const ProfileTap& t = axes[i].taps[k[i]];
                weight *= t.weight;  // exact: products of float64 weights in [0, 1] as the evaluate loop forms them
                delta += t.delta;    // |product of w' - product of w| <= sum of |w' - w| for weights in [0, 1]
                ambiguous = ambiguous || t.ambiguous;
                split = split || t.split;
                in_index += int64_t(t.index) * in_packed[i];
            }
            // A backend multiplies its axis weights in float32: one rounding per extra axis.
            if (linear && n > 1) delta += double(n - 1) * std::ldexp(1.0, -24);
            f(out_index, uint64_t(in_index), split ? 0.0 : weight, split ? 0.0 : delta, ambiguous, split);
            size_t i = n;
            for (;;) {
                if (i == 0) {
                    empty = true;
                    break;
                }
                --i;
                if (++k[i] < axes[i].first[c[i] + 1]) break;
                k[i] = axes[i].first[c[i]];
            }
        }
        ++out_index;
    } while (next(c, p.output.desc.Sizes));
}

// ---- Annotations ---------------------------------------------------------------------------

constexpr std::string_view kBoundaryReason =
    "NearestNeighborRounding: the coordinate is within the coordinate arithmetic's error bound of an integer, so a "
    "conforming backend may pick either input element (an admissible reading; docs/tolerance.md, docs/golden.md)";

// Nearest neighbour: forward output elements (grad == false) with a dimension whose coordinate
// an admitted formula (Coordinates::Any) may round to another index; for a grad, the dX
// elements such a dY element may send its gradient to.
Boundary nearest_boundary(const Params& p, bool grad) {
    Boundary r;
    if (p.InterpolationMode != DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR) return r;
    std::vector<bool> flagged(grad ? element_count(p.input.desc) : element_count(p.output.desc));
    for_each_profile_term(p, Coordinates::Any, [&](uint64_t o, uint64_t in, double, double, bool ambiguous, bool) {
        if (ambiguous) flagged[grad ? in : o] = true;
    });
    for (size_t e = 0; e < flagged.size(); ++e)
        if (flagged[e]) r.Indices.push_back(e);
    if (!r.Indices.empty()) r.Reason = std::string(kBoundaryReason);
    return r;
}

}  // namespace

}  // namespace resampling

// ---- The operators' boundary ----------------------------------------------------------------

Boundary boundary(const DML_RESAMPLE_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && resampling::valid(d) ? resampling::nearest_boundary(resampling::params(d), false)
                                                            : Boundary{};
}
Boundary boundary(const DML_RESAMPLE1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && resampling::valid(d) ? resampling::nearest_boundary(resampling::params(d), false)
                                                            : Boundary{};
}
Boundary boundary(const DML_RESAMPLE2_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && resampling::valid(d) ? resampling::nearest_boundary(resampling::params(d), false)
                                                            : Boundary{};
}
Boundary boundary(const DML_RESAMPLE3_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputTensor" && resampling::valid(d) ? resampling::nearest_boundary(resampling::params(d), false)
                                                            : Boundary{};
}
Boundary boundary(const DML_RESAMPLE_GRAD_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputGradientTensor" && resampling::valid(d)
               ? resampling::nearest_boundary(resampling::params(d), true)
               : Boundary{};
}
Boundary boundary(const DML_RESAMPLE_GRAD1_OPERATOR_DESC& d, std::string_view output) {
    return output == "OutputGradientTensor" && resampling::valid(d)
               ? resampling::nearest_boundary(resampling::params(d), true)
               : Boundary{};
}

}  // namespace dmlref::reference

namespace dmlref {

void resample_terms(const Operator& op, std::span<const std::byte> values, Coordinates coordinates, TermSink& sink) {
    using namespace reference;
    using namespace reference::resampling;
    visit_as<DML_RESAMPLE_OPERATOR_DESC, DML_RESAMPLE1_OPERATOR_DESC, DML_RESAMPLE2_OPERATOR_DESC,
             DML_RESAMPLE3_OPERATOR_DESC, DML_RESAMPLE_GRAD_OPERATOR_DESC, DML_RESAMPLE_GRAD1_OPERATOR_DESC>(
        op.Desc,
        [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        constexpr bool grad = std::is_same_v<D, DML_RESAMPLE_GRAD_OPERATOR_DESC> ||
                              std::is_same_v<D, DML_RESAMPLE_GRAD1_OPERATOR_DESC>;
        if constexpr (std::is_same_v<D, DML_RESAMPLE_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE1_OPERATOR_DESC> ||
                      std::is_same_v<D, DML_RESAMPLE2_OPERATOR_DESC> ||
                      std::is_same_v<D, DML_RESAMPLE3_OPERATOR_DESC> || grad) {
            if (!resampling::valid(d)) throw std::invalid_argument("resample_terms: the desc does not validate");
            const Params p = params(d);
            // Forward: the terms read InputTensor; grad: they read dY (the forward output's shape).
            const TensorDesc& vd = grad ? p.output.desc : p.input.desc;
            if (values.size() < buffer_size(vd)) throw std::invalid_argument("resample_terms: the buffer is too small");
            const bool linear = p.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
            dispatch(vd.DataType, [&]<class T>() {
                if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
                    const std::vector<std::byte> bytes = gather_logical(vd, values);
                    const T* v = reinterpret_cast<const T*>(bytes.data());
                    // A grad's ambiguous term lands in one of its candidate elements: link them
                    // (consecutive calls for one dY element o), so that their total is checked.
                    uint64_t last_o = ~uint64_t(0), last_in = 0;
                    for_each_profile_term(
                        p, coordinates,
                        [&](uint64_t o, uint64_t in, double w, double delta, bool ambiguous, bool split) {
                        if (grad) sink.add(in, widen(v[o]), w, delta, linear || split, ambiguous);
                        else sink.add(o, widen(v[in]), w, delta, linear || split, ambiguous);
                        if (grad && ambiguous && o == last_o) sink.link(last_in, in);
                        if (ambiguous) {
                            last_o = o;
                            last_in = in;
                        }
                        });
                } else {
                    throw std::invalid_argument("resample_terms: float types only");
                }
            });
        } else {
            throw std::invalid_argument("resample_terms: not a resample operator");
        }
        });
}

// ---- explain (dmlref/explain.hpp, docs/explain.md) -------------------------------------------

bool reference::explain_resample(const Case& c, std::string_view output, uint64_t flat, FamilyExplanation& out) {
    return explain_resample_as(c, c.op, output, flat, out);
}

bool reference::explain_resample_as(const Case& c, const Operator& op, std::string_view output, uint64_t flat,
                                    FamilyExplanation& out) {
    using namespace resampling;
    return visit_as<DML_RESAMPLE_OPERATOR_DESC, DML_RESAMPLE1_OPERATOR_DESC, DML_RESAMPLE2_OPERATOR_DESC,
                    DML_RESAMPLE3_OPERATOR_DESC, DML_RESAMPLE_GRAD_OPERATOR_DESC, DML_RESAMPLE_GRAD1_OPERATOR_DESC>(
        op.Desc,
        [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        constexpr bool grad = std::is_same_v<D, DML_RESAMPLE_GRAD_OPERATOR_DESC> ||
                              std::is_same_v<D, DML_RESAMPLE_GRAD1_OPERATOR_DESC>;
        if constexpr (std::is_same_v<D, DML_RESAMPLE_OPERATOR_DESC> || std::is_same_v<D, DML_RESAMPLE1_OPERATOR_DESC> ||
                      std::is_same_v<D, DML_RESAMPLE2_OPERATOR_DESC> ||
                      std::is_same_v<D, DML_RESAMPLE3_OPERATOR_DESC> || grad) {
            if (!resampling::valid(d)) return false;
            const Params p = params(d);
            const bool nearest = p.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
            const bool old_rule = nearest && !p.RoundingDirection;
            // The explained element's tensor (the output, or the grad's dX = the forward input)
            // and the tensor its taps read (the forward input, or the grad's dY).
            const TensorDesc& mine = grad ? p.input.desc : p.output.desc;
            const Named& read = grad ? p.output : p.input;
            if (output != (grad ? p.input.name : p.output.name)) return false;
            const std::vector<uint64_t> at = nd_coordinate(mine.Sizes, flat);
            Coord cc{};
            for (size_t i = 0; i < at.size(); ++i) cc[i] = uint32_t(at[i]);
            // The coordinate of forward output position o along dimension i (ResampleCoordinate).
            auto coordinate = [&](size_t i, uint32_t o) {
                const float ipo = p.InputPixelOffsets ? (*p.InputPixelOffsets)[i] : 0.5f;
                const float opo = (p.OutputPixelOffsets ? (*p.OutputPixelOffsets)[i] : -0.5f) -
                                  (old_rule ? 0.5f : 0.0f);
                return formula_coordinates(Coordinates::Float64, o, p.Scales[i], ipo, opo)[0];
            };
            const std::vector<Axis> axes = grad ? inverse_axes(p) : forward_axes(p);
            for (size_t i = 0; i < p.count; ++i) {
                std::string text;
                const Axis& a = axes[i];
                if (!grad) {
                    text = "x = " + format_exact_value(DataType::FLOAT64, to_bits(coordinate(i, cc[i]))) + " ->";
                    for (uint32_t k = a.first[cc[i]]; k < a.first[cc[i] + 1]; ++k)
                        text += " input " + std::to_string(a.taps[k].index) + " (weight " +
                                format_exact_value(DataType::FLOAT64, to_bits(a.taps[k].weight)) + ")";
                } else {
                    text = "read by";
                    for (uint32_t k = a.first[cc[i]]; k < a.first[cc[i] + 1]; ++k)
                        text += " output " + std::to_string(a.taps[k].index) + " (x = " +
                                format_exact_value(DataType::FLOAT64, to_bits(coordinate(i, a.taps[k].index))) +
                                ", weight " + format_exact_value(DataType::FLOAT64, to_bits(a.taps[k].weight)) + ")";
                    if (a.first[cc[i]] == a.first[cc[i] + 1]) text += " no output position";
                }
                out.facts.emplace_back(
                    "dimension " + std::to_string(i),
                    text + " [Scale " + format_exact_value(DataType::FLOAT32, to_bits(p.Scales[i])) + "]");
            }
            const auto strides = packed_strides(read.desc.Sizes);
            for_each_tap(axes, cc, strides, [&](int64_t offset, double weight) {
                const std::vector<uint64_t> idx = nd_coordinate(read.desc.Sizes, uint64_t(offset));
                ExplainedInput in = input_element(c, std::string(read.name), idx, grad ? "dY" : "tap");
                if (grad || !nearest)
                    out.terms.push_back({std::string(read.name), idx, element_value(in.type, in.bits), weight, ""});
                out.inputs.push_back(std::move(in));
            });
            out.policies.insert(out.policies.end(), {"ResampleCoordinate", "ScalesAndOffsets"});
            if (nearest) out.policies.push_back(old_rule ? "OldNearestNeighbor" : "NearestNeighborRounding");
            if (nearest && !grad) out.policies.push_back("NearestNeighborValue");
            if (!nearest) out.policies.insert(out.policies.end(), {"LinearInterpolation", "ZeroWeightTaps"});
            if (grad || !nearest) out.policies.push_back(is_float(mine.DataType) ? "NonFiniteSum" : "IntegerResult");
            if (grad || !nearest) out.policies.push_back("ResampleSum");
            if (grad) out.policies.push_back("ResampleGradParameters");
            return true;
        } else {
            return false;
        }
        });
}

}  // namespace dmlref
