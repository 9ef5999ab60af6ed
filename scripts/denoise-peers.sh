#!/usr/bin/env bash
# Noise reduction beside the peers: the same generated scenes (lightwork-tools make-sample-dng --iso N: a sensor's
# Poisson-Gaussian noise at ISO 800, 3200, 12800, and the noiseless ISO 0 render of the same scene, ISO written to
# EXIF with exiftool) through LightWork (--denoise auto), darktable-cli (denoise (profiled), wavelets on Y0U0V0,
# its generic ISO profile: the camera is not in its database) and rawtherapee-cli (its noise reduction, luminance
# and chrominance). Each tool's output is compared with the same tool's render of the noiseless file without
# noise reduction: PSNR and SSIM on 16-bit sRGB TIFFs, before and after. Needs darktable, rawtherapee, exiftool
# (apt-get install darktable rawtherapee libimage-exiftool-perl) and a release build.
# Usage: scripts/denoise-peers.sh [OUTDIR]   (default denoise-peers-out)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/darktable-history.sh
OUT=${1:-denoise-peers-out}
BIN=.build/release/lightwork TOOLS=.build/release/lightwork-tools
for t in darktable-cli rawtherapee-cli exiftool "$BIN" "$TOOLS"; do command -v "$t" >/dev/null || { echo "missing: $t" >&2; exit 1; }; done
rm -rf "$OUT"; mkdir -p "$OUT"/{dng,lw,dt,rt}
ISOS="0 800 3200 12800"
for iso in $ISOS; do
  "$TOOLS" make-sample-dng -o "$OUT/dng/iso-$iso.dng" --seed 1 --iso "$iso" 2>/dev/null
  [ "$iso" = 0 ] || exiftool -q -overwrite_original "-ISO=$iso" "$OUT/dng/iso-$iso.dng"
done

# darktable: its own "wavelets: chroma only" preset's parameters (read from the data.db it creates), with the
# luminance curve raised to the chroma one: denoise (profiled) on luminance and chroma, its default strength.
DTCONF="$OUT/dt/conf"
dt() { darktable-cli "$@" --core --configdir "$DTCONF" --library :memory: \
         --conf plugins/imageio/format/tiff/bpp=16 --conf plugins/imageio/format/tiff/compress=0 >/dev/null 2>&1; }
dt "$OUT/dng/iso-0.dng" "$OUT/dt/bootstrap.tif"   # creates data.db with darktable's presets
PARAMS=$(python3 - "$DTCONF/data.db" <<'PY'
import sqlite3, struct, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "select op_params, op_version from presets where operation='denoiseprofile' and name='wavelets: chroma only'").fetchone()
blob, version = row
assert version == 11 and len(blob) == 412, (version, len(blob))
f = list(struct.unpack('<8f6fi42f42f4i', blob))
f[57:99] = [0.5] * 42          # every band of every channel at 0.5 (the chroma preset zeroes luminance)
print(struct.pack('<8f6fi42f42f4i', *f).hex())
PY
)
# The same one-entry history, on and off: darktable's render of every file goes through the same pipeline.
for on in 0 1; do
  darktable_history denoiseprofile 11 "$PARAMS" "$on" > "$OUT/dt/denoise-$on.xmp"
done

# RawTherapee: its built-in neutral parameters plus noise reduction (luminance 40, chrominance automatic), as a
# .pp3; the plain render is the same with it disabled.
printf '[Directional Pyramid Denoising]\nEnabled=false\n' > "$OUT/rt/plain.pp3"
cat > "$OUT/rt/denoise.pp3" <<PP3
[Directional Pyramid Denoising]
Enabled=true
Enhance=false
Median=false
Luma=40
Ldetail=50
Chroma=15
Method=Lab
LMethod=SLI
CMethod=AUT
C2Method=AUTO
SMethod=shal
MedMethod=soft
RGBMethod=soft
MethodMed=none
Redchro=0
Bluechro=0
Gamma=1.7
Passes=1
PP3

for iso in $ISOS; do
  "$BIN" convert "$OUT/dng/iso-$iso.dng" -o "$OUT/lw/off" --format tiff16 --quiet >/dev/null
  dt "$OUT/dng/iso-$iso.dng" "$OUT/dt/denoise-0.xmp" "$OUT/dt/iso-$iso.tif"
  rawtherapee-cli -q -Y -t -b16 -o "$OUT/rt/iso-$iso.tif" -p "$OUT/rt/plain.pp3" -c "$OUT/dng/iso-$iso.dng" >/dev/null 2>&1
  [ "$iso" = 0 ] && continue
  "$BIN" convert "$OUT/dng/iso-$iso.dng" -o "$OUT/lw/denoise" --format tiff16 --denoise auto --quiet >/dev/null
  dt "$OUT/dng/iso-$iso.dng" "$OUT/dt/denoise-1.xmp" "$OUT/dt/iso-$iso-denoise.tif"
  rawtherapee-cli -q -Y -t -b16 -o "$OUT/rt/iso-$iso-denoise.tif" -p "$OUT/rt/denoise.pp3" -c "$OUT/dng/iso-$iso.dng" >/dev/null 2>&1
done

python3 - "$OUT" $ISOS <<'PY'
import numpy as np, struct, sys, os
def tiff(path):
    """A baseline uncompressed 16-bit RGB TIFF (what all three write here)."""
    d = open(path, 'rb').read()
    e = '<' if d[:2] == b'II' else '>'
    off = struct.unpack(e + 'I', d[4:8])[0]
    n = struct.unpack(e + 'H', d[off:off + 2])[0]
    tags = {}
    for i in range(n):
        t, typ, cnt, val = struct.unpack(e + 'HHI4s', d[off + 2 + 12 * i: off + 14 + 12 * i])
        size = {3: 2, 4: 4}.get(typ, 1)
        raw = val if cnt * size <= 4 else d[struct.unpack(e + 'I', val)[0]:][:cnt * size]
        tags[t] = struct.unpack(e + ('H' if typ == 3 else 'I') * cnt, raw[:cnt * size]) if typ in (3, 4) else None
    w, h, spp = tags[256][0], tags[257][0], tags[277][0]
    assert tags[259][0] == 1 and tags[258][0] == 16, path
    buf = b''.join(d[o:o + c] for o, c in zip(tags[273], tags[279]))
    a = np.frombuffer(buf, dtype=e + 'u2')[:w * h * spp].reshape(h, w, spp)[:, :, :3]
    return a.astype(np.float64) / 65535
def blur(x):
    k = np.exp(-np.arange(-5, 6) ** 2 / 4.5); k /= k.sum()
    r = np.apply_along_axis(lambda v: np.convolve(np.pad(v, 5, mode='edge'), k, 'valid'), 1, x)
    return np.apply_along_axis(lambda v: np.convolve(np.pad(v, 5, mode='edge'), k, 'valid'), 0, r)
def quality(a, b):
    psnr = 10 * np.log10(1 / np.mean((a - b) ** 2))
    s = []
    for c in range(3):
        x, y = a[:, :, c], b[:, :, c]
        mx, my = blur(x), blur(y)
        vx, vy, cxy = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
        s.append(np.mean((2 * mx * my + 1e-4) * (2 * cxy + 9e-4) / ((mx * mx + my * my + 1e-4) * (vx + vy + 9e-4))))
    return psnr, np.mean(s)
out, isos = sys.argv[1], [i for i in sys.argv[2:] if i != '0']
tools = [('LightWork --denoise auto', 'lw/off/iso-%s.tif', 'lw/denoise/iso-%s.tif'),
         ('darktable-cli denoise (profiled)', 'dt/iso-%s.tif', 'dt/iso-%s-denoise.tif'),
         ('rawtherapee-cli noise reduction', 'rt/iso-%s.tif', 'rt/iso-%s-denoise.tif')]
print('%-34s %6s  %-22s %-22s %s' % ('tool', 'ISO', 'noisy PSNR / SSIM', 'denoised PSNR / SSIM', 'gain'))
for name, plain, den in tools:
    ref = tiff(os.path.join(out, plain % '0'))
    for iso in isos:
        p0, s0 = quality(tiff(os.path.join(out, plain % iso)), ref)
        p1, s1 = quality(tiff(os.path.join(out, den % iso)), ref)
        print('%-34s %6s  %6.2f dB / %.4f     %6.2f dB / %.4f     %+.2f dB / %+.4f' % (name, iso, p0, s0, p1, s1, p1 - p0, s1 - s0))
PY

# The before/after picture of docs/develop.md: 240 × 240 crops at 1:1 of LightWork's ISO 12800 render without
# and with --denoise auto, side by side, as an 8-bit PNG (written with zlib; no imaging library needed).
python3 - "$OUT/lw/off/iso-12800.tif" "$OUT/lw/denoise/iso-12800.tif" docs/images/denoise-before-after.png <<'PY'
import numpy as np, struct, sys, zlib
def tiff(path):
    d = open(path, 'rb').read(); e = '<' if d[:2] == b'II' else '>'
    off = struct.unpack(e + 'I', d[4:8])[0]; n = struct.unpack(e + 'H', d[off:off + 2])[0]; tags = {}
    for i in range(n):
        t, typ, cnt, val = struct.unpack(e + 'HHI4s', d[off + 2 + 12 * i: off + 14 + 12 * i])
        size = {3: 2, 4: 4}.get(typ, 1)
        raw = val if cnt * size <= 4 else d[struct.unpack(e + 'I', val)[0]:][:cnt * size]
        if typ in (3, 4): tags[t] = struct.unpack(e + ('H' if typ == 3 else 'I') * cnt, raw[:cnt * size])
    w, h, spp = tags[256][0], tags[257][0], tags[277][0]
    buf = b''.join(d[o:o + c] for o, c in zip(tags[273], tags[279]))
    return np.frombuffer(buf, dtype=e + 'u2')[:w * h * spp].reshape(h, w, spp)[:, :, :3]
X, Y, S = 560, 330, 240
crops = [tiff(p)[Y:Y + S, X:X + S] for p in sys.argv[1:3]]
img = (np.concatenate(crops, axis=1).astype(np.float64) / 257).round().astype(np.uint8)
raw = b''.join(b'\0' + row.tobytes() for row in img)
chunk = lambda k, v: struct.pack('>I', len(v)) + k + v + struct.pack('>I', zlib.crc32(k + v) & 0xffffffff)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', img.shape[1], img.shape[0], 8, 2, 0, 0, 0)) \
      + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')
open(sys.argv[3], 'wb').write(png)
print('wrote', sys.argv[3])
PY
