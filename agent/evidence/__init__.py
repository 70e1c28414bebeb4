"""What a run has learned: the attempts it made and measured (`attempts`) and the findings read
from the host's evidence (`findings`). Deciders, the report and the hearing of replies read them.

May import only the bottom modules (state) and tools.
"""
