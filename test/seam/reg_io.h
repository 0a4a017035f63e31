// The register access of test builds (driver.h includes "reg_io.h"; test builds have this folder on the include
// path): the device model's, behind the tracing accessors (seam_io.h).
#include "seam_io.h"
