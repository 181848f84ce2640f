// `dmlref diff`: reading a backend's outputs, the census of each output under the tolerance
// model, the text and JSON reports, and the picture (docs/diff.md).
#include "dmlref/diff.hpp"

#include "dmlref/atomic_file.hpp"

#include "dmlref/npy.hpp"
#include "dmlref/values.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
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

// ---- Reading actual values -------------------------------------------------------------------

namespace {

std::string sizes_text(const std::vector<uint32_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
    return t + "]";
}

template <class V> std::vector<uint64_t> without_ones(const V& s) {
    std::vector<uint64_t> out;
    for (auto n : s)
        if (n != 1) out.push_back(n);
    return out;
}

std::string read_file_bytes(const fs::path& file, uint64_t max_bytes) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw DiffError(file.string() + ": no such file");
    const auto size = fs::file_size(file, ec);
    if (ec) throw DiffError(file.string() + ": cannot read: " + ec.message());
    if (size > max_bytes) throw DiffError(file.string() + ": " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw DiffError(file.string() + ": cannot open");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

std::vector<std::byte> read_actual_npy(const fs::path& file, const TensorDesc& d, uint64_t max_bytes) {
    NpyArray a;
    try {
        a = read_npy(file, max_bytes);
    } catch (const NpyError& e) {
        throw DiffError(file.string() + ": " + e.what());
    }
    if (a.data_type != d.DataType)
        throw DiffError(file.string() + ": wrong dtype: the file holds " + npy_dtype(a.data_type) + " (" + std::string(name(a.data_type)) +
                        "), the golden output's DataType is " + std::string(name(d.DataType)) + " (" + npy_dtype(d.DataType) + ")");
    // The elements are in row-major order of the shape; dimensions of size 1 do not change that order.
    if (without_ones(a.shape) != without_ones(d.Sizes)) {
        std::string shape = "(";
        for (size_t i = 0; i < a.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape[i]);
        throw DiffError(file.string() + ": wrong shape: the file's shape is " + shape + (a.shape.size() == 1 ? ",)" : ")") +
                        ", the golden output's Sizes are " + sizes_text(d.Sizes));
    }
    return std::move(a.data);
}

std::vector<std::byte> read_actual_raw(const fs::path& file, const TensorDesc& d, uint64_t max_bytes) {
    const std::string bytes = read_file_bytes(file, max_bytes);
    const uint64_t w = element_size(d.DataType);
    const uint64_t needed = (index_of_last_element(d) + 1) * w;
    const uint64_t total = buffer_size(d);
    const std::string what = std::string(name(d.DataType)) + " " + sizes_text(d.Sizes) +
                             (d.Strides.empty() ? "" : " with Strides " + sizes_text(d.Strides));
    if (bytes.size() < needed)
        throw DiffError(file.string() + ": truncated raw buffer: " + what + " needs at least " + std::to_string(needed) +
                        " bytes (its last logical element ends there; TotalTensorSizeInBytes is " + std::to_string(total) +
                        "), the file has " + std::to_string(bytes.size()));
    if (bytes.size() > total)
        throw DiffError(file.string() + ": the raw buffer has " + std::to_string(bytes.size()) + " bytes, more than the " +
                        std::to_string(total) + " of TotalTensorSizeInBytes for " + what +
                        " (another DataType or Sizes?); set TotalTensorSizeInBytes in the golden's desc for a larger binding");
    std::vector<std::byte> buffer(total);
    std::memcpy(buffer.data(), bytes.data(), bytes.size());
    return gather_logical(d, buffer);
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

const TensorDesc* output_desc(const Case& c, std::string_view output) {
    for (const auto& f : tensor_fields(c.op))
        if (f.role == TensorRole::Output && f.name == output) return f.desc;
    return nullptr;
}

// Worse first: over tolerance before within, non-comparable before comparable, larger distance,
// then the lower index.
bool worse(const WorstElement& a, const WorstElement& b) {
    const bool ao = a.judgement.verdict == Verdict::Over, bo = b.judgement.verdict == Verdict::Over;
    if (ao != bo) return ao;
    if (a.judgement.comparable != b.judgement.comparable) return !a.judgement.comparable;
    if (a.judgement.distance != b.judgement.distance) return a.judgement.distance > b.judgement.distance;
    return a.index < b.index;
}

}  // namespace

OutputCensus census(const Case& golden, std::string_view output, const std::vector<std::byte>& actual, const DiffOptions& options) {
    const TensorDesc* d = output_desc(golden, output);
    const auto& e = golden.expected.at(std::string(output));
    OutputCensus r;
    r.output = std::string(output);
    r.data_type = d->DataType;
    r.sizes = d->Sizes;
    r.tolerance = e.tolerance;
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
    const std::vector<uint32_t> terms = r.tolerance.Kind == "Summed" ? term_counts(golden, output) : std::vector<uint32_t>{};

    ElementTolerance tol;
    tol.kind = r.tolerance.Kind;
    tol.ulp = r.tolerance.Ulp;
    tol.terms = r.tolerance.MaxTerms;
    r.verdicts.assign(r.elements, Verdict::Identical);
    std::vector<WorstElement> candidates;
    for (uint64_t i = 0; i < r.elements; ++i) {
        if (auto s = skip.find(i); s != skip.end()) {
            ++r.skipped[s->second];
            r.verdicts[i] = Verdict::Skipped;
            continue;
        }
        const uint64_t g = load_bits(t, e.values.data() + i * w), a = load_bits(t, actual.data() + i * w);
        // Per element: its own number of terms, never more than the golden states.
        if (!terms.empty()) tol.terms = std::min<uint64_t>(terms[i], r.tolerance.MaxTerms);
        const Judgement j = judge(t, g, a, tol, options.switches);
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
        std::string boundary;
        if (auto f = flags.find(i); f != flags.end()) {
            for (const auto& reason : f->second) {
                auto& bc = r.boundary[reason];
                ++bc.elements;
                bc.over += j.verdict == Verdict::Over;
                boundary += (boundary.empty() ? "" : ",") + reason;
            }
        }
        if (j.verdict != Verdict::Identical && options.worst > 0)
            candidates.push_back({i, {}, g, a, j, boundary});
    }
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
        diags.error("", "internal.error", "dmlref could not read this case because of an internal error; please report it with the file");
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

CaseDiff diff_case(const fs::path& golden_file, const fs::path& actual, const DiffOptions& options) {
    CaseDiff r;
    r.golden = golden_file;
    r.name = golden_file.stem().string();
    Case golden;
    try {
        golden = load_or_throw(golden_file, options.max_bytes, "the golden case");
    } catch (const DiffError& e) {
        r.errors.push_back(e.what());
        return r;
    }
    r.name = golden.name;
    r.op = "DML_OPERATOR_" + std::string(info(golden.op.Type).Name);
    std::vector<std::string> outputs;  // expected outputs, in the desc's order
    for (const auto& f : tensor_fields(golden.op))
        if (f.role == TensorRole::Output && golden.expected.count(std::string(f.name))) outputs.emplace_back(f.name);
    if (outputs.empty()) {
        r.errors.push_back(golden_file.string() + ": the golden has no expected outputs (write goldens with dmlref run -o)");
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
                throw DiffError(golden_file.string() + ": no actual values for " + o + " (give ACTUAL or --output " + o + "=FILE)");
            } else if (actual_dir) {
                const fs::path npy = actual / (o + ".npy"), bin = actual / (o + ".bin");
                const bool has_npy = fs::is_regular_file(npy, ec), has_bin = fs::is_regular_file(bin, ec);
                if (has_npy && has_bin) throw DiffError(actual.string() + ": holds both " + o + ".npy and " + o + ".bin; keep one");
                if (!has_npy && !has_bin) throw DiffError(actual.string() + ": holds neither " + o + ".npy nor " + o + ".bin");
                file = has_npy ? npy : bin;
            } else if (actual_case) {
                file = actual;
            } else if (unnamed == 1) {
                file = actual;
            } else {
                throw DiffError(actual.string() + ": one file for a golden with " + std::to_string(unnamed) + " outputs (" + list(outputs) +
                                "); give a directory of <Output>.npy/.bin files, a case file, or --output NAME=FILE");
            }
            if (file.extension() == ".json") {
                if (!actual_outputs || file != actual) actual_outputs = load_or_throw(file, options.max_bytes, "the actual outputs");
                const TensorDesc* ad = output_desc(*actual_outputs, o);
                auto ex = actual_outputs->expected.find(o);
                if (!ad || ex == actual_outputs->expected.end())
                    throw DiffError(file.string() + ": the case has no expected values for " + o);
                if (ad->DataType != d.DataType)
                    throw DiffError(file.string() + ": wrong dtype: " + o + ".DataType is " + std::string(name(ad->DataType)) +
                                    ", the golden's is " + std::string(name(d.DataType)));
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
            r.outputs.push_back(std::move(c));
        } catch (const DiffError& e) {
            r.errors.push_back(e.what());
        }
    }
    return r;
}

DiffReport diff(const fs::path& golden, const fs::path& actual, const DiffOptions& options) {
    DiffReport report;
    report.switches = options.switches;
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
    if (!options.files.empty()) return fail(golden.string() + ": --output is for a single golden file, not a directory");
    if (actual.empty() || !fs::is_directory(actual, ec))
        return fail(actual.string() + ": with a directory of goldens, ACTUAL must be a directory (ACTUAL/<case>.json or ACTUAL/<case>/<Output>.npy|.bin)");
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(golden, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path().lexically_relative(golden));
    if (ec) (void)fail(golden.string() + ": cannot read every entry of the directory: " + ec.message() + " [file.read]");
    std::sort(files.begin(), files.end());
    if (files.empty()) return fail(golden.string() + ": no .json golden files in this directory");
    for (const auto& rel : files) {
        fs::path stem = rel;
        stem.replace_extension();
        const fs::path as_case = actual / (stem.string() + ".json"), as_dir = actual / stem;
        if (fs::is_regular_file(as_case, ec)) {
            report.cases.push_back(diff_case(golden / rel, as_case, options));
        } else if (fs::is_directory(as_dir, ec)) {
            report.cases.push_back(diff_case(golden / rel, as_dir, options));
        } else {
            CaseDiff c;
            c.golden = golden / rel;
            c.name = stem.generic_string();
            c.errors.push_back((golden / rel).string() + ": no actual outputs: neither " + as_case.string() + " nor the directory " +
                               as_dir.string() + " exists");
            report.cases.push_back(std::move(c));
        }
    }
    return report;
}

// ---- Reports -----------------------------------------------------------------------------------

namespace {

std::string pad(std::string s, size_t n) {
    if (s.size() < n) s.append(n - s.size(), ' ');
    return s;
}

std::string status_name(CaseDiff::Status s) {
    switch (s) {
        case CaseDiff::Status::Pass: return "PASS";
        case CaseDiff::Status::Fail: return "FAIL";
        case CaseDiff::Status::Error: return "ERROR";
    }
    return "";
}

std::string tolerance_text(const Tolerance& t) {
    if (t.Kind == "Ulp") return "Ulp: within " + std::to_string(t.Ulp) + " ULP";
    if (t.Kind == "Summed")
        return "Summed: exact sums of up to " + std::to_string(t.MaxTerms) +
               " terms; an element of n >= 2 terms may be (n - 1/2) ULP of the golden away, one term is bit for bit";
    return "Bits: bit for bit";
}

std::string coordinate_text(const std::vector<uint64_t>& c) {
    std::string t = "[";
    for (size_t i = 0; i < c.size(); ++i) t += (i ? "," : "") + std::to_string(c[i]);
    return t + "]";
}

uint64_t skipped_total(const OutputCensus& o) {
    uint64_t n = 0;
    for (const auto& [reason, count] : o.skipped) n += count;
    return n;
}

void output_details(const OutputCensus& o, std::ostream& s) {
    s << "  " << o.output << " " << name(o.data_type) << " " << sizes_text(o.sizes) << " from " << o.source << "\n";
    s << "    tolerance: " << tolerance_text(o.tolerance) << "\n";
    s << "    " << o.elements << " elements: " << o.identical << " bit-identical, " << o.within << " within tolerance, "
      << o.over << " over tolerance, " << skipped_total(o) << " skipped; " << o.nonfinite_mismatches << " non-finite mismatches";
    if (o.flushed_subnormals) s << "; " << o.flushed_subnormals << " flushed subnormals accepted";
    s << "\n";
    for (const auto& [reason, count] : o.skipped) s << "    skipped (don't care): " << count << " " << reason << "\n";
    for (const auto& [reason, b] : o.boundary)
        s << "    boundary elements: " << b.elements << " " << reason << ", " << b.over << " of them over tolerance\n";
    s << "    ULP distances:";
    for (size_t b = 0; b < o.histogram.size(); ++b)
        if (o.histogram[b]) s << "  " << histogram_label(b) << ": " << o.histogram[b];
    s << "\n";
    if (!o.worst.empty()) {
        s << "    " << pad("index", 16) << pad("golden", 36) << pad("actual", 36) << pad("ULPs", 8) << "verdict\n";
        for (const auto& w : o.worst) {
            s << "    " << pad(coordinate_text(w.coordinate), 16)
              << pad(display_value(o.data_type, w.golden_bits) + " " + hex_bits(o.data_type, w.golden_bits), 36)
              << pad(display_value(o.data_type, w.actual_bits) + " " + hex_bits(o.data_type, w.actual_bits), 36)
              << pad(w.judgement.comparable ? std::to_string(w.judgement.distance) : "n/a", 8)
              << (w.judgement.verdict == Verdict::Over ? "over" : "within") << (w.boundary.empty() ? "" : " (boundary: " + w.boundary + ")")
              << "\n";
        }
    }
}

std::string switches_text(const DiffSwitches& s) {
    std::string t;
    if (s.zeros_equal) t += " --zeros-equal";
    if (s.any_nan) t += " --any-nan";
    if (s.flushed_subnormals) t += " --accept-flushed-subnormals";
    return t.empty() ? "none" : t.substr(1);
}

}  // namespace

std::string report_text(const DiffReport& r) {
    std::ostringstream s;
    size_t pass = 0, fail = 0, error = 0;
    s << "dmlref " << dmlref_version() << " diff; switches: " << switches_text(r.switches) << "\n";
    if (r.directory_mode) {
        s << pad("status", 7) << pad("case", 48) << pad("elements", 10) << pad("identical", 11) << pad("within", 8) << pad("over", 8)
          << pad("skipped", 9) << "worst ULPs\n";
        for (const auto& c : r.cases) {
            uint64_t n = 0, id = 0, wi = 0, ov = 0, sk = 0;
            uint64_t worst = 0;
            bool noncomparable = false;
            for (const auto& o : c.outputs) {
                n += o.elements; id += o.identical; wi += o.within; ov += o.over; sk += skipped_total(o);
                if (!o.worst.empty()) {
                    const auto& w = o.worst.front().judgement;
                    if (!w.comparable) noncomparable = true; else worst = std::max(worst, w.distance);
                }
            }
            s << pad(status_name(c.status()), 7) << pad(c.name, 48);
            if (c.status() == CaseDiff::Status::Error) s << "see below\n";
            else s << pad(std::to_string(n), 10) << pad(std::to_string(id), 11) << pad(std::to_string(wi), 8) << pad(std::to_string(ov), 8)
                   << pad(std::to_string(sk), 9) << (noncomparable ? "n/a" : std::to_string(worst)) << "\n";
        }
        s << "\n";
    }
    for (const auto& c : r.cases) {
        const auto st = c.status();
        pass += st == CaseDiff::Status::Pass;
        fail += st == CaseDiff::Status::Fail;
        error += st == CaseDiff::Status::Error;
        if (r.directory_mode && st == CaseDiff::Status::Pass) continue;
        s << status_name(st) << " " << c.name << (c.op.empty() ? "" : " " + c.op) << " (" << c.golden.string() << ")\n";
        for (const auto& e : c.errors) s << "  error: " << e << "\n";
        for (const auto& o : c.outputs) output_details(o, s);
    }
    s << r.cases.size() << " case" << (r.cases.size() == 1 ? "" : "s") << ": " << pass << " passed, " << fail << " failed, " << error
      << " errors\n";
    return s.str();
}

std::string report_json(const DiffReport& r) {
    using oj = nlohmann::ordered_json;
    oj root;
    root["dmlref"] = std::string(dmlref_version());
    root["switches"] = {{"zeros_equal", r.switches.zeros_equal}, {"any_nan", r.switches.any_nan},
                        {"accept_flushed_subnormals", r.switches.flushed_subnormals}};
    size_t pass = 0, fail = 0, error = 0;
    oj cases = oj::array();
    for (const auto& c : r.cases) {
        const auto st = c.status();
        pass += st == CaseDiff::Status::Pass;
        fail += st == CaseDiff::Status::Fail;
        error += st == CaseDiff::Status::Error;
        oj cj;
        cj["golden"] = c.golden.generic_string();
        cj["name"] = c.name;
        cj["operator"] = c.op;
        cj["status"] = st == CaseDiff::Status::Pass ? "pass" : st == CaseDiff::Status::Fail ? "fail" : "error";
        cj["errors"] = c.errors;
        oj outs = oj::array();
        for (const auto& o : c.outputs) {
            oj j;
            j["output"] = o.output;
            j["source"] = o.source;
            j["DataType"] = std::string(name(o.data_type));
            j["Sizes"] = o.sizes;
            oj tol;
            tol["Kind"] = o.tolerance.Kind;
            if (o.tolerance.Kind == "Ulp") tol["Ulp"] = o.tolerance.Ulp;
            if (o.tolerance.Kind == "Summed") tol["MaxTerms"] = o.tolerance.MaxTerms;
            tol["Why"] = o.tolerance.Why;
            j["Tolerance"] = tol;
            j["passed"] = o.passed();
            j["elements"] = o.elements;
            j["identical"] = o.identical;
            j["within"] = o.within;
            j["over"] = o.over;
            j["skipped"] = skipped_total(o);
            j["skipped_by_reason"] = oj::object();
            for (const auto& [reason, n] : o.skipped) j["skipped_by_reason"][reason] = n;
            j["nonfinite_mismatches"] = o.nonfinite_mismatches;
            j["flushed_subnormals"] = o.flushed_subnormals;
            j["boundary"] = oj::object();
            for (const auto& [reason, b] : o.boundary) j["boundary"][reason] = {{"elements", b.elements}, {"over", b.over}};
            oj hist = oj::array();
            for (size_t b = 0; b < o.histogram.size(); ++b) hist.push_back({{"bin", histogram_label(b)}, {"count", o.histogram[b]}});
            j["histogram"] = hist;
            oj worst = oj::array();
            for (const auto& w : o.worst) {
                oj wj;
                wj["index"] = w.index;
                wj["coordinate"] = w.coordinate;
                wj["golden"] = display_value(o.data_type, w.golden_bits);
                wj["golden_bits"] = hex_bits(o.data_type, w.golden_bits);
                wj["actual"] = display_value(o.data_type, w.actual_bits);
                wj["actual_bits"] = hex_bits(o.data_type, w.actual_bits);
                wj["ulp_distance"] = w.judgement.comparable ? oj(w.judgement.distance) : oj(nullptr);
                wj["verdict"] = w.judgement.verdict == Verdict::Over ? "over" : "within";
                wj["nonfinite"] = w.judgement.nonfinite;
                wj["boundary"] = w.boundary.empty() ? oj(nullptr) : oj(w.boundary);
                worst.push_back(wj);
            }
            j["worst"] = worst;
            outs.push_back(j);
        }
        cj["outputs"] = outs;
        cases.push_back(cj);
    }
    root["summary"] = {{"cases", r.cases.size()}, {"passed", pass}, {"failed", fail}, {"errors", error}, {"exit_code", r.exit_code()}};
    root["cases"] = cases;
    // A name that is not UTF-8 (a file name) is written with U+FFFD in its place, never an exception.
    return root.dump(2, ' ', false, oj::error_handler_t::replace) + "\n";
}

// ---- The picture -------------------------------------------------------------------------------

namespace {

using Rgb = std::array<uint8_t, 3>;

Rgb colour(Verdict v) {
    switch (v) {
        case Verdict::Identical: return {96, 96, 96};   // grey
        case Verdict::Within: return {0, 190, 0};       // green
        case Verdict::Over: return {230, 0, 0};         // red
        case Verdict::Skipped: return {40, 90, 255};    // blue
    }
    return {0, 0, 0};
}

uint32_t crc32(const std::string& s) {
    uint32_t c = 0xffffffffu;
    for (unsigned char ch : s) {
        c ^= ch;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

void put32(std::string& s, uint32_t v) {
    for (int i = 3; i >= 0; --i) s.push_back(char((v >> (8 * i)) & 0xff));
}

// PNG with zlib "stored" (uncompressed) deflate blocks: no dependency, larger files.
std::string png(uint64_t width, uint64_t height, const std::vector<uint8_t>& rgb) {
    std::string raw;
    raw.reserve(size_t(height * (width * 3 + 1)));
    for (uint64_t y = 0; y < height; ++y) {
        raw.push_back('\0');  // filter: none
        raw.append(reinterpret_cast<const char*>(rgb.data() + y * width * 3), size_t(width * 3));
    }
    std::string z = "\x78\x01";
    for (size_t p = 0; p < raw.size() || p == 0; p += 65535) {
        const size_t n = std::min<size_t>(65535, raw.size() - p);
        z.push_back(p + n >= raw.size() ? '\1' : '\0');
        z.push_back(char(n & 0xff));
        z.push_back(char(n >> 8));
        z.push_back(char(~n & 0xff));
        z.push_back(char((~n >> 8) & 0xff));
        z.append(raw, p, n);
        if (raw.empty()) break;
    }
    uint32_t a = 1, b = 0;
    for (unsigned char ch : raw) {
        a = (a + ch) % 65521;
        b = (b + a) % 65521;
    }
    put32(z, (b << 16) | a);
    auto chunk = [](std::string& out, const char* type, const std::string& data) {
        put32(out, uint32_t(data.size()));
        const std::string body = std::string(type, 4) + data;
        out += body;
        put32(out, crc32(body));
    };
    std::string ihdr;
    put32(ihdr, uint32_t(width));
    put32(ihdr, uint32_t(height));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, no filter, no interlace
    std::string out = "\x89PNG\r\n\x1a\n";
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", z);
    chunk(out, "IEND", "");
    return out;
}

}  // namespace

void write_mismatch_image(const OutputCensus& c, const fs::path& file) {
    // Tiles of the last two dimensions (a 1-D tensor is one row), one per leading index, in a grid.
    const uint64_t W = c.sizes.back();
    const uint64_t H = c.sizes.size() >= 2 ? c.sizes[c.sizes.size() - 2] : 1;
    const uint64_t tiles = c.elements / (W * H);  // Sizes are >= 1
    const uint64_t cols = std::max<uint64_t>(1, uint64_t(std::ceil(std::sqrt(double(tiles)))));
    const uint64_t rows = (tiles + cols - 1) / cols;
    const uint64_t gap = tiles > 1 ? 1 : 0;
    const uint64_t bw = cols * W + (cols - 1) * gap, bh = rows * H + (rows - 1) * gap;
    if (bw * bh > (uint64_t(1) << 26))
        throw DiffError(file.string() + ": " + c.output + " is too large for a picture (" + std::to_string(bw) + " x " + std::to_string(bh) + " pixels)");
    // Small tensors are scaled up so that a tile is visible: about 512 pixels on the long side.
    const uint64_t scale = std::clamp<uint64_t>(512 / std::max(bw, bh), 1, 32);
    const uint64_t width = bw * scale, height = bh * scale;
    std::vector<uint8_t> rgb(size_t(width * height * 3), 255);  // white between tiles
    for (uint64_t i = 0; i < c.elements; ++i) {
        const uint64_t tile = i / (W * H), y = (i / W) % H, x = i % W;
        const uint64_t px = (tile % cols) * (W + gap) + x, py = (tile / cols) * (H + gap) + y;
        const Rgb col = colour(c.verdicts[i]);
        for (uint64_t dy = 0; dy < scale; ++dy)
            for (uint64_t dx = 0; dx < scale; ++dx) {
                const size_t p = size_t(((py * scale + dy) * width + px * scale + dx) * 3);
                rgb[p] = col[0];
                rgb[p + 1] = col[1];
                rgb[p + 2] = col[2];
            }
    }
    std::string bytes;
    if (file.extension() == ".png") {
        bytes = png(width, height, rgb);
    } else if (file.extension() == ".ppm") {
        bytes = "P6\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n";
        bytes.append(reinterpret_cast<const char*>(rgb.data()), rgb.size());
    } else {
        throw DiffError(file.string() + ": a picture is written as .ppm or .png");
    }
    try {
        write_file_atomic(file, bytes);
    } catch (const WriteError& e) {
        throw DiffError(file.string() + ": cannot write the picture: " + e.what() + " [" + e.rule() + "]");
    }
}

// ---- The command -------------------------------------------------------------------------------

int run_diff(const DiffCommand& cmd, std::ostream& out, std::ostream& err) {
    if (cmd.format != "text" && cmd.format != "json") {
        err << "dmlref diff: error: --format is text or json, not " << cmd.format << "\n";
        return 2;
    }
    std::error_code ec;
    if (!cmd.image.empty() && fs::is_directory(cmd.golden, ec)) {
        err << "dmlref diff: error: --image is for a single golden file, not a directory\n";
        return 2;
    }
    if (!cmd.image.empty() && cmd.image.extension() != ".ppm" && cmd.image.extension() != ".png") {
        err << "dmlref diff: error: --image " << cmd.image.string() << ": the picture is written as .ppm or .png\n";
        return 2;
    }
    if (cmd.actual.empty() && cmd.options.files.empty()) {
        err << "dmlref diff: error: give ACTUAL (a file, a case file or a directory) or --output NAME=FILE\n";
        return 2;
    }
    const DiffReport report = diff(cmd.golden, cmd.actual, cmd.options);
    for (const auto& c : report.cases)
        for (const auto& e : c.errors) err << e << " [diff]\n";
    if (cmd.format == "json") out << report_json(report);
    else out << report_text(report);
    int code = report.exit_code();
    if (!cmd.json_file.empty()) {
        try {
            write_file_atomic(cmd.json_file, report_json(report));
        } catch (const WriteError& e) {
            err << cmd.json_file.string() << ": cannot write the JSON report: " << e.what() << " [" << e.rule() << "]\n";
            code = 2;
        }
    }
    if (!cmd.image.empty() && !report.cases.empty()) {
        std::vector<const OutputCensus*> failing;
        for (const auto& o : report.cases.front().outputs)
            if (!o.passed()) failing.push_back(&o);
        if (failing.empty()) err << "dmlref diff: no output mismatches; no picture written\n";
        for (const auto* o : failing) {
            fs::path file = cmd.image;
            if (failing.size() > 1)
                file = cmd.image.parent_path() / (cmd.image.stem().string() + "." + o->output + cmd.image.extension().string());
            try {
                write_mismatch_image(*o, file);
                err << "dmlref diff: picture of " << o->output << " in " << file.string() << "\n";
            } catch (const DiffError& e) {
                err << e.what() << "\n";
                code = 2;
            }
        }
    }
    return code;
}

}  // namespace dmlref
