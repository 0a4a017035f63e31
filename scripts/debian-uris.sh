#!/usr/bin/env bash
# Prints the URIs (space separated, one line) of the machine's own Debian source for a suite, read from the apt
# sources: deb822 (/etc/apt/sources.list.d/*.sources) or one-line format (/etc/apt/sources.list, *.list). So ixy's
# scripts use whatever mirror the machine uses, and no mirror host name is written anywhere in the project.
#
#   scripts/debian-uris.sh [SUITE]      SUITE defaults to bookworm; exits 1 when no source carries it
#
# IXY_APT_SOURCES_DIR (default /etc/apt) is where the sources are read from; the tests point it elsewhere.
set -euo pipefail
suite=${1:-bookworm}
apt_dir=${IXY_APT_SOURCES_DIR:-/etc/apt}
uris=$(awk -v suite="$suite" '
	function flush() { if (suites ~ (" " suite " ") && uris != "") print uris; uris = ""; suites = "" }
	FNR == 1 { flush() }
	/^URIs:/ { uris = $0; sub(/^URIs:[ \t]*/, "", uris) }
	/^Suites:/ { suites = " " $0 " " }
	/^[ \t]*$/ { flush() }
	END { flush() }' "$apt_dir"/sources.list.d/*.sources 2>/dev/null || true)
if [ -z "$uris" ]; then
	uris=$(awk -v suite="$suite" '$1 == "deb" && $0 ~ (" " suite " ") {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
		"$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list 2>/dev/null || true)
fi
uris=$(printf "%s\n" "$uris" | xargs) # one line, single spaces
if [ -z "$uris" ]; then
	echo "debian-uris: no Debian source for $suite in $apt_dir/sources.list(.d)" >&2
	exit 1
fi
echo "$uris"
