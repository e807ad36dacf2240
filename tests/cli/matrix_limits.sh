# Matrix size and kernel images (issue 25): a matrix past the cell limit
# (100 000) is refused with exit 2 naming file:line and the count, its
# cells counted from the axes before any is made; only/exclude narrow a
# product past the limit; the baselines on each VM's pCPUs ([baseline]
# vm = yes) that take it past are refused naming [baseline].  A [kernel]
# path that is no regular file (a FIFO) or past 256 MiB (a 4 GiB sparse
# file: no disk used) is refused with exit 2 naming file:line, before it
# is opened.  Behaviour only: the timeouts guard against a hang, how long
# it takes is `make bench`'s figure (scripts/bench-plan.sh).
. "$SRCDIR/tests/cli/lib.sh"
H="pack:1 core:4 pu:1"

# sections HEAD N: HEAD, then N workload sections of 100 cells each
sections() {
	printf '%b' "$1"
	awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) {
		printf "[workload w%d]\ntype = debug\nrecords = ", i
		for (j = 0; j < 100; j++) printf "%s%d", (j ? "," : ""), i * 100 + j
		printf "\n" } }'
}
ONE_VM='[global]\nreps = 1\n[baseline]\nenabled = no\n[vm]\nvcpus = 2\n'

sections "$ONE_VM" 1001 >"$T/over.conf"
expect_exit "a matrix of 100 100 cells is refused as an input error" 2 \
	timeout 30 "$VTBENCH" plan "$T/over.conf" --host-topology "$H"
expect_grep "... naming file:line and the count" "$T/err" \
	"over.conf:5: matrix too large (100100 cells in 1 configuration, limit 100000)"

sections '[global]\nreps = 1\n[baseline]\nenabled = no\n[vm]\nvcpus = 1, 2\n' 501 >"$T/over2.conf"
expect_exit "two configurations of 50 100 cells are refused" 2 \
	timeout 30 "$VTBENCH" plan "$T/over2.conf" --host-topology "$H"
expect_grep "... counting every configuration's cells" "$T/err" \
	"over2.conf:5: matrix too large (100200 cells in 2 configurations, limit 100000)"

sections "$ONE_VM" 1000 >"$T/at.conf"
expect_exit "a matrix of exactly 100 000 cells is planned" 0 \
	timeout 120 "$VTBENCH" plan "$T/at.conf" --host-topology "$H" -q
expect_grep "... all of them" "$T/out" "1 configuration (1 runnable), 100000 cells, 1 boot"

sections '[global]\nreps = 1\nonly = */w7 *\n[baseline]\nenabled = no\n[vm]\nvcpus = 2\n' 1001 \
	>"$T/only.conf"
expect_exit "only = narrows a product past the limit" 0 \
	timeout 30 "$VTBENCH" plan "$T/only.conf" --host-topology "$H" -q
expect_grep "... to the cells it keeps" "$T/out" "1 configuration (1 runnable), 100 cells, 1 boot"

# 40 000 cells in the cpus = 1 baseline and in a VM of 2 vCPUs: 80 000
# when read; the baseline on the VM's 2 pCPUs makes 120 000
sections '[global]\nreps = 1\n[baseline]\ncpus = 1\nvm = yes\n[vm]\nvcpus = 2\npinning = strict\n' \
	400 >"$T/vmb.conf"
expect_exit "baselines on the VMs' pCPUs past the limit are refused" 2 \
	timeout 120 "$VTBENCH" plan "$T/vmb.conf" --host-topology "$H"
expect_grep "... naming [baseline]" "$T/err" \
	"vmb.conf:3: matrix too large (120000 cells in 3 configurations, limit 100000)"

# kernel images: stat()ed, never opened, when no regular file or too large
mkdir "$T/k"
printf 'HdrS' | dd of="$T/k/big" bs=1 seek=514 conv=notrunc 2>/dev/null
truncate -s 4G "$T/k/big"
mkfifo "$T/k/fifo"
kconf() { # NAME PATH
	printf '[global]\nreps = 1\n[baseline]\nenabled = no\n[vm]\nvcpus = 2\nkernel = %s\n' "$1"
	[ -n "$2" ] && printf '[kernel %s]\npath = %s\n' "$1" "$2"
	printf '[workload t]\ntype = debug\n'
}
kconf big big >"$T/k/big.conf"
expect_exit "a 4 GiB kernel image is refused as an input error" 2 \
	timeout 30 "$VTBENCH" plan "$T/k/big.conf" --host-topology "$H"
expect_grep "... naming file:line, the size and the cap" "$T/err" \
	"big.conf:9: kernel image '$T/k/big' is too large (4294967296 bytes, limit 256 MiB)"
kconf ./big "" >"$T/k/path.conf"
expect_exit "... and so is the same image named by its path" 2 \
	timeout 30 "$VTBENCH" plan "$T/k/path.conf" --host-topology "$H"
expect_grep "... naming the line of kernel =" "$T/err" \
	"path.conf:7: kernel image '$T/k/./big' is too large (4294967296 bytes, limit 256 MiB)"
kconf fifo fifo >"$T/k/fifo.conf"
expect_exit "a FIFO named as a kernel image is refused, not opened" 2 \
	timeout 30 "$VTBENCH" plan "$T/k/fifo.conf" --host-topology "$H"
expect_grep "... naming file:line" "$T/err" \
	"fifo.conf:9: kernel image '$T/k/fifo' is not a regular file"
