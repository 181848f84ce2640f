# Does PyTorch CPU's float32 sqrt round correctly? Against numpy's (IEEE square root), on one
# thread and on 16, on random bit patterns of positive floats (normal and subnormal):
#   python3 bench/sqrt_rounding.py
import numpy as np, torch, sys
rng = np.random.default_rng(1)
bits = rng.integers(0, 0x7F800000, size=1 << 24, dtype=np.uint32)
x = bits.view(np.float32)
ref = np.sqrt(x)
for threads in (1, 16):
    torch.set_num_threads(threads)
    for n in (x.size, 15, 16, 64):
        t = torch.sqrt(torch.from_numpy(x[:n].copy())).numpy()
        bad = np.nonzero(t.view(np.uint32) != ref[:n].view(np.uint32))[0]
        ulps = np.abs(t[bad].view(np.int32).astype(np.int64) - ref[:n][bad].view(np.int32).astype(np.int64))
        sub = np.count_nonzero(x[:n][bad] < np.float32(1.1754944e-38))
        print(f"threads {threads} n {n}: {bad.size} differ (max {ulps.max() if bad.size else 0} ulp, {sub} subnormal inputs)",
              [(float(x[i]), float(t[i]), float(ref[i])) for i in bad[:3]])
print(torch.__config__.show()[:600])
