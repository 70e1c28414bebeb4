"""Which GPUs Python code selects: torch/cupy/jax device calls, CUDA_VISIBLE_DEVICES set in
os.environ, NVML handles and setters."""

from __future__ import annotations

import ast
import shlex

from agent.policy.facts import DYN
from agent.policy.programs.python.core import _arg, _int_value
from agent.policy.programs.python.network import _Network
from agent.policy.programs.python.tables import (
    _CURRENT_DEVICE,
    _GPU_ENGINES,
    _GPU_KEYWORDS,
    _GPU_MODULES,
    _GPU_SELECTORS,
    _GPU_STRING,
    _GPU_VARS,
    _NVML_SETTERS,
)


class _Gpus(_Network):
    def gpu_index(self, node: ast.expr | None, depth: int = 0) -> list[str] | None:
        """The GPU indexes a device operand names: `5`, `"cuda:5"`, `torch.device("cuda", 5)`, a name
        bound to one, a loop over `range(N)`; None where it names none (`"cuda"`, `"cpu"`), ["all"]
        where it is only known at run time."""
        if node is None or depth > 20:
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or node.value is None:
                return None
            if isinstance(node.value, int):
                return [str(node.value)] if node.value >= 0 else None
            if isinstance(node.value, str):
                return self.gpu_text(node.value)
            return None
        if isinstance(node, ast.Name):
            if node.id in self.consts:
                return self.gpu_index(self.consts[node.id], depth + 1)
            return self.loop_range(node.id) or ["all"]
        if isinstance(node, ast.List | ast.Tuple):
            found = [self.gpu_index(e, depth + 1) for e in node.elts]
            return [g for f in found for g in f or []] or None
        if isinstance(node, ast.Call) and self.name(node.func) == "torch.device":
            kind_node = _arg(node, 0, "type")
            kind = self.gpu_index(kind_node, depth + 1)
            index = _arg(node, 1, "index")
            if index is not None and kind is None:
                first = self.string(kind_node)
                if DYN in first:
                    return ["all"]
                return self.gpu_index(index, depth + 1) if first.lower().startswith("cuda") else None
            return kind
        if isinstance(node, ast.Call) and self.name(node.func) in _CURRENT_DEVICE:
            return None  # `torch.cuda.current_device()`: the one the process already uses
        if isinstance(node, ast.Dict):  # `device_map={"": 5, "lm_head": 6}`
            found = [self.gpu_index(v, depth + 1) for v in node.values]
            return [g for f in found for g in f or []] or None
        if isinstance(node, ast.BinOp | ast.UnaryOp):  # `2 + 3`: an index worked out from literals
            value = _int_value(node)
            return [str(value)] if value is not None and value >= 0 else ["all"]
        if isinstance(node, ast.IfExp | ast.BoolOp):
            branches = [node.body, node.orelse] if isinstance(node, ast.IfExp) else node.values
            each = [self.gpu_index(b, depth + 1) for b in branches]
            return None if all(e is None for e in each) else [g for e in each for g in e or []]
        text = self.string(node)
        if DYN not in text:
            return self.gpu_text(text)
        template = self.gpu_template(node, depth)
        return template if template is not None else ["all"]  # an index only known at run time

    def gpu_template(self, node: ast.expr, depth: int = 0) -> list[str] | None:
        """`f"cuda:{i}"`, `"cuda:" + str(i)`, `"cuda:%d" % i`, `"cuda:{}".format(i)`: the GPUs `i` names."""
        prefix: str = DYN
        index: ast.expr | None = None
        if isinstance(node, ast.JoinedStr) and len(node.values) == 2:
            first, second = node.values
            prefix = self.string(first) + "{}"
            index = second.value if isinstance(second, ast.FormattedValue) else None
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            prefix, index = self.string(node.left) + "{}", node.right
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            prefix, index = self.string(node.left), node.right
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            prefix, index = self.string(node.func.value), node.args[0] if len(node.args) == 1 else None
        else:
            return None
        m = None if DYN in prefix else _GPU_STRING.fullmatch(prefix)
        if m is None:
            return None
        if m.group(1) not in ("{}", "%d", "%s", "%i"):
            return ["all"] if any(c in m.group(1) for c in "{%") else None
        while isinstance(index, ast.Call) and self.name(index.func) in ("str", "int") and len(index.args) == 1:
            index = index.args[0]
        if index is None or depth > 20:
            return ["all"]
        found = self.gpu_index(index, depth + 1)
        return found if found is not None else ["all"]

    def gpu_text(self, text: str) -> list[str] | None:
        if text.strip() in ("auto", "balanced", "balanced_low_0", "sequential"):
            return ["all"]  # `device_map="auto"`: every GPU the process sees
        m = _GPU_STRING.fullmatch(text.strip())
        if m is None:
            return None
        rest = m.group(1).strip()
        return [str(int(rest))] if rest.isdigit() else None

    def engine_gpus(self, node: ast.Call, name: str) -> list[str]:
        """`sgl.Engine(tp_size=8, base_gpu_id=4)`, `vllm.LLM(tensor_parallel_size=8)`: the GPUs its
        workers take, from the first one on; all of them where a number is not literal."""
        tp_key, dp_key, pp_key, base_key, step_key = _GPU_ENGINES[name]
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if any(k.arg is None for k in node.keywords):
            return ["all"]  # `**server_args`
        numbers = []
        for key, default in ((tp_key, 1), (dp_key, 1), (pp_key, 1), (base_key, 0), (step_key, 1)):
            given = kw.get(key) if key else None
            value = _int_value(given) if given is not None else default
            if value is None or value < 0:
                return ["all"]
            numbers.append(value)
        tp, dp, pp, base, step = numbers
        return [str(base + i * step) for i in range(min(tp * dp * pp, 64))]

    def nvml_handle(self, node: ast.expr | None, depth: int = 0) -> str:
        """The GPU an NVML handle is for: `nvmlDeviceGetHandleByIndex(5)`, or a name bound to one."""
        if isinstance(node, ast.Name) and node.id in self.consts and depth < 20:
            return self.nvml_handle(self.consts[node.id], depth + 1)
        if isinstance(node, ast.Call) and self.name(node.func).endswith("nvmlDeviceGetHandleByIndex") and node.args:
            value = _int_value(node.args[0])
            return str(value) if value is not None else "all"
        return "all"

    def loop_range(self, name: str) -> list[str] | None:
        """`for i in range(4)`: the values of a loop variable bound only there."""
        found: list[str] | None = None
        for node in self.nodes:
            if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
                if node.target.id != name:
                    continue
                it = node.iter
                if not (isinstance(it, ast.Call) and self.name(it.func) == "range" and it.args and not it.keywords):
                    return None
                bounds = [self.string(a) for a in it.args]
                if any(not b.isdigit() for b in bounds) or len(bounds) > 2:
                    return None
                lo, hi = (0, int(bounds[0])) if len(bounds) == 1 else (int(bounds[0]), int(bounds[1]))
                if hi - lo > 64:
                    return None
                found = (found or []) + [str(i) for i in range(lo, hi)]
        return found

    def gpus(self) -> None:
        """The GPUs the code names (`device="cuda:5"`, `torch.cuda.set_device(5)`), through the
        CUDA_VISIBLE_DEVICES it sets itself; judged as a command run with them visible, as the shell
        side judges `CUDA_VISIBLE_DEVICES=5 prog`. A bare `"cuda"` is the devices the process sees."""
        gpu_code = any(v.partition(".")[0] in _GPU_MODULES for v in self.aliases.values())
        named: list[str] = []
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)} if gpu_code else set()
        for node in self.nodes:
            found: list[str] | None = None
            if (
                gpu_code
                and isinstance(node, ast.Attribute)
                and node.attr == "cuda"
                and id(node) not in called
                and (
                    isinstance(node.value, ast.Call)
                    or (isinstance(node.value, ast.Name) and node.value.id not in self.aliases)
                )
            ):
                found = ["all"]  # `f = t.cuda; f(5)`: a tensor's `.cuda` passed around, called with any GPU
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = self.gpu_text(node.value) if len(node.value) < 64 else None
            elif isinstance(node, ast.JoinedStr | ast.BinOp):
                found = self.gpu_template(node)
            elif isinstance(node, ast.Call):
                found = self.gpu_template(node)
                name = self.name(node.func)
                attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                if found is not None:
                    pass
                elif name in _GPU_SELECTORS and name != "torch.device":
                    index, key = _GPU_SELECTORS[name]
                    found = self.gpu_index(_arg(node, index, key))
                elif gpu_code and attr == "cuda" and (node.args or node.keywords):
                    found = self.gpu_index(_arg(node, 0, "device"))
                elif name == "torch.device":
                    found = self.gpu_index(node)
                elif gpu_code and attr == "to" and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, int):
                        found = self.gpu_index(first)
                if name in _GPU_ENGINES:
                    found = (found or []) + self.engine_gpus(node, name)
                if name.startswith(_NVML_SETTERS):  # `nvmlDeviceSetPowerManagementLimit(handle, ...)`
                    self.out.commands.append(f"nvidia-smi -i {self.nvml_handle(_arg(node, 0, 'handle'))} -pl 1")
                if gpu_code:
                    for k in node.keywords:
                        if k.arg in _GPU_KEYWORDS:
                            found = (found or []) + (self.gpu_index(k.value) or [])
            named += found or []
        names_gpu_var = any(isinstance(n, ast.Constant) and n.value in _GPU_VARS for n in self.nodes)
        if self.env_set is None:
            if named or names_gpu_var:  # the code sets variables the gate cannot follow
                self.out.commands.append("CUDA_VISIBLE_DEVICES=all true")
            return
        visible = next((v for k, v in reversed(self.env_set) if k == "CUDA_VISIBLE_DEVICES"), None)
        sets_gpus = any(k in _GPU_VARS for k, _ in self.env_set)
        if not named and not sets_gpus:
            return
        physical: list[str] = []
        for g in sorted(set(named)):
            if visible is None or g == "all":
                physical.append(g)
                continue
            ids = [i.strip() for i in visible.split(",") if i.strip()]
            physical.append(ids[int(g)] if int(g) < len(ids) else "all")
        exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in self.env_set if k.isidentifier())
        run = f"CUDA_VISIBLE_DEVICES={shlex.quote(','.join(physical))} true" if physical else "true"
        self.out.commands.append(exports + run)
