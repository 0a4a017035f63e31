// The ixgbe driver's initialisation against the 82599 model: the order of the init sequence (datasheet 4.6.3), the
// link coming up or never, the MAC address, dispatch by PCI ID, refused configurations and error paths that must
// leave nothing behind, close, and giving the device back.
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/checks.h>
#include <ixy/ixy.h>
#include <ixy/settings.h>

#include "../check.h"
#include "access.h"
#include "driver/driver.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"
#include "test_regs.h"

#define NIC_ADDR "0000:03:00.0"

static struct ixy_device* open_device(const char* addr, uint16_t rx_queues, uint16_t tx_queues, uint32_t ring_size) {
	struct ixy_config config = {
	    .pci_addr = addr, .rx_queues = rx_queues, .tx_queues = tx_queues, .ring_size = ring_size};
	return ixy_init_config(&config);
}

// Index of the first log entry at or after `from` (see model_ixgbe_log_find); prints what it looked for if missing.
static int64_t find(const struct model_ixgbe* nic, int64_t from, enum model_access access, uint32_t reg, uint32_t mask,
		    const char* what) {
	int64_t at = from < 0 ? -1 : model_ixgbe_log_find(nic, (uint32_t)from, access, reg, mask);
	if (at < 0) {
		fprintf(stderr, "init order: no %s found in the register log\n", what);
	}
	return at;
}

// 4.6.3: disable interrupts, global reset, wait, disable interrupts again, wait for the EEPROM auto-read and the
// DMA initialisation, set up the link (4.6.4), initialise the statistics (4.6.5), receive (4.6.7) and transmit
// (4.6.8), then start the queues.
static void test_init_order(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(NIC_ADDR, 1, 1, 0);
	CHECK(dev != NULL);
	if (!dev) {
		model_pci_remove_all();
		return;
	}
	CHECK(strcmp(dev->driver_name, "ixgbe") == 0);
	CHECK(strcmp(dev->pci_addr, NIC_ADDR) == 0);
	CHECK_EQ(dev->num_rx_queues, 1);
	CHECK_EQ(dev->num_tx_queues, 1);
	CHECK_EQ(ixy_get_link_speed(dev), 10000);
	CHECK_NO_NEW_VIOLATIONS();

	int64_t mask_before = find(nic, 0, MODEL_WRITE, R_EIMC, 0x7FFFFFFF, "EIMC write masking all interrupts");
	int64_t reset = find(nic, 0, MODEL_WRITE, R_CTRL, CTRL_RST, "CTRL write with RST");
	int64_t mask_after = find(nic, reset + 1, MODEL_WRITE, R_EIMC, 0x7FFFFFFF, "EIMC write after the reset");
	int64_t eeprom = find(nic, reset + 1, MODEL_READ, R_EEC, EEC_ARD, "EEC read showing ARD after the reset");
	int64_t dma = find(nic, reset + 1, MODEL_READ, R_RDRXCTL, RDRXCTL_DMAIDONE, "RDRXCTL read showing DMAIDONE");
	int64_t link = find(nic, reset + 1, MODEL_WRITE, R_AUTOC, AUTOC_RESTART_AN, "AUTOC write with Restart_AN");
	int64_t stats = find(nic, reset + 1, MODEL_READ, R_GPRC, 0, "GPRC read (statistics) after the reset");
	int64_t rx_init = find(nic, reset + 1, MODEL_WRITE, R_RDBAL(0), 0, "RDBAL(0) write");
	int64_t rx_enable = find(nic, reset + 1, MODEL_WRITE, R_RXCTRL, 1, "RXCTRL.RXEN write");
	int64_t tx_init = find(nic, reset + 1, MODEL_WRITE, R_TDBAL(0), 0, "TDBAL(0) write");
	int64_t tx_enable = find(nic, reset + 1, MODEL_WRITE, R_DMATXCTL, 1, "DMATXCTL.TE write");
	int64_t rx_queue = find(nic, reset + 1, MODEL_WRITE, R_RXDCTL(0), ENABLE, "RXDCTL(0).ENABLE write");
	int64_t tx_queue = find(nic, reset + 1, MODEL_WRITE, R_TXDCTL(0), ENABLE, "TXDCTL(0).ENABLE write");
	int64_t rx_tail = find(nic, rx_queue, MODEL_WRITE, R_RDT(0), 0, "RDT(0) write after the queue enable");
	int64_t link_wait = find(nic, link, MODEL_READ, R_LINKS, 0, "LINKS read after the link setup");
	bool all_found = mask_before >= 0 && reset >= 0 && mask_after >= 0 && eeprom >= 0 && dma >= 0 && link >= 0 &&
			 stats >= 0 && rx_init >= 0 && rx_enable >= 0 && tx_init >= 0 && tx_enable >= 0 &&
			 rx_queue >= 0 && tx_queue >= 0 && rx_tail >= 0 && link_wait >= 0;
	CHECK(all_found);
	CHECK(mask_before < reset);
	CHECK(reset < mask_after);
	CHECK(mask_after < link);
	CHECK(eeprom < link);
	CHECK(dma < rx_init);
	CHECK(dma < tx_init);
	CHECK(link < stats);
	CHECK(stats < rx_init);
	CHECK(rx_init < tx_init);
	CHECK(rx_init < rx_enable);
	CHECK(tx_init < tx_enable);
	CHECK(tx_init < rx_queue);
	CHECK(tx_enable < tx_queue);
	CHECK(rx_queue < rx_tail);
	// the second interrupt mask must come after the reset finished (writes during the reset are violations)
	if (all_found) {
		const struct model_log_entry* rst = model_ixgbe_log_entry(nic, (uint32_t)reset);
		const struct model_log_entry* after = model_ixgbe_log_entry(nic, (uint32_t)mask_after);
		CHECK(after->time_us >= rst->time_us + 1000);
	}
	if (!all_found || check_failures > 0) {
		model_ixgbe_print_log(nic, stderr, 0, 400);
	}
	// counters start at zero
	struct device_stats stats_now;
	stats_init(&stats_now, dev);
	ixy_read_stats(dev, &stats_now);
	CHECK_EQ(stats_now.rx_pkts + stats_now.tx_pkts + stats_now.rx_bytes + stats_now.tx_bytes, 0);
	CHECK_EQ(stats_now.rx_dropped, 0);
	// the MAC address comes from RAL/RAH(0), set by the EEPROM
	uint8_t mac[6];
	CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);
	const uint8_t eeprom_mac[6] = {0x02, 0x00, 0x00, 0x03, 0x00, 0x00};
	CHECK(memcmp(mac, eeprom_mac, 6) == 0);
	const uint8_t new_mac[6] = {0x02, 0x12, 0x34, 0x56, 0x78, 0x9a};
	CHECK_EQ(ixy_set_mac_addr(dev, new_mac), 0);
	CHECK_EQ(ixy_get_mac_addr(dev, mac), 0);
	CHECK(memcmp(mac, new_mac, 6) == 0);
	CHECK_EQ(model_ixgbe_peek(nic, R_RAL(0)), 0x56341202);
	CHECK_EQ(model_ixgbe_peek(nic, R_RAH(0)), 0x80009a78); // address valid
	ixy_close(dev);
	CHECK(!model_pci_bar_mapped(model_ixgbe_pci(nic)));
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

static bool contains_case_insensitive(const char* text, const char* word) {
	for (; *text; text++) {
		size_t i = 0;
		while (word[i] && tolower((unsigned char)text[i]) == word[i]) {
			i++;
		}
		if (!word[i]) {
			return true;
		}
	}
	return false;
}

// No cable: the driver waits a bounded (virtual) time, says so clearly, and does not hang.
static void test_link_never_up(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	model_ixgbe_set_link_mode(nic, MODEL_LINK_NEVER, 0);
	uint64_t start = model_now_us();
	model_test_capture_start();
	struct ixy_device* dev = open_device(NIC_ADDR, 1, 1, 0);
	char* output = model_test_capture_end();
	uint64_t waited_us = model_now_us() - start;
	fprintf(stderr, "link never up: init took %.1f s of virtual time and %s\n", (double)waited_us / 1e6,
		dev ? "returned a device" : "failed");
	CHECK(waited_us >= 1000000);  // it did wait for the link a while
	CHECK(waited_us <= 60000000); // but not forever
	CHECK(contains_case_insensitive(output, "link"));
	free(output);
	if (dev) {
		CHECK_EQ(ixy_get_link_speed(dev), 0);
		ixy_close(dev);
	}
	CHECK(!model_pci_bar_mapped(model_ixgbe_pci(nic)));
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// A link that takes a while (3 s) is waited for.
static void test_slow_link(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	model_ixgbe_set_link_mode(nic, MODEL_LINK_UP_AFTER_AN, 3000000);
	struct ixy_device* dev = open_device(NIC_ADDR, 1, 1, 0);
	CHECK(dev != NULL);
	if (dev) {
		CHECK_EQ(ixy_get_link_speed(dev), 10000);
		ixy_close(dev);
	}
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Only network controllers with a supported ID are touched at all.
static void test_dispatch(void) {
	model_test_begin(__func__);
	struct model_pci_device* storage = model_pci_add("0000:04:00.0", 0x8086, 0x2922, 0x010601, NULL, NULL);
	struct model_pci_device* other_nic = model_pci_add("0000:04:00.1", 0x8086, 0x1533, 0x020000, NULL, NULL);
	struct model_pci_device* other_vendor = model_pci_add("0000:04:00.2", 0x1234, 0x10FB, 0x020000, NULL, NULL);
	CHECK(ixy_init("0000:04:00.0", 1, 1) == NULL);
	CHECK(ixy_init("0000:04:00.1", 1, 1) == NULL);
	CHECK(ixy_init("0000:04:00.2", 1, 1) == NULL);
	CHECK(ixy_init("0000:04:00.7", 1, 1) == NULL); // no such device
	CHECK(ixy_init("04:00.0", 1, 1) == NULL);      // malformed
	CHECK_EQ(model_pci_touches(storage), 0);
	CHECK_EQ(model_pci_touches(other_nic), 0);
	CHECK_EQ(model_pci_touches(other_vendor), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Configurations the driver must refuse, leaving nothing allocated or mapped. Ring sizes and queue counts are
// refused before ixy touches the device at all.
static void test_refused_configurations(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	CHECK(open_device(NIC_ADDR, 1, 1, 100) == NULL);
	CHECK(open_device(NIC_ADDR, 65, 1, 0) == NULL);
	CHECK(open_device(NIC_ADDR, 1, 65, 0) == NULL);
	CHECK_EQ(model_pci_touches(model_ixgbe_pci(nic)), 0);
	const uint32_t bad_ring_sizes[] = {1, 32, 63, 100, 513, 8192, 65536};
	for (size_t i = 0; i < sizeof(bad_ring_sizes) / sizeof(bad_ring_sizes[0]); i++) {
		struct ixy_device* dev = open_device(NIC_ADDR, 1, 1, bad_ring_sizes[i]);
		CHECK(dev == NULL);
		if (dev) {
			fprintf(stderr, "ring size %u was accepted\n", bad_ring_sizes[i]);
			ixy_close(dev);
		}
		CHECK_EQ(seam_dma_live_allocations(), 0);
		CHECK(!model_pci_bar_mapped(model_ixgbe_pci(nic)));
	}
	CHECK(open_device(NIC_ADDR, 65, 1, 0) == NULL);
	// permission denied (not root)
	model_pci_deny_permissions(true);
	CHECK(open_device(NIC_ADDR, 1, 1, 0) == NULL);
	model_pci_deny_permissions(false);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK(!model_pci_bar_mapped(model_ixgbe_pci(nic)));
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// ixy_check_configs (src/device.c, the same code as in libixy): it refuses if any device would be refused, counts
// the huge pages of all devices and the app's pools together, and changes nothing: no device taken, and the way the
// process reaches its devices (access.h) is still open. The first ixy_init then chooses it.
static void test_check_configs(void) {
	model_test_begin(__func__);
	CHECK(access_of_process() == NULL); // runs first: no ixy_init yet
	struct model_ixgbe* a = model_ixgbe_add("0000:05:00.0");
	struct model_ixgbe* b = model_ixgbe_add("0000:05:00.1");
	model_pci_add("0000:05:00.2", 0x8086, 0x2922, 0x010601, NULL, NULL); // a storage controller
	struct ixy_config configs[] = {{.pci_addr = "0000:05:00.0", .rx_queues = 1, .tx_queues = 1},
				       {.pci_addr = "0000:05:00.1", .rx_queues = 4, .tx_queues = 2, .ring_size = 4096},
				       {.pci_addr = "0000:05:00.2", .rx_queues = 1, .tx_queues = 1}};
	uint64_t pages = ixgbe_driver.huge_pages_needed(&configs[0]) + ixgbe_driver.huge_pages_needed(&configs[1]) + 7;
	CHECK(ixy_check_configs(configs, 2, 7));
	CHECK_EQ(model_memory_checked(), pages);
	model_set_free_huge_pages(pages - 1);
	CHECK(!ixy_check_configs(configs, 2, 7));
	model_set_free_huge_pages(pages);
	CHECK(ixy_check_configs(configs, 2, 7));
	model_set_free_huge_pages(UINT64_MAX);
	CHECK(!ixy_check_configs(configs, 3, 0)); // not a NIC
	configs[1].rx_queues = 65;
	CHECK(!ixy_check_configs(configs, 2, 0)); // too many queues
	configs[1].rx_queues = 4;
	model_pci_deny_permissions(true);
	CHECK(!ixy_check_configs(configs, 2, 0)); // not root
	model_pci_deny_permissions(false);
	CHECK(access_of_process() == NULL);
	const struct model_ixgbe* nics[] = {a, b};
	for (int i = 0; i < 2; i++) {
		CHECK(!model_pci_unbound(model_ixgbe_pci(nics[i])) && !model_pci_bar_mapped(model_ixgbe_pci(nics[i])));
		CHECK(!model_pci_bus_master(model_ixgbe_pci(nics[i])));
	}
	CHECK_EQ(seam_dma_live_allocations(), 0);
	struct ixy_device* dev = ixy_init_config(&configs[0]);
	CHECK(dev != NULL);
	CHECK(access_of_process() == &pci_sysfs_access);
	ixy_close(dev);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Every DMA allocation the driver makes may fail: init must then fail cleanly, whichever it was.
static void test_allocation_failures(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	// count the allocations of a successful init with two queues each way
	unsigned before = model_dma_allocations();
	struct ixy_device* dev = open_device(NIC_ADDR, 2, 2, 64);
	CHECK(dev != NULL);
	unsigned needed = model_dma_allocations() - before;
	ixy_close(dev);
	CHECK(needed >= 4); // at least the four rings
	for (unsigned nth = 1; nth <= needed; nth++) {
		model_fail_dma_allocation(nth);
		dev = open_device(NIC_ADDR, 2, 2, 64);
		CHECK(dev == NULL);
		if (dev) {
			ixy_close(dev);
		}
		model_fail_dma_allocation(0);
		CHECK_EQ(seam_dma_live_allocations(), 0);
		CHECK(!model_pci_bar_mapped(model_ixgbe_pci(nic)));
	}
	// and the device still works afterwards
	dev = open_device(NIC_ADDR, 2, 2, 64);
	CHECK(dev != NULL);
	if (dev) {
		CHECK_EQ(ixy_get_link_speed(dev), 10000);
		ixy_close(dev);
	}
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// Open, close, open again: the second init starts from whatever the first left.
static void test_reopen(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	for (int round = 0; round < 3; round++) {
		struct ixy_device* dev = open_device(NIC_ADDR, 1, 1, 128);
		CHECK(dev != NULL);
		if (!dev) {
			break;
		}
		CHECK_EQ(ixy_get_link_speed(dev), 10000);
		ixy_close(dev);
		CHECK_EQ(seam_dma_live_allocations(), 0);
	}
	CHECK(model_ixgbe_counters(nic).resets >= 3);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

// The way back (src/checks.c): ixy_init remembers the kernel driver it unbound, ixy_give_back closes the device and
// binds it to that driver again, ixy_close does not. Init fails at each step of a broken NIC (ixgbe_model.h: a reset
// that never finishes, no DMA memory for the first ring, queues that never enable): the driver cleans up as for a
// real failure there, and ixy_init gives the device back.
static void test_give_back(void) {
	model_test_begin(__func__);
	struct model_ixgbe* nic = model_ixgbe_add(NIC_ADDR);
	struct ixy_device* dev = open_device(NIC_ADDR, 1, 1, 64);
	CHECK(dev && strcmp(dev->kernel_driver, "kernel-driver-model") == 0);
	ixy_close(dev);
	CHECK(!seam_given_back(NIC_ADDR, "kernel-driver-model"));
	model_pci_remove_all();
	nic = model_ixgbe_add(NIC_ADDR);
	ixy_give_back(open_device(NIC_ADDR, 1, 1, 64));
	CHECK(seam_given_back(NIC_ADDR, "kernel-driver-model"));
	CHECK(!model_pci_bus_master(model_ixgbe_pci(nic)) && !model_pci_bar_mapped(model_ixgbe_pci(nic)));
	CHECK_EQ(seam_dma_live_allocations(), 0);
	ixy_give_back(NULL);
	model_pci_remove_all();
	const char* steps[] = {"the reset", "ring of 64 descriptors", "TX queue"}; // (init_tx enables its queues first)
	for (int i = 0; i < 3; i++) {
		nic = model_ixgbe_add(NIC_ADDR);
		model_ixgbe_set_fault(nic, i == 0   ? MODEL_IXGBE_STUCK_RESET
					   : i == 2 ? MODEL_IXGBE_QUEUES_STAY_OFF
						    : MODEL_IXGBE_WORKS);
		seam_dma_fail_next(i == 1); // the first allocation: RX queue 0's ring
		model_test_capture_start();
		dev = open_device(NIC_ADDR, 2, 2, 64);
		char* output = model_test_capture_end();
		seam_dma_fail_next(0);
		CHECK(dev == NULL);
		CHECK(strstr(output, steps[i]) && strstr(output, "ixgbe init failed"));
		free(output);
		CHECK(seam_given_back(NIC_ADDR, "kernel-driver-model"));
		CHECK(!model_pci_bus_master(model_ixgbe_pci(nic)) && !model_pci_bar_mapped(model_ixgbe_pci(nic)));
		CHECK_EQ(seam_dma_live_allocations(), 0);
		model_pci_remove_all();
	}
	// The test hook of the other drivers (IXY_TEST_FAIL_INIT, driver/injected_failure.h) is not ixgbe's: it fails
	// nothing here.
	const char* others[] = {NIC_ADDR ":reset", NIC_ADDR ":memory", NIC_ADDR ":queue"};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		model_ixgbe_add(NIC_ADDR);
		CHECK(setenv("IXY_TEST_FAIL_INIT", others[i], 1) == 0);
		dev = open_device(NIC_ADDR, 1, 1, 64);
		CHECK(dev != NULL);
		ixy_close(dev);
		model_pci_remove_all();
	}
	CHECK(unsetenv("IXY_TEST_FAIL_INIT") == 0);
	CHECK_NO_NEW_VIOLATIONS();
}

int main(void) {
	test_check_configs();
	test_init_order();
	test_link_never_up();
	test_slow_link();
	test_dispatch();
	test_refused_configurations();
	test_allocation_failures();
	test_reopen();
	test_give_back();
	return model_test_summary();
}
