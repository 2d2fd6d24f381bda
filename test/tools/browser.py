#!/usr/bin/env python3
"""A headless Chromium driven over the DevTools protocol, with Python's
standard library only: Chromium's --remote-debugging-pipe reads commands on
file descriptor 3 and writes answers on 4, each a JSON text ended by NUL.

  with Browser() as b:
      b.open("file:///tmp/page.html")
      b.evaluate("document.title")
      b.key("ArrowRight")
      b.screenshot("shot.png")
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--hide-scrollbars",
    "--remote-debugging-pipe",
]


class BrowserError(Exception):
    pass


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable=None, width=1280, height=900, timeout=30):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise BrowserError(
                "chromium is not installed; scripts/install-deps.sh installs "
                "Debian's chromium")
        self.width, self.height, self.timeout = width, height, timeout
        self.next_id = 0
        self.buffer = b""
        self.session = None

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="mapc-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The child must see the pipes as descriptors 3 and 4: copies above
        # both are moved there after the fork (before the other descriptors
        # are closed, which keeps 3 and 4 as pass_fds).
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)

        def wire():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [self.executable, *FLAGS, "--user-data-dir=" + self.profile,
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, preexec_fn=wire, pass_fds=(3, 4))
        for fd in (to_browser_r, from_browser_w, high_r, high_w):
            os.close(fd)
        target = self.call("Target.createTarget", {"url": "about:blank"})
        attached = self.call("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True})
        self.session = attached["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", {
            "width": self.width, "height": self.height,
            "deviceScaleFactor": 1, "mobile": False})
        return self

    def __exit__(self, *exc):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise BrowserError("chromium closed the DevTools pipe")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, params=None, session=True):
        """Sends one command and returns its result (events are dropped)."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method,
                   "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") != self.next_id:
                continue
            if "error" in answer:
                raise BrowserError("%s: %s" % (method, answer["error"]))
            return answer.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {
            "expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError("script error: %s" %
                               json.dumps(result["exceptionDetails"]))
        return result["result"].get("value")

    def open(self, url, ready="document.body && document.body.dataset.ready"):
        """Loads `url` and waits until `ready` is true."""
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.evaluate("document.readyState") == "complete" and \
                    self.evaluate(ready):
                return
            time.sleep(0.05)
        raise BrowserError("the page did not become ready: " + url)

    def key(self, name, code=None):
        """Presses and releases a key (ArrowLeft 37, ArrowRight 39)."""
        codes = {"ArrowLeft": 37, "ArrowRight": 39, "ArrowUp": 38,
                 "ArrowDown": 40}
        vk = code or codes[name]
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {
                "type": kind, "key": name, "code": name,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk})

    def screenshot(self, path, clip=None):
        """Writes a PNG of the viewport, or of `clip` ({x, y, width,
        height} in page coordinates) beyond the viewport too."""
        params = {"format": "png"}
        if clip:
            params["clip"] = dict(clip, scale=1)
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
