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
for c in """basename cat chmod chown comm cp cut date dd df dirname du echo env
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
        self.word, self.wstart, self.quoted, self.tags = "", None, False, []

    def lex(self):
        self._code(0, len(self.s))
        return self.words

    def _sub(self, i, end):
        """Code inside a word: $( ), ` `, sh -c '...'."""
        self.words.append((self._line(i), "<sub>", False))
        self._code(i, end)
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

    def _flush(self):
        if self.wstart is not None:
            self.words.append((self._line(self.wstart), self.word,
                               self.quoted))
        self.word, self.wstart, self.quoted = "", None, False

    def _code(self, i, end):
        saved = (self.word, self.wstart, self.quoted, self.tags)
        self.word, self.wstart, self.quoted, self.tags = "", None, False, []
        while i < end:
            c = self.s[i]
            if c in " \t\n;&|()<>":
                self._flush()
                i = self._operator(i, c)
            elif c == "\\" and self.s.startswith("\n", i + 1):
                self._flush()
                i += 2  # a line continued
            elif self.wstart is None and c == "#":
                i = self.s.find("\n", i)
                i = end if i < 0 or i > end else i
            else:
                if self.wstart is None:
                    self.wstart = i
                i = self._word_part(i, c)
        self._flush()
        self.word, self.wstart, self.quoted, self.tags = saved

    def _operator(self, i, c):
        """A blank, a newline, a redirection or an operator at i: where
        the next word starts."""
        if c in " \t":
            return i + 1
        if c == "\n":
            self.words.append((self._line(i), ";", False))
            if self.tags:
                i = self._heredocs(i, self.tags)
                self.tags = []
            return i + 1
        if c in "<>":
            m = re.match(r"<<-?\s*(['\"]?)(\w+)\1", self.s[i:])
            if m:
                self.tags.append((m.group(2), "-" in m.group(0),
                                  bool(m.group(1))))
                return i + m.end()
            # A redirection: its target is no command.
            i += re.match(r"[<>]+&?-?\s*", self.s[i:]).end()
            self.words.append((self._line(i), "<redir>", False))
            return i
        if c == "(" and self.words and self.words[-1][1].endswith("="):
            return self._match(i + 1, "(", ")") + 1  # x=( ... )
        if c == "(" and self.s.startswith("((", i):
            return self._match(i + 2, "(", ")") + 2  # (( ... ))
        op = self.s[i:i + 2]
        op = op if op in ("&&", "||", ";;", "|&") else c
        self.words.append((self._line(i), op, False))
        return i + len(op)

    def _word_part(self, i, c):
        """A piece of a word at i: where the next piece starts."""
        if c == "\\":
            self.word += self.s[i:i + 2]
            return i + 2
        if c == "'":
            j = self.s.index("'", i + 1)
            if self._after_dash_c():
                self._sub(i + 1, j)
            self.word, self.quoted = self.word + "'Q'", True
            return j + 1
        if c == '"':
            self.word, self.quoted = self.word + '"Q"', True
            return self._skip_quote(i + 1, '"')
        if c == "`":
            j = self.s.index("`", i + 1)
            self._sub(i + 1, j)
        elif self.s.startswith("$((", i):
            j = self._match(i + 3, "(", ")") + 1
        elif self.s.startswith("$(", i):
            j = self._match(i + 2, "(", ")")
            self._sub(i + 2, j)
        elif self.s.startswith("${", i):
            j = self._match(i + 2, "{", "}")
        else:
            self.word += c
            return i + 1
        self.word += "$Q"
        return j + 1

    def _after_dash_c(self):
        w = [x[1] for x in self.words[-2:]]
        return len(w) == 2 and w[1] == "-c" and \
            os.path.basename(w[0]) in ("sh", "bash")


class Walker:
    """The commands in a Lexer's words: what stands where a command name
    goes, once reserved words, assignments, case patterns, for lists,
    [[ ]] and the arguments of wrappers (timeout 5 CMD) are set aside."""

    def __init__(self, words):
        self.words = words
        self.cmds, self.funcs = [], set()
        self.at_cmd, self.stack, self.saved = True, [], []
        self.wrapper, self.wrap_left, self.wrap_skip = None, 0, False

    def walk(self):
        i = 0
        while i < len(self.words):
            i += self._step(i)
        return self.cmds, self.funcs

    def _word(self, i):
        return self.words[i][1] if i < len(self.words) else ""

    def _step(self, i):
        """Words used up at i."""
        w = self.words[i][1]
        if w == "<sub>":
            self.saved.append((self.at_cmd, self.stack, self.wrapper,
                               self.wrap_left, self.wrap_skip))
            self.at_cmd, self.stack, self.wrapper = True, [], None
            return 1
        if w == "</sub>":
            if self.saved:
                (self.at_cmd, self.stack, self.wrapper, self.wrap_left,
                 self.wrap_skip) = self.saved.pop()
            return 1
        if self.stack and self._compound(w):
            return 1
        if w in SEPARATORS or w == ")" or \
                (self.at_cmd and (w in RESERVED or w == "}")):
            self.at_cmd = w not in ("}", ")")
            self.wrapper = None
            return 1
        if w == "<redir>":
            return 2  # and its target
        if not self.at_cmd:
            return 1
        return self._command_position(i)

    def _compound(self, w):
        """Inside case patterns, a for list or [[ ]]: whether w was
        theirs."""
        top = self.stack[-1]
        if top == "case-word":
            if w == "in":
                self.stack[-1] = "case"
        elif top == "case":  # patterns up to ")", then a clause
            if w == "esac":
                self.stack.pop()
                self.at_cmd = False
            elif w == ")":
                self.stack[-1] = "casebody"
                self.at_cmd = True
        elif top == "casebody" and w in (";;", ";&", ";;&"):
            self.stack[-1] = "case"
        elif top == "casebody" and w == "esac":
            self.stack.pop()
        elif top == "for":
            if w == "do":
                self.stack.pop()
                self.at_cmd = True
        elif top == "[[":
            if w == "]]":
                self.stack.pop()
                self.at_cmd = False
        else:
            return False
        return True

    def _command_position(self, i):
        w, nxt = self.words[i][1], self._word(i + 1)
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", w):
            return 1  # an assignment before the command, or alone
        if nxt == "(" and self._word(i + 2) == ")" and \
                re.match(r"^[\w.-]+$", w):
            self.funcs.add(w)  # name() { ... }
            return 3
        if w == "function":
            self.funcs.add(nxt)
            return 2
        opens = {"case": "case-word", "for": "for", "select": "for",
                 "[[": "[["}
        if w in opens:
            self.stack.append(opens[w])
            return 1
        if w in ("esac", "fi", "done", "in"):
            self.at_cmd = False
            return 1
        if self.wrapper is not None:
            used = self._wrapper_arg(w)
            if used:
                return used
        return self._command(i)

    def _wrapper_arg(self, w):
        """Words of a wrapper's own before its command (0: none)."""
        if w.startswith("-"):
            return 2 if w in OPT_ARGS.get(self.wrapper, ()) else 1
        if self.wrapper == "env" and "=" in w:
            return 1
        if self.wrap_left > 0:
            self.wrap_left -= 1
            return 1
        return 0

    def _command(self, i):
        line, w, quoted = self.words[i]
        skip = self.wrapper == "command" and self.wrap_skip
        self.wrapper, self.at_cmd = None, False
        if skip:
            return 1  # command -v NAME: a question, not a run
        if w == "$sudo":
            self.at_cmd = True  # deps.sh's "sudo or nothing"
            return 1
        if quoted or "$" in w:
            # "$VAR" and the like: the tests name their few such
            # commands with a variable set from a literal elsewhere.
            return 1
        if "/" in w and not w.startswith("/"):
            return 1  # the project's own scripts and programs
        name = os.path.basename(w)
        self.cmds.append((line, name))
        if name == "ip" and self._word(i + 1) == "netns" and \
                self._word(i + 2) == "exec":
            self.wrapper, self.wrap_left, self.at_cmd = "ipnetns", 1, True
            return 3
        if name in WRAPPERS:
            self.wrapper, self.wrap_left = name, WRAPPERS[name]
            self.wrap_skip = name == "command" and \
                self._word(i + 1) in ("-v", "-V")
            self.at_cmd = True
        return 1


def shell_commands(text):
    """(line, name) of each command a shell script runs, and the names of
    the functions it defines."""
    return Walker(Lexer(text).lex()).walk()


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


def collect(top):
    """What the scripts run: [(file, line, command)], the names of their
    functions, [(file, line, module)]."""
    scripts = sorted(glob.glob(os.path.join(top, "tests", "*.sh")) +
                     glob.glob(os.path.join(top, "contrib", "*.sh")) +
                     [os.path.join(top, ".ci", "run")])
    uses, funcs, mods = [], set(), []
    for p in scripts:
        if os.path.exists(p):
            c, f = shell_commands(open(p).read())
            uses += [(os.path.relpath(p, top), n, w) for n, w in c]
            funcs |= f
    for p in glob.glob(os.path.join(top, "completion", "*")):
        funcs |= shell_commands(open(p).read())[1]
    for p in sorted(glob.glob(os.path.join(top, "tests", "*.py"))):
        c, m = python_uses(open(p).read())
        rel = os.path.relpath(p, top)
        uses += [(rel, n, w) for n, w in c]
        mods += [(rel, n, w) for n, w in m]
    return uses, funcs, mods


def check_commands(uses, funcs, everything, demo):
    """{command: where} of those not in COMMANDS, of those whose package
    deps.sh does not install, and of demo.sh's not on its lists."""
    unknown, missing, demo_missing = {}, {}, {}
    for rel, n, w in uses:
        if w in BUILTINS or w in funcs or rel in ELSEWHERE.get(w, ()):
            continue
        where = "%s:%d" % (rel, n)
        if w not in COMMANDS:
            unknown.setdefault(w, where)
            continue
        where += ", package " + COMMANDS[w]
        if COMMANDS[w] not in everything:
            missing.setdefault(w, where)
        if rel == "contrib/demo.sh" and COMMANDS[w] not in demo:
            demo_missing.setdefault(w, where)
    return unknown, missing, demo_missing


def check_modules(mods, top, everything):
    std = set(getattr(sys, "stdlib_module_names", ())) | local_modules(top)
    bad = {}
    for rel, n, m in mods:
        if m in MODULES and MODULES[m] in everything:
            continue
        if m not in MODULES and (m in std or not std):
            continue
        bad.setdefault(m, "%s:%d" % (rel, n))
    return bad


def report(n, bad, what, fmt):
    print("%s %d - %s" % ("not ok" if bad else "ok", n, what))
    for w, where in sorted(bad.items()):
        print("# %s" % (fmt % (w, where)))
    return 1 if bad else 0


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    lists = deps_lists(os.path.join(top, "contrib", "deps.sh"))
    everything = set(sum(lists.values(), [])) | MINBASE
    demo = set(lists.get("build", []) + lists.get("demo", [])) | MINBASE
    uses, funcs, mods = collect(top)
    unknown, missing, demo_missing = check_commands(uses, funcs,
                                                    everything, demo)
    names = len({w for _, _, w in uses
                 if w not in BUILTINS and w not in funcs})
    print("1..4")
    fails = report(1, unknown, "each of the %d commands the scripts run "
                   "(builtins and their functions aside) is in deps.py's "
                   "table" % names,
                   "%s (%s): not in COMMANDS: add it with the package "
                   "that has it, and that package to contrib/deps.sh")
    fails += report(2, missing, "each command's package is on "
                    "contrib/deps.sh's lists (or in a minbase root)",
                    "%s (%s): not installed by contrib/deps.sh")
    fails += report(3, demo_missing, "contrib/demo.sh's commands come "
                    "with `deps.sh demo`'s packages",
                    "%s (%s): not on deps.sh's build or demo list")
    fails += report(4, check_modules(mods, top, everything),
                    "the Python modules the tests import are the "
                    "standard library's or from a deps.sh package",
                    "%s (%s): add it to MODULES and its package to "
                    "contrib/deps.sh")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
