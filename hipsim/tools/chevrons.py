#!/usr/bin/env python3
"""Rewrites the two HIP constructs host C++ cannot parse, keeping every line where it was.

    kernel<<<grid, block, lds, stream>>>(args)  ->  kernel * ::hipsim_detail::Chevron{"kernel", grid, ...}(args)
    extern __shared__ T name[];                  ->  extern __hipsim_dynamic_shared T name[];
    static __shared__                            ->  __shared__   (the sim's __shared__ already says static)
    asm volatile("s_waitcnt vmcnt(0)" ...)       ->  calls into the sim (asm_stmts.py; other asm is an error)

Usage: chevrons.py IN OUT (OUT - : standard output). OUT starts with a #line directive naming IN, so diagnostics
and debug lines name the user's file. A `<<<` without its `>>>` is an error naming the line.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asm_stmts import rewrite_asm  # noqa: E402


def matching_open(text, close_at, open_ch, close_ch):
    """Index of the bracket that opens the one at text[close_at] (scanning back), or -1."""
    depth = 0
    for j in range(close_at, -1, -1):
        if text[j] == close_ch:
            depth += 1
        elif text[j] == open_ch:
            depth -= 1
            if depth == 0:
                return j
    return -1


def kernel_name_start(text, end):
    """Index where the kernel expression before text[end] (`<<<`) starts: an id-expression with template args,
    or a parenthesised expression."""
    i = end
    while i > 0 and text[i - 1] in ' \t':
        i -= 1
    while i > 0:
        c = text[i - 1]
        if c.isalnum() or c in '_:':
            i -= 1
        elif c in '>)':
            j = matching_open(text, i - 1, '<' if c == '>' else '(', c)
            if j < 0:
                break
            i = j
            if c == ')':
                break
        else:
            break
    return i


def rewrite(text, path):
    text = rewrite_asm(text, path)
    text = re.sub(r'\bextern\s+__shared__\b', 'extern __hipsim_dynamic_shared', text)
    text = re.sub(r'\bstatic\s+__shared__\b', '__shared__', text)
    out = []
    pos = 0
    while True:
        k = text.find('<<<', pos)
        if k < 0:
            out.append(text[pos:])
            break
        e = text.find('>>>', k)
        if e < 0:
            line = text.count('\n', 0, k) + 1
            sys.exit(f'{path}:{line}: error: kernel launch `<<<` without its `>>>` (hipsim)')
        s = kernel_name_start(text, k)
        name = ' '.join(text[s:k].split())
        out.append(text[pos:s])
        out.append(f'{text[s:k]} * ::hipsim_detail::Chevron{{"{name}", {text[k + 3:e]}}}')
        pos = e + 3
    return ''.join(out)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding='utf-8') as f:
        text = f.read()
    body = rewrite(text, src)
    if dst == '-':  # to stdout (tests read the rewrite)
        sys.stdout.write(body)
        return
    with open(dst, 'w', encoding='utf-8') as f:
        f.write(f'#line 1 "{src}"\n' + body)


if __name__ == '__main__':
    main()
