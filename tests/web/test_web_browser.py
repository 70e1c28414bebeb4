"""The web inbox in a real browser (Playwright driving Debian's chromium) on a real lab run:
sign in, start a run from the page, see its question arrive live, approve it, watch the run go on
in another tab without a reload, answer the next question in free text, open the audit view.

Set OPSAGENT_WEB_SCREENSHOTS=DIR to save the pictures the README shows (docs/web-*.png)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.store.sqlite import Store
from tests.web.server import PASSWORDS, Server, Workspace

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip

pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e .[dev])")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("OPSAGENT_WEB_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"web-{name}.png"), full_page=False)


def _sign_in(page: Any, base: str, name: str) -> None:
    page.goto(base + "/")
    assert "/login" in page.url  # not signed in: sent to sign in first
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORDS[name])
    page.click("form.login button[type=submit]")
    page.wait_for_url(base + "/")


def test_an_operator_answers_a_run_from_the_browser(browser: Any, ws: Workspace, server: Server) -> None:
    if os.environ.get("OPSAGENT_WEB_SCREENSHOTS"):  # the README's inbox shows a few runs, not one
        for scenario in ("vm-no-p2p", "p2p-corruption"):
            ws.cli("run", "--target", f"lab:{scenario}", "--approver", "inbox", "--detach")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(90_000)
    _sign_in(page, server.base, "alice")

    # start a run from the page: the lab host, its own goal, the team's approval policy
    page.click("text=Start a run")
    page.fill("input[name=target]", "lab:healthy-host")
    page.fill("textarea[name=policies]", str(ws.policy))
    page.click("form.new-run button[type=submit]")
    page.wait_for_url("**/runs/*")
    run_id = page.url.rsplit("/", 1)[1]

    # the inbox, open while the run works, turns its row to waiting by itself (no reload)
    inbox = context.new_page()
    inbox.set_default_timeout(90_000)
    inbox.goto(server.base + "/")
    inbox.evaluate("window.__stayed = true")
    row = inbox.locator(f'tr[data-run="{run_id}"]')
    row.locator(".badge.waiting").wait_for()
    assert "The policy needs your approval" in row.locator(".question").inner_text()
    assert inbox.evaluate("window.__stayed") is True
    _shot(inbox, "inbox")

    # the thread: the exact command and the gate's verdict for what it asks to approve
    page.goto(f"{server.base}/runs/{run_id}")
    command = page.locator("#pending-command").inner_text()
    assert "python3 -m sglang.launch_server --model-path /models/" in command and "--tp-size 8" in command
    assert "launch-needs-approval" in page.locator(".verdict").inner_text()
    assert page.locator(".msg.agent table").count() >= 1  # the report's tables, as tables
    if os.environ.get("OPSAGENT_WEB_SCREENSHOTS"):
        page.locator("#pending").scroll_into_view_if_needed()
    _shot(page, "thread")

    # a second tab keeps the thread open: the run's progress must reach it live
    watcher = context.new_page()
    watcher.set_default_timeout(90_000)
    watcher.goto(f"{server.base}/runs/{run_id}")
    watcher.evaluate("window.__stayed = true")
    step_before = int(watcher.locator("#live-step").inner_text())

    page.click("button.approve")
    page.wait_for_url(f"**/runs/{run_id}?said=*")
    assert "reply recorded" in page.locator(".note").inner_text()

    watcher.locator('.msg.operator:has-text("approve") .who').first.wait_for()
    watcher.locator('#pending[data-question^="q2-"]').wait_for()  # the next question arrived
    second = watcher.locator("#pending").get_attribute("data-question")
    # the first report is folded, not repeated in full above the new one (#30)
    watcher.locator("details.body summary", has_text="An earlier situation report").first.wait_for()
    assert watcher.locator("div.body.md h2").count() == 1, "one report open: the latest"
    latest = watcher.locator('.msg.agent[data-question^="q2-"] .body').first
    assert (
        "Question:" in latest.inner_text() and latest.locator("details.whole summary").count() == 1
    )  # what changed first
    assert int(watcher.locator("#live-step").inner_text()) > step_before
    assert watcher.locator(".activity", has_text="run_benchmark").count() >= 1
    assert watcher.evaluate("window.__stayed") is True  # updated in place, never reloaded
    assert watcher.locator(".msg.operator .who").first.inner_text() == "alice"

    # the second question, answered in free text from the watching tab
    watcher.fill("textarea[name=text]", "please stop the server")
    watcher.click("button.send")
    watcher.wait_for_url(f"**/runs/{run_id}?said=*")
    watcher.locator('.msg.operator:has-text("please stop the server")').wait_for()
    question = Store(ws.state).question_status(run_id, str(second))
    assert question == "answered"
    watcher.locator(".activity", has_text="stop_server").wait_for()  # the run heard it and acted

    # the audit view: charts and the exact commands run on the host
    watcher.click("#audit-link")
    watcher.wait_for_url(f"**/runs/{run_id}/audit")
    assert watcher.locator("svg.audit-chart").count() >= 1
    commands = watcher.locator("code.audit-command").all_inner_texts()
    assert any("sglang.launch_server" in c for c in commands), commands
    if os.environ.get("OPSAGENT_WEB_SCREENSHOTS"):  # the README's picture down to the timeline
        watcher.set_viewport_size({"width": 1280, "height": 1560})
    _shot(watcher, "audit")
    context.close()


def test_signing_out_refuses_the_next_action_of_another_tab(browser: Any, ws: Workspace, server: Server) -> None:
    """The other tab holds the same session (a second window, or a copied cookie): once signed out
    in one, the session is over on the server, and the other's next action is refused."""
    first = browser.new_context()
    page = first.new_page()
    page.set_default_timeout(60_000)
    _sign_in(page, server.base, "alice")
    second = browser.new_context()
    second.add_cookies(first.cookies())
    other = second.new_page()
    other.set_default_timeout(60_000)
    other.goto(server.base + "/runs/new")
    other.fill("input[name=target]", "lab:healthy-host")
    logs = ws.state / "specs"
    runs_before, logs_before = len(Store(ws.state).list_runs()), len(list(logs.glob("*.log")))

    page.click("form.who button[type=submit]")  # sign out in the first tab
    page.wait_for_url("**/login")

    other.click("form.new-run button[type=submit]")  # the other tab's next action
    other.wait_for_load_state()
    assert "sign in first" in other.content()
    assert len(Store(ws.state).list_runs()) == runs_before and len(list(logs.glob("*.log"))) == logs_before
    other.goto(server.base + "/")
    assert "/login" in other.url
    first.close()
    second.close()


def test_the_exported_audit_view_is_one_page_that_fetches_nothing(browser: Any, ws: Workspace) -> None:
    """`replay --export` writes the audit view as one file: opened in the browser it fetches
    nothing else and runs no script, and shows the charts (the README's picture of it)."""
    # --state as a user types it, relative: the page names the facts file as state/facts/...
    run = ("run", "--target", "lab:oom-mem-fraction", "--approver", "scripted", "--run-id", "oom-mem-fraction")
    ran = ws.cli(*run, "--state", "state")
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr
    exported = ws.root / "audit.html"
    done = ws.cli("replay", "oom-mem-fraction", "--state", "state", "--export", str(exported))
    assert done.returncode == 0, done.stdout + done.stderr
    context = browser.new_context(viewport={"width": 1100, "height": 1900}, java_script_enabled=False)
    page = context.new_page()
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(exported.as_uri())
    assert fetched == [exported.as_uri()], fetched
    assert page.locator("script").count() == 0
    assert page.locator("svg.audit-chart").count() == 3  # aggregate, single stream, the timeline
    assert "goal met" in page.locator("body").inner_text()
    folder = os.environ.get("OPSAGENT_WEB_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / "audit-view-export.png"), full_page=False)
    context.close()
