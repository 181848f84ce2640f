// Writing golden case files (docs/case-format.md): the case as read (generators stay generators),
// its expected outputs with tolerance, don't-care and boundary elements, policies and provenance.
// The text is deterministic: the same case gives the same bytes.
#include "dmlref/case.hpp"
#include "dmlref/tolerance.hpp"

#include "dmlref/admissible.hpp"
#include "dmlref/generate.hpp"
#include "dmlref/npy.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"
#include "dmlref/values.hpp"
#include "case/case_notation.hpp"
#include "case/golden_files.hpp"
#include "case/json_writer.hpp"
#include "case/json_values.hpp"
#include "case/sha256.hpp"
#include "dmlref/atomic_file.hpp"
#include "dmlref/folder_lock.hpp"
#include "../../reference/kit/family.hpp"

#include <charconv>
#include <fstream>

#include <algorithm>
#include <cmath>
#include <climits>
#include <set>

namespace dmlref {

namespace fs = std::filesystem;

// ---- Writing -----------------------------------------------------------------------------

namespace {

ordered_json tensor_desc_json(const TensorDesc& d) {
    ordered_json j;
    j["DataType"] = std::string(name(d.DataType));
    j["Sizes"] = d.Sizes;
    if (!d.Strides.empty()) j["Strides"] = d.Strides;
    if (d.Flags == DML_TENSOR_FLAG_OWNED_BY_DML) j["Flags"] = "OWNED_BY_DML";
    else if (d.Flags) j["Flags"] = d.Flags;
    if (d.TotalTensorSizeInBytes) j["TotalTensorSizeInBytes"] = d.TotalTensorSizeInBytes;
    if (d.GuaranteedBaseOffsetAlignment) j["GuaranteedBaseOffsetAlignment"] = d.GuaranteedBaseOffsetAlignment;
    return j;
}

struct DescWriter : FieldVisitor {
    ordered_json out = ordered_json::object();
    void tensor(std::string_view n, TensorDesc& d, TensorRole) override { out[std::string(n)] = tensor_desc_json(d); }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole) override {
        if (d) out[std::string(n)] = tensor_desc_json(*d);
    }
    void tensor_array(std::string_view count, std::string_view n, std::vector<TensorDesc>& d, TensorRole) override {
        out[std::string(count)] = d.size();
        ordered_json a = ordered_json::array();
        for (const auto& t : d) a.push_back(tensor_desc_json(t));
        out[std::string(n)] = a;
    }
    void data_type(std::string_view n, DataType& t) override { out[std::string(n)] = std::string(name(t)); }
    void float32(std::string_view n, float& f) override {
        out[std::string(n)] = json_raw(format_exact_value(DataType::FLOAT32, to_bits(f)));
    }
    void scale_bias(std::string_view n, std::optional<DML_SCALE_BIAS>& sb) override {
        if (!sb) return;
        out[std::string(n)] = {{"Scale", json_raw(format_exact_value(DataType::FLOAT32, to_bits(sb->Scale)))},
                               {"Bias", json_raw(format_exact_value(DataType::FLOAT32, to_bits(sb->Bias)))}};
    }
    void scalar(std::string_view n, DML_SCALAR_UNION& u, DataType t) override {
        // The value in its data type; bytes beyond the member, if any, as the Bytes member.
        bool extra = false;
        for (size_t i = is_valid(t) ? element_size(t) : 0; i < 8; ++i) extra = extra || u.Bytes[i] != 0;
        if (!is_valid(t) || extra) {
            std::vector<int> bytes(u.Bytes.begin(), u.Bytes.end());
            out[std::string(n)] = {{"Bytes", bytes}};
            return;
        }
        out[std::string(n)] = json_raw(format_exact_value(t, u.as<uint64_t>()));
    }
    void uint(std::string_view n, uint32_t& v) override { out[std::string(n)] = v; }
    void int32(std::string_view n, int32_t& v) override { out[std::string(n)] = v; }
    void size_2d(std::string_view n, DML_SIZE_2D& v) override {
        out[std::string(n)] = {{"Width", v.Width}, {"Height", v.Height}};
    }
    void uint_array(std::string_view n, std::vector<uint32_t>& v) override { out[std::string(n)] = v; }
    void int_array(std::string_view n, std::vector<int32_t>& v) override { out[std::string(n)] = v; }
    void float_array(std::string_view n, std::vector<float>& v) override {
        ordered_json a = ordered_json::array();
        for (float f : v) a.push_back(json_raw(format_exact_value(DataType::FLOAT32, to_bits(f))));
        out[std::string(n)] = a;
    }
    void enumeration(std::string_view n, uint32_t& v, const EnumNames& e) override {
        out[std::string(n)] = v < e.Names.size() ? ordered_json(std::string(e.Names[v])) : ordered_json(v);
    }
    // A fused activation, flat: {"Type": "ACTIVATION_LEAKY_RELU", "Alpha": 0.01}; absent when none.
    void fused_activation(std::string_view n, std::optional<DML_FUSED_ACTIVATION>& fa) override {
        if (!fa) return;
        const auto& t = fused_activation_types().at(fa->Type);
        ordered_json j = ordered_json::object();
        j["Type"] = std::string(t.Name);
        for (size_t k = 0; k < 2; ++k)
            if (!t.Parameters[k].empty())
                j[std::string(t.Parameters[k])] = json_raw(
                    format_exact_value(DataType::FLOAT32, to_bits(fa->Parameters[k])));
        out[std::string(n)] = j;
    }
};

}  // namespace

ordered_json canonical_desc_json(const Operator& op) {
    DescWriter w;
    op.Desc.fields(w);
    return w.out;
}

bool inexact_under(const Diagnostics& diags, const std::string& path, size_t from) {
    const auto& items = diags.items();
    for (size_t i = from; i < items.size(); ++i)
        if (items[i].rule == "value.inexact" && (items[i].path == path || items[i].path.rfind(path + "/", 0) == 0))
            return true;
    return false;
}

namespace {

ordered_json case_json(const Case& c, const fs::path& out_file) {
    ordered_json j;
    j["format"] = kCaseFormatVersion;
    j["name"] = json_text(c.name);
    if (!c.description.empty()) j["description"] = json_text(c.description);
    j["operator"] = full_name(c.op.Type);
    j["desc"] = canonical_desc_json(c.op);
    // The author's notation, for fields that still hold the value it was read as.
    for (const auto& [field, n] : c.desc_notation)
        if (j["desc"].contains(field) && j["desc"][field].dump() == n.canonical)
            j["desc"][field] = ordered_json::parse(n.written);
    ordered_json inputs = ordered_json::object();
    const fs::path out_dir = out_file.has_parent_path() ? fs::absolute(out_file.parent_path()) : fs::current_path();
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Input) continue;
        json spec = c.input_specs.at(std::string(f.name));
        if (spec.is_object() && spec.contains("Npy"))
            spec["Npy"] = fs::path(spec["Npy"].get<std::string>()).lexically_relative(out_dir).generic_string();
        if (spec.is_binary())  // values as tokens (lib/case/json_writer.hpp)
            inputs[std::string(f.name)] = ordered_json::binary(spec.get_binary(), spec.get_binary().subtype());
        else inputs[std::string(f.name)] = ordered_json::parse(spec.dump());
    }
    j["inputs"] = inputs;
    if (!c.in_place.empty()) {
        ordered_json ip = ordered_json::object();
        for (const auto& [o, i] : c.in_place) ip[o] = i;
        j["inPlace"] = ip;
    }
    return j;
}

// Integers as one token list (not one node each).
template <class V> ordered_json integer_tokens(const V& v) {
    std::string s;
    char buf[24];
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += '\0';
        s.append(buf, std::to_chars(buf, buf + sizeof buf, v[i]).ptr);
    }
    return json_tokens(std::move(s));
}

// `npy`: the output is in that .npy file beside the golden, with that SHA-256 ("" and "": in Values).
ordered_json expected_json(DataType t, const std::vector<std::byte>& values, const Tolerance& tol,
                           const std::vector<DontCare>& dc, const Boundary& boundary,
                           const std::vector<Admissible>& admissible, const std::string& npy,
                           const std::string& sha256) {
    ordered_json e;
    if (npy.empty()) {
        e["Values"] = json_value_view(t, values);  // formatted as the text is written (lib/case/json_writer.hpp)
    } else {
        e["Npy"] = json_text(npy);
        e["Sha256"] = sha256;
    }
    ordered_json tj;
    tj["Kind"] = tol.Kind;
    if (tol.Kind == "Ulp") tj["Ulp"] = tol.Ulp;
    if (tol.Kind == "Summed") tj["MaxTerms"] = tol.MaxTerms;
    if (!tol.Terms.empty()) tj["Terms"] = integer_tokens(tol.Terms);
    if (!tol.Why.empty()) tj["Why"] = json_text(tol.Why);
    e["Tolerance"] = tj;
    if (!dc.empty()) {
        ordered_json d = ordered_json::array();
        for (const auto& x : dc) d.push_back({{"Index", x.Index}, {"Reason", json_text(x.Reason)}});
        e["DontCare"] = d;
    }
    if (!boundary.Indices.empty())
        e["Boundary"] = {{"Indices", integer_tokens(boundary.Indices)}, {"Reason", json_text(boundary.Reason)}};
    // Elements several writes reach with different bits: every value that could win, in the order
    // of each one's last write (docs/case-format.md, "Admissible values").
    if (!admissible.empty()) {
        ordered_json a = ordered_json::array();
        for (const auto& x : admissible) {
            ordered_json vals = ordered_json::array();
            for (uint64_t bits : x.Values) vals.push_back(json_raw(format_value(t, bits)));
            a.push_back({{"Index", x.Index}, {"Values", vals}});
        }
        e["Admissible"] = a;
    }
    return e;
}

}  // namespace

namespace {

// An output the golden keeps in a .npy file beside it.
struct Sidecar {
    fs::path file;
    DataType type;
    std::vector<uint64_t> shape;
    const std::vector<std::byte>* values;
};

// The golden's text; with `npy_threshold`, outputs of more elements are named as .npy files
// beside `out_file`, which `sidecars` lists for the caller to write.
std::string golden_text(const Case& c, const Outputs& outputs, const fs::path& out_file, uint64_t npy_threshold,
                        std::vector<Sidecar>& sidecars) {
    ordered_json j = case_json(c, out_file);
    ordered_json ex = ordered_json::object();
    for (const auto& f : tensor_fields(c.op)) {
        if (f.role != TensorRole::Output) continue;
        auto given = c.expected.find(std::string(f.name));
        std::vector<DontCare> dc = given != c.expected.end() ? given->second.dont_care : std::vector<DontCare>{};
        // The operator's own, unless the case names them already: a sorted merge (n log n; a
        // search of the case's list per entry was quadratic, hours for millions of windows).
        std::vector<uint64_t> named;
        named.reserve(dc.size());
        for (const auto& x : dc) named.push_back(x.Index);
        std::sort(named.begin(), named.end());
        std::vector<DontCare> own = dont_care(c.op, f.name);
        // And those the case's input values decide (kit::OperatorRecord::case_dont_care).
        if (const auto hook = kit::record(c.op.Type).case_dont_care) {
            std::vector<DontCare> more = hook(c, f.name);
            own.insert(own.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        }
        for (auto& d : own)
            if (!std::binary_search(named.begin(), named.end(), d.Index)) dc.push_back(std::move(d));
        std::stable_sort(dc.begin(), dc.end(), [](const DontCare& a, const DontCare& b) { return a.Index < b.Index; });
        const auto& values = outputs.values.at(std::string(f.name));
        std::string npy, sha256;
        if (element_count(*f.desc) > npy_threshold) {
            // The file's name holds the start of its SHA-256, so a new golden never replaces a .npy
            // an older golden names: a kill before the golden's rename leaves the old golden whole.
            const std::vector<uint64_t> shape(f.desc->Sizes.begin(), f.desc->Sizes.end());
            Sha256 hash;
            hash.update(npy_header(f.desc->DataType, shape));
            hash.update(std::string_view(reinterpret_cast<const char*>(values.data()), values.size()));
            sha256 = hash.hex();
            npy = out_file.stem().string() + "." + std::string(f.name) + "." + sha256.substr(0, 16) + ".npy";
            const fs::path file = out_file.has_parent_path() ? out_file.parent_path() / npy : fs::path(npy);
            sidecars.push_back({file, f.desc->DataType, shape, &values});
        }
        ex[std::string(f.name)] = expected_json(f.desc->DataType, values, stated_tolerance(c, f.name), dc,
                                                boundary(c.op, f.name), admissible(c, f.name), npy, sha256);
    }
    j["expected"] = ex;
    // The values under each alternative the case asks to show (docs/case-format.md, "Readings").
    if (!c.readings.empty()) {
        ordered_json rd = ordered_json::object();
        for (const auto& name : c.readings) {
            const size_t eq = name.find('=');
            Case alt = c;
            alt.policies[name.substr(0, eq)] = name.substr(eq + 1);
            const Outputs o = run_case(alt);
            ordered_json per = ordered_json::object();
            for (const auto& f : tensor_fields(c.op)) {
                if (f.role != TensorRole::Output) continue;
                const DataType t = f.desc->DataType;
                const auto& v = o.values.at(std::string(f.name));
                ordered_json vals = ordered_json::array();
                for (size_t i = 0; i < v.size() / element_size(t); ++i)
                    vals.push_back(json_raw(format_value(t, load_bits(t, v.data() + i * element_size(t)))));
                per[std::string(f.name)] = {{"Values", vals}};
            }
            rd[name] = per;
        }
        j["readings"] = rd;
    }
    ordered_json pol = ordered_json::object();
    for (const auto& [name, value] : policies_in_force(c.op.Type, c.policies))
        pol[name] = value;  // alternatives in force too
    j["policies"] = pol;
    ordered_json prov;
    prov["dmlref"] = std::string(dmlref_version());
    prov["format"] = kCaseFormatVersion;
    if (!c.seeds.empty()) prov["seeds"] = c.seeds;
    j["provenance"] = prov;
    return dump_json(j);
}

}  // namespace

std::string write_golden(const Case& c, const Outputs& outputs, const fs::path& out_file) {
    std::vector<Sidecar> none;
    return golden_text(c, outputs, out_file, std::numeric_limits<uint64_t>::max(), none);
}

namespace {

enum class Found { Absent, Same, Different };

// Whether `file` holds exactly `text` (a link, a folder or a device is never the same).
Found found_at(const fs::path& file, const std::string& text) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(file, ec);
    if (!fs::exists(st)) return Found::Absent;
    if (!fs::is_regular_file(st) || fs::file_size(file, ec) != text.size() || ec) return Found::Different;
    std::ifstream f(file, std::ios::binary);
    std::string bytes(text.size(), '\0');
    if (!f.read(bytes.data(), std::streamsize(bytes.size()))) return Found::Different;
    return bytes == text ? Found::Same : Found::Different;
}

// Writes `text` to `out_file` and the .npy files it names first, under the folder's lock; then
// removes the stale .npy files of an earlier golden of this name.
bool write_unit(const std::string& text, const std::vector<Sidecar>& sidecars, const fs::path& out_file,
                ExistingFile existing) {
    const fs::path dir = out_file.has_parent_path() ? out_file.parent_path() : fs::path(".");
    // The golden and its .npy files are one unit: another dmlref writing a golden of this name
    // into this folder (a parallel CI shard) waits, so that its clean-up below never removes a
    // .npy this golden is about to name (dmlref/folder_lock.hpp).
    const FolderLock lock(dir);
    bool write = true;
    if (existing != ExistingFile::Replace) {
        const Found found = found_at(out_file, text);
        if (found == Found::Different && existing == ExistingFile::Refuse) return false;
        if (found == Found::Same) {  // whole already, unless a .npy it names is missing or cut short
            write = false;
            std::error_code ec;
            for (const Sidecar& s : sidecars)
                write = write || !fs::is_regular_file(fs::symlink_status(s.file, ec)) ||
                        fs::file_size(s.file, ec) != npy_header(s.type, s.shape).size() + s.values->size();
        }
    }
    if (write) {
        for (const Sidecar& s : sidecars) write_npy(s.file, s.type, s.shape, *s.values);
        write_file_atomic(out_file, text);
    }
    // Once the new golden is in place, the .npy files an earlier golden of this name wrote
    // (<stem>.<Output>.<16 hex digits>.npy) and the new one does not name are removed.
    const std::string stem = out_file.stem().string() + ".";
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() < stem.size() + 22 || name.compare(0, stem.size(), stem) != 0 || !name.ends_with(".npy"))
            continue;
        const std::string rest = name.substr(stem.size(), name.size() - stem.size() - 4);  // <Output>.<hex>
        const size_t dot = rest.rfind('.');
        if (dot == std::string::npos || rest.size() - dot - 1 != 16 || rest.find('.') != dot) continue;
        if (!std::all_of(rest.begin() + long(dot) + 1, rest.end(),
                         [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); }))
            continue;
        if (text.find("\"" + name + "\"") != std::string::npos) continue;
        std::error_code rm;
        if (it->is_regular_file(rm)) fs::remove(it->path(), rm);
    }
    return true;
}

}  // namespace

bool write_golden_files(const Case& c, const Outputs& outputs, const fs::path& out_file, uint64_t npy_threshold,
                        ExistingFile existing) {
    std::vector<Sidecar> sidecars;
    const std::string text = golden_text(c, outputs, out_file, npy_threshold, sidecars);
    return write_unit(text, sidecars, out_file, existing);
}

void write_golden_files(const Case& c, const Outputs& outputs, const fs::path& out_file, uint64_t npy_threshold) {
    write_golden_files(c, outputs, out_file, npy_threshold, ExistingFile::Replace);
}

bool write_case_file(const std::string& text, const fs::path& out_file, ExistingFile existing) {
    return write_unit(text, {}, out_file, existing);
}

}  // namespace dmlref
