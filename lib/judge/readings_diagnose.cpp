// The diagnosis `dmlref diff` makes of over-tolerance elements (docs/diff.md, "Readings"): which
// of them follow a named alternative reading (docs/golden.md), computed by running the golden's
// case under each alternative its operator has and judging the actual values against that.
#include "dmlref/readings.hpp"
#include "dmlref/bits.hpp"

#include "dmlref/diff.hpp"

namespace dmlref {

ReadingsDiagnosis::ReadingsDiagnosis(const Case& golden,
                                     std::function<std::map<std::string, std::vector<std::byte>>()> inputs)
    : golden_(golden), inputs_(std::move(inputs)) {}

const std::vector<std::byte>* ReadingsDiagnosis::outputs_under(const Alternative& a, std::string_view output) {
    auto it = runs_.find(a.name());
    if (it == runs_.end()) {
        std::optional<Outputs> o;
        Case c = golden_;
        c.policies[std::string(a.Policy)] = std::string(a.Value);
        try {
            if (c.inputs.empty() && inputs_) c.inputs = inputs_();
            o = run_case(c);
        } catch (const std::exception&) {
            o.reset();  // a reading that cannot be evaluated here explains nothing
        }
        it = runs_.emplace(a.name(), std::move(o)).first;
    }
    if (!it->second) return nullptr;
    auto v = it->second->values.find(std::string(output));
    return v == it->second->values.end() ? nullptr : &v->second;
}

std::vector<std::pair<std::string, uint64_t>> ReadingsDiagnosis::diagnose(std::string_view output,
                                                                          const std::vector<std::byte>& actual,
                                                                          const OutputCensus& census,
                                                                          const DiffOptions& options) {
    std::vector<std::pair<std::string, uint64_t>> r;
    if (census.over == 0) return r;
    const auto ex = golden_.expected.find(std::string(output));
    if (ex == golden_.expected.end()) return r;
    const DataType t = census.data_type;
    const size_t w = element_size(t);
    std::vector<bool> explained(census.verdicts.size());
    for (const Alternative* a : alternatives_for(golden_.op.Type)) {
        if (golden_.policies.count(std::string(a->Policy))) continue;  // the golden already reads it another way
        const std::vector<std::byte>* values = outputs_under(*a, output);
        if (!values || *values == ex->second.values) continue;  // the reading changes nothing here
        // The actual values judged against the reading's values, under the golden's tolerance.
        Case as_read = golden_;
        as_read.expected[std::string(output)].values = *values;
        DiffOptions quiet = options;
        quiet.worst = 0;
        const OutputCensus c = dmlref::census(as_read, output, actual, quiet);
        std::pair<std::string, uint64_t> n{a->name(), 0};
        for (size_t i = 0; i < census.verdicts.size() && i < c.verdicts.size(); ++i) {
            if (census.verdicts[i] != Verdict::Over) continue;
            const bool both_nan = is_nan_bits(t, load_bits(t, values->data() + i * w)) &&
                                  is_nan_bits(t, load_bits(t, actual.data() + i * w));
            if (c.verdicts[i] != Verdict::Over || both_nan) {
                ++n.second;
                explained[i] = true;
            }
        }
        if (n.second) r.push_back(std::move(n));
    }
    uint64_t none = 0;
    for (size_t i = 0; i < census.verdicts.size(); ++i) none += census.verdicts[i] == Verdict::Over && !explained[i];
    if (none) r.push_back({"", none});  // "": over-tolerance elements that follow no known reading
    return r;
}

}  // namespace dmlref
