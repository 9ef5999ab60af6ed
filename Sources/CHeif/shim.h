// libheif: HEIF/HEIC containers, decoded with libde265 and encoded with x265 (its plugins).
#include <libheif/heif.h>
