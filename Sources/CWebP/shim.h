// libwebp: the codec (decode.h, encode.h) and the container's ICCP/EXIF/XMP chunks (mux.h, demux.h).
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include <webp/demux.h>
