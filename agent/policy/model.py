"""The policy language as pydantic models: what a YAML policy file may contain.

Every model forbids unknown fields, so a misspelt key is an error at load time, never a
silently ignored constraint. `policies/README.md` documents the same schema for operators.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agent.verdict import VerdictWord

SignalTarget = Literal["own", "init", "all", "foreign", "pattern", "port", "unknown"]
STRICTNESS: dict[str, int] = {"allow": 0, "ask": 1, "deny": 2}


def _as_list(value: Any) -> Any:
    """Lets a policy write `program: reboot` for `program: [reboot]`."""
    if isinstance(value, str | int):
        return [value]
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Match(_Strict):
    """What a command (or tool action) must do for a rule to apply; every field given must hold."""

    program: list[str] = Field(default=[], description="basename globs of the program run")
    program_path: list[str] = Field(default=[], description="globs on the program's normalised path")
    subcommand: list[str] = Field(default=[], description="globs on the first non-option argument")
    args: list[list[str]] = Field(default=[], description="argument-list prefixes (globs); any one")
    arg_any: list[str] = Field(default=[], description="some argument matches one of these globs")
    options: list[str] = Field(default=[], description="some argument is one of these options (or opt=...)")
    flags: str = Field(default="", description="short-flag letters; some -xyz cluster holds one")
    args_regex: str | None = Field(default=None, description="regex searched in the joined arguments")
    writes: list[str] = Field(default=[], description="some written path matches")
    writes_outside: list[str] = Field(default=[], description="some written path matches none of these")
    deletes: list[str] = Field(default=[], description="some deleted path matches")
    deletes_outside: list[str] = Field(default=[], description="some deleted path matches none of these")
    reads: list[str] = Field(default=[], description="some read path matches")
    reads_outside: list[str] = Field(default=[], description="some read path matches none of these")
    paths_within: list[str] = Field(default=[], description="every written/deleted path matches one")
    write_content: list[str] = Field(default=[], description="text written matches (unknown matches)")
    signals_to: list[SignalTarget] = Field(default=[], description="a signal goes to such a process")
    env: list[str] = Field(default=[], description="NAME or NAME=glob environment assignments")
    gpus_outside_agent: bool = Field(default=False, description="uses a GPU outside facts.agent_gpus")
    prints_secret_variables: bool = Field(
        default=False, description="prints every variable, or one named like a secret (HF_TOKEN)"
    )
    tool: list[str] = Field(default=[], description="structured tool names (launch_server, ...)")

    _list_fields: ClassVar[tuple[str, ...]] = (
        "program",
        "program_path",
        "subcommand",
        "arg_any",
        "options",
        "writes",
        "writes_outside",
        "deletes",
        "deletes_outside",
        "reads",
        "reads_outside",
        "paths_within",
        "write_content",
        "signals_to",
        "env",
        "tool",
    )

    @model_validator(mode="before")
    @classmethod
    def _scalars_to_lists(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for name in cls._list_fields:
                if name in data:
                    data[name] = _as_list(data[name])
            args = data.get("args")
            if isinstance(args, list) and args and all(isinstance(a, str) for a in args):
                data["args"] = [args]
        return data

    @field_validator("args_regex")
    @classmethod
    def _regex_compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"regex does not compile: {exc}") from exc
        return value

    def is_empty(self) -> bool:
        return not any(getattr(self, name) for name in type(self).model_fields)


class Rule(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    decision: VerdictWord
    reason: str = Field(min_length=1)
    match: Match
    unless: Match | None = Field(default=None, description="the rule does not apply when this surely holds")
    description: str = ""

    @model_validator(mode="after")
    def _has_matcher(self) -> Rule:
        if self.match.is_empty():
            raise ValueError("rule has no matcher: give at least one field under 'match'")
        return self


class ExampleAction(_Strict):
    tool: str
    args: dict[str, Any] = {}


class Example(_Strict):
    """A command (or tool action) and the decision the policy must give it."""

    command: str | None = None
    action: ExampleAction | None = None
    decision: VerdictWord
    rule: str | None = Field(default=None, description="a rule id expected among the deciding rules")
    category: str = "general"
    note: str = ""

    @model_validator(mode="after")
    def _one_subject(self) -> Example:
        if (self.command is None) == (self.action is None):
            raise ValueError("an example needs exactly one of 'command' or 'action'")
        return self


class HostFacts(_Strict):
    """Facts about one host that rules refer to as {name}; an overlay file may hold only these."""

    work_dir: str | None = None
    home: str | None = None
    cwd: str | None = Field(default=None, description="where commands start; the work dir if unset")
    agent_pid_files: list[str] = []
    agent_gpus: list[int] | None = None
    agent_gpu_pci: list[str] = []
    agent_gpu_uuids: list[str] = Field(default=[], description="nvidia-smi -L UUIDs (GPU-...) of the agent's GPUs")
    protected_gpus: list[int] = []
    protected_pci: list[str] = []
    protected_iommu_groups: list[int] = []
    pci_iommu_group: dict[str, int] = {}
    protected_vm_ids: list[str] = []
    protected_paths: list[str] = []
    secret_paths: list[str] = []
    known_symlinks: dict[str, str] = {}

    @field_validator("protected_vm_ids", mode="before")
    @classmethod
    def _vm_ids_as_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) for v in value]
        return value

    @field_validator("agent_gpu_pci", "protected_pci", mode="after")
    @classmethod
    def _pci_lower(cls, value: list[str]) -> list[str]:
        return [normalise_pci(v) for v in value]

    @field_validator("pci_iommu_group", mode="after")
    @classmethod
    def _pci_keys(cls, value: dict[str, int]) -> dict[str, int]:
        return {normalise_pci(k): v for k, v in value.items()}


_PCI_RE = re.compile(r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$")


def normalise_pci(address: str) -> str:
    """`41:00.0` and `0000:41:00.0` name the same device; sysfs spells it the long way."""
    m = _PCI_RE.match(address.strip())
    if not m:
        raise ValueError(f"not a PCI address: {address!r} (expected like 0000:41:00.0)")
    domain = (m.group(1) or "0000")[-4:]
    return f"{domain}:{m.group(2)}:{m.group(3)}.{m.group(4)}".lower()


class PolicyFile(_Strict):
    version: Literal[1] = 1
    description: str = ""
    default: VerdictWord | None = Field(default=None, description="for commands no rule names")
    fail_closed: Literal["ask", "deny"] | None = Field(
        default=None, description="for what cannot be judged (never allow)"
    )
    facts: HostFacts = HostFacts()
    rules: list[Rule] = []
    examples: list[Example] = []
    example_facts: HostFacts | None = Field(
        default=None, description="host facts the examples are judged on (policy test only)"
    )
    sandbox: Literal["require", "auto", "off"] | None = Field(
        default=None,
        description="run commands inside bubblewrap: require (the SSH default), auto (the local default), off",
    )
    sandbox_writable: list[str] = Field(
        default=[], description="paths writable inside the sandbox besides the work directory (absolute or ~/...)"
    )

    sandbox_ports: list[int] = Field(
        default=[],
        description="TCP ports commands inside the sandbox may connect to and bind besides the run's own "
        "(Landlock): 443 for model downloads, a registry's port",
    )
    sandbox_readable: list[str] = Field(
        default=[], description="paths shown read-only inside the sandbox though hidden by default (absolute or ~/...)"
    )

    @field_validator("sandbox_ports")
    @classmethod
    def _ports_in_range(cls, value: list[int]) -> list[int]:
        bad = [p for p in value if not 1 <= p <= 65535]
        if bad:
            raise ValueError(f"{bad} is not a TCP port (1-65535)")
        return value

    @field_validator("sandbox", mode="before")
    @classmethod
    def _off_is_a_word(cls, value: Any) -> Any:
        return "off" if value is False else value  # YAML reads a bare `off` as false

    @field_validator("sandbox_writable", "sandbox_readable")
    @classmethod
    def _writable_absolute(cls, value: list[str]) -> list[str]:
        for path in value:
            if not (path.startswith("/") or path == "~" or path.startswith("~/")):
                raise ValueError(f"{path!r} is not absolute (write /path or ~/path)")
            if path.rstrip("/") in ("", "~"):
                raise ValueError(f"{path!r} would make the whole tree writable")
        return value
