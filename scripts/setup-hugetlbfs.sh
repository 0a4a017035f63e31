#!/bin/sh
# Reserves 2 MiB huge pages and mounts hugetlbfs at /mnt/huge, where ixy takes its DMA memory from.
# Usage (as root): scripts/setup-hugetlbfs.sh [number of huge pages, default 512 = 1 GiB]
set -eu
pages=${1:-512}
case "$pages" in
	''|*[!0-9]*) echo "usage: $0 [number of 2 MiB huge pages]" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "$0: must run as root" >&2
	exit 1
fi
mkdir -p /mnt/huge
if ! grep -qs '/mnt/huge hugetlbfs' /proc/mounts; then
	mount -t hugetlbfs hugetlbfs /mnt/huge
fi
# Only ever raise the reservation, never take pages from someone else.
current=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)
if [ "$current" -lt "$pages" ]; then
	echo "$pages" > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
fi
got=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)
if [ "$got" -lt "$pages" ]; then
	echo "$0: asked for $pages huge pages, the kernel gave $got (memory fragmented?)" >&2
	exit 1
fi
echo "hugetlbfs mounted at /mnt/huge, $got huge pages reserved"
