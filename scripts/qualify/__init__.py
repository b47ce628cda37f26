"""The evaluator of the Triton qualification project: a harness that knows
no kernel. It qualifies a candidate file against a task's contract (a task
is data beside the kernel it tests, ``kernels/<op>_task.py``) and writes
verdicts as data (``results/qualify/*.json``, kind "verdict"). The practice
grader (``scripts/practice``) runs learners' files through it at the
learner trust level.

``python -m scripts.qualify [--task NAME] PATH`` qualifies one file;
``python -m scripts.qualify.refresh verdicts|corpus`` regenerates the
committed results. The words the pages show are built from the data files
by ``scripts/site/qualify_pages.py``, which never imports this package.

Modules, one job each:

- ``__main__``: the command line (arguments refused in one line).
- ``task``: finds a task and reads it (function, arguments, kernel, corpus).
- ``checks``: the registry of checks, in order, each with what it establishes
  and what it cannot.
- ``contract``: the contract every verdict carries, exit codes and limits.
- ``cases``: the cases of a family of tasks, described from their calls.
- ``rows``: the family of one-input, row-by-row operations.
- ``products``: the families of matrix products (a @ b; causal q, k, v).
- ``builders``: builds the inputs of each case, as the parent's own tensors.
- ``evaluator``: runs one qualification, from the source to the verdict.
- ``gate``: refuses a source before it runs (static allow-list, syntax).
- ``review``: lists what a reviewer should read, and escapes and clips
  untrusted text.
- ``sandbox``: bubblewrap or the fallback, limits, and the fork server client
  (the hostile trust level, for qualification).
- ``learner``: the learner trust level, for practice: one process for a
  learner's files, from their folder, with a time and memory limit.
- ``learner_cases``: the learner level's case model: inputs built from a
  seed, guards and sentinel, the plan the learner's process reads.
- ``learner_source``: reads a learner's file before it runs (syntax, the
  function, imports of someone else's kernel refused, unmasked accesses).
- ``learner_child``: the learner's process: loads each file, calls it on
  every case, writes the tensors and what it printed back.
- ``learner_watch``: what a learner's launches did (stores into out and from
  which file, atomics, float32 dots), from the interpreter's builder.
- ``fork_server``: the server in the sandbox that forks one job per candidate.
- ``worker``: the candidate's process: imports it, calls it on every case.
- ``shared_inputs``: the inputs as sealed memory the candidate maps read-only.
- ``records``: the strict formats of every file the child writes back.
- ``launch_log``: what the child records about each Triton launch.
- ``compile_check``: compiles each launched specialisation for sm_90a.
- ``compile_server``: the parent's compile process, outside the sandbox.
- ``module_reader``: what a module binds at its top level, from its syntax
  tree, without running it (for the compile process).
- ``interpreter_rounding``: bfloat16 and TF32 dot operands rounded in the
  interpreter as compiled code rounds them.
- ``races``: races between the programs of one launch, from the accesses
  the interpreter runs.
- ``race_report``: a race as the one sentence both graders print (standard
  library only: the page's grader imports it in the browser).
- ``judge``: judges calls and cases from the child's claims and bytes.
- ``verdict``: the verdict record and the lines the evaluator prints.
- ``refresh``: regenerates the committed verdicts and the corpus.
"""
