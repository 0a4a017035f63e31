// The sending side of ixy-pktgen.
//
// All buffers of a mempool are filled once with the packet template (packet.h). Each send step then takes a batch
// of buffers from the pool, writes into each only the bytes that change (the sequence number and the send time; for
// more than one flow the UDP ports and the flow's number, and where the flows' addresses differ those and the IPv4
// checksum; over IPv6 the UDP checksum; and when its size differs from the buffer's last one the length fields and
// the IPv4 checksum) and hands the batch to a TX queue. The template is the spec's (common/flows.h, issue 37). The
// driver returns the buffers to the pool once the NIC has sent them, so a buffer is never rewritten while the NIC may
// still read it.
#ifndef IXY_APPS_GENERATOR_H
#define IXY_APPS_GENERATOR_H

#include <stdint.h>

#include <ixy/ixy.h>

#include "flows.h"
#include "pacing.h"
#include "sizes.h"

#define GENERATOR_BATCH_SIZE 64
#define GENERATOR_MAX_FLOWS 1024 // as ARG_MAX_FLOWS

// What a frame of a flow gets written when the buffer may have held another flow's (issue 37): fixed at the start.
struct generator_flow {
	uint8_t src_ip[16], dst_ip[16]; // IPv4: the first 4 bytes
	uint8_t ports[4];               // UDP source and destination port, big-endian
	uint8_t number[2];              // the flow's number (flows.h), little-endian
	uint32_t ip_sum;                // IPv4: packet_header_sum of the flow's header
	uint32_t udp_sum;               // IPv6: spec_udp6_sum of the flow's frame
};

struct generator {
	struct mempool* pool;
	uint32_t next_seq;  // sequence number of the next packet the TX queue takes; wraps at 2^32
	uint64_t sent;      // packets the TX queue took
	uint64_t bytes;     // their bytes (without FCS)
	uint64_t not_taken; // packets stamped but refused by a full TX queue; their numbers were used again
	// Flows (ixy-pktgen --flows; generator_init sets 1): packet n of those the TX queue took (n = sent at the time,
	// from 0) belongs to flow n mod flows, has that flow's UDP source port (packet_flow_port in packet.h: 42, 87,
	// 132, ...) and the flow's own sequence number n / flows (wrapping at 2^32), so that a checker finds loss and
	// reordering per flow (one flow per source port), and a NIC's RSS spreads the flows over its queues. With one
	// flow, the sequence number is next_seq, as always.
	uint32_t flows;
	// Sizes (ixy-pktgen --size; generator_init sets 60): next_size is drawn before it is needed, so that pacing by
	// wire bits knows the next frame's cost. A size drawn for a frame a full TX queue refused is not drawn again.
	struct frame_sizes sizes;
	uint32_t next_size;
	uint32_t header_sum; // packet_header_sum of the template
	// Addresses, tag and family (issue 37; generator_init_spec): the form of the frames, and per flow of this
	// generator (flow j is flow first + j * stride of all, ixy-pktgen --queues) what differs from flow to flow.
	// vary_ips: the flows' IP addresses differ (written per frame, with the IPv4 checksum).
	struct packet_form form;
	bool vary_ips;
	uint64_t end_frames; // end markers the TX queue took (generator_send_end)
	struct generator_flow flow[GENERATOR_MAX_FLOWS];
};

// Writes the template with src_mac into every buffer of pool, which must have all its buffers free and room for
// PACKET_MAX_SIZE bytes. Returns 0, or -1 with a message.
int generator_init(struct generator* gen, struct mempool* pool, const uint8_t src_mac[6]);

// generator_init for frames of spec: flow j of the generator is flow first + j * stride of the spec (flows.h), for j
// up to GENERATOR_MAX_FLOWS; the template in every buffer is flow `first`'s, of form.min_size bytes. Set gen->flows
// afterwards; sizes below form.min_size are the caller's to refuse.
int generator_init_spec(struct generator* gen, struct mempool* pool, const struct packet_spec* spec,
			const uint8_t src_mac[6], uint32_t first, uint32_t stride);

// Sends (one batch of) the FLOWS_END_REPEAT end markers (flows.h) of each of the generator's flows, carrying the
// number of frames the flow sent; end_frames counts those the TX queue took. Returns how many are still to send
// (call again, e.g. after the NIC had time to send). No frame may be generated afterwards.
uint32_t generator_send_end(struct generator* gen, struct ixy_device* dev, uint16_t queue);

// Sets the sizes (seed included) of the frames to come.
void generator_set_sizes(struct generator* gen, const struct frame_sizes* sizes);

// Sends one batch of up to max_packets (at most GENERATOR_BATCH_SIZE) packets on the TX queue, each stamped with
// send time now_ns; returns how many the queue took. With a pacer, only the frames the pacer's budget allows at
// now_ns (pacer_budget), counted as sent to it. Sequence numbers on the wire stay gapless: packets the queue refuses
// go back to the pool and their numbers go to the next batch.
uint32_t generator_send(struct generator* gen, struct ixy_device* dev, uint16_t queue, uint64_t now_ns,
			uint32_t max_packets, struct pacer* pacer);

#endif
