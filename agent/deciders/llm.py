"""The `llm` decider: one chat-completions call (plus at most one repair) per decision.

How a decision is asked for
    The prompt is rebuilt from the state every turn (`agent.deciders.context`, `agent.prompts`): a system
    message (goal, constraints, policy denials, operator instructions, how to answer) and one user
    message (metrics, observations, the attempts table). No chat history is carried between turns,
    so the context stays bounded however long the run.

Where rationale, confidence and alternatives come from
    Tool mode (default): every tool's parameters schema gets a required `_meta` object
    (`rationale`, `confidence` 0-1, ranked `alternatives` [{description, risk}], `findings`,
    `hypotheses`, `milestone`). It is stripped before the tool's own arguments are validated with
    the tool's pydantic model. Putting it in the arguments (rather than in the message content)
    works with servers that drop content when they return tool calls.
    JSON mode (`json_mode=True`, or switched on for the rest of the run after the model answered
    a tool-mode request with prose): no `tools` are sent; the system prompt lists them with their
    schemas and the model replies `{"tool", "args", "rationale", "confidence", "alternatives",
    ...}` as the message content (code fences and `<tool_call>` wrappers are tolerated).

What a tool call becomes
    `ask_operator` -> Decision(kind="ask", question=..., rationale=reason + _meta rationale);
    `finish` -> Decision(kind="finish", goal_met=..., rationale=summary + _meta rationale); neither
    carries an `action` (a control tool is never something to approve or run). Any other tool ->
    Decision(kind="act", action=...). Extra tool calls in the same reply are not run; they are
    appended to the alternatives.

Errors (all are `agent.deciders.base.DeciderError`, which the loop turns into an escalation)::

    DeciderError
     +-- LLMDeciderError          carries `usage`: the calls made before it failed
          +-- BudgetExceeded      the run's token or cost budget is spent; raised before a call
          +-- EndpointError       retries exhausted (429, 5xx, timeout, connection) or a status
          |                       that retrying cannot fix (400, 401, 403, 404, ...)
          +-- ModelOutputError    unusable twice: unknown tool, invalid arguments, prose, bad JSON

    An unusable reply goes back to the model once, with the validation error; the second one
    raises `ModelOutputError`. 429, 5xx, timeouts and connection errors are retried by tenacity
    (exponential backoff with jitter, `Retry-After` honoured up to a cap, `max_retries` retries);
    the openai client itself is built with `max_retries=0` so retries are counted in one place.

Every HTTP call that returned a completion adds one `ModelUsage` (model, tokens, latency, cost)
to `Decision.usage`, which the loop writes to the transcript.
"""

from __future__ import annotations

import copy
import email.utils
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
from openai import OpenAI
from pydantic import BaseModel, Field, ValidationError, field_validator
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from agent.deciders.base import DeciderError
from agent.deciders.context import build_context
from agent.llm_config import LLMSettings, load_llm_settings
from agent.prompts import render
from agent.state import Action, AgentState, Alternative, Decision, ModelUsage
from tools.catalog import default_registry
from tools.registry import ToolArgumentError, ToolRegistry

META = "_meta"
RETRYABLE_STATUS = frozenset({408, 409, 429})


class LLMDeciderError(DeciderError):
    def __init__(self, message: str, usage: list[ModelUsage] | None = None) -> None:
        super().__init__(message)
        self.usage: list[ModelUsage] = list(usage or [])


class BudgetExceeded(LLMDeciderError):
    """The run's model budget (tokens or dollars) is spent."""


class EndpointError(LLMDeciderError):
    """The model endpoint did not answer usefully after the retries it was allowed."""


class ModelOutputError(LLMDeciderError):
    """The model's reply was unusable, and so was its repaired reply."""


class AltMeta(BaseModel):
    description: str
    risk: str = "low"
    rationale: str = ""
    tool: str | None = None
    args: dict[str, Any] = {}


class DecisionMeta(BaseModel):
    """The parts of a decision that are not tool arguments."""

    rationale: str = Field(description="Why this action, now, in one to three sentences.")
    confidence: float = Field(ge=0.0, le=1.0, description="How sure you are this is the right next step.")
    alternatives: list[AltMeta] = Field(
        default=[], description="Other actions you would consider, best first, each with its risk."
    )
    findings: list[str] = Field(default=[], description="Facts established so far, each with its evidence.")
    hypotheses: list[str] = Field(default=[], description="What you believe and how sure you are.")
    milestone: str | None = Field(default=None, description="A named milestone this action reaches.")

    # Two slips models often make, accepted rather than spending a repair round on them.
    @field_validator("alternatives", mode="before")
    @classmethod
    def plain_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"description": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("confidence", mode="before")
    @classmethod
    def percent(cls, value: Any) -> Any:
        if isinstance(value, int | float) and 1 < value <= 100:
            return value / 100
        return value


def meta_schema() -> dict[str, Any]:
    schema = DecisionMeta.model_json_schema()
    schema["properties"]["alternatives"]["items"] = {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "risk": {"type": "string", "enum": ["low", "medium", "high"]},
            "rationale": {"type": "string"},
        },
        "required": ["description", "risk"],
    }
    schema.pop("$defs", None)
    return schema


def tool_specs(registry: ToolRegistry) -> list[dict[str, Any]]:
    """The registry's OpenAI tool specs, each with the required `_meta` parameter added."""
    specs = copy.deepcopy(registry.openai_specs())
    extra = meta_schema()
    for spec in specs:
        params = spec["function"]["parameters"]
        params.setdefault("properties", {})[META] = extra
        params["required"] = [*params.get("required", []), META]
    return specs


# --- parsing replies --------------------------------------------------------------------------


class Unusable(Exception):
    """A reply the model can fix; the message is written for the model."""


@dataclass
class Proposal:
    tool: str
    args: dict[str, Any]
    meta: dict[str, Any] | None
    extra: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text`, looking inside code fences and `<tool_call>` tags first."""
    candidates = [m.group(1) for m in TOOL_CALL_TAG.finditer(text)]
    candidates += [m.group(1) for m in FENCE.finditer(text)]
    candidates.append(text)
    decoder = json.JSONDecoder()
    for chunk in candidates:
        for start in (i for i, ch in enumerate(chunk) if ch == "{"):
            try:
                obj, _ = decoder.raw_decode(chunk, start)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


def proposal_from_json(text: str) -> Proposal:
    obj = first_json_object(text)
    if obj is None:
        raise Unusable(f"no JSON object found in your reply (it began: {text.strip()[:200]!r})")
    name = obj.get("tool", obj.get("name"))
    if not isinstance(name, str) or not name:
        raise Unusable('the JSON object has no "tool" naming the tool to call')
    args = obj.get("args", obj.get("arguments", obj.get("parameters", {})))
    if isinstance(args, str):
        args = decode_arguments(name, args)
    if not isinstance(args, dict):
        raise Unusable(f'"args" for {name} must be a JSON object, got {type(args).__name__}')
    args = dict(args)
    meta = args.pop(META, None)
    if meta is None:
        meta = {k: v for k, v in obj.items() if k not in {"tool", "name", "args", "arguments", "parameters"}}
    return Proposal(tool=name, args=args, meta=meta if isinstance(meta, dict) else None)


def decode_arguments(name: str, raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        problem = f"the arguments of your {name} call are not valid JSON ({exc})"
        raise Unusable(f"{problem}: {raw[:200]!r}") from None
    if not isinstance(value, dict):
        raise Unusable(f"the arguments of your {name} call must be a JSON object, got {raw[:200]!r}")
    return value


def proposal_from_tool_calls(calls: list[tuple[str, str]]) -> Proposal:
    name, raw = calls[0]
    args = decode_arguments(name, raw)
    meta = args.pop(META, None)
    extra = []
    for other_name, other_raw in calls[1:]:
        try:
            other = decode_arguments(other_name, other_raw)
        except Unusable:
            other = {}
        other.pop(META, None)
        extra.append((other_name, other))
    return Proposal(tool=name, args=args, meta=meta if isinstance(meta, dict) else None, extra=extra)


def validation_problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(value)'}: {e['msg']}" for e in exc.errors())


def to_decision(proposal: Proposal, registry: ToolRegistry, *, json_mode: bool) -> Decision:
    """Validate a proposal against the registry and build the Decision, or raise `Unusable`."""
    try:
        tool = registry.get(proposal.tool)
        parsed = tool.parse_args(proposal.args)
    except ToolArgumentError as exc:
        raise Unusable(str(exc)) from None
    if proposal.meta is None:
        where = "rationale, confidence and alternatives" if json_mode else f"the required {META} argument"
        raise Unusable(f"your {proposal.tool} call is missing {where}")
    try:
        meta = DecisionMeta.model_validate(proposal.meta)
    except ValidationError as exc:
        raise Unusable(f"invalid {META} for {proposal.tool}: {validation_problems(exc)}") from None

    args = parsed.model_dump(mode="json", exclude_unset=True)
    action = Action(tool=tool.name, args=args)
    alternatives = [
        Alternative(
            action=Action(tool=a.tool, args=a.args) if a.tool else None,
            description=a.description,
            rationale=a.rationale,
            risk=a.risk,
        )
        for a in meta.alternatives
    ]
    alternatives += [
        Alternative(
            action=Action(tool=name, args=args),
            description=f"also proposed in the same reply (not run): {Action(tool=name, args=args).render()}",
        )
        for name, args in proposal.extra
    ]
    common: dict[str, Any] = {
        "rationale": meta.rationale,
        "confidence": meta.confidence,
        "alternatives": alternatives,
        "findings": meta.findings,
        "hypotheses": meta.hypotheses,
        "milestone": meta.milestone,
        "action": action,
    }
    if tool.name == "ask_operator":
        common.update(action=None, rationale=joined(str(args.get("reason", "")), meta.rationale))
        return Decision(kind="ask", question=str(args.get("question", "")), **common)
    if tool.name == "finish":
        common.update(action=None, rationale=joined(str(args.get("summary", "")), meta.rationale))
        return Decision(kind="finish", goal_met=bool(args.get("goal_met", False)), **common)
    return Decision(kind="act", **common)


def joined(*parts: str) -> str:
    """The distinct non-empty parts, in order, as one text."""
    seen: list[str] = []
    for part in parts:
        if part.strip() and part.strip() not in seen:
            seen.append(part.strip())
    return "\n".join(seen)


# --- the endpoint ------------------------------------------------------------------------------


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return False


def retry_after_s(exc: BaseException | None, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait (`Retry-After` as seconds or a date, or `retry-after-ms`)."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def describe_failure(exc: BaseException) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"could not connect ({exc.__cause__ or exc})"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


STATUS_HINTS = {
    401: "check the API key (OPENAI_API_KEY or the profile's api_key_env)",
    403: "the key is not allowed to use this model",
    404: "check the base URL (it usually ends in /v1) and the model name",
}


@dataclass
class Reply:
    content: str
    tool_calls: list[tuple[str, str]]
    raw_tool_calls: list[dict[str, Any]]
    finish_reason: str | None


class LLMDecider:
    """Decide with any OpenAI-compatible chat-completions endpoint."""

    name = "llm"

    def __init__(
        self,
        settings: LLMSettings,
        *,
        registry: ToolRegistry | None = None,
        client: OpenAI | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        keep_last: int = 6,
    ) -> None:
        self.settings = settings
        self.registry = registry or default_registry()
        self.client = client or OpenAI(
            api_key=settings.api_key,
            base_url=settings.base_url,
            timeout=settings.timeout_s,
            max_retries=0,  # tenacity owns retries
        )
        self.json_mode = settings.json_mode
        self.keep_last = keep_last
        self._sleep = sleep
        self._clock = clock
        # Tokens and dollars spent in calls that ended in an error, so no Decision recorded them.
        self._unrecorded: list[ModelUsage] = []

    @classmethod
    def from_settings(
        cls,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        profile: str | None = None,
        env: Mapping[str, str] | None = None,
        config_path: Path | None = None,
        registry: ToolRegistry | None = None,
    ) -> LLMDecider:
        """Resolve flags, environment and config profile (`agent.llm_config`) and build the decider.

        Raises `LLMConfigError` (a ValueError, before any network traffic) when no model is configured.
        """
        settings = load_llm_settings(
            model=model, base_url=base_url, api_key=api_key, profile=profile, env=env, config_path=config_path
        )
        return cls(settings, registry=registry)

    # -- prompt ---------------------------------------------------------------------------------

    def messages(self, state: AgentState) -> list[dict[str, Any]]:
        ctx = build_context(state, keep_last=self.keep_last)
        tools = [
            {"name": t.name, "description": t.description, "schema": json.dumps(t.json_schema())}
            for t in self.registry.tools()
        ]
        return [
            {"role": "system", "content": render("system", ctx=ctx, json_mode=self.json_mode, tools=tools)},
            {"role": "user", "content": render("user", ctx=ctx)},
        ]

    # -- budget ---------------------------------------------------------------------------------

    def spent(self, state: AgentState, current: list[ModelUsage]) -> tuple[int, float]:
        usages = [u for d in state.get("decisions", []) for u in d.usage] + self._unrecorded + current
        return sum(u.prompt_tokens + u.completion_tokens for u in usages), sum(u.cost_usd for u in usages)

    def check_budget(self, state: AgentState, current: list[ModelUsage]) -> None:
        tokens, cost = self.spent(state, current)
        s = self.settings
        if s.budget_tokens is not None and tokens >= s.budget_tokens:
            raise BudgetExceeded(f"model budget reached: {tokens} of {s.budget_tokens} tokens used", usage=current)
        if s.budget_usd is not None and cost >= s.budget_usd:
            raise BudgetExceeded(f"model budget reached: ${cost:.4f} of ${s.budget_usd:g} spent", usage=current)

    # -- one call, with retries -------------------------------------------------------------------

    def _wait(self, retry_state: RetryCallState) -> float:
        cap = self.settings.retry_wait_max_s
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        asked = retry_after_s(exc)
        if asked is not None:
            return min(asked, cap)
        backoff = wait_exponential_jitter(
            multiplier=self.settings.retry_wait_s, max=cap, jitter=self.settings.retry_wait_s
        )
        return min(backoff(retry_state), cap)

    def _create_once(self, messages: list[dict[str, Any]]) -> tuple[Reply, ModelUsage]:
        kwargs: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        if not self.json_mode:
            kwargs["tools"] = tool_specs(self.registry)
        started = self._clock()
        completion = self.client.chat.completions.create(**kwargs)
        latency = self._clock() - started
        prompt_tokens = completion.usage.prompt_tokens if completion.usage else 0
        completion_tokens = completion.usage.completion_tokens if completion.usage else 0
        usage = ModelUsage(
            model=completion.model or self.settings.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=latency,
            cost_usd=self.settings.cost_usd(prompt_tokens, completion_tokens),
        )
        if not completion.choices:
            return Reply("", [], [], None), usage
        choice = completion.choices[0]
        message = choice.message
        calls: list[tuple[str, str]] = []
        raw_calls: list[dict[str, Any]] = []
        for call in message.tool_calls or []:
            function = getattr(call, "function", None)
            if function is None:
                continue
            calls.append((function.name, function.arguments))
            raw_calls.append(
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": function.name, "arguments": function.arguments},
                }
            )
        return Reply(message.content or "", calls, raw_calls, choice.finish_reason), usage

    def call(self, messages: list[dict[str, Any]], current: list[ModelUsage]) -> Reply:
        retrying = Retrying(
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(is_transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            reply, usage = retrying(self._create_once, messages)
        except openai.APIError as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            where = self.settings.base_url or "api.openai.com"
            if is_transient(exc):
                message = (
                    f"model endpoint {where} failed {attempts} time(s), last: {describe_failure(exc)}; "
                    "check that the server is up and not overloaded"
                )
            else:
                status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
                hint = STATUS_HINTS.get(status or 0, "the request was refused; retrying will not help")
                message = f"model endpoint {where} refused the request ({describe_failure(exc)}): {hint}"
            raise EndpointError(message, usage=current) from exc
        current.append(usage)
        return reply

    # -- deciding ---------------------------------------------------------------------------------

    def interpret(self, reply: Reply) -> tuple[Decision, bool]:
        """The decision in a reply, and whether it came from content (prose/JSON) in tool mode."""
        if reply.tool_calls:
            proposal = proposal_from_tool_calls(reply.tool_calls)
            return to_decision(proposal, self.registry, json_mode=False), False
        if not reply.content.strip():
            why = "it was cut off (length limit)" if reply.finish_reason == "length" else "it was empty"
            raise Unusable(f"your reply held no tool call and no text: {why}")
        if self.json_mode:
            return to_decision(proposal_from_json(reply.content), self.registry, json_mode=True), False
        # Tool mode, but prose: the server may have failed to parse a tool call it was sent.
        if first_json_object(reply.content) is not None:
            return to_decision(proposal_from_json(reply.content), self.registry, json_mode=True), True
        raise Unusable(f"you answered in prose instead of calling a tool: {reply.content.strip()[:300]!r}")

    def repair_messages(self, reply: Reply, problem: str) -> list[dict[str, Any]]:
        names = self.registry.names()
        if reply.raw_tool_calls:
            text = render("repair", problem=problem, json_mode=self.json_mode, tool_names=names)
            msgs: list[dict[str, Any]] = [
                {"role": "assistant", "content": reply.content or None, "tool_calls": reply.raw_tool_calls}
            ]
            for i, call in enumerate(reply.raw_tool_calls):
                body = text if i == 0 else "Not run: call exactly one tool per reply."
                msgs.append({"role": "tool", "tool_call_id": call["id"], "content": body})
            return msgs
        text = render("repair", problem=problem, json_mode=self.json_mode, tool_names=names)
        return [{"role": "assistant", "content": reply.content}, {"role": "user", "content": text}]

    def decide(self, state: AgentState) -> Decision:
        current: list[ModelUsage] = []
        try:
            return self._decide(state, current)
        except LLMDeciderError:
            self._unrecorded.extend(current)
            raise

    def _decide(self, state: AgentState, current: list[ModelUsage]) -> Decision:
        messages = self.messages(state)
        self.check_budget(state, current)
        reply = self.call(messages, current)
        try:
            decision, from_content = self.interpret(reply)
        except Unusable as first:
            if not reply.tool_calls and not self.json_mode:
                # Prose where a tool call was expected: ask for JSON from here on (the fallback).
                self.json_mode = True
                messages = self.messages(state)
            messages = messages + self.repair_messages(reply, str(first))
            self.check_budget(state, current)
            second = self.call(messages, current)
            try:
                decision, from_content = self.interpret(second)
            except Unusable as again:
                raise ModelOutputError(
                    f"the model returned unusable output twice: first {first}; then {again}", usage=current
                ) from None
        if from_content:
            self.json_mode = True  # the server answers in content; stop sending tools
        return decision.model_copy(update={"usage": list(current)})
