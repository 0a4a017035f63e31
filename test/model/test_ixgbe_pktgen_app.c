// ixy-pktgen's own main() (apps/ixy-pktgen.c, compiled into this test with main renamed ixy_pktgen_main) against a
// modelled 82599, in virtual time (issue 30). The clock the app reads (monotonic_time_ns) and its sleep
// (clock_nanosleep) are replaced here (-Wl,--wrap): every clock read costs CLOCK_READ_NS of virtual time, and a sleep
// jumps the clock to its end plus SLEEP_SLACK_NS (a kernel wakes late: timer slack). The wire is the model's TX hook,
// which checks every frame the app sends (headers, lengths, checksum, sequence numbers per flow) and records its size
// and send time.
//   - --rate: 10 kpps, 1 Mpps and 1 Gbit at 1514 bytes: the send times stamped in the frames span (frames - 1) /
//     rate within RATE_TOLERANCE, and --seconds stops at the time;
//   - --size: fixed, uniform (every size of the range drawn, each within 15 % of its expectation) and imix (7:4:1
//     within 2 %);
//   - --count: exactly that many frames on the wire, the totals say so;
//   - --replay: the wire holds the file's frames byte for byte (see replay_tests).
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "common/packet.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "seam.h"

#define PORT "0000:0c:00.0"
#define CLOCK_READ_NS 200
#define SLEEP_SLACK_NS 50000
#define RATE_TOLERANCE 0.01
#define MAX_FLOWS 8
#define MAX_KEPT 64 // frames kept for the byte comparison of replays

int ixy_pktgen_main(int argc, char* argv[]);

// ---- virtual time

static _Atomic uint64_t virtual_ns = 1000000000ull;
static uint64_t sleeps;

uint64_t __wrap_monotonic_time_ns(void);
uint64_t __wrap_monotonic_time_ns(void) {
	return virtual_ns += CLOCK_READ_NS;
}

int __wrap_clock_nanosleep(clockid_t clock, int flags, const struct timespec* until, struct timespec* left);
int __wrap_clock_nanosleep(clockid_t clock, int flags, const struct timespec* until, struct timespec* left) {
	(void)left;
	CHECK(clock == CLOCK_MONOTONIC && flags == TIMER_ABSTIME);
	uint64_t end = (uint64_t)until->tv_sec * 1000000000ull + (uint64_t)until->tv_nsec;
	if (end > virtual_ns) {
		virtual_ns = end + SLEEP_SLACK_NS;
	}
	sleeps++;
	return 0;
}

// ---- the wire

struct wire {
	uint64_t frames, bad_header, bad_seq, bytes;
	uint64_t first_ns, last_ns, bad_time;
	uint64_t by_size[PACKET_MAX_SIZE + 1];
	uint32_t next_seq[MAX_FLOWS];
	uint32_t flows; // 0: frames are not ixy-pktgen's (replay): only kept
	uint8_t kept[MAX_KEPT][PACKET_MAX_SIZE];
	uint32_t kept_len[MAX_KEPT];
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
	wire.frames++;
	wire.bytes += len;
	if (wire.flows == 0) {
		return;
	}
	if (len < PACKET_MIN_SIZE || len > PACKET_MAX_SIZE) {
		wire.bad_header++;
		return;
	}
	wire.by_size[len]++;
	const uint8_t* ip = frame + PACKET_IPV4_HEADER_OFFSET;
	const uint8_t* udp = frame + PACKET_UDP_HEADER_OFFSET;
	uint32_t total = (uint32_t)ip[2] << 8 | ip[3], udp_len = (uint32_t)udp[4] << 8 | udp[5];
	wire.bad_header += total != len - 14 || udp_len != len - 34 ||
			   ipv4_checksum(ip, PACKET_IPV4_HEADER_SIZE) != 0 ||
			   memcmp(frame + PACKET_PAYLOAD_OFFSET, "ixy", 3) != 0;
	// Flow f has source port packet_flow_port(f) and its own sequence numbers 0, 1, 2, ...
	uint32_t port = (uint32_t)udp[0] << 8 | udp[1], flow = 0;
	while (flow < wire.flows && packet_flow_port(flow) != port) {
		flow++;
	}
	if (flow == wire.flows || packet_read_seq_at(frame, len) != wire.next_seq[flow]++) {
		wire.bad_seq++;
	}
	uint64_t sent_ns = packet_read_time(frame, len);
	wire.bad_time += sent_ns < wire.last_ns || sent_ns > virtual_ns; // in order, not in the future
	if (wire.frames == 1) {
		wire.first_ns = sent_ns;
	}
	wire.last_ns = sent_ns;
}

// Runs ixy-pktgen with options (NULL-terminated; --no-sandbox and the port added) against a new model; the wire
// records what it sends, checking frames as ixy-pktgen's with `flows` flows (0: frames of a file). Returns its exit
// code; its totals line is in totals.
static int run_pktgen(const char* const options[], uint32_t flows, char* totals, size_t totals_size) {
	memset(&wire, 0, sizeof(wire));
	wire.flows = flows;
	sleeps = 0;
	struct model_ixgbe* nic = model_ixgbe_add(PORT);
	model_ixgbe_record_tx(nic, false);
	model_ixgbe_log_registers(nic, false);
	model_ixgbe_set_tx_hook(nic, on_tx, NULL);
	char* argv[24];
	int argc = 0;
	argv[argc++] = "ixy-pktgen";
	argv[argc++] = "--no-sandbox";
	for (int i = 0; options[i]; i++) {
		argv[argc++] = (char*)options[i];
	}
	argv[argc++] = PORT;
	argv[argc] = NULL;
	FILE* out = tmpfile(); // ixy-pktgen's stdout, for its totals line
	int saved = dup(STDOUT_FILENO);
	CHECK(out && saved >= 0 && fflush(stdout) == 0 && dup2(fileno(out), STDOUT_FILENO) == STDOUT_FILENO);
	int rc = ixy_pktgen_main(argc, argv);
	CHECK(fflush(stdout) == 0 && dup2(saved, STDOUT_FILENO) == STDOUT_FILENO && close(saved) == 0);
	totals[0] = '\0';
	char line[1024];
	CHECK_EQ(fseek(out, 0, SEEK_SET), 0);
	while (fgets(line, sizeof(line), out)) {
		if (strncmp(line, "totals app=ixy-pktgen ", 22) == 0) {
			snprintf(totals, totals_size, "%s", line);
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
	CHECK_EQ(wire.bad_header, 0);
	CHECK_EQ(wire.bad_seq, 0);
	CHECK_EQ(wire.bad_time, 0);
}

// ---- --rate

// The send times of `frames` frames span (frames - 1) units of the rate, within RATE_TOLERANCE.
static void check_rate(const char* name, const char* rate, const char* size, double frames_per_second) {
	model_test_begin(name);
	const char* options[] = {"--rate", rate, "--size", size, "--seconds", "1", NULL};
	char totals[1024];
	CHECK_EQ(run_pktgen(options, 1, totals, sizeof(totals)), 0);
	check_clean_wire();
	double span_s = (double)(wire.last_ns - wire.first_ns) / 1e9;
	double achieved = (double)(wire.frames - 1) / span_s;
	printf("%s: %" PRIu64 " frames in %.6f s of virtual time: %.1f/s, target %.1f/s (%+.3f %%), %" PRIu64
	       " sleeps\n",
	       name, wire.frames, span_s, achieved, frames_per_second, 100.0 * (achieved / frames_per_second - 1.0),
	       sleeps);
	CHECK(achieved > frames_per_second * (1.0 - RATE_TOLERANCE));
	CHECK(achieved < frames_per_second * (1.0 + RATE_TOLERANCE));
	// --seconds 1: frames for a second (one batch more or less), the totals count them.
	CHECK((double)wire.frames > frames_per_second * (1.0 - RATE_TOLERANCE));
	CHECK((double)wire.frames < frames_per_second * (1.0 + RATE_TOLERANCE) + 64);
	CHECK_EQ(total(totals, "sent"), wire.frames);
	CHECK_EQ(total(totals, "tx_packets"), wire.frames);
	CHECK_EQ(total(totals, "bytes"), wire.bytes);
	// Sleeping, not spinning: at most one sleep per batch, and the clock read about once per batch.
	CHECK(sleeps > 0 && sleeps <= wire.frames);
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

int main(void) {
	check_rate("ixy-pktgen --rate 10kpps", "10kpps", "60", 10000.0);
	check_rate("ixy-pktgen --rate 1Mpps", "1Mpps", "60", 1e6);
	check_rate("ixy-pktgen --rate 1Gbit --size 1514", "1Gbit", "1514", 1e9 / ((1514.0 + 24.0) * 8.0));
	check_sizes();
	check_count();
	return model_test_summary();
}
