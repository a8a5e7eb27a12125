/* The explorer's screen (ncurses): a title line, the tree, a details pane
 * and a status line; the keys (xs_keys_help). Nothing here knows where
 * the heap comes from: explore.c hands in callbacks for pause, fork and
 * resume. */
#include "xscreen.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DETAILS 7 /* lines of the details pane, its rule included */
#define CTRL(c) ((c)&0x1f)
#define KEY_ESC 27

const char xs_keys_help[] =
    "Up/Down k/j    move            PgUp/PgDn  a page\n"
    "Home/End g/G   first/last row\n"
    "Right/l        expand (again: to the first field)\n"
    "Left/h         collapse (again: to the parent)\n"
    "Enter/Space    expand or collapse; on \"N more\": the next page\n"
    "p              pause the program and explore its heap\n"
    "f              explore a forked copy; the program keeps running\n"
    "Ctrl-R         resume the program\n"
    "r              the selected closure's retainers: a path to a root\n"
    "?              this help         q, Esc  quit (the program runs on)\n";

static volatile sig_atomic_t xs_stop;

static void on_signal(int sig)
{
    (void)sig;
    xs_stop = 1;
}

/* ---- drawing ------------------------------------------------------------ */

static void draw_title(const xs_view *v)
{
    attron(A_REVERSE);
    mvhline(0, 0, ' ', COLS);
    mvprintw(0, 0, " rtscope explore  %s  %s", v->what, v->state);
    attroff(A_REVERSE);
}

static void draw_row(xt_tree *t, uint32_t i, int y, int selected)
{
    xt_node *x = &t->v[i];
    if (xt_describe(t, i) != 0)
        return;
    const char *mark = "  ";
    if (x->kind == XT_GROUP || x->kind == XT_CLOSURE || x->kind == XT_FRAME)
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

static void draw_message(const char *msg, int top, int rows)
{
    int y = top + 1;
    const char *p = msg;
    while (*p && y < top + rows) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        mvaddnstr(y++, 2, p, len < COLS - 2 ? len : COLS - 2);
        p = nl ? nl + 1 : p + len;
    }
}

static void draw_help(void)
{
    int h = 14, w = 66;
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
    draw_message(xs_keys_help, y0 + 1, h - 2);
}

static void draw(xs_view *v)
{
    erase();
    draw_title(v);
    int rows = LINES - 2 - DETAILS;
    xt_tree *t = v->tree;
    if (!t) {
        draw_message(v->message, 1, rows);
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

/* ---- the loop ----------------------------------------------------------- */

static void handle_key(xs_view *v, int ch, int *quit)
{
    if (v->help) {
        v->help = 0;
        return;
    }
    if (tree_key(v, ch))
        return;
    switch (ch) {
    case 'q':
    case KEY_ESC:
        *quit = 1;
        break;
    case '?':
        v->help = 1;
        break;
    case 'p':
        if (v->pause)
            v->pause(v, 0);
        break;
    case 'f':
        if (v->pause)
            v->pause(v, 1);
        break;
    case CTRL('r'):
        if (v->resume)
            v->resume(v);
        break;
    case 'r':
        if (v->retain && v->tree) {
            snprintf(v->status, sizeof(v->status),
                     "walking the heap for a retainer path ...");
            draw(v);
            v->retain(v);
        }
        break;
    default:
        break;
    }
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
