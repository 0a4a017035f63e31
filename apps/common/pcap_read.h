// ixy-pktgen --replay (issue 30): the reader of classic pcap files. The file is untrusted input: everything in it
// is checked before any device is taken, and each problem is one line naming the file and the record (records are
// counted from 0: "record 0" is the first one after the file header).
//
// Accepted (the format of libpcap's pcap-savefile(5), the file ixy-pcap writes):
//   - magic a1b2c3d4 (microsecond timestamps) or a1b23c4d (nanoseconds), in either byte order (the writer's); the
//     other fields in that byte order; major version 2;
//   - snaplen 14 to 262144 (libpcap's largest);
//   - link type 1 (LINKTYPE_ETHERNET) exactly, no FCS flags;
//   - records whose captured length equals the original length (a cut frame cannot be sent byte for byte: refused)
//     and lies in 14 (an Ethernet header) to 1514 bytes (the largest frame without FCS ixy sends) and within the
//     snaplen; frames below 60 bytes are sent as they are: ixgbe and igb pad them to 60 on the wire (82599
//     HLREG0.TXPADEN, i350 TCTL.PSP); VirtIO and AF_XDP hand them on unpadded (a veth carries them so, a host
//     NIC pads them when it sends them);
//   - timestamps with microseconds below 10^6 (nanoseconds below 10^9); a timestamp earlier than the one before
//     counts as equal to it (--replay-timing never waits a negative time);
//   - 1 to PCAP_READ_MAX_FRAMES records, and nothing after the last one (a partial record header or frame is a
//     truncated file).
#ifndef IXY_APPS_PCAP_READ_H
#define IXY_APPS_PCAP_READ_H

#include <stddef.h>
#include <stdint.h>

#define PCAP_READ_MAX_FRAMES 65536
#define PCAP_READ_MIN_FRAME 14
#define PCAP_READ_MAX_FRAME 1514
#define PCAP_READ_MAX_SNAPLEN 262144
// The largest file the limits allow: the global header and PCAP_READ_MAX_FRAMES records of the largest frame.
#define PCAP_READ_MAX_FILE (24 + (size_t)PCAP_READ_MAX_FRAMES * (16 + PCAP_READ_MAX_FRAME))

struct pcap_frame {
	const uint8_t* data; // inside the parsed bytes
	uint32_t len;
	uint64_t time_ns; // since the first record (never less than the record before)
};

// Parses size bytes of a pcap file. Returns the number of frames, stored in frames (which must hold
// PCAP_READ_MAX_FRAMES), or 0 with what is wrong in problem (one line, no newline).
uint32_t pcap_parse(const uint8_t* data, size_t size, struct pcap_frame* frames, char* problem, size_t problem_size);

#endif
