// ixy-pktgen --replay <file.pcap> (issue 30): sends a pcap file's frames, in order and byte for byte.
//
// replay_open reads and checks the whole file (pcap_read.h) before any device is taken. replay_load then copies
// the frames into DMA buffers of a mempool of their own, once: the send loop does no file I/O and no copy. Buffer j
// holds frame j mod frames; with fewer than REPLAY_MIN_BUFFERS frames each frame gets several buffers (copies), so
// that a looping replay never waits for a TX ring that gives buffers back only in batches. Position p of the
// replay (p = 0, 1, 2, ...; frame p mod frames) is sent from buffer p mod buffers, once the TX ring has given that
// buffer back (the send step takes back all the pool holds, marking them ready).
//
// Timing: at --rate (the pacer, pacing.h), at the file's own timing (--replay-timing: frame p is due at the time of
// its record since the first, plus one pass per loop; a pass lasts from the first record to the last plus their mean
// gap), or as fast as the NIC takes them. Without --loop the file is sent once. --replay-timing --loop refuses a
// file whose records span no time (one record, or all at the same time): its passes would all be due at once.
#ifndef IXY_APPS_REPLAY_H
#define IXY_APPS_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <ixy/ixy.h>

#include "pacing.h"
#include "pcap_read.h"

#define REPLAY_MIN_BUFFERS 2048
#define REPLAY_BATCH_SIZE 64

struct replay {
	bool loop, timing;
	uint32_t frames;  // in the file
	uint32_t buffers; // in the pool: frames * copies
	uint8_t* file;    // the file's bytes until replay_load
	struct pcap_frame* parsed;
	uint64_t* due_ns; // per frame: its time since the first record
	uint64_t pass_ns; // one pass of the file (--replay-timing with --loop)
	struct mempool* pool;
	struct pkt_buf** bufs; // by index in the pool (mempool_idx): buffer j holds frame j mod frames
	bool* ready;           // buffer j is held here, not in the TX ring
	uint64_t start_ns;     // the time of the first send (--replay-timing)
	uint64_t position;     // frames the TX queue took: the next is position mod frames
	uint64_t bytes;        // their bytes
	uint64_t not_taken;    // frames a full TX queue refused (sent again)
};

// Reads and checks path. Returns 0, or -1 after one line on stderr ("ixy-pktgen: <path>: <problem>").
int replay_open(struct replay* replay, const char* path, bool loop, bool timing);

// The buffers replay_load allocates (for the huge page check before the device is taken).
static inline uint32_t replay_buffers(const struct replay* replay) {
	return replay->buffers;
}

// Allocates the pool and copies the frames into it; frees the file's bytes. Returns 0, or -1 with a message.
int replay_load(struct replay* replay);

// Sends one batch of up to max_packets frames due at now_ns (see above); returns how many the queue took.
uint32_t replay_send(struct replay* replay, struct ixy_device* dev, uint16_t queue, uint64_t now_ns,
		     uint32_t max_packets, struct pacer* pacer);

// When the next frame is due: 0 if now, UINT64_MAX when all is sent (no --loop).
uint64_t replay_next_ns(const struct replay* replay, const struct pacer* pacer);

// Buffers held here or back in the pool (after the device stopped: all of them, unless one leaked).
uint32_t replay_free_buffers(const struct replay* replay);

void replay_free(struct replay* replay);

#endif
