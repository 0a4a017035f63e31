// ixy-pcap --report's lines once a second (end=0; apps/ixy-pcap.c, main renamed ixy_pcap_main; issue 30) against a
// modelled 82599. The test builds ixy-pcap with its monotonic clock replaced by test_clock_ns (CMakeLists.txt), a
// virtual clock that moves on STEP_NS at each read: the app's seconds pass after a few hundred reads.
//
// A feeder thread offers FIRST frames of one flow in order, waits until the driver has taken them all from the RX
// ring and the virtual clock has moved on PAUSE_NS after that (ixy-pcap reads it while it polls), then offers the
// remaining frames. Every second_passed after the driver took the first frames comes after report_frame counted
// them, and within PAUSE_NS one must say a second passed: so some end=0 lines (flow, report, latency) must give
// exactly FIRST received, and no end=0 line may give more than the frames offered by then, or fewer than an earlier
// one (the lines count from the start, they are not reset each second). The final lines (end=1) give them all.
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>
#include <ixy/sandbox.h>

#include "../check.h"
#include "common/packet.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "pcap_app_run.h"
#include "seam.h"

#define PORT "0000:0b:00.0"
#define FIRST 1000
#define TOTAL 1500
#define STEP_NS 10000000ull       // 10 ms per clock read
#define PAUSE_NS 2500000000ull    // 2.5 s of virtual time between the two parts
#define LATENCY_NS 1000ull        // send time written: the clock at the frame's making minus this
#define START_NS 1000000000000ull // the virtual clock's start

static _Atomic uint64_t clock_ns = START_NS;

// ixy-pcap's clock in this test (ixy-pcap.c is built with monotonic_time_ns=test_clock_ns).
uint64_t test_clock_ns(void) {
	return atomic_fetch_add(&clock_ns, STEP_NS);
}

struct feeder {
	struct model_ixgbe* nic;
	uint32_t offered;
	bool drained; // the driver took the first part from the ring before the pause
};

static void pause_briefly(void) {
	nanosleep(&(struct timespec){.tv_nsec = 100 * 1000}, NULL);
}

static uint32_t available(struct model_ixgbe* nic) {
	model_lock();
	uint32_t n = model_ixgbe_rx_descriptors_available(nic, 0);
	model_unlock();
	return n;
}

static void* feed(void* arg) {
	struct feeder* fd = arg;
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x0b};
	uint8_t frame[PACKET_SIZE];
	packet_build_template(frame, mac);
	uint32_t ring = 0; // the descriptors available to the NIC on an empty ring
	for (int rounds = 0; rounds < 1000000 && ring == 0; rounds++) {
		ring = available(fd->nic);
		if (ring == 0) {
			pause_briefly();
		}
	}
	for (int rounds = 0; rounds < 1000000 && fd->offered < TOTAL; rounds++) {
		if (fd->offered == FIRST && !fd->drained) {
			// Wait until the driver took them all, then for PAUSE_NS of the app's clock reads.
			for (int i = 0; i < 1000000 && available(fd->nic) != ring; i++) {
				pause_briefly();
			}
			uint64_t from = atomic_load(&clock_ns);
			for (int i = 0; i < 1000000 && atomic_load(&clock_ns) - from < PAUSE_NS; i++) {
				pause_briefly();
			}
			fd->drained = atomic_load(&clock_ns) - from >= PAUSE_NS;
		}
		packet_stamp_time(frame, PACKET_SIZE, atomic_load(&clock_ns) - LATENCY_NS);
		packet_stamp_seq(frame, fd->offered);
		model_lock();
		bool delivered = model_ixgbe_rx_descriptors_available(fd->nic, 0) > 0 &&
				 model_ixgbe_inject_rx(fd->nic, 0, frame, PACKET_SIZE) == MODEL_RX_DELIVERED;
		model_unlock();
		if (delivered) {
			fd->offered++;
		} else {
			pause_briefly();
		}
	}
	return NULL;
}

int main(void) {
	model_test_begin("ixy-pcap --report: the lines once a second (end=0)");
	static struct feeder fd;
	fd.nic = model_ixgbe_add(PORT);
	char count[16];
	snprintf(count, sizeof(count), "%d", TOTAL);
	char* argv[] = {"ixy-pcap", "--no-sandbox", "--poll", "--report", PORT, "-", count, NULL};
	FILE* out = run_pcap_app(argv, feed, &fd);
	CHECK_EQ(fd.offered, TOTAL);
	CHECK(fd.drained);

	const unsigned port = packet_flow_port(0);
	char line[1024];
	unsigned seconds = 0, first_part[3] = {0}, finals[3] = {0};
	uint64_t last[3] = {
	    0}; // received (flow, report), count + untimed (latency) of the last end=0 line of each kind
	while (fgets(line, sizeof(line), out)) {
		fputs(line, stdout);
		unsigned got_port, flows, end;
		uint64_t received, lost, reordered, duplicated, late, too_old, foreign, other, n, untimed;
		int kind = -1;
		if (sscanf(line,
			   "flow app=ixy-pcap pci=" PORT " port=%u id=0 received=%" SCNu64 " lost=%" SCNu64
			   " reordered=%" SCNu64 " duplicated=%" SCNu64 " late=%" SCNu64 " too_old=%" SCNu64
			   " sent=0 tail_lost=0 end=%u",
			   &got_port, &received, &lost, &reordered, &duplicated, &late, &too_old, &end) == 8) {
			CHECK_EQ(got_port, port);
			CHECK_EQ(lost + reordered + duplicated + late + too_old, 0);
			kind = 0;
		} else if (sscanf(line,
				  "report app=ixy-pcap pci=" PORT " flows=%u received=%" SCNu64 " lost=%" SCNu64
				  " reordered=%" SCNu64 " duplicated=%" SCNu64 " late=%" SCNu64 " too_old=%" SCNu64
				  " foreign=%" SCNu64 " other_flows=%" SCNu64 " sent=0 tail_lost=0 ended=0 end_frames=0"
				  " end=%u",
				  &flows, &received, &lost, &reordered, &duplicated, &late, &too_old, &foreign, &other,
				  &end) == 10) {
			CHECK_EQ(flows, received > 0 ? 1 : 0);
			CHECK_EQ(lost + reordered + duplicated + late + too_old + foreign + other, 0);
			kind = 1;
			seconds += end == 0;
		} else if (sscanf(line,
				  "latency app=ixy-pcap pci=" PORT " count=%" SCNu64 " untimed=%" SCNu64
				  " min_ns=%*[0-9] p50_ns=%*[0-9] p90_ns=%*[0-9] p99_ns=%*[0-9]"
				  " p99_9_ns=%*[0-9] p99_99_ns=%*[0-9] max_ns=%*[0-9] end=%u",
				  &n, &untimed, &end) == 3) {
			received = n + untimed;
			kind = 2;
		}
		if (kind < 0) {
			continue;
		}
		CHECK(end <= 1);
		if (end == 0) {
			CHECK(received >= last[kind]); // counted from the start
			CHECK(received <= TOTAL);
			first_part[kind] += received == FIRST;
			last[kind] = received;
		} else {
			CHECK_EQ(received, TOTAL);
			finals[kind]++;
		}
	}
	fclose(out);
	printf("%u seconds of report lines\n", seconds);
	CHECK(seconds >= 2);
	for (int kind = 0; kind < 3; kind++) {
		CHECK(first_part[kind] >= 1); // a second's lines between the two parts
		CHECK_EQ(finals[kind], 1);
	}
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	return model_test_summary();
}
