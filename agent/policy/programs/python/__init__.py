"""Python as a program model: the interpreter's command line (interpreter.py) and what the code it
runs does, found by reading the code (the analyser, split by concern in the modules beside it)."""
