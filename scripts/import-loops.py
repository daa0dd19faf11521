#!/usr/bin/env python3
"""Import loops among the modules of each crate in crates/.

usage: scripts/import-loops.py [CRATE...]   (default: every crate; a crate is its folder name)

A module is a source file of a crate's src/ (lib.rs or main.rs is the crate root, a/mod.rs and
a.rs are `a`, a/b.rs is `a::b`); modules declared inline (`mod tests { ... }`) belong to their
file. Module A imports module B where A names a path into B: in a `use` (`crate::`, `super::`,
`self::` or a child module's name) or in code (`crate::b::f()`, `child::X`). A path to an item
that a module re-exports (`pub use`) leads on to the module that defines it, so a crate root or a
folder's mod.rs that only re-exports is no step of a loop, and a path to another crate's item
re-exported here is no import; a `mod` declaration imports nothing.

Prints, per crate, each set of modules that import one another in a loop (a strongly connected
component of the import graph), with the imports between them (file:line). Exit status 1 when a
loop is found in a crate asked for.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
KEYWORDS = {"crate", "super", "self"}


def strip(text):
    """`text` with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif re.match(r'(b?r#*")', text[i:i + 40]) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'b?r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", text[i:i + 16])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def module_of(src, path):
    """The module path of the file `path` under `src`, as a tuple of names."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts in (["lib"], ["main"]):
        return ()
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def use_trees(text):
    """(visibility, tree text, offset) of each `use` declaration of stripped `text`."""
    for m in re.finditer(r"(?<![\w:])((?:pub(?:\s*\([^)]*\))?\s+)?)use\s+", text):
        end = text.find(";", m.end())
        yield bool(m.group(1).strip()), text[m.end():end], m.start()


def expand(tree):
    """The paths of a use tree `a::{b, c::{d as e, self}}`: (segments, name bound)."""
    tree = re.sub(r"\s*(::|[{},])\s*", r"\1", " ".join(tree.split()))

    def parse(s, prefix):
        items, depth, cur = [], 0, ""
        for ch in s:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                items.append(cur)
                cur = ""
            else:
                cur += ch
        items.append(cur)
        for item in filter(None, items):
            brace = item.find("{")
            if brace >= 0:
                head = [p for p in item[:brace].split("::") if p]
                yield from parse(item[brace + 1:item.rindex("}")], prefix + head)
                continue
            item, _, alias = item.partition(" as ")
            segs = [p for p in item.split("::") if p]
            if segs and segs[-1] == "self":
                segs.pop()
            path = prefix + segs
            if path:
                yield path, alias or path[-1]

    yield from parse(tree.lstrip(":"), [])


class Crate:
    def __init__(self, folder):
        self.name = folder.name
        src = folder / "src"
        self.files = {}
        for path in sorted(src.rglob("*.rs")):
            self.files[module_of(src, path)] = path
        self.modules = set(self.files)
        self.text = {m: strip(p.read_text()) for m, p in self.files.items()}
        self.inline = {}  # file module -> [(start, end, inline module path)]
        for mod, text in self.text.items():
            spans = []
            for m in re.finditer(rf"\bmod\s+({IDENT})\s*\{{", text):
                depth, j = 1, m.end()
                while j < len(text) and depth:
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    j += 1
                spans.append((m.start(), j, m.group(1)))
                self.modules.add(mod + (m.group(1),))
            self.inline[mod] = spans
        # Re-exports: module -> name -> absolute path it stands for.
        self.exports = {m: {} for m in self.modules}
        for mod, text in self.text.items():
            for public, tree, at in use_trees(text):
                if not public:
                    continue
                scope = self.scope(mod, at)
                for path, name in expand(tree):
                    if name != "*":
                        # None: an item of another crate, which no path follows into this one.
                        self.exports[scope][name] = self.absolute(scope, path)

    def scope(self, mod, at):
        """The (inline) module that offset `at` of `mod`'s file lies in."""
        scope = mod
        for start, end, name in self.inline[mod]:
            if start <= at < end:
                scope = mod + (name,)
        return scope

    def absolute(self, scope, path):
        """`path` as seen from module `scope`, made absolute in the crate; None outside it."""
        head = path[0]
        if head == "crate":
            return tuple(path[1:])
        if head in ("super", "self"):
            base = list(scope)
            while path and path[0] in ("super", "self"):
                if path[0] == "super":
                    base = base[:-1]
                path = path[1:]
            return tuple(base) + tuple(path)
        if scope + (head,) in self.modules:
            return scope + tuple(path)
        return None

    def target(self, path, seen=()):
        """The module that absolute `path` leads into, re-exports followed; None for a
        re-export of another crate's item."""
        path = tuple(path)
        k = len(path)
        while k > 0 and path[:k] not in self.modules:
            k -= 1
        mod = path[:k]
        if k < len(path) and path[k] in self.exports.get(mod, {}) and (mod, path[k]) not in seen:
            exported = self.exports[mod][path[k]]
            if exported is None:
                return None
            return self.target(exported + path[k + 1:], seen + ((mod, path[k]),))
        return mod

    def file_of(self, mod):
        while mod not in self.files:
            mod = mod[:-1]
        return mod

    def imports(self):
        """(from module, to module, line) of every import between file modules."""
        found = []
        for mod, text in self.text.items():
            def add(scope, path, at):
                absolute = self.absolute(scope, path)
                target = None if absolute is None else self.target(absolute)
                if target is None:
                    return
                to = self.file_of(target)
                if to != mod:
                    found.append((mod, to, text.count("\n", 0, at) + 1))

            uses = []
            for _, tree, at in use_trees(text):
                uses.append((at, at + len(tree)))
                scope = self.scope(mod, at)
                for path, _ in expand(tree):
                    if path[-1] == "*":
                        path = path[:-1]
                    add(scope, path, at)
            for m in re.finditer(rf"(?<![\w:])({IDENT}(?:::{IDENT})+)", text):
                if any(a <= m.start() < b for a, b in uses):
                    continue
                path = m.group(1).split("::")
                scope = self.scope(mod, m.start())
                if path[0] in KEYWORDS or scope + (path[0],) in self.modules:
                    add(scope, path, m.start())
        return found


def loops(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {}
    for a, b, _ in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def name(crate, mod):
    return "::".join((crate.name.replace("-", "_"),) + mod) if mod else crate.name.replace("-", "_")


def main(asked):
    crates = [Crate(f) for f in sorted((ROOT / "crates").iterdir()) if (f / "src").is_dir()]
    unknown = set(asked) - {c.name for c in crates}
    if unknown:
        sys.exit(f"no such crate: {', '.join(sorted(unknown))}")
    failed = False
    for crate in crates:
        if asked and crate.name not in asked:
            continue
        edges = crate.imports()
        comps = loops(edges)
        modules = len(crate.files)
        if not comps:
            print(f"{crate.name}: no import loop ({modules} modules)")
            continue
        failed = True
        print(f"{crate.name}: {len(comps)} import loop(s) ({modules} modules)")
        for comp in comps:
            members = set(comp)
            print("  loop: " + ", ".join(name(crate, m) for m in comp))
            shown = set()
            for a, b, line in sorted(edges):
                if a in members and b in members and (a, b) not in shown:
                    shown.add((a, b))
                    where = crate.files[a].relative_to(ROOT)
                    print(f"    {name(crate, a)} -> {name(crate, b)}  ({where}:{line})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
