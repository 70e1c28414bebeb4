"""SGLang-specific tools: learn the installed flag set, launch, wait, inspect, stop, benchmark."""
