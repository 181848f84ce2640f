// parallel_for: the fast paths' one way of spreading work over cores (OpenMP when the build has
// it, else a plain loop). Each index is handled by exactly one thread. Internal to dmlref.
#pragma once

#include "switch.hpp"

#include <algorithm>
#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dmlref::reference {

// The threads for a call of `work` units where a thread pays for its start only with at least
// `grain` units of its own: work / grain, at least 1. For parallel_for's `most`; the grain is the
// caller's, measured (reference/fast/average_pooling.cpp).
inline int threads_for_work(int64_t work, int64_t grain) {
    return int(std::clamp<int64_t>(work / std::max<int64_t>(grain, 1), 1, int64_t(1) << 16));
}

// f(i) for every i < count, on the fast paths' threads (the switch's count, else OpenMP's: all
// cores or OMP_NUM_THREADS), at most `most` of them where it is positive, and at most count.
template <class F> void parallel_for(int64_t count, F&& f, int most = 0) {
#if defined(_OPENMP)
    if (count > 1 && most != 1) {
        int n = fast_path_threads();
        if (n <= 0) n = omp_get_max_threads();
        if (most > 0) n = std::min(n, most);
        n = int(std::min<int64_t>(n, count));
        if (n > 1) {  // one thread: no parallel region at all
#pragma omp parallel for schedule(dynamic) num_threads(n)
            for (int64_t i = 0; i < count; ++i) f(i);
            return;
        }
    }
#endif
    (void)most;
    for (int64_t i = 0; i < count; ++i) f(i);
}

}  // namespace dmlref::reference
