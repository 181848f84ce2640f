// Whether evaluate takes the fast paths, and on how many threads: a switch for the tests that
// compare every fast path with its plain loop, element for element. Internal to dmlref.
#pragma once

#include <cstddef>
#include <optional>

namespace dmlref::reference {

// On by default. Off: every operator runs its plain loop (reference/<family>.cpp); also off on a
// thread while an alternative reading is in force (dmlref/readings.hpp).
bool fast_paths_enabled();
void set_fast_paths_enabled(bool on);

// Threads for the fast paths: 0 (the default) lets OpenMP choose (all cores, or OMP_NUM_THREADS);
// 1 runs serially. Every output element is computed by one thread, so the bits never depend on it.
int fast_path_threads();
void set_fast_path_threads(int n);

// The bytes of one last-level cache (Linux: /sys/devices/system/cpu/cpu0/cache/index3/size, read
// once), 0 where unknown. Large element-wise outputs are written around the caches only when what
// a call touches exceeds it (reference/fast/streamed.hpp): data that fits stays cached for the next
// operator, and non-temporal stores would send it to memory. A test may set it (0: stream every
// large output); so may the environment, for timing one machine as another: DMLREF_LAST_LEVEL_CACHE
// (bytes, or with K, M or G: "300M"), read once, in place of sysfs's size (a host without sysfs's
// cache files, such as many VMs, reads 0 and streams every large output). The values never depend
// on it.
size_t last_level_cache_bytes();
// A cache size as sysfs and DMLREF_LAST_LEVEL_CACHE write it: a whole number of bytes, or one with K, M or G
// (2^10, 2^20, 2^30; either case), then at most white space; nullopt for anything else or past size_t.
std::optional<size_t> parse_cache_size(const char* text);
void set_last_level_cache_bytes(size_t bytes);

}  // namespace dmlref::reference
