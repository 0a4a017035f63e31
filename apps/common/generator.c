// Packet generator step of ixy-pktgen (see generator.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "packet.h"
#include "sender.h"

int generator_init(struct generator* gen, struct mempool* pool, const uint8_t src_mac[6]) {
	struct packet_spec spec;
	spec_default(&spec);
	return generator_init_spec(gen, pool, &spec, src_mac, 0, 1);
}

// The per-flow table: what spec_build writes for flow first + j * stride that differs between flows.
static void init_flows(struct generator* gen, const struct packet_spec* spec, const uint8_t src_mac[6], uint32_t first,
		       uint32_t stride) {
	uint8_t frame[PACKET_MAX_SIZE];
	const struct packet_form* form = &gen->form;
	for (uint32_t j = 0; j < GENERATOR_MAX_FLOWS; j++) {
		struct generator_flow* f = &gen->flow[j];
		*f = (struct generator_flow){0}; // IPv4: the addresses' last 12 bytes stay 0 (compared below)
		spec_build(frame, spec, form, src_mac, first + j * stride);
		uint32_t ip_bytes = form->ipv6 ? 16 : 4, ip_at = form->l3 + (form->ipv6 ? 8 : 12);
		memcpy(f->src_ip, frame + ip_at, ip_bytes);
		memcpy(f->dst_ip, frame + ip_at + ip_bytes, ip_bytes);
		memcpy(f->ports, frame + form->l4, 4);
		memcpy(f->number, frame + form->payload + FLOWS_NUMBER, 2);
		f->ip_sum = form->ipv6 ? 0 : packet_header_sum(frame + form->l3 - PACKET_IPV4_HEADER_OFFSET);
		f->udp_sum = form->ipv6 ? spec_udp6_sum(frame, form) : 0;
		gen->vary_ips = gen->vary_ips || memcmp(f->src_ip, gen->flow[0].src_ip, 16) != 0 ||
				memcmp(f->dst_ip, gen->flow[0].dst_ip, 16) != 0;
	}
}

int generator_init_spec(struct generator* gen, struct mempool* pool, const struct packet_spec* spec,
			const uint8_t src_mac[6], uint32_t first, uint32_t stride) {
	gen->pool = pool;
	gen->flows = 1;
	gen->next_seq = 0;
	gen->sent = gen->bytes = gen->not_taken = gen->end_frames = 0;
	gen->vary_ips = false;
	if (pool->free_stack_top != pool->num_entries || pool->buf_size < sizeof(struct pkt_buf) + PACKET_MAX_SIZE) {
		fprintf(stderr, "generator: the mempool must be unused and hold %d byte packets\n", PACKET_MAX_SIZE);
		return -1;
	}
	struct pkt_buf** bufs = calloc(pool->num_entries, sizeof(*bufs));
	if (!bufs) {
		fprintf(stderr, "generator: out of memory\n");
		return -1;
	}
	spec_form(spec, &gen->form);
	init_flows(gen, spec, src_mac, first, stride);
	uint32_t size = gen->form.min_size;
	uint8_t template[PACKET_MAX_SIZE];
	spec_build(template, spec, &gen->form, src_mac, first);
	gen->header_sum = gen->flow[0].ip_sum;
	// Take every buffer at once (the pool hands a buffer out again right after it was freed), fill each, give
	// all back. Drivers only read the data of packets they send, so the template stays: later only the bytes that
	// change are rewritten. The payload beyond the template is zeros, up to the largest frame.
	uint32_t num_bufs = pkt_buf_alloc_batch(pool, bufs, pool->num_entries);
	for (uint32_t i = 0; i < num_bufs; i++) {
		memcpy(bufs[i]->data, template, size);
		memset(bufs[i]->data + size, 0, PACKET_MAX_SIZE - size);
		bufs[i]->size = size;
	}
	for (uint32_t i = 0; i < num_bufs; i++) {
		pkt_buf_free(bufs[i]);
	}
	free(bufs);
	generator_set_sizes(gen, &(struct frame_sizes){.mode = SIZE_FIXED, .min = size, .max = size});
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
// The caller checks buf->size != size (the common case is inline; this is not).
static void resize(struct generator* gen, struct pkt_buf* buf, uint32_t size) {
	memset(buf->data + buf->size - PACKET_TIME_FROM_END, 0, PACKET_TIME_FROM_END);
	const struct packet_form* form = &gen->form;
	if (form->l3 == PACKET_IPV4_HEADER_OFFSET && !form->ipv6) {
		packet_set_size(buf->data, size, gen->header_sum);
	} else { // the same fields where the tag or IPv6 puts them
		uint8_t* ip = buf->data + form->l3;
		uint32_t length = form->ipv6 ? size - form->l4 : size - form->l3;
		ip[form->ipv6 ? 4 : 2] = (uint8_t)(length >> 8);
		ip[form->ipv6 ? 5 : 3] = (uint8_t)length;
		if (!form->ipv6) {
			uint16_t checksum = (uint16_t)~fold_sum((uint64_t)gen->header_sum + length);
			ip[10] = (uint8_t)(checksum >> 8);
			ip[11] = (uint8_t)checksum;
		}
		buf->data[form->l4 + 4] = (uint8_t)((size - form->l4) >> 8);
		buf->data[form->l4 + 5] = (uint8_t)(size - form->l4);
	}
	buf->size = size;
}

// A flow's fields into a buffer that may have held another flow's frame: ports and number; with addresses that
// differ between flows also those, and the IPv4 header checksum (the sum of the flow's header and the total length).
// checksums: gen->vary_ips may be true (else it is false).
static inline void set_flow(const struct generator* gen, uint8_t* pkt, const struct generator_flow* f, uint32_t size,
			    bool checksums) {
	const struct packet_form* form = &gen->form;
	memcpy(pkt + form->l4, f->ports, 4);
	memcpy(pkt + form->payload + FLOWS_NUMBER, f->number, 2);
	if (checksums && gen->vary_ips && form->ipv6) { // (constant sizes: inline copies)
		memcpy(pkt + form->l3 + 8, f->src_ip, 16);
		memcpy(pkt + form->l3 + 24, f->dst_ip, 16);
	} else if (checksums && gen->vary_ips) {
		memcpy(pkt + form->l3 + 12, f->src_ip, 4);
		memcpy(pkt + form->l3 + 16, f->dst_ip, 4);
		uint16_t checksum = (uint16_t)~fold_sum((uint64_t)f->ip_sum + size - form->l3);
		pkt[form->l3 + 10] = (uint8_t)(checksum >> 8);
		pkt[form->l3 + 11] = (uint8_t)checksum;
	}
}

// What fill_batch fills.
struct fill {
	struct pkt_buf** bufs;
	uint32_t num_bufs;
	uint64_t budget, now_ns;
	struct pacer* pacer;
	uint64_t* unit_of;
	uint32_t* size_of;
};

// Writes the frames of a batch (generator_send) until the buffers or the pacer's budget end; returns how many.
// checksums: the flows' addresses or the IPv6 UDP checksum are written per frame.
static inline __attribute__((always_inline)) uint32_t fill_batch(struct generator* gen, const struct fill* f,
								 uint32_t flow, uint32_t seq, const bool checksums) {
	uint64_t units = 0;
	uint32_t num = 0;
	for (; num < f->num_bufs && units < f->budget; num++) {
		struct pkt_buf* buf = f->bufs[num];
		uint32_t size = gen->next_size;
		gen->next_size = sizes_next(&gen->sizes);
		if (buf->size != size) {
			resize(gen, buf, size);
		}
		f->size_of[num] = size;
		if (gen->flows > 1) {
			set_flow(gen, buf->data, &gen->flow[flow], size, checksums);
		}
		packet_stamp_time(buf->data, size, f->now_ns);
		packet_put_le(buf->data + size - PACKET_SEQ_FROM_END, seq, 4);
		if (checksums && gen->form.ipv6) {
			spec_udp6_checksum(buf->data, &gen->form, size, gen->flow[flow].udp_sum, f->now_ns, seq);
		}
		f->unit_of[num] = f->pacer ? pacer_units(f->pacer, size) : 1;
		units += f->unit_of[num];
		if (gen->flows <= 1 || ++flow == gen->flows) {
			flow = 0;
			seq++;
		}
	}
	return num;
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
	uint64_t unit_of[GENERATOR_BATCH_SIZE] = {0};
	uint32_t size_of[GENERATOR_BATCH_SIZE] = {0};
	// The size generator as it was before this batch: frames the TX queue refuses give their sizes back (below).
	struct frame_sizes sizes_before = gen->sizes;
	uint32_t next_size_before = gen->next_size;
	// Two copies of the loop: the default's (one flow or ports only, IPv4) and one with the checksums that follow
	// each frame; inlined with a constant, so that the default's frame costs what it did before issue 37.
	struct fill fill = {bufs, num_bufs, budget, now_ns, pacer, unit_of, size_of};
	uint32_t num = gen->form.ipv6 || gen->vary_ips ? fill_batch(gen, &fill, flow, seq, true)
						       : fill_batch(gen, &fill, flow, seq, false);
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

uint32_t generator_send_end(struct generator* gen, struct ixy_device* dev, uint16_t queue) {
	uint32_t total = gen->flows * FLOWS_END_REPEAT, taken = (uint32_t)gen->end_frames;
	struct pkt_buf* bufs[GENERATOR_BATCH_SIZE];
	uint32_t n = total - taken < GENERATOR_BATCH_SIZE ? total - taken : GENERATOR_BATCH_SIZE;
	n = pkt_buf_alloc_batch(gen->pool, bufs, n);
	for (uint32_t i = 0; i < n; i++) {
		// Marker k of flow j (the markers of all flows in turn, then again): the flow's count in the send time
		// field, its sequence numbers continued.
		uint32_t k = taken + i, j = k % gen->flows, repeat = k / gen->flows;
		uint64_t count = gen->sent / gen->flows + (j < gen->sent % gen->flows);
		uint32_t size = gen->form.min_size, seq = (uint32_t)count + repeat;
		uint8_t* pkt = bufs[i]->data;
		if (bufs[i]->size != size) {
			resize(gen, bufs[i], size);
		}
		set_flow(gen, pkt, &gen->flow[j], size, true);
		pkt[gen->form.payload + FLOWS_NUMBER + 1] |= FLOWS_END >> 8;
		packet_stamp_time(pkt, size, count);
		packet_put_le(pkt + size - PACKET_SEQ_FROM_END, seq, 4);
		if (gen->form.ipv6) { // the flag's byte is the low byte of its word (the payload starts even)
			spec_udp6_checksum(pkt, &gen->form, size, gen->flow[j].udp_sum + (FLOWS_END >> 8), count, seq);
		}
	}
	uint32_t sent = ixy_tx_batch(dev, queue, bufs, n);
	for (uint32_t i = sent; i < n; i++) {
		pkt_buf_free(bufs[i]);
	}
	gen->end_frames += sent;
	return total - taken - sent;
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
