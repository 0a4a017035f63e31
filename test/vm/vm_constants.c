// vm_constants: prints the apps' constants that the VM tests' checks need, in one line of "key=value" words for
// test/vm/totals.sh, so that no script parses the sources:
//   constants fwd_modified_byte=<n>
// Runs on the host, built with the apps' headers: it opens no device.
#include <stdio.h>

#include "fwd.h"

int main(void) {
	printf("constants fwd_modified_byte=%d\n", FWD_MODIFIED_BYTE);
	return 0;
}
