"""jq and yq: the files their expressions load, beyond the files they are given."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Invocation, Scope
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.effects import Analyser

_YQ_LOAD = re.compile(r"\bload(?:_str|_xml|_props|_base64)?\(\s*\"([^\"]+)\"\s*\)")
_YQ_ANY_LOAD = re.compile(r"\bload(?:_str|_xml|_props|_base64)?\s*\(")
_JQ_IMPORT = re.compile(r"\b(import|include)\s")


def yq(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`load("F")`, `load_str("F")`: the expression reads that file."""
    generic_reads(an, inv)
    expression = " ".join(argv[1:])
    loaded = _YQ_LOAD.findall(expression)
    inv.reads += [an._path(p) for p in loaded]
    if len(loaded) != len(_YQ_ANY_LOAD.findall(expression)) or "--from-file" in argv:
        inv.opaque = "yq loads a file named only at run time (or reads its expression from a file)"


def jq(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    generic_reads(an, inv)
    if _JQ_IMPORT.search(" ".join(argv[1:])):
        inv.opaque = "jq imports a module or data file the gate does not read"
