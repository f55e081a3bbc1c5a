// gbsite search engine: what `gbsite lookup` does (src/gbsite/search/), in the browser. No page
// in here (no document, no window, no location): search.js, the search box, loads it first and
// calls it. It keeps no rules of its own: the patterns, weights, scores, stop words and limits of
// src/gbsite/search/rules.py come with the search index (its "rules"), so it cannot drift from
// `gbsite lookup`. tests/test_browser_search.py runs the same queries through both.
//
// Each function is named after its Python twin (snake_case to camelCase, a leading _ dropped),
// to be read side by side:
//
//   JavaScript                  Python (src/gbsite/search/)
//   --------------------------  ---------------------------------------------------------------
//   compileRules                rules.pattern, for every pattern of rules.as_json at once
//   squash                      logs._squash
//   loose                       match.loose
//   hasCut                      match.has_cut
//   compileText                 match.compile_text (with match.parts_of)
//   target                      match.target
//   restInOrder                 match._rest_in_order
//   firstAtBound                match._first_at_bound
//   matches                     match.matches
//   exact                       match.exact
//   cutFrom                     match._cut_from
//   cutMatch                    match.cut_match
//   cutStarts                   match.cut_starts
//   Candidates                  match.Candidates (the keys of match.keys_of, from the index)
//   Candidates.prototype.of     match.Candidates.of
//   candidatesFor               logs.candidates_for
//   prepare                     logs.prepare
//   LogRecord                   logs.LogRecord
//   parseLog                    logs.parse_log
//   recordsWithoutExplanations  logs._records_without_explanations
//   reasonEnd                   logs._reason_end
//   lineEnd                     logs._line_end
//   Targets                     logs._Targets
//   part                        logs._part
//   scoreRecord                 logs.score_record
//   best                        logs._best
//   Budget                      logs.Budget
//   Budget.prototype.over       logs.Budget.over
//   lookupLog                   logs.lookup_log
//   linkedIds                   logs.linked_ids
//   lookupQuoted                logs.lookup_quoted
//   queryWords                  words.query_words
//   wordsOf                     words._words_of
//   fields                      words._fields
//   wordScore                   words._Word.score
//   lookupWords                 words.lookup_words
//   pagePath                    engine.page_path
//   find                        engine.find
//   unknownId                   engine.unknown_id
//   looksLikeLog                engine.looks_like_log
//   parseIndex                  index.parse_index_bytes (the index as index.index_js writes it)
//
// Helpers with no twin (Python has them built in): setOf (a set), words (a pattern's findall),
// format (str.format).
(function (global) {
  "use strict";

  // ---- the rules (src/gbsite/search/rules.py), as the index carries them ---------------------

  // The rules of the index being searched, compiled (compileRules): set by find().
  var rules = null;

  function compileRules(raw) {
    function pattern(name, extraFlags) {
      var source = raw.patterns[name];
      return new RegExp(source[0], source[1] + (extraFlags || ""));
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
      userCodeAt: pattern("user_code_at"),
      counterEntry: pattern("counter_entry", "g"),
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

  function squash(text) { return text.replace(/\s+/g, " ").trim(); }
  function words(text) { return text.toLowerCase().match(rules.word) || []; }
  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, name) { return String(values[name]); });
  }

  // ---- registry texts against a log's text (src/gbsite/search/match.py) ---------------------

  var GRAM = 8;
  function loose(text) { return text.replace(rules.loose, ""); }
  function hasCut(looseText) { return looseText.indexOf("...") >= 0 || looseText.indexOf("\u2026") >= 0; }

  // Unless literal (an older or adjacent message), a text that is only a Python expression is
  // not usable (match.compile_text).
  function compileText(value, literal) {
    var key = (literal ? "1" : "0") + value;
    var found = rules.texts[key];
    if (!found) {
      var pieces = value.indexOf("{") >= 0 ? value.split(rules.placeholder) : [value];
      var loosePieces = pieces.map(loose);
      var parts = loosePieces.filter(Boolean);
      var stripped = value.trim();
      var strict = [];
      pieces.forEach(function (piece, i) {
        var solid = piece.replace(/\s+/g, "");
        if (loosePieces[i] && solid) strict.push(solid);
      });
      found = rules.texts[key] = {
        parts: parts, strict: strict,
        openStart: !loosePieces[0], openEnd: !loosePieces[loosePieces.length - 1],
        chars: parts.join("").length,
        usable: !!parts.length && (!!literal || !rules.runtimeExpression.test(stripped)) &&
          !!stripped.split(rules.placeholder).join("").trim()
      };
    }
    return found;
  }

  var EMPTY = { loose: "", strict: "", bounds: Object.create(null), order: [], cuts: [],
                strong: Object.create(null), strongOrder: [] };
  function target(text, withBounds) {
    if (!text) return EMPTY;
    var out = loose(text), bounds = Object.create(null), order = [], m;
    var strong = Object.create(null), strongOrder = [];
    function sorted(set) { return Object.keys(set).map(Number).sort(function (a, b) { return a - b; }); }
    if (withBounds) {
      bounds[0] = strong[0] = 1;
      var removed = 0;
      rules.loose.lastIndex = 0;
      while ((m = rules.loose.exec(text))) {
        bounds[m.index - removed] = 1;
        removed += m[0].length;
      }
      for (var i = 0; i < out.length; i++) {
        if (rules.boundary.indexOf(out[i]) >= 0) bounds[i + 1] = strong[i + 1] = 1;
      }
      order = sorted(bounds);
      strongOrder = sorted(strong);
    }
    var cuts = [];
    if (hasCut(out)) {
      rules.cut.lastIndex = 0;
      while ((m = rules.cut.exec(out)) && cuts.length < rules.limits.cuts) cuts.push(m.index);
    }
    return { loose: out, strict: text.replace(/\s+/g, ""), bounds: bounds, order: order, cuts: cuts,
             strong: strong, strongOrder: strongOrder };
  }

  function restInOrder(parts, looseText, pos) {
    for (var i = 0; i < parts.length; i++) {
      var found = looseText.indexOf(parts[i], pos);
      if (found < 0) return -1;
      pos = found + parts[i].length;
    }
    return pos;
  }
  function firstAtBound(part, t, bounds) {
    bounds = bounds || t.bounds;
    var found = t.loose.indexOf(part);
    while (found >= 0 && !bounds[found]) found = t.loose.indexOf(part, found + 1);
    return found;
  }

  function matches(text, t, mode) {
    if (!text.usable || !t.loose) return false;
    var parts = text.parts, looseText = t.loose, start;
    if (mode === "prefix") {
      if (!text.openStart && !looseText.startsWith(parts[0])) return false;
      return restInOrder(parts, looseText, 0) >= 0;
    }
    if (mode === "any" && text.openStart) return restInOrder(parts, looseText, 0) >= 0;
    if (mode === "any") {
      start = firstAtBound(parts[0], t);
      return start >= 0 && restInOrder(parts.slice(1), looseText, start + parts[0].length) >= 0;
    }
    // suffix and header: ends at the end of the target, starts at a boundary
    var bounds = mode === "header" ? t.strong : t.bounds;
    var last = parts[parts.length - 1], limit;
    if (text.openEnd) {
      limit = looseText.length;
    } else if (!looseText.endsWith(last)) {
      return false;
    } else {
      limit = looseText.length - last.length;
      if (parts.length === 1) return text.openStart || !!bounds[limit];
      parts = parts.slice(0, -1);
    }
    var end;
    if (text.openStart) {
      end = restInOrder(parts, looseText, 0);
    } else {
      start = firstAtBound(parts[0], t, bounds);
      end = start < 0 ? -1 : restInOrder(parts.slice(1), looseText, start + parts[0].length);
    }
    return end >= 0 && end <= limit;
  }

  function exact(text, t) {
    return text.strict.every(function (part) { return t.strict.indexOf(part) >= 0; });
  }

  function cutFrom(text, looseText, start) {
    var rest = looseText.slice(start), first = text.parts[0], min = rules.limits.cut_min_chars;
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
      var looseText = t.loose.slice(0, cut);
      if (mode === "prefix") return cutFrom(text, looseText, 0);
      return (mode === "header" ? t.strongOrder : t.order).some(function (bound) {
        return bound < cut && cutFrom(text, looseText, bound);
      });
    });
  }

  function cutStarts(t, mode) {
    var out = [];
    t.cuts.forEach(function (cut) {
      var starts = mode === "prefix" ? [0] : t.order.filter(function (bound) { return bound < cut; });
      starts.forEach(function (bound) {
        if (cut - bound >= rules.limits.cut_min_chars) out.push(t.loose.slice(bound, bound + GRAM));
      });
    });
    return out;
  }

  // The pre-filter: each entry's keys (match.keys_of, in the index) against the grams of
  // a log's text; never leaves out an entry that could match.
  function Candidates(entries) {
    this.grams = Object.create(null);
    this.starts = Object.create(null);
    this.shorts = Object.create(null);
    var tables = { g: this.grams, s: this.starts, w: this.shorts };
    entries.forEach(function (entry, i) {
      entry.keys.split(" ").forEach(function (key) {
        if (!key) return;
        var table = tables[key[0]], rest = key.slice(2);
        (table[rest] || (table[rest] = [])).push(i);
      });
    });
  }
  Candidates.prototype.of = function (texts, starts) {
    var candidates = this, found = Object.create(null);
    function add(indexes) { if (indexes) indexes.forEach(function (i) { found[i] = 1; }); }
    texts = texts.filter(Boolean);
    texts.forEach(function (looseText) {
      var seen = Object.create(null);
      for (var i = 0; i + GRAM <= looseText.length; i++) {
        var key = looseText.slice(i, i + GRAM);
        if (!seen[key]) { seen[key] = 1; add(candidates.grams[key]); }
      }
    });
    var joined = texts.join("\n");
    if (joined) {
      Object.keys(candidates.shorts).forEach(function (key) {
        if (joined.indexOf(key) >= 0) add(candidates.shorts[key]);
      });
    }
    starts.forEach(function (key) { add(candidates.starts[key]); });
    return Object.keys(found).map(Number).sort(function (a, b) { return a - b; });
  };

  // ---- reading a log (src/gbsite/search/logs.py) --------------------------------------------

  // The pre-filter of an index's entries, made once.
  function candidatesFor(data) {
    if (!data.candidates) data.candidates = new Candidates(data.entries);
    return data.candidates;
  }

  var ESCAPES = { n: "\n", r: "\n", t: " ", "'": "'", "\"": "\"", "\\": "\\" };
  function prepare(text) {
    text = text.replace(/\r\n/g, "\n");
    if (text.indexOf("\\") >= 0) {
      text = text.replace(rules.escape, function (escape) { return ESCAPES[escape[escape.length - 1]]; });
    }
    return text.replace(rules.logPrefix, "");
  }

  function LogRecord(before, explanation, hints, context, urlId) {
    return { before: before, explanation: explanation, hints: hints, context: context, urlId: urlId };
  }

  function parseLog(text) {
    text = prepare(text);
    var marks = [], m;
    rules.markers.lastIndex = 0;
    while ((m = rules.markers.exec(text))) marks.push({ text: m[0], index: m.index, end: m.index + m[0].length });
    var explanation = rules.marks.explanation;
    if (!marks.some(function (mark) { return mark.text === explanation; })) {
      return recordsWithoutExplanations(text, marks);
    }
    var fieldChars = rules.limits.field_chars;
    var names = Object.create(null);
    names[rules.marks.explanation] = 0; names[rules.marks.hint] = 1; names[rules.marks.context] = 2;
    var records = [], recordFields = null, before = "", urlId = null;
    function finish() {
      if (!recordFields) return;
      var said = recordFields.map(function (bodies) { return squash(bodies.join(" ").slice(0, fieldChars)); });
      records.push(LogRecord(before, said[0], said[1], said[2], urlId));
    }
    marks.forEach(function (mark, i) {
      var stop = i + 1 < marks.length ? marks[i + 1].index : text.length;
      var body = text.slice(mark.end, Math.min(stop, mark.end + fieldChars));
      if (mark.text === explanation) {
        finish();
        var start = i ? marks[i - 1].end : 0;
        before = squash(text.slice(Math.max(start, mark.index - rules.limits.before_chars), mark.index));
        recordFields = [[], [], []];
        urlId = null;
      }
      if (!recordFields) return;
      if (mark.text in names) recordFields[names[mark.text]].push(body);
      else if (mark.text.indexOf(rules.marks.link) === 0 && urlId === null) {
        var found = rules.urlId.exec(body);
        urlId = found ? "GB" + found[1] : null;
      }
    });
    finish();
    return records;
  }

  function recordsWithoutExplanations(text, marks) {
    var found = [], m, fieldChars = rules.limits.field_chars;
    marks.forEach(function (mark, i) {
      if (mark.text === rules.marks.older_reason) { // the message, up to the user_code_at pattern
        var line = text.slice(mark.end, lineEnd(text, mark.end, marks[i + 1]));
        var said = squash(line.split(rules.userCodeAt)[0]);
        if (said) found.push([mark.index, LogRecord(said, "", "", "", null)]);
        return;
      }
      if (mark.text !== rules.marks.reason && mark.text.indexOf(rules.marks.explain) !== 0) return;
      var end = reasonEnd(text, mark.end, marks[i + 1]);
      found.push([mark.index, LogRecord(squash(text.slice(mark.end, end)), "", "", "", null)]);
    });
    rules.exceptionHeader.lastIndex = 0;
    while ((m = rules.exceptionHeader.exec(text))) {
      var header = m[1].slice(0, rules.limits.before_chars).replace(rules.reprEnd, "");
      found.push([m.index, LogRecord(squash(header), "", "", "", null)]);
    }
    rules.counterEntry.lastIndex = 0;
    while ((m = rules.counterEntry.exec(text))) {
      found.push([m.index, LogRecord(squash(m[1]), "", "", "", null)]);
    }
    rules.userWarning.lastIndex = 0;
    while ((m = rules.userWarning.exec(text))) {
      found.push([m.index, LogRecord("", squash(m[1].slice(0, fieldChars)),
                                     squash(m[2].slice(0, fieldChars)), "", null)]);
    }
    found.sort(function (a, b) { return a[0] - b[0]; });
    return found.map(function (place) { return place[1]; });
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
  function lineEnd(text, start, next) {
    var newline = text.indexOf("\n", start);
    var stops = [];
    if (next) stops.push(next.index);
    if (newline >= 0) stops.push(newline);
    return stops.length ? Math.min.apply(null, stops) : text.length;
  }

  // A record's fields, ready to match.
  function Targets(record) {
    return { before: target(record.before, true), explanation: target(record.explanation),
             context: target(record.context), hints: target(record.hints) };
  }

  // [penalty, how]: how is "exact", "loose" or "cut", or "" when the text does not match.
  function part(value, t, mode, literal) {
    var text = compileText(value, literal), logScores = rules.logScores;
    if (matches(text, t, mode)) return exact(text, t) ? [0, "exact"] : [logScores.loose, "loose"];
    if (mode !== "any" && cutMatch(text, t, mode)) return [logScores.cut, "cut"];
    return [0, ""];
  }

  // How well the entry's texts of one tier match: today's registry texts, or (older) the
  // wordings from before the registry.
  function scoreRecord(entry, targets, older) {
    var bestScore = 0, why = "", bestChars = 0, logScores = rules.logScores;
    entry.texts.forEach(function (text, n) {
      if (text.older !== older) return;
      var score = 0, reasons = [], chars = 0;
      [[text.type, targets.before, older ? "header" : "suffix", "type", "graph-break type"],
       [text.explanation, targets.explanation, "prefix", "explanation", "explanation"],
       [text.context, targets.context, "prefix", "context", "context"]].forEach(function (field) {
        var value = field[0], fieldTarget = field[1], mode = field[2], points = field[3], name = field[4];
        if (!value || !fieldTarget.loose) return;
        var found = part(value, fieldTarget, mode, older);
        if (!found[1]) return;
        score += logScores[points] - found[0];
        chars += compileText(value, older).chars;
        reasons.push(found[1] === "cut" ? "start of the " + name : name);
      });
      var hits = targets.hints.loose ? text.hints.filter(function (hint) {
        return squash(hint).length >= logScores.hint_min_chars &&
          matches(compileText(hint), targets.hints, "any");
      }).length : 0;
      if (hits) { score += logScores.hint * hits; reasons.push("hints"); }
      if (score && n === 0) score += logScores.current;
      if (score && (score > bestScore || (score === bestScore && chars > bestChars))) {
        bestScore = score;
        bestChars = chars;
        why = "matches the " + reasons.join(", ") + (text.period ? " (" + text.period + ")" : "");
      }
    });
    if (bestScore && entry.removed) bestScore -= logScores.removed;
    return [bestScore, why, bestChars];
  }

  // The entry whose registry texts match the record best, if one matches well enough; and the
  // entry an older wording names, when it is another one (second), or alone.
  function best(record, data) {
    var recordTexts = [record.before, record.explanation, record.context, record.hints].map(loose);
    var starts = [];
    if (recordTexts.slice(0, 3).some(hasCut)) {
      starts = starts.concat(cutStarts(target(record.before, true), "suffix"),
        cutStarts(target(record.explanation), "prefix"), cutStarts(target(record.context), "prefix"));
    }
    var found = candidatesFor(data).of(recordTexts, starts);
    if (!found.length) return [];
    var targets = Targets(record), tops = [];
    [false, true].forEach(function (older) {
      var scored = found.map(function (i) { return [scoreRecord(data.entries[i], targets, older), data.entries[i]]; });
      var top = [0, 0];
      scored.forEach(function (s) {
        if (s[0][0] > top[0] || (s[0][0] === top[0] && s[0][2] > top[1])) top = [s[0][0], s[0][2]];
      });
      if (top[0] < rules.logScores.threshold) return;
      // The best; for an older wording that several ids replaced, each of them (a tie).
      scored.forEach(function (s) {
        if (s[0][0] !== top[0] || s[0][2] !== top[1]) return;
        if (tops.every(function (m) { return m.entry.id !== s[1].id; })) {
          tops.push({ entry: s[1], score: s[0][0], why: s[0][1] });
        }
      });
      if (!older && tops.length) tops = tops.slice(0, 1);
    });
    return tops;
  }

  // The time a lookup may take (limits "seconds"), and how far it got.
  function Budget() {
    this.seconds = rules.limits.seconds;
    this.deadline = Date.now() + this.seconds * 1000;
    this.stopped = null;
  }
  Budget.prototype.over = function () { return Date.now() >= this.deadline; };

  function lookupLog(text, data, budget) {
    var found = [], seen = Object.create(null), link = rules.logScores.link, byId = data.byId;
    var scored = Object.create(null); // a log repeats its breaks: each scored once
    var records = parseLog(text);
    for (var n = 0; n < records.length; n++) {
      if (budget.over()) { budget.stopped = [n, records.length]; break; }
      var record = records[n], matched;
      if (record.urlId && byId[record.urlId]) {
        matched = [{ entry: byId[record.urlId], score: link, why: "the link in your log" }];
      } else {
        var key = [record.before, record.explanation, record.hints, record.context].join("\u0000");
        if (!(key in scored)) scored[key] = best(record, data);
        matched = scored[key];
      }
      matched.forEach(function (match) {
        if (!seen[match.entry.id]) { seen[match.entry.id] = 1; found.push(match); }
      });
    }
    // Links without a parsed record (a log cut short) still name their entries.
    linkedIds(text).forEach(function (id) {
      if (byId[id] && !seen[id]) {
        seen[id] = 1;
        found.push({ entry: byId[id], score: link, why: "the link in your log" });
      }
    });
    return found;
  }

  function linkedIds(text) {
    var ids = [], seen = Object.create(null), m;
    rules.urlIdAll.lastIndex = 0;
    while ((m = rules.urlIdAll.exec(text))) {
      var id = "GB" + m[1];
      if (!seen[id]) { seen[id] = 1; ids.push(id); }
    }
    return ids;
  }

  function lookupQuoted(text, data, budget) {
    var limits = rules.limits, logScores = rules.logScores;
    if (budget.over() || text.length < limits.quote_min_chars) return [];
    var t = target(prepare(text.slice(0, limits.quote_chars)), true);
    var found = [];
    candidatesFor(data).of([t.loose], []).forEach(function (i) {
      var entry = data.entries[i], top = null;
      entry.texts.forEach(function (textN, n) {
        [[textN.type, "type", "graph-break type"], [textN.explanation, "explanation", "explanation"]]
          .forEach(function (field) {
            var value = field[0], points = field[1], name = field[2];
            var compiled = compileText(value, textN.older);
            if (compiled.chars < limits.quote_min_chars || !matches(compiled, t, "any")) return;
            var score = logScores[points] + (n === 0 ? logScores.current : 0);
            if (!exact(compiled, t)) score -= logScores.loose;
            // A registry text before an older wording, then the higher score, the longer quote.
            if (!top || (top.older && !textN.older) || (top.older === textN.older &&
                (score > top.score || (score === top.score && compiled.chars > top.chars)))) {
              top = { score: score, chars: compiled.chars, older: textN.older,
                      why: "quotes the " + name + (textN.period ? " (" + textN.period + ")" : "") };
            }
          });
      });
      if (top) {
        var score = top.score - (entry.removed ? logScores.removed : 0);
        found.push({ chars: top.chars, older: top.older, match: { entry: entry, score: score, why: top.why } });
      }
    });
    // Entries a registry text is quoted from first: an older wording's id follows them.
    found.sort(function (a, b) {
      return (a.older ? 1 : 0) - (b.older ? 1 : 0) || b.match.score - a.match.score || b.chars - a.chars ||
        (a.match.entry.id < b.match.entry.id ? -1 : 1);
    });
    return found.map(function (quote) { return quote.match; });
  }

  // ---- ranking by words (src/gbsite/search/words.py) ----------------------------------------

  function queryWords(query) {
    var all = words(query);
    var meaningful = all.filter(function (word) { return !rules.stopWords[word]; });
    return meaningful.length ? meaningful : all;
  }

  function wordsOf(text) { return words(text).join(" "); }

  // Each field of the entry that has text: its weight, its words and its lower-case text.
  function fields(entry) {
    if (!entry.fields) {
      var values = [], weights = rules.weights;
      entry.texts.forEach(function (text, n) {
        values.push([n === 0 ? weights.type : weights.old_type, text.type]);
        values.push([weights.explanation, text.explanation], [weights.context, text.context],
                    [weights.hints, text.hints.join(" ")]);
      });
      values.push([weights.info, entry.info]);
      entry.fields = values.filter(function (value) { return value[1]; }).map(function (value) {
        var lower = value[1].toLowerCase();
        return { weight: value[0], vocab: setOf(words(lower)), value: lower };
      });
    }
    return entry.fields;
  }

  // How a query word occurs in the fields: as a whole word, as the start of one (the last word,
  // as you type) or inside one.
  function wordScore(word, last, entryFields) {
    var top = 0, wordScores = rules.wordScores;
    entryFields.forEach(function (field) {
      if (field.vocab[word]) top = Math.max(top, field.weight);
      else if (last && Object.keys(field.vocab).some(function (known) { return known.indexOf(word) === 0; }))
        top = Math.max(top, field.weight * wordScores.prefix);
      else if (word.length >= wordScores.inside_min_chars && field.value.indexOf(word) >= 0)
        top = Math.max(top, field.weight * wordScores.inside);
    });
    return top;
  }

  var WEAK = "matches some of your words"; // words.py's WEAK

  function lookupWords(query, entries) {
    // Each distinct word once, and at most max_words of them (a whole log has thousands).
    var seen = Object.create(null);
    var texts = queryWords(query).filter(function (word) { return !seen[word] && (seen[word] = 1); })
      .slice(0, rules.limits.max_words);
    if (!texts.length) return [];
    var wordScores = rules.wordScores;
    var phrase = wordsOf(query); // "data dependent" finds "Data-dependent"
    // A phrase is two words or more (words.py says why).
    var phraseCounts = phrase.length >= wordScores.phrase_min_chars && phrase.indexOf(" ") >= 0;
    var phraseWords = phrase.split(" ").length;
    var scored = [];
    entries.forEach(function (entry) {
      var entryFields = fields(entry);
      var scores = texts.map(function (word, i) { return wordScore(word, i === texts.length - 1, entryFields); });
      var matched = scores.filter(function (score) { return score; }).length;
      if (!matched) return;
      var total = scores.reduce(function (a, b) { return a + b; }, 0);
      if (phraseCounts) {
        var typeWords = wordsOf(entry.texts[0].type);
        if (typeWords.indexOf(phrase) >= 0)
          total += wordScores.phrase_type + wordScores.phrase_type * phraseWords / typeWords.split(" ").length;
        else if (entry.texts.some(function (text) { return wordsOf(text.explanation).indexOf(phrase) >= 0; }))
          total += wordScores.phrase_explanation;
      }
      if (entry.removed) total -= wordScores.removed;
      scored.push([matched, { entry: entry, score: total,
        why: matched === texts.length ? "matches your words" : WEAK }]);
    });
    var complete = scored.filter(function (pair) { return pair[0] === texts.length; });
    if (!complete.length) {
      var half = Math.max(Math.floor((texts.length + 1) / 2), 1);
      complete = scored.filter(function (pair) { return pair[0] >= half; });
    }
    return complete.map(function (pair) { return pair[1]; }).sort(function (a, b) {
      return b.score - a.score || (a.entry.id < b.entry.id ? -1 : 1);
    });
  }

  // ---- an id, a log or words (src/gbsite/search/engine.py) ----------------------------------

  function pagePath(id) { return "gb/" + id.toLowerCase() + ".html"; }

  // The matches, best first (for a log, each graph break in log order), with `notes`: what
  // the user should know besides them. `link` gives an id's page URL (for the note on an id
  // the registry lacks).
  function find(query, data, link) {
    rules = data.rules;
    var budget = new Budget();
    function result(found, notes) { found.notes = notes; return found; }
    var m = rules.idQuery.exec(query);
    if (m) {
      var id = "GB" + ("000" + m[1]).slice(-4);
      var entry = data.byId[id];
      return entry ? result([{ entry: entry, score: rules.logScores.link, why: "its id" }], [])
                   : result([], [unknownId(id, data, link)]);
    }
    var notes = [];
    if (looksLikeLog(query)) {
      notes = linkedIds(query).filter(function (id) { return !data.byId[id]; })
        .map(function (id) { return unknownId(id, data, link); });
      var found = lookupLog(query, data, budget);
      if (budget.stopped) {
        notes.push(format(rules.notes.stopped, { seconds: budget.seconds, done: budget.stopped[0],
                                                 total: budget.stopped[1] }));
      }
      if (found.length || budget.stopped) return result(found, notes);
    }
    var quoted = lookupQuoted(query, data, budget);
    if (notes.length) return result(quoted, notes); // a log that links a page the registry lacks
    var ids = Object.create(null);
    quoted.forEach(function (match) { ids[match.entry.id] = 1; });
    var words = lookupWords(query, data.entries);
    if (!quoted.length && words.length && words[0].why === WEAK) notes.push(rules.notes.weak);
    return result(quoted.concat(words.filter(function (match) {
      return !ids[match.entry.id];
    })), notes);
  }

  // What to say of an id the registry lacks (ids are GB and four digits: their order as
  // strings is their order as numbers).
  function unknownId(id, data, link) {
    var highest = data.entries.reduce(function (top, entry) { return entry.id > top ? entry.id : top; }, "");
    return format(rules.notes[highest && id > highest ? "newer" : "unknown"], {
      id: id, newest: data.newest || "none", highest: highest, link: link(id)
    });
  }

  function looksLikeLog(query) {
    var lower = query.toLowerCase();
    rules.exceptionHeader.lastIndex = 0;
    return rules.logSigns.some(function (sign) { return query.indexOf(sign) >= 0; }) ||
      rules.logSignsAnyCase.some(function (sign) { return lower.indexOf(sign) >= 0; }) ||
      rules.urlId.test(query) || rules.exceptionHeader.test(query);
  }

  // ---- the search index (src/gbsite/search/index.py) ----------------------------------------

  // The index as index.index_js writes it (window.GBSITE_SEARCH), ready to search.
  function parseIndex(raw) {
    var byId = Object.create(null);
    var entries = raw.entries.map(function (row, n) {
      var entry = {
        id: row[0], slug: row[0].toLowerCase(), removed: !!row[1], categories: row[2],
        added: raw.releases[row[3]], hasInfo: !!row[4], info: raw.info[n],
        texts: row[5].map(function (text) {
          return { type: text[0], explanation: text[1], context: text[2], hints: text[3], period: text[4],
                   older: text.length > 5 };
        }),
        keys: row[6]
      };
      byId[entry.id] = entry;
      return entry;
    });
    return { entries: entries, byId: byId, categories: raw.categories, releases: raw.releases,
             newest: raw.newest, rules: compileRules(raw.rules) };
  }

  // What search.js uses. queryWords reads the rules of the last find (those of its results).
  global.gbsiteSearchEngine = {
    find: find, parseIndex: parseIndex, pagePath: pagePath, queryWords: queryWords, squash: squash
  };
})(globalThis);
