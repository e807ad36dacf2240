#!/bin/sh
# The manual pages vtbench(1), vtbench-agent(1) and vtbench-matrix(5):
# written by the binaries from the option tables that --help and
# --help-matrix print, rendered by groff and man-db without a warning,
# documenting every option of every command, every matrix section and key
# and every workload's option (read back from --help, so a page that
# drifts from the tables fails), and installed with the binaries by
# `make install DESTDIR=...`.
. "$(dirname "$0")/lib.sh"
B=$(dirname "$VTBENCH")
export MANWIDTH=80 MANPAGER=cat LC_ALL=C.UTF-8

expect_exit "vtbench --man vtbench writes a page" 0 "$VTBENCH" --man vtbench && cp "$T/out" "$T/vtbench.1"
expect_exit "vtbench --man vtbench-matrix writes a page" 0 "$VTBENCH" --man vtbench-matrix &&
	cp "$T/out" "$T/vtbench-matrix.5"
expect_exit "vtbench-agent --man writes a page" 0 "$AGENT" --man && cp "$T/out" "$T/vtbench-agent.1"
expect_exit "vtbench --man with an unknown page is a usage error" 2 "$VTBENCH" --man vtbench-nope
expect_grep "... naming the pages it writes" "$T/err" "vtbench or vtbench-matrix"

# the build's pages are these (what make install installs)
for p in vtbench.1 vtbench-agent.1 vtbench-matrix.5; do
	if cmp -s "$B/man/$p" "$T/$p"; then ok "$B/man/$p is what the binary writes"
	else notok "$B/man/$p is what the binary writes" "$(diff "$B/man/$p" "$T/$p" 2>&1 | head -n 10)"; fi
done

# rendered without a warning, by groff and by man -l
for p in vtbench.1 vtbench-agent.1 vtbench-matrix.5; do
	if need groff; then
		groff -man -Tutf8 -ww -z "$T/$p" 2>"$T/gerr"
		expect_eq "groff -man -ww renders $p without a warning" "$(cat "$T/gerr")" ""
	fi
	if need man; then
		man --warnings=w -l "$T/$p" >"$T/$p.txt" 2>"$T/merr"; rc=$?
		expect_eq "man -l renders $p (exit 0, no warning)" "$rc:$(cat "$T/merr")" "0:"
		n=$(wc -l <"$T/$p.txt")
		if [ "$n" -gt 40 ]; then ok "$p renders to $n lines"; else notok "$p renders to $n lines"; fi
	fi
done
[ -f "$T/vtbench.1.txt" ] || exit 0

# section FILE HEADING: the rendered lines under a subsection heading
# ("   vtbench plan", "   [vm]", "   membw"), up to the next heading
section() {
	awk -v h="   $2" '$0 == h { on = 1; next } on && /^(   )?[^ ]/ { exit } on' "$1"
}

# tagged FILE NAME: NAME begins an entry (a .TP tag) of FILE's section
tagged() {
	awk -v n="$2" 'BEGIN { m = 0 }
		substr($0, 1, 7) == "       " && substr($0, 8, length(n)) == n &&
		(length($0) == 7 + length(n) || substr($0, 8 + length(n), 1) == " ") { m = 1 }
		END { exit !m }' "$1"
}

# vtbench(1): every command, and every option of its --help as an entry of
# its subsection ("-o, --output FILE", "--db FILE")
cmds=$("$VTBENCH" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$cmds" ] || notok "vtbench --help lists commands"
missing=""
nopts=0
for c in $cmds; do
	section "$T/vtbench.1.txt" "vtbench $c" >"$T/sec"
	[ -s "$T/sec" ] || { missing="$missing [vtbench $c]"; continue; }
	"$VTBENCH" "$c" --help | sed -n 's/^  \(-[a-zA-Z], --[^ ]*\( [A-Z][^ ]*\)\{0,1\}\).*/\1/p; s/^      \(--[^ ]*\( [A-Z][^ ]*\)\{0,1\}\).*/\1/p' >"$T/names"
	while IFS= read -r o; do
		nopts=$((nopts + 1))
		tagged "$T/sec" "$o" || missing="$missing vtbench $c '$o'"
	done <"$T/names"
done
expect_eq "vtbench(1) has every command's every option ($nopts in $(echo $cmds | wc -w) commands)" "$missing" ""
[ "$nopts" -gt 40 ] || notok "the commands' --help name more than 40 options" "$nopts"

# vtbench-matrix(5): every section of --help-matrix and each of its keys
"$VTBENCH" plan --help-matrix >"$T/hm"
missing=""
nkeys=0
sect=""
while IFS= read -r l; do
	case "$l" in
	\[*\]*) sect=$(printf '%s\n' "$l" | sed 's/^\(\[[^]]*\]\).*/\1/') ;;
	"type = "*) sect=$(printf '%s\n' "$l" | sed 's/^\(type = [a-z0-9_]*\).*/\1/') ;;
	"  "[a-z]*)
		k=$(printf '%s\n' "$l" | awk '{ print $1 }')
		nkeys=$((nkeys + 1))
		section "$T/vtbench-matrix.5.txt" "$sect" >"$T/sec"
		tagged "$T/sec" "$k" || missing="$missing $sect:$k"
		;;
	esac
done <"$T/hm"
expect_eq "vtbench-matrix(5) has every section's every key ($nkeys)" "$missing" ""
[ "$nkeys" -gt 60 ] || notok "--help-matrix names more than 60 keys" "$nkeys"

# vtbench-agent(1): the agent's options, every workload and its options
# (its own options: --help's, and those after a workload's name)
w1=$("$AGENT" --list | awk '/^[a-z]/ { print $1; exit }')
{
	"$AGENT" --help | sed -n '/^Options:/,/^$/s/^  \(--[a-z]*\( [A-Z][A-Z]*\)\{0,1\}\) .*/\1/p'
	"$AGENT" "$w1" --help | sed -n '/^Agent options:/,/^$/s/^  \(--[a-z]*\( [A-Z][A-Z]*\)\{0,1\}\) .*/\1/p'
} | sort -u >"$T/names"
missing=""
nopts=0
while IFS= read -r o; do
	nopts=$((nopts + 1))
	tagged "$T/vtbench-agent.1.txt" "$o" || missing="$missing '$o'"
done <"$T/names"
for w in $("$AGENT" --list | awk '/^[a-z]/ { print $1 }'); do
	section "$T/vtbench-agent.1.txt" "$w" >"$T/sec"
	[ -s "$T/sec" ] || { missing="$missing [$w]"; continue; }
	"$AGENT" "$w" --help | sed -n 's/^  \(-[a-zA-Z], --[^ ]*\) .*/\1/p; s/^      \(--[^ ]*\) .*/\1/p' >"$T/names"
	while IFS= read -r o; do
		nopts=$((nopts + 1))
		tagged "$T/sec" "$o" || missing="$missing $w '$o'"
	done <"$T/names"
done
expect_eq "vtbench-agent(1) has every agent option, workload and workload option ($nopts)" "$missing" ""
[ "$nopts" -gt 30 ] || notok "the agent's --help name more than 30 options" "$nopts"

# make install DESTDIR: the binaries and the pages under PREFIX.  The
# build's own VERSION is passed so nothing is rebuilt (a dirty tree would
# change git describe); the ASan build (no guest image) is SAN=1.
need make || exit 0
san=0
[ -f "$B/guest/initramfs.cpio.gz" ] || san=1
# BUILD as the build was made: relative to the source tree (the objects'
# dependency files name it so)
Babs=$(cd "$B" && pwd)
case "$Babs" in "$SRCDIR"/*) Bmk=${Babs#"$SRCDIR"/} ;; *) Bmk=$Babs ;; esac
mk() { make -s -C "$SRCDIR" BUILD="$Bmk" VERSION="$(cat "$B/VERSION")" SAN=$san "$@"; }
if mk -q all >/dev/null 2>&1; then ok "the build is current (make install rebuilds nothing)"
else notok "the build is current (make install rebuilds nothing)" "run make first"; exit 0; fi
D="$T/dest"
expect_exit "make install PREFIX=/opt/vtb DESTDIR=D exits 0" 0 mk install PREFIX=/opt/vtb DESTDIR="$D"
for f in bin/vtbench bin/vtbench-agent share/man/man1/vtbench.1 share/man/man1/vtbench-agent.1 \
	share/man/man5/vtbench-matrix.5 share/vtbench/examples/quick.conf \
	share/vtbench/README.md share/vtbench/docs/architecture.md \
	share/vtbench/topologies/hosts/epyc-2s.synthetic share/bash-completion/completions/vtbench \
	share/zsh/vendor-completions/_vtbench share/fish/vendor_completions.d/vtbench.fish; do
	if [ -f "$D/opt/vtb/$f" ]; then ok "make install puts $f under PREFIX"; else notok "make install puts $f under PREFIX"; fi
done
expect_exit "the installed vtbench runs" 0 "$D/opt/vtb/bin/vtbench" --version
if need man; then
	for p in "1 vtbench" "1 vtbench-agent" "5 vtbench-matrix"; do
		# shellcheck disable=SC2086
		man -M "$D/opt/vtb/share/man" $p >"$T/inst" 2>"$T/merr"; rc=$?
		expect_eq "man finds the installed ${p#* }(${p%% *}) in the install's man path" \
			"$rc:$(cat "$T/merr"):$(head -n 1 "$T/inst" | awk '{ print $1 }')" \
			"0::$(echo "${p#* }" | tr a-z A-Z)(${p%% *})"
	done
fi
