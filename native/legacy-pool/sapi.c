/*
 * The legacy pool's SAPI: PHP's output, headers, body, cookies and $_SERVER for a request, its
 * errors, and the functions PHP-FPM adds (fastcgi_finish_request(), getallheaders()).
 */
#include "pool.h"

#include <main/php_main.h>
#include <main/php_variables.h>
#include <main/php_output.h>
#include <ext/standard/head.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FATAL_TYPES (E_ERROR | E_PARSE | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR | E_RECOVERABLE_ERROR)

static void (*php_error_callback)(int, zend_string *, const uint32_t, zend_string *);

static int pool_startup(sapi_module_struct *module)
{
    return php_module_startup(module, NULL);
}

static size_t pool_ub_write(const char *bytes, size_t length)
{
    if (request.finished) {
        return length;
    }
    append(&request.output, bytes, length);
    if (request.output.length >= OUTPUT_CHUNK && request.head_captured) {
        send_frame(true);
    }
    return length;
}

static void pool_flush(void *server_context)
{
    (void) server_context;
    if (request.finished) {
        return;
    }
    /* As under PHP-FPM, a flush() before any output sends nothing: header() still works after it. */
    if (request.head_captured && (request.output.length > 0 || !request.head_sent)) {
        send_frame(true);
    }
}

static int pool_send_headers(sapi_headers_struct *headers)
{
    request.status = headers->http_response_code > 0 ? headers->http_response_code : 200;
    request.header_lines.length = 0;
    request.header_count = 0;
    zend_llist_position position;
    for (sapi_header_struct *header = zend_llist_get_first_ex(&headers->headers, &position); header != NULL;
         header = zend_llist_get_next_ex(&headers->headers, &position)) {
        append_u32(&request.header_lines, (uint32_t) header->header_len);
        append(&request.header_lines, header->header, header->header_len);
        request.header_count++;
    }
    request.head_captured = true;
    return SAPI_HEADER_SENT_SUCCESSFULLY;
}

size_t pool_read_post(char *into, size_t count)
{
    /* PHP takes a short read for the end of the body (sapi_read_post_block): fill what it asks. */
    size_t filled = 0;
    while (filled < count && request.body_left > 0 && request.connection >= 0) {
        size_t want = count - filled;
        if (want > request.body_left) {
            want = (size_t) request.body_left;
        }
        ssize_t got = read(request.connection, into + filled, want);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            request.body_left = 0; /* the worker went: the body ends here */
            break;
        }
        request.body_left -= (uint64_t) got;
        filled += (size_t) got;
    }
    return filled;
}


static char *pool_read_cookies(void)
{
    return (char *) variable("HTTP_COOKIE");
}

static void pool_register_variables(zval *track_vars)
{
    for (uint32_t i = 0; i < request.count; i++) {
        php_register_variable_safe(request.names[i], request.values[i], request.value_lengths[i], track_vars);
    }
}

static void pool_log_message(const char *message, int syslog_type)
{
    (void) syslog_type;
    fprintf(stderr, "%s\n", message);
    fflush(stderr);
}

/* PHP's own error handling, and the first fatal error's text for the worker's log. */
static void pool_error_cb(int type, zend_string *file, const uint32_t line, zend_string *message)
{
    if ((type & FATAL_TYPES) != 0 && request.fatal.length == 0) {
        char where[32];
        append(&request.fatal, ZSTR_VAL(message), ZSTR_LEN(message));
        append(&request.fatal, " in ", 4);
        if (file != NULL) {
            append(&request.fatal, ZSTR_VAL(file), ZSTR_LEN(file));
        }
        int length = snprintf(where, sizeof where, ":%u", line);
        append(&request.fatal, where, (size_t) length);
    }
    php_error_callback(type, file, line, message);
}

/* --- what PHP-FPM adds to PHP, for scripts written for it --- */

/* Sends the response now; the script runs on, its further output going nowhere. */
ZEND_FUNCTION(fastcgi_finish_request)
{
    ZEND_PARSE_PARAMETERS_NONE();
    if (request.finished) {
        RETURN_FALSE;
    }
    php_output_end_all();
    php_header();
    send_frame(false);
    request.finished = true;
    RETURN_TRUE;
}

/* The request's headers by name, as the client wrote them: rebuilt from the HTTP_* variables. */
ZEND_FUNCTION(getallheaders)
{
    ZEND_PARSE_PARAMETERS_NONE();
    array_init(return_value);
    for (uint32_t i = 0; i < request.count; i++) {
        const char *name = request.names[i];
        bool content = strcmp(name, "CONTENT_TYPE") == 0 || strcmp(name, "CONTENT_LENGTH") == 0;
        if (!content && strncmp(name, "HTTP_", 5) != 0) {
            continue;
        }
        const char *from = content ? name : name + 5;
        size_t length = strlen(from);
        char *header = emalloc(length + 1);
        bool word_start = true;
        for (size_t j = 0; j < length; j++) {
            char c = from[j] == '_' ? '-' : from[j];
            header[j] = word_start ? c : (char) tolower((unsigned char) c);
            word_start = c == '-';
        }
        header[length] = '\0';
        add_assoc_stringl_ex(return_value, header, length, request.values[i], request.value_lengths[i]);
        efree(header);
    }
}

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_fastcgi_finish_request, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_getallheaders, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

static const zend_function_entry pool_functions[] = {
    ZEND_FE(fastcgi_finish_request, arginfo_fastcgi_finish_request)
    ZEND_FE(getallheaders, arginfo_getallheaders)
    ZEND_FALIAS(apache_request_headers, getallheaders, arginfo_getallheaders)
    ZEND_FE_END
};

sapi_module_struct pool_sapi = {
    /* opcache caches scripts only under the web SAPIs it knows; scripts see the one they were written for */
    .name = "fpm-fcgi",
    .pretty_name = "Bobbin legacy pool",
    .startup = pool_startup,
    .shutdown = php_module_shutdown_wrapper,
    .ub_write = pool_ub_write,
    .flush = pool_flush,
    .send_headers = pool_send_headers,
    .read_post = pool_read_post,
    .read_cookies = pool_read_cookies,
    .register_server_variables = pool_register_variables,
    .log_message = pool_log_message,
    .default_post_reader = NULL,
    .php_ini_ignore_cwd = 1,
    .additional_functions = pool_functions,
};

/* After PHP's start-up: PHP's own error callback, behind the one that keeps the fatal error's text. */
void pool_install_error_callback(void)
{
    php_error_callback = zend_error_cb;
    zend_error_cb = pool_error_cb;
}
