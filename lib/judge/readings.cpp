// The alternative readings dmlref evaluates (docs/golden.md, "Alternative readings"; the family
// records declare them and the kit gives them their ids, reference/kit/registry.cpp), the
// --policy NAME=VALUE syntax, and the readings in force on a thread.
#include "dmlref/readings.hpp"

#include "dmlref/printable.hpp"

#include <algorithm>

namespace dmlref {

namespace detail {
thread_local std::bitset<kMaxReadings> readings_mask;
}

namespace {

// Policies recorded by no operator's registry entry but named by an alternative: none today.
bool recorded_by_some_operator(std::string_view name) {
    for (const auto& o : all_operators())
        for (const auto& p : o.Policies)
            if (p.Name == name) return true;
    return false;
}

}  // namespace

std::vector<const Alternative*> alternatives_for(OperatorType t) {
    std::vector<const Alternative*> r;
    for (const auto& a : alternatives())
        if (std::find(a.Operators.begin(), a.Operators.end(), t) != a.Operators.end()) r.push_back(&a);
    return r;
}

const Alternative* find_alternative(std::string_view name, std::string_view value) {
    for (const auto& a : alternatives())
        if (a.Policy == name && a.Value == value) return &a;
    return nullptr;
}

const Alternative* alternative_of(OperatorType t, std::string_view name, std::string_view value) {
    const Alternative* a = find_alternative(name, value);
    if (!a || std::find(a->Operators.begin(), a->Operators.end(), t) == a->Operators.end()) return nullptr;
    return a;
}

bool is_policy_name(std::string_view name) {
    if (recorded_by_some_operator(name)) return true;
    return std::any_of(alternatives().begin(), alternatives().end(),
                       [&](const Alternative& a) { return a.Policy == name; });
}

bool is_known_value(std::string_view name, std::string_view value) {
    if (find_alternative(name, value)) return true;
    for (const auto& o : all_operators())
        for (const auto& p : o.Policies)
            if (p.Name == name && p.Value == value) return true;
    return false;
}

namespace {
// The values a policy may take, for messages: "NaNLosesToAnyNumber (default), NaNWins".
std::string known_values(std::string_view name) {
    std::vector<std::string> v;
    for (const auto& o : all_operators())
        for (const auto& p : o.Policies)
            if (p.Name == name && std::find(v.begin(), v.end(), std::string(p.Value) + " (default)") == v.end())
                v.push_back(std::string(p.Value) + " (default)");
    for (const auto& a : alternatives())
        if (a.Policy == name) v.push_back(std::string(a.Value));
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
}
}  // namespace

std::optional<std::pair<std::string, std::string>> parse_policy_option(std::string_view text, Diagnostics& diags,
                                                                       const std::string& path) {
    // What the user gave is echoed up to 64 bytes (dmlref/printable.hpp): an error stays a line.
    auto shown = [](std::string_view s) { return clipped(s, 64); };
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
        diags.error(path, "policy.syntax",
                    "\"" + shown(text) + "\" is not NAME=VALUE (e.g. ArgmaxNaN=NaNWins; docs/golden.md)");
        return std::nullopt;
    }
    const std::string name(text.substr(0, eq)), value(text.substr(eq + 1));
    if (!is_policy_name(name)) {
        diags.error(
            path, "policy.unknown-name",
            "\"" + shown(name) +
                "\" is not a policy of any operator; the policies and their alternatives are in docs/golden.md");
        return std::nullopt;
    }
    if (!is_known_value(name, value)) {
        diags.error(path, "policy.unknown-value",
                    "\"" + shown(value) + "\" is not a reading of " + name + " that dmlref evaluates; it knows " +
                        known_values(name) + " (docs/golden.md)");
        return std::nullopt;
    }
    return std::pair{name, value};
}

std::vector<std::pair<std::string, std::string>> policies_in_force(OperatorType t, const ReadingChoice& choice) {
    std::vector<std::pair<std::string, std::string>> r;
    for (const auto& p : info(t).Policies) {
        std::string value(p.Value);
        if (auto c = choice.find(std::string(p.Name)); c != choice.end() && alternative_of(t, p.Name, c->second))
            value = c->second;
        r.emplace_back(std::string(p.Name), value);
    }
    return r;
}

namespace {
std::bitset<kMaxReadings> mask_of(const ReadingChoice& choice) {
    std::bitset<kMaxReadings> m;
    for (const auto& [name, value] : choice)
        if (const Alternative* a = find_alternative(name, value)) m.set(a->Id);
    return m;
}
}  // namespace

ScopedReadings::ScopedReadings(const ReadingChoice& choice) : saved_(detail::readings_mask) {
    detail::readings_mask = mask_of(choice);
}
ScopedReadings::ScopedReadings(ReadingId r) : saved_(detail::readings_mask) {
    detail::readings_mask.reset();
    detail::readings_mask.set(r);
}
ScopedReadings::~ScopedReadings() { detail::readings_mask = saved_; }

}  // namespace dmlref
