// Calculators and predictions (scripts/site/calculators.py writes the markup).
//
// A calculator runs the page's own tested Python in Pyodide, which is vendored
// into the site (assets/pyodide/) and loaded only when a reader first presses
// Run: a page without calculators, or one whose Run is never pressed, fetches
// nothing more than this file. Nothing is fetched from another host.
(function () {
  "use strict";

  const script = document.currentScript;
  const assets = new URL(".", script ? script.src : document.baseURI);
  const pyodideURL = new URL("pyodide/", assets).href;
  const pythonURL = new URL("calculators/py/", assets).href;
  const HOME = "/home/pyodide/calculators";

  let runtime = null; // Promise of the loaded Pyodide, made on the first Run
  let ready = false; // whether that promise has resolved
  const loaded = new Map(); // repository path -> Promise of its file written

  function loadRuntime() {
    if (!runtime) {
      runtime = (async function () {
        const { loadPyodide } = await import(pyodideURL + "pyodide.mjs");
        const pyodide = await loadPyodide({ indexURL: pyodideURL });
        pyodide.FS.mkdirTree(HOME);
        pyodide.runPython(
          "import sys\nif " + JSON.stringify(HOME) + " not in sys.path: " +
            "sys.path.insert(0, " + JSON.stringify(HOME) + ")"
        );
        await writeFile(pyodide, "calculator_runtime.py");
        ready = true;
        return pyodide;
      })();
      runtime.catch(function () {
        runtime = null; // a failed load may be retried by the next Run
      });
    }
    return runtime;
  }

  function writeFile(pyodide, path) {
    if (!loaded.has(path)) {
      const done = fetch(pythonURL + path).then(function (response) {
        if (!response.ok) {
          throw new Error("could not load " + path + " (" + response.status + ")");
        }
        return response.text();
      }).then(function (text) {
        const dir = (HOME + "/" + path).replace(/\/[^/]*$/, "");
        pyodide.FS.mkdirTree(dir);
        pyodide.FS.writeFile(HOME + "/" + path, text);
      });
      done.catch(function () {
        loaded.delete(path);
      });
      loaded.set(path, done);
    }
    return loaded.get(path);
  }

  function fieldValues(element) {
    const values = {};
    element.querySelectorAll("input[name]").forEach(function (input) {
      values[input.name] = input.type === "checkbox" ? String(input.checked) : input.value;
    });
    return values;
  }

  async function runCalculator(element) {
    const output = element.querySelector("[data-output]");
    const status = element.querySelector(".calculator-status");
    const button = element.querySelector("button");
    const started = performance.now();
    const first = !ready;
    button.disabled = true;
    element.setAttribute("aria-busy", "true");
    if (first && status) status.textContent = "Loading Python (first run only)…";
    try {
      const pyodide = await loadRuntime();
      const files = (element.dataset.files || "").split(/\s+/).filter(Boolean);
      await Promise.all(files.map(function (path) { return writeFile(pyodide, path); }));
      const module = pyodide.pyimport("calculator_runtime");
      const proxy = module.run(
        element.dataset.module, element.dataset.function,
        JSON.stringify(fieldValues(element))
      );
      const result = proxy.toJs();
      proxy.destroy();
      module.destroy();
      output.textContent = result[1];
      output.classList.toggle("calculator-error", !result[0]);
      element.dataset.ok = String(result[0]);
    } catch (error) {
      output.textContent = "Could not run: " + error.message;
      output.classList.add("calculator-error");
      element.dataset.ok = "false";
    } finally {
      const ms = performance.now() - started;
      element.dataset.runMs = ms.toFixed(0);
      if (first) element.dataset.firstRunMs = ms.toFixed(0);
      if (status) status.textContent = "";
      button.disabled = false;
      element.removeAttribute("aria-busy");
      element.dataset.runs = String(Number(element.dataset.runs || 0) + 1);
    }
  }

  function relativeError(estimate, value) {
    const error = (estimate - value) / Math.abs(value);
    const pct = Math.abs(error * 100);
    const shown = pct >= 10 ? pct.toFixed(0) : pct.toPrecision(2);
    if (pct < 0.05) return "spot on";
    return shown + "% " + (error > 0 ? "high" : "low");
  }

  // Off by more than a factor of 1.5 either way (or the wrong sign).
  function farOff(estimate, answer) {
    if (answer === 0) return Math.abs(estimate) > 0.5;
    const ratio = estimate / answer;
    return !(ratio > 1 / 1.5 && ratio < 1.5);
  }

  function checkPrediction(element) {
    const input = element.querySelector("input[name=estimate]");
    const output = element.querySelector("[data-output]");
    const estimate = Number.parseFloat(input.value);
    output.hidden = false;
    if (!Number.isFinite(estimate)) {
      output.textContent = "Type a number first, then check.";
      return;
    }
    const answer = Number.parseFloat(element.dataset.answer);
    // A guess far off gets a hint and a second try before the reveal.
    const tries = Number(element.dataset.tries || 0) + 1;
    element.dataset.tries = String(tries);
    if (tries === 1 && farOff(estimate, answer)) {
      const high = answer === 0 ? estimate > 0 : estimate > answer;
      output.textContent = "Not yet: that is well " + (high ? "above" : "below") +
        " the model's answer. Check the units and which term dominates, then " +
        "try once more; the answer shows on your next check.";
      element.dataset.revealed = "false";
      return;
    }
    element.dataset.revealed = "true";
    let text = "The model gives " + element.dataset.answerText;
    text += answer === 0 ? "." : ": your estimate is " + relativeError(estimate, answer) + ".";
    if (element.dataset.measured !== undefined) {
      const measured = Number.parseFloat(element.dataset.measured);
      text += " Measured: " + element.dataset.measuredText;
      text += measured === 0 ? "." : " (your estimate is " + relativeError(estimate, measured) + ").";
    }
    output.textContent = text;
  }

  // A reader who edits a calculator's field is about to press Run: start
  // Python then, so the first Run waits less. A page only read, or only
  // scrolled past a calculator, still fetches nothing.
  ["focusin"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (runtime === null && event.target.closest && event.target.closest("[data-calculator]")) {
        loadRuntime().catch(function () {});
      }
    });
  });

  // One listener for the whole document: a calculator added to the page
  // later (or copied from another page by a test) works the same way.
  document.addEventListener("click", function (event) {
    const button = event.target.closest("button");
    if (!button) return;
    const calculator = button.closest("[data-calculator]");
    if (calculator) runCalculator(calculator);
    const predict = button.closest("[data-predict]");
    if (predict) checkPrediction(predict);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !event.target.matches("input")) return;
    const calculator = event.target.closest("[data-calculator]");
    if (calculator) runCalculator(calculator);
    const predict = event.target.closest("[data-predict]");
    if (predict) checkPrediction(predict);
  });
})();
