#!/usr/bin/env python3
# Writes the ROI align cross-check corpus (docs/crosscheck-gpu.md, "ROI align"): cases with literal,
# seeded inputs (no numpy needed), fixed sample counts (torchvision's adaptive count never differs),
# dyadic regions (a float32 backend's sample coordinates are exact), and six "inexact" cases whose
# regions on a 1/10 grid and SpatialScale 0.7 make every float32 coordinate inexact.
#   python3 tools/crosscheck/roi_align_corpus.py CORPUS
import json, os, random, struct, sys

def tensor(dt, sizes): return {"DataType": dt, "Sizes": sizes}

def case(name, op, dt, *, red="AVERAGE", mode="LINEAR", ipo=0.5, opo=-0.5, corners=0, samples=2, outside=False,
         image=(2, 8, 24, 24), out=(7, 7), regions=12, droi=True, seed=0, grid=8, scale=1):
    rng = random.Random(name)
    b, c, h, w = image
    lo = -6 if outside else 0
    rois, batch = [], []
    for _ in range(regions):
        x1, x2 = sorted(rng.randint(lo * grid, (w + (6 if outside else 0)) * grid) / grid for _ in range(2))
        y1, y2 = sorted(rng.randint(lo * grid, (h + (6 if outside else 0)) * grid) / grid for _ in range(2))
        # Rounded to the data type, so that every backend reads the same region.
        fmt = "e" if dt == "FLOAT16" else "f"
        rois += [struct.unpack(fmt, struct.pack(fmt, v))[0] for v in (x1, y1, x2, y2)]
        batch.append(rng.randrange(b))
    x = [rng.randint(-256, 256) / 64 for _ in range(b * c * h * w)]
    pooled = [regions, c, out[0], out[1]]
    d = {"InputTensor": tensor(dt, list(image))}
    grad = op == "ROI_ALIGN_GRAD"
    if grad:
        d["InputGradientTensor"] = tensor(dt, pooled)
    d["ROITensor"] = tensor(dt, [regions, 4])
    d["BatchIndicesTensor"] = tensor("UINT32", [regions])
    if grad:
        d["OutputGradientTensor"] = tensor(dt, list(image))
        if droi: d["OutputROIGradientTensor"] = tensor(dt, [regions, 4])
    else:
        d["OutputTensor"] = tensor(dt, pooled)
    d.update({"ReductionFunction": red, "InterpolationMode": mode, "SpatialScaleX": scale, "SpatialScaleY": scale,
              "InputPixelOffset": ipo, "OutputPixelOffset": opo})
    if not grad: d["OutOfBoundsInputValue"] = 0
    d.update({"MinimumSamplesPerOutput": samples, "MaximumSamplesPerOutput": samples, "AlignRegionsToCorners": corners})
    inputs = {"InputTensor": x, "ROITensor": rois, "BatchIndicesTensor": batch}
    if grad:
        inputs["InputGradientTensor"] = [rng.randint(-256, 256) / 64 for _ in range(regions * c * out[0] * out[1])]
    return {"format": 1, "name": name, "description": "ROI align GPU cross-check corpus (docs/crosscheck-gpu.md)",
            "operator": op, "desc": d, "inputs": inputs}

def corpus():
    for dt, t in (("FLOAT32", "f32"), ("FLOAT16", "f16")):
        yield case(f"fwd_{t}_avg_linear_aligned", "ROI_ALIGN1", dt)
        yield case(f"fwd_{t}_avg_linear_outside", "ROI_ALIGN1", dt, outside=True)
        yield case(f"fwd_{t}_max_linear", "ROI_ALIGN1", dt, red="MAX")
        yield case(f"grad_{t}_avg_linear_aligned", "ROI_ALIGN_GRAD", dt)
        yield case(f"grad_{t}_avg_linear_outside", "ROI_ALIGN_GRAD", dt, outside=True)
        yield case(f"grad_{t}_max_linear", "ROI_ALIGN_GRAD", dt, red="MAX")
    yield case("fwd_f32_avg_nearest", "ROI_ALIGN1", "FLOAT32", mode="NEAREST_NEIGHBOR", samples=1)
    yield case("fwd_f32_avg_linear_corners", "ROI_ALIGN1", "FLOAT32", ipo=0, opo=0, corners=1, samples=1, out=(8, 8))
    yield case("fwd_f32_avg_linear_s4", "ROI_ALIGN1", "FLOAT32", samples=4)
    yield case("grad_f32_avg_nearest", "ROI_ALIGN_GRAD", "FLOAT32", mode="NEAREST_NEIGHBOR", samples=1, droi=False)
    yield case("grad_f32_avg_linear_corners", "ROI_ALIGN_GRAD", "FLOAT32", ipo=0, opo=0, corners=1, samples=1, out=(8, 8))
    # Inexact float32 coordinates: regions on a 1/10 grid, SpatialScale 0.7 (regions reach past the image).
    for dt, t in (("FLOAT32", "f32"), ("FLOAT16", "f16")):
        yield case(f"fwd_{t}_avg_linear_inexact", "ROI_ALIGN1", dt, outside=True, grid=10, scale=0.7)
        yield case(f"grad_{t}_avg_linear_inexact", "ROI_ALIGN_GRAD", dt, outside=True, grid=10, scale=0.7)
        yield case(f"grad_{t}_max_linear_inexact", "ROI_ALIGN_GRAD", dt, red="MAX", outside=True, grid=10, scale=0.7)

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for c in corpus():
        with open(os.path.join(out, c["name"] + ".json"), "w") as f:
            json.dump(c, f)
        n += 1
    print(f"{n} cases in {out}")
