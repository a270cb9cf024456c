"""stages.py - the stages picture of `make show` (views.py lists it): Part III's block and cluster paths, the
shared memory that cp.async fills and other blocks of a cluster read, step by step, for the first block.

A row is what the block's warps did at one line of one step: a cp.async issued into a stage, a commit or a
wait of the copies' groups, a read or a write of the stage, a barrier, a read of another block's slot. A
cell is a stretch of a shared variable. A read is drawn red where it comes too early, as the emulator judges
it (checker/emu/emu_exec_async.c, emu_exec_dsmem.c), replayed here from the trace:
  - a word that a cp.async copies into, read before the copying thread waited for that copy's group (or, by
    another thread, with no barrier between that wait and the read);
  - a slot of another block of the cluster read in the same phase of the cluster barrier as its owner
    writes it (before the barrier that publishes it, or while the owner already writes the next row's), or
    in the phase in which its owner exits (no barrier keeps the owner's shared memory alive for the read).
"""
from lang import _, _n, width
from picture import Cell, Picture, Row
from trace import line_number
import views

WIDTH = 100         # the terminal's columns: the variables' cells take what the labels and costs leave
SMALL = 8           # a variable of at most this many words gets a cell a word


class Stages:
    """The replay of one block's cp.async groups, thread by thread, as emu_exec_async.c keeps them: which group
    copies into each word, which groups each thread has committed and waited for, and in which step."""

    def __init__(self):
        self.committed, self.done, self.done_before, self.wait_step = {}, {}, {}, {}
        self.copied = {}    # word -> (thread, group) of the cp.async that copies into it

    def copy(self, t, word):
        self.copied[word] = (t, self.committed.get(t, 0))

    def commit(self, t):
        self.committed[t] = self.committed.get(t, 0) + 1

    def wait(self, t, keep, step):
        if keep == "all":
            self.commit(t)
            keep = 0
        self.done_before[t] = self.done.get(t, 0)
        self.done[t] = max(self.done.get(t, 0), self.committed.get(t, 0) - keep)
        self.wait_step[t] = step

    def early(self, t, word, step):
        """Whether thread t's read of word comes before the copy into it is waited for and seen."""
        if word not in self.copied:
            return False
        issuer, group = self.copied[word]
        if group >= self.done.get(issuer, 0):
            return True
        return issuer != t and self.wait_step.get(issuer) == step and group >= self.done_before.get(issuer, 0)


def words_of(off, size):
    return range(off // 4, (off + size - 1) // 4 + 1)


def drawn_vars(launch):
    """The shared variables the picture draws: those a cp.async copies into or another block reaches through
    the cluster, in the order of their bytes."""
    chosen = {}
    for b in launch.blocks:
        for i in b.insns:
            for a in (i.dst, i.access):
                if not a or a.space != "s":
                    continue
                if a is i.dst or any(r is not None for r in a.ranks):
                    for off in a.offs:
                        var = launch.var_at(off) if off >= 0 else None
                        if var:
                            chosen[var[0]] = var
    return [chosen[k] for k in sorted(chosen)]


def cell_sizes(variables, cells):
    """Bytes a cell for each variable: a word each for small ones, the rest of `cells` shared by the others."""
    small = [v for v in variables if v[1] <= 4 * SMALL]
    room = max(8, cells - sum(v[1] // 4 for v in small))
    large = [v for v in variables if v[1] > 4 * SMALL]
    out = {}
    for v in variables:
        if v in small:
            out[v[0]] = 4
        else:
            cells = max(4, room // len(large))
            out[v[0]] = (-(-v[1] // cells) + 3) // 4 * 4
    return out


def cluster_blocks(launch, block):
    """rank -> traced block of block's cluster (clusters along x, as the course's launches make them)."""
    k = launch.cluster
    base = block.ctaid[0] // k * k
    return {b.ctaid[0] - base: b for b in launch.blocks
            if base <= b.ctaid[0] < base + k and b.ctaid[1:] == block.ctaid[1:]}


def owner_writes(block):
    """word -> the cluster phases in which block wrote it (its own stores, and copies into it)."""
    out = {}
    for i in block.insns:
        a = i.dst if i.op == "cp" else i.access if i.op in ("st", "atom") else None
        if not a or a.space != "s":
            continue
        for off, rank in zip(a.offs, a.ranks):
            if off >= 0 and rank is None:
                for w in words_of(off, a.size):
                    out.setdefault(w, set()).add(i.phase)
    return out


def remote_reads(blocks, rank):
    """word -> the phases in which the other blocks read the slot of block `rank` through the cluster."""
    out = {}
    for r, b in blocks.items():
        if r == rank:
            continue
        for i in b.insns:
            a = i.access
            if i.op == "ld" and a and a.space == "s":
                for off, at in zip(a.offs, a.ranks):
                    if at == rank and off >= 0:
                        for w in words_of(off, a.size):
                            out.setdefault(w, set()).add(i.phase)
    return out


def stages(trace, run):
    launch, block = views.first_block(trace)
    if not block:
        return views.empty("stages", trace)
    variables = drawn_vars(launch)
    title = views.block_title(launch, block)
    blocks = cluster_blocks(launch, block) if launch.cluster > 1 else {0: block}
    my_rank = block.ctaid[0] % launch.cluster
    if launch.cluster > 1:
        title += _(", rank {rank} of a cluster of {k}").format(rank=my_rank, k=launch.cluster)
    pic = Picture("stages", title)
    if not variables:
        pic.empty = _("The kernel copies nothing with cp.async and reads no other block's shared memory, so there "
                      "are no stages to draw: the block and cluster paths do (a longer row: COLS=).")
        return pic
    pic.label_heads = [_("step"), _("line"), _("what the warps did")]
    pic.group_heads = [v[2] for v in variables]
    pic.cost_heads = [_("threads"), _("too early")]
    pic.ruler_start = None

    replay = Stages()
    read_by_others = remote_reads(blocks, my_rank)
    theirs = {r: owner_writes(b) for r, b in blocks.items() if r != my_rank}
    exits = {r: max((i.phase for i in b.insns if i.op == "exit" and i.m), default=None) for r, b in blocks.items()}
    order, rows = [], {}

    last, visits = {}, {}

    def row_of(key, text):
        """The row of key for the running instruction's warp; text: what it did, to which bytes ({bytes}: filled
        in once the row is complete). A warp that comes back to a key after others (a loop's next turn in the
        same step) starts a row of its own: each warp's n-th visit of a key shares a row."""
        if last.get(i.warp) != key:
            visits[i.warp, key] = visits.get((i.warp, key), 0) + 1
            last[i.warp] = key
        key = key + (visits[i.warp, key],)
        if key not in rows:
            rows[key] = {"text": text, "spans": [], "threads": set(), "early": set(), "line": key[1], "bytes": {}}
            order.append(key)
        return rows[key]

    drawn = {v[0] for v in variables}

    def paint(row, off, size, kind):
        var = launch.var_at(off)
        if not var or var[0] not in drawn:
            return
        lo, hi = row["bytes"].get(var, (off, off + size))
        row["bytes"][var] = (min(lo, off), max(hi, off + size))
        row["spans"].append((var, off, size, kind))

    for i in block.insns:
        if not i.m:
            continue
        line = line_number(i.line)
        threads = i.thread_ids
        if i.op == "cp" and i.dst:
            row = row_of((i.step, line, "cp"), "cp.async → {bytes}")
            for t, off in zip(threads, i.dst.offs):
                if off >= 0:
                    for w in words_of(off, i.dst.size):
                        replay.copy(t, w)
                    paint(row, off, i.dst.size, "stage_copy")
            row["threads"].update(threads)
        elif i.op == "commit":
            row_of((i.step, line, "commit"), "__pipeline_commit()")["threads"].update(threads)
            for t in threads:
                replay.commit(t)
        elif i.op == "wait":
            keep = i.keep if i.keep is not None else 0
            text = "cp.async.wait_all" if keep == "all" else "__pipeline_wait_prior(%d)" % keep
            row_of((i.step, line, "wait"), text)["threads"].update(threads)
            for t in threads:
                replay.wait(t, keep, i.step)
        elif i.op == "bar":
            row_of((i.step, line, "bar"), "__syncthreads()")["threads"].update(threads)
        elif i.op == "cwait":
            row_of((i.step, line, "cwait"), _("cluster barrier"))["threads"].update(threads)
        elif i.access and i.access.space == "s" and i.op in ("ld", "st", "atom"):
            a = i.access
            remote = [r for r in a.ranks if r is not None]
            if not remote and not any(launch.var_at(o) and launch.var_at(o)[0] in drawn for o in a.offs if o >= 0):
                continue
            label = i.op + " {bytes}"
            if remote:
                ranks = sorted(set(remote))
                label += ", " + _n("rank {ranks}", "ranks {ranks}", len(ranks)).format(ranks=views.line_list(ranks))
            row = row_of((i.step, line, i.op, bool(remote)), label)
            row["threads"].update(threads)
            for t, off, rank in zip(threads, a.offs, a.ranks):
                if off < 0:
                    continue
                words = list(words_of(off, a.size))
                if rank is None or rank == my_rank:
                    if i.op == "ld":
                        bad = any(replay.early(t, w, i.step) for w in words)
                    else:   # a write of a slot that another block reads in this phase
                        bad = any(i.phase in read_by_others.get(w, ()) for w in words)
                else:       # another block's slot: its owner must have written it in an earlier phase, not now
                    writes = theirs.get(rank, {})
                    gone = exits.get(rank) is not None and exits[rank] <= i.phase
                    bad = rank in theirs and (gone or any(i.phase in writes.get(w, ()) or
                                                          not any(p < i.phase for p in writes.get(w, ()))
                                                          for w in words))
                if bad:
                    row["early"].add(t)
                paint(row, off, a.size, "stage_early" if bad else "stage_write" if i.op != "ld" else "stage_read")

    texts = {}
    for key in order:
        r = rows[key]
        spans = ", ".join(_("{name} bytes {lo}-{hi}").format(name=v[2], lo=lo - v[0], hi=hi - v[0] - 1)
                          for v, (lo, hi) in sorted(r["bytes"].items()))
        texts[key] = r["text"].replace("{bytes}", spans or "?")
    # The cells take the columns the labels and costs leave (term.py: 2 + each label + 2, a space a group and
    # a cost).
    label_w = [max([width(h)] + [width(str(k[0] + 1)) if n == 0 else width(str(k[1])) if n == 1 else width(texts[k])
                                 for k in order]) for n, h in enumerate(pic.label_heads)]
    cost_w = [max(width(h), 4) for h in pic.cost_heads]
    per = cell_sizes(variables, WIDTH - 2 - sum(w + 2 for w in label_w) - sum(w + 1 for w in cost_w) - len(variables))
    for key in order:
        r = rows[key]
        painted = {}
        for var, off, size, kind in r["spans"]:
            for c in range((off - var[0]) // per[var[0]], (off + size - 1 - var[0]) // per[var[0]] + 1):
                if painted.get((var[0], c)) != "stage_early" and (kind == "stage_early" or (var[0], c) not in painted):
                    painted[(var[0], c)] = kind
        groups = []
        for v in variables:
            cells = []
            for c in range(len(range(0, v[1], per[v[0]]))):
                lo = c * per[v[0]]
                tip = _("{name} bytes {lo}-{hi}").format(name=v[2], lo=lo, hi=min(v[1], lo + per[v[0]]) - 1)
                cells.append(Cell(painted.get((v[0], c), "none"), tip=tip))
            groups.append(cells)
        early = len(r["early"])
        text = texts[key]
        pic.rows.append(Row([str(key[0] + 1), str(r["line"]), text], groups,
                            [str(len(r["threads"])), str(early) if early else "-"], {r["line"]},
                            _("step {step}, line {line}: {text}").format(step=key[0] + 1, line=r["line"],
                                                                         text=text)))
        pic.rows[-1].marked = early > 0   # the eye goes to what came too early, whichever line a finding names
    pic.legend = [("stage_copy", None, _("a cp.async copies into it (on its way until a wait)")),
                  ("stage_read", None, _("read after its copy landed, or its owner's barrier")),
                  ("stage_write", None, _("written")),
                  ("stage_early", None, _("read before its wait or barrier; written while another block reads "
                                          "it; read as its block exits"))]
    pic.notes.append(_("A row is what the block's warps did at one line of one step (a step ends at a barrier); a "
                       "cell is {n} bytes of a large variable, a word of a small one.").format(n=max(per.values())))
    views.left(pic, launch, len(blocks) if launch.cluster > 1 else 1)
    return pic

