#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal of a given width and checks what a
terminal would show (tests/cli/progress_fit.sh): a small emulator of
the parts vtbench uses (autowrap, CR, LF, ESC[K; any other escape fails
the check), then:
  - every progress line drawn (what follows CR ESC[K up to the next CR
    or LF, when it has an "eta ") is narrower than the terminal;
  - no row of the final screen holds a stale progress line (one with
    "eta " or starting "boot ": on a terminal run prints no boot line
    that stays unless a boot fails);
  - the final screen shows PATTERN (the summary; in a line the terminal
    may have wrapped).
Usage: ptyrun.py COLUMNS PATTERN CMD ARG...; prints the screen on
failure, exits 0 when every check holds, 1 otherwise, 2 on bad use.
With PTYRUN_LINES=FILE in the environment, the progress lines drawn go
to FILE, one a line."""
import fcntl
import os
import pty
import struct
import sys
import termios


def emulate(data, cols):
    rows, row, col, pending = [[]], 0, 0, False
    soft = set()  # rows continued by autowrap on the next one
    errors, i = [], 0
    text = data.decode("utf-8", errors="replace")
    while i < len(text):
        ch = text[i]
        if ch == "\x1b":
            if text.startswith("\x1b[K", i):
                del rows[row][col:]
                i += 3
                continue
            errors.append("unexpected escape %r" % text[i:i + 6])
            i += 1
            continue
        if ch == "\r":
            col, pending = 0, False
        elif ch == "\n":
            row, col, pending = row + 1, 0, False
            if row == len(rows):
                rows.append([])
        else:
            if pending:  # autowrap: the character goes to the next row
                soft.add(row)
                row, col, pending = row + 1, 0, False
                if row == len(rows):
                    rows.append([])
            line = rows[row]
            while len(line) < col:
                line.append(" ")
            if col < len(line):
                line[col] = ch
            else:
                line.append(ch)
            col += 1
            if col == cols:
                col, pending = cols - 1, True
        i += 1
    screen = ["".join(r) for r in rows]
    lines, cur = [], ""
    for n, r in enumerate(screen):
        cur += r
        if n not in soft:
            lines.append(cur)
            cur = ""
    return screen, lines, errors


def segments(data):
    text = data.decode("utf-8", errors="replace")
    for part in text.split("\r\x1b[K")[1:]:
        yield part.split("\r")[0].split("\n")[0]


def main():
    if len(sys.argv) < 4:
        print("usage: ptyrun.py COLUMNS PATTERN CMD ARG...", file=sys.stderr)
        return 2
    cols, pattern, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    # the pty turns LF into CR LF: undo it, as a terminal's newline
    out = out.replace(b"\r\n", b"\n")
    screen, lines, errors = emulate(out, cols)
    refreshes, drawn = 0, []
    for s in segments(out):
        if "eta " not in s:
            continue  # a line that stays (a warning, the summary): wrapped
        refreshes += 1
        drawn.append(s)
        if len(s) >= cols:
            errors.append("a progress line of %d characters in %d columns: %r"
                          % (len(s), cols, s))
    for r in screen:
        if "eta " in r or r.startswith("boot "):
            errors.append("stale progress row: %r" % r)
    if not any(pattern in r for r in lines):
        errors.append("the final screen lacks %r" % pattern)
    if rc != 0:
        errors.append("exit %d" % rc)
    if not refreshes:
        errors.append("no progress line was drawn")
    print("refreshes %d" % refreshes)
    if os.environ.get("PTYRUN_LINES"):
        with open(os.environ["PTYRUN_LINES"], "w", encoding="utf-8") as f:
            f.writelines(d + "\n" for d in drawn)
    if errors:
        for e in errors:
            print("error: " + e)
        print("screen:")
        for r in screen:
            print("|" + r)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
