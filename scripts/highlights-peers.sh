#!/usr/bin/env bash
# Highlight reconstruction against darktable-cli, on the generated DNGs of HighlightsTests (lightwork-tools
# make-highlight-dng: bands pushed past white in red, red+green, green+blue, and the same scene 2 EV darker as
# the truth). darktable renders both files with its default highlight reconstruction (4.2: "inpaint opposed")
# in an isolated config; workflow=none keeps its pipeline colorimetric and linear (no exposure lift, no
# filmic/sigmoid), so its truth render × 4 is the truth. Output: linear Rec.2020 float (PFM) → CIELAB, white =
# each band's brightest truth, mean ΔE00 over the clipped part of each band — the same comparison the test makes
# for LightWork (whose figures the test prints). Needs darktable (Debian `darktable`), python3 with numpy.
# Usage: scripts/highlights-peers.sh [build dir, default .build/release]
set -euo pipefail
build=${1:-.build/release}
command -v darktable-cli >/dev/null || { echo "error: darktable-cli not found (apt-get install darktable)" >&2; exit 1; }
work=$(mktemp -d /tmp/lightwork-hl-peers.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/lightwork-tools" make-highlight-dng -o "$work/clipped.dng" --truth "$work/truth.dng" --bands "$work/bands.json"
for f in clipped truth; do
  darktable-cli "$work/$f.dng" "$work/dt-$f.pfm" --icc-type LIN_REC2020 --apply-custom-presets false \
    --core --configdir "$work/dtconf" --library :memory: --conf plugins/darkroom/workflow=none >"$work/dt-$f.log" 2>&1 \
    || { cat "$work/dt-$f.log" >&2; exit 1; }
done
darktable-cli --version | head -1
python3 - "$work" <<'EOF'
import json, sys, numpy as np
work = sys.argv[1]
def pfm(path):
    with open(path, 'rb') as f:
        assert f.readline().strip() == b'PF'
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        data = np.frombuffer(f.read(), dtype='<f4' if scale < 0 else '>f4').reshape(h, w, 3)
    return data[::-1].astype(np.float64)          # PFM rows run bottom to top
rec2020_to_xyz_d65 = np.array([[0.636958, 0.144617, 0.168881], [0.262700, 0.677998, 0.059302], [0.000000, 0.028073, 1.060985]])
def lab(xyz, white):
    t = xyz / white
    f = np.where(t > 216 / 24389, np.cbrt(np.maximum(t, 0)), (24389 / 27 * t + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)
def de2000(a, b):
    L1, a1, b1 = a[..., 0], a[..., 1], a[..., 2]; L2, a2, b2 = b[..., 0], b[..., 1], b[..., 2]
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2); Cb = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cb**7 / (Cb**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1 = np.degrees(np.arctan2(b1, a1p)) % 360; h2 = np.degrees(np.arctan2(b2, a2p)) % 360
    dL, dC = L2 - L1, C2p - C1p
    dh = np.where(C1p * C2p == 0, 0, np.where(np.abs(h2 - h1) <= 180, h2 - h1, np.where(h2 - h1 > 180, h2 - h1 - 360, h2 - h1 + 360)))
    dH = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lb, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    hb = np.where(C1p * C2p == 0, h1 + h2, np.where(np.abs(h1 - h2) <= 180, (h1 + h2) / 2, np.where(h1 + h2 < 360, (h1 + h2 + 360) / 2, (h1 + h2 - 360) / 2)))
    T = 1 - 0.17 * np.cos(np.radians(hb - 30)) + 0.24 * np.cos(np.radians(2 * hb)) + 0.32 * np.cos(np.radians(3 * hb + 6)) - 0.20 * np.cos(np.radians(4 * hb - 63))
    Sl = 1 + 0.015 * (Lb - 50)**2 / np.sqrt(20 + (Lb - 50)**2); Sc = 1 + 0.045 * Cbp; Sh = 1 + 0.015 * Cbp * T
    Rt = -2 * np.sqrt(Cbp**7 / (Cbp**7 + 25.0**7)) * np.sin(np.radians(60 * np.exp(-((hb - 275) / 25)**2)))
    return np.sqrt((dL / Sl)**2 + (dC / Sc)**2 + (dH / Sh)**2 + Rt * (dC / Sc) * (dH / Sh))
bands = json.load(open(f'{work}/bands.json'))
gain = 2 ** bands['truthStops']
clipped, truth = pfm(f'{work}/dt-clipped.pfm') @ rec2020_to_xyz_d65.T, pfm(f'{work}/dt-truth.pfm') @ rec2020_to_xyz_d65.T * gain
for b in bands['bands']:
    sl = (slice(b['y'] + 6, b['y'] + b['h'] - 6), slice(b['clippedFromX'], b['x'] + b['w'] - 6))
    t, v = truth[sl], clipped[sl]
    white = np.array([0.95047, 1.0, 1.08883]) * t[..., 1].max()
    # The unclipped part checks that darktable's render is linear (its truth × 4 is then the truth).
    su = (sl[0], slice(b['x'] + 6, b['unclippedToX']))
    check = de2000(lab(truth[su], white), lab(clipped[su], white)).mean()
    print(f"highlights {b['name']}: darktable (default highlight reconstruction) mean ΔE00 "
          f"{de2000(lab(t, white), lab(v, white)).mean():.2f} (unclipped part, linearity check: {check:.2f})")
EOF
