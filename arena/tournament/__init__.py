"""Tournaments: many games between models under a balanced design, results in SQLite, a leaderboard.

- :mod:`.config`: the tournament TOML file (models, variants and sizes, games, concurrency, cost cap);
- :mod:`.design`: mirrored pairs and rounds, so every model holds every seat and role equally often;
- :mod:`.runner`: concurrent, resumable runs (``arena tournament CONFIG.toml``);
- :mod:`.distributed`: the same games as Ray tasks on a cluster (``--ray``), endpoint limits cluster-wide;
- :mod:`.lock`: one writer per database; :mod:`.progress`: the progress bar;
- :mod:`.db`: the SQLite database (games, player-games, statistics, beliefs, attempts);
- :mod:`.metrics`: per-seat statistics read from transcripts (deception, detection, consistency, McKay);
- :mod:`.beliefs`: the once-a-day belief probe (an observer, not an engine action);
- :mod:`.ratings`: openskill ratings, overall and per side;
- :mod:`.leaderboard`: bootstrap intervals, tables, Markdown, CSV, plots (``arena leaderboard DB``);
- :mod:`.balance`: town win rates of bot games per table size (``arena balance VARIANT``).

Definitions and the config reference: docs/tournaments.md.
"""
