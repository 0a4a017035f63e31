#!/usr/bin/env python3
"""The floors of src/, include/ixy/ and apps/: who includes whom, who calls whom, and that no file calls or includes
upwards.

Usage: test_layers.py SOURCE_DIR LIBIXY_A

Include graph: the #include "..." lines of src/, include/ixy/ and apps/. Call graph: per object file of libixy.a
(nm), the symbols it leaves undefined, each joined to the object that defines it; a reference to a table of
function pointers (struct pci_access, struct ixy_driver) counts as a call. One call nm cannot see is added: the
process's way to its devices (access.c) is a struct pci_access chosen at run time, and dma_provider.c calls its
allocate and free, so it calls every file that defines a struct pci_access. The floors, top to bottom:

  5 apps                apps/
  4 API                 include/ixy/, the public headers
  3 dispatch            src/device.c and the rest of the device API (stats.c, interrupts.c, sandbox.c), and the
                        checks ixy_init makes before it takes a device (checks.c, failsafe.c)
  2 drivers             src/driver/: the drivers, their register and descriptor headers, their register names for
                        the trace (*_trace.c)
  1 pci, vfio, memory   the rest of src/: the ways to devices (sysfs: pci.c, VFIO: vfio.c, AF_XDP's memory:
                        xdp_memory.c) and the process's choice of one (access.c), DMA memory and pools, the software
                        RSS hash, the register trace (trace.c, which knows no driver)
  0 log                 src/log.h

Fails on a call between files that are in a cycle (a file calling a file that calls it back, however far round),
on a call from a lower floor to a higher one, and on an include from a lower floor of a higher one's header. One
exception: include/ixy/ holds the types every floor shares (struct ixy_device, struct ixy_config, struct
dma_memory); any file may include it, and it includes only itself. Prints the floors and both graphs.
"""
import os
import re
import subprocess
import sys
import textwrap

FLOOR_NAMES = {0: "log", 1: "pci, vfio, memory", 2: "drivers", 3: "dispatch", 4: "API", 5: "apps"}
DISPATCH = re.compile(r"^src/(device|stats|interrupts|sandbox)\.c$|^src/(checks|failsafe)\.[ch]$")
# The calls through the process's struct pci_access (see above): the caller, and how a table is defined.
WAY_CALLER = "src/dma_provider.c"
WAY_DEFINITION = re.compile(r"^const struct pci_access \w+", re.MULTILINE)


def floor(path):
    if path.startswith("apps/"):
        return 5
    if path.startswith("include/ixy/"):
        return 4
    if DISPATCH.match(path):
        return 3
    if path.startswith("src/driver/"):
        return 2
    if path == "src/log.h":
        return 0
    if path.startswith("src/"):
        return 1
    return None


def source_files(root):
    files = []
    for top in ("src", "include/ixy", "apps"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(directory, n), root) for n in names if n.endswith((".c", ".h"))]
    return sorted(files)


def include_graph(root, files):
    graph = {}
    for path in files:
        targets = set()
        with open(os.path.join(root, path)) as f:
            for line in f:
                m = re.match(r'\s*#\s*include\s+([<"])([^>"]+)[>"]', line)
                if not m:
                    continue
                kind, name = m.groups()
                if kind == "<" and name.startswith("ixy/"):
                    targets.add("include/" + name)
                elif kind == '"':
                    target = os.path.normpath(os.path.join(os.path.dirname(path), name))
                    if target in files:
                        targets.add(target)
                    # else: a header of test/seam (test builds only), not part of libixy's graph
        graph[path] = sorted(targets)
    return graph


def call_graph(root, library, files):
    """Edges between source files from nm on the library's objects (named <file>.o by cmake)."""
    out = subprocess.run(["nm", "-A", library], check=True, capture_output=True, text=True).stdout
    defined, undefined = {}, {}
    by_base = {}
    for path in files:
        by_base.setdefault(os.path.basename(path), []).append(path)
    for line in out.splitlines():
        # libixy.a:device.c.o:                 U access_check  /  libixy.a:device.c.o:0000000000000000 T ixy_init
        m = re.match(r"[^:]+:([^:]+)\.o:\s*(?:[0-9a-f]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        base, kind, symbol = m.groups()
        candidates = by_base.get(base, [])
        if len(candidates) != 1:
            sys.exit("test_layers: cannot tell which source file %s.o comes from (%s)" % (base, candidates))
        source = candidates[0]
        if kind == "U":
            undefined.setdefault(source, set()).add(symbol)
        elif kind.isupper():
            defined[symbol] = source
    graph = {}
    for source, symbols in undefined.items():
        graph[source] = sorted({defined[s] for s in symbols if s in defined and defined[s] != source})
    for source in set(defined.values()):
        graph.setdefault(source, [])
    # The calls through the process's way to its devices (see above), to each file that defines a way.
    for path in files:
        with open(os.path.join(root, path)) as f:
            if path != WAY_CALLER and WAY_DEFINITION.search(f.read()):
                graph[WAY_CALLER] = sorted(set(graph.get(WAY_CALLER, [])) | {path})
    return graph


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def print_floors(files):
    print("floors (include/ixy/ holds the types every floor shares: any file may include it):")
    for number in sorted(FLOOR_NAMES, reverse=True):
        names = [p for p in files if floor(p) == number]
        head = "  %d %-18s " % (number, FLOOR_NAMES[number])
        print(textwrap.fill(", ".join(names), width=120, initial_indent=head, subsequent_indent=" " * len(head)))


def print_graph(title, graph):
    print(title)
    for source in sorted(graph, key=lambda p: (-floor(p), p)):
        print("  [%d] %-32s -> %s" % (floor(source), source, ", ".join(graph[source]) or "-"))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, library = sys.argv[1], sys.argv[2]
    files = source_files(root)
    problems = []
    for path in files:
        if floor(path) is None:
            problems.append("%s has no floor" % path)
    includes = include_graph(root, files)
    calls = call_graph(root, library, files)
    print_floors(files)
    print_graph("include graph ([floor] file -> files it includes):", includes)
    print_graph("call graph of libixy ([floor] file -> files whose functions or tables it uses):", calls)

    for source, targets in includes.items():
        for target in targets:
            if target.startswith("include/ixy/"):
                continue  # the shared types: allowed from every floor
            if source.startswith("include/ixy/") or floor(target) > floor(source):
                problems.append(
                    "%s (%s) includes %s (%s)"
                    % (source, FLOOR_NAMES[floor(source)], target, FLOOR_NAMES[floor(target)])
                )
    for source, targets in calls.items():
        for target in targets:
            if floor(target) > floor(source):
                problems.append(
                    "%s (%s) calls up into %s (%s)"
                    % (source, FLOOR_NAMES[floor(source)], target, FLOOR_NAMES[floor(target)])
                )
    for component in cycles(calls):
        problems.append("call cycle between %s" % ", ".join(component))
    for component in cycles(includes):
        problems.append("include cycle between %s" % ", ".join(component))

    for p in problems:
        print("FAILED: " + p)
    print("layers: %d files, %d problems" % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
