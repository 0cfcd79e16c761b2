"""Dashboard settings: defaults, the ``[web]`` table of ``tabletop.toml``, injected services."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from hardware.config import check_sections
from referee.cli_args import MAX_CARD_SCALE, MAX_SERVER_THREADS
from web.services.zones import MAX_SEATS

DEFAULT_DB = Path("var") / "tabletop.db"
# One thread for page loads while the live streams hold the others (``serve`` caps them at
# threads - 8, at least 1): with one thread, one tablet's stream blocked every page.
MIN_SERVER_THREADS = 2


class ConfigError(ValueError):
    """The configuration file or a setting is wrong; the message names the entry."""


@dataclass
class WebConfig:
    """Everything ``create_app`` needs. Services left as None get a default implementation."""

    db_path: Path = field(default_factory=lambda: Path(os.environ.get("TABLETOP_DB", DEFAULT_DB)))
    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 48
    # Live streams (SSE, MJPEG) each hold a server thread; this many at most, so that
    # ordinary page loads always find a free thread (threads - max_streams of them).
    max_streams: int = 32
    stream_heartbeat_s: float = 10.0
    stream_max_age_s: float = 900.0
    # With every stream slot taken, a new stream ends the oldest if it has run this long (a
    # tablet asleep or off the Wi-Fi holds its slot for minutes); younger ones are spared.
    stream_evict_after_s: float = 30.0
    mjpeg_fps: float = 5.0
    camera: str | None = None  # video file or image folder for the built-in feed
    zones_path: Path | None = None  # default: zones.json beside the database
    public_url: str | None = None  # what the QR code points at; default: the request's host
    secret_key: str | None = None  # default: generated once and kept in the database
    # Pad device -> event kind appended to the running game (when the game knows the kind);
    # empty: the pads service decides per game (slap; call, or Wash Dash's done).
    pad_events: dict[str, str] = field(default_factory=dict)
    # Virtual pads and the calibration page's seat zones: every seat a game may fill (DOS
    # and Deck Dash seat 8; at most MAX_SEATS, the calibration page's seat zones). Real pads
    # are the [hardware] pin map's, whatever this says.
    seats: int = 8
    # With a camera, the camera referees the running game (cards on piles become events or
    # tablet prompts); ``tabletop serve --no-camera-referee`` turns it off.
    camera_referee: bool = True
    models_dir: str | None = None  # card models for the camera referee (default: models/)
    # the camera's card scale (VIS-11): None = measured from the first frames showing cards;
    # a number in (0, 5/3] = how the detector sees frames (< 1 shrunk, > 1 enlarged tiles)
    card_scale: float | None = None
    # The pads' window timer closes a slap race when its window ends (HTD-13); tests that
    # time races themselves turn it off.
    race_timer: bool = True
    testing: bool = False
    # Injected services (tests, the hardware and vision packages).
    camera_feed: Any = None
    pads: Any = None
    # The camera referee's detector (``game -> image -> Sightings``) and frame source
    # (``() -> FrameSource``); default: the card models and the dashboard's camera feed.
    referee_detector: Any = None
    referee_source: Any = None
    # This boot's id for the log's clock (HW-10); None: read from the kernel. Tests name a
    # boot to play a reboot.
    boot_id: str | None = None

    @property
    def zones_file(self) -> Path:
        return self.zones_path or Path(self.db_path).parent / "zones.json"


_FILE_KEYS = {
    "db": "db_path",
    "host": "host",
    "port": "port",
    "threads": "threads",
    "max_streams": "max_streams",
    "camera": "camera",
    "zones": "zones_path",
    "public_url": "public_url",
    "pad_events": "pad_events",
    "seats": "seats",
    "mjpeg_fps": "mjpeg_fps",
    "camera_referee": "camera_referee",
    "models": "models_dir",
    "card_scale": "card_scale",
}


def _typed(name: str, value: Any, key: str) -> Any:
    """``value`` for the field ``name`` as its type wants it; a mistake is said under the
    file's own ``key`` (``db``, not the field ``db_path``)."""
    if name in ("db_path", "zones_path"):
        if not isinstance(value, str) or not value:
            raise ConfigError(f"[web] {key}: expected a path")
        return Path(value)
    if name in ("port", "threads", "max_streams", "seats"):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"[web] {name}: expected a positive integer, got {value!r}")
        if name == "port" and value > 65535:
            raise ConfigError(f"[web] port: {value} is not a TCP port")
        if name in ("threads", "max_streams") and value > MAX_SERVER_THREADS:
            raise ConfigError(
                f"[web] {name}: {value} is too many: give at most {MAX_SERVER_THREADS}"
            )
        if name == "threads" and value < MIN_SERVER_THREADS:
            raise ConfigError(
                f"[web] threads: {value} is too few: give at least {MIN_SERVER_THREADS}"
                " (one serves pages while a tablet streams)"
            )
        if name == "seats" and value > MAX_SEATS:  # the calibration page has no zone beyond
            raise ConfigError(f"[web] seats: {value} is too many: give at most {MAX_SEATS}")
        return value
    if name == "mjpeg_fps":
        if not isinstance(value, int | float) or not 0 < value <= 30:
            raise ConfigError(f"[web] mjpeg_fps: expected 0 < fps <= 30, got {value!r}")
        return float(value)
    if name == "card_scale":
        if isinstance(value, str) and value.strip().lower() == "auto":  # as --card-scale
            return None
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not 0 < value <= MAX_CARD_SCALE:
            raise ConfigError(
                f'[web] card_scale: expected "auto" or 0 < scale <= {MAX_CARD_SCALE:g},'
                f" got {value!r}"
            )
        return float(value)
    if name == "camera_referee":
        if not isinstance(value, bool):
            raise ConfigError(f"[web] camera_referee: expected true or false, got {value!r}")
        return value
    if name == "pad_events":
        return _pad_events(value, key)
    if not isinstance(value, str):
        raise ConfigError(f"[web] {key}: expected text, got {value!r}")
    return value


def _pad_events(value: Any, key: str) -> dict[str, str]:
    """``[web] pad_events``, each device one the dashboard names and each kind one that some
    game knows: a typo (``padd``, ``"slpa"``) would otherwise start the server and drop
    every press of that pad without a word."""
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f"[web] {key}: expected a table of device = event kind")
    if not value:
        return {}
    from web.services.pads import DEVICES

    for device in value:  # the pin map's "call" is the dashboard's "button"
        if device not in DEVICES:
            hint = " (the call button is 'button')" if device == "call" else ""
            raise ConfigError(
                f"[web] {key}: {device!r} is no pad device; known: {', '.join(DEVICES)}{hint}"
            )
    known = _known_event_kinds()
    for device, kind in value.items():
        if kind not in known:
            raise ConfigError(
                f"[web] {key}: {device} = {kind!r} is no game's event kind;"
                f" known: {', '.join(sorted(known))}"
            )
    return dict(value)


def _known_event_kinds() -> set[str]:
    """Every event kind of every registered game (imported here: only a config that maps
    pads needs the games' rules)."""
    from referee.registry import find_game, game_names

    kinds: set[str] = set()
    for name in game_names():
        try:
            kinds.update(find_game(name).event_kinds())
        except Exception:  # a house variant that cannot load: its games say so themselves
            continue
    return kinds


def from_mapping(data: Mapping[str, Any], base: WebConfig | None = None) -> WebConfig:
    """Overlay a ``[web]`` table (file keys) or WebConfig field names onto ``base``."""
    cfg = base or WebConfig()
    names = {f.name for f in fields(WebConfig)}
    for key, value in data.items():
        name = _FILE_KEYS.get(key, key)
        if name not in names:
            raise ConfigError(f"[web] unknown setting {key!r}; known: {sorted(_FILE_KEYS)}")
        if key in _FILE_KEYS:
            value = _typed(name, value, key)
        setattr(cfg, name, value)
    return cfg


def load_file(path: Path, base: WebConfig | None = None) -> WebConfig:
    """Read the ``[web]`` table of a TOML file; its other section, ``[hardware]``, is the pin
    map's, and any other is refused (``check_sections``)."""
    try:
        # utf-8-sig: a file saved by Windows Notepad starts with a BOM, which TOML refuses
        data = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:  # arrays nested thousands deep: no config
        raise ConfigError(f"{path}: nested too deeply to be a config") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (a TOML config is UTF-8 text)") from None
    check_sections(data, str(path), ConfigError, _FILE_KEYS)
    web = data.get("web", {})
    if not isinstance(web, Mapping):
        raise ConfigError(f"{path}: [web] must be a table")
    unknown = sorted(set(web) - set(_FILE_KEYS))  # field names (db_path, …) are not file keys:
    if unknown:  # from_mapping would set them untyped
        raise ConfigError(f"[web] unknown setting {unknown[0]!r}; known: {sorted(_FILE_KEYS)}")
    return from_mapping(web, base)


def coerce(config: Any) -> WebConfig:
    if config is None:
        return WebConfig()
    if isinstance(config, WebConfig):
        return config
    if isinstance(config, Mapping):
        return from_mapping(config)
    raise ConfigError(f"create_app needs a WebConfig or a mapping, got {type(config).__name__}")
