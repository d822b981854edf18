#!/usr/bin/env python3
"""Writes the line-table fixtures python_lines_test decodes (analyzers/src/python_lines.cpp).

For a fixed set of varied functions, compiled from the same source text by whichever interpreter
runs this script, it dumps every code object's co_firstlineno, co_linetable (hex) and the line of
every code unit of its bytecode as co_lines() gives it (0 where it gives None). The test decodes
each line table and must find the same line at every offset.

    python3 make_fixtures.py > cpython-3.11.json      # one file per interpreter

Run it with /usr/bin/python3 and each pyenv interpreter; the JSON files are committed.
"""

import json
import sys

# Varied shapes: loops (lines going back), multi-line expressions, try/except, comprehensions,
# lambdas, nested functions, long straight code (offset deltas over 254 bytes), gaps of more
# than 127 and 255 lines, a function starting after line 1000, and lines without a location.
BODY = '''
def straight(a, b):
    c = a + b
    d = c * 2
    return d


def loop(items):
    total = 0
    for i, x in enumerate(items):
        if i % 2:
            total += x
        else:
            total -= x
    while total > 100:
        total //= 2
    return total


def multiline(a, b, c):
    value = (a +
             b *
             c)
    call = max(
        a,
        b,
        c,
    )
    return [value,
            call]


def handler(x):
    try:
        y = 1 / x
    except ZeroDivisionError as err:
        y = str(err)
    finally:
        x = None
    return y


def comprehensions(data):
    squares = [v * v for v in data]
    evens = {v for v in data if v % 2 == 0}
    pairs = {k: v for k, v in zip(data, data[1:])}
    gen = sum(v for v in data)
    return squares, evens, pairs, gen


def nested(n):
    def inner(m):
        return lambda k: k + m + n
    return inner(n)(1)


class Block:
    def forward(self, x):
        x = x + 1
        return self.helper(x)

    def helper(self, x):
        with open(__file__) as f:
            return f.read(x)


def wide(a):
    return [a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7, a + 8, a + 9, a + 10, a + 11, a + 12, a + 13, a + 14, a + 15, a + 16, a + 17, a + 18, a + 19, a + 20, a + 21, a + 22, a + 23, a + 24, a + 25, a + 26, a + 27, a + 28, a + 29, a + 30, a + 31, a + 32, a + 33, a + 34, a + 35, a + 36, a + 37, a + 38, a + 39, a + 40, a + 41, a + 42, a + 43, a + 44, a + 45, a + 46, a + 47, a + 48, a + 49, a + 50, a + 51, a + 52, a + 53, a + 54, a + 55, a + 56, a + 57, a + 58, a + 59, a + 60, a + 61, a + 62, a + 63, a + 64, a + 65, a + 66, a + 67, a + 68, a + 69, a + 70]


def gaps(a):
    a += 1
''' + '\n' * 140 + '''    a += 2
''' + '\n' * 300 + '''    a += 3
    if a:
        return a
''' + '\n' * 130 + '''    return -a


async def coroutine(x):
    await x
    async for y in x:
        yield y


def long_function(a):
''' + ''.join('    a = a * %d + (a if a > %d else %d)\n' % (i, i, i) for i in range(400)) + '''    return a
'''

# A function defined after line 1000 of its file.
LATE = '\n' * 1200 + '''
def late(x):
    for i in range(x):
        x += i
    return x
'''


def units(code):
    """(offset in bytes, line or 0) of every code unit co_lines() covers."""
    pairs = []
    for start, end, line in code.co_lines():
        for offset in range(start, end, 2):
            pairs.append([offset, line or 0])
    return pairs


def codes(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, 'co_code'):
            yield from codes(const)


def main():
    out = {
        'python': '%d.%d.%d' % sys.version_info[:3],
        'version': sys.version_info[0] << 8 | sys.version_info[1],
        'format': 'py310' if sys.version_info < (3, 11) else 'py311',
        'codes': [],
    }
    for filename, source in (('fixture_body.py', BODY), ('fixture_late.py', LATE)):
        for code in codes(compile(source, filename, 'exec')):
            out['codes'].append({
                'file': filename,
                'name': getattr(code, 'co_qualname', code.co_name),
                'first_line': code.co_firstlineno,
                'linetable': code.co_linetable.hex(),
                'lines': units(code),
            })
    json.dump(out, sys.stdout, separators=(',', ':'))
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
