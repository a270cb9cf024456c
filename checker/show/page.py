"""page.py - `make show`'s page: every picture of the run (views.py), all its rows and groups, as one
self-contained HTML file: inline SVG and CSS, no script, nothing fetched from anywhere. Each cell's title
is its tip (a browser shows it on hover); a legend and the notes follow each picture."""
import functools
import html
import os

import views
from lang import LANGUAGE, _, width

CELL_W, CELL_H, GAP, CHAR_W, LINE_H = 10, 16, 8, 8, 20
# The colours of the kinds of cell (term.py has the terminal's): one class per kind.
CSS = """
body { font-family: monospace; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.2em; } h2 { font-size: 1.05em; margin-top: 2em; }
svg { display: block; margin: 0.5em 0; overflow: visible; }
svg text { font-family: monospace; font-size: 12px; fill: #222; }
svg text.head { fill: #555; } svg text.mark { fill: #c00; font-weight: bold; }
svg text.cellchar { font-size: 10px; fill: #fff; text-anchor: middle; }
rect.cell { stroke: #fff; stroke-width: 1; }
rect.k-work, rect.k-sector, rect.k-bank1 { fill: #2a9d3c; }
rect.k-idle { fill: #f0c43c; } rect.k-own { fill: #ccc; } rect.k-recv { fill: #1f8fb0; }
rect.k-none { fill: #f4f4f4; } rect.k-bankN, rect.k-waste { fill: #d62828; } rect.k-more { fill: #888; }
rect.k-owner0 { fill: #1f8fb0; } rect.k-owner1 { fill: #9b3fb5; } rect.k-owner2 { fill: #d98a00; }
rect.k-owner3 { fill: #2a9d3c; } rect.k-owner4 { fill: #3050c0; } rect.k-owner5 { fill: #c03030; }
rect.k-stage_copy { fill: #1f8fb0; } rect.k-stage_read, rect.k-stage_write { fill: #2a9d3c; }
rect.k-stage_early { fill: #d62828; }
rect.marked { fill: #fde2e2; }
path.arrow { stroke: #1f8fb0; stroke-width: 1.2; fill: none; marker-end: url(#head); }
table { border-collapse: collapse; } td, th { padding: 0.2em 0.8em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
ul.legend { list-style: none; padding: 0; } ul.legend li { display: inline-block; margin-right: 2em; }
span.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: middle; margin-right: 0.4em; }
p.finding { color: #c00; }
"""
SWATCH = {"work": "#2a9d3c", "sector": "#2a9d3c", "bank1": "#2a9d3c", "idle": "#f0c43c", "own": "#ccc",
          "recv": "#1f8fb0", "none": "#f4f4f4", "bankN": "#d62828", "waste": "#d62828", "more": "#888",
          "owner0": "#1f8fb0", "owner1": "#9b3fb5", "stage_copy": "#1f8fb0", "stage_read": "#2a9d3c",
          "stage_write": "#2a9d3c", "stage_early": "#d62828"}


def esc(text):
    return _escaped(str(text))


@functools.lru_cache(maxsize=65536)
def _escaped(text):
    """html.escape, once for each text: a picture's cells repeat a few labels thousands of times."""
    return html.escape(text, quote=True)


def text_px(text):
    return width(text) * CHAR_W


def svg(pic):
    """One picture as an SVG element: its label columns, its cells, its costs; arrows for shuffles."""
    label_w = [max([text_px(h)] + [text_px(r.labels[k]) for r in pic.rows]) + GAP for k, h in enumerate(pic.label_heads)]
    ngroups = max((len(r.groups) for r in pic.rows), default=0)
    # each group as wide as its widest row and its heading (lanes: 32 cells; a stages picture's variable: its own)
    gws = [max((len(r.groups[g]) for r in pic.rows if g < len(r.groups)), default=0) for g in range(ngroups)]
    group_px = [max(gws[g] * CELL_W, text_px(pic.group_heads[g]) if g < len(pic.group_heads) else 0)
                for g in range(ngroups)]
    cost_w = [max([text_px(h)] + [text_px(r.costs[k]) for r in pic.rows]) + GAP for k, h in enumerate(pic.cost_heads)]
    x0 = 16
    gx = x0 + sum(label_w)
    group_x = [gx + sum(w + GAP for w in group_px[:g]) for g in range(ngroups)]
    cx = gx + sum(w + GAP for w in group_px)
    total_w = cx + sum(cost_w) + 16
    shuffle_room = 3 * LINE_H if pic.view == "shuffles" else 0
    row_h = CELL_H + 4 + shuffle_room
    top = 2 * LINE_H
    total_h = top + len(pic.rows) * row_h + 8
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" class="picture" data-view="%s">'
           % (total_w, total_h, esc(pic.view))]
    if pic.view == "shuffles":
        out.append('<defs><marker id="head" markerWidth="6" markerHeight="6" refX="5" refY="3" orient="auto">'
                   '<path d="M0,0 L6,3 L0,6 z" fill="#1f8fb0"/></marker></defs>')
    x = x0
    for h, w in zip(pic.label_heads, label_w):
        out.append('<text class="head" x="%d" y="%d">%s</text>' % (x, LINE_H - 4, esc(h)))
        x += w
    for g in range(ngroups):
        title = pic.group_heads[g] if g < len(pic.group_heads) else ""
        out.append('<text class="head" x="%d" y="%d">%s</text>' % (group_x[g], LINE_H - 4, esc(title)))
        if pic.ruler_start == 0:
            for k in range(0, gws[g], 8):
                out.append('<text class="head" x="%d" y="%d">%d</text>' % (group_x[g] + k * CELL_W, 2 * LINE_H - 6,
                                                                          32 * g + k))
    x = cx
    for h, w in zip(pic.cost_heads, cost_w):
        out.append('<text class="head" x="%d" y="%d">%s</text>' % (x, LINE_H - 4, esc(h)))
        x += w
    for k, r in enumerate(pic.rows):
        y = top + k * row_h
        cls = "row marked" if r.marked else "row"
        out.append('<g class="%s"><title>%s</title>' % (cls, esc(r.tip)))
        if r.marked:
            out.append('<rect class="marked" x="0" y="%d" width="%d" height="%d"/>' % (y - 2, total_w, CELL_H + 4))
            out.append('<text class="mark" x="2" y="%d">!</text>' % (y + CELL_H - 4))
        x = x0
        for label, w in zip(r.labels, label_w):
            out.append('<text x="%d" y="%d">%s</text>' % (x, y + CELL_H - 4, esc(label)))
            x += w
        for g, cells in enumerate(r.groups):
            for c, cell in enumerate(cells):
                px = group_x[g] + c * CELL_W
                out.append('<rect class="cell k-%s" x="%d" y="%d" width="%d" height="%d"><title>%s</title></rect>'
                           % (esc(cell.kind), px, y, CELL_W, CELL_H, esc(cell.tip)))
                if cell.char and cell.kind not in ("none", "recv"):
                    out.append('<text class="cellchar" x="%d" y="%d">%s</text>' % (px + CELL_W // 2, y + CELL_H - 4,
                                                                                   esc(cell.char)))
                if pic.view == "shuffles" and cell.kind == "recv":
                    out.append(arrow(cell, c, px, y, group_x[g]))
        x = cx
        for cost, w in zip(r.costs, cost_w):
            out.append('<text x="%d" y="%d">%s</text>' % (x, y + CELL_H - 4, esc(cost)))
            x += w
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def arrow(cell, lane, px, y, group_x):
    """A curve under the row from the lane read (cell.ref) to the lane that reads it."""
    src = cell.ref if cell.ref is not None else lane
    sx = group_x + src * CELL_W + CELL_W // 2
    dx = px + CELL_W // 2
    depth = CELL_H + 6 + min(2 * LINE_H, abs(src - lane) * 3)
    return '<path class="arrow" d="M%d,%d C%d,%d %d,%d %d,%d"/>' % (sx, y + CELL_H, sx, y + depth, dx, y + depth,
                                                                   dx, y + CELL_H + 2)


def section(pic, heading):
    out = ['<section class="view" id="%s">' % esc(pic.view), "<h2>%s</h2>" % esc(heading)]
    if pic.title:
        out.append("<p>%s</p>" % esc(pic.title))
    if pic.empty:
        out.append('<p class="empty">%s</p>' % esc(pic.empty))
    else:
        out.append(svg(pic))
        out.append('<ul class="legend">' + "".join(
            '<li><span class="swatch" style="background:%s"></span>%s</li>' % (SWATCH.get(kind, "#888"), esc(text))
            for kind, _char, text in pic.legend) + "</ul>")
    for note in pic.notes + ([_("Not drawn: {what}.").format(what="; ".join(pic.left_out))] if pic.left_out else []):
        out.append('<p class="note">%s</p>' % esc(note))
    out.append("</section>")
    return "\n".join(out)


def write(path, nn, file, call, view, mine, run, theirs, ref_file):
    """Writes the page of the run mine (and of the reference's run theirs, when given) to path."""
    order = [view] + [v for v in views.VIEWS if v != view]
    title = _("make show ex{nn}: {file} on the emulator, {call}").format(nn=nn, file=file, call=call)
    body = ["<h1>%s</h1>" % esc(title)]
    for v in order:
        pic = views.make(v, mine, run, full=True)
        pic.mark(mine.findings)
        if pic.empty and v != view:
            continue
        body.append(section(pic, _(views.ABOUT[v])))
    if mine.findings:
        body.append("<h2>%s</h2>" % esc(_("What the emulator found")))
        body += ['<p class="finding">! %s (%s): %s</p>' % (esc(_(f.kind)), esc(f.where), esc(f.text))
                 for f in mine.findings]
    ref = dict(views.numbers(view, theirs, run)) if theirs else {}
    rows = [(label, value, ref.get(label, "")) for label, value in views.numbers(view, mine, run)]
    if rows:
        body.append("<h2>%s</h2><table><tr><th></th><th>%s</th>%s</tr>" % (
            esc(" ".join(t for t in (_("The numbers"), views.numbers_scope(view, mine)) if t)), esc(_("yours")),
            "<th>%s</th>" % esc(_("reference ({file})").format(file=os.path.basename(ref_file or ""))) if theirs else ""))
        for label, value, ref in rows:
            body.append("<tr><td>%s</td><td>%s</td>%s</tr>" % (esc(label), esc(value),
                                                                 "<td>%s</td>" % esc(ref) if theirs else ""))
        body.append("</table>")
    if theirs:
        body.append("<h2>%s</h2>" % esc(_("The reference ({file})").format(file=ref_file)))
        for v in order:
            pic = views.make(v, theirs, run, full=True)
            if not pic.empty:
                body.append(section(pic, _(views.ABOUT[v])))
    page = ('<!DOCTYPE html>\n<html lang="%s"><head><meta charset="utf-8"><title>%s</title><style>%s</style></head>\n'
            '<body>\n%s\n</body></html>\n' % ("zh-CN" if LANGUAGE.startswith("zh") else "en", esc(title), CSS,
                                               "\n".join(body)))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
