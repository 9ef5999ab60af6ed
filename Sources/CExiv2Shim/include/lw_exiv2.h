// exiv2 (Debian's libexiv2 0.27) behind a C API: the descriptive metadata of an input (its embedded EXIF, IPTC-IIM and
// XMP, or an XMP sidecar) read into a flat list, and the XMP packet and IPTC-IIM of an output made from one.
//
// Fields travel as a "field list": UTF-8 strings, each NUL-terminated, in pairs `key\0value\0`. A key is
// `source.name` on reading (source: exif, iptc, xmp) and `name` on writing; names: creator, rights, usageTerms,
// description, subject, rating, label, city, state, country, sublocation. creator and subject repeat, one pair per
// element, in order. Every call holds one process-wide lock (exiv2's XMP toolkit keeps global state).
#ifndef LW_EXIV2_H
#define LW_EXIV2_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/// A malloc'd result; release it with lw_exiv2_free.
typedef struct {
    uint8_t *bytes;
    size_t count;
} lw_exiv2_buffer;

/// The fields of the image file in `bytes` (format recognised by content). Returns 0 and a field list (possibly
/// empty); 1 when exiv2 does not know the format (no list); -1 when exiv2 cannot read it (reason in `error`).
int lw_exiv2_read_image(const void *bytes, size_t count, lw_exiv2_buffer *fields, char *error, size_t error_size);

/// The fields of an XMP packet or sidecar file (`xmp` names them `xmp.…`). Returns 0 and a field list, or -1 when the
/// text is not well-formed XMP (reason in `error`).
int lw_exiv2_read_xmp(const void *text, size_t count, lw_exiv2_buffer *fields, char *error, size_t error_size);

/// The XMP packet (UTF-8, with its xpacket wrapper) stating the fields of `fields` (unprefixed names), written by
/// exiv2's XMP toolkit. Returns 0, or -1 with a reason.
int lw_exiv2_xmp_packet(const void *fields, size_t count, lw_exiv2_buffer *packet, char *error, size_t error_size);

/// The IPTC-IIM datasets (record 1: character set UTF-8; record 2: the fields IIM has, cut to IIM's maximum lengths)
/// for `fields`; an empty buffer when IIM holds none of them. Returns 0, or -1 with a reason.
int lw_exiv2_iptc(const void *fields, size_t count, lw_exiv2_buffer *iptc, char *error, size_t error_size);

/// IIM datasets (from lw_exiv2_iptc) as a Photoshop image resource block (8BIM 0x0404): what JPEG's APP13 carries
/// after "Photoshop 3.0\0". Returns 0, or -1 with a reason.
int lw_exiv2_photoshop_irb(const void *iim, size_t count, lw_exiv2_buffer *irb, char *error, size_t error_size);

void lw_exiv2_free(lw_exiv2_buffer *buffer);

/// The linked exiv2's version ("0.27.6").
const char *lw_exiv2_version(void);

#ifdef __cplusplus
}
#endif
#endif
