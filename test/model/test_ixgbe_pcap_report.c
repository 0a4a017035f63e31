// ixy-pcap --report (apps/ixy-pcap.c, main renamed ixy_pcap_main, common/report.h; issue 30) against a modelled 82599
// with --queues 2 and no file ("-"): a feeder thread offers ixy-pktgen's frames of FLOWS flows, of every size from 60
// to 1514 bytes, after dropping, swapping, holding back and repeating some on purpose, with foreign frames between
// them, each on the RX queue the software hash predicts. The report's final lines must give, per flow and in sum,
// exactly the frames received, lost, reordered, late, duplicated and too old that the feeder made.
//
// Latency: this test builds ixy-pcap with its monotonic clock replaced by test_clock_ns (CMakeLists.txt), which
// always reads NOW_NS; the feeder writes each frame's send time as NOW_NS minus a known latency. The reported min and
// max must be exact, each percentile within 1/256 (half a bucket of common/histogram.h) of the exact nearest-rank
// percentile of the known latencies.
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ixy/ixy.h>
#include <ixy/rss.h>
#include <ixy/sandbox.h>

#include "../check.h"
#include "common/flows.h"
#include "common/packet.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "pcap_app_run.h"
#include "seam.h"

#define PORT "0000:0b:00.0"
#define QUEUES 2
#define FLOWS 6
// Per flow: more than REPORT_WINDOW, so that a frame can come too late for the window; and more than 10000 timed
// frames in all, so that the nearest rank of p99.99 is below the last: p99.99 and max are different frames. No
// flow's last number is dropped (2009 mod 11 + f is not 4): nothing after it would show the loss.
#define SEQS 2010
#define MAX_FRAMES (FLOWS * SEQS * 2)
#define NOW_NS 1000000000000ull // what the clock of ixy-pcap reads in this test

// ixy-pcap's clock in this test (ixy-pcap.c is built with monotonic_time_ns=test_clock_ns).
uint64_t test_clock_ns(void) {
	return NOW_NS;
}

struct planned {
	uint32_t flow, seq; // flow FLOWS: a foreign frame
};

struct expected {
	uint64_t received, lost, reordered, late, duplicated, too_old;
};

struct feeder {
	struct model_ixgbe* nic;
	struct ixy_rss rss;
	struct planned frames[MAX_FRAMES];
	uint32_t count;   // planned frames
	uint32_t offered; // frames delivered to the NIC
	struct expected flow[FLOWS];
	uint32_t foreign;
};

static void plan(struct feeder* fd, uint32_t flow, uint32_t seq) {
	fd->frames[fd->count++] = (struct planned){.flow = flow, .seq = seq};
	if (flow < FLOWS) {
		fd->flow[flow].received++;
	} else {
		fd->foreign++;
	}
}

// Flow f's frames in the order the feeder delivers them, into list; returns their number. Dropped: every number n
// with n mod (11 + f) = 4. Held back: 150 + f, delivered once 200 numbers later (late). Swapped: n and n + 1 for n
// mod 50 = 20. Repeated at once: n mod 60 = 33; number 7 again after 300 (within the window). Flow 0 ends with
// number 3 again, more than REPORT_WINDOW below its highest (too old).
static uint32_t flow_order(uint32_t f, uint32_t list[2 * SEQS], struct expected* e) {
	uint32_t n = 0, held = 150 + f;
	bool held_pending = false, seven_again = false;
	for (uint32_t s = 0; s < SEQS; s++) {
		if (held_pending && s >= held + 200) {
			list[n++] = held;
			e->reordered++, e->late++;
			held_pending = false;
		}
		if (!seven_again && s >= 300) {
			list[n++] = 7;
			e->duplicated++;
			seven_again = true;
		}
		bool dropped = s % (11 + f) == 4, next_dropped = (s + 1) % (11 + f) == 4;
		if (dropped) {
			e->lost++;
		} else if (s == held) {
			held_pending = true;
		} else if (s % 50 == 20 && s + 1 < SEQS && !next_dropped && s + 1 != held) {
			list[n++] = s + 1;
			list[n++] = s;
			e->reordered++, e->late++;
			s++;
		} else {
			list[n++] = s;
			if (s % 60 == 33) {
				list[n++] = s;
				e->duplicated++;
			}
		}
	}
	if (f == 0) {
		list[n++] = 3;
		e->reordered++, e->too_old++;
	}
	return n;
}

// All flows' frames, taking turns, with a foreign frame after every 50th.
static void make_plan(struct feeder* fd) {
	static uint32_t lists[FLOWS][2 * SEQS];
	uint32_t lengths[FLOWS], next[FLOWS] = {0}, left = FLOWS;
	for (uint32_t f = 0; f < FLOWS; f++) {
		lengths[f] = flow_order(f, lists[f], &fd->flow[f]); // received: counted by plan()
	}
	while (left > 0) {
		left = 0;
		for (uint32_t f = 0; f < FLOWS; f++) {
			if (next[f] < lengths[f]) {
				plan(fd, f, lists[f][next[f]++]);
				left += next[f] < lengths[f];
				if (fd->count % 50 == 0) {
					plan(fd, FLOWS, 0);
				}
			}
		}
	}
}

// The latency of the j-th frame: 500 ns to 200 us, and every 1000th 5 ms and 100 us more than the one before: the
// largest ones differ by more than a bucket of the histogram, so p99.99 (the second largest here) is not max.
static uint64_t latency_of(uint32_t j) {
	return j % 1000 == 999 ? 5000000 + (uint64_t)j * 100 : 500 + (uint64_t)j * 7919 % 200000;
}

// The j-th planned frame: ixy-pktgen's, 60 to 1514 bytes, its flow's port, the send time NOW_NS - latency_of(j), the
// sequence number; or a foreign one (TCP, alternately IPv6's EtherType before an IPv4 header). Returns the size.
static uint32_t build_frame(uint8_t frame[PACKET_MAX_SIZE], const struct planned* p, uint32_t j) {
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x0b};
	uint32_t size = PACKET_MIN_SIZE + j * 131 % (PACKET_MAX_SIZE - PACKET_MIN_SIZE + 1);
	memset(frame, 0, PACKET_MAX_SIZE);
	packet_build_template(frame, mac);
	if (p->flow == FLOWS) {
		frame[j % 2 ? 23 : 12] = j % 2 ? 6 : 0x86; // TCP, or EtherType 0x86dd before an IPv4 header
		frame[j % 2 ? 23 : 13] = j % 2 ? 6 : 0xdd;
		return size;
	}
	packet_set_src_port(frame, packet_flow_port(p->flow));
	frame[PACKET_PAYLOAD_OFFSET + FLOWS_NUMBER] = (uint8_t)p->flow; // the report's key (common/flows.h)
	packet_stamp_time(frame, size, NOW_NS - latency_of(j));
	packet_put_le(frame + size - PACKET_SEQ_FROM_END, p->seq, 4);
	return size;
}

static void* feed(void* arg) {
	struct feeder* fd = arg;
	for (int rounds = 0; rounds < 1000000 && fd->offered < fd->count; rounds++) {
		uint8_t frame[PACKET_MAX_SIZE];
		uint32_t size = build_frame(frame, &fd->frames[fd->offered], fd->offered);
		uint16_t q = ixy_rss_queue(&fd->rss, frame, size), got = 0;
		model_lock();
		bool room = model_ixgbe_rx_descriptors_available(fd->nic, q) > 0 &&
			    model_ixgbe_receive(fd->nic, frame, size, &got) == MODEL_RX_DELIVERED;
		model_unlock();
		if (room && got == q) {
			fd->offered++;
		} else {
			nanosleep(&(struct timespec){.tv_nsec = 100 * 1000}, NULL);
		}
	}
	return NULL;
}

static int compare_u64(const void* a, const void* b) {
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : x > y;
}

// |reported - exact| <= exact / 256 (histogram.h: a percentile is its bucket's middle, buckets 1/128 wide).
static bool near(uint64_t reported, uint64_t exact) {
	uint64_t diff = reported > exact ? reported - exact : exact - reported;
	return diff * 256 <= exact;
}

int main(void) {
	model_test_begin("ixy-pcap --report --queues 2");
	static struct feeder fd;
	fd.nic = model_ixgbe_add(PORT);
	ixy_rss_default(&fd.rss, QUEUES);
	make_plan(&fd);
	char count[16];
	snprintf(count, sizeof(count), "%u", fd.count);
	char* argv[] = {"ixy-pcap", "--no-sandbox", "--poll", "--queues", "2", "--report", PORT, "-", count, NULL};
	FILE* out = run_pcap_app(argv, feed, &fd);
	CHECK_EQ(fd.offered, fd.count);

	// The exact percentiles of the known latencies (nearest rank: ceil(p * n), histogram_rank).
	static uint64_t latencies[MAX_FRAMES];
	uint32_t timed = 0;
	for (uint32_t j = 0; j < fd.count; j++) {
		if (fd.frames[j].flow < FLOWS) {
			latencies[timed++] = latency_of(j);
		}
	}
	qsort(latencies, timed, sizeof(latencies[0]), compare_u64);
	static const uint64_t ppm[] = {500000, 900000, 990000, 999000, 999900};
	uint64_t exact[5];
	for (int i = 0; i < 5; i++) {
		uint64_t rank = (ppm[i] * timed + 999999) / 1000000;
		exact[i] = latencies[rank - 1];
	}
	CHECK(!near(exact[4], latencies[timed - 1])); // p99.99 is not max: the check below can tell them apart

	char line[1024];
	unsigned flow_lines = 0, report_lines = 0, latency_lines = 0;
	struct expected sum = {0};
	for (uint32_t f = 0; f < FLOWS; f++) {
		sum.received += fd.flow[f].received, sum.lost += fd.flow[f].lost;
		sum.reordered += fd.flow[f].reordered, sum.late += fd.flow[f].late;
		sum.duplicated += fd.flow[f].duplicated, sum.too_old += fd.flow[f].too_old;
	}
	while (fgets(line, sizeof(line), out)) {
		fputs(line, stdout);
		unsigned port, flows;
		struct expected got;
		uint64_t foreign, other, n, untimed, min, p[5], max;
		if (sscanf(line,
			   "flow app=ixy-pcap pci=" PORT " port=%u id=%*u received=%" SCNu64 " lost=%" SCNu64
			   " reordered=%" SCNu64 " duplicated=%" SCNu64 " late=%" SCNu64 " too_old=%" SCNu64,
			   &port, &got.received, &got.lost, &got.reordered, &got.duplicated, &got.late,
			   &got.too_old) == 7 &&
		    strstr(line, " end=1\n")) {
			uint32_t f = 0;
			while (f < FLOWS && packet_flow_port(f) != port) {
				f++;
			}
			CHECK(f < FLOWS);
			const struct expected* e = &fd.flow[f % FLOWS];
			CHECK_EQ(got.received, e->received);
			CHECK_EQ(got.lost, e->lost);
			CHECK_EQ(got.reordered, e->reordered);
			CHECK_EQ(got.duplicated, e->duplicated);
			CHECK_EQ(got.late, e->late);
			CHECK_EQ(got.too_old, e->too_old);
			flow_lines++;
		}
		if (sscanf(line,
			   "report app=ixy-pcap pci=" PORT " flows=%u received=%" SCNu64 " lost=%" SCNu64
			   " reordered=%" SCNu64 " duplicated=%" SCNu64 " late=%" SCNu64 " too_old=%" SCNu64
			   " foreign=%" SCNu64 " other_flows=%" SCNu64,
			   &flows, &got.received, &got.lost, &got.reordered, &got.duplicated, &got.late, &got.too_old,
			   &foreign, &other) == 9 &&
		    strstr(line, " end=1\n")) {
			CHECK_EQ(flows, FLOWS);
			CHECK_EQ(got.received, sum.received);
			CHECK_EQ(got.lost, sum.lost);
			CHECK_EQ(got.reordered, sum.reordered);
			CHECK_EQ(got.duplicated, sum.duplicated);
			CHECK_EQ(got.late, sum.late);
			CHECK_EQ(got.too_old, sum.too_old);
			CHECK_EQ(foreign, fd.foreign);
			CHECK_EQ(other, 0);
			report_lines++;
		}
		if (sscanf(line,
			   "latency app=ixy-pcap pci=" PORT " count=%" SCNu64 " untimed=%" SCNu64 " min_ns=%" SCNu64
			   " p50_ns=%" SCNu64 " p90_ns=%" SCNu64 " p99_ns=%" SCNu64 " p99_9_ns=%" SCNu64
			   " p99_99_ns=%" SCNu64 " max_ns=%" SCNu64,
			   &n, &untimed, &min, &p[0], &p[1], &p[2], &p[3], &p[4], &max) == 9 &&
		    strstr(line, " end=1\n")) {
			CHECK_EQ(n, timed);
			CHECK_EQ(untimed, 0);
			CHECK_EQ(min, latencies[0]);
			CHECK_EQ(max, latencies[timed - 1]);
			for (int i = 0; i < 5; i++) {
				if (!near(p[i], exact[i])) {
					fprintf(stderr,
						"percentile %" PRIu64 " ppm: reported %" PRIu64 ", exact %" PRIu64 "\n",
						ppm[i], p[i], exact[i]);
				}
				CHECK(near(p[i], exact[i]));
			}
			latency_lines++;
		}
	}
	fclose(out);
	CHECK_EQ(flow_lines, FLOWS);
	CHECK_EQ(report_lines, 1);
	CHECK_EQ(latency_lines, 1);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
	return model_test_summary();
}
