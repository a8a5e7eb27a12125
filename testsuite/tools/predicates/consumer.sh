# shellcheck shell=bash
# testsuite/tools/predicates/consumer.sh: predicates of the consumer's own
# outputs (.hp) and its inputs. Sourced after testsuite/tools/predicates.sh
# (its rules hold here).

# serve_eventlog ARGS...: serve-eventlog.py ARGS in the background, a job of the line (`wait` waits for it)
serve_eventlog() { python3 "$TESTSUITE/tools/clients/serve-eventlog.py" "$@" & }

# truncated_input_keeps_events EVENTLOG BYTES: its first BYTES (cut.eventlog) give a truncation warning with an
# offset and events from stats (cut.out, cut.err), an .hp hp2ps accepts (cut.hp), and output from show on stdin
truncated_input_keeps_events() {
    head -c "$2" "$1" > cut.eventlog &&
        rtscope stats cut.eventlog > cut.out 2> cut.err &&
        grep -q '^rtscope: cut.eventlog: offset [0-9][0-9]*: warning: eventlog is truncated' cut.err &&
        grep -q '^events: [1-9]' cut.out &&
        rtscope hp -o cut.hp cut.eventlog 2>/dev/null &&
        "$HP2PS" cut.hp &&
        rtscope show - < cut.eventlog > cut.show 2>/dev/null &&
        test -s cut.show
}

# hp_sample_bands HP: each band line of the .hp prefixed with its sample's number, sorted (header lines and markers
# left out)
hp_sample_bands() {
    awk '/^BEGIN_SAMPLE/{n++; next} /^(END_SAMPLE|MARK|JOB|DATE|SAMPLE_UNIT|VALUE_UNIT)/{next} {print n, $0}' "$1" | sort
}

# hp_same_samples A.HP B.HP: B has bands, and sample for sample exactly A's bands and values (times aside); writes
# A.HP.bands, B.HP.bands
hp_same_samples() {
    hp_sample_bands "$1" > "$1.bands" && hp_sample_bands "$2" > "$2.bands" && test -s "$2.bands" && diff "$1.bands" "$2.bands"
}
