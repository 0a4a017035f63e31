#!/bin/sh
# ctest bench_doc_tables: every table of docs/benchmark.md (a line starting with "|", possibly indented) sits between
# "<!-- begin: NAME, written by: COMMAND -->" and "<!-- end: NAME -->" (bench/lib.sh doc_table writes there), each
# name once; and in a git checkout, every commit a table's block names (a word of 7 to 40 hexadecimal digits with a
# letter and a digit in it, as "ixy 1a2b3c4" or "measured before 1a2b3c4") exists, each block names one at least, and
# none is "-dirty" (bench_commit marks a changed tree in words). Outside a git checkout the commits are not checked.
#   test_doc_tables.sh [DOC]   (default: the repository's docs/benchmark.md)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
doc=${1:-$here/../docs/benchmark.md}
git=yes
git -C "$(dirname "$doc")" rev-parse --git-dir >/dev/null 2>&1 || git=no
awk '
	function fail(what) { print "FAIL " FILENAME ":" NR ": " what; bad = 1 }
	{ line = $0; sub(/^[ \t]*/, "", line) }
	line ~ /^<!-- begin: / {
		if (name != "") fail("begin inside the block of " name)
		if (!match(line, /^<!-- begin: [A-Za-z0-9_-]+, written by: .+ -->$/)) { fail("not <!-- begin: NAME, written by: COMMAND -->: " line); next }
		name = line; sub(/^<!-- begin: /, "", name); sub(/,.*/, "", name)
		if (name in seen) fail("table " name " twice")
		seen[name] = 1; commits = 0; start = NR
		next
	}
	line ~ /^<!-- end: / {
		if (line != "<!-- end: " name " -->") fail("end without its begin: " line)
		else if (commits == 0) print "NOCOMMIT " name " " start
		name = ""
		next
	}
	line ~ /^\|/ && name == "" { fail("a table outside markers: " line) }
	name != "" {
		n = split(line, word, /[^0-9A-Za-z-]+/)
		for (i = 1; i <= n; i++) {
			if (word[i] ~ /^[0-9a-f]+-dirty$/) fail("a dirty commit in " name ": " word[i])
			if (word[i] ~ /^[0-9a-f]+$/ && length(word[i]) >= 7 && length(word[i]) <= 40 && word[i] ~ /[a-f]/ && word[i] ~ /[0-9]/) {
				print "COMMIT " name " " word[i]
				commits++
			}
		}
	}
	END { if (name != "") fail("no end of " name); exit bad }' "$doc" >"${TMPDIR:-/tmp}/doc_tables.$$" || {
	grep "^FAIL" "${TMPDIR:-/tmp}/doc_tables.$$"
	rm -f "${TMPDIR:-/tmp}/doc_tables.$$"
	exit 1
}
list=$(cat "${TMPDIR:-/tmp}/doc_tables.$$")
rm -f "${TMPDIR:-/tmp}/doc_tables.$$"
tables=$(echo "$list" | awk '$1 == "COMMIT" || $1 == "NOCOMMIT" { print $2 }' | sort -u | wc -l)
echo "$tables tables between markers"
[ $git = yes ] || { echo "not a git checkout: commits not checked"; echo PASS; exit 0; }
failed=0
echo "$list" | awk '$1 == "NOCOMMIT" { print $2 }' | while read -r name; do
	echo "FAIL table $name names no commit"
	exit 1
done || failed=1
for pair in $(echo "$list" | awk '$1 == "COMMIT" { print $2 ":" $3 }'); do
	commit=${pair#*:}
	# A commit of the history that holds the document (main's), not any object of the repository.
	git -C "$(dirname "$doc")" merge-base --is-ancestor "$commit" HEAD 2>/dev/null || {
		echo "FAIL table ${pair%%:*} names $commit, which is no commit of this history"
		failed=1
	}
done
[ $failed = 0 ] || exit 1
echo "every table names commits that exist: $(echo "$list" | awk '$1 == "COMMIT" { print $3 }' | sort -u | tr '\n' ' ')"
echo PASS
