// The two senders of ixy-pktgen behind one set of operations, chosen once at its start: the generator (generated
// frames, generator.h) and the replay of a pcap file (--replay, replay.h).
#ifndef IXY_APPS_SENDER_H
#define IXY_APPS_SENDER_H

#include <stdint.h>

#include <ixy/ixy.h>

#include "pacing.h"

struct sender_ops {
	// Sends one batch of at most max_packets frames due at now_ns (with a pacer: those its budget allows); returns
	// how many the TX queue took.
	uint32_t (*send)(void* self, struct ixy_device* dev, uint16_t queue, uint64_t now_ns, uint32_t max_packets,
			 struct pacer* pacer);
	// When the next frame is due: 0 if now, UINT64_MAX when there is nothing more to send.
	uint64_t (*next_ns)(const void* self, const struct pacer* pacer);
};

// What the totals line reports of a sender.
struct sender_totals {
	uint64_t sent, bytes, not_taken;
	uint32_t next_seq, pool_free, pool_size;
};

extern const struct sender_ops generator_sender; // self: struct generator
extern const struct sender_ops replay_sender;    // self: struct replay

#endif
