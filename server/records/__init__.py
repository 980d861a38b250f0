"""Match records: the format (events), one file per table and its fsyncs (files), the
table's part that writes them (recording), the hub's desk of open records (desk), the one
replay loop (replay) behind crash recovery (restore), ``jackal replay``/``review`` and the
evening's figures (stats). The readers (events, files, replay, stats) need no table."""
