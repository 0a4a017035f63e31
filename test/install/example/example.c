// An app of one's own on an installed libixy (test/install): takes a NIC, prints its MAC address and link speed,
// receives packets for a second and prints how many it got.
//
//   ixy-example <pci>
#include <stdio.h>

#include <ixy/ixy.h>
#include <ixy/settings.h>

int main(int argc, char* argv[]) {
	if (argc != 2) {
		fprintf(stderr, "usage: ixy-example <pci>\n");
		return 2;
	}
	struct ixy_device* dev = ixy_init(argv[1], 1, 1);
	if (!dev) {
		return 1; // ixy_init said why
	}
	uint8_t mac[6];
	if (ixy_get_mac_addr(dev, mac) == 0) {
		printf("%s (%s): MAC %02x:%02x:%02x:%02x:%02x:%02x, link %u Mbit/s\n", dev->pci_addr, dev->driver_name,
		       mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], ixy_get_link_speed(dev));
	}
	uint64_t received = 0, start = monotonic_time_ns();
	while (monotonic_time_ns() - start < 1000000000u) {
		struct pkt_buf* bufs[32];
		uint32_t n = ixy_rx_batch(dev, 0, bufs, 32);
		for (uint32_t i = 0; i < n; i++) {
			pkt_buf_free(bufs[i]);
		}
		received += n;
	}
	printf("received %llu packets in a second\n", (unsigned long long)received);
	ixy_close(dev);
	return 0;
}
