"""Table surfaces and non-card clutter (hands, mugs, phones, notes) for scene backgrounds."""

from __future__ import annotations

import cv2
import numpy as np


def smooth_noise(h: int, w: int, rng: np.random.Generator, cells: int) -> np.ndarray:
    """Low-frequency noise in 0..1 (random grid upsampled)."""
    g = rng.random((max(2, cells * h // w), cells)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _rand_rgb(rng: np.random.Generator, lo: int = 0, hi: int = 256) -> np.ndarray:
    return rng.integers(lo, hi, 3).astype(np.float32)


def table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A random table top: wood, cloth patterns, felt, plain (white/grey) or stone."""
    kind = rng.choice(["wood", "check", "stripes", "dots", "plain", "stone", "felt", "floral"])
    img = np.empty((h, w, 3), np.float32)
    if kind == "wood":
        base = np.array([rng.uniform(90, 200), rng.uniform(55, 140), rng.uniform(20, 90)])
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, np.pi)
        u = xx * np.cos(ang) + yy * np.sin(ang)
        warp = smooth_noise(h, w, rng, 6) * rng.uniform(10, 60)
        grain = 0.5 + 0.5 * np.sin((u + warp) / rng.uniform(2, 8))
        img[:] = base * (0.75 + 0.3 * grain[..., None])
    elif kind in ("check", "stripes"):
        a, b = _rand_rgb(rng), _rand_rgb(rng)
        step = int(rng.integers(12, 60))
        yy, xx = np.mgrid[0:h, 0:w]
        if kind == "check":
            m = ((xx // step + yy // step) % 2).astype(np.float32)
        else:
            ang = rng.uniform(0, np.pi)
            m = ((xx * np.cos(ang) + yy * np.sin(ang)) // step % 2).astype(np.float32)
        img[:] = a * m[..., None] + b * (1 - m[..., None])
        img = cv2.GaussianBlur(img, (0, 0), 0.8)
    elif kind in ("dots", "floral"):
        img[:] = _rand_rgb(rng, 60)
        for _ in range(int(rng.integers(30, 200))):
            c = tuple(float(v) for v in _rand_rgb(rng))
            center = (int(rng.integers(w)), int(rng.integers(h)))
            r = int(rng.integers(3, 18))
            if kind == "dots":
                cv2.circle(img, center, r, c, -1, cv2.LINE_AA)
            else:
                for k in range(5):
                    off = (
                        int(center[0] + r * np.cos(k * 1.256)),
                        int(center[1] + r * np.sin(k * 1.256)),
                    )
                    cv2.ellipse(img, off, (r, r // 2 + 1), k * 72, 0, 360, c, -1, cv2.LINE_AA)
    elif kind == "felt":
        img[:] = np.array([rng.uniform(0, 60), rng.uniform(80, 160), rng.uniform(40, 110)])
    elif kind == "stone":
        img[:] = _rand_rgb(rng, 100)
        for cells in (4, 16, 64):
            img += (smooth_noise(h, w, rng, cells)[..., None] - 0.5) * rng.uniform(10, 60)
    else:
        img[:] = _rand_rgb(rng, 150) if rng.random() < 0.6 else _rand_rgb(rng)
    img += (smooth_noise(h, w, rng, 8)[..., None] - 0.5) * rng.uniform(0, 40)
    img += rng.normal(0, rng.uniform(1, 5), img.shape).astype(np.float32)
    return img.clip(0, 255)


SKIN = (
    (255, 220, 190),
    (230, 180, 140),
    (200, 150, 110),
    (160, 110, 75),
    (110, 75, 50),
    (80, 55, 40),
)


def occluder(h: int, w: int, rng: np.random.Generator, kind: str | None = None):
    """A random clutter object: (rgb float H×W×3, alpha float H×W) drawn at full frame size."""
    kind = kind or str(rng.choice(["hand", "hand", "mug", "phone", "note", "pen", "coin"]))
    alpha = np.zeros((h, w), np.float32)
    rgb = np.zeros((h, w, 3), np.float32)
    cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
    s = float(rng.uniform(60, 160))
    if kind == "hand":
        col = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.85, 1.1)
        ang = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        n = np.array([-d[1], d[0]])
        palm = np.array([cx, cy], np.float32)
        cv2.ellipse(
            alpha,
            (cx, cy),
            (int(s * 0.35), int(s * 0.3)),
            float(np.degrees(ang)),
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        for k, off in enumerate((-0.24, -0.08, 0.08, 0.24)):
            base = palm + d * s * 0.25 + n * s * off
            tip = base + d * s * (0.45 if k in (1, 2) else 0.38)
            cv2.line(
                alpha,
                tuple(base.astype(int)),
                tuple(tip.astype(int)),
                1.0,
                int(s * 0.13),
                cv2.LINE_AA,
            )
        thumb = palm + n * s * 0.3
        cv2.line(
            alpha,
            tuple(palm.astype(int)),
            tuple((thumb + d * s * 0.25).astype(int)),
            1.0,
            int(s * 0.14),
            cv2.LINE_AA,
        )
        arm_end = palm - d * s * 2.5
        cv2.line(
            alpha,
            tuple(palm.astype(int)),
            tuple(arm_end.astype(int)),
            1.0,
            int(s * 0.5),
            cv2.LINE_AA,
        )
        rgb[:] = col
        shade = smooth_noise(h, w, rng, 6)[..., None]
        rgb *= 0.8 + 0.35 * shade
        if rng.random() < 0.4:  # sleeve
            sleeve = np.zeros((h, w), np.float32)
            cv2.line(
                sleeve,
                tuple((palm - d * s * 0.9).astype(int)),
                tuple(arm_end.astype(int)),
                1.0,
                int(s * 0.6),
                cv2.LINE_AA,
            )
            rgb = rgb * (1 - sleeve[..., None]) + _rand_rgb(rng) * sleeve[..., None]
            alpha = np.maximum(alpha, sleeve)
    elif kind == "mug":
        col = _rand_rgb(rng)
        r = int(s * 0.35)
        cv2.circle(alpha, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
        ang = rng.uniform(0, 2 * np.pi)
        hx, hy = int(cx + np.cos(ang) * r * 1.2), int(cy + np.sin(ang) * r * 1.2)
        cv2.circle(alpha, (hx, hy), int(r * 0.35), 1.0, int(r * 0.15) + 1, cv2.LINE_AA)
        rgb[:] = col
        inner = np.zeros((h, w), np.float32)
        cv2.circle(inner, (cx, cy), int(r * 0.82), 1.0, -1, cv2.LINE_AA)
        drink = np.array([rng.uniform(40, 120), rng.uniform(20, 70), rng.uniform(0, 40)])
        rgb = rgb * (1 - inner[..., None]) + drink * inner[..., None]
    elif kind in ("phone", "note"):
        pw, ph = (s * 0.45, s * 0.9) if kind == "phone" else (s * 0.6, s * 0.6)
        box = cv2.boxPoints(((cx, cy), (pw, ph), float(rng.uniform(0, 180)))).astype(np.int32)
        cv2.fillPoly(alpha, [box], 1.0, cv2.LINE_AA)
        if kind == "phone":
            rgb[:] = _rand_rgb(rng, 0, 60)
        else:
            rgb[:] = np.array([255, 250, rng.uniform(120, 250)], np.float32)
            for k in range(int(rng.integers(2, 7))):  # scribbles
                y = int(cy - ph / 3 + k * 10)
                cv2.line(
                    rgb,
                    (int(cx - pw / 3), y),
                    (int(cx + pw / 3), y + int(rng.integers(-3, 3))),
                    (30, 30, float(rng.uniform(30, 200))),
                    1,
                    cv2.LINE_AA,
                )
    elif kind == "pen":
        ang = rng.uniform(0, np.pi)
        d = np.array([np.cos(ang), np.sin(ang)]) * s * 0.7
        cv2.line(
            alpha,
            (int(cx - d[0]), int(cy - d[1])),
            (int(cx + d[0]), int(cy + d[1])),
            1.0,
            int(rng.integers(5, 10)),
            cv2.LINE_AA,
        )
        rgb[:] = _rand_rgb(rng)
    else:  # coin / bottle cap
        cv2.circle(alpha, (cx, cy), int(rng.integers(8, 20)), 1.0, -1, cv2.LINE_AA)
        rgb[:] = np.array([rng.uniform(150, 220), rng.uniform(120, 190), rng.uniform(50, 120)])
    return rgb, alpha
