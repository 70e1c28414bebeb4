"""The `ssh://` target: `SSHTarget` over paramiko, with a persistent-shell fast path.

from tools.ssh import SSHTarget, SSHOptions
target = SSHTarget.connect("ssh://user@gpu-box:2222", SSHOptions(identity=Path("~/.ssh/id_ed25519")))
"""
