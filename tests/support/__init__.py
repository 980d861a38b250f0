"""Test support, imported as ``support.<module>`` (pytest puts tests/ on sys.path because
tests/conftest.py lives there; fixtures are in conftest.py). One of each:

- server.py: ``jackal serve`` as a process (ServerProcess), or in-process (running_server);
- client.py: the line clients, RawClient (trio) and LineClient (blocking), and the steps
  most tests take (greet, open a table, sit, deal, play out);
- peer.py: the fake peer a table or the lobby delivers to in-process;
- tmux.py and screens.py: ``jackal play`` in a real terminal;
- fake_server.py: a fake server for the client library's tests;
- proxy.py (a cuttable TCP proxy), records.py (recorded matches), leaks.py (the hidden
  card checker), tables.py, tui.py, bots.py, tournament.py, pipes.py, yardstick.py,
  views.py and cards.py: helpers shared by several test modules.

bench/ never imports this library (tests/test_import_graph.py); what a test shares with a
bench lives in bench/benchkit/, on the tests' path through pyproject's ``pythonpath``.
"""

from pathlib import Path

#: The repository root; tests build their paths to docs/, examples/ and the packages on it.
ROOT = Path(__file__).resolve().parent.parent.parent
