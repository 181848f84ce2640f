// `dmlref explain`: one golden element, explained (docs/explain.md). The operator-specific part
// comes from the explain hook of the operator's record (reference/<family>_record.cpp);
// the judgement, the bound and the boundary flags come from the diff's own machinery.
#include "dmlref/explain.hpp"
#include "dmlref/admissible.hpp"

#include "dmlref/bound.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/tolerance.hpp"
#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

#include "../../reference/kit/family.hpp"
#include "cause.hpp"
#include "fields.hpp"
#include "integer_ulp.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace dmlref {

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& pointer, const std::string& sentence,
                       const std::string& rule) {
    throw ExplainError(file + ": " + pointer + ": error: " + sentence + " [" + rule + "]");
}

std::string index_text(const std::vector<uint64_t>& index) {
    std::string s = "[";
    for (size_t i = 0; i < index.size(); ++i) s += (i ? "," : "") + std::to_string(index[i]);
    return s + "]";
}

std::string number(double v) {
    std::ostringstream s;
    s << std::setprecision(17) << v;
    return s.str();
}

std::string short_number(double v) {
    std::ostringstream s;
    s << std::setprecision(6) << v;
    return s.str();
}

constexpr std::string_view kCauseRow = "cause";

std::string verdict_name(Verdict v) {
    switch (v) {
        case Verdict::Identical: return "identical";
        case Verdict::Within: return "within tolerance";
        case Verdict::Over: return "OVER tolerance";
        case Verdict::Skipped: return "skipped (don't care)";
    }
    return "";
}

}  // namespace

std::vector<uint64_t> nd_coordinate(const std::vector<uint32_t>& sizes, uint64_t flat) {
    std::vector<uint64_t> c(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) {
        c[i] = sizes[i] ? flat % sizes[i] : 0;
        flat = sizes[i] ? flat / sizes[i] : 0;
    }
    return c;
}

ExplainedInput input_element(const Case& c, const std::string& field, const std::vector<uint64_t>& index,
                             std::string role) {
    const TensorDesc* d = field_desc(c, field, TensorRole::Input);
    if (!d || !c.inputs.count(field)) throw std::invalid_argument("explain: no input " + field);
    const TensorView v(*d, std::span<const std::byte>(c.inputs.at(field)));
    int64_t offset = 0;
    for (size_t i = 0; i < index.size(); ++i) offset += int64_t(index[i]) * v.strides[i];
    const size_t w = element_size(d->DataType);
    return {field, index, d->DataType, load_bits(d->DataType, v.base + offset * int64_t(w)), std::move(role)};
}

uint64_t parse_element_index(std::string_view text, const std::vector<uint32_t>& sizes, const std::string& file) {
    std::vector<uint64_t> parts;
    size_t start = 0;
    for (;;) {
        const size_t comma = text.find(',', start);
        const std::string_view part = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (part.empty() || part.size() > 19 || part.find_first_not_of("0123456789") != std::string_view::npos)
            fail(file, "/expected",
                 "INDEX \"" + printable(std::string(text)) +
                     "\" is not a flat index or N comma-separated indices (0,1,2,3)",
                 "explain.index-syntax");
        parts.push_back(std::stoull(std::string(part)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    uint64_t count = 1;
    for (uint32_t s : sizes) count *= s;
    const std::string shape = index_text(std::vector<uint64_t>(sizes.begin(), sizes.end()));
    if (parts.size() == 1) {
        if (parts[0] >= count)
            fail(file, "/expected",
                 "flat index " + std::to_string(parts[0]) + " is out of range: the output has " +
                     std::to_string(count) + " elements (Sizes " + shape + ")",
                 "explain.index-range");
        return parts[0];
    }
    if (parts.size() != sizes.size())
        fail(file, "/expected",
             "INDEX has " + std::to_string(parts.size()) + " indices but the output has " +
                 std::to_string(sizes.size()) + " dimensions (Sizes " + shape + ")",
             "explain.index-rank");
    uint64_t flat = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (parts[i] >= sizes[i])
            fail(file, "/expected",
                 "index " + std::to_string(parts[i]) + " of dimension " + std::to_string(i) +
                     " is out of range: Sizes " + shape,
                 "explain.index-range");
        flat = flat * sizes[i] + parts[i];
    }
    return flat;
}

Explanation explain_element(const Case& golden, std::string output, uint64_t flat, std::optional<uint64_t> actual_bits,
                            const std::string& actual_source, const DiffOptions& options) {
    const std::string file = golden.file.string();
    if (golden.expected.empty())
        fail(file, "/expected",
             "the case has no expected values; explain needs a golden (dmlref run CASE -o DIR writes one)",
             "explain.not-a-golden");
    if (output.empty())
        for (const auto& f : tensor_fields(golden.op))
            if (f.role == TensorRole::Output) {
                output = std::string(f.name);
                break;
            }
    const TensorDesc* d = field_desc(golden, output, TensorRole::Output);
    if (!d) fail(file, "/expected", "the operator has no output " + printable(output), "explain.no-output");
    auto ex = golden.expected.find(output);
    if (ex == golden.expected.end())
        fail(file, "/expected/" + output, "the golden has no expected values for " + output, "explain.not-a-golden");
    Explanation e;
    e.golden = file;
    e.op = full_name(golden.op.Type);
    e.output = output;
    e.type = d->DataType;
    e.sizes = d->Sizes;
    if (flat >= element_count(*d))
        fail(file, "/expected/" + output,
             "flat index " + std::to_string(flat) + " is out of range: " + output + " has " +
                 std::to_string(element_count(*d)) + " elements",
             "explain.index-range");
    e.flat = flat;
    e.index = nd_coordinate(d->Sizes, flat);
    const size_t w = element_size(e.type);
    e.golden_bits = load_bits(e.type, ex->second.values.data() + flat * w);

    // The family's own account (validated descs only; a golden's desc validates).
    // The alternative readings the golden records are in force while the family explains it, as
    // they were when it was computed (dmlref run); the policies shown are the golden's values.
    if (!validate(golden.op).has_errors())
        if (ExplainHook hook = kit::record(golden.op.Type).explain) {
            const ScopedReadings readings(golden.policies);
            e.family_known = hook(golden, output, flat, e.family);
        }
    for (const auto& p : info(golden.op.Type).Policies)  // in the registry's order, once each
        if (std::find(e.family.policies.begin(), e.family.policies.end(), p.Name) != e.family.policies.end()) {
            const auto g = golden.policies.find(std::string(p.Name));
            e.policies.emplace_back(std::string(p.Name), g != golden.policies.end() ? g->second : std::string(p.Value));
        }

    // Don't care and boundary flags, as the diff knows them.
    for (const auto& x : ex->second.dont_care)
        if (x.Index == flat) e.dont_care = x.Reason;
    for (const auto& x : dont_care(golden.op, output))
        if (x.Index == flat && e.dont_care.empty()) e.dont_care = x.Reason;
    for (const auto& b : boundary_elements(golden, output, ex->second.values))
        if (b.Index == flat) e.boundary.push_back(b.Reason);
    // An element several writes reach with different bits: any of their values is right (the
    // golden's Admissible list, recomputed from its inputs; DuplicateIndex=AnyWrite, docs/diff.md).
    const std::vector<Admissible> lists = golden.inputs.empty() ? std::vector<Admissible>{}
                                                                : dmlref::admissible(golden, output);
    const Admissible* admissible = nullptr;
    for (const auto& a : lists)
        if (a.Index == flat) admissible = &a;
    if (admissible) {
        std::string list;
        for (uint64_t bits : admissible->Values) list += (list.empty() ? "" : ", ") + format_value(e.type, bits);
        e.family.facts.emplace_back("admissible", std::to_string(admissible->Values.size()) +
                                                      " values could win (the golden's is the last): " + list);
    }

    // The tolerance and the element's bound, as the diff computes them (lib/judge/diff.cpp, census).
    Tolerance tol = ex->second.tolerance;
    if (tol.Kind == "Bits" && tol.Why.empty()) tol = stated_tolerance(golden, output);
    e.tolerance_kind = tol.Kind;
    ArithmeticProfile profile = options.profile;
    profile.flush_subnormals = profile.flush_subnormals || options.switches.flushed_subnormals;
    ElementTolerance et;
    et.kind = tol.Kind;
    et.ulp = tol.Ulp;
    et.terms = tol.MaxTerms;
    et.sum = is_summed_output(golden, output);
    const std::optional<TermSink> sink = summed_terms(golden, output, profile);
    if (sink) {
        const ElementTerms& t = sink->elements()[flat];
        e.term_count = t.n;
        e.abs_sum = t.abs_sum;
        e.bound = et.bound = element_bound(t, e.type, e.golden_bits, profile);
        e.profile = profile_text(profile);
    } else if (tol.Kind == "Summed") {
        const std::vector<uint32_t> counts = term_counts(golden, output);
        if (!counts.empty()) et.terms = std::min<uint64_t>(counts[flat], tol.MaxTerms);
        e.term_count = uint32_t(et.terms);
        e.tolerance_note = counts.empty() ? "at most " + std::to_string(et.terms) +
                                                " terms (the golden's MaxTerms; no bound from the terms)"
                                          : "Terms = " + std::to_string(et.terms) +
                                                " (the golden's count for its tolerance; no bound from the terms)";
    }
    if (actual_bits) {
        e.actual_source = actual_source;
        e.actual_bits = *actual_bits;
        uint64_t judged = e.golden_bits;
        if (admissible) {
            const auto& v = admissible->Values;
            const size_t k = size_t(std::find(v.begin(), v.end(), e.actual_bits) - v.begin());
            if (k < v.size()) judged = e.actual_bits;
            e.family.facts.emplace_back("admissible", k < v.size() ? "the backend wrote admissible value " +
                                                                         std::to_string(k + 1) + " of " +
                                                                         std::to_string(v.size())
                                                                   : "the backend wrote none of them");
        }
        e.judgement = judge(e.type, judged, e.actual_bits, et, options.switches);
        if (sink && e.judgement.verdict == Verdict::Over && e.judgement.nonfinite &&
            overflow_admissible(sink->elements()[flat], e.type, e.golden_bits, e.actual_bits, profile)) {
            e.judgement.verdict = Verdict::Within;  // an overflowing partial sum (docs/tolerance.md)
            e.judgement.nonfinite = false;
        }
        if (ulp_only_at_boundary(golden, e.type, tol.Kind) && e.judgement.verdict == Verdict::Within &&
            e.boundary.empty())
            e.judgement.verdict =
                Verdict::Over;  // an integer Ulp off its operator's boundary (lib/judge/integer_ulp.hpp)
        if (!e.dont_care.empty()) e.judgement.verdict = Verdict::Skipped;
        if (is_float(e.type) && e.judgement.comparable) e.error = abs_error(e.type, e.golden_bits, e.actual_bits);
        // What explains an element over its bound (lib/judge/cause.cpp). It travels as the first of
        // the element's rows, keyed "cause", so that Explanation (included by every family) keeps its
        // layout; the text shows it first and the JSON as "cause".
        const std::string cause = explain_cause(golden, e, profile);
        if (!cause.empty()) e.family.facts.insert(e.family.facts.begin(), {std::string(kCauseRow), cause});
    }
    return e;
}

int explain_worst(const DiffCommand& cmd, size_t k, bool json, std::ostream& out, std::ostream& err) {
    std::error_code ec;
    if (std::filesystem::is_directory(cmd.golden, ec)) {
        err << "dmlref diff: error: --explain is for a single golden file, not a directory [explain.single-golden]\n";
        return 2;
    }
    DiffOptions options = cmd.options;
    options.worst = k;
    options.progress = nullptr;
    const DiffReport report = diff(cmd.golden, cmd.actual, options);
    std::vector<Explanation> list;
    for (const auto& cd : report.cases) {
        if (!cd.errors.empty()) return 2;  // run_diff has reported them
        Diagnostics diags;
        LoadOptions lo;
        lo.max_bytes = options.max_bytes;
        const Case golden = load_case(cd.golden, diags, lo);
        for (const auto& o : cd.outputs)
            for (const auto& w : o.worst)
                list.push_back(explain_element(golden, o.output, w.index, w.actual_bits, o.source, options));
    }
    if (json) {
        out << explanation_json(list);
        return 0;
    }
    out << "\nThe " << list.size() << " worst element" << (list.size() == 1 ? "" : "s")
        << ", explained (docs/explain.md):\n";
    for (const auto& e : list) out << "\n" << explanation_text(e);
    return 0;
}

std::string explanation_text(const Explanation& e) {
    std::ostringstream s;
    s << e.golden << ": " << e.op << " " << e.output << " element " << index_text(e.index) << " (flat " << e.flat
      << ", Sizes " << index_text(std::vector<uint64_t>(e.sizes.begin(), e.sizes.end())) << ", " << name(e.type)
      << ")\n";
    auto row = [&](const std::string& k, const std::string& v) {
        s << "  " << std::left << std::setw(14) << (k.size() >= 14 ? k + "  " : k) << v << "\n";
    };
    row("golden", display_value(e.type, e.golden_bits) + "  (" + hex_bits(e.type, e.golden_bits) + ")");
    if (!e.actual_source.empty()) {
        row("actual", display_value(e.type, e.actual_bits) + "  (" + hex_bits(e.type, e.actual_bits) + ", from " +
                          e.actual_source + ")");
        std::string err = e.judgement.comparable ? std::to_string(e.judgement.distance) + " ULP"
                                                 : "non-comparable (NaN or infinity)";
        if (is_float(e.type) && e.judgement.comparable) err += ", |actual - golden| = " + short_number(e.error);
        row("error", err);
    }
    std::string tol = e.tolerance_kind;
    if (e.bound >= 0)
        tol += ": bound " + short_number(e.bound) + " from " + std::to_string(e.term_count) +
               " terms, sum |t| = " + short_number(e.abs_sum) + ", " + e.profile +
               " (lib/judge/bound.cpp, docs/tolerance.md)";
    else if (!e.tolerance_note.empty()) tol += ": " + e.tolerance_note;
    row("tolerance", tol);
    if (!e.actual_source.empty()) row("verdict", verdict_name(e.judgement.verdict));
    row(
        "boundary", e.boundary.empty() ? "no" : [&] {
            std::string b;
            for (const auto& r : e.boundary) b += (b.empty() ? "" : ", ") + r;
            return b;
        }());
    if (!e.dont_care.empty()) row("don't care", e.dont_care);
    if (!e.family_known) row("note", "no per-family explanation for this operator yet (docs/explain.md)");
    for (const auto& [k, v] : e.family.facts) row(k, v);
    if (!e.family.inputs.empty()) {
        s << "  inputs that reach it:\n";
        s << "    " << std::left << std::setw(22) << "tensor" << std::setw(20) << "index" << std::setw(12) << "role"
          << "value\n";
        for (const auto& in : e.family.inputs)
            s << "    " << std::left << std::setw(22) << in.tensor << std::setw(20) << index_text(in.index)
              << std::setw(12) << in.role << display_value(in.type, in.bits) << "\n";
    }
    if (!e.family.terms.empty()) {
        s << "  terms (" << e.family.terms.size() << "):\n";
        s << "    " << std::left << std::setw(22) << "from" << std::setw(20) << "index" << std::setw(24) << "value"
          << std::setw(24) << "weight"
          << "weight * value\n";
        for (const auto& t : e.family.terms)
            s << "    " << std::left << std::setw(22) << t.tensor << std::setw(20) << index_text(t.index)
              << std::setw(24) << number(t.value) << std::setw(24) << number(t.weight) << number(t.weight * t.value)
              << (t.note.empty() ? "" : "  " + t.note) << "\n";
    }
    if (!e.policies.empty()) {
        s << "  policies (docs/golden.md):\n";
        for (const auto& [k, v] : e.policies) s << "    " << k << " = " << v << "\n";
    }
    return s.str();
}

std::string explanation_json(const std::vector<Explanation>& list) {
    using oj = nlohmann::ordered_json;
    oj all = oj::array();
    for (const auto& e : list) {
        oj j;
        j["golden"] = printable(e.golden);
        j["operator"] = e.op;
        j["output"] = e.output;
        j["DataType"] = std::string(name(e.type));
        j["Sizes"] = e.sizes;
        j["flat"] = e.flat;
        j["index"] = e.index;
        j["golden_value"] = format_value(e.type, e.golden_bits);
        j["golden_bits"] = hex_bits(e.type, e.golden_bits);
        if (!e.actual_source.empty()) {
            j["actual_source"] = printable(e.actual_source);
            j["actual_value"] = format_value(e.type, e.actual_bits);
            j["actual_bits"] = hex_bits(e.type, e.actual_bits);
            j["ulp"] = e.judgement.comparable ? oj(e.judgement.distance) : oj(nullptr);
            j["error"] = is_float(e.type) && e.judgement.comparable ? oj(e.error) : oj(nullptr);
            j["verdict"] = verdict_name(e.judgement.verdict);
        }
        j["tolerance"] = e.tolerance_kind;
        if (e.bound >= 0) {
            j["bound"] = std::isfinite(e.bound) ? oj(e.bound) : oj("inf");
            j["term_count"] = e.term_count;
            j["abs_sum"] = e.abs_sum;
            j["profile"] = e.profile;
        }
        j["boundary"] = e.boundary;
        if (!e.dont_care.empty()) j["dont_care"] = e.dont_care;
        j["explained"] = e.family_known;
        oj facts = oj::object();
        for (const auto& [k, v] : e.family.facts)
            if (k == kCauseRow) j["cause"] = v;
            else facts[k] = v;
        j["facts"] = facts;
        oj inputs = oj::array();
        for (const auto& in : e.family.inputs)
            inputs.push_back({{"tensor", in.tensor},
                              {"index", in.index},
                              {"role", in.role},
                              {"value", format_value(in.type, in.bits)}});
        j["inputs"] = inputs;
        oj terms = oj::array();
        for (const auto& t : e.family.terms)
            terms.push_back(
                {{"tensor", t.tensor}, {"index", t.index}, {"value", t.value}, {"weight", t.weight}, {"note", t.note}});
        j["terms"] = terms;
        oj pol = oj::object();
        for (const auto& [k, v] : e.policies) pol[k] = v;
        j["policies"] = pol;
        all.push_back(j);
    }
    return all.dump(2, ' ', false, oj::error_handler_t::replace) + "\n";
}

}  // namespace dmlref
