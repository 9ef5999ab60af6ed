// exiv2's headers are C++ only: Swift reaches exiv2 through CExiv2Shim's extern "C" API (lw_exiv2.h). This module
// exists for its link line (and pkg-config's check that libexiv2-dev 0.27 is installed).
#include <exiv2/exv_conf.h>
