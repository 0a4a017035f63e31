// pktgen_bench: what ixy-pktgen's generator (apps/common/generator.h) costs per generated frame, with the 82599
// model (test/model) as the NIC. Instructions only, counted by callgrind (test bench_instructions_pktgen).
//
// One modelled 82599 ("perfect": every TDT write completes), one TX queue, default ring (512). generator_send is
// called until `frames` frames were taken; callgrind's self cost of generator_send (what it does and inlines:
// sizes, flows, stamps, checksums; not the pool's alloc and free nor the driver's tx_batch, functions of their own)
// divided by the frames is the figure. Shapes:
//   default   the default frame: 60 bytes, one flow (ixy-pktgen <pci>)
//   flows     --flows 64
//   ranges    --flows 64 --src-ip 10.0.0.1-10.0.0.64 --dst-port 5000-5063 --vlan 7 (IPv4 header checksum per frame)
//   ipv6      --flows 64 --src-ip fd00::1-fd00::40 --vlan 7 (the UDP checksum per frame)
// Exits 1 unless every frame was taken.
//
// Usage: pktgen_bench [frames [shape]]   (defaults 640000 and default)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ixy/ixy.h>

#include "common/generator.h"
#include "common/packet.h"
#include "ixgbe_model.h"

#define PORT "0000:0b:00.0"

int main(int argc, char* argv[]) {
	uint64_t frames = argc > 1 ? strtoull(argv[1], NULL, 10) : 640000;
	const char* shape = argc > 2 ? argv[2] : "default";
	struct model_ixgbe* nic = model_ixgbe_add(PORT);
	model_ixgbe_set_perfect(nic, true);
	struct ixy_config config = {.pci_addr = PORT, .rx_queues = 1, .tx_queues = 1};
	struct ixy_device* dev = ixy_init_config(&config);
	struct mempool* pool = memory_allocate_mempool(2048, 0);
	if (!dev || !pool) {
		return 1;
	}
	model_advance_us(1000000); // the link is up
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	struct packet_spec spec;
	spec_default(&spec);
	uint32_t flows = strcmp(shape, "default") == 0 ? 1 : 64;
	if (strcmp(shape, "ranges") == 0) {
		parse_ip_range("10.0.0.1-10.0.0.64", &spec.src_ip, &spec.src_family);
		parse_port_range("5000-5063", &spec.dst_port);
		parse_vlan("7", &spec.vlan_tci);
		spec.vlan = true;
	} else if (strcmp(shape, "ipv6") == 0) {
		parse_ip_range("fd00::1-fd00::40", &spec.src_ip, &spec.src_family);
		parse_vlan("7", &spec.vlan_tci);
		spec.vlan = true;
	}
	struct generator* gen = malloc(sizeof(*gen));
	if (!gen || generator_init_spec(gen, pool, &spec, mac, 0, 1) != 0) {
		return 1;
	}
	gen->flows = flows;
	uint64_t now = 1;
	while (gen->sent < frames) {
		uint64_t left = frames - gen->sent;
		generator_send(gen, dev, 0, now++, left < GENERATOR_BATCH_SIZE ? (uint32_t)left : GENERATOR_BATCH_SIZE,
			       NULL);
	}
	printf("pktgen_bench: %llu frames, shape %s, %u flows, %u bytes each\n", (unsigned long long)gen->sent, shape,
	       gen->flows, gen->next_size);
	int status = gen->sent != frames;
	ixy_stop(dev);
	ixy_close(dev);
	memory_free_mempool(pool);
	free(gen);
	model_pci_remove_all();
	return status;
}
