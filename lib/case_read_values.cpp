// Reading a case's input buffers (arrays, Fill, Iota, Random, Npy) and its expected outputs
// (values, tolerance, don't-care and boundary elements), docs/case-format.md.
#include "case_reader.hpp"
#include "case_notation.hpp"
#include "json_tokens.hpp"
#include "path_inside.hpp"

namespace dmlref::case_reader {

// ---- Inputs ------------------------------------------------------------------------------

void read_input(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path,
                const fs::path& base_dir, const LoadOptions& options) {
    const TensorDesc& d = *f.desc;
    const DataType t = d.DataType;
    const size_t width = element_size(t);
    const uint64_t capacity = buffer_size(d) / width;  // elements the buffer holds
    const uint64_t needed = index_of_last_element(d) + 1;
    std::vector<std::byte> buffer(buffer_size(d));
    json canonical;
    const size_t diags_before = r.diags.items().size();

    auto count_ok = [&](uint64_t n, const std::string& p) {
        if (n < needed || n > capacity) {
            r.diags.error(p, "input.count",
                          std::to_string(n) + " values given; the buffer of " + std::string(f.name) + " holds " +
                          std::to_string(capacity) + " elements and its last logical element is element " +
                          std::to_string(needed - 1) + ", so give " +
                          (needed == capacity ? std::to_string(needed) : std::to_string(needed) + " to " + std::to_string(capacity)) +
                          " values (in memory order)");
            return false;
        }
        return true;
    };

    if (spec.is_array()) {
        if (!count_ok(spec.size(), path)) return;
        json values = json::array();
        bool ok = true;
        for (size_t i = 0; i < spec.size(); ++i) {
            auto b = r.value(t, spec[i], pointer_append(path, i), true);
            if (!b) { ok = false; continue; }
            store_bits(t, buffer.data() + i * width, *b);
            values.push_back(json_raw(format_exact_value(t, *b)));
        }
        if (!ok) return;
        canonical = values;
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Fill")) {
        auto b = r.value(t, spec["Fill"], pointer_append(path, "Fill"), true);
        if (!b) return;
        for (uint64_t i = 0; i < capacity; ++i) store_bits(t, buffer.data() + i * width, *b);
        canonical = {{"Fill", json_raw(format_exact_value(t, *b))}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Iota")) {
        const std::string p = pointer_append(path, "Iota");
        const json& io = spec["Iota"];
        if (!r.is_object(io, p, "Iota")) return;
        r.only_keys(io, p, {"Start", "Step"}, "Iota");
        if (!io.contains("Start") || !io.contains("Step")) {
            r.diags.error(p, "case.missing-field", "Iota needs Start and Step");
            return;
        }
        auto start = r.value(t, io["Start"], pointer_append(p, "Start"), true);
        auto step = r.value(t, io["Step"], pointer_append(p, "Step"), true);
        if (!start || !step) return;
        bool ok = true;
        dispatch(t, [&]<class T>() {
            const T s = from_bits<T>(bits_t<T>(*start)), st = from_bits<T>(bits_t<T>(*step));
            for (uint64_t i = 0; i < capacity && ok; ++i) {
                T v;
                if constexpr (is_floating_v<T>) {
                    // Start + i * Step in double (two roundings), then once to T.
                    v = round_to_float<T>(widen(s) + double(i) * widen(st));
                } else {
                    const int128_t x = int128_t(s) + int128_t(i) * int128_t(st);
                    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
                        r.diags.error(p, "input.iota-range", "Iota element " + std::to_string(i) + " is outside the range of " +
                                      std::string(name(t)));
                        ok = false;
                        return;
                    }
                    v = T(x);
                }
                store_bits(t, buffer.data() + i * width, uint64_t(to_bits(v)));
            }
        });
        if (!ok) return;
        canonical = {{"Iota", {{"Start", json_raw(format_exact_value(t, *start))}, {"Step", json_raw(format_exact_value(t, *step))}}}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Random")) {
        const std::string p = pointer_append(path, "Random");
        const json& rs = spec["Random"];
        if (!r.is_object(rs, p, "Random")) return;
        r.only_keys(rs, p, {"Seed", "Distribution", "Min", "Max", "SpecialFraction"}, "Random");
        RandomSpec g;
        bool ok = true;
        if (!rs.contains("Seed")) { r.diags.error(p, "case.missing-field", "Random needs a Seed (an unsigned 64-bit integer)"); return; }
        if (auto s = r.unsigned_value(rs["Seed"], pointer_append(p, "Seed"), std::numeric_limits<uint64_t>::max(), "Seed")) g.Seed = *s;
        else return;
        g.Distribution = is_float(t) ? "Uniform" : "Integers";
        if (rs.contains("Distribution") && rs["Distribution"].is_string()) g.Distribution = rs["Distribution"].get<std::string>();
        if ((rs.contains("Distribution") && !rs["Distribution"].is_string()) ||
            (g.Distribution != "Uniform" && g.Distribution != "Integers")) {
            r.diags.error(pointer_append(p, "Distribution"), "input.random-distribution", "Distribution must be \"Uniform\" or \"Integers\"");
            return;
        }
        if (g.Distribution == "Uniform" && !is_float(t)) {
            r.diags.error(pointer_append(p, "Distribution"), "input.random-distribution", "Uniform is for float types; use \"Integers\" for " + std::string(name(t)));
            return;
        }
        json canon_random = {{"Seed", g.Seed}, {"Distribution", g.Distribution}};
        if (g.Distribution == "Uniform") {
            for (auto [key, dst, def] : {std::tuple{"Min", &g.Min, -1.0}, std::tuple{"Max", &g.Max, 1.0}}) {
                *dst = def;
                if (rs.contains(key)) {
                    auto b = r.value(DataType::FLOAT64, rs[key], pointer_append(p, key), false);
                    if (!b) { ok = false; continue; }
                    *dst = from_bits<double>(*b);
                    if (!std::isfinite(*dst)) { r.diags.error(pointer_append(p, key), "input.random-range", std::string(key) + " must be finite"); ok = false; }
                }
                canon_random[key] = json_raw(format_value(DataType::FLOAT64, to_bits(*dst)));
            }
            if (ok && !(g.Min <= g.Max)) { r.diags.error(p, "input.random-range", "Min must not exceed Max"); ok = false; }
        } else {
            int128_t lo = 0, hi = 0;
            for (auto [key, dst] : {std::pair{"Min", &lo}, std::pair{"Max", &hi}}) {
                if (!rs.contains(key)) { r.diags.error(p, "case.missing-field", std::string("Integers needs ") + key); ok = false; continue; }
                auto b = r.value(DataType::INT64, rs[key], pointer_append(p, key), false);
                if (!b) { ok = false; continue; }
                *dst = int64_t(*b);
                canon_random[key] = json_raw(format_value(DataType::INT64, *b));
            }
            if (ok) {
                // Min and Max must be values of the type (every integer between them is then one too).
                int128_t tmin, tmax;
                dispatch(t, [&]<class T>() {
                    if constexpr (std::is_integral_v<T>) { tmin = std::numeric_limits<T>::min(); tmax = std::numeric_limits<T>::max(); }
                    else { const int bits = std::numeric_limits<T>::digits; tmax = int128_t(1) << bits; tmin = -tmax; }
                });
                if (lo > hi || lo < tmin || hi > tmax) {
                    r.diags.error(p, "input.random-range", "Integers needs Min <= Max, both exactly representable in " + std::string(name(t)));
                    ok = false;
                }
                g.IntegerMin = int64_t(lo);
                g.IntegerSpan = uint64_t(hi - lo);
            }
        }
        if (rs.contains("SpecialFraction")) {
            auto b = r.value(DataType::FLOAT64, rs["SpecialFraction"], pointer_append(p, "SpecialFraction"), false);
            if (b) g.SpecialFraction = from_bits<double>(*b);
            if (!b || !(g.SpecialFraction >= 0.0 && g.SpecialFraction <= 1.0)) {
                r.diags.error(pointer_append(p, "SpecialFraction"), "input.random-range", "SpecialFraction must be from 0 to 1");
                ok = false;
            }
            canon_random["SpecialFraction"] = json_raw(format_value(DataType::FLOAT64, to_bits(g.SpecialFraction)));
        }
        if (!ok) return;
        generate_random(t, g, buffer.data(), capacity);
        c.seeds.push_back(g.Seed);
        canonical = {{"Random", canon_random}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Npy")) {
        const std::string p = pointer_append(path, "Npy");
        if (!spec["Npy"].is_string()) { r.diags.error(p, "case.type", "Npy must be a file name (relative to the case file)"); return; }
        const std::string npy_name = spec["Npy"].get<std::string>();
        if (npy_name.empty() || npy_name.find('\0') != std::string::npos) {
            r.diags.error(p, "input.npy-path", "the Npy file name is empty or holds a NUL byte");
            return;
        }
        const fs::path file = base_dir / npy_name;
        if (!options.allow_paths) {
            // A case reads only inside its own folder tree: no absolute path, no .. climbing out,
            // no symbolic link leading out (docs/rules.md, input.npy-path).
            if (!path_inside(base_dir, npy_name)) {
                r.diags.error(p, "input.npy-path", "\"" + npy_name + "\" leads outside the case's folder " + base_dir.string() +
                              " (an absolute path, .. or a symbolic link); a case reads files only inside its own folder "
                              "unless the command is given --allow-paths");
                return;
            }
        }
        try {
            const NpyArray a = read_npy(file, options.max_bytes);
            if (a.data_type != t) {
                r.diags.error(p, "input.npy-dtype", file.string() + " holds " + npy_dtype(a.data_type) + " (" + std::string(name(a.data_type)) +
                              ") but " + std::string(f.name) + ".DataType is " + std::string(name(t)));
                return;
            }
            if (!count_ok(a.data.size() / width, p)) return;
            std::copy(a.data.begin(), a.data.end(), buffer.begin());
        } catch (const NpyError& e) {
            r.diags.error(p, "input.npy", file.string() + ": " + e.what());
            return;
        }
        canonical = {{"Npy", fs::absolute(file).lexically_normal().string()}};  // made relative on writing
    } else {
        r.diags.error(path, "input.form", "an input is an array of values (memory order), or one of {\"Fill\": v}, "
                      "{\"Iota\": {\"Start\": a, \"Step\": d}}, {\"Random\": {\"Seed\": n, ...}}, {\"Npy\": \"file.npy\"}");
        return;
    }
    // Values and Fill/Iota keep the author's notation (raw bits stay bits), unless a decimal had to
    // be rounded: then the exact values are written, so a golden never warns. Generators stay canonical.
    if ((spec.is_array() || spec.contains("Fill") || spec.contains("Iota")) && !inexact_under(r.diags, path, diags_before))
        canonical = with_number_text<json>(r.doc, spec, path);
    c.inputs[std::string(f.name)] = std::move(buffer);
    c.input_specs[std::string(f.name)] = std::move(canonical);
}

// ---- Expected outputs --------------------------------------------------------------------

void read_expected(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path) {
    if (!r.is_object(spec, path, "an expected output")) return;
    r.only_keys(spec, path, {"Values", "Tolerance", "DontCare", "Boundary"}, "an expected output");
    const TensorDesc& d = *f.desc;
    const DataType t = d.DataType;
    const uint64_t n = element_count(d);
    ExpectedOutput e;
    if (!spec.contains("Values") || !spec["Values"].is_array()) {
        r.diags.error(path, "expected.values", "an expected output needs \"Values\": its logical elements in row-major order");
        return;
    }
    const json& values = spec["Values"];
    const std::string vp = pointer_append(path, "Values");
    if (values.size() != n) {
        r.diags.error(vp, "expected.count", std::to_string(values.size()) + " values given; " + std::string(f.name) + " has " +
                      std::to_string(n) + " logical elements (listed in row-major order of Sizes)");
        return;
    }
    e.values.resize(n * element_size(t));
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
        auto b = r.value(t, values[i], pointer_append(vp, i), false);
        if (b) store_bits(t, e.values.data() + i * element_size(t), *b); else ok = false;
    }
    if (spec.contains("Tolerance")) {
        const std::string tp = pointer_append(path, "Tolerance");
        const json& tj = spec["Tolerance"];
        if (r.is_object(tj, tp, "Tolerance")) {
            r.only_keys(tj, tp, {"Kind", "Ulp", "MaxTerms", "Terms", "Why"}, "Tolerance");
            if (tj.contains("Kind") && tj["Kind"].is_string()) e.tolerance.Kind = tj["Kind"].get<std::string>();
            if ((tj.contains("Kind") && !tj["Kind"].is_string()) ||
                (e.tolerance.Kind != "Bits" && e.tolerance.Kind != "Ulp" && e.tolerance.Kind != "Summed")) {
                r.diags.error(pointer_append(tp, "Kind"), "expected.tolerance", "Tolerance.Kind must be \"Bits\", \"Ulp\" or \"Summed\"");
                ok = false;
            }
            if (tj.contains("MaxTerms")) {
                if (auto m = r.unsigned_value(tj["MaxTerms"], pointer_append(tp, "MaxTerms"), uint64_t(1) << 32, "MaxTerms")) e.tolerance.MaxTerms = *m;
                else ok = false;
            }
            if (tj.contains("Ulp")) {
                if (auto u = r.unsigned_value(tj["Ulp"], pointer_append(tp, "Ulp"), uint64_t(1) << 53, "Ulp")) e.tolerance.Ulp = *u;
                else ok = false;
            }
            if (tj.contains("Terms")) {
                const std::string mp = pointer_append(tp, "Terms");
                if (!tj["Terms"].is_array() || tj["Terms"].size() != n) {
                    r.diags.error(mp, "expected.tolerance", "Tolerance.Terms must list one term count per logical element (" +
                                  std::to_string(n) + ")");
                    ok = false;
                } else for (size_t i = 0; i < n; ++i) {
                    if (auto m = r.unsigned_value(tj["Terms"][i], pointer_append(mp, i), uint64_t(1) << 32, "Terms")) e.tolerance.Terms.push_back(uint32_t(*m));
                    else ok = false;
                }
            }
            if (tj.contains("Why")) {
                if (tj["Why"].is_string()) e.tolerance.Why = tj["Why"].get<std::string>();
                else { r.diags.error(pointer_append(tp, "Why"), "case.type", "Tolerance.Why must be a string (the reason, for people)"); ok = false; }
            }
        } else ok = false;
    }
    if (spec.contains("DontCare")) {
        const std::string dp = pointer_append(path, "DontCare");
        const json& dj = spec["DontCare"];
        if (!dj.is_array()) { r.diags.error(dp, "expected.dont-care", "DontCare must be an array of {\"Index\": i, \"Reason\": \"...\"}"); ok = false; }
        else for (size_t i = 0; i < dj.size(); ++i) {
            const std::string ip = pointer_append(dp, i);
            if (!dj[i].is_object() || !dj[i].contains("Index") || !dj[i].contains("Reason") || !dj[i]["Reason"].is_string()) {
                r.diags.error(ip, "expected.dont-care", "a DontCare entry is {\"Index\": i, \"Reason\": \"...\"}");
                ok = false;
                continue;
            }
            r.only_keys(dj[i], ip, {"Index", "Reason"}, "a DontCare entry");
            auto idx = r.unsigned_value(dj[i]["Index"], pointer_append(ip, "Index"), n - 1, "Index");
            if (idx) e.dont_care.push_back({*idx, dj[i]["Reason"].get<std::string>()}); else ok = false;
        }
    }
    if (spec.contains("Boundary")) {
        const std::string bp = pointer_append(path, "Boundary");
        const json& bj = spec["Boundary"];
        if (!bj.is_object() || !bj.contains("Indices") || !bj["Indices"].is_array() || !bj.contains("Reason") ||
            !bj["Reason"].is_string()) {
            r.diags.error(bp, "expected.boundary", "Boundary is {\"Indices\": [i, ...], \"Reason\": \"...\"}");
            ok = false;
        } else {
            r.only_keys(bj, bp, {"Indices", "Reason"}, "Boundary");
            e.boundary.Reason = bj["Reason"].get<std::string>();
            for (size_t i = 0; i < bj["Indices"].size(); ++i) {
                auto idx = r.unsigned_value(bj["Indices"][i], pointer_append(pointer_append(bp, "Indices"), i), n - 1, "Index");
                if (idx) e.boundary.Indices.push_back(*idx); else ok = false;
            }
        }
    }
    if (ok) c.expected[std::string(f.name)] = std::move(e);
}


}  // namespace dmlref::case_reader
