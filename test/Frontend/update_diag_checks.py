#!/usr/bin/env python3
"""Regenerates the FileCheck lines of a diagnostics test in test/Frontend.

    test/Frontend/update_diag_checks.py test/Frontend/diag-names.tile
    test/Frontend/update_diag_checks.py FILE 'CHECK:--split-input-file' \\
        'PARAM:-D,BLK_N=320'

Each RUN is a check prefix and the tile-dsl arguments (comma separated; the
default is CHECK:--split-input-file). The old check lines of those prefixes
are dropped; tile-dsl runs on the rest; every error or warning gets a check
line, with its full message, after the source line it points at (as
[[@LINE-n]]:col), its notes after it, and diagnostics without a place at the
top of their chunk. Review the messages before committing: this writes what
tile-dsl says, not what it should say. TILE_DSL names the binary (default
build/bin/tile-dsl).
"""
import os
import re
import subprocess
import sys

DIAG = re.compile(r'^(.*?):(\d+):(\d+): (error|note|warning): (.*)$')
NOLOC = re.compile(r'^(\S*?): (error|note|warning): (.*)$')


def main():
    path = sys.argv[1]
    runs = []
    for spec in sys.argv[2:] or ['CHECK:--split-input-file']:
        prefix, _, args = spec.partition(':')
        runs.append((prefix, [a for a in args.split(',') if a]))
    prefixes = {prefix for prefix, _ in runs}
    tool = os.environ.get('TILE_DSL', 'build/bin/tile-dsl')
    name = os.path.basename(path)
    old = open(path).read().split('\n')
    if old and old[-1] == '':
        old.pop()
    check_line = re.compile(r'^# (%s)(-NEXT|-NOT|-SAME)?: ' %
                            '|'.join(map(re.escape, prefixes)))
    src = [l for l in old if not check_line.match(l)]
    tmp = path + '.tmp'
    open(tmp, 'w').write('\n'.join(src) + '\n')
    chunk_starts = [1] + [i + 2 for i, l in enumerate(src)
                          if l.startswith('# -----')]
    inserts = {}
    try:
        for prefix, args in runs:
            res = subprocess.run([tool] + args + [tmp], capture_output=True,
                                 text=True)
            groups = []
            for line in res.stderr.split('\n'):
                m = DIAG.match(line)
                if m:
                    diag = (int(m.group(2)), int(m.group(3)), m.group(4),
                            m.group(5))
                else:
                    m = NOLOC.match(line)
                    if not m:
                        continue
                    diag = (None, None, m.group(2), m.group(3))
                if diag[2] == 'note' and groups:
                    groups[-1][1].append(diag)
                else:
                    groups.append([diag[0], [diag]])
            last = 1
            for line, diags in groups:
                if line is None:
                    anchor = max(c for c in chunk_starts if c <= last) - 1
                    if diags[0][3].startswith('too many errors'):
                        anchor = last
                else:
                    anchor = last = line
                inserts.setdefault(anchor, []).extend(
                    (prefix,) + d for d in diags)
    finally:
        os.remove(tmp)
    final = {}
    current = 0
    for i in range(len(src) + 1):
        if i:
            current += 1
            final[i] = current
        current += len(inserts.get(i, []))
    out = []

    def emit(i):
        for prefix, line, col, kind, msg in inserts.get(i, []):
            if line is None:
                out.append('# %s: %s: %s: %s' % (prefix, name, kind, msg))
                continue
            delta = final[line] - (len(out) + 1)
            rel = '[[@LINE%+d]]' % delta if delta else '[[@LINE]]'
            out.append('# %s: %s:%s:%d: %s: %s' % (prefix, name, rel, col,
                                                   kind, msg))

    emit(0)
    for i, line in enumerate(src, 1):
        out.append(line)
        emit(i)
    open(path, 'w').write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
