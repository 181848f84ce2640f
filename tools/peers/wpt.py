#!/usr/bin/env python3
"""Judge dmlref against the WebNN conformance tests of web-platform-tests (WPT).

    tools/peers/wpt.py SOURCE -o OUT [--dmlref build/tools/dmlref] [--only add,sub] [--markdown FILE]

SOURCE is one of
  - a WPT checkout (a folder holding webnn/conformance_tests/ or webnn/resources/test_data/),
  - a WPT git directory (its HEAD is read with `git show`),
  - a folder of JSON files, each {"source_file": ..., "tests": [{"name", "graph"}, ...]}, the
    tests evaluated from WPT's files (what tools/peers/wpt_dump.mjs prints, one file per WPT file),
    or a file of WPT's older test data named as WPT names it (gemm.json).
The .https.any.js files are evaluated by tools/peers/wpt_dump.mjs (Node), so every test is read
exactly as WPT builds it. WPT's older test data (webnn/resources/test_data/<op>.json, JSON with //
comments, read by the .https.any.js files of its time) is turned into the same graph form by
read_old_format, for the operators in OLD_FORMAT (gemm).

For each test whose one operator has a natural DirectML mapping, OUT/cases/<file>/<n>.json is a
dmlref case (WPT's inputs, the desc in DirectML's names), `dmlref run` writes its golden to
OUT/golden/, and WPT's expected outputs are judged against the golden twice:
  - dmlref's judge: the Python module's diff (as `dmlref diff`) under dmlref's tolerance;
  - WPT's judge: dmlref's golden against WPT's expected values under WPT's own tolerance
    (PrecisionMetrics of webnn/resources/utils.js, restated in WPT_TOLERANCE below).
A test agrees when both pass. Bit-exact: every golden element has the bits of WPT's expected value.
Tests without a mapping are counted as skipped with the reason. OUT/report.json holds every test's
verdict; --markdown writes the per-file table of docs/peers-wpt.md.
"""

import argparse
import collections
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

NP = {
    'float32': np.float32, 'float16': np.float16, 'int32': np.int32, 'uint32': np.uint32,
    'int64': np.int64, 'uint64': np.uint64, 'int8': np.int8, 'uint8': np.uint8,
}
DML = {k: k.upper() for k in NP}
FLOATS = ('float32', 'float16')
INT_RANGE = {
    'int8': (-128, 127), 'uint8': (0, 255), 'int32': (-2**31, 2**31 - 1), 'uint32': (0, 2**32 - 1),
    'int64': (-2**63, 2**63 - 1), 'uint64': (0, 2**64 - 1),
}


class Skip(Exception):
    """A test with no DirectML mapping: the message is the reason."""


# ---------------------------------------------------------------- WPT's tolerance (utils.js)

def _conv_tol(g, op, opts):
    ins = [g['inputs'][n]['descriptor']['shape'] for n in op['_in']]
    x, w = ins[0], ins[1]
    layout = opts.get('inputLayout', 'nchw')
    ic = x[1] if layout == 'nchw' else x[3]
    fl = opts.get('filterLayout', 'oihw' if op['name'] == 'conv2d' else 'iohw')
    fh, fw = {'oihw': (2, 3), 'iohw': (2, 3), 'hwio': (0, 1), 'hwoi': (0, 1), 'ohwi': (1, 2), 'ihwo': (1, 2)}[fl]
    return w[fh] * w[fw] * (ic / opts.get('groups', 1)) * 2


def _gemm_tol(g, op, opts):
    a = g['inputs'][op['_in'][0]]['descriptor']['shape']
    t = (a[0] if opts.get('aTranspose') else a[1]) * 2
    if opts.get('alpha', 1.0) != 1.0:
        t += 1
    if opts.get('c') and opts.get('beta', 1.0) != 0.0:
        t += 1 if opts.get('beta', 1.0) != 1.0 else 0
        t += 1
    return t


def _matmul_tol(g, op, opts):
    return g['inputs'][op['_in'][0]]['descriptor']['shape'][-1] * 2


def _reduce_tol(g, op, opts):
    shape = g['inputs'][op['_in'][0]]['descriptor']['shape']
    axes = opts.get('axes')
    sizes = shape if axes is None else [shape[a] for a in axes]
    n = math.prod(sizes) if sizes else 1
    return {'reduceL1': n, 'reduceProduct': n, 'reduceSum': n, 'reduceL2': 2 * n + 1, 'reduceMean': n + 2,
            'reduceLogSum': n + 18, 'reduceLogSumExp': 2 * n + 18, 'reduceSumSquare': 2 * n}[op['name']]


def _cumsum_tol(g, op, opts):
    return g['inputs'][op['_in'][0]]['descriptor']['shape'][op['_args']['axis']] - 1


def _softmax_tol(g, op, opts):
    shape = g['inputs'][op['_in'][0]]['descriptor']['shape']
    return shape[op['_args'].get('axis', len(shape) - 1)] * 3 + 3


ULP = 'ULP'
ATOL = 'ATOL'
# metric, {dataType: value or function}; ints not listed are compared exactly.
WPT_TOLERANCE = {
    'argMax': (ULP, {}), 'argMin': (ULP, {}),
    'batchNormalization': (ULP, {'float32': 6, 'float16': 6}),
    'cast': (ULP, {'float32': 1, 'float16': 1}),
    'clamp': (ULP, {}), 'concat': (ULP, {}),
    'conv2d': (ULP, {'float32': _conv_tol, 'float16': _conv_tol}),
    'cumulativeSum': (ULP, {'float32': _cumsum_tol}),
    'convTranspose2d': (ULP, {'float32': _conv_tol, 'float16': _conv_tol}),
    'add': (ULP, {'float32': 1, 'float16': 1}), 'sub': (ULP, {'float32': 1, 'float16': 1}),
    'mul': (ULP, {'float32': 1, 'float16': 1}), 'div': (ULP, {'float32': 2, 'float16': 2}),
    'max': (ULP, {}), 'min': (ULP, {}), 'pow': (ULP, {'float32': 32, 'float16': 2}),
    'equal': (ULP, {}), 'greater': (ULP, {}), 'greaterOrEqual': (ULP, {}), 'lesser': (ULP, {}),
    'lesserOrEqual': (ULP, {}), 'logicalNot': (ULP, {}),
    'abs': (ULP, {}), 'ceil': (ULP, {}), 'floor': (ULP, {}), 'neg': (ULP, {}), 'identity': (ULP, {}),
    'exp': (ULP, {'float32': 32, 'float16': 1}),
    'log': (ATOL, {'float32': 1 / 1024, 'float16': 1 / 1024}),
    'sqrt': (ULP, {'float32': 1, 'float16': 1}),
    'elu': (ULP, {'float32': 18, 'float16': 18}), 'expand': (ULP, {}), 'gather': (ULP, {}),
    'gemm': (ULP, {'float32': _gemm_tol, 'float16': _gemm_tol}),
    'instanceNormalization': (ULP, {'float32': 840, 'float16': 8400}),
    'hardSigmoid': (ULP, {'float32': 2, 'float16': 2}), 'hardSwish': (ULP, {'float32': 4, 'float16': 4}),
    'layerNormalization': (ATOL, {'float32': 1 / 1024, 'float16': 1 / 512}),
    'leakyRelu': (ULP, {'float32': 1, 'float16': 1}), 'linear': (ULP, {'float32': 2, 'float16': 2}),
    'matmul': (ULP, {'float32': _matmul_tol, 'float16': _matmul_tol}),
    'pad': (ULP, {}), 'prelu': (ULP, {'float32': 1, 'float16': 1}),
    'reduceL1': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceL2': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceLogSum': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceLogSumExp': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceMax': (ULP, {}), 'reduceMin': (ULP, {}),
    'reduceMean': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceProduct': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceSum': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'reduceSumSquare': (ULP, {'float32': _reduce_tol, 'float16': _reduce_tol}),
    'gatherElements': (ULP, {}), 'gatherND': (ULP, {}), 'scatterElements': (ULP, {}), 'scatterND': (ULP, {}),
    'tile': (ULP, {}), 'triangular': (ULP, {}), 'where': (ULP, {}),
    'relu': (ULP, {}), 'reshape': (ULP, {}), 'slice': (ULP, {}), 'split': (ULP, {}), 'transpose': (ULP, {}),
    'sigmoid': (ULP, {'float32': 34, 'float16': 3}),
    'softmax': (ULP, {'float32': _softmax_tol, 'float16': _softmax_tol}),
    'tanh': (ATOL, {'float32': 1 / 1024, 'float16': 1 / 512}),
}


def wpt_tolerance(g, op, dtype):
    metric, table = WPT_TOLERANCE.get(op['name'], (ULP, {}))
    v = table.get(dtype, 0)
    if callable(v):
        v = v(g, op, op['_args'].get('options', {}))
    return metric, v


def _ordered(a):
    """Float bits as integers ordered like the values (-0 and +0 adjacent, as WPT's ULP distance)."""
    bits = a.view(np.uint32 if a.dtype == np.float32 else np.uint16).astype(np.int64)
    sign = 1 << (31 if a.dtype == np.float32 else 15)
    return np.where(bits & sign, -(bits & (sign - 1)), bits)


def ulp_distance(a, b):
    return np.abs(_ordered(a) - _ordered(b))


def within_wpt(golden, expected, metric, tol):
    """Returns (passed, worst distance) of dmlref's golden against WPT's expected value."""
    golden, expected = golden.ravel(), expected.ravel()
    if golden.dtype.kind != 'f':
        d = np.abs(golden.astype(object) - expected.astype(object)) if golden.size else np.zeros(0)
        worst = int(max(d)) if len(d) else 0
        return worst <= tol, worst
    both_nan = np.isnan(golden) & np.isnan(expected)
    if metric == ATOL:
        d = np.abs(golden.astype(np.float64) - expected.astype(np.float64))
        d = np.where(both_nan, 0, d)
        d = np.where(np.isnan(d) | np.isinf(d), np.where(golden == expected, 0, np.inf), d)
        worst = float(d.max()) if d.size else 0.0
        return worst <= tol, worst
    d = np.where(both_nan, 0, ulp_distance(golden, expected))
    worst = int(d.max()) if d.size else 0
    return worst <= tol, worst


# ---------------------------------------------------------------- reading WPT

def load_source(source, only):
    """Yields (wpt file name, [tests], error) from a checkout, a git directory or a JSON folder.

    Besides the .https.any.js files, WPT's older test data (webnn/resources/test_data/<op>.json, see
    read_old_format) is read from a checkout or a git directory; a JSON folder may hold such files too.
    Those are named test_data/<op>.json (their cases go to OUT/cases/test_data/<op>/)."""
    conf, old = 'webnn/conformance_tests', 'webnn/resources/test_data'
    files = []
    if os.path.isdir(os.path.join(source, conf)) or os.path.isdir(os.path.join(source, old)):
        for sub, ext in ((conf, '.https.any.js'), (old, '.json')):
            d = os.path.join(source, sub)
            if os.path.isdir(d):
                files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                          if f.endswith(ext) and os.path.isfile(os.path.join(d, f))]
    elif os.path.isfile(os.path.join(source, 'HEAD')) and os.path.isdir(os.path.join(source, 'objects')):
        tmp = tempfile.mkdtemp(prefix='wpt-')
        for sub, ext in ((conf, '.https.any.js'), (old, '.json')):
            names = subprocess.run(['git', '--git-dir', source, 'ls-tree', '--name-only', 'HEAD', sub + '/'],
                                   check=True, capture_output=True, text=True).stdout.split()
            for n in names:
                if n.endswith(ext) and not (only and not _wanted(os.path.basename(n), only)):
                    data = subprocess.run(['git', '--git-dir', source, 'show', 'HEAD:' + n], check=True,
                                          capture_output=True).stdout
                    path = os.path.join(tmp, os.path.basename(n))
                    with open(path, 'wb') as f:
                        f.write(data)
                    files.append(path)
    else:
        for f in sorted(os.listdir(source)):
            if f.endswith('.json'):
                with open(os.path.join(source, f)) as fh:
                    text = fh.read()
                d = load_json(text)
                name = os.path.basename(d.get('source_file', f))
                if only and not _wanted(name, only):
                    continue
                tests = d.get('tests', [])
                if 'source_file' not in d and tests and 'graph' not in tests[0]:
                    yield 'test_data/' + name, read_old_format(text, name), None
                else:
                    yield name, tests, None
        return
    files = [f for f in files if not only or _wanted(os.path.basename(f), only)]
    for f in [f for f in files if f.endswith('.json')]:
        with open(f) as fh:
            yield 'test_data/' + os.path.basename(f), read_old_format(fh.read(), os.path.basename(f)), None
    files = [f for f in files if not f.endswith('.json')]
    if not files:
        return
    out = subprocess.run(['node', os.path.join(HERE, 'wpt_dump.mjs')] + files, check=True, capture_output=True,
                         text=True).stdout
    for entry in json.loads(out):
        yield entry['file'], entry['tests'], entry['error']


def strip_comments(text):
    """WPT's older test data is JSON with // comments (also after a value on its line): drops them, outside
    strings."""
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == '\\':
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif text.startswith('//', i):
            while i < n and text[i] != '\n':
                i += 1
            continue
        else:
            out.append(ch)
        i += 1
    return ''.join(out)


def load_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(strip_comments(text))


# Operators whose older test data is read (the file's stem, WebNN's name): a file of another operator is
# counted, each test skipped, since the older format's operand names and option conventions are each
# operator's own (WPT's older utils.js built each operator by its own function).
OLD_FORMAT = {'gemm': 'gemm'}


def read_old_format(text, fname):
    """The tests of WPT's older test data file (webnn/resources/test_data/<op>.json, WPT before the tests
    moved into the .https.any.js files) in the graph form the .https.any.js tests have.

    An older test is {"name", "inputs": {operand: {"shape", "data", "type"?, "constant"?}}, "options",
    "expected": {"name"?, "shape", "data", "type"?} (or a list of them), "type"?}: the inputs are the
    operator's arguments in their order, an option holding {"shape", "data"} is an operand, and a type
    absent from an operand is the test's. gemm: a number as options.c is the constant of dimensions [1] and
    type float32 that WPT's older buildGemm makes of it (broadcast to the output). "constant" (the operand
    built as a constant, not an input) changes no value and is dropped."""
    stem = fname.split('.')[0]
    op = OLD_FORMAT.get(stem)
    tests = load_json(text).get('tests', [])
    if op is None:
        why = "WPT's older test data is read for " + ', '.join(sorted(OLD_FORMAT)) + ' only'
        return [{'name': t.get('name'), 'skip': why} for t in tests]
    out = []
    for t in tests:
        dt = t.get('type', 'float32')

        def operand(v):
            return {'data': v['data'], 'descriptor': {'shape': list(v['shape']), 'dataType': v.get('type', dt)}}

        inputs, arguments, options = {}, [], {}
        for k, v in t['inputs'].items():
            inputs[k] = operand(v)
            arguments.append({k: k})
        for k, v in (t.get('options') or {}).items():
            if isinstance(v, dict) and 'shape' in v and 'data' in v:
                inputs[k] = operand(v)
                options[k] = k
            elif op == 'gemm' and k == 'c':
                inputs[k] = {'data': [v], 'descriptor': {'shape': [1], 'dataType': 'float32'}}
                options[k] = k
            else:
                options[k] = v
        if options:
            arguments.append({'options': options})
        exp = t['expected'] if isinstance(t['expected'], list) else [t['expected']]
        outs = {e.get('name', f'output{i}'): operand(e) for i, e in enumerate(exp)}
        names = list(outs)
        out.append({'name': t['name'], 'graph': {
            'inputs': inputs, 'operators': [{'name': op, 'arguments': arguments,
                                             'outputs': names[0] if len(names) == 1 else names}],
            'expectedOutputs': outs}})
    return out


def _wanted(name, only):
    return name.split('.')[0] in only


# ---------------------------------------------------------------- values

def np_array(data, desc):
    dt = desc['dataType']
    if dt not in NP:
        raise Skip(f'data type {dt} (no DirectML tensor type of that name)')
    shape = desc['shape']
    n = math.prod(shape)
    if not isinstance(data, list):
        return np.full(shape, np_array([data], {'dataType': dt, 'shape': [1]})[0])
    if len(data) != n:
        if len(data) == 1:
            data = data * n
        else:
            raise Skip(f'{len(data)} values for shape {shape}')
    if dt in FLOATS:
        return np.array([float(v) for v in data], dtype=np.float64).astype(NP[dt]).reshape(shape)
    vals = [int(str(v).rstrip('n')) if not isinstance(v, float) else int(v) for v in data]
    return np.array(vals, dtype=object).astype(NP[dt]).reshape(shape)


def json_values(a):
    """Raw bits for floats (WPT's own rounding of its decimals to the type), integers as they are."""
    flat = a.ravel()
    if a.dtype == np.float32:
        return ['0x%08x' % v for v in flat.view(np.uint32)]
    if a.dtype == np.float16:
        return ['0x%04x' % v for v in flat.view(np.uint16)]
    if a.dtype in (np.int64, np.uint64):
        return [str(int(v)) for v in flat]
    return [int(v) for v in flat]


def tensor(shape, dt, strides=None):
    t = {'DataType': DML[dt], 'Sizes': list(shape) if shape else [1]}
    if strides is not None and shape:
        t['Strides'] = list(strides)
    return t


def packed_strides(shape):
    s, acc = [], 1
    for d in reversed(shape):
        s.append(acc)
        acc *= d
    return list(reversed(s))


def broadcast_shape(*shapes):
    r = max(len(s) for s in shapes)
    out = []
    for i in range(r):
        ds = {s[i - r + len(s)] for s in shapes if i - r + len(s) >= 0} - {1}
        if len(ds) > 1:
            raise Skip(f'shapes {shapes} do not broadcast')
        out.append(ds.pop() if ds else 1)
    return out


def broadcast_strides(shape, out):
    """Strides that read a packed tensor of `shape` as a tensor of Sizes `out` (zero on broadcast)."""
    ps = packed_strides(shape)
    lead = len(out) - len(shape)
    return [0 if i < lead or shape[i - lead] == 1 and out[i] != 1 else ps[i - lead] for i in range(len(out))]


def fit(shape, rank):
    return [1] * (rank - len(shape)) + list(shape)


# ---------------------------------------------------------------- the mappings

BINARY = {'add': 'ELEMENT_WISE_ADD', 'sub': 'ELEMENT_WISE_SUBTRACT', 'mul': 'ELEMENT_WISE_MULTIPLY',
          'div': 'ELEMENT_WISE_DIVIDE', 'max': 'ELEMENT_WISE_MAX', 'min': 'ELEMENT_WISE_MIN',
          'pow': 'ELEMENT_WISE_POW', 'equal': 'ELEMENT_WISE_LOGICAL_EQUALS',
          'greater': 'ELEMENT_WISE_LOGICAL_GREATER_THAN',
          'greaterOrEqual': 'ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL',
          'lesser': 'ELEMENT_WISE_LOGICAL_LESS_THAN', 'lesserOrEqual': 'ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL',
          'logicalAnd': 'ELEMENT_WISE_LOGICAL_AND', 'logicalOr': 'ELEMENT_WISE_LOGICAL_OR',
          'logicalXor': 'ELEMENT_WISE_LOGICAL_XOR'}
UNARY = {'abs': 'ELEMENT_WISE_ABS', 'ceil': 'ELEMENT_WISE_CEIL', 'floor': 'ELEMENT_WISE_FLOOR',
         'exp': 'ELEMENT_WISE_EXP', 'log': 'ELEMENT_WISE_LOG', 'neg': 'ELEMENT_WISE_NEGATE',
         'sqrt': 'ELEMENT_WISE_SQRT', 'identity': 'ELEMENT_WISE_IDENTITY', 'logicalNot': 'ELEMENT_WISE_LOGICAL_NOT',
         'relu': 'ACTIVATION_RELU', 'sigmoid': 'ACTIVATION_SIGMOID', 'tanh': 'ACTIVATION_TANH',
         'softsign': 'ACTIVATION_SOFTSIGN', 'erf': 'ELEMENT_WISE_ERF', 'sin': 'ELEMENT_WISE_SIN',
         'cos': 'ELEMENT_WISE_COS', 'tan': 'ELEMENT_WISE_TAN', 'reciprocal': 'ELEMENT_WISE_RECIP'}
# WebNN option -> (DirectML field, WebNN default)
ACTIVATION = {'leakyRelu': ('ACTIVATION_LEAKY_RELU', {'alpha': ('Alpha', 0.01)}),
              'elu': ('ACTIVATION_ELU', {'alpha': ('Alpha', 1.0)}),
              'hardSigmoid': ('ACTIVATION_HARD_SIGMOID', {'alpha': ('Alpha', 0.2), 'beta': ('Beta', 0.5)}),
              'hardSwish': ('ACTIVATION_HARD_SWISH', {'alpha': ('Alpha', 1 / 6), 'beta': ('Beta', 0.5)}),
              'linear': ('ACTIVATION_LINEAR', {'alpha': ('Alpha', 1.0), 'beta': ('Beta', 0.0)})}
REDUCE = {'reduceL1': 'L1', 'reduceL2': 'L2', 'reduceLogSum': 'LOG_SUM', 'reduceLogSumExp': 'LOG_SUM_EXP',
          'reduceMax': 'MAX', 'reduceMin': 'MIN', 'reduceMean': 'AVERAGE', 'reduceProduct': 'MULTIPLY',
          'reduceSum': 'SUM', 'reduceSumSquare': 'SUM_SQUARE'}

FAMILY = {}
for _k in list(BINARY) + list(UNARY) + list(ACTIVATION) + ['clamp', 'cast', 'prelu', 'where']:
    FAMILY[_k] = 'element-wise'
for _k in ['concat', 'split', 'gather', 'gatherElements', 'gatherND', 'scatterElements', 'scatterND', 'pad',
           'tile', 'triangular', 'argMin', 'argMax', 'expand', 'reshape', 'slice', 'transpose']:
    FAMILY[_k] = 'data movement'
for _k in ['gemm', 'matmul', 'conv2d', 'convTranspose2d', 'softmax', 'cumulativeSum'] + list(REDUCE):
    FAMILY[_k] = 'GEMM/convolution/reduce'
for _k in ['batchNormalization', 'instanceNormalization', 'layerNormalization']:
    FAMILY[_k] = 'normalization'


def _args(op):
    a = {}
    for d in op['arguments']:
        a.update(d)
    return a


def concrete(g):
    """The graph with each operand's concrete 'shape' (WPT's dynamic-shape tests: the descriptor's shape then
    names dimensions, {name, maxSize}) as its descriptor's shape."""
    g = dict(g)
    for key in ('inputs', 'expectedOutputs'):
        g[key] = {n: dict(o, descriptor=dict(o['descriptor'], shape=o['shape'])) if 'shape' in o else o
                  for n, o in g.get(key, {}).items()}
    return g


def map_test(g):
    """A WPT test graph -> (case dict, {output name: (DirectML output field, WebNN shape)}, op)."""
    if 'null' in json.dumps(g):
        raise Skip('a null in the test (a JSON dump writes Infinity and NaN as null: the value is lost)')
    ops = g['operators']
    if len(ops) != 1:
        raise Skip(f'a graph of {len(ops)} operators')
    op = dict(ops[0])
    args = _args(op)
    op['_args'] = args
    name = op['name']
    inputs = g['inputs']
    outs = op['outputs'] if isinstance(op['outputs'], list) else [op['outputs']]
    for o in outs:
        if o not in g['expectedOutputs']:
            raise Skip('an output without expected values')
    exp = [g['expectedOutputs'][o]['descriptor'] for o in outs]

    def inp(key):
        return inp_named(args[key])

    def inp_named(n):
        op.setdefault('_in', []).append(n)
        d = inputs[n]['descriptor']
        return n, d['shape'], d['dataType'], np_array(inputs[n]['data'], d)

    opts = args.get('options', {}) or {}
    desc, data = {}, {}
    out_shape, out_dt = exp[0]['shape'], exp[0]['dataType']
    if out_dt not in NP:
        raise Skip(f'output data type {out_dt}')
    mapping = {outs[0]: ('OutputTensor', None)}

    if name in BINARY:
        (_, sa, ta, a), (_, sb, tb, b) = inp('a'), inp('b')
        shape = broadcast_shape(sa, sb, out_shape)
        if name == 'pow':
            fa, fb = 'InputTensor', 'ExponentTensor'
        else:
            fa, fb = 'ATensor', 'BTensor'
        desc[fa] = tensor(shape, ta, broadcast_strides(sa, shape))
        desc[fb] = tensor(shape, tb, broadcast_strides(sb, shape))
        desc['OutputTensor'] = tensor(shape, out_dt)
        data = {fa: a, fb: b}
        operator = BINARY[name]
    elif name in UNARY or name in ACTIVATION:
        _, s, t, x = inp('input' if 'input' in args else 'a')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(s, out_dt)
        data = {'InputTensor': x}
        if name in UNARY:
            operator = UNARY[name]
        else:
            operator, fields = ACTIVATION[name]
            for k, (field, default) in fields.items():
                desc[field] = float(opts.get(k, default))
    elif name == 'clamp':
        _, s, t, x = inp('input')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(s, out_dt)
        desc['MinMaxDataType'] = DML[t]
        lo, hi = opts.get('minValue'), opts.get('maxValue')
        if t in FLOATS:
            desc['Min'] = '-inf' if lo is None else _scalar(lo, t)
            desc['Max'] = 'inf' if hi is None else _scalar(hi, t)
        else:
            r = INT_RANGE[t]
            desc['Min'] = str(r[0] if lo is None else int(str(lo).rstrip('n')))
            desc['Max'] = str(r[1] if hi is None else int(str(hi).rstrip('n')))
        data = {'InputTensor': x}
        operator = 'ELEMENT_WISE_CLIP1'
    elif name == 'cast':
        _, s, t, x = inp('input')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(s, out_dt)
        data = {'InputTensor': x}
        operator = 'CAST'
    elif name == 'concat':
        names = args['inputs']
        op['_in'] = list(names)
        axis = args['axis']
        desc['InputTensors'] = []
        for i, n in enumerate(names):
            d = inputs[n]['descriptor']
            desc['InputTensors'].append(tensor(d['shape'], d['dataType']))
            data[f'InputTensors[{i}]'] = np_array(inputs[n]['data'], d)
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc['Axis'] = axis
        operator = 'JOIN'
    elif name == 'split':
        _, s, t, x = inp('input')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensors'] = [tensor(e['shape'], e['dataType']) for e in exp]
        desc['Axis'] = opts.get('axis', 0)
        data = {'InputTensor': x}
        mapping = {o: (f'OutputTensors[{i}]', None) for i, o in enumerate(outs)}
        operator = 'SPLIT'
    elif name == 'gather':
        _, s, t, x = inp('input')
        _, si, ti, idx = inp('indices')
        axis = opts.get('axis', 0)
        r = max(len(s) + len(si) - 1, len(s), len(si), 1)
        desc['InputTensor'] = tensor(fit(s, r), t)
        desc['IndicesTensor'] = tensor(fit(si if si else [1], r), ti)
        full_out = list(s[:axis]) + list(si if si else [1]) + list(s[axis + 1:])
        desc['OutputTensor'] = tensor(fit(full_out, r), out_dt)
        desc['Axis'] = axis + r - len(s)
        desc['IndexDimensions'] = max(len(si), 1)
        data = {'InputTensor': x, 'IndicesTensor': idx}
        operator = 'GATHER'
    elif name in ('expand', 'reshape', 'transpose'):
        _, s, t, x = inp('input')
        if name == 'expand':
            shape = broadcast_shape(s, out_shape)
            strides = broadcast_strides(s, shape)
        elif name == 'reshape':
            shape, strides = out_shape, None
        else:
            perm = opts.get('permutation', list(reversed(range(len(s)))))
            ps = packed_strides(s)
            shape, strides = [s[p] for p in perm], [ps[p] for p in perm]
        desc['InputTensor'] = tensor(shape, t, strides)
        desc['OutputTensor'] = tensor(shape, out_dt)
        data = {'InputTensor': x}
        operator = 'ELEMENT_WISE_IDENTITY'
    elif name == 'slice':
        _, s, t, x = inp('input')
        starts, sizes = args['starts'], args['sizes']
        strides = opts.get('strides', [1] * len(s))
        if not s:
            s, starts, sizes, strides, x = [1], [0], [1], [1], x.reshape([1])
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc['DimensionCount'] = len(s)
        desc['InputWindowOffsets'] = list(starts)
        desc['InputWindowSizes'] = list(sizes)
        desc['InputWindowStrides'] = list(strides)
        data = {'InputTensor': x}
        operator = 'SLICE1'
    elif name in REDUCE:
        _, s, t, x = inp('input')
        axes = opts.get('axes', list(range(len(s))))
        axes = [a + len(s) if a < 0 else a for a in axes]
        if not axes:
            # WebNN reduces no axis (a 0-D input, or empty axes): the function of each element alone, which is
            # DirectML's REDUCE over one more dimension of size 1.
            s, axes = list(s) + [1], [len(s)]
            x = x.reshape(s)
        desc['Function'] = REDUCE[name]
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor([1 if i in axes else d for i, d in enumerate(s)], out_dt)
        desc['AxisCount'] = len(axes)
        desc['Axes'] = sorted(axes)
        data = {'InputTensor': x}
        operator = 'REDUCE'
    elif name == 'matmul':
        (_, sa, ta, a), (_, sb, tb, b) = inp('a'), inp('b')
        if len(sa) < 2 or len(sb) < 2:
            raise Skip('a 1-D matmul operand')
        batch = broadcast_shape(sa[:-2], sb[:-2]) if len(sa) > 2 or len(sb) > 2 else []
        sha, shb = batch + sa[-2:], batch + sb[-2:]
        ta_st, tb_st = broadcast_strides(sa, sha), broadcast_strides(sb, shb)
        # GEMM has at most two batch dimensions: merge neighbours that A and B both read packed or both
        # broadcast (the same buffer walk, one dimension).
        groups = []
        for i, d in enumerate(batch):
            key = (ta_st[i] == 0, tb_st[i] == 0)
            if groups and groups[-1][0] == key:
                groups[-1][1].append(i)
            else:
                groups.append((key, [i]))
        if len(groups) > 2:
            raise Skip(f'{len(groups)} batch dimensions that do not merge (GEMM has at most 2)')
        mb = [math.prod(batch[i] for i in grp) for _, grp in groups]
        sa_m = mb + list(sa[-2:])
        sb_m = mb + list(sb[-2:])
        st_a = [ta_st[grp[-1]] for _, grp in groups] + ta_st[-2:]
        st_b = [tb_st[grp[-1]] for _, grp in groups] + tb_st[-2:]
        desc['ATensor'] = tensor(sa_m, ta, st_a)
        desc['BTensor'] = tensor(sb_m, tb, st_b)
        desc['OutputTensor'] = tensor(mb + list(out_shape[-2:]), out_dt)
        desc.update({'TransA': 'NONE', 'TransB': 'NONE', 'Alpha': 1, 'Beta': 0})
        data = {'ATensor': a, 'BTensor': b}
        operator = 'GEMM'
    elif name == 'gemm':
        (_, sa, ta, a), (_, sb, tb, b) = inp('a'), inp('b')
        desc['ATensor'] = tensor(sa, ta)
        desc['BTensor'] = tensor(sb, tb)
        data = {'ATensor': a, 'BTensor': b}
        if opts.get('c') is not None:
            _, sc, tc, c = inp_named(opts['c'])
            desc['CTensor'] = tensor(out_shape, tc, broadcast_strides(sc, out_shape))
            data['CTensor'] = c
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc.update({'TransA': 'TRANSPOSE' if opts.get('aTranspose') else 'NONE',
                     'TransB': 'TRANSPOSE' if opts.get('bTranspose') else 'NONE',
                     'Alpha': float(opts.get('alpha', 1.0)),
                     'Beta': float(opts.get('beta', 1.0)) if opts.get('c') is not None else 0.0})
        operator = 'GEMM'
    elif name in ('argMin', 'argMax'):
        _, s, t, x = inp('input')
        axis = args['axis']
        if not s:
            s, axis, x = [1], 0, x.reshape([1])
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor([1 if i == axis else d for i, d in enumerate(s)], out_dt)
        desc.update({'AxisCount': 1, 'Axes': [axis],
                     'AxisDirection': 'DECREASING' if opts.get('selectLastIndex') else 'INCREASING'})
        data = {'InputTensor': x}
        operator = name.upper()
    elif name == 'where':
        (_, sc, tc, c), (_, sa, ta, a), (_, sb, tb, b) = inp('condition'), inp('trueValue'), inp('falseValue')
        shape = broadcast_shape(sc, sa, sb, out_shape)
        desc['ConditionTensor'] = tensor(shape, tc, broadcast_strides(sc, shape))
        desc['ATensor'] = tensor(shape, ta, broadcast_strides(sa, shape))
        desc['BTensor'] = tensor(shape, tb, broadcast_strides(sb, shape))
        desc['OutputTensor'] = tensor(shape, out_dt)
        data = {'ConditionTensor': c, 'ATensor': a, 'BTensor': b}
        operator = 'ELEMENT_WISE_IF'
    elif name == 'prelu':
        (_, s, t, x), (_, ss, ts, slope) = inp('input'), inp('slope')
        shape = broadcast_shape(s, ss)
        desc['InputTensor'] = tensor(shape, t, broadcast_strides(s, shape))
        desc['SlopeTensor'] = tensor(shape, ts, broadcast_strides(ss, shape))
        desc['OutputTensor'] = tensor(shape, out_dt)
        data = {'InputTensor': x, 'SlopeTensor': slope}
        operator = 'ACTIVATION_PARAMETERIZED_RELU'
    elif name == 'gatherElements':
        (_, s, t, x), (_, si, ti, idx) = inp('input'), inp('indices')
        desc['InputTensor'] = tensor(s, t)
        desc['IndicesTensor'] = tensor(si, ti)
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc['Axis'] = opts.get('axis', 0)
        data = {'InputTensor': x, 'IndicesTensor': idx}
        operator = 'GATHER_ELEMENTS'
    elif name in ('gatherND', 'scatterND'):
        (_, s, t, x), (_, si, ti, idx) = inp('input'), inp('indices')
        r = max(len(s), len(si), len(out_shape), 1)
        desc['InputTensor'] = tensor(fit(s, r), t)
        desc['IndicesTensor'] = tensor(fit(si, r), ti)
        data = {'InputTensor': x, 'IndicesTensor': idx}
        if name == 'scatterND':
            _, su, tu, upd = inp('updates')
            r = max(r, len(su))
            desc['InputTensor'] = tensor(fit(s, r), t)
            desc['IndicesTensor'] = tensor(fit(si, r), ti)
            desc['UpdatesTensor'] = tensor(fit(su if su else [1], r), tu)
            data['UpdatesTensor'] = upd
        desc['OutputTensor'] = tensor(fit(out_shape if out_shape else [1], r), out_dt)
        desc['InputDimensionCount'] = max(len(s), 1)
        desc['IndicesDimensionCount'] = max(len(si), 1)
        if name == 'gatherND':
            desc['BatchDimensionCount'] = 0
        operator = 'GATHER_ND1' if name == 'gatherND' else 'SCATTER_ND'
    elif name == 'scatterElements':
        (_, s, t, x), (_, si, ti, idx), (_, su, tu, upd) = inp('input'), inp('indices'), inp('updates')
        desc['InputTensor'] = tensor(s, t)
        desc['IndicesTensor'] = tensor(si, ti)
        desc['UpdatesTensor'] = tensor(su, tu)
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc['Axis'] = opts.get('axis', 0)
        data = {'InputTensor': x, 'IndicesTensor': idx, 'UpdatesTensor': upd}
        operator = 'SCATTER_ELEMENTS'
    elif name == 'pad':
        _, s, t, x = inp('input')
        if not s:
            raise Skip('a 0-D pad')
        mode = opts.get('mode', 'constant')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc['PaddingMode'] = {'constant': 'CONSTANT', 'edge': 'EDGE', 'reflection': 'REFLECTION'}[mode]
        desc['PaddingValueDataType'] = DML[t]
        v = opts.get('value', 0)
        desc['PaddingValue'] = _scalar(v, t) if t in FLOATS else str(int(str(v).rstrip('n')))
        desc['DimensionCount'] = len(s)
        desc['StartPadding'] = list(args['beginningPadding'])
        desc['EndPadding'] = list(args['endingPadding'])
        data = {'InputTensor': x}
        operator = 'PADDING1'
    elif name == 'tile':
        _, s, t, x = inp('input')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(out_shape, out_dt)
        desc['RepeatsCount'] = max(len(s), 1)
        desc['Repeats'] = list(args['repetitions']) or [1]
        data = {'InputTensor': x}
        operator = 'TILE'
    elif name == 'cumulativeSum':
        _, s, t, x = inp('input')
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(s, out_dt)
        desc['Axis'] = args['axis']
        desc['AxisDirection'] = 'DECREASING' if opts.get('reversed') else 'INCREASING'
        desc['HasExclusiveSum'] = 1 if opts.get('exclusive') else 0
        data = {'InputTensor': x}
        operator = 'CUMULATIVE_SUMMATION'
    elif name == 'triangular':
        _, s, t, x = inp('input')
        k = opts.get('diagonal', 0)
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(s, out_dt)
        desc['ValueDataType'] = DML[t]
        desc['Value'] = 0
        # Upper keeps x - y >= k: +0 in the band [INT32_MIN, k); lower keeps x - y <= k: +0 in [k + 1, INT32_MAX).
        if opts.get('upper', True):
            desc['DiagonalFillBegin'], desc['DiagonalFillEnd'] = -2**31, k
        else:
            desc['DiagonalFillBegin'], desc['DiagonalFillEnd'] = k + 1, 2**31 - 1
        data = {'InputTensor': x}
        operator = 'DIAGONAL_MATRIX1'
    elif name in ('batchNormalization', 'instanceNormalization', 'layerNormalization'):
        _, s, t, x = inp('input')
        r = len(s)
        if name == 'batchNormalization':
            axis = opts.get('axis', 1)
            channel_axes, axes = [axis], None
        elif name == 'instanceNormalization':
            nhwc = opts.get('layout', 'nchw') == 'nhwc'
            channel_axes, axes = [3 if nhwc else 1], [1, 2] if nhwc else [2, 3]
        else:
            axes = list(opts.get('axes', list(range(1, r))))
            if not axes:
                # No axis: each element is its own group, DirectML's MVN1 over one more dimension of size 1.
                s, axes, x = list(s) + [1], [r], x.reshape(list(s) + [1])
                r += 1
            channel_axes = axes

        def param(key):
            # WebNN's parameter, shaped as the input at channel_axes in their order, as a tensor of the
            # input's rank: its sizes at those axes, its strides those of its own layout.
            _, sp, tp, v = inp_named(args[key] if key in args else opts[key])
            ps = packed_strides([s[a] for a in channel_axes])
            strides = [ps[channel_axes.index(i)] if i in channel_axes and s[i] != 1 else 0 for i in range(r)]
            return tensor([s[i] if i in channel_axes else 1 for i in range(r)], tp, strides), v.reshape(-1)

        desc['InputTensor'] = tensor(s, t)
        data = {'InputTensor': x}
        if name == 'batchNormalization':
            for key, field in (('mean', 'MeanTensor'), ('variance', 'VarianceTensor')):
                desc[field], data[field] = param(key)
        for key, field, fill in (('scale', 'ScaleTensor', 1), ('bias', 'BiasTensor', 0)):
            if opts.get(key) is not None:
                desc[field], data[field] = param(key)
            elif name == 'batchNormalization':
                desc[field] = tensor([1] * r, t)
                data[field] = np.full([1] * r, fill, dtype=NP[t])
        desc['OutputTensor'] = tensor(s, out_dt)
        if name == 'batchNormalization':
            desc['Spatial'] = 1
            operator = 'BATCH_NORMALIZATION'
        else:
            desc.update({'AxisCount': len(axes), 'Axes': sorted(axes), 'NormalizeVariance': 1})
            operator = 'MEAN_VARIANCE_NORMALIZATION1'
        desc['Epsilon'] = float(opts.get('epsilon', 1e-5))
    elif name == 'softmax':
        _, s, t, x = inp('input')
        axis = args.get('axis', len(s) - 1)
        desc['InputTensor'] = tensor(s, t)
        desc['OutputTensor'] = tensor(s, out_dt)
        desc['AxisCount'] = 1
        desc['Axes'] = [axis + len(s) if axis < 0 else axis]
        data = {'InputTensor': x}
        operator = 'ACTIVATION_SOFTMAX1'
    elif name in ('conv2d', 'convTranspose2d'):
        operator, desc, data = map_conv2d(inp, inp_named, opts, out_shape, out_dt, name == 'convTranspose2d')
        if opts.get('inputLayout', 'nchw') == 'nhwc':
            mapping = {outs[0]: ('OutputTensor', (0, 3, 1, 2))}
    else:
        raise Skip(f'no DirectML mapping written for {name}')

    case = {'format': 1, 'operator': 'DML_OPERATOR_' + operator, 'desc': desc,
            'inputs': {k: _input_values(v) for k, v in data.items()}}
    return case, mapping, op


def _input_values(a):
    if a.size > 64 and (a.ravel() == a.ravel()[0]).all():
        return {'Fill': json_values(a.ravel()[:1])[0]}
    return json_values(a)


def _scalar(v, t):
    a = np.array([float(v)]).astype(NP[t])
    return {'Float32': json_values(a)[0]} if t == 'float32' else {'UInt16': int(a.view(np.uint16)[0])}


def map_conv2d(inp, inp_named, opts, out_shape, out_dt, transposed=False):
    _, s, t, x = inp('input')
    _, sw, tw, w = inp('filter')
    layout = opts.get('inputLayout', 'nchw')
    flayout = opts.get('filterLayout', 'iohw' if transposed else 'oihw')
    # DirectML's Sizes are NCHW and OIHW; another layout is the same buffer read through strides.
    if layout == 'nhwc':
        n, h, wd, c = s
        ps = packed_strides(s)
        xs, xst = [n, c, h, wd], [ps[0], ps[3], ps[1], ps[2]]
        on, oh, ow, oc = out_shape
        pso = packed_strides(out_shape)
        os_, ost = [on, oc, oh, ow], [pso[0], pso[3], pso[1], pso[2]]
    else:
        xs, xst, os_, ost = s, None, out_shape, None
    pos = {ch: i for i, ch in enumerate(flayout)}
    pw = packed_strides(sw)
    # DirectML's FilterTensor: {M, C / G, h, w} forward (oihw), {C, M / G, h, w} backward (iohw).
    order = 'iohw' if transposed else 'oihw'
    ws = [sw[pos[ch]] for ch in order]
    wst = [pw[pos[ch]] for ch in order]
    pad = opts.get('padding', [0, 0, 0, 0])  # beginning height, ending height, beginning width, ending width
    desc = {'InputTensor': tensor(xs, t, xst), 'FilterTensor': tensor(ws, tw, wst if flayout != order else None)}
    data = {'InputTensor': x, 'FilterTensor': w}
    if 'bias' in opts:
        b = opts['bias']
        _, sb, tb, bias = inp_named(b)
        desc['BiasTensor'] = tensor([1, sb[0], 1, 1], tb)
        data['BiasTensor'] = bias
    desc['OutputTensor'] = tensor(os_, out_dt, ost)
    strides, dil = list(opts.get('strides', [1, 1])), list(opts.get('dilations', [1, 1]))
    out_pad = [0, 0]
    if transposed:
        # WebNN's outputSizes, where given, fix the output size; DirectML's is the formula plus OutputPadding.
        out_pad = list(opts.get('outputPadding', [0, 0]))
        if 'outputSizes' in opts:
            for i in range(2):
                base = (xs[2 + i] - 1) * strides[i] + (ws[2 + i] - 1) * dil[i] + 1 - pad[2 * i] - pad[2 * i + 1]
                out_pad[i] = opts['outputSizes'][i] - base
    desc.update({'Mode': 'CROSS_CORRELATION', 'Direction': 'BACKWARD' if transposed else 'FORWARD',
                 'DimensionCount': 2, 'Strides': strides, 'Dilations': dil,
                 'StartPadding': [pad[0], pad[2]], 'EndPadding': [pad[1], pad[3]], 'OutputPadding': out_pad,
                 'GroupCount': opts.get('groups', 1)})
    return 'CONVOLUTION', desc, data


# ---------------------------------------------------------------- running

def run(args):
    sys.path.insert(0, os.path.join(os.path.dirname(args.dmlref), '..', 'python'))
    import dmlref  # noqa: E402  (the module built beside the command line)

    only = set(args.only.split(',')) if args.only else None
    for sub in ('cases', 'golden'):
        shutil.rmtree(os.path.join(args.out, sub), ignore_errors=True)
    results = []
    for fname, tests, error in load_source(args.source, only):
        stem = fname.split('.')[0]
        if error:
            results.append({'file': fname, 'test': None, 'status': 'error', 'why': 'evaluating the file: ' + error})
        for n, t in enumerate(tests):
            r = {'file': fname, 'test': t['name'], 'n': n}
            results.append(r)
            if 'skip' in t:
                r.update(status='skipped', why=t['skip'])
                continue
            g = concrete(t['graph'])
            try:
                case, mapping, op = map_test(g)
            except Skip as e:
                r.update(status='skipped', why=str(e))
                continue
            except (KeyError, TypeError, ValueError, IndexError) as e:
                r.update(status='skipped', why=f'not mapped ({type(e).__name__}: {e})')
                continue
            r['operator'] = case['operator']
            r['family'] = FAMILY.get(op['name'], 'other')
            case['name'] = f'wpt/{stem}/{n}'
            case['description'] = 'WPT ' + fname + ': ' + t['name']
            cdir = os.path.join(args.out, 'cases', stem)
            gdir = os.path.join(args.out, 'golden', stem)
            os.makedirs(cdir, exist_ok=True)
            os.makedirs(gdir, exist_ok=True)
            cpath, gpath = os.path.join(cdir, f'{n}.json'), os.path.join(gdir, f'{n}.json')
            with open(cpath, 'w') as f:
                json.dump(case, f, indent=1)
            p = subprocess.run([args.dmlref, 'run', cpath, '-o', gdir, '-q', '--max-work', str(args.max_work)],
                               capture_output=True, text=True)
            if p.returncode != 0:
                msg = (p.stderr or p.stdout).strip().splitlines()
                r.update(status='dmlref-rejects', why=msg[0] if msg else f'exit {p.returncode}')
                continue
            golden = dmlref.read_golden(gpath, max_work=args.max_work)
            actual, wpt_ok, bits, worst_wpt = {}, True, True, 0
            for oname, (field, perm) in mapping.items():
                e = g['expectedOutputs'][oname]
                want = np_array(e['data'], e['descriptor'])
                if perm:
                    want = want.transpose(perm)
                gold = golden.expected[field]
                actual[field] = np.ascontiguousarray(want).reshape(gold.shape)
                metric, tol = wpt_tolerance(g, op, e['descriptor']['dataType'])
                ok, worst = within_wpt(gold, actual[field], metric, tol)
                wpt_ok &= ok
                worst_wpt = max(worst_wpt, worst)
                bits &= gold.tobytes() == actual[field].tobytes()
                r['wpt_tolerance'] = f'{metric} {tol:g}'
            r.update(wpt_judge=bool(wpt_ok), bit_exact=bool(bits), worst_wpt=worst_wpt)
            if bits:
                # Bit-identical outputs are inside any tolerance (and WPT's 6000x6000 tests are over the
                # Python module's work limit for diff).
                r.update(dmlref_judge=True, over=0, worst_ratio=None, dmlref_worst=[], status='agree')
                continue
            try:
                d = dmlref.diff(gpath, actual)
            except dmlref.Error as e:
                r.update(status='not-judged', why='dmlref diff: ' + str(e).splitlines()[0])
                continue
            r.update(dmlref_judge=bool(d.passed), wpt_judge=bool(wpt_ok), bit_exact=bool(bits),
                     worst_wpt=worst_wpt, over=int(d.over), worst_ratio=d.worst_ratio,
                     dmlref_worst=[dict(w, output=o) for o, out in d.outputs.items() for w in out.worst[:3]])
            r['status'] = 'agree' if d.passed and wpt_ok else 'disagree'
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, 'report.json'), 'w') as f:
        json.dump(results, f, indent=1, default=str)
    return results


def summarize(results):
    per = collections.OrderedDict()
    for r in results:
        s = per.setdefault(r['file'], collections.Counter())
        s['tests'] += r['test'] is not None
        s[r['status']] += 1
        if r['status'] in ('agree', 'disagree', 'not-judged'):
            s['mapped'] += 1
            s['bit_exact'] += r['bit_exact']
    return per


def markdown(results):
    lines = ['| WPT file | tests | mapped | agree | bit-exact | disagree | not judged | dmlref rejects | skipped |',
             '|---|---|---|---|---|---|---|---|---|']
    tot = collections.Counter()
    for f, s in summarize(results).items():
        lines.append(f"| {f} | {s['tests']} | {s['mapped'] + s['dmlref-rejects']} | {s['agree']} | {s['bit_exact']} | "
                     f"{s['disagree']} | {s['not-judged']} | {s['dmlref-rejects']} | {s['skipped']} |")
        tot.update(s)
    lines.append(f"| **all** | {tot['tests']} | {tot['mapped'] + tot['dmlref-rejects']} | {tot['agree']} | "
                 f"{tot['bit_exact']} | {tot['disagree']} | {tot['not-judged']} | {tot['dmlref-rejects']} | "
                 f"{tot['skipped']} |")
    lines.append('')
    lines.append('Every test that is not an agreement:')
    lines.append('')
    for r in results:
        if r['status'] == 'agree':
            continue
        if r['status'] == 'disagree':
            what = []
            if not r['dmlref_judge']:
                what.append(f"WPT's expected fails dmlref's judge ({r['over']} over)")
            if not r['wpt_judge']:
                what.append(f"the golden is outside WPT's {r['wpt_tolerance']} (worst {r['worst_wpt']})")
            why = '; '.join(what)
        else:
            why = r['why']
        lines.append(f"- {r['file']} #{r.get('n', '')} `{r['test']}`: {r['status']}: {why}")
    return '\n'.join(lines) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('source')
    ap.add_argument('-o', '--out', required=True)
    ap.add_argument('--dmlref', default=os.path.join(ROOT, 'build', 'tools', 'dmlref'))
    ap.add_argument('--only', help='WPT file stems, comma-separated (add,gather,conv2d)')
    ap.add_argument('--max-work', type=int, default=2**36, help="dmlref's --max-work (WPT has 6000x6000 tests)")
    ap.add_argument('--markdown', help='write the per-file table and every non-agreement here')
    args = ap.parse_args()
    args.dmlref = os.path.abspath(args.dmlref)
    results = run(args)
    text = markdown(results)
    if args.markdown:
        with open(args.markdown, 'w') as f:
            f.write(text)
    tot = collections.Counter(r['status'] for r in results)
    print(', '.join(f'{k}: {v}' for k, v in sorted(tot.items())))


if __name__ == '__main__':
    main()
