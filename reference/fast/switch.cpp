// The fast-path switch, thread count and last-level cache size (reference/fast/switch.hpp).
#include "switch.hpp"

#include "dmlref/readings.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace dmlref::reference {

namespace {
std::atomic<bool> enabled{true};
std::atomic<int> threads{0};

// "32768K" (or "M", "G", or bytes) as bytes; 0 where it is not a number.
size_t parse_bytes(const char* text) {
    unsigned long long v = 0;
    char unit = 0;
    if (std::sscanf(text, "%llu%c", &v, &unit) < 1) return 0;
    if (unit == 'K' || unit == 'k') v <<= 10;
    else if (unit == 'M' || unit == 'm') v <<= 20;
    else if (unit == 'G' || unit == 'g') v <<= 30;
    return size_t(v);
}

// DMLREF_LAST_LEVEL_CACHE where set (switch.hpp), else sysfs's size; 0 where neither is readable.
size_t read_cache_bytes() {
    if (const char* forced = std::getenv("DMLREF_LAST_LEVEL_CACHE")) return parse_bytes(forced);
    std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (!f) return 0;
    char text[32] = {};
    const bool got = std::fgets(text, sizeof text, f) != nullptr;
    std::fclose(f);
    return got ? parse_bytes(text) : 0;
}

std::atomic<size_t>& cache_bytes() {
    static std::atomic<size_t> bytes{read_cache_bytes()};
    return bytes;
}
}  // namespace

// An alternative reading in force (docs/golden.md) takes the plain loops, where its branches are.
bool fast_paths_enabled() { return enabled.load(std::memory_order_relaxed) && !any_reading_in_force(); }
void set_fast_paths_enabled(bool on) { enabled.store(on, std::memory_order_relaxed); }
int fast_path_threads() { return threads.load(std::memory_order_relaxed); }
void set_fast_path_threads(int n) { threads.store(n < 0 ? 0 : n, std::memory_order_relaxed); }
size_t last_level_cache_bytes() { return cache_bytes().load(std::memory_order_relaxed); }
void set_last_level_cache_bytes(size_t bytes) { cache_bytes().store(bytes, std::memory_order_relaxed); }

}  // namespace dmlref::reference
