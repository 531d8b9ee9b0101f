/*
 * The legacy pool's parts (see bobbin-legacy-pool.c): what they share.
 */
#ifndef BOBBIN_LEGACY_POOL_H
#define BOBBIN_LEGACY_POOL_H

#define _GNU_SOURCE
#include <main/php.h>
#include <main/SAPI.h>

#include <stdbool.h>
#include <stdint.h>

/* Output past this is sent without waiting for the script's end (a frame saying more follows). */
#define OUTPUT_CHUNK (1 << 20)
#define MAX_VARIABLES_BLOCK (64 << 20)

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} buffer;

/* One request, in a child. */
typedef struct {
    int connection;      /* -1 once the worker is gone: the script runs on, as under PHP-FPM */
    char *variables;     /* the block as read; names and values point into it, NUL-terminated */
    uint32_t count;
    char **names;
    char **values;
    uint32_t *value_lengths;
    uint64_t body_left;
    buffer output;       /* output not yet sent */
    bool head_captured;  /* status and headers taken (PHP sent its headers) */
    bool head_sent;      /* the first frame went out */
    int status;
    buffer header_lines; /* (u32 length, line)… as the frame carries them */
    uint32_t header_count;
    buffer fatal;        /* "message in file:line" of the fatal error that ended the script */
    bool finished;       /* fastcgi_finish_request(): the response went; later output goes nowhere */
} pool_request;

extern pool_request request;
extern sapi_module_struct pool_sapi;

/* wire.c: the bytes between the worker and a child */
void append(buffer *to, const char *bytes, size_t length);
void append_u32(buffer *to, uint32_t value);
bool write_all(int fd, const char *bytes, size_t length);
void send_frame(bool more);
bool read_request(int connection);
const char *variable(const char *name);
void forget_request(void);

/* sapi.c: PHP's side */
size_t pool_read_post(char *into, size_t count);
void pool_install_error_callback(void);

#endif
