#!/usr/bin/env node
// memlab-heap.js: what memlab (Meta's heap snapshot analyser) reads in a
// .heapsnapshot, as JSON on standard output, for the peer check of
// `rtscope debug heapsnapshot` (testsuite/tools/checkers/heapsnapshot-check.py).
//
//   memlab-heap.js FILE [--trace NAME] [--retained NAME]
//
// Loads FILE with memlab's getFullHeapFromFile (its parser, its shortest
// paths from the GC roots, its dominator tree and retained sizes) and
// prints:
//   nodes, edges   the counts memlab parsed
//   sizes          self sizes summed by node name (the synthetic root and
//                  groups left out), largest first: [name, count, bytes]
//   trace          with --trace: memlab's retainer trace (its shortest path
//                  from a GC root, root first) to the closest node whose
//                  name starts with NAME: [{type, name, edge}]
//   retained       with --retained: the node whose name starts with NAME
//                  that retains most, {name, type, retained, self}
'use strict';
const path = require('path');
const { getFullHeapFromFile } = require(path.join(__dirname, 'node_modules', '@memlab', 'heap-analysis'));

function parseArgs(argv) {
    const a = { file: null, trace: null, retained: null };
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--trace') a.trace = argv[++i];
        else if (argv[i] === '--retained') a.retained = argv[++i];
        else a.file = argv[i];
    }
    if (!a.file) {
        process.stderr.write('usage: memlab-heap.js FILE [--trace NAME] [--retained NAME]\n');
        process.exit(2);
    }
    return a;
}

function sizesByName(heap) {
    const by = new Map();
    heap.nodes.forEach(n => {
        if (n.type === 'synthetic') return;
        const s = by.get(n.name) || [n.name, 0, 0];
        s[1] += 1;
        s[2] += n.self_size;
        by.set(n.name, s);
    });
    return [...by.values()].sort((x, y) => y[2] - x[2] || (x[0] < y[0] ? -1 : 1));
}

// memlab's path to a node: the path edges it annotated, back to a root.
function traceTo(heap, node) {
    const out = [];
    const seen = new Set();
    for (let n = node; n && !seen.has(n.id); n = n.hasPathEdge ? n.pathEdge.fromNode : null) {
        seen.add(n.id);
        const edge = n.hasPathEdge ? String(n.pathEdge.name_or_index) : null;
        out.push({ type: n.type, name: n.name, edge });
    }
    return out.reverse();
}

function closestNamed(heap, prefix) {
    let best = null, bestLen = Infinity;
    heap.nodes.forEach(n => {
        if (n.type === 'synthetic' || !n.name.startsWith(prefix)) return;
        const len = traceTo(heap, n).length;
        if (len < bestLen) { best = n; bestLen = len; }
    });
    return best;
}

function largestRetained(heap, prefix) {
    let best = null;
    heap.nodes.forEach(n => {
        if (n.type === 'synthetic' || !n.name.startsWith(prefix)) return;
        if (!best || n.retainedSize > best.retainedSize) best = n;
    });
    return best && { name: best.name, type: best.type, retained: Number(best.retainedSize), self: best.self_size };
}

(async function main() {
    const a = parseArgs(process.argv.slice(2));
    const log = console.log;
    console.log = () => {}; // memlab's progress lines
    const heap = await getFullHeapFromFile(a.file);
    console.log = log;
    const out = { nodes: heap.nodes.length, edges: heap.edges.length, sizes: sizesByName(heap) };
    if (a.trace) {
        const n = closestNamed(heap, a.trace);
        out.trace = n ? traceTo(heap, n) : null;
    }
    if (a.retained) out.retained = largestRetained(heap, a.retained);
    process.stdout.write(JSON.stringify(out) + '\n');
})().catch(e => {
    process.stderr.write(`memlab-heap.js: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
});
