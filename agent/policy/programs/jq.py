"""jq and yq: the files their expressions load, beyond the files they are given."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import Ctx, Hook, Invocation, Scope
from agent.policy.options import long_option, operands
from agent.policy.programs.base import printenv_hooks
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

_YQ_LOAD = re.compile(r"\bload(?:_str|_xml|_props|_base64)?\(\s*\"([^\"]+)\"\s*\)")
_YQ_ANY_LOAD = re.compile(r"\bload(?:_str|_xml|_props|_base64)?\s*\(")
_JQ_IMPORT = re.compile(r"\b(import|include)\s")


def yq(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`load("F")`, `load_str("F")`: the expression reads that file."""
    generic_reads(an, inv, pattern_first=True)  # its operands are files, after its expression
    expression = " ".join(argv[1:])
    loaded = _YQ_LOAD.findall(expression)
    inv.reads += [an._path(p) for p in loaded]
    if len(loaded) != len(_YQ_ANY_LOAD.findall(expression)) or "--from-file" in argv:
        inv.opaque = "yq loads a file named only at run time (or reads its expression from a file)"


def jq(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    generic_reads(an, inv, pattern_first=True)  # its operands are files, after its filter
    if _JQ_IMPORT.search(" ".join(argv[1:])):
        inv.opaque = "jq imports a module or data file the gate does not read"


# -- files yq writes (outputs.py asks for them through programs/table.py)

_YQ_IN_PLACE = frozenset(("-i", "--inplace", "--in-place"))
# its options that take a value (so the value is not taken for an operand)
_YQ_VALUE_OPTIONS = frozenset(("-o", "--output-format", "-p", "--input-format", "-I", "--indent", "--expression"))


def yq_outputs(args: list[str]) -> list[str]:
    """`yq -i EXPR F...` rewrites its file operands (the first is its expression); `yq -s EXPR`
    writes one file per document, named by an expression evaluated at run time."""
    out: list[str] = []
    if any(a in ("-s", "--split-exp") or a.startswith("--split-exp=") for a in args):
        out.append(DYN)
    given = operands(args, _YQ_VALUE_OPTIONS)
    if any(
        a in _YQ_IN_PLACE
        or long_option(a, _YQ_IN_PLACE) in _YQ_IN_PLACE
        or (a[:1] == "-" and a[1:2] != "-" and "i" in a[1:])
        for a in args
    ):
        out += given[1:]
    return out


OUTPUTS = {"yq": yq_outputs}


# -- the environment printed into the transcript (hooks.py asks, through programs/table.py)


def jq_environment(name: str, program: str) -> list[Hook]:
    """`jq -n env`, `jq '$ENV.HF_TOKEN'`: every variable (the policy asks)."""
    if re.search(r"\$ENV\b|(?<![\w.$])env\b", program):
        return [Hook("jq env", argv=("env",))]
    return []


def yq_environment(name: str, program: str) -> list[Hook]:
    """mikefarah's yq: `env(NAME)`, `strenv(NAME)`, `${NAME}` with envsubst."""
    if re.search(r"\$ENV\b|(?<![\w.$])env\b(?!\s*\()|envsubst", program):
        return [Hook("yq env", argv=("env",))]
    return printenv_hooks(re.findall(r"(?:str)?env\(\s*\"?([A-Za-z_][A-Za-z0-9_]*)", program), name)


PRINTED_ENVIRONMENT = {"jq": jq_environment, "yq": yq_environment}
