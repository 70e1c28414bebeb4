"""The launch_server flags of every released SGLang, as real argparse parsers built from data.

`sglang_data/<release>.json` is written by `scripts/gen-sglang-flags` from each released wheel's
own parser (`ServerArgs.add_cli_args` via `prepare_server_args`): every option string, dest,
action, nargs, type, choices, default, metavar and help. This module turns a release's data back
into a real `argparse.ArgumentParser` (allow_abbrev included), so abbreviations, ambiguity, bad
choices, bad types, usage lines and error messages come out exactly as that release prints them.
Version boundaries (a flag added, renamed, removed; a choice list changed) come from the data.

A scenario's `software.sglang` selects the nearest release at or below it (a version older than
the first recorded release gets the first one); post releases whose parser is identical to the
release before them have no file of their own and resolve to it.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, NoReturn

DATA_DIR = Path(__file__).resolve().parent / "sglang_data"
PROG = "launch_server.py"  # argv[0]'s name under `python -m sglang.launch_server`
SERVE_PROG = "sglang"  # argv[0]'s name under `sglang serve`
HELP_WIDTH = 78  # argparse uses the terminal width minus 2; 80 columns when there is no terminal

# ServerArgs.from_cli_args copies these argparse dests onto the ServerArgs field names
# (sglang/srt/server_args.py:5070 in 0.5.9, :7271 in 0.5.13); from 0.5.14 the dests are the field names.
FIELD_OF_DEST = {
    "tensor_parallel_size": "tp_size",
    "pipeline_parallel_size": "pp_size",
    "attention_context_parallel_size": "attn_cp_size",
    "moe_data_parallel_size": "moe_dp_size",
    "data_parallel_size": "dp_size",
    "expert_parallel_size": "ep_size",
}


def version_key(version: str) -> tuple[int, ...]:
    """'0.5.23' -> (0, 5, 23); '0.5.10.post1' -> (0, 5, 10, 1); '+cu130'-style suffixes are ignored."""
    numbers: list[int] = []
    for part in re.split(r"[.+-]", version.replace("post", ".post")):
        if part.startswith("post") and part[4:].isdigit():
            numbers.append(int(part[4:]))
            break
        digits = re.match(r"\d+", part)
        if digits is None or len(numbers) >= 3:
            break
        numbers.append(int(digits.group()))
    while len(numbers) < 3:
        numbers.append(0)
    return tuple(numbers)


def version_tuple(version: str) -> tuple[int, int, int]:
    key = version_key(version)
    return (key[0], key[1], key[2])


@functools.lru_cache(maxsize=1)
def releases() -> tuple[str, ...]:
    """The releases with recorded data, oldest first."""
    return tuple(sorted((p.stem for p in DATA_DIR.glob("*.json")), key=version_key))


@functools.lru_cache(maxsize=64)
def release_for(version: str) -> str:
    """The recorded release `version` behaves as: the nearest at or below it, else the first."""
    known = releases()
    if not known:
        raise FileNotFoundError(f"no SGLang flag data in {DATA_DIR}; run scripts/gen-sglang-flags")
    key = version_key(version)
    at_or_below = [r for r in known if version_key(r) <= key]
    return at_or_below[-1] if at_or_below else known[0]


@functools.lru_cache(maxsize=32)
def release_data(version: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA_DIR / f"{release_for(version)}.json").read_text())
    return data


def has_serve(version: str) -> bool:
    """Whether the release installs the `sglang` program with its `serve` subcommand."""
    data = release_data(version)
    points = data.get("entry_points", [])
    return bool(data.get("has_serve")) and any(p.replace(" ", "").startswith("sglang=") for p in points)


def prog_for(version: str, entry: str = "module") -> str:
    """The name argparse prints: fixed by the release (`sglang serve` from 0.5.14), else argv[0]'s."""
    fixed = release_data(version).get("prog")
    if isinstance(fixed, str):
        return fixed
    return SERVE_PROG if entry == "serve" else PROG


# ---- the release's argparse types, reproduced (their names appear in argparse's errors) ----------


def loads(value: str) -> Any:
    return json.loads(value)


def json_list_type(value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(f"Invalid JSON list: {value}. Please provide a valid JSON list.") from None


def nullable_str(val: str) -> str | None:
    if not val or val == "None":
        return None
    return val


def human_readable_int(value: str) -> int:
    """sglang/srt/utils/common.py human_readable_int (0.5.14+): 32k, 1M, 128Ki, ..."""
    value = value.strip()
    si = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    iec = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", value)
    if match:
        number, suffix = match.groups()
        if suffix in iec:
            if "." in number:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with IEC suffixes like '{suffix}'. "
                    f"Use an integer IEC value such as '{int(Decimal(number))}{suffix}', "
                    f"or an SI value such as '{number}{suffix[0]}'."
                )
            return int(number) * iec[suffix]
        return int(Decimal(number) * si[suffix])
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"Invalid integer value: '{value}'. "
            "Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). "
            "Suffixes are case-sensitive."
        ) from None


def parse_cuda_graph_backend_arg(raw: str) -> str:
    if raw == "tc_piecewise":
        raise argparse.ArgumentTypeError("tc_piecewise was removed; select breakable, full, or disabled")
    return raw


def _cuda_graph_config_type(type_data: dict[str, Any]) -> Callable[[str], Any]:
    """--cuda-graph-config's JSON check, with the release's phases and keys (as their reprs)."""
    phases_repr = str(type_data["phases"])
    keys_repr: dict[str, str] = dict(type_data["keys"])

    def parse_cuda_graph_config_arg(raw: str) -> dict[str, dict[str, Any]]:
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError as e:
            raise argparse.ArgumentTypeError(f"--cuda-graph-config must be JSON: {e}") from None
        if not isinstance(parsed, dict):
            raise argparse.ArgumentTypeError(f"--cuda-graph-config must be a JSON object, got {type(parsed).__name__}")
        result: dict[str, dict[str, Any]] = {}
        for phase, settings in parsed.items():
            phase = str(phase)
            if phase not in keys_repr:
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config: unknown phase '{phase}', expected one of {phases_repr}"
                )
            if not isinstance(settings, dict):
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config['{phase}'] must be a JSON object, got {type(settings).__name__}"
                )
            if "backend" in settings:
                parse_cuda_graph_backend_arg(settings["backend"])
            result[phase] = {}
            for key, value in settings.items():
                if f"'{key}'" not in keys_repr[phase]:
                    raise argparse.ArgumentTypeError(
                        f"--cuda-graph-config['{phase}']: unknown key '{key}', expected one of {keys_repr[phase]}"
                    )
                result[phase][key] = value
        return result

    return parse_cuda_graph_config_arg


TYPES: dict[str, Callable[[str], Any]] = {
    "int": int,
    "float": float,
    "str": str,
    "json": loads,
    "json_list_type": json_list_type,
    "nullable_str": nullable_str,
    "human_readable_int": human_readable_int,
    "parse_cuda_graph_backend_arg": parse_cuda_graph_backend_arg,
}


# ---- the release's own argparse actions (sglang/srt/arg_groups/argparse_actions.py) --------------


class LoRAPathAction(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        paths: list[Any] = []
        for value in values or []:
            value = value.strip()
            if value.startswith("{") and value.endswith("}"):
                try:
                    paths.append(json.loads(value))
                    continue
                except json.JSONDecodeError:
                    pass
            paths.append(value)
        setattr(namespace, self.dest, paths)


class DeprecatedAction(argparse.Action):
    """A retired flag: with an error message it stops the launch, else it only warns."""

    def __init__(self, option_strings: Any, dest: str, error_message: str | None = None, **kw: Any) -> None:
        self.error_message = error_message
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        if self.error_message is not None:
            parser.error(self.error_message)


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings: Any, dest: str, new_flag: str | None = None, **kw: Any) -> None:
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, True)


class DeprecatedStoreConstAction(argparse.Action):
    def __init__(
        self, option_strings: Any, dest: str, new_flag: str | None = None, const_value: Any = None, **kw: Any
    ) -> None:
        self.new_flag, self.const_value = new_flag, const_value
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, self.const_value)


class DeprecatedAliasStoreAction(argparse.Action):
    def __init__(self, option_strings: Any, dest: str, new_flag: str | None = None, **kw: Any) -> None:
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)


CUSTOM_ACTIONS: dict[str, type[argparse.Action]] = {
    "LoRAPathAction": LoRAPathAction,
    "DeprecatedAction": DeprecatedAction,
    "DeprecatedStoreTrueAction": DeprecatedStoreTrueAction,
    "DeprecatedStoreConstAction": DeprecatedStoreConstAction,
    "DeprecatedAliasStoreAction": DeprecatedAliasStoreAction,
}
# which add_argument keywords each standard action accepts
STANDARD: dict[str, tuple[str, ...]] = {
    "store": ("nargs", "const", "default", "type", "choices", "required", "metavar", "help"),
    "append": ("nargs", "const", "default", "type", "choices", "required", "metavar", "help"),
    "store_const": ("const", "default", "required", "metavar", "help"),
    "append_const": ("const", "default", "required", "metavar", "help"),
    "store_true": ("default", "required", "help"),
    "store_false": ("default", "required", "help"),
    "count": ("default", "required", "help"),
    "boolean_optional": ("default", "type", "choices", "required", "metavar", "help"),
}
CUSTOM_KEYS = ("nargs", "const", "default", "type", "choices", "required", "metavar", "help")


class ArgumentError(Exception):
    """What argparse would print before exiting with status 2."""

    def __init__(self, usage: str, message: str, prog: str = PROG) -> None:
        super().__init__(message)
        self.usage = usage
        self.message = message
        self.prog = prog

    def stderr(self) -> str:
        return f"{self.usage}{self.prog}: error: {self.message}\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgumentError(self.format_usage(), message, self.prog)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise ArgumentError(self.format_usage(), message or f"exit {status}", self.prog)


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=HELP_WIDTH)


def _value(entry: dict[str, Any], key: str) -> Any:
    value = entry[key]
    if key == "type":
        if value == "parse_cuda_graph_config_arg":
            return _cuda_graph_config_type(entry["type_data"])
        if value not in TYPES:
            raise LookupError(f"SGLang flag data names argparse type {value!r}; add it to sglang_flags.TYPES")
        return TYPES[value]
    if key == "metavar" and isinstance(value, list):
        return tuple(value)
    if key == "default" and isinstance(value, dict) and set(value) == {"repr"}:
        return None  # a default computed on the machine (recorded as its type name only)
    return value


def _boolean_optional_opts(opts: list[str]) -> list[str]:
    """BooleanOptionalAction adds the --no-X spellings itself: pass only the ones it derives them from."""
    return [o for o in opts if not (o.startswith("--no-") and "--" + o[5:] in opts)]


def _add(parser: argparse.ArgumentParser, entry: dict[str, Any]) -> None:
    kind = entry["action"]
    opts: list[str] = list(entry["opts"])
    kw: dict[str, Any] = {"dest": entry["dest"]}
    if kind in STANDARD:
        kw["action"] = argparse.BooleanOptionalAction if kind == "boolean_optional" else kind
        keys: tuple[str, ...] = STANDARD[kind]
        if kind == "boolean_optional":
            opts = _boolean_optional_opts(opts)
    elif kind in CUSTOM_ACTIONS:
        kw["action"] = CUSTOM_ACTIONS[kind]
        keys = CUSTOM_KEYS
        for attr in ("error_message", "new_flag", "const_value"):
            if attr in entry:
                kw[attr] = entry[attr]
    else:
        raise LookupError(f"SGLang flag data names argparse action {kind!r}; add it to sglang_flags")
    for key in keys:
        if key in entry:
            kw[key] = _value(entry, key)
    if "default" in keys and "default" not in entry:
        kw["default"] = None  # recorded only when not None (store_true's own default would be False)
    if entry.get("default_suppress"):
        kw["default"] = argparse.SUPPRESS
    if entry.get("help_suppressed"):
        kw["help"] = argparse.SUPPRESS
    if kind in CUSTOM_ACTIONS and "nargs" not in entry and kind != "LoRAPathAction":
        kw["nargs"] = None
    parser.add_argument(*opts, **kw)


@functools.lru_cache(maxsize=32)
def _build(release: str, prog: str) -> argparse.ArgumentParser:
    data = release_data(release)
    parser = _Parser(
        prog=prog,
        formatter_class=_formatter,
        allow_abbrev=bool(data.get("allow_abbrev", True)),
        prefix_chars=str(data.get("prefix_chars", "-")),
    )
    for entry in data["actions"]:
        if entry["action"] == "help":
            continue  # the parser's own -h/--help
        _add(parser, entry)
    return parser


def parser_for(version: str, entry: str = "module") -> argparse.ArgumentParser:
    """The release's parser (built once per release and program name)."""
    return _build(release_for(version), prog_for(version, entry))


def help_text(version: str, entry: str = "module") -> str:
    return _help(release_for(version), prog_for(version, entry))


@functools.lru_cache(maxsize=32)
def _help(release: str, prog: str) -> str:
    """--help is the same text every time; formatting 500 options takes a quarter of a second."""
    return _build(release, prog).format_help()


def parse(version: str, argv: Sequence[str], entry: str = "module") -> argparse.Namespace:
    """Parse launch arguments as that release would; raises ArgumentError (exit status 2).

    The namespace carries both spellings of the parallel sizes: ServerArgs' field names (tp_size,
    as ServerArgs.from_cli_args adds them before 0.5.14, where the dests were the long names) and
    the long names (tensor_parallel_size, for lab code written against them); server_args() drops
    the long ones again."""
    ns = parser_for(version, entry).parse_args(list(argv))
    for dest, name in FIELD_OF_DEST.items():
        if hasattr(ns, dest) and not hasattr(ns, name):
            setattr(ns, name, getattr(ns, dest))
        elif hasattr(ns, name) and not hasattr(ns, dest):
            setattr(ns, dest, getattr(ns, name))
    return ns


@functools.lru_cache(maxsize=32)
def option_dests(version: str) -> dict[str, str]:
    """Every option string of that version -> its ServerArgs field name (aliases included)."""
    out: dict[str, str] = {}
    for entry in release_data(version)["actions"]:
        for option in entry["opts"]:
            out[option] = FIELD_OF_DEST.get(entry["dest"], entry["dest"])
    return out


def dest_of(version: str, option: str) -> str | None:
    return option_dests(version).get(option)


def server_args(ns: argparse.Namespace) -> dict[str, Any]:
    """The ServerArgs fields a parsed namespace amounts to (the names /server_info shows)."""
    return {k: v for k, v in vars(ns).items() if k not in FIELD_OF_DEST}


def default_of(version: str, field: str) -> Any:
    """The parser's default for a ServerArgs field (or argparse dest) of that release."""
    parser = parser_for(version)
    names = [field, *(dest for dest, name in FIELD_OF_DEST.items() if name == field)]
    for name in names:
        value = parser.get_default(name)
        if value is not None:
            return value
    return None
