"""The operator's words: the goal (`goal`), everyday wording (`phrasing`), instructions read into
typed rules (`instructions`), replies to a question (`replies`), how a run heeds what was said
(`heed`), who answers (`approvers`: the terminal, a scripted operator), replies posted from another
process (`post`), and the reply hint every surface prints (`hints`).

May import evidence, store, transcript, policy and the bottom modules; never loop, deciders, cli
or web.
"""
