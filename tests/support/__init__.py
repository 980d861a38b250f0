"""Test support: the one server-process launcher and in-process server (server.py), the
line clients (client.py), the fake table peer (peer.py), tmux (tmux.py), the cuttable
proxy (proxy.py), recorded matches (records.py), the leak checker (leaks.py) and the bot
and card builders (views.py, cards.py). Tests import them as ``support.<module>``: pytest
puts tests/ on sys.path because tests/conftest.py lives there."""
