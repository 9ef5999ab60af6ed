#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lw_buffer.h"
#include "lw_fileio.h"
#include "lw_sha256.h"
#include <pthread.h>

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

// A full window handed to the flusher thread.
typedef struct {
    const unsigned char *p;
    size_t n;
    int64_t off;
} window_job;

struct lw_direct_writer {
    int fd;
    int gathering;       // writes still gather in the window (else they go straight to the file)
    int finished;
    unsigned char *bufs[2]; // two windows, LW_DIRECT_ALIGN-aligned: one filling, one being written
    int cur;
    unsigned char *buf;  // bufs[cur]
    size_t cap;          // a window's size, a multiple of LW_DIRECT_ALIGN
    int64_t start;       // file offset of buf[0], a multiple of LW_DIRECT_ALIGN while gathering
    size_t filled;       // bytes of buf written so far
    int64_t end;         // the file's size as written

    // The flushers: one thread hashes each full window while another writes it, and the caller fills the other.
    pthread_t threads[2];
    struct flusher_role { struct lw_direct_writer *w; int role; } roles[2];
    int thread_started;  // both threads run
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending, quit;   // pending: a window is out (its roles not yet both done)
    int done[2];         // each role has finished the window out
    window_job job;
    int flush_error;     // the first failed write's errno, reported at the next call
    int odirect;         // windows still try O_DIRECT (off after EINVAL or a short write); the flusher's, or the caller's when idle
    int wrote_direct;    // some did

    // The digest of the file as written: valid while every byte has passed through a window in order, but for
    // one declared patch (`expect`) whose promised bytes were hashed in place of the ones written first.
    int hashing;
    lw_sha256_ctx sha;
    int64_t hashed;      // bytes hashed so far (the windows before `start` once the flusher is idle)
    int patch_state;     // 0 none, 1 promised and not yet written, 2 written as promised
    int64_t patch_off;
    size_t patch_len;
    unsigned char patch[16];
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

// [p, p + n) at off (all multiples of the alignment) with O_DIRECT while `odirect`; on EINVAL before any byte (no
// direct I/O here, or a device wanting larger blocks), or a short write, the rest goes through the page cache and
// O_DIRECT stays off for later windows. The descriptor is left without O_DIRECT.
static int direct_pwrite(lw_direct_writer *w, const unsigned char *p, size_t n, int64_t off) {
    size_t done = 0;
    if (w->odirect && lw_set_direct_io(w->fd, 1) != 0) w->odirect = 0;
    while (w->odirect && done < n) {
        ssize_t r = pwrite(w->fd, p + done, n - done, (off_t)(off + (int64_t)done));
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == EINVAL) { w->odirect = 0; break; }
            int e = errno;
            lw_set_direct_io(w->fd, 0);
            return e;
        }
        done += (size_t)r;
        if (r > 0) w->wrote_direct = 1;
        if (done % LW_DIRECT_ALIGN != 0) w->odirect = 0;
    }
    int e = lw_set_direct_io(w->fd, 0);
    if (e != 0) return e;
    return plain_pwrite(w->fd, p + done, n - done, off + (int64_t)done);
}

// Adds [p, p + n), the file's bytes at off, to the digest: in order or not at all, with the promised patch's bytes
// in place of those written so far.
static void hash_bytes(lw_direct_writer *w, const unsigned char *p, size_t n, int64_t off) {
    if (!w->hashing || n == 0) return;
    if (off != w->hashed) { w->hashing = 0; return; }
    w->hashed += (int64_t)n;
    int64_t pe = w->patch_off + (int64_t)w->patch_len;
    if (w->patch_state != 1 || pe <= off || w->patch_off >= off + (int64_t)n) { lw_sha256_update(&w->sha, p, n); return; }
    if (w->patch_off < off || pe > off + (int64_t)n) { w->hashing = 0; return; }   // a patch across two windows
    size_t at = (size_t)(w->patch_off - off);
    if (memcmp(p + at, w->patch, w->patch_len) == 0) w->patch_state = 2;   // already written as promised
    lw_sha256_update(&w->sha, p, at);
    lw_sha256_update(&w->sha, w->patch, w->patch_len);
    lw_sha256_update(&w->sha, p + at + w->patch_len, n - at - w->patch_len);
}

// Role 0 hashes the window out, role 1 writes it; the window is done when both are.
static void *flusher_main(void *arg) {
    lw_direct_writer *w = ((struct flusher_role *)arg)->w;
    int role = ((struct flusher_role *)arg)->role;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!(w->pending && !w->done[role]) && !w->quit) pthread_cond_wait(&w->cond, &w->lock);
        if (!(w->pending && !w->done[role])) break;
        window_job job = w->job;
        pthread_mutex_unlock(&w->lock);
        int e = 0;
        if (role == 0) hash_bytes(w, job.p, job.n, job.off);
        else e = direct_pwrite(w, job.p, job.n, job.off);
        pthread_mutex_lock(&w->lock);
        if (e != 0 && w->flush_error == 0) w->flush_error = e;
        w->done[role] = 1;
        if (w->done[0] && w->done[1]) w->pending = 0;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

// Waits until no window is being written: the errno of any failed flush, else 0. Everything but appending to the
// window waits here first, so the flusher's writes and the caller's never cross.
static int wait_idle(lw_direct_writer *w) {
    if (!w->thread_started) return 0;
    pthread_mutex_lock(&w->lock);
    while (w->pending) pthread_cond_wait(&w->cond, &w->lock);
    int e = w->flush_error;
    pthread_mutex_unlock(&w->lock);
    return e;
}

// Hands the full window to the flusher (or, without a thread, writes it here) and starts filling the other.
static int submit_window(lw_direct_writer *w) {
    int e = wait_idle(w);
    if (e != 0) return e;
    if (w->thread_started) {
        pthread_mutex_lock(&w->lock);
        w->job = (window_job){w->buf, w->cap, w->start};
        w->done[0] = w->done[1] = 0;
        w->pending = 1;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
    } else {
        hash_bytes(w, w->buf, w->cap, w->start);
        e = direct_pwrite(w, w->buf, w->cap, w->start);
    }
    w->cur ^= 1;
    w->buf = w->bufs[w->cur];
    w->start += (int64_t)w->cap;
    w->filled = 0;
    return e;
}

// The window written out through the page cache, and no more gathering (nor a digest) for the rest of the file.
static int drain(lw_direct_writer *w) {
    if (!w->gathering) return 0;
    int e = wait_idle(w);
    w->gathering = 0;
    w->hashing = 0;
    if (e != 0) return e;
    e = plain_pwrite(w->fd, w->buf, w->filled, w->start);
    w->start += (int64_t)w->filled;
    w->filled = 0;
    return e;
}

// Ends the first `count` flusher threads (none has a window out).
static void stop_flushers(lw_direct_writer *w, int count) {
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    for (int k = 0; k < count; k++) pthread_join(w->threads[k], NULL);
    w->quit = 0;
}

lw_direct_writer *lw_direct_writer_new(int fd, size_t window) {
    lw_direct_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    size_t cap = (window + LW_DIRECT_ALIGN - 1) / LW_DIRECT_ALIGN * LW_DIRECT_ALIGN;
    if (!cap) cap = LW_DIRECT_ALIGN;
    // Large windows from the kept-block pool, for the next file (lw_buffer.h); small ones block-aligned.
    for (int k = 0; k < 2; k++) {
        void *buf = NULL;
        if (cap >= (4u << 20)) buf = lw_large_alloc(cap);
        else if (posix_memalign(&buf, LW_DIRECT_ALIGN, cap) != 0) buf = NULL;
        if (!buf) { lw_direct_writer_free(w); return NULL; }
        w->bufs[k] = buf;
    }
    w->buf = w->bufs[0];
    w->fd = fd;
    w->cap = cap;
    w->odirect = 1;
    struct stat st;
    w->end = fstat(fd, &st) == 0 ? (int64_t)st.st_size : 0;
    // A window starting at the current end on a block boundary; a file that already holds a partial block is
    // written normally. The digest covers a file written from its first byte.
    w->start = w->end;
    w->gathering = w->end % LW_DIRECT_ALIGN == 0 && ((uintptr_t)w->buf % LW_DIRECT_ALIGN) == 0;
    w->hashing = w->gathering && w->end == 0;
    lw_sha256_init(&w->sha);
    // Without the threads the windows are hashed and written on the caller's (the same bytes, no overlap).
    int started = 0;
    for (int role = 0; role < 2; role++) {
        w->roles[role] = (struct flusher_role){w, role};
        if (pthread_create(&w->threads[role], NULL, flusher_main, &w->roles[role]) != 0) break;
        started++;
    }
    if (started < 2) {
        stop_flushers(w, started);
        started = 0;
    }
    w->thread_started = started == 2;
    return w;
}

void lw_direct_writer_free(lw_direct_writer *w) {
    if (!w) return;
    if (w->thread_started) stop_flushers(w, 2);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    for (int k = 0; k < 2; k++) if (w->bufs[k]) lw_large_free(w->bufs[k]);
    free(w);
}

void lw_direct_writer_expect(lw_direct_writer *w, int64_t offset, const void *bytes, size_t count) {
    (void)wait_idle(w);
    if (count == 0 || count > sizeof w->patch || w->patch_state != 0 || offset < w->hashed || offset < 0) { w->hashing = 0; return; }
    memcpy(w->patch, bytes, count);
    w->patch_off = offset;
    w->patch_len = count;
    w->patch_state = 1;
}

int lw_direct_writer_pwrite(lw_direct_writer *w, const void *bytes, size_t count, int64_t offset) {
    const unsigned char *p = bytes;
    int64_t last = offset + (int64_t)count;
    if (last > w->end) w->end = last;
    int64_t filled_end = w->start + (int64_t)w->filled;
    if (w->gathering && offset > filled_end && offset - filled_end <= (int64_t)w->cap) {
        // A gap at the end (libtiff writes a directory's values past room it leaves for the directory): zeros, as
        // the file reads there until the room is written, and the write lands in the window after them.
        size_t gap = (size_t)(offset - filled_end);
        while (gap > 0) {
            size_t take = w->cap - w->filled < gap ? w->cap - w->filled : gap;
            memset(w->buf + w->filled, 0, take);
            w->filled += take;
            gap -= take;
            if (w->filled == w->cap) {
                int e = submit_window(w);
                if (e != 0) return e;
            }
        }
    }
    if (w->gathering && offset >= w->start && offset <= w->start + (int64_t)w->filled) {
        // Appending to the window or landing inside it.
        while (count > 0) {
            size_t at = (size_t)(offset - w->start), take = w->cap - at < count ? w->cap - at : count;
            memcpy(w->buf + at, p, take);
            if (at + take > w->filled) w->filled = at + take;
            p += take; count -= take; offset += (int64_t)take;
            if (w->filled == w->cap) {
                int e = submit_window(w);
                if (e != 0) return e;
            }
        }
        return 0;
    }
    int e = wait_idle(w);
    if (e != 0) return e;
    if (w->gathering && last > w->start) {
        // Past the window's end, or straddling its start: no more gathering.
        e = drain(w);
        if (e != 0) return e;
    }
    if (w->hashing && count > 0 && (w->finished || offset < w->hashed)) {
        // Bytes already hashed change: fine only as the promised patch, exactly.
        if (!w->finished && w->patch_state == 1 && offset == w->patch_off && count == w->patch_len && memcmp(p, w->patch, count) == 0)
            w->patch_state = 2;
        else
            w->hashing = 0;
    }
    return plain_pwrite(w->fd, p, count, offset);
}

ssize_t lw_direct_writer_pread(lw_direct_writer *w, void *bytes, size_t count, int64_t offset) {
    int e = w->gathering ? drain(w) : wait_idle(w);
    if (e != 0) { errno = e; return -1; }
    for (;;) {
        ssize_t r = pread(w->fd, bytes, count, (off_t)offset);
        if (r < 0 && errno == EINTR) continue;
        return r;
    }
}

int64_t lw_direct_writer_size(const lw_direct_writer *w) { return w->end; }

int lw_direct_writer_finish(lw_direct_writer *w) {
    int e = wait_idle(w);
    if (e != 0 || !w->gathering) { w->finished = 1; return e; }
    size_t whole = w->filled / LW_DIRECT_ALIGN * LW_DIRECT_ALIGN;
    hash_bytes(w, w->buf, w->filled, w->start);
    e = whole ? direct_pwrite(w, w->buf, whole, w->start) : 0;
    if (e == 0) e = plain_pwrite(w->fd, w->buf + whole, w->filled - whole, w->start + (int64_t)whole);
    w->start += (int64_t)w->filled;
    w->filled = 0;
    w->gathering = 0;
    w->finished = 1;
    return e;
}

int lw_direct_writer_wrote_direct(const lw_direct_writer *w) { return w->wrote_direct; }

int lw_direct_writer_digest(lw_direct_writer *w, uint8_t digest[32], int64_t *length) {
    if (!w->finished || !w->hashing || w->hashed != w->end || w->patch_state == 1) return 0;
    lw_sha256_ctx c = w->sha;
    lw_sha256_final(&c, digest);
    *length = w->hashed;
    return 1;
}
