// Parsing JSON text strictly and fast (RFC 8259): syntax errors with line and column, nesting
// depth, duplicate keys and -0 integer tokens are errors; number texts are kept for exact
// rounding; a case's tensor data is kept as packed arrays of tokens, not one node per value.
#include "dmlref/json_document.hpp"

#include "case_fail.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace dmlref {

namespace {

struct SyntaxError {
    size_t position;
    std::string message;
};

struct RuleError {
    std::string rule, path, message;
};

// Whether the path (keys from the root) is one whose scalar array is tensor data.
bool tensor_data_path(const std::vector<std::string>& keys) {
    const size_t n = keys.size();
    if (n == 2 && keys[0] == "inputs") return true;
    if (n < 3 || keys[0] != "expected") return false;
    if (n == 3) return keys[2] == "Values";
    if (n == 4)
        return (keys[2] == "Tolerance" && keys[3] == "Terms") || (keys[2] == "Boundary" && keys[3] == "Indices");
    return false;
}

class Parser {
public:
    Parser(std::string_view text, JsonDocument& doc, const JsonReadOptions& o)
        : b_(text.data()), p_(text.data()), e_(text.data() + text.size()), doc_(doc), o_(o) {}

    void run() {
        if (e_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;  // a UTF-8 byte order mark
        ws();
        if (p_ == e_) fail("the text is empty; a case is a JSON object");
        doc_.root = value(0);
        ws();
        if (p_ != e_) fail("unexpected text after the end of the JSON value");
    }

private:
    [[noreturn]] void fail(std::string m) { throw SyntaxError{size_t(p_ - b_), std::move(m)}; }
    [[noreturn]] void fail_rule(std::string rule, std::string m) {
        throw RuleError{std::move(rule), pointer_, std::move(m)};
    }

    void ws() {
        while (p_ < e_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }
    void progress() {
        if (o_.progress && size_t(p_ - b_) >= next_progress_) {
            o_.progress(size_t(p_ - b_), size_t(e_ - b_));
            next_progress_ = size_t(p_ - b_) + (size_t(8) << 20);
        }
    }
    std::string what_here() const {
        if (p_ == e_) return "the end of the text";
        const unsigned char c = static_cast<unsigned char>(*p_);
        if (c >= 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02x", c);
        return std::string("the byte ") + buf;
    }

    // Pointer bookkeeping: pointer_ is the JSON pointer of the value being read.
    size_t push(std::string_view key) {
        const size_t n = pointer_.size();
        pointer_ = pointer_append(pointer_, key);
        keys_.emplace_back(key);
        return n;
    }
    size_t push(size_t index) {
        const size_t n = pointer_.size();
        pointer_ += '/';
        pointer_ += std::to_string(index);
        keys_.emplace_back();
        return n;
    }
    void pop(size_t n) {
        pointer_.resize(n);
        keys_.pop_back();
    }

    json value(size_t depth) {
        if (p_ == e_) fail("expected a value, found the end of the text");
        switch (*p_) {
            case '{': return object(depth);
            case '[': return array(depth);
            case '"': {
                std::string s;
                string(s);
                return json(std::move(s));
            }
            case 't': literal("true"); return json(true);
            case 'f': literal("false"); return json(false);
            case 'n': literal("null"); return json(nullptr);
            default: break;
        }
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
            PackedArray::Kind kind;
            const std::string_view t = number(kind);
            return number_node(t, kind);
        }
        fail("expected a value (an object, array, string, number, true, false or null), found " + what_here());
    }

    void literal(std::string_view word) {
        if (size_t(e_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
            fail("expected '" + std::string(word) + "', found " + what_here());
        p_ += word.size();
    }

    json object(size_t depth) {
        if (depth >= kMaxJsonDepth)
            fail_rule("json.depth", "arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) +
                                        " deep here; a case needs a handful of levels");
        ++p_;
        json o = json::object();
        ws();
        if (p_ < e_ && *p_ == '}') {
            ++p_;
            return o;
        }
        for (;;) {
            ws();
            if (p_ == e_ || *p_ != '"') fail("expected a key (a string) in the object, found " + what_here());
            std::string k;
            string(k);
            ws();
            if (p_ == e_ || *p_ != ':') fail("expected ':' after the key, found " + what_here());
            ++p_;
            ws();
            const size_t mark = push(k);
            if (o.contains(k))
                // JSON readers disagree on which duplicate wins (the first, the last, an error).
                fail_rule("json.duplicate-key", "the key \"" + k +
                                                    "\" appears twice in this object; JSON readers disagree on "
                                                    "which one counts, so a case states each key once");
            json v = (p_ < e_ && *p_ == '[' && o_.pack_tensors && tensor_data_path(keys_)) ? packable_array(depth + 1)
                                                                                           : value(depth + 1);
            o.emplace(std::move(k), std::move(v));
            pop(mark);
            ws();
            if (p_ < e_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ < e_ && *p_ == '}') {
                ++p_;
                return o;
            }
            fail("expected ',' or '}' in the object, found " + what_here());
        }
    }

    json array(size_t depth) {
        if (depth >= kMaxJsonDepth)
            fail_rule("json.depth", "arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) +
                                        " deep here; a case needs a handful of levels");
        ++p_;
        json a = json::array();
        ws();
        if (p_ < e_ && *p_ == ']') {
            ++p_;
            return a;
        }
        for (size_t i = 0;; ++i) {
            ws();
            const size_t mark = push(i);
            a.push_back(value(depth + 1));
            pop(mark);
            ws();
            progress();
            if (p_ < e_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ < e_ && *p_ == ']') {
                ++p_;
                return a;
            }
            fail("expected ',' or ']' in the array, found " + what_here());
        }
    }

    // An array of tensor data: scalars go into a PackedArray. When the first element is not a number
    // or a string, the array is read as ordinary nodes instead (from its start). A later one that
    // is not is read, kept as PackedArray::Other and the array stays packed: one null after 16M
    // numbers once made the reader build 16M nodes (3 GB) to report that null.
    json packable_array(size_t depth) {
        if (depth >= kMaxJsonDepth) return array(depth);
        const char* start = p_;
        ++p_;
        PackedArray a;
        ws();
        bool closed = p_ < e_ && *p_ == ']';
        if (closed) ++p_;
        std::string s;
        while (!closed) {
            ws();
            if (p_ < e_ && *p_ == '"') {
                s.clear();
                string(s);
                a.text += s;
                a.kinds.push_back(PackedArray::String);
            } else if (p_ < e_ && (*p_ == '-' || (*p_ >= '0' && *p_ <= '9'))) {
                PackedArray::Kind kind;
                const std::string_view t = number(kind);
                a.text += t;
                a.kinds.push_back(kind);
            } else if (a.kinds.empty()) {
                p_ = start;  // not scalars: an ordinary array
                return array(depth);
            } else {
                const json other = value(depth + 1);  // bounded by the file, and dropped
                a.text += other.is_null()      ? "null"
                          : other.is_boolean() ? (other.get<bool>() ? "true" : "false")
                          : other.is_object()  ? "an object"
                                               : "an array";
                a.kinds.push_back(PackedArray::Other);
            }
            if (a.text.size() > 0xffffffffu) fail("an array holds more than 4 GiB of text");
            a.ends.push_back(uint32_t(a.text.size()));
            ws();
            progress();
            if (p_ < e_ && *p_ == ',') {
                ++p_;
                continue;
            }
            if (p_ < e_ && *p_ == ']') {
                ++p_;
                closed = true;
                continue;
            }
            fail("expected ',' or ']' in the array, found " + what_here());
        }
        doc_.packed_arrays.push_back(std::move(a));
        return json::binary({}, doc_.packed_arrays.size() - 1);
    }

    // A number token by JSON's grammar; kind says how a reader takes it.
    std::string_view number(PackedArray::Kind& kind) {
        const char* s = p_;
        bool integer = true;
        if (*p_ == '-') ++p_;
        if (p_ == e_ || *p_ < '0' || *p_ > '9') fail("expected a digit after '-', found " + what_here());
        if (*p_ == '0') ++p_;
        else
            while (p_ < e_ && *p_ >= '0' && *p_ <= '9') ++p_;
        if (p_ < e_ && *p_ == '.') {
            integer = false;
            ++p_;
            if (p_ == e_ || *p_ < '0' || *p_ > '9')
                fail("expected a digit after the decimal point, found " + what_here());
            while (p_ < e_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        const char* exponent = nullptr;  // where an 'e' or 'E' is
        if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
            integer = false;
            exponent = p_++;
            if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ == e_ || *p_ < '0' || *p_ > '9') fail("expected a digit in the exponent, found " + what_here());
            while (p_ < e_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        const std::string_view t(s, size_t(p_ - s));
        if (!integer && t.size() > 4) {  // a float beyond double's range is an error, as in other strict readers
            // (an exponent of more than two digits, or a very long token; found while scanning: a
            // find_first_of here, one memchr per character, took 15% of reading a golden)
            if ((exponent != nullptr && size_t(exponent - s) + 3 < t.size()) || t.size() > 300) {
                if (!std::isfinite(std::strtod(std::string(t).c_str(), nullptr))) {
                    p_ = s;
                    fail("the number " + std::string(t.substr(0, 40)) +
                         " is beyond the range of a double (number overflow)");
                }
            }
        }
        if (integer && t == "-0") {
            p_ = s;
            throw RuleError{
                "json.negative-zero-integer", "",
                "-0 at " + line_column(size_t(s - b_)) +
                    " is an integer token, which JSON readers take as 0 and so lose the sign; write -0.0 for negative zero"};
        }
        kind = !integer ? PackedArray::Number : *s == '-' ? PackedArray::Integer : PackedArray::Unsigned;
        if (kind == PackedArray::Integer) {
            int64_t v;
            auto r = std::from_chars(t.data(), t.data() + t.size(), v);
            if (r.ec != std::errc{}) kind = PackedArray::Number;  // out of range: a number, like other JSON readers
        } else if (kind == PackedArray::Unsigned) {
            uint64_t v;
            auto r = std::from_chars(t.data(), t.data() + t.size(), v);
            if (r.ec != std::errc{}) kind = PackedArray::Number;
        }
        return t;
    }

    json number_node(std::string_view t, PackedArray::Kind kind) {
        if (kind == PackedArray::Integer) {
            int64_t v = 0;
            std::from_chars(t.data(), t.data() + t.size(), v);
            return json(v);
        }
        if (kind == PackedArray::Unsigned) {
            uint64_t v = 0;
            std::from_chars(t.data(), t.data() + t.size(), v);
            return json(v);
        }
        doc_.number_text.emplace(pointer_, std::string(t));
        double d;
        auto r = std::from_chars(t.data(), t.data() + t.size(), d);
        if (r.ec != std::errc{})
            d = std::strtod(std::string(t).c_str(), nullptr);  // out of range: inf or 0, as strtod gives
        return json(d);
    }

    static int hex(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
    unsigned hex4() {
        if (e_ - p_ < 4) fail("expected four hexadecimal digits after \\u");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = hex(p_[i]);
            if (h < 0) {
                p_ += i;
                fail("expected four hexadecimal digits after \\u, found " + what_here());
            }
            v = v * 16 + unsigned(h);
        }
        p_ += 4;
        return v;
    }
    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) out += char(cp);
        else if (cp < 0x800) {
            out += char(0xc0 | cp >> 6);
            out += char(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += char(0xe0 | cp >> 12);
            out += char(0x80 | (cp >> 6 & 0x3f));
            out += char(0x80 | (cp & 0x3f));
        } else {
            out += char(0xf0 | cp >> 18);
            out += char(0x80 | (cp >> 12 & 0x3f));
            out += char(0x80 | (cp >> 6 & 0x3f));
            out += char(0x80 | (cp & 0x3f));
        }
    }

    // A string token (p_ at its opening quote), unescaped into `out`; UTF-8 is checked.
    void string(std::string& out) {
        ++p_;
        for (;;) {
            const char* run = p_;
            while (p_ < e_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
                   static_cast<unsigned char>(*p_) < 0x80)
                ++p_;
            out.append(run, size_t(p_ - run));
            if (p_ == e_) fail("the string is not closed before the end of the text");
            const unsigned char c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                return;
            }
            if (c < 0x20)
                fail("a control character (" + what_here() +
                     ") inside a string must be written as an escape such as \\n or \\u0000");
            if (c == '\\') {
                ++p_;
                if (p_ == e_) fail("the string is not closed before the end of the text");
                const char x = *p_++;
                switch (x) {
                    case '"': out += '"'; break;
                    case '\\': out += '\\'; break;
                    case '/': out += '/'; break;
                    case 'b': out += '\b'; break;
                    case 'f': out += '\f'; break;
                    case 'n': out += '\n'; break;
                    case 'r': out += '\r'; break;
                    case 't': out += '\t'; break;
                    case 'u': {
                        unsigned cp = hex4();
                        if (cp >= 0xdc00 && cp <= 0xdfff)
                            fail("\\u escape of a low surrogate without a high surrogate before it");
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                            if (e_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                                fail("a high surrogate \\u escape must be followed by a low surrogate");
                            p_ += 2;
                            const unsigned lo = hex4();
                            if (lo < 0xdc00 || lo > 0xdfff)
                                fail("a high surrogate \\u escape must be followed by a low surrogate");
                            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        }
                        utf8(out, cp);
                        break;
                    }
                    default:
                        --p_;
                        fail("'\\" + std::string(1, x) +
                             "' is not an escape of JSON (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
                }
                continue;
            }
            // A multi-byte UTF-8 sequence, well formed (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
            size_t n;
            unsigned char lo = 0x80, hi = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) n = 1;
            else if (c >= 0xe0 && c <= 0xef) {
                n = 2;
                if (c == 0xe0) lo = 0xa0;
                if (c == 0xed) hi = 0x9f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                n = 3;
                if (c == 0xf0) lo = 0x90;
                if (c == 0xf4) hi = 0x8f;
            } else fail("the string holds " + what_here() + ", which does not start a UTF-8 character");
            if (size_t(e_ - p_) <= n) fail("the string ends inside a UTF-8 character");
            for (size_t i = 1; i <= n; ++i) {
                const unsigned char d = static_cast<unsigned char>(p_[i]);
                if (d < (i == 1 ? lo : 0x80) || d > (i == 1 ? hi : 0xbf)) {
                    p_ += i;
                    fail("the string holds a malformed UTF-8 character");
                }
            }
            out.append(p_, n + 1);
            p_ += n + 1;
        }
    }

public:
    std::string line_column(size_t position) const {
        size_t line = 1, column = 1;
        for (size_t i = 0; i < position && b_ + i < e_; ++i) {
            if (b_[i] == '\n') {
                ++line;
                column = 1;
            } else ++column;
        }
        return "line " + std::to_string(line) + ", column " + std::to_string(column);
    }

private:
    const char* b_;
    const char* p_;
    const char* e_;
    JsonDocument& doc_;
    const JsonReadOptions& o_;
    std::string pointer_;
    std::vector<std::string> keys_;
    size_t next_progress_ = size_t(8) << 20;
};

using case_detail::fail;

}  // namespace

JsonDocument parse_json_text(std::string_view text, const JsonReadOptions& options) {
    JsonDocument doc;
    Parser parser(text, doc, options);
    try {
        parser.run();
    } catch (const RuleError& e) {
        fail(e.rule, e.message, e.path);
    } catch (const SyntaxError& e) {
        fail("json.syntax", "not valid JSON at " + parser.line_column(e.position) + ": " + e.message);
    }
    return doc;
}

}  // namespace dmlref
