"""Exercise answers on a built page, and where their distinctive text
leaks before the fold that hides them.

An answer is a ``??? success`` fold (``<details class="success">``). Its
distinctive text is the numbers and bold key phrases it states that neither
its question (the text since the previous fold or heading) nor the lesson's
prose before it already gives: what the reader is asked to work out. Such
text printed by a "Run it yourself" box, or shown in a predict box's
question, answers the exercise before the reader tries it. So does a line
of a run box's output that the answer repeats word for word, even when the
lesson's prose shows the same numbers (which excuses them above): the
reader walk of 2026-12-02 found such a fold just above the exercises.
"""

from __future__ import annotations

import html as html_lib
import re

ANSWER_RE = re.compile(
    r'<details class="success">\s*<summary>(?P<summary>.*?)</summary>'
    r"(?P<body>.*?)</details>",
    re.S,
)
RUN_OUTPUT_RE = re.compile(
    r"<summary>What it prints</summary>(?P<body>.*?)</details>", re.S
)
RUN_BOX_RE = re.compile(r'<div class="admonition example">.*?</details>', re.S)
STRONG_RE = re.compile(r"<strong>(.*?)</strong>", re.S)
PREDICT_RE = re.compile(r'<div class="predict"[^>]*>.*?</div>', re.S)
# A number with at least three digits or a decimal point, with its unit.
NUMBER_RE = re.compile(
    r"(?<![\w.,])\d+(?:[.,]\d+)*(?:\s?(?:%|×|ms|µs|s\b|GB|MB|KiB|GiB))?"
)


def text_of(fragment: str) -> str:
    fragment = re.sub(r"<(script|style)\b.*?</\1>", " ", fragment, flags=re.S)
    text = html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment))
    return re.sub(r"\s+", " ", text)


def distinctive(token: str) -> bool:
    digits = re.sub(r"[^\d.]", "", token)
    return len(digits.replace(".", "")) >= 3 or "." in digits


def article_of(page_html: str) -> str:
    start = page_html.find("<article")
    return page_html[start : page_html.find("</article>", start)]


PRE_RE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)
ROW_RE = re.compile(r"<tr>(.*?)</tr>", re.S)
MIN_LINE = 20  # a shorter printed line ("pass", "n=257") is no answer alone


def printed_lines(run_outputs: list[str]) -> list[str]:
    """Each line a run box prints (a text block's lines, a table's rows),
    its spaces collapsed, if it is long enough to be an answer."""
    lines = []
    for body in run_outputs:
        for pre in PRE_RE.findall(body):
            lines += html_lib.unescape(re.sub(r"<[^>]+>", "", pre)).split("\n")
        lines += [text_of(row) for row in ROW_RE.findall(body)]
    return sorted({re.sub(r"\s+", " ", x).strip() for x in lines} - {""})


def repeated_lines(before: str, answer_body: str) -> list[str]:
    """The run-box lines above an answer that the answer repeats."""
    outputs = [m["body"] for m in RUN_OUTPUT_RE.finditer(before)]
    body = text_of(answer_body)
    return [
        line
        for line in printed_lines(outputs)
        if len(line) >= MIN_LINE and line in body
    ]


def leaks(page_html: str) -> list[str]:
    """'answer N (summary): numbers' for each answer whose distinctive
    numbers a run box prints or a predict box asks before the reader
    opens it."""
    article = article_of(page_html)
    found = []
    for number, answer in enumerate(ANSWER_RE.finditer(article), 1):
        before = article[: answer.start()]
        # Only what a reader sees before opening this answer: a run box
        # inside the answer's own fold gives nothing away.
        printed = text_of(" ".join(m["body"] for m in RUN_OUTPUT_RE.finditer(before)))
        start = max(before.rfind("</details>"), before.rfind("<h2"))
        question = text_of(before[start:])
        prose = text_of(PREDICT_RE.sub(" ", RUN_BOX_RE.sub(" ", before)))
        predicts = text_of(" ".join(PREDICT_RE.findall(before)))
        shown = printed + " " + predicts
        # Its numbers, and its key phrases: what the answer sets in bold.
        tokens = [t.strip() for t in NUMBER_RE.findall(text_of(answer["body"]))]
        tokens = [t for t in tokens if distinctive(t)]
        tokens += [
            phrase
            for phrase in map(
                str.strip, map(text_of, STRONG_RE.findall(answer["body"]))
            )
            if len(phrase) >= 12
        ]
        numbers = sorted(
            {
                token
                for token in tokens
                if token not in question and token not in prose and token in shown
            }
        )
        numbers += [f'"{line}"' for line in repeated_lines(before, answer["body"])]
        if numbers:
            summary = text_of(answer["summary"]).strip()
            found.append(f"answer {number} ({summary}): {', '.join(numbers)}")
    return found
