"""Positions: compare players one decision at a time, on situations recorded games made.

- :mod:`.bank`: the bank of positions (``arena positions build``): detection positions (a town
  seat naming a seat, a mafia seat among its choices, or stating its beliefs at a day's start)
  and deception positions (a mafia seat's public speech or ballot), each holding only what its
  seat knows;
- :mod:`.answer`: one position answered by one player, seated by rebuilding the recorded game
  (:mod:`arena.run.resume`'s rehearsal: nobody is asked on the way), and scored against the truth;
- :mod:`.run`: a player's run over a bank (``arena positions run``), with usage and dollars;
- :mod:`.compare`: two runs compared game by game with the anytime-valid test of ``until_decided``.

It sits above the runner and the tournament (whose sequential test it reuses), below the CLI.
docs/positions.md says what a position measures and what it cannot.
"""
