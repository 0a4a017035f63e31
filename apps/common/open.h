// Opening a device for an app that must see every packet on the link (capture, forwarding).
#ifndef IXY_APPS_OPEN_H
#define IXY_APPS_OPEN_H

#include <ixy/ixy.h>

// ixy_init() with one RX and one TX queue, then promiscuous mode (receive frames for any destination MAC).
// If promiscuous mode cannot be set it warns and goes on: the app then sees only frames addressed to the NIC,
// broadcasts and multicasts. Returns NULL (with a message from ixy_init) if the device cannot be opened.
struct ixy_device* open_promiscuous(const char* pci_addr);

#endif
