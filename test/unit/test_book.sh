#!/bin/sh
# Keeps the book (docs/book/) true to the code: every function a chapter names as `name()` is defined in the tree,
# every file it names as `path/file` or `file.c` exists, every chapter ends with "Real world" and "Exercises", and
# the diagrams are what docs/book/diagrams.py draws now.
# Usage: test_book.sh <ixy source directory>
src=$(cd "$1" && pwd)
book=$src/docs/book
failed=0
fail() {
	echo "FAILED: $*" >&2
	failed=$((failed + 1))
}
sources=$(cd "$src" && git ls-files '*.c' '*.h' 2>/dev/null || find src apps include test bench -name '*.[ch]')
files=$(cd "$src" && git ls-files 2>/dev/null || find . -type f)

for chapter in "$book"/[0-9]*.md; do
	name=${chapter##*/}
	grep -q "^## Real world" "$chapter" || fail "$name has no section 'Real world'"
	grep -q "^## Exercises" "$chapter" || fail "$name has no section 'Exercises'"
	# `name()`: a function, defined at the start of a line (its return type first) somewhere in the sources
	for fn in $(grep -o '`[A-Za-z_][A-Za-z0-9_]*()`' "$chapter" | tr -d '`()' | sort -u); do
		(cd "$src" && echo "$sources" | xargs grep -lE "^[A-Za-z].*[ *]$fn\(" >/dev/null 2>&1) ||
			fail "$name names $fn(), which is defined nowhere"
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

chapters=$(ls "$book"/[0-9]*.md | wc -l)
echo "book: $chapters chapters checked, $failed problems"
[ $failed = 0 ]
