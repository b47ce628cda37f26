"""The repository the site is built from: its address, for every page's
footer and for the clone command on the setup pages.

The Pages workflow passes ``SITE_EDIT_URI`` (``<server>/<owner>/<name>/edit/
<branch>/docs/``, from GitHub's own context), and the address is that with its
``/edit/...`` tail cut off, so no address is ever typed. A local or test
build without one uses ``STAND_IN``; pages write the stand-in in their clone
commands, and ``point_at`` swaps it for the real address in the built HTML.
Only a plain link is made: no widget that asks an outside API (a star count)
from the reader's browser.
"""

from __future__ import annotations

import html
import re

#: The address a build without SITE_EDIT_URI shows (tests use the same one).
STAND_IN = "https://github.com/example-owner/gpu-perf-site"
EDIT_TAIL_RE = re.compile(r"^(?P<repo>https://[^/\s]+/[^/\s]+/[^/\s]+)/edit/\S*$")


def repository_url(edit_uri: str | None) -> str:
    """The repository's web address from an "Edit this page" base address;
    the stand-in when there is none, or it is not a forge's edit address."""
    match = EDIT_TAIL_RE.match((edit_uri or "").strip())
    return match["repo"] if match else STAND_IN


def repository_name(url: str) -> str:
    """``owner/name`` of a repository address, as the footer shows it."""
    return "/".join(url.rstrip("/").split("/")[-2:])


def point_at(output: str, url: str) -> str:
    """A built page's HTML with the stand-in address replaced by `url`."""
    if url == STAND_IN:
        return output
    return output.replace(STAND_IN, html.escape(url, quote=True))
