/*
 * The legacy pool's wire: the request a child reads from the worker and the response frames it
 * sends back (ScriptRequestFrame and ScriptResponseFrame on the PHP side).
 */
#include "pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pool_request request = {.connection = -1};

void append(buffer *to, const char *bytes, size_t length)
{
    if (to->length + length > to->capacity) {
        size_t capacity = to->capacity == 0 ? 8192 : to->capacity;
        while (capacity < to->length + length) {
            capacity *= 2;
        }
        char *grown = realloc(to->data, capacity);
        if (grown == NULL) {
            fputs("bobbin-legacy-pool: out of memory\n", stderr);
            _exit(70);
        }
        to->data = grown;
        to->capacity = capacity;
    }
    memcpy(to->data + to->length, bytes, length);
    to->length += length;
}

void append_u32(buffer *to, uint32_t value)
{
    unsigned char bytes[4] = {value >> 24, value >> 16, value >> 8, value};
    append(to, (const char *) bytes, 4);
}

bool write_all(int fd, const char *bytes, size_t length)
{
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            return false;
        }
        bytes += written;
        length -= (size_t) written;
    }
    return true;
}

static bool read_all(int fd, char *into, size_t length)
{
    while (length > 0) {
        ssize_t got = read(fd, into, length);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return false;
        }
        into += got;
        length -= (size_t) got;
    }
    return true;
}

static uint32_t u32_at(const unsigned char *bytes)
{
    return ((uint32_t) bytes[0] << 24) | ((uint32_t) bytes[1] << 16) | ((uint32_t) bytes[2] << 8) | bytes[3];
}

/* Sends the output so far: with the status and the headers in the first frame only. */
void send_frame(bool more)
{
    if (request.connection < 0) {
        request.output.length = 0;
        return;
    }
    buffer head = {0};
    bool first = !request.head_sent;
    unsigned char fixed[7] = {0};
    uint32_t count = first ? request.header_count : 0;
    int status = first ? (request.head_captured ? request.status : 200) : 0;
    fixed[0] = (unsigned char) (status >> 8);
    fixed[1] = (unsigned char) status;
    fixed[2] = more ? 1 : 0;
    fixed[3] = count >> 24; fixed[4] = count >> 16; fixed[5] = count >> 8; fixed[6] = count;
    uint64_t payload = 7 + (first ? request.header_lines.length : 0) + 4 + (more ? 0 : request.fatal.length) + request.output.length;
    unsigned char size[8];
    for (int i = 0; i < 8; i++) {
        size[i] = (unsigned char) (payload >> (56 - 8 * i));
    }
    append(&head, (const char *) size, 8);
    append(&head, (const char *) fixed, 7);
    if (first && request.header_lines.length > 0) {
        append(&head, request.header_lines.data, request.header_lines.length);
    }
    append_u32(&head, more ? 0 : (uint32_t) request.fatal.length);
    if (!more && request.fatal.length > 0) {
        append(&head, request.fatal.data, request.fatal.length);
    }
    bool written = write_all(request.connection, head.data, head.length)
        && write_all(request.connection, request.output.data, request.output.length);
    free(head.data);
    if (!written) {
        close(request.connection);
        request.connection = -1; /* the worker is gone: nothing more is sent */
    }
    request.head_sent = true;
    request.output.length = 0;
}

const char *variable(const char *name)
{
    for (uint32_t i = 0; i < request.count; i++) {
        if (strcmp(request.names[i], name) == 0) {
            return request.values[i];
        }
    }
    return NULL;
}

bool read_request(int connection)
{
    unsigned char size_bytes[4];
    if (!read_all(connection, (char *) size_bytes, 4)) {
        return false;
    }
    uint32_t size = u32_at(size_bytes);
    if (size < 4 || size > MAX_VARIABLES_BLOCK) {
        return false;
    }
    request.variables = malloc(size + 1);
    if (request.variables == NULL || !read_all(connection, request.variables, size)) {
        return false;
    }
    const unsigned char *at = (const unsigned char *) request.variables;
    const unsigned char *end = at + size;
    request.count = u32_at(at);
    at += 4;
    if (request.count > size / 8) {
        return false;
    }
    request.names = calloc(request.count + 1, sizeof(char *));
    request.values = calloc(request.count + 1, sizeof(char *));
    request.value_lengths = calloc(request.count + 1, sizeof(uint32_t));
    if (request.names == NULL || request.values == NULL || request.value_lengths == NULL) {
        return false;
    }
    /* Each piece is NUL-terminated in place: its length field's first byte is not needed any more. */
    for (uint32_t i = 0; i < 2 * request.count; i++) {
        if (end - at < 4) {
            return false;
        }
        uint32_t length = u32_at(at);
        if ((uint64_t) (end - at - 4) < length) {
            return false;
        }
        char *piece = (char *) at + 4;
        /* Move the bytes back by one so that the NUL after them fits before the next field. */
        memmove((char *) at + 3, piece, length);
        ((char *) at)[3 + length] = '\0';
        if (i % 2 == 0) {
            request.names[i / 2] = (char *) at + 3;
        } else {
            request.values[i / 2] = (char *) at + 3;
            request.value_lengths[i / 2] = length;
        }
        at += 4 + length;
    }
    unsigned char body_bytes[8];
    if (!read_all(connection, (char *) body_bytes, 8)) {
        return false;
    }
    request.body_left = 0;
    for (int i = 0; i < 8; i++) {
        request.body_left = (request.body_left << 8) | body_bytes[i];
    }
    return true;
}

void forget_request(void)
{
    free(request.variables);
    free(request.names);
    free(request.values);
    free(request.value_lengths);
    request.variables = NULL;
    request.names = request.values = NULL;
    request.value_lengths = NULL;
    request.count = 0;
    request.output.length = 0;
    request.header_lines.length = 0;
    request.header_count = 0;
    request.fatal.length = 0;
    request.head_captured = request.head_sent = request.finished = false;
    request.status = 200;
}

