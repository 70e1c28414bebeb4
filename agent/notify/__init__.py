"""Telling people a question waits: webhooks (`webhooks`), with the same reply line as the terminal.

May import hearing (the reply hint), store (scrubbing at rest) and state; never the loop.
"""
