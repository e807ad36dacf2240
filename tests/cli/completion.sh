#!/bin/sh
# Shell completion: `vtbench --completion bash|zsh|fish` writes a script
# from the option tables.  The bash script is exercised in bash as
# readline would call it (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT,
# then COMPREPLY): commands, options per command, an option's fixed
# values, files of the right extension, nothing for a free value.  The
# options it offers for each command are those the command's --help
# lists, so the two cannot drift.  zsh's and fish's scripts parse, and
# fish completes a --format value.
. "$(dirname "$0")/lib.sh"
B=$(dirname "$VTBENCH")

for sh in bash zsh fish; do
	expect_exit "vtbench --completion $sh writes a script" 0 "$VTBENCH" --completion $sh &&
		cp "$T/out" "$T/vtbench.$sh"
	# the build's scripts (what make install installs) are these
	case $sh in bash) f=vtbench.bash ;; zsh) f=_vtbench ;; fish) f=vtbench.fish ;; esac
	if cmp -s "$B/completion/$f" "$T/vtbench.$sh"; then ok "$B/completion/$f is what the binary writes"
	else notok "$B/completion/$f is what the binary writes" "run make"; fi
done
expect_exit "--completion with an unknown shell is a usage error" 2 "$VTBENCH" --completion tcsh
expect_grep "... naming the shells" "$T/err" "--completion takes bash, zsh or fish"
expect_exit "--completion with a typo" 2 "$VTBENCH" --completion bsh
expect_grep "... suggests the nearest shell" "$T/err" "(did you mean 'bash'?)"
expect_exit "--completion without a shell is a usage error" 2 "$VTBENCH" --completion

need bash || exit 0
# comp LINE: what the bash completion offers at the end of LINE, one per
# line, sorted (words split at blanks and at '=', as COMP_WORDBREAKS does)
cat >"$T/comp.bash" <<'EOF'
source "$1" || exit 9
line=$2
split=${line//=/ = }
read -ra COMP_WORDS <<<"$split"
[[ $line == *' ' || -z $line ]] && COMP_WORDS+=('')
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$line
COMP_POINT=${#line}
_vtbench
printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
comp() { bash "$T/comp.bash" "$T/vtbench.bash" "$1"; }
# words on one line
compw() { comp "$1" | tr '\n' ' ' | sed 's/ $//'; }

expect_eq "vtbench com<TAB> completes the command" "$(compw 'vtbench com')" "compare"
cmds=$("$VTBENCH" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }' | sort | tr '\n' ' ')
expect_eq "vtbench <TAB> offers every command of vtbench --help, and help" \
	"$(compw 'vtbench ') " "$(printf '%s\n' $cmds help | sort | tr '\n' ' ')"
expect_eq "vtbench compare --for<TAB> completes the option" "$(compw 'vtbench compare --for')" "--format"
expect_eq "vtbench compare --format j<TAB> completes the value" "$(compw 'vtbench compare --format j')" "json"
expect_eq "vtbench compare --format=j<TAB> (split at =) completes the value" \
	"$(compw 'vtbench compare --format=j')" "json"
expect_eq "compare's --format values are the report formats (vtbench list formats)" \
	"$(compw 'vtbench compare --format ')" \
	"$("$VTBENCH" list formats -q | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "plan's --format values are its own" "$(compw 'vtbench plan --format ')" "json text"
expect_eq "list's --format values are its own" "$(compw 'vtbench list --format ')" "json text tsv"
expect_eq "vtbench help rec<TAB> completes the command" "$(compw 'vtbench help rec')" "recommend"
expect_eq "vtbench --completion <TAB> offers the shells" "$(compw 'vtbench --completion ')" "bash fish zsh"
expect_eq "vtbench --vers<TAB> completes vtbench's own option" "$(compw 'vtbench --vers')" "--version"
expect_eq "a free value (--campaign ID) completes to nothing" "$(compw 'vtbench compare --campaign ')" ""
expect_eq "vtbench compare -<TAB> offers short options too" \
	"$(comp 'vtbench compare -' | grep -cxE -- '-o|-q|-h')" 3

# list's kinds: the first operand only, each one list accepts
kinds=$(compw 'vtbench list ')
expect_eq "vtbench list <TAB> offers every kind its usage names" "$kinds" \
	"$("$VTBENCH" list --help | sed -n 's/^usage: vtbench list \([^ ]*\) .*/\1/p' | tr '|' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "vtbench list --db x.db c<TAB>: the option's value is no operand" \
	"$(compw 'vtbench list --db x.db c')" "cells"
expect_eq "vtbench list runs <TAB>: one kind only" "$(compw 'vtbench list runs ')" ""
for k in $kinds; do
	(cd "$T" && "$VTBENCH" list "$k" --db "$T/none.db" >/dev/null 2>"$T/lerr")
	if grep -q "unknown list" "$T/lerr"; then notok "vtbench list $k is a kind list accepts" "$(cat "$T/lerr")"
	else ok "vtbench list $k is a kind list accepts"; fi
done

# files: a matrix operand takes *.conf, --db *.db, -o any file, DIR a directory
mkdir -p "$T/files/sub.d"
: >"$T/files/m.conf"; : >"$T/files/r.db"; : >"$T/files/notes.txt"
cd "$T/files" || exit 1
expect_eq "vtbench plan <TAB> offers matrices (*.conf) and directories" "$(compw 'vtbench plan ')" "m.conf sub.d"
expect_eq "vtbench compare --db <TAB> offers databases (*.db) and directories" \
	"$(compw 'vtbench compare --db ')" "r.db sub.d"
expect_eq "vtbench compare --against <TAB> (OTHER.db) offers databases" \
	"$(compw 'vtbench compare --against ')" "r.db sub.d"
expect_eq "vtbench merge <TAB> offers databases" "$(compw 'vtbench merge out.db ')" "r.db sub.d"
expect_eq "vtbench compare -o <TAB> offers any file" "$(compw 'vtbench compare -o ')" \
	"m.conf notes.txt r.db sub.d"
expect_eq "vtbench plan --xml-dir <TAB> offers directories" "$(compw 'vtbench plan --xml-dir ')" "sub.d"
expect_eq "vtbench compare <TAB> (no operand) offers nothing" "$(compw 'vtbench compare ')" ""
cd "$SRCDIR" || exit 1

# every command: the options completion offers are those --help lists
for c in $cmds; do
	"$VTBENCH" "$c" --help |
		sed -n 's/^  \(-[A-Za-z]\), \(--[a-z][a-z0-9-]*\).*/\1\n\2/p; s/^      \(--[a-z][a-z0-9-]*\).*/\1/p' |
		sort >"$T/help.$c"
	comp "vtbench $c -" >"$T/comp.$c"
	if [ -s "$T/help.$c" ] && cmp -s "$T/help.$c" "$T/comp.$c"; then
		ok "vtbench $c -<TAB> offers exactly the options of its --help ($(wc -l <"$T/help.$c"))"
	else
		notok "vtbench $c -<TAB> offers exactly the options of its --help" \
			"$(diff "$T/help.$c" "$T/comp.$c")"
	fi
done
if cmp -s "$T/comp.compare" "$T/comp.list"; then notok "compare's and list's options differ"
else ok "compare's and list's options differ"; fi

if need zsh; then
	zsh -n "$T/vtbench.zsh" 2>"$T/zerr"
	expect_eq "zsh -n parses the zsh script" "$?:$(cat "$T/zerr")" "0:"
	expect_eq "the zsh script is a #compdef file" "$(head -n 1 "$T/vtbench.zsh")" "#compdef vtbench"
fi
if need fish; then
	fish --no-execute "$T/vtbench.fish" 2>"$T/ferr"
	expect_eq "fish --no-execute parses the fish script" "$?:$(cat "$T/ferr")" "0:"
	# fish's own completion engine, on the script (no user configuration)
	fc() { HOME="$T" XDG_CONFIG_HOME="$T" fish --no-config -c "source '$T/vtbench.fish'; complete -C '$1'" | cut -f1 | sort | tr '\n' ' ' | sed 's/ $//'; }
	expect_eq "fish: vtbench compare --format <TAB> lists the formats" \
		"$(fc 'vtbench compare --format ')" "csv html json md text"
	expect_eq "fish: vtbench com<TAB> completes the command" "$(fc 'vtbench com')" "compare"
	expect_eq "fish: vtbench list <TAB> offers the kinds" "$(fc 'vtbench list ')" "$kinds"
fi
