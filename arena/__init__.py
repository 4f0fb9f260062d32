"""Mafia arena: language models (and one human) play Mafia through one typed action schema."""

__version__ = "0.1.0"
