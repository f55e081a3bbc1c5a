// gbsite search box: loaded by site.js when the search box is first used (at once on the index
// page), right after search-engine.js, which finds the matches (`gbsite lookup`'s steps, in the
// browser). This file is the page's part: loading the index, the results with their snippets,
// the popup and its keys, and the index page's filters and history.
(function () {
  "use strict";

  var engine = window.gbsiteSearchEngine;
  var squash = engine.squash;

  // ---- loading the index -------------------------------------------------------------------

  var core = window.gbsite;
  var root = core.root;
  var indexPromise = null;
  var loaded = null; // the index, once loaded
  function loadIndex() {
    if (!indexPromise) {
      indexPromise = core.loadScript("assets/search-index.js").then(function () {
        return (loaded = engine.parseIndex(window.GBSITE_SEARCH));
      });
    }
    return indexPromise;
  }
  // The matches of a query in the index (engine.find), with the notes' page links absolute.
  function lookup(query, data) {
    return engine.find(query, data, function (id) {
      return new URL(root + engine.pagePath(id), location.href).href;
    });
  }
  // prepare: tests hand it an index whose rules they changed, to see the ranking follow them.
  window.gbsiteSearch = { lookup: lookup, loadIndex: loadIndex, prepare: engine.parseIndex };

  // ---- rendering results --------------------------------------------------------------------

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function plainType(type) { return type.replace(/(`+)(.+?)\1/g, "$2"); }
  function hrefOf(entry) { return root + engine.pagePath(entry.id); }
  function resultParts(match, ws) {
    var entry = match.entry;
    var type = el("span", { "class": "type" }, marked(plainType(entry.texts[0].type), ws));
    if (entry.removed) type.appendChild(document.createTextNode(" (removed)"));
    return [
      el("span", { "class": "gb-id" }, [entry.id]), type,
      el("span", { "class": "snippet" }, marked(snippetText(entry, ws), ws)),
      el("span", { "class": "why" }, [match.why])
    ];
  }

  // ---- snippets: a few words of the entry that show why it matched, the words marked -------

  var SNIPPET_LENGTH = 150;
  function escapeRegex(text) { return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }
  // The words where they start a word (rules "wordChars", of the index results come from).
  function wordPattern(ws) {
    if (!ws.length) return null;
    var alternatives = ws.map(escapeRegex).sort(function (a, b) { return b.length - a.length; });
    return new RegExp("(?<![" + loaded.rules.wordChars + "])(?:" + alternatives.join("|") + ")", "gi");
  }
  function snippetText(entry, ws) {
    var current = entry.texts[0];
    var candidates = [current.explanation].concat(current.hints, [current.context, entry.info]);
    entry.texts.slice(1).forEach(function (text) { candidates.push(text.type, text.explanation); });
    candidates = candidates.filter(function (text) { return text && text.trim(); })
      .map(function (text) { return plainType(squash(text)); });
    var pattern = wordPattern(ws);
    for (var i = 0; pattern && i < candidates.length; i++) {
      pattern.lastIndex = 0;
      var found = pattern.exec(candidates[i]);
      if (found) return cut(candidates[i], found.index);
    }
    return cut(candidates[0] || "", 0);
  }
  function cut(text, at) {
    var start = Math.max(0, at - 40);
    if (start > 0) {
      var space = text.indexOf(" ", start);
      if (space >= 0 && space < at) start = space + 1;
    }
    var end = Math.min(text.length, start + SNIPPET_LENGTH);
    if (end < text.length) {
      var last = text.lastIndexOf(" ", end);
      if (last > at) end = last;
    }
    return (start > 0 ? "\u2026" : "") + text.slice(start, end) + (end < text.length ? "\u2026" : "");
  }
  function marked(text, ws) {
    var pattern = wordPattern(ws);
    if (!pattern) return [text];
    var nodes = [], pos = 0, found;
    while ((found = pattern.exec(text))) {
      if (found.index > pos) nodes.push(text.slice(pos, found.index));
      nodes.push(el("mark", {}, [found[0]]));
      pos = found.index + found[0].length;
    }
    if (pos < text.length) nodes.push(text.slice(pos));
    return nodes;
  }
  // The words to mark: those of a word search (not of an id or a pasted log).
  function markWords(query, results) {
    return results.length && /your words/.test(results[0].why) ? engine.queryWords(query) : [];
  }

  // An option of the popup's listbox: no link inside (a listbox option may hold nothing
  // interactive); choosing it, by click or Enter, opens its page.
  function optionItem(match, index, ws) {
    return el("li", { "class": "result", role: "option", id: "search-option-" + index,
                      "aria-selected": "false", "data-id": match.entry.id,
                      "data-href": hrefOf(match.entry) }, resultParts(match, ws));
  }
  // A result on the index page: a plain list of links, reached with Tab.
  function panelItem(match, ws) {
    return el("li", { "class": "result", "data-id": match.entry.id }, [
      el("a", { href: hrefOf(match.entry) }, resultParts(match, ws))]);
  }

  // ---- filters on the index page ------------------------------------------------------------

  var filters = document.getElementById("filters");
  var table = document.getElementById("entries");
  var panel = document.getElementById("search-results");
  var input = document.getElementById("search-input");
  var FILTER_NAMES = ["category", "state", "status", "added"];
  // A longer query (a pasted log) stays out of the URL: it lives in the history entry's state,
  // and passes from another page to the index in sessionStorage.
  var MAX_URL_QUERY = 200;
  var HANDOFF = "gbsite.query";
  var clearButton = document.getElementById("clear-filters");

  function readState() {
    var params = new URLSearchParams(location.search);
    var state = { q: params.get("q") || "" };
    FILTER_NAMES.forEach(function (name) { state[name] = params.get(name) || ""; });
    return state;
  }
  function stateUrl(state) {
    var params = new URLSearchParams();
    if (state.q && state.q.length <= MAX_URL_QUERY) params.set("q", state.q);
    FILTER_NAMES.forEach(function (name) { if (state[name]) params.set(name, state[name]); });
    var query = params.toString();
    return location.pathname + (query ? "?" + query : "") + location.hash;
  }
  function currentState() {
    var state = { q: rawQuery !== null ? squash(rawQuery) : input.value, raw: rawQuery };
    FILTER_NAMES.forEach(function (name) { state[name] = filters.elements[name].value; });
    return state;
  }
  function showState(state) {
    input.value = state.q;
    rawQuery = state.raw || null;
    FILTER_NAMES.forEach(function (name) { filters.elements[name].value = state[name]; });
  }
  function passes(row, state) {
    var cats = row.getAttribute("data-category").split(" ");
    return (!state.category || cats.indexOf(state.category) >= 0) &&
      (!state.state || row.getAttribute("data-state") === state.state) &&
      (!state.status || row.getAttribute("data-status") === state.status) &&
      (!state.added || row.getAttribute("data-added") === state.added);
  }
  function filtered(state) {
    return FILTER_NAMES.some(function (name) { return state[name]; });
  }
  function applyIndex(state, query) {
    var rows = table.tBodies[0].rows;
    var shown = 0;
    var visible = {};
    for (var i = 0; i < rows.length; i++) {
      var ok = passes(rows[i], state);
      visible[rows[i].id] = ok;
      if (!query) { rows[i].hidden = !ok; if (ok) shown++; }
    }
    if (clearButton) clearButton.hidden = !filtered(state);
    var status = document.getElementById("filter-status-text");
    if (!query) {
      panel.hidden = true;
      table.hidden = false;
      status.textContent = shown === rows.length ? "" : shown + " of " + rows.length + " graph breaks";
      return Promise.resolve();
    }
    return loadIndex().then(function (data) {
      var all = lookup(query, data);
      var results = all.filter(function (match) { return visible[match.entry.id]; });
      renderPanel(results, all.length, query, all.notes);
      table.hidden = true;
      status.textContent = matchCount(results.length, all.length);
    });
  }
  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "es"); }
  function matchCount(shown, total) {
    if (shown === total) return plural(total, "match");
    return shown + " of " + plural(total, "match") + ": the filters hide " + (total - shown);
  }
  function noteList(notes) {
    return notes.map(function (note) { return el("p", { "class": "search-note" }, [note]); });
  }
  function renderPanel(results, total, query, notes) {
    panel.textContent = "";
    noteList(notes).forEach(function (note) { panel.appendChild(note); });
    if (!total) {
      if (!notes.length) panel.appendChild(el("p", { "class": "search-note" }, [
        "Nothing matches. Try fewer words, an id such as GB0025, or paste the whole message " +
        "PyTorch printed (from \u201cGraph break in user code\u201d to the link)."]));
    } else if (!results.length) {
      panel.appendChild(el("p", { "class": "search-note" }, [
        plural(total, "match") + ", but the filters hide " + (total === 1 ? "it" : "them all") +
        ". Clear the filters to see " + (total === 1 ? "it" : "them") + "."]));
    } else {
      var ws = markWords(query, results);
      var list = el("ol", { "class": "result-list", "aria-label": "Search results" });
      results.slice(0, 100).forEach(function (match) { list.appendChild(panelItem(match, ws)); });
      panel.appendChild(list);
      if (results.length > 100) {
        panel.appendChild(el("p", { "class": "search-note" }, [
          "The first 100 of " + plural(results.length, "match") + " are shown; more words " +
          "narrow them down."]));
      }
    }
    panel.hidden = false;
  }

  // ---- the search box -----------------------------------------------------------------------

  var rawQuery = null; // a pasted log keeps its line breaks here; the input cannot hold them
  var popup = null;
  var selected = -1;
  var onIndex = !!(filters && table && panel);

  function queryText() { return rawQuery !== null ? rawQuery : input.value; }

  function closePopup() {
    if (popup) { popup.remove(); popup = null; }
    selected = -1;
    if (onIndex) return;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  }
  function select(index) {
    if (!popup) return;
    var items = popup.querySelectorAll("[role=option]");
    if (!items.length) return;
    selected = (index + items.length) % items.length;
    items.forEach(function (item, i) { item.setAttribute("aria-selected", i === selected ? "true" : "false"); });
    input.setAttribute("aria-activedescendant", items[selected].id);
    items[selected].scrollIntoView({ block: "nearest" });
  }
  function showPopup(results, query) {
    closePopup();
    if (!query.trim()) return;
    popup = el("div", { "class": "search-popup" });
    noteList(results.notes || []).forEach(function (note) { popup.appendChild(note); });
    if (!results.length) {
      if (!popup.firstChild) popup.appendChild(el("p", { "class": "search-note" }, ["No graph break matches."]));
    } else {
      var ws = markWords(query, results);
      var list = el("ul", { role: "listbox", id: "search-listbox", "aria-label": "Search results" });
      results.slice(0, 8).forEach(function (match, i) { list.appendChild(optionItem(match, i, ws)); });
      list.addEventListener("mousedown", function (event) { event.preventDefault(); });
      list.addEventListener("click", function (event) {
        var option = event.target.closest("[role=option]");
        if (option) location.href = option.getAttribute("data-href");
      });
      popup.appendChild(list);
      if (results.length > 8) {
        var all = el("a", { href: root + "index.html" + (squash(query).length <= MAX_URL_QUERY ?
          "?q=" + encodeURIComponent(squash(query)) : "") }, ["All " + results.length + " matches"]);
        all.addEventListener("click", function () { handOff(query); });
        popup.appendChild(el("p", { "class": "search-note" }, [all]));
      }
    }
    input.form.appendChild(popup);
    input.setAttribute("aria-expanded", "true");
  }

  // A query too long for the URL goes to the index in sessionStorage.
  function handOff(query) {
    if (squash(query).length <= MAX_URL_QUERY) return false;
    try { sessionStorage.setItem(HANDOFF, query); } catch (error) { return false; }
    return true;
  }

  var pending = 0;
  function run(push) {
    var query = queryText();
    var ticket = ++pending;
    if (onIndex) {
      var state = currentState();
      var url = stateUrl(state);
      if (push) history.pushState(state, "", url); else history.replaceState(state, "", url);
      return applyIndex(state, query.trim() ? query : "");
    }
    if (!query.trim()) { closePopup(); return Promise.resolve(); }
    return loadIndex().then(function (data) {
      if (ticket !== pending) return;
      showPopup(lookup(query, data), query);
    });
  }

  if (input) {
    if (onIndex) {
      input.setAttribute("aria-controls", "search-results"); // results replace the list below
    } else {
      input.setAttribute("role", "combobox");
      input.setAttribute("aria-autocomplete", "list");
      input.setAttribute("aria-expanded", "false");
      input.setAttribute("aria-controls", "search-listbox");
    }
    // The index loads when search is first used: focus of the box, or a filter (below).
    input.addEventListener("focus", function () { loadIndex(); });
    if (document.activeElement === input) loadIndex(); // focused before this script arrived
    input.addEventListener("input", function () { rawQuery = null; run(false); });
    input.addEventListener("paste", function (event) {
      var text = (event.clipboardData || window.clipboardData).getData("text");
      if (text.indexOf("\n") < 0) return;
      event.preventDefault(); // keep the line breaks of a pasted log
      rawQuery = text;
      input.value = squash(text);
      run(true);
    });
    input.addEventListener("keydown", function (event) {
      // On the index, the results are a list of links below: ↓ (or Tab) moves into it.
      var first = onIndex && !panel.hidden ? panel.querySelector(".result a") : null;
      if (first && (event.key === "ArrowDown" || (event.key === "Tab" && !event.shiftKey))) {
        event.preventDefault();
        first.focus();
        return;
      }
      if (event.key === "ArrowDown") { event.preventDefault(); select(selected + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); select(selected - 1); }
      else if (event.key === "Escape") { closePopup(); }
      else if (event.key === "Enter") {
        var digits = core.idOf(input.value);
        if (digits && loaded && !loaded.byId["GB" + digits]) {
          event.preventDefault(); // no page to open: the note says so
          run(true);
        } else if (digits && !(popup && selected >= 0)) {
          return; // an id typed in full: the form's submit opens its page (site.js)
        } else if (popup && selected >= 0) {
          event.preventDefault();
          location.href = popup.querySelectorAll("[role=option]")[selected].getAttribute("data-href");
        } else if (onIndex) {
          event.preventDefault();
          run(true);
        } else if (handOff(queryText())) {
          event.preventDefault();
          location.href = root + "index.html";
        }
      }
    });
    // The popup stays open while focus is in the form (Tab from the box reaches "All N
    // matches"); it closes when focus leaves it, or on Escape, which returns to the box.
    input.form.addEventListener("focusout", function (event) {
      if (event.relatedTarget && input.form.contains(event.relatedTarget)) return;
      setTimeout(function () {
        if (!input.form.contains(document.activeElement)) closePopup();
      }, 150);
    });
    input.form.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && popup && event.target !== input) {
        closePopup();
        input.focus();
      }
    });
  }

  if (onIndex) {
    // ↑ and ↓ move between the results; ↑ from the first returns to the box; Enter follows
    // the link that has focus, as links do.
    panel.addEventListener("keydown", function (event) {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      var links = Array.prototype.slice.call(panel.querySelectorAll(".result a"));
      var at = links.indexOf(document.activeElement);
      if (at < 0) return;
      event.preventDefault();
      var next = at + (event.key === "ArrowDown" ? 1 : -1);
      if (next < 0) input.focus();
      else if (next < links.length) links[next].focus();
    });
    filters.addEventListener("change", function () { loadIndex(); run(true); });
    filters.addEventListener("submit", function (event) { event.preventDefault(); });
    if (clearButton) {
      clearButton.addEventListener("click", function () {
        FILTER_NAMES.forEach(function (name) { filters.elements[name].value = ""; });
        filters.elements.category.focus(); // the button hides itself
        run(true);
      });
    }
    window.addEventListener("popstate", function (event) {
      var state = event.state || readState();
      showState(state);
      applyIndex(state, state.raw || state.q);
    });
    var initial = readState();
    var handed = null;
    try { handed = sessionStorage.getItem(HANDOFF); sessionStorage.removeItem(HANDOFF); } catch (error) {}
    if (handed && !initial.q) { initial.q = squash(handed); initial.raw = handed; }
    var kept = history.state; // back to this entry: a long query is in its state, not the URL
    if (kept && kept.raw && !initial.q) { initial.q = kept.q; initial.raw = kept.raw; }
    showState(initial);
    if (initial.q || filtered(initial)) applyIndex(initial, initial.raw || initial.q);
  }

  // Whatever happened before this script arrived: a pasted log, typing, a query in the URL.
  if (input && core.pastedLog !== null) {
    rawQuery = core.pastedLog;
    input.value = squash(rawQuery);
  }
  if (input && !onIndex && queryText().trim()) run(false);
  if (onIndex && input && queryText().trim() && !readState().q) run(false);
})();
