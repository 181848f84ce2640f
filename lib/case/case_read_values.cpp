// Reading a case's input buffers (arrays, Fill, Iota, Random, Npy) and its expected outputs
// (values, tolerance, don't-care and boundary elements), docs/case-format.md.
#include "case/case_reader.hpp"
#include "case/case_notation.hpp"
#include "case/json_tokens.hpp"
#include "case/path_inside.hpp"

#include <charconv>

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
                              (needed == capacity ? std::to_string(needed)
                                                  : std::to_string(needed) + " to " + std::to_string(capacity)) +
                              " values (in memory order)");
            return false;
        }
        return true;
    };

    if (r.is_array(spec)) {
        const size_t n = r.array_size(spec);
        if (!count_ok(n, path)) return;
        if (!r.values(t, spec, path, true, buffer.data())) return;
        // The author's notation, unless a decimal had to be rounded: then the exact values, so
        // that a golden never warns.
        std::string tokens;
        const bool rounded = inexact_under(r.diags, path, diags_before);
        const PackedArray* a = r.doc.packed(spec);
        for (size_t i = 0; i < n; ++i) {
            if (i) tokens += '\0';
            if (rounded) tokens += format_exact_value(t, load_bits(t, buffer.data() + i * width));
            else if (a)
                tokens += a->kinds[i] == PackedArray::String ? json(a->text_at(i)).dump() : std::string(a->text_at(i));
            else {
                const ValueToken tk = r.doc.token(spec[i], pointer_append(path, i));
                switch (tk.kind) {
                    case ValueToken::Kind::Unsigned: tokens += std::to_string(tk.unsigned_); break;
                    case ValueToken::Kind::Integer: tokens += std::to_string(tk.integer); break;
                    case ValueToken::Kind::String: tokens += json(tk.text).dump(); break;
                    default: tokens += tk.text;
                }
            }
        }
        canonical = json_tokens<json>(std::move(tokens));
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
                        r.diags.error(
                            p, "input.iota-range",
                            "Iota element " + std::to_string(i) + " is outside the range of " + std::string(name(t)));
                        ok = false;
                        return;
                    }
                    v = T(x);
                }
                store_bits(t, buffer.data() + i * width, uint64_t(to_bits(v)));
            }
        });
        if (!ok) return;
        canonical = {
            {"Iota",
             {{"Start", json_raw(format_exact_value(t, *start))}, {"Step", json_raw(format_exact_value(t, *step))}}}};
    } else if (spec.is_object() && spec.size() == 1 && spec.contains("Random")) {
        const std::string p = pointer_append(path, "Random");
        const json& rs = spec["Random"];
        if (!r.is_object(rs, p, "Random")) return;
        r.only_keys(rs, p, {"Seed", "Distribution", "Min", "Max", "SpecialFraction"}, "Random");
        RandomSpec g;
        bool ok = true;
        if (!rs.contains("Seed")) {
            r.diags.error(p, "case.missing-field", "Random needs a Seed (an unsigned 64-bit integer)");
            return;
        }
        if (auto s = r.unsigned_value(rs["Seed"], pointer_append(p, "Seed"), std::numeric_limits<uint64_t>::max(),
                                      "Seed"))
            g.Seed = *s;
        else return;
        g.Distribution = is_float(t) ? "Uniform" : "Integers";
        if (rs.contains("Distribution") && rs["Distribution"].is_string())
            g.Distribution = rs["Distribution"].get<std::string>();
        if ((rs.contains("Distribution") && !rs["Distribution"].is_string()) ||
            (g.Distribution != "Uniform" && g.Distribution != "Integers")) {
            r.diags.error(pointer_append(p, "Distribution"), "input.random-distribution",
                          "Distribution must be \"Uniform\" or \"Integers\"");
            return;
        }
        if (g.Distribution == "Uniform" && !is_float(t)) {
            r.diags.error(pointer_append(p, "Distribution"), "input.random-distribution",
                          "Uniform is for float types; use \"Integers\" for " + std::string(name(t)));
            return;
        }
        json canon_random = {{"Seed", g.Seed}, {"Distribution", g.Distribution}};
        if (g.Distribution == "Uniform") {
            for (auto [key, dst, def] : {std::tuple{"Min", &g.Min, -1.0}, std::tuple{"Max", &g.Max, 1.0}}) {
                *dst = def;
                if (rs.contains(key)) {
                    auto b = r.value(DataType::FLOAT64, rs[key], pointer_append(p, key), false);
                    if (!b) {
                        ok = false;
                        continue;
                    }
                    *dst = from_bits<double>(*b);
                    if (!std::isfinite(*dst)) {
                        r.diags.error(pointer_append(p, key), "input.random-range",
                                      std::string(key) + " must be finite");
                        ok = false;
                    }
                }
                canon_random[key] = json_raw(format_value(DataType::FLOAT64, to_bits(*dst)));
            }
            if (ok && !(g.Min <= g.Max)) {
                r.diags.error(p, "input.random-range", "Min must not exceed Max");
                ok = false;
            }
        } else {
            int128_t lo = 0, hi = 0;
            for (auto [key, dst] : {std::pair{"Min", &lo}, std::pair{"Max", &hi}}) {
                if (!rs.contains(key)) {
                    r.diags.error(p, "case.missing-field", std::string("Integers needs ") + key);
                    ok = false;
                    continue;
                }
                auto b = r.value(DataType::INT64, rs[key], pointer_append(p, key), false);
                if (!b) {
                    ok = false;
                    continue;
                }
                *dst = int64_t(*b);
                canon_random[key] = json_raw(format_value(DataType::INT64, *b));
            }
            if (ok) {
                // Min and Max must be values of the type (every integer between them is then one too).
                int128_t tmin, tmax;
                dispatch(t, [&]<class T>() {
                    if constexpr (std::is_integral_v<T>) {
                        tmin = std::numeric_limits<T>::min();
                        tmax = std::numeric_limits<T>::max();
                    } else {
                        const int bits = std::numeric_limits<T>::digits;
                        tmax = int128_t(1) << bits;
                        tmin = -tmax;
                    }
                });
                if (lo > hi || lo < tmin || hi > tmax) {
                    r.diags.error(p, "input.random-range",
                                  "Integers needs Min <= Max, both exactly representable in " + std::string(name(t)));
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
                r.diags.error(pointer_append(p, "SpecialFraction"), "input.random-range",
                              "SpecialFraction must be from 0 to 1");
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
        if (!spec["Npy"].is_string()) {
            r.diags.error(p, "case.type", "Npy must be a file name (relative to the case file)");
            return;
        }
        const std::string npy_name = spec["Npy"].get<std::string>();
        if (!npy_path_ok(r, npy_name, p, base_dir, options, "input.npy-path")) return;
        const fs::path file = base_dir / npy_name;
        try {
            NpyArray a = read_npy(file, options.max_bytes);
            if (a.data_type != t) {
                r.diags.error(p, "input.npy-dtype",
                              file.string() + " holds " + npy_dtype(a.data_type) + " (" +
                                  std::string(name(a.data_type)) + ") but " + std::string(f.name) + ".DataType is " +
                                  std::string(name(t)));
                return;
            }
            if (!count_ok(a.data.size() / width, p)) return;
            if (a.data.size() == buffer.size()) buffer = std::move(a.data);  // no copy
            else std::copy(a.data.begin(), a.data.end(), buffer.begin());
        } catch (const NpyError& e) {
            r.diags.error(p, "input.npy", file.string() + ": " + e.what());
            return;
        }
        canonical = {{"Npy", fs::absolute(file).lexically_normal().string()}};  // made relative on writing
    } else {
        r.diags.error(
            path, "input.form",
            "an input is an array of values (memory order), or one of {\"Fill\": v}, "
            "{\"Iota\": {\"Start\": a, \"Step\": d}}, {\"Random\": {\"Seed\": n, ...}}, {\"Npy\": \"file.npy\"}");
        return;
    }
    // Values and Fill/Iota keep the author's notation (raw bits stay bits), unless a decimal had to
    // be rounded: then the exact values are written, so a golden never warns. Generators stay canonical.
    if ((spec.contains("Fill") || spec.contains("Iota")) && !inexact_under(r.diags, path, diags_before))
        canonical = with_number_text<json>(r.doc, spec, path);
    c.inputs[std::string(f.name)] = std::move(buffer);
    c.input_specs[std::string(f.name)] = std::move(canonical);
}

bool npy_path_ok(Reader& r, const std::string& npy_name, const std::string& p, const fs::path& base_dir,
                 const LoadOptions& options, const char* rule) {
    if (npy_name.empty() || npy_name.find('\0') != std::string::npos) {
        r.diags.error(p, rule, "the Npy file name is empty or holds a NUL byte");
        return false;
    }
    if (options.allow_paths) return true;
    // A case reads only inside its own folder tree: no absolute path, no .. climbing out,
    // no symbolic link leading out (docs/rules.md, input.npy-path).
    const bool inside = path_inside(base_dir, npy_name);
    if (!inside)
        r.diags.error(p, rule,
                      "\"" + npy_name + "\" leads outside the case's folder " + base_dir.string() +
                          " (an absolute path, .. or a symbolic link); a case reads files only inside its own folder "
                          "unless the command is given --allow-paths");
    return inside;
}

// ---- Arrays of tensor data ----------------------------------------------------------------

bool Reader::values(DataType t, const json& node, const std::string& path, bool warn_inexact, std::byte* out) {
    const size_t width = element_size(t);
    const PackedArray* a = doc.packed(node);
    bool ok = true;
    if (!a) {
        for (size_t i = 0; i < node.size(); ++i) {
            auto b = value(t, node[i], pointer_append(path, i), warn_inexact);
            if (b) store_bits(t, out + i * width, *b);
            else ok = false;
        }
        return ok;
    }
    for (size_t i = 0; i < a->size(); ++i) {
        uint64_t bits;
        if (quick_value(t, a->kinds[i], a->text_at(i), warn_inexact, bits)) {
            store_bits(t, out + i * width, bits);
            continue;
        }
        // The plain reading: rounded decimals (with their warning), "nan", raw bits, errors.
        const std::string p = pointer_append(path, i);
        const ValueToken tk = JsonDocument::token(*a, i);
        const ParsedValue v = parse_value(t, tk);
        if (!v.ok) {
            diags.error(p, "value.parse", v.error + " (as " + std::string(name(t)) + ")");
            ok = false;
            continue;
        }
        if (v.inexact && warn_inexact)
            diags.warning(p, "value.inexact",
                          tk.text + " is not exactly representable in " + std::string(name(t)) +
                              "; rounded to nearest-even, " + display_value(t, v.bits) + " (" + hex_bits(t, v.bits) +
                              ")");
        store_bits(t, out + i * width, v.bits);
    }
    return ok;
}

std::optional<uint64_t> Reader::unsigned_at(const json& node, size_t i, const std::string& path, uint64_t max,
                                            std::string_view what) {
    const PackedArray* a = doc.packed(node);
    if (!a) return unsigned_value(node[i], pointer_append(path, i), max, what);
    uint64_t v = 0;
    const std::string_view s = a->text_at(i);
    if (a->kinds[i] == PackedArray::Unsigned) {
        std::from_chars(s.data(), s.data() + s.size(), v);
        if (v <= max) return v;
    }
    const std::string shown = a->kinds[i] == PackedArray::String ? json(s).dump() : std::string(s);
    diags.error(pointer_append(path, i), "case.uint",
                std::string(what) + " must be an integer from 0 to " + std::to_string(max) + ", got " + shown);
    return std::nullopt;
}

// ---- Expected outputs --------------------------------------------------------------------

// An expected output in a .npy file beside the golden, checked against its SHA-256.
// The values of an output's .npy file, checked against its SHA-256, dtype and shape; false after an
// error at `p` (Npy) or `sp` (Sha256).
static bool read_npy_values(Diagnostics& diags, std::string_view output, const TensorDesc& d, const fs::path& file,
                            const std::string& sha256, const std::string& p, const std::string& sp, uint64_t max_bytes,
                            std::vector<std::byte>& values) {
    try {
        std::string hash;
        NpyArray a = read_npy(file, max_bytes, &hash);
        if (hash != sha256) {
            diags.error(
                sp, "expected.npy-checksum",
                file.string() + " has SHA-256 " + hash + ", not the " + sha256 +
                    " this golden states: the file changed after the golden was written (regenerate the golden, or restore the file)");
            return false;
        }
        if (a.data_type != d.DataType || a.shape != std::vector<uint64_t>(d.Sizes.begin(), d.Sizes.end())) {
            std::string shape;
            for (uint64_t x : a.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(x);
            diags.error(p, "expected.npy",
                        file.string() + " holds " + npy_dtype(a.data_type) + " of shape (" + shape + ")" + "; " +
                            std::string(output) + " is " + npy_dtype(d.DataType) + " of Sizes " + sizes_text(d.Sizes));
            return false;
        }
        values = std::move(a.data);
        return true;
    } catch (const NpyError& e) {
        diags.error(p, "expected.npy", file.string() + ": " + e.what());
        return false;
    }
}

// With LoadOptions::defer_expected_npy the file is named, checked for its name and path, and left
// for read_deferred_expected (c.deferred_expected); `deferred` is then set.
static bool read_expected_npy(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path,
                              const fs::path& base_dir, const LoadOptions& options, std::vector<std::byte>& values,
                              bool& deferred) {
    const std::string p = pointer_append(path, "Npy");
    if (!spec["Npy"].is_string()) {
        r.diags.error(p, "case.type", "Npy must be a file name (relative to the golden)");
        return false;
    }
    const std::string name = spec["Npy"].get<std::string>();
    const std::string sp = pointer_append(path, "Sha256");
    const json* sum = spec.contains("Sha256") ? &spec["Sha256"] : nullptr;
    if (!sum || !sum->is_string() || sum->get<std::string>().size() != 64 ||
        sum->get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos) {
        r.diags.error(sp, "expected.npy-checksum",
                      "an output in a .npy file needs \"Sha256\": the SHA-256 of the file's bytes, "
                      "64 lowercase hexadecimal digits");
        return false;
    }
    if (!npy_path_ok(r, name, p, base_dir, options, "expected.npy-path")) return false;
    const fs::path file = base_dir / name;
    if (options.defer_expected_npy) {
        c.deferred_expected.push_back(
            {std::string(f.name), file, sum->get<std::string>(), p, sp, options.max_bytes, 0, 0});
        deferred = true;
        return true;
    }
    return read_npy_values(r.diags, f.name, *f.desc, file, sum->get<std::string>(), p, sp, options.max_bytes, values);
}

void read_expected(Reader& r, Case& c, const TensorField& f, const json& spec, const std::string& path,
                   const fs::path& base_dir, const LoadOptions& options) {
    if (!r.is_object(spec, path, "an expected output")) return;
    // "Admissible" is read once the policies are (case_read.cpp, read_admissible).
    r.only_keys(spec, path, {"Values", "Npy", "Sha256", "Tolerance", "DontCare", "Boundary", "Admissible"},
                "an expected output");
    const TensorDesc& d = *f.desc;
    const DataType t = d.DataType;
    const uint64_t n = element_count(d);
    ExpectedOutput e;
    bool ok = true;
    const size_t first_diag = r.diags.items().size();
    bool deferred = false;
    if (spec.contains("Npy") && !spec.contains("Values")) {
        if (!read_expected_npy(r, c, f, spec, path, base_dir, options, e.values, deferred)) return;
    } else {
        if (!spec.contains("Values") || !r.is_array(spec["Values"]) || spec.contains("Npy")) {
            r.diags.error(path, "expected.values",
                          "an expected output needs \"Values\": its logical elements in row-major order "
                          "(or, for a large output, \"Npy\" and \"Sha256\": a .npy file beside the golden)");
            return;
        }
        const json& values = spec["Values"];
        const std::string vp = pointer_append(path, "Values");
        if (r.array_size(values) != n) {
            r.diags.error(vp, "expected.count",
                          std::to_string(r.array_size(values)) + " values given; " + std::string(f.name) + " has " +
                              std::to_string(n) + " logical elements (listed in row-major order of Sizes)");
            return;
        }
        e.values.resize(n * element_size(t));
        ok = r.values(t, values, vp, false, e.values.data());
    }
    if (spec.contains("Tolerance")) {
        const std::string tp = pointer_append(path, "Tolerance");
        const json& tj = spec["Tolerance"];
        if (r.is_object(tj, tp, "Tolerance")) {
            r.only_keys(tj, tp, {"Kind", "Ulp", "MaxTerms", "Terms", "Why"}, "Tolerance");
            if (tj.contains("Kind") && tj["Kind"].is_string()) e.tolerance.Kind = tj["Kind"].get<std::string>();
            if ((tj.contains("Kind") && !tj["Kind"].is_string()) ||
                (e.tolerance.Kind != "Bits" && e.tolerance.Kind != "Ulp" && e.tolerance.Kind != "Summed")) {
                r.diags.error(pointer_append(tp, "Kind"), "expected.tolerance",
                              "Tolerance.Kind must be \"Bits\", \"Ulp\" or \"Summed\"");
                ok = false;
            }
            if (tj.contains("MaxTerms")) {
                if (auto m = r.unsigned_value(tj["MaxTerms"], pointer_append(tp, "MaxTerms"), uint64_t(1) << 32,
                                              "MaxTerms"))
                    e.tolerance.MaxTerms = *m;
                else ok = false;
            }
            if (tj.contains("Ulp")) {
                if (auto u = r.unsigned_value(tj["Ulp"], pointer_append(tp, "Ulp"), uint64_t(1) << 53, "Ulp"))
                    e.tolerance.Ulp = *u;
                else ok = false;
            }
            if (tj.contains("Terms")) {
                const std::string mp = pointer_append(tp, "Terms");
                if (!r.is_array(tj["Terms"]) || r.array_size(tj["Terms"]) != n) {
                    r.diags.error(
                        mp, "expected.tolerance",
                        "Tolerance.Terms must list one term count per logical element (" + std::to_string(n) + ")");
                    ok = false;
                } else
                    for (size_t i = 0; i < n; ++i) {
                        if (auto m = r.unsigned_at(tj["Terms"], i, mp, uint64_t(1) << 32, "Terms"))
                            e.tolerance.Terms.push_back(uint32_t(*m));
                        else ok = false;
                    }
            }
            if (tj.contains("Why")) {
                if (tj["Why"].is_string()) e.tolerance.Why = tj["Why"].get<std::string>();
                else {
                    r.diags.error(pointer_append(tp, "Why"), "case.type",
                                  "Tolerance.Why must be a string (the reason, for people)");
                    ok = false;
                }
            }
        } else ok = false;
    }
    if (spec.contains("DontCare")) {
        const std::string dp = pointer_append(path, "DontCare");
        const json& dj = spec["DontCare"];
        if (!dj.is_array()) {
            r.diags.error(dp, "expected.dont-care", "DontCare must be an array of {\"Index\": i, \"Reason\": \"...\"}");
            ok = false;
        } else
            for (size_t i = 0; i < dj.size(); ++i) {
                const std::string ip = pointer_append(dp, i);
                if (!dj[i].is_object() || !dj[i].contains("Index") || !dj[i].contains("Reason") ||
                    !dj[i]["Reason"].is_string()) {
                    r.diags.error(ip, "expected.dont-care", "a DontCare entry is {\"Index\": i, \"Reason\": \"...\"}");
                    ok = false;
                    continue;
                }
                r.only_keys(dj[i], ip, {"Index", "Reason"}, "a DontCare entry");
                auto idx = r.unsigned_value(dj[i]["Index"], pointer_append(ip, "Index"), n - 1, "Index");
                if (idx) e.dont_care.push_back({*idx, dj[i]["Reason"].get<std::string>()});
                else ok = false;
            }
    }
    if (spec.contains("Boundary")) {
        const std::string bp = pointer_append(path, "Boundary");
        const json& bj = spec["Boundary"];
        if (!bj.is_object() || !bj.contains("Indices") || !r.is_array(bj["Indices"]) || !bj.contains("Reason") ||
            !bj["Reason"].is_string()) {
            r.diags.error(bp, "expected.boundary", "Boundary is {\"Indices\": [i, ...], \"Reason\": \"...\"}");
            ok = false;
        } else {
            r.only_keys(bj, bp, {"Indices", "Reason"}, "Boundary");
            e.boundary.Reason = bj["Reason"].get<std::string>();
            for (size_t i = 0; i < r.array_size(bj["Indices"]); ++i) {
                auto idx = r.unsigned_at(bj["Indices"], i, pointer_append(bp, "Indices"), n - 1, "Index");
                if (idx) e.boundary.Indices.push_back(*idx);
                else ok = false;
            }
        }
    }
    if (ok) c.expected[std::string(f.name)] = std::move(e);
    if (deferred) {  // the diagnostics this output gave, which an error of its file replaces (as if read here)
        c.deferred_expected.back().first_diag = first_diag;
        c.deferred_expected.back().end_diag = r.diags.items().size();
    }
}

}  // namespace dmlref::case_reader

namespace dmlref {

void read_deferred_expected(Case& c, Diagnostics& diags) {
    // Last first, so that the diagnostic ranges of the earlier ones stay where they were.
    for (auto it = c.deferred_expected.rbegin(); it != c.deferred_expected.rend(); ++it) {
        const auto& x = *it;
        const TensorDesc* d = nullptr;
        for (const auto& f : tensor_fields(c.op))
            if (f.name == x.output) d = f.desc;
        Diagnostics errors;
        std::vector<std::byte> values;
        if (d && case_reader::read_npy_values(errors, x.output, *d, x.file, x.sha256, x.npy_path, x.sha256_path,
                                              x.max_bytes, values)) {
            if (auto e = c.expected.find(x.output); e != c.expected.end()) e->second.values = std::move(values);
        } else {
            c.expected.erase(x.output);
            diags.replace(x.first_diag, x.end_diag, errors);
        }
    }
    c.deferred_expected.clear();
}

}  // namespace dmlref
