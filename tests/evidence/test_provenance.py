"""Where a result came from (evidence/provenance.py), on this
checkout and this CPU; the CUDA half runs only where a GPU is."""

import os
import platform
import re
import subprocess

import pytest

from evidence import ROOT, provenance


def test_git_identity_names_this_checkouts_commit():
    identity = provenance.git_identity()
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    assert identity["commit"] == head
    assert re.fullmatch(r"[0-9a-f]{40}", identity["commit"])
    assert identity["commit_source"] == "git"
    assert isinstance(identity["dirty"], bool)
    assert identity["dirty"] == bool(identity["changed_files"])


def test_git_identity_without_git_uses_the_override(monkeypatch):
    monkeypatch.setattr(provenance, "_git", lambda *args: None)
    assert provenance.git_identity("abc123") == {
        "commit": "abc123",
        "dirty": None,
        "commit_source": "--commit",
    }
    # No git and no override: said so, never guessed.
    assert provenance.git_identity() == {
        "commit": "unknown",
        "dirty": None,
        "changed_files": [],
        "commit_source": "unavailable",
    }


def test_git_identity_without_git_reads_the_commit_from_the_environment(monkeypatch):
    monkeypatch.setattr(provenance, "_git", lambda *args: None)
    monkeypatch.setenv(provenance.COMMIT_ENV, "d8e0129")
    identity = provenance.git_identity()
    assert identity["commit"] == "d8e0129"
    assert identity["commit_source"] == provenance.COMMIT_ENV
    assert provenance.git_identity("abcdef1")["commit_source"] == "--commit"
    monkeypatch.setenv(provenance.COMMIT_ENV, "HEAD; rm -rf /")
    with pytest.raises(ValueError, match="GPU_PERF_COMMIT: .* is not a commit id"):
        provenance.git_identity()


def test_software_info_names_every_package_it_ran_with():
    import numpy
    import torch
    import triton

    info = provenance.software_info()
    assert set(info) == {"python", "torch", "torch_cuda", "triton", "numpy", "platform"}
    assert info["python"] == platform.python_version()
    assert info["torch"] == torch.__version__
    assert info["triton"] == triton.__version__
    assert info["numpy"] == numpy.__version__


def test_cpu_name_is_not_empty():
    name = provenance.cpu_name()
    assert isinstance(name, str) and name.strip() == name and name


def test_device_info_for_the_cpu():
    import torch

    info = provenance.device_info("cpu")
    assert info == {
        "kind": "cpu",
        "name": provenance.cpu_name(),
        "logical_cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
    }


def test_l2_cache_bytes_refuses_a_cpu():
    with pytest.raises(ValueError, match="needs a CUDA device, got 'cpu'"):
        provenance.l2_cache_bytes("cpu")
