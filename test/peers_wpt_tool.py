#!/usr/bin/env python3
"""tools/peers/wpt.py on a small WPT-format checkout written here (no WPT data: CI has no network).

The tests below are in WPT's conformance format (webnn/conformance_tests/*.https.any.js) with
expected values derived by hand. Each must come out as stated: a right expected value agrees,
bit for bit; a wrong one (one ULP off in a bit-exact operator, a sum far outside its bound) is a
disagreement; a graph of two operators and an operator without a mapping are skipped. Through
Node (tools/peers/wpt_dump.mjs) where Node is installed, and through a JSON folder always.

WPT's older test data format (webnn/resources/test_data/<op>.json, JSON with // comments) is read
from both: OLD_GEMM holds gemm tests in that format (one right, one planted wrong), and an older file
of another operator must come out skipped.

    peers_wpt_tool.py DMLREF SOURCE_ROOT
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile


def t(name, op, inputs, expected, args=None, out_dtype=None):
    """One WPT test: inputs {name: (data, shape, dtype)}, expected (data, shape); args may give the
    tensor arguments' 'names' (default: every input), 'extra' arguments ({'axis': 1}) and 'options'."""
    first = next(iter(inputs.values()))
    arguments = [{k: k} for k in (args or {}).get('names', inputs.keys())]
    arguments += [{k: v} for k, v in (args or {}).get('extra', {}).items()]
    if args and 'options' in args:
        arguments.append({'options': args['options']})
    return {'name': name, 'graph': {
        'inputs': {k: {'data': d, 'descriptor': {'shape': s, 'dataType': dt}} for k, (d, s, dt) in inputs.items()},
        'operators': [{'name': op, 'arguments': arguments, 'outputs': 'out'}],
        'expectedOutputs': {'out': {'data': expected[0],
                                    'descriptor': {'shape': expected[1], 'dataType': out_dtype or first[2]}}}}}


def dynamic(test):
    """The test as WPT writes a dynamic shape: the concrete shape in the operand's 'shape', the descriptor's
    first dimension named ({name, maxSize})."""
    g = test['graph']
    for o in list(g['inputs'].values()) + list(g['expectedOutputs'].values()):
        o['shape'] = o['descriptor']['shape']
        o['descriptor']['shape'] = [{'name': 'batch', 'maxSize': 8}] + o['shape'][1:]
    return test


TESTS = [
    # name, test, expected status, bit-exact
    ('relu', t('relu float32', 'relu', {'input': ([1.5, -2, 0, -0.0], [4], 'float32')}, ([1.5, 0, 0, 0], [4])),
     'agree', True),
    ('add broadcast', t('add float32 broadcast', 'add', {'a': ([1, 2, 3, 4, 5, 6], [2, 3], 'float32'),
                                                         'b': ([10, 20, 30], [3], 'float32')},
                        ([11, 22, 33, 14, 25, 36], [2, 3])), 'agree', True),
    # 1 + 2^-24 rounds to 1 (ties to even); 1 + 2^-22 is 2 ULP away, outside both judges (1 ULP each).
    ('add two ulp', t('add float32 two ulp off', 'add', {'a': ([1], [1], 'float32'), 'b': ([2**-24], [1], 'float32')},
                      ([1 + 2**-22], [1])), 'disagree', False),
    ('add tie', t('add float32 tie to even', 'add', {'a': ([1], [1], 'float32'), 'b': ([2**-24], [1], 'float32')},
                  ([1], [1])), 'agree', True),
    # [[1, 2], [3, 4]] x [[5, 6], [7, 8]] = [[19, 22], [43, 50]]
    ('matmul', t('matmul float32 2D', 'matmul', {'a': ([1, 2, 3, 4], [2, 2], 'float32'),
                                                'b': ([5, 6, 7, 8], [2, 2], 'float32')}, ([19, 22, 43, 50], [2, 2])),
     'agree', True),
    ('matmul wrong', t('matmul float32 2D wrong', 'matmul', {'a': ([1, 2, 3, 4], [2, 2], 'float32'),
                                                            'b': ([5, 6, 7, 8], [2, 2], 'float32')},
                       ([19, 22, 43, 51], [2, 2])), 'disagree', False),
    # NHWC input 1x2x2x1, OIHW filter 1x1x2x2 of ones: the sum 1 + 2 + 3 + 4.
    ('conv2d nhwc', t('conv2d float32 nhwc', 'conv2d', {'input': ([1, 2, 3, 4], [1, 2, 2, 1], 'float32'),
                                                       'filter': ([1, 1, 1, 1], [1, 1, 2, 2], 'float32')},
                      ([10], [1, 1, 1, 1]), {'names': ['input', 'filter'], 'options': {'inputLayout': 'nhwc'}}),
     'agree', True),
    # reduceSum of a 0-D tensor: the value itself.
    ('reduce 0-D', t('reduceSum float32 0D', 'reduceSum', {'input': ([7.25], [], 'float32')}, ([7.25], [])),
     'agree', True),
    ('gather', t('gather float32 axis 1', 'gather', {'input': ([1, 2, 3, 4, 5, 6], [2, 3], 'float32'),
                                                    'indices': ([2, 0], [2], 'int32')}, ([3, 1, 6, 4], [2, 2]),
                 {'names': ['input', 'indices'], 'options': {'axis': 1}}), 'agree', True),
    # 2 * [[19, 22], [43, 50]] + 3 * 1
    ('gemm', t('gemm float32 c alpha beta', 'gemm', {'a': ([1, 2, 3, 4], [2, 2], 'float32'),
                                                   'b': ([5, 6, 7, 8], [2, 2], 'float32'), 'c': ([1], [1], 'float32')},
               ([41, 47, 89, 103], [2, 2]), {'names': ['a', 'b'], 'options': {'c': 'c', 'alpha': 2, 'beta': 3}}),
     'agree', True),
    ('gemm aTranspose', t('gemm float32 aTranspose', 'gemm', {'a': ([1, 3, 2, 4], [2, 2], 'float32'),
                                                             'b': ([5, 6, 7, 8], [2, 2], 'float32')},
                          ([19, 22, 43, 50], [2, 2]), {'names': ['a', 'b'], 'options': {'aTranspose': True}}),
     'agree', True),
    # the first of tied maxima
    ('argMax', t('argMax float32 axis 1', 'argMax', {'input': ([1, 5, 3, 7, 2, 7], [2, 3], 'float32')},
                 ([1, 0], [2]), {'extra': {'axis': 1}}, out_dtype='int32'), 'agree', True),
    ('where', t('where float32 broadcast', 'where', {'condition': ([1, 0, 1, 0], [4], 'uint8'),
                                                    'trueValue': ([1, 2, 3, 4], [4], 'float32'),
                                                    'falseValue': ([10], [1], 'float32')},
                ([1, 10, 3, 10], [4]), out_dtype='float32'), 'agree', True),
    ('prelu', t('prelu float32 broadcast slope', 'prelu', {'input': ([-2, 3, -4, 5], [2, 2], 'float32'),
                                                          'slope': ([0.5, 2], [2], 'float32')},
                ([-1, 3, -2, 5], [2, 2])), 'agree', True),
    ('gatherElements', t('gatherElements float32 axis 1', 'gatherElements',
                         {'input': ([1, 2, 3, 4, 5, 6], [2, 3], 'float32'), 'indices': ([2, 0, 1, 1], [2, 2], 'int32')},
                         ([3, 1, 5, 5], [2, 2]), {'names': ['input', 'indices'], 'options': {'axis': 1}}),
     'agree', True),
    ('gatherND', t('gatherND float32', 'gatherND', {'input': ([1, 2, 3, 4], [2, 2], 'float32'),
                                                   'indices': ([1, 0, 0, 1], [2, 2], 'int32')}, ([3, 2], [2])),
     'agree', True),
    ('scatterElements', t('scatterElements float32 axis 1', 'scatterElements',
                          {'input': ([1, 2, 3, 4, 5, 6], [2, 3], 'float32'), 'indices': ([0, 2], [2, 1], 'int32'),
                           'updates': ([10, 20], [2, 1], 'float32')}, ([10, 2, 3, 4, 5, 20], [2, 3]),
                          {'names': ['input', 'indices', 'updates'], 'options': {'axis': 1}}), 'agree', True),
    ('scatterND', t('scatterND float32', 'scatterND', {'input': ([1, 2, 3, 4], [4], 'float32'),
                                                      'indices': ([1, 3], [2, 1], 'int32'),
                                                      'updates': ([10, 20], [2], 'float32')}, ([1, 10, 3, 20], [4])),
     'agree', True),
    ('pad constant', t('pad float32 constant', 'pad', {'input': ([1, 2, 3], [3], 'float32')}, ([9, 1, 2, 3, 9, 9], [6]),
                       {'extra': {'beginningPadding': [1], 'endingPadding': [2]}, 'options': {'value': 9}}),
     'agree', True),
    ('pad reflection', t('pad float32 reflection', 'pad', {'input': ([1, 2, 3], [3], 'float32')},
                         ([3, 2, 1, 2, 3, 2], [6]),
                         {'extra': {'beginningPadding': [2], 'endingPadding': [1]}, 'options': {'mode': 'reflection'}}),
     'agree', True),
    ('tile', t('tile float32 2D', 'tile', {'input': ([1, 2], [1, 2], 'float32')}, ([1, 2, 1, 2], [2, 2]),
               {'extra': {'repetitions': [2, 1]}}), 'agree', True),
    ('triangular upper', t('triangular float32 upper', 'triangular', {'input': (list(range(1, 10)), [3, 3], 'float32')},
                           ([1, 2, 3, 0, 5, 6, 0, 0, 9], [3, 3])), 'agree', True),
    ('triangular lower', t('triangular float32 lower diagonal -1', 'triangular',
                           {'input': (list(range(1, 10)), [3, 3], 'float32')}, ([0, 0, 0, 4, 0, 0, 7, 8, 0], [3, 3]),
                           {'options': {'upper': False, 'diagonal': -1}}), 'agree', True),
    # running sums along the axis; exclusive and reversed: the sum of the elements after each one
    ('cumulativeSum', t('cumulativeSum float32 axis 1', 'cumulativeSum',
                        {'input': ([1, 2, 3, 4, 5, 6], [2, 3], 'float32')}, ([1, 3, 6, 4, 9, 15], [2, 3]),
                        {'extra': {'axis': 1}}), 'agree', True),
    ('cumulativeSum exclusive reversed', t('cumulativeSum int32 exclusive reversed', 'cumulativeSum',
                                           {'input': ([1, 2, 3, 4], [4], 'int32')}, ([9, 7, 4, 0], [4]),
                                           {'extra': {'axis': 0}, 'options': {'exclusive': True, 'reversed': True}}),
     'agree', True),
    ('cumulativeSum wrong', t('cumulativeSum int32 wrong', 'cumulativeSum', {'input': ([1, 2, 3], [3], 'int32')},
                              ([1, 3, 7], [3]), {'extra': {'axis': 0}}), 'disagree', False),
    ('dynamic shape', dynamic(t('tile float32 dynamic batch', 'tile', {'input': ([1, 2], [1, 2], 'float32')},
                                ([1, 2, 1, 2], [2, 2]), {'extra': {'repetitions': [2, 1]}})), 'agree', True),
    ('no mapping', t('lstm', 'lstm', {'input': ([1], [1], 'float32')}, ([1], [1])), 'skipped', None),
]


# WPT's older format: a test's inputs are the operator's arguments, options.c a tensor or a number, the
# expected value's name the output's. Comments as WPT wrote them, one after a value on its line.
OLD_GEMM = """{
  "tests": [
    // alpha * A x B^T + beta * C with B stored transposed: B^T = [[5, 6], [7, 8]],
    // A x B^T = [[19, 22], [43, 50]]; 0.5 * that + 2 * [[1, 2], [3, 4]] = [[11.5, 15], [27.5, 33]].
    {
      "name": "gemm old format 2x2 c alpha beta bTranspose", // every value exact in float32
      "inputs": {
        "a": {"shape": [2, 2], "data": [1, 2, 3, 4], "type": "float32"},
        "b": {"shape": [2, 2], "data": [5, 7, 6, 8], "type": "float32", "constant": true}
      },
      "options": {
        "c": {"shape": [2, 2], "data": [1, 2, 3, 4], "type": "float32"},
        "alpha": 0.5, "beta": 2, "bTranspose": true
      },
      "expected": {"name": "output", "shape": [2, 2], "data": [11.5, 15, 27.5, 33], "type": "float32"}
    },
    // a scalar c: A x B + 10 = [[29, 32], [53, 60]]; 61 planted for 60 (many ULP, far outside both judges)
    {
      "name": "gemm old format 2x2 scalar c wrong",
      "inputs": {
        "a": {"shape": [2, 2], "data": [1, 2, 3, 4]},
        "b": {"shape": [2, 2], "data": [5, 6, 7, 8]}
      },
      "options": {"c": 10},
      "expected": {"shape": [2, 2], "data": [29, 32, 53, 61]},
      "type": "float32"
    }
  ]
}
"""
# An older file of an operator whose older format is not read: its test is counted and skipped.
OLD_RELU = '{"tests": [{"name": "relu old format", "inputs": {"x": {"shape": [1], "data": [1]}}, ' \
    '"expected": {"shape": [1], "data": [1]}, "type": "float32"}]}'
# what, name, status, bit-exact, elements over dmlref's bound (the scalar c reaches the three right ones)
OLD_TESTS = [('old gemm', 'gemm old format 2x2 c alpha beta bTranspose', 'agree', True, 0),
             ('old gemm wrong', 'gemm old format 2x2 scalar c wrong', 'disagree', False, 1),
             ('old relu', 'relu old format', 'skipped', None, None)]


def two_operators():
    g = TESTS[0][1]['graph']
    two = json.loads(json.dumps(TESTS[0][1]))
    two['name'] = 'relu twice'
    two['graph']['operators'] = [dict(g['operators'][0], outputs='mid'),
                                 {'name': 'relu', 'arguments': [{'input': 'mid'}], 'outputs': 'out'}]
    return two


def check(report, label):
    by_name = {r['test']: r for r in report}
    bad = 0
    for what, test, status, bits in TESTS + [('two operators', two_operators(), 'skipped', None)]:
        r = by_name.get(test['name'])
        if r is None or r['status'] != status or (bits is not None and r.get('bit_exact') != bits):
            print(f'FAIL {label}: {what}: want {status} (bit-exact {bits}), got {r}')
            bad += 1
    for what, name, status, bits, over in OLD_TESTS:
        r = by_name.get(name)
        if r is None or r['status'] != status or (bits is not None and r.get('bit_exact') != bits) or \
                (over is not None and r.get('over') != over):
            print(f'FAIL {label}: {what}: want {status} (bit-exact {bits}, {over} over), got {r}')
            bad += 1
    return bad


def write_old(folder):
    os.makedirs(folder, exist_ok=True)
    for name, text in (('gemm.json', OLD_GEMM), ('relu.json', OLD_RELU)):
        with open(os.path.join(folder, name), 'w') as f:
            f.write(text)


def main():
    dmlref, root = sys.argv[1], sys.argv[2]
    tool = os.path.join(root, 'tools', 'peers', 'wpt.py')
    tmp = tempfile.mkdtemp(prefix='peers-wpt-')
    bad = 0
    try:
        tests = [x[1] for x in TESTS] + [two_operators()]
        runs = []
        jdir = os.path.join(tmp, 'json')
        os.makedirs(jdir)
        with open(os.path.join(jdir, 'mixed.json'), 'w') as f:
            json.dump({'source_file': 'webnn/conformance_tests/mixed.https.any.js', 'tests': tests}, f)
        write_old(jdir)
        runs.append(('json', jdir))
        if shutil.which('node'):
            cdir = os.path.join(tmp, 'wpt', 'webnn', 'conformance_tests')
            os.makedirs(cdir)
            with open(os.path.join(cdir, 'mixed.https.any.js'), 'w') as f:
                f.write("'use strict';\nconst mixedTests = " + json.dumps(tests, indent=1) + ";\n"
                        "if (navigator.ml) {\n  mixedTests.forEach((test) => {\n"
                        "    webnn_conformance_test(buildAndExecuteGraph, getPrecisionTolerance, test);\n  });\n}\n")
            write_old(os.path.join(tmp, 'wpt', 'webnn', 'resources', 'test_data'))
            runs.append(('node', os.path.join(tmp, 'wpt')))
        for label, src in runs:
            out = os.path.join(tmp, 'out-' + label)
            p = subprocess.run([sys.executable, tool, src, '-o', out, '--dmlref', dmlref], capture_output=True,
                               text=True)
            if p.returncode != 0:
                print(f'FAIL {label}: wpt.py exited {p.returncode}\n{p.stdout}\n{p.stderr}')
                bad += 1
                continue
            with open(os.path.join(out, 'report.json')) as f:
                bad += check(json.load(f), label)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    n = len(TESTS) + 1 + len(OLD_TESTS)
    print(f'{n * len(runs) - bad} passed, {bad} failed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
