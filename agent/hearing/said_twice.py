"""One message that gives one setting two values ("use gpu 3, also gpu 4", "tp 2. tp 4", "port 30001.
port 30002"): the later would silently replace the earlier, a number the operator gave dropped. Such a
message is not taken; what it says is reported not understood, and the operator says it again."""

from __future__ import annotations

from agent.state import OperatorRules


def _values(rules: OperatorRules) -> dict[str, object]:
    """The settings that hold one value each: the GPUs and port to use, the model, TP, each flag's
    value and each variable's."""
    values: dict[str, object] = {"gpus": rules.use_gpus, "port": rules.use_port, "model": rules.use_model}
    values["tp"] = (rules.layout or {}).get("tp")
    values.update({flag[0]: tuple(flag[1:]) for flag in rules.use_flags})
    values.update({f"${name}": value for name, value in rules.set_env.items()})
    return values


class SaidTwice:
    """Watches a message's clauses as they are read, one after another."""

    def __init__(self, rules: OperatorRules) -> None:
        self._given: dict[str, object] = {}
        self._last = _values(rules)  # what earlier messages set: a new value for it is no second value
        self.found = False

    def read(self, rules: OperatorRules) -> None:
        """After a clause: what it changed, and whether a clause before it in this message set it otherwise."""
        now = _values(rules)
        for name, value in now.items():
            if value != self._last.get(name):
                self.found = self.found or (name in self._given and self._given[name] != value)
                self._given[name] = value
        self._last = now
