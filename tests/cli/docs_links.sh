#!/bin/sh
# README.md and docs/: every relative link names a file that exists and,
# with #anchor, a heading of that file (GitHub's anchor rule); the README
# stays a newcomer's page (under 250 lines, `make demo` and `make check`
# its first two commands); a page over 60 lines with sections opens with
# its contents.
. "$(dirname "$0")/lib.sh"
need python3 || exit 0
cd "$SRCDIR" || exit 1
python3 - README.md docs/*.md >"$T/links" 2>&1 <<'EOF'
import os, re, sys

def anchors(path):
    seen, out, fence = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().replace("`", "")
        a = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else "%s-%d" % (a, n))
    return out

n = 0
for page in sys.argv[1:]:
    raw = open(page, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", raw, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z][a-z0-9+]*:", target):
            continue
        n += 1
        path, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(dest):
            print("bad %s: %s: no such file" % (page, target))
        elif frag and (not dest.endswith(".md") or frag not in anchors(dest)):
            print("bad %s: %s: no such heading" % (page, target))
    heads = len(re.findall(r"^## ", text, flags=re.M))
    if raw.count("\n") > 60 and heads >= 2 and "\nContents\n" not in "\n".join(raw.split("\n")[:60]):
        print("bad %s: %d lines, %d sections, no contents in its first 60 lines" % (page, raw.count("\n"), heads))
print("links %d" % n)
EOF
nl=$(sed -n 's/^links //p' "$T/links")
expect_eq "README and docs/: every relative link and anchor resolves, long pages have contents ($nl links)" \
	"$(grep -v '^links ' "$T/links")" ""
[ "${nl:-0}" -gt 40 ] || notok "the checker found the links (more than 40)" "${nl:-none}"
n=$(wc -l <README.md)
if [ "$n" -lt 250 ]; then ok "README.md is under 250 lines ($n)"; else notok "README.md is under 250 lines" "$n"; fi
first=$(awk '/^```sh/ { on = 1; next } on && /^```/ { exit } on { print $1, $2 }' README.md | head -n 2 | tr '\n' ';')
expect_eq "the README's first commands are make demo and make check" "$first" "make demo;make check;"
