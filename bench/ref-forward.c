/* ref-forward.c: the reference for bench/forward.bench — a minimal local forward (`ssh -L`) over libssh2, the
 * fastest one stream that the library allows, written plainly in C so sshelf's forward has a ceiling to be measured
 * against. Not part of sshelf: bench/forward.bench builds it with the system compiler against Debian's libssh2.
 *
 *   ref-forward LISTEN_PORT SSH_PORT USER KEY_FILE TARGET_HOST TARGET_PORT [batch]
 *
 * Logs in to 127.0.0.1:SSH_PORT with the key (aes128-ctr + hmac-sha2-256, what sshelf negotiates with libssh2
 * 1.10; no host-key check: a benchmark on loopback), prints the port it listens on, then serves one connection at
 * a time through a direct-tcpip channel: the same window (4 MiB), packet size (32 KiB), 256 KiB buffers and
 * TCP_NODELAY as sshelf, a non-blocking loop that moves data until nothing moves and only then sleeps in poll(),
 * and half-close both ways. libssh2 1.10 keeps one half-sent packet per session, so after a write returns EAGAIN
 * with bytes left in libssh2 only that write is repeated until it finishes.
 *
 * With `batch`, libssh2's sends go through its send callback into a buffer written once per loop turn, as sshelf
 * does (Sources/ShelfSSH/ForwardSendBuffer.swift): without it, every SSH packet is its own send().
 */
#include <libssh2.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { CAPACITY = 256 * 1024, WINDOW = 4 * 1024 * 1024, PACKET = 32768 };

static void die(const char *what, LIBSSH2_SESSION *session)
{
    char *message = NULL;
    if(session)
        libssh2_session_last_error(session, &message, NULL, 0);
    fprintf(stderr, "ref-forward: %s%s%s\n", what, message ? ": " : "", message ? message : "");
    exit(1);
}

static void tune(int fd)
{
    int one = 1, size = CAPACITY;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

/* One byte buffer between the socket and the channel: data lives in [start, end). */
struct buffer {
    char bytes[CAPACITY];
    size_t start, end;
};

static size_t room(struct buffer *b)
{
    if(b->end == CAPACITY && b->start > 0) {
        memmove(b->bytes, b->bytes + b->start, b->end - b->start);
        b->end -= b->start;
        b->start = 0;
    }
    return CAPACITY - b->end;
}

static void consumed(struct buffer *b, size_t count)
{
    b->start += count;
    if(b->start == b->end)
        b->start = b->end = 0;
}

static struct buffer up, down;

/* `batch`: libssh2's packets collected here and written with one send() per loop turn. */
static int batching;
static void *default_send;
static char out[1 << 20];
static size_t out_start, out_end;

/* Writes what the socket takes; -1 on a broken connection. */
static int flush_out(int fd)
{
    while(out_end > out_start) {
        ssize_t n = send(fd, out + out_start, out_end - out_start, MSG_NOSIGNAL);
        if(n > 0) {
            out_start += (size_t)n;
            continue;
        }
        if(n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        return -1;
    }
    out_start = out_end = 0;
    return 0;
}

static LIBSSH2_SEND_FUNC(batch_send)
{
    (void)flags;
    (void)abstract;
    if(out_end + length > sizeof out) {
        if(flush_out(socket) < 0)
            return -EPIPE;
        memmove(out, out + out_start, out_end - out_start);
        out_end -= out_start;
        out_start = 0;
        if(out_end + length > sizeof out)
            return -EAGAIN;
    }
    memcpy(out + out_end, buffer, length);
    out_end += length;
    if(out_end - out_start >= 256 * 1024 && flush_out(socket) < 0)
        return -EPIPE;
    return (ssize_t)length;
}

/* Moves one connection's bytes both ways until both sides have closed. */
static void serve(LIBSSH2_SESSION *session, int ssh, int fd, const char *host, int port)
{
    libssh2_session_set_blocking(session, 1);
    unsigned char message[300];
    size_t host_length = strlen(host), length = 0;
    if(host_length > 200)
        die("target host name too long", NULL);
    message[length++] = 0; message[length++] = 0; message[length++] = 0; message[length++] = (unsigned char)host_length;
    memcpy(message + length, host, host_length);
    length += host_length;
    message[length++] = 0; message[length++] = 0;
    message[length++] = (unsigned char)(port >> 8); message[length++] = (unsigned char)port;
    static const char origin[] = "127.0.0.1";
    message[length++] = 0; message[length++] = 0; message[length++] = 0; message[length++] = sizeof origin - 1;
    memcpy(message + length, origin, sizeof origin - 1);
    length += sizeof origin - 1;
    memset(message + length, 0, 4);
    length += 4;
    LIBSSH2_CHANNEL *channel = libssh2_channel_open_ex(session, "direct-tcpip", 12, WINDOW, PACKET,
                                                       (const char *)message, (unsigned int)length);
    if(!channel)
        die("the server refused the direct-tcpip channel", session);
    libssh2_session_set_blocking(session, 0);
    if(batching)
        default_send = libssh2_session_callback_set(session, LIBSSH2_CALLBACK_SEND, (void *)batch_send);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    up.start = up.end = down.start = down.end = 0;
    int socket_done = 0, eof_sent = 0, channel_done = 0, shut = 0, write_pending = 0;

    while(!(eof_sent && shut)) {
        int progress = 0;
        if(!write_pending) {
            /* Socket -> up. */
            size_t space = room(&up);
            if(!socket_done && space > 0) {
                ssize_t n = read(fd, up.bytes + up.end, space);
                if(n > 0) { up.end += (size_t)n; progress = 1; }
                else if(n == 0 || (errno != EAGAIN && errno != EINTR)) { socket_done = 1; progress = 1; }
            }
        }
        /* Up -> channel: one libssh2 write sends at most one packet, so loop while it takes data. */
        while(up.end > up.start) {
            ssize_t n = libssh2_channel_write(channel, up.bytes + up.start, up.end - up.start);
            if(n > 0) { consumed(&up, (size_t)n); progress = 1; write_pending = 0; continue; }
            if(n != LIBSSH2_ERROR_EAGAIN && n != 0)
                die("channel write failed", session);
            write_pending = (libssh2_session_block_directions(session) & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0;
            break;
        }
        if(write_pending)
            goto wait;
        if(socket_done && up.end == up.start && !eof_sent) {
            int rc = libssh2_channel_send_eof(channel);
            if(rc == LIBSSH2_ERROR_EAGAIN)
                goto wait;
            if(rc)
                die("sending EOF failed", session);
            eof_sent = 1;
            progress = 1;
        }
        /* Channel -> down. */
        size_t space = room(&down);
        if(!channel_done && space > 0) {
            ssize_t n = libssh2_channel_read(channel, down.bytes + down.end, space);
            if(n > 0) { down.end += (size_t)n; progress = 1; }
            else if(n == 0 && libssh2_channel_eof(channel)) { channel_done = 1; progress = 1; }
            else if(n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
                if(n != LIBSSH2_ERROR_CHANNEL_CLOSED)
                    die("channel read failed", session);
                channel_done = 1;
            }
        }
        /* Down -> socket. */
        if(down.end > down.start) {
            ssize_t n = send(fd, down.bytes + down.start, down.end - down.start, MSG_NOSIGNAL);
            if(n > 0) { consumed(&down, (size_t)n); progress = 1; }
            else if(n < 0 && errno != EAGAIN && errno != EINTR) die("socket write failed", NULL);
        }
        if(channel_done && down.end == down.start && !shut) {
            shutdown(fd, SHUT_WR);
            shut = 1;
            progress = 1;
        }
        if(batching && flush_out(ssh) < 0)
            die("the SSH connection broke", NULL);
        if(progress)
            continue;
    wait:
        if(batching && flush_out(ssh) < 0)
            die("the SSH connection broke", NULL);
        struct pollfd fds[2] = {{.fd = fd}, {.fd = ssh, .events = POLLIN}};
        if(!socket_done && up.end - up.start < CAPACITY && !write_pending)
            fds[0].events |= POLLIN;
        if(down.end > down.start)
            fds[0].events |= POLLOUT;
        if((libssh2_session_block_directions(session) & LIBSSH2_SESSION_BLOCK_OUTBOUND) || out_end > out_start)
            fds[1].events |= POLLOUT;
        if(poll(fds, 2, 1000) < 0 && errno != EINTR)
            die("poll failed", NULL);
    }
    if(batching) {
        while(out_end > out_start) {
            struct pollfd writable = {.fd = ssh, .events = POLLOUT};
            poll(&writable, 1, 1000);
            if(flush_out(ssh) < 0)
                die("the SSH connection broke", NULL);
        }
        libssh2_session_callback_set(session, LIBSSH2_CALLBACK_SEND, default_send);
    }
    libssh2_session_set_blocking(session, 1);
    libssh2_channel_free(channel);
}

int main(int argc, char **argv)
{
    if(argc != 7 && !(argc == 8 && !strcmp(argv[7], "batch"))) {
        fprintf(stderr, "usage: ref-forward LISTEN_PORT SSH_PORT USER KEY_FILE TARGET_HOST TARGET_PORT [batch]\n");
        return 2;
    }
    batching = argc == 8;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int ssh = socket(AF_INET, SOCK_STREAM, 0);
    address.sin_port = htons((unsigned short)atoi(argv[2]));
    if(ssh < 0 || connect(ssh, (struct sockaddr *)&address, sizeof address) != 0)
        die("cannot connect to sshd", NULL);
    int one = 1;
    setsockopt(ssh, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    if(libssh2_init(0) != 0)
        die("libssh2_init failed", NULL);
    LIBSSH2_SESSION *session = libssh2_session_init();
    if(!session)
        die("libssh2_session_init failed", NULL);
    libssh2_session_method_pref(session, LIBSSH2_METHOD_CRYPT_CS, "aes128-ctr");
    libssh2_session_method_pref(session, LIBSSH2_METHOD_CRYPT_SC, "aes128-ctr");
    libssh2_session_method_pref(session, LIBSSH2_METHOD_MAC_CS, "hmac-sha2-256");
    libssh2_session_method_pref(session, LIBSSH2_METHOD_MAC_SC, "hmac-sha2-256");
    if(libssh2_session_handshake(session, ssh) != 0)
        die("handshake failed", session);
    if(libssh2_userauth_publickey_fromfile(session, argv[3], NULL, argv[4], NULL) != 0)
        die("login failed", session);

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    address.sin_port = htons((unsigned short)atoi(argv[1]));
    socklen_t size = sizeof address;
    if(listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 16) != 0 ||
       getsockname(listener, (struct sockaddr *)&address, &size) != 0)
        die("cannot listen", NULL);
    printf("%d\n", ntohs(address.sin_port));
    fflush(stdout);
    for(;;) {
        int fd = accept(listener, NULL, NULL);
        if(fd < 0) {
            if(errno == EINTR)
                continue;
            die("accept failed", NULL);
        }
        tune(fd);
        serve(session, ssh, fd, argv[5], atoi(argv[6]));
        close(fd);
    }
}
