// A writer for classic pcap files (the format of tcpdump -w and Wireshark's "pcap", not pcapng).
//
// File layout, every field written little-endian (readers recognise the byte order by the magic number):
//   global header, 24 bytes: magic 0xa1b2c3d4 (timestamps in microseconds), version 2.4, time zone offset 0,
//                            timestamp accuracy 0, snaplen 65535, link type 1 (Ethernet)
//   per packet, 16 bytes:    seconds, microseconds, bytes stored (at most snaplen), bytes on the wire
//                            followed by the stored bytes
// Writes go through a large buffer of the writer's own, so capturing costs no system call per packet; pcap_flush()
// writes it to the file (ixy-pcap does so once per second, before it sleeps and on exit) and counts what reached it.
#ifndef IXY_APPS_PCAP_H
#define IXY_APPS_PCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define PCAP_MAGIC 0xa1b2c3d4u
#define PCAP_VERSION_MAJOR 2
#define PCAP_VERSION_MINOR 4
#define PCAP_SNAPLEN 65535u
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_GLOBAL_HEADER_SIZE 24
#define PCAP_RECORD_HEADER_SIZE 16

// Tags of records (ixy-pcap: the RX queue), each counted apart in in_file.
#define PCAP_TAGS 64

struct pcap_writer {
	int fd;                      // -1: none
	const char* path;            // for messages
	uint8_t* buffer;             // records not yet written (PCAP_BUFFER_SIZE bytes)
	uint8_t* tags;               // the tag of each record in buffer
	size_t used;                 // bytes in buffer
	uint32_t records;            // records in buffer
	bool created;                // pcap_open created the file (pcap_discard removes it again)
	bool failed;                 // a write failed: nothing more is written
	uint64_t packets_written;    // records given to pcap_write_tagged (buffered or in the file)
	uint64_t packets_in_file;    // records whose bytes all reached the file
	uint64_t in_file[PCAP_TAGS]; // the same per tag
	uint64_t file_bytes;         // the file's size: the header and packets_in_file records
};

// Opens the file at path for writing, creating it if it does not exist, but changes nothing in an existing file: a
// path that cannot be written fails here, and pcap_discard leaves everything as it was. An existing file must be a
// regular file of owner, the user the capture runs as (ixy-pcap: its --user, else the real uid), reached without a
// symbolic link as its last component; anything else is refused (the null device /dev/null alone is taken as it is):
// run as root, the capture never empties a file its user could not, nor one a link points to. Returns 0, or -1 with
// one line on stderr ("pcap: cannot create <path>: <why>").
int pcap_open(struct pcap_writer* writer, const char* path, uid_t owner);
// Empties the file (if it is a regular file) and writes the global header, flushed. Returns 0, or -1 with a message.
int pcap_start(struct pcap_writer* writer);
// Closes a file opened but not started and removes it if pcap_open created it (the capture did not happen).
void pcap_discard(struct pcap_writer* writer);
// Appends one packet of len bytes (stored up to PCAP_SNAPLEN) received at timestamp_ns (ns since 1970), with tag
// (below PCAP_TAGS), to the buffer; a full buffer is written first. Returns 0, or -1 with a message if that write
// failed (e.g. disk full): then nothing more is written.
int pcap_write_tagged(struct pcap_writer* writer, uint8_t tag, const uint8_t* data, uint32_t len,
		      uint64_t timestamp_ns);
static inline int pcap_write_packet(struct pcap_writer* writer, const uint8_t* data, uint32_t len,
				    uint64_t timestamp_ns) {
	return pcap_write_tagged(writer, 0, data, len, timestamp_ns);
}
// Writes the buffered packets to the file. Returns 0, or -1 with a message. A write that fails (a full disk, a file
// size limit) counts in packets_in_file and in_file only the records whose bytes all reached the file, and cuts a
// record it left incomplete off again (ftruncate): the file then holds exactly packets_in_file whole records. Under
// ixy-pcap's seccomp filter (ixy/sandbox.h), which does not allow ftruncate, the cut record stays at the end (tcpdump
// reads the whole ones and says the file is truncated); the counts are the same.
int pcap_flush(struct pcap_writer* writer);
// Flushes and closes the file. Returns 0, or -1 with a message if the last writes failed.
int pcap_close(struct pcap_writer* writer);

// Wall-clock time in ns since 1970, for packet timestamps.
uint64_t pcap_time_now_ns(void);

#endif
