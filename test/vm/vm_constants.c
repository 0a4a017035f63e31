// vm_constants: prints the apps' constants that the VM tests' checks need, in one line of "key=value" words for
// test/vm/totals.sh, so that no script parses the sources:
//   constants fwd_modified_byte=<n> flow_port_base=<n> flow_port_step=<n> flow_port_mod=<n>
// (ixy-pktgen --flows: flow f has UDP source port base + (step * f mod mod), packet_flow_port in packet.h.)
// Runs on the host, built with the apps' headers: it opens no device.
#include <stdio.h>

#include "common/packet.h"
#include "fwd.h"

int main(void) {
	printf("constants fwd_modified_byte=%d flow_port_base=%d flow_port_step=%d flow_port_mod=%d\n",
	       FWD_MODIFIED_BYTE, PACKET_SRC_PORT, PACKET_FLOW_PORT_STEP, PACKET_FLOW_PORT_MOD);
	return 0;
}
