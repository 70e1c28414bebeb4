"""#27, numbers honoured or refused: a value no launch can take (a GPU the host does not have, a layout
wider than the GPUs left, a port past 65535, a memory fraction above 1) was read exactly as said and
"in force" ('use gpu 8' on GPUs 0-7, 'tp 16', 'port 70000', 'mem fraction 1.5'), to fail at launch or be
bent by the planner. Now the message is refused, saying which value and why, and nothing of it is taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.cli.exitcodes import WAITING
from agent.hearing import bounds
from agent.hearing.instructions import hear
from agent.state import OperatorRules
from agent.store.sqlite import Store
from tests.hearing.test_replies_heard import KV_SHORT, _events, _launches, _wait_question
from tests.opsagent_process import CliRun

HOST = list(range(8))

OUT_OF_REACH = [
    ("use gpu 8", "this host has no GPU 8: its GPUs are 0-7"),
    ("use gpus 9-12", "no GPUs 9-12"),
    ("don't use gpu 8", "no GPU 8"),  # the 8th GPU counted from 1? asked, never a no-op "in force"
    ("tp 16", "TP16 x DP1 needs 16 GPUs, and GPUs 0-7 are left to it"),
    ("tp 4 dp 4", "TP4 x DP4 needs 16 GPUs"),
    ("use gpus 0-3 with tp 8", "TP8 x DP1 needs 8 GPUs, and GPUs 0-3 are left to it"),
    ("--tp-size 16", "TP16 x DP1 needs 16 GPUs"),
    ("tp 0", "TP0 x DP1 is no layout"),
    ("port 70000", "port 70000 is no TCP port"),
    ("--port 99999", "port 99999 is no TCP port"),
    ("mem fraction 1.5", "--mem-fraction-static 1.5: it takes a share of GPU memory"),
    ("--context-length -5", "--context-length -5: it takes a number of tokens"),
    ("--max-running-requests 0", "--max-running-requests 0"),
    ("max running requests 1k", "--max-running-requests 1k: say the number itself"),  # 1000 or 1024?
]

IN_REACH = [
    "use gpus 4-7 tp 4",
    "tp 4 dp 2",
    "tp 8",
    "--tp-size 4 --dp-size 2",
    "port 30001",
    "mem fraction 0.85",
    "context 32k",
    "--chunked-prefill-size -1",  # SGLang's own "no chunking"
    "don't use gpu 7",
    "tp 3",  # whether 3 divides the model's heads is the model's to say, at launch
]


@pytest.mark.parametrize(("text", "said"), OUT_OF_REACH)
def test_a_value_no_launch_can_take_is_named(text: str, said: str) -> None:
    read = hear(OperatorRules(), text)[0]
    found = bounds.problems(OperatorRules(), read, HOST)
    assert found and said in "; ".join(found)


@pytest.mark.parametrize("text", IN_REACH)
def test_values_in_reach_pass(text: str) -> None:
    read = hear(OperatorRules(), text)[0]
    assert bounds.problems(OperatorRules(), read, HOST) == []


def test_a_layout_checked_against_the_gpus_already_left_out() -> None:
    """'tp 8' alone fits 8 GPUs; after 'don't use gpu 7' seven are left, and the same words do not."""
    before = hear(OperatorRules(), "don't use gpu 7")[0]
    after = hear(before, "tp 8")[0]
    assert bounds.problems(before, after, HOST) == ["TP8 x DP1 needs 8 GPUs, and GPUs 0-6 are left to it"]


def test_without_the_hosts_gpus_no_id_is_refused() -> None:
    """Before the host was read there is nothing to check an id against: 'use gpu 8' may be right."""
    read = hear(OperatorRules(), "use gpu 8")[0]
    assert bounds.problems(OperatorRules(), read, None) == []


def test_refused_values_are_said_and_never_launched(cli: CliRun, workspace: Path) -> None:
    """A real lab run on an 8-GPU host, answered from a second process: each value out of reach is
    answered in the next question, and the step picked after them launches as it was offered."""
    assert cli("run", *KV_SHORT, "--detach", "--run-id", "reach").returncode == WAITING
    store = Store(workspace / "state")
    asked = _wait_question(store, "reach", None)
    offered = asked.options[0].action
    assert offered is not None and offered.tool == "launch_server"
    for words, said in [
        ("use gpu 8", "this host has no GPU 8"),
        ("tp 4 dp 4, port 30001", "TP4 x DP4 needs 16 GPUs"),
        ("mem fraction 1.5", "--mem-fraction-static 1.5: it takes a share of GPU memory"),
    ]:
        assert cli("reply", "reach", words).returncode == 0
        asked = _wait_question(store, "reach", asked.id)
        shown = " ".join(asked.report_markdown.split())
        assert f'I took nothing of "{words}"' in shown and said in shown, shown
    assert cli("reply", "reach", "1").returncode == 0
    _wait_question(store, "reach", asked.id)
    assert cli("reply", "reach", "stop").returncode == 0
    # Taken, "port 30001" and "mem fraction 1.5" would have rewritten the picked launch.
    assert _launches(_events(workspace, "reach")) == [offered.args]
