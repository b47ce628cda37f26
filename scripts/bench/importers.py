"""Other tools' result files, mapped into contributed results.

Three formats, read as their tools write them (never trusted):

* nccl-tests ``-J FILE`` (``src/util.cu`` of NVIDIA/nccl-tests, JSON file
  version 2): ``nccl_version`` as NCCL's version code, ``args`` (the binary
  names the collective), ``env`` (of which only the NCCL settings that pick
  an algorithm or protocol are kept: the rest may hold secrets), ``config``
  with its ``devices`` (one entry per process: host, CUDA device name), and
  ``results``, one per size, with ``out_of_place`` and ``in_place`` time in
  µs and ``alg_bw``/``bus_bw`` in GB/s, and with ``-I`` their
  ``*_per_iter`` statistics (``p99_us``).
* ``vllm bench serve --save-result`` (``vllm/benchmarks/serve.py``): one
  JSON object; ``mean_/median_/std_/pNN_`` + ``ttft|tpot|itl|e2el`` +
  ``_ms``, ``request_throughput``, ``request_goodput`` (null without
  ``--goodput``), and the ``--metadata KEY=VALUE`` pairs as top-level keys.
* ``python -m sglang.bench_serving --output-file F``
  (``python/sglang/bench_serving.py``): one JSON object per line, appended
  per run; ``..._e2e_latency_ms`` for E2E, ``request_rate`` may be
  ``Infinity`` (all requests at once), the only non-finite number allowed.

Each function returns the mapped dict (not yet checked against the schema;
``scripts.bench.import_cli`` does that) or raises ResultFileError naming the
tool's field.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from evidence import ResultFileError

COLLECTIVES = {
    "all_reduce_perf": "all_reduce",
    "reduce_scatter_perf": "reduce_scatter",
    "all_gather_perf": "all_gather",
    "alltoall_perf": "all_to_all",
    "broadcast_perf": "broadcast",
}
#: The environment settings kept from an nccl-tests file: those that choose
#: how NCCL runs the collective. Every other variable is dropped unread.
NCCL_SETTINGS = (
    "NCCL_ALGO",
    "NCCL_PROTO",
    "NCCL_NVLS_ENABLE",
    "NCCL_P2P_DISABLE",
    "NCCL_SHM_DISABLE",
    "NCCL_IB_DISABLE",
    "NCCL_MIN_NCHANNELS",
    "NCCL_MAX_NCHANNELS",
)
METRICS = ("ttft", "tpot", "itl", "e2el")
_STAT = re.compile(r"^(mean|median|p\d{1,2}(?:\.\d{1,3})?)_(ttft|tpot|itl|e2el)_ms$")
_SGLANG_E2E = re.compile(r"^(mean|median|p\d{1,2}(?:\.\d{1,3})?)_e2e_latency_ms$")


def _refuse(shown: str, field: str, why: str) -> ResultFileError:
    return ResultFileError(f"{shown}: field '{field}': {why}")


def field(obj: dict, key: str, kind, shown: str, where: str = ""):
    """``obj[key]`` if it is of ``kind`` (a type or tuple), else a one-line
    refusal naming the tool's field. A bool is never a number."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict) or key not in obj:
        raise _refuse(shown, name, "missing")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    numeric = any(k in (int, float) for k in kinds)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        wanted = "a number" if numeric else "/".join(k.__name__ for k in kinds)
        raise _refuse(shown, name, f"{str(value)[:40]!r} is not {wanted}")
    return value


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def nccl_version(code: int) -> str:
    """NCCL's version code as text: 22703 -> 2.27.3 (2.9 and later encode
    major*10000 + minor*100 + patch; earlier ones major*1000)."""
    if code >= 20900:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


def _nccl_timing(entry: dict, place: str, shown: str, where: str) -> dict:
    if "cpu_time" in (entry.get(place) or {}):
        raise _refuse(
            shown, f"{where}.{place}.cpu_time", "host time (-C); run without it"
        )
    timing = field(entry, place, dict, shown, where)
    at = f"{where}.{place}"
    out = {
        "time_us": field(timing, "time", (int, float), shown, at),
        "algbw_bytes_per_s": field(timing, "alg_bw", (int, float), shown, at) * 1e9,
        "busbw_bytes_per_s": field(timing, "bus_bw", (int, float), shown, at) * 1e9,
    }
    wrong = timing.get("nwrong")
    if wrong is not None and wrong != 0:
        raise _refuse(
            shown, f"{at}.nwrong", f"{wrong} wrong elements: the run failed its check"
        )
    per_iter = entry.get(f"{place}_per_iter")
    if per_iter is not None:
        out["p99_us"] = field(
            per_iter, "p99_us", (int, float), shown, f"{where}.{place}_per_iter"
        )
    return out


def _nccl_rows(data: dict, shown: str) -> tuple[list[dict], str, str]:
    """(rows, dtype, redop): one datatype and one operation per run."""
    results = field(data, "results", list, shown)
    rows, types, ops = [], set(), set()
    for i, entry in enumerate(results):
        where = f"results[{i}]"
        types.add(field(entry, "type", str, shown, where))
        ops.add(field(entry, "redop", str, shown, where))
        rows.append(
            {
                "size_bytes": field(entry, "size", int, shown, where),
                "out_of_place": _nccl_timing(entry, "out_of_place", shown, where),
                "in_place": _nccl_timing(entry, "in_place", shown, where),
            }
        )
    if not rows:
        raise _refuse(shown, "results", "no sizes were measured")
    if len(types) > 1 or len(ops) > 1:
        raise _refuse(
            shown,
            "results",
            "one datatype and operation per run (-d all, -o all mix them)",
        )
    return rows, types.pop(), ops.pop()


def _nccl_devices(data: dict, config: dict, shown: str, link: str) -> dict:
    devices = field(config, "devices", list, shown, "config")
    if not devices:
        raise _refuse(shown, "config.devices", "no device listed")
    names = {
        field(d, "device_info", str, shown, f"config.devices[{i}]")
        for i, d in enumerate(devices)
    }
    hosts = {
        field(d, "hostname", str, shown, f"config.devices[{i}]")
        for i, d in enumerate(devices)
    }
    if len(names) != 1:
        raise _refuse(shown, "config.devices", "more than one kind of GPU in one run")
    per_process = field(config, "nthreads", int, shown, "config") * field(
        config, "ngpus", int, shown, "config"
    )
    return {
        "name": names.pop(),
        "ranks": len(devices) * per_process,
        "hosts": len(hosts),
        "link": link,
    }


def _nccl_collective(data: dict, shown: str) -> str:
    args = field(data, "args", list, shown)
    binary = str(args[0]).rsplit("/", 1)[-1] if args else ""
    if binary not in COLLECTIVES:
        raise _refuse(
            shown, "args[0]", f"{binary[:40]!r} is not one of {', '.join(COLLECTIVES)}"
        )
    return COLLECTIVES[binary]


def _nccl_env(data: dict, shown: str) -> dict:
    kept = {}
    for item in field(data, "env", list, shown):
        name, _, value = str(item).partition("=")
        if name in NCCL_SETTINGS:
            kept[name] = value
    return kept


def from_nccl_tests(
    data: dict, shown: str, sha256: str, *, link: str, tool_version: str
) -> dict:
    """An nccl-tests ``-J`` file as a contributed collectives run."""
    if not isinstance(data, dict):
        raise _refuse(shown, "(top level)", "not a JSON object")
    errors = [e for e in data.get("errors") or [] if e]
    if errors:
        raise _refuse(shown, "errors", "the run reported an NCCL error")
    config = field(data, "config", dict, shown)
    rows, dtype, redop = _nccl_rows(data, shown)
    per_iter = field(config, "per_iter_timing", str, shown, "config") == "true"
    return {
        "schema_version": 1,
        "source": "nccl-tests",
        "evidence": "measured, contributed",
        "identity": {
            "source_sha256": sha256,
            "imported_utc": now_utc(),
            "started_local": field(data, "start_time", str, shown),
            "json_version": field(data, "version", int, shown),
            "tool_version": tool_version,
            "nccl_version": nccl_version(field(data, "nccl_version", int, shown)),
        },
        "device": _nccl_devices(data, config, shown, link),
        "settings": {
            "collective": _nccl_collective(data, shown),
            "dtype": dtype,
            "redop": redop,
            "iterations": field(config, "iterations", int, shown, "config"),
            "warmup_iters": field(config, "warmup_iters", int, shown, "config"),
            "graph": field(config, "graph", int, shown, "config"),
            "per_iter_timing": per_iter,
            "nccl_env": _nccl_env(data, shown),
        },
        "rows": rows,
    }


def _latencies(data: dict, shown: str, e2e_pattern=None) -> dict:
    """{metric: {stat: seconds}} from every ``<stat>_<metric>_ms`` key."""
    out: dict[str, dict[str, float]] = {}
    for key in data:
        match = _STAT.match(key)
        metric = match.group(2) if match else None
        if match is None and e2e_pattern is not None:
            match = e2e_pattern.match(key)
            metric = "e2el" if match else None
        if match is None or data[key] is None:
            continue
        value = field(data, key, (int, float), shown)
        if value < 0:
            raise _refuse(shown, key, "a negative time")
        out.setdefault(metric, {})[match.group(1)] = value / 1e3
    if "ttft" not in out:
        raise _refuse(shown, "mean_ttft_ms", "missing: no latency to show")
    return out


def _rate(value, shown: str):
    """A request rate: a number, or no limit (vLLM's "inf", SGLang's inf)."""
    if value == "inf" or isinstance(value, float) and math.isinf(value) and value > 0:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _refuse(shown, "request_rate", f"{str(value)[:40]!r} is not a rate")
    return value


def _summary(data: dict, shown: str, e2e_pattern=None) -> dict:
    number = (int, float)
    summary = {
        "duration_s": field(data, "duration", number, shown),
        "completed": field(data, "completed", int, shown),
        "request_throughput": field(data, "request_throughput", number, shown),
        "output_throughput": field(data, "output_throughput", number, shown),
        "latency_s": _latencies(data, shown, e2e_pattern),
    }
    for key in ("failed", "total_input_tokens", "total_output_tokens"):
        if data.get(key) is not None:
            summary[key] = field(data, key, int, shown)
    return summary


def from_vllm(
    data: dict, shown: str, sha256: str, *, identity: dict, slo_ms: dict
) -> dict:
    """A ``vllm bench serve --save-result`` file as a contributed serving run;
    goodput is kept only with the SLOs it was counted against."""
    if not isinstance(data, dict):
        raise _refuse(shown, "(top level)", "not a JSON object")
    summary = _summary(data, shown)
    goodput = data.get("request_goodput")
    if goodput is not None and slo_ms:
        summary["request_goodput"] = field(data, "request_goodput", (int, float), shown)
    settings = {
        "model": field(data, "model_id", str, shown),
        "backend": field(data, "backend", str, shown),
        "request_rate": _rate(data.get("request_rate"), shown),
        "max_concurrency": data.get("max_concurrency"),
        "num_prompts": field(data, "num_prompts", int, shown),
    }
    if slo_ms:
        settings["slo_ms"] = slo_ms
    return _serving(
        "vllm bench serve", sha256, identity, settings, summary, data.get("date")
    )


def from_sglang_line(
    data: dict, shown: str, sha256: str, *, line: int, identity: dict, model: str
) -> dict:
    """One line of an ``sglang.bench_serving`` output file as a contributed
    serving run (the file holds no model name: the importer is told it)."""
    if not isinstance(data, dict):
        raise _refuse(shown, "(top level)", "not a JSON object")
    summary = _summary(data, shown, _SGLANG_E2E)
    settings = {
        "model": model,
        "backend": field(data, "backend", str, shown),
        "dataset": str(data.get("dataset_name", "")),
        "request_rate": _rate(data.get("request_rate"), shown),
        "max_concurrency": data.get("max_concurrency"),
        "num_prompts": data.get("num_prompts") or summary["completed"],
    }
    mapped = _serving("sglang bench_serving", sha256, identity, settings, summary, None)
    mapped["identity"]["line"] = line
    return mapped


def _serving(source, sha256, identity, settings, summary, started) -> dict:
    ident = {
        "source_sha256": sha256,
        "imported_utc": now_utc(),
        "tool_version": identity["tool_version"],
        "engine": identity["engine"],
        "engine_version": identity["engine_version"],
    }
    if started is not None:
        ident["started_local"] = str(started)
    return {
        "schema_version": 1,
        "source": source,
        "evidence": "measured, contributed",
        "identity": ident,
        "device": {"name": identity["device"], "count": identity["gpus"]},
        "settings": settings,
        "summary": summary,
    }
