// The tolerance model: the table, and the comparison of one element (docs/tolerance.md).
#include "dmlref/tolerance.hpp"
#include "dmlref/bits.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/terms.hpp"
#include "dmlref/values.hpp"

#include "../../reference/kit/family.hpp"
#include "fields.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlref {

namespace {

using OT = OperatorType;
using TR = ToleranceRule;
using BR = BoundaryRule;

const std::string kBitsWhy =
    "values are moved or selected, never computed: bit for bit (docs/golden.md, moved and selected values)";
const std::string kScaleBiasWhy =
    "x * Scale + Bias is rounded twice in float32; a fused multiply-add rounds once and may land 1 ULP away";
const std::string kSummedWhy =
    "elements are exact sums of their gradient terms, rounded once (docs/golden.md): a NaN sum matches any NaN, an "
    "element with no term is +0, one term of weight 1 is that term's value (a -0 term gives +0: sums start from +0); "
    "dmlref diff bounds each element from its own terms, summed in any order in the profile's precision (docs/tolerance.md)";

}  // namespace

// The table: every judging rule of every record (reference/<family>_record.cpp), in registry order.
const std::vector<ToleranceRow>& tolerance_table() {
    static const std::vector<ToleranceRow> rows = [] {
        std::vector<ToleranceRow> v;
        for (const kit::FamilyRecord* f : kit::families())
            for (const auto& r : f->operators)
                for (const auto& o : r.outputs) v.push_back({r.info.Type, o.output, o.types, o.rule, o.boundary});
        return v;
    }();
    return rows;
}

namespace {

bool type_matches(TypeClass k, DataType t) { return k == TypeClass::Any || (k == TypeClass::Float) == is_float(t); }

// The record's rule for this output of this case: the first that matches its element type.
const kit::OutputRule* output_rule(const Case& c, std::string_view output) {
    const TensorDesc* d = output_desc(c, output);
    const kit::OperatorRecord* r = kit::find_record(c.op.Type);
    if (!d || !r) return nullptr;
    // An element of a tensor array ("OutputTensors[1]") takes the rule of its array.
    const auto e = split_tensor_array_element(output);
    for (const auto& o : r->outputs)
        if ((o.output == output || (e && o.output == e->first)) && type_matches(o.types, d->DataType)) return &o;
    return nullptr;
}

// The tolerance the operator states: from the case where the record can (input values decide
// it), else from the desc.
std::optional<Tolerance> operator_stated(const Case& c, std::string_view output) {
    const kit::OperatorRecord& r = kit::record(c.op.Type);
    if (r.case_tolerance)
        if (auto t = r.case_tolerance(c, output)) return t;
    return operator_tolerance(c.op, output);
}

}  // namespace

ToleranceRow tolerance_row(const Case& c, std::string_view output) {
    if (const kit::OutputRule* o = output_rule(c, output))
        return {c.op.Type, o->output, o->types, o->rule, o->boundary};
    // An output no rule covers (a record's completeness is checked at registration): bit for bit.
    return {c.op.Type, output, TypeClass::Any, TR::Bits, BR::None};
}

std::vector<uint32_t> term_counts(const Case& c, std::string_view output) {
    const kit::OutputRule* o = output_rule(c, output);
    if (!o) return {};
    if (o->rule == TR::OperatorStated) {
        const auto stated = operator_stated(c, output);
        return stated ? std::vector<uint32_t>(stated->Terms.begin(), stated->Terms.end()) : std::vector<uint32_t>{};
    }
    if (o->rule == TR::Summed && o->term_counts) return o->term_counts(c, output);
    return {};
}

Tolerance stated_tolerance(const Case& c, std::string_view output) {
    Tolerance t;
    t.Kind = "Bits";
    t.Why = kBitsWhy;
    switch (tolerance_row(c, output).rule) {
        case TR::Bits: break;
        case TR::OperatorStated:
            if (auto stated = operator_stated(c, output)) return *stated;
            break;
        case TR::Ulp1WithScaleBias: {
            if (kit::record(c.op.Type).has_scale_bias(c.op.Desc)) {
                t.Kind = "Ulp";
                t.Ulp = 1;
                t.Why = kScaleBiasWhy;
            }
            break;
        }
        case TR::Summed: {
            const std::vector<uint32_t> terms = term_counts(c, output);
            uint32_t most = 0;
            for (uint32_t n : terms) most = std::max(most, n);
            t.Kind = "Summed";
            t.MaxTerms = most;
            t.Terms = terms;  // each element's own count, as the golden records it
            t.Why = (most == 1 ? std::string("at most 1 term") : "up to " + std::to_string(most) + " terms") +
                    " per element; " + kSummedWhy;
            break;
        }
    }
    return t;
}

// ---- Summed outputs and their terms ---------------------------------------------------------

// ---- Computed outputs: one bound function per operator family (dmlref/terms.hpp) ------------

bool judging_reads_inputs(const Case& c, std::string_view output) {
    const ToleranceRow row = tolerance_row(c, output);
    const kit::OperatorRecord* r = kit::find_record(c.op.Type);
    const kit::OutputRule* o = output_rule(c, output);
    const bool rule_reads = row.rule != TR::Bits && row.rule != TR::Ulp1WithScaleBias;
    const bool boundary_reads = row.boundary != BR::None && row.boundary != BR::OperatorStated;
    return rule_reads || boundary_reads || (o && (o->terms || o->bounds)) ||
           (r && (r->reads_inputs || r->case_boundary));
}

bool is_summed_output(const Case& c, std::string_view output) {
    const TensorDesc* d = output_desc(c, output);
    const kit::OutputRule* o = output_rule(c, output);
    if (!d || !is_float(d->DataType) || !o) return false;
    if (o->bounds) return true;  // a NaN golden of a computed value matches any NaN
    if (!o->terms) return false;
    return o->summed ? o->summed(c.op, output) : true;
}

std::optional<TermSink> summed_terms(const Case& c, std::string_view output, const ArithmeticProfile& p) {
    const TensorDesc* d = output_desc(c, output);
    if (!d || !is_float(d->DataType) || validate(c.op).has_errors()) return std::nullopt;
    // Only the outputs whose record enumerates terms or bounds them have a per-element sink (diff's memory).
    const kit::OutputRule* o = output_rule(c, output);
    if (!o || (!o->terms && !o->bounds)) return std::nullopt;
    TermSink sink(element_count(*d));
    auto input = [&](const char* field) -> std::span<const std::byte> {
        auto it = c.inputs.find(field);
        if (it == c.inputs.end()) throw std::invalid_argument(std::string("no ") + field);
        return it->second;
    };
    try {
        if (o->bounds) o->bounds(c.op, input, p, sink);
        else o->terms(c, output, p, sink);
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
    return sink;
}

// ---- Decision boundaries -------------------------------------------------------------------

namespace {

struct FloatLayout {
    uint64_t sign, exponent, mantissa;
};
FloatLayout layout(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return {0x8000, 0x7c00, 0x03ff};
        case DataType::FLOAT32: return {0x80000000, 0x7f800000, 0x007fffff};
        default: return {uint64_t(1) << 63, 0x7ff0000000000000, 0x000fffffffffffff};
    }
}
bool is_inf_bits(DataType t, uint64_t b) {
    const auto l = layout(t);
    return (b & ~l.sign) == l.exponent;
}
bool is_zero_bits(DataType t, uint64_t b) { return (b & ~layout(t).sign) == 0; }
bool is_subnormal_bits(DataType t, uint64_t b) {
    const auto l = layout(t);
    return (b & l.exponent) == 0 && (b & l.mantissa) != 0;
}

// Signed integer value of an integer element, exactly.
int128_t integer_value(DataType t, uint64_t b) {
    switch (t) {
        case DataType::INT8: return int8_t(uint8_t(b));
        case DataType::INT16: return int16_t(uint16_t(b));
        case DataType::INT32: return int32_t(uint32_t(b));
        case DataType::INT64: return int64_t(b);
        default: return int128_t(b);  // unsigned types: the bits are the value
    }
}

}  // namespace

std::vector<BoundaryElement> boundary_elements(const Case& c, std::string_view output,
                                               const std::vector<std::byte>& golden) {
    std::vector<BoundaryElement> out;
    const TensorDesc* d = output_desc(c, output);
    if (!d) return out;
    const ToleranceRow row = tolerance_row(c, output);
    // The elements the case's input values put on a decision (the record's case_boundary: a ReLU
    // gradient's zeros, a clip gradient's bounds, argmax ties, ROI align's kinks).
    if (const kit::OperatorRecord* r = kit::find_record(c.op.Type); r && r->case_boundary)
        for (auto& e : r->case_boundary(c, output)) out.push_back(std::move(e));
    if (row.boundary == BR::OperatorStated) {
        const Boundary b = boundary(c.op, output);
        for (uint64_t i : b.Indices) out.push_back({i, b.Reason});
    }
    // docs/golden.md, Decisions: subnormals are never flushed; the elements a flushing backend would
    // change are flagged.
    const DataType t = d->DataType;
    if (is_float(t)) {
        const size_t w = element_size(t);
        for (uint64_t i = 0; i < golden.size() / w; ++i)
            if (is_subnormal_bits(t, load_bits(t, golden.data() + i * w))) out.push_back({i, "Subnormal"});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const BoundaryElement& a, const BoundaryElement& b) { return a.Index < b.Index; });
    return out;
}

// ---- Comparing one element -----------------------------------------------------------------

uint64_t ulp_distance(DataType t, uint64_t a, uint64_t b, bool zeros_equal) {
    if (!is_float(t)) {
        const int128_t x = integer_value(t, a), y = integer_value(t, b);
        const uint128_t d = x > y ? uint128_t(x - y) : uint128_t(y - x);
        return d > std::numeric_limits<uint64_t>::max() ? std::numeric_limits<uint64_t>::max() : uint64_t(d);
    }
    const auto l = layout(t);
    // Ordered encoding: +x -> magnitude bits; -x -> -(magnitude bits) - 1, so -0 sits just
    // below +0 (or on it, under zeros_equal).
    auto ordered = [&](uint64_t bits) -> int128_t {
        const int128_t mag = int128_t(bits & ~l.sign);
        if (!(bits & l.sign)) return mag;
        return zeros_equal ? -mag : -mag - 1;
    };
    const int128_t x = ordered(a), y = ordered(b);
    return uint64_t(x > y ? x - y : y - x);
}

bool within_summed_bound(DataType t, uint64_t golden_bits, uint64_t actual_bits, uint64_t terms) {
    const auto l = layout(t);
    const double g = element_value(t, golden_bits), a = element_value(t, actual_bits);
    // ulp(golden): the spacing of the golden's binade, i.e. from |golden| to the next float away
    // from zero (the smallest subnormal for zero and subnormals). For the largest finite value,
    // the spacing below it (the same binade).
    const uint64_t mag = golden_bits & ~l.sign;
    const uint64_t max_finite = l.exponent - 1;
    const double ulp = mag < max_finite ? element_value(t, mag + 1) - element_value(t, mag)
                                        : element_value(t, mag) - element_value(t, mag - 1);
    // The bound (terms - 1/2) * ulp is exact in double: terms < 2^52 and ulp a power of two.
    const double bound = (double(terms) - 0.5) * ulp;
    // |a - g| <= bound, decided exactly: s + e == a - g exactly (TwoSum), and s is a - g
    // rounded, so s == bound leaves the decision to the sign of e.
    const double s = a - g;
    if (!std::isfinite(s)) return false;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (-g - bb);
    if (s > 0) return s < bound || (s == bound && e <= 0);
    if (s < 0) return -s < bound || (-s == bound && e >= 0);
    return std::fabs(e) <= bound;
}

Judgement judge(DataType t, uint64_t g, uint64_t a, const ElementTolerance& tol, const DiffSwitches& sw) {
    Judgement j;
    if (g == a) return j;  // Identical
    j.verdict = Verdict::Over;
    if (!is_float(t)) {
        j.distance = ulp_distance(t, a, g, false);
        if (tol.kind == "Ulp" && j.distance <= tol.ulp) j.verdict = Verdict::Within;
        return j;
    }
    const bool g_nan = is_nan_bits(t, g), a_nan = is_nan_bits(t, a);
    if (g_nan || a_nan || is_inf_bits(t, g) || is_inf_bits(t, a)) {
        j.comparable = false;
        // A NaN golden of a sum matches any NaN (docs/golden.md, Decisions); elsewhere only under the switch.
        if (g_nan && a_nan && (sw.any_nan || tol.sum || tol.kind == "Summed")) j.verdict = Verdict::Within;
        else j.nonfinite = true;
        return j;
    }
    j.distance = ulp_distance(t, a, g, sw.zeros_equal);
    // Zeros of the other sign: where the element's bound admits an error (bound > 0), its exact
    // value may be a tiny number on either side of 0 that the golden and the backend round to
    // zeros of different signs (docs/tolerance.md, "Zeros"); elsewhere (an exact copy, a sum of
    // exact terms that starts from +0) only the switch accepts them.
    if (is_zero_bits(t, g) && is_zero_bits(t, a)) {
        if (sw.zeros_equal || tol.bound > 0) j.verdict = Verdict::Within;
        return j;
    }
    if (sw.flushed_subnormals && is_subnormal_bits(t, g) && is_zero_bits(t, a) &&
        ((a & layout(t).sign) == (g & layout(t).sign) || sw.zeros_equal)) {
        j.verdict = Verdict::Within;
        j.flushed = true;
        return j;
    }
    if (tol.kind == "Ulp") {
        if (j.distance <= tol.ulp) j.verdict = Verdict::Within;
    } else if (tol.bound >= 0) {
        if (within_bound(t, g, a, tol.bound)) j.verdict = Verdict::Within;
    } else if (tol.kind == "Summed") {
        if (tol.terms >= 2 && within_summed_bound(t, g, a, tol.terms)) j.verdict = Verdict::Within;
    }
    return j;
}

}  // namespace dmlref
