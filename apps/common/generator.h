// The sending side of ixy-pktgen.
//
// All buffers of a mempool are filled once with the packet template (packet.h). Each send step then takes a batch
// of buffers from the pool, writes the next sequence numbers into them (the only bytes that change, with the UDP
// source port for more than one flow) and hands the batch to a TX queue. The driver returns the buffers to the pool
// once the NIC has sent them, so a buffer is never rewritten while the NIC may still read it.
#ifndef IXY_APPS_GENERATOR_H
#define IXY_APPS_GENERATOR_H

#include <stdint.h>

#include <ixy/ixy.h>

#define GENERATOR_BATCH_SIZE 64

struct generator {
	struct mempool* pool;
	uint32_t next_seq;  // sequence number of the next packet the TX queue takes; wraps at 2^32
	uint64_t sent;      // packets the TX queue took
	uint64_t not_taken; // packets stamped but refused by a full TX queue; their numbers were used again
	// Flows (ixy-pktgen --flows; generator_init sets 1): packet n of those the TX queue took (n = sent at the time,
	// from 0) belongs to flow n mod flows, has that flow's UDP source port (packet_flow_port in packet.h: 42, 87,
	// 132, ...) and the flow's own sequence number n / flows (wrapping at 2^32), so that a checker finds loss and
	// reordering per flow (one flow per source port), and a NIC's RSS spreads the flows over its queues. With one
	// flow, the sequence number is next_seq, as always.
	uint32_t flows;
};

// Writes the template with src_mac into every buffer of pool, which must have all its buffers free.
// Returns 0, or -1 with a message.
int generator_init(struct generator* gen, struct mempool* pool, const uint8_t src_mac[6]);

// Sends one batch of up to GENERATOR_BATCH_SIZE packets on the TX queue; returns how many the queue took.
// Sequence numbers on the wire stay gapless: packets the queue refuses go back to the pool and their numbers
// go to the next batch.
uint32_t generator_send(struct generator* gen, struct ixy_device* dev, uint16_t queue);

#endif
