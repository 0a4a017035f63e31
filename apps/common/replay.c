// ixy-pktgen --replay: a pcap file's frames, sent from DMA buffers filled once (see replay.h).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "sender.h"

static int fail(const char* path, const char* problem) {
	fprintf(stderr, "ixy-pktgen: %s: %s\n", path, problem);
	return -1;
}

// The whole file into *data (at most PCAP_READ_MAX_FILE bytes).
static int read_file(const char* path, uint8_t** data, size_t* size) {
	// O_NONBLOCK: a FIFO (or a device) is refused below instead of blocking the open until a writer comes; it is
	// cleared again for the read of a regular file (where it changes nothing).
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	FILE* file = fd >= 0 && fcntl(fd, F_SETFL, 0) == 0 ? fdopen(fd, "rb") : NULL;
	if (!file) {
		fail(path, strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	struct stat st;
	int rc = -1;
	if (fstat(fileno(file), &st) != 0) {
		fail(path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		fail(path, "not a regular file");
	} else if ((uint64_t)st.st_size > PCAP_READ_MAX_FILE) {
		fail(path, "larger than 65536 records of 1514 bytes");
	} else if (!(*data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1))) {
		fail(path, "out of memory");
	} else if (fread(*data, 1, (size_t)st.st_size, file) != (size_t)st.st_size) {
		fail(path, "cannot read the whole file");
		free(*data);
		*data = NULL;
	} else {
		*size = (size_t)st.st_size;
		rc = 0;
	}
	fclose(file); // read only: nothing to lose on a failing close
	return rc;
}

int replay_open(struct replay* replay, const char* path, bool loop, bool timing) {
	*replay = (struct replay){.loop = loop, .timing = timing};
	size_t size = 0;
	if (read_file(path, &replay->file, &size) != 0) {
		return -1;
	}
	char problem[160];
	replay->parsed = malloc(PCAP_READ_MAX_FRAMES * sizeof(*replay->parsed));
	replay->frames = replay->parsed ? pcap_parse(replay->file, size, replay->parsed, problem, sizeof(problem)) : 0;
	if (replay->frames == 0) {
		fail(path, replay->parsed ? problem : "out of memory");
		replay_free(replay);
		return -1;
	}
	uint32_t copies = (REPLAY_MIN_BUFFERS + replay->frames - 1) / replay->frames;
	replay->buffers = replay->frames * copies; // below 2 * max(frames, REPLAY_MIN_BUFFERS)
	replay->due_ns = calloc(replay->frames, sizeof(*replay->due_ns));
	if (!replay->due_ns) {
		fail(path, "out of memory");
		replay_free(replay);
		return -1;
	}
	for (uint32_t i = 0; i < replay->frames; i++) {
		replay->due_ns[i] = replay->parsed[i].time_ns;
	}
	uint64_t last = replay->due_ns[replay->frames - 1];
	replay->pass_ns = replay->frames > 1 ? last + last / (replay->frames - 1) : 0;
	if (loop && timing && replay->pass_ns == 0) {
		// Every pass would be due at once: a line rate burst, not the file's timing.
		fail(path,
		     "its records span no time (one record, or all at the same time): --replay-timing cannot loop it "
		     "(give --rate)");
		replay_free(replay);
		return -1;
	}
	return 0;
}

int replay_load(struct replay* replay) {
	// All allocations before any buffer is taken: a failure leaves the pool whole (replay_free then frees it).
	replay->pool = memory_allocate_mempool(replay->buffers, 0);
	replay->bufs = calloc(replay->buffers, sizeof(*replay->bufs));
	replay->ready = calloc(replay->buffers, sizeof(*replay->ready));
	struct pkt_buf** by_index = calloc(replay->buffers, sizeof(*by_index));
	if (!replay->pool || !replay->bufs || !replay->ready || !by_index) {
		fprintf(stderr, "ixy-pktgen: no memory for the %u replay buffers\n", replay->buffers);
		free(by_index);
		return -1;
	}
	// Take every buffer: they stay here until sent, and come back to the pool from the TX ring.
	struct pkt_buf** all = replay->bufs;
	uint32_t taken = pkt_buf_alloc_batch(replay->pool, all, replay->buffers);
	if (taken != replay->buffers) { // (a new pool of exactly that many buffers: not expected)
		fprintf(stderr, "ixy-pktgen: cannot take the replay buffers\n");
		for (uint32_t i = 0; i < taken; i++) {
			pkt_buf_free(all[i]);
		}
		free(by_index);
		return -1;
	}
	for (uint32_t i = 0; i < taken; i++) {
		by_index[all[i]->mempool_idx] = all[i]; // mempool_idx < buffers (the pool's own numbering)
	}
	for (uint32_t j = 0; j < replay->buffers; j++) {
		const struct pcap_frame* frame = &replay->parsed[j % replay->frames];
		memcpy(by_index[j]->data, frame->data, frame->len);
		by_index[j]->size = frame->len;
		replay->ready[j] = true;
	}
	free(replay->bufs);
	replay->bufs = by_index;
	free(replay->parsed);
	free(replay->file);
	replay->parsed = NULL;
	replay->file = NULL;
	return 0;
}

// The time position p is due with --replay-timing.
static uint64_t due(const struct replay* replay, uint64_t p) {
	return replay->start_ns + p / replay->frames * replay->pass_ns + replay->due_ns[p % replay->frames];
}

uint32_t replay_send(struct replay* replay, struct ixy_device* dev, uint16_t queue, uint64_t now_ns,
		     uint32_t max_packets, struct pacer* pacer) {
	struct pkt_buf* back[REPLAY_BATCH_SIZE];
	uint32_t n;
	while ((n = pkt_buf_alloc_batch(replay->pool, back, REPLAY_BATCH_SIZE)) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			replay->ready[back[i]->mempool_idx] = true;
		}
	}
	if (replay->position == 0 && replay->start_ns == 0) {
		replay->start_ns = now_ns;
	}
	uint64_t budget = pacer ? pacer_budget(pacer, now_ns) : UINT64_MAX, units = 0;
	uint64_t unit_of[REPLAY_BATCH_SIZE] = {0};
	struct pkt_buf* bufs[REPLAY_BATCH_SIZE];
	uint32_t num = 0;
	max_packets = max_packets < REPLAY_BATCH_SIZE ? max_packets : REPLAY_BATCH_SIZE;
	for (uint64_t p = replay->position; num < max_packets && units < budget; p++, num++) {
		uint32_t j = (uint32_t)(p % replay->buffers);
		if ((!replay->loop && p >= replay->frames) || !replay->ready[j] ||
		    (replay->timing && due(replay, p) > now_ns)) {
			break;
		}
		bufs[num] = replay->bufs[j];
		unit_of[num] = pacer ? pacer_units(pacer, bufs[num]->size) : 1;
		units += unit_of[num];
		replay->ready[j] = false;
	}
	uint32_t num_sent = ixy_tx_batch(dev, queue, bufs, num);
	for (uint32_t i = 0; i < num; i++) {
		if (i >= num_sent) {
			replay->ready[bufs[i]->mempool_idx] = true; // refused: still ours, sent again next time
		} else {
			replay->bytes += bufs[i]->size;
			if (pacer) {
				pacer_sent(pacer, unit_of[i]);
			}
		}
	}
	replay->position += num_sent;
	replay->not_taken += num - num_sent;
	return num_sent;
}

uint64_t replay_next_ns(const struct replay* replay, const struct pacer* pacer) {
	if (!replay->loop && replay->position >= replay->frames) {
		return UINT64_MAX;
	}
	if (replay->timing) {
		return due(replay, replay->position);
	}
	return pacer ? pacer_next_ns(pacer) : 0;
}

uint32_t replay_free_buffers(const struct replay* replay) {
	uint32_t held = 0;
	for (uint32_t j = 0; j < replay->buffers && replay->ready; j++) {
		held += replay->ready[j];
	}
	return held + (replay->pool ? replay->pool->free_stack_top : 0);
}

void replay_free(struct replay* replay) {
	for (uint32_t j = 0; j < replay->buffers && replay->ready && replay->bufs; j++) {
		if (replay->ready[j] && replay->bufs[j]) {
			pkt_buf_free(replay->bufs[j]); // back to the pool, which then holds all of them
		}
	}
	free(replay->file);
	free(replay->parsed);
	free(replay->due_ns);
	free(replay->bufs);
	free(replay->ready);
	memory_free_mempool(replay->pool);
	*replay = (struct replay){0};
}

static uint32_t send_replayed(void* self, struct ixy_device* dev, uint16_t queue, uint64_t now_ns, uint32_t max_packets,
			      struct pacer* pacer) {
	return replay_send(self, dev, queue, now_ns, max_packets, pacer);
}

static uint64_t next_replayed(const void* self, const struct pacer* pacer) {
	return replay_next_ns(self, pacer);
}

const struct sender_ops replay_sender = {.send = send_replayed, .next_ns = next_replayed};
