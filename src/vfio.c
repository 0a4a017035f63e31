// VFIO: devices bound to vfio-pci, reached through /dev/vfio (see vfio.h). Linux's VFIO interface
// (include/uapi/linux/vfio.h, Documentation/driver-api/vfio.rst) has three levels:
//   container  /dev/vfio/vfio: one IOMMU context; ixy uses one per process for all its devices, so that DMA memory
//              is mapped once and every device can reach every buffer (ixy-fwd sends one NIC's buffers on another);
//   group      /dev/vfio/<N>: the devices the IOMMU cannot tell apart (they share an IOMMU group); the group joins
//              the container, and is usable only if every device in it is bound to vfio-pci or to no driver;
//   device     a file from the group: its regions (BARs, config space) are read, written and mapped through it.
// The device's DMA addresses are IO virtual addresses, translated by the IOMMU through the container's mappings:
// ixy maps each piece of DMA memory at IOVA == its virtual address (vfio_allocate), so drivers use a buffer's pointer.
#include <dirent.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <linux/vfio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vfio.h"

#define MAX_GROUPS 64
#define MAX_VECTORS 64

// A device reached through VFIO: its file, where its config space is in the file, and its interrupts' eventfds.
struct vfio_device {
	struct pci_device pci;
	int fd;
	uint64_t config_offset;
	int irq_fds[MAX_VECTORS];
	unsigned num_irqs;
};

// The process's container, and the groups that joined it. They stay open until the process exits: the kernel then
// closes them, and with the last file of a device the device is disabled (vfio-pci resets it).
static int container_fd = -1;
static struct {
	int number;
	int fd;
} groups[MAX_GROUPS];
static int num_groups;

// The device's IOMMU group: the link /sys/bus/pci/devices/<addr>/iommu_group -> .../kernel/iommu_groups/<N>.
static int iommu_group_of(const char* pci_addr) {
	char path[PATH_MAX], target[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", pci_addr);
	ssize_t len = readlink(path, target, sizeof(target) - 1);
	if (len < 0) {
		ixy_error("PCI device %s has no IOMMU group: the IOMMU is off (kernel command line intel_iommu=on or "
			  "amd_iommu=on, and VT-d or AMD-Vi in the firmware)",
			  pci_addr);
		return -1;
	}
	target[len] = '\0';
	int group = atoi(strrchr(target, '/') + 1);
	// vfio's no-IOMMU mode gives groups without an IOMMU behind them, as /dev/vfio/noiommu-<N>: no protection.
	snprintf(path, sizeof(path), "/dev/vfio/noiommu-%d", group);
	if (access(path, F_OK) == 0) {
		ixy_error(
		    "PCI device %s is in a VFIO no-IOMMU group (%s): nothing would confine its DMA; ixy refuses it",
		    pci_addr, path);
		return -1;
	}
	return group;
}

static int open_container(void) {
	if (container_fd >= 0) {
		return 0;
	}
	int fd = open("/dev/vfio/vfio", O_RDWR);
	if (fd < 0) {
		ixy_error("cannot open /dev/vfio/vfio: %s (is the vfio-pci module loaded? scripts/setup-vfio.sh)",
			  strerror(errno));
		return -1;
	}
	if (ioctl(fd, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(fd, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) != 1) {
		ixy_error("the kernel's VFIO has another API version or no type 1 IOMMU (VFIO_TYPE1v2_IOMMU)");
		close(fd);
		return -1;
	}
	container_fd = fd;
	return 0;
}

// "0000:00:1f.0 (lpc_ich), 0000:00:1f.2 (no driver)": the devices of a group and their drivers, for messages.
static void describe_group(int group, char* out, size_t len) {
	char path[64], link[PATH_MAX], target[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%d/devices", group);
	DIR* dir = opendir(path);
	out[0] = '\0';
	for (struct dirent* entry = dir ? readdir(dir) : NULL; entry; entry = readdir(dir)) {
		if (entry->d_name[0] == '.') {
			continue;
		}
		snprintf(link, sizeof(link), "%s/%s/driver", path, entry->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		size_t used = strlen(out);
		snprintf(out + used, len - used, "%s%s (%s)", used ? ", " : "", entry->d_name,
			 n < 0 ? "no driver" : strrchr(target, '/') + 1);
	}
	if (dir) {
		closedir(dir);
	}
}

// Why /dev/vfio/<N> cannot be opened, in terms the user can act on.
static void explain_group_open_error(const char* pci_addr, const char* path, int group, int error) {
	struct stat st;
	if (error == EACCES || error == EPERM) {
		bool known = stat(path, &st) == 0;
		ixy_error(
		    "PCI device %s: cannot open %s: %s (it belongs to uid %d with mode %03o; this process runs as "
		    "uid %d): give it to this user with scripts/setup-vfio.sh %s <user> as root",
		    pci_addr, path, strerror(error), known ? (int)st.st_uid : -1, known ? st.st_mode & 0777 : 0,
		    (int)geteuid(), pci_addr);
	} else if (error == EBUSY) {
		ixy_error(
		    "PCI device %s: its IOMMU group %d is in use by another process (%s): VFIO gives a group to one "
		    "process at a time",
		    pci_addr, group, path);
	} else if (error == ENOENT) {
		ixy_error("PCI device %s: %s does not exist: bind the device to vfio-pci first (scripts/setup-vfio.sh)",
			  pci_addr, path);
	} else {
		ixy_error("PCI device %s: cannot open %s: %s", pci_addr, path, strerror(error));
	}
}

// The group's file, opened and joined to the container the first time a device of the group is opened.
static int open_group(const char* pci_addr, int group) {
	for (int i = 0; i < num_groups; i++) {
		if (groups[i].number == group) {
			return groups[i].fd;
		}
	}
	char path[32];
	snprintf(path, sizeof(path), "/dev/vfio/%d", group);
	if (num_groups == MAX_GROUPS) {
		ixy_error("PCI device %s: more than %d IOMMU groups in one process", pci_addr, MAX_GROUPS);
		return -1;
	}
	int fd = open(path, O_RDWR);
	if (fd < 0) {
		explain_group_open_error(pci_addr, path, group, errno);
		return -1;
	}
	struct vfio_group_status status = {.argsz = sizeof(status)};
	if (ioctl(fd, VFIO_GROUP_GET_STATUS, &status) != 0 || !(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		char members[1024];
		describe_group(group, members, sizeof(members));
		ixy_error(
		    "PCI device %s: its IOMMU group %d is not viable: every device in it must be bound to vfio-pci "
		    "or to no driver. The group holds: %s",
		    pci_addr, group, members);
		close(fd);
		return -1;
	}
	// The first group decides the IOMMU model of the container: type 1 (v2), the one for x86 IOMMUs.
	if (ioctl(fd, VFIO_GROUP_SET_CONTAINER, &container_fd) != 0 ||
	    (num_groups == 0 && ioctl(container_fd, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) != 0)) {
		ixy_error("PCI device %s: IOMMU group %d cannot join the VFIO container: %s%s", pci_addr, group,
			  strerror(errno),
			  errno == EPERM ? " (the IOMMU has no interrupt remapping; vfio_iommu_type1 "
					   "allow_unsafe_interrupts=1 would allow it)"
					 : "");
		close(fd);
		return -1;
	}
	groups[num_groups].number = group;
	groups[num_groups++].fd = fd;
	return fd;
}

// ---- The device's regions (VFIO_DEVICE_GET_REGION_INFO): BARs 0-5 and config space, each at an offset in the
// device's file.

static int vfio_config(struct pci_device* pci, void* buf, size_t len, uint32_t offset, bool write) {
	struct vfio_device* dev = (struct vfio_device*)pci;
	off_t at = (off_t)(dev->config_offset + offset);
	ssize_t done = write ? pwrite(dev->fd, buf, len, at) : pread(dev->fd, buf, len, at);
	if (done != (ssize_t)len) {
		ixy_error("PCI device %s: cannot %s config space at 0x%x through VFIO: %s", pci->addr,
			  write ? "write" : "read", offset, done < 0 ? strerror(errno) : "short transfer");
		return -1;
	}
	return 0;
}

static uint8_t* vfio_map_bar(struct pci_device* pci, unsigned bar, size_t* size) {
	struct vfio_device* dev = (struct vfio_device*)pci;
	struct vfio_region_info region = {.argsz = sizeof(region), .index = VFIO_PCI_BAR0_REGION_INDEX + bar};
	void* mapped = MAP_FAILED;
	if (ioctl(dev->fd, VFIO_DEVICE_GET_REGION_INFO, &region) == 0 && (region.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		mapped = mmap(NULL, region.size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, (off_t)region.offset);
	}
	if (mapped == MAP_FAILED) {
		ixy_error("PCI device %s: cannot map BAR %u through VFIO: %s", pci->addr, bar,
			  region.size ? strerror(errno) : "no such memory BAR");
		return NULL;
	}
	*size = region.size;
	return mapped;
}

// Interrupts: VFIO_DEVICE_SET_IRQS with one eventfd per MSI-X vector; the kernel signals the eventfd when the device
// sends the vector's message (through the IOMMU's interrupt remapping). A device with fewer MSI-X vectors (none:
// no MSI-X capability) is polled (pci_setup_rx_interrupts).
static int vfio_enable_interrupts(struct pci_device* pci, unsigned count, int fds[]) {
	struct vfio_device* dev = (struct vfio_device*)pci;
	struct vfio_irq_info info = {.argsz = sizeof(info), .index = VFIO_PCI_MSIX_IRQ_INDEX};
	if (ioctl(dev->fd, VFIO_DEVICE_GET_IRQ_INFO, &info) != 0 || dev->num_irqs > 0 || count == 0 ||
	    count > MAX_VECTORS) {
		ixy_error("PCI device %s: %u MSI-X vector(s) cannot be set up%s", pci->addr, count,
			  dev->num_irqs ? ": set up already" : "");
		return -1;
	}
	if (count > info.count) {
		return 0;
	}
	for (; dev->num_irqs < count; dev->num_irqs++) {
		dev->irq_fds[dev->num_irqs] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (dev->irq_fds[dev->num_irqs] < 0) {
			ixy_error("PCI device %s: cannot create an eventfd: %s", pci->addr, strerror(errno));
			return -1; // vfio_close closes the ones made so far
		}
	}
	char buf[sizeof(struct vfio_irq_set) + MAX_VECTORS * sizeof(int)];
	struct vfio_irq_set* set = (struct vfio_irq_set*)buf;
	*set = (struct vfio_irq_set){.argsz = (uint32_t)(sizeof(*set) + count * sizeof(int)),
				     .flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
				     .index = VFIO_PCI_MSIX_IRQ_INDEX,
				     .count = count};
	memcpy(set->data, dev->irq_fds, count * sizeof(int));
	if (ioctl(dev->fd, VFIO_DEVICE_SET_IRQS, set) != 0) {
		ixy_error("PCI device %s: cannot route its MSI-X interrupts to eventfds: %s", pci->addr,
			  strerror(errno));
		return -1;
	}
	memcpy(fds, dev->irq_fds, count * sizeof(int));
	return 1;
}

// Closing the device's file ends ixy's use of it; vfio-pci then disables the device (no bus mastering, no
// interrupts) and resets it. The group stays in the container.
static void vfio_close(struct pci_device* pci) {
	struct vfio_device* dev = (struct vfio_device*)pci;
	if (close(dev->fd) != 0) {
		ixy_warn("PCI device %s: closing its VFIO file failed: %s", pci->addr, strerror(errno));
	}
	for (unsigned i = 0; i < dev->num_irqs; i++) {
		if (close(dev->irq_fds[i]) != 0) {
			ixy_warn("PCI device %s: closing an interrupt eventfd failed: %s", pci->addr, strerror(errno));
		}
	}
	free(pci);
}

static struct pci_device* vfio_open(const char* pci_addr) {
	int group = iommu_group_of(pci_addr);
	int group_fd = group < 0 || open_container() != 0 ? -1 : open_group(pci_addr, group);
	if (group_fd < 0) {
		return NULL;
	}
	int fd = ioctl(group_fd, VFIO_GROUP_GET_DEVICE_FD, pci_addr);
	struct vfio_region_info config = {.argsz = sizeof(config), .index = VFIO_PCI_CONFIG_REGION_INDEX};
	struct vfio_device* dev = fd < 0 ? NULL : calloc(1, sizeof(*dev));
	if (!dev || ioctl(fd, VFIO_DEVICE_GET_REGION_INFO, &config) != 0) {
		ixy_error("PCI device %s: cannot open it through its IOMMU group %d: %s", pci_addr, group,
			  fd < 0 || dev ? strerror(errno) : "out of memory");
		if (fd >= 0) {
			close(fd);
		}
		free(dev);
		return NULL;
	}
	*dev = (struct vfio_device){.pci.access = &vfio_access, .fd = fd, .config_offset = config.offset};
	snprintf(dev->pci.addr, sizeof(dev->pci.addr), "%s", pci_addr); // ixy_init checked that it fits
	return &dev->pci;
}

// ---- DMA memory

static int vfio_allocate(size_t size, struct dma_memory* mem) {
	// Anonymous huge pages: few IOMMU page table entries. MAP_POPULATE: the pages exist now (zero-filled), so the
	// mapping below can pin them; pinned, the kernel does not migrate them while the IOMMU maps them.
	void* virt =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
	if (virt == MAP_FAILED) {
		ixy_error("cannot get %zu free huge page(s) for DMA memory: %s. Reserve more with "
			  "scripts/setup-hugetlbfs.sh <pages> (as root)",
			  size / IXY_HUGE_PAGE_SIZE, strerror(errno));
		return -1;
	}
	struct vfio_iommu_type1_dma_map map = {.argsz = sizeof(map),
					       .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
					       .vaddr = (uintptr_t)virt,
					       .iova = (uintptr_t)virt,
					       .size = size};
	if (ioctl(container_fd, VFIO_IOMMU_MAP_DMA, &map) != 0) {
		ixy_error("cannot map %zu bytes of DMA memory into the IOMMU at 0x%lx: %s%s", size, (unsigned long)virt,
			  strerror(errno),
			  errno == ENOMEM ? " (mapped memory counts against RLIMIT_MEMLOCK: raise it, ulimit -l)" : "");
		munmap(virt, size);
		return -1;
	}
	*mem = (struct dma_memory){.virt = virt, .phy = (uintptr_t)virt, .size = size};
	return 0;
}

// The caller made sure no device uses the memory any more; the IOMMU forgets it before the pages go back.
static void vfio_free(struct dma_memory* mem) {
	struct vfio_iommu_type1_dma_unmap unmap = {.argsz = sizeof(unmap), .iova = mem->phy, .size = mem->size};
	if (ioctl(container_fd, VFIO_IOMMU_UNMAP_DMA, &unmap) != 0 || unmap.size != mem->size) {
		ixy_warn("cannot unmap DMA memory at 0x%lx from the IOMMU: %s", (unsigned long)mem->phy,
			 strerror(errno));
	}
	if (munmap(mem->virt, mem->size) != 0) {
		ixy_warn("munmap of DMA memory failed: %s", strerror(errno));
	}
}

static const struct dma_provider vfio_dma = {
    .name = "VFIO", .iommu = true, .allocate = vfio_allocate, .free = vfio_free};

const struct pci_access vfio_access = {.name = "VFIO",
				       .dma = &vfio_dma,
				       .open = vfio_open,
				       .config = vfio_config,
				       .map_bar = vfio_map_bar,
				       .close = vfio_close,
				       .enable_interrupts = vfio_enable_interrupts};
