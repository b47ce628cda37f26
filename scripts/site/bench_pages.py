"""Benchmark results rendered into the site at build time.

Pages place results with the build hook's placeholders:

* ``<!-- insert: scripts/site/bench_pages.py:kernel_results("matmul") -->``:
  the latest result for one kernel (a GPU result if any exists, else a CPU
  one): a table (rows shapes, columns providers) and an SVG plot, captioned
  with the device, software, commit, date and the result file's sha256, with
  a link to the raw file. Marked **stale** when the kernel's source changed.
* ``all_results()``: every result file with its identity and ceilings (CPU
  runs, which differ little, in one table).
* ``facts()``: the method's settings, profiles' rounds, the schema version
  and the load limits, by key.

The plots and the files copied into the site are ``scripts/site/bench_plot.py``;
the goals table (from the catalog) is ``scripts/site/bench_goals.py``.
Files are read only through ``evidence.benchmarks.load_results``: a file
that fails a check raises ``ResultFileError`` naming the file and the field,
which fails the build. Every string from a file is printed through
``evidence.text.inert``. ``check_pages(folder)`` renders everything these
pages show from one folder, as contribute does before accepting a file.

This module imports neither torch nor Triton: the site build must stay fast.
"""

from __future__ import annotations

import html
from pathlib import Path

from evidence import ROOT, ResultFileError, display_path, enum, schema
from evidence.benchmarks import (
    Result,
    load_results,
    newest_per_device,
    stale_changes,
)
from evidence.method import (
    METHOD,
    PROFILE_ROUNDS,
    parse_utc,
    rounds_for,
)
from evidence.tables import markdown_table
from evidence.text import inert
from scripts.site.bench_format import (
    format_bytes,
    format_rate,
    format_spread,
    format_time,
)
from scripts.site.bench_goals import load_catalog
from scripts.site.bench_plot import (
    plot_or_refuse,
    plot_shows,
    plot_site_path,
    raw_site_path,
    shapes_in_order,
)

# Statuses are defined once, in the schema (in this order there).
OK, INCORRECT, ERROR, INTERPRETER_ONLY, IMPLAUSIBLE = enum("bench", "row_status")
COMPLETE = enum("bench", "run_status")[1]


def facts() -> dict[str, str]:
    """The method's settings, the profiles' round counts, the schema version
    and the limits the result model checks on load, each as a page prints it
    (``<!-- fact: scripts/site/bench_pages.py:KEY -->``)."""
    from evidence import MAX_BYTES_BY_KIND, MAX_VALUES_BY_KIND
    from evidence.text import DEFAULT_NAME_LIMIT, MESSAGE_LIMIT, NAME_LIMITS

    values = {
        name: f"{value:g}" if isinstance(value, float) else str(value)
        for name, value in METHOD.items()
    }
    for profile in PROFILE_ROUNDS:
        values[f"rounds_{profile}"] = _profile_rounds(profile)
    values["schema_version"] = str(
        schema("bench")["properties"]["schema_version"]["const"]
    )
    values.update(
        max_mib=str(MAX_BYTES_BY_KIND["bench"] >> 20),
        max_values=f"{MAX_VALUES_BY_KIND['bench']:,}",
        device_name_limit=str(NAME_LIMITS["name"]),
        name_limit=str(DEFAULT_NAME_LIMIT),
        message_limit=str(MESSAGE_LIMIT),
    )
    return values


def _profile_rounds(profile: str) -> str:
    """How many timed calls a profile makes per provider and shape."""
    rounds, repeats = rounds_for(profile, "cuda")
    text = f"{rounds} rounds of {repeats} timed calls"
    cpu = rounds_for(profile, "cpu")
    if cpu != (rounds, repeats):
        text += f" ({cpu[0]} of {cpu[1]} on a CPU)"
    return text


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------


def _relative(page_url: str, target: str) -> str:
    depth = len([part for part in page_url.split("/") if part])
    return "../" * depth + target


def device_label(result: Result) -> str:
    """Markdown: the file's device name made inert inside our words (so are
    the other ``*_label`` functions that show file text)."""
    name = inert(result.data["device"]["name"])
    if result.on_gpu:
        return f"GPU: {name}"
    return f"CPU, host timers: {name}"


def software_label(result: Result) -> str:
    sw = {k: inert(v) if v else v for k, v in result.data["software"].items()}
    cuda = sw.get("torch_cuda")
    torch_text = f"torch {sw['torch']}" + (f" (CUDA {cuda})" if cuda else "")
    text = f"Python {sw['python']}, {torch_text}, Triton {sw['triton']}"
    if sw.get("driver"):
        text += f", driver {sw['driver']}"
    return text


def commit_label(result: Result) -> str:
    identity = result.data["identity"]
    text = inert(identity["commit"][:12])
    if identity.get("dirty"):
        text += " (uncommitted changes)"
    return text


def date_label(result: Result) -> str:
    moment = parse_utc(result.started)  # checked on load: a UTC time
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else result.started


def cell_label(row: dict) -> str:
    """One provider's cell: trusted markup around numbers this module
    formats (the table is built with escape=False; data text is escaped
    where it enters, in results_table)."""
    status = row["status"]
    if status == INTERPRETER_ONLY:
        return "interpreter: correct, not timed"
    if status == INCORRECT:
        return "**incorrect**, not timed"
    if status == ERROR:
        return "**error**, not timed"
    if status == IMPLAUSIBLE:
        return "**flagged**: faster than the copy bound allows"
    if not row.get("timed"):
        return "not timed"
    text = f"{format_time(row['median_ms'])}<br>{format_spread(row)}"
    fraction = row.get("fraction_of_ceiling")
    if fraction is not None:
        text += f"<br>F {fraction:.2f}"
    return text


def ratio_r(rows_by_provider: dict, baselines: list[str]) -> float | None:
    """R = min(baseline medians) / custom median, for timed, valid rows."""
    custom = rows_by_provider.get("triton")
    if not custom or custom["status"] != OK or not custom.get("timed"):
        return None
    base = [
        rows_by_provider[name]["median_ms"]
        for name in baselines
        if name in rows_by_provider
        and rows_by_provider[name]["status"] == OK
        and rows_by_provider[name].get("timed")
    ]
    if not base or custom["median_ms"] <= 0:
        return None
    return min(base) / custom["median_ms"]


def results_table(result: Result, kernel: str) -> str:
    meta = result.data["kernels"][kernel]
    providers = meta["providers"]
    rows = [r for r in result.data["rows"] if r["kernel"] == kernel]
    baselines = meta.get("r_baselines", ["eager", "compile"])
    show_r = result.on_gpu
    header = ["Shape", *providers, *(["R"] if show_r else []), "Label"]
    body = []
    for shape in shapes_in_order(rows):
        by_provider = {
            r["provider"]: r for r in rows if f"{r['shape_text']} {r['dtype']}" == shape
        }
        cells = [inert(shape)]
        for provider in providers:
            row = by_provider.get(provider)
            cells.append(cell_label(row) if row else "—")
        if show_r:
            r = ratio_r(by_provider, baselines)
            cells.append(f"{r:.2f}" if r is not None else "—")
        labels = next(iter(by_provider.values()))["labels"]
        cells.append(inert(", ".join(labels)))
        body.append(cells)
    align = "l" + "r" * (len(header) - 2) + "l"
    # Cells are escaped above; the markup around them (<br>, bold) is ours.
    escaped_header = [inert(h) for h in header]
    return markdown_table(escaped_header, body, align, escape=False)


def row_notes(result: Result, kernel: str) -> list[str]:
    """Flags, failures and shapes that could not run, one bullet each."""
    notes = []
    for row in result.data["rows"]:
        if row["kernel"] != kernel:
            continue
        where = inert(f"{row['shape_text']} {row['dtype']}, {row['provider']}")
        for flag in row.get("flags") or []:
            notes.append(f"{where}: {inert(flag)}")
        if row["status"] in (INCORRECT, ERROR):
            why = row.get("reason") or row.get("error") or "no reason recorded"
            notes.append(f"{where}: {row['status']}: {inert(why)}")
    for failure in result.data.get("shape_errors") or []:
        if failure.get("kernel") == kernel:
            notes.append(
                f"{inert(failure.get('shape_text', '?'))}: could not run: "
                f"{inert(failure.get('error', '?'))}"
            )
    return [f"- {note}" for note in notes]


def stale_lines(result: Result, kernel: str, root: Path = ROOT) -> list[str]:
    """``stale_changes`` as the page says them, one line per file."""
    changes = []
    for change in stale_changes(result, kernel, root):
        path, old, new = change["path"], change["was"], change["now"]
        if new is None:
            changes.append(f"`{path}` was removed (recorded sha256 `{old[:12]}`)")
        elif old is None:
            changes.append(f"`{path}` is new (sha256 `{new[:12]}`)")
        else:
            changes.append(
                f"`{path}` changed: sha256 `{old[:12]}` when measured, `{new[:12]}` now"
            )
    return changes


def caption_html(result: Result, page_url: str) -> str:
    identity = result.data["identity"]
    parts = [
        device_label(result),
        software_label(result),
        f"commit <code>{commit_label(result)}</code>",
        date_label(result),
        f"profile {inert(identity['profile'])}",
    ]
    if result.data["run_status"] != COMPLETE:
        parts.append(f"run {inert(result.data['run_status'])} (partial)")
    parts.append(f"sha256 <code>{result.sha256}</code>")
    link = _relative(page_url, raw_site_path(result))
    parts.append(
        f'<a href="{html.escape(link)}" download>raw result ({inert(result.name)})</a>'
    )
    return " · ".join(parts)


def library_kernels_list(result: Result, kernel: str) -> str:
    """Which device kernels each library baseline launched, per shape: SDPA
    picks its backend at run time, so the record says which one ran."""
    lines = [
        f"- {inert(row['provider'])} at "
        f"{inert(row['shape_text'])}: "
        + ", ".join(f"<code>{inert(n)}</code>" for n in row["device_kernels"])
        for row in result.data["rows"]
        if row["kernel"] == kernel and row.get("device_kernels")
    ]
    if not lines:
        return ""
    return "Device kernels the library baselines launched:\n\n" + "\n".join(lines)


def reproduce_text(kernel: str, result: Result, page_url: str = "") -> str:
    """The one command that remakes this table on the reader's own GPU."""
    profile = result.data["identity"]["profile"]
    if profile not in ("tiny", "quick", "full", "compare"):
        profile = "full"
    return (
        "Reproduce on your GPU (after `make install "
        "REQUIREMENTS=requirements/gpu.txt`): "
        f"`.venv/bin/python -m scripts.bench --profile {profile} {kernel}`; "
        f'<a href="{_relative(page_url, "reference/benchmarks/")}'
        '#contribute-a-result">contribute the result</a>.'
    )


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else "" for line in text.split("\n"))


def kernel_results(
    kernel: str,
    page_url: str = "",
    *,
    results_dir: Path | None = None,
    root: Path = ROOT,
) -> str:
    """The Markdown block a page shows for one kernel: the newest result of
    each GPU that ran it, side by side (each with its own ratios, never
    mixed), or the newest CPU result while no GPU has."""
    root = Path(root)
    results = newest_per_device(load_results(results_dir, root), kernel)
    if not results:
        return (
            '!!! note "Not measured yet"\n\n'
            f"    No result file in `results/bench/` holds `{kernel}` yet. "
            "Maintainers run `make bench` on a GPU and commit the file it "
            "writes; the table and plot then appear here.\n"
        )
    if len(results) == 1:
        return result_block(results[0], kernel, page_url, root, primary=True)
    return "\n\n".join(
        f"#### {inert(r.data['device']['name'])}\n\n"
        + result_block(r, kernel, page_url, root, primary=i == 0)
        for i, r in enumerate(results)
    )


def result_block(
    result: Result, kernel: str, page_url: str, root: Path, *, primary: bool
) -> str:
    """One result file's table, legend, notes and plot for one kernel."""
    blocks = []
    # One evidence line at the claim; the method lives on the Benchmarks page.
    if not result.on_gpu:
        blocks.append(
            "*CPU run, host timers: not device speed. Triton ran in its "
            "interpreter, checked for correctness and not timed.* "
            f'<a href="{_relative(page_url, "reference/benchmarks/")}#kernels">'
            "What the cells mean, and how to measure it on a GPU</a>."
        )
    else:
        blocks.append(
            f"*{inert(result.data['device']['name'])}, measured* "
            "(CUDA events, L2 flushed by a read before every timed call; "
            "valid for that device and software only)."
        )
    changes = stale_lines(result, kernel, root)
    if changes:
        blocks.append(
            '!!! danger "Stale result"\n\n'
            + _indent(
                "**stale**: the kernel's source changed after this run, so "
                "these numbers describe an older version.\n\n"
                + "\n".join(f"- {line}" for line in changes)
            )
        )
    blocks.append(results_table(result, kernel))
    meta = result.data["kernels"][kernel]
    if not result.on_gpu:
        # The legend and the reproduce line are the same for every kernel's
        # CPU run: the Benchmarks page says them once. What eager is here is
        # this kernel's own.
        if meta.get("eager_is"):
            blocks.append(f"Eager here is {inert(meta['eager_is'])}.")
        return _notes_and_plot(blocks, result, kernel, page_url, primary)
    what = "bandwidth" if meta["metric"] == "bandwidth" else "FLOP rate"
    ceiling = (
        {"copy": "copy", "read": "read-only"}[meta.get("stream", "copy")]
        if meta["metric"] == "bandwidth"
        else "matmul"
    )
    legend = (
        "Each cell: median, then p20–p80 of every timed call"
        + (
            f", then F, the achieved {what} as a fraction of the {ceiling} "
            "ceiling measured in the same run"
            if result.on_gpu
            else ""
        )
        + "."
    )
    if result.on_gpu:
        legend += (
            " R is the best of "
            + ", ".join(inert(b) for b in meta.get("r_baselines", ["eager", "compile"]))
            + " divided by the Triton time (above 1: Triton is faster)."
        )
    if meta.get("eager_is"):
        legend += f" Eager here is {inert(meta['eager_is'])}."
    blocks.append(legend)
    ran = library_kernels_list(result, kernel)
    if ran:
        blocks.append(ran)
    blocks.append(reproduce_text(kernel, result, page_url))
    return _notes_and_plot(blocks, result, kernel, page_url, primary)


def _notes_and_plot(
    blocks: list[str], result: Result, kernel: str, page_url: str, primary: bool
) -> str:
    """The run's notes and its plot, after the blocks above them."""
    notes = row_notes(result, kernel)
    if notes:
        blocks.append("Notes recorded with this run:\n\n" + "\n".join(notes))
    alt = f"{kernel}: {'achieved rate' if result.on_gpu else 'host time'} per shape"
    # One plot per colour scheme; Material shows the one whose fragment
    # matches the scheme (#only-light, #only-dark).
    images = ""
    for dark in (False, True):
        plot = _relative(page_url, plot_site_path(kernel, result, primary, dark))
        scheme = "dark" if dark else "light"
        images += (
            f'<img src="{html.escape(plot)}#only-{scheme}" alt="{html.escape(alt)}">\n'
        )

    blocks.append(
        '<figure class="bench-plot">\n'
        f"{images}"
        f"<figcaption>{plot_shows(result, kernel)}\n"
        f"<details><summary>The run behind it</summary>"
        f"{caption_html(result, page_url)}</details></figcaption>\n"
        "</figure>"
    )
    return "\n\n".join(blocks) + "\n"


def all_results(
    page_url: str = "reference/benchmarks/",
    *,
    results_dir: Path | None = None,
    root: Path = ROOT,
) -> str:
    """Every result file, newest first: each GPU run as a card (identity,
    software, device, ceilings, datasheet, sha256, a download link); the CPU
    runs, which differ little, as one table."""
    results = load_results(results_dir, root)
    if not results:
        return "No result files have been committed yet.\n"
    blocks = [
        _gpu_card(result, page_url) for result in reversed(results) if result.on_gpu
    ]
    cpu = [result for result in reversed(results) if not result.on_gpu]
    if cpu:
        blocks.append(_cpu_table(cpu, page_url))
    return "\n\n".join(blocks) + "\n"


def _download(result: Result, page_url: str) -> str:
    link = _relative(page_url, raw_site_path(result))
    return f'<a href="{html.escape(link)}" download>{inert(result.name)}</a>'


def _gpu_card(result: Result, page_url: str) -> str:
    identity = result.data["identity"]
    kernels = ", ".join(f"`{k}`" for k in result.data["kernels"])
    lines = [
        f"**{_download(result, page_url)}** · GPU run",
        "",
        f"- Identity: commit <code>{commit_label(result)}</code>, "
        f"started {date_label(result)}, profile "
        f"`{identity['profile']}`, run {result.data['run_status']}, "
        f"{len(result.data['rows'])} rows ({kernels})",
        f"- Device: {device_label(result)}",
        f"- Software: {software_label(result)}",
        f"- Copy ceiling (median, best): {_ceiling_cell(result, 'copy')}",
        f"- Read-only ceiling (median, best): {_ceiling_cell(result, 'read')}",
        f"- Matmul ceiling (median, best): {_ceiling_cell(result, 'matmul')}",
        f"- Datasheet: {_datasheet_cell(result)}",
        f"- sha256: `{result.sha256}`",
    ]
    return "\n".join(lines)


def _cpu_table(results: list[Result], page_url: str) -> str:
    """CPU runs (not device speed), one row each; device and software said
    once when every run shares them."""
    machines = {(inert(r.data["device"]["name"]), software_label(r)) for r in results}
    shared = len(machines) == 1
    header = ["File", "Started", "Commit", "Profile", "Rows"]
    header += [] if shared else ["Device", "Software"]
    header += ["Copy ceiling (median, best)", "Matmul ceiling (median, best)"]
    header += ["sha256 (first 12)"]
    rows = []
    for result in results:
        row = [
            _download(result, page_url),
            date_label(result),
            f"<code>{commit_label(result)}</code>",
            f"{result.data['identity']['profile']}, {result.data['run_status']}",
            f"{len(result.data['rows'])}",
        ]
        if not shared:
            row += [device_label(result), software_label(result)]
        row += [
            _ceiling_cell(result, "copy", host_note=False),
            _ceiling_cell(result, "matmul", host_note=False),
        ]
        row.append(f"<code>{result.sha256[:12]}</code>")
        rows.append(row)
    intro = (
        f"**CPU runs** ({len(results)}; CPU host timing and Triton in its "
        "interpreter, so not device speed)"
    )
    if shared:
        device, software = next(iter(machines))
        intro += f", all on {device} with {software}"
    return intro + ":\n\n" + markdown_table(header, rows, escape=False)


def _ceiling_cell(result: Result, which: str, *, host_note: bool = True) -> str:
    ceilings = result.data.get("ceilings")
    if not ceilings:
        return "not measured"
    c = ceilings.get(which)
    if c is None:
        return "not measured in this run (the probe is newer than the file)"
    if which in ("copy", "read"):
        moved = "read + written" if which == "copy" else "read"
        text = (
            f"{format_rate(c['bandwidth_bytes_per_s'], 'bandwidth')}, "
            f"{format_rate(c.get('best_bandwidth_bytes_per_s', 0), 'bandwidth')} "
            f"({format_bytes(c.get('bytes_moved', 0))} {moved})"
        )
    else:
        shape = inert("×".join(str(n) for n in c.get("shape", [])))
        text = (
            f"{format_rate(c['flop_rate_per_s'], 'flops')}, "
            f"{format_rate(c.get('best_flop_rate_per_s', 0), 'flops')} "
            f"({inert(c.get('dtype', '?'))} {shape})"
        )
    if not result.on_gpu and host_note:
        text += ", CPU host timing"
    return text


def _datasheet_cell(result: Result) -> str:
    sheet = (result.data.get("ceilings") or {}).get("datasheet")
    if not sheet:
        return "none on record for this device"
    return (
        f"{format_rate(sheet['bandwidth_bytes_per_s'], 'bandwidth')}, "
        f"{format_rate(sheet['bf16_dense_flop_per_s'], 'flops')} bf16 dense "
        f"({inert(sheet.get('source', ''))})"
    )


def every_kernel_results(
    page_url: str = "",
    *,
    results_dir: Path | None = None,
    root: Path = ROOT,
    catalog: Path | None = None,
) -> str:
    """A heading and the latest result for every kernel in the catalog, so a
    new kernel appears on the Benchmarks page without editing it."""
    data = load_catalog(catalog, root)
    if data is None:
        return "The kernel catalog (`results/kernels.json`) is not written yet.\n"
    blocks = []
    for name, entry in data["kernels"].items():
        title = entry["title"][:1].upper() + entry["title"][1:]
        anchor = name.replace("_", "-")
        blocks.append(f"### {title} {{#{anchor}}}")
        blocks.append(
            kernel_results(name, page_url, results_dir=results_dir, root=root)
        )
    return "\n\n".join(blocks) + "\n"


def check_pages(results_dir: Path, root: Path = ROOT, *, plots: bool = True) -> None:
    """Render everything the benchmark pages show from ``results_dir``
    (tables, notes, captions, plots unless ``plots`` is False, the list of
    results, the matmul reading); any failure becomes ResultFileError naming
    the file."""
    from scripts.site.gpu_status import gpu_status
    from snippets.tiled_matmul.measurement import reading

    results = load_results(results_dir, root)
    for result in results:
        shown = display_path(result.path, root)
        for i, kernel in enumerate(result.data["kernels"]):
            try:
                result_block(result, kernel, "", root, primary=i == 0)
            except ResultFileError:
                raise
            except Exception as exc:  # one line naming the file
                raise ResultFileError(
                    f"{shown}: the {kernel} table cannot be shown: "
                    f"{type(exc).__name__}: {str(exc)[:200]}"
                ) from None
            if plots:
                plot_or_refuse(result, kernel, root)
    all_results(results_dir=results_dir, root=root)
    gpu_status(results_dir, root)
    reading(results_dir=results_dir, root=root)
