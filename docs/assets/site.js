// Marks each diagram and benchmark plot that is wider than its column (a
// phone), so the page says it scrolls sideways (docs/assets/site.css). Run on every page: with
// instant navigation Material swaps pages without reloading this file.
(function () {
  "use strict";
  function markScrolling() {
    document.querySelectorAll("figure.diagram, figure.bench-plot").forEach(function (figure) {
      figure.classList.toggle("scrolls", figure.scrollWidth > figure.clientWidth + 1);
    });
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(markScrolling);
  } else {
    document.addEventListener("DOMContentLoaded", markScrolling);
  }
  window.addEventListener("resize", markScrolling);
})();
