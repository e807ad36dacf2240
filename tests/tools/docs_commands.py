#!/usr/bin/env python3
"""Runs the vtbench commands README.md and docs/*.md show (tests/cli/docs_commands.sh).

  docs_commands.py SRCDIR VTBENCH AGENT FIXTURE FLEET WORKDIR DOC.md...

A command is a line of a fenced block: in ```sh, ```shell or ```bash
blocks a line that starts with `vtbench ` or `vtbench-agent ` (or `$ `
and then one; NAME=value words may come first); in ```console and other
blocks only a `$ vtbench ...` line (the rest of such a block is output,
or a synopsis).  Continuation lines (a
final backslash) are joined, a trailing `# comment` dropped, leading
`NAME=value` words become the environment, and the command ends at the
first shell operator (`|`, `>`, `;`, `&&`, ...): what is run is the
vtbench part, as an argument vector, never through a shell.

Each command runs in a fresh directory holding a copy of examples/ and
topologies/hosts/ (what the docs' commands read), beside a
fixture database for each `*.db` it names and for results.db, the default
(FIXTURE: an explore race and, the latest, a campaign with every kind of
row; FLEET for fleet.db: two hosts' campaigns merged), except merge's
output.  What is run, and the exit it must give:

  compare          as shown: 0, or 1 when the same command with
                   --fail-on none gives 0 (the gate found a worse row)
  doctor           as shown: 0, or 1 (a check failed on this host)
  run, explore     not run (they boot guests): the options must parse
                   (the command with --help appended exits 0) and
                   `vtbench plan MATRIX` must exit 0
  upload           with --dry-run added when absent (no network): 0
  vtbench-agent W  not run (a workload takes seconds): W's options must
                   parse (--help appended exits 0)
  anything else    as shown: 0

A command with a shell substitution ($, backquotes) cannot be run as
shown: it is reported as skipped, naming the doc and line.

A synopsis line (`vtbench CMD [...]` or with `|`, outside the command
blocks) is checked, not run: CMD is a command (or help, or an option of
vtbench's own usage) and every --option it names is in CMD's --help.

Prints ok / not ok / skip lines (TAP-like) for tests/run.sh.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

SRC, VTBENCH, AGENT, FIXTURE, FLEET, WORK = sys.argv[1:7]
DOCS = sys.argv[7:]
SH_LANGS = {"sh", "shell", "bash", "console", "shell-session"}
OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "&>"}
TIMEOUT = 60

# each check's lines, printed in the docs' order (the checks run side by
# side: most of their time is waiting for vtbench)
OUT = threading.local()


def emit(line):
    OUT.lines.append(line)


def say(ok, name, detail=""):
    emit("%s - %s" % ("ok" if ok else "not ok", name))
    for line in ("" if ok else detail).splitlines()[:12]:
        emit("# " + line)


def job(fn, *args):
    OUT.lines = []
    fn(*args)
    return OUT.lines


def commands_of(path):
    """(line, lang, text, prompted) for each vtbench line of a fenced block."""
    out, lang, fence = [], None, None
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        raw = lines[i]
        m = re.match(r"^\s*(```+|~~~+)\s*([\w+-]*)", raw)
        if m and fence is None:
            fence, lang = m.group(1), m.group(2).lower()
            i += 1
            continue
        if m and fence is not None and raw.strip().startswith(fence):
            fence = None
            i += 1
            continue
        if fence is None:
            i += 1
            continue
        text, start = raw.strip(), i + 1
        prompted = text.startswith("$ ")
        if prompted:
            text = text[2:].lstrip()
        if lang in ("console", "shell-session") and not prompted:
            i += 1
            continue
        if re.match(r"^([A-Z_][A-Z0-9_]*=\S*\s+)*(vtbench|vtbench-agent)(\s|$)", text):
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1].rstrip() + " " + lines[i].strip()
            out.append((start, lang, text, prompted))
        i += 1
    return out


def words_of(text):
    """The argument vector and environment, or a reason it cannot run."""
    if re.search(r"\$[({A-Za-z_]|`", text.split(" #")[0]):
        return None, None, "a shell substitution"
    lex = shlex.shlex(text, posix=True, punctuation_chars="|&;<>")
    lex.whitespace_split = True
    lex.commenters = "#"
    try:
        toks = list(lex)
    except ValueError as e:
        return None, None, "cannot split: %s" % e
    words = []
    for t in toks:
        if t in OPERATORS or set(t) <= set("|&;<>"):
            break
        words.append(t)
    return words, {}, None


def run(argv, cwd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    e.setdefault("COLUMNS", "100")
    try:
        p = subprocess.run(argv, cwd=cwd, env=e, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %d s" % TIMEOUT
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


HELP = {}


def help_options(argv):
    """The --options a --help lists (each --help run once)."""
    key = tuple(argv)
    if key not in HELP:
        rc, out, _ = run(argv, WORK)
        opts = set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", out)) | {"--help"}
        HELP[key] = (opts, rc, out)
    return HELP[key]


def commands_known():
    _, out, _ = run([VTBENCH, "--help"], WORK)
    block = out.split("commands:", 1)[1] if "commands:" in out else ""
    names = set()
    for line in block.lstrip("\n").splitlines():
        if not line.strip():
            break
        names.add(line.split()[0])
    return names, out


KNOWN, TOP_HELP = commands_known()


def check_synopsis(doc, line, text):
    """A synopsis: its command exists, its options are in its --help."""
    words = text.split()
    prog, cmd = words[0], words[1] if len(words) > 1 else ""
    name = "%s:%d: synopsis '%s'" % (doc, line, text[:60])
    if prog == "vtbench-agent":
        opts, _, _ = help_options([AGENT, "--help"])
        wl_opts, _, _ = help_options([AGENT, "membw", "--help"])
        opts |= wl_opts
    elif cmd.startswith("-"):
        flags = set(re.findall(r"(--?[a-zA-Z][a-z-]*)", TOP_HELP.split("\n\n")[0]))
        bad = [w for w in re.findall(r"(?<![\w-])(--?[a-zA-Z][a-z-]*)", text) if w not in flags]
        say(not bad, name, "not in vtbench --help's usage: %s" % " ".join(bad))
        return
    elif cmd == "help" or cmd in KNOWN:
        opts, _, _ = help_options([VTBENCH, cmd if cmd != "help" else "compare", "--help"])
        if cmd == "help":
            opts = {"--help"}
    else:
        say(False, name, "'%s' is not a command of vtbench --help (%s)" % (cmd, " ".join(sorted(KNOWN))))
        return
    named = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text.split(" #")[0])
    bad = [o for o in named if o not in opts]
    say(not bad, name, "not in its --help: %s" % " ".join(bad))


# what the docs' commands read from the source tree, as a user's checkout
# or PREFIX/share/vtbench has it
TREE = ("examples", "topologies/hosts")


def workdir(n, words, merge_out):
    d = os.path.join(WORK, "c%d" % n)
    os.makedirs(d)
    # copies: a command that writes beside its inputs writes here
    for e in TREE:
        shutil.copytree(os.path.join(SRC, e), os.path.join(d, e))
    # results.db: the database of a command without --db
    for w in words[1:] + ["results.db"]:
        for part in w.split("="):
            if not part.endswith(".db") or part == merge_out or os.path.isabs(part) or ".." in part:
                continue
            dst = os.path.join(d, part)
            if os.path.lexists(dst):
                continue
            os.makedirs(os.path.dirname(dst) or d, exist_ok=True)
            shutil.copy(FLEET if os.path.basename(part) == "fleet.db" else FIXTURE, dst)
    return d


def operands(words, cli_help):
    """The operands of a vtbench command line (after the command)."""
    takes = set(re.findall(r"(?m)^\s+(?:-(\w), )?(--[a-z][a-z0-9-]*) [A-Z]", cli_help))
    with_value = {l for _, l in takes} | {"-" + s for s, _ in takes if s}
    ops, skip = [], False
    for w in words[2:]:
        if skip:
            skip = False
        elif w.startswith("-"):
            skip = w in with_value and "=" not in w
        else:
            ops.append(w)
    return ops


def check_command(n, doc, line, text):
    words, env, why = words_of(text)
    name = "%s:%d: %s" % (doc, line, " ".join(words) if words else text)
    if why:
        emit("skip - %s (%s)" % (name, why))
        return
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    prog, cmd = words[0], words[1] if len(words) > 1 else ""
    argv = [AGENT if prog == "vtbench-agent" else VTBENCH] + words[1:]
    if prog == "vtbench" and not cmd.startswith("-") and cmd != "help" and cmd not in KNOWN:
        say(False, name, "'%s' is not a command of vtbench --help (%s)" % (cmd, " ".join(sorted(KNOWN))))
        return
    merge_out = words[2] if cmd == "merge" and len(words) > 2 else None
    d = workdir(n, words, merge_out)
    if prog == "vtbench-agent" and cmd and not cmd.startswith("-"):
        rc, out, err = run(argv + ["--help"], d, env)
        say(rc == 0, name + " (options parse: --help appended, exit 0)", "exit %d\n%s" % (rc, err))
        return
    if cmd in ("run", "explore"):
        rc, out, err = run(argv + ["--help"], d, env)
        ok = rc == 0
        say(ok, name + " (not run: options parse, --help appended exits 0)", "exit %d\n%s" % (rc, err))
        ops = operands(words, out)
        if ok and ops:
            rc, out, err = run([VTBENCH, "plan", ops[0], "-q"], d, env)
            say(rc == 0, name + " (its matrix plans: vtbench plan %s exits 0)" % ops[0],
                "exit %d\n%s" % (rc, err))
        return
    if cmd == "upload" and "--dry-run" not in words:
        argv.append("--dry-run")
        name += " (with --dry-run)"
    rc, out, err = run(argv, d, env)
    if cmd == "compare" and rc == 1:
        rc2, _, err2 = run(argv + ["--fail-on", "none"], d, env)
        say(rc2 == 0, name + " (exit 1: the gate; --fail-on none exits 0)", "exit %d\n%s" % (rc2, err2))
        return
    allowed = (0, 1) if cmd == "doctor" else (0,)
    say(rc in allowed, name + " (exit %d)" % rc,
        "expected %s\n%s" % (" or ".join(map(str, allowed)), err))


checks = []
for doc in DOCS:
    rel = os.path.relpath(doc, SRC)
    for line, lang, text, prompted in commands_of(doc):
        if lang in SH_LANGS or prompted:
            checks.append((check_command, len(checks), rel, line, text))
        elif re.match(r"^vtbench(-agent)? +\S", text) and re.search(r"\[|\|", text.split(" #")[0]) \
                and not re.match(r"^vtbench(-agent)? [\w-]+:", text):
            checks.append((check_synopsis, rel, line, text))
with ThreadPoolExecutor(max_workers=4) as pool:
    for lines in pool.map(lambda c: job(*c), checks):
        print("\n".join(lines))
print("# %d commands" % sum(c[0] is check_command for c in checks))
