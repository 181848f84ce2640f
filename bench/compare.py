#!/usr/bin/env python3
"""Every operator of dmlref against PyTorch CPU and numpy, measured in the same run.

For each configuration, runs bench_ops (dmlref through its public API, best of N calls), then times
the peers on the same inputs (the formula in bench_ops.cpp), checks each peer's result against
dmlref's output, and prints ratio = peer time / dmlref time (above 1: dmlref is faster). A peer
that is not installed, or that does not compute the type, is skipped. Asserts nothing.

The floor column is the memory floor (bench_ops --floor): the time this machine takes to read
every input byte once (GATHER: of the table, only as many bytes as it writes), then write every
output byte once. A loop that reads and writes at once can come in somewhat under it (10 to 15%
for two inputs and one output), so it says how far an operator is from moving its bytes rather
than bounding it exactly. Where a goal is not met, the
check says the ratio a dmlref running at that floor would reach: when that is well below the
goal, the goal cannot be met against this peer on this machine.

    python3 bench/compare.py BUILD/bench/bench_ops [repeats=5] [--threads N] [--rounds R] [--only a,b] [--types FLOAT32]

--rounds R (default 5) measures each configuration R times in turn (dmlref, floor, each peer;
then again). The times printed are each one's best over the rounds; a ratio is the median over
the rounds of the ratio within a round. On a shared machine the memory bandwidth drifts over
seconds, and the operators that run at the memory floor (where dmlref and PyTorch both are) were
otherwise compared across a drift rather than against each other: one-round tables of the same
build put CLIP_GRAD1 FLOAT32 anywhere from 0.74 to 1.06.

Both sides take the best of N calls and of as many more as fill 0.2 s (at most 1000): a
row of a millisecond is timed over ~200 calls each, so that a row on all cores is not judged on
its first few calls (best of 3 put ELEMENT_WISE_ADD FLOAT32 at 1.58 ms on 16 cores, best of 20 at 0.85).

--threads 1 (the default) pins PyTorch to one thread and runs dmlref with OMP_NUM_THREADS=1;
run the whole script under `taskset -c 0` for one core. --threads 0: every core for both.
--only and --types keep the named configurations and types (default: all).
"""
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

argv = sys.argv[1:]
threads = 1
if "--threads" in argv:
    k = argv.index("--threads")
    threads = int(argv[k + 1])
    del argv[k:k + 2]
rounds = 5
if "--rounds" in argv:
    k = argv.index("--rounds")
    rounds = max(1, int(argv[k + 1]))
    del argv[k:k + 2]
only = types_kept = None
for flag in ("--only", "--types"):
    if flag in argv:
        k = argv.index(flag)
        kept = set(argv[k + 1].split(","))
        if flag == "--only":
            only = kept
        else:
            types_kept = kept
        del argv[k:k + 2]
binary = argv[0]
repeats = int(argv[1]) if len(argv) > 1 else 5

try:
    import numpy as np
except ImportError:
    np = None
try:
    import torch
    if threads:
        torch.set_num_threads(threads)
except ImportError:
    torch = None
if np is None:
    sys.exit("numpy is needed to generate the inputs")

FLAT = 1 << 24


def hashed(n, seed):  # (i * 2654435761 + seed * 40503) mod 2^32, in place (GATHER's table is 128M elements)
    i = np.arange(n, dtype=np.uint64)
    i *= np.uint64(2654435761)
    i += np.uint64(seed * 40503)
    i %= np.uint64(1 << 32)
    return i


def values(shape, seed, dtype, positive=False):
    v = hashed(int(np.prod(shape)), seed).astype(np.float64)
    v /= 2.0**32
    v *= 2
    v -= 1
    if positive:  # bench_ops' Config::positive: (value + 3) / 4 in float64, in [0.5, 1)
        v += 3
        v /= 4
    if np.issubdtype(dtype, np.integer):  # -100..100, truncated toward zero as bench_ops' static_cast
        v *= 100
    return v.astype(dtype).reshape(shape)


def index_values(shape, seed, dtype, limit):  # bench_ops' index(i, seed), in [0, limit)
    i = hashed(int(np.prod(shape)), seed)
    i %= np.uint64(limit)
    return i.astype(dtype).reshape(shape)


def region_values(shape, seed, dtype, extent):  # bench_ops' regions(seed, extent): [x1, y1, x2, y2] rows
    a = hashed(int(np.prod(shape)), seed).astype(np.float64).reshape(-1, 4) / 2.0**32
    v = np.empty_like(a)
    v[:, :2] = a[:, :2] * 0.75 * extent
    v[:, 2:] = v[:, :2] + extent / 16 + a[:, 2:] * extent / 4
    return v.astype(dtype).reshape(shape)  # rounded once from float64, as bench_ops does


def best(f):
    # The best of `repeats` calls, and of as many more as fill 0.2 s (at most 1000), as bench_ops
    # takes dmlref's: a row of a millisecond is timed over ~200 calls on both sides.
    f()
    b, spent, n = 1e30, 0.0, 0
    while n < repeats or (spent < 0.2 and n < 1000):
        t0 = time.perf_counter()
        f()
        t = time.perf_counter() - t0
        b, spent, n = min(b, t), spent + t, n + 1
    return b


def T(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# A peer takes the numpy inputs and returns (run, result): run() is timed, result() read after.
def torch_peers():
    F = torch.nn.functional
    aten = torch.ops.aten

    def relu(x):
        tx = T(x); out = torch.empty_like(tx)
        return lambda: torch.clamp_min(tx, 0, out=out), lambda: out.numpy()

    def relu_grad(x, dy):
        tx, tdy = T(x), T(dy); out = torch.empty_like(tdy)
        return lambda: aten.threshold_backward(tdy, tx, 0, grad_input=out), lambda: out.numpy()

    def clip1(x):
        tx = T(x); out = torch.empty_like(tx)
        return lambda: torch.clamp(tx, -0.5, 0.5, out=out), lambda: out.numpy()

    def clip_grad1(x, dy):
        tx, tdy = T(x), T(dy); out = torch.empty_like(tdy)
        return lambda: aten.hardtanh_backward(tdy, tx, -0.5, 0.5, grad_input=out), lambda: out.numpy()

    def slice_grad(dy):
        tdy = T(dy); holder = {}
        def direct():
            out = torch.zeros((1, 64, 256, 256), dtype=tdy.dtype)
            out[:, :, 1:254:2, 1:254:2] = tdy
            holder["out"] = out
        return direct, lambda: holder["out"].numpy()

    def resample2(mode):
        def peer(x):
            tx = T(x); holder = {}
            def run():
                holder["out"] = F.interpolate(tx, size=(512, 512), mode=mode, **({"align_corners": False} if mode == "bilinear" else {}))
            return run, lambda: holder["out"].numpy()
        return peer

    def resample_grad1(mode):
        def peer(dy):
            tdy = T(dy); holder = {}
            def run():
                if mode == "bilinear":
                    holder["out"] = aten.upsample_bilinear2d_backward(tdy, [512, 512], [1, 32, 256, 256], False)
                else:
                    holder["out"] = aten.upsample_nearest2d_backward(tdy, [512, 512], [1, 32, 256, 256])
            return run, lambda: holder["out"].numpy()
        return peer

    def max_pooling2(x):
        tx = T(x); holder = {}
        def run():
            holder["out"] = aten.max_pool2d_with_indices(tx, [3, 3], [2, 2], [1, 1])[0]
        return run, lambda: holder["out"].numpy()

    def max_pooling_grad(x, dy):
        tx, tdy = T(x), T(dy); holder = {}
        def run():  # forward (for the indices) and backward, as MAX_POOLING_GRAD does both
            _, idx = aten.max_pool2d_with_indices(tx, [3, 3], [2, 2], [1, 1])
            holder["out"] = aten.max_pool2d_with_indices_backward(tdy, tx, [3, 3], [2, 2], [1, 1], [1, 1], False, idx)
        return run, lambda: holder["out"].numpy()

    def average_pooling(x):  # DirectML's IncludePadding FALSE is count_include_pad=False
        tx = T(x); holder = {}
        def run():
            holder["out"] = F.avg_pool2d(tx, 3, 2, 1, count_include_pad=False)
        return run, lambda: holder["out"].numpy()

    def average_pooling_grad(dy):  # the backward of the same pooling (x only gives the shape, not timed)
        tdy = T(dy); tx = torch.zeros((1, 64, 112, 112), dtype=tdy.dtype); holder = {}
        def run():
            holder["out"] = aten.avg_pool2d_backward(tdy, tx, [3, 3], [2, 2], [1, 1], False, False, None)
        return run, lambda: holder["out"].numpy()

    def batch_normalization(x, mean, var, scale, bias):  # inference: the given statistics, Epsilon 1e-5
        tx = T(x); stats = [T(a.reshape(-1)) for a in (mean, var, scale, bias)]; holder = {}
        def run():
            holder["out"] = F.batch_norm(tx, stats[0], stats[1], stats[2], stats[3], training=False, eps=1e-5)
        return run, lambda: holder["out"].numpy()

    def batch_normalization_training(x, scale, bias):  # the batch's statistics (OutputTensor only)
        tx = T(x); ts, tb = T(scale.reshape(-1)), T(bias.reshape(-1)); holder = {}
        def run():
            holder["out"] = F.batch_norm(tx, None, None, ts, tb, training=True, eps=1e-5)
        return run, lambda: holder["out"].numpy()

    def batch_normalization_grad(x, dy, mean, var, scale):  # the inference grad: the given statistics
        tx, tdy = T(x), T(dy); stats = [T(a.reshape(-1)) for a in (mean, var, scale)]; holder = {}
        def run():  # dX, dScale and dBias, as BATCH_NORMALIZATION_GRAD writes them
            holder["out"] = aten.native_batch_norm_backward(tdy, tx, stats[2], stats[0], stats[1], None, None, False,
                                                            1e-5, [True, True, True])[0]
        return run, lambda: holder["out"].numpy()

    def batch_normalization_training_grad(x, dy, mean, var, scale):  # the training grad: the given batch statistics
        tx, tdy = T(x), T(dy); tm, ts = T(mean.reshape(-1)), T(scale.reshape(-1)); holder = {}
        tinvstd = 1 / torch.sqrt(T(var.reshape(-1)) + 1e-5)  # save_invstd, as the forward keeps it (not timed)
        def run():  # dX, dScale and dBias with train=True (dX through the batch's mean and variance)
            holder["out"] = aten.native_batch_norm_backward(tdy, tx, ts, None, None, tm, tinvstd, True, 1e-5,
                                                            [True, True, True])[0]
        return run, lambda: holder["out"].numpy()

    def lrn(x):  # the same window (LocalSize 5 across channels) and divisor (Alpha / LocalSize)
        tx = T(x); holder = {}
        def run():
            holder["out"] = F.local_response_norm(tx, 5, alpha=1e-4, beta=0.75, k=1.0)
        return run, lambda: holder["out"].numpy()

    def lrn_grad(x, dy):  # forward and backward through autograd, as LRN_GRAD recomputes B from X
        tdy = T(dy); holder = {}
        def run():
            tx = T(x).requires_grad_()
            F.local_response_norm(tx, 5, alpha=1e-4, beta=0.75, k=1.0).backward(tdy)
            holder["out"] = tx.grad
        return run, lambda: holder["out"].numpy()

    def binary(fn):
        def peer(a, b):
            ta, tb = T(a), T(b); out = torch.empty_like(ta)
            return lambda: fn(ta, tb, out=out), lambda: out.numpy()
        return peer

    def broadcast_add(a, b):
        ta, tb = T(a.reshape(4096, 4096)), T(b.reshape(1, 4096)); out = torch.empty_like(ta)
        return lambda: torch.add(ta, tb, out=out), lambda: out.numpy()

    def sqrt(x):
        tx = T(x); out = torch.empty_like(tx)
        return lambda: torch.sqrt(tx, out=out), lambda: out.numpy()

    def less_than(a, b):
        ta, tb = T(a), T(b); out = torch.empty(ta.shape, dtype=torch.bool)
        return lambda: torch.lt(ta, tb, out=out), lambda: out.view(torch.uint8).numpy()

    def cast(x):
        tx = T(x); out = torch.empty(tx.shape, dtype=torch.float32 if tx.dtype == torch.float16 else torch.float16)
        return lambda: out.copy_(tx), lambda: out.numpy()

    def gemm(a, b):  # float32 matmul (not correctly rounded; dmlref's golden is)
        ta, tb = T(a), T(b); out = torch.empty((a.shape[0], b.shape[1]), dtype=ta.dtype)
        return lambda: torch.matmul(ta, tb, out=out), lambda: out.numpy()

    def conv_resnet(x, w):  # float32 (or float16) convolution, padding 1 (not correctly rounded)
        tx, tw = T(x), T(w)
        holder = {}
        def run():
            holder["out"] = torch.nn.functional.conv2d(tx, tw, padding=1)
        return run, lambda: holder["out"].numpy()

    def reduce_sum(axes):
        def peer(x):
            tx = T(x); holder = {}
            def run():
                holder["out"] = torch.sum(tx, dim=axes, keepdim=True)
            return run, lambda: holder["out"].numpy()
        return peer

    # Data movement. GATHER's IndicesTensor is INT64, PyTorch's index type (F.embedding is index_select).
    def gather(table, idx):
        ttab, tidx = T(table), T(idx.reshape(-1)); out = torch.empty((tidx.numel(), ttab.shape[1]), dtype=ttab.dtype)
        return lambda: torch.index_select(ttab, 0, tidx, out=out), lambda: out.numpy()

    def join(*xs):
        txs = [T(x) for x in xs]; out = torch.empty((1, 64 * len(xs), 256, 256), dtype=txs[0].dtype)
        return lambda: torch.cat(txs, 1, out=out), lambda: out.numpy()

    def split(x):  # torch.split gives views: each part copied out, as SPLIT writes its outputs
        tx = T(x); outs = [torch.empty((1, 64, 256, 256), dtype=tx.dtype) for _ in range(4)]
        def run():
            for o, part in zip(outs, torch.split(tx, 64, 1)):
                o.copy_(part)
        return run, lambda: outs[0].numpy()  # bench_ops dumps the first output only

    def padding(x):
        tx = T(x); holder = {}
        def run():
            holder["out"] = F.pad(tx, (2, 2, 2, 2), mode="constant", value=0.0)
        return run, lambda: holder["out"].numpy()

    def tile(x):
        tx = T(x); holder = {}
        def run():
            holder["out"] = tx.repeat(1, 1, 2, 2)
        return run, lambda: holder["out"].numpy()

    def depth_to_space(x):  # DEPTH_COLUMN_ROW is ONNX's DCR; F.pixel_shuffle is CRD, so the DCR permutation
        tx = T(x); out = torch.empty((1, 64, 256, 256), dtype=tx.dtype)
        src, dst = tx.view(1, 2, 2, 64, 128, 128).permute(0, 3, 4, 1, 5, 2), out.view(1, 64, 128, 2, 128, 2)
        return lambda: dst.copy_(src), lambda: out.numpy()

    # ROI_ALIGN = ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset -0.5: sample s of
    # n = 7 * 2 along x sits at x1 * scale + (s + 0.5) / n * (x2 - x1) * scale - 0.5, which is
    # torchvision's aligned=True (roi_start = x1 * scale - 0.5, the width not clamped to 1); its
    # sampling_ratio 2 is Minimum = MaximumSamplesPerOutput = 2; out-of-bounds samples (outside
    # [-1, size]) read 0 and count (OutOfBoundsInputValue 0); the same clamps. torchvision is
    # optional: without it the row has no PyTorch peer.
    try:
        import torchvision
    except ImportError:
        torchvision = None

    def roi_align(x, rois, batch):
        tx = T(x); boxes = torch.cat([T(batch.astype(np.float64)).to(tx.dtype).reshape(-1, 1), T(rois)], 1); holder = {}
        def run():
            holder["out"] = torchvision.ops.roi_align(tx, boxes, (7, 7), spatial_scale=0.25, sampling_ratio=2, aligned=True)
        return run, lambda: holder["out"].numpy()

    # ROI_ALIGN_GRAD (AVERAGE, the same regions): torchvision's forward, then its backward through
    # autograd with the same dY, as training runs them (the forward's output is not kept); the
    # result is the gradient of X, OutputGradientTensor.
    def roi_align_grad(x, dy, rois, batch):
        tx = T(x).clone().requires_grad_(True); tdy = T(dy); holder = {}
        boxes = torch.cat([T(batch.astype(np.float64)).to(tx.dtype).reshape(-1, 1), T(rois)], 1)
        def run():
            out = torchvision.ops.roi_align(tx, boxes, (7, 7), spatial_scale=0.25, sampling_ratio=2, aligned=True)
            holder["out"], = torch.autograd.grad(out, tx, tdy)
        return run, lambda: holder["out"].numpy()

    # Integer division: DIVIDE truncates (rounding_mode "trunc"), MODULUS_TRUNCATE is C's remainder
    # (fmod), MODULUS_FLOOR Python's (remainder); the same values for every non-zero divisor (PyTorch
    # raises on a zero one, where dmlref gives all bits set).
    def divide_integer(a, b):
        ta, tb = T(a), T(b); out = torch.empty_like(ta)
        return lambda: torch.div(ta, tb, rounding_mode="trunc", out=out), lambda: out.numpy()

    elementwise = {"add": binary(torch.add), "add_broadcast": broadcast_add, "subtract": binary(torch.sub),
                   "multiply": binary(torch.mul),
                   "divide": binary(torch.div), "max": binary(torch.maximum), "sqrt": sqrt, "less_than": less_than,
                   "cast": cast, "divide_integer": divide_integer, "modulus_truncate": binary(torch.fmod),
                   "modulus_floor": binary(torch.remainder)}
    return {**elementwise, "relu": relu, "relu_grad": relu_grad, "clip1": clip1, "clip_grad1": clip_grad1, "slice_grad": slice_grad,
            "resample2_linear": resample2("bilinear"), "resample2_nearest": resample2("nearest"),
            "resample_grad1_linear": resample_grad1("bilinear"), "resample_grad1_nearest": resample_grad1("nearest"),
            "max_pooling2": max_pooling2, "max_pooling_grad": max_pooling_grad, "average_pooling": average_pooling,
            "average_pooling_large": average_pooling, "average_pooling_grad": average_pooling_grad,
            "batch_normalization": batch_normalization, "batch_normalization_training": batch_normalization_training,
            "batch_normalization_grad": batch_normalization_grad,
            "batch_normalization_training_grad": batch_normalization_training_grad, "lrn": lrn, "lrn_large": lrn,
            "lrn_grad_large": lrn_grad,
            "gemm": gemm, "conv_resnet": conv_resnet, "reduce_sum": reduce_sum((0, 1)), "reduce_sum_axis": reduce_sum((1,)),
            "reduce_sum_cached": reduce_sum((0, 1)),
            "gather": gather, "join": join, "split": split, "padding": padding, "tile": tile,
            "depth_to_space": depth_to_space, **({"roi_align": roi_align, "roi_align_grad": roi_align_grad} if torchvision else {})}


def numpy_peers():
    def relu(x):
        out = np.empty_like(x)
        return lambda: np.maximum(x, 0, out=out), lambda: out

    def relu_grad(x, dy):
        out = np.empty_like(dy); zero = dy.dtype.type(0)
        return lambda: np.copyto(out, np.where(x > 0, dy, zero)), lambda: out

    def clip1(x):
        out = np.empty_like(x)
        return lambda: np.clip(x, x.dtype.type(-0.5), x.dtype.type(0.5), out=out), lambda: out

    def clip_grad1(x, dy):
        out = np.empty_like(dy); lo, hi, zero = dy.dtype.type(-0.5), dy.dtype.type(0.5), dy.dtype.type(0)
        return lambda: np.copyto(out, np.where((x <= lo) | (x >= hi), zero, dy)), lambda: out

    def slice_grad(dy):
        holder = {}
        def run():
            out = np.zeros((1, 64, 256, 256), dtype=dy.dtype)
            out[:, :, 1:254:2, 1:254:2] = dy
            holder["out"] = out
        return run, lambda: holder["out"]

    def binary(fn):
        def peer(a, b):
            out = np.empty_like(a)
            return lambda: fn(a, b, out=out), lambda: out
        return peer

    def broadcast_add(a, b):
        a2, b2 = a.reshape(4096, 4096), b.reshape(1, 4096); out = np.empty_like(a2)
        return lambda: np.add(a2, b2, out=out), lambda: out

    def sqrt(x):
        out = np.empty_like(x)
        def run():
            with np.errstate(invalid="ignore"):
                np.sqrt(x, out=out)
        return run, lambda: out

    def less_than(a, b):
        out = np.empty(a.shape, dtype=np.bool_)
        return lambda: np.less(a, b, out=out), lambda: out.view(np.uint8)

    def cast(x):
        out = np.empty(x.shape, dtype=np.float32 if x.dtype == np.float16 else np.float16)
        return lambda: np.copyto(out, x, casting="unsafe"), lambda: out

    def divide(a, b):  # floats only (CONFIG_TYPES)
        out = np.empty_like(a)
        def run():
            with np.errstate(divide="ignore", invalid="ignore"):
                np.divide(a, b, out=out)
        return run, lambda: out

    def gemm(a, b):
        out = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
        return lambda: np.matmul(a, b, out=out), lambda: out

    def reduce_sum(axes):
        def peer(x):
            holder = {}
            def run():
                holder["out"] = np.sum(x, axis=axes, keepdims=True)
            return run, lambda: holder["out"]
        return peer

    def gather(table, idx):
        flat = idx.reshape(-1); out = np.empty((flat.size, table.shape[1]), dtype=table.dtype)
        return lambda: np.take(table, flat, axis=0, out=out), lambda: out

    def join(*xs):
        out = np.empty((1, 64 * len(xs), 256, 256), dtype=xs[0].dtype)
        return lambda: np.concatenate(xs, axis=1, out=out), lambda: out

    def split(x):  # np.split gives views: each part copied out
        outs = [np.empty((1, 64, 256, 256), dtype=x.dtype) for _ in range(4)]
        def run():
            for o, part in zip(outs, np.split(x, 4, axis=1)):
                np.copyto(o, part)
        return run, lambda: outs[0]  # bench_ops dumps the first output only

    def padding(x):
        holder = {}
        def run():
            holder["out"] = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="constant")
        return run, lambda: holder["out"]

    def tile(x):
        holder = {}
        def run():
            holder["out"] = np.tile(x, (1, 1, 2, 2))
        return run, lambda: holder["out"]

    def depth_to_space(x):  # DCR, as the torch peer
        out = np.empty((1, 64, 256, 256), dtype=x.dtype)
        src, dst = x.reshape(1, 2, 2, 64, 128, 128).transpose(0, 3, 4, 1, 5, 2), out.reshape(1, 64, 128, 2, 128, 2)
        return lambda: np.copyto(dst, src), lambda: out

    # numpy's integer division floors (floor_divide): no peer for DIVIDE's truncation.
    elementwise = {"add": binary(np.add), "add_broadcast": broadcast_add, "subtract": binary(np.subtract),
                   "multiply": binary(np.multiply),
                   "divide": divide, "max": binary(np.maximum), "sqrt": sqrt, "less_than": less_than, "cast": cast,
                   "modulus_truncate": binary(np.fmod), "modulus_floor": binary(np.remainder)}
    return {**elementwise, "relu": relu, "relu_grad": relu_grad, "clip1": clip1, "clip_grad1": clip_grad1, "slice_grad": slice_grad,
            "gemm": gemm, "reduce_sum": reduce_sum((0, 1)), "reduce_sum_axis": reduce_sum((1,)),
            "reduce_sum_cached": reduce_sum((0, 1)),
            "gather": gather, "join": join, "split": split, "padding": padding, "tile": tile,
            "depth_to_space": depth_to_space}


# Input shapes (in bench_ops' field order) and whether the peer must match bit for bit.
CONFIGS = {
    "add": ([(FLAT,), (FLAT,)], True),
    "add_broadcast": ([(FLAT,), (1, 4096)], True),
    "subtract": ([(FLAT,), (FLAT,)], True),
    "multiply": ([(FLAT,), (FLAT,)], True),
    "divide": ([(FLAT,), (FLAT,)], True),
    "max": ([(FLAT,), (FLAT,)], True),
    "divide_integer": ([(FLAT,), (FLAT,)], True),
    "modulus_truncate": ([(FLAT,), (FLAT,)], True),
    "modulus_floor": ([(FLAT,), (FLAT,)], True),
    "sqrt": ([(FLAT,)], True),
    "less_than": ([(FLAT,), (FLAT,)], True),
    "cast": ([(FLAT,)], True),
    "relu": ([(FLAT,)], True),
    "relu_grad": ([(FLAT,), (FLAT,)], True),
    "clip1": ([(FLAT,)], True),
    "clip_grad1": ([(FLAT,), (FLAT,)], True),
    "slice_grad": ([(1, 64, 127, 127)], True),
    "resample2_linear": ([(1, 32, 256, 256)], False),
    "resample2_nearest": ([(1, 32, 256, 256)], True),
    "resample_grad1_linear": ([(1, 32, 512, 512)], False),
    "resample_grad1_nearest": ([(1, 32, 512, 512)], False),
    "max_pooling2": ([(1, 64, 224, 224)], True),
    "max_pooling_grad": ([(1, 64, 224, 224), (1, 64, 112, 112)], False),
    "average_pooling": ([(1, 16, 64, 64)], False),
    "average_pooling_large": ([(1, 64, 112, 112)], False),
    "average_pooling_grad": ([(1, 64, 56, 56)], False),
    "batch_normalization": ([(1, 64, 112, 112)] + [(1, 64, 1, 1)] * 4, False),
    "batch_normalization_training": ([(1, 64, 112, 112)] + [(1, 64, 1, 1)] * 2, False),
    "batch_normalization_grad": ([(1, 64, 112, 112)] * 2 + [(1, 64, 1, 1)] * 3, False),
    "batch_normalization_training_grad": ([(1, 64, 112, 112)] * 2 + [(1, 64, 1, 1)] * 3, False),
    "lrn": ([(1, 16, 16, 16)], False),
    "lrn_large": ([(1, 96, 55, 55)], False),
    "lrn_grad_large": ([(1, 96, 55, 55), (1, 96, 55, 55)], False),
    "gemm": ([(1024, 1024), (1024, 1024)], False),
    "conv_resnet": ([(1, 256, 56, 56), (256, 256, 3, 3)], False),
    "reduce_sum": ([(4096, 4096)], False),
    "reduce_sum_axis": ([(4096, 4096)], False),
    "reduce_sum_cached": ([(512, 512)], False),
    "gather": ([(32768, 4096), (1, 8192)], True),
    "join": ([(1, 64, 256, 256)] * 4, True),
    "split": ([(1, 256, 256, 256)], True),
    "padding": ([(1, 64, 256, 256)], True),
    "tile": ([(1, 64, 128, 128)], True),
    "depth_to_space": ([(1, 256, 128, 128)], True),
    "roi_align": ([(1, 256, 56, 56), (128, 4), (128,)], False),
    "roi_align_grad": ([(1, 256, 56, 56), (128, 256, 7, 7), (128, 4), (128,)], False),
}
# Index inputs (by position): their type and the range of bench_ops' index(i, seed), not values().
INDEX_INPUTS = {"gather": {1: (np.int64, 32768)}, "roi_align": {2: (np.uint32, 1)}, "roi_align_grad": {3: (np.uint32, 1)}}
# Region inputs (by position): the extent of bench_ops' regions(seed, extent), not values().
REGION_INPUTS = {"roi_align": {1: 224.0}, "roi_align_grad": {2: 224.0}}
# Inputs (by position) that bench_ops makes positive (Config::positive): BATCH_NORMALIZATION's Variance,
# the integer divisions' divisors.
POSITIVE_INPUTS = {"batch_normalization": {2}, "batch_normalization_grad": {3}, "batch_normalization_training_grad": {3},
                   "divide_integer": {1}, "modulus_truncate": {1}, "modulus_floor": {1}}  # divisors 50..99
# Peers that round on the way (float32 or float16 arithmetic) are checked against dmlref's
# correctly rounded results within a tolerance: the largest difference relative to the largest
# |result|, per type. Exact configurations must match bit for bit.
TOLERANCE = {"FLOAT32": 1e-5, "FLOAT16": 4e-3}
# A sum's peers are judged relative to the sum of |x| over its terms (the largest over the
# outputs) rather than to the result: their error is a multiple of it, and the result of 16M
# terms in [-1, 1) is small beside it.
CHECK_SCALE = {"reduce_sum": lambda x: float(np.abs(x.astype(np.float64)).sum()),
               "reduce_sum_axis": lambda x: float(np.abs(x.astype(np.float64)).sum(axis=1).max())}
CHECK_SCALE["reduce_sum_cached"] = CHECK_SCALE["reduce_sum"]
TYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32, "INT8": np.int8}
# The types each configuration runs in (FLOAT32 and FLOAT16 unless named here): the element-wise
# operators' integer rows too (DIVIDE and SQRT: floats; integer division is divide_integer and the
# moduli, with positive divisors: division by zero is a policy, not a speed). Outputs of another
# type than the inputs: OUT_TYPE.
CONFIG_TYPES = {name: ("FLOAT32", "FLOAT16", "INT32", "INT8") for name in ("add", "add_broadcast", "subtract", "multiply", "max", "less_than",
                                                                   "cast")}
for name in ("divide_integer", "modulus_truncate", "modulus_floor"):  # integer division (DIVIDE's floats: "divide")
    CONFIG_TYPES[name] = ("INT32", "INT8")
CONFIG_TYPES["gemm"] = ("FLOAT32",)  # numpy's FLOAT16 matmul has no BLAS: minutes at 1024^3
CONFIG_TYPES["reduce_sum"] = CONFIG_TYPES["reduce_sum_axis"] = CONFIG_TYPES["reduce_sum_cached"] = ("FLOAT32",)
for name in ("gather", "join", "split", "padding", "tile", "depth_to_space"):  # the two float widths of a model's tensors
    CONFIG_TYPES[name] = ("FLOAT32", "FLOAT16")
OUT_TYPE = {"less_than": lambda t: np.uint8, "cast": lambda t: np.float32 if t == "FLOAT16" else np.float16}

# The goals on one core: (configuration, type) -> (peer, least ratio). The summed grads and the
# forward operators first.
GOALS = {("resample_grad1_linear", "FLOAT32"): ("pytorch", 2.0), ("resample_grad1_nearest", "FLOAT32"): ("pytorch", 2.0),
         ("max_pooling_grad", "FLOAT32"): ("pytorch", 2.0), ("resample2_linear", "FLOAT32"): ("pytorch", 1.0),
         ("resample2_nearest", "FLOAT32"): ("pytorch", 1.0), ("max_pooling2", "FLOAT32"): ("pytorch", 1.0),
         ("clip1", "FLOAT32"): ("pytorch", 1.0), ("relu_grad", "FLOAT32"): ("pytorch", 1.0),
         ("clip_grad1", "FLOAT32"): ("pytorch", 1.0), ("slice_grad", "FLOAT32"): ("numpy", 1.0)}
# GEMM's bar: the golden within 4 times PyTorch's float32 matmul (one core and all cores).
GOALS[("gemm", "FLOAT32")] = ("pytorch", 0.25)
# And a ResNet-50 3x3 convolution layer's golden within 4 times PyTorch's conv2d.
GOALS[("conv_resnet", "FLOAT32")] = ("pytorch", 0.25)
# REDUCE SUM: the correctly rounded sum at least as fast as numpy's (pairwise, in float32).
GOALS[("reduce_sum", "FLOAT32")] = GOALS[("reduce_sum_axis", "FLOAT32")] = ("numpy", 1.0)
# Data movement: at memory speed, at least PyTorch's speed (one core and all cores).
for name in ("gather", "join", "split", "padding", "tile", "depth_to_space"):
    for tname in ("FLOAT32", "FLOAT16"):
        GOALS[(name, tname)] = ("pytorch", 1.0)
# The computed values: average pooling and its grad (correctly rounded goldens through a
# float64 error bound) at least as fast as PyTorch CPU, one core and all cores.
for name in ("average_pooling", "average_pooling_large", "average_pooling_grad"):
    for tname in ("FLOAT32", "FLOAT16"):
        GOALS[(name, tname)] = ("pytorch", 1.0)
# ROI align and its grad: at least half PyTorch's (torchvision's) speed.
for tname in ("FLOAT32", "FLOAT16"):
    GOALS[("roi_align", tname)] = GOALS[("roi_align_grad", tname)] = ("pytorch", 0.5)
# Batch normalization: at least half PyTorch CPU's speed.
for name in ("batch_normalization", "batch_normalization_training", "batch_normalization_grad",
             "batch_normalization_training_grad"):
    for tname in ("FLOAT32", "FLOAT16"):
        GOALS[(name, tname)] = ("pytorch", 0.5)
# FLOAT16: the goal ">= 10 against numpy where numpy computes" is for the summed and forward
# operators; numpy computes none of the summed ones, so it is RELU and CLIP1. The element-wise
# grads are copy-speed operators: in FLOAT16 too, at least PyTorch's
# speed, which runs them at the memory floor. Their numpy ratio is still printed.
for name in ("relu", "clip1"):
    GOALS[(name, "FLOAT16")] = ("numpy", 10.0)
for name in ("relu_grad", "clip_grad1"):
    GOALS[(name, "FLOAT16")] = ("pytorch", 1.0)
# The element-wise operators are copy-speed operators: every row at least PyTorch's speed.
for name in ("add", "add_broadcast", "subtract", "multiply", "divide", "max", "sqrt", "less_than", "cast",
             "divide_integer", "modulus_truncate", "modulus_floor"):
    for tname in CONFIG_TYPES.get(name, ("FLOAT32", "FLOAT16")):
        GOALS[(name, tname)] = ("pytorch", 1.0)

peers = {}
if torch is not None:
    peers["pytorch"] = torch_peers()
peers["numpy"] = numpy_peers()

env = dict(os.environ)
if threads:
    env["OMP_NUM_THREADS"] = str(threads)
cpu = platform.processor() or platform.machine()
try:
    with open("/proc/cpuinfo") as f:
        info = f.read().splitlines()
    cpu = next(l.split(":", 1)[1].strip() for l in info if l.startswith("model name"))
    flags = set(next(l.split(":", 1)[1] for l in info if l.startswith("flags")).split())
    vector = [v for v in ("avx512f", "avx2", "f16c") if v in flags]  # which clones the fast paths take
    cpu += f" ({', '.join(vector) or 'no AVX'})"
    cache = os.sysconf("SC_LEVEL3_CACHE_SIZE") if "SC_LEVEL3_CACHE_SIZE" in os.sysconf_names else 0
    if cache > 0:
        cpu += f", L3 {cache >> 20} MiB"
except (OSError, StopIteration, ValueError):
    pass
print(f"dmlref bench_ops vs {', '.join(f'{k} {v}' for k, v in [('torch', torch.__version__ if torch else 'absent'), ('numpy', np.__version__)])}")
print(f"machine: {cpu}, {os.cpu_count()} logical CPUs, affinity {sorted(os.sched_getaffinity(0))[:4]}..., threads {threads or 'all'}; best of {repeats}, {rounds} rounds")
print("ratio = peer time / dmlref time (above 1: dmlref faster; the median over the rounds of each round's ratio); check: peer result")
print("  against dmlref's (exact, or max relative difference")
print(f"  against the tolerance: {', '.join(f'{k} {v:g}' for k, v in TOLERANCE.items())}; dmlref is correctly rounded, the peers round on the way)")
print(f"{'operator':24} {'type':8} {'floor ms':>9} {'dmlref ms':>10} {'pytorch ms':>11} {'ratio':>7} {'numpy ms':>9} {'ratio':>7}  check")
verdicts = []  # (row, goal met) for the rows with a goal
with tempfile.TemporaryDirectory() as tmp:
    for name, (shapes, exact) in CONFIGS.items():
        if only is not None and name not in only:
            continue
        for tname in CONFIG_TYPES.get(name, ("FLOAT32", "FLOAT16")):
            dtype = TYPES[tname]
            if types_kept is not None and tname not in types_kept:
                continue
            dump = os.path.join(tmp, "out.bin")
            index = INDEX_INPUTS.get(name, {})
            region = REGION_INPUTS.get(name, {})
            positive = POSITIVE_INPUTS.get(name, set())
            inputs = [index_values(s, k + 1, *index[k]) if k in index
                      else region_values(s, k + 1, dtype, region[k]) if k in region
                      else values(s, k + 1, dtype, k in positive) for k, s in enumerate(shapes)]
            runs, times, failed = {}, {}, {}  # per peer: (run, result), best time, exception
            for peer in ("pytorch", "numpy"):
                f = peers.get(peer, {}).get(name)
                if f is not None:
                    try:
                        runs[peer] = f(*inputs)
                    except Exception as e:
                        failed[peer] = e
            t_dml = t_floor = None
            round_ratios = {}  # per peer: its time over dmlref's, in each round
            for round_ in range(rounds):  # each in turn, best of each
                r = subprocess.run([binary, f"{name}:{tname}", str(repeats), dump], capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    t_dml = None
                    break
                t = float(r.stdout.split()[1])
                t_dml = min(t_dml or 1e30, t)
                fl = subprocess.run([binary, "--floor", f"{name}:{tname}", str(repeats)], capture_output=True, text=True, env=env)
                if fl.returncode == 0:
                    t_floor = min(t_floor or 1e30, float(fl.stdout.split()[1]))
                for peer, (run, _) in list(runs.items()):
                    try:
                        tp = best(run)
                    except Exception as e:  # a type the peer does not compute
                        failed[peer] = e
                        del runs[peer]
                        continue
                    times[peer] = min(times.get(peer, 1e30), tp)
                    round_ratios.setdefault(peer, []).append(tp / t)
            if t_dml is None:
                print(f"{name:24} {tname:8} dmlref failed: {r.stderr.strip()}")
                continue
            ours = np.fromfile(dump, dtype=OUT_TYPE[name](tname) if name in OUT_TYPE else dtype)
            row = f"{name:24} {tname:8} {t_floor * 1e3 if t_floor else float('nan'):9.2f} {t_dml * 1e3:10.2f}"
            checks = []
            ratios = {}
            for peer in ("pytorch", "numpy"):
                width = 11 if peer == "pytorch" else 9
                if peer in failed:
                    row += f" {'n/a':>{width}} {'':>7}"
                    checks.append(f"{peer}: {type(failed[peer]).__name__}")
                    continue
                if peer not in runs:
                    row += f" {'-':>{width}} {'-':>7}"
                    continue
                t = times[peer]
                try:
                    res = np.asarray(runs[peer][1](), dtype=dtype).reshape(-1)
                except Exception as e:
                    row += f" {'n/a':>{width}} {'':>7}"
                    checks.append(f"{peer}: {type(e).__name__}")
                    continue
                ratios[peer] = statistics.median(round_ratios[peer])
                row += f" {t * 1e3:{width}.2f} {ratios[peer]:7.2f}"
                mine = ours[: res.size] if res.size <= ours.size else ours
                if exact:
                    same = res.size == mine.size and np.array_equal(res, mine, equal_nan=True)
                    checks.append(f"{peer} {'same' if same else 'DIFFERS'}")
                else:
                    scale = CHECK_SCALE[name](inputs[0]) if name in CHECK_SCALE else float(np.max(np.abs(mine.astype(np.float64))))
                    scale = scale or 1.0
                    diff = float(np.max(np.abs(res.astype(np.float64) - mine.astype(np.float64)))) / scale
                    tol = TOLERANCE[tname]
                    checks.append(f"{peer} {diff:.1e} {'within' if diff <= tol else 'BEYOND'} {tol:g}")
            goal = GOALS.get((name, tname)) if threads == 1 else None
            if goal and goal[0] in ratios:
                met = ratios[goal[0]] >= goal[1]
                text = f"goal {goal[0]} >= {goal[1]:g}: {'met' if met else 'NOT met'}"
                if not met:
                    # How far the rounds spread: a median just under the goal whose rounds reach over it
                    # is within this machine's noise, which the reader should see beside the verdict.
                    spread = round_ratios[goal[0]]
                    notes = [f"rounds {min(spread):.2f} to {max(spread):.2f}"] if len(spread) > 1 else []
                    if t_floor:
                        reach = times[goal[0]] / t_floor  # the peer's time over the floor
                        notes.append(f"at the memory floor: {reach:.2f}{', beyond reach' if reach < goal[1] else ''}")
                    if notes:
                        text += f" ({'; '.join(notes)})"
                checks.append(text)
                verdicts.append((f"{name} {tname}", met))
            print(row + "  " + ", ".join(checks), flush=True)
if verdicts:
    unmet = [row for row, met in verdicts if not met]
    print(f"goals on one core: {len(verdicts) - len(unmet)} of {len(verdicts)} met" + (f"; not met: {', '.join(unmet)}" if unmet else ""))
