// The fast-path switch, thread count and last-level cache size (reference/fast/switch.hpp).
#include "switch.hpp"

#include "dmlref/readings.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace dmlref::reference {

namespace {
std::atomic<bool> enabled{true};
std::atomic<int> threads{0};

// DMLREF_LAST_LEVEL_CACHE where set and a size (switch.hpp), else sysfs's size; 0 where neither is readable.
// A set value that is not a size is said once on stderr, and sysfs's size is used: never a size it does not say.
size_t read_cache_bytes() {
    if (const char* forced = std::getenv("DMLREF_LAST_LEVEL_CACHE")) {
        if (const auto bytes = parse_cache_size(forced)) return *bytes;
        std::fprintf(stderr,
                     "dmlref: DMLREF_LAST_LEVEL_CACHE=\"%s\" is not a size (bytes, or a whole number with K, M or G); "
                     "the cache size the system reports is used\n",
                     forced);
    }
    std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (!f) return 0;
    char text[32] = {};
    const bool got = std::fgets(text, sizeof text, f) != nullptr;
    std::fclose(f);
    return got ? parse_cache_size(text).value_or(0) : 0;
}

std::atomic<size_t>& cache_bytes() {
    static std::atomic<size_t> bytes{read_cache_bytes()};
    return bytes;
}
}  // namespace

std::optional<size_t> parse_cache_size(const char* text) {
    size_t v = 0, digits = 0;
    const char* p = text;
    for (; *p >= '0' && *p <= '9'; ++p, ++digits) {
        if (v > (SIZE_MAX - size_t(*p - '0')) / 10) return std::nullopt;
        v = v * 10 + size_t(*p - '0');
    }
    if (digits == 0) return std::nullopt;
    int shift = 0;
    if (*p == 'K' || *p == 'k') shift = 10;
    else if (*p == 'M' || *p == 'm') shift = 20;
    else if (*p == 'G' || *p == 'g') shift = 30;
    if (shift != 0) {
        ++p;
        if (v > (SIZE_MAX >> shift)) return std::nullopt;
        v <<= shift;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;  // sysfs ends its line
    if (*p != 0) return std::nullopt;
    return v;
}

// An alternative reading in force (docs/golden.md) takes the plain loops, where its branches are.
bool fast_paths_enabled() { return enabled.load(std::memory_order_relaxed) && !any_reading_in_force(); }
void set_fast_paths_enabled(bool on) { enabled.store(on, std::memory_order_relaxed); }
int fast_path_threads() { return threads.load(std::memory_order_relaxed); }
void set_fast_path_threads(int n) { threads.store(n < 0 ? 0 : n, std::memory_order_relaxed); }
size_t last_level_cache_bytes() { return cache_bytes().load(std::memory_order_relaxed); }
void set_last_level_cache_bytes(size_t bytes) { cache_bytes().store(bytes, std::memory_order_relaxed); }

}  // namespace dmlref::reference
