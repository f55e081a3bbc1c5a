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
      escape: pattern("escape", "g"),
      loose: pattern("loose", "g"),
      cut: pattern("cut", "g"),
      reprEnd: pattern("repr_end"),
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
      boundary: raw.boundary,
      marks: raw.marks,
      logSigns: raw.logSigns,
      logSignsAnyCase: raw.logSignsAnyCase,
      logScores: raw.logScores,
      weights: raw.weights,
      wordScores: raw.wordScores,
      stopWords: setOf(raw.stopWords),
      limits: raw.limits,
      notes: raw.notes,
      // What is made from the rules, once per index: registry texts ready to match.
      texts: Object.create(null)
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
  function escapeRegex(s) { return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }
  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, name) { return String(values[name]); });
  }

  // ---- registry texts against a log's text (src/gbsite/search/match.py) ----

  var GRAM = 8;
  function loose(s) { return s.replace(R.loose, ""); }
  function hasCut(s) { return s.indexOf("...") >= 0 || s.indexOf("\u2026") >= 0; }

  function compileText(value) {
    var found = R.texts[value];
    if (!found) {
      var pieces = value.indexOf("{") >= 0 ? value.split(R.placeholder) : [value];
      var looses = pieces.map(loose);
      var parts = looses.filter(Boolean);
      var stripped = value.trim();
      var strict = [];
      pieces.forEach(function (p, i) {
        var s = p.replace(/\s+/g, "");
        if (looses[i] && s) strict.push(s);
      });
      found = R.texts[value] = {
        parts: parts, strict: strict, openStart: !looses[0], openEnd: !looses[looses.length - 1],
        chars: parts.join("").length,
        usable: !!parts.length && !R.runtimeExpression.test(stripped) &&
          !!stripped.split(R.placeholder).join("").trim()
      };
    }
    return found;
  }

  var EMPTY = { loose: "", strict: "", bounds: Object.create(null), order: [], cuts: [] };
  function target(text, withBounds) {
    if (!text) return EMPTY;
    var out = loose(text), bounds = Object.create(null), order = [], m;
    if (withBounds) {
      bounds[0] = 1;
      var removed = 0;
      R.loose.lastIndex = 0;
      while ((m = R.loose.exec(text))) {
        bounds[m.index - removed] = 1;
        removed += m[0].length;
      }
      for (var i = 0; i < out.length; i++) if (R.boundary.indexOf(out[i]) >= 0) bounds[i + 1] = 1;
      order = Object.keys(bounds).map(Number).sort(function (a, b) { return a - b; });
    }
    var cuts = [];
    if (hasCut(out)) {
      R.cut.lastIndex = 0;
      while ((m = R.cut.exec(out)) && cuts.length < R.limits.cuts) cuts.push(m.index);
    }
    return { loose: out, strict: text.replace(/\s+/g, ""), bounds: bounds, order: order, cuts: cuts };
  }

  function restInOrder(parts, s, pos) {
    for (var i = 0; i < parts.length; i++) {
      var found = s.indexOf(parts[i], pos);
      if (found < 0) return -1;
      pos = found + parts[i].length;
    }
    return pos;
  }
  function firstAtBound(part, t) {
    var found = t.loose.indexOf(part);
    while (found >= 0 && !t.bounds[found]) found = t.loose.indexOf(part, found + 1);
    return found;
  }

  function matches(text, t, mode) {
    if (!text.usable || !t.loose) return false;
    var parts = text.parts, s = t.loose, start;
    if (mode === "prefix") {
      if (!text.openStart && !s.startsWith(parts[0])) return false;
      return restInOrder(parts, s, 0) >= 0;
    }
    if (mode === "any" && text.openStart) return restInOrder(parts, s, 0) >= 0;
    if (mode === "any") {
      start = firstAtBound(parts[0], t);
      return start >= 0 && restInOrder(parts.slice(1), s, start + parts[0].length) >= 0;
    }
    var last = parts[parts.length - 1], limit;
    if (text.openEnd) {
      limit = s.length;
    } else if (!s.endsWith(last)) {
      return false;
    } else {
      limit = s.length - last.length;
      if (parts.length === 1) return text.openStart || !!t.bounds[limit];
      parts = parts.slice(0, -1);
    }
    var end;
    if (text.openStart) {
      end = restInOrder(parts, s, 0);
    } else {
      start = firstAtBound(parts[0], t);
      end = start < 0 ? -1 : restInOrder(parts.slice(1), s, start + parts[0].length);
    }
    return end >= 0 && end <= limit;
  }

  function exact(text, t) {
    return text.strict.every(function (p) { return t.strict.indexOf(p) >= 0; });
  }

  function cutFrom(text, s, start) {
    var rest = s.slice(start), first = text.parts[0], min = R.limits.cut_min_chars;
    if (rest.length < min) return false;
    if (first.startsWith(rest)) return true;
    if ((text.parts.length === 1 && !text.openEnd) || !rest.startsWith(first)) return false;
    var chars = first.length, pos = first.length;
    for (var i = 1; i < text.parts.length; i++) {
      var found = rest.indexOf(text.parts[i], pos);
      if (found < 0) break;
      chars += text.parts[i].length;
      pos = found + text.parts[i].length;
    }
    return chars >= min;
  }

  function cutMatch(text, t, mode) {
    if (!text.usable || text.openStart || text.parts[0].length < GRAM || !t.cuts.length) return false;
    return t.cuts.some(function (cut) {
      var s = t.loose.slice(0, cut);
      if (mode === "prefix") return cutFrom(text, s, 0);
      return t.order.some(function (b) { return b < cut && cutFrom(text, s, b); });
    });
  }

  function cutStarts(t, mode) {
    var out = [];
    t.cuts.forEach(function (cut) {
      var starts = mode === "prefix" ? [0] : t.order.filter(function (b) { return b < cut; });
      starts.forEach(function (b) {
        if (cut - b >= R.limits.cut_min_chars) out.push(t.loose.slice(b, b + GRAM));
      });
    });
    return out;
  }

  // The pre-filter: each entry's keys (match.keys_of, in the index) against the grams of
  // a log's text; never leaves out an entry that could match.
  function candidatesFor(data) {
    if (!data.candidates) {
      var c = { grams: Object.create(null), starts: Object.create(null), shorts: Object.create(null) };
      var tables = { g: c.grams, s: c.starts, w: c.shorts };
      data.entries.forEach(function (entry, i) {
        entry.keys.split(" ").forEach(function (key) {
          if (!key) return;
          var table = tables[key[0]], k = key.slice(2);
          (table[k] || (table[k] = [])).push(i);
        });
      });
      data.candidates = c;
    }
    return data.candidates;
  }
  function candidatesOf(c, texts, starts) {
    var found = Object.create(null);
    function add(ids) { if (ids) ids.forEach(function (i) { found[i] = 1; }); }
    texts = texts.filter(Boolean);
    texts.forEach(function (s) {
      var seen = Object.create(null);
      for (var i = 0; i + GRAM <= s.length; i++) {
        var key = s.slice(i, i + GRAM);
        if (!seen[key]) { seen[key] = 1; add(c.grams[key]); }
      }
    });
    var joined = texts.join("\n");
    if (joined) Object.keys(c.shorts).forEach(function (k) { if (joined.indexOf(k) >= 0) add(c.shorts[k]); });
    starts.forEach(function (k) { add(c.starts[k]); });
    return Object.keys(found).map(Number).sort(function (a, b) { return a - b; });
  }

  // ---- reading a log (src/gbsite/search/logs.py) ----

  var ESCAPES = { n: "\n", r: "\n", t: " ", "'": "'", "\"": "\"", "\\": "\\" };
  function prepare(text) {
    text = text.replace(/\r\n/g, "\n");
    if (text.indexOf("\\") >= 0) text = text.replace(R.escape, function (m) { return ESCAPES[m[m.length - 1]]; });
    return text.replace(R.logPrefix, "");
  }

  function lineEnd(text, start, next) {
    var newline = text.indexOf("\n", start);
    var stops = [];
    if (next) stops.push(next.index);
    if (newline >= 0) stops.push(newline);
    return stops.length ? Math.min.apply(null, stops) : text.length;
  }

  function parseLog(text) {
    text = prepare(text);
    var marks = [], m;
    R.markers.lastIndex = 0;
    while ((m = R.markers.exec(text))) marks.push({ text: m[0], index: m.index, end: m.index + m[0].length });
    var explanation = R.marks.explanation;
    if (!marks.some(function (mark) { return mark.text === explanation; })) {
      return recordsWithoutExplanations(text, marks);
    }
    var fieldChars = R.limits.field_chars;
    var names = Object.create(null);
    names[R.marks.explanation] = 0; names[R.marks.hint] = 1; names[R.marks.context] = 2;
    var records = [], fields = null, before = "", urlId = null;
    function finish() {
      if (!fields) return;
      var f = fields.map(function (parts) { return squash(parts.join(" ").slice(0, fieldChars)); });
      records.push({ before: before, explanation: f[0], hints: f[1], context: f[2], urlId: urlId });
    }
    marks.forEach(function (mark, i) {
      var stop = i + 1 < marks.length ? marks[i + 1].index : text.length;
      var body = text.slice(mark.end, Math.min(stop, mark.end + fieldChars));
      if (mark.text === explanation) {
        finish();
        var start = i ? marks[i - 1].end : 0;
        before = squash(text.slice(Math.max(start, mark.index - R.limits.before_chars), mark.index));
        fields = [[], [], []];
        urlId = null;
      }
      if (!fields) return;
      if (mark.text in names) fields[names[mark.text]].push(body);
      else if (mark.text.indexOf(R.marks.link) === 0 && urlId === null) {
        var found = R.urlId.exec(body);
        urlId = found ? "GB" + found[1] : null;
      }
    });
    finish();
    return records;
  }

  function record(before, explanation, hints) {
    return { before: before, explanation: explanation, hints: hints, context: "", urlId: null };
  }
  function recordsWithoutExplanations(text, marks) {
    var found = [], m, fieldChars = R.limits.field_chars;
    marks.forEach(function (mark, i) {
      if (mark.text !== R.marks.reason) return;
      var end = reasonEnd(text, mark.end, marks[i + 1]);
      found.push([mark.index, record(squash(text.slice(mark.end, end)), "", "")]);
    });
    R.exceptionHeader.lastIndex = 0;
    while ((m = R.exceptionHeader.exec(text))) {
      var header = m[1].slice(0, R.limits.before_chars).replace(R.reprEnd, "");
      found.push([m.index, record(squash(header), "", "")]);
    }
    R.userWarning.lastIndex = 0;
    while ((m = R.userWarning.exec(text))) {
      found.push([m.index, record("", squash(m[1].slice(0, fieldChars)), squash(m[2].slice(0, fieldChars)))]);
    }
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

  function targetsOf(record) {
    return { before: target(record.before, true), explanation: target(record.explanation),
             context: target(record.context), hints: target(record.hints) };
  }

  // [penalty, how]: how is "exact", "loose" or "cut", or "" when the text does not match.
  function part(value, t, mode) {
    var text = compileText(value), S = R.logScores;
    if (matches(text, t, mode)) return exact(text, t) ? [0, "exact"] : [S.loose, "loose"];
    if (mode !== "any" && cutMatch(text, t, mode)) return [S.cut, "cut"];
    return [0, ""];
  }

  function scoreRecord(entry, t) {
    var best = 0, why = "", S = R.logScores;
    entry.texts.forEach(function (text, n) {
      var score = 0, reasons = [];
      [[text.type, t.before, "suffix", "type", "graph-break type"],
       [text.explanation, t.explanation, "prefix", "explanation", "explanation"],
       [text.context, t.context, "prefix", "context", "context"]].forEach(function (f) {
        if (!f[0] || !f[1].loose) return;
        var found = part(f[0], f[1], f[2]);
        if (!found[1]) return;
        score += S[f[3]] - found[0];
        reasons.push(found[1] === "cut" ? "start of the " + f[4] : f[4]);
      });
      var hits = t.hints.loose ? text.hints.filter(function (h) {
        return squash(h).length >= S.hint_min_chars && matches(compileText(h), t.hints, "any");
      }).length : 0;
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

  function bestMatch(record, data) {
    var fields = [record.before, record.explanation, record.context, record.hints];
    var texts = fields.map(loose), starts = [];
    if (texts.slice(0, 3).some(hasCut)) {
      starts = starts.concat(cutStarts(target(record.before, true), "suffix"),
        cutStarts(target(record.explanation), "prefix"), cutStarts(target(record.context), "prefix"));
    }
    var found = candidatesOf(candidatesFor(data), texts, starts);
    if (!found.length) return null;
    var t = targetsOf(record), best = null;
    found.forEach(function (i) {
      var s = scoreRecord(data.entries[i], t);
      if (s[0] > (best ? best.score : 0)) best = { entry: data.entries[i], score: s[0], why: s[1] };
    });
    return best && best.score >= R.logScores.threshold ? best : null;
  }

  function Budget() {
    this.seconds = R.limits.seconds;
    this.deadline = Date.now() + this.seconds * 1000;
    this.stopped = null;
  }
  Budget.prototype.over = function () { return Date.now() >= this.deadline; };

  function linkedIds(text) {
    var ids = [], seen = Object.create(null), m;
    R.urlIdAll.lastIndex = 0;
    while ((m = R.urlIdAll.exec(text))) {
      var id = "GB" + m[1];
      if (!seen[id]) { seen[id] = 1; ids.push(id); }
    }
    return ids;
  }

  function lookupLog(text, data, budget) {
    var matches = [], seen = Object.create(null), link = R.logScores.link, byId = data.byId;
    var scored = Object.create(null);
    var records = parseLog(text);
    for (var n = 0; n < records.length; n++) {
      if (budget.over()) { budget.stopped = [n, records.length]; break; }
      var r = records[n], found = null;
      if (r.urlId && byId[r.urlId]) {
        found = { entry: byId[r.urlId], score: link, why: "the link in your log" };
      } else {
        var key = [r.before, r.explanation, r.hints, r.context].join("\u0000");
        if (!(key in scored)) scored[key] = bestMatch(r, data);
        found = scored[key];
      }
      if (found && !seen[found.entry.id]) { seen[found.entry.id] = 1; matches.push(found); }
    }
    linkedIds(text).forEach(function (id) {
      if (byId[id] && !seen[id]) {
        seen[id] = 1;
        matches.push({ entry: byId[id], score: link, why: "the link in your log" });
      }
    });
    return matches;
  }

  function lookupQuoted(text, data, budget) {
    var L = R.limits, S = R.logScores;
    if (budget.over() || text.length < L.quote_min_chars) return [];
    var t = target(prepare(text.slice(0, L.quote_chars)), true);
    var found = [];
    candidatesOf(candidatesFor(data), [t.loose], []).forEach(function (i) {
      var entry = data.entries[i], best = null;
      entry.texts.forEach(function (tn, n) {
        [[tn.type, "type", "graph-break type"], [tn.explanation, "explanation", "explanation"]]
          .forEach(function (f) {
            var text = compileText(f[0]);
            if (text.chars < L.quote_min_chars || !matches(text, t, "any")) return;
            var score = S[f[1]] + (n === 0 ? S.current : 0);
            if (!exact(text, t)) score -= S.loose;
            if (!best || score > best.score || (score === best.score && text.chars > best.chars)) {
              best = { score: score, chars: text.chars,
                       why: "quotes the " + f[2] + (tn.period ? " (" + tn.period + ")" : "") };
            }
          });
      });
      if (best) {
        var score = best.score - (entry.removed ? S.removed : 0);
        found.push({ chars: best.chars, match: { entry: entry, score: score, why: best.why } });
      }
    });
    found.sort(function (a, b) {
      return b.match.score - a.match.score || b.chars - a.chars ||
        (a.match.entry.id < b.match.entry.id ? -1 : 1);
    });
    return found.map(function (f) { return f.match; });
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

  // What to say of an id the registry lacks (ids are GB and four digits: their order as
  // strings is their order as numbers).
  function unknownId(id, data) {
    var highest = data.entries.reduce(function (a, e) { return e.id > a ? e.id : a; }, "");
    return format(R.notes[highest && id > highest ? "newer" : "unknown"], {
      id: id, newest: data.newest || "none", highest: highest,
      link: new URL(root + "gb/" + id.toLowerCase() + ".html", location.href).href
    });
  }

  // The matches, best first (for a log, each graph break in log order), with `notes`: what
  // the user should know besides them (engine.find).
  function lookup(query, data) {
    R = data.rules;
    var budget = new Budget();
    function result(matches, notes) { matches.notes = notes; return matches; }
    var m = R.idQuery.exec(query);
    if (m) {
      var entry = data.byId["GB" + m[1]];
      return entry ? result([{ entry: entry, score: R.logScores.link, why: "its id" }], [])
                   : result([], [unknownId("GB" + m[1], data)]);
    }
    var notes = [];
    if (looksLikeLog(query)) {
      notes = linkedIds(query).filter(function (id) { return !data.byId[id]; })
        .map(function (id) { return unknownId(id, data); });
      var found = lookupLog(query, data, budget);
      if (budget.stopped) {
        notes.push(format(R.notes.stopped, { seconds: budget.seconds, done: budget.stopped[0],
                                             total: budget.stopped[1] }));
      }
      if (found.length || budget.stopped) return result(found, notes);
    }
    var quoted = lookupQuoted(query, data, budget);
    if (notes.length) return result(quoted, notes);
    var ids = Object.create(null);
    quoted.forEach(function (q) { ids[q.entry.id] = 1; });
    return result(quoted.concat(lookupWords(query, data.entries).filter(function (w) {
      return !ids[w.entry.id];
    })), notes);
  }

  // ---- loading the index -------------------------------------------------------------------

  var core = window.gbsite;
  var root = core.root;
  var indexPromise = null;
  var loaded = null; // the index, once loaded
  function loadIndex() {
    if (!indexPromise) {
      indexPromise = core.loadScript("assets/search-index.js").then(function () {
        return (loaded = prepareIndex(window.GBSITE_SEARCH));
      });
    }
    return indexPromise;
  }
  function prepareIndex(raw) {
    var byId = Object.create(null);
    var entries = raw.entries.map(function (row, n) {
      var entry = {
        id: row[0], slug: row[0].toLowerCase(), removed: !!row[1], categories: row[2],
        added: raw.releases[row[3]], hasInfo: !!row[4], info: raw.info[n],
        texts: row[5].map(function (t) {
          return { type: t[0], explanation: t[1], context: t[2], hints: t[3], period: t[4] };
        }),
        keys: row[6]
      };
      byId[entry.id] = entry;
      return entry;
    });
    return { entries: entries, byId: byId, categories: raw.categories, releases: raw.releases,
             newest: raw.newest, rules: compileRules(raw.rules) };
  }
  // prepare: tests hand it an index whose rules they changed, to see the ranking follow them.
  window.gbsiteSearch = { lookup: lookup, loadIndex: loadIndex, prepare: prepareIndex };

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
      renderPanel(results, all.length, query, all.notes);
      table.hidden = true;
      status.textContent = matchCount(results.length, all.length);
    });
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "es"); }
  function matchCount(shown, total) {
    if (shown === total) return plural(total, "match");
    return shown + " of " + plural(total, "match") + ": the filters hide " + (total - shown);
  }
  function noteList(notes) {
    return notes.map(function (note) { return el("p", { "class": "search-note" }, [note]); });
  }
  function renderPanel(results, total, query, notes) {
    panel.textContent = "";
    noteList(notes).forEach(function (p) { panel.appendChild(p); });
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
    noteList(results.notes || []).forEach(function (p) { popup.appendChild(p); });
    if (!results.length) {
      if (!popup.firstChild) popup.appendChild(el("p", { "class": "search-note" }, ["No graph break matches."]));
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
