#ifndef LW_FILEIO_H
#define LW_FILEIO_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Asks the kernel to start writing a file's dirty pages to disk now, without waiting (sync_file_range
/// with SYNC_FILE_RANGE_WRITE, which glibc only declares under _GNU_SOURCE). Returns 0 or -1 with errno.
int lw_start_writeback(int fd);

/// The alignment of every O_DIRECT transfer here (buffer address, file offset and length): the ext4/xfs block
/// and the largest logical sector in common use. A device that wants more refuses with EINVAL, which falls back.
enum { LW_DIRECT_ALIGN = 4096 };

/// Turns O_DIRECT on (`on` = 1) or off for the open file description of `fd`. 0, or the errno (EINVAL where the
/// file system has no direct I/O).
int lw_set_direct_io(int fd, int on);

/// An output file written past the page cache. A 24 MP 16-bit TIFF is 144 MB; written normally, every byte is
/// copied into freshly allocated page-cache pages, written back by the fsync, and then kept cached although
/// nothing reads it again (measured here: 8 such files buffered + fsync 3.2 s, with O_DIRECT 0.66 s).
///
/// The writer keeps one window of `window` bytes (a multiple of LW_DIRECT_ALIGN) at the end of what is written:
/// writes that append to it or land inside it are copied in, and each full window goes to the file with one
/// O_DIRECT pwrite. Writes wholly before the window (libtiff patching its header at the end) go through the page
/// cache at once; a write at most one window past the end leaves zeros before it in the window (what the file would
/// read there); anything else (a read, a write further past the end or straddling the window's start) first writes
/// the window out normally and turns direct I/O off for the rest of the file. Where the file system refuses O_DIRECT
/// (EINVAL), the same bytes go through the page cache instead. The file's bytes are the same either way.
/// `lw_direct_writer_finish` writes what is left (the whole blocks directly, the tail normally) and must be
/// called before the descriptor is synced or hashed. The descriptor is borrowed, and left without O_DIRECT.
///
/// Each full window is hashed (SHA-256) on one thread and written on another while the caller fills the next one,
/// so the digest of a file written from its first byte in order is ready when it is finished, without reading it
/// back. A write to bytes already hashed spoils that digest unless it was promised (`lw_direct_writer_expect`):
/// libtiff writes its header first and patches the directory's offset into it at the end.
typedef struct lw_direct_writer lw_direct_writer;

/// NULL when out of memory.
lw_direct_writer *lw_direct_writer_new(int fd, size_t window);
void lw_direct_writer_free(lw_direct_writer *w);
/// Writes `count` bytes at `offset`: 0, or the errno of the write that failed.
int lw_direct_writer_pwrite(lw_direct_writer *w, const void *bytes, size_t count, int64_t offset);
/// Reads up to `count` bytes at `offset` into `bytes` (the window written out first): the count read, or -1
/// with errno.
ssize_t lw_direct_writer_pread(lw_direct_writer *w, void *bytes, size_t count, int64_t offset);
/// The file's size as written so far, the window included.
int64_t lw_direct_writer_size(const lw_direct_writer *w);
/// Writes out the window: 0, or the errno of the write that failed.
int lw_direct_writer_finish(lw_direct_writer *w);
/// 1 when some bytes went to the file with O_DIRECT (so they are not in the page cache).
int lw_direct_writer_wrote_direct(const lw_direct_writer *w);
/// Promises that the `count` (≤ 16) bytes at `offset`, not yet hashed, will be overwritten with `bytes` later: they
/// are hashed as promised, and the digest holds only if that write comes, exactly. One promise per file.
void lw_direct_writer_expect(lw_direct_writer *w, int64_t offset, const void *bytes, size_t count);
/// After `lw_direct_writer_finish`: 1, the SHA-256 of the file's bytes in `digest` and their count in `length`, when
/// every byte was hashed in order (the promise kept), else 0 (the caller reads the file back to hash it).
int lw_direct_writer_digest(lw_direct_writer *w, uint8_t digest[32], int64_t *length);

#endif
