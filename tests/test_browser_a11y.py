"""Accessibility in real Chromium: axe-core (wcag2a, wcag2aa, best-practice) finds nothing on
every kind of page, as loaded, with a query typed, with the popup's options in use and on a
390 px phone; search and filters work from the keyboard alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser_support import axe_violations, require_axe
from conftest import unknown_id

pytestmark = pytest.mark.browser
MISSING = f"gb/{unknown_id().lower()}.html"  # the 404 page's "newer than the registry" form

PAGES = [
    "index.html",
    "gb/gb0025.html",
    "dashboard.html",
    "releases/index.html",
    "releases/2.14.0.html",
    "404.html",
    MISSING,
]
STATES = ["loaded", "typed", "options", "phone", "phone-typed"]


@pytest.fixture(scope="module")
def axe() -> Path:
    return require_axe()


def results_shown(page: Any) -> None:
    if page.locator("#filters").count():
        page.wait_for_selector("#search-results li.result")
    else:
        page.wait_for_selector(".search-popup [role=option]")


def reach(page: Any, state: str) -> None:
    """Bring the page into a state by the keyboard, as a user would."""
    if state in ("typed", "options", "phone-typed"):
        page.locator("#search-input").click()
        page.keyboard.press("Control+A")  # the 404 page of a missing id fills in the id
        page.keyboard.type("graph", delay=10)  # many matches: the popup has "All N matches"
        results_shown(page)
    if state == "options":
        if page.locator("#filters").count():
            page.keyboard.press("Tab")  # into the filters, then on to the results
        else:
            page.keyboard.press("ArrowDown")
            page.keyboard.press("ArrowDown")
            assert page.locator("[role=option][aria-selected=true]").count() == 1


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("path", PAGES)
def test_no_axe_violations(open_page: Any, base_url: str, axe: Path, path: str, state: str) -> None:
    phone = state.startswith("phone")
    page = open_page(
        base_url + path,
        width=390 if phone else 1280,
        height=844 if phone else 900,
        not_found=path in ("404.html", MISSING),
    )
    reach(page, state)
    assert axe_violations(page, axe) == []


def test_axe_reports_a_violation_it_should(open_page: Any, base_url: str, axe: Path) -> None:
    """The check above can fail: a field without a name, and low contrast, are reported."""
    page = open_page(base_url + "dashboard.html")
    page.evaluate(
        """() => {
            document.querySelector("main").insertAdjacentHTML("beforeend",
                '<input type="text"><p style="color:#bbb;background:#fff">faint</p>');
        }"""
    )
    found = " ".join(axe_violations(page, axe))
    assert "label" in found and "color-contrast" in found


def test_dark_theme_has_no_axe_violations(open_page: Any, base_url: str, axe: Path) -> None:
    for path in ("gb/gb0025.html", "index.html"):
        page = open_page(base_url + path, scheme="dark")
        reach(page, "typed")
        assert axe_violations(page, axe) == [], path


def test_tab_from_the_search_box_reaches_all_matches(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0300.html")
    page.locator("#search-input").click()
    page.keyboard.type("graph", delay=10)
    all_matches = page.locator(".search-popup a", has_text="matches")
    all_matches.wait_for()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent").startswith("All ")
    page.wait_for_timeout(300)  # the popup used to close 150 ms after the box lost focus
    assert all_matches.is_visible()
    assert page.locator("#search-input").get_attribute("aria-expanded") == "true"
    page.keyboard.press("Escape")  # back to the box, popup closed
    assert page.evaluate("document.activeElement.id") == "search-input"
    assert page.locator(".search-popup").count() == 0
    page.keyboard.type("s", delay=10)
    all_matches.wait_for()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/index.html?q=graphs")
    page.keyboard.press("Shift+Tab")  # leaving the popup closes it
    assert page.locator(".search-popup").count() == 0


def test_popup_closes_when_focus_leaves_it(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0300.html")
    page.locator("#search-input").click()
    page.keyboard.type("graph", delay=10)
    page.locator(".search-popup a", has_text="matches").wait_for()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # past the popup's last link, into the page
    page.wait_for_selector(".search-popup", state="detached", timeout=2000)
    assert page.locator("#search-input").get_attribute("aria-expanded") == "false"


def test_filters_and_results_by_keyboard_alone(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html")
    page.keyboard.press("/")
    page.keyboard.type("generator", delay=10)
    page.wait_for_selector("#search-results li.result")
    before = page.locator("#search-results li.result").count()
    links = page.locator("#search-results li.result a")
    # One Tab from the box is the first result; ↓ and ↑ move between results, ↑ from the
    # first returns to the box.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.href") == links.nth(0).evaluate("a => a.href")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.href") == links.nth(1).evaluate("a => a.href")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.press("ArrowDown")  # from the box into the results, as Tab
    assert page.evaluate("document.activeElement.href") == links.nth(0).evaluate("a => a.href")
    # The filters sit between the box and the results: Shift+Tab reaches them.
    for _ in range(10):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.id") == "filter-status":
            break
    assert page.evaluate("document.activeElement.id") == "filter-status"
    page.keyboard.press("ArrowDown")  # "Current": a closed select changes with the arrows
    page.wait_for_function("location.search.includes('status=current')")
    after = page.locator("#search-results li.result").count()
    assert 0 < after <= before
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('#search-results')"):
            break
    first = page.locator("#search-results li.result a").first
    assert page.evaluate("document.activeElement.href") == first.evaluate("a => a.href")
    page.keyboard.press("Enter")
    page.wait_for_url("**/gb/gb*.html")
