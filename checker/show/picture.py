"""picture.py - what a view of `make show` draws, before it is drawn: rows of labelled cells in groups
(one group per warp, or the 32 banks, or a stretch of memory), with the costs of each row. term.py draws
a Picture in a terminal, page.py as SVG; the views (views.py) make them from a trace."""


class Cell:
    """One cell: its kind (term.py and page.py give each kind its symbol and colour), the character that
    stands for it where the kind alone does not say enough (a digit: a bank's words), a tip (the page
    shows it on hover) and, for a shuffle, the lane it reads (ref: the page draws the arrow)."""

    __slots__ = ("kind", "char", "tip", "ref")

    def __init__(self, kind, char=None, tip="", ref=None):
        self.kind, self.char, self.tip, self.ref = kind, char, tip, ref


class Row:
    """One row: its labels (one per label column), its groups of cells, its costs (one per cost column), the
    source lines it stands for (a finding at one of them marks the row) and a tip for the whole row."""

    def __init__(self, labels, groups, costs, lines=(), tip=""):
        self.labels, self.groups, self.costs, self.lines, self.tip = labels, groups, costs, set(lines), tip
        self.marked = False


class Picture:
    """A view's drawing: a title; the headings of the label columns, of the groups (with a ruler: the
    number of a cell every 8) and of the cost columns; rows; a legend [(kind, char or None, text)]; notes
    (sentences after it, in the learner's language); left_out: what the drawing does not show."""

    def __init__(self, view, title):
        self.view, self.title = view, title
        self.label_heads, self.group_heads, self.cost_heads = [], [], []
        self.ruler_start = 0   # the number of the first cell of the first group (lanes: 0; None: no ruler)
        self.fold = 0          # a terminal too narrow may show this many cells a character (lanes: 4)
        self.rows = []
        self.legend = []
        self.notes = []
        self.left_out = []
        self.empty = ""        # a sentence instead of a drawing, when there is nothing to draw

    def mark(self, findings):
        """Marks the rows whose lines hold a finding (either of its places); returns the findings marked."""
        marked = []
        for f in findings:
            lines = {f.line, f.other_line} - {0}
            hit = [r for r in self.rows if r.lines & lines]
            for r in hit:
                r.marked = True
            if hit:
                marked.append(f)
        return marked
