// The registry: every operator family's record, from the one list in reference/meson.build
// (docs/adding-an-operator.md), indexed by operator type and checked for completeness.
#include "family.hpp"

#include <map>
#include <stdexcept>

// DMLREF_FAMILIES(X): X(name) for each family of the list in reference/meson.build; each family
// defines `const FamilyRecord& name_family()` in reference/name_record.cpp.
#include "families.inc"

namespace dmlref::kit {

#define DMLREF_DECLARE(name) const FamilyRecord& name##_family();
DMLREF_FAMILIES(DMLREF_DECLARE)
#undef DMLREF_DECLARE

namespace {

struct Index {
    std::vector<const FamilyRecord*> families;
    std::map<OperatorType, const OperatorRecord*> by_type;
    std::vector<Alternative> readings;  // every family's, in the list's order: the id is the position
};

// The alternative readings the records declare, each given its id; where one is malformed, the
// reasons go to `gaps`.
void index_readings(Index& x, std::string& gaps) {
    for (const FamilyRecord* f : x.families)
        for (Alternative a : f->readings) {
            const std::string where = "\n  " + std::string(f->name) + ": the reading " + a.name();
            if (a.Policy.empty() || a.Value.empty() || a.Meaning.empty() || a.Who.empty() || a.Operators.empty())
                gaps += where + " lacks its policy, value, meaning, who reads it so, or operators";
            for (const Alternative& b : x.readings)
                if (b.Policy == a.Policy && b.Value == a.Value) gaps += where + " is declared twice";
            for (OperatorType t : a.Operators) {
                auto r = x.by_type.find(t);
                if (r == x.by_type.end()) {
                    gaps += where + " names " + std::string(operator_type_name(t)) + ", which dmlref does not evaluate";
                    continue;
                }
                bool recorded = false;
                for (const Policy& p : r->second->info.Policies) {
                    recorded = recorded || p.Name == a.Policy;
                    if (p.Name == a.Policy && p.Value == a.Value)
                        gaps += where + " is " + std::string(r->second->info.Name) + "'s default";
                }
                if (!recorded)
                    gaps += where + " names " + std::string(r->second->info.Name) + ", which records no policy " +
                            std::string(a.Policy);
            }
            a.Id = ReadingId(x.readings.size());
            x.readings.push_back(std::move(a));
        }
    if (x.readings.size() > kMaxReadings)
        gaps += "\n  more alternative readings than kMaxReadings (dmlref/readings.hpp) holds";
}

const Index& index() {
    static const Index i = [] {
        Index x;
#define DMLREF_LIST(name) x.families.push_back(&name##_family());
        DMLREF_FAMILIES(DMLREF_LIST)
#undef DMLREF_LIST
        // A record with a required part missing, or an operator registered twice, stops dmlref
        // at its first use with the reasons: never a silent fallback.
        std::string gaps;
        for (const FamilyRecord* f : x.families)
            for (const OperatorRecord& r : f->operators) {
                for (const auto& g : record_gaps(r)) gaps += "\n  " + std::string(f->name) + ": " + g;
                if (!x.by_type.emplace(r.info.Type, &r).second)
                    gaps += "\n  " + std::string(r.info.Name) + " is registered twice";
            }
        index_readings(x, gaps);
        if (!gaps.empty()) throw std::logic_error("dmlref's operator registry is incomplete:" + gaps);
        return x;
    }();
    return i;
}

}  // namespace

const std::vector<const FamilyRecord*>& families() { return index().families; }

const OperatorRecord* find_record(OperatorType t) {
    const auto& m = index().by_type;
    auto it = m.find(t);
    return it == m.end() ? nullptr : it->second;
}

const OperatorRecord& record(OperatorType t) {
    if (const OperatorRecord* r = find_record(t)) return *r;
    const std::string_view name = operator_type_name(t);
    throw std::invalid_argument(name.empty()
                                    ? "operator type " + std::to_string(uint32_t(t)) + " is not in DirectML.h"
                                    : "DML_OPERATOR_" + std::string(name) + " is not an operator dmlref evaluates");
}

}  // namespace dmlref::kit

namespace dmlref {

const std::vector<Alternative>& alternatives() { return kit::index().readings; }

const Alternative& alternative(ReadingId r) { return alternatives().at(r); }

ReadingId reading_id(std::string_view policy, std::string_view value) {
    for (const Alternative& a : alternatives())
        if (a.Policy == policy && a.Value == value) return a.Id;
    throw std::logic_error("no family record declares the alternative reading " + std::string(policy) + "=" +
                           std::string(value) + " (reference/kit/family.hpp, FamilyRecord::readings)");
}

}  // namespace dmlref

namespace dmlref::kit {

std::vector<std::string> record_gaps(const OperatorRecord& r) {
    std::vector<std::string> gaps;
    const std::string name = r.info.Name.empty() ? "operator " + std::to_string(uint32_t(r.info.Type))
                                                 : std::string(r.info.Name);
    auto gap = [&](const std::string& what) { gaps.push_back(name + ": " + what); };
    if (r.info.Name != operator_type_name(r.info.Type)) gap("its Name is not DirectML.h's name of its type");
    if (!r.make || !r.validate || !r.evaluate) {
        gap("no desc, validate or evaluate");
        return gaps;
    }
    if (r.make().type() != r.info.Type) gap("make() gives a desc of another operator");
    if (r.info.Support.empty()) gap("no support rows (DirectML's tensor-support table)");
    if (r.info.Policies.empty()) gap("no policies (docs/golden.md, Decisions)");
    if (r.features.empty() != !r.detect)
        gap("coverage features declared without detecting them, or detected undeclared");
    if (r.MinRank < 1 || r.MaxRank > 8 || r.MinRank > r.MaxRank) gap("its scope's ranks are not within 1 to 8");
    // Every output has a judging rule, and every rule names an output; the modes have their hooks.
    const Operator op{r.info.Type, r.make()};
    for (const auto& f : tensor_fields(op)) {
        if (f.role != TensorRole::Output) continue;
        bool any = false;
        for (const auto& o : r.outputs) any = any || o.output == f.name;
        if (!any) gap("no judging rule for " + std::string(f.name));
    }
    for (const auto& o : r.outputs) {
        bool known = false;
        for (const auto& f : tensor_fields(op)) known = known || (f.name == o.output && f.role == TensorRole::Output);
        // An optional output that a default desc leaves absent is known too.
        if (!known && !o.output.starts_with("Output"))
            gap("a judging rule for " + std::string(o.output) + ", which is not an output");
        if (o.rule == ToleranceRule::OperatorStated && !r.desc_tolerance && !r.case_tolerance)
            gap(std::string(o.output) + " is OperatorStated, but the record states no tolerance");
        if (o.rule == ToleranceRule::OperatorStated && !r.rounding_cost)
            gap(std::string(o.output) + " is OperatorStated, but the record states no rounding_cost (--max-work)");
        if (o.rule == ToleranceRule::Ulp1WithScaleBias && !r.has_scale_bias)
            gap(std::string(o.output) + " is Ulp1WithScaleBias, but the record has no has_scale_bias");
        if (o.boundary == BoundaryRule::OperatorStated && !r.desc_boundary)
            gap(std::string(o.output) + " has operator-stated boundaries, but the record has no desc_boundary");
        if (o.boundary != BoundaryRule::None && o.boundary != BoundaryRule::OperatorStated && !r.case_boundary)
            gap(std::string(o.output) + " has a boundary rule, but the record has no case_boundary");
    }
    return gaps;
}

}  // namespace dmlref::kit
