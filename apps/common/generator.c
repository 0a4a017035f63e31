// Packet generator step of ixy-pktgen (see generator.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "packet.h"

int generator_init(struct generator* gen, struct mempool* pool, const uint8_t src_mac[6]) {
	*gen = (struct generator){.pool = pool, .flows = 1};
	if (pool->free_stack_top != pool->num_entries || pool->buf_size < sizeof(struct pkt_buf) + PACKET_SIZE) {
		fprintf(stderr, "generator: the mempool must be unused and hold %d byte packets\n", PACKET_SIZE);
		return -1;
	}
	struct pkt_buf** bufs = calloc(pool->num_entries, sizeof(*bufs));
	if (!bufs) {
		fprintf(stderr, "generator: out of memory\n");
		return -1;
	}
	uint8_t template[PACKET_SIZE];
	packet_build_template(template, src_mac);
	// Take every buffer at once (the pool hands a buffer out again right after it was freed), fill each, give
	// all back. Drivers only read the data of packets they send, so the template stays: later only the
	// sequence number is rewritten.
	uint32_t num_bufs = pkt_buf_alloc_batch(pool, bufs, pool->num_entries);
	for (uint32_t i = 0; i < num_bufs; i++) {
		memcpy(bufs[i]->data, template, PACKET_SIZE);
		bufs[i]->size = PACKET_SIZE;
	}
	for (uint32_t i = 0; i < num_bufs; i++) {
		pkt_buf_free(bufs[i]);
	}
	free(bufs);
	return 0;
}

uint32_t generator_send(struct generator* gen, struct ixy_device* dev, uint16_t queue) {
	struct pkt_buf* bufs[GENERATOR_BATCH_SIZE];
	// The pool may be empty while all buffers wait in the TX ring; tx_batch is called anyway because it is also
	// where the driver takes sent buffers back.
	uint32_t num_bufs = pkt_buf_alloc_batch(gen->pool, bufs, GENERATOR_BATCH_SIZE);
	if (gen->flows <= 1) {
		for (uint32_t i = 0; i < num_bufs; i++) {
			packet_stamp_seq(bufs[i]->data, gen->next_seq + i);
		}
	} else {
		// Packet n = sent + i: flow n mod flows, the flow's sequence number n / flows. One division per batch,
		// then counting; packet_flow_port's modulus is a constant (a multiplication). A buffer may hold another
		// flow's packet, so every one gets its port.
		uint32_t flow = (uint32_t)(gen->sent % gen->flows);
		uint32_t flow_seq = (uint32_t)(gen->sent / gen->flows);
		for (uint32_t i = 0; i < num_bufs; i++) {
			packet_set_src_port(bufs[i]->data, packet_flow_port(flow));
			packet_stamp_seq(bufs[i]->data, flow_seq);
			if (++flow == gen->flows) {
				flow = 0;
				flow_seq++;
			}
		}
	}
	uint32_t num_sent = ixy_tx_batch(dev, queue, bufs, num_bufs);
	for (uint32_t i = num_sent; i < num_bufs; i++) {
		pkt_buf_free(bufs[i]);
	}
	gen->next_seq += num_sent;
	gen->sent += num_sent;
	gen->not_taken += num_bufs - num_sent;
	return num_sent;
}
