// Writing JSON text deterministically (two-space indent, arrays of scalars filled to 100
// columns), in one buffer: a value's one-line width is measured, never built, before it is laid out.
#include "case/json_writer.hpp"

#include "case/json_values.hpp"

#include <algorithm>
#include <cstring>

namespace dmlref {

namespace {

constexpr size_t kWidth = 100;

bool is_raw(const ordered_json& j) {
    return j.is_string() && !j.get_ref<const std::string&>().empty() && j.get_ref<const std::string&>()[0] == '\x1f';
}

bool is_tokens(const ordered_json& j) {
    return j.is_binary() && j.get_binary().has_subtype() && j.get_binary().subtype() == kJsonTokenList;
}

bool is_view(const ordered_json& j) {
    return j.is_binary() && j.get_binary().has_subtype() && j.get_binary().subtype() == kJsonValueView;
}

bool is_list(const ordered_json& j) { return is_tokens(j) || is_view(j); }

bool is_scalar(const ordered_json& j) { return !j.is_object() && !j.is_array() && !is_list(j); }

void scalar(std::string& out, const ordered_json& j) {
    if (is_raw(j)) out.append(j.get_ref<const std::string&>(), 1);
    else out += j.dump();
}

size_t scalar_size(const ordered_json& j) {
    return is_raw(j) ? j.get_ref<const std::string&>().size() - 1 : j.dump().size();
}

std::string key_text(const std::string& k) { return ordered_json(k).dump(); }

// What a value view (json_value_view) refers to.
struct View {
    DataType type;
    const std::byte* data;
    uint64_t count;
};

View view_of(const ordered_json& j) {
    const auto& b = j.get_binary();
    uint64_t address = 0, size = 0;
    std::memcpy(&address, b.data() + 1, sizeof address);
    std::memcpy(&size, b.data() + 1 + sizeof address, sizeof size);
    const DataType t = DataType(b[0]);
    return {t, reinterpret_cast<const std::byte*>(uintptr_t(address)), size / element_size(t)};
}

// Calls f(text) for each element of a token list or value view, until f returns false.
template <class F> void for_each_text(const ordered_json& j, F&& f) {
    if (is_view(j)) {
        const View v = view_of(j);
        const size_t w = element_size(v.type);
        const ValueFormatter format(v.type, v.count);
        char buf[64];
        std::string spill;
        auto each = [&]<class U>(U) {  // the elements as unsigned integers of their width (little-endian bytes)
            for (uint64_t i = 0; i < v.count; ++i) {
                U bits;
                std::memcpy(&bits, v.data + i * w, sizeof bits);
                if (!f(format.text(bits, buf, spill))) return;
            }
        };
        switch (w) {
            case 1: each(uint8_t()); break;
            case 2: each(uint16_t()); break;
            case 4: each(uint32_t()); break;
            default: each(uint64_t()); break;
        }
        return;
    }
    const auto& b = j.get_binary();
    const char* p = reinterpret_cast<const char*>(b.data());
    const char* e = p + b.size();
    while (p < e) {
        const char* t = p;
        p = static_cast<const char*>(std::memchr(p, 0, size_t(e - p)));
        if (!p) p = e;
        if (!f(std::string_view(t, size_t(p - t)))) return;
        if (p < e) ++p;
    }
}

// The width of the value on one line, or something over `limit` once it is known to be.
size_t compact_size(const ordered_json& j, size_t limit) {
    if (is_tokens(j)) {
        const size_t bytes = j.get_binary().size();
        if (bytes > limit) return bytes + 2;
        return bytes == 0 ? 2
                          : 2 + bytes + std::count(j.get_binary().begin(), j.get_binary().end(), 0);  // "\0" -> ", "
    }
    if (is_view(j)) {
        const uint64_t count = view_of(j).count;
        if (count > limit) return 3 * count;  // a character and a separator each, at least
        size_t n = 2;
        bool first = true;
        for_each_text(j, [&](std::string_view t) {
            n += (first ? 0 : 2) + t.size();
            first = false;
            return n <= limit;
        });
        return n;
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

// At least the length of the text `write` makes of j (indented by `indent`), to reserve it once.
size_t text_bound(const ordered_json& j, size_t indent) {
    if (is_view(j)) {
        const View v = view_of(j);
        const size_t widest = 26;  // a value's text: 24 for FLOAT64, 22 for a quoted 64-bit integer
        const size_t per_line = std::max<size_t>(1, (kWidth - std::min(kWidth, indent + 2)) / (widest + 2));
        return 4 + v.count * (widest + 2) + (v.count / per_line + 2) * (indent + 4);
    }
    if (is_tokens(j)) {
        const size_t bytes = j.get_binary().size();
        return 4 + 2 * bytes + (bytes + 2) * (indent + 4);  // at worst one one-byte token per line
    }
    if (is_scalar(j)) return scalar_size(j) + 2;
    size_t n = 4 + indent;
    for (auto it = j.begin(); it != j.end(); ++it)
        n += indent + 8 + (j.is_object() ? key_text(it.key()).size() : 0) + text_bound(it.value(), indent + 2);
    return n;
}

// The whole value on one line.
void compact(std::string& out, const ordered_json& j) {
    if (is_list(j)) {
        out += '[';
        bool first = true;
        for_each_text(j, [&](std::string_view t) {
            if (!first) out += ", ";
            out += t;
            first = false;
            return true;
        });
        out += ']';
        return;
    }
    if (is_scalar(j)) {
        scalar(out, j);
        return;
    }
    bool first = true;
    if (j.is_array()) {
        out += '[';
        for (const auto& v : j) {
            if (!first) out += ", ";
            compact(out, v);
            first = false;
        }
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

// Scalars filled into lines of at most kWidth columns (a lone long token may pass it), through
// a small buffer (one append per 4 KiB, not three per value). finish() flushes it.
struct Filler {
    Filler(std::string& o, const std::string& p, size_t c) : out(o), pad(p), col(c) {}
    std::string& out;
    const std::string& pad;
    size_t col;
    bool first = true;
    char buf[4096];
    size_t len = 0;
    void flush() {
        out.append(buf, len);
        len = 0;
    }
    void add(std::string_view s) {
        const size_t most = 2 + pad.size() + s.size();  // separator, line break and indent, token
        if (len + most > sizeof buf) {
            flush();
            if (most > sizeof buf) {  // a token longer than the buffer: straight into `out`
                if (!first) {
                    if (col + 2 + s.size() > kWidth) {
                        out += ",\n";
                        out += pad;
                        col = pad.size();
                    } else {
                        out += ", ";
                        col += 2;
                    }
                }
                out += s;
                col += s.size();
                first = false;
                return;
            }
        }
        char* p = buf + len;
        if (!first) {
            *p++ = ',';
            if (col + 2 + s.size() > kWidth) {
                *p++ = '\n';
                std::memcpy(p, pad.data(), pad.size());
                p += pad.size();
                col = pad.size();
            } else {
                *p++ = ' ';
                col += 2;
            }
        }
        std::memcpy(p, s.data(), s.size());
        p += s.size();
        len = size_t(p - buf);
        col += s.size();
        first = false;
    }
    void finish() { flush(); }
};

void write(std::string& out, const ordered_json& j, size_t indent, size_t column) {
    if (is_scalar(j) || column + compact_size(j, kWidth) <= kWidth) {
        compact(out, j);
        return;
    }
    const std::string pad(indent + 2, ' ');
    if (is_list(j)) {
        out += "[\n" + pad;
        Filler fill{out, pad, pad.size()};
        for_each_text(j, [&](std::string_view t) {
            fill.add(t);
            return true;
        });
        fill.finish();
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
        fill.finish();
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
    out.reserve(text_bound(j, 0) + 1);  // pages are touched only as the text fills them
    write(out, j, 0, 0);
    out += "\n";
    return out;
}

}  // namespace dmlref
