"""The `ssh://` target: `SSHTarget` over paramiko, with a persistent-shell fast path.

from tools.ssh.config import SSHOptions
from tools.ssh.target import SSHTarget
target = SSHTarget.connect("ssh://user@gpu-box:2222", SSHOptions(identity=Path("~/.ssh/id_ed25519")))
"""
