"""Commands hidden in another program's options, environment or files the host runs later
(`man -P`, `PAGER=`, `tar -I`, `git -c core.pager=`, a cron line): judged as if they ran."""

from __future__ import annotations

import pytest

from agent.policy.gate import GateContext
from agent.policy.hooks import Hook, cron_hooks, env_hooks, environment_hooks, file_hooks, option_hooks
from agent.policy.outputs import mount_points, written_paths
from agent.policy.policyset import PolicySet
from agent.policy.programs.archives import replaced_files
from agent.policy.programs.python import analysis as pyeffects

W = "/home/ops/opsagent-work"


def codes(hooks: list[Hook]) -> list[str]:
    return [h.code for h in hooks]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["man", "-P", "sh -c x"], "sh -c x"),
        (["man", "-Psh"], "sh"),
        (["man", "--pager=less -R", "ls"], "less -R"),
        (["man", "--pager", "most", "ls"], "most"),
        (["rsync", "-avze", "ssh -p 2", "a", "b:"], "ssh -p 2"),
        (["tar", "-cvIzstd", "-f", "x.tar", "d"], "zstd"),
        (["tar", "--checkpoint-action=exec=date", "-cf", "x", "d"], "date"),
        (["zip", "x.zip", "f", "-TT", "unzip -t"], "unzip -t"),
        (["ssh", "-o", "ProxyCommand nc %h 22", "h"], "nc %h 22"),
        (["ssh", "-oproxycommand=nc %h 22", "h"], "nc %h 22"),
        (["git", "-c", "core.pager=less", "log"], "less"),
        (["git", "-c", "alias.st=!git status", "st"], "git status"),
        (["less", "+!date", "f"], "date"),
        (["vim", "-c", ":r !date"], "date"),
        (["gdb", "-ex", "shell date"], "date"),
        (["tmux", "new-session", "-d", "-s", "x", "sleep 1"], "sleep 1"),
        (["tmux", "send-keys", "-t", "0", "date", "Enter"], "date\n"),
        (["parallel", "gzip", ":::", "a b"], "gzip 'a b'"),
        (["parallel", "gzip {} -k", ":::", "a"], "gzip a -k"),
    ],
)
def test_option_hooks_find_the_command_in_every_spelling(argv: list[str], code: str) -> None:
    assert codes(option_hooks(argv[0], argv)) == [code]


@pytest.mark.parametrize(
    "argv",
    [
        ["tar", "-xzf", "model.tgz", "-C", "/tmp"],  # `-f` takes the archive; no -I/-F
        ["git", "-c", "user.name=x", "commit"],
        ["ssh", "-o", "StrictHostKeyChecking=no", "h", "uptime"],
        ["less", "+F", "f"],
        ["vim", "+10", "f"],
        ["zip", "-T", "x.zip", "f"],
        ["man", "ls"],
        ["tmux", "ls"],
        ["screen", "-ls"],
    ],
)
def test_ordinary_options_hide_no_command(argv: list[str]) -> None:
    assert option_hooks(argv[0], argv) == []


def test_run_time_values_and_script_languages_cannot_be_judged() -> None:
    assert option_hooks("git", ["git", "-c", "core.hooksPath=/tmp/h", "commit"])[0].opaque
    assert option_hooks("vim", ["vim", "-c", "py3 import os"])[0].opaque
    assert option_hooks("gdb", ["gdb", "-x", "cmds.gdb"])[0].opaque
    unknown = option_hooks("parallel", ["parallel", "::::", "jobs.txt"])
    assert unknown and unknown[0].opaque


def test_env_hooks_name_the_variable_and_strip_lessopen_pipes() -> None:
    found = env_hooks({"PAGER": "cat", "LESSOPEN": "|lesspipe %s", "HOME": "/x", "SYSTEMD_PAGER": ""})
    assert [(h.how, h.code) for h in found] == [("PAGER", "cat"), ("LESSOPEN", "lesspipe file")]


def test_cron_tables_skip_the_schedule_and_the_user_of_system_tables() -> None:
    table = "# comment\nMAILTO=ops\n*/5 * * * * date\n@reboot uptime\n0 1 * * * echo a%b\n"
    assert codes(cron_hooks(table, system=False, how="t")) == ["date", "uptime", "echo a"]
    system = "*/5 * * * * root date\n@hourly ops uptime\n"
    assert codes(cron_hooks(system, system=True, how="t")) == ["date", "uptime"]


def test_files_the_host_runs_later_are_recognised_by_path() -> None:
    assert codes(file_hooks("/etc/cron.d/x", "* * * * * root date\n", "/home/ops")) == ["date"]
    assert codes(file_hooks("/var/spool/cron/crontabs/ops", "* * * * * date\n", "/home/ops")) == ["date"]
    assert codes(file_hooks("/home/ops/.bashrc", "date\n", "/home/ops")) == ["date\n"]
    assert codes(file_hooks("/root/.profile", "date\n", None)) == ["date\n"]
    unit = "[Service]\nExecStartPre=-/bin/true\nExecStart=/usr/bin/python3 -m x\n"
    assert codes(file_hooks("/etc/systemd/system/x.service", unit, "/home/ops")) == [
        "/bin/true",
        "/usr/bin/python3 -m x",
    ]
    rule = 'ACTION=="add", RUN+="/usr/bin/logger hi"\n'
    assert codes(file_hooks("/etc/udev/rules.d/99-x.rules", rule, "/home/ops")) == ["/usr/bin/logger hi"]
    assert file_hooks("/home/ops/opsagent-work/.bashrc", "date\n", "/home/ops") == []
    assert file_hooks("/home/ops/opsagent-work/notes.txt", "* * * * * reboot\n", "/home/ops") == []


@pytest.mark.parametrize(
    ("command", "rule", "via"),
    [
        ("man -P 'sh -c reboot' ls", "power-programs", "man -P"),
        ("PAGER=reboot man ls", "power-programs", "PAGER"),
        ("tar -I reboot -cf x.tar x", "power-programs", "tar -I"),
        ("git -c core.pager='systemctl reboot' log", "power-systemctl", "git -c core.pager"),
        ("echo '@reboot root reboot' | sudo tee /etc/cron.d/x", "power-programs", "cron line in /etc/cron.d/x"),
        ("echo '* * * * * reboot' | crontab -", "power-programs", "crontab line"),
    ],
)
def test_a_hidden_reboot_is_denied_and_explain_shows_where_it_hid(
    policy: PolicySet, ctx: GateContext, command: str, rule: str, via: str
) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny"
    assert rule in verdict.rules
    deciding = [v for v in policy.explain(command, ctx) if v.decision == "deny"]
    assert any(via in v.invocation.via for v in deciding), [v.invocation.via for v in deciding]


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("PAGER=$X man ls", "only known at run time"),
        ("curl -s http://x/c | crontab -", "installed as a crontab"),
        ("echo reboot > /tmp/c && crontab /tmp/c", "written earlier in the same command"),
        ("git -c core.hooksPath=/tmp/h commit -m x", "hook scripts"),
    ],
)
def test_what_cannot_be_seen_is_denied_with_its_reason(
    policy: PolicySet, ctx: GateContext, command: str, reason: str
) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny"
    assert "fail-closed" in verdict.rules
    assert reason in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "man -P cat ls",
        "PAGER=cat man nvidia-smi",
        "GIT_PAGER=cat git log -5",
        "less +G ~/opsagent-work/logs/sglang.log",
        "crontab -l",
        "at -l",
        "echo '* * * * * reboot' > ~/opsagent-work/cron-draft.txt",
    ],
)
def test_benign_uses_stay_allowed(policy: PolicySet, ctx: GateContext, command: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "allow", verdict.reason


def test_a_hook_inherits_the_gpu_check_of_what_it_launches(policy: PolicySet, ctx: GateContext) -> None:
    launch = "python3 -m sglang.launch_server --model-path /models/x --port 30000"
    assert policy.evaluate_command(f"tmux new -d -s s '{launch}'", ctx).decision == "ask"
    verdict = policy.evaluate_command(f"tmux new -d -s s 'CUDA_VISIBLE_DEVICES=5 {launch}'", ctx)
    assert verdict.decision == "deny"
    assert "gpu-outside-agent" in verdict.rules


@pytest.mark.parametrize(
    ("argv", "written"),
    [
        (["sort", "-o", "out", "in"], ["out"]),
        (["sort", "-oout", "in"], ["out"]),
        (["sort", "--output=out", "in"], ["out"]),
        (["uniq", "-f", "2", "in", "out"], ["out"]),
        (["uniq", "-c", "in"], []),
        (["xxd", "-r", "-c", "16", "in.hex", "out"], ["out"]),
        (["xxd", "in"], []),
        (["yq", "-i", ".a=1", "a.yaml", "b.yaml"], ["a.yaml", "b.yaml"]),
        (["yq", ".a", "a.yaml"], []),
        (["unzip", "x.zip", "-d", "dir/"], ["dir/\x01"]),
        (["nvidia-smi", "-q", "--filename=log.txt"], ["log.txt"]),
        (["lstopo", "--of", "xml", "topo.xml"], ["topo.xml"]),
    ],
)
def test_writes_named_by_options_and_operands(argv: list[str], written: list[str]) -> None:
    assert written_paths(argv[0], argv[1:]) == written


def test_a_common_tool_writing_a_protected_device_through_an_operand_is_denied(
    policy: PolicySet, ctx: GateContext
) -> None:
    verdict = policy.evaluate_command("xxd -r dump.hex /sys/bus/pci/devices/0000:81:00.0/remove", ctx)
    assert verdict.decision == "deny"
    assert "common-tools" not in verdict.rules
    cd_then_sort = "cd ~/opsagent-work/run && sort -o ../sorted.txt in.txt"
    writes = [w.path.aliases[0] for v in policy.explain(cd_then_sort, ctx) for w in v.invocation.writes]
    assert writes == [f"{W}/sorted.txt"]


@pytest.mark.parametrize(
    "code",
    [
        "import os as o; f = o.system; f('reboot')",
        "import os; list(map(os.system, ['reboot']))",
        "from subprocess import run as r; g = r; g(['reboot'])",
        "import os; getattr(os, 'sys' + 'tem')('reboot')",
        "import os; os.__dict__['system']('reboot')",
        "import os; os.spawnlp(os.P_WAIT, 'reboot', 'reboot')",
        "import asyncio; asyncio.run(asyncio.create_subprocess_exec('reboot'))",
        "import jeepney",
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect('/run/qemu-server/101.qmp')",
    ],
)
def test_python_that_hides_how_it_runs_things_cannot_be_judged(code: str) -> None:
    assert pyeffects.analyse(code).opaque


@pytest.mark.parametrize(
    "code",
    [
        "import torch; print(torch.cuda.device_count())",
        "import json; print(json.load(open('/home/ops/opsagent-work/b.json'))['throughput'])",
        "import os; print(os.environ.get('CUDA_VISIBLE_DEVICES'))",
        "import socket; s = socket.create_connection(('127.0.0.1', 30000))",
    ],
)
def test_ordinary_python_stays_judgeable(code: str) -> None:
    assert pyeffects.analyse(code).opaque is None


@pytest.mark.parametrize(
    ("argv", "sockets"),
    [
        (["socat", "-", "UNIX-CONNECT:/run/x.sock,retry=3"], ["/run/x.sock"]),
        (["nc", "-U", "/run/x.sock"], ["/run/x.sock"]),
        (["curl", "--unix-socket=/run/d.sock", "http://x/"], ["/run/d.sock"]),
        (["curl", "http://127.0.0.1:30000/health"], []),
        (["nc", "-z", "127.0.0.1", "30000"], []),
    ],
)
def test_unix_sockets_a_client_talks_to(argv: list[str], sockets: list[str]) -> None:
    assert written_paths(argv[0], argv[1:]) == sockets  # a socket connected to counts as written


@pytest.mark.parametrize(
    ("code", "dumps"),
    [
        ("import os; print(os.environ)", True),
        ("from os import environ as e; print(e)", True),
        ("import os; [print(k, v) for k, v in os.environ.items()]", True),
        ("import os; print(os.environ.get('X'))", False),
        ("import os, subprocess; e = os.environ.copy(); subprocess.run(['true'], env=e)", False),
    ],
)
def test_python_printing_the_whole_environment_is_seen(code: str, dumps: bool) -> None:
    assert pyeffects.analyse(code).dumps_environment is dumps


@pytest.mark.parametrize(
    ("argv", "runs"),
    [
        (["ip", "netns", "exec", "lab", "sh", "-c", "x"], ("sh", "-c", "x")),
        (["ip", "-n", "lab", "net", "e", "lab", "uptime"], ("uptime",)),
        (["ip", "vrf", "exec", "mgmt", "uptime"], ("uptime",)),
        (["nvcc", "-run", "x.cu"], ("./a.out",)),
    ],
)
def test_programs_that_run_a_command_given_as_operands(argv: list[str], runs: tuple[str, ...]) -> None:
    assert [h.argv for h in option_hooks(argv[0], argv)] == [runs]


def test_ip_reading_state_runs_nothing_and_a_batch_file_cannot_be_judged() -> None:
    assert option_hooks("ip", ["ip", "netns", "list"]) == []
    assert option_hooks("ip", ["ip", "-br", "addr"]) == []
    assert option_hooks("ip", ["ip", "-batch", "cmds.txt"])[0].opaque


@pytest.mark.parametrize(
    ("argv", "deleted", "written"),
    [
        (["gzip", "a.log"], ["a.log"], ["a.log.gz"]),
        (["gzip", "-k", "a.log"], [None], ["a.log.gz"]),
        (["gunzip", "a.log.gz"], ["a.log.gz"], ["a.log"]),
        (["xz", "-dk", "w.xz"], [None], ["w"]),
        (["gzip", "-c", "a.log"], [], []),
        (["gzip", "-l", "a.gz"], [], []),
    ],
)
def test_compressors_replace_their_operands(argv: list[str], deleted: list[str | None], written: list[str]) -> None:
    pairs = replaced_files(argv[0], argv[1:])
    assert [d for d, _ in pairs] == deleted
    assert [w for _, w in pairs] == written


@pytest.mark.parametrize(
    ("name", "argv", "text", "stdin", "printed"),
    [
        ("envsubst", ["envsubst"], "envsubst", "key: $API_KEY\n", [("printenv", "API_KEY")]),
        ("envsubst", ["envsubst"], "envsubst < t", None, [("env",)]),
        ("jq", ["jq", "-n", "$ENV.HOME"], "", None, [("env",)]),
        ("jq", ["jq", ".environment", "f"], "", None, []),
        ("awk", ["awk", 'BEGIN{print ENVIRON["DB_PASSWORD"]}'], "", None, [("printenv", "DB_PASSWORD")]),
    ],
)
def test_printing_secrets_from_the_environment_is_seen(
    name: str, argv: list[str], text: str, stdin: str | None, printed: list[tuple[str, ...]]
) -> None:
    assert [h.argv for h in environment_hooks(name, argv, text, stdin)] == printed


@pytest.mark.parametrize(
    ("argv", "points"),
    [
        (["mount", "--bind", "/tmp", "/models"], ["/models"]),
        (["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs", "/mnt/x"], ["/mnt/x"]),
        (["mount", "/models"], ["/models"]),
        (["mount", "--target", "/models", "/dev/sdb1"], ["/models"]),
        (["umount", "-l", "/a", "/b"], ["/a", "/b"]),
        (["mount"], []),
    ],
)
def test_mounts_change_what_others_see_at_the_mount_point(argv: list[str], points: list[str]) -> None:
    assert mount_points(argv[0], argv[1:]) == points


@pytest.mark.parametrize(
    "command",
    [
        "[[ 'a[$(reboot)]' -eq 0 ]]",
        "let 'a[$(reboot)]=1'",
        "(( 'x[$(reboot)]' ))",
        "printf -v 'a[$(reboot)]' %s x",
        "read 'a[$(reboot)]' <<< x",
        "declare -i n='a[$(reboot)]'",
        "x='a[$(reboot)]'; echo ${!x}",
        "a[$(reboot)]=1",
    ],
)
def test_a_subscript_bash_evaluates_runs_what_it_holds(policy: PolicySet, ctx: GateContext, command: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny"
    assert "power-programs" in verdict.rules


@pytest.mark.parametrize("command", ["echo $(( $(cat n) + 1 ))", "[[ $(cat n) -eq 1 ]]", "(( COUNT > 2 ))"])
def test_arithmetic_on_run_time_text_fails_closed_and_says_how_to_compare(
    policy: PolicySet, ctx: GateContext, command: str
) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny"
    assert verdict.rules == ["fail-closed"]
    assert "[ A -eq B ]" in verdict.reason


def test_after_a_nameref_no_variable_is_assumed(policy: PolicySet, ctx: GateContext) -> None:
    verdict = policy.evaluate_command("x=ls; declare -n r=x; r=reboot; $x", ctx)
    assert verdict.decision == "deny"
    assert "fail-closed" in verdict.rules
    assert policy.evaluate_command("x=ls; $x", ctx).decision == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "n=4; echo $((n * 2))",
        "for ((i=0; i<4; i++)); do echo $i; done",
        '[ "$(nvidia-smi -L | wc -l)" -eq 8 ]',
        "echo $((RANDOM % 4 + 0x1f))",
        "let x=1+2",
    ],
)
def test_ordinary_arithmetic_stays_allowed(policy: PolicySet, ctx: GateContext, command: str) -> None:
    assert policy.evaluate_command(command, ctx).decision == "allow"


def test_more_files_the_host_runs_later() -> None:
    assert codes(file_hooks("/home/ops/w/repo/.git/hooks/pre-commit", "date\n", "/home/ops")) == ["date\n"]
    assert codes(file_hooks("/etc/update-motd.d/99-x", "date\n", "/home/ops")) == ["date\n"]
    apt = 'DPkg::Pre-Invoke {"date"; "uptime";};\nAPT::Update::Post-Invoke-Success {"true";};\n'
    assert codes(file_hooks("/etc/apt/apt.conf.d/99x", apt, "/home/ops")) == ["date", "uptime", "true"]
    assert file_hooks("/home/ops/w/repo/.git/config", "[core]\n", "/home/ops") == []


def test_a_git_alias_of_another_command_is_judged_as_that_git_command() -> None:
    # git runs `-c` options inside an alias: `tree = -c core.fsmonitor=CMD status` runs CMD
    assert [h.argv for h in option_hooks("git", ["git", "-c", "alias.st=status -s", "st"])] == [("git", "status", "-s")]
    hooks = option_hooks("git", ["git", "-c", "alias.t=-c core.fsmonitor=reboot status", "t"])
    assert [h.argv for h in hooks] == [("git", "-c", "core.fsmonitor=reboot", "status")]
    assert [h.argv for h in option_hooks("git", ["git", "bisect", "run", "make", "test"])] == [("make", "test")]
