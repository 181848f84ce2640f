// The picture of where an output mismatches (docs/diff.md, "The picture"): one tile per index of
// the leading dimensions, each element a square coloured by its verdict, and below the tiles a
// legend strip that names every colour with its count, drawn in a 5x7 pixel font, so that the
// picture reads without the docs. PNG goes through zlib's deflate; PPM is raw P6.
#include "dmlref/picture.hpp"

#include "dmlref/atomic_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace fs = std::filesystem;

#include <set>

namespace dmlref {

namespace {

using Rgb = std::array<uint8_t, 3>;

constexpr Rgb kIdentical{96, 96, 96};  // grey
constexpr Rgb kWithin{0, 190, 0};      // green
constexpr Rgb kOver{230, 0, 0};        // red
constexpr Rgb kSkipped{40, 90, 255};   // blue
constexpr Rgb kCaused{160, 0, 220};    // purple: over, and explain names its cause
constexpr Rgb kInk{0, 0, 0};           // the legend's text

Rgb colour(Verdict v) {
    switch (v) {
        case Verdict::Identical: return kIdentical;
        case Verdict::Within: return kWithin;
        case Verdict::Over: return kOver;
        case Verdict::Skipped: return kSkipped;
    }
    return kInk;
}

// The legend's font: 5 x 7 pixels, a row per byte, bit 4 the leftmost pixel. Only the characters
// the legend writes; any other is drawn blank.
struct Glyph {
    char ch;
    std::array<uint8_t, 7> rows;
};
constexpr Glyph kFont[] = {
    {'a', {0b00000, 0b00000, 0b01110, 0b00001, 0b01111, 0b10001, 0b01111}},
    {'b', {0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b11110}},
    {'c', {0b00000, 0b00000, 0b01110, 0b10000, 0b10000, 0b10001, 0b01110}},
    {'d', {0b00001, 0b00001, 0b01101, 0b10011, 0b10001, 0b10001, 0b01111}},
    {'e', {0b00000, 0b00000, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110}},
    {'f', {0b00110, 0b01001, 0b01000, 0b11100, 0b01000, 0b01000, 0b01000}},
    {'g', {0b00000, 0b01111, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110}},
    {'h', {0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001}},
    {'i', {0b00100, 0b00000, 0b01100, 0b00100, 0b00100, 0b00100, 0b01110}},
    {'j', {0b00010, 0b00000, 0b00110, 0b00010, 0b00010, 0b10010, 0b01100}},
    {'l', {0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110}},
    {'n', {0b00000, 0b00000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001}},
    {'o', {0b00000, 0b00000, 0b01110, 0b10001, 0b10001, 0b10001, 0b01110}},
    {'r', {0b00000, 0b00000, 0b10110, 0b11001, 0b10000, 0b10000, 0b10000}},
    {'s', {0b00000, 0b00000, 0b01111, 0b10000, 0b01110, 0b00001, 0b11110}},
    {'m', {0b00000, 0b00000, 0b11010, 0b10101, 0b10101, 0b10001, 0b10001}},
    {'t', {0b01000, 0b01000, 0b11100, 0b01000, 0b01000, 0b01001, 0b00110}},
    {'u', {0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b10011, 0b01101}},
    {'v', {0b00000, 0b00000, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100}},
    {'w', {0b00000, 0b00000, 0b10001, 0b10001, 0b10101, 0b10101, 0b01010}},
    {'-', {0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000}},
    {'(', {0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010}},
    {')', {0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000}},
    {'\'', {0b01100, 0b00100, 0b01000, 0b00000, 0b00000, 0b00000, 0b00000}},
    {':', {0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000}},
    {'0', {0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110}},
    {'1', {0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110}},
    {'2', {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111}},
    {'3', {0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110}},
    {'4', {0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010}},
    {'5', {0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110}},
    {'6', {0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110}},
    {'7', {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000}},
    {'8', {0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110}},
    {'9', {0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100}},
};

struct Canvas {
    uint64_t width, height;
    std::vector<uint8_t> rgb;                                                             // row-major, 3 bytes a pixel
    Canvas(uint64_t w, uint64_t h) : width(w), height(h), rgb(size_t(w * h * 3), 255) {}  // white
    void fill(uint64_t x, uint64_t y, uint64_t w, uint64_t h, Rgb c) {
        for (uint64_t py = y; py < y + h && py < height; ++py)
            for (uint64_t px = x; px < x + w && px < width; ++px)
                std::copy(c.begin(), c.end(), rgb.begin() + std::ptrdiff_t((py * width + px) * 3));
    }
    // Text from (x, y), its top left corner, each font pixel f x f pixels.
    void text(uint64_t x, uint64_t y, std::string_view s, uint64_t f) {
        for (const char ch : s) {
            for (const Glyph& g : kFont)
                if (g.ch == ch)
                    for (uint64_t r = 0; r < 7; ++r)
                        for (uint64_t k = 0; k < 5; ++k)
                            if (g.rows[r] & (0x10u >> k)) fill(x + k * f, y + r * f, f, f, kInk);
            x += 6 * f;
        }
    }
};

std::vector<std::pair<Rgb, std::string>> legend(const OutputCensus& c, size_t caused) {
    uint64_t skipped = 0;
    for (const auto& [reason, n] : c.skipped) skipped += n;
    std::string over = "over tolerance: " + std::to_string(c.over);
    if (c.nonfinite_mismatches) over += " (" + std::to_string(c.nonfinite_mismatches) + " with nan or inf)";
    std::vector<std::pair<Rgb, std::string>> entries = {{kIdentical, "bit-identical: " + std::to_string(c.identical)},
                                                        {kWithin, "within tolerance: " + std::to_string(c.within)},
                                                        {kOver, over}};
    if (caused) entries.push_back({kCaused, "over with a cause named: " + std::to_string(caused)});
    entries.push_back({kSkipped, "not judged (don't care): " + std::to_string(skipped)});
    return entries;
}

Canvas draw(const OutputCensus& c, const std::set<uint64_t>& caused) {
    // Tiles of the last two dimensions (a 1-D tensor is one row), one per leading index, in a grid.
    const uint64_t W = c.sizes.back();
    const uint64_t H = c.sizes.size() >= 2 ? c.sizes[c.sizes.size() - 2] : 1;
    const uint64_t tiles = c.elements / (W * H);  // Sizes are >= 1
    const uint64_t cols = std::max<uint64_t>(1, uint64_t(std::ceil(std::sqrt(double(tiles)))));
    const uint64_t rows = (tiles + cols - 1) / cols;
    const uint64_t gap = tiles > 1 ? 1 : 0;
    const uint64_t bw = cols * W + (cols - 1) * gap, bh = rows * H + (rows - 1) * gap;
    if (bw * bh > (uint64_t(1) << 26))
        throw DiffError(c.output + " is too large for a picture (" + std::to_string(bw) + " x " + std::to_string(bh) +
                        " pixels)");
    // Small tensors are scaled up so that a tile is visible: about 512 pixels on the long side.
    const uint64_t scale = std::clamp<uint64_t>(512 / std::max(bw, bh), 1, 32);
    const uint64_t tw = bw * scale, th = bh * scale;
    // The legend below: a swatch and its label per row, the font scaled with the picture's width.
    const auto entries = legend(c, caused.size());
    const uint64_t f = std::clamp<uint64_t>(tw / 256, 1, 3), row = 11 * f, margin = 4 * f;
    size_t longest = 0;
    for (const auto& e : entries) longest = std::max(longest, e.second.size());
    const uint64_t lw = 2 * margin + 11 * f + longest * 6 * f;
    Canvas pic(std::max(tw, lw), th + 2 * margin + entries.size() * row);
    for (uint64_t i = 0; i < c.elements; ++i) {
        const uint64_t tile = i / (W * H), y = (i / W) % H, x = i % W;
        const uint64_t px = (tile % cols) * (W + gap) + x, py = (tile / cols) * (H + gap) + y;
        pic.fill(px * scale, py * scale, scale, scale, caused.count(i) ? kCaused : colour(c.verdicts[i]));
    }
    for (uint64_t k = 0; k < entries.size(); ++k) {
        const uint64_t y = th + 2 * margin + k * row;
        pic.fill(margin, y, 7 * f, 7 * f, entries[k].first);
        pic.text(margin + 11 * f, y, entries[k].second, f);
    }
    return pic;
}

void put32(std::string& s, uint32_t v) {
    for (int i = 3; i >= 0; --i) s.push_back(char((v >> (8 * i)) & 0xff));
}

// PNG: 8-bit RGB, every row filter 0 (none), one IDAT chunk of zlib's deflate.
std::string png(const Canvas& pic) {
    std::string raw;
    raw.reserve(size_t(pic.height * (pic.width * 3 + 1)));
    for (uint64_t y = 0; y < pic.height; ++y) {
        raw.push_back('\0');  // filter: none
        raw.append(reinterpret_cast<const char*>(pic.rgb.data() + y * pic.width * 3), size_t(pic.width * 3));
    }
    uLongf size = compressBound(uLong(raw.size()));
    std::string z(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                  uLong(raw.size()), Z_BEST_COMPRESSION) != Z_OK)
        throw DiffError("zlib could not compress the picture");
    z.resize(size);
    auto chunk = [](std::string& out, const char* type, const std::string& data) {
        put32(out, uint32_t(data.size()));
        const std::string body = std::string(type, 4) + data;
        out += body;
        put32(out, uint32_t(crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()))));
    };
    std::string ihdr;
    put32(ihdr, uint32_t(pic.width));
    put32(ihdr, uint32_t(pic.height));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, no filter, no interlace
    std::string out = "\x89PNG\r\n\x1a\n";
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", z);
    chunk(out, "IEND", "");
    return out;
}

}  // namespace

std::string mismatch_picture(const OutputCensus& c, PictureFormat format, const std::vector<uint64_t>& caused) {
    std::set<uint64_t> named;  // only elements over tolerance are drawn so
    for (uint64_t i : caused)
        if (i < c.verdicts.size() && c.verdicts[i] == Verdict::Over) named.insert(i);
    const Canvas pic = draw(c, named);
    if (format == PictureFormat::Png) return png(pic);
    std::string bytes = "P6\n" + std::to_string(pic.width) + " " + std::to_string(pic.height) + "\n255\n";
    bytes.append(reinterpret_cast<const char*>(pic.rgb.data()), pic.rgb.size());
    return bytes;
}

void write_mismatch_image(const OutputCensus& c, const fs::path& file) {
    if (file.extension() != ".png" && file.extension() != ".ppm")
        throw DiffError(file.string() + ": a picture is written as .ppm or .png");
    std::string bytes;
    try {
        bytes = mismatch_picture(c, file.extension() == ".png" ? PictureFormat::Png : PictureFormat::Ppm);
    } catch (const DiffError& e) {
        throw DiffError(file.string() + ": " + e.what());
    }
    try {
        write_file_atomic(file, bytes);
    } catch (const WriteError& e) {
        throw DiffError(file.string() + ": cannot write the picture: " + e.what() + " [" + e.rule() + "]");
    }
}

}  // namespace dmlref
