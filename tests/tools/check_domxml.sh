#!/bin/sh
# SPDX-License-Identifier: MIT
# The independent checker: does a libvirt domain XML place its vCPUs the
# way its own virtual topology says?  It shares no code with vtbench's
# planner: the XML is read with xmllint, the host with hwloc-calc on the
# same host input the plan was made for.
#
#   check_domxml.sh DOMAIN.xml HOST
#
# HOST is an hwloc XML file or an hwloc synthetic string ("pack:2 core:4
# pu:2").  Properties, one "ok - " / "not ok - " / "n/a - " line each, with
# the first failures on "# " lines:
#   pins  every <vcpupin> vCPU exists and its cpuset is within the host's
#         PUs (and so is <emulatorpin>'s)
#   smt   the vCPUs of one virtual core run on one host core
#   llc   the vCPUs of one virtual die (QEMU's L3 domain) share one host L3
#   node  a guest cell's vCPUs run on the host node(s) of its <memnode>
#         (without cells: all pinned pCPUs on <numatune><memory>'s nodes)
# vCPU v is numbered as QEMU's x86 model numbers it, threads fastest:
# thread = v % threads, core = v / threads % cores, die = v / (threads *
# cores) % dies, socket = v / (threads * cores * dies).  So the virtual
# core of v is v / threads and its virtual die v / (threads * cores).
# Ends with "summary: N ok, N not ok, N n/a"; exit 0 when nothing is not
# ok, 1 when something is, 2 on bad input.
set -u
LC_ALL=C
export LC_ALL
MAXSHOW=${MAXSHOW:-5}

usage() { echo "usage: check_domxml.sh DOMAIN.xml HOST-TOPOLOGY(hwloc XML file or synthetic string)" >&2; exit 2; }
die() { echo "check_domxml: $*" >&2; exit 2; }
[ $# -eq 2 ] || usage
xml=$1 host=$2
command -v xmllint >/dev/null 2>&1 || die "xmllint is missing (libxml2-utils)"
command -v hwloc-calc >/dev/null 2>&1 || die "hwloc-calc is missing (hwloc)"
[ -r "$xml" ] || die "cannot read '$xml'"
xmllint --noout "$xml" 2>/dev/null || die "'$xml' is not well-formed XML"

hc() {
	if [ -f "$host" ]; then
		hwloc-calc --input "$host" "$@" 2>/dev/null
	else
		hwloc-calc --if synthetic --input "$host" "$@" 2>/dev/null
	fi
}

W=$(mktemp -d "${TMPDIR:-/tmp}/checkdomxml.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT

# One line per PU OS number the host has (offline CPUs are not PUs).
hc --po -I pu all | tr ',' '\n' | grep . | sort -n >"$W/hostpus"
[ -s "$W/hostpus" ] || die "hwloc-calc cannot read the host topology '$host'"
sort "$W/hostpus" >"$W/hostpus.lex"

xs() { xmllint --xpath "string($1)" "$xml" 2>/dev/null; }
# Values of the attribute nodes matching $1, one per line, in document order.
xa() { xmllint --xpath "$1" "$xml" 2>/dev/null | sed -n 's/^ *[A-Za-z_-]*="\([^"]*\)"$/\1/p'; }
# "0-3,8" -> one number per line
expand() {
	printf '%s\n' "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 ~ /^[0-9]+$/ { print $1; next }
		NF == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { for (i = $1; i <= $2; i++) print i; next }
		{ bad = 1 } END { exit bad }'
}
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }

vcpus=$(xs /domain/vcpu | tr -d ' \n')
if ! isnum "$vcpus" || [ "$vcpus" -lt 1 ]; then die "'$xml' has no <vcpu> count"; fi
sockets=$(xs /domain/cpu/topology/@sockets)
dies=$(xs /domain/cpu/topology/@dies)
cores=$(xs /domain/cpu/topology/@cores)
threads=$(xs /domain/cpu/topology/@threads)
if [ -z "$sockets" ]; then
	# libvirt's default: one single-core socket per vCPU
	sockets=$vcpus dies=1 cores=1 threads=1
fi
: "${dies:=1}"
for n in "$sockets" "$dies" "$cores" "$threads"; do
	if ! isnum "$n" || [ "$n" -lt 1 ]; then die "bad <topology> in '$xml'"; fi
done
[ $((sockets * dies * cores * threads)) -eq "$vcpus" ] ||
	die "<topology> ${sockets}x${dies}x${cores}x${threads} is not $vcpus vCPUs"

nok=0 nnot=0 nna=0
pass() { echo "ok - $1"; nok=$((nok + 1)); }
fail() { echo "not ok - $1"; sed -n "1,${MAXSHOW}s/^/# /p" "$W/why"; nnot=$((nnot + 1)); }
na() { echo "n/a - $1"; nna=$((nna + 1)); }

# pins: "vcpu pcpu" lines in $W/pins
xa '/domain/cputune/vcpupin/@vcpu' >"$W/pinv"
xa '/domain/cputune/vcpupin/@cpuset' >"$W/pins_raw"
: >"$W/pins"
: >"$W/why"
paste -d ' ' "$W/pinv" "$W/pins_raw" | while read -r v set; do
	[ -n "$v" ] || continue
	if ! isnum "$v" || [ "$v" -ge "$vcpus" ]; then
		echo "vcpupin for vCPU $v, the domain has $vcpus" >>"$W/why"
		continue
	fi
	if ! expand "$set" >"$W/one"; then
		echo "vCPU $v: bad cpuset '$set'" >>"$W/why"
		continue
	fi
	sed "s/^/$v /" "$W/one" >>"$W/pins"
done
npinned=$(sort -u "$W/pinv" | grep -c .)
if [ "$npinned" -eq 0 ]; then
	na "pins: no <vcpupin>, the vCPUs float"
else
	cut -d ' ' -f 2 "$W/pins" | sort -u >"$W/used.lex"
	comm -23 "$W/used.lex" "$W/hostpus.lex" | sort -n | while read -r p; do
		echo "pCPU $p is not a PU of the host" >>"$W/why"
	done
	emu=$(xs /domain/cputune/emulatorpin/@cpuset)
	if [ -n "$emu" ]; then
		if expand "$emu" | sort -u | comm -23 - "$W/hostpus.lex" | grep -q .; then
			echo "the emulator pin $emu is not within the host's PUs" >>"$W/why"
		fi
	fi
	dup=$(sort "$W/pinv" | uniq -d | head -n 1)
	[ -z "$dup" ] || echo "vCPU $dup has two <vcpupin>" >>"$W/why"
	[ "$npinned" -eq "$vcpus" ] || echo "$npinned of $vcpus vCPUs are pinned" >>"$W/why"
	if [ -s "$W/why" ]; then
		fail "pins: $(grep -c . "$W/why") problem(s) in the <vcpupin> cpusets"
	else
		pass "pins: all $vcpus vCPUs pinned within the host's $(grep -c . "$W/hostpus") PUs"
	fi
fi

# "0\n1\n2\n5" on stdin -> "0-2,5"
compress() {
	sort -n -u | awk 'NR == 1 { a = b = $1; next } $1 == b + 1 { b = $1; next }
		{ printf "%s%s", sep, (a == b ? a : a "-" b); sep = ","; a = b = $1 }
		END { if (NR) printf "%s%s", sep, (a == b ? a : a "-" b); print "" }'
}

# group_check PROP DIVISOR HWTYPE WHAT: the vCPUs with the same v / DIVISOR
# must have all their pCPUs in one host object of HWTYPE.  One hwloc-calc
# process answers every group (a line of locations per group on stdin);
# pCPUs the host lacks are left out of the query (pins reports them).
group_check() {
	prop=$1 div=$2 type=$3 what=$4
	: >"$W/why"
	awk -v d="$div" 'NR == FNR { host[$1] = 1; next }
		host[$2] { print int($1 / d), $2 }' "$W/hostpus" "$W/pins" |
		sort -n -k1,1 -k2,2 -u >"$W/groups"
	awk 'NR == 1 || $1 != g { if (NR > 1) print ""; g = $1; printf "%s", g } { printf " pu:%s", $2 }
		END { if (NR) print "" }' "$W/groups" >"$W/queries"
	# hwloc-calc announces stdin mode on stdout: drop that line
	cut -d ' ' -f 2- "$W/queries" | hc --pi -I "$type" | grep -v '^Waiting for' >"$W/answers"
	if [ "$(grep -c . "$W/queries")" -ne "$(grep -c '' "$W/answers")" ]; then
		die "hwloc-calc answered $(grep -c '' "$W/answers") of $(grep -c . "$W/queries") $type queries"
	fi
	ngroups=$(grep -c . "$W/queries")
	paste -d ' ' "$W/answers" "$W/queries" | while read -r objs g locs; do
		case $objs in
		'' | *,*)
			first=$((g * div))
			cpus=$(echo "$locs" | tr ' ' '\n' | sed 's/pu://' | compress)
			echo "$what $g (vCPUs $first-$((first + div - 1))) on pCPUs $cpus: host $type ${objs:-none}" >>"$W/why"
			;;
		esac
	done
	nbad=$(grep -c . "$W/why")
	if [ "$nbad" -gt 0 ]; then
		fail "$prop: $nbad of $ngroups ${what}s span more than one host $type"
	else
		pass "$prop: each of $ngroups ${what}s on one host $type"
	fi
}

if [ "$npinned" -eq 0 ]; then
	na "smt: nothing pinned"
	na "llc: nothing pinned"
elif [ "$threads" -eq 1 ]; then
	na "smt: the guest sees no SMT (threads=1)"
	group_check llc "$cores" l3cache "virtual die"
else
	group_check smt "$threads" core "virtual core"
	group_check llc $((threads * cores)) l3cache "virtual die"
fi

# node: each cell with a <memnode> (or the whole domain under
# <numatune><memory> when it has no cells)
: >"$W/why"
xa '/domain/cpu/numa/cell/@id' >"$W/cellid"
xa '/domain/cpu/numa/cell/@cpus' >"$W/cellcpus"
xa '/domain/numatune/memnode/@cellid' >"$W/memcell"
xa '/domain/numatune/memnode/@nodeset' >"$W/memnodes"
ncells=$(grep -c . "$W/cellid")
whole=$(xs /domain/numatune/memory/@nodeset)
# node_check LABEL VCPU-FILE NODESET
node_check() {
	awk 'NR == FNR { want[$1] = 1; next } want[$1] { print $2 }' "$2" "$W/pins" | sort -u |
		comm -12 - "$W/hostpus.lex" | sort -n >"$W/cellp"
	[ -s "$W/cellp" ] || return 0
	nchecked=$((nchecked + 1))
	expand "$3" | sort -u >"$W/want" || { echo "$1: bad nodeset '$3'" >>"$W/why"; return 0; }
	# shellcheck disable=SC2046
	hc --pi --po -I numa $(sed 's/^/pu:/' "$W/cellp") | tr ',' '\n' | grep . | sort -u >"$W/got"
	extra=$(comm -23 "$W/got" "$W/want" | tr '\n' ',' | sed 's/,$//')
	if [ -n "$extra" ] || [ ! -s "$W/got" ]; then
		echo "$1: pCPUs $(compress <"$W/cellp") are on host node(s) $(tr '\n' ',' <"$W/got" | sed 's/,$//'), memory on $3" >>"$W/why"
	fi
}
nchecked=0
if [ "$npinned" -eq 0 ]; then
	na "node: nothing pinned"
elif [ "$ncells" -gt 0 ] && [ -s "$W/memcell" ]; then
	paste -d ' ' "$W/memcell" "$W/memnodes" >"$W/mn"
	paste -d ' ' "$W/cellid" "$W/cellcpus" >"$W/cells"
	while read -r c nodes; do
		set=$(awk -v c="$c" '$1 == c { print $2 }' "$W/cells")
		if [ -z "$set" ]; then
			echo "memnode for cell $c, which does not exist" >>"$W/why"
			continue
		fi
		expand "$set" >"$W/cellv"
		node_check "cell $c (vCPUs $set)" "$W/cellv" "$nodes"
	done <"$W/mn"
	if [ -s "$W/why" ]; then
		fail "node: $(grep -c . "$W/why") of $nchecked cells' vCPUs off their memnode's host node"
	else
		pass "node: each of $nchecked bound cells' vCPUs on its memnode's host node"
	fi
elif [ "$ncells" -eq 0 ] && [ -n "$whole" ]; then
	seq 0 $((vcpus - 1)) >"$W/allv"
	node_check "the domain" "$W/allv" "$whole"
	if [ -s "$W/why" ]; then
		fail "node: vCPUs off the <numatune> memory nodes"
	else
		pass "node: all vCPUs on the <numatune> memory nodes ($whole)"
	fi
else
	na "node: no <memnode> binding"
fi

echo "summary: $nok ok, $nnot not ok, $nna n/a"
[ "$nnot" -eq 0 ]
