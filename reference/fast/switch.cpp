// The fast-path switch, thread count and last-level cache size (reference/fast/switch.hpp).
#include "switch.hpp"

#include "dmlref/readings.hpp"

#include <atomic>
#include <cstdio>

namespace dmlref::reference {

namespace {
std::atomic<bool> enabled{true};
std::atomic<int> threads{0};

// "32768K" (or "M", or bytes) from sysfs; 0 where the file is missing or unreadable.
size_t read_cache_bytes() {
    std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (!f) return 0;
    unsigned long long v = 0;
    char unit = 0;
    const int got = std::fscanf(f, "%llu%c", &v, &unit);
    std::fclose(f);
    if (got < 1) return 0;
    if (unit == 'K' || unit == 'k') v <<= 10;
    else if (unit == 'M' || unit == 'm') v <<= 20;
    return size_t(v);
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
