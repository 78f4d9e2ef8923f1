"""A system Chromium driven by Playwright, for tests that look at report.html as a person does.

Playwright's own browser download is never used: it drives the Chromium the
system installed (Debian's ``chromium`` package; ``.ci/run`` installs it).
Every request that would leave the page's own file is recorded and refused,
so a test can assert that the page asked no network address for anything.
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
LOCAL = ("file:", "data:", "about:", "blob:")


def chromium() -> str | None:
    """The system Chromium's path, or None."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and (found := shutil.which(name)):
            return found
    return None


def why_not() -> str | None:
    """Why no browser test can run here, or None when one can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if chromium() is None:
        return "no Chromium installed (apt-get install chromium)"
    return None


@dataclass
class Visit:
    page: object
    console: list[str] = field(default_factory=list)       # console errors and page errors
    requests: list[str] = field(default_factory=list)      # every non-local request


@contextmanager
def open_page(path: Path, width: int = 1280, height: int = 800):
    """``path`` opened in headless Chromium, its script run and its plots drawn."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            visit = Visit(page)
            page.on("console", lambda m: visit.console.append(m.text) if m.type == "error"
                    else None)
            page.on("pageerror", lambda e: visit.console.append(str(e)))

            def refuse(route):
                if route.request.url.startswith(LOCAL):
                    return route.continue_()
                visit.requests.append(route.request.url)
                return route.abort()
            context.route("**/*", refuse)
            page.on("request", lambda r: None if r.url.startswith(LOCAL) or
                    r.url in visit.requests else visit.requests.append(r.url))
            page.goto(Path(path).resolve().as_uri())
            page.wait_for_selector("body[data-ready]", timeout=30_000)
            yield visit
        finally:
            browser.close()


def screenshot(report: Path, out: Path, width: int = 1280, height: int = 800,
               at: str | None = None) -> Path:
    """A PNG of the report as a screen of ``width`` x ``height`` shows it."""
    with open_page(report, width, height) as visit:
        if at:
            visit.page.evaluate(f"document.getElementById({at!r}).scrollIntoView()")
        visit.page.wait_for_timeout(300)
        visit.page.screenshot(path=str(out))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python tests/browser.py REPORT_DIR OUT.png [WIDTH HEIGHT]``: the docs' screenshot."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 4):
        print(main.__doc__, file=sys.stderr)
        return 2
    reason = why_not()
    if reason:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    size = (int(args[2]), int(args[3])) if len(args) == 4 else (1280, 800)
    print(screenshot(Path(args[0]) / "report.html", Path(args[1]), *size))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
