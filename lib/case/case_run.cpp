// Running a case: binding buffers (in-place outputs share their input's), evaluating, gathering
// the logical outputs, and comparing them with the case's expected values bit for bit.
#include "dmlref/case.hpp"
#include "dmlref/checked.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/readings.hpp"

#include "../../reference/kit/family.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace dmlref {

namespace {

// What one entry of an operator's own DontCare list costs, in element reads and writes: it is a
// record of about 130 bytes in memory and as much text in the golden (docs/rules.md, limit.work).
constexpr uint64_t kDontCareWork = 128;

}  // namespace

uint64_t work_estimate(const Operator& op) {
    uint64_t elements = 0, outputs = 0;
    for (const auto& f : tensor_fields(op)) {
        // Inputs by their whole buffer (a generator fills all of it), outputs by their elements.
        const uint64_t n = f.role == TensorRole::Input ? buffer_size(*f.desc) / element_size(f.desc->DataType)
                                                       : element_count(*f.desc);
        elements = saturating_add(elements, n);
        if (f.role != TensorRole::Input) outputs = saturating_add(outputs, n);
    }
    // A windowed operator reads its whole window for an element, an interpolating one up to
    // 2^dimensions neighbours (the record's work factor); rounding an output element correctly
    // costs the record's rounding cost (an MPFR evaluation is hundreds of reads); its own DontCare
    // lists (all-padding pooling windows) cost kDontCareWork an entry.
    const kit::OperatorRecord& r = kit::record(op.Type);
    const uint64_t factor = r.work_factor ? r.work_factor(op.Desc) : 1;
    const uint64_t rounding = r.rounding_cost ? r.rounding_cost(op.Desc) : 0;
    const uint64_t dont_care = r.dont_care_entries ? r.dont_care_entries(op.Desc) : 0;
    return saturating_add(saturating_add(saturating_mul(elements, factor), saturating_mul(outputs, rounding)),
                          saturating_mul(dont_care, kDontCareWork));
}

// ---- Running -----------------------------------------------------------------------------

std::vector<std::byte> gather_logical(const TensorDesc& d, std::span<const std::byte> buffer) {
    const size_t w = element_size(d.DataType);
    std::vector<std::byte> out(element_count(d) * w);
    const auto strides = effective_strides(d);
    const auto packed = packed_strides(d.Sizes);
    for_each_run<2>(d.Sizes, {strides.data(), packed.data()}, {0, 0},
                    [&](const std::array<int64_t, 2>& off, int64_t count, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < count; ++i)
            std::memcpy(out.data() + (off[1] + i * step[1]) * w, buffer.data() + (off[0] + i * step[0]) * w, w);
    });
    return out;
}

Outputs run_case(const Case& c) {
    // Inputs are bound where they are (evaluation only reads them); an input that an output
    // shares in place is copied, so that the case keeps its own.
    std::map<std::string, std::vector<std::byte>> buffers;
    Bindings b;
    const auto fields = tensor_fields(c.op);
    for (const auto& f : fields) {
        if (f.role != TensorRole::Output) continue;
        auto it = c.in_place.find(std::string(f.name));
        if (it != c.in_place.end()) buffers[it->second] = c.inputs.at(it->second);
        else buffers[std::string(f.name)] = std::vector<std::byte>(buffer_size(*f.desc));
    }
    for (const auto& f : fields) {
        auto it = c.in_place.find(std::string(f.name));
        const std::string& owner = it != c.in_place.end() ? it->second : std::string(f.name);
        if (auto own = buffers.find(owner); own != buffers.end()) b.bind(std::string(f.name), own->second);
        else {
            const auto& input = c.inputs.at(owner);
            b.bind(std::string(f.name), std::span<std::byte>(const_cast<std::byte*>(input.data()), input.size()));
        }
    }
    {
        const ScopedReadings readings(c.policies);  // the alternative readings the case asks for (docs/golden.md)
        evaluate(c.op, b);
    }
    Outputs o;
    for (const auto& f : fields) {
        if (f.role != TensorRole::Output) continue;
        const TensorDesc& d = *f.desc;
        auto own = buffers.find(std::string(f.name));
        // A packed output's buffer starts with its logical elements in order: kept, not gathered again.
        if (own != buffers.end() && effective_strides(d) == packed_strides(d.Sizes)) {
            std::vector<std::byte> v = std::move(own->second);
            v.resize(element_count(d) * element_size(d.DataType));
            o.values[std::string(f.name)] = std::move(v);
        } else {
            o.values[std::string(f.name)] = gather_logical(d, b.at(f.name));
        }
    }
    return o;
}

std::vector<Mismatch> compare_expected(const Case& c, const Outputs& outputs) {
    std::vector<Mismatch> m;
    for (const auto& f : tensor_fields(c.op)) {
        auto e = c.expected.find(std::string(f.name));
        if (e == c.expected.end()) continue;
        const DataType t = f.desc->DataType;
        const size_t w = element_size(t);
        const auto& actual = outputs.values.at(std::string(f.name));
        std::set<uint64_t> skip;
        for (const auto& d : e->second.dont_care) skip.insert(d.Index);
        for (const auto& d : dont_care(c.op, f.name)) skip.insert(d.Index);
        for (uint64_t i = 0; i < element_count(*f.desc); ++i) {
            if (skip.count(i)) continue;
            const uint64_t a = load_bits(t, actual.data() + i * w), x = load_bits(t, e->second.values.data() + i * w);
            if (a != x) m.push_back({std::string(f.name), i, x, a});
        }
    }
    return m;
}

}  // namespace dmlref
