// parallel_for: the fast paths' one way of spreading work over cores (OpenMP when the build has
// it, else a plain loop). Each index is handled by exactly one thread. Internal to dmlref.
#pragma once

#include "switch.hpp"

#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dmlref::reference {

template <class F> void parallel_for(int64_t count, F&& f) {
#if defined(_OPENMP)
    const int n = fast_path_threads();
    if (count > 1 && n != 1 && (n > 1 || omp_get_max_threads() > 1)) {  // one thread: no parallel region at all
        if (n > 0) {
#pragma omp parallel for schedule(dynamic) num_threads(n)
            for (int64_t i = 0; i < count; ++i) f(i);
        } else {
#pragma omp parallel for schedule(dynamic)
            for (int64_t i = 0; i < count; ++i) f(i);
        }
        return;
    }
#endif
    for (int64_t i = 0; i < count; ++i) f(i);
}

}  // namespace dmlref::reference
