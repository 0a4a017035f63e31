// PCI devices through sysfs: config space, driver unbinding, bus mastering and BAR access.
// Linux exposes each device as /sys/bus/pci/devices/<domain:bus:device.function>/ (Documentation/PCI/sysfs-pci.rst).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pci.h"

// Config space offsets (PCI Local Bus spec 3.0, 6.1)
#define PCI_CFG_VENDOR_ID 0x00
#define PCI_CFG_COMMAND 0x04
#define PCI_CFG_CLASS_REVISION 0x08   // revision in byte 0, class code in bytes 1..3
#define PCI_COMMAND_BUS_MASTER (1u << 2)

// Flag in the third column of sysfs "resource" lines (linux/ioport.h IORESOURCE_IO)
#define SYSFS_RESOURCE_IO 0x100

static void sysfs_path(char* buf, size_t len, const char* pci_addr, const char* file) {
	snprintf(buf, len, "/sys/bus/pci/devices/%s/%s", pci_addr, file);
}

static int open_config(const char* pci_addr, int flags, char* path, size_t path_len) {
	sysfs_path(path, path_len, pci_addr, "config");
	int fd = open(path, flags);
	if (fd < 0) {
		if (errno == ENOENT) {
			ixy_error("no PCI device %s: %s does not exist (list devices with lspci -D)", pci_addr, path);
		} else {
			ixy_error("PCI device %s: cannot open %s: %s", pci_addr, path, strerror(errno));
		}
	}
	return fd;
}

int pci_read_ids(const char* pci_addr, struct pci_ids* ids) {
	char path[PATH_MAX];
	int fd = open_config(pci_addr, O_RDONLY, path, sizeof(path));
	if (fd < 0) {
		return -1;
	}
	uint8_t cfg[12];
	ssize_t got = pread(fd, cfg, sizeof(cfg), PCI_CFG_VENDOR_ID);
	int saved_errno = errno;
	close(fd);
	if (got != (ssize_t)sizeof(cfg)) {
		ixy_error("PCI device %s: cannot read %s: %s", pci_addr, path, got < 0 ? strerror(saved_errno) : "short read");
		return -1;
	}
	// Config space is little endian.
	ids->vendor_id = (uint16_t)(cfg[0] | cfg[1] << 8);
	ids->device_id = (uint16_t)(cfg[2] | cfg[3] << 8);
	ids->class_code = (uint32_t)cfg[9] | (uint32_t)cfg[10] << 8 | (uint32_t)cfg[11] << 16;
	return 0;
}

int pci_check_permissions(const char* pci_addr) {
	if (geteuid() != 0) {
		ixy_error("taking PCI device %s needs root (unbinding its driver, mapping its registers, "
			  "locking DMA memory); run this as root, e.g. with sudo",
			  pci_addr);
		return -1;
	}
	return 0;
}

// Returns 1 if the interface is up or has an address, 0 if not, -1 on error.
static int interface_in_use(const char* ifname) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	FILE* f = fopen(path, "r");
	if (!f) {
		ixy_error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	unsigned int flags = 0;
	int matched = fscanf(f, "%x", &flags);
	fclose(f);
	if (matched != 1) {
		ixy_error("cannot parse %s", path);
		return -1;
	}
	if (flags & IFF_UP) {
		return 1;
	}
	struct ifaddrs* addrs;
	if (getifaddrs(&addrs) != 0) {
		ixy_error("cannot list interface addresses: %s", strerror(errno));
		return -1;
	}
	int in_use = 0;
	for (struct ifaddrs* a = addrs; a; a = a->ifa_next) {
		if (a->ifa_addr && strcmp(a->ifa_name, ifname) == 0) {
			in_use = 1;
		}
	}
	freeifaddrs(addrs);
	return in_use;
}

// Refuses when a network interface of the device is up or has addresses: someone is using it.
static int check_not_in_use(const char* pci_addr, bool force) {
	char path[PATH_MAX];
	sysfs_path(path, sizeof(path), pci_addr, "net");
	DIR* dir = opendir(path);
	if (!dir) {
		return 0;   // no network interface: the bound driver (if any) is not a network driver
	}
	int result = 0;
	struct dirent* entry;
	while ((entry = readdir(dir)) && result == 0) {
		if (entry->d_name[0] == '.') {
			continue;
		}
		int in_use = interface_in_use(entry->d_name);
		if (in_use < 0) {
			result = -1;
		} else if (in_use && force) {
			ixy_warn("PCI device %s is interface %s, which is up or has an address: taking it anyway (forced)",
				 pci_addr, entry->d_name);
		} else if (in_use) {
			ixy_error("PCI device %s is network interface %s, which is up or has an address: refusing to take "
				  "it away from the kernel. Bring it down first (ip link set %s down; ip addr flush dev %s) "
				  "or force with IXY_FORCE=1",
				  pci_addr, entry->d_name, entry->d_name, entry->d_name);
			result = -1;
		}
	}
	closedir(dir);
	return result;
}

int pci_unbind_driver(const char* pci_addr, bool force) {
	char path[PATH_MAX];
	sysfs_path(path, sizeof(path), pci_addr, "driver/unbind");
	if (access(path, F_OK) != 0) {
		return 0;   // no driver bound
	}
	if (check_not_in_use(pci_addr, force) != 0) {
		return -1;
	}
	int fd = open(path, O_WRONLY);
	if (fd < 0) {
		ixy_error("PCI device %s: cannot open %s to unbind its kernel driver: %s", pci_addr, path, strerror(errno));
		return -1;
	}
	size_t len = strlen(pci_addr);
	ssize_t written = write(fd, pci_addr, len);
	int saved_errno = errno;
	close(fd);
	if (written != (ssize_t)len) {
		ixy_error("PCI device %s: unbinding the kernel driver via %s failed: %s", pci_addr, path,
			  written < 0 ? strerror(saved_errno) : "short write");
		return -1;
	}
	ixy_info("unbound the kernel driver of %s", pci_addr);
	return 0;
}

int pci_set_bus_master(const char* pci_addr, bool enable) {
	char path[PATH_MAX];
	int fd = open_config(pci_addr, O_RDWR, path, sizeof(path));
	if (fd < 0) {
		return -1;
	}
	uint16_t command;
	int result = -1;
	if (pread(fd, &command, sizeof(command), PCI_CFG_COMMAND) != sizeof(command)) {
		ixy_error("PCI device %s: cannot read the command register from %s: %s", pci_addr, path, strerror(errno));
	} else {
		command = enable ? (command | PCI_COMMAND_BUS_MASTER) : (command & ~PCI_COMMAND_BUS_MASTER);
		if (pwrite(fd, &command, sizeof(command), PCI_CFG_COMMAND) != sizeof(command)) {
			ixy_error("PCI device %s: cannot write the command register to %s: %s", pci_addr, path,
				  strerror(errno));
		} else {
			result = 0;
		}
	}
	close(fd);
	return result;
}

// Reads the flags of BAR0 from the sysfs "resource" file (one "start end flags" line per BAR).
static int bar0_flags(const char* pci_addr, unsigned long long* flags) {
	char path[PATH_MAX];
	sysfs_path(path, sizeof(path), pci_addr, "resource");
	FILE* f = fopen(path, "r");
	if (!f) {
		ixy_error("PCI device %s: cannot open %s: %s", pci_addr, path, strerror(errno));
		return -1;
	}
	unsigned long long start, end;
	int matched = fscanf(f, "%llx %llx %llx", &start, &end, flags);
	fclose(f);
	if (matched != 3) {
		ixy_error("PCI device %s: cannot parse %s", pci_addr, path);
		return -1;
	}
	return 0;
}

uint8_t* pci_map_bar0(const char* pci_addr, size_t* size) {
	unsigned long long flags;
	if (bar0_flags(pci_addr, &flags) != 0) {
		return NULL;
	}
	if (flags & SYSFS_RESOURCE_IO) {
		ixy_error("PCI device %s: BAR0 is an IO-port BAR, not memory-mapped", pci_addr);
		return NULL;
	}
	char path[PATH_MAX];
	sysfs_path(path, sizeof(path), pci_addr, "resource0");
	int fd = open(path, O_RDWR);
	if (fd < 0) {
		ixy_error("PCI device %s: cannot open %s: %s", pci_addr, path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		ixy_error("PCI device %s: cannot stat %s: %s", pci_addr, path, strerror(errno));
		close(fd);
		return NULL;
	}
	void* bar = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int saved_errno = errno;
	close(fd);   // the mapping stays valid
	if (bar == MAP_FAILED) {
		ixy_error("PCI device %s: cannot mmap %s: %s", pci_addr, path, strerror(saved_errno));
		return NULL;
	}
	*size = (size_t)st.st_size;
	return bar;
}

void pci_unmap_bar0(uint8_t* bar, size_t size) {
	if (bar && munmap(bar, size) != 0) {
		ixy_warn("munmap of a BAR failed: %s", strerror(errno));
	}
}

int pci_open_io_bar0(const char* pci_addr) {
	unsigned long long flags;
	if (bar0_flags(pci_addr, &flags) != 0) {
		return -1;
	}
	if (!(flags & SYSFS_RESOURCE_IO)) {
		ixy_error("PCI device %s: BAR0 is not an IO-port BAR (legacy VirtIO needs one; "
			  "is this a modern-only VirtIO device? use disable-modern=on in QEMU)",
			  pci_addr);
		return -1;
	}
	char path[PATH_MAX];
	sysfs_path(path, sizeof(path), pci_addr, "resource0");
	int fd = open(path, O_RDWR);
	if (fd < 0) {
		ixy_error("PCI device %s: cannot open %s: %s", pci_addr, path, strerror(errno));
	}
	return fd;
}
