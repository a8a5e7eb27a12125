/* The explorer's screen (ncurses): a title line, the tree, a details pane
 * and a status line; the keys (xs_keys_help), the command picker (Ctrl-P)
 * and the search prompt (/). Nothing here knows where the heap comes
 * from: explore.c does the commands (enum xs_cmd). */
#define _GNU_SOURCE
#include "xscreen.h"

#include <ctype.h>
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DETAILS 7 /* lines of the details pane, its rule included */
#define CTRL(c) ((c)&0x1f)
#define KEY_ESC 27
#define KEY_DEL 127

const char xs_keys_help[] =
    "Up/Down k/j    move            PgUp/PgDn  a page\n"
    "Home/End g/G   first/last row\n"
    "Right/l        expand (again: to the first field)\n"
    "Left/h         collapse (again: to the parent)\n"
    "Enter/Space    expand or collapse; on \"N more\": the next page\n"
    "p  f  Ctrl-R   pause, explore a forked copy, resume the program\n"
    "/              search: con:Bin name: module: src: type: size:\n"
    "               addr: info: limit:N, !word excludes\n"
    "r              the selected closure's retainers: a path to a root\n"
    "w              write the selected ARR_WORDS' payload to a file\n"
    "s              a snapshot of the heap: ./PROG.PID.N.explore.rsnap\n"
    "c  t  d        census by info table, thunks, dominator tree\n"
    "C              census by info table, then by what closures point to\n"
    "Ctrl-P         all commands (census by module, leak suspects,\n"
    "               ARR_WORDS and string duplicates, ...)\n"
    "[ ]  Backspace back and forward between views\n"
    "Esc            cancel a walk; close a prompt\n"
    "?              this help         q  quit (the program runs on)\n";

/* The commands, in the picker's order: what the picker says, the key. */
typedef struct xs_command {
    const char *name;
    const char *key;
    enum xs_cmd cmd;
    int code; /* the key's code, 0 if none */
} xs_command;

static const xs_command xs_commands[] = {
    {"Search closures (filters and exclusions)", "/", XC_SEARCH, '/'},
    {"Retainers of the selected closure", "r", XC_RETAIN, 'r'},
    {"Census by info table", "c", XC_CENSUS_INFO, 'c'},
    {"Census by constructor", "", XC_CENSUS_CON, 0},
    {"Census by module", "", XC_CENSUS_MODULE, 0},
    {"Census by closure type", "", XC_CENSUS_TYPE, 0},
    {"Census, two levels (by what closures point to)", "C", XC_CENSUS2, 'C'},
    {"Thunks by source location", "t", XC_THUNKS, 't'},
    {"Dominator tree (retained sizes)", "d", XC_DOMINATORS, 'd'},
    {"Leak suspects", "", XC_SUSPECTS, 0},
    {"ARR_WORDS duplicates and size histogram", "", XC_ARR_WORDS, 0},
    {"Duplicate strings", "", XC_STRINGS, 0},
    {"Write the selected ARR_WORDS' payload to a file", "w", XC_WRITE, 'w'},
    {"Roots and saved objects (the first view)", "", XC_ROOTS, 0},
    {"Back to the previous view", "[", XC_BACK, '['},
    {"Forward to the next view", "]", XC_FORWARD, ']'},
    {"Take a snapshot of the heap (a .rsnap file)", "s", XC_SNAPSHOT, 's'},
    {"Pause the program", "p", XC_PAUSE, 'p'},
    {"Explore a forked copy (the program runs on)", "f", XC_FORK, 'f'},
    {"Resume the program", "Ctrl-R", XC_RESUME, CTRL('r')},
    {"Keys", "?", XC_HELP, '?'},
    {"Quit (the program runs on)", "q", XC_QUIT, 'q'},
};
#define XS_NCOMMANDS (sizeof(xs_commands) / sizeof(*xs_commands))

static volatile sig_atomic_t xs_stop;

static void on_signal(int sig)
{
    (void)sig;
    xs_stop = 1;
}

/* ---- drawing ------------------------------------------------------------ */

/* The title line: the program or file, its state, and at the right the
 * view; a long path keeps its end (the socket's pid and program, the
 * snapshot's name), so the state and the view are never overwritten. */
static void draw_title(const xs_view *v)
{
    attron(A_REVERSE);
    mvhline(0, 0, ' ', COLS);
    const xt_tree *t = v->tree;
    char at[220] = "";
    if (t && t->nviews)
        snprintf(at, sizeof(at), "%s  [%zu/%zu] ", t->views[t->cur].title,
                 t->cur + 1, t->nviews);
    const char *what = v->what;
    int room = COLS - (int)strlen(at) - (int)strlen(v->state) -
               (int)strlen(" rtscope explore    ") - 2;
    int len = (int)strlen(what);
    if (len > room && room > 8)
        mvprintw(0, 0, " rtscope explore  ...%s  %s", what + len - (room - 3),
                 v->state);
    else
        mvprintw(0, 0, " rtscope explore  %s  %s", what, v->state);
    if (at[0]) {
        int x = COLS - (int)strlen(at);
        int y, cx;
        getyx(stdscr, y, cx);
        (void)y;
        mvaddnstr(0, x > cx + 2 ? x : cx + 2, at, -1);
    }
    attroff(A_REVERSE);
}

static void draw_row(xt_tree *t, uint32_t i, int y, int selected)
{
    xt_node *x = &t->v[i];
    if (xt_describe(t, i) != 0)
        return;
    const char *mark = "  ";
    if (x->kind != XT_MORE && x->kind != XT_NOTE)
        mark =
            x->open ? "- " : (x->loaded && x->first == XT_NONE ? "  " : "+ ");
    if (selected)
        attron(A_REVERSE);
    mvhline(y, 0, ' ', COLS);
    char buf[2048];
    int ind = (int)x->depth * 2;
    snprintf(buf, sizeof(buf), "%*s%s%s%s%s", ind, "", mark,
             x->label ? x->label : "", x->label && x->text ? ": " : "",
             x->text ? x->text : "");
    mvaddnstr(y, 0, buf, COLS);
    if (selected)
        attroff(A_REVERSE);
}

static void draw_details(xs_view *v, int top)
{
    mvhline(top, 0, '-', COLS);
    char lines[DETAILS - 1][256];
    size_t n = 0;
    if (v->tree && v->tree->nvis)
        n = xt_details(v->tree, v->tree->vis[v->sel], lines, DETAILS - 1);
    for (size_t k = 0; k < n; k++)
        mvaddnstr(top + 1 + (int)k, 1, lines[k], COLS - 1);
}

/* Lines of msg from row top + 1 (at most rows - 1 of them), from column
 * x, at most width columns wide. */
static void draw_message(const char *msg, int top, int rows, int x, int width)
{
    int y = top + 1;
    const char *p = msg;
    while (*p && y < top + rows) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        mvaddnstr(y++, x, p, len < width ? len : width);
        p = nl ? nl + 1 : p + len;
    }
}

static void draw_help(void)
{
    int h = 2, w = 74;
    for (const char *c = xs_keys_help; *c; c++)
        h += *c == '\n';
    int y0 = (LINES - h) / 2 > 0 ? (LINES - h) / 2 : 0;
    int x0 = (COLS - w) / 2 > 0 ? (COLS - w) / 2 : 0;
    for (int y = 0; y < h; y++) {
        mvhline(y0 + y, x0, ' ', w);
        mvaddch(y0 + y, x0, '|');
        mvaddch(y0 + y, x0 + w - 1, '|');
    }
    mvhline(y0, x0, '-', w);
    mvhline(y0 + h - 1, x0, '-', w);
    mvaddstr(y0, x0 + 2, " Keys (any key closes this) ");
    draw_message(xs_keys_help, y0, h - 1, x0 + 3, w - 5);
}

static void draw(xs_view *v)
{
    erase();
    draw_title(v);
    int rows = LINES - 2 - DETAILS;
    xt_tree *t = v->tree;
    if (!t) {
        draw_message(v->message, 1, rows, 2, COLS - 2);
    } else {
        if (v->sel < v->scroll)
            v->scroll = v->sel;
        if (rows > 0 && v->sel >= v->scroll + (size_t)rows)
            v->scroll = v->sel - (size_t)rows + 1;
        for (int r = 0; r < rows && v->scroll + (size_t)r < t->nvis; r++)
            draw_row(t, t->vis[v->scroll + (size_t)r], 1 + r,
                     v->scroll + (size_t)r == v->sel);
        if (t->err[0])
            snprintf(v->status, sizeof(v->status), "%s", t->err);
    }
    draw_details(v, LINES - 1 - DETAILS);
    mvhline(LINES - 1, 0, ' ', COLS);
    mvaddnstr(LINES - 1, 0, v->status, COLS);
    if (v->help)
        draw_help();
    refresh();
}

/* ---- keys --------------------------------------------------------------- */

static void move_sel(xs_view *v, long by)
{
    if (!v->tree || v->tree->nvis == 0)
        return;
    long s = (long)v->sel + by;
    if (s < 0)
        s = 0;
    if (s >= (long)v->tree->nvis)
        s = (long)v->tree->nvis - 1;
    v->sel = (size_t)s;
}

/* The row of node i, or the selection if it is not shown. */
static size_t row_of(const xt_tree *t, uint32_t i, size_t dflt)
{
    for (size_t r = 0; r < t->nvis; r++)
        if (t->vis[r] == i)
            return r;
    return dflt;
}

static void key_right(xs_view *v)
{
    xt_tree *t = v->tree;
    uint32_t i = t->vis[v->sel];
    if (t->v[i].open) {
        move_sel(v, 1);
        return;
    }
    if (xt_open(t, i) != 0)
        return;
    v->sel = row_of(t, i, v->sel);
}

static void key_left(xs_view *v)
{
    xt_tree *t = v->tree;
    uint32_t i = t->vis[v->sel];
    if (t->v[i].open) {
        xt_close(t, i);
    } else if (t->v[i].parent != XT_NONE) {
        xt_close(t, t->v[i].parent);
        i = t->v[i].parent;
    }
    v->sel = row_of(t, i, 0);
}

static void key_enter(xs_view *v)
{
    xt_tree *t = v->tree;
    uint32_t i = t->vis[v->sel];
    if (t->v[i].open)
        xt_close(t, i);
    else if (xt_open(t, i) == 0)
        v->sel = row_of(t, i, v->sel);
}

/* A key on the tree; 1 when it was one of the tree's. */
static int tree_key(xs_view *v, int ch)
{
    int page = LINES - 2 - DETAILS > 1 ? LINES - 3 - DETAILS : 1;
    if (!v->tree || v->tree->nvis == 0)
        return 0;
    v->tree->err[0] = '\0';
    switch (ch) {
    case KEY_UP:
    case 'k':
        move_sel(v, -1);
        return 1;
    case KEY_DOWN:
    case 'j':
        move_sel(v, 1);
        return 1;
    case KEY_PPAGE:
        move_sel(v, -page);
        return 1;
    case KEY_NPAGE:
        move_sel(v, page);
        return 1;
    case KEY_HOME:
    case 'g':
        v->sel = 0;
        return 1;
    case KEY_END:
    case 'G':
        v->sel = v->tree->nvis - 1;
        return 1;
    case KEY_RIGHT:
    case 'l':
        key_right(v);
        return 1;
    case KEY_LEFT:
    case 'h':
        key_left(v);
        return 1;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case ' ':
        key_enter(v);
        return 1;
    default:
        return 0;
    }
}

/* ---- views --------------------------------------------------------------- */

/* Where the user is, kept in the current view (before a command that may
 * change views) or taken from it (after). */
static void save_pos(xs_view *v)
{
    if (v->tree && v->tree->nviews) {
        v->tree->views[v->tree->cur].sel = v->sel;
        v->tree->views[v->tree->cur].scroll = v->scroll;
    }
}

static void load_pos(xs_view *v)
{
    xt_tree *t = v->tree;
    if (!t || !t->nviews)
        return;
    v->sel = t->views[t->cur].sel;
    v->scroll = t->views[t->cur].scroll;
    if (v->sel >= t->nvis)
        v->sel = t->nvis ? t->nvis - 1 : 0;
}

static void go_view(xs_view *v, long by)
{
    xt_tree *t = v->tree;
    if (!t || (by < 0 && t->cur == 0) || (by > 0 && t->cur + 1 >= t->nviews)) {
        snprintf(v->status, sizeof(v->status), "%s",
                 !t       ? "nothing to explore yet (p pauses the program)"
                 : by < 0 ? "the first view"
                          : "the last view");
        return;
    }
    save_pos(v);
    xt_view_go(t, by < 0 ? t->cur - 1 : t->cur + 1);
    load_pos(v);
    snprintf(v->status, sizeof(v->status), "%s (view %zu of %zu)",
             t->views[t->cur].title, t->cur + 1, t->nviews);
}

/* ---- progress, the prompt, the picker -------------------------------------
 */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int xs_progress(void *ui, const char *what, size_t visited, size_t queued)
{
    xs_view *v = ui;
    double now = now_s();
    if (now - v->drawn_at >= 0.1) {
        snprintf(v->status, sizeof(v->status),
                 "%s: %zu closures read, %zu to go ... (Esc cancels)", what,
                 visited, queued);
        mvhline(LINES - 1, 0, ' ', COLS);
        mvaddnstr(LINES - 1, 0, v->status, COLS);
        refresh();
        v->drawn_at = now;
    }
    timeout(0);
    int ch, stop = 0;
    while ((ch = getch()) != ERR)
        stop |= ch == KEY_ESC;
    timeout(250);
    return stop || xs_stop;
}

int xs_prompt(xs_view *v, const char *label, char *buf, size_t len)
{
    size_t n = strlen(buf);
    curs_set(1);
    for (;;) {
        draw(v);
        mvhline(LINES - 1, 0, ' ', COLS);
        mvprintw(LINES - 1, 0, "%s%s", label, buf);
        refresh();
        int ch = getch();
        if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == KEY_ESC ||
            xs_stop) {
            curs_set(0);
            return ch != KEY_ESC && !xs_stop;
        }
        if ((ch == KEY_BACKSPACE || ch == KEY_DEL || ch == CTRL('h')) && n)
            buf[--n] = '\0';
        else if (ch == CTRL('u'))
            buf[n = 0] = '\0';
        else if (ch >= 0x20 && ch < 0x7f && n + 1 < len) {
            buf[n++] = (char)ch;
            buf[n] = '\0';
        }
    }
}

/* Does the picker's filter (words, any case) match command c? */
static int picks(const xs_command *c, const char *filter)
{
    char f[64], *save = NULL;
    snprintf(f, sizeof(f), "%s", filter);
    for (char *w = strtok_r(f, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!strcasestr(c->name, w))
            return 0;
    return 1;
}

static void draw_picker(const char *filter, const size_t *match, size_t n,
                        size_t sel)
{
    int w = 64, h = (int)XS_NCOMMANDS + 4;
    int y0 = (LINES - h) / 2 > 1 ? (LINES - h) / 2 : 1;
    int x0 = (COLS - w) / 2 > 0 ? (COLS - w) / 2 : 0;
    for (int y = 0; y < h && y0 + y < LINES; y++) {
        mvhline(y0 + y, x0, ' ', w);
        mvaddch(y0 + y, x0, '|');
        mvaddch(y0 + y, x0 + w - 1, '|');
    }
    mvhline(y0, x0, '-', w);
    mvhline(y0 + h - 1, x0, '-', w);
    mvaddstr(y0, x0 + 2, " Commands (type to filter, Enter runs, Esc) ");
    mvprintw(y0 + 1, x0 + 2, "> %s", filter);
    for (size_t k = 0; k < n; k++) {
        const xs_command *c = &xs_commands[match[k]];
        if (k == sel)
            attron(A_REVERSE);
        mvprintw(y0 + 2 + (int)k, x0 + 2, "%-50.50s %8s", c->name, c->key);
        if (k == sel)
            attroff(A_REVERSE);
    }
}

/* The command picker: the command chosen, or XC_N. */
static enum xs_cmd pick_command(xs_view *v)
{
    char filter[64] = "";
    size_t sel = 0, match[XS_NCOMMANDS], n;
    for (;;) {
        n = 0;
        for (size_t k = 0; k < XS_NCOMMANDS; k++)
            if (picks(&xs_commands[k], filter))
                match[n++] = k;
        if (sel >= n)
            sel = n ? n - 1 : 0;
        draw(v);
        draw_picker(filter, match, n, sel);
        refresh();
        int ch = getch();
        size_t len = strlen(filter);
        if (ch == KEY_ESC || xs_stop)
            return XC_N;
        if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && n)
            return xs_commands[match[sel]].cmd;
        if (ch == KEY_UP || ch == CTRL('p'))
            sel = sel ? sel - 1 : 0;
        else if (ch == KEY_DOWN || ch == CTRL('n'))
            sel++;
        else if ((ch == KEY_BACKSPACE || ch == KEY_DEL) && len)
            filter[len - 1] = '\0';
        else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(filter)) {
            filter[len] = (char)ch;
            filter[len + 1] = '\0';
            sel = 0;
        }
    }
}

/* ---- the loop ----------------------------------------------------------- */

static void run_command(xs_view *v, enum xs_cmd c, int *quit)
{
    char q[sizeof(v->query)];
    switch (c) {
    case XC_QUIT:
        *quit = 1;
        return;
    case XC_HELP:
        v->help = 1;
        return;
    case XC_BACK:
    case XC_FORWARD:
        go_view(v, c == XC_BACK ? -1 : 1);
        return;
    case XC_SEARCH:
        snprintf(q, sizeof(q), "%s", v->query);
        if (!v->tree ||
            !xs_prompt(v, "search (con:Bin, !type:THUNK, ...): ", q, sizeof(q)))
            break;
        snprintf(v->query, sizeof(v->query), "%s", q);
        save_pos(v);
        v->command(v, c, q);
        load_pos(v);
        return;
    default:
        break;
    }
    if (c == XC_SEARCH || !v->command)
        return;
    save_pos(v);
    v->command(v, c, NULL);
    load_pos(v);
}

static enum xs_cmd command_of(int ch)
{
    if (ch == KEY_BACKSPACE || ch == KEY_DEL)
        return XC_BACK;
    for (size_t k = 0; k < XS_NCOMMANDS; k++)
        if (xs_commands[k].code && xs_commands[k].code == ch)
            return xs_commands[k].cmd;
    return XC_N;
}

static void handle_key(xs_view *v, int ch, int *quit)
{
    if (v->help) {
        v->help = 0;
        return;
    }
    if (tree_key(v, ch))
        return;
    enum xs_cmd c = ch == CTRL('p') ? pick_command(v) : command_of(ch);
    if (ch == KEY_ESC) /* back, and out of the first view */
        c = v->tree && v->tree->cur > 0 ? XC_BACK : XC_QUIT;
    if (c != XC_N)
        run_command(v, c, quit);
}

int xs_run(xs_view *v)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (!initscr())
        return -1;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    timeout(250);
    int quit = 0;
    while (!quit && !xs_stop) {
        draw(v);
        int ch = getch();
        if (ch == ERR) {
            if (v->tick)
                v->tick(v);
            continue;
        }
        if (ch != KEY_RESIZE)
            handle_key(v, ch, &quit);
    }
    endwin();
    return 0;
}
