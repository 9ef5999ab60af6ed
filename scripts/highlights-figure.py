#!/usr/bin/env python3
"""docs/images/highlights.png: the generated highlight scene (lightwork-tools make-highlight-dng) converted by
lightwork with --highlights clip, with --highlights reconstruct, and the truth (the same scene 2 EV darker, nothing
clipped), side by side; each at --exposure -1.6 so that the rebuilt range fits the output.
Usage: scripts/highlights-figure.py [build dir, default .build/release] [output, default docs/images/highlights.png]
Needs python3 only (PNG read and written with zlib)."""
import os, struct, subprocess, sys, tempfile, zlib

build = sys.argv[1] if len(sys.argv) > 1 else '.build/release'
out = sys.argv[2] if len(sys.argv) > 2 else 'docs/images/highlights.png'
panel = 240                                      # width of each panel (the scene is 3:2)


def read_png(path):
    data = open(path, 'rb').read()
    pos, idat, width = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            width, height, depth, colour = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and colour == 2, f'{path}: expected 8-bit RGB'
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), 3 * width, [], bytearray(3 * width)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def write_png(path, width, height, rows):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
    raw = b''.join(b'\0' + r for r in rows)
    png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) \
        + chunk(b'sRGB', b'\0') + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')
    open(path, 'wb').write(png)


with tempfile.TemporaryDirectory() as work:
    clipped, truth = os.path.join(work, 'clipped.dng'), os.path.join(work, 'truth.dng')
    subprocess.run([f'{build}/lightwork-tools', 'make-highlight-dng', '-o', clipped, '--truth', truth], check=True)
    panels = []
    for name, src, args in [('clip', clipped, ['--highlights', 'clip', '--exposure', '-1.6']),
                            ('reconstruct', clipped, ['--highlights', 'reconstruct', '--exposure', '-1.6']),
                            ('truth', truth, ['--exposure', '0.4'])]:
        dest = os.path.join(work, name)
        subprocess.run([f'{build}/lightwork', 'convert', src, '-o', dest, '--format', 'png', '--long-edge', str(panel),
                        '--quiet'] + args, check=True)
        panels.append(read_png(os.path.join(dest, os.path.splitext(os.path.basename(src))[0] + '.png')))
    height = min(p[1] for p in panels)
    gap = b'\xff\xff\xff' * 4
    rows = [gap.join(p[2][y] for p in panels) for y in range(height)]
    write_png(out, sum(p[0] for p in panels) + 8, height, rows)
    print(f'wrote {out}: clip | reconstruct | truth')
