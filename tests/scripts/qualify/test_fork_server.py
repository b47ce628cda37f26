"""The fork server (scripts/qualify/fork_server.py): what a job's setup
reports reaches the parent in full, and silence means it never got there."""

import os

from scripts.qualify import fork_server, worker


def test_a_setup_report_is_read_whole():
    read, write = os.pipe()
    text = "error\n" + "Traceback line\n" * 500
    worker.report_setup(write, text)  # closes its end, as the job does
    assert fork_server.read_setup(read) == text


def test_a_job_that_said_nothing_reports_nothing():
    read, write = os.pipe()
    os.close(write)
    assert fork_server.read_setup(read) == ""
