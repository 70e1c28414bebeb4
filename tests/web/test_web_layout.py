"""The web page as a product (#30, item 9), in real Chromium at a phone's width (390 px) and a
desktop's (1400 px): nothing wider than the screen; the question first with one composer and the
replies it takes as buttons; the exact command the gate judged; edit only of a command; badges by
kind; clocks named. OPSAGENT_WEB_SCREENSHOTS=docs saves the README's pictures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.server import Server, Workspace
from tests.web.test_web_browser import CHROMIUM, FLAGS, _sign_in

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e .[dev])")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def runs(ws: Workspace) -> dict[str, str]:
    ws.start_waiting_run("approve-me")  # the policy asks before the launch
    done = ws.cli("run", "--target", "lab:vm-no-p2p", "--approver", "inbox", "--detach", "--run-id", "out-of-ideas")
    assert done.returncode == 3, done.stdout + done.stderr
    flags = ws.root / "ask-flags.yaml"
    flags.write_text(ASK_FLAGS)
    done = ws.cli(
        "run", "--target", "lab:healthy-host", "--policy", str(flags), "--approver", "inbox", "--detach",
        "--run-id", "ask-flags",
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    return {"approval": "approve-me", "question": "out-of-ideas", "flags": "ask-flags"}


ASK_FLAGS = """\
version: 1
description: reading SGLang's flags needs approval (the web's exact command)
default: allow
rules:
  - id: flags-need-approval
    decision: ask
    reason: this team approves reading the launcher's help
    match:
      program: [python3]
      args_regex: 'sglang\\.launch_server --help'
"""


def test_the_command_shown_is_the_one_the_gate_judged(
    browser: Any, ws: Workspace, server: Server, runs: dict[str, str]
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    _sign_in(page, server.base, "alice")
    page.goto(f"{server.base}/runs/{runs['flags']}")
    assert page.locator("#pending-command").inner_text().strip() == "python3 -m sglang.launch_server --help"
    assert "flags-need-approval" in page.locator(".verdict").inner_text()
    assert page.locator("input[name=command]").count() == 0  # a tool call: nothing to edit as a shell command
    context.close()


def _no_overflow(page: Any, width: int, what: str) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    widest = page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.scrollWidth > e.clientWidth + 1 &&"
        " getComputedStyle(e).overflowX === 'visible').slice(-5).map(e => e.tagName + '.' + e.className + ' '"
        " + e.scrollWidth + '>' + e.clientWidth)"
    )
    assert wide <= width, f"{what} is {wide} px wide at {width} px: {widest}"


def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("OPSAGENT_WEB_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"web-{name}.png"), full_page=False)


@pytest.mark.parametrize("width", [390, 1400])
def test_pages_fit_the_screen_and_ask_plainly(
    browser: Any, ws: Workspace, server: Server, runs: dict[str, str], width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(server.base + "/login")
    boxes = page.evaluate(
        "[...document.querySelectorAll('form.login input:not([type=hidden])')]"
        ".map(e => [Math.round(e.getBoundingClientRect().left), Math.round(e.getBoundingClientRect().width)])"
    )
    assert len(boxes) == 2 and boxes[0] == boxes[1], f"the sign-in fields line up: {boxes}"
    _no_overflow(page, width, "the sign-in page")
    _sign_in(page, server.base, "alice")
    _no_overflow(page, width, "the inbox")
    approval = page.locator(f'tr[data-run="{runs["approval"]}"] .badge')
    question = page.locator(f'tr[data-run="{runs["question"]}"] .badge')
    approval.wait_for()
    assert approval.inner_text() == "approval" and question.inner_text() == "question"  # by kind
    for goal in page.locator(".goal").all_inner_texts():
        assert len(goal) <= 140 and (goal.endswith("…") or len(goal) < 139), goal
    _shot(page, f"inbox-{width}")

    page.goto(f"{server.base}/runs/{runs['approval']}")
    _no_overflow(page, width, "a run waiting on an approval")
    live = page.locator("#live").inner_text()
    assert "wall clock since start" in live and "elapsed" not in live
    assert "asks about launch_server" in live  # the tool the question is about, not the last one run
    assert "--model-path" in page.locator("#pending-command").inner_text()  # the command the gate judged
    assert page.locator("textarea[name=text]").count() == 1 and page.locator("input[name=reason]").count() == 0
    assert page.locator("input[name=command]").count() == 0  # a launch is not a shell command to edit
    assert page.locator("button.approve").count() == 1 and page.locator("button.deny").count() == 1
    assert "Reply approve" not in page.locator("#parts").inner_text()  # the terminal's line stays there
    page.locator("#pending").scroll_into_view_if_needed()
    _shot(page, f"thread-{width}")

    page.goto(f"{server.base}/runs/{runs['question']}")
    _no_overflow(page, width, "a run with its attempts table")
    pending = page.locator("#pending")
    assert pending.locator("button.deny").count() == 0  # nothing proposed: nothing to deny
    pick = pending.locator("button.pick")
    assert pick.count() == 1 and "accept what was measured" in pick.inner_text()
    assert "your sign-off" in pick.inner_text() and "outside my reach" not in pick.inner_text()
    # a table's one-word cell is never broken mid-word (the risk column read "non / e" at 1400 px)
    broken = page.evaluate(
        "[...document.querySelectorAll('.md td')].filter(td => /^\\S+$/.test(td.innerText.trim()))"
        ".filter(td => { const r = document.createRange(); r.selectNodeContents(td);"
        " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1 })"
        ".map(td => td.innerText)"
    )
    assert broken == [], f"cells broken mid-word: {broken}"
    page.goto(f"{server.base}/runs/{runs['question']}/audit")
    _no_overflow(page, width, "the audit view")
    verdict = page.locator(".audit-verdict")  # the last hash breaks inside its box, not past it
    assert verdict.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), verdict.evaluate("e => e.scrollWidth")
    context.close()
