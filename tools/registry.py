"""Typed tools: a function whose arguments are one pydantic model; its JSON schema is generated.

    @tool(read_only=True)
    def read_file(ctx: ToolContext, args: ReadFileArgs) -> ToolOutput:
        '''Read the start of a file on the target.'''

The description the model sees is the docstring; the parameters are `ReadFileArgs`'s schema
(field descriptions included). Nothing is written twice.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, get_type_hints

from pydantic import BaseModel, ValidationError

from tools.target import DetachedProcess, Target

ArgsT = TypeVar("ArgsT", bound=BaseModel)


class ToolOutput(BaseModel):
    """What a tool returns. Failures are data (`ok=False`, `error_kind`) the decider can read."""

    tool: str
    ok: bool
    summary: str
    data: dict[str, Any] = {}
    error_kind: str | None = None
    outcome_unknown: bool = False
    started: list[DetachedProcess] = []
    stopped: list[str] = []


@dataclass
class ToolContext:
    """What a tool may use: the target and the processes this agent started on it (by name)."""

    target: Target
    processes: Mapping[str, DetachedProcess] = field(default_factory=dict)
    progress: Callable[[str], None] | None = None  # the loop's status line; long tools say where they are

    def report(self, text: str) -> None:
        """Tell the operator where a long step is (a phase, a count); a no-op when nobody watches."""
        if self.progress is not None:
            self.progress(text)


def not_owned(tool_name: str, ctx: ToolContext, name: str) -> ToolOutput:
    """The refusal for a process name this agent did not start (it never touches those)."""
    known = ", ".join(sorted(ctx.processes)) or "none"
    return ToolOutput(
        tool=tool_name,
        ok=False,
        summary=f"refused: {name!r} was not started by this agent (started: {known})",
        error_kind="not_owned",
    )


class ToolArgumentError(ValueError):
    """The arguments do not fit the tool's model; the message is for the model to fix them."""


@dataclass(frozen=True)
class Tool(Generic[ArgsT]):
    name: str
    description: str
    args_model: type[ArgsT]
    func: Callable[[ToolContext, ArgsT], ToolOutput] | None
    read_only: bool = False
    control: bool = False  # handled by the loop itself (ask_operator, finish), not run on a target

    def json_schema(self) -> dict[str, Any]:
        return self.args_model.model_json_schema()

    def openai_spec(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.json_schema(),
            },
        }

    def parse_args(self, raw: Mapping[str, Any]) -> ArgsT:
        try:
            return self.args_model.model_validate(dict(raw))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}" for err in exc.errors()
            )
            raise ToolArgumentError(f"invalid arguments for {self.name}: {problems}") from exc

    def invoke(self, ctx: ToolContext, raw: Mapping[str, Any]) -> ToolOutput:
        if self.func is None:
            raise RuntimeError(f"{self.name} is a control tool; the loop handles it")
        return self.func(ctx, self.parse_args(raw))


def tool(
    *, name: str | None = None, read_only: bool = False, control: bool = False
) -> Callable[[Callable[[ToolContext, ArgsT], ToolOutput]], Tool[ArgsT]]:
    """Turn a typed function into a `Tool`; the args model comes from its second parameter."""

    def wrap(func: Callable[[ToolContext, ArgsT], ToolOutput]) -> Tool[ArgsT]:
        hints = get_type_hints(func)
        params = list(inspect.signature(func).parameters)
        if len(params) != 2:
            raise TypeError(f"tool {func.__name__} must take (ctx, args)")
        args_model = hints[params[1]]
        doc = inspect.getdoc(func) or ""
        if not doc:
            raise TypeError(f"tool {func.__name__} needs a docstring: it is the model's description")
        return Tool(
            name=name or func.__name__,
            description=doc,
            args_model=args_model,
            func=func,
            read_only=read_only,
            control=control,
        )

    return wrap


def control_tool(name: str, args_model: type[ArgsT], description: str) -> Tool[ArgsT]:
    return Tool(name=name, description=description, args_model=args_model, func=None, control=True)


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for item in tools:
            self.register(item)

    def register(self, item: Tool[Any]) -> None:
        if item.name in self._tools:
            raise ValueError(f"tool {item.name!r} registered twice")
        self._tools[item.name] = item

    def get(self, name: str) -> Tool[Any]:
        try:
            return self._tools[name]
        except KeyError:
            known = ", ".join(sorted(self._tools))
            raise ToolArgumentError(f"unknown tool {name!r}; the tools are: {known}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def names(self) -> list[str]:
        return sorted(self._tools)

    def tools(self) -> list[Tool[Any]]:
        return [self._tools[n] for n in self.names()]

    def openai_specs(self) -> list[dict[str, Any]]:
        return [t.openai_spec() for t in self.tools()]
