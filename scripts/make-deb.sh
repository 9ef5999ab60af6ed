#!/usr/bin/env bash
# Usage: make-deb.sh STAGING OUTDIR — turns a `make install DESTDIR=STAGING PREFIX=/usr` tree into
# OUTDIR/lightwork_VERSION_ARCH.deb: Depends from dpkg-shlibdeps (Debian's runtime libraries only; the Swift
# runtime is linked in statically), the files Debian policy wants (copyright, changelog, md5sums), built by
# dpkg-deb with root ownership.
set -euo pipefail
root=$(readlink -f "$1"); out=$(readlink -f "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/usr/bin/lightwork"
version=$("$bin" --version | head -1 | awk '{print $2}')
arch=$(dpkg --print-architecture)
doc="$root/usr/share/doc/lightwork"
mkdir -p "$doc" "$root/DEBIAN" "$out"
cp "$repo/packaging/copyright" "$doc/copyright"
# A native package's changelog, compressed as policy asks (-n: no timestamp, so the bytes are reproducible).
sed "s/@VERSION@/$version/" "$repo/packaging/changelog" | gzip -9n > "$doc/changelog.gz"
find "$root/usr/share/man" -name '*.1' -exec gzip -9nf {} +
# The shared libraries the binary links, as Debian package dependencies (dpkg-shlibdeps wants a debian/control).
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: lightwork\n\nPackage: lightwork\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e"$bin" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies for $bin" >&2; exit 1; }
if objdump -p "$bin" | grep -q 'NEEDED.*libswift'; then
  echo "make-deb: $bin links the Swift runtime dynamically; build it with --static-swift-stdlib (make portable)" >&2; exit 1
fi
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
  "$repo/packaging/control" > "$root/DEBIAN/control"
install -m755 "$repo/packaging/postinst" "$root/DEBIAN/postinst"
install -m755 "$repo/packaging/postrm" "$root/DEBIAN/postrm"
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
deb="$out/lightwork_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
