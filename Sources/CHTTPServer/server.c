/* libmicrohttpd behind lw_http.h: request assembly (bounded body), replies, and the event-stream ring. */
#include "lw_http.h"
#include <microhttpd.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Frames kept for streams that are behind; one further behind gets the snapshot again. */
#define LW_RING 128

struct lw_http_server {
    struct MHD_Daemon *daemon;
    lw_http_handler handler;
    void *context;
    lw_http_config config;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int stopping;
    uint64_t seq;                 /* frames published so far */
    char *ring[LW_RING];
    size_t ring_len[LW_RING];
    char *snapshot;
    size_t snapshot_len;
    unsigned streams;
};

struct lw_http_request {
    lw_http_server *server;
    struct MHD_Connection *connection;
    const char *method;
    const char *path;
    char *body;
    size_t body_len;
    int too_large;
    int replied;
};

struct lw_stream {
    lw_http_server *server;
    uint64_t next;
    int started;
    char *pending;
    size_t pending_len, pending_off;
};

static char *copy_bytes(const char *p, size_t n) {
    char *c = malloc(n ? n : 1);
    if (c && n) memcpy(c, p, n);
    return c;
}

static void add_headers(struct MHD_Response *response, const char *content_type, const char *headers) {
    if (content_type) MHD_add_response_header(response, "Content-Type", content_type);
    if (!headers) return;
    const char *line = headers;
    char name[128], value[1024];
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', n);
        if (colon && (size_t)(colon - line) < sizeof name) {
            size_t nl = (size_t)(colon - line);
            memcpy(name, line, nl);
            name[nl] = 0;
            const char *v = colon + 1;
            while (v < line + n && *v == ' ') v++;
            size_t vl = (size_t)(line + n - v);
            if (vl < sizeof value) {
                memcpy(value, v, vl);
                value[vl] = 0;
                MHD_add_response_header(response, name, value);
            }
        }
        line += n;
        if (*line == '\n') line++;
    }
}

static void queue(lw_http_request *r, unsigned status, struct MHD_Response *response, const char *content_type, const char *headers) {
    if (!response) return;
    add_headers(response, content_type, headers);
    MHD_queue_response(r->connection, status, response);
    MHD_destroy_response(response);
    r->replied = 1;
}

void lw_http_reply(lw_http_request *r, unsigned status, const char *content_type, const void *body, size_t length, const char *headers) {
    if (r->replied) return;
    struct MHD_Response *response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    queue(r, status, response, content_type, headers);
}

void lw_http_reply_file(lw_http_request *r, unsigned status, const char *content_type, int fd, size_t size, const char *headers) {
    if (r->replied) { close(fd); return; }
    struct MHD_Response *response = MHD_create_response_from_fd(size, fd);
    if (!response) { close(fd); return; }
    queue(r, status, response, content_type, headers);
}

/* The next bytes of a stream: what is pending, else the snapshot (first), else the next frame; waits for one. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    struct lw_stream *st = cls;
    lw_http_server *s = st->server;
    if (!st->pending) {
        pthread_mutex_lock(&s->lock);
        for (;;) {
            if (s->stopping) { pthread_mutex_unlock(&s->lock); return MHD_CONTENT_READER_END_OF_STREAM; }
            if (!st->started || s->seq - st->next > LW_RING) {
                st->started = 1;
                st->next = s->seq;
                if (s->snapshot) {
                    st->pending = copy_bytes(s->snapshot, s->snapshot_len);
                    st->pending_len = s->snapshot_len;
                    break;
                }
                continue;
            }
            if (st->next < s->seq) {
                size_t slot = st->next % LW_RING;
                st->pending = copy_bytes(s->ring[slot], s->ring_len[slot]);
                st->pending_len = s->ring_len[slot];
                st->next++;
                break;
            }
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += s->config.keepalive_seconds ? s->config.keepalive_seconds : 15;
            if (pthread_cond_timedwait(&s->changed, &s->lock, &until) == ETIMEDOUT && st->next == s->seq && !s->stopping) {
                static const char keepalive[] = ": keepalive\n\n";
                st->pending = copy_bytes(keepalive, sizeof keepalive - 1);
                st->pending_len = sizeof keepalive - 1;
                break;
            }
        }
        pthread_mutex_unlock(&s->lock);
        st->pending_off = 0;
        if (!st->pending) return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = st->pending_len - st->pending_off;
    if (n > max) n = max;
    memcpy(buf, st->pending + st->pending_off, n);
    st->pending_off += n;
    if (st->pending_off == st->pending_len) { free(st->pending); st->pending = NULL; }
    return (ssize_t)n;
}

static void stream_free(void *cls) {
    struct lw_stream *st = cls;
    pthread_mutex_lock(&st->server->lock);
    st->server->streams--;
    pthread_mutex_unlock(&st->server->lock);
    free(st->pending);
    free(st);
}

void lw_http_reply_stream(lw_http_request *r, const char *headers) {
    if (r->replied) return;
    lw_http_server *s = r->server;
    pthread_mutex_lock(&s->lock);
    int full = s->streams >= s->config.max_streams;
    if (!full) s->streams++;
    pthread_mutex_unlock(&s->lock);
    if (full) {
        static const char busy[] = "too many event streams are open\n";
        lw_http_reply(r, 503, "text/plain; charset=utf-8", busy, sizeof busy - 1, "Retry-After: 5\n");
        return;
    }
    struct lw_stream *st = calloc(1, sizeof *st);
    if (!st) {
        pthread_mutex_lock(&s->lock);
        s->streams--;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    st->server = s;
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read, st, stream_free);
    if (!response) { stream_free(st); return; }
    MHD_add_response_header(response, "Cache-Control", "no-store");
    queue(r, 200, response, "text/event-stream; charset=utf-8", headers);
}

const char *lw_http_method(lw_http_request *r) { return r->method; }
const char *lw_http_path(lw_http_request *r) { return r->path; }
const char *lw_http_header(lw_http_request *r, const char *name) {
    return MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, name);
}
const char *lw_http_query(lw_http_request *r, const char *name) {
    return MHD_lookup_connection_value(r->connection, MHD_GET_ARGUMENT_KIND, name);
}
const void *lw_http_body(lw_http_request *r, size_t *length) {
    *length = r->body_len;
    return r->body ? r->body : "";
}

int lw_http_client_is_loopback(lw_http_request *r) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(r->connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return 0;
    const struct sockaddr *a = info->client_addr;
    if (a->sa_family == AF_INET) {
        return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->sa_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(v6)) return 1;
        return IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127;
    }
    return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)version;
    lw_http_server *s = cls;
    lw_http_request *r = *con_cls;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r) return MHD_NO;
        r->server = s;
        r->connection = connection;
        r->method = method;
        r->path = url;
        *con_cls = r;
        const char *length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
        if (length && strtoull(length, NULL, 10) > s->config.max_body) r->too_large = 1;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (r->too_large || r->body_len + n > s->config.max_body) { r->too_large = 1; return MHD_YES; }
        char *grown = realloc(r->body, r->body_len + n + 1);
        if (!grown) return MHD_NO;
        memcpy(grown + r->body_len, upload_data, n);
        r->body = grown;
        r->body_len += n;
        r->body[r->body_len] = 0;
        return MHD_YES;
    }
    if (r->replied) return MHD_YES;
    if (r->too_large) {
        char text[96];
        int n = snprintf(text, sizeof text, "a request body may hold %zu bytes at most\n", s->config.max_body);
        lw_http_reply(r, 413, "text/plain; charset=utf-8", text, (size_t)n, "Connection: close\n");
    } else {
        s->handler(s->context, r);
    }
    if (!r->replied) {
        static const char oops[] = "no reply\n";
        lw_http_reply(r, 500, "text/plain; charset=utf-8", oops, sizeof oops - 1, NULL);
    }
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode code) {
    (void)cls; (void)connection; (void)code;
    lw_http_request *r = *con_cls;
    if (!r) return;
    free(r->body);
    free(r);
    *con_cls = NULL;
}

lw_http_server *lw_http_start(const lw_http_config *config, lw_http_handler handler, void *context, char *error, size_t error_size) {
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
    if (inet_pton(AF_INET, config->address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(config->port);
    } else if (inet_pton(AF_INET6, config->address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(config->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, error_size, "'%s' is not a numeric IPv4 or IPv6 address", config->address);
        return NULL;
    }
    lw_http_server *s = calloc(1, sizeof *s);
    if (!s) { snprintf(error, error_size, "out of memory"); return NULL; }
    s->handler = handler;
    s->context = context;
    s->config = *config;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);  /* CLOCK_REALTIME, as stream_read's deadline is */
    errno = 0;
    s->daemon = MHD_start_daemon(flags, config->port, NULL, NULL, on_request, s,
                                 MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned int)config->max_connections,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)config->max_per_ip,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)config->timeout_seconds,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
                                 MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024),
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                 MHD_OPTION_END);
    if (!s->daemon) {
        snprintf(error, error_size, "cannot listen on %s port %u%s%s", config->address, config->port,
                 errno ? ": " : "", errno ? strerror(errno) : "");
        pthread_cond_destroy(&s->changed);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

unsigned short lw_http_port(const lw_http_server *s) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

void lw_http_publish(lw_http_server *s, const char *frame, size_t length, int snapshot) {
    char *copy = copy_bytes(frame, length);
    char *shot = snapshot ? copy_bytes(frame, length) : NULL;
    pthread_mutex_lock(&s->lock);
    size_t slot = s->seq % LW_RING;
    free(s->ring[slot]);
    s->ring[slot] = copy;
    s->ring_len[slot] = length;
    s->seq++;
    if (snapshot) { free(s->snapshot); s->snapshot = shot; s->snapshot_len = length; }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

unsigned lw_http_stream_count(lw_http_server *s) {
    pthread_mutex_lock(&s->lock);
    unsigned n = s->streams;
    pthread_mutex_unlock(&s->lock);
    return n;
}

void lw_http_stop(lw_http_server *s) {
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    MHD_stop_daemon(s->daemon);
    for (int i = 0; i < LW_RING; i++) free(s->ring[i]);
    free(s->snapshot);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
