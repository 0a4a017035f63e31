// PCI devices through sysfs: config space, driver unbinding, bus mastering and BAR access.
// Linux exposes each device as /sys/bus/pci/devices/<domain:bus:device.function>/ (Documentation/PCI/sysfs-pci.rst).
#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <linux/pci_regs.h> // PCI_COMMAND (PCI Local Bus spec 3.0, 6.1) and its bit PCI_COMMAND_MASTER (6.2.2)
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pci.h"

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

int pci_read_config(const char* pci_addr, void* buf, size_t len, uint32_t offset) {
	return config_access(pci_addr, buf, len, offset, false);
}

int pci_read_ids(const char* pci_addr, struct pci_ids* ids) {
	uint8_t cfg[12]; // vendor (0), device (2), command, status, revision (8), class code (9..11)
	if (pci_read_config(pci_addr, cfg, sizeof(cfg), 0) != 0) {
		return -1;
	}
	// Config space is little endian.
	ids->vendor_id = (uint16_t)(cfg[0] | cfg[1] << 8);
	ids->device_id = (uint16_t)(cfg[2] | cfg[3] << 8);
	ids->class_code = (uint32_t)cfg[9] | (uint32_t)cfg[10] << 8 | (uint32_t)cfg[11] << 16;
	return 0;
}

int pci_write_address_to(const char* pci_addr, const char* path) {
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

int pci_unbind_driver(const char* pci_addr) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind", pci_addr);
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		return 0; // no kernel driver bound
	}
	if (pci_write_address_to(pci_addr, path) != 0) {
		return -1;
	}
	ixy_info("unbound the kernel driver of %s", pci_addr);
	return 0;
}

int pci_set_bus_master(const char* pci_addr, bool enable) {
	uint16_t command;
	if (config_access(pci_addr, &command, sizeof(command), PCI_COMMAND, false) != 0) {
		return -1;
	}
	command = enable ? (command | PCI_COMMAND_MASTER) : (command & ~PCI_COMMAND_MASTER);
	return config_access(pci_addr, &command, sizeof(command), PCI_COMMAND, true);
}

uint8_t* pci_map_bar(const char* pci_addr, unsigned bar_index, size_t* size) {
	char file[16];
	snprintf(file, sizeof(file), "resource%u", bar_index);
	int fd = sysfs_open(pci_addr, file, O_RDWR);
	if (fd < 0) {
		return NULL;
	}
	struct stat st = {0}; // the file's size is the BAR's size
	void* bar = fstat(fd, &st) == 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
					: MAP_FAILED;
	if (bar == MAP_FAILED) {
		ixy_error("PCI device %s: cannot mmap %s: %s", pci_addr, file, strerror(errno));
		bar = NULL;
	}
	close(fd); // the mapping stays valid
	*size = (size_t)st.st_size;
	return bar;
}

void pci_unmap_bar(uint8_t* bar, size_t size) {
	if (bar && munmap(bar, size) != 0) {
		ixy_warn("munmap of a BAR failed: %s", strerror(errno));
	}
}

int pci_open_io_bar0(const char* pci_addr) {
	return sysfs_open(pci_addr, "resource0", O_RDWR);
}
