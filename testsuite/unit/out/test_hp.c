/* Check unit tests for the .hp writer (lib/out/hp.c): what hp2ps relies
 * on, byte for byte: the header, samples, band names without white space,
 * markers never inside a sample, the closing empty sample; -hi bands named
 * from IPE entries or, with by_address, left as the RTS's addresses. The
 * testsuite's hp cases check real profiles with hp2ps itself. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/hp.h"

#include "rtscope/model/ipe.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Suite *hp_suite(void);

static el_event hp_ev(uint16_t type, double secs) {
  el_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.type = type;
  ev.ts = (uint64_t)(secs * 1e9);
  ev.known = 1;
  return ev;
}

static el_str hp_str(const char *s, size_t len) {
  el_str v = {s, len};
  return v;
}

static void hp_sample(hp_writer *w, const char *label, uint64_t bytes,
                      double t) {
  el_event ev = hp_ev(EL_HEAP_PROF_SAMPLE_STRING, t);
  ev.u.sample_string.label = hp_str(label, strlen(label));
  ev.u.sample_string.residency = bytes;
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
}

static void hp_type(hp_writer *w, uint16_t type, double t) {
  el_event ev = hp_ev(type, t);
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
}

START_TEST(hp_samples_and_marks) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  hp_writer *w = hp_writer_new(f, 0);
  ck_assert_ptr_nonnull(w);
  el_event ev = hp_ev(EL_PROGRAM_ARGS, 0);
  ev.u.capset_vec.vec = hp_str("./Leak\0+RTS\0\"-hT\"", 17);
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
  hp_type(w, EL_USER_MARKER, 0.25); /* before any sample: written now */
  hp_type(w, EL_HEAP_PROF_SAMPLE_BEGIN, 1.0);
  hp_sample(w, "ARR_WORDS", 4096, 1.0);
  hp_sample(w, "a b\tc", 10, 1.0); /* hp2ps splits on white space */
  hp_sample(w, "", 7, 1.0);
  hp_type(w, EL_USER_MARKER, 1.5); /* inside the sample: after its end */
  hp_type(w, EL_HEAP_PROF_SAMPLE_END, 2.0);
  hp_sample(w, "late", 1, 2.1);               /* outside any sample: dropped */
  hp_type(w, EL_HEAP_PROF_SAMPLE_BEGIN, 2.5); /* never ended */
  hp_sample(w, "THUNK", 64, 2.5);
  ck_assert_int_eq(hp_writer_finish(w, (uint64_t)3e9), 0);
  hp_writer_free(w);
  fclose(f);
  ck_assert_str_eq(out, "JOB \"./Leak +RTS '-hT'\"\n"
                        "DATE \"unknown\"\n"
                        "SAMPLE_UNIT \"seconds\"\n"
                        "VALUE_UNIT \"bytes\"\n"
                        "BEGIN_SAMPLE 0.000000\n"
                        "END_SAMPLE 0.000000\n"
                        "MARK 0.250000\n"
                        "BEGIN_SAMPLE 1.000000\n"
                        "ARR_WORDS\t4096\n"
                        "a_b_c\t10\n"
                        "(none)\t7\n"
                        "END_SAMPLE 1.000000\n"
                        "MARK 1.500000\n"
                        "BEGIN_SAMPLE 2.500000\n"
                        "THUNK\t64\n"
                        "END_SAMPLE 2.500000\n"
                        "BEGIN_SAMPLE 3.000000\n"
                        "END_SAMPLE 3.000000\n");
  free(out);
}
END_TEST

/* A -hi profile: the band of an address with an IPE entry, by name or by
 * address. */
static char *hp_hi_profile(int by_address) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  hp_writer *w = hp_writer_new(f, by_address);
  ck_assert_ptr_nonnull(w);
  el_event ev = hp_ev(EL_HEAP_PROF_BEGIN, 0);
  ev.u.heap_prof_begin.breakdown = EL_BREAKDOWN_INFO_TABLE;
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
  ev = hp_ev(EL_IPE, 0);
  ev.u.ipe.info = 0x4c5e10;
  ev.u.ipe.table_name = hp_str("Leak", 4);
  ev.u.ipe.closure_desc = hp_str("1", 1);
  ev.u.ipe.ty_desc = hp_str("main:Main.Leak", 14);
  ev.u.ipe.label = hp_str("", 0);
  ev.u.ipe.module = hp_str("Main", 4);
  ev.u.ipe.srcloc = hp_str("Main.hs:3:1-20", 14);
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
  hp_type(w, EL_HEAP_PROF_SAMPLE_BEGIN, 1.0);
  hp_sample(w, "0x4c5e10", 48, 1.0);
  hp_sample(w, "0x999", 16, 1.0); /* no entry */
  hp_type(w, EL_HEAP_PROF_SAMPLE_END, 1.0);
  ck_assert_int_eq(hp_writer_finish(w, 0), 0);
  hp_writer_free(w);
  fclose(f);
  return out;
}

START_TEST(hp_hi_bands) {
  char *named = hp_hi_profile(0), *raw = hp_hi_profile(1);
  /* one band per line, no white space inside a name */
  const char *b = strstr(named, "BEGIN_SAMPLE 1.000000\n");
  ck_assert_ptr_nonnull(b);
  b = strchr(b, '\n') + 1;
  const char *tab = strchr(b, '\t');
  ck_assert_ptr_nonnull(tab);
  ck_assert_str_eq(tab, "\t48\n0x999\t16\nEND_SAMPLE 1.000000\n"
                        "BEGIN_SAMPLE 1.000000\nEND_SAMPLE 1.000000\n");
  /* the name every rtscope output gives the table, white space made _ */
  ipe_entry e = {0x4c5e10, "Leak",           "1", "main:Main.Leak", "",
                 "Main",   "Main.hs:3:1-20", NULL};
  char want[256];
  ipe_display_name(want, sizeof(want), &e);
  ck_assert_ptr_nonnull(strstr(want, "Main.hs:3:1-20"));
  for (char *p = want; *p; p++)
    if (*p == ' ')
      *p = '_';
  ck_assert_uint_eq((size_t)(tab - b), strlen(want));
  ck_assert_int_eq(memcmp(b, want, strlen(want)), 0);
  ck_assert_ptr_nonnull(strstr(raw, "\n0x4c5e10\t48\n0x999\t16\n"));
  free(named);
  free(raw);
}
END_TEST

/* An IPE event for an address whose band was named already: later samples
 * take the new name (the writer keeps names it made by address), and
 * residencies print as fprintf's %" PRIu64 " did, 0 and the largest too. */
static void hp_ipe(hp_writer *w, uint64_t info, const char *con) {
  el_event ev = hp_ev(EL_IPE, 0);
  ev.u.ipe.info = info;
  ev.u.ipe.table_name = hp_str("T", 1);
  ev.u.ipe.closure_desc = hp_str("1", 1);
  ev.u.ipe.ty_desc = hp_str("", 0);
  ev.u.ipe.label = hp_str(con, strlen(con));
  ev.u.ipe.module = hp_str("Main", 4);
  ev.u.ipe.srcloc = hp_str("", 0);
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
}

static char *hp_ipe_name(uint64_t info, const char *con) {
  ipe_entry e = {info, "T", "1", "", con, "Main", "", NULL};
  char name[256];
  ipe_display_name(name, sizeof(name), &e);
  for (char *p = name; *p; p++)
    if (*p == ' ')
      *p = '_';
  return strdup(name);
}

START_TEST(hp_hi_renamed) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  hp_writer *w = hp_writer_new(f, 0);
  el_event ev = hp_ev(EL_HEAP_PROF_BEGIN, 0);
  ev.u.heap_prof_begin.breakdown = EL_BREAKDOWN_INFO_TABLE;
  ck_assert_int_eq(hp_writer_event(w, &ev), 0);
  hp_ipe(w, 0x4c5e10, "Old");
  hp_type(w, EL_HEAP_PROF_SAMPLE_BEGIN, 1.0);
  hp_sample(w, "0x4c5e10", 0, 1.0);
  hp_sample(w, "0x4c5e10", UINT64_MAX, 1.0);
  hp_type(w, EL_HEAP_PROF_SAMPLE_END, 1.0);
  hp_ipe(w, 0x4c5e10, "New");
  hp_type(w, EL_HEAP_PROF_SAMPLE_BEGIN, 2.0);
  hp_sample(w, "0x4c5e10", 1234567890, 2.0);
  ck_assert_int_eq(hp_writer_finish(w, 0), 0);
  hp_writer_free(w);
  fclose(f);
  char *old_name = hp_ipe_name(0x4c5e10, "Old");
  char *new_name = hp_ipe_name(0x4c5e10, "New");
  char want[1024];
  snprintf(want, sizeof(want),
           "BEGIN_SAMPLE 1.000000\n%s\t0\n%s\t18446744073709551615\n"
           "END_SAMPLE 1.000000\nBEGIN_SAMPLE 2.000000\n%s\t1234567890\n"
           "END_SAMPLE 2.000000\n",
           old_name, old_name, new_name);
  ck_assert_ptr_nonnull(strstr(out, want));
  free(old_name);
  free(new_name);
  free(out);
}
END_TEST

START_TEST(hp_long_band) {
  /* a name longer than the writer's buffer, white space past it */
  char label[301], want[320];
  memset(label, 'x', 300);
  label[300] = 0;
  label[260] = ' ';
  label[299] = '\x7f';
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  hp_writer *w = hp_writer_new(f, 0);
  hp_type(w, EL_HEAP_PROF_SAMPLE_BEGIN, 1.0);
  hp_sample(w, label, 5, 1.0);
  ck_assert_int_eq(hp_writer_finish(w, 0), 0);
  hp_writer_free(w);
  fclose(f);
  label[260] = label[299] = '_';
  snprintf(want, sizeof(want), "\n%s\t5\nEND_SAMPLE", label);
  ck_assert_ptr_nonnull(strstr(out, want));
  free(out);
}
END_TEST

START_TEST(hp_write_error) {
  FILE *f = fopen("/dev/full", "w");
  ck_assert_ptr_nonnull(f);
  setvbuf(f, NULL, _IONBF, 0); /* every write fails at once */
  hp_writer *w = hp_writer_new(f, 0);
  el_event ev = hp_ev(EL_HEAP_PROF_SAMPLE_BEGIN, 1.0);
  ck_assert_int_ne(hp_writer_event(w, &ev), 0);
  hp_writer_free(w);
  fclose(f);
}
END_TEST

Suite *hp_suite(void) {
  Suite *s = suite_create("hp");
  TCase *tc = tcase_create("writer");
  tcase_add_test(tc, hp_samples_and_marks);
  tcase_add_test(tc, hp_hi_bands);
  tcase_add_test(tc, hp_hi_renamed);
  tcase_add_test(tc, hp_long_band);
  tcase_add_test(tc, hp_write_error);
  suite_add_tcase(s, tc);
  return s;
}
