// What, not where (docs/explain.md, "The cause"): each likely bug of a backend's sum is a
// candidate value built from the element's own terms; a candidate explains the actual value when
// the actual lies within the bound of the candidate's own sum, the candidate is itself more than
// four such bounds away from the golden, and the actual is nearer to it than to the golden. Every candidate that
// explains it is reported: one is named as the cause, two or three are named as equals, more say
// that no single cause explains it.
#include "cause.hpp"

#include "dmlref/bits.hpp"
#include "dmlref/bound.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/operators.hpp"
#include "dmlref/values.hpp"
#include "dmlref/working_types.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace dmlref {

namespace {

constexpr size_t kMaxTerms = 4096;  // the candidates are O(n) each, O(n) of them
// A candidate must stand this many of its bounds away from the golden: an actual just over the
// bound (a rounding a little worse than admitted) is not blamed on a term of about that size.
constexpr double kClear = 4;

int precision_bits(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return 11;
        case DataType::FLOAT32: return 24;
        default: return 53;
    }
}

int min_exponent(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return -14;
        case DataType::FLOAT32: return -126;
        default: return -1022;
    }
}

// The spacing of type t's floats at |x| (for |x| in [2^k, 2^(k+1)): 2^(k - p + 1)).
double ulp_at(DataType t, double x) {
    int e = 0;
    std::frexp(std::fabs(x), &e);  // |x| = f * 2^e, f in [0.5, 1)
    const int k = x == 0 ? min_exponent(t) : std::max(e - 1, min_exponent(t));
    return std::ldexp(1.0, k - precision_bits(t) + 1);
}

bool representable(DataType t, double x) {
    switch (t) {
        case DataType::FLOAT16: return half_to_double(half_from_double(x)) == x;
        case DataType::FLOAT32:  // a double beyond float's range would make the conversion undefined
            return std::fabs(x) <= double(std::numeric_limits<float>::max()) && double(float(x)) == x;
        default: return true;
    }
}

// Neumaier's compensated sum: the candidates' values to about one rounding of the result.
struct Sum {
    double s = 0, c = 0;
    void add(double x) {
        const double t = s + x;
        c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
        s = t;
    }
    double value() const { return s + c; }
};

std::string num(double v, DataType t) {
    std::ostringstream s;
    s << std::setprecision(t == DataType::FLOAT64 ? 17 : 9) << v;
    return s.str();
}

std::string short_num(double v) {
    std::ostringstream s;
    s << std::setprecision(3) << v;
    return s.str();
}

std::string at(const std::string& tensor, const std::vector<uint64_t>& index) {
    std::string s = tensor + "[";
    for (size_t i = 0; i < index.size(); ++i) s += (i ? "," : "") + std::to_string(index[i]);
    return s + "]";
}

std::string term_text(const ExplainedTerm& t, DataType type) {
    std::string s = at(t.tensor, t.index);
    if (t.weight != 1) s += " x " + num(t.weight, type);
    return s + " (= " + num(t.weight * t.value, type) + ")";
}

struct Candidate {
    std::string kind, what;
    double value = 0;
    double abs_sum = 0;  // the sum of |t| of the candidate's terms
};

// The bound of a candidate sum: the element's own bound, grown with the candidate's sum of |t|,
// plus half the spacing at the candidate (the golden's own rounding is at the golden's binade),
// plus what the candidate's computation in double may be off by.
double candidate_bound(const CauseInput& in, double S, size_t n, const Candidate& c) {
    const double grow = S > 0 ? std::max(1.0, c.abs_sum / S) : 1.0;
    const double slack = double(n + 8) * std::ldexp(std::max(S, c.abs_sum), -52);
    return in.bound * grow + ulp_at(in.type, c.value) / 2 + slack;
}

// The terms' tensor and the dimensions along which their indices vary; empty when the terms
// are not the elements of one tensor that `read` can reach.
std::vector<size_t> varying_dimensions(const CauseInput& in) {
    if (!in.read) return {};
    const ExplainedTerm& first = in.terms.front();
    for (const auto& t : in.terms) {
        if (t.tensor != first.tensor || t.index.size() != first.index.size()) return {};
        const std::optional<double> v = in.read(t.tensor, t.index);
        if (!v || *v != t.value) return {};  // the term's value is not that element
    }
    std::vector<size_t> dims;
    for (size_t d = 0; d < first.index.size(); ++d)
        if (std::any_of(in.terms.begin(), in.terms.end(), [&](const auto& t) { return t.index[d] != first.index[d]; }))
            dims.push_back(d);
    return dims;
}

// index moved by `step` along dimension d; nullopt below 0.
std::optional<std::vector<uint64_t>> moved(std::vector<uint64_t> index, size_t d, int step) {
    if (step < 0 && index[d] == 0) return std::nullopt;
    index[d] = step < 0 ? index[d] - 1 : index[d] + 1;
    return index;
}

std::string step_text(int step) { return step > 0 ? "+1" : "-1"; }

std::vector<Candidate> candidates(const CauseInput& in, const Sum& exact, double S) {
    const DataType t = in.type;
    const double E = exact.value();
    std::vector<Candidate> list;
    auto plus = [&](std::initializer_list<double> deltas) {
        Sum s = exact;
        for (double d : deltas) s.add(d);
        return s.value();
    };
    const size_t n = in.terms.size();
    // A term missing, added twice, or added with its sign flipped.
    for (const auto& term : in.terms) {
        const double v = term.weight * term.value;
        if (v == 0) continue;
        list.push_back({"missing", "the term " + term_text(term, t) + " is missing", plus({-v}), S - std::fabs(v)});
        list.push_back({"twice", "the term " + term_text(term, t) + " is added twice", plus({v}), S + std::fabs(v)});
        if (n >= 2)
            list.push_back(
                {"term-sign", "the term " + term_text(term, t) + " is added with its sign flipped", plus({-2 * v}), S});
    }
    // A term weighed with another term's weight (a weight used twice), where the weights differ.
    std::vector<std::pair<double, const ExplainedTerm*>> weights;  // each distinct weight, with its first term
    for (const auto& term : in.terms)
        if (term.weight != 0 &&
            std::none_of(weights.begin(), weights.end(), [&](const auto& w) { return w.first == term.weight; }))
            weights.emplace_back(term.weight, &term);
    if (weights.size() >= 2 && weights.size() <= 16)
        for (const auto& term : in.terms)
            for (const auto& [w, owner] : weights) {
                if (w == term.weight || term.value == 0) continue;
                const double now = w * term.value, was = term.weight * term.value;
                list.push_back({"weight",
                                "the term " + at(term.tensor, term.index) + " is weighed " + num(w, t) +
                                    " (the weight of " + at(owner->tensor, owner->index) + ") instead of " +
                                    num(term.weight, t),
                                plus({now, -was}), S - std::fabs(was) + std::fabs(now)});
            }
    // The result's sign flipped; the result at a wrong scale p/q.
    if (E != 0) {
        list.push_back({"sign", "the result's sign is flipped", -E, S});
        for (int p = 1; p <= 16; ++p)
            for (int q = 1; q <= 16; ++q)
                if (p != q && std::gcd(p, q) == 1)
                    list.push_back({"scale",
                                    "the result is " + std::to_string(p) + "/" + std::to_string(q) +
                                        " times the right one (a wrong scale or divisor)",
                                    E * p / q, S * p / q});
    }
    // The window or the taps shifted by one, and a neighbour taken in, along each dimension in
    // which the terms' indices vary. An element outside the tensor counts as 0 (padding).
    const std::vector<size_t> dims = varying_dimensions(in);
    if (dims.empty()) return list;
    const std::string& tensor = in.terms.front().tensor;
    auto read = [&](const std::optional<std::vector<uint64_t>>& index) {
        return index ? in.read(tensor, *index) : std::nullopt;
    };
    std::set<std::vector<uint64_t>> own;
    for (const auto& term : in.terms) own.insert(term.index);
    for (size_t d : dims)
        for (int step : {+1, -1}) {
            Sum s;
            double abs = 0;
            for (const auto& term : in.terms) {
                const double v = term.weight * read(moved(term.index, d, step)).value_or(0.0);
                s.add(v);
                abs += std::fabs(v);
            }
            const auto& first = in.terms.front();
            const auto to = moved(first.index, d, step);
            list.push_back({"shifted",
                            "the window or taps are shifted by " + step_text(step) + " along dimension " +
                                std::to_string(d) + " (" + at(tensor, first.index) + " read as " +
                                (to ? at(tensor, *to) : std::string("an element before the start")) + ", ...)",
                            s.value(), abs});
        }
    std::set<std::pair<std::vector<uint64_t>, double>> seen;
    for (const auto& term : in.terms)
        for (size_t d : dims)
            for (int step : {+1, -1}) {
                const auto nb = moved(term.index, d, step);
                if (!nb || own.count(*nb) || !seen.insert({*nb, term.weight}).second) continue;
                const std::optional<double> x = read(nb);
                if (!x || *x * term.weight == 0) continue;
                ExplainedTerm extra{tensor, *nb, *x, term.weight, ""};
                const double v = term.weight * *x;
                list.push_back({"extra",
                                "an extra term " + term_text(extra, t) + " is taken in (the neighbour of " +
                                    at(tensor, term.index) + " along dimension " + std::to_string(d) + ")",
                                plus({v}), S + std::fabs(v)});
            }
    return list;
}

}  // namespace

CauseResult diagnose_cause(const CauseInput& in) {
    CauseResult r;
    const DataType t = in.type;
    const double g = element_value(t, in.golden_bits), a = element_value(t, in.actual_bits);
    if (!std::isfinite(g) || !std::isfinite(a)) {
        r.text = "not tested (a NaN or an infinity; the causes are tested on finite values)";
        return r;
    }
    if (!(in.bound >= 0) || !std::isfinite(in.bound) || in.terms.empty()) {
        r.text = "not tested (no bound from the element's terms)";
        return r;
    }
    Sum exact;
    double S = 0;
    for (const auto& term : in.terms) {
        const double v = term.weight * term.value;
        if (!std::isfinite(v)) {
            r.text = "not tested (a term is not finite)";
            return r;
        }
        exact.add(v);
        S += std::fabs(v);
    }
    const size_t n = in.terms.size();
    if (n > kMaxTerms) {
        r.text = "not tested (more than " + std::to_string(kMaxTerms) + " terms)";
        return r;
    }
    const double slack = double(n + 8) * std::ldexp(S, -52);
    // The listed terms must make the golden: a hook that lists only some of them (the first 64)
    // leaves nothing to test against.
    if (std::fabs(exact.value() - g) > in.bound + slack) {
        r.text = "not tested (the " + std::to_string(n) + " terms listed do not add up to the golden)";
        return r;
    }
    if (std::fabs(a - g) <= in.bound) {
        r.text = "none needed (the actual is within the element's bound)";
        return r;
    }
    r.tested = true;
    struct Hit {
        CauseFinding f;
        double closeness;  // |actual - candidate| / bound
    };
    std::vector<Hit> hits;
    const std::vector<Candidate> list = candidates(in, exact, S);
    r.candidates = list.size();
    for (const auto& c : list) {
        if (!std::isfinite(c.value)) continue;
        const double B = candidate_bound(in, S, n, c);
        const double off = std::fabs(a - c.value);
        if (std::fabs(c.value - g) > kClear * B && off <= B && off < std::fabs(a - g))
            hits.push_back({{c.kind, c.what, c.value, B}, B > 0 ? off / B : 0});
    }
    // An accumulator narrower than any the profile admits: the element computed in it (products
    // and sums; one term: the value carried in it) is a value of that type, within its bound of
    // the golden. Named for the widest such type.
    DataType narrowest = t;
    for (DataType w : in.accumulators)
        if (element_size(w) < element_size(narrowest)) narrowest = w;
    for (DataType w : {DataType::FLOAT64, DataType::FLOAT32, DataType::FLOAT16}) {
        if (element_size(w) >= element_size(narrowest) || !representable(w, a)) continue;
        const double B = in.bound + gamma_up(n + 2, unit_roundoff(w)) * S + slack;
        ++r.candidates;
        if (std::isfinite(B) && std::fabs(a - g) <= B) {  // infinite: that type's sum bounds nothing
            hits.push_back(
                {{"accumulator",
                  "the element is computed in " + std::string(name(w)) + " (its products and sums), narrower than " +
                      (in.accumulators.empty() ? std::string("the output") : std::string(name(narrowest))),
                  g, B},
                 std::fabs(a - g) / B});
            break;
        }
    }
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) { return x.closeness < y.closeness; });
    for (const auto& h : hits) r.found.push_back(h.f);

    auto detail = [&](const CauseFinding& f) {
        if (f.kind == "accumulator")
            return "the actual " + num(a, t) + " is a value of that type within " + short_num(f.bound) +
                   " of the golden, that accumulator's bound";
        return "that gives " + num(f.value, t) + ", and the actual " + num(a, t) + " is within " + short_num(f.bound) +
               " of it";
    };
    if (r.found.empty()) {
        r.text = "no single cause explains it (" + std::to_string(r.candidates) +
                 " candidates tested: a term missing, extra, shifted, added twice, weighed with another's "
                 "weight or of the wrong sign, the result's sign or scale, a narrower accumulator)";
    } else if (r.found.size() == 1) {
        r.text = r.found[0].what + ": " + detail(r.found[0]);
    } else if (r.found.size() <= 3) {
        r.text = "one of " + std::to_string(r.found.size()) + " that explain it equally: ";
        for (size_t i = 0; i < r.found.size(); ++i)
            r.text += (i ? "; " : "") + r.found[i].what + " (" + detail(r.found[i]) + ")";
    } else {
        r.text = "no single cause explains it: " + std::to_string(r.found.size()) +
                 " candidates explain it equally, e.g. ";
        for (size_t i = 0; i < 3; ++i) r.text += (i ? "; " : "") + r.found[i].what;
    }
    return r;
}

std::string explain_cause(const Case& golden, const Explanation& e, const ArithmeticProfile& profile) {
    if (e.actual_source.empty() || e.judgement.verdict != Verdict::Over || !is_float(e.type) || e.bound < 0 ||
        e.family.terms.empty())
        return "";
    CauseInput in;
    in.type = e.type;
    in.golden_bits = e.golden_bits;
    in.actual_bits = e.actual_bits;
    in.bound = e.bound;
    in.terms = e.family.terms;
    in.accumulators = working_types(profile, e.type);
    std::map<std::string, const TensorDesc*> inputs;
    for (const auto& f : tensor_fields(golden.op))
        if (f.role == TensorRole::Input && f.desc && golden.inputs.count(std::string(f.name)))
            inputs[std::string(f.name)] = f.desc;
    in.read = [&](const std::string& tensor, const std::vector<uint64_t>& index) -> std::optional<double> {
        auto it = inputs.find(tensor);
        if (it == inputs.end() || index.size() != it->second->Sizes.size()) return std::nullopt;
        for (size_t i = 0; i < index.size(); ++i)
            if (index[i] >= it->second->Sizes[i]) return std::nullopt;
        const ExplainedInput x = input_element(golden, tensor, index, "");
        return element_value(x.type, x.bits);
    };
    return diagnose_cause(in).text;
}

}  // namespace dmlref
