// A software model of a VirtIO network device (VirtIO 1.0, OASIS) for testing ixy's VirtIO driver without a VM.
//
// The driver (src/driver/virtio.c) reaches a device through one of the two transports of src/driver
// (virtio_transport.h), and they reach the model as they reach a device: the modern one (virtio_modern.c) walks the
// VirtIO capabilities in the model's PCI configuration space and loads and stores the structures they point at in
// its memory BARs (model.c passes both on: config_space, mmio_read/mmio_write); the legacy one (virtio_legacy.c)
// reads and writes the registers of its IO-port BAR0 (ixy_seam_io_*, test/seam/seam_io.h). Where the capabilities
// and structures are is a layout (model_virtio_set_layout; environment IXY_MODEL_VIRTIO_LAYOUT). The model
// - decodes the registers of both interfaces at their offsets in the specification (4.1.4.3, 4.1.4.4, 4.1.4.8),
//   and checks that each field is accessed with its width (4.1.3.1) and each queue notified at its address;
// - keeps the device status and checks the order of the initialisation (3.1.1; legacy 3.1.2): ACKNOWLEDGE,
//   DRIVER, reading and writing the features, FEATURES_OK (modern), the queues, DRIVER_OK; no status bit cleared
//   except by a reset; features accepted that were not offered; VERSION_1 not accepted on the modern interface;
// - keeps the queue addresses the driver gives it (legacy: from the page number, with the layout of 2.4.2) and
//   checks them (live DMA memory, alignment 2.4);
// - lets the test act as the device on the split virtqueues in the driver's DMA memory (device address ==
//   virtual address in test builds, test/seam): take chains from the available ring, write frames into RX chains,
//   read TX chains (the "wire"), and put used entries, also wrong ones (a length beyond the buffer, an id the
//   driver never offered, a used index that jumps);
// - with VIRTIO_F_RING_PACKED (offered only when a test asks) does the same on packed virtqueues (VirtIO 1.2, 2.8):
//   the three queue addresses are the descriptor ring and the driver's and device's event suppression areas
//   (aligned to 16, 4, 4, 2.8.10.1); the device walks available descriptors in ring order with its wrap counter,
//   takes chains by buffer id, writes used descriptors at its used position (AVAIL = USED = its used wrap counter)
//   and skips the chain's descriptors; the test can also write used descriptors no correct device writes (wrong
//   wrap bits, ahead of the position). It checks the driver's descriptors: wrap bits that fit neither lap, or
//   flags written over a used descriptor that still leave it unavailable (the driver's wrap counter is wrong), a
//   buffer id the device still holds, more descriptors than the ring has, a chain running into descriptors not
//   available, indirect descriptors; and 32 bit notifications (VIRTIO_F_NOTIFICATION_DATA is never offered);
// - asks for notifications as the knobs say (split: VRING_USED_F_NO_NOTIFY, with VIRTIO_RING_F_EVENT_IDX
//   avail_event, 2.7.10; packed: its event suppression area, 2.8.14) and tells whether the driver owes it one (a
//   driver that does not kick when asked leaves its TX frames unseen); reads the driver's side (split: the
//   available ring's flags or used_event; packed: the driver's area) to say whether its next used buffer would
//   interrupt, and interrupts (MSI-X, when the driver set a vector) on model_virtio_signal;
// - checks that every RX and TX chain follows the negotiated layout: with VERSION_1 or ANY_LAYOUT one descriptor
//   holding header and frame (ixy's choice; the spec allows any split), without them the header in a descriptor of
//   its own, then the frame (2.6.4);
// - answers the control queue at once when notified (as QEMU does): promiscuous mode, the MAC address, and with
//   VIRTIO_NET_F_MQ / VIRTIO_NET_F_RSS the queue pairs in use and the RSS configuration (VirtIO 1.2, 5.1.6.5.6,
//   5.1.6.5.7), each checked field by field; with RSS it puts each received frame on the queue the indirection
//   table names for its Toeplitz hash (computed by the model itself, not src/rss.c);
// - can change the MAC address while the driver reads it (model_virtio_change_mac_during_read) and refuse
//   FEATURES_OK (model_virtio_refuse_features); the capabilities can be broken byte by byte.
// A driver mistake is a violation (model.h). Section numbers refer to the VirtIO 1.0 specification.
//
// What it leaves out: interrupts of its own accord (only model_virtio_signal raises one; the ISR reads 0), in-order
// completion (VIRTIO_F_IN_ORDER), packed buffer ids at or above the queue size, chains longer than 8 descriptors on
// packed rings, a driver's wrap bits that are wrong yet look like a stale descriptor of the last lap (a slot that
// held the tail of a chain), mergeable RX buffers, offloads,
// IPv6 hashing, the hash report, automatic steering by TX queue (queue 0 without RSS), indirect descriptors, the MSI-X
// table and the PCI configuration access capability's window (the capability is there, the driver does not use it).
#ifndef IXY_TEST_VIRTIO_MODEL_H
#define IXY_TEST_VIRTIO_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define MODEL_VIRTIO_VENDOR_ID 0x1af4
#define MODEL_VIRTIO_NET_TRANSITIONAL 0x1000 // 4.1.2.3: legacy interface, usually the modern one too
#define MODEL_VIRTIO_NET_MODERN 0x1041       // 4.1.2.1: 0x1040 + device type 1 (network)
// Queues (5.1.2): receiveqN is virtqueue 2(N-1), transmitqN 2(N-1)+1, the control queue follows the last pair: with
// one pair (neither MQ nor RSS negotiated) 0 receives, 1 transmits, 2 is the control queue.
#define MODEL_VIRTIO_MAX_PAIRS 8 // the most queue pairs the model has room for
#define MODEL_VIRTIO_MAX_QUEUES (2 * MODEL_VIRTIO_MAX_PAIRS + 1)
#define MODEL_VIRTIO_RX 0
#define MODEL_VIRTIO_TX 1
#define MODEL_VIRTIO_CTRL 2 // with one pair; model_virtio_ctrl_queue() in general
// Multiqueue (VirtIO 1.2, 5.1.3): more than one pair with automatic steering, and receive side scaling.
#define MODEL_VIRTIO_F_MQ (1ull << 22)
#define MODEL_VIRTIO_F_RSS (1ull << 60)
#define MODEL_VIRTIO_MAX_RSS_TABLE 1024 // the longest indirection table the model takes

// Which transports the device has.
enum model_virtio_kind {
	MODEL_VIRTIO_MODERN_ONLY, // device 0x1041: only the modern interface (QEMU behind a PCIe root port)
	MODEL_VIRTIO_BOTH,        // device 0x1000 with the modern interface too (QEMU's default on i440FX)
	MODEL_VIRTIO_LEGACY_ONLY, // device 0x1000 without modern capabilities (VirtualBox, disable-modern=on)
};

// Features the model offers unless told otherwise (model_virtio_offer): those ixy uses and some it must not accept
// (checksum offloads, mergeable RX buffers); the legacy interface shows only bits 0..31.
#define MODEL_VIRTIO_DEFAULT_FEATURES                                                                                  \
	((1ull << 0) | (1ull << 1) | (1ull << 5) | (1ull << 15) | (1ull << 16) | (1ull << 17) | (1ull << 18) |         \
	 (1ull << 23) | (1ull << 32))

// Not offered by default: a legacy device offers it (QEMU does) to let the driver put the net header in front of the
// frame in one descriptor (2.6.4, 5.1.6.6); without it (VirtualBox) the header has a descriptor of its own.
#define MODEL_VIRTIO_F_ANY_LAYOUT (1ull << 27)
// Not offered by default either (VirtIO 1.2, 6): event indices on split rings (2.7.7, 2.7.10) and packed
// virtqueues (2.8) with their event suppression areas (2.8.10, 2.8.14). Offer them with model_virtio_offer.
#define MODEL_VIRTIO_F_EVENT_IDX (1ull << 29)
#define MODEL_VIRTIO_F_RING_PACKED (1ull << 34)
// The flags of a packed descriptor (2.8.1, 2.8.6), for tests that write used descriptors of their own.
#define MODEL_VIRTIO_DESC_F_NEXT 1
#define MODEL_VIRTIO_DESC_F_WRITE 2
#define MODEL_VIRTIO_DESC_F_AVAIL (1u << 7)
#define MODEL_VIRTIO_DESC_F_USED (1u << 15)

struct model_virtio;

// Where the modern interface's capabilities and structures are (4.1.4).
enum model_virtio_layout {
	MODEL_VIRTIO_LAYOUT_QEMU,  // QEMU's: all in BAR4, a page each, notify_off_multiplier 4 (the default)
	MODEL_VIRTIO_LAYOUT_SPLIT, // each structure in a BAR of its own (1, 2, 5), listed backwards behind
				   // capabilities to pass over (another ID, PCI_CFG, a reserved BAR, too short),
				   // reserved pointer bits set, a second common configuration after the first,
				   // multiplier 0
	MODEL_VIRTIO_LAYOUT_PAGE_PER_QUEUE, // all in BAR2, notification first, a page per queue (multiplier 4096)
};

// Adds a VirtIO network device (vendor 0x1af4, class 0x020000) at pci_addr. Its queues have at most 256
// descriptors (QEMU's default; legacy: exactly 256), its MAC address is 02:00:00:01:<bus>:<function>, the link is up.
struct model_virtio* model_virtio_add(const char* pci_addr, enum model_virtio_kind kind);
struct model_pci_device* model_virtio_pci(const struct model_virtio* nic);

// ---- knobs (before ixy_init) ----

// Lays out configuration space and BARs anew (model_virtio_add takes IXY_MODEL_VIRTIO_LAYOUT: qemu, split or
// page-per-queue; default qemu). The configuration space bytes can then be read and overwritten one by one, e.g. to
// break a capability (offset 0x34 is the first capability pointer).
void model_virtio_set_layout(struct model_virtio* nic, enum model_virtio_layout layout);
uint8_t model_virtio_config_byte(const struct model_virtio* nic, uint8_t offset);
void model_virtio_poke_config(struct model_virtio* nic, uint8_t offset, uint8_t value);
// The next `times` reads of the device configuration that include byte 2 of the MAC address are each followed by a
// change of the MAC address (to mac, then back to the old one, and so on) and, on the modern interface, of
// config_generation (4.1.4.3.1): a driver that reads the six bytes once may get half of each.
void model_virtio_change_mac_during_read(struct model_virtio* nic, const uint8_t mac[6], unsigned times);

void model_virtio_offer(struct model_virtio* nic, uint64_t features);
// The largest queue (modern: the driver may choose a smaller power of two, packed any smaller size; legacy: the one
// size there is). Any size up to 4096: one that is no power of two only a packed queue may have (VirtIO 1.2, 2.8;
// a split queue enabled with it is a violation, 2.7).
void model_virtio_set_queue_max(struct model_virtio* nic, uint16_t size);
// The device clears FEATURES_OK when the driver sets it (it does not support the accepted features, 3.1.1 step 6).
void model_virtio_refuse_features(struct model_virtio* nic, bool refuse);
void model_virtio_set_link(struct model_virtio* nic, bool up, uint32_t speed_mbit);
// max_virtqueue_pairs in the device configuration (5.1.4; default 1), any value: a device may claim more pairs than
// the model has room for (MODEL_VIRTIO_MAX_PAIRS), or 0. Offer MODEL_VIRTIO_F_MQ or _RSS to make it count.
void model_virtio_set_max_pairs(struct model_virtio* nic, uint16_t max_pairs);
// rss_max_key_size, rss_max_indirection_table_length, supported_hash_types (VirtIO 1.2, 5.1.4; default QEMU's: 40,
// 128, 0x1ff).
void model_virtio_set_rss_caps(struct model_virtio* nic, uint8_t max_key_size, uint16_t max_table_length,
			       uint32_t hash_types);
// Asks the driver to stop notifying, on every queue from now on: VRING_USED_F_NO_NOTIFY in the used ring (split),
// with EVENT_IDX avail_event just behind the device (split), DISABLE in the device's event area (packed).
void model_virtio_suppress_notify(struct model_virtio* nic, bool suppress);
// Bits the device sets beside its request in the flags of every packed event suppression area it writes (2.8.14:
// bits 2-15 are reserved, "set to 0"; bits 0-1 set here turn any request into the reserved value 3). Default 0. The
// driver must read only the 2-bit field; the model, in model_virtio_kick_owed, takes the reserved 3 as ENABLE (a
// device that writes it gets every notification: a missing one would stall TX).
void model_virtio_event_flags_extra(struct model_virtio* nic, uint16_t bits);
// Where the device asks to be notified on a queue (at == true; before or after ixy_init; a usage error on a queue
// set up without VIRTIO_RING_F_EVENT_IDX, which both layouts need for it, 2.7.10, 2.8.10): split with EVENT_IDX,
// avail_event = event (notify when the entry at that index is made available); packed, DESC at event (bits 0-14
// the offset, bit 15 the wrap counter, 2.8.14). at == false: the default, which is split with EVENT_IDX an
// avail_event that follows the device (the next entry it will take), otherwise "notify always" (flags 0,
// ENABLE).
void model_virtio_kick_at(struct model_virtio* nic, uint16_t queue, bool at, uint16_t event);
// How the device answers control commands (5.1.6.5): OK (default), ERR, or not at all (the chains stay with it).
enum model_virtio_ctrl_answer { MODEL_VIRTIO_CTRL_OK, MODEL_VIRTIO_CTRL_ERR, MODEL_VIRTIO_CTRL_SILENT };
void model_virtio_ctrl_answer(struct model_virtio* nic, enum model_virtio_ctrl_answer answer);
// Processes TX chains as soon as the driver notifies the TX queue (default true, as QEMU). When false, chains wait
// until model_virtio_tx_process().
void model_virtio_tx_on_notify(struct model_virtio* nic, bool on_notify);

// ---- state as the device sees it ----

uint8_t model_virtio_status(const struct model_virtio* nic);
uint64_t model_virtio_driver_features(const struct model_virtio* nic);
// "modern" or "legacy": the interface the driver uses (from its first access until it closes the IO BAR or unmaps
// the memory BARs); NULL if none.
const char* model_virtio_transport(const struct model_virtio* nic);
// True if the driver set FAILED (2.1.1) since it started using an interface (a reset does not clear this).
bool model_virtio_driver_failed(const struct model_virtio* nic);
uint8_t model_virtio_config_generation(const struct model_virtio* nic);
bool model_virtio_queue_ready(const struct model_virtio* nic, uint16_t queue);
uint16_t model_virtio_queue_size(const struct model_virtio* nic, uint16_t queue);
uint32_t model_virtio_notifications(const struct model_virtio* nic, uint16_t queue);
// True if the driver owes the device a notification on the queue: since its last notification (and since the
// device last changed its request) it made buffers available that the device asked to be notified of (2.7.10 for
// split: flags 0, or with EVENT_IDX the entry at avail_event; 2.8.10 for packed: ENABLE, or DESC passed). A driver
// that returns from sending with a kick owed leaves its frames with the device unseen (TX is processed on notify).
bool model_virtio_kick_owed(const struct model_virtio* nic, uint16_t queue);
// Notifications that came when none was owed (the device had not asked for them, or the driver had already
// notified since): allowed, but with EVENT_IDX the driver SHOULD NOT send them (2.7.10).
uint32_t model_virtio_needless_notifications(const struct model_virtio* nic, uint16_t queue);
// True if the device's next used buffer would interrupt the driver (the driver armed its waiter): split,
// VRING_AVAIL_F_NO_INTERRUPT clear, or with EVENT_IDX used_event at the device's used index (2.7.7); packed, the
// driver's event area says ENABLE, or DESC at the device's used position (2.8.10).
bool model_virtio_interrupt_armed(const struct model_virtio* nic, uint16_t queue);
// The device looks whether to interrupt the driver, as a device does after it marked buffers used: it does if the
// used buffers since it last looked (since the last call) ask for it (split: flags, or with EVENT_IDX used_event
// among them, 2.7.10; packed: ENABLE, or the DESC event among them), with the queue's MSI-X vector if the driver set
// one. Returns whether it did. A test that calls it after every used buffer sees the device QEMU is: an event index
// the driver leaves behind the used index fires only when the index comes round again.
bool model_virtio_signal(struct model_virtio* nic, uint16_t queue);
// True if the queue is set up as a packed virtqueue (VIRTIO_F_RING_PACKED negotiated).
bool model_virtio_packed(const struct model_virtio* nic, uint16_t queue);
bool model_virtio_promisc(const struct model_virtio* nic);
// The control queue's index: 2 * max_virtqueue_pairs once MQ or RSS is negotiated, else 2 (5.1.2).
uint16_t model_virtio_ctrl_queue(const struct model_virtio* nic);
// Virtqueues the driver enabled since model_virtio_add (resets do not clear this).
uint32_t model_virtio_queue_enables(const struct model_virtio* nic);
// Queue pairs in use: 1 after a reset, then what VQ_PAIRS_SET or RSS_CONFIG (max_tx_vq) said.
uint16_t model_virtio_pairs(const struct model_virtio* nic);
// The last RSS_CONFIG as the device took it (VirtIO 1.2, 5.1.6.5.7); enabled is false after a reset or VQ_PAIRS_SET.
struct model_virtio_rss {
	bool enabled;
	uint32_t hash_types;
	uint16_t table_mask; // entries - 1
	uint16_t unclassified;
	uint16_t table[MODEL_VIRTIO_MAX_RSS_TABLE]; // receive queues by pair (0: receiveq1)
	uint16_t max_tx_vq;
	uint8_t key_length;
	uint8_t key[255];
};
const struct model_virtio_rss* model_virtio_rss(const struct model_virtio* nic);
// Multiqueue commands (VQ_PAIRS_SET 0, RSS_CONFIG 1) since the last reset: how many, and the first 8 in order.
uint32_t model_virtio_mq_commands(const struct model_virtio* nic, uint8_t order[8]);
// The virtio-net header length the device expects: 12 with VERSION_1, else 10 (5.1.6).
uint32_t model_virtio_net_hdr_len(const struct model_virtio* nic);

// ---- the device side of a virtqueue, raw ----

// On a packed queue (2.8) the same calls work with buffer ids for heads: model_virtio_take returns the id of the
// buffer at the device's next position (a copy of its descriptors is what chain_capacity, write_chain and the TX
// engine use), model_virtio_put_used writes a used descriptor at the device's used position, which then skips the
// buffer's descriptors, and model_virtio_used_idx is that position (0 .. 2 * size - 1: the slot, plus size once the
// wrap counter is 0). The split-only calls (avail_idx, avail_entry, set_used_idx, used_entry, write_used_entry) are
// usage errors there. Packed buffer ids must be below the queue size (at most that many buffers are outstanding;
// ixy numbers them so).
// Chains the driver has made available that the device has not taken yet (avail->idx - the device's index).
uint16_t model_virtio_avail_pending(const struct model_virtio* nic, uint16_t queue);
// The available ring as the driver wrote it: its index, and the entry at position i (mod queue size).
uint16_t model_virtio_avail_idx(const struct model_virtio* nic, uint16_t queue);
uint16_t model_virtio_avail_entry(const struct model_virtio* nic, uint16_t queue, uint16_t i);
// Takes the next available chain: its head descriptor index. false if there is none (or the queue is not live).
bool model_virtio_take(struct model_virtio* nic, uint16_t queue, uint16_t* head);
// Total length of the chain at head, of the descriptors the device may write (RX) or read (TX).
uint32_t model_virtio_chain_capacity(struct model_virtio* nic, uint16_t queue, uint16_t head);
// Writes len bytes into the chain at head, descriptor after descriptor; false (and nothing written) if they do not fit.
bool model_virtio_write_chain(struct model_virtio* nic, uint16_t queue, uint16_t head, const void* data, uint32_t len);
// Puts a used entry {id, len} at the used index and advances it (2.4.8), whatever id and len are: the test may
// return chains the device never took, ids that are no chain, lengths beyond the buffer.
void model_virtio_put_used(struct model_virtio* nic, uint16_t queue, uint32_t id, uint32_t len);
// Writes the used index directly (e.g. one that jumps ahead of the chains the device holds).
void model_virtio_set_used_idx(struct model_virtio* nic, uint16_t queue, uint16_t idx);
uint16_t model_virtio_used_idx(const struct model_virtio* nic, uint16_t queue);
// The used ring entry at position slot (mod queue size), as the driver will read it.
void model_virtio_used_entry(const struct model_virtio* nic, uint16_t queue, uint16_t slot, uint32_t* id,
			     uint32_t* len);
// Overwrites the used ring entry at position slot (mod queue size) without touching the index. No correct device
// does this (the slot may hold an entry the driver has not read): the model counts as misbehaving from then on.
void model_virtio_write_used_entry(struct model_virtio* nic, uint16_t queue, uint16_t slot, uint32_t id, uint32_t len);
// True once the test did something no correct device does (a used entry or index for chains it did not take, a
// used slot written directly).
// The model then stops checking the driver's available ring against what the device holds.
bool model_virtio_misbehaved(const struct model_virtio* nic);
// Packed: the device's used position (where its next used descriptor goes) and its used wrap counter.
void model_virtio_used_position(struct model_virtio* nic, uint16_t queue, uint16_t* slot, bool* wrap);
// Packed: writes a descriptor {id, len, flags} at slot (mod queue size) as the device would write a used one, and
// moves no position: with the wrong flags or wrap bits, ahead of the used position, an id the driver never offered.
// The model counts as misbehaving from then on: the slot may have held a descriptor the driver made available, so
// the model no longer reports what it finds wrong in the driver's descriptors (it stops taking at such a buffer).
void model_virtio_put_used_raw(struct model_virtio* nic, uint16_t queue, uint16_t slot, uint16_t id, uint32_t len,
			       uint16_t flags);

// ---- receive and transmit, as a correct device does them ----

enum model_virtio_rx_result {
	MODEL_VIRTIO_RX_DELIVERED, // header and frame written into the next chain, used entry put
	MODEL_VIRTIO_RX_NO_BUFFER, // no chain available: dropped
	MODEL_VIRTIO_RX_TOO_LONG,  // the chain is too short for header and frame: dropped, the chain stays available
	MODEL_VIRTIO_RX_OFF,       // the device is not running (no DRIVER_OK, reset, queue not set up)
};
// A frame (without CRC) arrives from the wire: the device writes the virtio-net header (no offloads, num_buffers 1)
// and the frame into the next RX chain and returns it with the bytes written (5.1.6.3, 5.1.6.4).
// The device picks the RX queue as model_virtio_steer() says; model_virtio_last_rx_queue() is the one it took.
enum model_virtio_rx_result model_virtio_rx(struct model_virtio* nic, const void* frame, uint32_t len);
uint16_t model_virtio_last_rx_queue(const struct model_virtio* nic);
// The same on RX queue `pair` (receiveq<pair + 1>), as automatic steering may do (5.1.6.5.6). MODEL_VIRTIO_RX_OFF
// beyond the pairs in use.
enum model_virtio_rx_result model_virtio_rx_on(struct model_virtio* nic, uint16_t pair, const void* frame,
					       uint32_t len);
// Steering (VirtIO 1.2, 5.1.6.5.7 "RSS processing"): with RSS configured, the indirection table's entry at the
// frame's hash & mask, or the unclassified queue for a frame not hashed (5.1.6.4.3.1: IPv4, TCPv4, UDPv4 here; no
// ports for fragments); without RSS queue 0.
uint16_t model_virtio_steer(const struct model_virtio* nic, const void* frame, uint32_t len);
// The frame's hash under the configured types and key; false if it is not hashed.
bool model_virtio_rss_hash(const struct model_virtio* nic, const void* frame, uint32_t len, uint32_t* hash);
// The model's Toeplitz hash of len input bytes under a key of key_len bytes (key bits beyond it count as 0).
uint32_t model_virtio_toeplitz(const uint8_t* key, uint32_t key_len, const uint8_t* input, uint32_t len);
// Takes every available TX chain, checks its header, records the frame and returns the chain (len 0, 5.1.6.2).
// Returns how many frames it sent.
uint32_t model_virtio_tx_process(struct model_virtio* nic);
// The same for at most max chains.
uint32_t model_virtio_tx_process_up_to(struct model_virtio* nic, uint32_t max);
// Frames sent (and recorded), in order.
uint32_t model_virtio_tx_count(const struct model_virtio* nic);
const uint8_t* model_virtio_tx_frame(const struct model_virtio* nic, uint32_t i, uint32_t* len);
// The TX queue (pair) frame i came from.
uint16_t model_virtio_tx_frame_queue(const struct model_virtio* nic, uint32_t i);
void model_virtio_clear_tx(struct model_virtio* nic);

#endif
