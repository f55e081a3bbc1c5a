// Older graph-break messages (torch 2.0 to 2.7, before the registry) found in a query, for
// search.js: the same steps as gbsite's search/legacy.py, with the patterns it wrote into
// assets/legacy-messages.js. Each pattern is tried where a message can start in a line (its
// start, or after "Unsupported:" or "Reason:"); the one with the most fixed text wins.
(function () {
  "use strict";
  var data = null;

  function prepare(raw) {
    var byWord = Object.create(null), floating = [];
    raw.messages.forEach(function (row) {
      var m = { rx: new RegExp("^(?:" + row[0] + ")"), id: row[1], period: row[2], template: row[3],
                fixed: row[3].replace(/\{[^{}]*\}/g, "").replace(/\s+/g, "").length,
                oneWord: row[3].replace(/\{[^{}]*\}/g, " ").trim().split(/\s+/).length < 2 };
      var lead = row[3].replace(/^\s+/, "");
      if (lead.charAt(0) === "{" || !lead) {
        var chunks = row[3].split(/\{[^{}]*\}/).map(function (p) { return p.replace(/\s+/g, " ").trim(); });
        m.chunk = chunks.reduce(function (a, b) { return b.length > a.length ? b : a; }, "");
        floating.push(m);
      } else {
        (byWord[firstWord(lead)] = byWord[firstWord(lead)] || []).push(m);
      }
    });
    return { byWord: byWord, floating: floating, starts: new RegExp(raw.starts, "g"),
             maxLineChars: raw.maxLineChars, score: raw.score };
  }
  function firstWord(text) {
    var head = text.replace(/^\s+/, "").split(/\{[^{}]*\}/)[0].trim();
    return head ? head.split(/\s+/)[0] : "";
  }

  function find(text) {
    var found = [], lines = text.replace(/\r\n/g, "\n").split("\n");
    lines.forEach(function (line, n) {
      if (line.length > data.maxLineChars || !line.trim()) return;
      var rest = lines.slice(n, n + 8).join("\n");
      var positions = [line.length - line.replace(/^\s+/, "").length], m;
      data.starts.lastIndex = 0;
      while ((m = data.starts.exec(line))) {
        positions.push(m.index + m[0].length);
        if (!m[0].length) data.starts.lastIndex++;
      }
      var best = null;
      positions.forEach(function (pos) {
        var tail = rest.slice(pos);
        var candidates = (data.byWord[firstWord(tail.slice(0, 200))] || []).concat(
          data.floating.filter(function (f) { return line.indexOf(f.chunk) >= 0; }));
        var filled = line.slice(pos).replace(/\s+/g, "").length;
        candidates.forEach(function (c) {
          // A template of one fixed word counts only with something in its placeholders.
          if (c.oneWord && filled <= c.fixed) return;
          if (c.rx.test(tail) && (!best || c.fixed > best.fixed)) best = c;
        });
      });
      if (best && found.indexOf(best) < 0) found.push(best);
    });
    return found;
  }

  function lookup(query, byId) {
    if (!data) return [];
    var out = [];
    find(query).forEach(function (m) {
      var entry = byId[m.id];
      if (entry && !out.some(function (x) { return x.entry.id === m.id; })) {
        out.push({ entry: entry, score: data.score, why: "the older message \"" + m.template +
          "\" (this message is from " + m.period + "; today it is " + m.id + ")" });
      }
    });
    return out;
  }

  function load(core) {
    return core.loadScript("assets/legacy-messages.js").then(function () {
      data = prepare(window.GBSITE_LEGACY);
    });
  }
  window.gbsiteLegacy = { load: load, lookup: lookup };
})();
