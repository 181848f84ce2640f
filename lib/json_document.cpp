// Reading JSON text strictly: syntax, nesting depth, duplicate keys and -0 integer tokens are
// errors with a line and column or a JSON pointer; number texts are kept for exact rounding.
#include "dmlref/json_document.hpp"

#include <fstream>
#include <sstream>
#include <vector>

namespace dmlref {

namespace {

// Builds the DOM like nlohmann's own SAX DOM parser, and records number texts by pointer.
class Builder : public nlohmann::json_sax<json> {
public:
    explicit Builder(JsonDocument& doc) : doc_(doc) {}

    bool null() override { return put(json(nullptr)); }
    bool boolean(bool v) override { return put(json(v)); }
    bool number_integer(number_integer_t v) override { return put(json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
    bool number_float(number_float_t v, const string_t& s) override {
        doc_.number_text.emplace(pointer(), s);
        return put(json(v));
    }
    bool string(string_t& v) override { return put(json(v)); }
    bool binary(binary_t&) override { return false; }
    bool start_object(std::size_t) override {
        if (too_deep()) return false;
        json* j = place(json::object());
        stack_.push_back({j, "", 0});
        return true;
    }
    bool key(string_t& k) override {
        if (stack_.back().node->contains(k)) {
            // JSON readers disagree on which duplicate wins (the first, the last, an error).
            error_rule = "json.duplicate-key";
            stack_.back().key = k;
            error_path = pointer();
            error_message = "the key \"" + k + "\" appears twice in this object; JSON readers disagree on which one counts, "
                            "so a case states each key once";
            return false;
        }
        stack_.back().key = k;
        return true;
    }
    bool end_object() override { stack_.pop_back(); advance(); return true; }
    bool start_array(std::size_t) override {
        if (too_deep()) return false;
        json* j = place(json::array());
        stack_.push_back({j, "", 0});
        return true;
    }
    bool end_array() override { stack_.pop_back(); advance(); return true; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
        error_position = position;
        error_message = ex.what();
        return false;
    }

    std::size_t error_position = 0;
    std::string error_message;
    std::string error_rule, error_path;  // set by a check of ours (depth, duplicate key)

private:
    bool too_deep() {
        if (stack_.size() < kMaxJsonDepth) return false;
        error_rule = "json.depth";
        error_path = pointer();
        error_message = "arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) +
                        " deep here; a case needs a handful of levels";
        return true;
    }

    struct Frame { json* node; std::string key; size_t index; };

    std::string pointer() const {
        std::string p;
        for (const auto& f : stack_)
            p = f.node->is_object() ? pointer_append(p, f.key) : pointer_append(p, f.index);
        return p;
    }
    json* place(json v) {
        if (stack_.empty()) { doc_.root = std::move(v); return &doc_.root; }
        Frame& f = stack_.back();
        if (f.node->is_object()) return &((*f.node)[f.key] = std::move(v));
        f.node->push_back(std::move(v));
        return &f.node->back();
    }
    void advance() {
        if (!stack_.empty() && stack_.back().node->is_array()) ++stack_.back().index;
    }
    bool put(json v) {
        place(std::move(v));
        advance();
        return true;
    }

    JsonDocument& doc_;
    std::vector<Frame> stack_;
};

std::string line_column(const std::string& text, size_t position) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < position && i < text.size(); ++i) {
        if (text[i] == '\n') { ++line; column = 1; } else ++column;
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// "-0" as an integer token (not followed by '.', 'e' or 'E'), outside strings.
size_t find_negative_zero_integer(const std::string& text) {
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') { in_string = true; continue; }
        if (c == '-' && i + 1 < text.size() && text[i + 1] == '0') {
            const char next = i + 2 < text.size() ? text[i + 2] : ' ';
            if (next != '.' && next != 'e' && next != 'E' && !(next >= '0' && next <= '9')) return i;
        }
    }
    return std::string::npos;
}

[[noreturn]] void fail(std::string rule, std::string message, std::string path = "") {
    Diagnostics d;
    d.error(std::move(path), std::move(rule), std::move(message));
    throw CaseError(std::move(d));
}

}  // namespace

JsonDocument parse_json_text(const std::string& text) {
    const size_t negative_zero = find_negative_zero_integer(text);
    if (negative_zero != std::string::npos)
        fail("json.negative-zero-integer", "-0 at " + line_column(text, negative_zero) +
             " is an integer token, which JSON readers take as 0 and so lose the sign; write -0.0 for negative zero");
    JsonDocument doc;
    Builder b(doc);
    const bool ok = json::sax_parse(text, &b, json::input_format_t::json, /*strict=*/true);
    if (!ok && !b.error_rule.empty()) fail(b.error_rule, b.error_message, b.error_path);
    if (!ok) {
        std::string m = b.error_message;
        // nlohmann's message already says what it expected; add where, as line and column.
        fail("json.syntax", "not valid JSON at " + line_column(text, b.error_position ? b.error_position - 1 : 0) + ": " + m);
    }
    return doc;
}

JsonDocument read_json_file(const std::filesystem::path& file, uint64_t max_file_bytes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) fail("file.read", "cannot read the file: it does not exist or is not a regular file");
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) fail("file.read", "cannot read the file: " + ec.message());
    if (size > max_file_bytes)
        fail("limit.file-bytes", "the file has " + std::to_string(size) + " bytes, over the limit of " +
             std::to_string(max_file_bytes) + " for a case file (put large tensors in .npy files)");
    std::ifstream in(file, std::ios::binary);
    if (!in) fail("file.read", "cannot open the file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_json_text(ss.str());
}

ValueToken JsonDocument::token(const json& node, const std::string& pointer) const {
    ValueToken t;
    if (node.is_number_unsigned()) { t.kind = ValueToken::Kind::Unsigned; t.unsigned_ = node.get<uint64_t>(); }
    else if (node.is_number_integer()) { t.kind = ValueToken::Kind::Integer; t.integer = node.get<int64_t>(); }
    else if (node.is_number_float()) {
        t.kind = ValueToken::Kind::Number;
        auto it = number_text.find(pointer);
        // Documents built in memory (not read from text) have no recorded text: use the double.
        if (it != number_text.end()) t.text = it->second;
        else { t.text = json(node).dump(); }
    } else if (node.is_string()) { t.kind = ValueToken::Kind::String; t.text = node.get<std::string>(); }
    return t;
}

}  // namespace dmlref
