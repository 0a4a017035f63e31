// A software model of the Intel 82599 10 GbE controller, written from its datasheet (revision 3.3), for testing
// the ixgbe driver without hardware.
//
// What it models (section numbers are the datasheet's):
// - The register file with the behaviour a driver relies on: global and link reset (CTRL.RST/LRST, self-clearing),
//   EEPROM auto-read and DMA-init completion after reset (EEC.ARD, RDRXCTL.DMAIDONE), link bring-up after
//   AUTOC.Restart_AN (LINKS), interrupt mask/cause registers, clear-on-read statistics, receive address filters.
// - Descriptor DMA: transmit with advanced data descriptors (7.2.3.2.4) when TDT is written; receive with advanced
//   one-buffer descriptors (7.1.6.1 read format, 7.1.6.2 write-back format) when the test injects a frame.
// - Checks: every DMA address must lie in live DMA memory, rings and queue enables must follow 4.6.7/4.6.8, reserved
//   bits must be written as the datasheet says, and more; each breach is a violation (model.h) that fails the test.
//
// - MSI-X interrupts for received packets: IVAR maps RX queues to vectors, a queue's cause is latched (EICR bits
//   15:0 for vectors 0-15) whether or not its vector is enabled, EIMS/EIMC(_EX) enable vectors (enabling one whose
//   cause is latched interrupts at once), EIAC clears a cause with its message, GPIE.EIAME with EIAM_EX masks a
//   vector when it fires, EITR holds a vector to one message per interval (7.3); messages go to
//   model_pci_raise_msix.
// - Receive side scaling (7.1.2.8) for untagged IPv4, TCP/IPv4 and UDP/IPv4: the Toeplitz hash under the key in
//   RSSRK, the queue from RETA (model_ixgbe_receive, model_ixgbe_rss).
//
// What it leaves out: other interrupt causes, legacy and MSI interrupts, low-latency interrupts; a message held back by
// EITR goes out at the first register access or frame after its interval, not at the instant; the RX packet buffer is
// not modelled (a frame that finds no descriptor is dropped at once), flow director/VMDq/DCB are absent (the test
// picks the RX queue, or RSS does: model_ixgbe_receive), RSS hashes untagged IPv4 only (no IPv6, no VLAN tags) and
// does not write its hash into the descriptor (RXCSUM.PCSD), no TSO or checksum offload, the multicast table is treated
// as empty, and the link is up or down, nothing in between.
#ifndef IXY_TEST_IXGBE_MODEL_H
#define IXY_TEST_IXGBE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

#define MODEL_INTEL_VENDOR_ID 0x8086
#define MODEL_82599_SFP_DEVICE_ID 0x10FB
#define MODEL_NETWORK_CLASS 0x020000

// Queues of the 82599: 128 in each direction.
#define MODEL_IXGBE_QUEUES 128

struct model_ixgbe;

// Adds an 82599 (vendor 0x8086, device 0x10FB, class 0x020000) at pci_addr. Its MAC address (as if read from the
// EEPROM) is 02:00:00:00:<bus>:<function> unless set with model_ixgbe_set_eeprom_mac().
struct model_ixgbe* model_ixgbe_add(const char* pci_addr);
const char* model_ixgbe_pci_addr(const struct model_ixgbe* nic);
// The NIC as the PCI layer sees it (bus mastering, BAR mapped, touched at all).
struct model_pci_device* model_ixgbe_pci(const struct model_ixgbe* nic);

// ---- knobs ----

// How the link behaves after AUTOC.Restart_AN is written.
enum model_link_mode {
	MODEL_LINK_UP_AFTER_AN, // up (10 Gbit/s unless AUTOC selects a 1G mode) link_delay_us after Restart_AN
	MODEL_LINK_NEVER,       // stays down (no cable)
};
void model_ixgbe_set_link_mode(struct model_ixgbe* nic, enum model_link_mode mode, uint32_t link_delay_us);
// The MAC address loaded into RAL/RAH[0] by every reset.
void model_ixgbe_set_eeprom_mac(struct model_ixgbe* nic, const uint8_t mac[6]);
// Stops transmitting (as if the link partner sent pause frames): descriptors stay pending until resumed.
void model_ixgbe_pause_tx(struct model_ixgbe* nic, bool paused);
// Keeps a copy of every transmitted frame (default on). Off for benchmarks.
void model_ixgbe_record_tx(struct model_ixgbe* nic, bool record);
// Logs every register access (default on). Off for benchmarks.
void model_ixgbe_log_registers(struct model_ixgbe* nic, bool log);
// Called for every transmitted frame (e.g. to wire two NICs together). NULL to remove.
typedef void (*model_tx_hook)(void* context, struct model_ixgbe* nic, uint16_t queue, const uint8_t* frame,
			      uint32_t len);
void model_ixgbe_set_tx_hook(struct model_ixgbe* nic, model_tx_hook hook, void* context);
// The "perfect NIC" for benchmarks: no frame copies kept, no register log; every TDT write completes all
// descriptors at once (as always). Checks stay on; their cost per packet is a few comparisons. Perfect, with the link
// up and no TX hook, stamps or MSI-X vectors, a queue's tail writes (and model_ixgbe_inject_rx_burst) run under that
// queue's own lock, not the models' lock: threads on different queues do not wait for each other (ixgbe_model.c).
void model_ixgbe_set_perfect(struct model_ixgbe* nic, bool perfect);
// A broken NIC, for the driver's failure paths: its reset never finishes (CTRL.RST stays set), or no queue ever
// reports itself enabled (RXDCTL/TXDCTL.ENABLE read 0).
enum model_ixgbe_fault { MODEL_IXGBE_WORKS, MODEL_IXGBE_STUCK_RESET, MODEL_IXGBE_QUEUES_STAY_OFF };
void model_ixgbe_set_fault(struct model_ixgbe* nic, enum model_ixgbe_fault fault);

// ---- receive ----

enum model_rx_result {
	MODEL_RX_DELIVERED,     // written to host memory, descriptor written back
	MODEL_RX_NO_DESCRIPTOR, // ring empty (RDH == RDT): dropped and counted (MPC, or QPRDC with SRRCTL.DROP_EN)
	MODEL_RX_FILTERED,      // destination MAC not accepted by the L2 filter (FCTRL, RAL/RAH)
	MODEL_RX_OFF,           // not receiving: link down, RXCTRL.RXEN 0, queue disabled, reset or BAR unmapped
	MODEL_RX_BAD_FRAME,     // too long for MAXFRS / jumbo settings (counted in ROC) or broken ring (violation)
};
// A frame (without CRC, 60..16 KiB bytes) arrives from the wire and is steered to RX queue `queue`.
enum model_rx_result model_ixgbe_inject_rx(struct model_ixgbe* nic, uint16_t queue, const void* frame, uint32_t len);
// A frame arrives from the wire and the NIC picks its RX queue, stored in *queue: by receive side scaling (7.1.2.8)
// when MRQC.MRQE is 0001b (RSS), else queue 0.
enum model_rx_result model_ixgbe_receive(struct model_ixgbe* nic, const void* frame, uint32_t len, uint16_t* queue);
// Receive side scaling as the NIC applies it to a frame now: from MRQC (MRQE 0001b and the hash types IPv4,
// TCP/IPv4, UDP/IPv4), RSSRK (the key) and RETA (the table, indexed by the hash's low 7 bits). True if RSS is on
// and hashed the frame; then *hash is the Toeplitz hash and *queue the table's entry. Else both are 0.
bool model_ixgbe_rss(const struct model_ixgbe* nic, const void* frame, uint32_t len, uint32_t* hash, uint16_t* queue);
// The same frame `count` times; returns how many were delivered. No allocation, for benchmarks. Takes the locks it
// needs itself: the queue's thread may call it without model_lock (bench/threads_bench.c).
uint32_t model_ixgbe_inject_rx_burst(struct model_ixgbe* nic, uint16_t queue, const void* frame, uint32_t len,
				     uint32_t count);
// Number of free descriptors the driver has given to RX queue `queue` (between RDH and RDT).
uint32_t model_ixgbe_rx_descriptors_available(const struct model_ixgbe* nic, uint16_t queue);

// ---- transmit ----

// Frames transmitted and recorded (model_ixgbe_record_tx), in order, over all queues.
uint32_t model_ixgbe_tx_frame_count(const struct model_ixgbe* nic);
// The i-th recorded frame; *len and *queue receive its length (without CRC and padding) and queue.
const uint8_t* model_ixgbe_tx_frame(const struct model_ixgbe* nic, uint32_t i, uint32_t* len, uint16_t* queue);
void model_ixgbe_clear_tx_frames(struct model_ixgbe* nic);
// Descriptors the driver has queued on TX queue `queue` that the model has not processed yet (TDT - TDH).
uint32_t model_ixgbe_tx_pending(const struct model_ixgbe* nic, uint16_t queue);

// ---- what happened (cumulative since the NIC was added, not cleared by reads or resets) ----

// GPRC counts the frames the MAC accepted into the packet buffer, so also those the DMA then dropped for lack of
// descriptors with SRRCTL.DROP_EN (QPRDC), but not those missed for lack of packet buffer space (MPC).
struct model_ixgbe_counters {
	uint64_t rx_delivered;       // frames written to host memory
	uint64_t rx_delivered_bytes; // their bytes, without CRC
	uint64_t rx_good;            // what GPRC counted
	uint64_t rx_good_octets;     // what GORC counted (frame + CRC)
	uint64_t rx_missed;          // what MPC counted: no descriptor, SRRCTL.DROP_EN clear (8.2.3.23)
	uint64_t rx_queue_dropped;   // what QPRDC counted: no descriptor, SRRCTL.DROP_EN set (8.2.3.23)
	uint64_t rx_filtered;        // dropped by the L2 filter
	uint64_t rx_off;             // arrived while not receiving
	uint64_t tx_frames;          // what GPTC counted
	uint64_t tx_octets;          // what GOTC counted (frame + padding + CRC)
	uint64_t dma_reads;          // descriptor and buffer reads from host memory
	uint64_t dma_writes;         // descriptor and buffer writes to host memory
	uint64_t msix_messages;      // MSI-X messages sent for received packets (model_pci_msix_count per vector)
	uint64_t resets;             // CTRL.RST
};
struct model_ixgbe_counters model_ixgbe_counters(const struct model_ixgbe* nic);
// What a driver should report as dropped: rx_missed + rx_queue_dropped.
uint64_t model_ixgbe_rx_dropped(const struct model_ixgbe* nic);

bool model_ixgbe_link_up(const struct model_ixgbe* nic);
// The register value as the device holds it, without side effects (no clear-on-read, no time passing).
uint32_t model_ixgbe_peek(const struct model_ixgbe* nic, uint32_t reg);
// Writes a register as software does, with its side effects: for a test that acts behind the driver's back.
void model_ixgbe_write(struct model_ixgbe* nic, uint32_t reg, uint32_t value);

// ---- register access log ----

enum model_access { MODEL_READ, MODEL_WRITE };
struct model_log_entry {
	uint64_t time_us;
	uint32_t reg;
	uint32_t value;   // written, or read
	uint32_t repeats; // a read repeated with the same result is logged once
	enum model_access access;
};
// Entries logged since the NIC was added (the log keeps the first 65536).
uint32_t model_ixgbe_log_length(const struct model_ixgbe* nic);
const struct model_log_entry* model_ixgbe_log_entry(const struct model_ixgbe* nic, uint32_t i);
// Index of the first entry at or after `from` with this access and register whose value has all bits of `mask`
// set (mask 0: any value); -1 if none.
int64_t model_ixgbe_log_find(const struct model_ixgbe* nic, uint32_t from, enum model_access access, uint32_t reg,
			     uint32_t mask);
// The value last written to a register (in the log), 0 if none: what the driver set, even after a reset.
uint32_t model_ixgbe_last_write(const struct model_ixgbe* nic, uint32_t reg);
void model_ixgbe_clear_log(struct model_ixgbe* nic);

// ---- for humans ----

// Name of a register, e.g. "RDT(3)" or "CTRL"; "0x01234" style for unknown offsets. buf needs 24 bytes.
const char* model_ixgbe_reg_name(uint32_t reg, char buf[24]);
// Prints every non-zero register the model knows, one per line: "NAME[offset]:value", e.g.
// "RDT(0)[0x01018]:0x000001ff".
void model_ixgbe_dump(const struct model_ixgbe* nic, FILE* out);
// Prints the register log.
void model_ixgbe_print_log(const struct model_ixgbe* nic, FILE* out, uint32_t from, uint32_t count);

#endif
