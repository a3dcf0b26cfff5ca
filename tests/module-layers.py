#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
tests/module-layers.py MODULE_DIR: whether each file of the module calls
only into the files below it, as internal.h (and tasks.h, faults.h and pages.h
within their parts) write down their order. A file's uses are the functions it
calls and the variables it reads or writes that another file defines,
directly or through an inline function or a macro of a header, which the
include graph alone does not show. Prints one line per use against the
order ("sampler.c uses mp3_chardev_notify of chardev.c, above it") and
exits 1 if there is any.

One use is not judged: mp3_lock, the module's lock, which core.c defines
and takes for several parts, and which every part asserts held
(lockdep_assert_held()) where internal.h says it protects their state.
"""
import os
import re
import sys

WORD = re.compile(r'\b[A-Za-z_]\w*\b')
# Shared by every part by design (see above).
EVERYONES = {'mp3_lock'}


def strip(text):
    """The code alone: comments, strings and character constants blanked."""
    pat = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pat.sub(lambda m: '""' if m.group(0)[0] == '"' else ' ', text)


def top_level(code):
    """The top-level items of code: (head, body), body '' for a declaration."""
    items, depth, start, i = [], 0, 0, 0
    while i < len(code):
        c = code[i]
        if c == '#' and depth == 0 and (i == 0 or code[i - 1] == '\n'):
            end = i
            while True:
                end = code.find('\n', end)
                if end < 0 or code[end - 1] != '\\':
                    break
                end += 1
            end = len(code) if end < 0 else end
            items.append((code[i:end], ''))
            start = i = end + 1 if end < len(code) else end
            continue
        if c == '{':
            if depth == 0:
                brace = i
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                rest = code[i + 1:].lstrip()
                if not rest or rest[0] not in ';,=' and not re.match(r'\w+\s*[;,=\[]', rest):
                    items.append((code[start:brace], code[brace:i + 1]))
                    start = i + 1
        elif c == ';' and depth == 0:
            items.append((code[start:i + 1], ''))
            start = i + 1
        i += 1
    return items


def order(module):
    """Each file's rank in internal.h's list (finer within tasks.h's, faults.h's, pages.h's)."""
    ranks = {}

    def listed(header):
        text = open(os.path.join(module, header)).read()
        head = text[:text.index('#ifndef')]
        groups = []
        for line in re.findall(r'^ \* ([^\n]*)', head, re.M):
            m = re.match(r'((?:[a-z0-9_]+\.[ch](?:, )?)+)(\s|$)', line)
            if m:
                groups.append(re.findall(r'[a-z0-9_]+\.[ch]', m.group(1)))
        return groups

    for r, group in enumerate(listed('internal.h')):
        for f in group:
            ranks[f] = (r, 0)
    for header in ('tasks.h', 'faults.h', 'pages.h'):
        for sub, group in enumerate(listed(header)):
            for f in group:
                ranks[f] = (ranks[f][0], sub)
    return ranks


def main():
    module = sys.argv[1]
    ranks = order(module)
    defined = {}	# a function or variable of a .c file: that file
    inline = {}		# a header's inline function or macro: the words of its body
    uses = {}		# a .c file: the words of its code
    for name in sorted(os.listdir(module)):
        if not re.match(r'\w+\.[ch]$', name) or name.endswith('.mod.c'):
            continue
        code = strip(open(os.path.join(module, name)).read())
        if name.endswith('.c'):
            uses[name] = set(WORD.findall(code))
        for head, body in top_level(code):
            head = head.strip()
            m = re.match(r'#\s*define\s+(\w+)(.*)', head, re.S)
            if m and name.endswith('.h'):
                inline[m.group(1)] = set(WORD.findall(m.group(2)))
                continue
            if head.startswith('#') or re.match(r'(typedef|struct|enum|union)\b', head):
                continue
            if body:
                fn = re.search(r'(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*$', head)
                if not fn:
                    continue
                if name.endswith('.h'):
                    inline[fn.group(1)] = set(WORD.findall(body))
                elif not head.startswith('static'):
                    defined[fn.group(1)] = name
            elif name.endswith('.c') and not re.match(r'(static|extern)\b', head) and \
                    '(' not in head.split('=')[0]:
                var = re.search(r'(\w+)\s*(\[[^\]]*\])*\s*(=.*)?;$', head, re.S)
                if var:
                    defined[var.group(1)] = name
            if name.endswith('.c') and re.match(r'(DEFINE_\w+|DECLARE_\w+)\((\w+)', head):
                defined[re.match(r'\w+\((\w+)', head).group(1)] = name
    bad = []
    for user, words in sorted(uses.items()):
        seen, todo = set(), list(words)
        via = {}
        while todo:
            w = todo.pop()
            if w in seen:
                continue
            seen.add(w)
            for x in inline.get(w, ()):
                if x not in seen:
                    via.setdefault(x, w)
                    todo.append(x)
        for w in sorted(seen):
            home = defined.get(w)
            if w in EVERYONES or not home or home == user or user not in ranks or \
                    home not in ranks:
                continue
            if ranks[home] < ranks[user]:
                how = ' (through %s)' % via[w] if w in via else ''
                bad.append('%s uses %s of %s, above it%s' % (user, w, home, how))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
