"""A QWERTY keyboard's neighbouring keys: a letter typed for the one beside it is a slip of the finger
("cuds" for "cuda"), where a letter from across the board is another word ("step" for "stop")."""

from __future__ import annotations

# each row sits half a key right of the one above it
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _around(row: int, col: int) -> str:
    near = [(row, col - 1), (row, col + 1), (row - 1, col), (row - 1, col + 1), (row + 1, col - 1), (row + 1, col)]
    return "".join(_ROWS[r][c] for r, c in near if 0 <= r < len(_ROWS) and 0 <= c < len(_ROWS[r]))


_AROUND = {key: _around(r, c) for r, line in enumerate(_ROWS) for c, key in enumerate(line)}


def beside(typed: str, meant: str) -> bool:
    """Whether the key `typed` is next to the key `meant` (letters, either case)."""
    return meant.lower() in _AROUND.get(typed.lower(), "")


def slipped(typed: str, meant: str) -> bool:
    """Whether `typed` is `meant` with each differing letter a neighbouring key ("fo" for "go")."""
    if len(typed) != len(meant) or typed.lower() == meant.lower():
        return False
    return all(a == b or beside(a, b) for a, b in zip(typed.lower(), meant.lower(), strict=True))
