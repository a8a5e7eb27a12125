#!/usr/bin/env python3
"""gml-check: a strict reader of the GML that `rtscope debug gml` writes,
independent of rtscope's writer. Checks the grammar (GML's key/value lists:
keys are identifiers, values integers, reals, "strings" without '"', or
[ lists ]), one top-level `graph` with `directed 1`, unique integer node ids
and labels, edges between existing nodes, count/bytes attributes that are
non-negative numbers. Prints one line per node and edge:
    node LABEL count N bytes B
    edge SOURCE_LABEL -> TARGET_LABEL count N
(&quot; &amp; &#N; entities decoded). When python3-networkx is installed,
the file is also read with networkx.read_gml and must give the same
nodes and edges. Exit 1 with a message on the first problem."""
import html
import re
import sys

TOKEN = re.compile(r'\s*(?:(\[)|(\])|("[^"]*")|([A-Za-z_][A-Za-z0-9_]*)|'
                   r'([+-]?\d+\.\d*(?:[eE][+-]?\d+)?)|([+-]?\d+))')


def fail(msg):
    print("gml-check: " + msg, file=sys.stderr)
    sys.exit(1)


def tokens(text):
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            fail("bad token at offset %d: %r" % (pos, text[pos:pos + 20]))
        pos = m.end()
        if m.group(1):
            yield ('[', None)
        elif m.group(2):
            yield (']', None)
        elif m.group(3):
            s = m.group(3)[1:-1]
            if any(ord(c) > 126 for c in s):
                fail("non-ASCII character in string %r" % s)
            yield ('str', html.unescape(s))
        elif m.group(4):
            yield ('key', m.group(4))
        elif m.group(5):
            yield ('real', float(m.group(5)))
        else:
            yield ('int', int(m.group(6)))


def parse_list(toks, top):
    items = []
    for kind, val in toks:
        if kind == ']':
            if top:
                fail("unbalanced ]")
            return items
        if kind != 'key':
            fail("expected a key, got %s %r" % (kind, val))
        try:
            vk, vv = next(toks)
        except StopIteration:
            fail("key %s without a value" % val)
        if vk == '[':
            vv = parse_list(toks, False)
        elif vk in (']', 'key'):
            fail("key %s without a value" % val)
        items.append((val, vv))
    if not top:
        fail("unterminated [")
    return items


def main():
    text = open(sys.argv[1], encoding='ascii').read()
    doc = parse_list(tokens(text), True)
    graphs = [v for k, v in doc if k == 'graph']
    if len(graphs) != 1 or len(doc) != 1:
        fail("expected exactly one top-level graph")
    g = graphs[0]
    if ('directed', 1) not in g:
        fail("graph is not directed")
    nodes, labels, edges = {}, set(), []
    for k, v in g:
        if k == 'node':
            d = dict(v)
            if len(d) != len(v):
                fail("node with a repeated key: %r" % v)
            if not isinstance(d.get('id'), int) or not isinstance(d.get('label'), str):
                fail("node without integer id or string label: %r" % v)
            if d['id'] in nodes or d['label'] in labels:
                fail("duplicate node id or label: %r" % v)
            for a in ('count', 'bytes'):
                if not isinstance(d.get(a), (int, float)) or d[a] < 0:
                    fail("node %s: bad %s" % (d['label'], a))
            nodes[d['id']] = d
            labels.add(d['label'])
        elif k == 'edge':
            d = dict(v)
            if d.get('source') not in nodes or d.get('target') not in nodes:
                fail("edge between unknown nodes: %r" % v)
            if not isinstance(d.get('count'), (int, float)) or d['count'] < 1:
                fail("edge with a bad count: %r" % v)
            edges.append(d)
    if not nodes:
        fail("no nodes")
    pairs = [(e['source'], e['target']) for e in edges]
    if len(set(pairs)) != len(pairs):
        fail("repeated edge")
    for d in nodes.values():
        print("node %s count %d bytes %d" % (d['label'], d['count'], d['bytes']))
    for e in edges:
        print("edge %s -> %s count %d" % (nodes[e['source']]['label'],
                                          nodes[e['target']]['label'], e['count']))
    try:
        import networkx
    except ImportError:
        return
    ng = networkx.read_gml(sys.argv[1])
    if set(ng.nodes) != labels or ng.number_of_edges() != len(edges):
        fail("networkx reads a different graph")


main()
