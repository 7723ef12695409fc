#!/usr/bin/python3
"""Reads PNG pixels back.

    png_pixels.py FILE X,Y [X,Y ...]     one #RRGGBB per point, a line each
    png_pixels.py --count FILE TOP ROWS RRGGBB [RRGGBB ...]
        how many pixels of the rows TOP..<TOP+ROWS are within 8 per channel of each colour,
        on one line (what a bar's screenshot shows: its colours, not exact pixels)

A minimal PNG reader (8-bit RGB or RGBA, non-interlaced: what rsvg-convert writes), with
only the standard library: zlib for the data, the five PNG filters undone by hand.
"""
import struct
import sys
import zlib


def read(path, needed=None):
    """(width, height, channels, rows): the first `needed` rows decoded (all by default)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("not a PNG: " + path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace != 0:
        raise SystemExit("unsupported PNG: depth %d colour type %d interlace %d" % (depth, color, interlace))
    channels = 4 if color == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height if needed is None else min(needed, height)):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows


def count(path, top, rows_wanted, colours):
    width, height, channels, rows = read(path, needed=top + rows_wanted)
    wanted = [tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c in colours]
    counts = [0] * len(wanted)
    for line in rows[top:top + rows_wanted]:
        for x in range(width):
            pixel = line[x * channels:x * channels + 3]
            for k, colour in enumerate(wanted):
                if all(abs(pixel[j] - colour[j]) <= 8 for j in range(3)):
                    counts[k] += 1
    print(" ".join(map(str, counts)))


def main():
    if sys.argv[1:2] == ["--count"]:
        count(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
        return
    width, height, channels, rows = read(sys.argv[1])
    for point in sys.argv[2:]:
        x, y = (int(v) for v in point.split(","))
        if not (0 <= x < width and 0 <= y < height):
            raise SystemExit("pixel %d,%d outside %dx%d" % (x, y, width, height))
        r, g, b = rows[y][x * channels:x * channels + 3]
        if channels == 4 and rows[y][x * channels + 3] != 255:
            print("#%02X%02X%02X/%d" % (r, g, b, rows[y][x * channels + 3]))
        else:
            print("#%02X%02X%02X" % (r, g, b))


main()
