"""``mobilepa view --html`` and ``mobilepa compare --html`` in a real headless browser (the system's Chromium,
driven by Playwright): the index sorts, searches and filters; an episode page opens verdict first with the
model's own replies; a flipping task of ``compare`` opens its side-by-side page. Skipped where no Chromium
is installed (``apt-get install chromium``; CI installs it)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from experiments.cli import main as cli_main
from experiments.commands.view import pages
from planners import NoopPlanner, OraclePlanner
from sandbox.episode import FORMAT_ERRORS
from tests.experiments.view_data import RAMBLE, ScriptedModel, fill_store

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no Chromium installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TASK_IDS = ("hw_basic_001", "hw_basic_003", "hw_memory_001", "hw_subagent_002")
RAMBLING = "hw_basic_003"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The view's pages (in a nested folder) and compare's, over the oracle, a scripted model and noop; the
    third folder holds the view's pages laid out 5 rows at a time."""
    root = tmp_path_factory.mktemp("browser")
    planners = {"oracle": OraclePlanner(), "model": ScriptedModel([RAMBLING]), "noop": NoopPlanner()}
    store = fill_store(root / "results.db", planners, TASK_IDS)
    view_dir, compare_dir, paged = root / "deep" / "view", root / "compare", root / "paged"
    assert cli_main(["view", str(store), "--html", str(view_dir)]) == 0
    args = ["compare", "oracle", "model", "--store", str(store), "--out", str(compare_dir), "--resamples", "20"]
    assert cli_main([*args, "--html"]) == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages, "PAGE_ROWS", 5)
        assert cli_main(["view", str(store), "--html", str(paged)]) == 0
    return view_dir, compare_dir, paged


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: sync_api.Browser) -> Iterator[sync_api.Page]:
    opened = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.on("request", lambda r: errors.append(f"fetched {r.url}") if not r.url.startswith("file:") else None)
    yield opened
    opened.close()
    assert errors == []  # no script error, nothing fetched from a network


def _column(page: sync_api.Page, name: str) -> list[str]:
    return page.eval_on_selector_all(
        f"#episodes tbody tr:not([hidden]) td.{name}", "cells => cells.map(c => c.textContent)"
    )


def _shown(page: sync_api.Page) -> int:
    return int(page.text_content("#shown") or "-1")


def test_the_index_sorts_searches_and_filters(written: tuple[Path, Path, Path], page: sync_api.Page) -> None:
    page.goto(written[0].joinpath("index.html").as_uri())
    episodes = 3 * (len(TASK_IDS))
    assert _shown(page) == episodes == len(_column(page, "key"))
    page.click("th[data-col=steps] button")
    steps = [int(s) for s in _column(page, "steps")]
    assert steps == sorted(steps) and page.get_attribute("th[data-col=steps]", "aria-sort") == "ascending"
    page.click("th[data-col=steps] button")
    assert [int(s) for s in _column(page, "steps")] == sorted(steps, reverse=True)
    assert _column(page, "steps")[0] == "15"  # the model that rambled to the step budget
    page.click("th[data-col=planner] button")
    assert _column(page, "planner") == sorted(_column(page, "planner"))
    # the key is never wrapped mid-word
    heights = page.eval_on_selector_all("#episodes td.key a", "links => links.map(a => a.getClientRects().length)")
    assert set(heights) == {1}

    page.fill("#search", RAMBLE.split(".")[0].upper())  # the model's own words, any case
    assert _shown(page) == len(TASK_IDS) and set(_column(page, "planner")) == {"model"}
    page.fill("#search", "call_gui_agent was never called")  # a reason
    assert set(_column(page, "key")) == {"hw_subagent_002"} and set(_column(page, "planner")) == {"noop"}
    page.fill("#search", "")
    page.select_option("select[data-facet=cause]", "format_errors")
    assert _column(page, "key") == [RAMBLING] and _column(page, "planner") == ["model"]
    page.select_option("select[data-facet=cause]", "")
    page.select_option("select[data-facet=planner]", "noop")
    options = page.eval_on_selector_all("select[data-facet=verdict] option", "os => os.map(o => o.textContent)")
    noop_failed = len(_column(page, "verdict"))
    assert f"fail ({noop_failed})" in options and f"verdict: all ({noop_failed})" in options
    assert _shown(page) == noop_failed


def test_an_episode_page_opens_verdict_first_with_the_models_words(
    written: tuple[Path, Path, Path], page: sync_api.Page
) -> None:
    page.goto(written[0].joinpath("index.html").as_uri())
    page.select_option("select[data-facet=planner]", "model")
    page.click(f"#episodes td.key a:text-is('{RAMBLING}')")
    assert page.url.endswith(f"model__handwritten__both__0__{RAMBLING}.html")
    verdict, first_step = page.locator("#verdict"), page.locator("#step-1")
    assert verdict.is_visible() and verdict.bounding_box()["y"] < first_step.bounding_box()["y"]  # type: ignore[index]
    assert page.text_content("#verdict .badge") == "FAIL"
    facts = dict(
        zip(
            page.eval_on_selector_all("#verdict .facts th", "t => t.map(c => c.textContent)"),
            page.eval_on_selector_all("#verdict .facts td", "t => t.map(c => c.textContent)"),
            strict=True,
        )
    )
    assert facts["cause"] == "format_errors" and facts["ended"] == "truncated after 15 step(s)"
    assert facts["format errors"] == "15" and facts["tokens"].startswith("2")
    assert page.locator("#verdict .reasons tbody tr").count() >= 1
    assert page.text_content("#verdict .reasons td.found")  # what was found instead
    step = page.locator("#step-1")
    assert RAMBLE.strip() in (step.locator(".said pre").text_content() or "")
    assert step.locator(".told pre").text_content() == FORMAT_ERRORS["no_tool_call"]
    assert "finish_reason stop" in (step.locator("h3").text_content() or "")
    system = page.locator("details.fold", has_text="system:").first
    assert system.get_attribute("open") is None and not system.locator("pre").is_visible()  # long: folded
    system.locator("summary").click()
    assert system.locator("pre").is_visible()
    tool = page.locator(".tools a").first
    name = tool.text_content()
    tool.click()  # its description and schema, on demand
    assert page.url.endswith(f"/deep/view/tools.html#tool-{name}")
    assert json.loads(page.locator(f"details[id='tool-{name}'] pre").text_content() or "")["type"] == "object"
    assert page.locator(f"details[id='tool-{name}'] pre").is_visible()
    page.go_back()
    page.click("text=all episodes")
    assert page.url.endswith("/deep/view/index.html") and _shown(page) == 3 * len(TASK_IDS)


def test_a_flipping_task_of_compare_opens_side_by_side(written: tuple[Path, Path, Path], page: sync_api.Page) -> None:
    page.goto(written[1].joinpath("compare.html").as_uri())
    flip = page.locator("#a_only ~ table a").first
    assert flip.text_content() == f"{RAMBLING}#0"
    flip.click()
    boxes = page.locator("#verdicts .verdict-box")
    assert boxes.count() == 2
    left, right = (boxes.nth(i).bounding_box() for i in (0, 1))
    assert left and right and left["y"] == right["y"] and left["x"] < right["x"]  # two columns, verdicts on top
    assert [boxes.nth(i).locator(".badge").text_content() for i in (0, 1)] == ["PASS", "FAIL"]
    rows = page.locator("table.aligned tbody tr")
    assert rows.count() == 15 and page.locator("table.aligned tr.differs").count() == 15
    first = rows.first.locator("td")
    assert "format error" in (first.nth(1).text_content() or "") and "<format_error>" not in (
        first.nth(0).text_content() or ""
    )
    page.locator("#verdicts h2 a").first.click()  # the episode's own page
    assert page.url.endswith(f"oracle__handwritten__both__0__{RAMBLING}.html") and page.locator("#verdict").is_visible()


def test_thousands_of_rows_are_laid_out_a_page_at_a_time(written: tuple[Path, Path, Path], page: sync_api.Page) -> None:
    page.goto(written[2].joinpath("index.html").as_uri())
    episodes = 3 * len(TASK_IDS)
    assert _shown(page) == episodes and len(_column(page, "key")) == 5
    page.click("th[data-col=steps] button")
    page.click("th[data-col=steps] button")  # descending: the first five of the new order
    assert [int(s) for s in _column(page, "steps")] == sorted(
        (int(s) for s in page.eval_on_selector_all("#episodes td.steps", "t => t.map(c => c.textContent)")),
        reverse=True,
    )[:5]
    page.click("#more")
    assert len(_column(page, "key")) == episodes and not page.locator("#more").is_visible()
