"""The policy gate: YAML rules judged against what a command does, not how it is spelled.

    load_policy_set([...]) -> PolicySet      (raises PolicyLoadError: file:line: what (fix: ...))
    PolicySet.evaluate_command(cmd, ctx)     -> Verdict
    PolicySet.evaluate_action(action, ctx)   -> Verdict

Modules: model (schema), loader (YAML with line numbers), facts (host facts, paths, wildcard
matching), devices (device nodes by number), shellparse (tree-sitter-bash, word resolution),
effects (the shell walker, with commands, redirects, assignments, builtins, wrappers, variables
beside it), programs/ (one model per program family, registered in programs/table.py;
programs/python/ reads Python code),
hooks (commands a program runs on the command's behalf), evaluate (rules against effects),
actions (structured tool calls).
"""
