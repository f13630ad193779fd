"""Text as a reader sees it (`display_text`) and word-aware wrapping (`wrap_text`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.render.display import display_runs, display_text
from nereid.render.text import text_width, wrap_text


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("`This **is** _Markdown_`", "This is Markdown"),
        ("`Line1\n    Line 2`", "Line1\nLine 2"),
        ("A double quote:#quot;", 'A double quote:"'),
        ("I #9829; you #infin; times more", "I ♥ you ∞ times more"),
        ("#nosuchentity; and #7; stay", "#nosuchentity; and #7; stay"),
        ("fa:fa-twitter for peace", ":twitter: for peace"),
        ("fab:fa-truck-bold a custom icon", ":truck-bold: a custom icon"),
        ("a<br>b<br/>c<br />d<BR >e", "a\nb\nc\nd\ne"),
        ("a< br>b", "a< br>b"),  # not a break in Mermaid either
        ("snake_case_name and 2*3*4", "snake_case_name and 2*3*4"),  # not markdown
        ("`keeps snake_case_name`", "keeps snake_case_name"),
    ],
)
def test_display_text(stored: str, shown: str) -> None:
    assert display_text(stored) == shown


def test_markdown_emphasis_runs() -> None:
    assert display_runs("`The **cat** in the _hat_`") == (
        ("The ", ""),
        ("cat", "bold"),
        (" in the ", ""),
        ("hat", "italic"),
    )


def test_nested_and_tripled_emphasis_marks() -> None:
    for text in (
        "`***both*** ways`",
        "`_**both**_ ways`",
        "`**_both_** ways`",
        "`___both___ ways`",
    ):
        assert display_runs(text) == (("both", "bold italic"), (" ways", "")), text
    assert display_runs("`**a *b* c**`") == (("a ", "bold"), ("b", "bold italic"), (" c", "bold"))
    assert display_runs("`**open *and* shut`") == (
        ("**open ", ""),
        ("and", "italic"),
        (" shut", ""),
    )
    assert display_text("`snake_case_name`") == "snake_case_name"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab_*`#;<>/ r9&\n日"), max_size=40))
def test_runs_join_to_the_display_text(text: str) -> None:
    shown = display_text(text)
    assert "".join(part for part, _ in display_runs(text)) == shown
    assert all(ch >= " " or ch == "\n" for ch in shown)


def test_wrap_breaks_after_punctuation_not_mid_word() -> None:
    assert wrap_text("InvoiceGeneratorService handles it", 20) == [
        "InvoiceGeneratorService",
        "handles it",
    ]
    assert wrap_text("https://example.org/path/to/resource/index.html", 20) == [
        "https://example.org/",
        "path/to/resource/",
        "index.html",
    ]
    assert wrap_text("billing.invoice_generator.render", 12) == [
        "billing.",
        "invoice_",
        "generator.",
        "render",
    ]


def test_wrap_cjk_by_cells() -> None:
    lines = wrap_text("日本語のラベルがとても長いのでここで折り返す", 10)
    assert all(text_width(line) <= 10 for line in lines)
    assert "".join(lines) == "日本語のラベルがとても長いのでここで折り返す"


WORDS = st.text(alphabet=st.sampled_from("abcXYZ./_-日😀"), min_size=1, max_size=45)


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=6), st.integers(4, 24))
def test_wrap_keeps_every_character_and_bounds_lines(words: list[str], width: int) -> None:
    text = " ".join(words)
    lines = wrap_text(text, width)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        # A line grows past the width only for one word, and never past twice the width.
        assert text_width(line) <= width or " " not in line
        assert text_width(line) <= 2 * width + 1
