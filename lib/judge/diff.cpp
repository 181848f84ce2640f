// `dmlref diff`: the census of each output under the tolerance model (per-element bounds of
// summed outputs from their own terms), one case, and directories of cases (docs/diff.md).
#include "dmlref/diff.hpp"
#include "dmlref/diff_golden.hpp"
#include "dmlref/admissible.hpp"
#include "dmlref/bits.hpp"

#include "dmlref/npy.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"

#include "fields.hpp"
#include "integer_ulp.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <array>
#include <cmath>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace dmlref {

// ---- Histogram -------------------------------------------------------------------------------

size_t histogram_bin(bool comparable, uint64_t d) {
    if (!comparable) return kHistogramBins - 1;
    if (d <= 2) return size_t(d);
    // (2^(p-1), 2^p] for p = 2 .. kHistogramTopPower goes to bin p + 1.
    for (int p = 2; p <= kHistogramTopPower; ++p)
        if (d <= (uint64_t(1) << p)) return size_t(p + 1);
    return kHistogramBins - 2;
}

std::string histogram_label(size_t bin) {
    if (bin <= 2) return std::to_string(bin);
    if (bin == kHistogramBins - 1) return "non-comparable";
    if (bin == kHistogramBins - 2) return ">" + std::to_string(uint64_t(1) << kHistogramTopPower);
    const int p = int(bin) - 1;
    return std::to_string((uint64_t(1) << (p - 1)) + 1) + "-" + std::to_string(uint64_t(1) << p);
}

// ---- Status ----------------------------------------------------------------------------------

CaseDiff::Status CaseDiff::status() const {
    if (!errors.empty()) return Status::Error;
    for (const auto& o : outputs)
        if (!o.passed()) return Status::Fail;
    return Status::Pass;
}

int DiffReport::exit_code() const {
    int code = 0;
    for (const auto& c : cases) {
        if (c.status() == CaseDiff::Status::Error) return 2;
        if (c.status() == CaseDiff::Status::Fail) code = 1;
    }
    return cases.empty() ? 2 : code;
}

// ---- The census of one output ----------------------------------------------------------------

namespace {

std::vector<uint64_t> coordinate_of(const std::vector<uint32_t>& sizes, uint64_t flat) {
    std::vector<uint64_t> c(sizes.size());
    for (size_t i = sizes.size(); i-- > 0;) {
        c[i] = flat % sizes[i];
        flat /= sizes[i];
    }
    return c;
}

// Worse first: over tolerance before within, non-comparable before comparable, larger error /
// bound (elements with a bound before those without), larger distance, then the lower index.
bool worse(const WorstElement& a, const WorstElement& b) {
    const bool ao = a.judgement.verdict == Verdict::Over, bo = b.judgement.verdict == Verdict::Over;
    if (ao != bo) return ao;
    if (a.judgement.comparable != b.judgement.comparable) return !a.judgement.comparable;
    const bool ab = a.bound >= 0, bb = b.bound >= 0;
    if (ab && bb && a.ratio != b.ratio) return a.ratio > b.ratio;
    if (ab != bb) return ab;
    if (a.judgement.distance != b.judgement.distance) return a.judgement.distance > b.judgement.distance;
    return a.index < b.index;
}

bool negative(DataType t, uint64_t bits) { return (bits >> (8 * element_size(t) - 1)) & 1; }

}  // namespace

OutputCensus census(const Case& golden, std::string_view output, const std::vector<std::byte>& actual,
                    const DiffOptions& options) {
    const TensorDesc* d = output_desc(golden, output);
    const auto& e = golden.expected.at(std::string(output));
    OutputCensus r;
    r.output = std::string(output);
    r.data_type = d->DataType;
    r.sizes = d->Sizes;
    r.tolerance = e.tolerance;
    r.profile = options.profile;
    r.profile.flush_subnormals = r.profile.flush_subnormals || options.switches.flushed_subnormals;
    // A case that states no Tolerance gets the table's.
    if (r.tolerance.Kind == "Bits" && r.tolerance.Why.empty()) r.tolerance = stated_tolerance(golden, output);
    const DataType t = d->DataType;
    const size_t w = element_size(t);
    r.elements = element_count(*d);

    std::map<uint64_t, std::string> skip;
    for (const auto& x : e.dont_care) skip.emplace(x.Index, x.Reason);
    for (const auto& x : dont_care(golden.op, output)) skip.emplace(x.Index, x.Reason);
    std::map<uint64_t, std::vector<std::string>> flags;
    for (auto& b : boundary_elements(golden, output, e.values)) flags[b.Index].push_back(b.Reason);
    // Elements several writes reach with different bits (DuplicateIndex=AnyWrite; from the golden's
    // inputs, which the golden's Admissible lists state): flagged, each judged below against the
    // listed value the backend wrote.
    const std::vector<Admissible> several = golden.inputs.empty() ? std::vector<Admissible>{}
                                                                  : admissible(golden, output);
    for (const auto& x : several) flags[x.Index].push_back(std::string(kSeveralWrites));
    // Outputs whose terms the operator enumerates are judged per element by their bound; other
    // Summed goldens fall back to their term counts.
    const bool sum = is_summed_output(golden, output);
    std::optional<TermSink> element_terms = summed_terms(golden, output, r.profile);
    r.bounded = element_terms.has_value();
    // Admissible readings move a term between linked elements: each group's total must keep it
    // (conservation), within the sum of the members' bounds without the readings' allowance.
    std::set<uint64_t> lost;
    if (element_terms && element_terms->linked()) {
        std::map<uint64_t, std::pair<double, double>> groups;  // representative -> (sum of errors, allowance)
        std::map<uint64_t, std::vector<uint64_t>> members;
        for (uint64_t i = 0; i < r.elements; ++i) {
            const uint64_t root = element_terms->group(i);
            if (root == i && !element_terms->elements()[i].ambiguous) continue;
            const uint64_t g = load_bits(t, e.values.data() + i * w), a = load_bits(t, actual.data() + i * w);
            const ElementTerms& et = element_terms->elements()[i];
            auto& [err, allowance] = groups[root];
            members[root].push_back(i);
            if (!std::isfinite(element_value(t, g)) || !std::isfinite(element_value(t, a)) || et.nan || et.infinite) {
                allowance = std::numeric_limits<double>::infinity();
                continue;
            }
            err += signed_error(t, g, a);
            allowance += conserved_bound(et, t, g, r.profile);
        }
        for (const auto& [root, ea] : groups)
            if (members[root].size() >= 2 && !(std::fabs(ea.first) <= ea.second * (1 + 1e-12))) {
                ++r.lost_readings;
                lost.insert(members[root].begin(), members[root].end());
            }
    }
    const std::vector<uint32_t> terms = !r.bounded && r.tolerance.Kind == "Summed" ? term_counts(golden, output)
                                                                                   : std::vector<uint32_t>{};

    // An integer output's Ulp at its operator's boundary elements only (lib/judge/integer_ulp.hpp).
    const bool ulp_at_boundary = ulp_only_at_boundary(golden, t, r.tolerance.Kind);
    ElementTolerance tol;
    tol.kind = r.tolerance.Kind;
    tol.ulp = r.tolerance.Ulp;
    tol.terms = r.tolerance.MaxTerms;
    tol.sum = sum;
    r.verdicts.assign(r.elements, Verdict::Identical);
    std::vector<WorstElement> candidates;
    size_t next_several = 0;
    for (uint64_t i = 0; i < r.elements; ++i) {
        if (auto s = skip.find(i); s != skip.end()) {
            ++r.skipped[s->second];
            r.verdicts[i] = Verdict::Skipped;
            continue;
        }
        uint64_t g = load_bits(t, e.values.data() + i * w);
        const uint64_t a = load_bits(t, actual.data() + i * w);
        // An element several writes reach with different bits: any of them is right; the
        // backend's is judged as the one it equals, counted under "SeveralWrites:k".
        while (next_several < several.size() && several[next_several].Index < i) ++next_several;
        if (next_several < several.size() && several[next_several].Index == i) {
            const auto& v = several[next_several].Values;
            if (const auto k = size_t(std::find(v.begin(), v.end(), a) - v.begin()); k < v.size()) {
                g = a;
                ++r.boundary[std::string(kSeveralWrites) + ":" + std::to_string(k + 1)].elements;
            }
        }
        // Per element: its own number of terms, never more than the golden states.
        if (!terms.empty()) tol.terms = std::min<uint64_t>(terms[i], r.tolerance.MaxTerms);
        const ElementTerms* et = element_terms ? &element_terms->elements()[i] : nullptr;
        if (et) tol.bound = element_bound(*et, t, g, r.profile);
        Judgement j = judge(t, g, a, tol, options.switches);
        // An infinity or NaN that a legal order reaches by overflowing a partial sum.
        if (et && j.verdict == Verdict::Over && j.nonfinite && overflow_admissible(*et, t, g, a, r.profile)) {
            j.verdict = Verdict::Within;
            j.nonfinite = false;
        }
        // A computed element whose forward error has no finite bound (a log of a sum whose sign
        // the backend's rounding may flip: docs/tolerance.md, "Computed values"): any value,
        // NaN and the infinities included, is what some correct backend gives.
        if (et && et->computed && !et->nan && !et->infinite && std::isinf(et->computed_error) &&
            j.verdict == Verdict::Over && j.nonfinite) {
            j.verdict = Verdict::Within;
            j.nonfinite = false;
        }
        if (lost.count(i) && j.verdict != Verdict::Over) j.verdict = Verdict::Over;  // its group lost a term
        if (ulp_at_boundary && j.verdict == Verdict::Within && !flags.count(i)) j.verdict = Verdict::Over;
        r.verdicts[i] = j.verdict;
        switch (j.verdict) {
            case Verdict::Identical: ++r.identical; break;
            case Verdict::Within: ++r.within; break;
            case Verdict::Over: ++r.over; break;
            case Verdict::Skipped: break;
        }
        r.nonfinite_mismatches += j.nonfinite;
        r.flushed_subnormals += j.flushed;
        ++r.histogram[j.verdict == Verdict::Identical ? 0 : histogram_bin(j.comparable, j.distance)];
        WorstElement we{i, {}, g, a, j, {}};
        if (et) {
            we.terms = et->n;
            we.abs_sum = et->abs_sum;
            we.bound = tol.bound;
            r.admissible += et->ambiguous;
            const bool finite = j.comparable || j.verdict == Verdict::Identical;
            if (finite && std::isfinite(tol.bound) && !et->nan && !et->infinite) {
                we.error = abs_error(t, g, a);
                we.ratio = tol.bound > 0 ? we.error / tol.bound
                                         : (we.error > 0 ? std::numeric_limits<double>::infinity() : 0.0);
                if (tol.bound > 0) {
                    ++r.summed_elements;
                    r.worst_ratio = std::max(r.worst_ratio, we.ratio);
                    r.detection_limit = std::max(r.detection_limit, 2 * tol.bound);
                    if (et->abs_sum > 0)
                        r.detection_limit_relative = std::max(r.detection_limit_relative, 2 * tol.bound / et->abs_sum);
                    // The systematic check: the error beyond the formation allowance, relative
                    // to the rounding part of the bound (docs/tolerance.md).
                    if (!et->ambiguous && j.verdict != Verdict::Over) {
                        const double err = signed_error(t, g, a), formation = formation_allowance(*et, t, r.profile);
                        const double soft = err > formation    ? err - formation
                                            : err < -formation ? err + formation
                                                               : 0.0;
                        const double rounding = tol.bound - formation;
                        if (rounding > 0) r.systematic.add(std::clamp(soft / rounding, -1.0, 1.0), negative(t, g));
                    }
                }
            }
        }
        if (lost.count(i)) we.boundary = "AdmissibleReadingLost";
        if (auto f = flags.find(i); f != flags.end()) {
            for (const auto& reason : f->second) {
                auto& bc = r.boundary[reason];
                ++bc.elements;
                bc.over += j.verdict == Verdict::Over;
                we.boundary += (we.boundary.empty() ? "" : ",") + reason;
            }
        }
        if (j.verdict != Verdict::Identical && options.worst > 0) candidates.push_back(std::move(we));
    }
    r.systematic.finish(options.false_alarm);
    const size_t k = std::min(options.worst, candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + std::ptrdiff_t(k), candidates.end(), worse);
    candidates.resize(k);
    for (auto& c : candidates) c.coordinate = coordinate_of(r.sizes, c.index);
    r.worst = std::move(candidates);
    return r;
}

// ---- One case ----------------------------------------------------------------------------------

namespace {

std::vector<std::string> diagnostics_text(const Diagnostics& d, const fs::path& file) {
    std::vector<std::string> out;
    for (const auto& item : d.items())
        if (item.severity == Severity::Error) out.push_back(format(item, file.string()));
    return out;
}

// Loads a case file; its errors become DiffErrors (all of them, one per line).
Case load_or_throw(const fs::path& file, uint64_t max_bytes, const char* what) {
    Diagnostics diags;
    Case c;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw DiffError(file.string() + ": no such file (" + what + ")");
    try {
        LoadOptions lo;
        lo.max_bytes = max_bytes;
        c = load_case(file, diags, lo);
    } catch (const CaseError& e) {
        diags = e.diagnostics();
    } catch (const std::exception&) {  // one bad case never stops a batch (docs/rules.md, internal.error)
        diags = {};
        diags.error("", "internal.error",
                    "dmlref could not read this case because of an internal error; please report it with the file");
    }
    if (diags.has_errors()) {
        std::string msg;
        for (const auto& line : diagnostics_text(diags, file)) msg += (msg.empty() ? "" : "\n") + line;
        throw DiffError(msg);
    }
    return c;
}

std::string list(const std::vector<std::string>& names) {
    std::string t;
    for (const auto& n : names) t += (t.empty() ? "" : ", ") + n;
    return t;
}

}  // namespace

namespace {

// The census of each expected output of `golden` (read from golden_file) against ACTUAL, with
// `readings` diagnosing the misses: both entry points below.
CaseDiff diff_outputs(const Case& golden, const fs::path& golden_file, const fs::path& actual,
                      const DiffOptions& options, ReadingsDiagnosis& readings) {
    CaseDiff r;
    r.golden = golden_file;
    r.name = golden.name;
    r.op = "DML_OPERATOR_" + std::string(info(golden.op.Type).Name);
    std::vector<std::string> outputs;  // expected outputs, in the desc's order
    for (const auto& f : tensor_fields(golden.op))
        if (f.role == TensorRole::Output && golden.expected.count(std::string(f.name))) outputs.emplace_back(f.name);
    if (outputs.empty()) {
        r.errors.push_back(golden_file.string() +
                           ": the golden has no expected outputs (write goldens with dmlref run -o)");
        return r;
    }
    for (const auto& [field, file] : options.files)
        if (std::find(outputs.begin(), outputs.end(), field) == outputs.end())
            r.errors.push_back(file.string() + ": --output names " + field + ", which is not an expected output of " +
                               golden_file.string() + " (" + list(outputs) + ")");
    if (!r.errors.empty()) return r;

    std::error_code ec;
    const bool actual_dir = !actual.empty() && fs::is_directory(actual, ec);
    const bool actual_case = !actual.empty() && !actual_dir && actual.extension() == ".json";
    std::optional<Case> actual_outputs;  // ACTUAL as a case file, loaded once
    size_t unnamed = 0;
    for (const auto& o : outputs) unnamed += !options.files.count(o);

    for (const auto& o : outputs) {
        const TensorDesc& d = *output_desc(golden, o);
        try {
            fs::path file;
            std::vector<std::byte> values;
            if (auto it = options.files.find(o); it != options.files.end()) {
                file = it->second;
            } else if (actual.empty()) {
                throw DiffError(golden_file.string() + ": no actual values for " + o + " (give ACTUAL or --output " +
                                o + "=FILE)");
            } else if (actual_dir) {
                const fs::path npy = actual / (o + ".npy"), bin = actual / (o + ".bin");
                const bool has_npy = fs::is_regular_file(npy, ec), has_bin = fs::is_regular_file(bin, ec);
                if (has_npy && has_bin)
                    throw DiffError(actual.string() + ": holds both " + o + ".npy and " + o + ".bin; keep one");
                if (!has_npy && !has_bin)
                    throw DiffError(actual.string() + ": holds neither " + o + ".npy nor " + o + ".bin");
                file = has_npy ? npy : bin;
            } else if (actual_case) {
                file = actual;
            } else if (unnamed == 1) {
                file = actual;
            } else {
                throw DiffError(actual.string() + ": one file for a golden with " + std::to_string(unnamed) +
                                " outputs (" + list(outputs) +
                                "); give a directory of <Output>.npy/.bin files, a case file, or --output NAME=FILE");
            }
            if (file.extension() == ".json") {
                if (!actual_outputs || file != actual)
                    actual_outputs = load_or_throw(file, options.max_bytes, "the actual outputs");
                const TensorDesc* ad = output_desc(*actual_outputs, o);
                auto ex = actual_outputs->expected.find(o);
                if (!ad || ex == actual_outputs->expected.end())
                    throw DiffError(file.string() + ": the case has no expected values for " + o);
                if (ad->DataType != d.DataType)
                    throw DiffError(file.string() + ": wrong dtype: " + o + ".DataType is " +
                                    std::string(name(ad->DataType)) + ", the golden's is " +
                                    std::string(name(d.DataType)));
                if (ad->Sizes != d.Sizes)
                    throw DiffError(file.string() + ": wrong shape: " + o + ".Sizes are " + sizes_text(ad->Sizes) +
                                    ", the golden's are " + sizes_text(d.Sizes));
                values = ex->second.values;
            } else if (file.extension() == ".npy") {
                values = read_actual_npy(file, d, options.max_bytes);
            } else {
                values = read_actual_raw(file, d, options.max_bytes);
            }
            OutputCensus c = census(golden, o, values, options);
            c.source = file.string();
            c.readings = readings.diagnose(o, values, c, options);  // which alternative readings the misses follow
            r.outputs.push_back(std::move(c));
        } catch (const DiffError& e) {
            r.errors.push_back(e.what());
        }
    }
    return r;
}

}  // namespace

CaseDiff diff_case(const fs::path& golden_file, const fs::path& actual, const DiffOptions& options) {
    Case golden;
    try {
        golden = load_or_throw(golden_file, options.max_bytes, "the golden case");
    } catch (const DiffError& e) {
        CaseDiff r;
        r.golden = golden_file;
        r.name = golden_file.stem().string();
        r.errors.push_back(e.what());
        return r;
    }
    // Where no output's judging reads the golden's inputs (moved and selected values), they are
    // freed before the actual values are read; a reading's run reads them again.
    bool reads_inputs = false;
    for (const auto& f : tensor_fields(golden.op))
        if (f.role == TensorRole::Output && golden.expected.count(std::string(f.name)))
            reads_inputs = reads_inputs || judging_reads_inputs(golden, std::string(f.name));
    if (!reads_inputs) golden.inputs.clear();
    ReadingsDiagnosis readings(golden, [&] {
        return load_or_throw(golden_file, options.max_bytes, "the golden case").inputs;
    });  // docs/diff.md, "Readings"
    return diff_outputs(golden, golden_file, actual, options, readings);
}

CaseDiff diff_case(const Case& golden, const fs::path& golden_file, const fs::path& actual,
                   const DiffOptions& options) {
    ReadingsDiagnosis readings(golden);  // docs/diff.md, "Readings"; the inputs are at hand
    return diff_outputs(golden, golden_file, actual, options, readings);
}

DiffReport diff(const fs::path& golden, const fs::path& actual, const DiffOptions& options) {
    DiffReport report;
    report.switches = options.switches;
    report.profile = options.profile;
    report.profile.flush_subnormals = report.profile.flush_subnormals || options.switches.flushed_subnormals;
    std::error_code ec;
    if (!fs::is_directory(golden, ec)) {
        if (!fs::exists(golden, ec)) {
            CaseDiff c;
            c.golden = golden;
            c.name = golden.stem().string();
            c.errors.push_back(golden.string() + ": no such file or directory");
            report.cases.push_back(std::move(c));
            return report;
        }
        report.cases.push_back(diff_case(golden, actual, options));
        return report;
    }
    report.directory_mode = true;
    auto fail = [&](const std::string& message) {
        CaseDiff c;
        c.golden = golden;
        c.name = golden.string();
        c.errors.push_back(message);
        report.cases.push_back(std::move(c));
        return report;
    };
    if (!options.files.empty())
        return fail(golden.string() + ": --output is for a single golden file, not a directory");
    if (actual.empty() || !fs::is_directory(actual, ec))
        return fail(
            actual.string() +
            ": with a directory of goldens, ACTUAL must be a directory (ACTUAL/<case>.json or ACTUAL/<case>/<Output>.npy|.bin)");
    std::vector<fs::path> files;
    // Every folder of the tree (links to folders are not followed); an entry that cannot be read
    // is reported and the walk goes on with the rest (as `run DIR` does).
    auto unreadable = [&](const fs::path& p, const std::string& message) {  // an error of its own, named by the entry
        CaseDiff c;
        c.golden = p;
        c.name = printable(p.lexically_relative(golden).generic_string());
        c.errors.push_back(message);
        report.cases.push_back(std::move(c));
    };
    std::vector<fs::path> folders{golden};
    while (!folders.empty()) {
        const fs::path dir = folders.back();
        folders.pop_back();
        std::error_code dec;
        fs::directory_iterator it(dir, dec), end;
        for (; !dec && it != end; it.increment(dec)) {
            const fs::path& p = it->path();
            if (!is_utf8(p.filename().string())) {
                unreadable(p, printable(p.string()) +
                                  ": the name is not UTF-8; dmlref reads UTF-8 names only (rename it) [file.name]");
                continue;
            }
            std::error_code lec, sec;
            const auto link = it->symlink_status(lec);
            const auto st = it->status(sec);
            if (fs::is_symlink(link) && !fs::exists(st)) {
                unreadable(
                    p, p.string() + ": a symbolic link to nothing (dangling); remove it or fix its target [file.read]");
            } else if (lec || (sec && !fs::is_symlink(link))) {
                unreadable(p, p.string() + ": cannot read: " + (lec ? lec : sec).message() + " [file.read]");
            } else if (fs::is_directory(link)) {
                folders.push_back(p);
            } else if (fs::is_regular_file(st) && p.extension() == ".json") {
                files.push_back(p.lexically_relative(golden));
            }
        }
        if (dec) unreadable(dir, dir.string() + ": cannot read the folder: " + dec.message() + " [file.read]");
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) return fail(golden.string() + ": no .json golden files in this directory");
    for (size_t k = 0; k < files.size(); ++k) {
        const fs::path& rel = files[k];
        fs::path stem = rel;
        stem.replace_extension();
        if (options.progress) options.progress(k, files.size(), stem.generic_string());
        const fs::path as_case = actual / (stem.string() + ".json"), as_dir = actual / stem;
        if (fs::is_regular_file(as_case, ec)) {
            report.cases.push_back(diff_case(golden / rel, as_case, options));
        } else if (fs::is_directory(as_dir, ec)) {
            report.cases.push_back(diff_case(golden / rel, as_dir, options));
        } else {
            CaseDiff c;
            c.golden = golden / rel;
            c.name = stem.generic_string();
            c.errors.push_back((golden / rel).string() + ": no actual outputs: neither " + as_case.string() +
                               " nor the directory " + as_dir.string() + " exists");
            report.cases.push_back(std::move(c));
        }
    }
    if (options.progress) options.progress(files.size(), files.size(), "");
    return report;
}

}  // namespace dmlref
