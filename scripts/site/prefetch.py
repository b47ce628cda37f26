"""The pages' computed values (inserts, facts, run boxes, diagrams) worked
out ahead by a second process while the build renders pages, so a build
with an empty cache uses both cores (started by ``scripts/site/hooks.py``).

The build renders pages in order; the helper walks them from the last one
back. Each page has a lock file, and whichever process holds it works on
that page: the helper skips a page the build holds, the build waits for a
page the helper holds, and the build marks each page done as it finishes
it, where the helper stops. Values pass from the helper to the build only
through the build cache, under the usual keys, so a value is the same
whichever process computed it. The helper's errors are ignored: the build
meets them again on the same page and names them itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


class PageClaims:
    """One lock file and one done mark per page, in a folder of this build."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    @classmethod
    def fresh(cls) -> PageClaims:
        return cls(Path(tempfile.mkdtemp(prefix="site-build-claims-")))

    def _path(self, src: str, suffix: str) -> Path:
        name = hashlib.sha256(src.encode()).hexdigest()[:24]
        return self.folder / f"{name}.{suffix}"

    def is_done(self, src: str) -> bool:
        return self._path(src, "done").exists()

    @contextlib.contextmanager
    def building(self, src: str) -> Iterator[None]:
        """The build's hold on a page: waits while the helper works on it,
        and marks it done when the build is through with it."""
        with open(self._path(src, "lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                self._path(src, "done").touch()

    @contextlib.contextmanager
    def ahead(self, src: str) -> Iterator[bool]:
        """The helper's hold: True when it may work on the page now (the
        build neither holds it nor has done it)."""
        with open(self._path(src, "lock"), "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield not self.is_done(src)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def building(claims: PageClaims | None, src: str):
    """The build's hold on a page, or nothing when no helper runs."""
    return claims.building(src) if claims else contextlib.nullcontext()


def start(pages, compute, claims: PageClaims):
    """The helper process (forked: it shares the build's imports and state;
    started before the plots' pool, since forking a process that has the
    pool's threads is unsafe)."""
    helper = multiprocessing.get_context("fork").Process(
        target=_quietly, args=(pages, compute, claims), daemon=True
    )
    helper.start()
    return helper


def work_ahead(
    pages: list[tuple[str, str]],
    compute: Callable[[str, str], object],
    claims: PageClaims,
) -> list[str]:
    """Compute the values of `pages` ((source, url) in build order) from the
    last page back, until a page the build has done; the pages worked on."""
    worked = []
    for src, url in reversed(pages):
        if claims.is_done(src):
            break
        with claims.ahead(src) as mine:
            if not mine:
                continue  # the build is on it now
            with contextlib.suppress(Exception):
                compute(src, url)
            worked.append(src)
    return worked


def _quietly(pages, compute, claims) -> None:
    # The build prints every warning and error itself, once.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    work_ahead(pages, compute, claims)


def begin(pages, compute, *, enabled: bool):
    """(claims, helper) for the Markdown pages among `pages`, or (None, None)
    when disabled or ``SITE_BUILD_AHEAD=off`` (to time a build without it)."""
    if not enabled or os.environ.get("SITE_BUILD_AHEAD", "").lower() == "off":
        return None, None
    claims = PageClaims.fresh()
    markdown = [(src, url) for src, url in pages if src.endswith(".md")]
    return claims, start(markdown, compute, claims)


def stop(helper, claims: PageClaims | None) -> None:
    """End the helper (its work is in the cache or no longer needed)."""
    if helper is not None and helper.is_alive():
        helper.terminate()
    if helper is not None:
        helper.join()
    if claims is not None:
        claims.remove()
