#include "json_writer.hpp"

namespace dmlref {

namespace {

constexpr size_t kWidth = 100;

bool is_raw(const ordered_json& j) {
    return j.is_string() && !j.get_ref<const std::string&>().empty() && j.get_ref<const std::string&>()[0] == '\x1f';
}

std::string scalar(const ordered_json& j) {
    if (is_raw(j)) return j.get_ref<const std::string&>().substr(1);
    return j.dump();
}

bool is_scalar(const ordered_json& j) { return !j.is_object() && !j.is_array(); }

// The whole value on one line.
std::string compact(const ordered_json& j) {
    if (is_scalar(j)) return scalar(j);
    std::string s;
    if (j.is_array()) {
        s = "[";
        bool first = true;
        for (const auto& v : j) { s += (first ? "" : ", ") + compact(v); first = false; }
        return s + "]";
    }
    s = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        s += (first ? "" : ", ") + ordered_json(it.key()).dump() + ": " + compact(it.value());
        first = false;
    }
    return s + "}";
}

void write(std::string& out, const ordered_json& j, size_t indent, size_t column) {
    const std::string c = compact(j);
    if (is_scalar(j) || column + c.size() <= kWidth) { out += c; return; }
    const std::string pad(indent + 2, ' ');
    if (j.is_array()) {
        bool all_scalar = true;
        for (const auto& v : j) all_scalar = all_scalar && is_scalar(v);
        out += "[\n" + pad;
        size_t col = pad.size();
        bool first = true;
        for (const auto& v : j) {
            if (all_scalar) {
                const std::string s = scalar(v);
                if (!first) {
                    out += ",";
                    if (col + 2 + s.size() > kWidth) { out += "\n" + pad; col = pad.size(); }
                    else { out += " "; col += 2; }
                }
                out += s;
                col += s.size();
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
        const std::string key = ordered_json(it.key()).dump() + ": ";
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
