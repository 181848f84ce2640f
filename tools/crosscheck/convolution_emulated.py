#!/usr/bin/env python3
"""CONVOLUTION's tolerance on emulated backends (docs/tolerance.md, "Convolution").

Generates the ci tier of sweeps/convolution.json, then recomputes every packed float case without
a fused activation in plain Python, as a backend would: products and sums in float32 in loop
order, in the output type (a FLOAT16 accumulator for FLOAT16), in float64; and with planted bugs
(the last product dropped, the kernel flipped, the wrong group, an input position off by one).
`dmlref diff` judges each against its golden. The correct backends must all pass; the planted
bugs should fail wherever the data can show them (a 1x1 kernel hides a flip, GroupCount 1 a
group mapping). Standard library only; not run by the test suite (about 12 s on two cores).

Usage: tools/crosscheck/convolution_emulated.py build/tools/dmlref [WORKDIR]
"""
import ast, glob, json, math, os, shutil, struct, subprocess, sys, tempfile

def f32(x):
    try: return struct.unpack('f', struct.pack('f', x))[0]
    except OverflowError: return math.copysign(math.inf, x)
def f16(x):
    try: return struct.unpack('e', struct.pack('e', x))[0]
    except OverflowError: return math.copysign(math.inf, x)
def read_npy(p):
    b = open(p, 'rb').read()
    hl = struct.unpack('<H', b[8:10])[0]
    hdr = b[10:10+hl].decode()
    d = ast.literal_eval(hdr)
    code = {'<f4': 'f', '<f2': 'e'}[d['descr']]
    n = (len(b) - 10 - hl) // struct.calcsize(code)
    return list(struct.unpack('<%d%s' % (n, code), b[10+hl:]))
def write_npy(p, vals, code, shape):
    descr = {'f': '<f4', 'e': '<f2'}[code]
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, ''.join(str(s) + ',' for s in shape))
    pad = 16 - (10 + len(hdr) + 1) % 16
    hdr = hdr + ' ' * pad + '\n'
    with open(p, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode() + struct.pack('<%d%s' % (len(vals), code), *vals))
def prod(v):
    r = 1
    for a in v: r *= a
    return r
def unflat(i, s):
    c = []
    for d in reversed(s): c.append(i % d); i //= d
    return c[::-1]
def flat(c, s):
    i = 0
    for a, d in zip(c, s): i = i * d + a
    return i
def conv(desc, x, w, b, mode):
    # mode: (rnd_product, rnd_add, bug)
    rp, ra, bug = mode
    xs, ws, ys = desc['InputTensor']['Sizes'], desc['FilterTensor']['Sizes'], desc['OutputTensor']['Sizes']
    n = len(xs) - 2
    back = desc['Direction'] in ('BACKWARD', 'DML_CONVOLUTION_DIRECTION_BACKWARD')
    flip = desc['Mode'] in ('CONVOLUTION', 'DML_CONVOLUTION_MODE_CONVOLUTION')
    if bug == 'flip': flip = not flip
    G = desc['GroupCount']; C, M = xs[1], ys[1]; Cg, Mg = C // G, M // G
    S, D, P = desc['Strides'], desc['Dilations'], desc['StartPadding']
    K = ws[2:]
    out = []
    for e in range(prod(ys)):
        yc = unflat(e, ys); nb, m, o = yc[0], yc[1], yc[2:]
        g = m // Mg
        if bug == 'group': g = (g + 1) % G
        terms = []
        for c in range(Cg):
            ci = g * Cg + c
            for k in range(prod(K)):
                t = unflat(k, K)
                ii = []
                ok = True
                for j in range(n):
                    if not back:
                        v = o[j] * S[j] - P[j] + t[j] * D[j]
                    else:
                        s_ = o[j] + P[j] - t[j] * D[j]
                        if s_ < 0 or s_ % S[j]: ok = False; break
                        v = s_ // S[j]
                    if bug == 'offbyone' and j == n - 1: v += 1
                    if v < 0 or v >= xs[j + 2]: ok = False; break
                    ii.append(v)
                if not ok: continue
                tt = [K[j] - 1 - t[j] if flip else t[j] for j in range(n)]
                wi = flat([ci, m % Mg] + tt, ws) if back else flat([m, c] + tt, ws)
                terms.append(rp(x[flat([nb, ci] + ii, xs)] * w[wi]))
        if bug == 'drop' and terms: terms = terms[:-1]
        acc = 0.0
        for tv in terms:
            acc = ra(acc + tv)
        if b is not None: acc = ra(acc + b[m])
        out.append(acc)
    return out


def emulate(root, npy, outdir, which):
    modes = {
        'float32': (f32, f32, None), 'output': (None, None, None), 'float64': (lambda v: v, lambda v: v, None),
        'dropped-term': (f32, f32, 'drop'), 'flipped-kernel': (f32, f32, 'flip'), 'wrong-group': (f32, f32, 'group'),
        'off-by-one': (f32, f32, 'offbyone'),
    }
    names = []
    for path in sorted(glob.glob(root + '/convolution*/*.json')):
        c = json.load(open(path))
        d = c['desc']
        if c['operator'].endswith('INTEGER') or 'expectError' in c or 'FusedActivation' in d: continue
        if any('Strides' in v for v in d.values() if isinstance(v, dict)): continue
        name = os.path.relpath(path, root)[:-5]
        ind = os.path.join(npy, name)
        x = read_npy(ind + '/InputTensor.npy'); w = read_npy(ind + '/FilterTensor.npy')
        b = read_npy(ind + '/BiasTensor.npy') if 'BiasTensor' in d else None
        half = d['OutputTensor']['DataType'] == 'FLOAT16'
        out_round = f16 if half else f32
        mode = modes[which]
        if which == 'output': mode = (out_round, out_round, None)
        y = [out_round(v) for v in conv(d, x, w, b, mode)]
        os.makedirs(os.path.join(outdir, name), exist_ok=True)
        write_npy(os.path.join(outdir, name, 'OutputTensor.npy'), y, 'e' if half else 'f', d['OutputTensor']['Sizes'])
        names.append(name)
    return names

def main():
    dmlref = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix='conv-emulated-')
    here = os.path.dirname(os.path.abspath(__file__))
    sweep = os.path.join(here, '..', '..', 'sweeps', 'convolution.json')
    gen, npy = os.path.join(work, 'gen'), os.path.join(work, 'npy')
    shutil.rmtree(gen, ignore_errors=True); shutil.rmtree(npy, ignore_errors=True)
    subprocess.run([dmlref, 'gen', sweep, '-o', gen], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([dmlref, 'run', '--quiet', gen, '--npy', npy], check=True, stdout=subprocess.DEVNULL)
    print('| backend | cases within tolerance | over tolerance |')
    print('|---|---|---|')
    for which in ['float32', 'output', 'float64', 'dropped-term', 'flipped-kernel', 'wrong-group', 'off-by-one']:
        out = os.path.join(work, which)
        shutil.rmtree(out, ignore_errors=True)
        within, over = 0, []
        for name in emulate(gen, npy, out, which):
            r = subprocess.run([dmlref, 'diff', os.path.join(gen, name + '.json'), os.path.join(out, name, 'OutputTensor.npy')],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode == 0: within += 1
            else: over.append(os.path.basename(name))
        print('| %s | %d | %d |' % (which, within, len(over)))

if __name__ == '__main__':
    main()
