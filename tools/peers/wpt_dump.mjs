// Dumps the tests of WPT WebNN conformance files as JSON, for tools/peers/wpt.py.
//
//   node tools/peers/wpt_dump.mjs FILE.https.any.js [...]  > tests.json
//
// Each file is evaluated in a fresh VM context with the harness stubbed: navigator.ml exists,
// webnn_conformance_test() records the test objects it is given (one test, or an array of
// them), and any other name the file uses but does not define (buildAndExecuteGraph,
// getPrecisionTolerance, promise_test, ...) is defined as a function that does nothing and
// returns undefined, after which the file is evaluated again. Output:
//   [{"file": "add.https.any.js", "tests": [{"name": ..., "graph": {...}}, ...], "error": null}]
// BigInt values (int64 data) are written as decimal strings, Infinity and NaN as "Infinity", "NaN".
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

function dumpFile(file) {
    const source = fs.readFileSync(file, 'utf8');
    const stubs = new Set();
    for (let attempt = 0; attempt < 200; ++attempt) {
        const tests = [];
        const stub = () => undefined;
        const context = {
            navigator: {ml: {}},
            console,
            webnn_conformance_test: (...args) => {
                for (const a of args) {
                    if (Array.isArray(a)) tests.push(...a.filter(t => t && t.graph));
                    else if (a && typeof a === 'object' && a.graph) tests.push(a);
                }
            },
            isTargetTest: () => true,
            location: {search: ''},
        };
        for (const name of stubs) context[name] = stub;
        vm.createContext(context);
        try {
            vm.runInContext(source, context, {filename: file});
            return {file: path.basename(file), tests, error: null};
        } catch (e) {
            const m = /^(\w+) is not defined$/.exec(e && e.message);
            if (e && e.name === 'ReferenceError' && m && !stubs.has(m[1])) {
                stubs.add(m[1]);
                continue;
            }
            return {file: path.basename(file), tests, error: String(e && e.message)};
        }
    }
    return {file: path.basename(file), tests: [], error: 'too many undefined names'};
}

const out = process.argv.slice(2).map(dumpFile);
// JSON has no Infinity or NaN: they are written as the strings Python's float() reads.
const replacer = (k, v) =>
    (typeof v === 'bigint' ? v.toString() : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
process.stdout.write(JSON.stringify(out, replacer));
