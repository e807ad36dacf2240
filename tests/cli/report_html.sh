# The HTML report in a real browser: tests/tools/renderhtml renders the
# report fixtures (tests/fixtures/html/), headless Chromium loads each page
# with no console message (an SVG attribute it cannot parse, a refused
# fetch or a script error would log one), and the DOM Chromium built has,
# per chart, as many marks as the fixture says: a box per configuration of
# a metric, a dot per boot, a CDF line per histogram, n^2 cells per c2c
# heat map, a level entry per distinct domain tree; recommend's page has
# its race chart's labels whole, inside the chart and apart, and axes with
# units.  A page with a deliberate SVG error first proves the console
# check sees errors.
. "$SRCDIR/tests/cli/lib.sh"
need chromium || exit 0
need python3 || exit 0
R="$(dirname "$VTBENCH")/tests/tools/renderhtml"
F="$SRCDIR/tests/fixtures/html"
if [ ! -x "$R" ]; then
	notok "the render tool is built" "$R is missing (make tests)"
	exit 0
fi

# browse PAGE: the DOM Chromium built in $T/dom, its log in $T/log.  A
# profile of its own: runs may overlap (the ASan pass) and HOME may be
# read-only.  Memoized on the page's bytes: the ASan pass's page, when
# it is the same, needs no second browser.
dump() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/profile" --enable-logging=stderr --v=0 \
		--dump-dom "file://$1"
}
browse() { memo dump "$1" >"$T/dom" 2>"$T/log"; }

printf '%s\n' '<!DOCTYPE html><html><body><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><rect class="box" width="-1" height="2"></rect></svg></body></html>' >"$T/broken.html"
browse "$T/broken.html"
if grep -q 'CONSOLE' "$T/log"; then
	ok "chromium reports a broken SVG attribute on its console log"
else
	notok "chromium reports a broken SVG attribute on its console log" "$(tail -n 20 "$T/log")"
fi

# and the page `vtbench compare -o` writes for the generated fixture database
MKFIXTURE="$(dirname "$VTBENCH")/tests/tools/mkfixture"
"$MKFIXTURE" "$T/fixture.db" base 2>"$T/err" || notok "mkfixture base" "$(cat "$T/err")"
"$VTBENCH" compare --db "$T/fixture.db" --format json --fail-on none >"$T/report-fixture.json" 2>"$T/err" ||
	notok "compare --format json on the fixture" "$(cat "$T/err")"

for name in own hostile fixture; do
	json="$F/report-$name.json"
	page="$T/report-$name.html"
	if [ $name = fixture ]; then
		json="$T/report-fixture.json"
		expect_exit "$name: vtbench compare -o writes the page" 0 \
			"$VTBENCH" compare --db "$T/fixture.db" --fail-on none -o "$page" || continue
	else
		expect_exit "$name: renders" 0 "$R" "$json" "$page" || continue
	fi
	browse "$page"; rc=$?
	expect_eq "$name: chromium loads the page" "$rc" 0 || continue
	if grep 'CONSOLE' "$T/log" >"$T/console"; then
		notok "$name: no console messages" "$(head -n 20 "$T/console")"
	else
		ok "$name: no console messages"
	fi
	# The DOM's marks against its data-marks and against the JSON.
	if python3 - "$json" "$T/dom" >"$T/check" 2>&1 <<'EOF'
import json, sys
from html.parser import HTMLParser

doc = json.load(open(sys.argv[1]))
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids = tag, dict(attrs), parent, []
        self.cls = (self.attrs.get("class") or "").split()

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root
    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n
    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))
    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

def walk(n):
    for k in n.kids:
        yield k
        yield from walk(k)

p = P()
p.feed(open(sys.argv[2], encoding="utf-8").read())
all_nodes = list(walk(p.root))
bad = []
if any(n.tag == "script" for n in all_nodes):
    bad.append("a <script> element in the DOM")
charts = [n for n in all_nodes if "data-marks" in n.attrs]
for c in charts:
    got = sum(1 for k in walk(c) if c.attrs["data-mark"] in k.cls)
    if got != int(c.attrs["data-marks"]):
        bad.append("%s chart: %d %s marks, data-marks %s" % (" ".join(c.cls), got,
                   c.attrs["data-mark"], c.attrs["data-marks"]))

def count(chart_cls, mark):
    return [sum(1 for k in walk(c) if mark in k.cls) for c in all_nodes if chart_cls in c.cls]

# a box plot per (workload, cell, metric), a box per distinct side
groups = {}
for r in doc["rows"]:
    g = groups.setdefault((r["workload"], r["cell"], r["metric"]), {})
    for s in ("base", "x"):
        g[(r[s]["config"], r[s]["campaign"])] = len(r[s]["values"])
want_boxes = [len(g) for g in groups.values()]
want_pts = [sum(g.values()) for g in groups.values()]
if count("boxplot", "box") != want_boxes:
    bad.append("boxes %s, want %s" % (count("boxplot", "box"), want_boxes))
if count("boxplot", "pt") != want_pts:
    bad.append("points %s, want %s" % (count("boxplot", "pt"), want_pts))
if sum(count("cdfplot", "cdf")) != len(doc["histograms"]):
    bad.append("cdf lines %s, want %d" % (count("cdfplot", "cdf"), len(doc["histograms"])))
want_cells = sorted(len(m["cpus"]) ** 2 for m in doc["c2c"])
if sorted(count("heatmap", "cell")) != want_cells:
    bad.append("heat map cells %s, want %s" % (count("heatmap", "cell"), want_cells))
want_levels = [len(e["levels"]) for e in doc["evidence"]]
if count("levels", "level") != want_levels:
    bad.append("levels %s, want %s" % (count("levels", "level"), want_levels))
print("%d charts: boxes %s, cells %s, cdf %s, levels %s" % (len(charts), want_boxes,
      want_cells, sum(count("cdfplot", "cdf")), want_levels))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
	then
		ok "$name: every chart has its marks ($(cat "$T/check"))"
	else
		notok "$name: every chart has its marks" "$(cat "$T/check")"
	fi
done

# The first screen holds the answer (issue 17): the boots by status and the
# failures, then the headline chart, all above the fold of a 1366x768
# laptop screen; the host state is collapsed; the campaign's details come
# after.  A copy of the page gets a script that writes what Chromium laid
# out into the DOM it dumps (the report itself has no script).
"$MKFIXTURE" "$T/failed.db" failed 2>"$T/err" || notok "mkfixture failed" "$(cat "$T/err")"
expect_exit "failed boots: vtbench compare -o writes the page" 1 \
	"$VTBENCH" compare --db "$T/failed.db" -o "$T/failed.html"
sed 's|</body>|<script>var h = document.getElementById("headline").getBoundingClientRect(), c = document.getElementById("campaign").getBoundingClientRect(), f = document.querySelector("ul.failures").getBoundingClientRect(); document.body.setAttribute("data-layout", [Math.round(h.top), Math.round(h.bottom), Math.round(c.top), Math.round(f.top), innerHeight, document.querySelectorAll("details[open]").length].join(" "));</script></body>|' \
	"$T/failed.html" >"$T/measured.html"
timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$T/profile" --window-size=1366,768 \
	--dump-dom "file://$T/measured.html" >"$T/dom" 2>"$T/log"
layout=$(sed -n 's/.*data-layout="\([0-9 -]*\)".*/\1/p' "$T/dom" | head -n 1)
set -- $layout
if [ $# -eq 6 ] && [ "$1" -lt "$5" ] && [ "$3" -gt "$2" ] && [ "$4" -lt "$1" ] && [ "$6" -eq 0 ]; then
	ok "first screen: the failures, then the headline chart on it; host state closed ($layout)"
else
	notok "first screen: the failures, then the headline chart on it; host state closed" \
		"headline top, bottom, campaign top, failures top, viewport, open details: '$layout'" \
		"$(head -c 600 "$T/log")"
fi
# the headline: a line per row, coloured by its verdict
if python3 - "$T/failed.html" >"$T/check" 2>&1 <<'EOF2'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
svg = re.search(r'<svg[^>]*id="headline"[^>]*data-marks="(\d+)".*?</svg>', page, re.S)
bad = []
if not svg:
    bad.append("no headline chart")
else:
    rows = re.findall(r'<g class="hl v-(\w+)"', svg.group(0))
    if len(rows) != 15 or int(svg.group(1)) != 15:
        bad.append("%d headline rows, want 15" % len(rows))
    if sorted(set(rows)) != ["missing", "same", "worse"]:
        bad.append("verdicts %s" % sorted(set(rows)))
    if 'class="band"' not in svg.group(0):
        bad.append("no threshold band")
if page.index('id="headline"') > page.index('id="campaign"'):
    bad.append("the headline comes after the campaign's details")
print("; ".join(bad) or "15 rows, worse/same/missing, a band")
sys.exit(1 if bad else 0)
EOF2
then ok "headline chart: $(cat "$T/check")"; else notok "headline chart" "$(cat "$T/check")"; fi

# The headline chart on a log-ratio axis: report-own with an outlier row
# (+9264%, its interval to +12000%), a normal one (+346%) and an interval
# of [-100%, +1.47e15%].  In the page Chromium laid out, the outlier and
# the normal row sit far apart, the outlier inside the axis; what is
# beyond the axis has a clip marker with its value; every label is inside
# the chart, uncut, and names its configuration cN (with the words of its
# label that set it apart); and the text, Markdown and HTML write the
# same percentages, those the JSON's numbers give by the documented rule.
python3 - "$F/report-own.json" "$T/outlier.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
def setr(r, ch, lo, hi, v):
    r.update(change_pct=ch, ci_low_pct=lo, ci_high_pct=hi, verdict=v,
             confirmed=v == "worse", significant=v == "worse")
setr(rows[2], 9264.0, 7000.0, 12000.0, "worse")
setr(rows[3], 346.0, 300.0, 400.0, "worse")
setr(rows[4], 50.0, -100.0, 1.47e15, "inconclusive")
json.dump(d, open(sys.argv[2], "w"), indent=2)
EOF2
for f in html text md json; do
	expect_exit "outlier: renders as $f" 0 "$R" --format $f "$T/outlier.json" "$T/outlier.$f" ||
		: >"$T/outlier.$f"
done
sed 's|</body>|<script>var s = document.getElementById("headline"), out = []; document.querySelectorAll("#headline g.hl").forEach(function (g) { var c = g.querySelector("circle"), l = g.querySelector(".hllabel") \|\| g.querySelector("text"), b = l.getBBox(); out.push({ dot: c ? c.cx.baseVal.value : null, label: l.textContent, lx: b.x, lw: b.width, clips: Array.prototype.map.call(g.querySelectorAll("polygon.clip"), function (p) { return p.points.getItem(1).x; }), clipv: Array.prototype.map.call(g.querySelectorAll(".clipv"), function (t) { return t.textContent; }) }); }); document.body.setAttribute("data-hl", JSON.stringify({ w: s.width.baseVal.value, rows: out }));</script></body>|' \
	"$T/outlier.html" >"$T/outlier-measured.html"
timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$T/profile" --window-size=1366,768 \
	--dump-dom "file://$T/outlier-measured.html" >"$T/dom" 2>"$T/log"
if python3 - "$T/outlier.json" "$T/dom" "$T/outlier" >"$T/check" 2>&1 <<'EOF2'
import html, json, re, sys
doc = json.load(open(sys.argv[1]))
dom = open(sys.argv[2], encoding="utf-8").read()
m = re.search(r'data-hl="([^"]*)"', dom)
bad = []
if not m:
    print("no measures in the DOM (the script did not run)")
    sys.exit(1)
hl = json.loads(html.unescape(m.group(1)))
rows = hl["rows"]
if len(rows) != len(doc["rows"]):
    bad.append("%d headline rows, want %d" % (len(rows), len(doc["rows"])))
# the outlier inside the axis, far from the normal row
out, norm = rows[2], rows[3]
if out["dot"] is None or norm["dot"] is None:
    bad.append("no dot for +9264%% (%r) or +346%% (%r)" % (out, norm))
elif out["dot"] - norm["dot"] < 100:
    bad.append("+9264%% at x %.1f, +346%% at x %.1f: not apart" % (out["dot"], norm["dot"]))
# the one form of a percentage (docs/reports.md)
def pct(v):
    return ("%+.3g%%" if abs(v) >= 1e6 else "%+.1f%%") % v
huge = doc["rows"][4]
lo, hi = pct(huge["ci_low_pct"]), pct(huge["ci_high_pct"])
if sorted(rows[4]["clipv"]) != sorted([lo, hi]) or len(rows[4]["clips"]) != 2:
    bad.append("the huge interval's clip markers %r %r, want %s and %s" %
               (rows[4]["clips"], rows[4]["clipv"], lo, hi))
if out["clipv"] != [pct(doc["rows"][2]["ci_high_pct"])]:
    bad.append("the outlier's interval end beyond the axis: %r" % out["clipv"])
if any(r["clips"] for i, r in enumerate(rows) if i not in (2, 4)):
    bad.append("a clip marker on a row within the axis")
# labels: inside the chart, whole, the row's cN and words of its label
for r, d in zip(rows, doc["rows"]):
    k = next(i for i, c in enumerate(doc["configs"]) if c["key"] == d["x"]["config"])
    name = "c%d" % (k + 1)
    words = r["label"].split(": ", 1)[-1].split(" ")
    if r["lx"] < 0 or r["lx"] + r["lw"] > hl["w"]:
        bad.append("label outside the chart: %r" % r["label"])
    if "..." in r["label"] or "~" in r["label"]:
        bad.append("label cut: %r" % r["label"])
    if words[0] != name or not set(words[1:]) <= set(doc["configs"][k]["label"].split()):
        bad.append("label %r, want %s and words of %r" % (r["label"], name,
                                                           doc["configs"][k]["label"]))
# the same figures in every format
text = open(sys.argv[3] + ".text", encoding="utf-8").read()
md = open(sys.argv[3] + ".md", encoding="utf-8").read()
page = html.unescape(open(sys.argv[3] + ".html", encoding="utf-8").read())
for fmt, body, want in (("text", text, "ci %s..%s" % (lo, hi)), ("md", md, "ci %s..%s" % (lo, hi)),
                        ("html", page, "[%s, %s]" % (lo, hi))):
    if want not in body:
        bad.append("%s: no %r" % (fmt, want))
    for v in (pct(doc["rows"][2]["change_pct"]), pct(doc["rows"][3]["change_pct"])):
        if v not in body:
            bad.append("%s: no %r" % (fmt, v))
if "1000000000" in page:
    bad.append("html: a clamped +1000000000%")
rendered = json.load(open(sys.argv[3] + ".json"))["rows"][4]
if pct(rendered["ci_high_pct"]) != hi or pct(rendered["ci_low_pct"]) != lo:
    bad.append("json: the interval reads %r..%r" % (rendered["ci_low_pct"], rendered["ci_high_pct"]))
print("\n".join(bad) or "+9264%% at x %.0f, +346%% at x %.0f; clips %s; labels %s" %
      (out["dot"], norm["dot"], " ".join(rows[4]["clipv"]), ", ".join(r["label"] for r in rows[:2])))
sys.exit(1 if bad else 0)
EOF2
then ok "outlier: log axis, clip markers, labels whole with cN, one figure in every format ($(cat "$T/check"))"
else notok "outlier: log axis, clip markers, labels whole with cN, one figure in every format" "$(cat "$T/check")" "$(head -c 400 "$T/log")"; fi

# box-plot labels are never cut (wrapped on two lines, whole in the
# tooltip), and axes speak in readable units (0.41 s of report-own is ms)
for name in own fixture; do
	if python3 - "$T/report-$name.html" >"$T/check" 2>&1 <<'EOF2'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
plots = re.findall(r'<svg[^>]*class="chart boxplot".*?</svg>', page, re.S)
cut = [t for p in plots for t in re.findall(r'>([^<>]*\.\.\.)<', p)]
print("%d box plots%s" % (len(plots), ", cut: " + "; ".join(cut[:3]) if cut else ""))
sys.exit(1 if cut or not plots else 0)
EOF2
	then ok "$name: box-plot labels whole ($(cat "$T/check"))"
	else notok "$name: box-plot labels whole" "$(cat "$T/check")"; fi
done
expect_grep "own: a box plot of seconds has its axis in ms" "$T/report-own.html" '>ms</text>'
expect_grep "own: a long box-plot label wraps on a second line" "$T/report-own.html" '<tspan'

# issue 28: the scheduler evidence in the page Chromium built: a row per
# configuration, cell and level (the SMT guest's SMT and MC, innermost
# first), and the largest differences along pinning in words
"$MKFIXTURE" "$T/sched.db" sched 2>"$T/err" || notok "mkfixture sched" "$(cat "$T/err")"
expect_exit "evidence: vtbench compare -o writes the page" 0 \
	"$VTBENCH" compare --db "$T/sched.db" --axis pinning --fail-on none -o "$T/sched.html"
browse "$T/sched.html"
if grep 'CONSOLE' "$T/log" >"$T/console"; then
	notok "evidence: no console messages" "$(head -n 20 "$T/console")"
else
	ok "evidence: no console messages"
fi
if python3 - "$T/dom" >"$T/check" 2>&1 <<'EOF2'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
start = dom.find("Scheduler counters over each cell")
bad = []
if start < 0:
    bad.append("no scheduler counters table")
table = dom[start:dom.find("</table>", start)]
rows = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
        for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
rows = [r for r in rows if r]
levels = [(r[0], r[2]) for r in rows]
if len(rows) != 4:
    bad.append("%d rows, want 4 (c2 MC, c3 SMT and MC, c4 MC): %r" % (len(rows), levels))
smt = [r for r in rows if "topology=smt" in r[0]]
if [r[2] for r in smt] != ["SMT", "MC"]:
    bad.append("the SMT guest's levels %r, want SMT then MC" % [r[2] for r in smt])
if not all(r[3] not in ("", "-") for r in rows):
    bad.append("a level without its balance rate")
diffs = re.findall(r'<ul class="evidence-diffs">(.*?)</ul>', dom, re.S)
if not diffs or "waited 29% of the time on the host" not in html.unescape(diffs[0]):
    bad.append("no difference list naming the unpinned guest's host run delay")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF2
then
	ok "evidence: a row per configuration and level, innermost first, and the differences in words"
else
	notok "evidence: a row per configuration and level, innermost first, and the differences in words" "$(cat "$T/check")"
fi

# recommend's page (the generated race, under TCG): no console message,
# its race chart counted; each line's label whole inside the chart (the
# old labels ran past its edge, cut before the part that differs, so two
# lines read the same), none over another, each "cN" and the words of its
# label that set it apart; both axes name their unit (the objective's
# us, read as ms; the rounds)
"$MKFIXTURE" "$T/race.db" race 2>"$T/err" || notok "mkfixture race" "$(cat "$T/err")"
expect_exit "recommend: vtbench recommend -o writes the page" 0 \
	"$VTBENCH" recommend --db "$T/race.db" -o "$T/race.html"
browse "$T/race.html"
if grep 'CONSOLE' "$T/log" >"$T/console"; then
	notok "recommend: no console messages" "$(head -n 20 "$T/console")"
else
	ok "recommend: no console messages"
fi
sed 's|</body>|<script>var s = document.querySelector("svg.racechart"), W = s.width.baseVal.value, out = [], boxes = []; document.querySelectorAll("svg.racechart .runlabel").forEach(function (t) { var b = t.getBBox(), txt = Array.prototype.filter.call(t.childNodes, function (n) { return n.nodeType === 3; }).map(function (n) { return n.data; }).join(""); if (b.x < 0 \|\| b.x + b.width > W) out.push("outside:" + txt); boxes.forEach(function (o) { if (b.x < o.x + o.width \&\& o.x < b.x + b.width \&\& b.y < o.y + o.height \&\& o.y < b.y + b.height) out.push("overlap:" + txt); }); boxes.push(b); out.push(txt); }); document.querySelectorAll("svg.racechart .axis .unit").forEach(function (u) { out.push("unit:" + u.textContent); }); document.body.setAttribute("data-labels", out.join("\|"));</script></body>|' \
	"$T/race.html" >"$T/race-measured.html"
timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$T/profile" --window-size=1366,768 \
	--dump-dom "file://$T/race-measured.html" >"$T/dom" 2>"$T/log"
labels=$(sed -n 's/.*data-labels="\([^"]*\)".*/\1/p' "$T/dom" | head -n 1)
expect_eq "recommend: race chart labels whole inside the chart, apart, cN and what differs; axes with units" \
	"$labels" "c2 sched=isolate|c3 sched=tuned|c1 sched=default|unit:ms|unit:round"
