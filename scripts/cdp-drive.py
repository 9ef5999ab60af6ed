#!/usr/bin/env python3
"""Drives headless Chromium over its DevTools pipe (--remote-debugging-pipe: no WebSocket library needed) for
the studio monitor's browser tests. Opens URL, records every console error, uncaught exception and failed load,
then runs STEPS (a JSON list) in order and writes a JSON report to OUT:

  {"wait": "JS expression", "timeout": 10}    until the expression is truthy (fails after timeout seconds)
  {"eval": "JS expression"}                    its value goes into the report
  {"click": "CSS selector"}                    element.click()
  {"select": "CSS selector", "value": "v"}     sets a <select>/<input> value and fires input and change
  {"mark": "name"}                             prints "MARK name" on stdout (the test acts on it)
  {"screenshot": "path.png"}                   a PNG of the viewport

Exit status 0 when the page loaded and every step passed, 1 otherwise (the report says which failed)."""
import base64, json, os, subprocess, sys, tempfile, threading, time


class Browser:
    def __init__(self, chromium, width, height):
        self.profile = tempfile.mkdtemp(prefix="lw-cdp-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4 (made after the fork, so kept in pass_fds).
        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking", "--user-data-dir=" + self.profile,
             "--remote-debugging-pipe", "--window-size=%d,%d" % (width, height), "about:blank"],
            preexec_fn=child_fds, pass_fds=(3, 4, to_chrome_r, from_chrome_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.answers = {}
        self.events = []
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            chunk = os.read(self.from_chrome, 65536)
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                data = json.loads(message)
                with self.lock:
                    if "id" in data:
                        self.answers[data["id"]] = data
                    else:
                        self.events.append(data)
                    self.lock.notify_all()

    def send(self, method, params=None, session=None, timeout=30):
        with self.lock:
            self.next_id += 1
            ident = self.next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        with self.lock:
            while ident not in self.answers:
                left = deadline - time.time()
                if left <= 0:
                    raise RuntimeError("no answer to " + method)
                self.lock.wait(left)
            answer = self.answers.pop(ident)
        if "error" in answer:
            raise RuntimeError(method + ": " + json.dumps(answer["error"]))
        return answer.get("result", {})

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def problems(events):
    """Console errors, uncaught exceptions and failed loads, one line each."""
    out = []
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            entry = p["entry"]
            out.append("log %s: %s %s" % (entry["level"], entry.get("text", ""), entry.get("url", "")))
    return out


def main():
    url, steps_path, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    steps = json.load(open(steps_path))
    browser = Browser(os.environ.get("CHROMIUM", "chromium"), 1400, 900)
    report = {"url": url, "steps": [], "ok": False}
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.send(domain + ".enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        navigated = browser.send("Page.navigate", {"url": url}, session=session)
        if navigated.get("errorText"):
            raise RuntimeError("navigation failed: " + navigated["errorText"])

        def evaluate(expression):
            result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=session)
            if "exceptionDetails" in result:
                raise RuntimeError("%s threw %s" % (expression, result["exceptionDetails"].get("exception", {}).get("description")))
            return result.get("result", {}).get("value")

        for step in steps:
            record = dict(step)
            started = time.time()
            if "wait" in step:
                deadline = started + step.get("timeout", 10)
                value = None
                while time.time() < deadline:
                    try:
                        value = evaluate(step["wait"])
                    except RuntimeError:
                        value = None
                    if value:
                        break
                    time.sleep(0.05)
                if not value:
                    record["failed"] = "still false after %g s" % step.get("timeout", 10)
                record["value"] = value
            elif "eval" in step:
                record["value"] = evaluate(step["eval"])
            elif "click" in step:
                evaluate("document.querySelector(%s).click()" % json.dumps(step["click"]))
            elif "select" in step:
                evaluate("(e => { e.value = %s; e.dispatchEvent(new Event('input', {bubbles: true})); "
                         "e.dispatchEvent(new Event('change', {bubbles: true})); return e.value })(document.querySelector(%s))"
                         % (json.dumps(step["value"]), json.dumps(step["select"])))
            elif "mark" in step:
                print("MARK " + step["mark"], flush=True)
            elif "screenshot" in step:
                shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
                with open(step["screenshot"], "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            record["seconds"] = round(time.time() - started, 3)
            report["steps"].append(record)
            if "failed" in record:
                break
        report["ok"] = all("failed" not in s for s in report["steps"]) and len(report["steps"]) == len(steps)
    except Exception as e:
        report["error"] = str(e)
    finally:
        with browser.lock:
            report["problems"] = problems(browser.events)
        browser.close()
    json.dump(report, open(out_path, "w"), indent=2)
    sys.exit(0 if report["ok"] else 1)


if __name__ == "__main__":
    main()
