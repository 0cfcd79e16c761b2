"""A mistake in ``tabletop.toml``'s ``[web]`` table is named by the key the file uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from web.config import ConfigError, load_file


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('db = ""', "[web] db: expected a path"),
        ("zones = 5", "[web] zones: expected a path"),
        ("models = 5", "[web] models: expected text, got 5"),
        ("camera = true", "[web] camera: expected text, got True"),
        ('port = "x"', "[web] port: expected a positive integer, got 'x'"),
    ],
)
def test_a_bad_setting_is_named_as_the_file_names_it(tmp_path: Path, line: str, said: str) -> None:
    cfg = tmp_path / "tabletop.toml"
    cfg.write_text(f"[web]\n{line}\n")
    with pytest.raises(ConfigError) as refused:
        load_file(cfg)
    assert str(refused.value) == said
