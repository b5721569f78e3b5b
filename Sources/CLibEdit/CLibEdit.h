#ifndef CLIBEDIT_H
#define CLIBEDIT_H

#include <stdio.h>
#include <editline/readline.h>
#include <histedit.h>   /* native API: el_init, el_gets, history */

/*
 * Swift cannot call C variadic functions (el_set, el_get, history), nor use the
 * stdio globals under strict concurrency: one static inline wrapper per call
 * that EditLineEditor.swift makes, and the output flush of StandardStreams.swift.
 */

static inline EditLine *clibedit_init_stdio(const char *program) {
    return el_init(program, stdin, stdout, stderr);
}
static inline int clibedit_set_prompt(EditLine *e, char *(*f)(EditLine *)) {
    return el_set(e, EL_PROMPT, f);
}
static inline int clibedit_set_editor(EditLine *e, const char *mode) {
    return el_set(e, EL_EDITOR, mode);
}
static inline int clibedit_set_signal(EditLine *e, int on) {
    return el_set(e, EL_SIGNAL, on);
}
/* Draws the prompt and the line again on a new line (after the shell was suspended). */
static inline int clibedit_refresh(EditLine *e) {
    return el_set(e, EL_REFRESH);
}
static inline int clibedit_set_history(EditLine *e, History *h) {
    return el_set(e, EL_HIST, history, h);
}
static inline int clibedit_set_client_data(EditLine *e, void *data) {
    return el_set(e, EL_CLIENTDATA, data);
}
static inline void *clibedit_client_data(EditLine *e) {
    void *data = NULL;
    el_get(e, EL_CLIENTDATA, &data);
    return data;
}
static inline int clibedit_add_function(EditLine *e, const char *name, const char *help,
                                        unsigned char (*f)(EditLine *, int)) {
    return el_set(e, EL_ADDFN, name, help, f);
}
static inline int clibedit_bind(EditLine *e, const char *key, const char *function) {
    return el_set(e, EL_BIND, key, function, NULL);
}
/* H_SETSIZE and H_SETUNIQUE take an int; H_ENTER, H_LOAD and H_SAVE a string. */
static inline int clibedit_history_int(History *h, int op, int value) {
    HistEvent ev;
    return history(h, &ev, op, value);
}
static inline int clibedit_history_string(History *h, int op, const char *value) {
    HistEvent ev;
    return history(h, &ev, op, value);
}
static inline void clibedit_flush_stdout(void) { fflush(stdout); }
/* StandardStreams flushes the two output streams only: fflush(NULL) also takes stdin's
   lock, which the input thread holds while blocked reading piped input. */
static inline void clibedit_flush_output(void) { fflush(stdout); fflush(stderr); }

#endif
