// gbsite page behaviour. Every page reads fine without it; it adds conveniences.
(function () {
  "use strict";

  // "/" focuses the search box, as on GitHub and MDN.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
      target.tagName === "SELECT" || target.isContentEditable);
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      var input = document.getElementById("search-input");
      if (input) {
        event.preventDefault();
        input.focus();
        input.select();
      }
    }
  });

  // A link to a collapsed <details> (the dashboard's lists) opens it.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") el.open = true;
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
