// PCI devices through sysfs: IDs and class, unbinding the kernel driver, and the sysfs way to reach a device ixy has
// taken (struct pci_access in pci.h). Linux exposes each device as /sys/bus/pci/devices/<domain:bus:device.function>/
// (Documentation/PCI/sysfs-pci.rst): `config` is its config space, `resource<N>` its BAR N.
#include <fcntl.h>
#include <linux/limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

// pread or pwrite of exactly len bytes; prints what went wrong.
static int transfer(const char* pci_addr, const char* what, int fd, void* buf, size_t len, off_t offset, bool write) {
	ssize_t done = write ? pwrite(fd, buf, len, offset) : pread(fd, buf, len, offset);
	if (done != (ssize_t)len) {
		ixy_error("PCI device %s: cannot %s %s at 0x%llx: %s", pci_addr, write ? "write" : "read", what,
			  (unsigned long long)offset, done < 0 ? strerror(errno) : "short transfer");
		return -1;
	}
	return 0;
}

int pci_read_ids(const char* pci_addr, struct pci_ids* ids) {
	uint8_t cfg[12] = {0}; // vendor (0), device (2), command, status, revision (8), class code (9..11)
	int fd = sysfs_open(pci_addr, "config", O_RDONLY);
	int rc = fd < 0 ? -1 : transfer(pci_addr, "config space", fd, cfg, sizeof(cfg), 0, false);
	if (fd >= 0) {
		close(fd);
	}
	// Config space is little endian.
	ids->vendor_id = (uint16_t)(cfg[0] | cfg[1] << 8);
	ids->device_id = (uint16_t)(cfg[2] | cfg[3] << 8);
	ids->class_code = (uint32_t)cfg[9] | (uint32_t)cfg[10] << 8 | (uint32_t)cfg[11] << 16;
	return rc;
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

int pci_read_kernel_driver(const char* pci_addr, char name[IXY_DRIVER_NAME_MAX]) {
	char path[PATH_MAX], target[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", pci_addr);
	ssize_t len = readlink(path, target, sizeof(target) - 1); // -> ../../../bus/pci/drivers/<name>
	if (len < 0 && errno != ENOENT) {                         // no link: no driver
		ixy_error("PCI device %s: cannot read %s: %s", pci_addr, path, strerror(errno));
		return -1;
	}
	target[len < 0 ? 0 : len] = '\0';
	snprintf(name, IXY_DRIVER_NAME_MAX, "%s", len < 0 ? "" : strrchr(target, '/') + 1);
	return 0;
}

int pci_unbind_driver(const char* pci_addr) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind", pci_addr);
	if (pci_write_address_to(pci_addr, path) != 0) {
		return -1;
	}
	ixy_info("unbound the kernel driver of %s", pci_addr);
	return 0;
}

// ---- A taken device, through sysfs

struct sysfs_device {
	struct pci_device pci;
	int config_fd;
};

static int sysfs_config(struct pci_device* dev, void* buf, size_t len, uint32_t offset, bool write) {
	return transfer(dev->addr, "config space", ((struct sysfs_device*)dev)->config_fd, buf, len, offset, write);
}

static uint8_t* sysfs_map_bar(struct pci_device* dev, unsigned bar_index, size_t* size) {
	char file[16];
	snprintf(file, sizeof(file), "resource%u", bar_index);
	int fd = sysfs_open(dev->addr, file, O_RDWR);
	struct stat st = {0}; // the file's size is the BAR's size
	void* bar = fd >= 0 && fstat(fd, &st) == 0
			? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			: MAP_FAILED;
	if (fd >= 0 && bar == MAP_FAILED) {
		ixy_error("PCI device %s: cannot mmap %s: %s", dev->addr, file, strerror(errno));
	}
	if (fd >= 0) {
		close(fd); // the mapping stays valid
	}
	*size = (size_t)st.st_size;
	return bar == MAP_FAILED ? NULL : bar;
}

static void sysfs_close(struct pci_device* dev) {
	if (close(((struct sysfs_device*)dev)->config_fd) != 0) {
		ixy_warn("PCI device %s: closing its config file failed: %s", dev->addr, strerror(errno));
	}
	free(dev);
}

// The sysfs way's open (root only); ixy_init unbound the kernel driver first.
static struct pci_device* pci_open_sysfs(const char* pci_addr) {
	struct sysfs_device* dev = calloc(1, sizeof(*dev));
	if (!dev) {
		ixy_error("PCI device %s: out of memory", pci_addr);
		return NULL;
	}
	snprintf(dev->pci.addr, sizeof(dev->pci.addr), "%s", pci_addr); // ixy_init checked that it fits
	dev->pci.access = &pci_sysfs_access;
	dev->config_fd = sysfs_open(pci_addr, "config", O_RDWR);
	if (dev->config_fd < 0) {
		free(dev);
		return NULL;
	}
	return &dev->pci;
}

// The sysfs way: the paper's DMA memory (no .dma), no interrupts.
const struct pci_access pci_sysfs_access = {
    .name = "sysfs", .open = pci_open_sysfs, .config = sysfs_config, .map_bar = sysfs_map_bar, .close = sysfs_close};
