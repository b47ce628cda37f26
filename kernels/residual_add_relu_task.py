"""The qualification task of ``kernels/residual_add_relu.py``: what the
evaluator (``python -m scripts.qualify --task residual_add_relu FILE``)
needs to know about this kernel, as data. The harness in ``scripts/qualify``
knows no kernel; it reads this. The cases themselves are the elementwise
family's (``scripts/qualify/cases.py``), with this task's argument names.
"""

CORPUS = "tests/scripts/qualify/candidates"

TASK = {
    "name": "residual_add_relu",
    # The function a candidate file defines, and its parameters in order.
    "function": "residual_add_relu",
    "args": ("x", "residual"),
    # The course's kernel: it must qualify, and its descriptor holds the
    # reference, the goals and the benchmark shapes.
    "kernel_file": "kernels/residual_add_relu.py",
    "descriptor": "kernels.residual_add_relu",
    "cases": "elementwise-binary",
    "corpus": CORPUS,
    # The family's cases, in this kernel's words where they differ.
    "catches": {"nan-inf-float32": "a ReLU that turns NaN into 0; inf - inf"},
    # For each check, a corpus candidate that no other check rejects.
    "only_catches": {
        "source-gate": f"{CORPUS}/broken/detects_evaluator.py",
        "completes": f"{CORPUS}/broken/hangs_polling_flag.py",
        "records-well-formed": f"{CORPUS}/broken/forged_progress.py",
        "grid-limits": f"{CORPUS}/broken/grid_rows_on_axis1.py",
        "launches-kernel": f"{CORPUS}/broken/torch_fallback.py",
        "compiles-for-gpu": f"{CORPUS}/broken/python_helper_in_kernel.py",
        "output-type": f"{CORPUS}/broken/float32_output.py",
        "output-fresh": f"{CORPUS}/broken/buffer_for_equal_inputs.py",
        "output-compact": f"{CORPUS}/broken/padded_output.py",
        "state-unchanged": f"{CORPUS}/broken/disables_grad.py",
        "inputs-unchanged": f"{CORPUS}/broken/mutate_then_restore.py",
        "values": f"{CORPUS}/broken/bias_is_residual.py",
        "nan-mask": f"{CORPUS}/broken/nan_by_bit_pattern.py",
        "rounding": f"{CORPUS}/broken/round_half_up_bf16.py",
        "deterministic": f"{CORPUS}/broken/relu_variant_by_call.py",
        "race-free": f"{CORPUS}/broken/zeros_ahead_of_next_tile.py",
        "unchanged-after-return": f"{CORPUS}/broken/scribbles_on_earlier_result.py",
        "error-type": f"{CORPUS}/broken/no_validation.py",
        "error-message": f"{CORPUS}/broken/vague_errors.py",
        "validates-first": f"{CORPUS}/broken/launch_then_validate.py",
    },
}
