// Packet generator step of ixy-pktgen (see generator.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "packet.h"
#include "sender.h"

int generator_init(struct generator* gen, struct mempool* pool, const uint8_t src_mac[6]) {
	*gen = (struct generator){.pool = pool, .flows = 1};
	if (pool->free_stack_top != pool->num_entries || pool->buf_size < sizeof(struct pkt_buf) + PACKET_MAX_SIZE) {
		fprintf(stderr, "generator: the mempool must be unused and hold %d byte packets\n", PACKET_MAX_SIZE);
		return -1;
	}
	struct pkt_buf** bufs = calloc(pool->num_entries, sizeof(*bufs));
	if (!bufs) {
		fprintf(stderr, "generator: out of memory\n");
		return -1;
	}
	uint8_t template[PACKET_SIZE];
	packet_build_template(template, src_mac);
	gen->header_sum = packet_header_sum(template);
	// Take every buffer at once (the pool hands a buffer out again right after it was freed), fill each, give
	// all back. Drivers only read the data of packets they send, so the template stays: later only the bytes that
	// change are rewritten. The payload beyond the template is zeros, up to the largest frame.
	uint32_t num_bufs = pkt_buf_alloc_batch(pool, bufs, pool->num_entries);
	for (uint32_t i = 0; i < num_bufs; i++) {
		memcpy(bufs[i]->data, template, PACKET_SIZE);
		memset(bufs[i]->data + PACKET_SIZE, 0, PACKET_MAX_SIZE - PACKET_SIZE);
		bufs[i]->size = PACKET_SIZE;
	}
	for (uint32_t i = 0; i < num_bufs; i++) {
		pkt_buf_free(bufs[i]);
	}
	free(bufs);
	generator_set_sizes(gen, &(struct frame_sizes){.mode = SIZE_FIXED, .min = PACKET_SIZE, .max = PACKET_SIZE});
	return 0;
}

void generator_set_sizes(struct generator* gen, const struct frame_sizes* sizes) {
	gen->sizes = *sizes;
	gen->next_size = sizes_next(&gen->sizes);
}

// Gives the buffer the frame size `size`: the length fields and the checksum, and zeros where the send time and
// sequence number of its last frame lay. Only when the size changes. Then every byte of the buffer after "ixy" is
// zero but the stamp of its current size: a shorter frame's old stamp would be inside a longer frame's payload, and
// a longer frame's old stamp (beyond a shorter frame) inside a later, longer one (590 -> 60 -> 1514).
static void resize(struct generator* gen, struct pkt_buf* buf, uint32_t size) {
	if (buf->size == size) {
		return;
	}
	memset(buf->data + buf->size - PACKET_TIME_FROM_END, 0, PACKET_TIME_FROM_END);
	packet_set_size(buf->data, size, gen->header_sum);
	buf->size = size;
}

uint32_t generator_send(struct generator* gen, struct ixy_device* dev, uint16_t queue, uint64_t now_ns,
			uint32_t max_packets, struct pacer* pacer) {
	struct pkt_buf* bufs[GENERATOR_BATCH_SIZE];
	if (max_packets > GENERATOR_BATCH_SIZE) {
		max_packets = GENERATOR_BATCH_SIZE;
	}
	uint64_t budget = pacer ? pacer_budget(pacer, now_ns) : UINT64_MAX;
	// The pool may be empty while all buffers wait in the TX ring; tx_batch is called anyway because it is also
	// where the driver takes sent buffers back.
	// No more buffers than the budget can take: a frame costs at least pacer_units(60).
	if (pacer && budget / pacer_units(pacer, PACKET_MIN_SIZE) + 1 < max_packets) {
		max_packets = (uint32_t)(budget / pacer_units(pacer, PACKET_MIN_SIZE) + 1);
	}
	uint32_t num_bufs = budget ? pkt_buf_alloc_batch(gen->pool, bufs, max_packets) : 0;
	// Packet n = sent + i: flow n mod flows, the flow's sequence number n / flows. One division per batch, then
	// counting; packet_flow_port's modulus is a constant (a multiplication). A buffer may hold another flow's
	// packet, so every one gets its port.
	uint32_t flow = (uint32_t)(gen->sent % gen->flows);
	uint32_t seq = gen->flows <= 1 ? gen->next_seq : (uint32_t)(gen->sent / gen->flows);
	uint64_t units = 0, unit_of[GENERATOR_BATCH_SIZE] = {0};
	uint32_t size_of[GENERATOR_BATCH_SIZE] = {0};
	// The size generator as it was before this batch: frames the TX queue refuses give their sizes back (below).
	struct frame_sizes sizes_before = gen->sizes;
	uint32_t next_size_before = gen->next_size;
	uint32_t num = 0;
	for (; num < num_bufs && units < budget; num++) {
		struct pkt_buf* buf = bufs[num];
		uint32_t size = gen->next_size;
		gen->next_size = sizes_next(&gen->sizes);
		resize(gen, buf, size);
		size_of[num] = size;
		if (gen->flows > 1) {
			packet_set_src_port(buf->data, packet_flow_port(flow));
		}
		packet_stamp_time(buf->data, size, now_ns);
		packet_put_le(buf->data + size - PACKET_SEQ_FROM_END, seq, 4);
		unit_of[num] = pacer ? pacer_units(pacer, size) : 1;
		units += unit_of[num];
		if (gen->flows <= 1 || ++flow == gen->flows) {
			flow = 0;
			seq++;
		}
	}
	uint32_t num_sent = ixy_tx_batch(dev, queue, bufs, num);
	for (uint32_t i = num_sent; i < num_bufs; i++) {
		pkt_buf_free(bufs[i]);
	}
	if (num_sent < num) {
		// Refused frames are sent again next batch with the same sequence numbers, and so with the same sizes:
		// the generator is advanced by the frames taken only, so that a seed gives the same sizes in the same
		// order however often the queue is full. Drawn again from the state before the batch (a few
		// multiplications per frame, only when the queue was full).
		gen->sizes = sizes_before;
		gen->next_size = next_size_before;
		for (uint32_t i = 0; i < num_sent; i++) {
			gen->next_size = sizes_next(&gen->sizes);
		}
	}
	for (uint32_t i = 0; i < num_sent; i++) {
		gen->bytes += size_of[i];
		if (pacer) {
			pacer_sent(pacer, unit_of[i]);
		}
	}
	gen->next_seq += num_sent;
	gen->sent += num_sent;
	gen->not_taken += num - num_sent;
	return num_sent;
}

static uint32_t send_generated(void* self, struct ixy_device* dev, uint16_t queue, uint64_t now_ns,
			       uint32_t max_packets, struct pacer* pacer) {
	return generator_send(self, dev, queue, now_ns, max_packets, pacer);
}

static uint64_t next_generated(const void* self, const struct pacer* pacer) {
	(void)self;
	return pacer ? pacer_next_ns(pacer) : 0;
}

const struct sender_ops generator_sender = {.send = send_generated, .next_ns = next_generated};
