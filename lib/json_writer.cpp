// Writing JSON text deterministically (two-space indent, arrays of scalars filled to 100
// columns), in one buffer: a value's one-line width is measured, never built, before it is laid out.
#include "json_writer.hpp"

#include <algorithm>

namespace dmlref {

namespace {

constexpr size_t kWidth = 100;

bool is_raw(const ordered_json& j) {
    return j.is_string() && !j.get_ref<const std::string&>().empty() && j.get_ref<const std::string&>()[0] == '\x1f';
}

bool is_tokens(const ordered_json& j) {
    return j.is_binary() && j.get_binary().has_subtype() && j.get_binary().subtype() == kJsonTokenList;
}

bool is_scalar(const ordered_json& j) { return !j.is_object() && !j.is_array() && !is_tokens(j); }

void scalar(std::string& out, const ordered_json& j) {
    if (is_raw(j)) out.append(j.get_ref<const std::string&>(), 1);
    else out += j.dump();
}

size_t scalar_size(const ordered_json& j) { return is_raw(j) ? j.get_ref<const std::string&>().size() - 1 : j.dump().size(); }

std::string key_text(const std::string& k) { return ordered_json(k).dump(); }

// Calls f(token) for each token of a token list.
template <class F> void for_each_token(const ordered_json& j, F&& f) {
    const auto& b = j.get_binary();
    const char* p = reinterpret_cast<const char*>(b.data());
    const char* e = p + b.size();
    while (p < e) {
        const char* t = p;
        while (p < e && *p) ++p;
        f(std::string_view(t, size_t(p - t)));
        if (p < e) ++p;
    }
}

// The width of the value on one line, or something over `limit` once it is known to be.
size_t compact_size(const ordered_json& j, size_t limit) {
    if (is_tokens(j)) {
        const size_t bytes = j.get_binary().size();
        return bytes == 0 ? 2 : 2 + bytes + std::count(j.get_binary().begin(), j.get_binary().end(), 0);  // "\0" -> ", "
    }
    if (is_scalar(j)) return scalar_size(j);
    size_t n = 2;
    bool first = true;
    if (j.is_array()) {
        for (const auto& v : j) {
            n += (first ? 0 : 2) + compact_size(v, limit);
            first = false;
            if (n > limit) return n;
        }
        return n;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        n += (first ? 0 : 2) + key_text(it.key()).size() + 2 + compact_size(it.value(), limit);
        first = false;
        if (n > limit) return n;
    }
    return n;
}

// The whole value on one line.
void compact(std::string& out, const ordered_json& j) {
    if (is_tokens(j)) {
        out += '[';
        bool first = true;
        for_each_token(j, [&](std::string_view t) { if (!first) out += ", "; out += t; first = false; });
        out += ']';
        return;
    }
    if (is_scalar(j)) { scalar(out, j); return; }
    bool first = true;
    if (j.is_array()) {
        out += '[';
        for (const auto& v : j) { if (!first) out += ", "; compact(out, v); first = false; }
        out += ']';
        return;
    }
    out += '{';
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ", ";
        out += key_text(it.key());
        out += ": ";
        compact(out, it.value());
        first = false;
    }
    out += '}';
}

// Scalars filled into lines of at most kWidth columns (a lone long token may pass it).
struct Filler {
    std::string& out;
    const std::string& pad;
    size_t col;
    bool first = true;
    void add(std::string_view s) {
        if (!first) {
            out += ',';
            if (col + 2 + s.size() > kWidth) { out += '\n'; out += pad; col = pad.size(); }
            else { out += ' '; col += 2; }
        }
        out += s;
        col += s.size();
        first = false;
    }
};

void write(std::string& out, const ordered_json& j, size_t indent, size_t column) {
    if (is_scalar(j) || column + compact_size(j, kWidth) <= kWidth) { compact(out, j); return; }
    const std::string pad(indent + 2, ' ');
    if (is_tokens(j)) {
        out += "[\n" + pad;
        Filler fill{out, pad, pad.size()};
        for_each_token(j, [&](std::string_view t) { fill.add(t); });
        out += "\n" + std::string(indent, ' ') + "]";
        return;
    }
    if (j.is_array()) {
        bool all_scalar = true;
        for (const auto& v : j) all_scalar = all_scalar && is_scalar(v);
        out += "[\n" + pad;
        Filler fill{out, pad, pad.size()};
        std::string s;
        bool first = true;
        for (const auto& v : j) {
            if (all_scalar) {
                s.clear();
                scalar(s, v);
                fill.add(s);
            } else {
                if (!first) out += ",\n" + pad;
                write(out, v, indent + 2, pad.size());
            }
            first = false;
        }
        out += "\n" + std::string(indent, ' ') + "]";
        return;
    }
    out += "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ",\n";
        const std::string key = key_text(it.key()) + ": ";
        out += pad + key;
        write(out, it.value(), indent + 2, pad.size() + key.size());
        first = false;
    }
    out += "\n" + std::string(indent, ' ') + "}";
}

}  // namespace

std::string dump_json(const ordered_json& j) {
    std::string out;
    write(out, j, 0, 0);
    out += "\n";
    return out;
}

}  // namespace dmlref
