"""views.py - the pictures of `make show`, each made from a trace (trace.py) as a Picture (picture.py):

  lanes     one row per step (the work between two barriers; a __syncwarp() splits a step), one cell per
            thread of the first block: which lanes of each warp worked, and what the step cost
  banks     per step, each shared-memory access: the 32 banks, how many words of each the worst warp
            touched (2 or more: a conflict), and its passes
  sectors   each global access of a warp: the 32-byte sectors it touched, beside how many its bytes need
  shuffles  each shuffle of the first warps: which lane reads which (arrows)
  launches  the kernels the run launched, in order: their grids, what they read and wrote
  rows      Part III: the input as rows, and the warps that read each row's elements
  stages    Part III's block and cluster paths: the shared memory cp.async fills and the cluster's blocks read,
            step by step, with each read that comes too early in red (stages.py)

numbers() gives the few counts printed beside the picture, for the learner's run and the reference's."""
import re

from lang import _, _c, _n, N_, cut
from picture import Cell, Picture, Row
from trace import line_number

VIEWS = ("lanes", "banks", "sectors", "shuffles", "launches", "rows", "stages")
# TRANSLATORS: the headings of make show's page, one per picture.
ABOUT = {"lanes": N_("The lanes that worked in each step"), "banks": N_("Shared-memory banks and conflicts"),
         "sectors": N_("The sectors of global accesses"), "shuffles": N_("Shuffles between lanes"),
         "launches": N_("The kernels in the order they ran"), "rows": N_("Rows and the warps that read them"),
         "stages": N_("Shared-memory stages, their copies, waits and barriers")}


def popcount(x):
    return bin(x).count("1")


def line_list(lines):
    """Source lines as text: "22", "22-24", "17, 22-24"."""
    out, run = [], []
    for n in sorted(lines):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
        run = [n]
    if run:
        out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
    return ", ".join(out)


def index_text(name, indices, per=1):
    """The elements an access touched, each lane per of them from its index: "sdata[5]", "sdata[0..31]",
    "sdata[0..62:2]" (every second), "d_in[0..900, 12]" (12 elements between 0 and 900)."""
    idx = sorted(set(indices))
    if not idx:
        return name
    if per > 1:
        covered = sorted({i + k for i in idx for k in range(per)})
        if covered[-1] - covered[0] + 1 == len(covered):
            return "%s[%d..%d]" % (name, covered[0], covered[-1])
    if len(idx) == 1:
        return "%s[%d]" % (name, idx[0])
    step = idx[1] - idx[0]
    if all(b - a == step for a, b in zip(idx, idx[1:])):
        return "%s[%d..%d]" % (name, idx[0], idx[-1]) if step == 1 else "%s[%d..%d:%d]" % (name, idx[0], idx[-1], step)
    return "%s[%d..%d, %d]" % (name, idx[0], idx[-1], len(idx))


INDEX_FORM = re.compile(r"\b(\w+)\[(\d+)\.\.(\d+)(?::(\d+)|, (\d+))?\]")


def notation_notes(labels):
    """A sentence that explains each form of index_text the labels use, on the first label of that form (the
    forms are "[a..b]", "[a..b:s]" and "[a..b, k]"); none when they use only single elements."""
    seen = {}
    for label in labels:
        for m in INDEX_FORM.finditer(label):
            form = "step" if m.group(4) else "count" if m.group(5) else "range"
            seen.setdefault(form, m)
    parts = []
    for form in ("range", "step", "count"):
        m = seen.get(form)
        if not m:
            continue
        a, b = m.group(2), m.group(3)
        if form == "range":
            parts.append(_("{ex}: elements {a} to {b}").format(ex=m.group(0), a=a, b=b))
        elif form == "step":
            parts.append(_("{ex}: elements {a} to {b}, {s} apart").format(ex=m.group(0), a=a, b=b, s=m.group(4)))
        else:
            parts.append(_("{ex}: {k} elements between {a} and {b}, not evenly spaced").format(
                ex=m.group(0), a=a, b=b, k=m.group(5)))
    # TRANSLATORS: what separates the items of a list of explanations ("a: ...; b: ...").
    return [_("How to read the accesses: {forms}.").format(forms=_("; ").join(parts))] if parts else []


def first_block(trace):
    """The first launch that ran a block, and that block: (None, None) when no kernel ran."""
    for launch in trace.launches:
        if launch.blocks:
            return launch, launch.blocks[0]
    return None, None


def kernel_name(pretty):
    """A kernel's name for a heading: no return type, parameters or scopes past its last two, its template
    arguments when short ("reduce_v5_kernel<256u>"), else <…> and nothing after them."""
    name = pretty[5:] if pretty.startswith("void ") else pretty
    out, depth, args = "", 0, ""
    for ch in name:
        if depth == 0 and ch == "(":
            break
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                out += "<%s>" % (args if len(args) <= 12 and "..." not in args else "…")
                break
        elif depth:
            args += ch
        else:
            out += ch
    return "::".join(out.split("::")[-2:])


def block_title(launch, block):
    warps = (launch.threads + 31) // 32
    return _n("{kernel}, block {block} of {blocks}: {threads} threads, {warps} warp",
              "{kernel}, block {block} of {blocks}: {threads} threads, {warps} warps", warps).format(
        kernel=kernel_name(launch.name), block=block.ctaid[0], blocks=launch.nblocks, threads=launch.threads,
        warps=warps)


def empty(view, trace):
    """A picture that says why there is nothing to draw."""
    pic = Picture(view, "")
    if not trace.launches:
        pic.empty = _("Your function launched no kernel, so there is nothing to draw: does it call one with <<<...>>>?")
    else:
        pic.empty = _("The kernel ran no instruction that this picture draws.")
    return pic


def block_picture(view, trace):
    """(launch, block, picture) for a view of the first block; block None, and a picture that says why,
    when no kernel ran."""
    launch, block = first_block(trace)
    if not block:
        return None, None, empty(view, trace)
    return launch, block, Picture(view, block_title(launch, block))


def warp_heads(launch, warps):
    return [_("warp {w}").format(w=w) for w in warps]


# ---- lanes -------------------------------------------------------------------------------------------------

def lanes(trace, run):
    launch, block, pic = block_picture("lanes", trace)
    if not block:
        return pic
    warps = list(range((launch.threads + 31) // 32))
    pic.label_heads = [_("step"), _("lines")]
    pic.group_heads = warp_heads(launch, warps)
    pic.cost_heads = [_("instr."), _("idle")]
    pic.fold = 4
    keys = sorted({(i.step, i.part) for i in block.insns})
    parts = {}
    for s, p in keys:
        parts[s] = max(parts.get(s, 0), p)
    for key in keys:
        insns = [i for i in block.insns if (i.step, i.part) == key]
        groups = []
        for w in warps:
            mine = [i for i in insns if i.warp == w]
            work = 0
            for i in mine:
                if i.works():
                    work |= i.m
            running = 0
            for i in mine:
                running |= i.mask
            cells = []
            exists = min(32, launch.threads - 32 * w)
            for l in range(32):
                t = 32 * w + l
                if l >= exists:
                    cells.append(Cell("none", tip=""))
                elif work >> l & 1:
                    cells.append(Cell("work", tip=_("thread {t}: worked").format(t=t)))
                elif work and running >> l & 1:
                    cells.append(Cell("idle", tip=_("thread {t}: waited while its warp worked").format(t=t)))
                else:
                    cells.append(Cell("none", tip=_("thread {t}: nothing to do").format(t=t)))
            groups.append(cells)
        count = len(insns)
        active = sum(popcount(i.mask) for i in insns)
        idle = 1 - active / (32.0 * count) if count else 0
        work_lines = {line_number(i.line) for i in insns if i.works()} - {0}
        step = "%d" % (key[0] + 1) if not parts[key[0]] else "%d.%d" % (key[0] + 1, key[1] + 1)
        span = "%d-%d" % (min(work_lines), max(work_lines)) if len(work_lines) > 1 else line_list(work_lines)
        row = Row([step, span or "-"], groups, [str(count), "%d%%" % round(100 * idle)],
                  {line_number(i.line) for i in insns if i.m} - {0},
                  _("step {step}: {count} warp instructions, {idle} of their lanes idle").format(
                      step=step, count=count, idle="%d%%" % round(100 * idle)))
        pic.rows.append(row)
    pic.legend = [("work", None, _("worked (memory or shuffle)")),
                  ("idle", None, _("waited for its warp (divergence)")),
                  ("none", None, _("nothing to do, or returned"))]
    pic.notes.append(_("A step is the work between two barriers (__syncthreads(); a __syncwarp() splits one); "
                       "lines: the lines of its work; instr.: its warp instructions in PTX, as the emulator runs "
                       "them (a GPU predicates short ifs: the lesson's SASS); idle: the lanes those left idle."))
    left(pic, launch, 1)
    return pic


def left(pic, launch, shown_blocks):
    """Notes what the drawing leaves out of the launch: its other blocks, its instructions past the trace."""
    others = launch.nblocks - shown_blocks
    if others > 0:
        pic.left_out.append(_n("{n} more block", "{n} more blocks", others).format(n=others))
    if launch.left_insns and not launch.left_blocks:
        pic.left_out.append(_("{n} warp instructions past the trace's limit").format(n=launch.left_insns))


# ---- banks -------------------------------------------------------------------------------------------------

def lanes_per_pass(access):
    """The lanes shared memory serves at once: all 32 for 4 bytes a lane, a half-warp for 8, a quarter for 16
    (a wider access takes 2 or 4 passes with no conflict: the metric does not count those)."""
    return 32 if access.size <= 4 else 16 if access.size == 8 else 8


def bank_words(access):
    """(words, part, parts): per bank, the distinct 4-byte words the access touched in it, in the part of the
    warp served at once (lanes_per_pass) whose bank holds the most: the conflict the metric counts there."""
    per = lanes_per_pass(access)
    best, best_part = None, 0
    for part in range(32 // per):
        words = [set() for _ in range(32)]
        for lane, off in zip(access.lanes, access.offs):
            if off < 0 or lane // per != part:
                continue
            for w in range(off // 4, (off + access.size - 1) // 4 + 1):
                words[w % 32].add(w)
        if best is None or max(len(w) for w in words) > max(len(w) for w in best):
            best, best_part = words, part
    return best, best_part, 32 // per


def access_text(launch, trace, insn):
    """"ld sdata[0..62:2]": what the access did, and to which elements."""
    return "%s %s" % (insn.op, elements_text(launch, trace, insn.access))


def elements_text(launch, trace, a):
    """"sdata[0..62:2]": the elements access a touched."""
    if a.space == "s":
        good = [o for o in a.offs if o >= 0]
        var = launch.var_at(good[0]) if good else None
        name = var[2] if var else "?"
        base = var[0] if var else 0
        return index_text(name, [(o - base) // a.size for o in good])
    size, elem, name = trace.bufs.get(a.buf, (0, 0, "?"))
    if a.buf < 0:
        return "?"
    elem = elem or a.size
    return index_text(name, [o // elem for o in a.offs], max(1, a.size // elem))


def banks(trace, run):
    launch, block, pic = block_picture("banks", trace)
    if not block:
        return pic
    pic.label_heads = [_("step"), _("line"), _("worst access"), _("warp")]
    pic.group_heads = [_("banks 0-31")]
    pic.cost_heads = [_("passes"), _("conflicts")]
    # One row per line of each step: its worst access (most passes) in its worst warp.
    order, by = [], {}
    for i in block.insns:
        if i.access and i.access.space == "s":
            key = (i.step, i.part, line_number(i.line))
            if key not in by:
                by[key] = []
                order.append(key)
            by[key].append(i)
    parts = {}
    for s, p, _l in order:
        parts[s] = max(parts.get(s, 0), p)
    for key in order:
        insns = by[key]
        worst = max(insns, key=lambda i: (max(len(w) for w in bank_words(i.access)[0]), i.access.cost, -i.warp))
        words, part, nparts = bank_words(worst.access)
        cells = []
        for b in range(32):
            k = len(words[b])
            tip = _("bank {b}: {k} words").format(b=b, k=k)
            if k == 0:
                cells.append(Cell("none", tip=tip))
            else:
                cells.append(Cell("bank1" if k == 1 else "bankN", str(k) if k < 10 else "+", tip))
        ways = max(len(w) for w in words)
        passes = _("1 pass") if ways <= 1 else _("{n}-way").format(n=ways)
        conflicts = sum(i.access.cost for i in insns)
        step = "%d" % (key[0] + 1) if not parts[key[0]] else "%d.%d" % (key[0] + 1, key[1] + 1)
        line = key[2]
        who = str(worst.warp) if nparts == 1 else "%d.%d" % (worst.warp, part)
        pic.rows.append(Row([step, str(line), access_text(launch, trace, worst), who], [cells],
                            [passes, str(conflicts)], {line},
                            _("step {step}, line {line}: {n} shared-memory accesses of warps, {c} extra passes in "
                              "all").format(step=step, line=line, n=len(insns), c=conflicts)))
    pic.legend = [("bank1", "1", _("one word of the bank: one pass")),
                  ("bankN", "2", _("n words of one bank: n passes, a conflict")), ("none", None, _("not touched"))]
    pic.notes.append(_("Word w of shared memory lies in bank w % 32. A row is one line of one step, drawn for its "
                       "worst access; conflicts: the extra passes of all its accesses, in all warps (the metric)."))
    if any("." in r.labels[3] for r in pic.rows):
        pic.notes.append(_("Shared memory serves an access of 8 bytes a lane a half-warp at a time, of 16 bytes a "
                           "quarter: its row draws the part whose banks hold the most words (warp: warp.part), "
                           "and its 2 or 4 passes are no conflict."))
    pic.notes += notation_notes(r.labels[2] for r in pic.rows)
    left(pic, launch, 1)
    if not pic.rows:
        pic.empty = _("The kernel makes no shared-memory access, so there are no banks to draw.")
    return pic


# ---- sectors -----------------------------------------------------------------------------------------------

SECTOR_CELLS = 32


def sectors(trace, run, full=False):
    launch, block = first_block(trace)
    if not block:
        return empty("sectors", trace)
    pic = Picture("sectors", _("{kernel}: each global access of a warp, and the 32-byte sectors of the array it "
                               "touched (a cell each)").format(
        kernel=kernel_name(launch.name)))
    pic.label_heads = [_("line"), _("access"), _("warp")]
    pic.cost_heads = [_("sectors"), _("needed"), _("same address")]
    rows = []
    blocks = launch.blocks if full else launch.blocks[:1]
    for b in blocks:
        for i in b.insns:
            if i.access and i.access.space == "g":
                rows.append((b, i))
    if not rows:
        pic.empty = _("The kernel makes no global-memory access to draw.")
        return pic
    for b, i in rows:
        a = i.access
        size = trace.bufs.get(a.buf, (0, 0, ""))[0]
        secs = sorted({s for o in a.offs for s in range(o // 32, (o + a.size - 1) // 32 + 1)})
        total = (size + 31) // 32 if a.buf >= 0 else 0
        first = 0 if 0 < total <= SECTOR_CELLS else secs[0] // 4 * 4
        cells = []
        for s in range(first, first + min(SECTOR_CELLS, total - first if total else SECTOR_CELLS)):
            tip = _("sector {s}: bytes {lo}-{hi}").format(s=s, lo=32 * s, hi=32 * s + 31)
            cells.append(Cell("sector" if s in secs else "none", tip=tip))
        beyond = [s for s in secs if s >= first + SECTOR_CELLS]
        if beyond and cells:
            cells[-1] = Cell("more", "…", _("{n} more sectors touched further on").format(n=len(beyond)))
        distinct = {o: None for o in a.offs}
        needed = (len(distinct) * a.size + 31) // 32
        same = max(a.offs.count(o) for o in distinct)
        kind_sectors = a.cost
        line = line_number(i.line)
        label = access_text(launch, trace, i)
        rows_cells = [cells]
        who = "%d.%d" % (b.ctaid[0], i.warp) if len(blocks) > 1 else str(i.warp)
        pic.rows.append(Row([str(line), cut(label, 22), who], rows_cells,
                            [str(kind_sectors), str(needed), str(same) if i.op == "atom" else "-"], {line},
                            _("line {line}: {s} sectors of 32 bytes for {n} bytes of {lanes} lanes").format(
                                line=line, s=kind_sectors, n=len(distinct) * a.size, lanes=len(a.lanes))))
        if kind_sectors > needed:
            for c in cells:
                if c.kind == "sector":
                    c.kind = "waste"
    pic.group_heads = [""]
    if not any(i.op == "atom" for _b, i in rows):   # no atomics: no column for them
        pic.cost_heads.pop()
        for r in pic.rows:
            r.costs.pop()
    pic.legend = [("sector", None, _("a sector the request touched, every byte of it needed")),
                  ("waste", None, _("a sector of a request that touches more than its bytes need")),
                  ("none", None, _("not touched"))]
    pic.notes.append(_("A warp's load is served in 32-byte sectors: 32 lanes reading 32 consecutive ints need 4 "
                       "sectors. \"needed\" is what the same bytes take when they are consecutive; \"same "
                       "address\" counts the lanes of an atomic that update one address, one after another."))
    pic.notes += notation_notes(r.labels[1] for r in pic.rows)
    pic.ruler_start = None   # a row's sectors start where its access does
    if len(blocks) > 1:
        pic.notes.append(_("warp: block.warp, for the blocks the trace kept."))
    left(pic, launch, len(blocks))
    return pic


# ---- shuffles ----------------------------------------------------------------------------------------------

def shuffle_pattern(insn):
    """"down 16", "up 1", "xor 4", "from lane 0", or "" when the lanes read no one pattern."""
    pairs = [(l, j) for l, j in zip(insn.lanes, insn.src) if j >= 0]
    if not pairs:
        return ""
    if all(j == pairs[0][1] for _l, j in pairs):
        return _("from lane {j}").format(j=pairs[0][1])
    d = pairs[0][1] - pairs[0][0]
    if all(j - l == d for l, j in pairs):
        return (_("down {d}") if d > 0 else _("up {d}")).format(d=abs(d))
    x = pairs[0][1] ^ pairs[0][0]
    if all(j == l ^ x for l, j in pairs):
        return _("xor {x}").format(x=x)
    return ""


def shuffles(trace, run):
    launch, block, pic = block_picture("shuffles", trace)
    if not block:
        return pic
    pic.label_heads = [_("step"), _("line"), _("shuffle"), _("warp")]
    pic.group_heads = [_("lanes 0-31")]
    pic.cost_heads = [_("moves")]
    for i in block.insns:
        if i.op != "shfl" or not i.src:
            continue
        cells, got = [], []
        src = dict(zip(i.lanes, i.src))
        for l in range(32):
            if l not in src:
                cells.append(Cell("none", tip=_("lane {l}: not in this shuffle").format(l=l)))
            elif src[l] < 0 or src[l] == l:
                cells.append(Cell("own", tip=_("lane {l}: keeps its own value").format(l=l)))
            else:
                got.append(l)
                cells.append(Cell("recv", "◄" if src[l] > l else "►",
                                  _("lane {l} reads lane {j}").format(l=l, j=src[l]), src[l]))
        line = line_number(i.line)
        moved = ""
        if got:
            moved = "%s ← %s" % (range_text(got), range_text([src[l] for l in got]))
        pic.rows.append(Row([str(i.step + 1), str(line), shuffle_pattern(i), str(i.warp)], [cells], [moved or "-"],
                            {line},
                            _("line {line}, warp {warp}").format(line=line, warp=i.warp)))
    if not pic.rows:
        pic.empty = _("The kernel makes no shuffle (__shfl_*_sync) to draw.")
    pic.legend = [("recv", "◄", _("reads a lane to its right (down), ► to its left (up)")),
                  ("own", None, _("keeps its own value: its source lies outside the warp")),
                  ("none", None, _("not in the shuffle"))]
    pic.notes.append(_("Each row is one __shfl_*_sync of one warp, in the order they ran: lane l gets the value "
                       "of the lane its arrow points to; moves: which lanes got another lane's value, from which."))
    left(pic, launch, 1)
    return pic


def range_text(lanes):
    """Lanes as ranges: "0-15", "0-7, 16-23"."""
    return line_list(lanes).replace(", ", ",")


# ---- launches ----------------------------------------------------------------------------------------------

def buffer_label(trace, buf):
    size, elem, name = trace.bufs.get(buf, (0, 0, "?"))
    return name if elem else "%s#%d" % (name, buf + 1)


def touched(trace, launch, stores):
    """What a launch's traced blocks read (stores: wrote) in global memory: "d_in[0..2999]" per buffer."""
    spans = {}
    for b in launch.blocks:
        for i in b.insns:
            a = i.access
            if not a or a.space != "g" or a.buf < 0 or (i.op in ("st", "atom")) != stores:
                continue
            size, elem, _name = trace.bufs.get(a.buf, (0, 0, "?"))
            elem = elem or a.size
            lo, hi = min(a.offs) // elem, (max(a.offs) + a.size - 1) // elem
            old = spans.get(a.buf)
            spans[a.buf] = (min(lo, old[0]), max(hi, old[1])) if old else (lo, hi)
    out = []
    for buf in sorted(spans):
        lo, hi = spans[buf]
        out.append("%s[%d]" % (buffer_label(trace, buf), lo) if lo == hi else
                   "%s[%d..%d]" % (buffer_label(trace, buf), lo, hi))
    return ", ".join(out) or "-"


def launches(trace, run):
    pic = Picture("launches", _("The kernels your function launched, in the order they ran"))
    pic.label_heads = [_("#"), _("kernel"), _("grid x block")]
    # TRANSLATORS: the headings of the columns of what a launch read and wrote in global memory.
    pic.cost_heads = [_("warp instr."), _c("launch", "reads"), _c("launch", "writes")]
    for launch in trace.launches:
        count = sum(len(b.insns) for b in launch.blocks) + launch.left_insns
        partial = "…" if launch.left_blocks else ""
        pic.rows.append(Row([str(launch.number), cut(kernel_name(launch.name), 30),
                             "%d x %d" % (launch.nblocks, launch.threads)], [],
                            [str(count), touched(trace, launch, False) + partial, touched(trace, launch, True) + partial],
                            (), launch.name))
    if not trace.launches:
        pic.empty = _("Your function launched no kernel: it did its work on the host, or returned before launching. "
                      "A library call that needs no kernel for this input (n = 0) launches none either.")
    if any(l.left_blocks for l in trace.launches):
        pic.notes.append(_("…: the trace kept the first blocks of each launch; what the others read and wrote is "
                           "not in these ranges."))
    pic.notes.append(_("The warp instructions are all of each launch's, counted by the emulator (PTX)."))
    return pic


# ---- rows (Part III) ---------------------------------------------------------------------------------------

ROW_CELLS = 64
OWNER_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"


def rows(trace, run):
    launch, block = first_block(trace)
    if not block:
        return empty("rows", trace)
    cols = run.get("cols", 0)
    inbuf = [k for k, v in trace.bufs.items() if v[2] == "d_in"]
    if not cols or not inbuf:
        pic = Picture("rows", "")
        pic.empty = _("This exercise has no rows to draw (it takes no rows and columns).")
        return pic
    buf = inbuf[0]
    elem = trace.bufs[buf][1] or 4
    nrows = trace.bufs[buf][0] // elem // cols
    reads, owner = {}, {}
    for b in launch.blocks:
        for i in b.insns:
            a = i.access
            if not a or a.space != "g" or a.buf != buf or i.op not in ("ld", "cp"):   # cp: cp.async's read
                continue
            for o in a.offs:
                for e in range(o // elem, (o + a.size - 1) // elem + 1):
                    reads[e] = reads.get(e, 0) + 1
                    owner.setdefault(e, (b.ctaid[0], i.warp))
    pic = Picture("rows", _("{kernel}: {rows} rows of {cols}, and the warps that read each row").format(
        kernel=kernel_name(launch.name), rows=nrows, cols=cols))
    per = max(1, -(-cols // ROW_CELLS))
    pic.label_heads = [_("row"), _("read by")]
    pic.group_heads = [_("columns 0-{last}, {per} a cell: the warp that read them").format(last=cols - 1, per=per)]
    # TRANSLATORS: how many times the most-read element of a row was read.
    pic.cost_heads = [_c("row", "reads"), _("warps")]
    pic.ruler_start = None
    traced = {b.ctaid[0] for b in launch.blocks}
    for r in range(nrows):
        cells, owners = [], []
        for c in range(0, cols, per):
            e = r * cols + c
            who = owner.get(e)
            if who is None:
                cells.append(Cell("none", tip=_("row {r}, columns {c}-{d}: not read").format(r=r, c=c, d=c + per - 1)))
                continue
            if who not in owners:
                owners.append(who)
            cells.append(Cell("owner%d" % (owners.index(who) % 6), OWNER_CHARS[who[1] % 36],
                              _("row {r}, columns {c}-{d}: block {b}, warp {w}").format(r=r, c=c, d=c + per - 1,
                                                                                      b=who[0], w=who[1])))
        counts = [reads.get(r * cols + c, 0) for c in range(cols)]
        blocks = sorted({o[0] for o in owners})
        label = (_("block {b}").format(b=blocks[0]) if len(blocks) == 1 else
                 _("blocks {b}").format(b=line_list(blocks))) if blocks else "-"
        most = max(counts) if counts else 0
        pic.rows.append(Row([str(r), label], [cells], ["%d×" % most if most else "-", str(len(owners))], (),
                            _("row {r}: each element read at most {n} times").format(r=r, n=most)))
    pic.legend = [("owner0", "0", _("read by the warp of that number in its block (a colour per warp of the row)")),
                  ("none", None, _("not read (or in a block the trace left out)"))]
    pic.notes.append(_("reads: how many times the most-read element of the row was loaded; a row read once "
                       "costs its bytes once."))
    left(pic, launch, len(traced))
    return pic


from stages import stages  # noqa: E402  (it draws with the functions above)

MAKERS = {"lanes": lanes, "banks": banks, "sectors": sectors, "shuffles": shuffles, "launches": launches, "rows": rows,
          "stages": stages}


def make(view, trace, run, full=False):
    """The picture of view; full: every block the trace kept (the page), not the first block only."""
    return MAKERS[view](trace, run, full) if view == "sectors" else MAKERS[view](trace, run)


# ---- the numbers beside the picture ------------------------------------------------------------------------

def numbers_scope(view, trace):
    """What the table counts: the first block ("block 0:"), or every launch for the launches picture."""
    if view == "launches":
        return ""
    launch, block = first_block(trace)
    return _("block {b}:").format(b=block.ctaid[0]) if block else ""


def barrier_count(launch, block):
    """The __syncthreads() the block's warps passed: "7", or "6-7" where its warps passed different numbers
    (a barrier in divergent code), as make metrics counts barriers per block."""
    counts = {w: 0 for w in range((launch.threads + 31) // 32)}
    for i in block.insns:
        if i.m and i.op == "bar":
            counts[i.warp] = counts.get(i.warp, 0) + 1
    lo, hi = min(counts.values()), max(counts.values())
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)


def numbers(view, trace, run):
    """[(label, value)]: the counts of trace's first block that the view is about, for the table of yours and
    the reference's; each counted as make metrics counts it (checker/metrics/metrics.c), for that block."""
    launch, block = first_block(trace)
    if not block:
        return []
    insns = block.insns
    loads = [i for i in insns if i.op == "ld" and i.access and i.access.space == "g"]
    if view == "lanes":
        active = sum(popcount(i.mask) for i in insns)
        return [(_("warp instr."), str(len(insns))),
                (_("idle lanes"), "%d%%" % round(100 * (1 - active / (32.0 * len(insns)))) if insns else "-"),
                (_("barriers"), barrier_count(launch, block))]
    if view == "banks":
        shared = [i for i in insns if i.access and i.access.space == "s"]
        return [(_("shared accesses"), str(len(shared))), (_("conflicts"), str(sum(i.access.cost for i in shared)))]
    if view == "sectors":
        return [(_("load requests"), str(len(loads))), (_("sectors"), str(sum(i.access.cost for i in loads))),
                (_("atomics"), str(sum(1 for i in insns if i.op == "atom" and i.access and i.access.space == "g")))]
    if view == "shuffles":
        return [(_("shuffles"), str(sum(1 for i in insns if i.op == "shfl" and i.m))),
                (_("shared accesses"), str(sum(1 for i in insns if i.access and i.access.space == "s"))),
                (_("barriers"), barrier_count(launch, block))]
    if view == "launches":
        return [(_("launches"), str(len(trace.launches))),
                (_("warp instr."), str(sum(sum(len(b.insns) for b in l.blocks) + l.left_insns for l in trace.launches)))]
    if view == "stages":
        copies = [i for i in insns if i.op == "cp" and i.access]
        return [(_("cp.async"), str(len(copies))), (_("async sectors"), str(sum(i.access.cost for i in copies))),
                (_("cluster loads"), str(sum(1 for i in insns if i.op == "ld" and i.access and
                                             any(r is not None for r in i.access.ranks)))),
                (_("barriers"), barrier_count(launch, block))]
    copies = [i for i in insns if i.op == "cp" and i.access]
    return [(_("load requests"), str(len(loads))), (_("sectors"), str(sum(i.access.cost for i in loads)))] + \
        ([(_("async sectors"), str(sum(i.access.cost for i in copies)))] if copies else []) + \
        [(_("barriers"), barrier_count(launch, block))]
