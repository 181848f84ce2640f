// The fast-path switch and thread count (reference/fast/switch.hpp).
#include "switch.hpp"

#include "dmlref/readings.hpp"

#include <atomic>

namespace dmlref::reference {

namespace {
std::atomic<bool> enabled{true};
std::atomic<int> threads{0};
}  // namespace

// An alternative reading in force (docs/golden.md) takes the plain loops, where its branches are.
bool fast_paths_enabled() { return enabled.load(std::memory_order_relaxed) && !any_reading_in_force(); }
void set_fast_paths_enabled(bool on) { enabled.store(on, std::memory_order_relaxed); }
int fast_path_threads() { return threads.load(std::memory_order_relaxed); }
void set_fast_path_threads(int n) { threads.store(n < 0 ? 0 : n, std::memory_order_relaxed); }

}  // namespace dmlref::reference
