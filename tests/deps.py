#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every tool the tests and contrib scripts call comes from a package
that contrib/deps.sh installs (or from a Debian minbase root).

Usage: deps.py TOP_SRCDIR

Reads the scripts (tests/*.sh, tests/*.py, contrib/*.sh, .ci/run) for
the commands they run: the first word of each simple command in the
shell scripts (through $( ), "...", exec, timeout, ip netns exec and
the like), the programs the Python helpers start with subprocess and
the modules they import. Each command must be in COMMANDS below, which
names the Debian package that has it, and that package must be on one
of contrib/deps.sh's lists or in MINBASE. What is installed on this
machine plays no part: the lists are checked, so a tool added to a
test without its package in deps.sh fails here, on any machine.

Prints TAP.
"""

import glob
import os
import re
import sys

# What `debootstrap --variant=minbase bookworm` installs (Debian 12):
# there before deps.sh runs.
MINBASE = set("""
adduser apt base-files base-passwd bash bsdutils coreutils dash debconf
debianutils diffutils dpkg e2fsprogs findutils gpgv grep gzip hostname
init-system-helpers libc-bin login mawk mount ncurses-bin passwd
perl-base sed sysvinit-utils tar util-linux util-linux-extra
""".split())

# Command -> the package on deps.sh's lists (or in MINBASE) that
# installs it; where that is a dependency, the package that has the
# program is named in the comment.
COMMANDS = {
    # the build (build-essential: gcc, make, binutils, dpkg-dev)
    "autoreconf": "autoconf",
    "cc": "build-essential",
    "gcc": "build-essential",
    "make": "build-essential",
    "nm": "build-essential",  # binutils
    "dpkg-buildpackage": "build-essential",  # dpkg-dev
    "dpkg-architecture": "build-essential",  # dpkg-dev
    "pkg-config": "pkg-config",
    "clang": "clang",
    "dh": "debhelper",
    "lintian": "lintian",
    "systemd-analyze": "systemd",
    "systemd-sysusers": "systemd",
    "systemctl": "systemd",
    # the network
    "ip": "iproute2",
    "ss": "iproute2",
    "tc": "iproute2",
    "bridge": "iproute2",
    "nstat": "iproute2",
    "ping": "iputils-ping",
    "iperf3": "iperf3",
    "socat": "socat",
    "tcpdump": "tcpdump",
    "tshark": "tshark",
    "ethtool": "ethtool",
    "jq": "jq",
    "sysctl": "procps",
    "ps": "procps",
    "pgrep": "procps",
    "ovs-vsctl": "openvswitch-switch",  # openvswitch-common
    "ovs-appctl": "openvswitch-switch",  # openvswitch-common
    "ovsdb-tool": "openvswitch-switch",
    "ovsdb-server": "openvswitch-switch",
    "ovs-vswitchd": "openvswitch-switch",
    "ovs-ofctl": "openvswitch-switch",  # openvswitch-common
    "vtysh": "frr",
    "zebra": "frr",
    "bgpd": "frr",
    "python3": "python3",
    "dpkg-parsechangelog": "build-essential",  # dpkg-dev
    # minbase
    "sh": "dash",
    "bash": "bash",
    "getconf": "libc-bin",
    "apt-get": "apt",
    "apt-cache": "apt",
    "dpkg": "dpkg",
    "dpkg-deb": "dpkg",
    "dpkg-query": "dpkg",
    "debconf-set-selections": "debconf",
    "getent": "libc-bin",
    "hostname": "hostname",
    "awk": "mawk",
    "grep": "grep",
    "sed": "sed",
    "tar": "tar",
    "gzip": "gzip",
    "zcat": "gzip",
    "find": "findutils",
    "xargs": "findutils",
    "cmp": "diffutils",
    "diff": "diffutils",
    "mount": "mount",
    "umount": "mount",
    "renice": "bsdutils",
    "setpriv": "util-linux",
    "unshare": "util-linux",
    "nsenter": "util-linux",
    "taskset": "util-linux",
    "kill": "procps",
    "chroot": "coreutils",
    "which": "debianutils",
    "mktemp": "coreutils",
}
for c in """basename cat chmod chown cp cut date dd df dirname du echo env
        false fold head id install ln ls md5sum mkdir mkfifo mknod mv
        nice nohup nproc printf readlink realpath rm rmdir seq sha256sum
        sleep sort stat stdbuf sync tail tee test timeout touch tr true
        truncate uname uniq wc""".split():
    COMMANDS[c] = "coreutils"

# Tools of scripts that are not run on the machine under test, or that
# install them themselves: command -> the scripts that may use it.
ELSEWHERE = {
    # bench.sh installs its tools itself and goes without the optional
    # ones (perf, sockperf, gnuplot)
    "perf": {"contrib/bench.sh"},
    "strace": {"contrib/bench.sh"},
    "sockperf": {"contrib/bench.sh"},
    "gnuplot": {"contrib/bench.sh"},
    # fresh-root.sh runs on the host that makes the fresh root; tsan.sh
    # copies the tree with git, by hand
    "debootstrap": {"contrib/fresh-root.sh"},
    "git": {"contrib/fresh-root.sh", "contrib/tsan.sh"},
}

# Python modules the helpers import that are not the standard library's.
MODULES = {"scapy": "python3-scapy"}

BUILTINS = set("""
. : [ [[ alias bg bind break builtin caller cd command compgen complete
continue coproc declare dirs disown echo enable eval exec exit export fc
fg getopts hash help history jobs kill let local logout mapfile popd
printf pushd pwd read readarray readonly return set shift shopt source
suspend test times trap true false type typeset ulimit umask unalias
unset wait
""".split())
# Words after which a command follows: separators anywhere, reserved
# words where a command name would be.
SEPARATORS = set("( ; & | && || ;; |&".split())
RESERVED = set("if then else elif do while until ! time {".split())
# Programs that run a command given after their own arguments: how many
# words (not options) come before it.
WRAPPERS = {"exec": 0, "command": 0, "timeout": 1, "nice": 0,
            "nohup": 0, "setpriv": 0, "unshare": 0, "nsenter": 0,
            "stdbuf": 0, "env": 0, "xargs": 0, "taskset": 1,
            "chroot": 1}
# Their options that take a separate argument.
OPT_ARGS = {"timeout": {"-s", "-k", "--signal", "--kill-after"},
            "nice": {"-n"}, "env": {"-u", "-C", "-S"},
            "nsenter": {"-t", "--target"},
            "unshare": {"--propagation"},
            "setpriv": {"--inh-caps", "--ambient-caps", "--bounding-set",
                        "--reuid", "--regid", "--groups"},
            "xargs": {"-n", "-P", "-I", "-d", "-L", "-s", "-E"},
            "stdbuf": {"-i", "-o", "-e"}}


class Lexer:
    """Words of a shell script, each with its line number and whether it
    stands where a command name goes. Quoted text is skipped, except for
    the command substitutions in double quotes and the script given to
    sh -c/bash -c; here-documents are skipped unless they are scripts
    themselves (a first line "#!")."""

    def __init__(self, text):
        self.s = text
        self.words = []  # (line, word, quoted)

    def lex(self):
        self._code(0, len(self.s), 1)
        return self.words

    def _sub(self, i, end):
        """Code inside a word: $( ), ` `, sh -c '...'."""
        self.words.append((self._line(i), "<sub>", False))
        self._code(i, end, 0)
        self.words.append((self._line(end), "</sub>", False))

    def _line(self, i):
        return self.s.count("\n", 0, i) + 1

    def _skip_quote(self, i, q):
        """Index after the closing quote q of a quote opened at i - 1."""
        while i < len(self.s) and self.s[i] != q:
            if q == '"' and self.s[i] == "\\":
                i += 1
            elif q == '"' and self.s.startswith("$(", i) and \
                    not self.s.startswith("$((", i):
                end = self._match(i + 2, "(", ")")
                self._sub(i + 2, end)
                i = end
            elif q == '"' and self.s[i] == "`":
                end = self.s.index("`", i + 1)
                self._sub(i + 1, end)
                i = end
            i += 1
        return i + 1

    def _match(self, i, op, cl):
        """Index of the cl closing an op opened before i."""
        depth = 1
        while i < len(self.s):
            c = self.s[i]
            if c in "'\"":
                if c == "'":
                    i = self.s.index("'", i + 1) + 1
                else:
                    i = self._skip_quote(i + 1, '"')
                continue
            if c == "\\":
                i += 2
                continue
            if c == "#" and (i == 0 or self.s[i - 1] in " \t\n"):
                i = self.s.find("\n", i)
                continue
            if c == op:
                depth += 1
            elif c == cl:
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return i

    def _heredocs(self, i, tags):
        """Skip (or read as code) the bodies of here-documents after the
        newline at i; returns the index after the last body."""
        for tag, strip, quoted in tags:
            start = i + 1
            j = start
            while j < len(self.s):
                end = self.s.find("\n", j)
                end = len(self.s) if end < 0 else end
                line = self.s[j:end]
                if (line.lstrip("\t") if strip else line) == tag:
                    break
                j = end + 1
            body = self.s[start:j]
            if body.lstrip().startswith("#!"):
                if not quoted:
                    # What the shell makes of \\, \$ and \` there.
                    body = re.sub(r"\\([\\$`])", r"\1", body)
                first = self._line(start) - 1
                self.words.append((first, "<sub>", False))
                self.words += [(n + first, w, q)
                               for n, w, q in Lexer(body).lex()]
                self.words.append((first, "</sub>", False))
            i = self.s.find("\n", j)
            i = len(self.s) if i < 0 else i
        return i

    def _code(self, i, end, _):
        word, wstart, quoted = "", None, False
        tags = []
        while i <= end:
            c = self.s[i] if i < end else "\n"
            if c in " \t\n;&|()<>" or i == end:
                if wstart is not None:
                    self.words.append((self._line(wstart), word, quoted))
                    word, wstart, quoted = "", None, False
                if i >= end:
                    break
                if c in " \t":
                    i += 1
                    continue
                if c == "\n":
                    self.words.append((self._line(i), ";", False))
                    if tags:
                        i = self._heredocs(i, tags)
                        tags = []
                    i += 1
                    continue
                if c in "<>":
                    m = re.match(r"<<-?\s*(['\"]?)(\w+)\1", self.s[i:])
                    if m:
                        tags.append((m.group(2), "-" in m.group(0),
                                     bool(m.group(1))))
                        i += m.end()
                        continue
                    # A redirection: its target is no command.
                    m = re.match(r"[<>]+&?-?\s*", self.s[i:])
                    i += m.end()
                    self.words.append((self._line(i), "<redir>", False))
                    continue
                if c == "(" and self.words and \
                        self.words[-1][1].endswith("="):
                    i = self._match(i + 1, "(", ")") + 1  # x=( ... )
                    continue
                if c == "(" and self.s.startswith("((", i):
                    i = self._match(i + 2, "(", ")") + 2  # (( ... ))
                    continue
                op = self.s[i:i + 2] if self.s[i:i + 2] in \
                    ("&&", "||", ";;", "|&") else c
                self.words.append((self._line(i), op, False))
                i += len(op)
                continue
            if c == "\\" and self.s.startswith("\n", i + 1):
                if wstart is not None:
                    self.words.append((self._line(wstart), word, quoted))
                    word, wstart, quoted = "", None, False
                i += 2  # a line continued
                continue
            if wstart is None:
                wstart = i
                if c == "#":
                    i = self.s.find("\n", i)
                    i = end if i < 0 or i > end else i
                    wstart = None
                    continue
            if c == "\\":
                word += self.s[i:i + 2]
                i += 2
                continue
            if c == "'":
                j = self.s.index("'", i + 1)
                if self._after_dash_c():
                    self._sub(i + 1, j)
                word += "'Q'"
                quoted = True
                i = j + 1
                continue
            if c == '"':
                j = self._skip_quote(i + 1, '"')
                word += '"Q"'
                quoted = True
                i = j
                continue
            if c == "`":
                j = self.s.index("`", i + 1)
                self._sub(i + 1, j)
                word += "$Q"
                i = j + 1
                continue
            if self.s.startswith("$((", i):
                j = self._match(i + 3, "(", ")")
                word += "$Q"
                i = j + 2
                continue
            if self.s.startswith("$(", i):
                j = self._match(i + 2, "(", ")")
                self._sub(i + 2, j)
                word += "$Q"
                i = j + 1
                continue
            if self.s.startswith("${", i):
                j = self._match(i + 2, "{", "}")
                word += "$Q"
                i = j + 1
                continue
            word += c
            i += 1

    def _after_dash_c(self):
        w = [x[1] for x in self.words[-2:]]
        return len(w) == 2 and w[1] == "-c" and \
            os.path.basename(w[0]) in ("sh", "bash")


def shell_commands(text):
    """(line, name) of each command a shell script runs, and the names of
    the functions it defines."""
    words = Lexer(text).lex()
    cmds, funcs = [], set()
    at_cmd = True
    stack = []  # "case" (patterns next), "casebody", "for"
    wrapper, wrap_left, wrap_skip = None, 0, False
    saved = []
    i = 0
    while i < len(words):
        line, w, quoted = words[i]
        nxt = words[i + 1][1] if i + 1 < len(words) else ""
        if w == "<sub>":
            saved.append((at_cmd, stack, wrapper, wrap_left, wrap_skip))
            at_cmd, stack, wrapper = True, [], None
            i += 1
            continue
        if w == "</sub>":
            if saved:
                at_cmd, stack, wrapper, wrap_left, wrap_skip = saved.pop()
            i += 1
            continue
        top = stack[-1] if stack else None
        if top == "case-word":
            if w == "in":
                stack[-1] = "case"
            i += 1
            continue
        if top == "case":
            # Patterns up to ")"; then the clause is code.
            if w == "esac":
                stack.pop()
                at_cmd = False
            elif w == ")":
                stack[-1] = "casebody"
                at_cmd = True
            i += 1
            continue
        if top == "casebody" and w in (";;", ";&", ";;&"):
            stack[-1] = "case"
            i += 1
            continue
        if top == "casebody" and w == "esac":
            stack.pop()
            i += 1
            continue
        if top == "for":
            if w in ("do", ";"):
                if w == "do":
                    stack.pop()
                    at_cmd = True
            i += 1
            continue
        if top == "[[":
            if w == "]]":
                stack.pop()
                at_cmd = False
            i += 1
            continue
        if w in SEPARATORS or (at_cmd and w in RESERVED) or w == ")" or \
                (at_cmd and w == "}"):
            at_cmd = w not in ("}", ")")
            wrapper = None
            i += 1
            continue
        if w == "<redir>":
            i += 2  # the target
            continue
        if not at_cmd:
            i += 1
            continue
        # A command position.
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", w):
            i += 1  # an assignment before the command, or alone
            continue
        if nxt == "(" and re.match(r"^[\w.-]+$", w) and \
                i + 2 < len(words) and words[i + 2][1] == ")":
            funcs.add(w)  # name() { ... }
            i += 3
            continue
        if w == "function":
            funcs.add(nxt)
            i += 2
            continue
        if w == "case":
            stack.append("case-word")
            i += 1
            continue
        if w in ("for", "select"):
            stack.append("for")
            i += 1
            continue
        if w == "[[":
            stack.append("[[")
            i += 1
            continue
        if w in ("esac", "fi", "done", "in"):
            at_cmd = False
            i += 1
            continue
        if wrapper is not None:
            if w.startswith("-"):
                if w in OPT_ARGS.get(wrapper, ()):
                    i += 1
                i += 1
                continue
            if wrapper == "env" and "=" in w:
                i += 1
                continue
            if wrap_left > 0:
                wrap_left -= 1
                i += 1
                continue
        if wrapper == "command" and wrap_skip:
            at_cmd = False
            wrapper = None
            i += 1
            continue
        wrapper = None
        name = w
        if w == "$sudo":
            i += 1  # deps.sh's "sudo or nothing"
            continue
        if quoted or "$" in w:
            # "$VAR" and the like: the tests name their few such
            # commands with a variable set from a literal elsewhere.
            at_cmd = False
            i += 1
            continue
        if name.startswith("/"):
            name = os.path.basename(name)
        elif "/" in name:
            at_cmd = False  # the project's own scripts and programs
            i += 1
            continue
        if name == "ip" and words[i + 1:i + 4] and \
                [x[1] for x in words[i + 1:i + 3]] == ["netns", "exec"]:
            cmds.append((line, "ip"))
            wrapper, wrap_left = "ipnetns", 1
            i += 3
            continue
        cmds.append((line, name))
        if name in WRAPPERS:
            wrapper, wrap_left = name, WRAPPERS[name]
            wrap_skip = name == "command" and nxt in ("-v", "-V")
            i += 1
            continue
        at_cmd = False
        i += 1
    return cmds, funcs


def python_uses(text):
    """(line, command) started through subprocess, (line, module)
    imported."""
    cmds, mods = [], []
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"(?:subprocess\.\w+\(\s*|\bcmd\s*=\s*)"
                             r"\[\s*[\"']([\w.+-]+)[\"']", line):
            cmds.append((n, m.group(1)))
        m = re.match(r"\s*(?:from\s+(\w+)\S*\s+import|import\s+(\w+))",
                     line)
        if m:
            mods.append((n, m.group(1) or m.group(2)))
    return cmds, mods


def deps_lists(path):
    """deps.sh's package lists: {name: [packages]}, with $name expanded."""
    text = open(path).read()
    lists = {}
    for m in re.finditer(r'^(\w+)="([^"]*)"', text, re.M):
        words = []
        for w in m.group(2).split():
            if w.startswith("$"):
                words += lists.get(w[1:], [])
            else:
                words.append(w)
        lists[m.group(1)] = words
    return lists


def local_modules(top):
    return {os.path.splitext(os.path.basename(p))[0]
            for p in glob.glob(os.path.join(top, "tests", "*.py"))}


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    lists = deps_lists(os.path.join(top, "contrib", "deps.sh"))
    everything = set(sum(lists.values(), [])) | MINBASE
    demo = set(lists.get("build", []) + lists.get("demo", [])) | MINBASE
    scripts = sorted(glob.glob(os.path.join(top, "tests", "*.sh")) +
                     glob.glob(os.path.join(top, "contrib", "*.sh")) +
                     [os.path.join(top, ".ci", "run")])
    pys = sorted(glob.glob(os.path.join(top, "tests", "*.py")))

    uses, funcs, mods = [], set(), []
    for p in scripts:
        if not os.path.exists(p):
            continue
        c, f = shell_commands(open(p).read())
        rel = os.path.relpath(p, top)
        uses += [(rel, n, w) for n, w in c]
        funcs |= f
    for p in pys:
        c, m = python_uses(open(p).read())
        rel = os.path.relpath(p, top)
        uses += [(rel, n, w) for n, w in c]
        mods += [(rel, n, w) for n, w in m]

    unknown, missing, demo_missing = {}, {}, {}
    for p in glob.glob(os.path.join(top, "completion", "*")):
        funcs |= shell_commands(open(p).read())[1]
    for rel, n, w in uses:
        if w in BUILTINS or w in funcs or rel in ELSEWHERE.get(w, ()):
            continue
        if w not in COMMANDS:
            unknown.setdefault(w, "%s:%d" % (rel, n))
            continue
        if COMMANDS[w] not in everything:
            missing.setdefault(w, "%s:%d" % (rel, n))
        if rel == "contrib/demo.sh" and COMMANDS[w] not in demo:
            demo_missing.setdefault(w, "%s:%d" % (rel, n))
    std = set(getattr(sys, "stdlib_module_names", ())) | local_modules(top)
    bad_mods = {}
    for rel, n, m in mods:
        if m in MODULES and MODULES[m] in everything:
            continue
        if m not in MODULES and (m in std or not std):
            continue
        bad_mods.setdefault(m, "%s:%d" % (rel, n))

    def report(n, bad, what, fmt):
        print("%s %d - %s" % ("not ok" if bad else "ok", n, what))
        for w, where in sorted(bad.items()):
            print("# %s" % (fmt % (w, where)))
        return 1 if bad else 0

    print("1..4")
    names = len({w for _, _, w in uses
                 if w not in BUILTINS and w not in funcs})
    fails = report(1, unknown, "each of the %d commands the scripts run "
                   "(builtins and their functions aside) is in deps.py's "
                   "table" % names,
                   "%s (%s): not in COMMANDS: add it with the package "
                   "that has it, and that package to contrib/deps.sh")
    fails += report(2, {w: "%s, package %s" % (where, COMMANDS[w])
                        for w, where in missing.items()},
                    "each command's package is on contrib/deps.sh's "
                    "lists (or in a minbase root)",
                    "%s (%s): not installed by contrib/deps.sh")
    fails += report(3, {w: "%s, package %s" % (where, COMMANDS[w])
                        for w, where in demo_missing.items()},
                    "contrib/demo.sh's commands come with "
                    "`deps.sh demo`'s packages",
                    "%s (%s): not on deps.sh's build or demo list")
    fails += report(4, bad_mods, "the Python modules the tests import are "
                    "the standard library's or from a deps.sh package",
                    "%s (%s): add it to MODULES and its package to "
                    "contrib/deps.sh")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
