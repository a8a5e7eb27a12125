/* Unit tests of the debug-stub client (consumer/lib/debug): framing of
 * responses, error replies, constructor names, targets, the u64 map. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_heap.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* A connection whose peer end we write canned responses into. */
static int peer;

static void fake_conn(dbg_conn *c)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    memset(c, 0, sizeof(*c));
    c->fd = sv[0];
    c->timeout_ms = 2000;
    snprintf(c->path, sizeof(c->path), "fake");
    peer = sv[1];
}

static void frame(uint16_t status, const void *payload, uint32_t len)
{
    dbg_buf b = {0};
    dbg_buf_put32(&b, len);
    dbg_buf_put16(&b, status);
    dbg_buf_put(&b, payload, len);
    ck_assert_int_eq(write(peer, b.p, b.len), (ssize_t)b.len);
    dbg_buf_free(&b);
}

START_TEST(continues_concatenate)
{
    dbg_conn c;
    dbg_buf out = {0};
    fake_conn(&c);
    frame(DEBUG_STUB_RESP_OKAY_CONTINUES, "abc", 3);
    frame(DEBUG_STUB_RESP_OKAY_CONTINUES, "", 0);
    frame(DEBUG_STUB_RESP_OKAY, "de", 2);
    ck_assert_int_eq(dbg_request(&c, DEBUG_STUB_CMD_ROOTS, NULL, &out),
                     DEBUG_STUB_RESP_OKAY);
    ck_assert_uint_eq(out.len, 5);
    ck_assert(memcmp(out.p, "abcde", 5) == 0);
    /* the request went out as length 4, command 4 */
    unsigned char req[8];
    ck_assert_int_eq(read(peer, req, 8), 8);
    ck_assert_uint_eq(dbg_rd32(req), 4);
    ck_assert_uint_eq(dbg_rd32(req + 4), DEBUG_STUB_CMD_ROOTS);
    dbg_buf_free(&out);
    dbg_close(&c);
    close(peer);
}
END_TEST

START_TEST(bad_command_message)
{
    dbg_conn c;
    dbg_buf out = {0};
    fake_conn(&c);
    frame(DEBUG_STUB_RESP_OKAY_CONTINUES, "partial", 7);
    frame(DEBUG_STUB_RESP_BAD_COMMAND, "\0\3bad address", 13);
    ck_assert_int_eq(dbg_request(&c, DEBUG_STUB_CMD_CLOSURES, NULL, &out),
                     DEBUG_STUB_RESP_BAD_COMMAND);
    ck_assert_uint_eq(out.len, 0); /* partial payload discarded */
    ck_assert_int_eq(c.reason, 3);
    ck_assert_ptr_nonnull(
        strstr(c.err, "CLOSURES: the stub refused it: bad address (reason 3)"));
    frame(DEBUG_STUB_RESP_NOT_PAUSED, "", 0);
    ck_assert_int_eq(dbg_request_ok(&c, DEBUG_STUB_CMD_ROOTS, NULL, &out), -1);
    ck_assert_ptr_nonnull(strstr(c.err, "NOT_PAUSED"));
    dbg_buf_free(&out);
    dbg_close(&c);
    close(peer);
}
END_TEST

START_TEST(closed_connection)
{
    dbg_conn c;
    dbg_buf out = {0};
    fake_conn(&c);
    unsigned char half[3] = {0, 0, 0};
    ck_assert_int_eq(write(peer, half, 3), 3);
    close(peer);
    ck_assert_int_eq(dbg_request(&c, DEBUG_STUB_CMD_VERSION, NULL, &out), -1);
    ck_assert_ptr_nonnull(strstr(c.err, "connection closed by the debuggee"));
    ck_assert_int_eq(c.fd, -1);
    dbg_buf_free(&out);
}
END_TEST

START_TEST(source_info_fields)
{
    dbg_conn c;
    fake_conn(&c);
    dbg_buf p = {0};
    const char *f[6] = {"Main_Leak_con_info",   "1", "Leak", "Leak", "Main",
                        "DebugLeak.hs:22:13-33"};
    dbg_buf_put32(&p, 6);
    for (int i = 0; i < 6; i++) {
        dbg_buf_put32(&p, (uint32_t)strlen(f[i]));
        dbg_buf_put(&p, f[i], strlen(f[i]));
    }
    frame(DEBUG_STUB_RESP_OKAY, p.p, (uint32_t)p.len);
    char *got[6];
    int n;
    ck_assert_int_eq(dbg_source_info(&c, 0x1234, got, &n), 0);
    ck_assert_int_eq(n, 6);
    ck_assert_str_eq(got[4], "Main");
    ck_assert_str_eq(got[5], "DebugLeak.hs:22:13-33");
    dbg_source_info_free(got);
    /* a string longer than the reply is refused, not read past */
    p.len = 0;
    dbg_buf_put32(&p, 6);
    dbg_buf_put32(&p, 1000);
    frame(DEBUG_STUB_RESP_OKAY, p.p, (uint32_t)p.len);
    ck_assert_int_eq(dbg_source_info(&c, 0x1234, got, &n), -1);
    dbg_buf_free(&p);
    dbg_close(&c);
    close(peer);
}
END_TEST

START_TEST(constructor_names)
{
    char d[256];
    dbg_con_display("main:Main.Leak", d, sizeof(d));
    ck_assert_str_eq(d, "main:Main:Leak");
    dbg_con_display("base:GHC.Maybe.Just", d, sizeof(d));
    ck_assert_str_eq(d, "base:GHC.Maybe:Just");
    dbg_con_display("ghc-prim:GHC.Types.:", d, sizeof(d));
    ck_assert_str_eq(d, "ghc-prim:GHC.Types::");
    ck_assert(dbg_con_matches("main:Main.Leak", "Leak"));
    ck_assert(dbg_con_matches("main:Main.Leak", "Main.Leak"));
    ck_assert(dbg_con_matches("main:Main.Leak", "Main:Leak"));
    ck_assert(dbg_con_matches("main:Main.Leak", "main:Main:Leak"));
    ck_assert(dbg_con_matches("main:Main.Leak", "main:Main.Leak"));
    ck_assert(!dbg_con_matches("main:Main.Leak", "Lea"));
    ck_assert(!dbg_con_matches("main:Main.Leaky", "Leak"));
    ck_assert(!dbg_con_matches("main:Other.Leak", "Main.Leak"));
    ck_assert(dbg_con_matches("base:GHC.Maybe.Just", "GHC.Maybe.Just"));
}
END_TEST

START_TEST(targets)
{
    char dir[] = "/tmp/rtscope-unit-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("XDG_DATA_HOME", dir, 1);
    char sd[4096], path[4096], err[512];
    ck_assert_int_eq(dbg_socket_dir(sd, sizeof(sd)), 0);
    ck_assert(strncmp(sd, dir, strlen(dir)) == 0);
    ck_assert_str_eq(sd + strlen(dir), "/ghc-debug/debuggee/sockets");
    ck_assert_int_eq(
        dbg_target_resolve("/x/y.sock", path, sizeof(path), err, sizeof(err)),
        0);
    ck_assert_str_eq(path, "/x/y.sock");
    ck_assert_int_eq(
        dbg_target_resolve("424242", path, sizeof(path), err, sizeof(err)), -1);
    char cmd[16384];
    snprintf(cmd, sizeof(cmd),
             "mkdir -p %s && touch %s/424242-Prog %s/4242-Other", sd, sd, sd);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(
        dbg_target_resolve("4242", path, sizeof(path), err, sizeof(err)), 0);
    ck_assert_ptr_nonnull(strstr(path, "/4242-Other"));
    ck_assert_int_eq(
        dbg_target_resolve("424242", path, sizeof(path), err, sizeof(err)), 0);
    ck_assert_ptr_nonnull(strstr(path, "/424242-Prog"));
    /* a program name: only live debuggees count */
    ck_assert_int_eq(
        dbg_target_resolve("Prog", path, sizeof(path), err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "no live debuggee"));
    snprintf(cmd, sizeof(cmd), "touch %s/%d-Self", sd, (int)getpid());
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(
        dbg_target_resolve("Self", path, sizeof(path), err, sizeof(err)), 0);
    ck_assert_ptr_nonnull(strstr(path, "-Self"));
    dbg_conn c;
    ck_assert_int_eq(dbg_connect(&c, path), -1);
    ck_assert_ptr_nonnull(strstr(c.err, "is a regular file, not a debuggee's socket"));
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

void test_debug_blocks_add(TCase *tc); /* test_debug_blocks.c */
TCase *snap_tcase(void);               /* test_snap.c */
TCase *walk_kinds_tcase(void);         /* test_walk_kinds.c */
TCase *dominators_tcase(void);         /* test_dominators.c */
TCase *dominance_tcase(void);          /* test_dominance.c */
TCase *heap_diff_tcase(void);          /* test_heap_diff.c */
TCase *census_tcase(void);             /* test_census.c */
TCase *dups_tcase(void);               /* test_dups.c */

int main(void)
{
    Suite *s = suite_create("debug");
    TCase *tc = tcase_create("client");
    tcase_add_test(tc, continues_concatenate);
    tcase_add_test(tc, bad_command_message);
    tcase_add_test(tc, closed_connection);
    tcase_add_test(tc, source_info_fields);
    tcase_add_test(tc, constructor_names);
    tcase_add_test(tc, targets);
    test_debug_blocks_add(tc);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, snap_tcase());
    suite_add_tcase(s, walk_kinds_tcase());
    suite_add_tcase(s, dominators_tcase());
    suite_add_tcase(s, dominance_tcase());
    suite_add_tcase(s, heap_diff_tcase());
    suite_add_tcase(s, census_tcase());
    suite_add_tcase(s, dups_tcase());
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
