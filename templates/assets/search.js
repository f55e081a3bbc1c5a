// gbsite search: loaded by site.js when the search box is first used (at once on the index page).
// The algorithm runs the steps of src/gbsite/search/ (engine.py, logs.py, words.py) one by one,
// with the rules of src/gbsite/search/rules.py (patterns, weights, scores, stop words, limits)
// that the search index carries: this file keeps no copy of them, so it cannot drift from
// `gbsite lookup`. tests/test_browser_search.py runs the same queries through both.
(function () {
  "use strict";

  // ---- the search algorithm (the steps of src/gbsite/search/) ----------------------------

  // The rules of the index being searched, compiled (compileRules): set by lookup().
  var R = null;

  function compileRules(raw) {
    function pattern(name, extraFlags) {
      var p = raw.patterns[name];
      return new RegExp(p[0], p[1] + (extraFlags || ""));
    }
    return {
      logPrefix: pattern("log_prefix", "g"),
      urlId: pattern("url_id"),
      urlIdAll: pattern("url_id", "g"),
      idQuery: pattern("id_query"),
      placeholder: pattern("placeholder"),
      markers: pattern("markers", "g"),
      word: pattern("word", "g"),
      exceptionHeader: pattern("exception_header", "g"),
      userWarning: pattern("user_warning", "g"),
      runtimeExpression: pattern("runtime_expression"),
      wordChars: raw.wordChars,
      template: raw.template,
      marks: raw.marks,
      logSigns: raw.logSigns,
      logSignsAnyCase: raw.logSignsAnyCase,
      logScores: raw.logScores,
      weights: raw.weights,
      wordScores: raw.wordScores,
      stopWords: setOf(raw.stopWords),
      limits: raw.limits,
      // What is made from the rules, once per index: registry texts as patterns, their
      // literal parts.
      templates: Object.create(null),
      literals: Object.create(null)
    };
  }
  // A map with no inherited keys: a word such as "constructor" must not find Object's.
  function setOf(items) {
    var set = Object.create(null);
    items.forEach(function (item) { set[item] = 1; });
    return set;
  }

  function squash(s) { return s.replace(/\s+/g, " ").trim(); }
  function words(s) { return s.toLowerCase().match(R.word) || []; }
  function wordsOf(s) { return words(s).join(" "); }

  function usable(value) {
    value = value.trim();
    return !!value && !R.runtimeExpression.test(value) &&
      !!value.split(R.placeholder).join("").trim();
  }

  function escapeRegex(s) { return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }
  function template(text, mode) {
    var key = mode + "\u0000" + text;
    if (!R.templates[key]) {
      var T = R.template;
      var body = squash(text).split(R.placeholder).map(function (part) {
        return squash(part).split(" ").map(escapeRegex).join(T.space);
      }).join(T.gap);
      R.templates[key] = new RegExp(T.modes[mode][0] + body + T.modes[mode][1]);
    }
    return R.templates[key];
  }

  function lineEnd(text, start, next) {
    var newline = text.indexOf("\n", start);
    var stops = [];
    if (next) stops.push(next.index);
    if (newline >= 0) stops.push(newline);
    return stops.length ? Math.min.apply(null, stops) : text.length;
  }

  function parseLog(text) {
    text = text.replace(/\r\n/g, "\n").replace(R.logPrefix, "");
    var marks = [];
    var m;
    R.markers.lastIndex = 0;
    while ((m = R.markers.exec(text))) marks.push({ text: m[0], index: m.index, end: m.index + m[0].length });
    var explanations = [];
    marks.forEach(function (mark, i) { if (mark.text === R.marks.explanation) explanations.push(i); });
    if (!explanations.length) return recordsWithoutExplanations(text, marks);
    var fieldChars = R.limits.field_chars;
    var records = [];
    explanations.forEach(function (i, n) {
      var start = n ? marks[explanations[n - 1]].end : 0;
      var beforeStart = start;
      for (var k = 0; k < i; k++) if (marks[k].index >= start) beforeStart = marks[k].end;
      var before = text.slice(beforeStart, marks[i].index);
      var end = n + 1 < explanations.length ? marks[explanations[n + 1]].index : text.length;
      var fields = Object.create(null);
      fields[R.marks.explanation] = [];
      fields[R.marks.hint] = [];
      fields[R.marks.context] = [];
      var urlId = null;
      for (var j = i; j < marks.length; j++) {
        var mark = marks[j];
        if (mark.index >= end) break;
        var stop = j + 1 < marks.length ? marks[j + 1].index : text.length;
        var body = text.slice(mark.end, Math.min(stop, end));
        if (fields[mark.text]) fields[mark.text].push(body);
        else if (mark.text.indexOf(R.marks.link) === 0 && urlId === null) {
          var found = R.urlId.exec(body);
          urlId = found ? "GB" + found[1] : null;
        }
      }
      function field(name) { return squash(fields[R.marks[name]].join(" ").slice(0, fieldChars)); }
      records.push({ before: squash(before.slice(-R.limits.before_chars)),
                     explanation: field("explanation"), hints: field("hint"),
                     context: field("context"), urlId: urlId });
    });
    return records;
  }

  function record(before, explanation, hints) {
    return { before: before, explanation: explanation, hints: hints, context: "", urlId: null };
  }
  function recordsWithoutExplanations(text, marks) {
    var found = [], m;
    marks.forEach(function (mark, i) {
      if (mark.text !== R.marks.reason) return;
      var end = reasonEnd(text, mark.end, marks[i + 1]);
      found.push([mark.index, record(squash(text.slice(mark.end, end)), "", "")]);
    });
    R.exceptionHeader.lastIndex = 0;
    while ((m = R.exceptionHeader.exec(text))) found.push([m.index, record(squash(m[1]), "", "")]);
    R.userWarning.lastIndex = 0;
    while ((m = R.userWarning.exec(text))) found.push([m.index, record("", squash(m[1]), squash(m[2]))]);
    found.sort(function (a, b) { return a[0] - b[0]; });
    return found.map(function (f) { return f[1]; });
  }
  function reasonEnd(text, start, next) {
    var stop = next ? next.index : text.length;
    var end = lineEnd(text, start, next);
    if (!/:$/.test(text.slice(start, end).replace(/\s+$/, ""))) return end;
    var pos = end + 1;
    while (pos < stop) {
      var lineStop = lineEnd(text, pos, next);
      if (text.slice(pos, lineStop).trim()) return lineStop;
      pos = lineStop + 1;
    }
    return Math.min(end, stop);
  }

  function couldMatch(text, target) {
    if (!target) return false;
    var parts = R.literals[text];
    if (!parts) {
      parts = R.literals[text] = text.split(R.placeholder).map(function (p) {
        return p.replace(/\s+/g, "");
      }).filter(Boolean);
    }
    return parts.every(function (p) { return target.indexOf(p) >= 0; });
  }

  function scoreRecord(record, entry) {
    var best = 0, why = "", S = R.logScores;
    var before = record.before.replace(/\s+/g, ""), explanation = record.explanation.replace(/\s+/g, "");
    var context = record.context.replace(/\s+/g, ""), hints = record.hints.replace(/\s+/g, "");
    entry.texts.forEach(function (text, n) {
      var score = 0, reasons = [];
      if (couldMatch(text.type, before) && usable(text.type) &&
          template(text.type, "suffix").test(record.before)) {
        score += S.type; reasons.push("graph-break type");
      }
      if (couldMatch(text.explanation, explanation) && usable(text.explanation) &&
          template(text.explanation, "prefix").test(record.explanation)) {
        score += S.explanation; reasons.push("explanation");
      }
      if (couldMatch(text.context, context) && usable(text.context) &&
          template(text.context, "prefix").test(record.context)) {
        score += S.context; reasons.push("context");
      }
      var hits = text.hints.filter(function (h) {
        return couldMatch(h, hints) && usable(h) && squash(h).length >= S.hint_min_chars &&
          template(h, "any").test(record.hints);
      }).length;
      if (hits) { score += S.hint * hits; reasons.push("hints"); }
      if (score && n === 0) score += S.current;
      if (score > best) {
        best = score;
        why = "matches the " + reasons.join(", ") + (text.period ? " (" + text.period + ")" : "");
      }
    });
    if (best && entry.removed) best -= S.removed;
    return [best, why];
  }

  function lookupLog(text, entries, byId) {
    var matches = [], seen = Object.create(null), link = R.logScores.link;
    parseLog(text).forEach(function (record) {
      var found = null;
      if (record.urlId && byId[record.urlId]) {
        found = { entry: byId[record.urlId], score: link, why: "the link in your log" };
      } else {
        var bestScore = 0, bestWhy = "", bestEntry = null;
        entries.forEach(function (entry) {
          var s = scoreRecord(record, entry);
          if (s[0] > bestScore) { bestScore = s[0]; bestWhy = s[1]; bestEntry = entry; }
        });
        if (bestScore >= R.logScores.threshold) found = { entry: bestEntry, score: bestScore, why: bestWhy };
      }
      if (found && !seen[found.entry.id]) { seen[found.entry.id] = 1; matches.push(found); }
    });
    var m;
    R.urlIdAll.lastIndex = 0;
    while ((m = R.urlIdAll.exec(text))) {
      var id = "GB" + m[1];
      if (byId[id] && !seen[id]) {
        seen[id] = 1;
        matches.push({ entry: byId[id], score: link, why: "the link in your log" });
      }
    }
    return matches;
  }

  function queryWords(query) {
    var all = words(query);
    var meaningful = all.filter(function (w) { return !R.stopWords[w]; });
    return meaningful.length ? meaningful : all;
  }

  function fieldsOf(entry) {
    if (!entry.fields) {
      var values = [], W = R.weights;
      entry.texts.forEach(function (t, n) {
        values.push([n === 0 ? W.type : W.old_type, t.type]);
        values.push([W.explanation, t.explanation], [W.context, t.context],
                    [W.hints, t.hints.join(" ")]);
      });
      values.push([W.info, entry.info]);
      entry.fields = values.filter(function (v) { return v[1]; }).map(function (v) {
        var lower = v[1].toLowerCase();
        return { weight: v[0], vocab: setOf(words(lower)), value: lower };
      });
    }
    return entry.fields;
  }

  function wordScore(word, last, fields) {
    var best = 0, S = R.wordScores;
    fields.forEach(function (f) {
      if (f.vocab[word]) best = Math.max(best, f.weight);
      else if (last && Object.keys(f.vocab).some(function (t) { return t.indexOf(word) === 0; }))
        best = Math.max(best, f.weight * S.prefix);
      else if (word.length >= S.inside_min_chars && f.value.indexOf(word) >= 0)
        best = Math.max(best, f.weight * S.inside);
    });
    return best;
  }

  function lookupWords(query, entries) {
    // Each distinct word once, and at most max_words of them (a whole log has thousands).
    var seen = Object.create(null);
    var ws = queryWords(query).filter(function (w) { return !seen[w] && (seen[w] = 1); })
      .slice(0, R.limits.max_words);
    if (!ws.length) return [];
    var S = R.wordScores;
    var phrase = wordsOf(query);
    var scored = [];
    entries.forEach(function (entry) {
      var fields = fieldsOf(entry);
      var scores = ws.map(function (w, i) { return wordScore(w, i === ws.length - 1, fields); });
      var matched = scores.filter(function (x) { return x; }).length;
      if (!matched) return;
      var total = scores.reduce(function (a, b) { return a + b; }, 0);
      if (phrase.length >= S.phrase_min_chars) {
        var typeWords = wordsOf(entry.texts[0].type);
        if (typeWords.indexOf(phrase) >= 0)
          total += S.phrase_type + S.phrase_type * phrase.length / typeWords.length;
        else if (entry.texts.some(function (t) { return wordsOf(t.explanation).indexOf(phrase) >= 0; }))
          total += S.phrase_explanation;
      }
      if (entry.removed) total -= S.removed;
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

  function looksLikeLog(query) {
    var lower = query.toLowerCase();
    R.exceptionHeader.lastIndex = 0;
    return R.logSigns.some(function (s) { return query.indexOf(s) >= 0; }) ||
      R.logSignsAnyCase.some(function (s) { return lower.indexOf(s) >= 0; }) ||
      R.urlId.test(query) || R.exceptionHeader.test(query);
  }

  function lookup(query, data) {
    R = data.rules;
    var m = R.idQuery.exec(query);
    if (m) {
      var entry = data.byId["GB" + m[1]];
      return entry ? [{ entry: entry, score: R.logScores.link, why: "its id" }] : [];
    }
    // Older messages (torch 2.0 to 2.7, legacy.js): after the graph breaks of the log, or alone.
    var older = window.gbsiteLegacy ? window.gbsiteLegacy.lookup(query, data.byId) : [];
    if (looksLikeLog(query)) {
      var found = lookupLog(query, data.entries, data.byId);
      found = found.concat(older.filter(function (o) {
        return !found.some(function (f) { return f.entry.id === o.entry.id; });
      }));
      if (found.length) return found;
    }
    if (older.length) return older;
    return lookupWords(query, data.entries);
  }

  // ---- loading the index -------------------------------------------------------------------

  var core = window.gbsite;
  var root = core.root;
  var indexPromise = null;
  function loadIndex() {
    if (!indexPromise) {
      var legacy = core.loadScript("assets/legacy.js").then(function () {
        return window.gbsiteLegacy.load(core);
      }).catch(function () { /* search works without the older messages */ });
      indexPromise = Promise.all([core.loadScript("assets/search-index.js"), legacy])
        .then(function () { return prepare(window.GBSITE_SEARCH); });
    }
    return indexPromise;
  }
  function prepare(raw) {
    var byId = Object.create(null);
    var entries = raw.entries.map(function (row, n) {
      var entry = {
        id: row[0], slug: row[0].toLowerCase(), removed: !!row[1], categories: row[2],
        added: raw.releases[row[3]], hasInfo: !!row[4], info: raw.info[n],
        texts: row[5].map(function (t) {
          return { type: t[0], explanation: t[1], context: t[2], hints: t[3], period: t[4] };
        })
      };
      byId[entry.id] = entry;
      return entry;
    });
    return { entries: entries, byId: byId, categories: raw.categories, releases: raw.releases,
             rules: compileRules(raw.rules) };
  }
  // prepare: tests hand it an index whose rules they changed, to see the ranking follow them.
  window.gbsiteSearch = { lookup: lookup, loadIndex: loadIndex, prepare: prepare };

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
  function wordPattern(ws) {
    if (!ws.length) return null;
    var alternatives = ws.map(escapeRegex).sort(function (a, b) { return b.length - a.length; });
    return new RegExp("(?<![" + R.wordChars + "])(?:" + alternatives.join("|") + ")", "gi");
  }
  function snippetText(entry, ws) {
    var current = entry.texts[0];
    var candidates = [current.explanation].concat(current.hints, [current.context, entry.info]);
    entry.texts.slice(1).forEach(function (t) { candidates.push(t.type, t.explanation); });
    candidates = candidates.filter(function (c) { return c && c.trim(); })
      .map(function (c) { return plainType(squash(c)); });
    var pattern = wordPattern(ws);
    for (var i = 0; pattern && i < candidates.length; i++) {
      pattern.lastIndex = 0;
      var m = pattern.exec(candidates[i]);
      if (m) return cut(candidates[i], m.index);
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
    var nodes = [], pos = 0, m;
    while ((m = pattern.exec(text))) {
      if (m.index > pos) nodes.push(text.slice(pos, m.index));
      nodes.push(el("mark", {}, [m[0]]));
      pos = m.index + m[0].length;
    }
    if (pos < text.length) nodes.push(text.slice(pos));
    return nodes;
  }
  // The words to mark: those of a word search (not of an id or a pasted log).
  function markWords(query, results) {
    return results.length && /your words/.test(results[0].why) ? queryWords(query) : [];
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
  var FILTER_NAMES = ["category", "status", "added", "info"];
  // A longer query (a pasted log) stays out of the URL: it lives in the history entry's state,
  // and passes from another page to the index in sessionStorage.
  var MAX_URL_QUERY = 200;
  var HANDOFF = "gbsite.query";
  var clearButton = document.getElementById("clear-filters");

  function readState() {
    var params = new URLSearchParams(location.search);
    var state = { q: params.get("q") || "" };
    FILTER_NAMES.forEach(function (n) { state[n] = params.get(n) || ""; });
    return state;
  }
  function stateUrl(state) {
    var params = new URLSearchParams();
    if (state.q && state.q.length <= MAX_URL_QUERY) params.set("q", state.q);
    FILTER_NAMES.forEach(function (n) { if (state[n]) params.set(n, state[n]); });
    var query = params.toString();
    return location.pathname + (query ? "?" + query : "") + location.hash;
  }
  function currentState() {
    var state = { q: rawQuery !== null ? squash(rawQuery) : input.value, raw: rawQuery };
    state.category = filters.elements.category.value;
    state.status = filters.elements.status.value;
    state.added = filters.elements.added.value;
    state.info = filters.elements.info.checked ? "1" : "";
    return state;
  }
  function showState(state) {
    input.value = state.q;
    rawQuery = state.raw || null;
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
  function filtered(state) {
    return FILTER_NAMES.some(function (n) { return state[n]; });
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
      var results = all.filter(function (m) { return visible[m.entry.id]; });
      renderPanel(results, all.length, query);
      table.hidden = true;
      status.textContent = matchCount(results.length, all.length);
    });
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "es"); }
  function matchCount(shown, total) {
    if (shown === total) return plural(total, "match");
    return shown + " of " + plural(total, "match") + ": the filters hide " + (total - shown);
  }
  function renderPanel(results, total, query) {
    panel.textContent = "";
    if (!total) {
      panel.appendChild(el("p", { "class": "search-note" }, [
        "Nothing matches. Try fewer words, an id such as GB0025, or paste the whole message " +
        "PyTorch printed (from \u201cGraph break in user code\u201d to the link)."]));
    } else if (!results.length) {
      panel.appendChild(el("p", { "class": "search-note" }, [
        plural(total, "match") + ", but the filters hide " + (total === 1 ? "it" : "them all") +
        ". Clear the filters to see " + (total === 1 ? "it" : "them") + "."]));
    } else {
      var ws = markWords(query, results);
      var list = el("ol", { "class": "result-list", "aria-label": "Search results" });
      results.slice(0, 100).forEach(function (m) { list.appendChild(panelItem(m, ws)); });
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
    if (!results.length) {
      popup.appendChild(el("p", { "class": "search-note" }, ["No graph break matches."]));
    } else {
      var ws = markWords(query, results);
      var list = el("ul", { role: "listbox", id: "search-listbox", "aria-label": "Search results" });
      results.slice(0, 8).forEach(function (m, i) { list.appendChild(optionItem(m, i, ws)); });
      list.addEventListener("mousedown", function (e) { e.preventDefault(); });
      list.addEventListener("click", function (e) {
        var option = e.target.closest("[role=option]");
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
    try { sessionStorage.setItem(HANDOFF, query); } catch (e) { return false; }
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
    filters.addEventListener("change", function () { loadIndex(); run(true); });
    filters.addEventListener("submit", function (e) { e.preventDefault(); });
    if (clearButton) {
      clearButton.addEventListener("click", function () {
        filters.elements.category.value = filters.elements.status.value = "";
        filters.elements.added.value = "";
        filters.elements.info.checked = false;
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
    try { handed = sessionStorage.getItem(HANDOFF); sessionStorage.removeItem(HANDOFF); } catch (e) {}
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
