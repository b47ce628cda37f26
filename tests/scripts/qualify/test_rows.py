"""The "rows" family of cases (scripts/qualify/rows.py), for the softmax
task: one input per call, the refusals named by the task's argument."""

from scripts.qualify import rows, task

SOFTMAX = task.find("softmax")


def test_every_call_has_one_input_and_the_cases_cover_the_hard_rows():
    by_name = {case.name: case for case in rows.row_cases(SOFTMAX)}
    wide = by_name["wide-row"].build("cpu")[0].args[0]
    assert wide["size"][-1] > 4096  # past one block of 4096 columns
    large = by_name["large-values"].build("cpu")[0].args[0]["base"]
    assert large.abs().max() > 1000  # exp of it overflows without the max
    for case in by_name.values():
        for call in case.build("cpu"):
            assert len(call.args) <= 1


def test_refusals_name_the_tasks_argument():
    by_name = {case.name: case for case in rows.row_cases(SOFTMAX)}
    for name in ("not-a-tensor", "unsupported-dtype", "scalar-0d"):
        for call in by_name[name].build("cpu"):
            assert call.mode == "error" and call.expect_names == SOFTMAX.args


def test_the_flat_family_refuses_2d_only_where_the_task_does():
    def refused(name):
        (refusals,) = [
            c for c in rows.flat_cases(task.find(name)) if c.kind == "unsupported"
        ]
        return [call.note for call in refusals.build("cpu")]

    assert "2-d" in refused("scan")  # the scan's contract is 1-D
    assert "2-d" not in refused("reduction")  # a sum takes any shape


def test_a_matrix_task_gets_no_3d_case_and_a_refusal_of_one():
    by_name = {c.name: c for c in rows.row_cases(task.find("transpose"))}
    assert by_name["three-d"].kind == "unsupported"
    assert by_name["three-d"].build("cpu")[0].expect_error == "ValueError"
