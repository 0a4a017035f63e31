// pcap_report_bench: what ixy-pcap --report (apps/common/report.h, issue 30) costs per received packet, with the
// 82599 model (test/model) as the NIC. Instructions only, counted by callgrind (bench/run.sh --pcap-report).
//
// One modelled 82599, one RX queue, default ring (512). Every round injects BATCH (32) of ixy-pktgen's 60-byte frames
// (FLOWS flows taking turns, each with its next sequence number and a send time), receives them with ixy_rx_batch and
// hands them to the report step of ixy-pcap without a file: one monotonic clock read for the batch, report_frame per
// packet. The step is a function of its own (report_step), so that callgrind collects it alone
// (--toggle-collect=report_step); bench/run.sh divides its instructions by the packets. The driver's RX and the
// model's work are outside. Fails (exit 1) unless the report counted every frame, none lost, reordered or duplicated.
//
// Usage: pcap_report_bench [packets [flows]]   (defaults 640000 and 64; flows 1 to REPORT_MAX_FLOWS)
#include <stdio.h>
#include <stdlib.h>

#include <ixy/ixy.h>

#include "common/flows.h"
#include "common/packet.h"
#include "common/report.h"
#include "ixgbe_model.h"

#define PORT "0000:0b:00.0"
#define BATCH 32

// ixy-pcap's report path for one batch (apps/ixy-pcap.c, capture_round without a file).
__attribute__((noinline)) void report_step(struct report* report, struct pkt_buf* bufs[], uint32_t n);
void report_step(struct report* report, struct pkt_buf* bufs[], uint32_t n) {
	uint64_t received_ns = monotonic_time_ns();
	for (uint32_t i = 0; i < n; i++) {
		report_frame(report, bufs[i]->data, bufs[i]->size, received_ns);
	}
}

int main(int argc, char* argv[]) {
	uint64_t packets = argc > 1 ? strtoull(argv[1], NULL, 10) : 640000;
	uint32_t flows = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 64;
	if (packets < BATCH || flows < 1 || flows > REPORT_MAX_FLOWS) {
		fprintf(stderr, "usage: pcap_report_bench [packets >= %d [flows 1 to %d]]\n", BATCH, REPORT_MAX_FLOWS);
		return 2;
	}
	struct model_ixgbe* nic = model_ixgbe_add(PORT);
	model_ixgbe_set_perfect(nic, true);
	struct ixy_config config = {.pci_addr = PORT, .rx_queues = 1, .tx_queues = 1};
	struct ixy_device* dev = ixy_init_config(&config);
	struct report* report = report_create();
	if (!dev || !report) {
		return 1;
	}
	model_advance_us(1000000); // the link is up
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint8_t frame[PACKET_SIZE];
	packet_build_template(frame, mac);
	uint64_t sent = 0, received = 0, not_delivered = 0;
	while (received < packets) {
		for (uint32_t i = 0; i < BATCH; i++, sent++) {
			uint32_t flow = (uint32_t)(sent % flows);
			packet_set_src_port(frame, packet_flow_port(flow));
			frame[PACKET_PAYLOAD_OFFSET + FLOWS_NUMBER] =
			    (uint8_t)flow; // the report's key (common/flows.h)
			frame[PACKET_PAYLOAD_OFFSET + FLOWS_NUMBER + 1] = (uint8_t)(flow >> 8);
			packet_stamp_time(frame, PACKET_SIZE, monotonic_time_ns());
			packet_stamp_seq(frame, (uint32_t)(sent / flows));
			not_delivered += model_ixgbe_inject_rx(nic, 0, frame, PACKET_SIZE) != MODEL_RX_DELIVERED;
		}
		struct pkt_buf* bufs[BATCH];
		uint32_t n = ixy_rx_batch(dev, 0, bufs, BATCH);
		report_step(report, bufs, n);
		for (uint32_t i = 0; i < n; i++) {
			pkt_buf_free(bufs[i]);
		}
		received += n;
	}
	uint64_t counted = 0, wrong = 0;
	for (uint32_t f = 0; f < report->flows; f++) {
		counted += report->flow[f].received;
		wrong += report_lost(&report->flow[f]) + report->flow[f].reordered + report->flow[f].duplicated;
	}
	printf("pcap_report_bench: %llu packets, %u flows, batch %d\n", (unsigned long long)received, report->flows,
	       BATCH);
	int status = not_delivered != 0 || counted != received || wrong != 0 || report->flows != flows;
	if (status) {
		fprintf(stderr, "pcap_report_bench: %llu not delivered, %llu counted, %llu lost/reordered/duplicated\n",
			(unsigned long long)not_delivered, (unsigned long long)counted, (unsigned long long)wrong);
	}
	report_destroy(report);
	ixy_close(dev);
	model_pci_remove_all();
	return status;
}
