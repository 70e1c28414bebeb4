"""The red-team run of issue #29 against `opsagent serve`, kept as tests: one test per failed
check, each against a real server process on 127.0.0.1, a real SQLite state and real lab runs.
Every one of them failed on the code before the fix (the commit message says how it was run)."""

from __future__ import annotations

import html
import http.client
import re
import secrets
import sqlite3
import stat
import statistics
import threading
import time
from pathlib import Path

import pytest

from agent.store.sqlite import Store
from tests.web.server import PASSWORDS, Client, Server, Workspace, hidden, start_server, wait_for

RUN = "redteam-1"
# a goal with its model and numbers: a lab never lends its own silently (#27), so one without them is asked about
GOAL = "serve /models/Qwen3-235B-A22B-Instruct-2507-FP8 at 2,000 tok/s aggregate at concurrency 64"
SPEC_SECRET = "hf_" + "RedTeamSpecSecret0123456789abcdefXYZ"  # a token typed into a goal
REPLY_SECRET = "hf_" + "RedTeamReplySecret0123456789abcdefXY"  # a token typed into a reply


@pytest.fixture(scope="module")
def waiting(ws: Workspace, server: Server) -> str:
    """A detached lab run waiting on the launch's approval; its goal carries a token."""
    done = ws.cli(
        "run", "--target", "lab:healthy-host", "--policy", str(ws.policy), "--approver", "inbox", "--detach",
        "--run-id", RUN, "--goal", f"{GOAL}; the hub token is {SPEC_SECRET}",
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    return RUN


def signed_in(server: Server, name: str, password: str | None = None) -> Client:
    client = Client(server.base)
    assert client.login(name, password).status == 303
    return client


def copy_of(server: Server, client: Client) -> Client:
    """Another client holding the same session cookie (a second device, or a stolen cookie)."""
    other = Client(server.base)
    other.cookies = {"opsagent_session": client.cookies["opsagent_session"]}
    return other


def add_user(ws: Workspace, name: str, role: str, password: str) -> None:
    added = ws.cli("user", "add", name, "--role", role, "--password-stdin", input=password + "\n")
    assert added.returncode == 0, added.stderr


def alert(body: str) -> str:
    found = re.findall(r'<p class="error" role="alert">([^<]*)</p>', body)
    return html.unescape(found[0]) if found else ""


def thread_with(client: Client, run_id: str, text: str) -> str:
    def body() -> str | None:
        page = client.get(f"/runs/{run_id}").body
        return page if text in page else None

    found: str = wait_for(body, f"{text!r} on the thread of {run_id}")
    return found


# 1. sessions ---------------------------------------------------------------------------------
def test_1a_signing_out_ends_the_session_for_every_copy_of_its_cookie(server: Server) -> None:
    alice = signed_in(server, "alice")
    other = copy_of(server, alice)
    csrf = hidden(other.get("/runs/new").body, "csrf")
    assert alice.post("/logout", {"csrf": hidden(alice.get("/").body, "csrf")}).status == 303
    assert other.get("/").status == 303  # before: 200
    assert other.post("/runs", {"csrf": csrf, "target": "lab:healthy-host"}).status == 401
    again = other.post("/logout", {"csrf": csrf})  # the other tab's own sign-out: nothing left to end
    assert again.status == 303 and again.headers["location"] == "/login"


def test_1a_an_open_event_stream_ends_with_its_session(server: Server) -> None:
    alice = signed_in(server, "alice")
    host, port = alice.host, alice.port
    conn = http.client.HTTPConnection(host, port, timeout=12)
    conn.request("GET", "/events", headers={"Cookie": f"opsagent_session={alice.cookies['opsagent_session']}"})
    stream = conn.getresponse()
    assert stream.status == 200 and stream.readline().startswith(b"retry:")
    assert alice.post("/logout", {"csrf": hidden(alice.get("/").body, "csrf")}).status == 303
    began = time.time()
    try:
        while stream.readline():  # the stream ends (before: it went on for as long as the tab stayed open)
            assert time.time() - began < 10, "the event stream went on after sign-out"
    except TimeoutError:
        pytest.fail("the event stream stayed open after sign-out")
    finally:
        conn.close()


def test_1b_a_new_password_ends_the_sessions_of_the_old_one(ws: Workspace, server: Server) -> None:
    add_user(ws, "op2", "operator", "op2-first-password")
    op2 = signed_in(server, "op2", "op2-first-password")
    assert op2.get("/").status == 200
    add_user(ws, "op2", "operator", "op2-second-password")
    assert op2.get("/").status == 303  # before: 200
    assert signed_in(server, "op2", "op2-second-password").get("/").status == 200


def test_1c_an_account_removed_and_made_again_as_admin_does_not_revive_old_cookies(
    ws: Workspace, server: Server
) -> None:
    add_user(ws, "op3", "viewer", "op3-password")
    op3 = signed_in(server, "op3", "op3-password")
    with sqlite3.connect(ws.state / "opsagent.sqlite") as db:  # removed as the red team did, in the database
        db.execute("DELETE FROM users WHERE name = 'op3'")
    add_user(ws, "op3", "admin", "op3-password")  # the same password, now an admin
    page = op3.get("/")
    assert page.status == 303, "the old viewer cookie signed in as the new admin"  # before: 200, "(admin)"
    add_user(ws, "op4", "operator", "op4-password")
    op4 = signed_in(server, "op4", "op4-password")
    removed = ws.cli("user", "remove", "op4")
    assert removed.returncode == 0 and "removed" in removed.stdout, removed.stderr
    assert op4.get("/").status == 303
    missing = ws.cli("user", "remove", "op4")
    assert (
        missing.returncode == 2 and missing.stderr.strip() == "error: no account 'op4'; 'opsagent user list' shows them"
    )


def test_1d_the_cookie_is_secure_behind_a_trusted_tls_proxy_and_only_then(ws: Workspace, server: Server) -> None:
    claimed = Client(server.base, {"X-Forwarded-Proto": "https"})  # no proxy is trusted: the header is not believed
    (plain,) = [c for c in claimed.login("alice").set_cookies if c.startswith("opsagent_session=")]
    assert "Secure" not in plain
    proxied = start_server(ws, "--trusted-proxy", "127.0.0.1")
    try:
        via_tls = Client(proxied.base, {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"})
        (cookie,) = [c for c in via_tls.login("alice").set_cookies if c.startswith("opsagent_session=")]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie  # before: no Secure
        listed = ws.cli("user", "sessions", "alice")
        assert listed.returncode == 0 and "from 203.0.113.7" in listed.stdout  # the proxy's word for the client
    finally:
        proxied.stop()
    bad = ws.cli("serve", "--port", "0", "--trusted-proxy", "not-an-address", timeout=60)
    assert bad.returncode == 2 and "--trusted-proxy 'not-an-address'" in bad.stderr and "Traceback" not in bad.stderr


def test_1e_sessions_are_listed_revoked_and_expire(ws: Workspace, server: Server) -> None:
    alice = signed_in(server, "alice")
    listed = ws.cli("user", "sessions", "alice")
    assert listed.returncode == 0 and "from 127.0.0.1" in listed.stdout, listed.stderr
    ended = ws.cli("user", "sessions", "alice", "--revoke")
    assert ended.returncode == 0 and "session(s) of alice ended" in ended.stdout
    assert alice.get("/").status == 303
    assert ws.cli("user", "sessions", "alice").stdout.strip() == "no sessions of alice"
    short = start_server(ws, "--session-idle-s", "2", "--session-max-s", "5")
    try:
        idle, busy = Client(short.base), Client(short.base)
        assert idle.login("alice").status == 303 and busy.login("alice").status == 303
        began = time.time()
        while time.time() - began < 3.5:  # the busy one is used every half second; the idle one not
            assert busy.get("/").status == 200
            time.sleep(0.5)
        assert idle.get("/").status == 303  # idle over 2 s
        wait_for(lambda: busy.get("/").status == 303, "the absolute expiry", timeout=10)
        assert time.time() - began >= 4.0
    finally:
        short.stop()


# 2. throttling -------------------------------------------------------------------------------
def test_2_sign_in_is_throttled_per_account_and_per_address(ws: Workspace, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    srv = start_server(ws, stderr=log)
    try:

        def attempt(name: str, password: str) -> tuple[int, float, str]:
            client = Client(srv.base)
            token = hidden(client.get("/login").body, "csrf")
            started = time.perf_counter()
            answer = client.post("/login", {"csrf": token, "name": name, "password": password, "next": "/"})
            return answer.status, time.perf_counter() - started, answer.body

        # a known name with a wrong password and an unknown name take the same time (argon2 both)
        known = [attempt("alice", "wrong-password") for _ in range(3)]
        unknown = [attempt("no-such-user", "wrong-password") for _ in range(3)]
        assert {s for s, _, _ in known + unknown} == {401}
        ratio = statistics.median(t for _, t, _ in known) / statistics.median(t for _, t, _ in unknown)
        assert 0.33 < ratio < 3.0, ratio

        tries = [attempt("alice", f"guess-{i}") for i in range(50)]
        statuses = [s for s, _, _ in tries]
        assert statuses[:2] == [401, 401] and set(statuses[2:]) == {429}, statuses  # before: 50 x 401
        assert "too many failed sign-ins" in tries[-1][2] and "try again in" in tries[-1][2]
        assert attempt("alice", PASSWORDS["alice"])[0] == 429  # before: the right one worked
        assert attempt("no-such-user", "x")[0] == 401  # the unknown name's 3 failures: not yet over 5
        assert attempt("no-such-user", "y")[0] == 401
        assert attempt("no-such-user", "z")[0] == 429  # throttled like a real account
        # this address: 3 + 3 + 2 + 2 failures so far; ten more names reach its 20
        assert all(attempt(f"name-{i}", "wrong")[0] == 401 for i in range(10))
        assert attempt("victor", PASSWORDS["victor"])[0] == 429  # a fresh account, from this address
        text = log.read_text()
        assert "sign-in throttled: account 'alice' from 127.0.0.1" in text, text
    finally:
        srv.stop()


# 3. Host ------------------------------------------------------------------------------------
def test_3_only_the_allowed_host_names_are_served(ws: Workspace, server: Server) -> None:
    rebind = Client(server.base, {"Host": "rebind.attacker.example"})
    refused = rebind.get("/login")
    assert refused.status == 421 and "--allowed-host" in refused.body  # before: 200
    assert rebind.get("/healthz").status == 421
    assert Client(server.base, {"Host": "localhost:8420"}).get("/healthz").status == 200
    named = start_server(ws, "--allowed-host", "ops.example.org")
    try:
        assert Client(named.base, {"Host": "ops.example.org"}).login("alice").status == 303
        assert Client(named.base, {"Host": "rebind.attacker.example"}).get("/").status == 421
    finally:
        named.stop()


# 5. secrets, goals -------------------------------------------------------------------------
def test_5a_the_detached_runs_spec_file_is_scrubbed_and_private(ws: Workspace, waiting: str) -> None:
    spec = ws.state / "specs" / f"{waiting}.json"
    assert stat.S_IMODE(spec.stat().st_mode) == 0o600  # before: 0644
    assert stat.S_IMODE(spec.with_suffix(".log").stat().st_mode) == 0o600  # the run's output, beside it
    assert SPEC_SECRET not in spec.read_text()  # before: the goal's token in clear


def test_5b_a_goal_from_the_page_never_reaches_argv_and_a_long_one_is_a_4xx(ws: Workspace, server: Server) -> None:
    alice = signed_in(server, "alice")
    csrf = hidden(alice.get("/runs/new").body, "csrf")
    marker = f"goal-marker-{secrets.token_hex(4)}"
    started = alice.post("/runs", {"csrf": csrf, "target": "lab:healthy-host", "policies": str(ws.policy),
                                   "goal": f"serve the model, {marker}"})  # fmt: skip
    assert started.status == 303, started.body
    run_id = started.headers["location"].rsplit("/", 1)[1]
    record = wait_for(lambda: _run_with_pid(ws, run_id), "the page's run in the store", timeout=120)
    assert marker in record.spec.goal["text"]  # the goal reached the run (through its stdin)
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes()
        except OSError:
            continue
        assert marker.encode() not in argv, f"the goal is in the argv of {cmdline.parent.name}"  # before: it was
    huge = alice.post("/runs", {"csrf": csrf, "target": "lab:healthy-host", "goal": "x" * 200_000})
    assert huge.status == 413, huge.status  # before: 500, "Argument list too long"
    assert "the goal is 200,000 characters" in alert(huge.body)


def _run_with_pid(ws: Workspace, run_id: str) -> object:
    try:
        record = Store(ws.state).get_run(run_id)
    except KeyError:
        return None
    return record if record.pid is not None else None


# 6. body limit ------------------------------------------------------------------------------
def _peak_rss_kib(pid: int) -> int:
    """The most memory the process has held at once (VmHWM): a body parsed and freed still counts."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_6_an_unauthenticated_body_is_limited_before_it_is_parsed(server: Server) -> None:
    before = _peak_rss_kib(server.proc.pid)
    # the red team's post, smaller: 60 multipart fields of 1 MB (each under the parser's own part limit)
    part = b'--XB\r\nContent-Disposition: form-data; name="f"\r\n\r\n' + b"A" * 1_000_000 + b"\r\n"
    body = part * 60 + b"--XB--\r\n"
    statuses: list[int] = []

    def post() -> None:
        host, port = Client(server.base).host, Client(server.base).port
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:
            conn.putrequest("POST", "/login")
            conn.putheader("Content-Type", "multipart/form-data; boundary=XB")
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
            try:
                for i in range(0, len(body), 1 << 20):
                    conn.send(body[i : i + (1 << 20)])
            except OSError:
                pass  # refused before the body was sent: the answer is waiting
            statuses.append(conn.getresponse().status)
        except OSError:
            statuses.append(-1)  # the server closed the connection on a refused body
        finally:
            conn.close()

    threads = [threading.Thread(target=post) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    grown_mib = (_peak_rss_kib(server.proc.pid) - before) / 1024
    assert grown_mib < 40, f"the server's peak grew by {grown_mib:.0f} MiB"  # before: by hundreds
    assert set(statuses) <= {413, -1} and 413 in statuses, statuses
    anon = Client(server.base)
    token = hidden(anon.get("/login").body, "csrf")
    big = anon.post("/login", {"csrf": token, "name": "alice", "password": "p" * 100_000})
    assert big.status == 413 and "over 16 kB" in big.body


# 7. approvals -------------------------------------------------------------------------------
def test_7_every_word_that_approves_is_bound_to_the_digest(ws: Workspace, server: Server, waiting: str) -> None:
    alice = signed_in(server, "alice")
    thread = thread_with(alice, waiting, 'name="question_id" value="q1-')
    csrf, qid, digest = hidden(thread, "csrf"), hidden(thread, "question_id"), hidden(thread, "digest")
    for words in ("lgtm", "looks good, ship it", "sgtm", "go ahead", "approve"):
        refused = alice.post(f"/runs/{waiting}/reply", {"csrf": csrf, "question_id": qid, "digest": "0" * 64,
                                                        "verb": "text", "text": words})  # fmt: skip
        assert refused.status == 409 and "nothing was approved" in alert(refused.body), words  # before: lgtm 303
        assert Store(ws.state).question_status(waiting, qid) == "open"
    # opsagent reply calls the same rule: words that approve, with another action's digest, are refused
    typed = ws.cli("reply", waiting, "looks good, ship it", "--digest", "0" * 64)
    assert typed.returncode != 0 and "nothing was approved" in typed.stderr and "Traceback" not in typed.stderr
    assert Store(ws.state).question_status(waiting, qid) == "open"
    approved = alice.post(f"/runs/{waiting}/reply", {"csrf": csrf, "question_id": qid, "digest": digest,
                                                     "verb": "text", "text": "lgtm"})  # fmt: skip
    assert approved.status == 303
    reply = Store(ws.state).take_reply(waiting, qid)
    assert reply is not None and reply.kind == "approve" and reply.digest == digest


# 5c, 8d. what a reply's note says, and where ----------------------------------------------------
def test_5c_a_secret_in_a_reply_is_in_no_url_and_on_no_page(ws: Workspace, server: Server, waiting: str) -> None:
    alice = signed_in(server, "alice")
    thread = thread_with(alice, waiting, 'name="question_id" value="q')  # whichever question waits
    form = {"csrf": hidden(thread, "csrf"), "question_id": hidden(thread, "question_id"), "digest": ""}
    said = alice.post(f"/runs/{waiting}/reply", {**form, "verb": "text", "text": f"set HF_TOKEN={REPLY_SECRET}"})
    assert said.status == 303
    location = said.headers["location"]
    assert REPLY_SECRET not in location and "HF_TOKEN" not in location  # before: ?said=...HF_TOKEN%3Dhf_...
    page = alice.get(location).body
    assert "reply recorded" in page and REPLY_SECRET not in page and REPLY_SECRET[:12] not in page


def test_8d_a_said_note_in_the_url_is_never_shown(server: Server, waiting: str) -> None:
    alice = signed_in(server, "alice")
    page = alice.get(f"/runs/{waiting}?said=reply+recorded+for+{waiting}:+approve;+all+good")
    assert page.status == 200 and "reply recorded" not in page.body  # before: shown as if recorded


# 8. smaller ---------------------------------------------------------------------------------
def test_8a_signed_in_pages_are_not_stored(server: Server, waiting: str) -> None:
    alice = signed_in(server, "alice")
    for path in ("/", f"/runs/{waiting}", f"/runs/{waiting}/audit", "/runs/new"):
        assert alice.get(path).headers.get("cache-control") == "no-store", path  # before: none


def test_8b_viewers_see_no_server_paths(ws: Workspace, server: Server, waiting: str) -> None:
    elsewhere = ws.root.parent / f"team-policies-{secrets.token_hex(3)}"  # outside the project and the state
    elsewhere.mkdir()
    (elsewhere / "team.yaml").write_text(ws.policy.read_text())
    asked = ws.cli("run", "--target", "lab:healthy-host", "--policy", str(elsewhere / "team.yaml"), "--approver",
                   "none", "--run-id", "redteam-elsewhere")  # fmt: skip
    assert asked.returncode == 3, asked.stderr
    victor = signed_in(server, "victor")
    root = str(ws.root.resolve())
    runs = [waiting, *(r.spec.run_id for r in Store(ws.state).list_runs())]
    pages = {path: victor.get(path).body for r in runs for path in (f"/runs/{r}", f"/runs/{r}/audit")}
    pages["/"] = victor.get("/").body
    leaks = {path: re.findall(rf"{re.escape(root)}[^\s<\"']*", body)[:3] for path, body in pages.items()}
    assert not any(leaks.values()), leaks
    shown = {p: re.findall(rf"[^\n]{{0,80}}{elsewhere.name}[^\n]{{0,40}}", b)[:2] for p, b in pages.items()}
    assert not any(shown.values()), shown
    assert "team.yaml" in pages["/runs/redteam-elsewhere/audit"]  # named, without where it is


def test_8c_the_run_forms_policy_field_does_not_probe_the_server(ws: Workspace, server: Server) -> None:
    (ws.root / "notes.yaml").write_text("topsecretkey: 1\nother: 2\n")
    alice = signed_in(server, "alice")
    csrf = hidden(alice.get("/runs/new").body, "csrf")
    answers = {}
    for policy in ("/etc/hostname", "/etc/no-such-file", "notes.yaml", str(ws.root / "notes.yaml"), "/etc/passwd"):
        answer = alice.post("/runs", {"csrf": csrf, "target": "lab:healthy-host", "policies": policy})
        assert answer.status == 400, (policy, answer.status)  # before: 303 for a file that exists
        assert "topsecretkey" not in answer.body
        answers[policy] = re.sub(r"^policy file '[^']*'", "policy file POLICY", alert(answer.body))
    assert len(set(answers.values())) == 1, answers  # one answer, whatever is (or is not) there
    good = alice.post("/runs", {"csrf": csrf, "target": "lab:healthy-host", "policies": "ask-launch.yaml"})
    assert good.status == 303  # a valid policy under the project, named relative to it
    wait_for(lambda: _run_with_pid(ws, good.headers["location"].rsplit("/", 1)[1]), "the run", timeout=120)
