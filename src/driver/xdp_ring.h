// AF_XDP's rings as ixy's side sees them (xdp_ring.c), apart from the sockets and the XDP program (xdp.c), so that
// tests can feed them any contents (test/fuzz/fuzz_xdp_rings.c).
//
// An AF_XDP socket shares four single-producer, single-consumer rings with the kernel (Linux
// Documentation/networking/af_xdp.rst): ixy produces into the fill ring (empty frames for the kernel to receive
// into) and the TX ring (frames to send); the kernel produces into the RX ring (frames it filled) and the completion
// ring (frames it sent). Each ring is an array of a power of two entries with a producer and a consumer index that
// run freely (they wrap at 2^32, and entry i lives at i & (size - 1)).
//
// All frames are in the UMEM, the memory the socket registered. A queue uses only its slice of it (struct xsk_slice):
// ixy lays a mempool over each slice (memory_mempool_in), one pkt_buf per frame, so that what the kernel received is
// handed to the app as it is, without a copy.
//
// Everything the kernel writes is untrusted: its producer and consumer indices are bounded by the ring size, and a
// descriptor is taken only if it names a frame of the queue's slice that this socket gave the kernel through the
// matching ring (fill for RX, TX for completion), at the offset where the kernel puts packets, with a length the frame
// holds. Anything else is counted as bad and dropped, and the frame stays where ixy last gave it.
#ifndef IXY_XDP_RING_H
#define IXY_XDP_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ixy/memory.h>

// A UMEM frame: 2 KiB, aligned (the kernel's aligned chunk mode). The kernel puts a packet XDP_PACKET_HEADROOM (256,
// linux/bpf.h) bytes into its frame (the UMEM is registered with no extra headroom); the frame's pkt_buf lies just
// before that, so that its data is the packet. A frame holds 2048 - 256 = 1792 bytes of packet.
#define XSK_FRAME_SIZE 2048u
#define XSK_PACKET_OFFSET 256u
#define XSK_BUF_OFFSET (XSK_PACKET_OFFSET - 64u)
#define XSK_MAX_PACKET (XSK_FRAME_SIZE - XSK_PACKET_OFFSET)

// One ring as mapped (xdp.c maps it; a test may point it at any memory).
struct xsk_ring {
	uint32_t* producer;
	uint32_t* consumer;
	uint32_t* flags; // XDP_RING_NEED_WAKEUP (linux/if_xdp.h): the kernel wants a system call to go on
	void* descs;     // uint64_t frame addresses (fill, completion) or struct xdp_desc (RX, TX)
	uint32_t size;   // entries, a power of two
	uint32_t head;   // ixy's own index: producer of fill and TX, consumer of RX and completion
	void* map;       // the mapping the above lie in, and its length (xdp.c unmaps it)
	size_t map_len;
};

// A slice of the UMEM: a pool whose buffers are its frames, and where each frame is. Queue i of every AF_XDP device of
// the process uses slice i, and nothing else of the UMEM (xdp.c): the queues of one index run in one thread
// (ixy-fwd forwards queue i of each device to queue i of the other), those of other indices may run in others, and
// a pool has no lock (ixy/memory.h).
struct xsk_slice {
	struct mempool* pool; // buffer i is frame i of the slice; pool->dma.virt is where the slice begins
	uint64_t offset;      // of the slice in the UMEM (whole frames): ring addresses are offsets in the UMEM
	uint32_t num_frames;
	// Per frame: 0 while ixy (the pool or the app) has it; else the socket that gave it to the kernel, as
	// XSK_HELD(slot, tx). Sockets sharing the UMEM have slots 1, 2, ...
	uint16_t* held;
};
#define XSK_HELD(slot, tx) ((uint16_t)((slot) << 1 | (tx)))

// What a socket counted since it opened: these only grow (read_stats keeps what it saw last; xdp.c). The queue's
// thread stores them with relaxed atomic stores, read_stats may load them from another thread.
struct xsk_counters {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
	uint64_t tx_copied;  // packets copied into a UMEM frame to be sent (their buffer was not one)
	uint64_t tx_dropped; // packets freed unsent: larger than a frame holds
	uint64_t bad;        // descriptors (RX, completion) and indices the kernel side got wrong
};

// One socket's side of the rings. Each starts a cache line of its own (the _Alignas below, 64 bytes: driver.h's
// IXY_CACHE_LINE): queue i and i + 1 may be two threads', and neither's writes may take the other's line away.
struct xsk_queue {
	struct xsk_ring fill, completion, rx, tx;
	struct xsk_slice* slice;
	uint16_t slot;
	_Alignas(64) struct xsk_counters counters; // (aligns the struct; the counters' line is the queue's too)
};

// Receives up to num_bufs packets: the pkt_bufs of the frames the kernel filled. Then refills the fill ring.
uint32_t xsk_rx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs);
// Takes back the frames the kernel sent, then queues up to num_bufs packets for sending; returns how many it took.
// A buffer of the queue's slice is sent as it is; any other is copied into a free frame of the slice and freed.
uint32_t xsk_tx(struct xsk_queue* q, struct pkt_buf* bufs[], uint32_t num_bufs);
// Puts free frames into the fill ring, as many as fit.
void xsk_refill(struct xsk_queue* q);
// The kernel asks for a system call before it goes on with the ring (the need_wakeup flag).
bool xsk_needs_wakeup(const struct xsk_ring* ring);
// After the socket is closed: every frame it gave the kernel goes back to the slice's pool.
void xsk_take_back(struct xsk_queue* q);

#endif
