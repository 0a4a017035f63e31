// The names of the VirtIO transports' registers (virtio_regs.h) for the register trace (src/trace.h): name, offset,
// count, stride in bytes. virtio_legacy.c passes the legacy register block's to ixy_trace_bar, virtio_modern.c those
// of its three structures.
#include <stddef.h>

#include "virtio_regs.h"

// The legacy register block, with the network device's configuration after it (4.1.4.8).
static const struct ixy_reg_name legacy[] = {
    {"HOST_FEATURES", REG_HOST_FEATURES, 1, 0},
    {"GUEST_FEATURES", REG_GUEST_FEATURES, 1, 0},
    {"QUEUE_PFN", REG_QUEUE_PFN, 1, 0},
    {"QUEUE_SIZE", REG_QUEUE_SIZE, 1, 0},
    {"QUEUE_SELECT", REG_QUEUE_SELECT, 1, 0},
    {"QUEUE_NOTIFY", REG_QUEUE_NOTIFY, 1, 0},
    {"STATUS", REG_STATUS, 1, 0},
    {"MAC", REG_DEVICE_CONFIG + VIRTIO_NET_CONFIG_MAC, 6, 1},
    {"NET_STATUS", REG_DEVICE_CONFIG + VIRTIO_NET_CONFIG_STATUS, 1, 0},
    {NULL, 0, 0, 0},
};

// The modern interface's common configuration (4.1.4.3); 64 bit fields are written as two halves: (0) low, (1) high.
static const struct ixy_reg_name common[] = {
    {"DEVICE_FEATURE_SELECT", COMMON_DEVICE_FEATURE_SELECT, 1, 0},
    {"DEVICE_FEATURE", COMMON_DEVICE_FEATURE, 1, 0},
    {"DRIVER_FEATURE_SELECT", COMMON_DRIVER_FEATURE_SELECT, 1, 0},
    {"DRIVER_FEATURE", COMMON_DRIVER_FEATURE, 1, 0},
    {"DEVICE_STATUS", COMMON_DEVICE_STATUS, 1, 0},
    {"CONFIG_GENERATION", COMMON_CONFIG_GENERATION, 1, 0},
    {"QUEUE_SELECT", COMMON_QUEUE_SELECT, 1, 0},
    {"QUEUE_SIZE", COMMON_QUEUE_SIZE, 1, 0},
    {"QUEUE_MSIX_VECTOR", COMMON_QUEUE_MSIX_VECTOR, 1, 0},
    {"QUEUE_ENABLE", COMMON_QUEUE_ENABLE, 1, 0},
    {"QUEUE_NOTIFY_OFF", COMMON_QUEUE_NOTIFY_OFF, 1, 0},
    {"QUEUE_DESC", COMMON_QUEUE_DESC, 2, 4},
    {"QUEUE_DRIVER", COMMON_QUEUE_AVAIL, 2, 4},
    {"QUEUE_DEVICE", COMMON_QUEUE_USED, 2, 4},
    {NULL, 0, 0, 0},
};

// The network device's configuration of the modern interface (5.1.4).
static const struct ixy_reg_name net_config[] = {
    {"MAC", VIRTIO_NET_CONFIG_MAC, 6, 1},
    {"NET_STATUS", VIRTIO_NET_CONFIG_STATUS, 1, 0},
    {"SPEED", VIRTIO_NET_CONFIG_SPEED, 1, 0},
    {NULL, 0, 0, 0},
};

// The notification structure (QEMU: one 4 byte slot per queue).
static const struct ixy_reg_name notify[] = {
    {"QUEUE_NOTIFY", 0, 8, 4},
    {NULL, 0, 0, 0},
};

const struct ixy_reg_names virtio_legacy_reg_names = {"virtio-legacy", legacy};
const struct ixy_reg_names virtio_common_reg_names = {"virtio-modern", common};
const struct ixy_reg_names virtio_net_config_reg_names = {"virtio-net-config", net_config};
const struct ixy_reg_names virtio_notify_reg_names = {"virtio-notify", notify};
