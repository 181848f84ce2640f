// `dmlref reduce`: delta debugging of a failing case (docs/reduce.md). Candidates are case files
// built from the current one (packed layout, smaller sizes with the desc repaired where its rules
// tie fields together, simpler window and scale entries, zeroed values); each is read and checked
// like any case, evaluated for its golden, and kept when the backend still fails the same way.
#include "dmlref/reduce.hpp"

#include "dmlref/numeric.hpp"
#include "dmlref/values.hpp"
#include "case/json_tokens.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace dmlref {

std::string failure_class(DataType t, uint64_t g, uint64_t a) {
    return dispatch(t, [&]<class T>() -> std::string {
        if constexpr (is_floating_v<T>) {
            const T x = from_bits<T>(bits_t<T>(g)), y = from_bits<T>(bits_t<T>(a));
            const double gx = widen(x), ay = widen(y);
            if (is_nan(x) || is_nan(y)) return "NaN";
            if (std::isinf(gx) || std::isinf(ay)) return "Infinity";
            if (gx == 0 && ay == 0) return "SignedZero";
            const double min_normal = is_half_v<T> ? 0x1p-14 : std::is_same_v<T, float> ? 0x1p-126 : 0x1p-1022;
            if (gx != 0 && std::fabs(gx) < min_normal && ay == 0) return "FlushedSubnormal";
        }
        return "Finite";
    });
}

bool operator<(const FailureKind& a, const FailureKind& b) {
    return std::tie(a.output, a.klass) < std::tie(b.output, b.klass);
}

std::map<FailureKind, uint64_t> failures(const Case& golden,
                                         const std::map<std::string, std::vector<std::byte>>& actual,
                                         const DiffOptions& o) {
    std::map<FailureKind, uint64_t> out;
    for (const auto& f : tensor_fields(golden.op)) {
        if (f.role != TensorRole::Output) continue;
        const std::string name(f.name);
        auto a = actual.find(name);
        const auto& g = golden.expected.at(name).values;
        if (a == actual.end() || a->second.size() != g.size()) {
            ++out[{name, "Missing"}];
            continue;
        }
        const OutputCensus c = census(golden, name, a->second, o);
        const DataType t = f.desc->DataType;
        const size_t w = element_size(t);
        for (size_t i = 0; i < c.verdicts.size(); ++i)
            if (c.verdicts[i] == Verdict::Over)
                ++out[{name, failure_class(t, load_bits(t, g.data() + i * w), load_bits(t, a->second.data() + i * w))}];
    }
    return out;
}

namespace {

using Outputs_ = std::map<std::string, std::vector<std::byte>>;

uint64_t total_elements(const Case& c) {
    uint64_t n = 0;
    for (const auto& f : tensor_fields(c.op)) n += element_count(*f.desc);
    return n;
}

std::optional<Case> read(const ordered_json& j) {
    try {
        Diagnostics d;
        Case c = parse_case(parse_json_text(dump_json(j)), "reduce.json", d);
        if (d.has_errors()) return std::nullopt;
        return c;
    } catch (const CaseError&) {
        return std::nullopt;
    }
}

}  // namespace

// The case as JSON: its desc as a golden writes it, every input as the list of its whole buffer.
static ordered_json reduce_case_json(const Case& c) {
    const JsonDocument doc = parse_json_text(write_golden(c, run_case(c), "reduce.json"));
    ordered_json j = ordered_json::object();
    for (const char* k : {"format", "name", "description", "operator", "desc"})
        if (doc.root.contains(k)) j[k] = with_number_text(doc, doc.root[k], std::string("/") + k);
    ordered_json inputs = ordered_json::object();
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Input) continue;
        const auto& b = c.inputs.at(std::string(f.name));
        const DataType t = f.desc->DataType;
        ordered_json list = ordered_json::array();
        for (size_t i = 0; i < b.size() / element_size(t); ++i)
            list.push_back(json_raw(format_exact_value(t, load_bits(t, b.data() + i * element_size(t)))));
        inputs[std::string(f.name)] = list;
    }
    j["inputs"] = inputs;
    if (!c.in_place.empty()) j["inPlace"] = c.in_place;
    return j;
}

std::string case_text(const Case& c) { return dump_json(reduce_case_json(c)); }

namespace {
ordered_json case_json(const Case& c) { return reduce_case_json(c); }

bool is_tensor(const ordered_json& v) { return v.is_object() && v.contains("DataType") && v.contains("Sizes"); }

// The logical elements of `from` (sizes `old`) kept in `now` (each dimension no larger), from the
// start (low) or the end (high) of each shrunk dimension.
std::vector<std::byte> keep(const std::vector<std::byte>& from, size_t w, const std::vector<uint32_t>& old,
                            const std::vector<uint32_t>& now, bool high) {
    uint64_t n = 1;
    for (auto s : now) n *= s;
    std::vector<std::byte> out(n * w);
    std::vector<uint64_t> idx(now.size(), 0);
    for (uint64_t k = 0; k < n; ++k) {
        uint64_t src = 0;
        for (size_t d = 0; d < now.size(); ++d) src = src * old[d] + idx[d] + (high ? old[d] - now[d] : 0);
        std::memcpy(out.data() + k * w, from.data() + src * w, w);
        for (size_t d = now.size(); d-- > 0;) {
            if (++idx[d] < now[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}

struct Reducer {
    const Backend& backend;
    const ReduceOptions& o;
    ReduceResult r;
    Case current;
    ordered_json cj;  // current as JSON

    bool budget() const { return r.runs < o.max_runs; }

    bool reproduces(const Case& cand) {
        if (!budget()) return false;
        ++r.runs;
        auto actual = backend(cand);
        if (!actual) return false;
        const JsonDocument g = parse_json_text(write_golden(cand, run_case(cand), "golden.json"));
        Diagnostics d;
        const Case golden = parse_case(g, "golden.json", d);
        return failures(golden, *actual, o.diff).count(r.kind) > 0;
    }

    bool accept(const ordered_json& j, const std::string& what) {
        auto c = read(j);
        if (!c || !reproduces(*c)) return false;
        current = std::move(*c);
        cj = case_json(current);
        ++r.accepted;
        r.steps.push_back(what);
        if (o.progress)
            o.progress("[" + std::to_string(r.runs) + " runs] " + what + ": " +
                       std::to_string(total_elements(current)) + " elements");
        return true;
    }

    // `j` with every input replaced by zeros, to check the desc alone.
    static ordered_json placeholder(ordered_json j) {
        for (auto& [k, v] : j["inputs"].items()) v = {{"Fill", 0}};
        return j;
    }
    static std::vector<Diagnostic> errors(const ordered_json& j) {
        std::vector<Diagnostic> e;
        try {
            Diagnostics d;
            parse_case(parse_json_text(dump_json(placeholder(j))), "reduce.json", d);
            for (const auto& item : d.items())
                if (item.severity == Severity::Error) e.push_back(item);
        } catch (const CaseError& ex) {
            e = ex.diagnostics().items();
        }
        return e;
    }

    // Error-driven repair: where a rule ties an array entry (an output's size, a window entry) to
    // the changed one, try that entry's smaller values until its error goes. `fixed` is not touched.
    bool repair(ordered_json& j, const std::string& fixed) {
        for (int step = 0; step < 32; ++step) {
            const auto e = errors(j);
            if (e.empty()) return true;
            const std::string path = e.front().path;
            if (path == fixed) return false;
            const size_t slash = path.rfind('/');
            const std::string parent = path.substr(0, slash), last = path.substr(slash + 1);
            if (last.empty() || last.find_first_not_of("0123456789") != std::string::npos) return false;
            // The entry the error names, then the same entry of the desc's other arrays (a window
            // that no longer fits may need a smaller offset rather than a smaller size).
            std::vector<std::string> paths{path};
            for (const auto& [field, value] : j["desc"].items())
                if (!is_tensor(value) && value.is_array() && "/desc/" + field != parent)
                    paths.push_back("/desc/" + field + "/" + last);
            bool fixed_it = false;
            for (const auto& candidate : paths) {
                ordered_json::json_pointer p(candidate);
                if (candidate == fixed || !j.contains(p) || !j[p].is_number_integer()) continue;
                const int64_t old = j[p].get<int64_t>();
                for (int64_t v = old - 1; v >= 0 && !fixed_it; --v) {
                    j[p] = v;
                    const auto again = errors(j);
                    fixed_it = std::none_of(again.begin(), again.end(),
                                            [&](const Diagnostic& d) { return d.path == path; });
                }
                if (fixed_it) break;
                j[p] = old;
            }
            if (!fixed_it) return false;
        }
        return false;
    }

    // The inputs of `j` cut to its (new) sizes from the current case's.
    void cut_inputs(ordered_json& j, bool high) {
        for (const auto& f : tensor_fields(current.op)) {
            if (f.role != TensorRole::Input) continue;
            const std::string n(f.name);
            const auto now = j["desc"][n]["Sizes"].get<std::vector<uint32_t>>();
            const auto& old = f.desc->Sizes;
            if (now == old) continue;
            const DataType t = f.desc->DataType;
            const auto kept = keep(gather_logical(*f.desc, current.inputs.at(n)), element_size(t), old, now, high);
            ordered_json list = ordered_json::array();
            for (size_t i = 0; i < kept.size() / element_size(t); ++i)
                list.push_back(json_raw(format_exact_value(t, load_bits(t, kept.data() + i * element_size(t)))));
            j["inputs"][n] = list;
        }
    }

    bool packed() const {
        for (const auto& f : tensor_fields(current.op))
            if (!f.desc->Strides.empty() || f.desc->TotalTensorSizeInBytes) return false;
        return true;
    }

    bool try_pack() {
        if (packed()) return false;
        ordered_json j = cj;
        for (const auto& f : tensor_fields(current.op)) {
            ordered_json& d = j["desc"][std::string(f.name)];
            d.erase("Strides");
            d.erase("TotalTensorSizeInBytes");
            if (f.role != TensorRole::Input) continue;
            const DataType t = f.desc->DataType;
            const auto logical = gather_logical(*f.desc, current.inputs.at(std::string(f.name)));
            ordered_json list = ordered_json::array();
            for (size_t i = 0; i < logical.size() / element_size(t); ++i)
                list.push_back(json_raw(format_exact_value(t, load_bits(t, logical.data() + i * element_size(t)))));
            j["inputs"][std::string(f.name)] = list;
        }
        return accept(j, "packed layout (no Strides)");
    }

    bool try_sizes() {
        if (!packed()) return false;
        for (const auto& f : tensor_fields(current.op)) {
            const auto& sizes = f.desc->Sizes;
            for (size_t k = 0; k < sizes.size(); ++k) {
                std::vector<uint32_t> tries;
                for (uint32_t n : {1u, (sizes[k] + 1) / 2, sizes[k] - 1})
                    if (n >= 1 && n < sizes[k] && std::find(tries.begin(), tries.end(), n) == tries.end())
                        tries.push_back(n);
                for (uint32_t n : tries)
                    for (bool high : {false, true}) {
                        if (!budget()) return false;
                        ordered_json j = cj;
                        const std::string path = "/desc/" + std::string(f.name) + "/Sizes/" + std::to_string(k);
                        // Every tensor of the same sizes shrinks with it (an element-wise operator's
                        // rule ties them without an entry to repair); the others are repaired.
                        for (const auto& g : tensor_fields(current.op))
                            if (g.desc->Sizes == sizes) j["desc"][std::string(g.name)]["Sizes"][k] = n;
                        if (!repair(j, path)) continue;
                        cut_inputs(j, high);
                        if (accept(j, std::string(f.name) + ".Sizes[" + std::to_string(k) + "] " +
                                          std::to_string(sizes[k]) + " -> " + std::to_string(n) +
                                          (high ? " (last elements)" : " (first elements)")))
                            return true;
                    }
            }
        }
        return false;
    }

    // Window, stride, padding, offset and scale entries of the desc: smaller integers, scale 1.
    bool try_arrays() {
        if (!packed()) return false;
        for (auto& [field, value] : cj["desc"].items()) {
            if (is_tensor(value) || !value.is_array()) continue;
            for (size_t i = 0; i < value.size(); ++i) {
                std::vector<ordered_json> tries;
                if (value[i].is_number_integer()) {
                    const int64_t old = value[i].get<int64_t>();
                    for (int64_t v : {int64_t(0), int64_t(1), old / 2})
                        if (v < old) tries.push_back(v);
                } else if (value[i].is_string() || value[i].is_number_float()) {
                    tries.push_back(1);
                }
                for (const auto& v : tries) {
                    if (!budget()) return false;
                    ordered_json j = cj;
                    const std::string path = "/desc/" + field + "/" + std::to_string(i);
                    if (j[ordered_json::json_pointer(path)].dump() == v.dump()) continue;
                    j[ordered_json::json_pointer(path)] = v;
                    if (!repair(j, path)) continue;
                    cut_inputs(j, false);
                    if (accept(j, field + "[" + std::to_string(i) + "] -> " + v.dump())) return true;
                }
            }
        }
        return false;
    }

    // Values: blocks of input elements set to 0, halving the block size; then single elements to 1.
    bool try_values() {
        for (const char* simple : {"0", "1"}) {
            for (const auto& f : tensor_fields(current.op)) {
                if (f.role != TensorRole::Input) continue;
                const std::string n(f.name);
                const DataType t = f.desc->DataType;
                const uint64_t zero = 0, one = parse_decimal(t, "1").bits, target = simple[0] == '0' ? zero : one;
                const auto& b = current.inputs.at(n);
                const size_t count = b.size() / element_size(t);
                auto is_simple = [&](size_t i) {
                    const uint64_t v = load_bits(t, b.data() + i * element_size(t));
                    return v == zero || v == target;
                };
                for (size_t block = simple[0] == '0' ? std::max<size_t>(count / 2, 1) : 1;; block /= 2) {
                    for (size_t start = 0; start < count; start += block) {
                        const size_t end = std::min(count, start + block);
                        bool all_simple = true;
                        for (size_t i = start; i < end; ++i) all_simple = all_simple && is_simple(i);
                        if (all_simple) continue;
                        if (!budget()) return false;
                        ordered_json j = cj;
                        for (size_t i = start; i < end; ++i) j["inputs"][n][i] = json_raw(simple);
                        if (accept(j, n + " elements " + std::to_string(start) + ".." + std::to_string(end - 1) +
                                          " -> " + simple))
                            return true;
                    }
                    if (block <= 1) break;
                }
            }
        }
        return false;
    }
};

}  // namespace

ReduceResult reduce(const Case& c, const Backend& backend, const ReduceOptions& o) {
    Reducer z{backend, o, {}, c, case_json(c)};
    // The original's kind: that of its worst over-tolerance element.
    auto actual = backend(c);
    ++z.r.runs;
    if (!actual) throw BackendFailed("the backend computed no outputs for the original case");
    Diagnostics d;
    const Case golden = parse_case(parse_json_text(write_golden(c, run_case(c), "golden.json")), "golden.json", d);
    for (const auto& f : tensor_fields(golden.op)) {
        if (f.role != TensorRole::Output || !z.r.kind.output.empty()) continue;
        const std::string name(f.name);
        if (!actual->count(name)) {
            z.r.kind = {name, "Missing"};
            break;
        }
        const OutputCensus cs = census(golden, name, actual->at(name), o.diff);
        for (const auto& w : cs.worst)
            if (w.judgement.verdict == Verdict::Over) {
                z.r.kind = {name, failure_class(f.desc->DataType, w.golden_bits, w.actual_bits)};
                break;
            }
    }
    if (z.r.kind.output.empty())
        throw NothingToReduce("the backend's outputs are within tolerance: there is no failure to reduce");
    z.r.elements_before = total_elements(c);
    while (z.budget() && (z.try_pack() || z.try_sizes() || z.try_arrays() || z.try_values())) {
    }
    z.r.reduced = z.current;
    z.r.elements_after = total_elements(z.current);
    return z.r;
}

}  // namespace dmlref
