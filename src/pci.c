// PCI devices through sysfs: config space, driver unbinding, bus mastering and BAR access.
// Linux exposes each device as /sys/bus/pci/devices/<domain:bus:device.function>/ (Documentation/PCI/sysfs-pci.rst).
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/limits.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pci.h"

// Config space offsets (PCI Local Bus spec 3.0, 6.1)
#define PCI_CFG_COMMAND 0x04
#define PCI_COMMAND_BUS_MASTER (1u << 2)

// Opens /sys/bus/pci/devices/<pci_addr>/<file>; prints what went wrong and returns -1 on failure.
static int sysfs_open(const char* pci_addr, const char* file, int flags) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pci_addr, file);
	int fd = open(path, flags);
	if (fd < 0 && errno == ENOENT && strcmp(file, "config") == 0) {
		ixy_error("no PCI device %s: %s does not exist (lspci -D lists the devices)", pci_addr, path);
	} else if (fd < 0) {
		ixy_error("PCI device %s: cannot open %s: %s", pci_addr, path, strerror(errno));
	}
	return fd;
}

// Reads or writes len bytes at offset of the config space.
static int config_access(const char* pci_addr, void* buf, size_t len, off_t offset, bool write) {
	int fd = sysfs_open(pci_addr, "config", write ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		return -1;
	}
	ssize_t done = write ? pwrite(fd, buf, len, offset) : pread(fd, buf, len, offset);
	if (done != (ssize_t)len) {
		ixy_error("PCI device %s: cannot %s config space at 0x%x: %s", pci_addr, write ? "write" : "read",
			  (unsigned)offset, done < 0 ? strerror(errno) : "short transfer");
	}
	close(fd);
	return done == (ssize_t)len ? 0 : -1;
}

int pci_read_ids(const char* pci_addr, struct pci_ids* ids) {
	uint8_t cfg[12]; // vendor (0), device (2), command, status, revision (8), class code (9..11)
	if (config_access(pci_addr, cfg, sizeof(cfg), 0, false) != 0) {
		return -1;
	}
	// Config space is little endian.
	ids->vendor_id = (uint16_t)(cfg[0] | cfg[1] << 8);
	ids->device_id = (uint16_t)(cfg[2] | cfg[3] << 8);
	ids->class_code = (uint32_t)cfg[9] | (uint32_t)cfg[10] << 8 | (uint32_t)cfg[11] << 16;
	return 0;
}

// Writes the device's address to a sysfs file: .../driver/unbind or /sys/bus/pci/drivers/<name>/bind.
static int write_address_to(const char* pci_addr, const char* path) {
	int fd = open(path, O_WRONLY);
	ssize_t written = fd < 0 ? -1 : write(fd, pci_addr, strlen(pci_addr));
	if (written != (ssize_t)strlen(pci_addr)) {
		ixy_error("PCI device %s: writing its address to %s failed: %s", pci_addr, path,
			  written < 0 ? strerror(errno) : "short write");
	}
	if (fd >= 0) {
		close(fd);
	}
	return written == (ssize_t)strlen(pci_addr) ? 0 : -1;
}

int pci_check_permissions(const char* pci_addr) {
	if (geteuid() != 0) {
		ixy_error(
		    "taking PCI device %s needs root (to unbind its driver, map its registers and lock DMA memory)",
		    pci_addr);
		return -1;
	}
	return 0;
}

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

int pci_check_not_in_use(const char* pci_addr, bool force) {
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

int pci_unbind_driver(const char* pci_addr) {
	char driver[PCI_DRIVER_NAME_MAX], path[PATH_MAX];
	if (pci_get_driver(pci_addr, driver) != 0) {
		return -1;
	}
	if (!driver[0]) {
		return 0; // no driver bound
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind", pci_addr);
	if (write_address_to(pci_addr, path) != 0) {
		return -1;
	}
	ixy_info("unbound the kernel driver of %s (%s)", pci_addr, driver);
	return 0;
}

int pci_get_driver(const char* pci_addr, char driver[PCI_DRIVER_NAME_MAX]) {
	char path[PATH_MAX], target[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", pci_addr);
	ssize_t len = readlink(path, target, sizeof(target) - 1); // -> ../../../bus/pci/drivers/<name>
	driver[0] = '\0';
	if (len < 0 && errno != ENOENT) {
		ixy_error("PCI device %s: cannot read %s: %s", pci_addr, path, strerror(errno));
		return -1;
	}
	target[len < 0 ? 0 : len] = '\0';
	snprintf(driver, PCI_DRIVER_NAME_MAX, "%s", len < 0 ? "" : strrchr(target, '/') + 1);
	return 0;
}

void pci_bind_driver(const char* pci_addr, const char* driver) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/bind", driver);
	if (write_address_to(pci_addr, path) == 0) {
		ixy_info("gave %s back to its kernel driver %s", pci_addr, driver);
	}
}

int pci_set_bus_master(const char* pci_addr, bool enable) {
	uint16_t command;
	if (config_access(pci_addr, &command, sizeof(command), PCI_CFG_COMMAND, false) != 0) {
		return -1;
	}
	command = enable ? (command | PCI_COMMAND_BUS_MASTER) : (command & ~PCI_COMMAND_BUS_MASTER);
	return config_access(pci_addr, &command, sizeof(command), PCI_CFG_COMMAND, true);
}

uint8_t* pci_map_bar0(const char* pci_addr, size_t* size) {
	int fd = sysfs_open(pci_addr, "resource0", O_RDWR);
	if (fd < 0) {
		return NULL;
	}
	struct stat st = {0};
	void* bar = MAP_FAILED;
	if (fstat(fd, &st) == 0) {
		bar = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (bar == MAP_FAILED) {
		ixy_error("PCI device %s: cannot mmap resource0: %s", pci_addr, strerror(errno));
		bar = NULL;
	}
	close(fd); // the mapping stays valid
	*size = (size_t)st.st_size;
	return bar;
}

void pci_unmap_bar0(uint8_t* bar, size_t size) {
	if (bar && munmap(bar, size) != 0) {
		ixy_warn("munmap of a BAR failed: %s", strerror(errno));
	}
}

int pci_open_io_bar0(const char* pci_addr) {
	return sysfs_open(pci_addr, "resource0", O_RDWR);
}
