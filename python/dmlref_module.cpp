// The Python module `dmlref` (docs/python.md): run a case or a one-line descriptor and get its
// outputs as numpy arrays, read a golden, and diff numpy arrays against a golden with the verdicts
// and numbers of `dmlref diff`. One translation unit over the library's type-erased API (load_case,
// run_case, diff): no per-operator code, no per-type templates. The arrays handed to diff are
// written as .npy files in a private temporary folder and judged by the same `diff` entry point
// the command line calls, so the verdicts cannot drift apart; the report then names the arrays,
// not the temporary files.
#include "dmlref/case.hpp"
#include "dmlref/descriptor.hpp"
#include "dmlref/diff.hpp"
#include "dmlref/gen.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/readings.hpp"

#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

using namespace dmlref;

// The module, for its Python classes (set once, when it is imported).
py::handle the_module;

py::object make(const char* cls) { return the_module.attr(cls)(); }

// Text for Python (which takes UTF-8 only): as it is when it is UTF-8, else escaped as the command
// line prints it.
std::string text(std::string_view s) { return is_utf8(s) ? std::string(s) : printable(s); }

// Raised in Python as dmlref.Error (its class is defined in Python below).
struct ModuleError {
    std::string message, rule, file, pointer;
};

[[noreturn]] void fail(std::string message, std::string rule, std::string file = "", std::string pointer = "") {
    throw ModuleError{std::move(message), std::move(rule), std::move(file), std::move(pointer)};
}

// Every error of `d` as the command line prints it, one a line; the first error's rule and pointer.
[[noreturn]] void fail(const Diagnostics& d, const std::string& file) {
    std::string message, rule = "internal.error", pointer;
    for (const auto& item : d.items()) {
        if (item.severity != Severity::Error) continue;
        if (message.empty()) {
            rule = item.rule;
            pointer = item.path;
        }
        message += (message.empty() ? "" : "\n") + printable(format(item, file));
    }
    fail(message.empty() ? printable(file) + ": /: error: the case cannot be used [internal.error]" : message, rule,
         text(file), pointer);
}

// numpy's name of each element type.
const char* numpy_name(DataType t) {
    switch (t) {
        case DataType::FLOAT16: return "float16";
        case DataType::FLOAT32: return "float32";
        case DataType::FLOAT64: return "float64";
        case DataType::INT8: return "int8";
        case DataType::INT16: return "int16";
        case DataType::INT32: return "int32";
        case DataType::INT64: return "int64";
        case DataType::UINT8: return "uint8";
        case DataType::UINT16: return "uint16";
        case DataType::UINT32: return "uint32";
        case DataType::UINT64: return "uint64";
        default: return nullptr;
    }
}

// The element type of a numpy dtype (its kind and size), or UNKNOWN; the caller checks the byte order.
DataType data_type_of(const py::dtype& dt) {
    for (const DataType t : kAllDataTypes) {
        const py::dtype candidate(numpy_name(t));
        if (candidate.kind() == dt.kind() && candidate.itemsize() == dt.itemsize()) return t;
    }
    return DataType::UNKNOWN;
}

// Logical elements (packed, row-major) as an array of the tensor's Sizes; the bytes are copied.
py::array to_array(const TensorDesc& d, const std::vector<std::byte>& values) {
    std::vector<py::ssize_t> shape(d.Sizes.begin(), d.Sizes.end());
    return py::array(py::dtype(numpy_name(d.DataType)), shape, {}, values.data());
}

LoadOptions load_options(uint64_t max_bytes, uint64_t max_work, bool allow_paths) {
    LoadOptions lo;
    lo.max_bytes = max_bytes;
    lo.max_work = max_work;
    lo.allow_paths = allow_paths;
    lo.progress = false;
    return lo;
}

// A path from Python: a NUL byte would end it early for the system, so it is refused.
void check_path(const std::string& path) {
    if (path.find('\0') != std::string::npos)
        fail(printable(path) + ": /: error: the path holds a NUL byte [file.read]", "file.read", text(path));
}

// Reads a case file; its errors raise.
Case load(const fs::path& file, const LoadOptions& lo) {
    Diagnostics d;
    Case c;
    try {
        py::gil_scoped_release release;
        c = load_case(file, d, lo);
    } catch (const CaseError& e) {
        d = e.diagnostics();
    } catch (const std::bad_alloc&) {
        d = {};
        d.error("", "limit.memory", "out of memory reading the case (lower max_bytes, or give dmlref more memory)");
    } catch (const std::exception&) {  // as the command line: never a library's exception text
        d = {};
        d.error("", "internal.error",
                "dmlref could not read this case because of an internal error; please report it with the file");
    }
    if (d.has_errors()) fail(d, file.string());
    return c;
}

// The case a one-line descriptor stands for (docs/gen.md, "Descriptors"), made as `dmlref run
// DESCRIPTOR` makes it.
Case descriptor_case(const std::string& descriptor, const LoadOptions& lo) {
    Diagnostics d;
    std::optional<gen::Generated> g;
    gen::Options go;
    go.evaluate = false;
    if (auto p = descriptor_to_planned(descriptor, d)) g = gen::make_case(*p, go, d);
    if (!g || d.has_errors()) fail(d, "descriptor");
    Case c;
    try {
        JsonReadOptions jo;
        jo.pack_tensors = true;
        c = parse_case(parse_json_text(g->text, jo), "descriptor", d, lo);
    } catch (const CaseError& e) {
        d = e.diagnostics();
    }
    if (d.has_errors()) fail(d, "descriptor");
    return c;
}

py::dict run(const std::string& what, const py::object& policies, uint64_t max_bytes, uint64_t max_work,
             bool allow_paths) {
    check_path(what);
    const LoadOptions lo = load_options(max_bytes, max_work, allow_paths);
    std::error_code ec;
    // As `dmlref run` reads its arguments: a path that exists is a case file; text with a space that
    // names no file is a descriptor.
    Case c = (fs::exists(what, ec) || what.find(' ') == std::string::npos) ? load(what, lo) : descriptor_case(what, lo);
    const std::string file = c.file.empty() ? std::string("descriptor") : c.file.string();
    if (!policies.is_none()) {
        for (const auto& [key, value] : py::dict(policies)) {
            const std::string option = py::str(key).cast<std::string>() + "=" + py::str(value).cast<std::string>();
            Diagnostics d;
            const auto p = parse_policy_option(option, d);
            if (!p || d.has_errors()) fail(d, "policies");
            c.policies[p->first] = p->second;
        }
    }
    Outputs outputs;
    try {
        py::gil_scoped_release release;
        outputs = run_case(c);
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        fail(printable(file) + ": /: error: evaluation failed: " + printable(e.what()) + " [evaluate]", "evaluate",
             text(file));
    }
    py::dict result;
    for (const auto& f : tensor_fields(c.op))
        if (f.role == TensorRole::Output)
            if (auto it = outputs.values.find(std::string(f.name)); it != outputs.values.end())
                result[py::str(std::string(f.name))] = to_array(*f.desc, it->second);
    return result;
}

py::object read_golden(const std::string& path, uint64_t max_bytes, uint64_t max_work, bool allow_paths) {
    check_path(path);
    const Case c = load(path, load_options(max_bytes, max_work, allow_paths));
    py::dict inputs, expected, tolerances, dont_care, policies;
    for (const auto& f : tensor_fields(c.op)) {
        const std::string name(f.name);
        if (f.role == TensorRole::Input) {
            if (auto it = c.inputs.find(name); it != c.inputs.end())
                inputs[py::str(name)] = to_array(*f.desc, gather_logical(*f.desc, it->second));
            continue;
        }
        auto it = c.expected.find(name);
        if (it == c.expected.end()) continue;
        expected[py::str(name)] = to_array(*f.desc, it->second.values);
        const Tolerance& t = it->second.tolerance;
        py::dict tol;
        tol["Kind"] = t.Kind;
        tol["Ulp"] = t.Ulp;
        tol["MaxTerms"] = t.MaxTerms;
        tol["Why"] = text(t.Why);
        tolerances[py::str(name)] = tol;
        py::list indices;
        for (const auto& x : it->second.dont_care) indices.append(x.Index);
        dont_care[py::str(name)] = indices;
    }
    for (const auto& [k, v] : policies_in_force(c.op.Type, c.policies)) policies[py::str(text(k))] = text(v);
    py::object golden = make("Golden");
    golden.attr("path") = path;
    golden.attr("name") = text(c.name);
    golden.attr("description") = text(c.description);
    golden.attr("operator") = "DML_OPERATOR_" + std::string(info(c.op.Type).Name);
    golden.attr("inputs") = inputs;
    golden.attr("expected") = expected;
    golden.attr("tolerances") = tolerances;
    golden.attr("dont_care") = dont_care;
    golden.attr("policies") = policies;
    return golden;
}

// A private folder for the arrays, removed with everything in it.
struct TempFolder {
    fs::path path;
    TempFolder() {
        std::error_code ec;
        fs::path under = fs::temp_directory_path(ec);  // TMPDIR, else /tmp
        if (ec) under = "/tmp";
        std::string pattern = (under / "dmlref-python-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            fail(printable(under.string()) + ": /: error: cannot make a temporary folder for the arrays [file.write]",
                 "file.write");
        path = pattern;
    }
    ~TempFolder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

py::object output_result(const OutputCensus& o) {
    py::dict readings;
    uint64_t unexplained = 0, most = 0;
    py::object reading = py::none();
    for (const auto& [name, n] : o.readings) {
        if (name.empty()) {
            unexplained = n;
            continue;
        }
        readings[py::str(name)] = n;
        if (n > most) {
            most = n;
            reading = py::str(name);
        }
    }
    py::list worst;
    for (const auto& w : o.worst) {
        py::dict e;
        e["index"] = w.index;
        py::list coordinate;
        for (const uint64_t c : w.coordinate) coordinate.append(c);
        e["coordinate"] = coordinate;
        e["golden"] = display_value(o.data_type, w.golden_bits);
        e["actual"] = display_value(o.data_type, w.actual_bits);
        e["over"] = w.judgement.verdict == Verdict::Over;
        e["bound"] = w.bound >= 0 ? py::object(py::float_(w.bound)) : py::object(py::none());
        e["error"] = w.bound >= 0 ? py::object(py::float_(w.error)) : py::object(py::none());
        e["ratio"] = w.bound >= 0 ? py::object(py::float_(w.ratio)) : py::object(py::none());
        worst.append(e);
    }
    py::object r = make("OutputResult");
    r.attr("name") = o.output;
    r.attr("passed") = o.passed();
    r.attr("data_type") = std::string(name(o.data_type));
    r.attr("tolerance") = o.tolerance.Kind;
    r.attr("elements") = o.elements;
    r.attr("identical") = o.identical;
    r.attr("within") = o.within;
    r.attr("over") = o.over;
    r.attr("nonfinite_mismatches") = o.nonfinite_mismatches;
    r.attr("systematic_passed") = o.systematic.passed();
    r.attr("bounded") = o.bounded;
    r.attr("worst_ratio") = o.bounded ? py::object(py::float_(o.worst_ratio)) : py::object(py::none());
    r.attr("readings") = readings;
    r.attr("unexplained") = unexplained;
    r.attr("reading") = reading;
    r.attr("worst") = worst;
    return r;
}

py::object diff_arrays(const std::string& golden, const py::dict& actual, size_t worst, bool zeros_equal, bool any_nan,
                       bool accept_flushed_subnormals, const std::string& accumulate, const std::string& coordinates,
                       bool allow_flushed_subnormals, bool allow_tf32, bool allow_winograd,
                       const std::string& statistics, double false_alarm, uint64_t max_bytes) {
    check_path(golden);
    std::error_code ec;
    if (!fs::is_regular_file(golden, ec))
        fail(printable(golden) + ": /: error: no golden case file there (diff takes one file) [file.read]", "file.read",
             golden);
    DiffOptions o;
    o.worst = worst;
    o.switches.zeros_equal = zeros_equal;
    o.switches.any_nan = any_nan;
    o.switches.flushed_subnormals = accept_flushed_subnormals;
    o.profile.flush_subnormals = allow_flushed_subnormals;
    o.profile.tf32_operands = allow_tf32;
    o.profile.winograd = allow_winograd;
    o.max_bytes = max_bytes;
    const auto acc = parse_accumulate(accumulate);
    if (!acc)
        fail("accumulate=" + accumulate + ": is any, output, float32 or float64 [python.option]", "python.option");
    o.profile.accumulate = *acc;
    const auto coord = parse_coordinates(coordinates);
    if (!coord)
        fail("coordinates=" + coordinates +
                 ": is any, float64, float32-division, float32-reciprocal or float32-reciprocal-fma [python.option]",
             "python.option");
    o.profile.coordinates = *coord;
    const auto stats = parse_statistics(statistics);
    if (!stats)
        fail("statistics=" + statistics + ": is any, stable, two-pass, online or one-pass [python.option]",
             "python.option");
    o.profile.statistics = *stats;
    if (!(false_alarm >= 1e-300 && false_alarm <= 0.5))
        fail("false_alarm=" + std::to_string(false_alarm) + ": lies in [1e-300, 0.5] [python.option]", "python.option");

    // Each array as TMP/<k>.npy (numbered: an output's name never becomes a path), named to diff
    // as `--output NAME=FILE` is.
    TempFolder tmp;
    std::vector<std::pair<std::string, std::string>> shown;  // (temporary file, what the report says)
    size_t k = 0;
    for (const auto& [key, value] : actual) {
        const std::string output = py::str(key).cast<std::string>();
        const std::string what = "the array for " + output;
        py::array a = py::array::ensure(value, py::array::c_style);
        if (!a) fail(what + ": is not a numpy array [python.array]", "python.array");
        const DataType t = data_type_of(a.dtype());
        if (t == DataType::UNKNOWN || a.dtype().byteorder() == '>')
            fail(what + ": its dtype " + py::str(a.dtype()).cast<std::string>() +
                     " is none of the eleven element types (float16/32/64, int8/16/32/64, uint8/16/32/64, native "
                     "byte order) [python.array]",
                 "python.array");
        std::vector<uint64_t> shape(a.shape(), a.shape() + a.ndim());
        const fs::path file = tmp.path / (std::to_string(k++) + ".npy");
        std::ofstream f(file, std::ios::binary);
        const std::string header = npy_header(t, shape);
        f.write(header.data(), std::streamsize(header.size()));
        f.write(static_cast<const char*>(a.data()), std::streamsize(a.nbytes()));
        f.close();
        if (!f) fail(file.string() + ": cannot write the array for " + output + " [file.write]", "file.write");
        o.files[output] = file;
        shown.emplace_back(file.string(), what);
    }
    DiffReport report;
    {
        py::gil_scoped_release release;
        report = diff(golden, fs::path(), o);
    }
    // The report names the arrays; errors read as `dmlref diff`'s, for the arrays.
    for (auto& c : report.cases) {
        for (auto& out : c.outputs)
            for (const auto& [file, what] : shown)
                if (out.source == file) out.source = what;
        for (auto& e : c.errors) {
            for (const auto& [file, what] : shown) replace_all(e, file, what);
            replace_all(e, ": --output names ", ": diff is given ");
            replace_all(e, ": wrong dtype: the file holds ", ": wrong dtype: the array holds ");
            replace_all(e, ": wrong shape: the file's shape is ", ": wrong shape: the array's shape is ");
            replace_all(e, "(a 1-D file may also hold", "(a 1-D array may also hold");
            replace_all(e, "(give ACTUAL or --output ", "(give diff an array for it: ");
        }
    }
    const CaseDiff& c = report.cases.front();
    if (!c.errors.empty()) {
        std::string message;
        for (const auto& e : c.errors) message += (message.empty() ? "" : "\n") + printable(e) + " [diff]";
        fail(message, "diff", golden);
    }
    py::dict outputs;
    py::dict readings;
    uint64_t over = 0, most = 0;
    py::object reading = py::none(), worst_ratio = py::none();
    for (const auto& co : c.outputs) {
        py::object r = output_result(co);
        outputs[py::str(co.output)] = r;
        over += co.over;
        if (co.bounded && (worst_ratio.is_none() || co.worst_ratio > worst_ratio.cast<double>()))
            worst_ratio = py::float_(co.worst_ratio);
        for (const auto& [name, n] : co.readings) {
            if (name.empty()) continue;
            const uint64_t total = n + (readings.contains(name) ? readings[py::str(name)].cast<uint64_t>() : 0);
            readings[py::str(name)] = total;
            if (total > most) {
                most = total;
                reading = py::str(name);
            }
        }
    }
    py::object result = make("Result");
    result.attr("golden") = golden;
    result.attr("name") = text(c.name);
    result.attr("operator") = c.op;
    result.attr("passed") = report.exit_code() == 0;
    result.attr("exit_code") = report.exit_code();
    result.attr("over") = over;
    result.attr("worst_ratio") = worst_ratio;
    result.attr("readings") = readings;
    result.attr("reading") = reading;
    result.attr("outputs") = outputs;
    result.attr("text") = text(report_text(report));
    result.attr("json") = text(report_json(report));
    return result;
}

// The module's Python classes: the exception and the plain records the functions return.
const char* const kClasses = R"PY(
class Error(Exception):
    """An error dmlref reports, as its command line would: ``rule`` is the rule id (docs/rules.md),
    ``file`` the file, ``pointer`` the JSON pointer into it ("" for the whole file), and ``message``
    (also ``str(error)``) every error line, "FILE: POINTER: error: SENTENCE [rule]"."""

    def __init__(self, message, rule, file="", pointer=""):
        super().__init__(message)
        self.message, self.rule, self.file, self.pointer = message, rule, file, pointer

    def __str__(self):
        return self.message


class _Record:
    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k not in ("text", "json", "inputs", "expected", "worst"))
        return f"dmlref.{type(self).__name__}({fields})"


class Golden(_Record):
    """A golden case file (read_golden): ``path``, ``name``, ``description``, ``operator``
    ("DML_OPERATOR_..."), ``inputs`` and ``expected`` (dicts of numpy arrays in the tensors'
    Sizes, logical elements), ``tolerances`` (per output: Kind, Ulp, MaxTerms, Why), ``dont_care``
    (per output: the flat indices any value matches) and ``policies`` (name: value)."""


class OutputResult(_Record):
    """One output of a diff: ``name``, ``passed``, ``data_type``, ``tolerance`` (Bits, Ulp, Summed,
    Computed), ``elements``, ``identical``, ``within``, ``over``, ``nonfinite_mismatches``,
    ``systematic_passed``, ``bounded`` and ``worst_ratio`` (the largest error/bound, None when the
    output has no per-element bound), ``readings`` (alternative reading: elements over that follow
    it), ``unexplained`` (elements over that follow none), ``reading`` (the reading most of them
    follow, or None), ``worst`` (the worst elements, as dicts)."""


class Result(_Record):
    """A diff's result, as `dmlref diff` gives it: ``passed``, ``exit_code`` (0 passed, 1 over
    tolerance), ``over`` (elements over tolerance, all outputs), ``worst_ratio``, ``readings`` and
    ``reading`` (over all outputs), ``outputs`` (name: OutputResult), ``text`` (the text report,
    also ``str(result)``) and ``json`` (the JSON report, docs/diff.md)."""

    def __str__(self):
        return self.text

    def __bool__(self):
        return self.passed
)PY";

}  // namespace

PYBIND11_MODULE(dmlref, m) {
    m.doc() =
        "dmlref, the golden-value oracle for DirectML operators (docs/python.md): run a case or a "
        "descriptor, read a golden, diff numpy arrays against a golden under the tolerance model.";
    m.attr("__version__") = std::string(dmlref_version());
    py::exec(kClasses, m.attr("__dict__"));
    the_module = m.inc_ref();
    static py::handle error_class = py::object(m.attr("Error")).release();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ModuleError& e) {
            py::object error = py::reinterpret_borrow<py::object>(error_class)(e.message, e.rule, e.file, e.pointer);
            PyErr_SetObject(error_class.ptr(), error.ptr());
        }
    });
    constexpr uint64_t max_bytes = uint64_t(4) << 30;
    m.def("run", &run, py::arg("case"), py::arg("policies") = py::none(), py::kw_only(),
          py::arg("max_bytes") = max_bytes, py::arg("max_work") = kDefaultMaxWork, py::arg("allow_paths") = false,
          R"(Evaluates a case file, or a one-line descriptor ("SLICE1 INT8 5x6 s-2x3 o1x0 ws4x6", docs/gen.md),
as `dmlref run` does, and returns every output by its field name as a numpy array in the output's
Sizes and element type (FLOAT16 as numpy.float16). ``policies`` ({"ArgmaxNaN": "NaNWins"}) evaluates
under alternative readings (docs/golden.md), as `run --policy`. The limits are those of the command
line's --max-bytes, --max-work and --allow-paths. Raises dmlref.Error with the rule id.)");
    m.def("read_golden", &read_golden, py::arg("path"), py::kw_only(), py::arg("max_bytes") = max_bytes,
          py::arg("max_work") = kDefaultMaxWork, py::arg("allow_paths") = false,
          R"(Reads a golden case file: its operator, its inputs and expected outputs as numpy arrays (logical
elements in each tensor's Sizes, read through its Strides), tolerances, don't-care elements and
policies. Raises dmlref.Error with the rule id.)");
    m.def("diff", &diff_arrays, py::arg("golden"), py::arg("actual"), py::kw_only(), py::arg("worst") = size_t(10),
          py::arg("zeros_equal") = false, py::arg("any_nan") = false, py::arg("accept_flushed_subnormals") = false,
          py::arg("accumulate") = "any", py::arg("coordinates") = "any", py::arg("allow_flushed_subnormals") = false,
          py::arg("allow_tf32") = false, py::arg("allow_winograd") = false, py::arg("statistics") = "any",
          py::arg("false_alarm") = 1e-6, py::arg("max_bytes") = max_bytes,
          R"(Judges a backend's outputs, ``actual`` ({output field: numpy array}, each of the output's element
type, in its Sizes or as its whole buffer in 1-D), against the golden case file ``golden`` under the
tolerance model, with the verdicts and numbers of `dmlref diff` and its options of the same names
(docs/diff.md). Raises dmlref.Error with the rule id when the golden or an array cannot be used.)");
}
