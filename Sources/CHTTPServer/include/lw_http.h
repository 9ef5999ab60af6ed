/* The studio monitor's HTTP server: libmicrohttpd (one thread per connection) behind a small C API that Swift
 * can call (MHD_start_daemon is variadic). Requests are answered by one Swift handler; the event stream
 * (server-sent events) is a broadcast ring kept here, so a slow browser never blocks the watch. */
#ifndef LW_HTTP_H
#define LW_HTTP_H
#include <stddef.h>

typedef struct lw_http_server lw_http_server;
typedef struct lw_http_request lw_http_request;

/* Called once per complete request on a server thread; it must call exactly one lw_http_reply*. */
typedef void (*lw_http_handler)(void *context, lw_http_request *request);

typedef struct {
    const char *address;         /* numeric IPv4 or IPv6 address to bind */
    unsigned short port;         /* 0: any free port (lw_http_port says which) */
    unsigned max_connections;    /* open connections at once */
    unsigned max_per_ip;         /* open connections from one address */
    unsigned max_streams;        /* event streams at once (503 past it) */
    size_t max_body;             /* request body bytes (413 past it) */
    unsigned timeout_seconds;    /* an idle connection is closed after this */
    unsigned keepalive_seconds;  /* an idle event stream gets a comment line this often */
} lw_http_config;

/* Starts listening; NULL with a message in `error` when the address cannot be bound. */
lw_http_server *lw_http_start(const lw_http_config *config, lw_http_handler handler, void *context, char *error, size_t error_size);
unsigned short lw_http_port(const lw_http_server *server);
/* Ends every stream, closes every connection, joins the threads, frees the server. */
void lw_http_stop(lw_http_server *server);
/* Queues one complete SSE frame ("event: x\ndata: …\n\n") for every stream; with `snapshot` it is also what a
 * stream that connects later (or fell more than the ring behind) receives first. */
void lw_http_publish(lw_http_server *server, const char *frame, size_t length, int snapshot);
unsigned lw_http_stream_count(lw_http_server *server);

/* The request (valid during the handler only). Header and query lookups return NULL when absent. */
const char *lw_http_method(lw_http_request *request);
const char *lw_http_path(lw_http_request *request);
const char *lw_http_header(lw_http_request *request, const char *name);
const char *lw_http_query(lw_http_request *request, const char *name);
const void *lw_http_body(lw_http_request *request, size_t *length);
/* 1 when the client connected from a loopback address. */
int lw_http_client_is_loopback(lw_http_request *request);

/* Replies. `headers`: "Name: value\n" lines, or NULL. The body is copied. */
void lw_http_reply(lw_http_request *request, unsigned status, const char *content_type, const void *body, size_t length, const char *headers);
/* A file already opened by the caller (the descriptor is taken over and closed by the server). */
void lw_http_reply_file(lw_http_request *request, unsigned status, const char *content_type, int fd, size_t size, const char *headers);
/* The event stream; 503 when max_streams are open. */
void lw_http_reply_stream(lw_http_request *request, const char *headers);
#endif
