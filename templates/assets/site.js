// gbsite page behaviour. Every page reads fine without it. This part is small and loads on
// every page; the search (search-engine.js, search.js and the index) loads only when the search
// box is first used.
(function () {
  "use strict";
  var form = document.querySelector("form.search");
  var input = document.getElementById("search-input");
  var core = window.gbsite = {
    root: (form && form.getAttribute("data-root")) || "",
    pastedLog: null,
    // inOrder: run after the scripts added before it with inOrder (all download at once).
    loadScript: function (path, inOrder) {
      return new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        if (inOrder) script.async = false;
        script.src = core.root + path;
        script.onload = resolve;
        script.onerror = function () { reject(new Error(path + " not found")); };
        document.head.appendChild(script);
      });
    }
  };

  var searchLoaded = false;
  function loadSearch() {
    if (!searchLoaded) {
      searchLoaded = true;
      core.loadScript("assets/search-engine.js", true); // what search.js calls
      core.loadScript("assets/search.js", true);
    }
  }

  // An id in any spelling (GB0123, gb123, 0123, 123) opens its page rather than a list of
  // one: its four digits. Here, not in search.js, so that it works before the search has
  // loaded; search/rules.py's id_query is the same pattern.
  core.idOf = function (text) {
    var m = /^\s*(?:gb\s*-?\s*)?(\d{1,4})\s*$/i.exec(text);
    return m ? ("000" + m[1]).slice(-4) : null;
  };
  if (form && input) {
    form.addEventListener("submit", function (event) {
      var digits = core.idOf(input.value);
      if (digits) {
        event.preventDefault();
        location.href = core.root + "gb/gb" + digits + ".html";
      }
    });
  }

  if (input) {
    input.addEventListener("focus", loadSearch);
    input.addEventListener("input", loadSearch);
    // A log pasted before search.js arrives keeps its line breaks for it.
    input.addEventListener("paste", function (event) {
      if (window.gbsiteSearch) return;
      var text = (event.clipboardData || window.clipboardData).getData("text");
      if (text.indexOf("\n") >= 0) {
        event.preventDefault();
        core.pastedLog = text;
        input.value = text.replace(/\s+/g, " ").trim();
        loadSearch();
      }
    });
  }
  if (document.getElementById("filters")) loadSearch(); // the index: filters and ?q= at once

  // "/" focuses the search box, as on GitHub and MDN.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
      target.tagName === "SELECT" || target.isContentEditable);
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey && input) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });

  // A "Copy" button on each code block of an entry page.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) { // file:// and other insecure contexts
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      area.remove();
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }
  document.querySelectorAll(".entry pre").forEach(function (pre) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy the code");
    var said = document.createElement("span");
    said.className = "visually-hidden";
    said.setAttribute("role", "status");
    button.addEventListener("click", function () {
      var code = pre.querySelector("code") || pre;
      copyText(code.textContent.replace(/\n$/, "")).then(function () {
        button.textContent = "Copied";
        said.textContent = "Code copied";
      }, function () {
        button.textContent = "Select and copy";
        said.textContent = "Copying failed: select the code and copy it";
      });
      setTimeout(function () { button.textContent = "Copy"; said.textContent = ""; }, 2000);
    });
    var box = document.createElement("div");
    box.className = "code-box";
    pre.parentNode.insertBefore(box, pre);
    box.appendChild(button);
    box.appendChild(said);
    box.appendChild(pre);
  });

  // A link to a collapsed <details> (the dashboard's lists) opens it.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") target.open = true;
    // Contributor ids carry a prefix (user-content-, as on GitHub), so that they never equal
    // the layout's: #why-it-breaks still goes to the heading "Why it breaks".
    var prefixed = !target && id && document.getElementById("user-content-" + id);
    if (prefixed) prefixed.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
