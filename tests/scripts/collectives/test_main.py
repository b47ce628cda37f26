"""The collectives tool end to end (2 ranks, a small sweep) and its
one-line refusals of bad input."""

import socket

import pytest

from evidence import read
from scripts.collectives.__main__ import main, parse


def test_small_sweep_and_data_parallel_step(tmp_path, capsys):
    """The whole tool on 2 gloo ranks: every collective at three sizes, a
    fit each, and the tiny LM's data-parallel step matching one process."""
    argv = ["--worlds", "2", "--sizes", "4096,16384,65536", "--iters", "2"]
    assert (
        main([*argv, "--warmup", "1", "--data-parallel", "--out", str(tmp_path)]) == 0
    )
    (path,) = tmp_path.glob("*-gloo-*.json")
    data = read("collectives", path).data
    assert data["run_status"] == "complete"
    assert "never NVLink" in data["evidence"]
    assert len(data["measurements"]) == 5 * 3
    assert {f["collective"] for f in data["fits"]} == set(
        data["settings"]["collectives"]
    )
    dp = data["data_parallel"]
    assert dp["matches"] and dp["max_abs_weight_difference"] <= dp["tolerance"]
    assert "wrote" in capsys.readouterr().out


def refusal(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        parse(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--worlds", "1"], "world size 1 is below 2"),
        (["--worlds", "2,100000"], "world size 100000 is more than this machine runs"),
        (["--sizes", "4096,0"], "message size 0 must be positive"),
        (["--sizes", "4k"], "comma-separated integers"),
        (["--collectives", "all_reduce,gossip"], "unknown collective 'gossip'"),
        (["--iters", "0"], "--iters must be at least 1"),
    ],
    ids=[
        "world-1",
        "world-too-big",
        "size-zero",
        "size-not-int",
        "unknown-op",
        "iters-0",
    ],
)
def test_bad_arguments_are_one_line(argv, says, capsys):
    assert says in refusal(argv, capsys)


def test_a_port_in_use_is_named(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        err = refusal(["--port", str(port)], capsys)
    assert f"port {port} is in use" in err and "another --port" in err
