import Foundation
import XCTest

/// `make deb` gives a package that installs and converts on a fresh Debian 12 with no Swift toolchain: the
/// binary carries the Swift runtime, its Depends are Debian's runtime libraries, lintian reports no error, and
/// the man pages, completions, unit and data land where Debian expects them.
final class PackageInstallTests: XCTestCase {
    /// Where a minimal Debian 12 root made by debootstrap is kept between runs (it takes minutes to make).
    static let rootCache = URL(fileURLWithPath: "/var/cache/lightwork-tests/bookworm-minbase.tar")

    func testDebInstallsIntoAFreshDebianRootAndConverts() throws {
        let repo = TestPaths.repoRoot
        // make deb: the portable build, make install into a staging root, dpkg-deb, lintian --fail-on error.
        let make = try sh("make -C '\(repo.path)' deb 2>&1")
        XCTAssertEqual(make.status, 0, "make deb failed:\n\(make.output.suffix(4000))")
        let package = repo.appendingPathComponent("build/package")
        let debs = try FileManager.default.contentsOfDirectory(atPath: package.path).filter { $0.hasSuffix(".deb") }
        XCTAssertEqual(debs.count, 1, "\(debs)")
        let deb = package.appendingPathComponent(try XCTUnwrap(debs.first))
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: deb.path)[.size] as? Int)
        print("package: \(deb.lastPathComponent), \(size / 1024) KiB")

        let depends = try sh("dpkg-deb -f '\(deb.path)' Depends").output
        print("Depends: \(depends)")
        XCTAssertTrue(depends.contains("libraw"), depends)
        XCTAssertFalse(depends.lowercased().contains("swift"), "the Swift runtime must be linked in, not depended on: \(depends)")
        let contents = try sh("dpkg-deb -c '\(deb.path)'").output
        for path in ["./usr/bin/lightwork", "./usr/share/lightwork/Profiles/filters.json", "./usr/share/lightwork/Samples/",
                     "./usr/share/man/man1/lightwork.1.gz", "./usr/share/man/man1/lightwork-convert.1.gz",
                     "./usr/share/man/man1/lightwork-watch.1.gz", "./usr/share/bash-completion/completions/lightwork",
                     "./usr/share/zsh/vendor-completions/_lightwork", "./lib/systemd/system/lightwork-watch.service",
                     "./usr/share/doc/lightwork/copyright"] {
            XCTAssertTrue(contents.contains(path), "the package lacks \(path)")
        }

        // A fresh Debian 12 root: no Swift, nothing but minbase.
        guard getuid() == 0 else { throw XCTSkip("the fresh-root install needs root (chroot, mount): run 'make test' as root") }
        let root = try TestPaths.temporaryDirectory(self).appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try makeRoot(at: root)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/bin/swift").path))
        try FileManager.default.copyItem(at: deb, to: root.appendingPathComponent("tmp/lightwork.deb"))
        try? FileManager.default.removeItem(at: root.appendingPathComponent("etc/resolv.conf"))
        try FileManager.default.copyItem(atPath: "/etc/resolv.conf", toPath: root.appendingPathComponent("etc/resolv.conf").path)
        XCTAssertEqual(try sh("mount -t proc proc '\(root.path)/proc' && mount --bind /dev '\(root.path)/dev'").status, 0)
        defer { _ = try? sh("umount '\(root.path)/dev'; umount '\(root.path)/proc'") }
        func inRoot(_ command: String) throws -> (status: Int32, output: String) {
            try sh("chroot '\(root.path)' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive sh -c '\(command)' 2>&1")
        }
        let install = try inRoot("apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/lightwork.deb")
        XCTAssertEqual(install.status, 0, "apt install of the package failed:\n\(install.output.suffix(4000))")
        XCTAssertNotEqual(try inRoot("command -v swift").status, 0, "the fresh root must have no Swift toolchain")
        let version = try inRoot("lightwork --version")
        XCTAssertEqual(version.status, 0, version.output)
        let convert = try inRoot("lightwork convert /usr/share/lightwork/Samples -o /tmp/out -q; echo status=$?; ls /tmp/out")
        print("in the fresh root:\n\(convert.output)")
        XCTAssertTrue(convert.output.contains("status=0"), convert.output)
        XCTAssertTrue(convert.output.contains("scene.tif"), convert.output)
        XCTAssertTrue(convert.output.contains("manifest.json"), convert.output)
        let help = try inRoot("lightwork completion bash | grep -c -- --long-edge; id lightwork")
        XCTAssertEqual(help.status, 0, "completion or the service user: \(help.output)")
    }

    /// Unpacks the cached minimal root, or makes it with debootstrap (and caches it) the first time.
    private func makeRoot(at root: URL) throws {
        let cache = PackageInstallTests.rootCache
        if !FileManager.default.fileExists(atPath: cache.path) {
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/debootstrap") else {
                throw XCTSkip("debootstrap is not installed ('make test' installs it through scripts/ensure-deps.sh --test)")
            }
            let fresh = root.deletingLastPathComponent().appendingPathComponent("debootstrap")
            let made = try sh("debootstrap --variant=minbase bookworm '\(fresh.path)' http://deb.debian.org/debian 2>&1")
            guard made.status == 0 else {
                throw XCTSkip("debootstrap cannot make a Debian 12 root here (no network to deb.debian.org?):\n\(made.output.suffix(1500))")
            }
            try FileManager.default.createDirectory(at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
            XCTAssertEqual(try sh("tar -C '\(fresh.path)' -cf '\(cache.path).part' . && mv '\(cache.path).part' '\(cache.path)' && rm -rf '\(fresh.path)'").status, 0)
        }
        XCTAssertEqual(try sh("tar -C '\(root.path)' -xf '\(cache.path)'").status, 0)
    }

    private func sh(_ command: String) throws -> (status: Int32, output: String) {
        let r = try CLIRunner.capture(URL(fileURLWithPath: "/bin/sh"), ["-c", command])
        return (r.status, String(decoding: r.stdout + r.stderr, as: UTF8.self))
    }
}
