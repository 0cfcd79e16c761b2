"""Rendered capture passes: a deck in an art style, each card alone in the capture zone.

Stands in for a family's photos in tests and measurements. A family's deck is one print:
its faces are drawn once (``print_deck``) and every pass shows those same cards, each pass
on its own table, under its own light and camera, a card anywhere in the zone at any angle.
The empty zone is the same scene without the card, under the same light.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.decks import DeckProfile
from vision.render.faces import CARD_H, CARD_W, card_alpha, render_face, wear
from vision.render.scenes import Canvas, Sprite, _affine, _degrade, _light
from vision.render.tables import table
from vision.teach.guide import Identity, guide_order

W, H = 320, 240
ZONE = (0.25, 0.15, 0.75, 0.85)


def print_deck(deck: DeckProfile, style: str, seed: int = 0) -> list[Sprite]:
    """One physical deck: each kind of card drawn once (guide order), wear and all."""
    rng = np.random.default_rng(seed)
    return [card(deck, ident, style, rng) for ident in guide_order(deck)]


def capture_pass(
    deck: DeckProfile, style: str, seed: int, printed: list[Sprite] | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """(empty zone, one BGR frame per card in guide order) under one table and light."""
    printed = printed if printed is not None else print_deck(deck, style)
    rng = np.random.default_rng(seed)
    bg = table(H, W, rng)
    light_seed = int(rng.integers(2**31))
    width = float(rng.uniform(60, 80))  # the card's width in pixels at this camera height

    def shoot(sprite: Sprite | None, r: np.random.Generator) -> np.ndarray:
        canvas = Canvas(bg)
        if sprite is not None:
            cx = W * rng.uniform(0.42, 0.58)
            cy = H * rng.uniform(0.45, 0.55)
            m = _affine(
                cx, cy, width * rng.uniform(0.95, 1.05), rng.uniform(0, 360), CARD_W, CARD_H
            )
            canvas.place(sprite, m, r)
        img = _light(canvas.img, np.random.default_rng(light_seed)) * rng.uniform(0.95, 1.05)
        return cv2.cvtColor(_degrade(img, r), cv2.COLOR_RGB2BGR)

    empty = shoot(None, rng)
    shots = [shoot(sprite, rng) for sprite in printed]
    return empty, shots


def card(deck: DeckProfile, ident: Identity, style: str, rng: np.random.Generator) -> Sprite:
    color, value = ident
    face = wear(render_face(color, value, style, rng, label=deck.spec(value).label), rng)
    return Sprite(face, card_alpha(rng), "card", {"color": color, "value": value})
