// ixy-pcap --report (apps/ixy-pcap.c, main renamed ixy_pcap_main) against a modelled 82599 on frames made by
// ixy-pktgen's generator (apps/common/generator.h, issue 37) in the tagged IPv6 form: the frames lost after a flow's
// last received one count as lost once the flow's end markers (--mark-end) arrive, and not before. A feeder thread
// offers the generator's frames of two flows (161 each) less the tail of each (flow 0 from number 13, flow 1 from
// 150), first without the end markers (before: the report cannot know), then with them, the first of flow 0's lost
// (after: one of three is enough).
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ixy/ixy.h>

#include "../check.h"
#include "common/generator.h"
#include "common/packet.h"
#include "ixgbe_model.h"
#include "model_test.h"
#include "pcap_app_run.h"
#include "seam.h"

#define PORT "0000:0b:00.0"
#define PER_FLOW 161
#define MAX_FRAMES 400

uint64_t test_clock_ns(void) {
	return 2000000000ull;
}

// What the generator sent: a TX queue that keeps every frame.
struct recorder {
	struct ixy_device ixy;
	uint32_t n;
	uint8_t frame[MAX_FRAMES][128];
	uint32_t len[MAX_FRAMES];
};

static uint32_t record_tx(struct ixy_device* dev, uint16_t queue, struct pkt_buf* bufs[], uint32_t num_bufs) {
	struct recorder* r = (struct recorder*)dev;
	(void)queue;
	for (uint32_t i = 0; i < num_bufs; i++) {
		if (r->n < MAX_FRAMES && bufs[i]->size <= 128) {
			memcpy(r->frame[r->n], bufs[i]->data, bufs[i]->size);
			r->len[r->n++] = bufs[i]->size;
		}
		pkt_buf_free(bufs[i]);
	}
	return num_bufs;
}

struct feeder {
	struct model_ixgbe* nic;
	const struct recorder* sent;
	bool keep[MAX_FRAMES];
	uint32_t offered;
};

static void* feed(void* arg) {
	struct feeder* fd = arg;
	for (uint32_t i = 0, rounds = 0; i < fd->sent->n && rounds < 1000000; rounds++) {
		if (!fd->keep[i]) {
			i++;
			continue;
		}
		uint16_t got = 0;
		model_lock();
		bool room =
		    model_ixgbe_rx_descriptors_available(fd->nic, 0) > 0 &&
		    model_ixgbe_receive(fd->nic, fd->sent->frame[i], fd->sent->len[i], &got) == MODEL_RX_DELIVERED;
		model_unlock();
		if (room) {
			fd->offered++;
			i++;
		} else {
			nanosleep(&(struct timespec){.tv_nsec = 100 * 1000}, NULL);
		}
	}
	return NULL;
}

// Runs ixy-pcap --report on what fd keeps; returns the final report line's lost= and foreign= (lines printed).
static void run(struct feeder* fd, uint64_t* lost, uint64_t* tail, uint64_t* foreign, uint64_t flow_lost[2]) {
	fd->offered = 0;
	fd->nic = model_ixgbe_add(PORT);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < fd->sent->n; i++) {
		kept += fd->keep[i];
	}
	char count[16];
	snprintf(count, sizeof(count), "%u", kept);
	char* argv[] = {"ixy-pcap", "--no-sandbox", "--poll", "--report", PORT, "-", count, NULL};
	FILE* out = run_pcap_app(argv, feed, fd);
	CHECK_EQ(fd->offered, kept);
	char line[1024];
	*lost = *tail = *foreign = UINT64_MAX;
	while (out && fgets(line, sizeof(line), out)) {
		unsigned id;
		uint64_t l;
		if (strstr(line, " end=1\n") &&
		    sscanf(line, "flow app=ixy-pcap pci=" PORT " port=%*u id=%u received=%*u lost=%" SCNu64, &id, &l) ==
			2 &&
		    id < 2) {
			flow_lost[id] = l;
			fputs(line, stdout);
		}
		const char* at = strstr(line, " lost=");
		if (strncmp(line, "report ", 7) == 0 && strstr(line, " end=1\n") && at) {
			fputs(line, stdout);
			*lost = strtoull(at + 6, NULL, 10);
			*tail = strtoull(strstr(line, " tail_lost=") + 11, NULL, 10);
			*foreign = strtoull(strstr(line, " foreign=") + 9, NULL, 10);
		}
	}
	if (out) {
		fclose(out);
	}
	CHECK_NO_NEW_VIOLATIONS();
	model_pci_remove_all();
}

int main(void) {
	static struct recorder sent = {.ixy = {.num_tx_queues = 1, .tx_batch = record_tx}};
	struct mempool* pool = memory_allocate_mempool(512, 0);
	struct generator* gen = malloc(sizeof(*gen));
	struct packet_spec spec;
	spec_default(&spec);
	CHECK(parse_ip_range("fd00::1-fd00::2", &spec.src_ip, &spec.src_family) == NULL);
	CHECK(parse_vlan("12:4", &spec.vlan_tci) == NULL);
	spec.vlan = true;
	CHECK(pool && gen && generator_init_spec(gen, pool, &spec, (const uint8_t[6]){2, 0, 0, 0, 0, 1}, 0, 1) == 0);
	if (!pool || !gen) {
		return check_summary();
	}
	gen->flows = 2;
	while (gen->sent < 2 * PER_FLOW) {
		uint64_t left = 2 * PER_FLOW - gen->sent;
		generator_send(gen, &sent.ixy, 0, 1000000000ull + gen->sent, left < 64 ? (uint32_t)left : 64, NULL);
	}
	CHECK_EQ(generator_send_end(gen, &sent.ixy, 0), 0);
	CHECK_EQ(sent.n, 2 * PER_FLOW + 2 * FLOWS_END_REPEAT);

	static struct feeder fd;
	fd.sent = &sent;
	for (uint32_t i = 0; i < 2 * PER_FLOW; i++) {
		uint32_t flow = i % 2, seq = i / 2;
		fd.keep[i] = flow == 0 ? seq < 13 : seq < 150; // 148 and 11 frames lost at the end
	}
	uint64_t lost, tail, foreign, flow_lost[2] = {UINT64_MAX, UINT64_MAX};
	model_test_begin("ixy-pcap --report: the tail lost, no end markers");
	run(&fd, &lost, &tail, &foreign, flow_lost);
	CHECK_EQ(lost, 0); // nothing after the last received frame shows
	CHECK_EQ(tail, 0);
	CHECK_EQ(foreign, 0);

	model_test_begin("ixy-pcap --report: the tail lost, end markers (flow 0's first lost)");
	for (uint32_t i = 2 * PER_FLOW; i < sent.n; i++) {
		fd.keep[i] = i != 2 * PER_FLOW; // the markers: flow 0, flow 1, flow 0, ...
	}
	run(&fd, &lost, &tail, &foreign, flow_lost);
	CHECK_EQ(lost, 148 + 11);
	CHECK_EQ(tail, 148 + 11);
	CHECK_EQ(flow_lost[0], 148);
	CHECK_EQ(flow_lost[1], 11);
	CHECK_EQ(foreign, 0);
	free(gen);
	memory_free_mempool(pool);
	CHECK_EQ(seam_dma_live_allocations(), 0);
	return model_test_summary();
}
