#!/usr/bin/env python3
"""The floors of src/, include/ixy/ and apps/: who includes whom, who calls whom, and that no file calls or includes
upwards (issue 35: no include or call cycles, no include or call from a lower floor to a higher one).

Usage: test_layers.py SOURCE_DIR OBJECT_OR_ARCHIVE...

Include graph: the #include "..." lines (and <ixy/...>) of src/, include/ixy/ and apps/. Call graph: per object file
(nm) of libixy (target ixy), of the apps' helper library (ixy_apps) and of the apps' main files (ixy-fwd, ixy-pktgen,
ixy-pcap), the symbols it leaves undefined, each joined to the one object that defines it; a reference to a table of
function pointers (struct pci_access, struct ixy_driver) counts as a call. An object is named after its source file
(<path>.c.o, as cmake does; the object paths or archives given, the longest matching end of the path decides). A
symbol defined in several objects (main, once per app) joins no call. One call nm cannot see is added while
src/dma_provider.c exists: the process's way to its devices (access.c) is a struct pci_access chosen at run time, and
dma_provider.c calls its allocate and free, so it calls every file that defines a struct pci_access.

The floors, top to bottom, each a pattern of paths (a file no pattern matches is a failure: "has no floor"):

  7 apps                apps/*.c, apps/*.h: the apps' main files and what only they include (fwd.h)
  6 app helpers         apps/common/: everything of the apps but main (library ixy_apps); calls no app's main file
  5 API                 include/ixy/, the public headers
  4 dispatch            src/device.c and the rest of the device API (stats.c, interrupts.c, sandbox.c, no_queue.c,
                        the queue refusal ixy/ixy.h's inline wrappers call), the tables naming drivers and features
                        for device.c (src/entries.h, src/*_entries.c), and the checks ixy_init makes before it takes a device
                        (checks.c, failsafe.c)
  3 drivers             src/driver/: the drivers, their register and descriptor headers, their register names for
                        the trace (*_trace.c), their register accessors (plain/reg_io.h, traced/reg_io.h)
  2 pci, vfio           the ways to devices, each a struct pci_access: sysfs (pci*.c/h, with pci_interrupts.h),
                        VFIO (vfio*.c/h), AF_XDP's ordinary memory (xdp_memory.c/h: it defines a struct pci_access
                        for the devices' DMA memory, so it is a way, not memory) and the process's choice of one
                        (access.c/h)
  1 memory              DMA memory and pools (memory.c, mempool.c, dma*.c/h such as dma_provider.c), and the leaf
                        helpers that call nothing of ixy: the software RSS hash (rss.c), the register trace (trace.c,
                        which knows no driver)
  0 log                 src/log.h

Fails on a call between files that are in a cycle (a file calling a file that calls it back, however far round), on
an include cycle, on a call from a lower floor to a higher one, and on an include from a lower floor of a higher
one's header. One exception: include/ixy/ holds the types every floor shares (struct ixy_device, struct ixy_config,
struct dma_memory); any file may include it, and it includes only itself. Prints the floors and both graphs, then
the counts `cycles: include=<n> call=<n>` (cycles, each a set of files) and `upward: include=<n> call=<n>` (edges).
"""
import os
import re
import subprocess
import sys
import textwrap

# The floors, bottom to top: number, name, the paths on it.
FLOORS = [
    (0, "log", re.compile(r"^src/log\.h$")),
    (1, "memory", re.compile(r"^src/(memory|mempool|dma\w*|rss|trace)\.[ch]$")),
    (2, "pci, vfio", re.compile(r"^src/(pci\w*|vfio\w*|access|xdp_memory)\.[ch]$")),
    (3, "drivers", re.compile(r"^src/driver/([^/]+|plain/reg_io|traced/reg_io)\.[ch]$")),
    (
        4,
        "dispatch",
        re.compile(r"^src/(device|stats|interrupts|sandbox|no_queue)\.c$|^src/(checks|failsafe|\w*entries)\.[ch]$"),
    ),
    (5, "API", re.compile(r"^include/ixy/[^/]+\.h$")),
    (6, "app helpers", re.compile(r"^apps/common/[^/]+\.[ch]$")),
    (7, "apps", re.compile(r"^apps/[^/]+\.[ch]$")),
]
FLOOR_NAMES = {number: name for number, name, _ in FLOORS}
# The calls through the process's struct pci_access (see above): the caller, and how a table is defined.
WAY_CALLER = "src/dma_provider.c"
WAY_DEFINITION = re.compile(r"^const struct pci_access \w+", re.MULTILINE)


def floor(path):
    for number, _, pattern in FLOORS:
        if pattern.match(path):
            return number
    return None


def label(path):
    number = floor(path)
    return "?" if number is None else str(number)


def floor_name(path):
    number = floor(path)
    return "no floor" if number is None else FLOOR_NAMES[number]


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


def source_of(obj, files):
    """The source file an object is compiled from: src/device.c for .../ixy.dir/src/device.c.o, apps/common/sizes.c
    for .../ixy_apps.dir/common/sizes.c.o, or for a member of an archive (libixy.a:device.c.o) by its name alone.
    The longest end of the object's path that ends a source file's path decides; it must name one file."""
    parts = obj[: -len(".o")].replace(os.sep, "/").split("/")
    for length in range(len(parts), 0, -1):
        tail = "/".join(parts[-length:])
        candidates = [p for p in files if p == tail or p.endswith("/" + tail)]
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            sys.exit("test_layers: cannot tell which source file %s comes from (%s)" % (obj, candidates))
    sys.exit("test_layers: %s is compiled from no file of src/, include/ixy/ or apps/" % obj)


def call_graph(root, objects, files):
    """Edges between source files from nm on the objects (or archives of objects) given."""
    out = subprocess.run(["nm", "-A"] + objects, check=True, capture_output=True, text=True).stdout
    defined, undefined = {}, {}
    for line in out.splitlines():
        # build/CMakeFiles/ixy.dir/src/device.c.o:                 U access_check
        # libixy.a:device.c.o:0000000000000000 T ixy_init
        m = re.match(r"(.*?\.o):\s*(?:[0-9a-f]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, symbol = m.groups()
        source = source_of(obj.split(":")[-1], files)
        if kind == "U":
            undefined.setdefault(source, set()).add(symbol)
        elif kind.isupper():
            defined.setdefault(symbol, set()).add(source)
    graph = {source: set() for sources in defined.values() for source in sources}
    for source in undefined:
        graph.setdefault(source, set())
    for source, symbols in undefined.items():
        for symbol in symbols:
            if len(defined.get(symbol, ())) == 1:
                graph[source] |= defined[symbol] - {source}
    # Defined by several objects (main, once per app): which one a reference means depends on the program linked.
    several = {symbol: definers for symbol, definers in defined.items() if len(definers) > 1}
    # The calls through the process's way to its devices (see above), to each file that defines a way.
    if WAY_CALLER in files:
        for path in files:
            with open(os.path.join(root, path)) as f:
                if path != WAY_CALLER and WAY_DEFINITION.search(f.read()):
                    graph.setdefault(WAY_CALLER, set()).add(path)
    return {source: sorted(targets) for source, targets in graph.items()}, several


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
        print(textwrap.fill(", ".join(names) or "-", width=120, initial_indent=head, subsequent_indent=" " * len(head)))


def print_graph(title, graph):
    print(title)
    for source in sorted(graph, key=lambda p: (-(floor(p) if floor(p) is not None else -1), p)):
        print("  [%s] %-32s -> %s" % (label(source), source, ", ".join(graph[source]) or "-"))


def upward(graph, verb):
    """The edges from a lower floor to a higher one, as problems. include/ixy/ may be included from every floor and
    includes only itself."""
    problems = []
    for source, targets in sorted(graph.items()):
        for target in targets:
            if floor(source) is None or floor(target) is None:
                continue  # reported as having no floor
            if verb == "includes" and target.startswith("include/ixy/"):
                continue  # the shared types: allowed from every floor
            if (verb == "includes" and source.startswith("include/ixy/")) or floor(target) > floor(source):
                problems.append(
                    "%s (%s) %s %s (%s)" % (source, floor_name(source), verb, target, floor_name(target))
                )
    return problems


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, objects = sys.argv[1], sys.argv[2:]
    files = source_files(root)
    unplaced = ["%s has no floor" % path for path in files if floor(path) is None]
    includes = include_graph(root, files)
    calls, several = call_graph(root, objects, files)
    print_floors(files)
    print_graph("include graph ([floor] file -> files it includes):", includes)
    print_graph("call graph of libixy and the apps ([floor] file -> files whose functions or tables it uses):", calls)
    for symbol, definers in sorted(several.items()):
        print("  (joins no call: %s is defined in %s)" % (symbol, ", ".join(sorted(definers))))

    include_up = upward(includes, "includes")
    call_up = upward(calls, "calls up into")
    include_cycles = ["include cycle between %s" % ", ".join(c) for c in cycles(includes)]
    call_cycles = ["call cycle between %s" % ", ".join(c) for c in cycles(calls)]
    problems = unplaced + include_up + call_up + call_cycles + include_cycles
    for p in problems:
        print("FAILED: " + p)
    print("cycles: include=%d call=%d" % (len(include_cycles), len(call_cycles)))
    print("upward: include=%d call=%d" % (len(include_up), len(call_up)))
    print("layers: %d files, %d problems" % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
