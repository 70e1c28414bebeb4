"""Python code (`python3 -c`) that reaches commands, files, processes and secrets through APIs the
gate used to miss: other module names, star-imports, reflection, numeric flags, a changed cwd."""

from __future__ import annotations

import pytest

from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet
from agent.policy.programs.python import analysis as pyeffects

W = "/home/ops/opsagent-work"


def py(code: str) -> str:
    return f"python3 -c '{code}'"


@pytest.mark.parametrize(
    "code",
    [
        # running commands
        'import posix; posix.system("rm -rf /models")',
        'import nt; nt.system("reboot")',
        'import sys; sys.modules["os"].system("rm -rf /models")',
        'from os import *; system("rm -rf /models")',
        'from shutil import *; rmtree("/models")',
        'from os import *; unlink("/models/x")',
        'from os import *; open("/models/x", 1)',
        'from subprocess import *; run(["reboot"])',
        'import operator, os; operator.methodcaller("system", "rm -rf /models")(os)',
        'import os; os.__getattribute__("system")("rm -rf /models")',
        'print([c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "Popen"][0](["reboot"]))',
        'import builtins; builtins.exec("import os")',
        'from torch import *; system("reboot")',
        'import pkgutil; pkgutil.resolve_name("os:system")("reboot")',
        'import timeit; timeit.timeit("import os")',
        'import pydoc; pydoc.pipepager("x", "rm -rf /models")',
        'import subprocess; subprocess.Popen(executable="/bin/rm", args=["x", "-rf", "/models"])',
        'import subprocess; subprocess.run("echo hi", shell=True, executable="/sbin/reboot")',
        'import subprocess; subprocess.run(["rm", "-rf", "llama"], cwd="/models")',
        'import os; os.environ["LD_PRELOAD"] = input(); os.system("ls")',
        # writes and deletes
        'import os; os.truncate("/models/llama/model.safetensors", 0)',
        'import os; os.open("/models/llama/model.safetensors", 577)',
        'import os; os.open("/models/llama/model.safetensors", flags=2)',
        'import os; os.open("/models/llama/model.safetensors", os.O_TRUNC | os.O_CREAT)',
        'import os; f = 1; os.open("/models/llama/model.safetensors", f)',
        'import os; os.renames("/models/llama", "/home/ops/opsagent-work/x")',
        'from pathlib import Path; Path("/models/x").open("w")',
        'from pathlib import Path; Path("/models/x").open(mode="w")',
        'import io; io.FileIO("/models/x", "w")',
        'import codecs; codecs.open("/models/x", "w")',
        'import gzip; gzip.open("/models/x.gz", "wb").write(b"x")',
        'import shutil; shutil.unpack_archive("/home/ops/opsagent-work/a.tar", "/models")',
        'import shutil; shutil.make_archive("/models/llama/x", "gztar", "/home/ops/opsagent-work")',
        'import tarfile; tarfile.open("/home/ops/opsagent-work/a.tar").extractall("/models")',
        'import zipfile; zipfile.ZipFile("/models/x", "w")',
        'import fileinput; [print(x) for x in fileinput.input("/models/x", inplace=True)]',
        'import os; os.symlink("/etc/passwd", "/models/x")',
        'import os; os.link("/etc/passwd", "/models/x")',
        'import os; os.utime("/models/x")',
        'import os; os.mkfifo("/models/f")',
        # signals
        "import posix; posix.kill(1, 9)",
        "import os, signal; signal.pidfd_send_signal(os.pidfd_open(1234), 9)",
        "import os; os.pidfd_open(1234)",
        'import psutil; [p.kill() for p in psutil.process_iter() if "qemu" in p.name()]',
        "import psutil; psutil.Process(1234).terminate()",
        # secrets read
        'from pathlib import Path; print(Path("/home/ops/.ssh/id_rsa").open().read())',
        'from pathlib import Path; print(Path("/home/ops", ".ssh/id_rsa").read_text())',
        'from pathlib import Path; print((Path.home() / ".ssh" / "id_rsa").open().read())',
        'from pathlib import Path; [print(p.open().read()) for p in Path("/home/ops/.ssh").iterdir()]',
        'import io; print(io.FileIO("/home/ops/.ssh/id_rsa").read())',
        'import codecs; print(codecs.open("/home/ops/.ssh/id_rsa").read())',
        'import linecache; print(linecache.getlines("/home/ops/.ssh/id_rsa"))',
        'import linecache; print(linecache.getline("/home/ops/.ssh/id_rsa", 1))',
        'import fileinput; [print(x) for x in fileinput.input("/home/ops/.ssh/id_rsa")]',
        'import numpy as np; print(np.loadtxt("/home/ops/.ssh/id_rsa", dtype=str))',
        'import urllib.request; print(urllib.request.urlopen("file:///home/ops/.ssh/id_rsa").read())',
        # a changed directory
        'import os; os.chdir("/models"); os.remove("llama/model.safetensors")',
        'import os; os.chdir("/home/ops/.ssh"); print(open("id_rsa").read())',
        'import os; os.chdir("/models"); os.system("rm -rf llama")',
        'import os; os.chdir("/models"); open("x", "w")',
        'import os; d = input(); os.chdir(d); os.remove("x")',
        'import os\ndef f(): os.remove("x")\nos.chdir("/models")\nf()',
    ],
)
def test_python_escapes_are_denied(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "deny"


@pytest.mark.parametrize(
    "code",
    [
        'import pip; pip.main(["install", "torch"])',
        "import os; print({**os.environ})",
        "import os; print(os.environ.copy())",
        'import os; print(f"{os.environ}")',
        'import os; os.environ["LD_PRELOAD"] = "/usr/lib/libjemalloc.so.2"; os.system("ls")',
        'import os; os.putenv("LD_PRELOAD", "/usr/lib/libjemalloc.so.2"); os.system("ls")',
        'import subprocess; subprocess.run(["ls"], env={"LD_PRELOAD": "/x.so"})',
        'import os, subprocess; e = os.environ.copy(); e["LD_PRELOAD"] = "/x.so"; subprocess.run(["ls"], env=e)',
    ],
)
def test_python_installs_environment_dumps_and_hijacks_ask(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "ask"


@pytest.mark.parametrize(
    "code",
    [
        # paths the gate now follows instead of judging as "anywhere" (the benign cases around these
        # escapes are policy examples)
        'import os; os.mkdir("/home/ops/opsagent-work/x")',
        'import os; os.chmod("/home/ops/opsagent-work/x", 0o644)',
        'from pathlib import Path; p = Path("/home/ops/opsagent-work/a"); p.write_text("x")',
        'import os; p = "/home/ops/opsagent-work/x"; os.remove(p)',
        'import os; os.remove(os.path.join("/home/ops/opsagent-work", "x"))',
    ],
)
def test_python_paths_the_gate_can_now_follow_are_allowed(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "allow"


def test_effects_are_reported_where_they_land() -> None:
    found = pyeffects.analyse('import os; os.chdir("/srv"); os.remove("a"); open("b", "w")')
    assert found.deletes == ["/srv/a"]
    assert [p for p, _ in found.writes] == ["/srv/b"]
    assert pyeffects.analyse('import os; os.open("/x", 577)').writes == [("/x", None)]
    assert pyeffects.analyse('import os; os.open("/x", os.O_RDONLY | os.O_CLOEXEC)').reads == ["/x"]
    assert pyeffects.analyse('import pydoc; pydoc.pipepager("t", "less")').commands == ["less"]
    popen = 'import subprocess; subprocess.Popen(executable="/bin/rm", args=["x", "-rf", "/m"])'
    assert pyeffects.analyse(popen).commands == ["/bin/rm -rf /m"]
    assert pyeffects.analyse('import pip; pip.main(["install", "torch"])').commands == ["pip install torch"]
    assert pyeffects.analyse('import os; os.symlink("/models", "l")').commands == ["ln -s -- /models l"]
    assert pyeffects.analyse("import posix; posix.kill(7, 9)").signals == ["7"]


REDFISH = "https://10.0.0.5/redfish/v1/Systems/1/Actions/ComputerSystem.Reset"


@pytest.mark.parametrize(
    "code",
    [
        # log files are written
        'import logging; logging.basicConfig(filename="/proc/sysrq-trigger", format="b"); logging.error("x")',
        'import logging; logging.FileHandler("/proc/sysrq-trigger")',
        'import logging.handlers; logging.handlers.RotatingFileHandler("/proc/sysrq-trigger")',
        'from logging.handlers import WatchedFileHandler; WatchedFileHandler(filename="/proc/sysrq-trigger")',
        'import logging.handlers as h; h.TimedRotatingFileHandler("/proc/sysrq-trigger")',
        'import logging; h = logging.FileHandler; h("/proc/sysrq-trigger")',
        'import logging.config; logging.config.fileConfig("/home/ops/opsagent-work/log.ini")',
        'import logging.config; logging.config.dictConfig({"version": 1, "handlers": {"f": '
        '{"class": "logging.FileHandler", "filename": "/proc/sysrq-trigger"}}})',
        # modules reached as attributes of other modules
        'import os.path as p; p.os.system("reboot")',
        'import shutil; shutil.os.system("reboot")',
        'import subprocess; subprocess.os.system("reboot")',
        'import tempfile; tempfile._os.system("reboot")',
        'import pathlib; pathlib.os.system("reboot")',
        'import tempfile; tempfile._os.remove("/models/x")',
        'import json; json.sys.modules["os"].system("reboot")',
        'import shutil as s; m = s; m.os.system("reboot")',
        'import shutil; x = [shutil]; x[0].os.system("reboot")',
        # GPUs outside the agent's
        'import torch; torch.zeros(1, device="cuda:5")',
        'import torch; torch.zeros(1, device=torch.device("cuda", 5))',
        "import torch; torch.cuda.set_device(5)",
        'import torch; torch.cuda.set_device(int("5"))',
        "import cupy; cupy.cuda.Device(5).use()",
        "import torch; torch.zeros(1).cuda(5)",
        'import torch; torch.zeros(1).to("cuda:6")',
        'import torch; d = "cuda:" + "7"; torch.zeros(1, device=d)',
        'import torch; torch.zeros(1, device="cuda:{}".format(6))',
        'import torch; [torch.zeros(1, device=f"cuda:{i}") for i in range(8)]',
        'import torch; torch.zeros(1, device=f"cuda:{input()}")',
        'import os; os.environ["CUDA_VISIBLE_DEVICES"] = "4,5"; import torch; torch.zeros(1, device="cuda:0")',
        'import os; os.environ["CUDA_VISIBLE_DEVICES"] = "5"; import torch; torch.zeros(1, device="cuda")',
        'import os; os.environ["CUDA_VISIBLE_DEVICES"] = input(); import torch; torch.zeros(1, device="cuda:0")',
        # Unix sockets: a write of their path
        'import socket; s=socket.socket(socket.AF_UNIX); s.connect("//run/qemu-server/101.qmp"); s.sendall(b"{}")',
        'import socket; p="/run/qemu-server/101.qmp"; s=socket.socket(socket.AF_UNIX); s.connect(p)',
        'import socket; s=socket.socket(socket.AF_UNIX); s.connect(b"/run/qemu-server/101.qmp")',
        'from socket import *; s=socket(AF_UNIX); s.connect("/run/qemu-server/101.qmp")',
        "import socket; s=socket.socket(socket.AF_UNIX); s.connect(input())",
        # HTTP: judged as curl
        f'import requests; requests.post("{REDFISH}", json={{"ResetType": "ForceRestart"}})',
        f'import urllib.request as u; u.urlopen(u.Request("{REDFISH}", data=b"{{}}"))',
        f'import httpx; httpx.post("{REDFISH}")',
        f'from requests import post; post("{REDFISH}")',
        f'import requests; s = requests.Session(); s.post("{REDFISH}")',
        f'import requests; requests.request("POST", "{REDFISH}")',
        f'import urllib3; urllib3.PoolManager().request("POST", "{REDFISH}")',
        'import httpx\nwith httpx.Client(base_url="https://10.0.0.5") as c:\n    c.post("/redfish/v1/Systems/1/Actions/'
        'ComputerSystem.Reset")',
        'import http.client; c=http.client.HTTPSConnection("10.0.0.5"); c.request("POST", "/redfish/v1/Systems/1/'
        'Actions/ComputerSystem.Reset")',
        'import urllib.request; urllib.request.urlretrieve("http://127.0.0.1:30000/x", "/models/x")',
    ],
)
def test_python_logs_modules_gpus_sockets_and_http_are_judged(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "deny"


@pytest.mark.parametrize(
    "code",
    [
        'import requests; requests.get("https://example.com/x")',
        'import http.client; c=http.client.HTTPConnection("10.0.0.5", 80); c.request("GET", "/")',
    ],
)
def test_python_http_to_other_hosts_asks(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "ask"


def test_python_http_to_a_url_known_at_run_time_is_not_allowed(policy: PolicySet, ctx: GateContext) -> None:
    assert policy.evaluate_command(py("import requests; requests.get(input())"), ctx).decision != "allow"


@pytest.mark.parametrize(
    "code",
    [
        'import json,sys; print(json.load(sys.stdin)["x"])',
        "import torch; print(torch.cuda.is_available())",
        'import torch; x=torch.zeros(1, device="cuda:0")',
        'import torch; x=torch.zeros(1, device="cuda")',
        'import torch; [torch.zeros(1, device=f"cuda:{i}") for i in range(4)]',
        'import torch; d = torch.device("cuda" if torch.cuda.is_available() else "cpu"); torch.zeros(1, device=d)',
        'import os; os.environ["CUDA_VISIBLE_DEVICES"] = "2,3"; import torch; torch.zeros(1, device="cuda:1")',
        'import requests; print(requests.get("http://127.0.0.1:30000/health").status_code)',
        'import requests; print(requests.post("http://localhost:30000/generate", json={"text": "hi"}).json())',
        'import urllib.request; print(urllib.request.urlopen("http://localhost:30000/v1/models").read())',
        'import http.client; c=http.client.HTTPConnection("127.0.0.1", 30000); c.request("GET", "/health")',
        'import logging; logging.basicConfig(level=logging.INFO); logging.info("x")',
        'import logging; logging.basicConfig(filename="/home/ops/opsagent-work/x.log")',
        'import socket; s=socket.socket(); s.connect(("127.0.0.1", 30000))',
        'import sqlite3; c=sqlite3.connect("/home/ops/opsagent-work/x.db")',
        "import signal; signal.signal(signal.SIGINT, signal.SIG_DFL)",
    ],
)
def test_python_benign_logs_gpus_and_http_stay_allowed(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "allow"


def test_new_effects_are_reported() -> None:
    sock = 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("//run/x/../y.sock")'
    assert pyeffects.analyse(sock).writes == [("/run/y.sock", None)]
    found = pyeffects.analyse('import os; os.open("/dev/ipmi0", os.O_RDWR)')
    assert found.reads == ["/dev/ipmi0"] and found.writes == [("/dev/ipmi0", None)]
    assert pyeffects.analyse('import fcntl; f=open("/dev/ipmi0", "rb")').reads == ["/dev/ipmi0"]
    assert pyeffects.analyse('import requests; requests.get("http://127.0.0.1:1/x")').commands == [
        "curl http://127.0.0.1:1/x"
    ]
    assert pyeffects.analyse("import torch; torch.cuda.set_device(5)").commands == ["CUDA_VISIBLE_DEVICES=5 true"]
    assert pyeffects.analyse('import shutil; shutil.os.system("ls")').commands == ["ls"]
    assert pyeffects.analyse('import logging; logging.FileHandler("/x.log")').writes == [("/x.log", None)]


@pytest.mark.parametrize(
    "code",
    [
        # sys.path changes through the names the code binds: a regex on the text saw none of these
        'from sys import path; path.insert(0, "/tmp/x"); import json',
        'import sys as s; p = s.path; p.append("/tmp/x"); import evil',
        'import sys; sys.path[:0] = ["/tmp/x"]; import json',
        'import sys; sys.path += ["/tmp/x"]; import json',
        "import sys; sys.meta_path.clear(); import json",
        'import site; site.addsitedir("/tmp/x"); import evil',
    ],
)
def test_python_changing_the_import_path_is_not_judged(policy: PolicySet, ctx: GateContext, code: str) -> None:
    verdict = policy.evaluate_command(py(code), ctx)
    assert verdict.decision == "deny" and "sys.path" in verdict.reason


@pytest.mark.parametrize(
    "code",
    [
        'from os import getenv as g; print(g("HF_TOKEN"))',
        'import os; e = os.environ; print(e["HF_TOKEN"])',
        'import os as o; print(o.environ.pop("HF_TOKEN"))',
        'import os; k = "HF_" + "TOKEN"; print(os.environ[k])',
        # a name only known at run time may be any variable
        "import os, sys; print(os.environ[sys.argv[1]])",
    ],
)
def test_python_reading_a_secret_variable_asks(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).rules == ["secret-environment-dump"]


@pytest.mark.parametrize(
    "code",
    [
        'import os; print(os.environ.get("CUDA_VISIBLE_DEVICES"))',
        "import sys; print(sys.path)",
        'import sys; print(sys.path.index("/usr/lib"))',
        'print("os.getenv(\\"HF_TOKEN\\")")',  # the words in a string, not a read
    ],
)
def test_python_reading_plain_variables_and_the_import_path_is_allowed(
    policy: PolicySet, ctx: GateContext, code: str
) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "allow"


def test_variables_read_are_reported_by_name() -> None:
    found = pyeffects.analyse('import os; os.getenv("A"); os.environ["B"]; os.environ.get("C", "x")')
    assert found.env_reads == ["A", "B", "C"]
    assert pyeffects.analyse('import os; os.environ["A"] = "1"').env_reads == []


@pytest.mark.parametrize(
    "code",
    [
        # code from text or pickles, and programs started through less-known APIs
        'import yaml; yaml.unsafe_load("!!python/object/apply:os.system [reboot]")',
        'import yaml; yaml.load("x", Loader=yaml.Loader)',
        'import doctest; doctest.run_docstring_examples(">>> 1", {})',
        "import typing; typing.get_type_hints(int)",
        'import webbrowser; webbrowser.get("reboot %s").open("x")',
        'import multiprocessing.util as u; u.spawnv_passfds(b"/sbin/reboot", [b"reboot"], [])',
        'import asyncio; l = asyncio.new_event_loop(); l.run_until_complete(l.subprocess_shell(None, "reboot"))',
        "from torch.utils.cpp_extension import load_inline",
        'import numpy as np; np.load("x.npy", allow_pickle=True)',
        'import sglang.utils as u; u.execute_shell_command("reboot")',
        # secrets read by libraries
        "import netrc; print(netrc.netrc().hosts)",
        "import huggingface_hub as h; print(h.get_token())",
    ],
)
def test_python_code_runners_and_secret_readers_are_denied(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "deny"


@pytest.mark.parametrize(
    "code",
    [
        'import yaml; print(yaml.safe_load(open("c.yaml")))',
        'import yaml; yaml.load(open("c.yaml"), Loader=yaml.SafeLoader)',
        'import numpy as np; print(np.load("x.npy"))',
    ],
)
def test_python_safe_loaders_stay_allowed(policy: PolicySet, ctx: GateContext, code: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == "allow"


@pytest.mark.parametrize(
    "code",
    [
        # GPU indexes worked out, passed around or implied
        'import torch; torch.zeros(1, device=torch.device(type="cuda", index=5))',
        "import torch; torch.zeros(1, device=2+3)",
        "import torch; torch.zeros(1, device=max(0,5))",
        "import torch; f=torch.zeros(1).cuda; f(5)",
        "import torch; [torch.zeros(1, device=i) for i in range(torch.cuda.device_count())]",
        "import torch; torch.cuda.mem_get_info(5)",
        "import torch; torch.cuda.set_per_process_memory_fraction(0.9, 5)",
        # engines that start workers on as many GPUs as they are told
        'import sglang as sgl; sgl.Engine(model_path="m", tp_size=8)',
        'import sglang as sgl; sgl.Engine(model_path="m", tp_size=2, base_gpu_id=4)',
        'import vllm; vllm.LLM("m", tensor_parallel_size=8)',
        'from transformers import AutoModel; AutoModel.from_pretrained("m", device_map={"":5})',
        'from transformers import AutoModel; AutoModel.from_pretrained("m", device_map="auto")',
        "import pynvml as n; h=n.nvmlDeviceGetHandleByIndex(5); n.nvmlDeviceSetPowerManagementLimit(h, 300000)",
    ],
)
def test_python_reaching_the_cotenants_gpus_is_denied(policy: PolicySet, ctx: GateContext, code: str) -> None:
    verdict = policy.evaluate_command(py(code), ctx)
    assert verdict.decision == "deny" and "gpu-outside-agent" in verdict.rules


@pytest.mark.parametrize(
    ("code", "decision"),
    [
        ("import torch; print(torch.cuda.is_available(), torch.cuda.device_count())", "allow"),
        ("import torch; x = torch.zeros(1).cuda(); print(x)", "allow"),
        ("import torch; print(torch.cuda.mem_get_info(0))", "allow"),
        ("import torch; print(torch.zeros(1, device=torch.cuda.current_device()))", "allow"),
        ('import sglang as sgl; sgl.Engine(model_path="m", tp_size=4)', "allow"),
        ("import pynvml as n; h=n.nvmlDeviceGetHandleByIndex(1); print(n.nvmlDeviceGetPowerUsage(h))", "allow"),
        ("import pynvml as n; h=n.nvmlDeviceGetHandleByIndex(1); n.nvmlDeviceSetPowerManagementLimit(h, 1)", "ask"),
    ],
)
def test_python_on_the_agents_gpus(policy: PolicySet, ctx: GateContext, code: str, decision: str) -> None:
    assert policy.evaluate_command(py(code), ctx).decision == decision


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ('python3 -c \'import tarfile; tarfile.open("e.tgz").extractall(".")\' && git -C repo status', "deny"),
        ("python3 -c 'import sglang as sgl; sgl.Engine(model_path=\"m\", tp_size=2, pp_size=4)'", "deny"),
        ("python3 -c 'import sglang as sgl; sgl.Engine(model_path=\"m\", tp_size=2, gpu_id_step=3)'", "allow"),
        ('python3 -c \'import tarfile; tarfile.open("e.tgz").extractall("out")\'', "allow"),
        ("docker run --device /dev/nvidia4 img", "deny"),
        ("docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES img", "deny"),
    ],
)
def test_archives_engines_and_containers(policy: PolicySet, ctx: GateContext, command: str, decision: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == decision


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("python3 -c 'import os; print(\"{}\".format(os.environ))'", "ask"),
        ("python3 -c 'import os, logging; logging.warning(os.environ)'", "ask"),
        ("python3 -c 'import os; print(os.environ._data)'", "ask"),
        ("python3 -c 'import os; print(getattr(os, \"environ\"))'", "deny"),
        ("python3 -c 'import logging; logging.warning(\"x\")'", "allow"),
        # `$$` is the shell's own pid: a number, so `tmp.$$` is a name in the work directory
        ("rm -f ~/opsagent-work/tmp.$$", "allow"),
        ("rm -rf /models/$$", "deny"),
    ],
)
def test_environment_dumps_and_the_shells_pid(policy: PolicySet, ctx: GateContext, command: str, decision: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == decision
