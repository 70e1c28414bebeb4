"""The run's typed state: what the graph carries from node to node and checkpoints to SQLite.

List fields merge by appending (`Annotated[list, operator.add]`); every other field is replaced
by the node that returns it.
"""

from __future__ import annotations

import hashlib
import json
import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, Field

from agent.verdict import Verdict as Verdict  # re-exported: the gate's answer lives in agent/verdict.py
from agent.verdict import VerdictWord as VerdictWord
from tools.target import DetachedProcess

ReplyKind = Literal["approve", "deny", "edit", "say", "continue", "stop", "pick"]
TriggerKind = Literal[
    "policy_ask",
    "low_confidence",
    "no_next_step",
    "decider_asks",
    "stalled",
    "budget",
    "outcome_unknown",
    "goal_met",
    "gave_up",
    "decider_error",
    "goal_unclear",
]
ExclusionBy = Literal["operator", "policy", "failure"]
RunStatus = Literal["running", "waiting", "finished", "stopped", "failed", "interrupted"]


class Goal(BaseModel):
    """The operator's goal: the text as given plus the numbers the agent measures against."""

    text: str
    model_path: str | None = None
    gpus: list[int] | None = Field(default=None, description="GPU indices the agent may use")
    min_aggregate_tps: float | None = Field(default=None, description="output tok/s at the goal concurrency")
    min_single_stream_tps: float | None = None
    concurrency: int = 64
    constraints: list[str] = []
    gpu_count: int | None = Field(default=None, description="how many GPUs the goal names, when it names no ids")
    readings: list[str] = Field(default=[], description="how each number of the goal was read, in words")
    ambiguities: list[str] = Field(default=[], description="readings the agent guessed; asked before anything runs")
    constraint_readings: list[str] = Field(default=[], description="how each 'never X' is enforced, or that it is not")


class Action(BaseModel):
    """One tool call the decider proposes."""

    tool: str
    args: dict[str, Any] = {}

    def digest(self, target: str, policy_version: str) -> str:
        """Binds an approval to exactly this action, on this target, under this policy."""
        blob = json.dumps(
            {"tool": self.tool, "args": self.args, "target": target, "policy": policy_version},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def render(self) -> str:
        if self.tool == "run_command" and "command" in self.args:
            return f"run_command: {self.args['command']}"
        inner = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.tool}({inner})"


class Alternative(BaseModel):
    action: Action | None = None
    description: str
    rationale: str = ""
    risk: str = "low"
    sign_off: bool = False  # no action: picking it signs off what was measured (the operator's call)
    # the arithmetic expects this step to reach the goal: the one "continue" may take on its own
    reaches_goal: bool = False


class ModelUsage(BaseModel):
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0


class Decision(BaseModel):
    """What a decider returns: an action (or none), why, how sure, and what else it would try."""

    kind: Literal["act", "ask", "finish"] = "act"
    action: Action | None = None
    rationale: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    alternatives: list[Alternative] = []
    question: str | None = None
    goal_met: bool = False
    findings: list[str] = []
    hypotheses: list[str] = []
    milestone: str | None = Field(default=None, description="a named milestone this action reaches")
    usage: list[ModelUsage] = []


class Observation(BaseModel):
    step: int
    tool: str
    args: dict[str, Any] = {}
    ok: bool
    summary: str
    data: dict[str, Any] = {}
    error_kind: str | None = None
    outcome_unknown: bool = False
    sim_time: float | None = None


class Attempt(BaseModel):
    """One configuration tried and how it went: the table good decisions rest on."""

    id: str
    step: int
    change: str
    config: dict[str, Any] = {}
    outcome: str
    failure_class: str | None = None
    aggregate_tps: float | None = None
    single_stream_tps: float | None = None
    ttft_ms: float | None = None


class QuestionOption(BaseModel):
    """A next step as the report numbers it: what a number reply picks."""

    number: int
    description: str
    action: Action | None = None  # None: outside my reach (the operator's resource or risk decision)
    sign_off: bool = False  # picking it signs off what was measured (no action: not "outside my reach")


class FailureSeen(BaseModel):
    """A failed launch or measurement as the tools saw it: its class and the log's own lines."""

    step: int
    tool: str
    attempt: str | None = None
    cls: str  # tools/sglang/failures.py's class (cuda_graph_oom, port_busy, ...)
    cause: str | None = None  # the tool's own word (wait_server's cause, launch_server's error_kind)
    diagnosis: str = ""  # tools/sglang/diagnosis.py's placing, once the host's evidence was read
    phase: str | None = None
    lines: list[str] = []
    hint: str | None = None


class GpuProcessSeen(BaseModel):
    pid: int
    name: str = ""
    used_mib: int = 0
    mine: str | None = None  # the attempt whose server this pid is; None: not started by me


class GpuSeen(BaseModel):
    """One look at one GPU (nvidia-smi), with what the host's evidence and my launches add."""

    index: int
    step: int
    used_mib: int | None = None
    total_mib: int | None = None
    processes: list[GpuProcessSeen] = []
    health: list[str] = []  # lost, MIG, ECC, throttled: read_host_evidence's lines
    servers: list[str] = []  # my launches on it, and whether each still runs


class AttemptSeen(BaseModel):
    id: str
    step: int
    change: str
    outcome: str
    failure_class: str | None = None
    aggregate_tps: float | None = None
    single_stream_tps: float | None = None
    ttft_ms: float | None = None
    command: str = ""  # the launch command as run
    env: dict[str, str] = {}
    pid: int | None = None
    port: int | None = None
    levels: list[str] = []  # each benchmark level's numbers


class PortSeen(BaseModel):
    port: int
    step: int
    what: str


class QuestionEvidence(BaseModel):
    """What a question's answers may quote ("why did it OOM?", "what's using GPU 3?"): the run's
    evidence when the question was asked, bounded to a few KB. Answers say only what is here."""

    failures: list[FailureSeen] = []
    gpus: list[GpuSeen] = []
    attempts: list[AttemptSeen] = []
    ports: list[PortSeen] = []
    interconnect: list[str] = []
    memory: list[str] = []  # the memory arithmetic (plan_layouts)
    host: list[str] = []  # kernel-log lines, free disk, weight files that do not read


class Question(BaseModel):
    id: str
    trigger: TriggerKind
    reason: str
    question: str
    report_markdown: str = ""
    action: Action | None = None
    digest: str | None = None
    asked_at: float
    expires_at: float | None = None
    options: list[QuestionOption] = []
    # A partial reading asked back ("I read: ... I did not understand: ... Right?"): the canonical
    # clauses a "yes" takes, nothing else; None when nothing waits for confirmation.
    confirm: str | None = None
    # None: a question stored before questions carried their evidence (answered from the report)
    evidence: QuestionEvidence | None = None


class Reply(BaseModel):
    question_id: str
    kind: ReplyKind
    text: str = ""
    edited_command: str | None = None
    steps: int | None = None
    milestone: str | None = None
    pick: int | None = None
    who: str = "operator"
    at: float = 0.0
    digest: str | None = None


class Metrics(BaseModel):
    best_aggregate_tps: float | None = None
    best_single_stream_tps: float | None = None
    best_ttft_ms: float | None = None
    best_attempt: str | None = None


class Exclusion(BaseModel):
    """An action never to be proposed again in this run, and whose word that is."""

    by: ExclusionBy
    tool: str
    key: str
    what: str
    reason: str = ""
    rules: list[str] = []


class OperatorRules(BaseModel):
    """What the operator told the agent, typed; kept for the rest of the run."""

    use_port: int | None = None
    avoid_ports: list[int] = []
    use_gpus: list[int] | None = None
    avoid_gpus: list[int] = []
    set_env: dict[str, str] = {}
    unset_env: list[str] = []
    use_flags: list[list[str]] = []
    avoid_flags: list[str] = []
    layout: dict[str, int] | None = None
    use_model: str | None = None  # "serve /models/X instead": every launch serves this checkpoint
    no_relaunch: bool = False
    stop_server: bool = False  # one-shot: cleared once the stop was proposed
    accept_measured: str | None = None  # one-shot: the operator picked the sign-off step (its words)
    measure_again: bool = False  # one-shot: the operator asked for the benchmark again
    relaunch_wanted: bool = False  # a launch setting changed and no launch has used it yet
    try_action: Action | None = None  # picked or edited by the operator: proposed next
    try_approved: str | None = None  # the digest the operator approved with an edit
    exclusions: list[Exclusion] = []
    heard: list[str] = []  # the clauses understood, in the operator's words
    not_understood: list[str] = []  # answered in the next report, then cleared
    free_text: list[str] = []  # words outside the grammar, shown to a model as the operator's
    answers: list[str] = []  # what the agent owes the operator in the next report, then cleared
    rejected: list[str] = []  # why the decider's last proposals were rejected (for the decider)
    seeded: bool = False  # the goal's "never X" clauses were read


class AgentState(TypedDict, total=False):
    run_id: str
    started_at: float  # on the target's clock (virtual on the lab)
    goal: Goal
    target: str
    policy_version: str
    step: int
    status: RunStatus
    observations: Annotated[list[Observation], operator.add]
    decisions: Annotated[list[Decision], operator.add]
    attempts: list[Attempt]  # replaced whole: observe rewrites rows as outcomes arrive
    replies: Annotated[list[Reply], operator.add]
    denials: Annotated[list[str], operator.add]
    instructions: Annotated[list[str], operator.add]
    processes: dict[str, DetachedProcess]
    proposal: Decision | None
    verdict: Verdict | None
    pending: Question | None
    approved_digest: str | None
    step_limit: int
    launch_limit: int  # loop.max_launches: launches before the runbook asks
    launch_grants: int  # how often the operator granted launch_limit more (a continue at the budget question)
    autonomy_steps: int
    last_observation: Observation | None
    consecutive_denials: int
    sandbox: str  # where commands run (tools.sandbox): stated in every report
    autonomy_milestone: str | None
    metrics: Metrics
    escalations: int
    final_report: str | None
    goal_met: bool
    operator: OperatorRules  # the operator's instructions and exclusions, replaced whole
    closing: Decision | None  # a finish held while the accepted configuration is relaunched (loop/restore.py)
