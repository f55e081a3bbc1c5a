"""Charts drawn at build time as inline SVG: geometry here, markup in the templates."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: int
    label: str
    label_x: float  # centre of the bar, for the label under it


@dataclass(frozen=True, slots=True)
class Tick:
    y: float
    value: int


@dataclass(frozen=True, slots=True)
class BarChart:
    title: str
    width: int
    height: int
    plot_left: float
    plot_right: float
    plot_bottom: float
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]


def _nice_step(maximum: int, ticks: int = 4) -> int:
    raw = max(maximum / ticks, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return max(int(factor * magnitude), 1)
    return int(10 * magnitude)


def bar_chart(
    title: str, data: Sequence[tuple[str, int]], width: int = 640, height: int = 260
) -> BarChart:
    """Vertical bars with a labelled y axis; sizes in SVG user units (the SVG scales)."""
    left, right, top, bottom = 44.0, width - 8.0, 12.0, height - 28.0
    maximum = max((v for _, v in data), default=0)
    step = _nice_step(maximum)
    top_value = max(step * math.ceil(maximum / step), step)
    scale = (bottom - top) / top_value
    slot = (right - left) / max(len(data), 1)
    bar_width = slot * 0.62
    bars = tuple(
        Bar(
            x=round(left + i * slot + (slot - bar_width) / 2, 1),
            y=round(bottom - value * scale, 1),
            width=round(bar_width, 1),
            height=round(value * scale, 1),
            value=value,
            label=label,
            label_x=round(left + i * slot + slot / 2, 1),
        )
        for i, (label, value) in enumerate(data)
    )
    ticks = tuple(Tick(round(bottom - v * scale, 1), v) for v in range(0, top_value + 1, step))
    return BarChart(title, width, height, left, right, bottom, bars, ticks)
