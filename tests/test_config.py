"""Config files: the shipped ones, option validation, seat assignment, one-line errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.run.config import DEFAULT_NAMES, ConfigError, load_config, parse_seat_arg, seat_specs
from arena.variants import VARIANTS, get_variant

ROOT = Path(__file__).resolve().parent.parent
classic = get_variant("classic")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(text)
    return path


def _error(path: Path | None, variant=classic) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(variant, path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_classic_toml_lists_every_option_with_its_default() -> None:
    path = ROOT / "configs" / "classic.toml"
    text = path.read_text()
    for name in classic.Options.model_fields:
        assert re.search(rf"^(# )?{name} = ", text, re.MULTILINE), f"{name} is not listed in {path.name}"
    config = load_config(classic, path)
    assert config.options == classic.Options()
    assert config.players == classic.default_players
    assert config.seats == {}


def test_the_default_config_is_the_variants_file() -> None:
    config = load_config(classic)
    assert config.path is not None and config.path.resolve() == ROOT / "configs" / "classic.toml"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_shipped_config_loads(variant: str) -> None:
    path = ROOT / "configs" / f"{variant}.toml"
    if not path.exists():
        pytest.skip(f"no configs/{variant}.toml")
    load_config(VARIANTS[variant], path)


def test_options_and_seats_are_read(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'players = 7\n[options]\ndiscussion_rounds = 1\nmafia_wins_at_parity = true\n[seats]\nBob = "random"\n',
    )
    config = load_config(classic, path)
    assert config.players == 7
    assert config.options.discussion_rounds == 1 and config.options.mafia_wins_at_parity
    assert config.options.retries == 2  # untouched options keep their defaults
    specs = seat_specs(classic, None, config)
    assert list(specs) == list(DEFAULT_NAMES[:7])
    assert specs["Bob"] == "random" and specs["Ann"] == "bot"


def test_bad_option_value_is_one_precise_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "[options]\ndiscussion_rounds = 0\n")
    assert _error(path) == f"config error: {path}: options.discussion_rounds: Input should be greater than or equal to 1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[options]\nsilly = 1\n", "options.silly: Extra inputs are not permitted"),
        ("[options]\nmax_floor = 3\n", "options.max_floor: Input should be less than or equal to 2"),
        ('[options]\nmafia_wins_at_parity = "maybe"\n', "options.mafia_wins_at_parity: Input should be a valid boolean"),
        ("colour = 1\n", "colour: Extra inputs are not permitted"),
        ('players = "nine"\n', "players: Input should be a valid integer"),
        ("players = 40\n", "players: classic takes 6-18 players, not 40"),
        ("[seats]\nAnn = 3\n", "seats.Ann: Input should be a valid string"),
        ('[seats]\nAnn = " "\n', "seats.Ann: empty seat spec"),
        ("players = = 9\n", "Invalid value"),
    ],
)
def test_bad_files_give_one_line(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, text)
    message = _error(path)
    assert message.startswith(f"config error: {path}: ")
    assert expected in message


def test_missing_file(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope.toml") == f"config error: {tmp_path / 'nope.toml'}: no such file"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_options_are_checked_by_each_variant(tmp_path: Path, variant: str) -> None:
    path = _write(tmp_path, "[options]\nretries = -1\n")
    assert _error(path, VARIANTS[variant]).endswith("options.retries: Input should be greater than or equal to 0")
    path = _write(tmp_path, "[options]\nno_such_option = 2\n")
    assert _error(path, VARIANTS[variant]).endswith("options.no_such_option: Extra inputs are not permitted")


def test_seat_overrides_win_and_unknown_seats_are_refused(tmp_path: Path) -> None:
    config = load_config(classic, _write(tmp_path, '[seats]\nAnn = "random"\nBob = "random"\n'))
    specs = seat_specs(classic, 9, config, [("Bob", "human"), ("Ivy", "random")])
    assert specs["Ann"] == "random" and specs["Bob"] == "human" and specs["Ivy"] == "random" and specs["Cid"] == "bot"
    with pytest.raises(ConfigError, match=r"--seat Jon=random: this 9-player table has no seat 'Jon'"):
        seat_specs(classic, 9, config, [("Jon", "random")])
    far = load_config(classic, _write(tmp_path, '[seats]\nZoe = "random"\n'))
    with pytest.raises(ConfigError, match=r"config error: .*x.toml: seats.Zoe: this 9-player table has no seat 'Zoe'"):
        seat_specs(classic, 9, far)
    with pytest.raises(ConfigError, match="classic takes 6-18 players, not 5"):
        seat_specs(classic, 5, config)


@pytest.mark.parametrize("text", ["Ann", "=bot", "Ann=", "Ann= "])
def test_bad_seat_argument(text: str) -> None:
    with pytest.raises(ConfigError, match="use NAME=SPEC"):
        parse_seat_arg(text)


def test_seat_argument() -> None:
    assert parse_seat_arg("Ann=openai:gpt-4.1-mini") == ("Ann", "openai:gpt-4.1-mini")
