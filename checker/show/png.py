"""png.py - reads a PNG file's pixels (8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are),
for checker/show/check_show.py to look at a screenshot without any package."""
import struct
import zlib


def pixels(path):
    """(width, height, rows): rows[y] is a bytes object of width * channels values."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _c, _f, interlace = head
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or not channels or interlace:
        raise ValueError("only 8-bit RGB or RGBA, not interlaced")
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def count(path, test):
    """How many pixels of the image satisfy test(r, g, b)."""
    width, _height, channels, rows = pixels(path)
    n = 0
    for row in rows:
        for x in range(0, width * channels, channels):
            if test(row[x], row[x + 1], row[x + 2]):
                n += 1
    return n
