#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lw_buffer.h"
#include "lw_fileio.h"

int lw_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int lw_set_direct_io(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return errno;
    int want = on ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
    if (want != flags && fcntl(fd, F_SETFL, want) < 0) return errno;
    return 0;
}

struct lw_direct_writer {
    int fd;
    int direct;          // windows still go out with O_DIRECT
    int wrote_direct;    // some did
    unsigned char *buf;  // the window, LW_DIRECT_ALIGN-aligned
    size_t cap;          // its size, a multiple of LW_DIRECT_ALIGN
    int64_t start;       // file offset of buf[0], a multiple of LW_DIRECT_ALIGN while direct
    size_t filled;       // bytes of buf written so far
    int64_t end;         // the file's size as written
};

// Every byte of [p, p + n) at off through the page cache, EINTR and short writes continued.
static int plain_pwrite(int fd, const unsigned char *p, size_t n, int64_t off) {
    while (n > 0) {
        ssize_t r = pwrite(fd, p, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += r; n -= (size_t)r; off += r;
    }
    return 0;
}

// [0, n) of the window (n a multiple of the alignment) at its offset with O_DIRECT; on EINVAL before any byte
// (no direct I/O here, or a device wanting larger blocks), or a short write, the rest goes through the page cache
// and direct I/O stays off.
static int direct_pwrite(lw_direct_writer *w, size_t n) {
    size_t done = 0;
    if (lw_set_direct_io(w->fd, 1) != 0) w->direct = 0;
    while (w->direct && done < n) {
        ssize_t r = pwrite(w->fd, w->buf + done, n - done, (off_t)(w->start + (int64_t)done));
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == EINVAL) { w->direct = 0; break; }
            int e = errno;
            lw_set_direct_io(w->fd, 0);
            return e;
        }
        done += (size_t)r;
        if (r > 0) w->wrote_direct = 1;
        if (done % LW_DIRECT_ALIGN != 0) w->direct = 0;
    }
    int e = lw_set_direct_io(w->fd, 0);
    if (e != 0) return e;
    return plain_pwrite(w->fd, w->buf + done, n - done, w->start + (int64_t)done);
}

// The window written out through the page cache, and direct I/O off for the rest of the file.
static int drain(lw_direct_writer *w) {
    if (!w->direct) return 0;
    w->direct = 0;
    int e = plain_pwrite(w->fd, w->buf, w->filled, w->start);
    w->start += (int64_t)w->filled;
    w->filled = 0;
    return e;
}

lw_direct_writer *lw_direct_writer_new(int fd, size_t window) {
    lw_direct_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    size_t cap = (window + LW_DIRECT_ALIGN - 1) / LW_DIRECT_ALIGN * LW_DIRECT_ALIGN;
    if (!cap) cap = LW_DIRECT_ALIGN;
    // Large windows on huge pages (a worker's heap keeps them for the next file); small ones block-aligned.
    void *buf = NULL;
    if (cap >= (4u << 20)) buf = lw_large_alloc(cap);
    else if (posix_memalign(&buf, LW_DIRECT_ALIGN, cap) != 0) buf = NULL;
    if (!buf) { free(w); return NULL; }
    w->buf = buf;
    w->fd = fd;
    w->cap = cap;
    struct stat st;
    w->end = fstat(fd, &st) == 0 ? (int64_t)st.st_size : 0;
    // A window starting at the current end on a block boundary; a file that already holds a partial block is
    // written normally.
    w->start = w->end;
    w->direct = w->end % LW_DIRECT_ALIGN == 0 && ((uintptr_t)w->buf % LW_DIRECT_ALIGN) == 0;
    return w;
}

void lw_direct_writer_free(lw_direct_writer *w) {
    if (!w) return;
    lw_large_free(w->buf);
    free(w);
}

int lw_direct_writer_pwrite(lw_direct_writer *w, const void *bytes, size_t count, int64_t offset) {
    const unsigned char *p = bytes;
    int64_t last = offset + (int64_t)count;
    if (last > w->end) w->end = last;
    if (w->direct && offset >= w->start && offset <= w->start + (int64_t)w->filled) {
        // Appending to the window or landing inside it.
        while (count > 0) {
            size_t at = (size_t)(offset - w->start), take = w->cap - at < count ? w->cap - at : count;
            memcpy(w->buf + at, p, take);
            if (at + take > w->filled) w->filled = at + take;
            p += take; count -= take; offset += (int64_t)take;
            if (w->filled == w->cap) {
                int e = direct_pwrite(w, w->cap);
                w->start += (int64_t)w->cap;
                w->filled = 0;
                if (e != 0) return e;
                if (!w->direct) return plain_pwrite(w->fd, p, count, offset);
            }
        }
        return 0;
    }
    if (w->direct && last > w->start) {
        // Past the window's end, or straddling its start: no more direct I/O.
        int e = drain(w);
        if (e != 0) return e;
    }
    return plain_pwrite(w->fd, p, count, offset);
}

ssize_t lw_direct_writer_pread(lw_direct_writer *w, void *bytes, size_t count, int64_t offset) {
    int e = drain(w);
    if (e != 0) { errno = e; return -1; }
    for (;;) {
        ssize_t r = pread(w->fd, bytes, count, (off_t)offset);
        if (r < 0 && errno == EINTR) continue;
        return r;
    }
}

int64_t lw_direct_writer_size(const lw_direct_writer *w) { return w->end; }

int lw_direct_writer_finish(lw_direct_writer *w) {
    if (!w->direct) return 0;
    size_t whole = w->filled / LW_DIRECT_ALIGN * LW_DIRECT_ALIGN;
    int e = whole ? direct_pwrite(w, whole) : 0;
    if (e == 0) e = plain_pwrite(w->fd, w->buf + whole, w->filled - whole, w->start + (int64_t)whole);
    w->start += (int64_t)w->filled;
    w->filled = 0;
    w->direct = 0;
    return e;
}

int lw_direct_writer_wrote_direct(const lw_direct_writer *w) { return w->wrote_direct; }
