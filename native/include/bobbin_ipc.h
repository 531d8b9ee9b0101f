/*
 * Bobbin IPC: the socket framing, the control frames and the shared-memory ring layout.
 *
 * Socket frame (the shared contract): u32 little-endian length L, then L bytes of payload.
 * No id: the daemon answers the frames of one connection strictly in order, so the Nth response
 * frame answers the Nth request frame.
 * Control frame (shared-memory handshake, unix socket only): u32 (BIPC_CONTROL_FLAG | n), then
 * n bytes whose first is the opcode. A request frame is at most --max-frame (<= 1 GiB) bytes, so
 * its length word never has the top bit set and the two cannot be confused.
 * Ring record (shared memory only, internal): u32 (4 + payload length), u32 id, payload.
 */
#ifndef BOBBIN_IPC_H
#define BOBBIN_IPC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BIPC_HEADER_SIZE 4u
#define BIPC_ID_SIZE 4u /* in ring records only */
#define BIPC_DEFAULT_MAX_FRAME (16u * 1024u * 1024u)
#define BIPC_MAX_FRAME_LIMIT (1024u * 1024u * 1024u) /* keeps the top bit free for control frames */
#define BIPC_CONTROL_FLAG 0x80000000u
#define BIPC_CONTROL_MAX 4096u /* longest control body accepted */
#define BIPC_MAX_ALLOWED_UIDS 32 /* --allow-uid given at most this many times */

/* Control opcodes (first body byte of a control frame). */
#define BIPC_OP_SHM_OPEN 0x01u
#define BIPC_OP_SHM_MAPPED 0x02u

/* Shared-memory segment layout (all little-endian, x86-64 TSO assumed by the PHP side). */
#define BIPC_SHM_MAGIC 0x43504942u /* "BIPC" */
#define BIPC_SHM_VERSION 1u
#define BIPC_SHM_DATA_OFFSET 4096u
#define BIPC_SHM_WRAP 0xffffffffu
#define BIPC_SHM_MIN_RING 4096u
#define BIPC_SHM_MAX_RING (64u * 1024u * 1024u)
#define BIPC_SHM_DEFAULT_RING (4u * 1024u * 1024u)

typedef struct {
    uint32_t magic;
    uint32_t version;
    uint32_t req_capacity;  /* bytes in the request ring (client -> daemon) */
    uint32_t resp_capacity; /* bytes in the response ring (daemon -> client) */
    uint8_t pad0[48];
    uint64_t req_tail;      /* bytes ever produced by the client; written by the client */
    uint8_t pad1[56];
    uint64_t req_head;      /* bytes ever consumed by the daemon; written by the daemon */
    uint8_t pad2[56];
    uint64_t resp_tail;     /* written by the daemon */
    uint8_t pad3[56];
    uint64_t resp_head;     /* written by the client */
    uint8_t pad4[56];
    uint32_t daemon_stalled; /* 1 while the daemon waits for response-ring space */
    uint32_t client_closed;  /* set by a client that leaves (informational) */
    uint32_t daemon_cpu;     /* the CPU the daemon last served this ring on (BIPC_SHM_CPU_UNKNOWN
                                before); a client on another CPU hands over big batches in
                                parts, so that the daemon starts on them early */
} bipc_shm_header;

#define BIPC_SHM_CPU_UNKNOWN 0xffffffffu

/* src/Ipc/Internal/SharedMemory.php indexes the header by these offsets. */
_Static_assert(offsetof(bipc_shm_header, req_tail) == 64, "header layout");
_Static_assert(offsetof(bipc_shm_header, daemon_stalled) == 320, "header layout");
_Static_assert(offsetof(bipc_shm_header, daemon_cpu) == 328, "header layout");

/* Size of one ring record for a body of body_len bytes: header + body, 8-byte aligned. */
static inline uint32_t bipc_record_size(uint32_t body_len)
{
    return (BIPC_HEADER_SIZE + body_len + 7u) & ~7u;
}

static inline void bipc_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t bipc_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ---- frame decoder: accumulates bytes, yields whole frames ---- */

typedef enum {
    BIPC_DECODE_NEED_MORE = 0,
    BIPC_DECODE_FRAME = 1,   /* a request (or response) frame */
    BIPC_DECODE_CONTROL = 2, /* a control frame: payload is its body, opcode first */
    BIPC_DECODE_TOO_LARGE = -1,         /* frame over max_frame; declared_len is its length */
    BIPC_DECODE_CONTROL_TOO_LARGE = -2, /* control body over BIPC_CONTROL_MAX */
} bipc_decode_result;

typedef struct {
    unsigned char *buf;
    size_t len;  /* bytes buffered */
    size_t pos;  /* start of the first unconsumed frame */
    size_t cap;
    uint32_t max_frame;
} bipc_decoder;

int bipc_decoder_init(bipc_decoder *d, uint32_t max_frame);
void bipc_decoder_free(bipc_decoder *d);
/* Space to read into (at least `want` bytes, growing up to one max frame); NULL on OOM. */
unsigned char *bipc_decoder_space(bipc_decoder *d, size_t want, size_t *avail);
void bipc_decoder_commit(bipc_decoder *d, size_t n);
/* Next frame: sets *payload, *payload_len; the payload stays valid until the next call.
 * *declared_len is the length word without the control flag. */
bipc_decode_result bipc_decoder_next(bipc_decoder *d, const unsigned char **payload, uint32_t *payload_len,
                                     uint32_t *declared_len);
/* Bytes of an incomplete frame still buffered (a truncated frame at EOF). */
size_t bipc_decoder_pending(const bipc_decoder *d);

/* ---- growable output buffer ---- */

typedef struct {
    unsigned char *buf;
    size_t len;
    size_t pos;
    size_t cap;
} bipc_outbuf;

unsigned char *bipc_outbuf_reserve(bipc_outbuf *o, size_t n);
/* Appends one frame (length + payload) and returns where its payload goes. */
unsigned char *bipc_outbuf_frame(bipc_outbuf *o, uint32_t payload_len);
void bipc_outbuf_free(bipc_outbuf *o);

/* ---- the example service ---- */

/* Response size for a request of n bytes: max(1, floor(n / 8)). */
static inline uint32_t bipc_counter_response_size(uint32_t n)
{
    return n / 8u > 0u ? n / 8u : 1u;
}
/* out[j] = (sum of counts of byte values v with v % out_len == j) mod 256. */
void bipc_counter(const unsigned char *in, uint32_t in_len, unsigned char *out, uint32_t out_len);

/* ---- blocking client (tests, C benchmark) ---- */

typedef struct {
    int fd;
    uint32_t next_id; /* ids of shared-memory ring records (the socket wire has none) */
    bipc_decoder dec;
    /* shared-memory channel, when opened */
    unsigned char *shm;
    size_t shm_size;
    int doorbell_to_daemon;
    int doorbell_to_client;
    char shm_name[128];
} bipc_client;

int bipc_client_connect_unix(bipc_client *c, const char *path);
int bipc_client_connect_tcp(bipc_client *c, const char *host, int port);
void bipc_client_close(bipc_client *c);
/* One round trip over the socket: sends u32 len + req, reads one frame; response copied into
 * out (cap bytes); returns its length or -1. */
ssize_t bipc_client_request(bipc_client *c, const void *req, uint32_t len, void *out, size_t cap);
/* Sends raw bytes (for bad-input tests). */
int bipc_client_send_raw(bipc_client *c, const void *buf, size_t len);
/* Handshake on a unix connection; maps the segment and keeps the doorbells. */
int bipc_client_open_shm(bipc_client *c, uint32_t ring_capacity);
/* One round trip through the shared-memory ring (blocking on the eventfd). */
ssize_t bipc_client_shm_request(bipc_client *c, const void *req, uint32_t len, void *out, size_t cap);

/* ---- the daemon ---- */

typedef struct {
    const char *unix_path;
    const char *tcp_host;
    int tcp_port;          /* -1: no TCP; 0: any free port (reported on stderr) */
    uint32_t max_frame;
    uint32_t spin_us;      /* busy-poll shm rings this long before sleeping */
    int quiet;
    /* Who may connect over the unix socket (SO_PEERCRED): the daemon's own uid, the uids listed
     * here, and with a group, peers whose gid is that group. */
    uid_t allow_uids[BIPC_MAX_ALLOWED_UIDS];
    int allow_uid_count;
    int has_group;         /* the socket 0660 of unix_gid (else 0600 of the daemon's gid) */
    gid_t unix_gid;
} bipc_daemon_config;

/* Derives the shm name prefix ("/bobbin-ipc-<hash>-") from the socket path. */
void bipc_shm_prefix(const char *unix_path, char *out, size_t cap);
/* Removes shm objects left by a previous instance on the same socket path; returns how many. */
int bipc_remove_stale_shm(const char *unix_path);
/* Runs until SIGTERM/SIGINT; returns the exit code. */
int bipc_daemon_run(const bipc_daemon_config *cfg);

#endif
