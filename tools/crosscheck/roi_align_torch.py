#!/usr/bin/env python3
# ROI align on a CUDA GPU for the cross-check (docs/crosscheck-gpu.md, "ROI align"):
#   python3 tools/crosscheck/roi_align_torch.py CORPUS OUT
# Reads the corpus's JSON cases (literal inputs), runs each with
#   "torch": the page's formula written in float32 torch ops on CUDA (FLOAT16 data in float16),
#            forward and, through autograd, dX and the ROI gradient;
#   "torchvision": torchvision.ops.roi_align (aligned=True, fixed sampling_ratio) where the case
#            is one it can express (AVERAGE, LINEAR, offsets 0.5 / -0.5, no corner alignment),
#            when torchvision is installed;
#   "torch_max_in_bounds": the torch backend whose MAX (grad cases) skips out-of-bounds samples, as
#            DirectML's grad does in dmlref's reading (the "torch" backend gives them the value 0);
#   "planted_offset", "planted_samples": the torch backend with a planted bug (InputPixelOffset
#            read 1/2 lower; one sample more per axis), grad cases only: each must fail;
# and writes OUT/<backend>.zip holding actual/<case>/<Output>.npy, plus OUT/versions.txt.
import io, json, os, sys, zipfile
import numpy as np
import torch

def load(path):
    with open(path) as f:
        return json.load(f)

def dtype_of(name):
    return {"FLOAT32": torch.float32, "FLOAT16": torch.float16}[name]

def formula(d, x, rois, batch, out_hw, max_in_bounds=False):
    """The page's ROI_ALIGN1 in torch ops; x (B,C,H,W) in the data type, rois (R,4) float32."""
    B, C, H, W = x.shape
    oh, ow = out_hw
    S = d["MinimumSamplesPerOutput"]
    ipo, opo = d["InputPixelOffset"], d["OutputPixelOffset"]
    corners = d.get("AlignRegionsToCorners", 0) == 1
    sx, sy = d["SpatialScaleX"], d["SpatialScaleY"]
    linear = d["InterpolationMode"] == "LINEAR"
    oob_value = d.get("OutOfBoundsInputValue", 0.0)
    outs = []
    for r in range(rois.shape[0]):
        img = x[int(batch[r])]
        def axis(a, b, n_out, size):
            n = n_out * S
            s = torch.arange(n, device=x.device, dtype=torch.float32)
            t = (s - opo) / (n - 1) if corners and n > 1 else ((s - opo) / n if not corners else s * 0 + 0.5)
            c = a + t * (b - a) - ipo
            oob = (c < -1) | (c > size)
            cc = torch.clamp(c, 0, size - 1)
            if linear:
                i0 = torch.floor(cc).long()
                i1 = torch.clamp(i0 + 1, max=size - 1)
                l = cc - i0.float()
                return oob, i0, i1, l
            i = torch.ceil(cc - 0.5).long()
            return oob, i, i, torch.zeros_like(cc)
        oy, y0, y1, ly = axis(rois[r, 1] * sy, rois[r, 3] * sy, oh, H)
        ox, x0, x1, lx = axis(rois[r, 0] * sx, rois[r, 2] * sx, ow, W)
        ly = ly.to(x.dtype)[:, None]
        lx = lx.to(x.dtype)[None, :]
        g = lambda yi, xi: img[:, yi][:, :, xi]
        v = (1 - ly) * (1 - lx) * g(y0, x0) + (1 - ly) * lx * g(y0, x1) + ly * (1 - lx) * g(y1, x0) + ly * lx * g(y1, x1)
        mask = (oy[:, None] | ox[None, :])
        # max_in_bounds: MAX chooses among the in-bounds samples only (dmlref's RoiAlignMax for the grad).
        fill = float("-inf") if max_in_bounds and d["ReductionFunction"] == "MAX" else oob_value
        v = torch.where(mask[None], torch.full_like(v, fill), v)
        v = v.reshape(C, oh, S, ow, S).permute(0, 1, 3, 2, 4).reshape(C, oh, ow, S * S)
        if d["ReductionFunction"] == "MAX":
            v = v.max(dim=-1).values
        else:
            v = v.mean(dim=-1)
        outs.append(v)
    return torch.stack(outs)

def run_torch(c, dev, plant=None, max_in_bounds=False):
    d, inp = dict(c["desc"]), c["inputs"]
    if plant == "offset":  # a half-pixel-offset reading
        d["InputPixelOffset"] = d["InputPixelOffset"] - 0.5
    elif plant == "samples":  # one sample more per output along each axis
        d["MinimumSamplesPerOutput"] = d["MinimumSamplesPerOutput"] + 1
    grad = c["operator"].endswith("ROI_ALIGN_GRAD")
    dt = dtype_of(d["InputTensor"]["DataType"])
    x = torch.tensor(inp["InputTensor"], dtype=dt, device=dev).reshape(d["InputTensor"]["Sizes"]).requires_grad_(grad)
    rois = torch.tensor(inp["ROITensor"], dtype=torch.float32, device=dev).reshape(-1, 4).requires_grad_(grad)
    batch = inp["BatchIndicesTensor"]
    pooled = d["InputGradientTensor" if grad else "OutputTensor"]["Sizes"]
    y = formula(d, x, rois, batch, (pooled[2], pooled[3]), max_in_bounds)
    if not grad:
        return {"OutputTensor": y.detach()}
    dy = torch.tensor(inp["InputGradientTensor"], dtype=dt, device=dev).reshape(pooled)
    y.backward(dy)
    out = {"OutputGradientTensor": x.grad}
    if "OutputROIGradientTensor" in d:
        out["OutputROIGradientTensor"] = rois.grad.to(dt)
    return out

def run_torchvision(c, dev):
    import torchvision
    d, inp = c["desc"], c["inputs"]
    if d["ReductionFunction"] != "AVERAGE" or d["InterpolationMode"] != "LINEAR" or d.get("AlignRegionsToCorners", 0) \
            or d["InputPixelOffset"] != 0.5 or d["OutputPixelOffset"] != -0.5 or d.get("OutOfBoundsInputValue", 0) != 0 \
            or d["SpatialScaleX"] != d["SpatialScaleY"]:
        return None
    grad = c["operator"].endswith("ROI_ALIGN_GRAD")
    dt = dtype_of(d["InputTensor"]["DataType"])
    x = torch.tensor(inp["InputTensor"], dtype=dt, device=dev).reshape(d["InputTensor"]["Sizes"]).requires_grad_(grad)
    r = torch.tensor(inp["ROITensor"], dtype=dt, device=dev).reshape(-1, 4)
    b = torch.tensor(inp["BatchIndicesTensor"], dtype=dt, device=dev).reshape(-1, 1)
    pooled = d["InputGradientTensor" if grad else "OutputTensor"]["Sizes"]
    y = torchvision.ops.roi_align(x, torch.cat([b, r], 1), (pooled[2], pooled[3]), spatial_scale=d["SpatialScaleX"],
                                  sampling_ratio=d["MinimumSamplesPerOutput"], aligned=True)
    if not grad:
        return {"OutputTensor": y.detach()}
    y.backward(torch.tensor(inp["InputGradientTensor"], dtype=dt, device=dev).reshape(pooled))
    return {"OutputGradientTensor": x.grad}  # torchvision has no ROI gradient

def main():
    corpus, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    dev = "cuda"
    versions = [f"torch {torch.__version__}", f"device {torch.cuda.get_device_name(0)}"]
    backends = {"torch": run_torch,
                # The grad's MAX among in-bounds samples only (dmlref's reading); MAX grad cases only.
                "torch_max_in_bounds": lambda c, dev: run_torch(c, dev, max_in_bounds=True)
                if c["operator"] == "ROI_ALIGN_GRAD" and c["desc"]["ReductionFunction"] == "MAX" else None,
                # Planted bugs (grad cases only): each must fail dmlref diff.
                "planted_offset": lambda c, dev: run_torch(c, dev, "offset") if c["operator"] == "ROI_ALIGN_GRAD" else None,
                "planted_samples": lambda c, dev: run_torch(c, dev, "samples") if c["operator"] == "ROI_ALIGN_GRAD" else None}
    try:
        import torchvision
        versions.append(f"torchvision {torchvision.__version__}")
        backends["torchvision"] = run_torchvision
    except Exception as e:  # noqa: BLE001
        versions.append(f"torchvision: not available ({type(e).__name__}: {e})")
    for name, fn in backends.items():
        with zipfile.ZipFile(os.path.join(out, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(os.listdir(corpus)):
                if not f.endswith(".json"):
                    continue
                c = load(os.path.join(corpus, f))
                try:
                    res = fn(c, dev)
                except Exception as e:  # noqa: BLE001
                    print(f"{name} {c['name']}: {type(e).__name__}: {e}")
                    continue
                if res is None:
                    continue
                for field, t in res.items():
                    buf = io.BytesIO()
                    np.save(buf, t.detach().cpu().numpy())
                    z.writestr(f"actual/{c['name']}/{field}.npy", buf.getvalue())
                print(f"{name} {c['name']}: {', '.join(res)}")
    with open(os.path.join(out, "versions.txt"), "w") as f:
        f.write("\n".join(versions) + "\n")
    print("\n".join(versions))

if __name__ == "__main__":
    main()
