"""Tournaments: many games between models under a balanced design, results in SQLite, a leaderboard.

- :mod:`.config`: the tournament TOML file (models, variants and sizes, games, concurrency, cost cap);
- :mod:`.design`: mirrored pairs and rounds, so every model holds every seat and role equally often;
  seat names and seating drawn per round; a third party for a third side (cove's maniac);
- :mod:`.runner`: concurrent, resumable runs (``arena tournament CONFIG.toml``);
- :mod:`.distributed`: the same games as Ray tasks on a cluster (``--ray``), endpoint limits cluster-wide;
- :mod:`.lock`: one writer per database; :mod:`.progress`: the progress bar;
- :mod:`.db`: the SQLite database (games, player-games, statistics, beliefs, attempts);
- :mod:`.metrics`: per-seat statistics read from transcripts (deception, detection with chance levels,
  Brier skill, words-vote consistency, McKay);
- :mod:`.beliefs`: the once-a-day belief probe (an observer, not an engine action);
- :mod:`.results`: finished games as mirrored pairs and per-side values (for the inference);
- :mod:`.inference`: paired comparisons (sign-flip test, bootstrap interval, Holm, power);
- :mod:`.skills`: the skill model, deception and detection fitted jointly (scipy);
- :mod:`.ratings`: openskill ratings (overall, for reference);
- :mod:`.leaderboard`: the report, tables, Markdown, CSV, JSON (``arena leaderboard DB``);
- :mod:`.plots`: the leaderboard's plots;
- :mod:`.calibration`: the tests' error rates measured on bot games (null tournaments, power);
- :mod:`.balance`: town win rates of bot games per table size (``arena balance VARIANT``).

Definitions and the config reference: docs/tournaments.md.
"""
