#!/bin/sh
# Keeps the book (docs/book/) true to the code:
# - every function a chapter names as name() (in backticks or not, in text or in a code block) is defined in the tree
#   (a definition, not a prototype);
# - every identifier it names in backticks that looks like one of ixy's (lower case with an underscore, e.g.
#   `rx_batch`: a function, a field, a test, a module) occurs as a word in some file of the tree outside docs/, or is
#   a test program named after its source file, unless it is another project's name that the book compares with
#   (listed below);
# - every file it names as `path/file` or `file.c` exists;
# - every chapter ends with "Real world" and "Exercises", and the diagrams are what docs/book/diagrams.py draws now;
# - README.md's table rows are at most 120 characters, and its reading order is the ledger's paper line.
# Works in a git checkout and in an exported tree (git archive) alike.
# Usage: test_book.sh <ixy source directory>
src=$(cd "$1" && pwd)
book=$src/docs/book
failed=0
fail() {
	echo "FAILED: $*" >&2
	failed=$((failed + 1))
}
# The tree's files, relative to $src, from git in a checkout, from find otherwise: without .git and without any
# CMake build tree (a directory below $src with a CMakeCache.txt, whatever its name), whose generated files name
# things the tree does not.
if files=$(cd "$src" && git ls-files 2>/dev/null) && [ -n "$files" ]; then
	:
else
	files=$(cd "$src" && find . \( -path ./.git -o \( -type d ! -path . -exec test -e {}/CMakeCache.txt \; \) \) \
		-prune -o -type f -print | sed 's|^\./||')
fi
sources=$(echo "$files" | grep -E '\.[ch]$')
# The functions the sources define, as the tree's clang-format style writes a definition: at the start of a line
# its return type, then the name and its parameter list, with the `{` that opens the body ending that line or,
# after parameters that continue, the next one. A prototype (`;`) is no definition.
defined=$(cd "$src" && echo "$sources" | xargs awk '
	FNR == 1 { pending = "" }
	pending != "" { if ($0 !~ /;/ && $0 ~ /\{[ \t]*$/) print pending; pending = "" }
	{ line = $0; gsub(/__attribute__\(\([^)]*\)\) /, "", line) } # e.g. static __attribute__((cold)) void f(
	line ~ /^[A-Za-z]/ && match(line, /[ *][A-Za-z_][A-Za-z0-9_]*\(/) {
		name = substr(line, RSTART + 1, RLENGTH - 2)
		if (line ~ /\)[^;]*\{[ \t]*$/) print name
		else if (line ~ /[,(][ \t]*$/) pending = name
	}' | sort -u)
not_docs=$(echo "$files" | grep -v '^docs/')
# Names of other projects (Linux, DPDK, libc) that the book compares ixy with: not ixy's, so not in the tree.
others="sk_buff page_pool dma_map_single container_of rte_mempool rte_eth_rx_burst rte_eth_dev_rx_intr_enable"

for chapter in "$book"/[0-9]*.md; do
	name=${chapter##*/}
	grep -q "^## Real world" "$chapter" || fail "$name has no section 'Real world'"
	grep -q "^## Exercises" "$chapter" || fail "$name has no section 'Exercises'"
	# name(): a function defined somewhere in the sources
	for fn in $(grep -oE '[A-Za-z_][A-Za-z0-9_]*\(\)' "$chapter" | tr -d '()' | sort -u); do
		echo "$defined" | grep -qx -- "$fn" || fail "$name names $fn(), which is defined nowhere"
	done
	# `name`: one of ixy's names, a word of some file outside docs/, or a test program named after its source file
	# (test_fwd from test/unit/test_fwd.c; a model test's second registration, test/model/CMakeLists.txt, adds
	# _physical)
	for id in $(grep -oE '`[a-z_][a-z0-9_]*`' "$chapter" | tr -d '`' | grep _ | sort -u); do
		case " $others " in *" $id "*) continue ;; esac
		echo "$sources" | grep -qE "(^|/)${id%_physical}\.c$" && continue
		(cd "$src" && echo "$not_docs" | xargs grep -lwI -- "$id" >/dev/null 2>&1) ||
			fail "$name names \`$id\`, which is nowhere in the tree outside docs/"
	done
	# `dir/file.ext` or `file.ext`: a file of the tree
	for path in $(grep -oE '`[A-Za-z0-9_./-]+\.(c|h|sh|py|md|svg)`' "$chapter" | tr -d '`' | sort -u); do
		case "$path" in
			*/*) echo "$files" | grep -qx "$path" || [ -e "$book/$path" ] || fail "$name names $path, which does not exist" ;;
			*) echo "$files" | grep -q "/$path$\|^$path$" || fail "$name names $path, which does not exist" ;;
		esac
	done
done

# The diagrams as diagrams.py draws them now.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$book/diagrams.py" "$tmp" >/dev/null || fail "diagrams.py failed"
for svg in "$tmp"/*.svg; do
	cmp -s "$svg" "$book/img/${svg##*/}" || fail "docs/book/img/${svg##*/} is not what diagrams.py draws: run it"
done

# README.md's table rows fit a 120 column screen: a longer row wraps, and the first screen no longer shows the table.
awk 'length($0) > 120 && /^\|/ { print FNR ":" length($0) }' "$src/README.md" >"$tmp/wide"
while IFS=: read -r line width; do
	fail "README.md line $line, a table row, has $width characters (at most 120)"
done <"$tmp/wide"
# README.md's reading order of the paper's path is the ledger's paper line, in its order: the files named in
# backticks from "Chapters 1-4 read" up to the blank line that ends that paragraph.
if [ -f "$src/scripts/count-lines.sh" ]; then
	sh "$src/scripts/count-lines.sh" --files paper >"$tmp/ledger"
	awk '/Chapters 1-4 read/ { on = 1 } on && /^$/ { exit } on' "$src/README.md" |
		grep -oE '`(apps|include|src)/[A-Za-z0-9_./-]+`' | tr -d '`' >"$tmp/readme_order"
	cmp -s "$tmp/ledger" "$tmp/readme_order" ||
		fail "README.md's reading order is not the ledger's paper line (scripts/count-lines.sh --files paper)"
fi

chapters=$(ls "$book"/[0-9]*.md | wc -l)
echo "book: $chapters chapters checked, $failed problems"
[ $failed = 0 ]
