#!/usr/bin/env python3
"""CONVOLUTION's Winograd profile on emulated backends (docs/tolerance.md, "Winograd convolutions").

Writes a few FORWARD 2-D 3x3 convolution cases of random data (signed and positive, with and
without a bias, both Modes, groups, odd sizes with uneven padding, a fused RELU, FLOAT16), has
dmlref evaluate them, then computes each as a Winograd backend would, in float32 with numpy from
Lavin and Gray's matrices ("Fast Algorithms for Convolutional Neural Networks", 2016): F(2x2, 3x3)
and F(4x4, 3x3), tiles from the origin, zeros outside the input. Planted bugs: F(4x4, 3x3) with
one filter tap dropped, and with G's 1/6 entries rounded to 1/8 (a wrong transform). `dmlref
diff` judges each with and without --allow-winograd and the table says how many cases pass and
the worst error/bound. Needs numpy; not run by the test suite (about a minute on two cores).

Usage: tools/crosscheck/winograd_emulated.py build/tools/dmlref [WORKDIR]
"""
import json, os, re, subprocess, sys, tempfile

import numpy as np

F2 = dict(m=2,
          BT=[[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
          G=[[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]],
          AT=[[1, 1, 1, 0], [0, 1, -1, -1]])
F4 = dict(m=4,
          BT=[[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
              [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]],
          G=[[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
             [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]],
          AT=[[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]])
F4_WRONG = dict(F4, G=[[v if abs(abs(v) - 1 / 6) > 1e-9 else np.sign(v) / 8 for v in row] for row in F4['G']])


def case(name, x, w, t='FLOAT32', mode='CROSS_CORRELATION', start=(1, 1), end=(1, 1), groups=1, bias=False,
         relu=False, lo=-1.0):
    oh = x[2] + start[0] + end[0] - 2
    ow = x[3] + start[1] + end[1] - 2
    desc = {"InputTensor": {"DataType": t, "Sizes": list(x)}, "FilterTensor": {"DataType": t, "Sizes": list(w)},
            "OutputTensor": {"DataType": t, "Sizes": [x[0], w[0], oh, ow]}, "Mode": mode, "Direction": "FORWARD",
            "DimensionCount": 2, "Strides": [1, 1], "Dilations": [1, 1], "StartPadding": list(start),
            "EndPadding": list(end), "OutputPadding": [0, 0], "GroupCount": groups}
    inputs = {"InputTensor": {"Random": {"Seed": 21, "Min": lo, "Max": 1}},
              "FilterTensor": {"Random": {"Seed": 22, "Min": -1, "Max": 1}}}
    if bias:
        desc["BiasTensor"] = {"DataType": t, "Sizes": [1, w[0], 1, 1]}
        inputs["BiasTensor"] = {"Random": {"Seed": 23, "Min": -1, "Max": 1}}
    if relu:
        desc["FusedActivation"] = {"Type": "ACTIVATION_RELU"}
    return name, {"format": 1, "name": name, "operator": "CONVOLUTION", "desc": desc, "inputs": inputs}


CASES = [
    case("w_1x16x20x20_signed_bias", (1, 16, 20, 20), (16, 16, 3, 3), bias=True),
    case("w_1x64x28x28_signed", (1, 64, 28, 28), (32, 64, 3, 3)),
    case("w_1x32x28x28_positive", (1, 32, 28, 28), (32, 32, 3, 3), lo=0.0),
    case("w_2x8x15x17_convolution_uneven", (2, 8, 15, 17), (8, 8, 3, 3), mode='CONVOLUTION', start=(0, 2),
         end=(2, 1)),
    case("w_1x16x14x14_groups4", (1, 16, 14, 14), (16, 4, 3, 3), groups=4, bias=True),
    case("w_1x32x16x16_relu", (1, 32, 16, 16), (16, 32, 3, 3), relu=True, bias=True),
    case("w_1x16x16x16_float16", (1, 16, 16, 16), (16, 16, 3, 3), t='FLOAT16'),
    # Stripes: rows 2 and 3 of every 4 at magnitude 1000, the others at 1/1000. An output whose
    # 3x3 window lies in small rows shares its Winograd tile with large ones, whose rounding
    # errors reach it through the transforms: far beyond its own products' bound.
    case("w_1x8x24x24_stripes", (1, 8, 24, 24), (8, 8, 3, 3)),
]
STRIPES = "w_1x8x24x24_stripes"


def stripes(path):
    x = np.random.default_rng(24).uniform(-1, 1, (1, 8, 24, 24)).astype(np.float32)
    x *= np.where((np.arange(24) // 2) % 2 == 1, 1000, 0.001).astype(np.float32).reshape(1, 1, 24, 1)
    np.save(path, x.ravel())


def winograd(desc, x, w, b, v, drop=False):
    """The convolution by Winograd variant v in float32 (numpy), output in the output's type."""
    m = v['m']
    a = m + 2
    BT, G, AT = (np.array(v[k], dtype=np.float32) for k in ('BT', 'G', 'AT'))
    N, C, H, W = x.shape
    K = w.shape[0]
    groups = desc['GroupCount']
    OH, OW = desc['OutputTensor']['Sizes'][2:]
    sh, sw = desc['StartPadding']
    g = w.astype(np.float32)
    if desc['Mode'] == 'CONVOLUTION':
        g = g[:, :, ::-1, ::-1]
    if drop:
        g = g.copy()
        g[:, 0, 0, 0] = 0
    th, tw = -(-OH // m), -(-OW // m)
    P = np.zeros((N, C, th * m + 2, tw * m + 2), dtype=np.float32)
    r0, c0 = max(0, -sh), max(0, -sw)  # input rows and columns before the patch grid starts
    rows = min(H - r0, P.shape[2] - (sh + r0))
    cols = min(W - c0, P.shape[3] - (sw + c0))
    P[:, :, sh + r0:sh + r0 + rows, sw + c0:sw + c0 + cols] = x[:, :, r0:r0 + rows, c0:c0 + cols]
    d = np.lib.stride_tricks.sliding_window_view(P, (a, a), axis=(2, 3))[:, :, ::m, ::m]  # N C th tw a a
    V = np.einsum('ia,nctwab,jb->nctwij', BT, d, BT, dtype=np.float32)
    U = np.einsum('ia,kcab,jb->kcij', G, g, G, dtype=np.float32)
    Kg, Cg = K // groups, C // groups
    M = np.zeros((N, K, th, tw, a, a), dtype=np.float32)
    for q in range(groups):
        M[:, q * Kg:(q + 1) * Kg] = np.einsum('kcij,nctwij->nktwij', U[q * Kg:(q + 1) * Kg],
                                              V[:, q * Cg:(q + 1) * Cg], dtype=np.float32)
    Y = np.einsum('ia,nktwab,jb->nktiwj', AT, M, AT, dtype=np.float32).reshape(N, K, th * m, tw * m)[:, :, :OH, :OW]
    if b is not None:
        Y = Y + b.reshape(1, K, 1, 1).astype(np.float32)
    if 'FusedActivation' in desc:
        Y = np.maximum(Y, np.float32(0))
    return Y.astype(np.float16 if desc['OutputTensor']['DataType'] == 'FLOAT16' else np.float32)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dmlref = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix='winograd-')
    for d in ('goldens', 'npy', 'actual'):
        if os.path.exists(os.path.join(work, d)):
            sys.exit('%s exists: give an empty WORKDIR' % os.path.join(work, d))
    # The cases are written where their goldens go (the stripes case reads a .npy beside it).
    os.makedirs(os.path.join(work, 'goldens'))
    for name, c in CASES:
        if name == STRIPES:
            stripes(os.path.join(work, 'goldens', name + '.InputTensor.npy'))
            c['inputs']['InputTensor'] = {"Npy": name + '.InputTensor.npy'}
        with open(os.path.join(work, 'goldens', name + '.json'), 'w') as f:
            json.dump(c, f)
    subprocess.run([dmlref, 'run', os.path.join(work, 'goldens'), '-o', os.path.join(work, 'goldens'), '--npy',
                    os.path.join(work, 'npy')], check=True, stdout=subprocess.DEVNULL)
    backends = {'F(2x2, 3x3)': dict(v=F2), 'F(4x4, 3x3)': dict(v=F4),
                'F(4x4, 3x3), a filter tap dropped (planted)': dict(v=F4, drop=True),
                'F(4x4, 3x3), 1/6 as 1/8 in G (planted)': dict(v=F4_WRONG)}
    for label, kw in backends.items():
        out = os.path.join(work, 'actual', re.sub(r'[^a-z0-9]+', '_', label.lower()).strip('_'))
        for name, c in CASES:
            npy = os.path.join(work, 'npy', name)
            sizes = lambda f: c['desc'][f]['Sizes']  # packed: each buffer is its Sizes in row-major order
            x = np.load(os.path.join(npy, 'InputTensor.npy')).reshape(sizes('InputTensor'))
            w = np.load(os.path.join(npy, 'FilterTensor.npy')).reshape(sizes('FilterTensor'))
            bp = os.path.join(npy, 'BiasTensor.npy')
            b = np.load(bp) if os.path.exists(bp) else None
            y = winograd(c['desc'], x, w, b, **kw)
            os.makedirs(os.path.join(out, name), exist_ok=True)
            np.save(os.path.join(out, name, 'OutputTensor.npy'), y)
        kw['dir'] = out
    print('| backend | default: cases passing, worst error/bound | --allow-winograd: cases passing, worst error/bound |')
    print('|---|---|---|')
    for label, kw in backends.items():
        cells = []
        for flags in ([], ['--allow-winograd']):
            r = subprocess.run([dmlref, 'diff', os.path.join(work, 'goldens'), kw['dir'], '--format', 'json'] + flags,
                               capture_output=True, text=True)
            rep = json.loads(r.stdout)
            cases = rep['cases']
            passed = sum(1 for k in cases if k.get('status') == 'pass')
            kw.setdefault('passing', []).append(sorted(k['name'] for k in cases if k.get('status') == 'pass'))
            worst = max((o.get('worst_ratio', 0) or 0 for k in cases for o in k.get('outputs', [])), default=0)
            cells.append('%d of %d, %.3g' % (passed, len(cases), worst))
        print('| %s | %s | %s |' % (label, cells[0], cells[1]))
    for label, kw in backends.items():
        if 'planted' in label and any(kw['passing']):
            print('%s passes: %s' % (label, ', '.join(sorted(set(sum(kw['passing'], []))))))


if __name__ == '__main__':
    main()
