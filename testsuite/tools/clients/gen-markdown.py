#!/usr/bin/env python3
"""Write a deterministic Markdown document of N sections to stdout: prose
with emphasis, links and inline code, nested lists, pipe tables, fenced code
blocks, block quotes and footnotes: what pandoc's reader and writers meet in
real documents."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
words = ("heap census retainer thunk closure allocation generation nursery "
         "profile sample band constructor module binding eventlog socket "
         "pause debugger snapshot fragmentation block megablock pinned").split()
seed = 12345
def rnd(k):
    global seed
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % k
def sentence():
    ws = [words[rnd(len(words))] for _ in range(8 + rnd(12))]
    i = rnd(len(ws)); ws[i] = "*" + ws[i] + "*"
    j = rnd(len(ws)); ws[j] = "`" + ws[j] + "`"
    k = rnd(len(ws)); ws[k] = "[" + ws[k] + "](https://example.org/" + ws[k].strip("*`") + ")"
    return " ".join(ws).capitalize() + "."
out = sys.stdout
out.write("---\ntitle: Generated report\nauthor: rtscope\n---\n\n")
for s in range(n):
    out.write("# Section %d\n\n" % s)
    for p in range(3):
        out.write(" ".join(sentence() for _ in range(5)) + "\n\n")
    out.write("Some prose with a note.[^n%d]\n\n[^n%d]: The note of section %d, **bold**.\n\n" % (s, s, s))
    for i in range(6):
        out.write("- item %d: %s\n" % (i, sentence()))
        if i % 2 == 0:
            out.write("    1. nested %s\n    2. nested again\n" % words[rnd(len(words))])
    out.write("\n| name | count | share |\n|:-----|------:|:-----:|\n")
    for r in range(8):
        out.write("| %s | %d | %d%% |\n" % (words[rnd(len(words))], rnd(100000), rnd(100)))
    out.write("\n```haskell\nmain = do\n  let xs = [1 .. %d]\n  print (sum xs)\n```\n\n" % rnd(1000))
    out.write("> %s\n> %s\n\n" % (sentence(), sentence()))
