/*
 * elsock-client: a scriptable eventlog-socket client for rtscope's tests.
 *
 *   elsock-client [options] ADDR      ADDR: a Unix socket path or tcp:HOST:PORT
 *
 *   -o FILE          write what is received to FILE (default: stdout)
 *   --retry SECS     keep trying to connect for SECS (default 10)
 *   --delay SECS     wait SECS before connecting
 *   --stall SECS     after connecting, do not read for SECS
 *   --stall-until FILE:BYTES
 *                    after connecting, do not read until FILE holds BYTES
 *                    more than it did at connection (at most 30 s)
 *   --control [NS:]N send control command N of namespace NS (default
 *                    eventlog-socket; repeatable, in order)
 *   --empty-namespace
 *                    send a message with an empty namespace just before
 *                    the first command, in the same write
 *   --control-gap S  seconds between control commands (default 0.2)
 *   --sent-file FILE create FILE one control gap after the last command was
 *                    sent (so a program waiting for FILE outlives the last
 *                    command by at least that long)
 *   --garbage        send malformed control bytes before the commands
 *   --foreign        send a command of another namespace first
 *   --max-bytes N    disconnect after receiving N bytes
 *   --rate BYTES     read at most BYTES a second (a slow but steady reader)
 *   --seconds SECS   disconnect after SECS of reading (default: until EOF)
 *   --cycles N       connect and disconnect N times at once, then exit
 *   --stat PATH      print the octal mode of PATH once connected, to stderr
 *
 * Exit status: 0 when the stream ended (EOF) or a limit was reached,
 * 1 on a connection failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static int connect_once(const char *addr)
{
    if (strncmp(addr, "tcp:", 4) == 0) {
        char host[256];
        const char *spec = addr + 4, *colon = strrchr(spec, ':');
        if (!colon) return -1;
        size_t hl = (size_t)(colon - spec);
        if (hl == 0) strcpy(host, "127.0.0.1");
        else { if (hl >= sizeof host) return -1; memcpy(host, spec, hl); host[hl] = 0; }
        struct addrinfo hints = {0}, *res;
        hints.ai_socktype = SOCK_STREAM;
        if (getaddrinfo(host, colon + 1, &hints, &res) != 0) return -1;
        int fd = socket(res->ai_family, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) { close(fd); fd = -1; }
        freeaddrinfo(res);
        return fd;
    }
    struct sockaddr_un sa = {0};
    sa.sun_family = AF_UNIX;
    if (strlen(addr) >= sizeof sa.sun_path) return -1;
    strcpy(sa.sun_path, addr);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) { close(fd); fd = -1; }
    return fd;
}

static void send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w <= 0) return;
        p += w; len -= (size_t)w;
    }
}

static void send_command(int fd, const char *ns, int cmd)
{
    uint8_t msg[300];
    size_t n = 0, nl = strlen(ns);
    msg[n++] = 0xF0; msg[n++] = 0x9E; msg[n++] = 0x97; msg[n++] = 0x8C;
    msg[n++] = 0;
    msg[n++] = (uint8_t)nl;
    memcpy(msg + n, ns, nl); n += nl;
    msg[n++] = (uint8_t)cmd;
    send_all(fd, msg, n);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *addr = NULL, *stat_path = NULL, *sent_file = NULL;
    char *stall_file = NULL;
    long long stall_bytes = 0;
    double retry = 10, delay = 0, stall = 0, gap = 0.2, seconds = -1;
    int controls[32], ncontrols = 0, garbage = 0, foreign = 0, cycles = 0, empty_ns = 0;
    const char *control_ns[32];
    long long max_bytes = -1;
    double rate = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && v && (i++, 1))
        if (ARG("-o")) out = v;
        else if (ARG("--retry")) retry = atof(v);
        else if (ARG("--delay")) delay = atof(v);
        else if (ARG("--stall")) stall = atof(v);
        else if (ARG("--control")) {
            if (ncontrols < 32) {
                const char *colon = strrchr(v, ':');
                control_ns[ncontrols] = "eventlog-socket";
                if (colon) control_ns[ncontrols] = strndup(v, (size_t)(colon - v));
                controls[ncontrols++] = atoi(colon ? colon + 1 : v);
            }
        }
        else if (ARG("--control-gap")) gap = atof(v);
        else if (ARG("--max-bytes")) max_bytes = atoll(v);
        else if (ARG("--rate")) rate = atof(v);
        else if (ARG("--seconds")) seconds = atof(v);
        else if (ARG("--cycles")) cycles = atoi(v);
        else if (ARG("--stat")) stat_path = v;
        else if (ARG("--sent-file")) sent_file = v;
        else if (ARG("--stall-until")) {
            stall_file = strdup(v);
            char *colon = strrchr(stall_file, ':');
            if (!colon) { fprintf(stderr, "elsock-client: --stall-until FILE:BYTES\n"); return 2; }
            *colon = '\0';
            stall_bytes = atoll(colon + 1);
        }
        else if (strcmp(a, "--garbage") == 0) garbage = 1;
        else if (strcmp(a, "--foreign") == 0) foreign = 1;
        else if (strcmp(a, "--empty-namespace") == 0) empty_ns = 1;
        else if (a[0] != '-' && !addr) addr = a;
        else { fprintf(stderr, "elsock-client: bad argument %s\n", a); return 2; }
    }
    if (!addr) { fprintf(stderr, "usage: elsock-client [options] ADDR\n"); return 2; }

    sleep_s(delay);
    double give_up = now() + retry;
    if (cycles > 0) {
        int done = 0;
        while (done < cycles && now() < give_up + cycles) {
            int fd = connect_once(addr);
            if (fd < 0) { sleep_s(0.01); continue; }
            char buf[512];
            ssize_t r = recv(fd, buf, sizeof buf, 0);   /* take a little, then vanish */
            (void)r;
            close(fd);
            done++;
        }
        printf("%d cycles\n", done);
        return done == cycles ? 0 : 1;
    }

    int fd;
    while ((fd = connect_once(addr)) < 0) {
        if (now() > give_up) { fprintf(stderr, "elsock-client: cannot connect to %s\n", addr); return 1; }
        sleep_s(0.02);
    }
    if (stat_path) {
        struct stat st;
        if (stat(stat_path, &st) == 0) fprintf(stderr, "mode %o\n", st.st_mode & 0777);
    }
    FILE *f = out ? fopen(out, "wb") : stdout;
    if (!f) { perror(out); return 1; }

    if (garbage) {
        const char junk[] = "GET / HTTP/1.0\r\n\r\n\xF0\x9E\x97\x8C\x07xyz";
        send_all(fd, junk, sizeof junk - 1);
    }
    if (foreign) send_command(fd, "my-app", 1);
    sleep_s(stall);
    if (stall_file) {
        struct stat st;
        long long base = stat(stall_file, &st) == 0 ? (long long)st.st_size : 0;
        double until = now() + 30;
        while (now() < until) {
            if (stat(stall_file, &st) == 0 && (long long)st.st_size >= base + stall_bytes) break;
            sleep_s(0.02);
        }
        free(stall_file);
    }
    /* commands go out on schedule from inside the read loop, so that the
     * client keeps reading while it sends them */
    int sent_controls = 0;
    double next_control = now();

    struct timeval tv = { 0, 50000 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    double stop_at = seconds >= 0 ? now() + seconds : -1;
    long long total = 0;
    char buf[65536];
    double read_from = now();
    for (;;) {
        if (rate > 0) {     /* --rate: not ahead of BYTES a second */
            double ahead = read_from + (double)total / rate - now();
            if (ahead > 0) {
                struct timespec ts = {(time_t)ahead, (long)((ahead - (double)(time_t)ahead) * 1e9)};
                nanosleep(&ts, NULL);
            }
        }
        if (sent_controls < ncontrols && now() >= next_control) {
            if (empty_ns && sent_controls == 0) {
                /* magic, version 0, namespace length 0: no message */
                send_all(fd, "\xF0\x9E\x97\x8C\x00\x00", 6);
            }
            send_command(fd, control_ns[sent_controls], controls[sent_controls]);
            sent_controls++;
            next_control = now() + gap;
        }
        if (sent_file && sent_controls == ncontrols && now() >= next_control) {
            FILE *sf = fopen(sent_file, "w");
            if (sf) fclose(sf);
            sent_file = NULL;
        }
        if (stop_at > 0 && now() > stop_at) break;
        size_t want = rate > 0 && rate < (double)sizeof buf ? (size_t)rate : sizeof buf;
        ssize_t r = recv(fd, buf, want, 0);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
        if (r <= 0) break;
        long long take = r;
        if (max_bytes >= 0 && total + take > max_bytes) take = max_bytes - total;
        fwrite(buf, 1, (size_t)take, f);
        total += take;
        if (max_bytes >= 0 && total >= max_bytes) break;
    }
    close(fd);
    if (f != stdout) fclose(f);
    return 0;
}
