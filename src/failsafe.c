// Fail safety around ixy_init: a user space driver takes a PCI device away from the kernel and lets it DMA into
// memory, so ixy refuses a device that someone is using and gives a device back if it cannot start it.
//
// This is the careful part that the paper's ixy left out ("unbinds the driver without checking if it is in use"). It
// is a file of its own because it asks the machine (sysfs, /proc, the network interfaces), not the device: a reader
// of the driver path can skip it, and test builds replace it with the device model's answers (test/model).
#include <errno.h>
#include <ifaddrs.h>
#include <linux/limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "failsafe.h"
#include "log.h"
#include "pci.h"
#include "vfio.h"

// True if the interface belongs to the PCI device: its sysfs device is the PCI function itself or below it. A VirtIO
// NIC's interface belongs to the VirtIO device under the PCI function: .../0000:00:08.0/virtio0/net/eth0.
static bool interface_of_device(const char* pci_addr, const char* ifname) {
	char link[PATH_MAX], dir[PATH_MAX], if_device[PATH_MAX], pci_device[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/class/net/%s/device", ifname);
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", pci_addr);
	if (!realpath(link, if_device) || !realpath(dir, pci_device)) {
		return false; // virtual interfaces (lo, bridges) have no device
	}
	size_t len = strlen(pci_device);
	return strncmp(if_device, pci_device, len) == 0 && (if_device[len] == '\0' || if_device[len] == '/');
}

// Finds a network interface of the device that is up or has an IP address: someone is using it. Returns its name
// in busy (empty if there is none), or -1 if the interfaces cannot be listed.
static int find_interface_in_use(const char* pci_addr, char busy[IF_NAMESIZE]) {
	struct ifaddrs* addrs;
	if (getifaddrs(&addrs) != 0) {
		ixy_error("cannot list the network interfaces: %s", strerror(errno));
		return -1;
	}
	busy[0] = '\0';
	for (struct ifaddrs* a = addrs; a; a = a->ifa_next) {
		// Each interface also has an AF_PACKET entry: only IPv4 and IPv6 addresses count.
		int family = a->ifa_addr ? a->ifa_addr->sa_family : AF_UNSPEC;
		if (((a->ifa_flags & IFF_UP) || family == AF_INET || family == AF_INET6) &&
		    interface_of_device(pci_addr, a->ifa_name)) {
			snprintf(busy, IF_NAMESIZE, "%s", a->ifa_name);
		}
	}
	freeifaddrs(addrs);
	return 0;
}

static int check_not_in_use(const char* pci_addr, bool force) {
	char busy[IF_NAMESIZE];
	if (find_interface_in_use(pci_addr, busy) != 0) {
		return -1;
	}
	if (busy[0] && !force) {
		ixy_error(
		    "PCI device %s is network interface %s, which is up or has an IP address: refusing to take it. "
		    "Run 'ip link set %s down; ip addr flush dev %s' or set IXY_FORCE=1",
		    pci_addr, busy, busy, busy);
		return -1;
	}
	if (busy[0]) {
		ixy_warn("PCI device %s is interface %s, which is in use: taking it anyway (forced)", pci_addr, busy);
	}
	return 0;
}

// Reads a counter of the 2 MiB huge page pool (/sys/kernel/mm/hugepages/hugepages-2048kB/<name>); -1 if it cannot.
static long huge_page_counter(const char* name) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%ukB/%s", IXY_HUGE_PAGE_SIZE / 1024, name);
	FILE* file = fopen(path, "r");
	long value = -1;
	if (file && fscanf(file, "%ld", &value) != 1) {
		value = -1;
	}
	if (file) {
		fclose(file);
	}
	return value;
}

// Fails with a message unless the DMA memory of pages huge pages can be had: hugetlbfs is mounted (if asked) and
// that many huge pages are free. Without this check, init would fail only after the kernel driver was unbound, and
// giving the NIC back re-creates its interface (new index, settings lost). who names what needs them in the message.
static int check_huge_pages(const char* who, uint64_t pages, bool need_hugetlbfs) {
	if (need_hugetlbfs && memory_check_hugetlbfs() != 0) {
		return -1;
	}
	// Reserved pages are free but promised to mappings that have not touched them yet
	// (Documentation/admin-guide/mm/hugetlbpage.rst): not for us.
	long available = huge_page_counter("free_hugepages") - huge_page_counter("resv_hugepages");
	if (available < 0 || (uint64_t)available < pages) {
		ixy_error("%s: needs %llu free huge page(s) of 2 MiB for DMA memory, %ld are available. Reserve more "
			  "with scripts/setup-hugetlbfs.sh <pages>",
			  who, (unsigned long long)pages, available < 0 ? 0 : available);
		return -1;
	}
	return 0;
}

// Kilobytes this process has locked already (VmLck of /proc/self/status; VFIO's pinned pages count there too).
static long locked_kib(void) {
	FILE* status = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;
	while (status && fgets(line, sizeof(line), status)) {
		if (sscanf(line, "VmLck: %ld kB", &kib) == 1) {
			break;
		}
	}
	if (status) {
		fclose(status);
	}
	return kib;
}

// VFIO pins the DMA memory it maps into the IOMMU and counts it as locked memory: RLIMIT_MEMLOCK must leave room for
// the huge pages the drivers and the app allocate (root is exempt: CAP_IPC_LOCK). Without this check the mapping
// fails half-way through init.
static int check_locked_memory(const char* who, uint64_t pages) {
	struct rlimit limit;
	if (geteuid() == 0 || getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
		return 0;
	}
	uint64_t needed_kib = pages * (IXY_HUGE_PAGE_SIZE / 1024), limit_kib = limit.rlim_cur / 1024;
	uint64_t locked = (uint64_t)locked_kib();
	if (locked + needed_kib > limit_kib) {
		ixy_error(
		    "%s: %llu KiB of DMA memory mapped into the IOMMU, which counts as locked memory; this process "
		    "has %llu KiB locked already and may lock %llu KiB (RLIMIT_MEMLOCK). Raise the limit, e.g. "
		    "ulimit -l %llu, or memlock in /etc/security/limits.conf",
		    who, (unsigned long long)needed_kib, (unsigned long long)locked, (unsigned long long)limit_kib,
		    (unsigned long long)(locked + needed_kib));
		return -1;
	}
	return 0;
}

int failsafe_check_memory(const char* who, uint64_t pages, bool iommu) {
	if (check_huge_pages(who, pages, !iommu) != 0) {
		return -1;
	}
	return iommu ? check_locked_memory(who, pages) : 0;
}

int failsafe_check_device(const struct ixy_config* config, const char* kernel_driver) {
	// Handed over to vfio-pci by an administrator (scripts/setup-vfio.sh): no root needed, no kernel interface that
	// could be in use, no hugetlbfs; the IOMMU's mappings lock memory.
	if (strcmp(kernel_driver, VFIO_PCI_DRIVER) == 0) {
		return 0;
	}
	if (geteuid() != 0) {
		ixy_error(
		    "taking PCI device %s needs root (to unbind its driver, map its registers and lock DMA memory), "
		    "or the device handed over to this user through VFIO (scripts/setup-vfio.sh)",
		    config->pci_addr);
		return -1;
	}
	return check_not_in_use(config->pci_addr, config->force);
}

void failsafe_give_back(const char* pci_addr, const char* kernel_driver) {
	if (!kernel_driver[0]) {
		return;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/bind", kernel_driver);
	if (pci_write_address_to(pci_addr, path) == 0) {
		ixy_info("gave %s back to its kernel driver %s", pci_addr, kernel_driver);
	}
}
