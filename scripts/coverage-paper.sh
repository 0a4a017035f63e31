#!/bin/sh
# What runs, measured (issue 35): a gcov build (-DIXY_COVERAGE=ON) runs the paper's scenario against the 82599 model
# and prints, per line of the ledger (scripts/count-lines.sh), the source lines it executed.
#
#   scripts/coverage-paper.sh [build-dir]     (default build-coverage; the paper-only build goes to <build-dir>-paper)
#
# Scenarios:
#   default     ixy-fwd's default run (no option but --no-sandbox and the two addresses; the test prints why the
#               sandbox is left out) forwarding both ways until SIGTERM: test_ixgbe_fwd_app, IXY_TEST_FWD_DEFAULT_ONLY=1
#   paper-only  the model test test_paper_fwd of a build with -DIXY_PAPER_ONLY=ON (the paper's files only); a build
#               that does not configure or lacks the target fails the script
# Lines are gcov's executable lines (lines with code, not cloc's code lines), counted once per file and line however
# many objects (a header's inline functions) hold them: executed if any ran it. A file of the ledger that the
# scenario's program does not contain (the test seam stands in for src/pci.c and src/memory.c) counts 0 of 0.
# Files of apps/, include/ixy/ and src/ that the program contains but no ledger line names are the line "unlisted";
# the tests' and models' own files are not counted.
# Prints per scenario and line: coverage scenario=<s> line=<name> files=<n> executed=<lines> of=<lines>, then a table.
# Exits non-zero when a build or a scenario fails (the numbers are not checked here: scripts/test.sh does).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-coverage}
paper_build=$build-paper
for tool in cmake gcov python3; do
	command -v $tool >/dev/null 2>&1 || { echo "coverage-paper: $tool is missing" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The ledger as "<line> <file>" rows: the files count-lines.sh --files gives for each of its lines.
for line in $(sh scripts/count-lines.sh --lines); do
	sh scripts/count-lines.sh --files "$line" | sed "s|^|$line |"
done >"$tmp/ledger"

# measure SCENARIO DIR: gcov's counts of every .gcda under DIR, per ledger line.
measure() {
	find "$(cd "$2" && pwd -P)" -name '*.gcda' >"$tmp/gcda"
	[ -s "$tmp/gcda" ] || { echo "coverage-paper: scenario $1 left no .gcda files in $2" >&2; return 1; }
	(cd "$tmp" && xargs gcov --json-format --stdout <"$tmp/gcda" 2>"$tmp/gcov.err") >"$tmp/gcov.json" ||
		{ cat "$tmp/gcov.err" >&2; return 1; }
	python3 - "$1" "$(pwd -P)" "$tmp/ledger" "$tmp/gcov.json" <<'EOF'
import json, os, sys
scenario, root, ledger_file, gcov_file = sys.argv[1:]
order, ledger = [], {}  # line -> its files; file -> its line
for row in open(ledger_file):
    line, path = row.split()
    if line not in order:
        order.append(line)
    ledger[path] = line
lines = {}  # file -> {line number: executed}
for doc in open(gcov_file):
    data = json.loads(doc)
    cwd = data.get("current_working_directory", root)
    for f in data["files"]:
        path = os.path.relpath(os.path.realpath(os.path.join(cwd, f["file"])), root)
        own = lines.setdefault(path, {})
        for l in f["lines"]:
            n = l["line_number"]
            own[n] = own.get(n, False) or l["count"] > 0
unlisted = sorted(p for p in lines if p.split("/")[0] in ("apps", "src") or p.startswith("include/ixy/"))
unlisted = [p for p in unlisted if p not in ledger]
order.append("unlisted")
rows, missing = [], []
for name in order:
    files = unlisted if name == "unlisted" else [p for p in ledger if ledger[p] == name]
    inside = [p for p in files if p in lines]
    executed = sum(sum(lines[p].values()) for p in inside)
    of = sum(len(lines[p]) for p in inside)
    ran = sum(1 for p in inside if any(lines[p].values()))
    print(f"coverage scenario={scenario} line={name} files={len(files)} executed={executed} of={of}")
    rows.append((name, len(files), len(inside), ran, executed, of))
    if name == "paper":
        missing = [p for p in files if p not in lines]
print(f"\nscenario {scenario}: gcov's executable lines executed, per line of the ledger (scripts/count-lines.sh)")
print(f"{'line':<16} {'files':>5} {'in build':>8} {'ran':>4} {'executed':>9} {'of':>6} {'share':>6}")
for name, n, inside, ran, executed, of in rows:
    share = f"{100 * executed / of:.0f} %" if of else "-"
    print(f"{name:<16} {n:>5} {inside:>8} {ran:>4} {executed:>9} {of:>6} {share:>6}")
print("(in build: files the scenario's program contains; ran: of those, files with a line executed)")
if missing:
    print("paper files without an executable line in the program (not compiled in, or no code; 0 of 0):",
          " ".join(missing))
print()
EOF
}

# build DIR TARGET CMAKE-ARGS...: configures (if need be) and builds TARGET with coverage.
build() {
	dir=$1 target=$2
	shift 2
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DIXY_COVERAGE=ON "$@" >"$tmp/configure.log" 2>&1 ||
		{ cat "$tmp/configure.log" >&2; return 1; }
	cmake --build "$dir" -j2 --target "$target" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; return 1; }
}

# Scenario default: ixy-fwd's default run against the 82599 model.
build "$build" test_ixgbe_fwd_app
find "$build" -name '*.gcda' -delete
IXY_TEST_FWD_DEFAULT_ONLY=1 "$build/test/model/test_ixgbe_fwd_app" >"$tmp/default.log" 2>&1 ||
	{ cat "$tmp/default.log" >&2; echo "coverage-paper: ixy-fwd's default run failed" >&2; exit 1; }
grep '^note: ' "$tmp/default.log" || true
measure default "$build"

# Scenario paper-only: test_paper_fwd in a build of the paper's files only. Both must exist: a build that does not
# configure, or lacks the test, fails the script.
if ! cmake -S . -B "$paper_build" -DCMAKE_BUILD_TYPE=Debug -DIXY_COVERAGE=ON -DIXY_PAPER_ONLY=ON \
	>"$tmp/configure.log" 2>&1; then
	cat "$tmp/configure.log" >&2
	echo "coverage-paper: the IXY_PAPER_ONLY=ON build does not configure" >&2
	exit 1
elif ! cmake --build "$paper_build" --target help 2>/dev/null | grep -qw test_paper_fwd; then
	echo "coverage-paper: the IXY_PAPER_ONLY=ON build has no target test_paper_fwd" >&2
	exit 1
else
	build "$paper_build" test_paper_fwd -DIXY_PAPER_ONLY=ON
	find "$paper_build" -name '*.gcda' -delete
	(cd "$paper_build" && ctest -R '^test_paper_fwd$' --output-on-failure) >"$tmp/paper.log" 2>&1 ||
		{ cat "$tmp/paper.log" >&2; echo "coverage-paper: test_paper_fwd failed" >&2; exit 1; }
	measure paper-only "$paper_build"
fi
