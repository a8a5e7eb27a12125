/* The explorer's picker: two lists, the debuggees (program, pid, when it
 * started, alive or stale) and the snapshots (file, size, when taken);
 * Tab switches between them, Enter picks. Each list is newest first, and
 * the debuggees alive before the stale ones (the sockets of programs that
 * were killed stay behind), so Enter at once opens the newest program
 * running. */
#define _GNU_SOURCE
#include "xpick.h"

#include "rtscope/base/grow.h"
#include "rtscope/base/user_sockets.h"
#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_snap.h"

#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct pick_item {
    char path[4352];
    char row[256];
    int usable; /* a live debuggee, or a snapshot */
    time_t when;
} pick_item;

/* Usable first, then newest first, then by path (a stable order). */
static int pick_order(const void *a, const void *b)
{
    const pick_item *x = a, *y = b;
    if (x->usable != y->usable)
        return y->usable - x->usable;
    if (x->when != y->when)
        return x->when < y->when ? 1 : -1;
    return strcmp(x->path, y->path);
}

typedef struct pick_list {
    const char *title;
    char dir[4096];
    pick_item *v;
    size_t n, cap, sel;
} pick_list;

int xpick_snapshot_dir(const char *dir, char *out, size_t len)
{
    const char *env = getenv("RTSCOPE_SNAPSHOT_DIR");
    int n;
    if (dir)
        n = snprintf(out, len, "%s", dir);
    else if (env && *env)
        n = snprintf(out, len, "%s", env);
    else
        return rt_user_data_dir("rtscope/snapshots", out, len);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static pick_item *pick_add(pick_list *l)
{
    if (rt_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 16) != 0)
        return NULL;
    memset(&l->v[l->n], 0, sizeof(*l->v));
    return &l->v[l->n++];
}

static void when_text(time_t t, char *buf, size_t len)
{
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static int list_debuggees(pick_list *l)
{
    rt_sock_ent *v;
    size_t n;
    if (rt_sock_list(RT_SOCK_DEBUG, &v, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        pick_item *it = pick_add(l);
        if (!it)
            break;
        snprintf(it->path, sizeof(it->path), "%s", v[i].path);
        int alive = v[i].alive;
        if (alive) {
            dbg_conn c;
            alive = dbg_connect(&c, it->path) == 0;
            dbg_close(&c);
        }
        struct stat st;
        char when[32] = "?";
        if (stat(it->path, &st) == 0) {
            when_text(st.st_mtime, when, sizeof(when));
            it->when = st.st_mtime;
        }
        snprintf(it->row, sizeof(it->row), "%-24.24s %8ld  %s  %s", v[i].prog,
                 v[i].pid, when, alive ? "alive" : "stale");
        it->usable = alive;
    }
    free(v);
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), pick_order);
    return 0;
}

static int list_snapshots(pick_list *l)
{
    DIR *d = opendir(l->dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[4352];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", l->dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            !dbg_snap_file_is_snapshot(path))
            continue;
        pick_item *it = pick_add(l);
        if (!it)
            break;
        snprintf(it->path, sizeof(it->path), "%s", path);
        char when[32];
        when_text(st.st_mtime, when, sizeof(when));
        snprintf(it->row, sizeof(it->row), "%-36.36s %10.1f MB  %s", e->d_name,
                 (double)st.st_size / 1e6, when);
        it->usable = 1;
        it->when = st.st_mtime;
    }
    closedir(d);
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), pick_order);
    return 0;
}

static void draw_list(const pick_list *l, int y, int rows, int active)
{
    if (active)
        attron(A_BOLD);
    mvprintw(y, 0, "%s (%zu) in %s", l->title, l->n, l->dir);
    if (active)
        attroff(A_BOLD);
    if (l->n == 0)
        mvaddstr(y + 1, 2, "(none)");
    size_t first = l->sel >= (size_t)rows ? l->sel - (size_t)rows + 1 : 0;
    for (int r = 0; r < rows && first + (size_t)r < l->n; r++) {
        const pick_item *it = &l->v[first + (size_t)r];
        int sel = active && first + (size_t)r == l->sel;
        if (sel)
            attron(A_REVERSE);
        mvhline(y + 1 + r, 0, ' ', COLS);
        mvaddnstr(y + 1 + r, 2, it->row, COLS - 2);
        if (sel)
            attroff(A_REVERSE);
    }
}

/* The curses loop: the index of the list picked from (its sel), or -1. */
static int pick_loop(pick_list *ls, const char *msg)
{
    int cur = !(ls[0].n > 0 && ls[0].v[0].usable) && ls[1].n > 0;
    for (;;) {
        erase();
        int half = (LINES - 3) / 2;
        draw_list(&ls[0], 0, half - 1, cur == 0);
        draw_list(&ls[1], half, LINES - 2 - half - 1, cur == 1);
        mvaddnstr(LINES - 1, 0,
                  msg ? msg
                      : "Tab: switch list  Up/Down: move  Enter: open  q: quit",
                  COLS);
        refresh();
        int ch = getch();
        pick_list *l = &ls[cur];
        msg = NULL;
        if (ch == 'q' || ch == 27)
            return -1;
        if (ch == '\t')
            cur = !cur;
        else if ((ch == KEY_UP || ch == 'k') && l->sel > 0)
            l->sel--;
        else if ((ch == KEY_DOWN || ch == 'j') && l->sel + 1 < l->n)
            l->sel++;
        else if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && l->n > 0) {
            if (l->v[l->sel].usable)
                return cur;
            msg = "stale: that program is gone (its socket stayed behind); "
                  "pick one alive, or a snapshot";
        }
    }
}

int xpick_run(const char *dir, char *target, size_t len, const char *msg)
{
    pick_list ls[2] = {{.title = "Debuggees"}, {.title = "Snapshots"}};
    int r = 1;
    if (dbg_socket_dir(ls[0].dir, sizeof(ls[0].dir)) != 0 ||
        xpick_snapshot_dir(dir, ls[1].dir, sizeof(ls[1].dir)) != 0) {
        fprintf(stderr, "rtscope explore: no socket or snapshot directory "
                        "(set XDG_DATA_HOME or HOME)\n");
        return -1;
    }
    if (list_debuggees(&ls[0]) != 0 || list_snapshots(&ls[1]) != 0) {
        fprintf(stderr, "rtscope explore: %s: %s\n",
                errno ? strerror(errno) : "cannot list", ls[0].dir);
        r = -1;
    } else if (ls[0].n == 0 && ls[1].n == 0) {
        printf("no debuggee in %s and no snapshot in %s\n", ls[0].dir,
               ls[1].dir);
    } else if (initscr()) {
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        set_escdelay(25);
        curs_set(0);
        int k = pick_loop(ls, msg && *msg ? msg : NULL);
        endwin();
        if (k >= 0) {
            snprintf(target, len, "%s", ls[k].v[ls[k].sel].path);
            r = 0;
        }
    } else {
        fprintf(stderr, "rtscope explore: cannot use the terminal\n");
        r = -1;
    }
    free(ls[0].v);
    free(ls[1].v);
    return r;
}
