"""The Python analyser's passes over the code: imports, directory changes, references, every
call and method call; `analyse(code)` runs them and returns the effects (`PyEffects`)."""

from __future__ import annotations

import ast
import posixpath
import shlex

from agent.policy.facts import DYN
from agent.policy.programs.python.core import (
    PyEffects,
    _arg,
    _bindings,
    _const,
    _dotted,
    _looks_like_path,
    _normal,
    _opaque_module,
    _star_names,
)
from agent.policy.programs.python.gpus import _Gpus
from agent.policy.programs.python.tables import (
    _CHDIR_CALLS,
    _COPY_CALLS,
    _DANGEROUS,
    _DANGEROUS_SHORT,
    _DELETE_CALLS,
    _ENV_GETTERS,
    _IMPORT_PATH_CHANGE,
    _IMPORT_PATH_READERS,
    _IMPORT_PATHS,
    _LINK_CALLS,
    _LOG_CONFIG_OPAQUE,
    _LOG_HANDLERS,
    _MODULE_ATTRS_STRICT,
    _MOVES,
    _NOT_READERS,
    _OPAQUE_ATTRS,
    _OPAQUE_CALLS,
    _OPAQUE_METHODS,
    _OPENERS,
    _PAGER_CALLS,
    _PROC_CALLS,
    _PSUTIL_SIGNALS,
    _READ_CALLS,
    _REFLECTION,
    _SAFE_DUNDERS,
    _SAFE_NAMES,
    _SAFE_YAML_LOADERS,
    _SHELL_CALLS,
    _SIGNAL_CALLS,
    _SITE_CHANGERS,
    _STAR_MODULES,
    _WRITE_CALLS,
    _WRITE_VERBS,
    CONTROL_SOCKETS,
    SAFE_MODULES,
)


class _Analysis(_Gpus):
    def unmodelled(self, module: str) -> None:
        head = module.split(".")[0]
        if head and head not in SAFE_MODULES and self.out.unsure is None:
            self.out.unsure = f"python imports {module}, outside the modules the gate models"

    def imports(self) -> None:
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.unmodelled(a.name)
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        head = a.name.split(".")[0]
                        self.aliases[head] = head
                    if _opaque_module(a.name):
                        self.opaque(f"python imports {a.name}, which can run arbitrary code")
                    self.psutil |= a.name.split(".")[0] == "psutil"
                    self.pathlib |= a.name == "pathlib"
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                self.unmodelled(mod)
                if node.level:
                    self.opaque("python imports from a package relative to itself; the gate cannot see it")
                if _opaque_module(mod) or any(_opaque_module(f"{mod}.{a.name}") for a in node.names):
                    self.opaque(f"python imports from {mod}, which can run arbitrary code")
                self.psutil |= mod.split(".")[0] == "psutil"
                self.pathlib |= mod == "pathlib"
                for a in node.names:
                    if a.name == "*":
                        if mod not in _STAR_MODULES:
                            self.opaque(f"python imports every name from {mod}; the gate cannot tell which")
                            continue
                        for n in _star_names(mod):
                            self.aliases[n] = f"{mod}.{n}"
                    else:
                        self.aliases[a.asname or a.name] = f"{mod}.{a.name}"
        # names bound once to a value: `p = Path("/x")`, `d = "/models"`
        counts = _bindings(self.nodes)
        for node in self.nodes:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and counts.get(node.targets[0].id) == 1
            ):
                self.consts[node.targets[0].id] = node.value
        # names bound once to a module or one of its members: `m = shutil`, `p = os.path`
        for target, value in list(self.consts.items()):
            if (
                isinstance(value, ast.Name | ast.Attribute)
                and _dotted(value).partition(".")[0] in self.aliases
                and target not in self.aliases
            ):
                self.aliases[target] = self.name(value)

    def directories(self) -> None:
        """Where relative paths lead: one `os.chdir(LITERAL)` at the top level is followed; any other
        change of directory makes relative paths unknown."""
        chdirs: list[ast.Call] = []
        for node in self.nodes:
            if isinstance(node, ast.Call) and self.name(node.func) in _CHDIR_CALLS:
                chdirs.append(node)
        if not chdirs:
            return
        if len(chdirs) == 1:
            call = chdirs[0]
            arg = call.args[0] if call.args else call.keywords[0].value if call.keywords else None
            target = self.string(arg)
            stmt = next((s for s in self.tree.body if isinstance(s, ast.Expr) and s.value is call), None)
            if DYN not in target and stmt is not None:
                self.chdir = (self.tree.body.index(stmt), target)
                return
        self.cwd_unknown = True

    def references(self) -> None:
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)}
        for node in self.nodes:
            if isinstance(node, ast.Name | ast.Attribute):
                ref = self.name(node)
                # `f = os.system; f("reboot")`, `map(os.kill, ...)`, `sys.modules["os"]`: a dangerous
                # function passed around, or functions reached by name (calls are judged in `call`)
                if id(node) not in called and (ref in _DANGEROUS or ref in _REFLECTION):
                    self.opaque(f"python refers to {ref} without calling it where it stands; the gate cannot follow it")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in _MODULE_ATTRS_STRICT
                and _dotted(node.value).partition(".")[0] not in self.aliases
            ):
                self.opaque(f"python reaches the module {node.attr} through a value the gate cannot follow")
            if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in _SAFE_DUNDERS:
                self.opaque(f"python reaches functions through {node.attr}; the gate cannot follow it")
            if isinstance(node, ast.Name) and node.id.startswith("__") and node.id not in _SAFE_NAMES:
                self.opaque(f"python reaches functions through {node.id}; the gate cannot follow it")

    def calls(self) -> None:
        for node in self.nodes:
            if isinstance(node, ast.Call):
                self.call(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and self.environ_itself(node.value):
                self.out.env_reads.append(self.string(node.slice))  # os.environ["HF_TOKEN"]
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
                targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
                if any(self.import_path(t) for t in targets):
                    self.opaque(_IMPORT_PATH_CHANGE)  # sys.path = [...], sys.path[:0] = [...], sys.path += [...]
            elif (
                (isinstance(node, ast.FormattedValue) and self.environ(node.value))
                or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and self.environ(node.right))
                or (isinstance(node, ast.Attribute) and node.attr in ("_data", "data") and self.environ(node.value))
            ):
                self.out.dumps_environment = True  # f"{os.environ}", "%s" % os.environ, os.environ._data

    def call(self, node: ast.Call) -> None:
        out = self.out
        name = self.name(node.func)
        short = name.split(".")[-1]
        args = node.args
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        unpacked = any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords)
        if unpacked and (name in _DANGEROUS or name.startswith("pip.")):
            self.opaque(f"python calls {name} with arguments unpacked at run time")
            return
        if name in _ENV_GETTERS:
            self.out.env_reads.append(self.string(_arg(node, 0, "key")))  # os.getenv("HF_TOKEN")
        if name in ("yaml.load", "yaml.load_all", "yaml.full_load", "yaml.full_load_all"):
            loader = _arg(node, 1, "Loader")
            if loader is None or not self.name(loader).endswith(_SAFE_YAML_LOADERS):
                self.opaque(f"python {name} may build objects that run code (a Loader other than SafeLoader)")
        if name == "numpy.load" and "allow_pickle" in kw and _const(kw["allow_pickle"]) != "False":
            self.opaque("python numpy.load(allow_pickle=...) may unpickle objects that run code")
        if isinstance(node.func, ast.Attribute) and node.func.attr in _OPAQUE_METHODS:
            self.opaque(f"python calls {node.func.attr}, which starts programs or loads native code")
        if name in ("netrc.netrc", "huggingface_hub.get_token", "huggingface_hub.HfFolder.get_token"):
            secret = "~/.netrc" if name == "netrc.netrc" else "~/.cache/huggingface/token"
            given = _arg(node, 0, "file")
            self.read(node, self.path(given) if given is not None and name == "netrc.netrc" else secret)
        held, _, method = name.rpartition(".")
        if (held in _IMPORT_PATHS and method not in _IMPORT_PATH_READERS) or name in _SITE_CHANGERS:
            self.opaque(_IMPORT_PATH_CHANGE)  # sys.path.insert(0, d): an import may then run any file
        if name in _OPAQUE_CALLS or name in _OPAQUE_ATTRS or name.startswith("ctypes."):
            self.opaque(f"python calls {name}, which runs code the gate cannot see")
        elif name in _REFLECTION:
            target = args[1] if name.endswith("getattr") and len(args) > 1 else None
            attr = _const(target) if target is not None else DYN
            if DYN in attr or attr in _DANGEROUS_SHORT or attr.startswith("_"):
                self.opaque(f"python looks up {attr if DYN not in attr else 'a name'} at run time with {name}")
        elif name in _SHELL_CALLS or name in _PAGER_CALLS:
            cmd = _arg(node, 1 if name in _PAGER_CALLS else 0, "cmd")
            text = self.string(cmd)
            if DYN in text:
                self.opaque(f"python {name} of a command built at run time")
            else:
                self.command(node, text)
        elif name in _PROC_CALLS:
            self.process(node, name, kw)
        elif name.startswith("pip.") or name == "pip":
            words = self.words(args[0] if args else kw.get("args"))
            if words is None or not name.endswith("main"):
                self.opaque(f"python calls {name}, which installs or runs pip in ways the gate cannot see")
            else:
                self.command(node, shlex.join(["pip", *words]))
        elif name == "os.open":
            flags = args[1] if len(args) > 1 else kw.get("flags")
            p = self.path(args[0] if args else kw.get("path"))
            if flags is not None and self.read_only_flags(flags):
                self.read(node, p)
            else:
                self.write(node, p)
                if flags is None or not self.write_only_flags(flags):
                    self.read(node, p)  # O_RDWR: the file (a device: `/dev/ipmi0`) is read as well
        elif name in _OPENERS:
            index, key, default = _OPENERS[name]
            p = self.string(args[0] if args else kw.get("file") or kw.get("name") or kw.get("filename"))
            if name == "tarfile.open" and not args and "fileobj" in kw and "name" not in kw:
                return
            mode_node = args[index] if len(args) > index else kw.get(key) if key else None
            mode = self.string(mode_node) if mode_node is not None else default
            if name == "sqlite3.connect" or DYN in mode or any(c in mode for c in "wax+cn"):
                self.write(node, p)
                if DYN in mode or (name != "sqlite3.connect" and ("+" in mode or "r" in mode)):
                    self.read(node, p)  # "r+", "w+": read as well
            else:
                self.read(node, p)
        elif name in _READ_CALLS:
            p = self.string(args[0] if args else kw.get("filename") or kw.get("fname") or kw.get("file"))
            self.read(node, p)
            if name == "filecmp.cmp" and len(args) > 1:
                self.read(node, self.string(args[1]))
        elif name in ("fileinput.input", "fileinput.FileInput"):
            files = args[0] if args else kw.get("files")
            paths = self.strings(files) if files is not None else ["-"]
            inplace = kw.get("inplace")
            writes = inplace is not None and not (isinstance(inplace, ast.Constant) and not inplace.value)
            for p in paths:
                if p != "-":
                    self.read(node, p)
                    if writes:
                        self.write(node, p)
        elif name in _DELETE_CALLS:
            self.delete(node, self.path(args[0] if args else kw.get("path")))
        elif name in _WRITE_CALLS:
            self.write(node, self.path(args[0] if args else kw.get("path")))
        elif name in _LINK_CALLS:
            self.link(node, _arg(node, 0, "src"), _arg(node, 1, "dst"), _LINK_CALLS[name])
        elif name in _COPY_CALLS:
            src = args[0] if args else kw.get("src")
            dst = args[1] if len(args) > 1 else kw.get("dst")
            if src is not None and dst is not None:
                self.read(node, self.path(src))
                self.write(node, self.path(dst))
                if name in _MOVES:
                    self.delete(node, self.path(src))
            else:
                self.write(node, DYN)
        elif name == "shutil.unpack_archive":
            self.read(node, self.path(args[0] if args else kw.get("filename")))
            extract = args[1] if len(args) > 1 else kw.get("extract_dir")
            self.write(node, self.path(extract) if extract is not None else self.at(node, "."))
            self.out.unpacked.append(self.path(extract) if extract is not None else self.at(node, "."))
        elif name == "shutil.make_archive":
            base = args[0] if args else kw.get("base_name")
            self.write(node, self.path(base))
            root = args[2] if len(args) > 2 else kw.get("root_dir")
            sub = args[3] if len(args) > 3 else kw.get("base_dir")
            r = self.string(root) if root is not None else "."
            s = self.string(sub) if sub is not None else "."
            self.read(node, DYN if DYN in r or DYN in s else posixpath.join(r, s))
        elif name in _LOG_HANDLERS:
            target = _arg(node, *_LOG_HANDLERS[name])
            self.write(node, self.path(target) if target is not None else DYN)
        elif name == "logging.basicConfig":
            if "filename" in kw:
                self.write(node, self.path(kw["filename"]))
        elif name in _LOG_CONFIG_OPAQUE:
            self.opaque(f"python {name} builds logging handlers from text the gate cannot read")
        elif name == "logging.config.dictConfig":
            self.log_config(node)
        elif self.http(node, name) or self.socket_call(node, name):
            pass
        elif short in ("connect", "connect_ex", "sendto") and any(
            _normal(_const(a)).startswith(CONTROL_SOCKETS) for a in args if isinstance(a, ast.Constant)
        ):
            self.opaque("python talks to a control socket (systemd, D-Bus, libvirt, QEMU, Docker) directly")
        elif self.dumps_environment(node, name):
            out.dumps_environment = True
        elif name in _SIGNAL_CALLS:
            if name == "signal.pidfd_send_signal":
                fd = args[0] if args else None
                if not (isinstance(fd, ast.Call) and self.name(fd.func) == "os.pidfd_open"):
                    out.signals.append(DYN)
            else:
                pid = _const(args[0]) if args else DYN
                out.signals.append(pid if name in ("os.kill", "os.pidfd_open") else DYN)
        elif name in _CHDIR_CALLS:
            pass  # followed in `directories`
        elif name == "pydoc.pager" or name == "pydoc.getpager" or name == "help":
            self.opaque(f"python {name} runs the pager named in the environment")
        elif isinstance(node.func, ast.Attribute):
            self.method(node, name, kw)

    def method(self, node: ast.Call, name: str, kw: dict[str, ast.expr]) -> None:
        assert isinstance(node.func, ast.Attribute)
        out = self.out
        args = node.args
        attr = node.func.attr
        recv = node.func.value
        imported = isinstance(recv, ast.Name | ast.Attribute) and _dotted(recv).split(".")[0] in self.aliases
        recv_path = self.string(recv) if self.is_path(recv) else DYN
        if self.psutil and attr in _PSUTIL_SIGNALS:
            out.signals.append(DYN)
        elif attr in ("write_text", "write_bytes", "touch", "mkdir", "chmod", "lchmod", "symlink_to", "hardlink_to"):
            content = self.string(args[0]) if args and attr.startswith("write") else None
            if attr in ("symlink_to", "hardlink_to") and DYN not in recv_path:
                self.link(node, args[0] if args else kw.get("target"), recv, attr == "symlink_to")
            else:
                self.write(node, recv_path, None if content is None or DYN in content else content)
        elif attr == "link_to":
            self.link(node, recv, args[0] if args else kw.get("target"), False)
        elif attr in ("unlink", "rmdir"):
            self.delete(node, recv_path)
        elif attr in ("rename", "replace") and self.is_path(recv):
            self.delete(node, recv_path)
            self.write(node, self.path(args[0] if args else kw.get("target")))
        elif attr in ("read_text", "read_bytes"):
            self.read(node, recv_path)
        elif attr == "open" and (self.is_path(recv) or (self.pathlib and not imported)):
            mode_node = args[0] if args else kw.get("mode")
            mode = self.string(mode_node) if mode_node is not None else "r"
            if DYN in mode or any(c in mode for c in "wax+"):
                self.write(node, recv_path)
            else:
                self.read(node, recv_path)
        elif attr in ("extractall", "extract") and not (isinstance(recv, ast.Name) and recv.id in self.aliases):
            # tarfile/zipfile members land under `path` (the directory it runs in by default)
            target = _arg(node, 0 if attr == "extractall" else 1, "path")
            where = self.path(target) if target is not None else self.at(node, ".")
            self.write(node, where)
            self.out.unpacked.append(where)  # files of any name the gate has not seen (a .git/config)
            trusted = kw.get("filter")
            if trusted is not None and self.string(trusted) == "fully_trusted":
                self.write(node, DYN)  # members keep absolute paths and `..`: anywhere
        elif attr == "write" and isinstance(recv, ast.Call) and self.name(recv.func) in ("open", "io.open"):
            # open(p, "w").write("b"): the content is known
            paths = self.at_all(recv, self.string(recv.args[0]) if recv.args else DYN)
            content = self.string(args[0]) if args else DYN
            out.writes = [w for w in out.writes if w[0] not in paths]
            out.writes.extend((p, None if DYN in content else content) for p in paths)
        elif imported and not name.startswith(_NOT_READERS):
            # a library function given a path (`numpy.loadtxt("/x")`, `torch.save(m, "/y")`): it reads
            # the path, or writes it where its name says so
            writes = any(v in attr.lower() for v in _WRITE_VERBS)
            for a in [*args, *kw.values()]:
                p = self.string(a)
                p = p[len("file://") :] if p.startswith("file://") else p
                if DYN not in p and _looks_like_path(p):
                    (self.write if writes else self.read)(node, p)

    def process(self, node: ast.Call, name: str, kw: dict[str, ast.expr]) -> None:
        args = node.args
        target = args[0] if args else kw.get("args")
        shell = kw.get("shell")
        on_shell = shell is not None and not (isinstance(shell, ast.Constant) and not shell.value)
        exe_node = kw.get("executable")
        exe = self.string(exe_node) if exe_node is not None else None
        if exe is not None and DYN in exe:
            self.opaque(f"python {name} runs an executable only known at run time")
            return
        words = self.words(target)
        if words is None:
            text = self.string(target)
            if DYN in text:
                self.opaque(f"python {name} of a command built at run time")
                return
            words = [text] if not on_shell else None
            if on_shell:
                self.command(node, shlex.join([exe, "-c", text]) if exe else text, kw.get("cwd"), kw.get("env"))
                return
        assert words is not None
        if on_shell:
            # the first word is the shell's script; the rest are its $0, $1...
            script = words[0] if words else ""
            self.command(node, shlex.join([exe, "-c", *words]) if exe else script, kw.get("cwd"), kw.get("env"))
            return
        if exe is not None:
            words = [exe, *words[1:]]  # the program run is the executable; args[0] is only its name
            self.command(node, shlex.join(words), kw.get("cwd"), kw.get("env"))
        elif isinstance(target, ast.List | ast.Tuple):
            self.command(node, shlex.join(words), kw.get("cwd"), kw.get("env"))
        else:
            self.command(node, words[0], kw.get("cwd"), kw.get("env"))


def analyse(code: str) -> PyEffects:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        return PyEffects(opaque=f"python code the gate cannot parse ({exc.__class__.__name__})")
    a = _Analysis(tree)
    a.imports()
    a.directories()
    a.env_set = a.env_changes(ast.Attribute(ast.Name("os", ast.Load()), "environ", ast.Load()))
    a.references()
    a.http_clients()
    a.unix_sockets = a.find_unix_sockets()
    a.calls()
    a.gpus()
    out = a.out
    # open(...).write(...) is visited after open(); keep the write with content
    seen: dict[str, str | None] = {}
    for p, c in out.writes:
        if p not in seen or seen[p] is None:
            seen[p] = c
    out.writes = list(seen.items())
    return out
