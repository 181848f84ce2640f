// Fast paths of the operators that only move data (reference/fast/data_movement.cpp): GATHER,
// PADDING and PADDING1, DEPTH_TO_SPACE, SPACE_TO_DEPTH and their *1 forms, TILE, JOIN and SPLIT.
// Internal to dmlref.
//
// Each copies the plain loop's bytes (reference/gather.cpp, padding.cpp, depth_space.cpp,
// tile.cpp, join_split.cpp; test/test_fast_data_movement.cpp compares them byte for byte): an
// element is moved as its bits whatever its type, so contiguous runs are copied with memcpy, a
// run of the padding value filled, and where elements interleave (DEPTH_TO_SPACE, SPACE_TO_DEPTH)
// the unsigned integer as wide as an element is moved. Each asks that the rows it copies be
// contiguous in memory (the last dimensions packed; the others may have any strides, zero
// included for an input); anything else returns false, having written nothing, and the plain
// loop runs. The kit calls them only while every policy of the operator is at its default
// (lib/core/operators.cpp). Output rows are spread over the cores (parallel.hpp), each written by
// one thread, so the bytes never depend on the thread count.
#pragma once

#include "dmlref/descs/depth_space.hpp"
#include "dmlref/descs/gather.hpp"
#include "dmlref/descs/join_split.hpp"
#include "dmlref/descs/padding.hpp"
#include "dmlref/descs/tile.hpp"
#include "dmlref/operators.hpp"

namespace dmlref::reference::fast {

bool data_movement_fast(const DML_GATHER_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_PADDING_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_PADDING1_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_DEPTH_TO_SPACE_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_DEPTH_TO_SPACE1_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_SPACE_TO_DEPTH_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_SPACE_TO_DEPTH1_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_TILE_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_JOIN_OPERATOR_DESC& d, const Bindings& b);
bool data_movement_fast(const DML_SPLIT_OPERATOR_DESC& d, const Bindings& b);

}  // namespace dmlref::reference::fast
