(function () {
  'use strict';
  // /watch/{id}?token=T follows /v1/submissions/{id}/events with the
  // browser's EventSource, which reconnects with Last-Event-ID by itself.
  var body = document.body;
  var $ = function (id) { return document.getElementById(id); };
  var segs = location.pathname.split('/');
  var id = decodeURIComponent(segs[segs.length - 1] || '');
  var token = new URLSearchParams(location.search).get('token');
  $('sub').textContent = id;
  document.title = 'docket · ' + id;

  var url = '../v1/submissions/' + encodeURIComponent(id) + '/events';
  if (token) url += '?token=' + encodeURIComponent(token);

  // Verdicts in words, so that a contestant needs no glossary and the
  // page never relies on colour alone.
  var NAMES = {
    AC: 'accepted', WA: 'wrong answer', PE: 'presentation error', TLE: 'time limit exceeded',
    MLE: 'memory limit exceeded', OLE: 'output limit exceeded', RE: 'runtime error',
    CE: 'compilation error', SE: 'judge error', SK: 'skipped'
  };
  // The signals a crashing program usually dies of, by their Linux numbers.
  var SIGNALS = {
    1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS',
    8: 'SIGFPE', 9: 'SIGKILL', 10: 'SIGUSR1', 11: 'SIGSEGV', 12: 'SIGUSR2', 13: 'SIGPIPE',
    14: 'SIGALRM', 15: 'SIGTERM', 24: 'SIGXCPU', 25: 'SIGXFSZ', 31: 'SIGSYS'
  };

  var seen = [];
  var opens = 0;
  var finished = false;
  var attempt = 0;
  var total = 0;     // the problem's number of tests, from the test events
  var lastIndex = 0; // the index of the latest test event
  var compiled = false;
  var rows = new Map();

  function state(s, text) {
    body.dataset.state = s;
    var el = $('status');
    el.textContent = text;
    el.className = 'status ' + s;
  }
  function num(x) { return typeof x === 'number' && isFinite(x); }
  function fmtTime(ms) { return num(ms) ? ms + ' ms' : ''; }
  function fmtMem(kb) {
    if (!num(kb)) return '';
    return kb >= 10240 ? (kb / 1024).toFixed(1) + ' MiB' : kb + ' KiB';
  }
  function fmtScore(x) { return num(x) ? String(Math.round(x * 100) / 100) : '?'; }
  function known(v) { return /^[A-Z]{2,3}$/.test(v || '') ? v : 'pending'; }
  function setVerdict(el, v) {
    el.textContent = v || '…';
    el.className = 'verdict v-' + known(v);
  }
  function show(el, text) {
    el.textContent = text || '';
    el.hidden = !text;
  }
  // why says what ended a run that failed: "exit 3", "SIGSEGV".
  function why(t) {
    if (t.verdict !== 'RE') return '';
    if (num(t.signal) && t.signal > 0) return SIGNALS[t.signal] || 'signal ' + t.signal;
    if (num(t.exit_code) && t.exit_code !== 0) return 'exit ' + t.exit_code;
    if (t.verdict_source === 'seccomp') return 'forbidden system call';
    return '';
  }
  function skipped(t) { return t.verdict === 'SK'; }
  function countRows(pred) {
    var n = 0;
    rows.forEach(function (tr) { if (pred(tr.dataset.verdict)) n++; });
    return n;
  }
  function progress() {
    var done = rows.size;
    var text = '';
    if (finished) {
      var sk = countRows(function (v) { return v === 'SK'; });
      // Of the total the test events announced: a judge error can end
      // judging before every test is reported.
      if (done) text = (done - sk) + ' of ' + Math.max(total, done) + ' tests run' + (sk ? ', ' + sk + ' skipped' : '');
    } else if (total) {
      text = 'test ' + (lastIndex || done) + ' of ' + total + ' finished · ' + Math.max(total - done, 0) + ' remaining';
    } else if (done) {
      text = done + (done === 1 ? ' test' : ' tests') + ' finished';
    } else if (attempt) {
      text = compiled ? 'running the first test' : 'judging started';
    } else if (opens) {
      text = 'queued: waiting for a worker'; // no event yet: no worker took it
    }
    $('progress').textContent = text;
  }
  // about shows the problem and the language, once an event names them.
  function about(o) {
    var box = $('about');
    ['problem', 'language'].forEach(function (k) {
      if (typeof o[k] === 'string' && o[k]) box.dataset[k] = o[k];
    });
    box.replaceChildren();
    ['problem', 'language'].forEach(function (k) {
      if (!box.dataset[k]) return;
      if (box.childNodes.length) box.append(' · ');
      box.append(k + ' ', el('strong', '', box.dataset[k]));
    });
    box.hidden = !box.childNodes.length;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  // verdictCell: the verdict, and for a runtime error what ended the
  // program; a skipped test says so in words.
  function verdictCell(td, t) {
    var v = known(t.verdict);
    var code = el('span', 'verdict v-' + v, skipped(t) ? 'skipped' : t.verdict || '…');
    if (NAMES[v]) code.title = NAMES[v];
    td.replaceChildren(code);
    var w = why(t);
    if (w) td.append(' ', el('span', 'why', w));
  }
  // detailsCell: what the checker said and the program's error output,
  // in the page, not in a tooltip. The bridge has already removed what
  // this token may not see; a test whose details it removed says so
  // rather than looking empty.
  function detailsCell(td, t) {
    td.replaceChildren();
    // An accepted test whose details are hidden lost nothing worth
    // saying: its row stays quiet rather than repeat "hidden" per test.
    var hidden = !!t.feedback_hidden && t.verdict !== 'AC';
    td.className = 'details' + (skipped(t) || hidden ? ' quiet' : '');
    if (skipped(t)) {
      td.textContent = 'not run: an earlier test failed';
    } else if (hidden) {
      td.textContent = 'details hidden';
      $('hidden-note').hidden = false;
    } else {
      if (t.feedback) td.append(el('div', 'feedback', t.feedback));
      if (t.stderr_excerpt) td.append(el('div', 'label', 'stderr:'), el('pre', 'stderr', t.stderr_excerpt));
    }
  }

  // One row per test, keyed by its name (arrival order when it has none).
  function testRow(t, key) {
    var tr = rows.get(key);
    if (!tr) {
      tr = document.createElement('tr');
      ['idx', 'name', 'verdict', 'time', 'mem', 'details'].forEach(function (c) { tr.appendChild(el('td', c)); });
      $('tests').tBodies[0].appendChild(tr);
      rows.set(key, tr);
      tr.dataset.key = key;
      tr.children[0].textContent = String(rows.size);
    }
    var c = tr.children;
    tr.dataset.verdict = t.verdict || '';
    tr.dataset.name = t.name || '';
    c[1].textContent = t.name || '';
    verdictCell(c[2], t);
    // A skipped test never ran: no time or memory to show.
    c[3].textContent = skipped(t) ? '' : fmtTime(t.time_ms);
    c[4].textContent = skipped(t) ? '' : fmtMem(t.memory_kb);
    detailsCell(c[5], t);
    $('no-tests').hidden = true;
    $('tests').hidden = false;
  }
  function clearRun() {
    rows.clear();
    $('tests').tBodies[0].replaceChildren();
    $('groups').replaceChildren();
    $('groups-section').hidden = true;
    $('compile').hidden = true;
    compiled = false;
    $('hidden-note').hidden = true;
    $('no-tests').hidden = false;
    $('tests').hidden = true;
    total = 0;
    lastIndex = 0;
    progress();
  }
  function showCompile(c) {
    compiled = !!c.ok;
    $('compile').hidden = false;
    $('compile-status').textContent = c.ok ? 'compiled' : 'compilation failed';
    show($('compile-log'), c.log);
  }
  // firstFailure names the first test that was not accepted, and why.
  function firstFailure() {
    var out = '';
    rows.forEach(function (tr) {
      var v = tr.dataset.verdict;
      if (out || !v || v === 'AC' || v === 'SK') return;
      out = 'first failed test: ' + tr.dataset.name + ' (' + tr.children[2].textContent + ')';
    });
    return out;
  }
  // explain says in words what a final verdict means for the contestant.
  function explain(r) {
    if (r.verdict === 'CE') return 'The submission did not compile, so no test was run.' + (r.compile && r.compile.log ? " The compiler's output is under Compile." : '');
    if (r.verdict === 'SE') return 'The judge could not finish judging this submission. This is not a verdict on the program; the jury can rejudge it.';
    return firstFailure();
  }
  function noTests(r) {
    if (r.verdict === 'CE') return 'No test was run: the submission did not compile.';
    if (r.verdict === 'SE') return 'No test was run: the judge stopped with an error (above).';
    return 'No test was run.';
  }

  var handlers = {
    started: function (ev) {
      var a = ev.attempt || 1;
      if (a !== attempt) {
        if (attempt) clearRun(); // a redelivered job starts over
        attempt = a;
      }
      $('attempt').textContent = 'attempt ' + a + (ev.worker ? ' on ' + ev.worker : '');
      about(ev);
      progress();
    },
    compile: function (ev) {
      showCompile(ev.compile || {});
      progress();
    },
    test: function (ev) {
      var t = ev.test || {};
      if (num(ev.total)) total = ev.total;
      if (num(ev.index)) lastIndex = ev.index;
      testRow(t, t.name || '#' + (rows.size + 1));
      progress();
    },
    group: function (ev) {
      var g = ev.group || {};
      var v = known(g.verdict);
      var li = el('li', '', (g.name || 'group') + ': ' + fmtScore(g.score) + ' / ' + fmtScore(g.max_score) + ' ');
      if (g.verdict) li.append(el('span', 'verdict v-' + v, v === 'SK' ? 'skipped' : g.verdict));
      $('groups').appendChild(li);
      $('groups-section').hidden = false;
    },
    final: function (ev) {
      var r = ev.result || {};
      finished = true;
      es.close(); // else EventSource would reconnect once the stream ends
      about(r);
      if (Array.isArray(r.tests)) r.tests.forEach(function (t, i) { testRow(t, t.name || '#' + (i + 1)); });
      // A compile error's log (or, without a compile, its reason) is the
      // one thing a contestant needs: shown even without a compile event.
      var c = r.compile || {};
      if (r.verdict === 'CE' || c.log) showCompile(c);
      progress();
      setVerdict($('verdict'), r.verdict);
      $('verdict-name').textContent = NAMES[r.verdict] || '';
      // A judge error is no verdict: its score of 0 would read as one.
      var scored = r.verdict !== 'SE' && num(r.max_score) && r.max_score > 0;
      $('score').textContent = scored ? fmtScore(r.score) + ' / ' + fmtScore(r.max_score) : '';
      show($('explain'), explain(r));
      show($('error'), r.error);
      var parts = [];
      if (rows.size && num(r.time_ms)) parts.push('time ' + fmtTime(r.time_ms));
      if (rows.size && num(r.memory_kb)) parts.push('memory ' + fmtMem(r.memory_kb));
      if (r.worker) parts.push('judged by ' + r.worker);
      $('summary').textContent = parts.join(' · ');
      if (!rows.size) $('no-tests').textContent = noTests(r);
      $('final').hidden = false;
      state('done', 'finished');
    }
  };

  // EventSource reconnects by itself (with Last-Event-ID) when a stream
  // ends or breaks, but gives up for good on an HTTP error (a 503 while
  // NATS is away, say); then the page starts a new one, resuming with
  // ?last_event_id=, with a growing delay.
  var es = null;
  var lastId = '';
  var delay = 2000;
  function connect() {
    var u = url;
    if (lastId) u += (u.indexOf('?') < 0 ? '?' : '&') + 'last_event_id=' + encodeURIComponent(lastId);
    var src = new EventSource(u);
    es = src;
    src.onopen = function () {
      opens++;
      body.dataset.opens = String(opens);
      delay = 2000;
      if (!finished) state('live', 'live');
      progress();
    };
    src.onerror = function () {
      if (finished || src !== es) return;
      if (src.readyState === EventSource.CLOSED) {
        state('reconnecting', 'connection lost; retrying in ' + Math.round(delay / 1000) + ' s');
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      } else {
        state('reconnecting', 'reconnecting…');
      }
    };
    Object.keys(handlers).forEach(function (type) {
      src.addEventListener(type, function (e) {
        if (src !== es) return;
        lastId = e.lastEventId;
        seen.push(e.lastEventId);
        body.dataset.seen = seen.join(',');
        body.dataset.lastEventId = e.lastEventId;
        var ev;
        try { ev = JSON.parse(e.data); } catch (err) { return; }
        handlers[type](ev);
      });
    });
  }
  connect();
})();
