// Helpers shared by the model tests: test frames, and the end of a test program.
// Include after test/check.h (the helpers use its CHECK macros).
#ifndef IXY_TEST_MODEL_TEST_H
#define IXY_TEST_MODEL_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ixy/ixy.h>

#include "model.h"

// Writes an Ethernet + IPv4 + UDP frame of len bytes (60..1514, without CRC) to dst_mac into frame: the payload
// starts with "ixy", is filled with a pattern derived from seq, and ends with seq as 32 bit little endian.
static inline void model_test_frame(uint8_t* frame, uint32_t len, const uint8_t dst_mac[6], uint32_t seq) {
	static const uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0xee, 0xee, 0xee};
	memset(frame, 0, len);
	memcpy(frame, dst_mac, 6);
	memcpy(frame + 6, src_mac, 6);
	frame[12] = 0x08; // IPv4
	frame[13] = 0x00;
	uint8_t* ip = frame + 14;
	uint32_t ip_len = len - 14;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[8] = 64; // TTL
	ip[9] = 17; // UDP
	const uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
	memcpy(ip + 12, addrs, 8);
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2) {
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	}
	while (sum >> 16) {
		sum = (sum & 0xFFFF) + (sum >> 16);
	}
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	uint8_t* udp = ip + 20;
	uint32_t udp_len = ip_len - 20;
	udp[0] = 0x04; // ports 1234 -> 5678
	udp[1] = 0xd2;
	udp[2] = 0x16;
	udp[3] = 0x2e;
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	uint8_t* payload = udp + 8;
	uint32_t payload_len = udp_len - 8;
	for (uint32_t i = 0; i < payload_len; i++) {
		payload[i] = (uint8_t)(seq * 7 + i);
	}
	memcpy(payload, "ixy", 3);
	frame[len - 4] = (uint8_t)seq;
	frame[len - 3] = (uint8_t)(seq >> 8);
	frame[len - 2] = (uint8_t)(seq >> 16);
	frame[len - 1] = (uint8_t)(seq >> 24);
}

// The sequence number in the last 4 bytes of a test frame.
static inline uint32_t model_test_frame_seq(const uint8_t* frame, uint32_t len) {
	return (uint32_t)frame[len - 4] | (uint32_t)frame[len - 3] << 8 | (uint32_t)frame[len - 2] << 16 |
	       (uint32_t)frame[len - 1] << 24;
}

// Captures what is written to stderr between model_test_capture_start() and model_test_capture_end(), which
// returns it (malloc'd, NUL-terminated; the caller frees it) and also passes it on to the real stderr.
static int capture_saved_fd = -1;
static FILE* capture_file;

static inline void model_test_capture_start(void) {
	fflush(stderr);
	capture_file = tmpfile();
	capture_saved_fd = dup(2);
	if (!capture_file || capture_saved_fd < 0 || dup2(fileno(capture_file), 2) < 0) {
		model_usage_error("cannot capture stderr");
	}
}

static inline char* model_test_capture_end(void) {
	fflush(stderr);
	if (dup2(capture_saved_fd, 2) < 0 || close(capture_saved_fd) != 0) {
		model_usage_error("cannot restore stderr");
	}
	long size = ftell(capture_file);
	char* text = calloc(1, size > 0 ? (size_t)size + 1 : 1);
	if (!text || fseek(capture_file, 0, SEEK_SET) != 0 ||
	    (size > 0 && fread(text, 1, (size_t)size, capture_file) != (size_t)size)) {
		model_usage_error("cannot read captured stderr");
	}
	fclose(capture_file);
	fputs(text, stderr);
	return text;
}

// Opens a modelled port with one RX and one TX queue of ring_size descriptors (0: the driver's default).
static inline struct ixy_device* model_test_open(const char* pci_addr, uint32_t ring_size) {
	struct ixy_config config = {.pci_addr = pci_addr, .rx_queues = 1, .tx_queues = 1, .ring_size = ring_size};
	struct ixy_device* dev = ixy_init_config(&config);
	CHECK(dev != NULL);
	return dev;
}

// Stops both devices (either may be NULL), then closes both: a buffer of one's pool may sit in the other's TX ring.
static inline void model_test_close_pair(struct ixy_device* a, struct ixy_device* b) {
	if (a) {
		ixy_stop(a);
	}
	if (b) {
		ixy_stop(b);
	}
	ixy_close(a);
	ixy_close(b);
}

// Violations are checked per test function: model_test_begin() at its start, CHECK_NO_NEW_VIOLATIONS() where it
// expects none (the model prints each violation when it happens).
static unsigned violations_before;
static const char* current_test = "?";

static inline void model_test_begin(const char* name) {
	current_test = name;
	violations_before = model_violation_count();
}

#define CHECK_NO_NEW_VIOLATIONS()                                                                                      \
	do {                                                                                                           \
		unsigned new_violations_ = model_violation_count() - violations_before;                                \
		if (new_violations_ > 0) {                                                                             \
			fprintf(stderr, "%s: %u model violation(s), see above\n", current_test, new_violations_);      \
		}                                                                                                      \
		CHECK_EQ(new_violations_, 0);                                                                          \
		violations_before = model_violation_count();                                                           \
	} while (0)

// Ends a test program: every violation the models recorded and the test did not expect is a failure.
static inline int model_test_summary(void) {
	if (model_violation_count() > 0) {
		fprintf(stderr, "%u unexpected model violation(s) in all:\n", model_violation_count());
		model_print_violations(stderr);
		check_failures++;
	}
	model_forget_violations();
	return check_summary();
}

// Checks that exactly the expected violation was recorded (and consumes it).
#define CHECK_VIOLATION(substring) CHECK(model_expect_violation(substring))

#endif
