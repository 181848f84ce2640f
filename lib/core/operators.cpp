// The generic passes over an operator: its facts, its desc's fields, validation, evaluation and
// the support tables, all through the operator's record (reference/kit/family.hpp). No operator
// is named here.
#include "dmlref/operators.hpp"
#include "dmlref/admissible.hpp"
#include "dmlref/readings.hpp"

#include "dmlref/case.hpp"

#include "../../reference/fast/switch.hpp"
#include "../../reference/common.hpp"
#include "../../reference/kit/family.hpp"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <set>
#include <stdexcept>

namespace dmlref {

namespace {

// f(name, role, desc) for each tensor field of a desc that holds a tensor (an optional one only where
// present), in the desc's order, without building a list.
template <class F> struct EachTensor : FieldVisitorBase {
    F f;
    explicit EachTensor(F g) : f(std::move(g)) {}
    void tensor(std::string_view n, TensorDesc& d, TensorRole role) override { f(n, role, d); }
    void optional_tensor(std::string_view n, std::optional<TensorDesc>& d, TensorRole role) override {
        if (d) f(n, role, *d);
    }
};
template <class F> void for_each_tensor(const Operator& op, F f) {
    EachTensor<F> v(std::move(f));
    op.Desc.fields(v);
}

}  // namespace

std::string_view tensor_array_element(std::string_view array, size_t index) {
    static std::mutex m;
    static std::set<std::string, std::less<>> names;  // nodes never move: the views stay valid
    std::string n = std::string(array) + "[" + std::to_string(index) + "]";
    const std::lock_guard<std::mutex> lock(m);
    return *names.insert(std::move(n)).first;
}

std::optional<std::pair<std::string_view, size_t>> split_tensor_array_element(std::string_view name) {
    const size_t open = name.rfind('[');
    if (open == std::string_view::npos || open == 0 || name.size() < open + 3 || name.back() != ']')
        return std::nullopt;
    size_t index = 0;
    const char* first = name.data() + open + 1;
    const char* last = name.data() + name.size() - 1;
    const auto r = std::from_chars(first, last, index);
    if (r.ec != std::errc{} || r.ptr != last || (*first == '0' && last - first > 1)) return std::nullopt;
    return std::pair{name.substr(0, open), index};
}

const std::vector<OperatorInfo>& all_operators() {
    static const std::vector<OperatorInfo> all = [] {
        std::vector<OperatorInfo> v;
        for (const kit::FamilyRecord* f : kit::families())
            for (const auto& r : f->operators) v.push_back(r.info);
        return v;
    }();
    return all;
}

const OperatorInfo& info(OperatorType t) { return kit::record(t).info; }

bool evaluates(OperatorType t) { return kit::find_record(t) != nullptr; }

std::optional<OperatorType> parse_operator_type(std::string_view s) {
    const auto t = directml_operator_type(s);
    if (!t || !evaluates(*t)) return std::nullopt;
    return t;
}

std::string full_name(OperatorType t) { return "DML_OPERATOR_" + std::string(operator_type_name(t)); }

Operator make_operator(OperatorType t) { return {t, kit::record(t).make()}; }

std::vector<TensorField> tensor_fields(const Operator& op) {
    std::vector<TensorField> out;
    for_each_tensor(op, [&](std::string_view n, TensorRole role, TensorDesc& d) { out.push_back({n, role, &d}); });
    return out;
}

Diagnostics validate(const Operator& op, const ValidateOptions& options) {
    Diagnostics diags;
    const kit::OperatorRecord* r = kit::find_record(op.Type);
    if (!r) {
        diags.error("/operator", "operator.unknown", full_name(op.Type) + " is not an operator dmlref evaluates");
        return diags;
    }
    if (op.Desc.type() != op.Type) {
        diags.error(
            "/desc", "operator.desc-type",
            "the desc is " +
                (op.Desc.empty() ? std::string("missing")
                                 : "a DML_" + std::string(operator_type_name(op.Desc.type())) + "_OPERATOR_DESC") +
                "; DML_OPERATOR_" + std::string(r->info.Name) + " takes a DML_" + std::string(r->info.Name) +
                "_OPERATOR_DESC");
        return diags;
    }
    for (const auto& f : tensor_fields(op))
        validate_tensor_desc(*f.desc, f.role, reference::desc_path(f.name), options.max_bytes, diags);
    if (diags.has_errors()) {
        r->validate(op.Desc, diags);
        return diags;
    }
    // --max-bytes bounds the case, not only each buffer: six tensors of 4 GiB each passed the
    // per-buffer check and ended in std::bad_alloc. Checked from the descs, before any allocation.
    uint64_t total = 0;
    std::string parts;
    for (const auto& f : tensor_fields(op)) {
        const uint64_t n = buffer_size(*f.desc);
        total = n > UINT64_MAX - total ? UINT64_MAX : total + n;
        parts += (parts.empty() ? "" : ", ") + std::string(f.name) + " " + std::to_string(n);
    }
    if (total > options.max_bytes) {
        diags.error("/desc", "limit.case-bytes",
                    "the case's buffers need " + std::to_string(total) + " bytes together (" + parts +
                        "), over dmlref's limit of " + std::to_string(options.max_bytes) +
                        " bytes per case (raise it with --max-bytes)");
        return diags;
    }
    r->validate(op.Desc, diags);
    return diags;
}

Diagnostics validate_input_values(const Operator& op, const InputBuffers& inputs, uint64_t max_work) {
    Diagnostics diags;
    const kit::OperatorRecord& r = kit::record(op.Type);
    if (r.validate_values) r.validate_values(op.Desc, inputs, max_work, diags);
    return diags;
}

void evaluate(const Operator& op, const Bindings& bindings) {
    const kit::OperatorRecord& r = kit::record(op.Type);
    if (op.Desc.type() != op.Type) throw std::invalid_argument("the desc is not the operator's (validate first)");
    // Every tensor bound to as many bytes as its desc needs (checked in place: no list per call).
    for_each_tensor(op, [&](std::string_view name, TensorRole, const TensorDesc& d) {
        const auto bytes = bindings.at(name);
        if (bytes.size() < buffer_size(d))
            throw std::invalid_argument(std::string(name) + " is bound to " + std::to_string(bytes.size()) +
                                        " bytes; its desc needs " + std::to_string(buffer_size(d)));
    });
    // The family's fast path where it applies (tested element for element against the plain loop),
    // else the plain loop of reference/<family>.cpp.
    if (r.fast && reference::fast_paths_enabled() && r.fast(op.Desc, bindings)) return;
    r.evaluate(op.Desc, bindings);
}

std::vector<DontCare> dont_care(const Operator& op, std::string_view output) {
    const kit::OperatorRecord& r = kit::record(op.Type);
    return r.dont_care ? r.dont_care(op.Desc, output) : std::vector<DontCare>{};
}

namespace {
std::map<OperatorType, kit::AdmissibleHook>& admissible_hooks() {
    static std::map<OperatorType, kit::AdmissibleHook> hooks;
    return hooks;
}
}  // namespace

void kit::set_admissible_hook(OperatorType t, AdmissibleHook hook) { admissible_hooks()[t] = hook; }

bool has_admissible(OperatorType t) {
    (void)kit::find_record(t);  // builds the records, which give the hooks
    return admissible_hooks().count(t) > 0;
}

std::vector<Admissible> admissible(const Case& c, std::string_view output) {
    if (!has_admissible(c.op.Type)) return {};
    const ScopedReadings readings(c.policies);  // LastInOrder leaves one answer (docs/golden.md)
    return admissible_hooks().at(c.op.Type)(c, output);
}

Boundary boundary(const Operator& op, std::string_view output) {
    const kit::OperatorRecord& r = kit::record(op.Type);
    return r.desc_boundary ? r.desc_boundary(op.Desc, output) : Boundary{};
}

std::optional<Tolerance> operator_tolerance(const Operator& op, std::string_view output) {
    const kit::OperatorRecord& r = kit::record(op.Type);
    return r.desc_tolerance ? r.desc_tolerance(op.Desc, output) : std::nullopt;
}

std::span<std::byte> Bindings::at(std::string_view field) const {
    for (const auto& [n, bytes] : buffers_)
        if (n == field) return bytes;
    throw std::out_of_range("no buffer is bound to " + std::string(field));
}

// ---- Support tables ------------------------------------------------------------------------

std::string feature_level_name(uint32_t level) {
    return "DML_FEATURE_LEVEL_" + std::to_string(level >> 12) + "_" + std::to_string((level >> 8) & 0xf);
}

std::optional<uint32_t> parse_feature_level(std::string_view s) {
    constexpr std::string_view prefix = "DML_FEATURE_LEVEL_";
    if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
    const auto sep = s.find_first_of("._");
    if (sep == std::string_view::npos || sep == 0 || sep + 1 >= s.size()) return std::nullopt;
    uint32_t major = 0, minor = 0;
    auto a = std::from_chars(s.data(), s.data() + sep, major);
    auto b = std::from_chars(s.data() + sep + 1, s.data() + s.size(), minor);
    if (a.ec != std::errc{} || a.ptr != s.data() + sep || b.ec != std::errc{} || b.ptr != s.data() + s.size())
        return std::nullopt;
    if (major > 15 || minor > 15) return std::nullopt;
    // DirectML's DML_FEATURE_LEVEL values (DirectML.h); anything else is not a feature level.
    const uint32_t level = (major << 12) | (minor << 8);
    for (const uint32_t known : kFeatureLevels)
        if (level == known) return level;
    return std::nullopt;
}

bool supported_at(const Operator& op, uint32_t level, std::vector<std::string>* why) {
    const OperatorInfo& oi = info(op.Type);
    bool ok = true;
    auto say = [&](std::string s) {
        ok = false;
        if (why) why->push_back(std::move(s));
    };
    if (level < oi.IntroducedIn) {
        say("DML_OPERATOR_" + std::string(oi.Name) + " was introduced in " + feature_level_name(oi.IntroducedIn));
        return false;
    }
    for (const auto& f : tensor_fields(op)) {
        const SupportRow* row = nullptr;
        for (const auto& r : oi.Support) {
            const bool covers = r.Tensors.empty() ||
                                std::find(r.Tensors.begin(), r.Tensors.end(), f.name) != r.Tensors.end();
            if (covers && r.FeatureLevel <= level) row = &r;
        }
        if (!row) {
            say(std::string(f.name) + ": no support row at this feature level");
            continue;
        }
        const uint32_t dims = f.desc->DimensionCount();
        if (dims < row->MinDims || dims > row->MaxDims)
            say(std::string(f.name) + ": DimensionCount " + std::to_string(dims) + " is outside " +
                std::to_string(row->MinDims) + " to " + std::to_string(row->MaxDims));
        if (std::find(row->DataTypes.begin(), row->DataTypes.end(), f.desc->DataType) == row->DataTypes.end())
            say(std::string(f.name) + ": DataType " + std::string(name(f.desc->DataType)) + " is not in the table");
    }
    // The operator's own conditions on its tensors at this level (BATCH_NORMALIZATION's statistics
    // before DML_FEATURE_LEVEL_4_0), beyond the rows.
    if (const auto* r = kit::find_record(op.Type); r && r->support_rules) {
        std::vector<std::string> reasons;
        r->support_rules(op.Desc, level, reasons);
        for (auto& reason : reasons) say(std::move(reason));
    }
    return ok;
}

std::optional<uint32_t> lowest_supporting_feature_level(const Operator& op, std::vector<std::string>* why) {
    const OperatorInfo& oi = info(op.Type);
    for (const auto& r : oi.Support)
        if (supported_at(op, r.FeatureLevel, nullptr)) return r.FeatureLevel;
    // Explain against the newest row: that is the one a user would move to.
    if (why && !oi.Support.empty()) supported_at(op, oi.Support.back().FeatureLevel, why);
    return std::nullopt;
}

}  // namespace dmlref
