#!/usr/bin/env python3
"""The studio monitor under load: one `lightwork watch` run that converts COUNT files dropped into its inbox while
CLIENTS browsers stream its events (server-sent events over plain sockets), or the same run without the server.
Writes a JSON report: seconds from the first drop to the last file done, files per second, the watch's peak
memory (VmHWM) before and after, each client's frames and the last converted count it saw, files dropped.

  monitor-load.py BIN SOURCES WORK REPORT [--serve] [--clients N] [--jobs J]

SOURCES holds the input files (all of them are dropped, by rename from a copy in WORK, so each arrives whole)."""
import json, os, re, resource, shutil, signal, socket, subprocess, sys, threading, time

CONVERTED = re.compile(rb'"converted" *: *(\d+)')


def vm(pid, key):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Client(threading.Thread):
    """One event-stream reader: counts frames and remembers the latest status's converted count."""
    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.frames, self.bytes, self.converted, self.status, self.error = port, 0, 0, -1, 0, None
        self.connected = threading.Event()
        self.stop = False

    def run(self):
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            s.sendall(("GET /api/events HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n\r\n" % self.port).encode())
            buffer = b""
            while b"\r\n\r\n" not in buffer:
                buffer += s.recv(65536)
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            self.status = int(head.split()[1])
            self.connected.set()
            if self.status != 200:
                return
            s.settimeout(1)
            while not self.stop:
                try:
                    chunk = s.recv(262144)
                except socket.timeout:
                    continue
                if not chunk:
                    break
                self.bytes += len(chunk)
                buffer += chunk
                # Chunked transfer framing surrounds the SSE text; frames end with a blank line.
                *frames, buffer = buffer.split(b"\n\n")
                for frame in frames:
                    if b"event: status" in frame:
                        self.frames += 1
                        # The count by pattern, not a JSON parse: 50 parsers a frame on this 2-core box took CPU
                        # from the conversions being measured; a browser would run elsewhere.
                        m = CONVERTED.search(frame)
                        if m:
                            self.converted = int(m.group(1))
                    elif b"event: " in frame:
                        self.frames += 1
            s.close()
        except OSError as e:
            self.error = str(e)
            self.connected.set()


def main():
    binary, sources, work, report_path = sys.argv[1:5]
    serve = "--serve" in sys.argv
    clients_n = int(sys.argv[sys.argv.index("--clients") + 1]) if "--clients" in sys.argv else 50
    jobs = sys.argv[sys.argv.index("--jobs") + 1] if "--jobs" in sys.argv else "2"
    shutil.rmtree(work, ignore_errors=True)
    inbox, out, staged = (os.path.join(work, d) for d in ("inbox", "out", "staged"))
    for d in (inbox, staged):
        os.makedirs(d)
    names = sorted(os.listdir(sources))
    for n in names:
        shutil.copy(os.path.join(sources, n), os.path.join(staged, n))
    args = [binary, "watch", inbox, "-o", out, "--settle", "0.2", "--heartbeat", "0", "--json", "--jobs", jobs]
    if serve:
        args += ["--serve", "127.0.0.1:0"]
    log = open(os.path.join(work, "watch.jsonl"), "w")
    watch = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(os.path.join(work, "watch.err"), "w"), text=True)
    port = None
    for line in watch.stdout:
        log.write(line)
        event = json.loads(line)
        if event.get("event") == "serving":
            port = int(event["url"].split(":")[2].split("/")[0])
        if event.get("event") == "started":
            break
    threading.Thread(target=lambda: [log.write(l) for l in watch.stdout], daemon=True).start()
    clients = []
    if serve:
        clients = [Client(port) for _ in range(clients_n)]
        for c in clients:
            c.start()
        for c in clients:
            c.connected.wait(30)
    rss_before = vm(watch.pid, "VmRSS")
    status_path = os.path.join(out, "watch-status.json")
    started = time.time()
    for n in names:
        os.rename(os.path.join(staged, n), os.path.join(inbox, n))
    converted, peak_rss = 0, 0
    deadline = started + 600
    while time.time() < deadline:
        peak_rss = max(peak_rss, vm(watch.pid, "VmRSS"))
        try:
            s = json.load(open(status_path))
            converted = s["converted"] + s["skipped"] + s["failed"]
            if converted >= len(names):
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    seconds = time.time() - started
    # The clients get the final status within the status file's half-second throttle.
    settle = time.time() + 5
    while clients and time.time() < settle and min(c.converted for c in clients) < converted:
        time.sleep(0.05)
    hwm = vm(watch.pid, "VmHWM")
    for c in clients:
        c.stop = True
    watch.send_signal(signal.SIGTERM)
    watch.wait(60)
    failed = 0
    try:
        failed = json.load(open(status_path))["failed"]
    except (OSError, ValueError, KeyError):
        pass
    report = {
        "serve": serve, "files": len(names), "done": converted, "failed": failed, "dropped": len(names) - converted,
        "seconds": round(seconds, 3), "filesPerSecond": round(len(names) / seconds, 3),
        "watchRSSKiBBefore": rss_before, "watchRSSKiBPeak": peak_rss, "watchHWMKiB": hwm, "exit": watch.returncode,
        # This script's own CPU (the 50 readers): on a 2-core box it competes with the conversions it measures.
        "loadGeneratorCPUSeconds": round(resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime, 3),
        "clients": [{"status": c.status, "frames": c.frames, "bytes": c.bytes, "lastConverted": c.converted, "error": c.error} for c in clients],
    }
    json.dump(report, open(report_path, "w"), indent=1)
    print("%s: %d files in %.2f s (%.2f files/s), %d dropped, watch RSS %d -> peak %d KiB%s, load generator %.2f CPU s" % (
        "with server" if serve else "no server", len(names), seconds, len(names) / seconds, report["dropped"], rss_before, peak_rss,
        (", %d clients, fewest frames %d" % (len(clients), min(c.frames for c in clients))) if clients else "",
        report["loadGeneratorCPUSeconds"]))


if __name__ == "__main__":
    main()
