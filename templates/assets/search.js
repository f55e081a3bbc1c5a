// gbsite search: loaded by site.js when the search box is first used (at once on the index page).
// The algorithm mirrors src/gbsite/search.py step by step (same regexes, weights and thresholds);
// both are tested against the same real torch logs. Change them together.
(function () {
  "use strict";

  // ---- the search algorithm (mirror of search.py) ----------------------------------------

  var LOG_PREFIX = /[VIWEDC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] (?:\[[^\]\n]*\] ?)*/g;
  var URL_ID = /gb\/gb(\d{4})\.html?/i;
  var URL_ID_ALL = /gb\/gb(\d{4})\.html?/gi;
  var ID_QUERY = /^\s*(?:gb\s*-?\s*)?(\d{4})\s*$/i;
  var PLACEHOLDER = /\{[^{}]*\}/;
  var MARKERS = new RegExp(
    "Graph Break Reason:|Explanation:|Hint:|Developer debug context:|For more details about " +
    "this graph break|Graph break in user code at|Graph break \\(user stack suppressed[^)]*\\) in " +
    "user code at|User code traceback:|from user code:|Set TORCHDYNAMO_VERBOSE", "g");
  var WORD = /[a-z0-9_]+/g;
  var BARE_EXPRESSION = /^[A-Za-z_][\w.]*(\(.*\))?$/;
  var WEIGHTS = { type: 6, old_type: 4, explanation: 3, hints: 2, context: 1.5, info: 1.5 };
  var STOP_WORDS = {};
  ("a an and are at be by can do does error errors fix for from get got how i in is it my of " +
   "on or the this to with why what when").split(" ").forEach(function (w) { STOP_WORDS[w] = 1; });

  function squash(s) { return s.replace(/\s+/g, " ").trim(); }
  function words(s) { return s.toLowerCase().match(WORD) || []; }
  function wordsOf(s) { return words(s).join(" "); }

  function isRuntimeText(value) {
    value = value.trim();
    return BARE_EXPRESSION.test(value) && value.split("(")[0].indexOf(" ") < 0;
  }
  function usable(value) {
    value = value.trim();
    return !!value && !isRuntimeText(value) &&
      !!value.split(PLACEHOLDER).join("").trim();
  }

  var templateCache = {};
  function escapeRegex(s) { return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }
  function template(text, mode) {
    var key = mode + "\u0000" + text;
    if (!templateCache[key]) {
      var parts = squash(text).split(PLACEHOLDER).map(function (p) {
        return escapeRegex(squash(p)).replace(/ /g, "\\s*");
      });
      var body = parts.join("(?:[\\s\\S]*?)");
      var source = mode === "suffix" ? "(?:^|[\\s:])" + body + "$" :
        mode === "prefix" ? "^" + body : body;
      templateCache[key] = new RegExp(source);
    }
    return templateCache[key];
  }

  function lineEnd(text, start, next) {
    var newline = text.indexOf("\n", start);
    var stops = [];
    if (next) stops.push(next.index);
    if (newline >= 0) stops.push(newline);
    return stops.length ? Math.min.apply(null, stops) : text.length;
  }

  function parseLog(text) {
    text = text.replace(/\r\n/g, "\n").replace(LOG_PREFIX, "");
    var marks = [];
    var m;
    MARKERS.lastIndex = 0;
    while ((m = MARKERS.exec(text))) marks.push({ text: m[0], index: m.index, end: m.index + m[0].length });
    var explanations = [];
    marks.forEach(function (mark, i) { if (mark.text === "Explanation:") explanations.push(i); });
    if (!explanations.length) {
      return marks.map(function (mark, i) {
        if (mark.text !== "Graph Break Reason:") return null;
        return { before: squash(text.slice(mark.end, lineEnd(text, mark.end, marks[i + 1]))),
                 explanation: "", hints: "", context: "", urlId: null };
      }).filter(Boolean);
    }
    var records = [];
    explanations.forEach(function (i, n) {
      var start = n ? marks[explanations[n - 1]].end : 0;
      var beforeStart = start;
      for (var k = 0; k < i; k++) if (marks[k].index >= start) beforeStart = marks[k].end;
      var before = text.slice(beforeStart, marks[i].index);
      var end = n + 1 < explanations.length ? marks[explanations[n + 1]].index : text.length;
      var fields = { "Explanation:": [], "Hint:": [], "Developer debug context:": [] };
      var urlId = null;
      for (var j = i; j < marks.length; j++) {
        var mark = marks[j];
        if (mark.index >= end) break;
        var stop = j + 1 < marks.length ? marks[j + 1].index : text.length;
        var body = text.slice(mark.end, Math.min(stop, end));
        if (fields[mark.text]) fields[mark.text].push(body);
        else if (mark.text.indexOf("For more details") === 0 && urlId === null) {
          var found = URL_ID.exec(body);
          urlId = found ? "GB" + found[1] : null;
        }
      }
      records.push({ before: squash(before.slice(-500)),
                     explanation: squash(fields["Explanation:"].join(" ")),
                     hints: squash(fields["Hint:"].join(" ")),
                     context: squash(fields["Developer debug context:"].join(" ")),
                     urlId: urlId });
    });
    return records;
  }

  function scoreRecord(record, entry) {
    var best = 0, why = "";
    entry.texts.forEach(function (text, n) {
      var score = 0, reasons = [];
      if (usable(text.type) && template(text.type, "suffix").test(record.before)) {
        score += 100; reasons.push("graph-break type");
      }
      if (usable(text.explanation) && template(text.explanation, "prefix").test(record.explanation)) {
        score += 60; reasons.push("explanation");
      }
      if (usable(text.context) && template(text.context, "prefix").test(record.context)) {
        score += 20; reasons.push("context");
      }
      var hits = text.hints.filter(function (h) {
        return usable(h) && squash(h).length >= 12 && template(h, "any").test(record.hints);
      }).length;
      if (hits) { score += 5 * hits; reasons.push("hints"); }
      if (score && n === 0) score += 1;
      if (score > best) {
        best = score;
        why = "matches the " + reasons.join(", ") +
          (text.period ? " (earlier wording: " + text.period + ")" : "");
      }
    });
    if (best && entry.removed) best -= 0.5;
    return [best, why];
  }

  function lookupLog(text, entries, byId) {
    var matches = [], seen = {};
    parseLog(text).forEach(function (record) {
      var found = null;
      if (record.urlId && byId[record.urlId]) {
        found = { entry: byId[record.urlId], score: 1000, why: "the link in your log" };
      } else {
        var bestScore = 0, bestWhy = "", bestEntry = null;
        entries.forEach(function (entry) {
          var s = scoreRecord(record, entry);
          if (s[0] > bestScore) { bestScore = s[0]; bestWhy = s[1]; bestEntry = entry; }
        });
        if (bestScore >= 60) found = { entry: bestEntry, score: bestScore, why: bestWhy };
      }
      if (found && !seen[found.entry.id]) { seen[found.entry.id] = 1; matches.push(found); }
    });
    var m;
    URL_ID_ALL.lastIndex = 0;
    while ((m = URL_ID_ALL.exec(text))) {
      var id = "GB" + m[1];
      if (byId[id] && !seen[id]) {
        seen[id] = 1;
        matches.push({ entry: byId[id], score: 1000, why: "the link in your log" });
      }
    }
    return matches;
  }

  function queryWords(query) {
    var all = words(query);
    var meaningful = all.filter(function (w) { return !STOP_WORDS[w]; });
    return meaningful.length ? meaningful : all;
  }

  function fieldsOf(entry) {
    if (!entry.fields) {
      var values = [];
      entry.texts.forEach(function (t, n) {
        values.push([n === 0 ? WEIGHTS.type : WEIGHTS.old_type, t.type]);
        values.push([WEIGHTS.explanation, t.explanation], [WEIGHTS.context, t.context],
                    [WEIGHTS.hints, t.hints.join(" ")]);
      });
      values.push([WEIGHTS.info, entry.info]);
      entry.fields = values.filter(function (v) { return v[1]; }).map(function (v) {
        var lower = v[1].toLowerCase(), vocab = {};
        words(lower).forEach(function (w) { vocab[w] = 1; });
        return { weight: v[0], vocab: vocab, value: lower };
      });
    }
    return entry.fields;
  }

  function wordScore(word, last, fields) {
    var best = 0;
    fields.forEach(function (f) {
      if (f.vocab[word]) best = Math.max(best, f.weight);
      else if (last && Object.keys(f.vocab).some(function (t) { return t.indexOf(word) === 0; }))
        best = Math.max(best, f.weight * 0.6);
      else if (word.length >= 3 && f.value.indexOf(word) >= 0) best = Math.max(best, f.weight * 0.3);
    });
    return best;
  }

  function lookupWords(query, entries) {
    var ws = queryWords(query);
    if (!ws.length) return [];
    var phrase = words(query).join(" ");
    var scored = [];
    entries.forEach(function (entry) {
      var fields = fieldsOf(entry);
      var scores = ws.map(function (w, i) { return wordScore(w, i === ws.length - 1, fields); });
      var matched = scores.filter(function (x) { return x; }).length;
      if (!matched) return;
      var total = scores.reduce(function (a, b) { return a + b; }, 0);
      if (phrase.length >= 8) {
        var typeWords = wordsOf(entry.texts[0].type);
        if (typeWords.indexOf(phrase) >= 0) total += 20 + 20 * phrase.length / typeWords.length;
        else if (entry.texts.some(function (t) { return wordsOf(t.explanation).indexOf(phrase) >= 0; }))
          total += 10;
      }
      if (entry.removed) total -= 0.5;
      scored.push([matched, { entry: entry, score: total,
        why: matched === ws.length ? "matches your words" : "matches some of your words" }]);
    });
    var complete = scored.filter(function (s) { return s[0] === ws.length; });
    if (!complete.length) {
      var half = Math.max(Math.floor((ws.length + 1) / 2), 1);
      complete = scored.filter(function (s) { return s[0] >= half; });
    }
    return complete.map(function (s) { return s[1]; }).sort(function (a, b) {
      return b.score - a.score || (a.entry.id < b.entry.id ? -1 : 1);
    });
  }

  function lookup(query, data) {
    var m = ID_QUERY.exec(query);
    if (m) {
      var entry = data.byId["GB" + m[1]];
      return entry ? [{ entry: entry, score: 1000, why: "its id" }] : [];
    }
    if (query.indexOf("Explanation:") >= 0 || query.toLowerCase().indexOf("graph break") >= 0 ||
        URL_ID.test(query)) {
      var found = lookupLog(query, data.entries, data.byId);
      if (found.length) return found;
    }
    return lookupWords(query, data.entries);
  }

  // ---- loading the index -------------------------------------------------------------------

  var core = window.gbsite;
  var root = core.root;
  var indexPromise = null;
  function loadIndex() {
    if (!indexPromise) {
      indexPromise = core.loadScript("assets/search-index.js").then(function () {
        return prepare(window.GBSITE_SEARCH);
      });
    }
    return indexPromise;
  }
  function prepare(raw) {
    var byId = {};
    var entries = raw.entries.map(function (row) {
      var entry = {
        id: row[0], slug: row[0].toLowerCase(), removed: !!row[1], categories: row[2],
        added: raw.releases[row[3]], hasInfo: !!row[4], info: row[6],
        texts: row[5].map(function (t) {
          return { type: t[0], explanation: t[1], context: t[2], hints: t[3], period: t[4] };
        })
      };
      byId[entry.id] = entry;
      return entry;
    });
    return { entries: entries, byId: byId, categories: raw.categories, releases: raw.releases };
  }
  window.gbsiteSearch = { lookup: lookup, parseLog: parseLog, loadIndex: loadIndex };

  // ---- rendering results --------------------------------------------------------------------

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function plainType(type) { return type.replace(/(`+)(.+?)\1/g, "$2"); }
  function hrefOf(entry) { return root + "gb/" + entry.slug + ".html"; }
  function resultParts(match) {
    var entry = match.entry;
    return [
      el("span", { "class": "gb-id" }, [entry.id]),
      el("span", { "class": "type" }, [plainType(entry.texts[0].type) + (entry.removed ? " (removed)" : "")]),
      el("span", { "class": "why" }, [match.why])
    ];
  }
  // An option of the popup's listbox: no link inside (a listbox option may hold nothing
  // interactive); choosing it, by click or Enter, opens its page.
  function optionItem(match, index) {
    return el("li", { "class": "result", role: "option", id: "search-option-" + index,
                      "aria-selected": "false", "data-id": match.entry.id,
                      "data-href": hrefOf(match.entry) }, resultParts(match));
  }
  // A result on the index page: a plain list of links, reached with Tab.
  function panelItem(match) {
    return el("li", { "class": "result", "data-id": match.entry.id }, [
      el("a", { href: hrefOf(match.entry) }, resultParts(match))]);
  }

  // ---- filters on the index page ------------------------------------------------------------

  var filters = document.getElementById("filters");
  var table = document.getElementById("entries");
  var panel = document.getElementById("search-results");
  var input = document.getElementById("search-input");
  var FILTER_NAMES = ["category", "status", "added", "info"];

  function readState() {
    var params = new URLSearchParams(location.search);
    var state = { q: params.get("q") || "" };
    FILTER_NAMES.forEach(function (n) { state[n] = params.get(n) || ""; });
    return state;
  }
  function stateUrl(state) {
    var params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    FILTER_NAMES.forEach(function (n) { if (state[n]) params.set(n, state[n]); });
    var query = params.toString();
    return location.pathname + (query ? "?" + query : "") + location.hash;
  }
  function currentState() {
    var state = { q: rawQuery !== null ? squash(rawQuery) : input.value };
    state.category = filters.elements.category.value;
    state.status = filters.elements.status.value;
    state.added = filters.elements.added.value;
    state.info = filters.elements.info.checked ? "1" : "";
    return state;
  }
  function showState(state) {
    input.value = state.q;
    rawQuery = null;
    filters.elements.category.value = state.category;
    filters.elements.status.value = state.status;
    filters.elements.added.value = state.added;
    filters.elements.info.checked = state.info === "1";
  }
  function passes(row, state) {
    var cats = row.getAttribute("data-category").split(" ");
    return (!state.category || cats.indexOf(state.category) >= 0) &&
      (!state.status || row.getAttribute("data-status") === state.status) &&
      (!state.added || row.getAttribute("data-added") === state.added) &&
      (!state.info || row.getAttribute("data-info") === "1");
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
    var status = document.getElementById("filter-status-text");
    if (!query) {
      panel.hidden = true;
      table.hidden = false;
      status.textContent = shown === rows.length ? "" : shown + " of " + rows.length + " graph breaks";
      return Promise.resolve();
    }
    return loadIndex().then(function (data) {
      var started = performance.now();
      var results = lookup(query, data).filter(function (m) { return visible[m.entry.id]; });
      renderPanel(results, query);
      table.hidden = true;
      status.textContent = results.length + (results.length === 1 ? " match" : " matches");
      window.gbsiteLastSearchMs = performance.now() - started;
    });
  }
  function renderPanel(results, query) {
    panel.textContent = "";
    if (!results.length) {
      panel.appendChild(el("p", { "class": "search-note" }, [
        "Nothing matches. Try fewer words, an id such as GB0025, or paste the whole message " +
        "PyTorch printed (from \u201cGraph break in user code\u201d to the link)."]));
    } else {
      var list = el("ol", { "class": "result-list", "aria-label": "Search results" });
      results.slice(0, 100).forEach(function (m) { list.appendChild(panelItem(m)); });
      panel.appendChild(list);
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
    if (!results.length) {
      popup.appendChild(el("p", { "class": "search-note" }, ["No graph break matches."]));
    } else {
      var list = el("ul", { role: "listbox", id: "search-listbox", "aria-label": "Search results" });
      results.slice(0, 8).forEach(function (m, i) { list.appendChild(optionItem(m, i)); });
      list.addEventListener("mousedown", function (e) { e.preventDefault(); });
      list.addEventListener("click", function (e) {
        var option = e.target.closest("[role=option]");
        if (option) location.href = option.getAttribute("data-href");
      });
      popup.appendChild(list);
      if (results.length > 8) {
        popup.appendChild(el("p", { "class": "search-note" }, [
          el("a", { href: root + "index.html?q=" + encodeURIComponent(squash(query)) },
             ["All " + results.length + " matches"])]));
      }
    }
    input.form.appendChild(popup);
    input.setAttribute("aria-expanded", "true");
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
      var started = performance.now();
      showPopup(lookup(query, data), query);
      window.gbsiteLastSearchMs = performance.now() - started;
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
    loadIndex();
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
      if (event.key === "ArrowDown") { event.preventDefault(); select(selected + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); select(selected - 1); }
      else if (event.key === "Escape") { closePopup(); }
      else if (event.key === "Enter") {
        if (core.idOf(input.value) && !(popup && selected >= 0)) {
          return; // an id typed in full: the form's submit opens its page (site.js)
        } else if (popup && selected >= 0) {
          event.preventDefault();
          location.href = popup.querySelectorAll("[role=option]")[selected].getAttribute("data-href");
        } else if (onIndex) {
          event.preventDefault();
          run(true);
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
    filters.addEventListener("change", function () { run(true); });
    filters.addEventListener("submit", function (e) { e.preventDefault(); });
    window.addEventListener("popstate", function () {
      var state = readState();
      showState(state);
      applyIndex(state, state.q);
    });
    var initial = readState();
    showState(initial);
    if (initial.q || FILTER_NAMES.some(function (n) { return initial[n]; })) {
      applyIndex(initial, initial.q);
    }
  }

  // Whatever happened before this script arrived: a pasted log, typing, a query in the URL.
  if (input && core.pastedLog !== null) {
    rawQuery = core.pastedLog;
    input.value = squash(rawQuery);
  }
  if (input && !onIndex && queryText().trim()) run(false);
  if (onIndex && input && queryText().trim() && !readState().q) run(false);
})();
