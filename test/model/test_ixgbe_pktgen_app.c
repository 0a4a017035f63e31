// ixy-pktgen's own main() (apps/ixy-pktgen.c, compiled into this test with main renamed ixy_pktgen_main) against a
// modelled 82599, in virtual time (issue 30). The clock the app reads (monotonic_time_ns) and its sleep
// (clock_nanosleep) are replaced here (-Wl,--wrap): every clock read costs CLOCK_READ_NS of virtual time, and a sleep
// jumps the clock to its end plus SLEEP_SLACK_NS (a kernel wakes late: timer slack; LATE_SLEEP_SLACK_NS for a
// guest's coarse timer). The wire is the model's TX hook,
// which checks every frame the app sends (headers, lengths, checksum, sequence numbers per flow) and records its size
// and send time.
//   - --rate: every unit and a decimal point (500pps, 2.5kpps, 10kpps, 0.25Mpps, 1Mpps, 100Mbit, 1Gbit, 2.5Gbit):
//     the send times stamped in the frames span (frames - 1) / rate within RATE_TOLERANCE, --seconds stops at the
//     time, and the sender sleeps at most once per batch (ixy_tx_batch counted), not per packet, and never spins;
//     a replay of 42 byte frames at 100Mbit counts them as 60 (padded);
//   - --seed: the sizes on the wire are the seed's sequence, also when a stuttering NIC makes the queue refuse frames;
//   - --size: fixed, uniform (every size of the range drawn, each within 15 % of its expectation) and imix (7:4:1
//     within 2 %);
//   - --count: exactly that many frames on the wire, the totals say so;
//   - --replay: the wire holds the file's frames byte for byte (see check_replay), at the file's timing once and
//     looped;
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "../checksum.h"
#include "common/flows.h"
#include "common/packet.h"
#include "common/signals.h"
#include "common/sizes.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"
#include "test_regs.h"

#define PORT "0000:0c:00.0"
#define CLOCK_READ_NS 200
#define SLEEP_SLACK_NS 50000
#define LATE_SLEEP_SLACK_NS 50000000 // 50 ms: sleeps in a busy QEMU guest under TCG woke 9 ms and more late
#define RATE_TOLERANCE 0.01
#define MAX_FLOWS 64
#define MAX_KEPT 128 // frames kept for the byte comparison of replays
#define MAX_SIZES_KEPT 20000

int ixy_pktgen_main(int argc, char* argv[]);

// ---- virtual time

static _Atomic uint64_t virtual_ns = 1000000000ull;
static uint64_t sleeps, sleep_slack_ns = SLEEP_SLACK_NS;
// SIGTERM is raised at the end of the sleep call with this number (1: the first of a run; 0: never), and again at
// the other (a second signal before the NIC is stopped).
static uint64_t raise_at_sleep, raise_again_at_sleep;

// A stuttering NIC: with stutter_nic set, its TX stops for STUTTER_READS clock reads (about as many batches) in every
// 2 * STUTTER_READS, so that the TX ring fills and refuses frames; for the run's first STUTTER_END reads, then it
// sends.
#define STUTTER_READS 16
#define STUTTER_END 200
static struct model_ixgbe* stutter_nic;
static uint64_t clock_reads;

// The batches: every call of the device's tx_batch (ixy_tx_batch), one per round of ixy-pktgen's loop and one at the
// end. ixy_tx_batch is inline: the device the app gets (ixy_init_config, wrapped) gets a counting tx_batch instead.
static uint64_t tx_batches;
static uint32_t (*real_tx_batch)(struct ixy_device* dev, uint16_t queue_id, struct pkt_buf* bufs[], uint32_t num_bufs);

static uint32_t counting_tx_batch(struct ixy_device* dev, uint16_t queue_id, struct pkt_buf* bufs[],
				  uint32_t num_bufs) {
	tx_batches++;
	return real_tx_batch(dev, queue_id, bufs, num_bufs);
}

struct ixy_device* __real_ixy_init_config(const struct ixy_config* config);
struct ixy_device* __wrap_ixy_init_config(const struct ixy_config* config);
struct ixy_device* __wrap_ixy_init_config(const struct ixy_config* config) {
	struct ixy_device* dev = __real_ixy_init_config(config);
	if (dev) {
		real_tx_batch = dev->tx_batch;
		dev->tx_batch = counting_tx_batch;
	}
	return dev;
}

uint64_t __wrap_monotonic_time_ns(void);
uint64_t __wrap_monotonic_time_ns(void) {
	clock_reads++;
	if (stutter_nic) {
		model_ixgbe_pause_tx(stutter_nic, clock_reads < STUTTER_END && clock_reads / STUTTER_READS % 2 == 1);
	}
	return atomic_fetch_add(&virtual_ns, CLOCK_READ_NS) + CLOCK_READ_NS;
}

int __wrap_clock_nanosleep(clockid_t clock, int flags, const struct timespec* until, struct timespec* left);
int __wrap_clock_nanosleep(clockid_t clock, int flags, const struct timespec* until, struct timespec* left) {
	(void)left;
	CHECK(clock == CLOCK_MONOTONIC && flags == TIMER_ABSTIME);
	uint64_t end = (uint64_t)until->tv_sec * 1000000000ull + (uint64_t)until->tv_nsec;
	if (end > virtual_ns) {
		virtual_ns = end + sleep_slack_ns;
	}
	sleeps++;
	if (sleeps == raise_at_sleep || sleeps == raise_again_at_sleep) {
		// A stop signal that arrives just as this sleep begins, after the loop looked at the flag: it
		// interrupts nothing (the virtual sleep has not begun).
		CHECK_EQ(raise(SIGTERM), 0);
	}
	return 0;
}

// ---- allocations: calloc_fail_at > 0 makes the calloc_fail_at-th calloc of calloc_fail_count pointers fail (the
// replay's tables of buffers), once
static uint32_t calloc_fail_at;
static size_t calloc_fail_count;

void* __real_calloc(size_t count, size_t size);
void* __wrap_calloc(size_t count, size_t size);
void* __wrap_calloc(size_t count, size_t size) {
	if (calloc_fail_at > 0 && count == calloc_fail_count && size == sizeof(void*) && --calloc_fail_at == 0) {
		return NULL;
	}
	return __real_calloc(count, size);
}

// ---- the wire

struct wire {
	uint64_t frames, bad_header, bad_seq, bytes;
	uint64_t bad_payload; // frames whose payload is not "ixy", zeros, then the send time and sequence number
	uint64_t wire_bytes;  // what the frames take on the wire: padded to 60 (ixgbe TXPADEN), + FCS, preamble, gap
	uint64_t first_ns, last_ns, bad_time;
	uint64_t by_size[PACKET_MAX_SIZE + 1];
	uint16_t size_at[MAX_SIZES_KEPT]; // the sizes of the first frames, in order
	uint32_t next_seq[MAX_FLOWS];
	uint32_t flows; // 0: frames are not ixy-pktgen's (replay): only kept
	// Issue 37: the spec the run's options give (wire_spec: set before run_pktgen, default spec_default) and its
	// form; the queues; end markers, per flow, and markers or frames where they do not belong.
	struct packet_spec spec;
	struct packet_form form;
	uint32_t queues;
	uint64_t markers, bad_marker, bad_queue;
	uint32_t markers_of[MAX_FLOWS];
	uint64_t by_flow[MAX_FLOWS];
	uint8_t kept[MAX_KEPT][PACKET_MAX_SIZE];
	uint32_t kept_len[MAX_KEPT];
	// A replay: frame i on the wire must be expected[i mod expected_count] byte for byte, sent not before its due
	// time (--replay-timing: start + its time in the file) and not much later.
	const uint8_t* const* expected;
	const uint32_t* expected_len;
	const uint64_t* expected_ns; // NULL: no timing
	uint32_t expected_count;
	uint64_t mismatches, early, late, sent_at[MAX_KEPT];
	// The app's sleeps, TX batches and clock reads when the last frame left: its send loop, without the wait for
	// the NIC to send everything at the end (wait_until_sent in ixy-pktgen.c).
	uint64_t sending_sleeps, sending_batches, sending_clock_reads;
};
static struct wire wire;

static void on_tx(void* context, struct model_ixgbe* nic, uint16_t queue, const uint8_t* frame, uint32_t len) {
	(void)context;
	(void)nic;
	(void)queue;
	if (wire.frames < MAX_KEPT) {
		memcpy(wire.kept[wire.frames], frame, len <= PACKET_MAX_SIZE ? len : PACKET_MAX_SIZE);
		wire.kept_len[wire.frames] = len;
	}
	if (wire.frames < MAX_KEPT) {
		wire.sent_at[wire.frames] = virtual_ns;
	}
	if (wire.expected_count) {
		uint32_t i = (uint32_t)(wire.frames % wire.expected_count);
		wire.mismatches += len != wire.expected_len[i] || memcmp(frame, wire.expected[i], len) != 0;
	}
	wire.frames++;
	wire.sending_sleeps = sleeps;
	wire.sending_batches = tx_batches;
	wire.sending_clock_reads = clock_reads;
	wire.bytes += len;
	wire.wire_bytes += (len < PACKET_MIN_SIZE ? PACKET_MIN_SIZE : len) + 24;
	if (wire.flows == 0) {
		return;
	}
	if (len < PACKET_MIN_SIZE || len > PACKET_MAX_SIZE) {
		wire.bad_header++;
		return;
	}
	wire.by_size[len]++;
	if (wire.frames <= MAX_SIZES_KEPT) {
		wire.size_at[wire.frames - 1] = (uint16_t)len;
	}
	// The form of the run's spec (default: the template of packet.h): every header field, length and checksum.
	const struct packet_form* form = &wire.form;
	const uint8_t* ip = frame + form->l3;
	const uint8_t* udp = frame + form->l4;
	const uint8_t* pay = frame + form->payload;
	uint32_t udp_len = (uint32_t)udp[4] << 8 | udp[5];
	uint32_t number = (uint32_t)pay[FLOWS_NUMBER] | (uint32_t)pay[FLOWS_NUMBER + 1] << 8;
	uint32_t flow = number & ~(uint32_t)FLOWS_END;
	wire.bad_header += memcmp(frame, wire.spec.dst_mac, 6) != 0 || udp_len != len - form->l4 ||
			   memcmp(pay, "ixy", 3) != 0 || pay[3] != 0 || flow >= wire.flows ||
			   (wire.spec.src_mac_given && memcmp(frame + 6, wire.spec.src_mac, 6) != 0);
	if (form->vlan) {
		wire.bad_header += frame[12] != 0x81 || frame[13] != 0 || frame[14] != wire.spec.vlan_tci >> 8 ||
				   frame[15] != (wire.spec.vlan_tci & 0xff);
	}
	if (form->ipv6) {
		uint32_t payload_len = (uint32_t)ip[4] << 8 | ip[5];
		wire.bad_header += ip[-2] != 0x86 || ip[-1] != 0xdd || ip[0] != 0x60 || ip[6] != 17 ||
				   payload_len != len - form->l4 || !udp6_ok(frame, form->l3, len);
	} else {
		uint32_t total = (uint32_t)ip[2] << 8 | ip[3];
		wire.bad_header += ip[-2] != 0x08 || ip[-1] != 0 || ip[0] != 0x45 || ip[9] != 17 ||
				   total != len - form->l3 || ipv4_checksum(ip, PACKET_IPV4_HEADER_SIZE) != 0 ||
				   udp[6] != 0 || udp[7] != 0;
	}
	if (flow >= wire.flows) {
		return;
	}
	// The flow's addresses and ports (flows.h: flow f takes the (f mod n)-th value of each range).
	struct flow_fields fields;
	spec_flow(&wire.spec, flow, &fields);
	uint32_t ip_bytes = form->ipv6 ? 16 : 4, ip_at = form->ipv6 ? 8 : 12;
	wire.bad_header += memcmp(ip + ip_at, fields.src_ip, ip_bytes) != 0 ||
			   memcmp(ip + ip_at + ip_bytes, fields.dst_ip, ip_bytes) != 0 ||
			   udp[0] != fields.src_port >> 8 || udp[1] != (fields.src_port & 0xff) ||
			   udp[2] != fields.dst_port >> 8 || udp[3] != (fields.dst_port & 0xff);
	wire.bad_queue += queue != flow % wire.queues; // --queues n: flow f on queue f mod n
	for (uint32_t b = form->payload + FLOWS_NUMBER + 2; b < len - PACKET_TIME_FROM_END; b++) {
		if (frame[b] != 0) {
			wire.bad_payload++;
			break;
		}
	}
	if (number & FLOWS_END) {
		// An end marker: not a frame of the run; the flow's count in the send time field, numbers after its
		// own.
		wire.frames--;
		wire.bytes -= len;
		wire.markers++;
		wire.bad_marker += len != form->min_size || packet_read_time(frame, len) != wire.next_seq[flow] ||
				   packet_read_seq_at(frame, len) != wire.next_seq[flow] + wire.markers_of[flow]++;
		return;
	}
	wire.bad_marker += wire.markers_of[flow] != 0; // no frame of a flow after its markers
	wire.by_flow[flow]++;
	if (packet_read_seq_at(frame, len) != wire.next_seq[flow]++) {
		wire.bad_seq++;
	}
	uint64_t sent_ns = packet_read_time(frame, len);
	// In order (one queue: several queues' threads stamp their own batches), not in the future.
	wire.bad_time += (wire.queues == 1 && sent_ns < wire.last_ns) || sent_ns > virtual_ns;
	if (wire.frames == 1) {
		wire.first_ns = sent_ns;
	}
	wire.last_ns = sent_ns;
}

// Runs ixy-pktgen with options (NULL-terminated; --no-sandbox and the port added) against a new model; the wire
// records what it sends, checking frames as ixy-pktgen's with `flows` flows (0: frames of a file). Returns its exit
// code; its totals line is in totals.
static bool reset_seen;   // the last run reset the NIC: it took the device
static char errors[4096]; // ixy-pktgen's stderr of the last run

static bool stutter; // the next run's NIC stutters (stutter_nic)

static struct packet_spec wire_spec; // the spec the next run's options give (main: spec_default)
static char queue_line[4][1024];     // the last run's "queue app=ixy-pktgen" lines
static int queue_lines;
static uint32_t wire_queues = 1; // the next run's --queues

static int run_pktgen(const char* const options[], uint32_t flows, char* totals, size_t totals_size) {
	const uint8_t* const* expected = wire.expected;
	const uint32_t* expected_len = wire.expected_len;
	const uint64_t* expected_ns = wire.expected_ns;
	uint32_t expected_count = wire.expected_count;
	memset(&wire, 0, sizeof(wire));
	wire = (struct wire){.flows = flows,
			     .spec = wire_spec,
			     .queues = wire_queues,
			     .expected = expected,
			     .expected_len = expected_len,
			     .expected_ns = expected_ns,
			     .expected_count = expected_count};
	spec_form(&wire.spec, &wire.form);
	sleeps = 0;
	tx_batches = 0;
	struct model_ixgbe* nic = model_ixgbe_add(PORT);
	model_ixgbe_record_tx(nic, false);
	model_ixgbe_log_registers(nic, false);
	model_ixgbe_set_tx_hook(nic, on_tx, NULL);
	stutter_nic = stutter ? nic : NULL;
	clock_reads = 0;
	char* argv[24];
	int argc = 0;
	argv[argc++] = "ixy-pktgen";
	argv[argc++] = "--no-sandbox";
	for (int i = 0; options[i]; i++) {
		argv[argc++] = (char*)options[i];
	}
	argv[argc++] = PORT;
	argv[argc] = NULL;
	FILE* out = tmpfile(); // ixy-pktgen's stdout, for its totals line, and its stderr
	FILE* err = tmpfile();
	int saved = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	CHECK(out && err && saved >= 0 && saved_err >= 0 && fflush(stdout) == 0 && fflush(stderr) == 0 &&
	      dup2(fileno(out), STDOUT_FILENO) == STDOUT_FILENO && dup2(fileno(err), STDERR_FILENO) == STDERR_FILENO);
	int rc = ixy_pktgen_main(argc, argv);
	stutter_nic = NULL;
	CHECK(fflush(stdout) == 0 && dup2(saved, STDOUT_FILENO) == STDOUT_FILENO && close(saved) == 0);
	CHECK(fflush(stderr) == 0 && dup2(saved_err, STDERR_FILENO) == STDERR_FILENO && close(saved_err) == 0);
	size_t got = 0;
	if (err && fseek(err, 0, SEEK_SET) == 0) {
		got = fread(errors, 1, sizeof(errors) - 1, err);
		fclose(err);
	}
	errors[got] = '\0';
	fputs(errors, stderr);
	reset_seen = model_ixgbe_last_write(nic, R_CTRL) != 0;
	totals[0] = '\0';
	queue_lines = 0;
	char line[1024];
	CHECK_EQ(fseek(out, 0, SEEK_SET), 0);
	while (fgets(line, sizeof(line), out)) {
		if (strncmp(line, "totals app=ixy-pktgen ", 22) == 0) {
			snprintf(totals, totals_size, "%s", line);
		}
		if (strncmp(line, "queue app=ixy-pktgen ", 21) == 0 && queue_lines < 4) {
			snprintf(queue_line[queue_lines++], sizeof(queue_line[0]), "%s", line);
		}
	}
	fclose(out);
	printf("%s", totals);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	return rc;
}

// The number after " key=" in the totals line, or UINT64_MAX.
static uint64_t total(const char* totals, const char* key) {
	char pattern[64];
	snprintf(pattern, sizeof(pattern), " %s=", key);
	const char* at = strstr(totals, pattern);
	return at ? strtoull(at + strlen(pattern), NULL, 10) : UINT64_MAX;
}

static void check_clean_wire(void) {
	CHECK_EQ(wire.bad_queue, 0);
	CHECK_EQ(wire.bad_marker, 0);
	CHECK_EQ(wire.bad_header, 0);
	CHECK_EQ(wire.bad_payload, 0);
	CHECK_EQ(wire.bad_seq, 0);
	CHECK_EQ(wire.bad_time, 0);
}

// ---- --rate

// The send times of `frames` frames span (frames - 1) units of the rate, within RATE_TOLERANCE.
static void check_rate(const char* name, const char* rate, const char* size, double frames_per_second,
		       uint64_t slack_ns, uint64_t min_frames_per_sleep) {
	model_test_begin(name);
	sleep_slack_ns = slack_ns;
	const char* options[] = {"--rate", rate, "--size", size, "--seconds", "1", NULL};
	char totals[1024];
	CHECK_EQ(run_pktgen(options, 1, totals, sizeof(totals)), 0);
	check_clean_wire();
	double span_s = (double)(wire.last_ns - wire.first_ns) / 1e9;
	double achieved = (double)(wire.frames - 1) / span_s;
	printf("%s: %" PRIu64 " frames in %.6f s of virtual time: %.1f/s, target %.1f/s (%+.3f %%), %" PRIu64
	       " sleeps, %" PRIu64 " batches, %" PRIu64 " clock reads\n",
	       name, wire.frames, span_s, achieved, frames_per_second, 100.0 * (achieved / frames_per_second - 1.0),
	       sleeps, tx_batches, clock_reads);
	CHECK(achieved > frames_per_second * (1.0 - RATE_TOLERANCE));
	CHECK(achieved < frames_per_second * (1.0 + RATE_TOLERANCE));
	// --seconds 1: frames for a second (one batch more or less), the totals count them.
	// (less the frames due while the last sleep, past the end, overslept)
	CHECK((double)wire.frames > frames_per_second * (1.0 - RATE_TOLERANCE - (double)slack_ns / 1e9));
	CHECK((double)wire.frames < frames_per_second * (1.0 + RATE_TOLERANCE) + 64);
	CHECK_EQ(total(totals, "sent"), wire.frames);
	CHECK_EQ(total(totals, "tx_packets"), wire.frames);
	CHECK_EQ(total(totals, "bytes"), wire.bytes);
	// Sleeping, not spinning: at most one sleep per batch (a batch: a call of ixy_tx_batch), and the clock read
	// about once per batch (and once more after a round that slept: second_passed). When the rate lets batches hold
	// more than one frame (min_frames_per_batch), there are that many fewer sleeps than frames: no sleep per
	// packet.
	// Counted until the last frame left; the wait at the end for the NIC to send what it took sleeps between looks,
	// at most 200 times (1 ms steps of ixy-pktgen's 200 ms).
	uint64_t loop_sleeps = wire.sending_sleeps, loop_batches = wire.sending_batches;
	CHECK(loop_sleeps > 0 && loop_sleeps <= loop_batches);
	CHECK(wire.sending_clock_reads <= 2 * loop_batches + 8);
	CHECK(loop_sleeps * min_frames_per_sleep <= wire.frames + min_frames_per_sleep);
	CHECK(loop_batches <= loop_sleeps + wire.frames + 2); // no spinning: a round that sends nothing sleeps
	CHECK(sleeps - loop_sleeps <= 201 && tx_batches - loop_batches <= sleeps - loop_sleeps + 2);
	sleep_slack_ns = SLEEP_SLACK_NS;
}

// ---- --size

static void check_sizes(void) {
	char totals[1024];
	model_test_begin("ixy-pktgen --size 1000 --flows 3 --count 3000");
	const char* fixed[] = {"--size", "1000", "--flows", "3", "--count", "3000", NULL};
	CHECK_EQ(run_pktgen(fixed, 3, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.by_size[1000], 3000);

	model_test_begin("ixy-pktgen --size 100-200 --count 101000");
	const char* uniform[] = {"--size", "100-200", "--count", "101000", "--flows", "2", NULL};
	CHECK_EQ(run_pktgen(uniform, 2, totals, sizeof(totals)), 0);
	check_clean_wire();
	uint64_t in_range = 0, worst = 0;
	for (uint32_t s = 100; s <= 200; s++) {
		in_range += wire.by_size[s];
		uint64_t off = wire.by_size[s] > 1000 ? wire.by_size[s] - 1000 : 1000 - wire.by_size[s];
		worst = off > worst ? off : worst;
	}
	printf("uniform 100-200: %" PRIu64 " of %" PRIu64 " in range, the furthest size %" PRIu64 " from its 1000\n",
	       in_range, wire.frames, worst);
	CHECK_EQ(in_range, 101000);
	CHECK(worst < 150); // 1000 +- 15 %: over 4.5 standard deviations (31.6)

	model_test_begin("ixy-pktgen --size imix --count 120000");
	const char* imix[] = {"--size", "imix", "--count", "120000", "--flows", "4", "--seed", "7", NULL};
	CHECK_EQ(run_pktgen(imix, 4, totals, sizeof(totals)), 0);
	check_clean_wire();
	printf("imix: 60: %" PRIu64 " 590: %" PRIu64 " 1514: %" PRIu64 " (7:4:1 of 120000: 70000 40000 10000)\n",
	       wire.by_size[60], wire.by_size[590], wire.by_size[1514]);
	CHECK_EQ(wire.by_size[60] + wire.by_size[590] + wire.by_size[1514], 120000);
	CHECK(wire.by_size[60] > 68600 && wire.by_size[60] < 71400);
	CHECK(wire.by_size[590] > 39200 && wire.by_size[590] < 40800);
	CHECK(wire.by_size[1514] > 9800 && wire.by_size[1514] < 10200);
}

// ---- --seed: the same seed, the same sizes in the same order, also when a full TX queue refuses frames

static void check_seed(void) {
	model_test_begin("ixy-pktgen --size 60-1514 --seed 5 --count 20000, TX stuttering");
	const char* options[] = {"--size", "60-1514", "--seed", "5", "--count", "20000", NULL};
	char totals[1024];
	stutter = true;
	CHECK_EQ(run_pktgen(options, 1, totals, sizeof(totals)), 0);
	stutter = false;
	check_clean_wire();
	CHECK_EQ(wire.frames, 20000);
	uint64_t refused = total(totals, "tx_full");
	struct frame_sizes sizes = {.mode = SIZE_UNIFORM, .min = 60, .max = 1514, .state = 5};
	uint32_t first_wrong = UINT32_MAX;
	for (uint32_t i = 0; i < 20000 && first_wrong == UINT32_MAX; i++) {
		if (wire.size_at[i] != sizes_next(&sizes)) {
			first_wrong = i;
		}
	}
	printf("--seed 5: %" PRIu64 " frames refused by the full TX queue, first size off the seed's sequence: %d\n",
	       refused, first_wrong == UINT32_MAX ? -1 : (int)first_wrong);
	CHECK(refused > 0 && refused != UINT64_MAX); // the queue did refuse frames
	CHECK_EQ(first_wrong, UINT32_MAX);
}

// ---- --count

static void check_count(void) {
	char totals[1024];
	model_test_begin("ixy-pktgen --count 1001");
	const char* options[] = {"--count", "1001", NULL};
	CHECK_EQ(run_pktgen(options, 1, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.frames, 1001);
	CHECK_EQ(wire.by_size[60], 1001);
	CHECK_EQ(total(totals, "sent"), 1001);
	CHECK_EQ(total(totals, "next_seq"), 1001);
	CHECK_EQ(total(totals, "pool_free"), total(totals, "pool_size"));
}

// ---- issue 37: addresses, VLAN, IPv6, queues, end markers

// The options of a run, and the spec they give (parsed here with the parsers of flows.h, which test_flows checks
// against hand-written values).
static void spec_of(const char* src_mac, const char* dst_mac, const char* src_ip, const char* dst_ip,
		    const char* src_port, const char* dst_port, const char* vlan) {
	spec_default(&wire_spec);
	if (src_mac) {
		CHECK(parse_mac(src_mac, wire_spec.src_mac, true) == NULL);
		wire_spec.src_mac_given = true;
	}
	CHECK(!dst_mac || parse_mac(dst_mac, wire_spec.dst_mac, false) == NULL);
	CHECK(!src_ip || parse_ip_range(src_ip, &wire_spec.src_ip, &wire_spec.src_family) == NULL);
	CHECK(!dst_ip || parse_ip_range(dst_ip, &wire_spec.dst_ip, &wire_spec.dst_family) == NULL);
	if (src_port) {
		CHECK(parse_port_range(src_port, &wire_spec.src_port) == NULL);
		wire_spec.src_port_given = true;
	}
	CHECK(!dst_port || parse_port_range(dst_port, &wire_spec.dst_port) == NULL);
	if (vlan) {
		CHECK(parse_vlan(vlan, &wire_spec.vlan_tci) == NULL);
		wire_spec.vlan = true;
	}
}

static void check_addresses(void) {
	char totals[1024];
	model_test_begin("ixy-pktgen every address option, IPv4 ranges, --vlan 100:5, --size 64-300");
	const char* v4[] = {"--src-mac",  "02:aa:bb:cc:dd:ee",
			    "--dst-mac",  "00:1b:21:01:02:03",
			    "--src-ip",   "10.9.0.1-10.9.0.4",
			    "--dst-ip",   "10.8.0.1-10.8.0.2",
			    "--src-port", "1000-1003",
			    "--dst-port", "2000-2001",
			    "--vlan",     "100:5",
			    "--flows",    "8",
			    "--count",    "8000",
			    "--size",     "64-300",
			    NULL};
	spec_of("02:aa:bb:cc:dd:ee", "00:1b:21:01:02:03", "10.9.0.1-10.9.0.4", "10.8.0.1-10.8.0.2", "1000-1003",
		"2000-2001", "100:5");
	CHECK_EQ(run_pktgen(v4, 8, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.frames, 8000);
	CHECK_EQ(total(totals, "sent"), 8000);
	CHECK_EQ(total(totals, "flows"), 8);
	for (uint32_t f = 0; f < 8; f++) {
		CHECK_EQ(wire.by_flow[f], 1000);
	}
	// The first frame (flow 0) field by field, as the options say it.
	static const uint8_t first[] = {0x00, 0x1b, 0x21, 0x01, 0x02, 0x03, 0x02, 0xaa, 0xbb, 0xcc,
					0xdd, 0xee, 0x81, 0x00, 0xa0, 0x64, 0x08, 0x00, 0x45};
	CHECK(memcmp(wire.kept[0], first, sizeof(first)) == 0);
	CHECK(wire.kept[1][33] == 2 && wire.kept[1][37] == 2 && wire.kept[1][39] == (1001 & 0xff)); // flow 1
	CHECK(wire.kept[5][33] == 2 && wire.kept[5][37] == 2 && wire.kept[5][41] == (2001 & 0xff)); // flow 5

	model_test_begin("ixy-pktgen IPv6 --src-ip fd00::1-fd00::3 --dst-ip 2001:db8::1 --size 80-200");
	const char* v6[] = {"--src-ip", "fd00::1-fd00::3", "--dst-ip", "2001:db8::1", "--count",
			    "3000",     "--size",          "80-200",   NULL};
	spec_of(NULL, NULL, "fd00::1-fd00::3", "2001:db8::1", NULL, NULL, NULL);
	CHECK_EQ(run_pktgen(v6, 3, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.frames, 3000);
	CHECK_EQ(total(totals, "flows"), 3); // as many flows as the range has addresses
	CHECK(wire.by_flow[0] == 1000 && wire.by_flow[1] == 1000 && wire.by_flow[2] == 1000);

	model_test_begin("ixy-pktgen IPv6 and --vlan 4094:7, default size");
	const char* v6vlan[] = {"--dst-ip", "fd00::99", "--vlan", "4094:7", "--count", "999", NULL};
	spec_of(NULL, NULL, NULL, "fd00::99", NULL, NULL, "4094:7");
	CHECK_EQ(run_pktgen(v6vlan, 1, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.by_size[84], 999); // the smallest frame of the form: 14 + 4 + 40 + 8 + 18
	CHECK(strstr(totals, " size=84") != NULL);
	spec_default(&wire_spec);
}

static uint64_t queue_total(int line, const char* key) {
	return line < queue_lines ? total(queue_line[line], key) : UINT64_MAX;
}

static void check_queues_and_end(void) {
	char totals[1024];
	model_test_begin("ixy-pktgen --queues 2 --flows 6 --count 6001");
	const char* two[] = {"--queues", "2", "--flows", "6", "--count", "6001", NULL};
	wire_queues = 2;
	CHECK_EQ(run_pktgen(two, 6, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.frames, 6001);
	CHECK_EQ(total(totals, "sent"), 6001);
	CHECK_EQ(total(totals, "queues"), 2);
	CHECK_EQ(queue_lines, 2);
	CHECK_EQ(queue_total(0, "sent"), 3001); // the count split, the first queue the odd one
	CHECK_EQ(queue_total(1, "sent"), 3000);
	CHECK_EQ(queue_total(0, "flows"), 3);
	CHECK_EQ(queue_total(0, "queue"), 0);
	CHECK_EQ(queue_total(1, "queue"), 1);
	CHECK_EQ(wire.by_flow[0] + wire.by_flow[2] + wire.by_flow[4], 3001);
	CHECK_EQ(total(totals, "pool_free"), total(totals, "pool_size"));
	CHECK_EQ(total(totals, "pool_size"), 2 * 2048);

	model_test_begin("ixy-pktgen --flows 4 --count 1002 --mark-end");
	const char* end[] = {"--flows", "4", "--count", "1002", "--mark-end", NULL};
	wire_queues = 1;
	CHECK_EQ(run_pktgen(end, 4, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.frames, 1002);
	CHECK_EQ(wire.markers, 4 * FLOWS_END_REPEAT);
	CHECK_EQ(total(totals, "sent"), 1002);
	CHECK_EQ(total(totals, "end_frames"), 4 * FLOWS_END_REPEAT);
	CHECK_EQ(total(totals, "tx_packets"), 1002 + 4 * FLOWS_END_REPEAT);
	CHECK_EQ(wire.markers_of[0], FLOWS_END_REPEAT);
	CHECK_EQ(wire.next_seq[0], 251); // 1002 = 4 * 250 + 2: flows 0 and 1 sent one more

	model_test_begin("ixy-pktgen --queues 2 IPv6 --vlan 3 --count 4000 --mark-end");
	const char* mixed[] = {"--queues", "2",       "--src-ip", "fd00::1-fd00::4", "--vlan",
			       "3",        "--count", "4000",     "--mark-end",      NULL};
	spec_of(NULL, NULL, "fd00::1-fd00::4", NULL, NULL, NULL, "3");
	wire_queues = 2;
	CHECK_EQ(run_pktgen(mixed, 4, totals, sizeof(totals)), 0);
	check_clean_wire();
	CHECK_EQ(wire.frames, 4000);
	CHECK_EQ(wire.markers, 4 * FLOWS_END_REPEAT);
	CHECK_EQ(total(totals, "end_frames"), 4 * FLOWS_END_REPEAT);
	CHECK_EQ(queue_total(1, "end_frames"), 2 * FLOWS_END_REPEAT);
	wire_queues = 1;
	spec_default(&wire_spec);
}

// ---- --replay

#define REPLAY_FRAMES 50

struct pcap_writer {
	FILE* file;
	bool big_endian, nano;
};

static void put32(FILE* file, uint32_t value, bool big_endian) {
	uint8_t b[4];
	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(value >> (big_endian ? 24 - 8 * i : 8 * i));
	}
	CHECK_EQ(fwrite(b, 1, 4, file), 4);
}

// A classic pcap file: magic (micro- or nanoseconds), version 2.4, zone 0, sigfigs 0, snaplen, link type.
static void write_header(FILE* file, uint32_t magic, bool big_endian, uint32_t snaplen, uint32_t link_type) {
	put32(file, magic, big_endian);
	put32(file, big_endian ? 0x00020004u : 0x00040002u, big_endian); // major 2, minor 4 (two 16-bit fields)
	put32(file, 0, big_endian);
	put32(file, 0, big_endian);
	put32(file, snaplen, big_endian);
	put32(file, link_type, big_endian);
}

static void write_record(FILE* file, bool big_endian, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len,
			 const uint8_t* data) {
	put32(file, sec, big_endian);
	put32(file, frac, big_endian);
	put32(file, caplen, big_endian);
	put32(file, len, big_endian);
	CHECK_EQ(fwrite(data, 1, caplen, file), caplen);
}

static uint8_t replay_data[REPLAY_FRAMES][PACKET_MAX_SIZE];
static const uint8_t* replay_ptrs[REPLAY_FRAMES];
static uint32_t replay_lens[REPLAY_FRAMES];
static uint64_t replay_ns[REPLAY_FRAMES];

// Frames of many sizes (42: an ARP-sized frame below 60, up to 1514) with a pattern, 1 ms + i * 10 us apart.
static void make_replay_frames(void) {
	const uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0x0d};
	uint64_t t = 0;
	for (uint32_t i = 0; i < REPLAY_FRAMES; i++) {
		uint32_t len = i == 3 ? 42 : 60 + (i * 331) % (1514 - 60 + 1);
		if (len >= 60) {
			model_test_frame(replay_data[i], len, dst, i);
		} else {
			for (uint32_t b = 0; b < len; b++) {
				replay_data[i][b] = (uint8_t)(i * 31 + b);
			}
		}
		replay_ptrs[i] = replay_data[i];
		replay_lens[i] = len;
		replay_ns[i] = t;
		t += 1000000 + i * 10000;
	}
}

static void write_replay_file(const char* path, bool big_endian, bool nano) {
	FILE* file = fopen(path, "wb");
	CHECK(file != NULL);
	if (!file) {
		return;
	}
	write_header(file, nano ? 0xa1b23c4du : 0xa1b2c3d4u, big_endian, 65535, 1);
	for (uint32_t i = 0; i < REPLAY_FRAMES; i++) {
		uint64_t ns = 1700000000ull * 1000000000ull + replay_ns[i];
		write_record(file, big_endian, (uint32_t)(ns / 1000000000ull),
			     (uint32_t)(nano ? ns % 1000000000ull : ns % 1000000000ull / 1000), replay_lens[i],
			     replay_lens[i], replay_data[i]);
	}
	CHECK_EQ(fclose(file), 0);
}

static void check_replay(void) {
	char path[] = "/tmp/ixy-pktgen-replay-XXXXXX", totals[1024];
	int fd = mkstemp(path);
	CHECK(fd >= 0 && close(fd) == 0);
	make_replay_frames();
	wire.expected = replay_ptrs;
	wire.expected_len = replay_lens;
	wire.expected_count = REPLAY_FRAMES;
	// Once, in each of the four formats: the wire is the file.
	for (int format = 0; format < 4; format++) {
		bool big_endian = format & 1, nano = format & 2;
		char name[96];
		snprintf(name, sizeof(name), "ixy-pktgen --replay (%s, %s-endian)", nano ? "ns" : "us",
			 big_endian ? "big" : "little");
		model_test_begin(name);
		write_replay_file(path, big_endian, nano);
		const char* options[] = {"--replay", path, NULL};
		CHECK_EQ(run_pktgen(options, 0, totals, sizeof(totals)), 0);
		CHECK_EQ(wire.frames, REPLAY_FRAMES);
		CHECK_EQ(wire.mismatches, 0);
		CHECK_EQ(total(totals, "sent"), REPLAY_FRAMES);
		CHECK_EQ(total(totals, "replay_frames"), REPLAY_FRAMES);
		CHECK_EQ(total(totals, "pool_free"), total(totals, "pool_size"));
	}
	// --loop --count: the file again and again, 2.5 times.
	model_test_begin("ixy-pktgen --replay --loop --count 125");
	const char* loop[] = {"--replay", path, "--loop", "--count", "125", NULL};
	CHECK_EQ(run_pktgen(loop, 0, totals, sizeof(totals)), 0);
	CHECK_EQ(wire.frames, 125);
	CHECK_EQ(wire.mismatches, 0);
	CHECK_EQ(total(totals, "pool_free"), total(totals, "pool_size"));
	// --replay-timing: each frame at its time since the first (the first at the start), at most 100 us late.
	model_test_begin("ixy-pktgen --replay --replay-timing");
	const char* timing[] = {"--replay", path, "--replay-timing", NULL};
	CHECK_EQ(run_pktgen(timing, 0, totals, sizeof(totals)), 0);
	CHECK_EQ(wire.frames, REPLAY_FRAMES);
	CHECK_EQ(wire.mismatches, 0);
	uint64_t early = 0, late = 0;
	for (uint32_t i = 1; i < REPLAY_FRAMES; i++) {
		uint64_t want = wire.sent_at[0] + replay_ns[i];
		early += wire.sent_at[i] + 1000 < want; // (the first frame's own clock reads)
		late += wire.sent_at[i] > want + 100000;
	}
	CHECK_EQ(early, 0);
	CHECK_EQ(late, 0);
	// --replay-timing --loop: pass k starts k passes later, a pass lasting from the first record to the last plus
	// their mean gap.
	model_test_begin("ixy-pktgen --replay --replay-timing --loop --count 120");
	const char* timing_loop[] = {"--replay", path, "--replay-timing", "--loop", "--count", "120", NULL};
	CHECK_EQ(run_pktgen(timing_loop, 0, totals, sizeof(totals)), 0);
	CHECK_EQ(wire.frames, 120);
	CHECK_EQ(wire.mismatches, 0);
	uint64_t last = replay_ns[REPLAY_FRAMES - 1], pass_ns = last + last / (REPLAY_FRAMES - 1);
	early = late = 0;
	for (uint32_t i = 1; i < 120; i++) {
		uint64_t want = wire.sent_at[0] + i / REPLAY_FRAMES * pass_ns + replay_ns[i % REPLAY_FRAMES];
		early += wire.sent_at[i] + 1000 < want;
		late += wire.sent_at[i] > want + 100000;
	}
	printf("--replay-timing --loop: pass %.3f ms, frame 50 sent %.3f ms after frame 0; %" PRIu64 " early, %" PRIu64
	       " late\n",
	       (double)pass_ns / 1e6, (double)(wire.sent_at[REPLAY_FRAMES] - wire.sent_at[0]) / 1e6, early, late);
	CHECK_EQ(early, 0);
	CHECK_EQ(late, 0);
	// --rate with --loop: the rate holds for the file's frames too (1 Gbit of their mixed sizes).
	model_test_begin("ixy-pktgen --replay --loop --rate 1Gbit --seconds 1");
	const char* rate[] = {"--replay", path, "--loop", "--rate", "1Gbit", "--seconds", "1", NULL};
	CHECK_EQ(run_pktgen(rate, 0, totals, sizeof(totals)), 0);
	CHECK_EQ(wire.mismatches, 0);
	double wire_bits = (double)wire.wire_bytes * 8.0;
	printf("replay at 1Gbit: %" PRIu64 " frames, %.0f wire bits in 1 s of virtual time\n", wire.frames, wire_bits);
	CHECK(wire_bits > 1e9 * (1.0 - RATE_TOLERANCE) && wire_bits < 1e9 * (1.0 + RATE_TOLERANCE));
	wire.expected_count = 0;
	CHECK_EQ(unlink(path), 0);
}

// Frames below 60 bytes (ARP: 42) take 60 on the wire, padded by the NIC (82599 TXPADEN, i350 PSP): a wire bit rate
// counts them so (84 bytes with FCS, preamble and gap), not as 66.
static void check_replay_short_frames(void) {
	model_test_begin("ixy-pktgen --replay (42 byte frames) --loop --rate 100Mbit --seconds 1");
	char path[] = "/tmp/ixy-pktgen-short-XXXXXX", totals[1024];
	int fd = mkstemp(path);
	FILE* file = fd >= 0 ? fdopen(fd, "wb") : NULL;
	CHECK(file != NULL);
	if (!file) {
		return;
	}
	static uint8_t arp[42];
	memset(arp, 0xff, 6);
	write_header(file, 0xa1b2c3d4u, false, 65535, 1);
	for (uint32_t i = 0; i < 10; i++) {
		arp[41] = (uint8_t)i;
		write_record(file, false, 1, i, sizeof(arp), sizeof(arp), arp);
	}
	CHECK_EQ(fclose(file), 0);
	const char* options[] = {"--replay", path, "--loop", "--rate", "100Mbit", "--seconds", "1", NULL};
	CHECK_EQ(run_pktgen(options, 0, totals, sizeof(totals)), 0);
	double expected = 1e8 / (84.0 * 8.0);
	printf("42 byte frames at 100Mbit: %" PRIu64 " frames in 1 s of virtual time, %.0f expected\n", wire.frames,
	       expected);
	CHECK((double)wire.frames > expected * (1.0 - RATE_TOLERANCE - 0.001));
	CHECK((double)wire.frames < expected * (1.0 + RATE_TOLERANCE));
	CHECK_EQ(unlink(path), 0);
}

// replay_load runs out of memory for each of its two tables of buffers (replay->bufs, then the table by index): exit
// 1, the reason, every buffer back in its pool (no leak warning), no frame sent.
static void check_replay_no_memory(void) {
	char path[] = "/tmp/ixy-pktgen-nomem-XXXXXX", totals[1024];
	int fd = mkstemp(path);
	CHECK(fd >= 0 && close(fd) == 0);
	write_replay_file(path, false, false);
	for (uint32_t which = 1; which <= 2; which++) {
		char name[64];
		snprintf(name, sizeof(name), "ixy-pktgen --replay, table %u of buffers out of memory", which);
		model_test_begin(name);
		calloc_fail_at = which;
		calloc_fail_count = REPLAY_FRAMES * ((2048 + REPLAY_FRAMES - 1) / REPLAY_FRAMES); // replay->buffers
		const char* options[] = {"--replay", path, NULL};
		CHECK_EQ(run_pktgen(options, 0, totals, sizeof(totals)), 1);
		CHECK_EQ(calloc_fail_at, 0); // the allocation was made, and failed
		calloc_fail_at = 0;
		CHECK_EQ(wire.frames, 0);
		CHECK(strstr(errors, "ixy-pktgen: no memory for the 2050 replay buffers\n") != NULL);
		CHECK(strstr(errors, "in use") == NULL); // no leak warning: all buffers were back in the pool
	}
	CHECK_EQ(unlink(path), 0);
}

// A bad file: exit 1, one line on stderr saying what is wrong, and the device never taken. With loop_timing, given
// with --replay-timing --loop.
static bool loop_timing;

static void check_bad_file(const char* name, const char* message, void (*write)(FILE* file)) {
	model_test_begin(name);
	char path[] = "/tmp/ixy-pktgen-bad-XXXXXX", totals[1024];
	int fd = mkstemp(path);
	FILE* file = fd >= 0 ? fdopen(fd, "wb") : NULL;
	CHECK(file != NULL);
	if (!file) {
		return;
	}
	write(file);
	CHECK_EQ(fclose(file), 0);
	const char* once[] = {"--replay", path, NULL};
	const char* looped[] = {"--replay", path, "--replay-timing", "--loop", NULL};
	CHECK_EQ(run_pktgen(loop_timing ? looped : once, 0, totals, sizeof(totals)), 1);
	CHECK(strstr(errors, message) != NULL);
	CHECK(strstr(errors, path) == errors + strlen("ixy-pktgen: "));
	CHECK(strchr(errors, '\n') == errors + strlen(errors) - 1); // one line
	CHECK(!reset_seen);
	CHECK_EQ(wire.frames, 0);
	CHECK_EQ(unlink(path), 0);
}

// Issue 34: a stop that comes as a sleep of days begins (--replay-timing, the next record three days later) ends the
// sleep within a slice (pacing.h), and a second SIGTERM does not kill the app: it sends no more, prints its totals,
// stops the NIC and exits 0. In virtual time: the run lasts less than a second, not three days.
static void check_stop_before_long_sleep(void) {
	model_test_begin("ixy-pktgen --replay-timing: SIGTERM just before a sleep of three days, and again");
	char path[] = "/tmp/ixy-pktgen-days-XXXXXX", totals[1024];
	int fd = mkstemp(path);
	FILE* file = fd >= 0 ? fdopen(fd, "wb") : NULL;
	CHECK(file != NULL);
	if (!file) {
		return;
	}
	write_header(file, 0xa1b2c3d4u, false, 65535, 1);
	write_record(file, false, 1700000000u, 0, replay_lens[0], replay_lens[0], replay_data[0]);
	write_record(file, false, 1700000000u + 3 * 86400, 0, replay_lens[0], replay_lens[0], replay_data[0]);
	CHECK_EQ(fclose(file), 0);
	const struct wire_expectation {
		const uint8_t* const* expected;
		uint32_t count;
	} saved = {wire.expected, wire.expected_count};
	wire.expected = NULL;
	wire.expected_count = 0;
	raise_at_sleep = 1;
	raise_again_at_sleep = 2;
	const char* options[] = {"--replay", path, "--replay-timing", NULL};
	CHECK_EQ(run_pktgen(options, 0, totals, sizeof(totals)), 0);
	raise_at_sleep = raise_again_at_sleep = 0;
	CHECK_EQ(stop_signal, SIGTERM);
	stop_signal = 0; // (the next run starts afresh)
	CHECK_EQ(wire.frames, 1);
	CHECK_EQ(total(totals, "sent"), 1);
	CHECK(total(totals, "run_ns") < 1000000000ull);
	wire.expected = saved.expected;
	wire.expected_count = saved.count;
	CHECK_EQ(unlink(path), 0);
}

static const uint8_t some_frame[PACKET_MAX_SIZE + 1];

static void bad_magic(FILE* f) {
	write_header(f, 0xa1b2c3d5u, false, 65535, 1);
}
static void short_header(FILE* f) {
	CHECK_EQ(fwrite("\xd4\xc3\xb2\xa1\x02\x00", 1, 6, f), 6);
}
static void bad_version(FILE* f) {
	put32(f, 0xa1b2c3d4u, false);
	put32(f, 0x00040003u, false);
	put32(f, 0, false);
	put32(f, 0, false);
	put32(f, 65535, false);
	put32(f, 1, false);
}
static void bad_snaplen(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 262145, 1);
}
static void not_ethernet(FILE* f) {
	write_header(f, 0xa1b2c3d4u, true, 65535, 105);
}
// Ethernet with its FCS (F bit, 2 16-bit words), and Ethernet with a reserved bit: both refused, the bits named.
static void ethernet_with_fcs(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 0x24000001u);
}
static void ethernet_reserved_bit(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 0x00010001u);
}
static void no_records(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
}
static void short_record_header(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	write_record(f, false, 1, 0, 60, 60, some_frame);
	put32(f, 1, false);
}
static void short_frame(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	put32(f, 1, false);
	put32(f, 0, false);
	put32(f, 100, false);
	put32(f, 100, false);
	CHECK_EQ(fwrite(some_frame, 1, 99, f), 99);
}
static void cut_frame(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	write_record(f, false, 1, 0, 60, 70, some_frame);
}
static void tiny_frame(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	write_record(f, false, 1, 0, 13, 13, some_frame);
}
static void huge_frame(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	write_record(f, false, 1, 0, 1515, 1515, some_frame);
}
static void above_snaplen(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 100, 1);
	write_record(f, false, 1, 0, 101, 101, some_frame);
}
static void bad_microseconds(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	write_record(f, false, 1, 1000000, 60, 60, some_frame);
}

static void one_record(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	write_record(f, false, 1, 5, 60, 60, some_frame);
}
static void same_times(FILE* f) {
	write_header(f, 0xa1b2c3d4u, false, 65535, 1);
	for (int i = 0; i < 3; i++) {
		write_record(f, false, 1, 5, 60, 60, some_frame);
	}
}

static void check_bad_files(void) {
	check_bad_file("--replay: bad magic", "magic a1b2c3d5 is not a1b2c3d4 or a1b23c4d", bad_magic);
	check_bad_file("--replay: truncated header", "truncated: 6 bytes", short_header);
	check_bad_file("--replay: version 3", "pcap version 3, not 2", bad_version);
	check_bad_file("--replay: snaplen", "snaplen 262145 is out of range", bad_snaplen);
	check_bad_file("--replay: link type", "link type 0x00000069 is not Ethernet (0x00000001)\n", not_ethernet);
	check_bad_file(
	    "--replay: link type with FCS",
	    "link type 0x24000001 is not Ethernet (0x00000001), F bit set: each frame ends in an FCS of 4 bytes",
	    ethernet_with_fcs);
	check_bad_file("--replay: link type, reserved bit",
		       "link type 0x00010001 is not Ethernet (0x00000001), upper bits 0x0001 set",
		       ethernet_reserved_bit);
	check_bad_file("--replay: no records", "no records", no_records);
	check_bad_file("--replay: truncated record header", "record 1: truncated record header (4 of 16",
		       short_record_header);
	check_bad_file("--replay: truncated frame", "record 0: truncated frame (99 of 100", short_frame);
	check_bad_file("--replay: cut frame", "record 0: captured 60 of 70 bytes", cut_frame);
	check_bad_file("--replay: 13 bytes", "record 0: frame of 13 bytes", tiny_frame);
	check_bad_file("--replay: 1515 bytes", "record 0: frame of 1515 bytes", huge_frame);
	check_bad_file("--replay: above the snaplen",
		       "record 0: frame of 101 bytes (allowed: 14 to 1514, at most the "
		       "snaplen 100)",
		       above_snaplen);
	check_bad_file("--replay: microseconds", "record 0: timestamp fraction 1000000 is out of range",
		       bad_microseconds);
	// Good files, but --replay-timing --loop has no time to loop at.
	loop_timing = true;
	check_bad_file("--replay-timing --loop: one record", "records span no time", one_record);
	check_bad_file("--replay-timing --loop: records at the same time", "records span no time", same_times);
	loop_timing = false;
	model_test_begin("--replay: no such file");
	const char* missing[] = {"--replay", "/nonexistent/ixy.pcap", NULL};
	char totals[1024];
	CHECK_EQ(run_pktgen(missing, 0, totals, sizeof(totals)), 1);
	CHECK(strstr(errors, "ixy-pktgen: /nonexistent/ixy.pcap: No such file or directory\n") == errors);
	CHECK(!reset_seen);
}

int main(void) {
	spec_default(&wire_spec);
	// Sleeps wake 50 us late: at 1 Mpps 50 frames are due then, a batch (at least 32 frames a batch); at 10 kpps
	// one.
	check_rate("ixy-pktgen --rate 10kpps", "10kpps", "60", 10000.0, SLEEP_SLACK_NS, 1);
	check_rate("ixy-pktgen --rate 1Mpps", "1Mpps", "60", 1e6, SLEEP_SLACK_NS, 32);
	check_rate("ixy-pktgen --rate 1Gbit --size 1514", "1Gbit", "1514", 1e9 / ((1514.0 + 24.0) * 8.0),
		   SLEEP_SLACK_NS, 1);
	// Each unit and a decimal point: pps, Mbit (1e6 bits: 100 Mbit/s of 1514 byte frames are 8127 frames/s).
	check_rate("ixy-pktgen --rate 500pps", "500pps", "60", 500.0, SLEEP_SLACK_NS, 1);
	check_rate("ixy-pktgen --rate 2.5kpps", "2.5kpps", "60", 2500.0, SLEEP_SLACK_NS, 1);
	check_rate("ixy-pktgen --rate 0.25Mpps", "0.25Mpps", "60", 250000.0, SLEEP_SLACK_NS, 8);
	check_rate("ixy-pktgen --rate 100Mbit --size 1514", "100Mbit", "1514", 1e8 / ((1514.0 + 24.0) * 8.0),
		   SLEEP_SLACK_NS, 1);
	check_rate("ixy-pktgen --rate 2.5Gbit --size 590", "2.5Gbit", "590", 2.5e9 / ((590.0 + 24.0) * 8.0),
		   SLEEP_SLACK_NS, 16);
	// Sleeps that wake 50 ms late: the catch-up must cover them (a cap of 1 ms gave 2 kpps as 346 pps in QEMU).
	check_rate("ixy-pktgen --rate 2kpps, sleeps 50 ms late", "2kpps", "60", 2000.0, LATE_SLEEP_SLACK_NS, 64);
	check_rate("ixy-pktgen --rate 1Mpps, sleeps 50 ms late", "1Mpps", "60", 1e6, LATE_SLEEP_SLACK_NS, 64);
	check_sizes();
	check_count();
	check_addresses();
	check_queues_and_end();
	check_seed();
	check_replay();
	check_replay_short_frames();
	check_replay_no_memory();
	check_stop_before_long_sleep();
	check_bad_files();
	return model_test_summary();
}
