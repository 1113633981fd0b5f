#!/usr/bin/env python3
"""Worst-case stack depth of a library from GCC's -fcallgraph-info=su files.

Usage: stack-depth.py ROOT_REGEX FILE.ci...

Each node of the graph is a function with its frame ("N bytes (static)");
each edge a direct call. The depth of a function is its frame plus the
deepest of its callees; this prints the deepest chain from every function
whose demangled name matches ROOT_REGEX (the entry points) and exits 0,
or exits 1 when the graph has a cycle (recursion: no bound) or a frame that
is not static.

Calls the graph cannot see are said, not guessed: calls through a pointer
(the checker makes none but the Sink's virtual methods and the Scratch
allocate callback: the application's own code, whose frames add to the
bound) and calls to functions outside the files (memcpy and the like:
leaf functions of the C library).
"""
import re
import sys

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
FRAME = re.compile(r'\\n(\d+) bytes \((static|dynamic|dynamic,bounded)\)')


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    pattern = sys.argv[1]
    names, frames, kinds, calls = {}, {}, {}, {}
    for path in sys.argv[2:]:
        text = open(path, encoding="utf-8").read()
        for title, label in NODE.findall(text):
            names[title] = label.split("\\n")[0]
            found = FRAME.search(label)
            if found:
                frames[title] = int(found.group(1))
                kinds[title] = found.group(2)
            calls.setdefault(title, set())
        for source, target in EDGE.findall(text):
            calls.setdefault(source, set()).add(target)
    not_static = [names[t] for t in frames if kinds[t] != "static"]
    depth, via, state = {}, {}, {}

    def visit(root):
        # Iterative depth-first search: a recursive one could itself run
        # out of Python's stack on a deep graph.
        stack = [(root, iter(sorted(calls.get(root, ()))))]
        state[root] = "open"
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                best, best_child = 0, None
                for c in calls.get(node, ()):
                    if depth.get(c, 0) > best:
                        best, best_child = depth[c], c
                depth[node] = frames.get(node, 0) + best
                via[node] = best_child
                state[node] = "done"
                continue
            if state.get(child) == "open":
                raise RecursionError(f"{names.get(child, child)} calls itself (through a cycle)")
            if child not in state:
                state[child] = "open"
                stack.append((child, iter(sorted(calls.get(child, ())))))

    try:
        for title in sorted(names):
            if title not in state:
                visit(title)
    except RecursionError as cycle:
        print(f"stack-depth: recursion: {cycle}; no bound", file=sys.stderr)
        return 1
    roots = sorted((t for t in names if re.search(pattern, names[t]) and t in frames),
                   key=lambda t: (-depth[t], names[t]))
    if not roots:
        print(f"stack-depth: no function matches {pattern!r}", file=sys.stderr)
        return 1
    external = sorted({short(names[t]) for t in names if t not in frames} - {"Placeholder"})
    for root in roots:
        chain, node = [], root
        while node is not None:
            chain.append(f"{frames.get(node, 0)} {short(names[node])}")
            node = via.get(node)
        print(f"{depth[root]:8d}  {short(names[root])}: " + " > ".join(chain[1:] or ["(leaf)"]))
    print("   not counted: calls through pointers (Sink methods, Scratch::allocate: the"
          " application's frames add to these) and " + ", ".join(external))
    if not_static:
        print("stack-depth: frames that are not static: " + ", ".join(not_static), file=sys.stderr)
        return 1
    return 0


def short(name):
    """The function's name without return type, namespaces and arguments."""
    name = re.sub(r" \[clone [^]]*\]", "", name)
    name = re.sub(r"\(.*", "", name)
    name = name.split(" ")[-1]
    return re.sub(r"^.*::(?=[A-Za-z_~<]+\w*$)", "", name) if "::" in name else name


if __name__ == "__main__":
    sys.exit(main())
