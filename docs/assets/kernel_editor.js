// The practice pages' kernel editor (scripts/site/kernel_editor.py writes the
// markup). Check grades the reader's kernel with the practice grader's cases
// and hints, on the pure-Python Triton subset (scripts/practice_web) in the
// vendored Pyodide; Run calls it on the first case. Pyodide loads on the
// first Check or Run only; nothing leaves the reader's machine, and the code
// is kept in this browser's local storage, one entry per exercise.
(function () {
  "use strict";

  const script = document.currentScript;
  const assets = new URL(".", script ? script.src : document.baseURI);
  const pyodideURL = new URL("pyodide/", assets).href;
  const pythonURL = new URL("kernel-editor/py/", assets).href;
  const HOME = "/home/pyodide/kernel-editor";

  let runtime = null; // Promise of Pyodide with the subset installed

  function loadRuntime(files) {
    if (!runtime) {
      runtime = (async function () {
        const { loadPyodide } = await import(pyodideURL + "pyodide.mjs");
        const pyodide = await loadPyodide({ indexURL: pyodideURL });
        await Promise.all(files.map(async function (path) {
          const response = await fetch(pythonURL + path);
          if (!response.ok) {
            throw new Error("could not load " + path + " (" + response.status + ")");
          }
          const target = HOME + "/" + path;
          pyodide.FS.mkdirTree(target.replace(/\/[^/]*$/, ""));
          pyodide.FS.writeFile(target, await response.text());
        }));
        pyodide.runPython(
          "import sys\nsys.path.insert(0, " + JSON.stringify(HOME) + ")\n" +
            "from scripts.practice_web import page\npage.install()"
        );
        return pyodide.pyimport("scripts.practice_web.page");
      })();
      runtime.catch(function () {
        runtime = null; // a failed load may be retried by the next press
      });
    }
    return runtime;
  }

  function storageKey(editor) {
    return "kernel-editor:" + editor.dataset.exercise;
  }

  // The saved code, else the starter, into every editor not yet filled.
  function fill() {
    document.querySelectorAll(".kernel-editor textarea").forEach(function (area) {
      if (area.dataset.filled) return;
      const editor = area.closest(".kernel-editor");
      let saved = null;
      try {
        saved = window.localStorage.getItem(storageKey(editor));
      } catch (error) {
        saved = null; // storage refused (a private window): the starter
      }
      area.value = saved === null ? editor.dataset.starter : saved;
      area.dataset.filled = "true";
    });
  }

  function save(area) {
    try {
      window.localStorage.setItem(storageKey(area.closest(".kernel-editor")), area.value);
    } catch (error) {
      // storage full or refused: the code stays in the page only
    }
  }

  function checkLines(report) {
    if (report.error) return [report.error];
    if (report.refused) return [report.refused];
    const failed = report.outcomes.filter(function (o) { return !o.passed; }).length;
    const lines = [(failed ? "FAIL" : "pass") + "  " + (report.outcomes.length - failed) +
      " of " + report.outcomes.length + " cases pass"];
    report.outcomes.forEach(function (o) {
      lines.push((o.passed ? "  pass  " : "  FAIL  ") + o.case +
        (o.message ? ": " + o.message : ""));
    });
    return lines;
  }

  function runLines(result) {
    if (result.refused) return [result.refused];
    if (result.error) return ["case " + result.case + ": " + result.error];
    return ["case " + result.case + ": out starts " + JSON.stringify(result.out)];
  }

  async function act(editor, action) {
    const area = editor.querySelector("textarea");
    const output = editor.querySelector("[data-output]");
    if (action === "reset") {
      area.value = editor.dataset.starter;
      save(area);
      return;
    }
    const buttons = editor.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    editor.setAttribute("aria-busy", "true");
    output.hidden = false;
    output.textContent = runtime ? "Running…" : "Loading Python (first press only)…";
    const started = performance.now();
    try {
      const files = (editor.dataset.files || "").split(/\s+/).filter(Boolean);
      const page = await loadRuntime(files);
      const name = editor.dataset.exercise;
      const result = JSON.parse(page[action](name, area.value));
      const lines = action === "check" ? checkLines(result) : runLines(result);
      if (result.printed) lines.push("", "printed:", result.printed);
      output.textContent = lines.join("\n");
      if (action === "check") editor.dataset.passed = String(Boolean(result.passed));
    } catch (error) {
      output.textContent = "Could not run: " + error.message;
      editor.dataset.passed = "false";
    } finally {
      editor.dataset.lastMs = (performance.now() - started).toFixed(0);
      editor.dataset.presses = String(Number(editor.dataset.presses || 0) + 1);
      buttons.forEach(function (b) { b.disabled = false; });
      editor.removeAttribute("aria-busy");
    }
  }

  // One listener each for the whole document, so an editor that instant
  // navigation brings in works the same way.
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest(".kernel-editor button");
    if (button) act(button.closest(".kernel-editor"), button.dataset.action);
  });
  // Tab indents by four spaces, as Python wants; Escape, then Tab, leaves.
  let leaving = false;
  document.addEventListener("keydown", function (event) {
    if (!event.target.matches || !event.target.matches(".kernel-editor textarea")) return;
    if (event.key === "Escape") {
      leaving = true;
      return;
    }
    if (event.key !== "Tab" || event.shiftKey || leaving) {
      leaving = false;
      return;
    }
    event.preventDefault();
    const area = event.target;
    area.setRangeText("    ", area.selectionStart, area.selectionEnd, "end");
    save(area);
  });
  document.addEventListener("input", function (event) {
    if (event.target.matches(".kernel-editor textarea")) save(event.target);
  });
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches(".kernel-editor textarea")) fill();
  });
  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(fill); // Material's instant navigation
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fill);
  } else {
    fill();
  }
})();
