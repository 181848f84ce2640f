// Input recipes (docs/gen.md, "Recipes"): exact dyadic data, planted argmax ties, NaN first,
// middle or last in a pooling window, x at Min or Max, each type's special values, and Random.
#include "gen/gen_internal.hpp"

#include "dmlref/generate.hpp"
#include "dmlref/numeric.hpp"
#include "dmlref/printable.hpp"
#include "dmlref/values.hpp"

#include "../../reference/kit/family.hpp"

#include <cmath>

namespace dmlref::gen {

bool is_recipe(const ordered_json& input) { return input.is_object() && input.contains("Recipe"); }

namespace {

constexpr uint64_t kMaxRecipeElements = uint64_t(1) << 24;

// The element's bits for a small integer or dyadic value v (exact in every type it is used with).
uint64_t bits_of(DataType t, double v) {
    return dispatch(t, [&]<class T>() -> uint64_t {
        if constexpr (is_floating_v<T>) return uint64_t(to_bits(round_to_float<T>(v)));
        else return uint64_t(to_bits(T(int64_t(v))));
    });
}

uint64_t quiet_nan(DataType t) {
    return t == DataType::FLOAT16 ? 0x7e00 : t == DataType::FLOAT32 ? 0x7fc00000 : 0x7ff8000000000000ull;
}

uint64_t pick(SplitMix64& rng, uint64_t n) { return uint64_t(((uint128_t)rng.next() * n) >> 64); }

// A dyadic value: k/4 with |k| <= 16 for float types, an integer in [-8, 8] ([0, 16] unsigned).
uint64_t dyadic(DataType t, SplitMix64& rng) {
    if (is_float(t)) return bits_of(t, (double(pick(rng, 33)) - 16.0) / 4.0);
    const bool is_signed = is_signed_integer(t);
    return bits_of(t, is_signed ? double(pick(rng, 17)) - 8.0 : double(pick(rng, 17)));
}

// The next representable float above / below (bits), finite inputs; integers +-1 inside the range.
uint64_t float_step(DataType t, uint64_t b, bool up) {
    const uint64_t sign = uint64_t(1) << (element_size(t) * 8 - 1);
    if ((b & ~sign) == 0) return up ? 1 : sign | 1;
    const bool neg = b & sign;
    return (neg == up) ? b - 1 : b + 1;
}

// The Min and Max a clip desc compares against, as values of the tensor's type (bits), or false
// (the record's min_max hook).
bool clip_bounds(const Operator& op, DataType t, uint64_t& lo, uint64_t& hi) {
    const kit::OperatorRecord& r = kit::record(op.Type);
    return r.min_max && r.min_max(op, t, lo, hi);
}

// x at Min and Max, their neighbours on either side, and values between: for the clip family.
std::vector<uint64_t> min_max_candidates(DataType t, uint64_t lo, uint64_t hi) {
    std::vector<uint64_t> c = {lo, hi};
    if (is_float(t)) {
        for (uint64_t b : {lo, hi}) {
            c.push_back(float_step(t, b, true));
            c.push_back(float_step(t, b, false));
        }
    } else {
        dispatch(t, [&]<class T>() {
            if constexpr (!is_floating_v<T>) {
                using L = std::numeric_limits<T>;
                for (uint64_t b : {lo, hi}) {
                    const T v = from_bits<T>(bits_t<T>(b));
                    if (v < L::max()) c.push_back(uint64_t(to_bits(T(v + 1))));
                    if (v > L::min()) c.push_back(uint64_t(to_bits(T(v - 1))));
                }
            }
        });
    }
    return c;
}

// For a pooling operator's InputTensor: the buffer-independent logical indices of the first,
// middle or last real element of the windows of the first and the last output position of
// every (batch, channel) plane (the record's windows hook); {} for other operators.
std::vector<uint64_t> window_positions(const Operator& op, const TensorDesc& in, int where) {
    const kit::OperatorRecord& r = kit::record(op.Type);
    return r.windows ? r.windows(op, in, where) : std::vector<uint64_t>{};
}

}  // namespace

bool make_recipe(const Operator& op, const TensorField& field, const ordered_json& recipe, uint64_t seed,
                 ordered_json& out, std::string& note, std::string& error) {
    const ordered_json& r = recipe["Recipe"];
    const std::string name = r.is_string() ? r.get<std::string>()
                             : r.is_object() && r.contains("Name") && r["Name"].is_string()
                                 ? r["Name"].get<std::string>()
                                 : "";
    const TensorDesc& desc = *field.desc;
    const DataType t = desc.DataType;
    const std::string f(field.name);
    if (name == "random") {
        ordered_json g = ordered_json::object();
        g["Seed"] = seed;
        if (!is_float(t)) {  // integers: the whole range of the type unless the recipe says otherwise
            g["Distribution"] = "Integers";
            const auto sp = special_values(t);  // zero, one, largest, largest - 1, smallest, ...
            g["Min"] = json_raw(format_value(t, sp[4]));
            // The case reader reads Random's bounds as INT64: UINT64 draws from 0 to 2^63 - 1.
            g["Max"] = json_raw(format_value(t, t == DataType::UINT64 ? 0x7fffffffffffffffull : sp[2]));
        }
        if (r.is_object())
            for (auto it = r.begin(); it != r.end(); ++it)
                if (it.key() != "Name") g[it.key()] = *it;
        out = ordered_json{{"Random", g}};
        note = f + ": Random, seed " + std::to_string(seed);
        return true;
    }
    // The other recipes take no parameters: {"Name": ...} alone (the random recipe passes its keys on
    // to Random, whose reader checks them). A stray key is an error, not silently ignored.
    if (r.is_object())
        for (auto it = r.begin(); it != r.end(); ++it)
            if (it.key() != "Name") {
                error = f + ": the recipe \"" + name + "\" takes no \"" + printable(clipped(it.key(), 64)) +
                        "\" (only \"random\" takes parameters; docs/gen.md)";
                return false;
            }
    const uint64_t n = element_count(desc);
    // Recipe values are written into the case file (at most 1 GiB, limit.file-bytes).
    if (index_of_last_element(desc) >= kMaxRecipeElements) {
        error = f + " has " + std::to_string(index_of_last_element(desc) + 1) +
                " buffer elements; recipes write at most " + std::to_string(kMaxRecipeElements) +
                " values into a case file (use the recipe \"random\", a generator, for larger tensors)";
        return false;
    }
    std::vector<uint64_t> logical(n);
    SplitMix64 rng{seed};
    if (name == "dyadic") {
        for (auto& v : logical) v = dyadic(t, rng);
        note = f + ": exact dyadic data (k/4, |k| <= 16; integers -8..8), so every summation order gives the same bits";
    } else if (name == "ties") {
        std::vector<uint64_t> pool = {bits_of(t, 0), bits_of(t, 1), bits_of(t, 1)};
        if (is_float(t)) pool.push_back(uint64_t(1) << (element_size(t) * 8 - 1));  // -0 ties +0
        for (auto& v : logical) v = pool[pick(rng, pool.size())];
        note = f + ": planted argmax ties (values from {0, 1" + std::string(is_float(t) ? ", -0" : "") + "})";
    } else if (name == "nan-first" || name == "nan-middle" || name == "nan-last") {
        if (!is_float(t)) {
            error = "the recipe \"" + name + "\" needs a float type, not " + std::string(dmlref::name(t));
            return false;
        }
        for (auto& v : logical) v = dyadic(t, rng);
        const int where = name == "nan-first" ? 0 : name == "nan-middle" ? 1 : 2;
        const std::string what = name.substr(4);
        auto hits = window_positions(op, desc, where);
        if (!hits.empty()) {
            note = f + ": NaN at the " + what + " real element of the windows of the first and last output positions";
        } else {
            hits = {where == 0 ? 0 : where == 1 ? n / 2 : n - 1};
            note = f + ": NaN at the " + what + " element";
        }
        for (uint64_t h : hits) logical[h] = quiet_nan(t);
    } else if (name == "min-max") {
        uint64_t lo = 0, hi = 0;
        if (!clip_bounds(op, t, lo, hi)) {
            error = "the recipe \"min-max\" needs a clip desc whose bounds are of the tensor's type";
            return false;
        }
        const auto c = min_max_candidates(t, lo, hi);
        for (auto& v : logical) v = pick(rng, 3) == 0 ? dyadic(t, rng) : c[pick(rng, c.size())];
        note = f + ": x equal to Min and Max and their neighbours (" + display_value(t, lo) + ", " +
               display_value(t, hi) + ")";
    } else if (name == "specials") {
        const auto s = special_values(t);
        const uint64_t start = pick(rng, s.size());
        for (uint64_t i = 0; i < n; ++i) logical[i] = s[(start + i) % s.size()];
        note = f + ": each special value of " + std::string(dmlref::name(t)) + " in turn";
    } else {
        error = "\"" + name +
                "\" is not a recipe (random, dyadic, ties, nan-first, nan-middle, nan-last, min-max, specials)";
        return false;
    }
    // Logical elements to the buffer, in memory order, up to the last logical element.
    const auto strides = effective_strides(desc);
    std::vector<uint64_t> buffer(index_of_last_element(desc) + 1, 0);
    std::vector<uint32_t> coord(desc.Sizes.size(), 0);
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t off = 0;
        for (size_t k = 0; k < coord.size(); ++k) off += coord[k] * uint64_t(strides[k]);
        buffer[off] = logical[i];
        for (size_t k = coord.size(); k-- > 0;) {
            if (++coord[k] < desc.Sizes[k]) break;
            coord[k] = 0;
        }
    }
    out = ordered_json::array();
    for (uint64_t b : buffer) out.push_back(json_raw(format_exact_value(t, b)));
    return true;
}

}  // namespace dmlref::gen
