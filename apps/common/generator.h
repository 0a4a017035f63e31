// The sending side of ixy-pktgen.
//
// All buffers of a mempool are filled once with the packet template (packet.h). Each send step then takes a batch
// of buffers from the pool, writes into each only the bytes that change (the sequence number and the send time, the
// UDP source port for more than one flow, and when its size differs from the buffer's last one the length fields
// and the IPv4 checksum) and hands the batch to a TX queue. The driver returns the buffers to the pool once the NIC
// has sent them, so a buffer is never rewritten while the NIC may still read it.
#ifndef IXY_APPS_GENERATOR_H
#define IXY_APPS_GENERATOR_H

#include <stdint.h>

#include <ixy/ixy.h>

#include "pacing.h"
#include "sizes.h"

#define GENERATOR_BATCH_SIZE 64

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
};

// Writes the template with src_mac into every buffer of pool, which must have all its buffers free and room for
// PACKET_MAX_SIZE bytes. Returns 0, or -1 with a message.
int generator_init(struct generator* gen, struct mempool* pool, const uint8_t src_mac[6]);

// Sets the sizes (seed included) of the frames to come.
void generator_set_sizes(struct generator* gen, const struct frame_sizes* sizes);

// Sends one batch of up to max_packets (at most GENERATOR_BATCH_SIZE) packets on the TX queue, each stamped with
// send time now_ns; returns how many the queue took. With a pacer, only the frames the pacer's budget allows at
// now_ns (pacer_budget), counted as sent to it. Sequence numbers on the wire stay gapless: packets the queue refuses
// go back to the pool and their numbers go to the next batch.
uint32_t generator_send(struct generator* gen, struct ixy_device* dev, uint16_t queue, uint64_t now_ns,
			uint32_t max_packets, struct pacer* pacer);

#endif
