"""term.py - a Picture (picture.py) in a terminal: at most 100 columns, a symbol per kind of cell that reads
without colour (NO_COLOR=1, or not a terminal), colours where the terminal has them. Groups that do not fit
are left out, and the drawing says so."""
from lang import _, cut, pad, width, wrap
from picture import Cell

WIDTH = 100
# kind: (symbol, colour): the symbol is what NO_COLOR=1 shows; the colour is added at a terminal.
STYLE = {
    "work": ("█", "32"), "idle": ("·", "33"), "none": (" ", ""),
    "bank1": ("1", "32"), "bankN": ("2", "1;31"),
    "sector": ("█", "32"), "waste": ("▓", "1;31"), "more": ("…", "2"),
    "recv": ("◄", "36"), "own": ("·", "2"),
    "owner0": ("0", "36"), "owner1": ("1", "35"), "owner2": ("2", "33"), "owner3": ("3", "32"),
    "owner4": ("4", "34"), "owner5": ("5", "31"),
    "stage_copy": ("c", "36"), "stage_read": ("r", "32"), "stage_write": ("w", "32"), "stage_early": ("!", "1;31"),
}


class Painter:
    """Colours, or none."""

    def __init__(self, colour):
        self.colour = colour

    def paint(self, text, code):
        return "\033[%sm%s\033[0m" % (code, text) if self.colour and code else text

    def cell(self, c):
        symbol, code = STYLE.get(c.kind, ("?", ""))
        return self.paint(c.char or symbol, code)


def ruler(start, count):
    """Cell numbers every 8 cells, from start: "0       8       16      24      "."""
    out = ""
    for k in range(count):
        if k % 8 == 0 and len(out) <= k:
            out = out.ljust(k) + str(start + k)
    return out[:count].ljust(count)


# 0 to 4 of 4 lanes that worked, in one character (a picture of many warps, 4 lanes a character).
FOLDED = ("·", "▎", "▌", "▊", "█")


def fold(cells, k):
    """Cells k to a character: how many of each k worked (FOLDED), '·' when none did but some waited."""
    out = []
    for i in range(0, len(cells), k):
        part = cells[i:i + k]
        work = sum(1 for c in part if c.kind == "work")
        if work:
            out.append(Cell("work", FOLDED[round(4.0 * work / len(part))], ""))
        elif any(c.kind == "idle" for c in part):
            out.append(Cell("idle", "·", ""))
        else:
            out.append(Cell("none", " ", ""))
    return out


def draw(pic, painter, max_rows=24):
    """The picture's lines (each within WIDTH columns). A picture whose groups do not fit at a character a
    cell and that may be folded (pic.fold) shows pic.fold cells a character."""
    if pic.empty:
        return wrap(pic.empty, WIDTH)
    if pic.fold and pic.rows:
        label_w0 = sum(max([width(h)] + [width(r.labels[k]) for r in pic.rows]) + 2 for k, h in enumerate(pic.label_heads))
        cost_w0 = sum(max([width(h)] + [width(r.costs[k]) for r in pic.rows]) + 1 for k, h in enumerate(pic.cost_heads))
        ngroups = max(len(r.groups) for r in pic.rows)
        gw0 = max(len(g) for r in pic.rows for g in r.groups)
        if 2 + label_w0 + cost_w0 + ngroups * (gw0 + 1) > WIDTH:
            for r in pic.rows:
                r.groups = [fold(g, pic.fold) for g in r.groups]
            pic.ruler_start = None
            pic.legend = [(k, FOLDED[4] if k == "work" else c, t) for k, c, t in pic.legend]
            pic.notes.insert(0, _("A character stands for 4 lanes: █ all 4 worked, ▊ 3, ▌ 2, ▎ 1."))
    label_w = [max([width(h) for h in [head]] + [width(r.labels[k]) for r in pic.rows])
               for k, head in enumerate(pic.label_heads)]
    cost_w = [max([width(head)] + [width(r.costs[k]) for r in pic.rows]) for k, head in enumerate(pic.cost_heads)]
    ngroups = max((len(r.groups) for r in pic.rows), default=0)
    # each group as wide as its widest row (the lanes of a warp: 32; a variable of the stages picture: its cells)
    gws = [max((len(r.groups[g]) for r in pic.rows if g < len(r.groups)), default=0) for g in range(ngroups)]
    fixed = 2 + sum(w + 2 for w in label_w) + sum(w + 1 for w in cost_w)
    shown = ngroups
    while shown > 1 and fixed + sum(w + 1 for w in gws[:shown]) > WIDTH:
        shown -= 1
    # A cost column that still does not fit is cut to what is left.
    room = WIDTH - (2 + sum(w + 2 for w in label_w) + sum(w + 1 for w in gws[:shown]))
    lines = []
    head = "  " + "".join(pad(h, w) + "  " for h, w in zip(pic.label_heads, label_w))
    heads2 = " " * width(head)
    for g in range(shown):
        title = pic.group_heads[g] if g < len(pic.group_heads) else ""
        head += pad(title if width(title) <= gws[g] else cut(title, gws[g]), gws[g]) + " "
        heads2 += (ruler(32 * g, gws[g]) if pic.ruler_start == 0 else " " * gws[g]) + " "
    costs_head = ""
    for h, w in zip(pic.cost_heads, cost_w):
        costs_head += " " + pad(h, w, right=True)
    lines.append((head + (cut(costs_head, room) if width(costs_head) > room else costs_head)).rstrip())
    if shown and pic.ruler_start == 0:
        lines.append(heads2.rstrip())
    rows = pic.rows if len(pic.rows) <= max_rows else pic.rows[:max_rows - 1]
    for r in rows:
        mark = painter.paint("!", "1;31") if r.marked else " "
        text = mark + " " + "".join(pad(l, w) + "  " for l, w in zip(r.labels, label_w))
        for g in range(shown):
            cells = r.groups[g] if g < len(r.groups) else []
            text += "".join(painter.cell(c) for c in cells) + " " * (gws[g] - len(cells)) + " "
        costs = ""
        for c, w in zip(r.costs, cost_w):
            costs += " " + pad(c, w, right=True)
        if width(costs) > room:
            costs = cut(costs, room)
        lines.append((text + costs).rstrip())
    if len(rows) < len(pic.rows):
        lines.append("  " + _("… {n} more rows: the page has them all").format(n=len(pic.rows) - len(rows)))
    if shown < ngroups:
        pic.left_out.insert(0, _("{groups} of {n} groups drawn (the page has all {n})").format(groups=shown, n=ngroups))
    return lines


def legend(pic, painter):
    """The legend as one or two lines of "symbol meaning" pairs."""
    parts = []
    for kind, char, text in pic.legend:
        symbol, code = STYLE.get(kind, ("?", ""))
        shown = painter.paint(char or symbol, code) if (char or symbol).strip() else "' '"
        parts.append(shown + " " + text)
    return parts
