"""trace.py - reads what the emulator wrote under EMU_TRACE (its format: checker/emu/emu_trace.c) into
launches, blocks and warp instructions, and the findings of the run (checker/metrics/metrics.c writes them
to stderr, one "[kind at file:line] text" a line)."""
import functools
import re


class Access:
    """One warp's memory access: space "s" (shared), "g" (global) or "l" (local); bytes per lane; cost (the
    metrics' bank conflicts for shared memory, 32-byte sectors for global); buf (the allocation's id, or
    -1); offs[k] the byte offset of lanes[k]'s access (in the block's shared memory, or in buf); ranks[k]
    the cluster rank of the block whose shared memory lanes[k] touched through a cluster address (None: its
    own block's)."""

    def __init__(self, space, size, cost, buf, offs, lanes, ranks=None):
        self.space, self.size, self.cost, self.buf, self.offs, self.lanes = space, size, cost, buf, offs, lanes
        self.ranks = ranks or [None] * len(offs)


class Insn:
    """One warp instruction: its warp, its function's pc, its line ("file:line"), the lanes running (mask)
    and executing it (m), what it is (op: ld st atom shfl bar wsync exit call bra op), its memory access
    or shuffle sources (src[k]: the lane lanes[k] reads, -1 for its own), its step (the barriers its warp
    passed before it: __syncthreads() and the cluster barrier's waits) and part (the __syncwarp()s since the
    last barrier). A cp.async (op cp) is its global read (access) and its shared write (dst); a
    cp.async.wait_group keeps the newest `keep` groups in flight ("all": wait_all, which commits first);
    phase: the cluster barrier's waits its warp passed before it."""

    def __init__(self, warp, pc, line, mask, m, op):
        self.warp, self.pc, self.line, self.mask, self.m, self.op = warp, pc, line, mask, m, op
        self.access = self.dst = None
        self.src = None
        self.keep = None
        self.step = self.part = self.phase = 0
        self._lanes_of = None

    @property
    def lanes(self):
        """The lanes of m, worked out once for each value of m (the views ask for them again and again)."""
        if self._lanes_of != self.m:
            self._lanes, self._lanes_of = [l for l in range(32) if self.m >> l & 1], self.m
        return self._lanes

    def works(self):
        """Whether it does a step's work: reads or writes memory, or moves a value between lanes."""
        return self.m != 0 and (self.access is not None or self.op in ("shfl", "atom"))

    @property
    def thread_ids(self):
        return [32 * self.warp + l for l in self.lanes]


class Block:
    def __init__(self, ctaid):
        self.ctaid = ctaid
        self.insns = []

    def warps(self):
        return sorted({i.warp for i in self.insns})


class Launch:
    """One kernel launch: its number, kernel name, grid, block (x, y, z), dynamic shared bytes, shared
    variables [(base, size, name)], the blocks written, its cudaError_t and what the trace left out."""

    def __init__(self, number, grid, block, dyn, name):
        self.number, self.grid, self.block, self.dyn, self.name = number, grid, block, dyn, name
        self.vars = []
        self.blocks = []
        self.cluster = 1    # blocks per cluster
        self.error = 0
        self.left_blocks = self.left_insns = 0

    @property
    def threads(self):
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def nblocks(self):
        return self.grid[0] * self.grid[1] * self.grid[2]

    def var_at(self, off):
        """The shared variable holding byte off: (base, size, name), or None."""
        for v in self.vars:
            if v[0] <= off < v[0] + v[1]:
                return v
        return None


class Finding:
    """A finding of the emulator: its kind (a noun: "race between warps"), where (file:line, or ""), its
    line number there (0: none), the other place where there is one, and its text."""

    # a finding as a record (emu_record_encode): "finding: kind=KIND [at=FILE:LINE] [other=FILE:LINE]
    # [array=NAME] [count=N] ... [text=...]", a value bare or in double quotes with \" \\ \n escapes
    FIELD = re.compile(r'([\w-]+)=("(?:[^"\\]|\\.)*"|\S*)')

    def __init__(self, kind, where, text, other=""):
        self.kind, self.where, self.text, self.other = kind, where, text, other
        self.line = line_number(where)
        self.other_line = line_number(other)


class Trace:
    def __init__(self):
        self.launches = []
        self.bufs = {}      # id -> (size, elem, name)
        self.findings = []
        self.wrong = False  # the run's result was wrong (metrics.c said so on stderr)
        self.path = 0       # exercise 16: the path the function said it ran (1 to 4; 0: none, or not said)

    def buf_name(self, buf):
        return self.bufs.get(buf, (0, 0, "?"))[2]


@functools.lru_cache(maxsize=4096)
def line_number(where):
    """The line of "file:line" or "file:line (in header:line)": an int, 0 when there is none (a run names a few
    hundred places, each asked for at every instruction drawn)."""
    m = re.match(r"^(.*?):(\d+)", where or "")
    return int(m.group(2)) if m else 0


def read(path, findings_path=None):
    """The trace at path (and the findings at findings_path) as a Trace."""
    t = Trace()
    locs = {}
    launch = block = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            words = raw.rstrip("\n").split(" ")
            kind = words[0]
            if kind == "i":
                insn = Insn(int(words[1]), int(words[2]), locs.get(words[3], "?"), int(words[4], 16),
                            int(words[5], 16), words[6])
                detail = words[7:]
                if detail and detail[0] in ("s", "g"):
                    insn.access, rest = read_access(detail, insn.lanes)
                    if insn.op == "cp" and rest:
                        insn.dst, _rest = read_access(rest, insn.lanes)
                elif detail and detail[0] == "n":
                    insn.keep = detail[1] if detail[1] == "all" else int(detail[1])
                elif detail and detail[0] == "l":
                    insn.access = Access("l", int(detail[1]), 0, -1, [], insn.lanes)
                elif detail and detail[0] == "x":
                    insn.src = [int(v) for v in detail[1:]]
                if block is None:   # instructions before any block line cannot happen; keep them anyway
                    block = Block((0, 0, 0))
                    launch.blocks.append(block)
                block.insns.append(insn)
            elif kind == "loc":
                locs[words[1]] = " ".join(words[2:])
            elif kind == "block":   # a block that runs again (a cluster's) goes on where it stopped
                ctaid = tuple(int(v) for v in words[1:4])
                block = next((b for b in launch.blocks if b.ctaid == ctaid), None)
                if block is None:
                    block = Block(ctaid)
                    launch.blocks.append(block)
            elif kind == "cluster":
                launch.cluster = int(words[1])
            elif kind == "launch":
                v = [int(x) for x in words[1:9]]
                launch = Launch(v[0], tuple(v[1:4]), tuple(v[4:7]), v[7], " ".join(words[9:]))
                t.launches.append(launch)
                block = None
            elif kind == "var":
                launch.vars.append((int(words[1]), int(words[2]), " ".join(words[3:])))
            elif kind == "buf":
                t.bufs[int(words[1])] = (int(words[2]), int(words[3]), " ".join(words[4:]))
            elif kind == "end":
                launch.error, launch.left_blocks, launch.left_insns = (int(x) for x in words[2:5])
    for launch in t.launches:
        for b in launch.blocks:
            number_steps(b)
    if findings_path:
        t.findings = read_findings(findings_path)
        try:
            said = open(findings_path, encoding="utf-8", errors="replace").read()
        except OSError:
            said = ""
        t.wrong = "gave a wrong result" in said
        path = re.search(r"^path: (\d+)$", said, re.M)
        t.path = int(path.group(1)) if path else 0
    return t


def read_access(detail, lanes):
    """An access's fields at the start of detail ("s BYTES CONFLICTS OFF..." or "g BYTES SECTORS BUF OFF...",
    one offset per lane), and what follows them."""
    space, size, cost = detail[0], int(detail[1]), int(detail[2])
    buf = int(detail[3]) if space == "g" else -1
    first = 4 if space == "g" else 3
    fields = detail[first:first + len(lanes)]
    if not any(":" in v for v in fields):   # no lane went through a cluster address: the usual case, quickly
        offs, ranks = [int(v) for v in fields], None
    else:
        offs, ranks = [], []
        for v in fields:
            rank, _sep, off = v.rpartition(":")
            offs.append(int(off))
            ranks.append(int(rank) if rank else None)
    return Access(space, size, cost, buf, offs, lanes, ranks), detail[first + len(lanes):]


def number_steps(block):
    """Each instruction's step and part: a barrier ends its warp's step, a __syncwarp() a part of it."""
    step, part, phase = {}, {}, {}
    for i in block.insns:
        i.step, i.part, i.phase = step.get(i.warp, 0), part.get(i.warp, 0), phase.get(i.warp, 0)
        if i.m and i.op in ("bar", "cwait"):
            step[i.warp] = i.step + 1
            part[i.warp] = 0
            if i.op == "cwait":
                phase[i.warp] = i.phase + 1
        elif i.m and i.op == "wsync":
            part[i.warp] = i.part + 1


def record_fields(text):
    """The key=value fields of a record's line, the quoted values unescaped."""
    fields = {}
    for key, value in Finding.FIELD.findall(text):
        if value.startswith('"'):
            value = re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), value[1:-1])
        fields[key] = value
    return fields


def read_findings(path):
    """The findings in a run's stderr: its "finding: ..." records (checker/metrics/metrics.c prints them), each
    once."""
    found, seen = [], set()
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    except OSError:
        return found
    for line in lines:
        if not line.startswith("finding: kind=") or line in seen:
            continue
        seen.add(line)
        r = record_fields(line[len("finding: "):])
        kind = r.get("kind", "")
        text = r.get("text") or (r.get("array") and "%s (%s)" % (kind, r["array"]) or kind)
        found.append(Finding(kind, r.get("at", ""), text, r.get("other", "")))
    return found
