"""What the bench scripts share: ``jackal serve`` as a process (server.py) and the
bot-timing measurement (bot_timing.py, which tests/server/test_bot_timing.py uses too).
A bench script imports it as ``benchkit`` (bench/ is its own folder on sys.path; pytest
adds bench/ through pyproject's ``pythonpath``). Nothing here imports tests/."""
